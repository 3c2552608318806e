"""Fixtures shared by the network tests: a real host on 127.0.0.1, a raw request socket, and
the test game with private data (``toy_game``, a whole game package) in the registry."""

from __future__ import annotations

import gc
import logging
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_net_support import Raw, running_host

from sagani_net import games
from sagani_net.bots import base
from sagani_net.host import Host
from sagani_net.limits import QuietRepeats

# Python compiles each module it has no bytecode for at every start, and writes none where
# PYTHONDONTWRITEBYTECODE is set (as on the team's machines): every `sagani` a test starts would
# compile the whole project again (about 0.1 s each), and every xdist worker the tests' rewritten
# asserts. The workers and the processes the tests start write it beside the sources, as Python
# does by default (__pycache__ is ignored by git). Not a scratch PYTHONPYCACHEPREFIX: Python
# then reads no bytecode of the standard library or the installed packages from their own
# __pycache__, and a machine that never ran the suite compiled all of them in each worker.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# A suite started with SIGINT ignored (a shell's background job: `.ci/run &`) passed that on to
# every process its tests start, and the tests of Ctrl-C found their commands deaf to it.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

#: The registry name of Hands, the tests' game (tests/toy_game/), and its package: the one line
#: that registers it is ``games.PACKAGES[TOY] = TOY_PACKAGE``.
TOY = "toy"
TOY_PACKAGE = "toy_game"

#: The files whose tests take longest (``pytest --durations=30``): collected first, so that on
#: the xdist workers (``-n 4``) they start early and the workers end together, rather than one
#: running a long test alone at the end while the other waits.
SLOW_FIRST = ("tests/faults/test_fuzz.py", "tests/analysis/", "tests/failover/",
              "tests/cli/test_host_lan.py", "tests/games/test_conformance_net.py",
              "tests/console/test_console.py", "tests/games/sagrada/test_sagrada_cli.py",
              "tests/faults/test_faults_peers.py", "tests/games/sugi/test_sugi_net.py",
              "tests/house/test_layers.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slow files' tests first (a stable sort: each group keeps its order)."""
    items.sort(key=lambda item: not item.nodeid.startswith(SLOW_FIRST))


@pytest.fixture(autouse=True)
def fresh_log_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    """The host log's repeat filter (limits.QuietRepeats, one for the process) afresh for each
    test: a line another test on the same worker wrote a few times within its window was held
    back, and a test that reads the log (caplog) failed or passed by the order tests ran in."""
    logger = logging.getLogger("sagani_net.host")
    monkeypatch.setattr(logger, "filters", [QuietRepeats() if type(f) is QuietRepeats else f
                                            for f in logger.filters])


@pytest.fixture(autouse=True)
def fresh_refusal_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The count of each policy refusal's line (bots.base._REFUSALS, one for the process:
    only the 1st, 10th, 100th... are written) afresh for each test, as the log windows above:
    a line another test wrote first would otherwise not be written in the test that reads it."""
    monkeypatch.setattr(base, "_REFUSALS", {})


@pytest.fixture
def host(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Host]:
    """The one host fixture: a real host on 127.0.0.1 for the test (heartbeat 0.2 s, the
    clients choose the seeds). A module or test that needs other options says so with
    ``@pytest.mark.host(**options)`` (those of :class:`Host`)."""
    marker = request.node.get_closest_marker("host")
    options = {"heartbeat_s": 0.2, **(marker.kwargs if marker else {})}
    with running_host(tmp_path, **options) as host:
        yield host


@pytest.fixture
def raw(host: Host) -> Iterator[Raw]:
    raw = Raw(host.endpoint)
    yield raw
    raw.close()


@pytest.fixture
def toy_registered(monkeypatch: pytest.MonkeyPatch) -> str:
    """Hands (tests/toy_game/) served as the game "toy" for the test; its name."""
    monkeypatch.setitem(games.PACKAGES, TOY, TOY_PACKAGE)
    return TOY


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collecting loaded (every module, test and fixture: about 100,000 objects a worker)
    lives until the end: frozen, the cycle collector's full collections (130-170 a run) no
    longer walk it. They took 24.5-26.0 s of the suite's CPU, and 15.4-15.9 s since.
    The thresholds, raised, make 450-600 collections a worker where it made 9,600-12,900
    (most of them young objects' the tests drop at once): 6.3 s of the suite's CPU in them
    where it was 11.4 s (a gc.callbacks probe, 00:05-00:11)."""
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)
