"""Worker processes end with the process that made them (sagani_net/workers.py): a tournament
killed by a signal left its game workers waiting on their queue for ever, as did `sagani play`'s
search bot worker and an analysis's."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_net_support import RUN_SAGANI, until

from sagani_net.bots.tournament import TournamentSpec, run_games


def workers_of(parent: int) -> list[int]:
    """The pool workers ``parent`` made, forked or spawned (its resource tracker is not one)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == parent and b"resource_tracker" not in cmdline:
            found.append(int(stat.parent.name))
    return found


#: A pool of two: at most one worker a core (sagani_net.workers.count).
two_cores = pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="a pool of two needs 2 cores")


def gone(pid: int) -> bool:
    """Ended (a zombie left to a parent that does not reap counts as ended)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


@two_cores
@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["term", "kill"])
def test_a_tournament_killed_leaves_no_worker_behind(how: signal.Signals) -> None:
    process = subprocess.Popen(
        [*RUN_SAGANI, "tournament", "--strategies", "mcts,greedy", "--games", "40",
         "--iterations", "300", "--workers", "2", "--seed", "1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    workers: list[int] = []
    try:
        until(lambda: len(workers_of(process.pid)) == 2)
        workers = workers_of(process.pid)
        os.kill(process.pid, how)
        process.wait()
        until(lambda: all(gone(pid) for pid in workers))
    finally:
        process.kill()
        process.wait()
        for pid in workers:  # left behind by a failure: not by the next test's run
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


@contextlib.contextmanager
def long_tournament(games: int, *how: str) -> Iterator[tuple[subprocess.Popen[str], list[int]]]:
    """`sagani tournament` of ``games`` games of the search and greedy on two workers (the
    search's far longer than a test), in a process group of its own, once both workers are
    there; the group is killed after, however the test ended."""
    process = subprocess.Popen(
        [*RUN_SAGANI, "tournament", "--strategies", "mcts,greedy", "--games", str(games),
         "--iterations", "100000", "--workers", "2", "--seed", "1", *how],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
        start_new_session=True, text=True)
    try:
        until(lambda: len(workers_of(process.pid)) == 2)
        yield process, workers_of(process.pid)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def ends_quietly(process: subprocess.Popen[str], workers: list[int]) -> None:
    """The interrupted tournament exits 130 without a traceback, its workers gone."""
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert "Traceback" not in err, err
    until(lambda: all(gone(pid) for pid in workers))


@two_cores
def test_ctrl_c_with_a_worker_waiting_for_work_is_exit_130_and_no_traceback() -> None:
    """Two solo games on two workers, greedy's over at once: Ctrl-C (SIGINT to the process
    group, as a terminal sends it) printed 'Process ForkProcess-2: Traceback ...
    call_queue.get ... KeyboardInterrupt' from the worker that had no game left."""
    with long_tournament(2, "--mode", "solo") as (process, workers):
        # The one done sleeps on the pool's queue; the other plays the search's game.
        until(lambda: any(state(pid) == "S" for pid in workers))
        os.killpg(process.pid, signal.SIGINT)
        ends_quietly(process, workers)


@two_cores
def test_sigint_to_the_tournament_alone_stops_the_games_under_way() -> None:
    """`kill -INT PID` (not the whole group, as a supervisor or a script may send it): the
    games not started were dropped but those under way played on, a game of --iterations
    100000 for hours, before the tournament ended."""
    with long_tournament(4) as (process, workers):
        until(lambda: all(state(pid) == "R" for pid in workers))  # both playing a game
        os.kill(process.pid, signal.SIGINT)
        ends_quietly(process, workers)


def test_a_pool_has_no_more_workers_than_cores_or_games() -> None:
    """'--workers 300' of a tournament of 2 games forked about 250 processes on 2 cores (an
    analysis's --workers did the same): a pool starts every worker it is given, at once."""
    spec = TournamentSpec(lineup=("random", "random"), games=3, seed=1)
    seen: list[int] = []
    run_games(spec, workers=64, on_result=lambda _: seen.append(len(workers_of(os.getpid()))))
    assert seen and max(seen) <= min(os.cpu_count() or 1, spec.games), seen
