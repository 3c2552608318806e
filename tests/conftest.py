"""Fixtures shared by the network tests: a real host on 127.0.0.1, a raw request socket, and
the test game with private data (``toy_game``, a whole game package) in the registry."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_net_support import Raw, running_host

from sagani_net import games
from sagani_net.host import Host

#: The ``sagani`` command, run from this checkout: ``[*SAGANI, "host", ...]``.
SAGANI = [sys.executable, "-m", "sagani_net.cli.main"]

#: The registry name of Hands, the tests' game (tests/toy_game/), and its package: the one line
#: that registers it is ``games.PACKAGES[TOY] = TOY_PACKAGE``.
TOY = "toy"
TOY_PACKAGE = "toy_game"


@pytest.fixture
def host(tmp_path: Path) -> Iterator[Host]:
    with running_host(tmp_path, heartbeat_s=0.2) as host:
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
