"""A console that keeps a standby beside it (``sagani join --standby``) plays on through two
kills (issue 14, point 5): kill -9 the active host mid-game, and the game goes on at the
console's own standby, with the three bot processes moving there too; the killed host comes
back as that standby's standby; kill -9 the console's standby, and the game goes back. The
real prompt_toolkit console on pipe input, real host and bot processes, 127.0.0.1 only."""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from console_kit import press_a_sagani_move
from failover_kit import (
    ROOT,
    HostProcess,
    cursor,
    free_ports,
    kill_all,
    moves_of,
    start_bots,
    stored_version,
)
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from test_net_support import until

import sagani_net.cli.play_cmd as play_cmd
from sagani_net.cli.console.app import Console
from sagani_net.cli.standby_process import StandbyProcess
from sagani_net.client import AsyncClient, Client, HostError, HostTimeout
from sagani_net.games import get_game
from sagani_net.gameui import SENTENCE_NAME_CHARS
from sagani_net.standby import StandbyCode

HEARTBEAT_S = 0.2
#: Bound on every wait for something the processes do by themselves.
WAIT_S = 60.0


class Seen:
    """What the test looks at: the console, the standby beside it, the messages it showed."""

    def __init__(self) -> None:
        self.consoles: list[Console] = []
        self.standbys: list[StandbyProcess] = []
        #: Every sentence the console put on its message line, in order.
        self.messages: list[str] = []


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Seen]:
    found = Seen()

    class SeenConsole(Console):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            found.consoles.append(self)
            say = self.model.say

            def said(message: str, refusal: bool = False, lasting: bool = False) -> None:
                found.messages.append(message)
                say(message, refusal, lasting)

            self.model.say = said  # type: ignore[method-assign]

    class SeenStandby(StandbyProcess):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            found.standbys.append(self)

    monkeypatch.setattr(play_cmd, "Console", SeenConsole)
    monkeypatch.setattr(play_cmd, "StandbyProcess", SeenStandby)
    monkeypatch.setattr(play_cmd, "user_dir", lambda: tmp_path / "user")
    yield found
    for standby in found.standbys:
        standby.stop()


@pytest.fixture
def active(tmp_path: Path) -> Iterator[HostProcess]:
    """The active host, a `sagani host` process on 127.0.0.1, stopped however the test ends."""
    process = HostProcess("A", tmp_path / "a", free_ports(3), HEARTBEAT_S)
    process.start()
    yield process
    process.stop()


async def play_until(condition: Any, seen: Seen, play: Any, what: str = "") -> None:
    """Play the console's moves until ``condition()`` (a bool, or a coroutine's) holds; the
    failure says ``what`` was awaited."""

    async def holds() -> bool:
        held = condition()
        return bool(await held) if inspect.isawaitable(held) else bool(held)

    give_up_s = time.monotonic() + WAIT_S
    while not await holds():
        model = seen.consoles[0].model if seen.consoles else None
        assert time.monotonic() < give_up_s, (
            f"timed out waiting{what and ' for ' + what}: "
            f"{model and (model.logged_version, model.status)}; the console said "
            f"{seen.messages[-3:]}")
        await play()
        await asyncio.sleep(0.02)  # the poll of this wait, which plays while it waits


async def in_sync(follower: Path, active: Path, names: tuple[str, str], seen: Seen,
                  play: Any) -> None:
    """Until the active host names the follower its standby (so the follower has heard it: a
    standby that never did never takes over), the follower holds every entry it has, and the
    console has heard of it too (a beat tells players, at most a heartbeat later: killed
    before, the host leaves them the standby they knew, as a LAN party would meet it).
    ``names``: the request endpoints of the active host and of the follower."""

    async def named() -> bool:
        client = AsyncClient(names[0], timeout_s=1.0, retries=0)
        try:
            return (await client.connect()).get("standby") == names[1]
        except (HostError, HostTimeout):
            return False
        finally:
            client.close()

    async def caught_up() -> bool:
        told = all(c.client is None or c.client.standby == names[1] for c in seen.consoles[-1:])
        return told and await named() and cursor(follower) == cursor(active) > 0

    await play_until(caught_up, seen, play, "the standby to catch up")


def ann_at_a_new_table(active: HostProcess, players: int, seed: int
                       ) -> tuple[str, argparse.Namespace]:
    """A table of ``players`` at the active host, every seat but the first kept for bots, and
    `sagani join --standby CODE --table T --name ann`'s arguments for it."""
    watcher = Client(active.address)
    table = watcher.create({"players": players}, seed=seed, bots=list(range(1, players)))
    watcher.close()
    return table, argparse.Namespace(spectate=False, table=table, game=None, players=players,
                                     bots=0, name="ann", standby=StandbyCode.parse(active.code),
                                     lan=False, cover=False)


def test_a_console_with_its_standby_plays_on_through_two_kills(
    tmp_path: Path, seen: Seen, active: HostProcess
) -> None:
    table, args = ann_at_a_new_table(active, 4, seed=21)
    bots = start_bots(active.address, table, 3, seed=21)
    game = get_game("sagani")
    rng = random.Random(14)
    sent = {"version": -1, "at": 0.0}

    async def play() -> None:
        """Play the console's move with keys when it is its turn, as a person would (again
        after 2 s if the move went nowhere: the host it was sent to may just have died)."""
        if not seen.consoles:
            return
        model = seen.consoles[0].model
        if not model.my_turn or model.view is None:
            return
        version = model.view["version"]
        if sent["version"] == version and time.monotonic() - sent["at"] < 2.0:
            return
        sent.update(version=version, at=time.monotonic())
        await press_a_sagani_move(model, keys)

    async def main() -> int:
        task = asyncio.create_task(play_cmd._join(args, active.address, None))
        await play_until(lambda: bool(seen.consoles and seen.standbys), seen, play)
        model = seen.consoles[0].model
        beside = tmp_path / "user" / "standby"  # the data dir of the console's standby
        standby = seen.standbys[0]
        await in_sync(beside, active.data_dir, (active.endpoint, standby.endpoint), seen, play)
        # Kill 1, at a random moment: the host. The game goes on at the console's standby.
        first = rng.randint(4, 24)
        await play_until(lambda: model.logged_version >= first, seen, play)
        active.kill()
        last = stored_version(active.data_dir, table)
        await play_until(lambda: model.logged_version > last + 4, seen, play)
        assert f"host moved to {standby.endpoint[6:]}" in seen.messages
        # The killed host comes back by itself as the standby of the console's standby.
        await asyncio.to_thread(active.start)
        await in_sync(active.data_dir, beside, (standby.endpoint, active.endpoint), seen, play)
        # Kill 2: the console's standby. The game goes back to the first host.
        moved = model.logged_version + rng.randint(1, 12)
        await play_until(lambda: model.logged_version >= moved, seen, play)
        os.kill(standby.pid, signal.SIGKILL)
        last = stored_version(beside, table)
        await play_until(lambda: model.logged_version > last + 4, seen, play)
        assert f"host moved to {active.endpoint[6:]}" in seen.messages
        await play_until(lambda: model.status == "over", seen, play)
        keys.send_text("q")
        return await asyncio.wait_for(task, WAIT_S)

    try:
        with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
            assert asyncio.run(main()) == 0
        bot_moves = sum(moves_of(bot) for bot in bots)
        watcher = Client(active.address)
        record = watcher.record(table)
        moves: list[dict[str, Any]] = []
        more = True
        while more:  # every page of the game's history
            since = moves[-1]["version"] if moves else 0
            page = watcher.request("history", table=table, since=since)
            moves, more = moves + page["moves"], page["more"]
        watcher.close()
    finally:
        kill_all(bots)
    actions = record["actions"]
    assert bot_moves == sum(1 for a in actions if a["seat"] != 0)  # each bot move once
    # The record is the game its seed and actions play, uninterrupted.
    replayed = game.from_record(record)
    assert replayed.to_record()["actions"] == actions
    assert replayed.result().to_data() == record["result"]
    # The console told every move once, in order, across both moves of the host.
    # (by the names its log shows: the host's, each unique, cut to fit a log line)
    names = seen.consoles[0].model.names(SENTENCE_NAME_CHARS)
    assert len(set(names)) == len(set(record["names"])) == len(names)
    told = [line for line in seen.consoles[0].model.log
            if line != "(while you were away)" and not line.startswith("host moved to")]
    expected = [game.event_text(e, names) for m in moves for e in m["events"]]
    assert told[len(told) - len(expected):] == expected


def test_quitting_stops_the_standby_beside_the_console_unless_it_took_over(
    tmp_path: Path, seen: Seen, active: HostProcess, capsys: pytest.CaptureFixture[str]
) -> None:
    table, args = ann_at_a_new_table(active, 2, seed=3)
    beside = tmp_path / "user" / "standby"

    async def session(kill: bool) -> int:
        task = asyncio.create_task(play_cmd._join(args, active.address, None))
        await play_until(lambda: bool(seen.consoles) and len(seen.standbys) == 1 + kill, seen, idle)
        standby = seen.standbys[-1]
        await in_sync(beside, active.data_dir, (active.endpoint, standby.endpoint), seen, idle)
        if kill:
            active.kill()
            await play_until(lambda: any(m.startswith("host moved to") for m in seen.messages),
                        seen, idle)
        keys.send_text("q")
        return await asyncio.wait_for(task, WAIT_S)

    async def idle() -> None:
        pass

    with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
        assert asyncio.run(session(kill=False)) == 0
        assert seen.standbys[0].proc.poll() is not None  # the host lives: its standby went too
        seen.consoles.clear()
        assert asyncio.run(session(kill=True)) == 0
    took_over = seen.standbys[1]
    assert took_over.proc.poll() is None  # the party's host now: it goes on
    out = capsys.readouterr().out
    assert f"kill {took_over.pid}" in out
    # The party's next standby needs a code of this host: the console names its file, where
    # the party had no code at all (the one it was started with names the host that died).
    code_file = beside / "standby.code"
    assert f"and is given the line of {code_file} when it asks" in out, out
    code = StandbyCode.parse(code_file.read_text().strip())
    assert f":{code.port}" == took_over.endpoint[took_over.endpoint.rindex(":"):]
    assert code_file.stat().st_mode & 0o077 == 0  # owner-only: it opens every game's secrets
    # The seat is kept at the host's new address, and sagani join knows it there.
    assert f"`sagani join {took_over.endpoint[6:]} --name ann` takes it back" in out
    saved = json.loads((tmp_path / "user" / play_cmd.JOIN_FILE).read_text())
    assert any(key.startswith(f"{took_over.endpoint} {table} ") for key in saved)
    again = Client(took_over.endpoint, timeout_s=2.0, retries=0)
    assert again.connect()["type"] == "welcome"
    again.close()


def test_a_console_whose_standby_stopped_says_the_game_no_longer_goes_on_here(
    tmp_path: Path, seen: Seen, active: HostProcess
) -> None:
    """Its message line said "if the host goes away, the game goes on here" for as long as it
    ran, after its standby was killed too; the host then went away, and the console only
    showed it was reconnecting."""
    table, args = ann_at_a_new_table(active, 2, seed=3)

    async def idle() -> None:
        pass

    async def session() -> int:
        task = asyncio.create_task(play_cmd._join(args, active.address, None))
        await play_until(lambda: bool(seen.consoles and seen.standbys), seen, idle)
        standby = seen.standbys[0]
        os.kill(standby.pid, signal.SIGKILL)
        told = (f"the standby beside this console has stopped (killed by signal 9; its log: "
                f"{standby.log_path}): if the host goes away now, the game waits for it")
        await play_until(lambda: told in seen.messages, seen, idle, "the console to say so")
        keys.send_text("q")
        return await asyncio.wait_for(task, WAIT_S)

    with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
        assert asyncio.run(session()) == 0


#: A stand-in for a console: starts a standby beside it as `sagani join --standby` does, says
#: the standby's pid once it follows, and waits to be killed.
CONSOLE = """
import subprocess, sys, time
code = sys.stdin.readline()
child = subprocess.Popen([sys.executable, "-m", "sagani_net.cli.main", "host", "--standby", "-",
                          "--port", "0", "--quiet", "--with-parent", "--data-dir", sys.argv[1]],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
child.stdin.write(code)
child.stdin.close()
for line in child.stdout:
    if line.startswith("sagani host: standby of "):
        break
print(child.pid, flush=True)
time.sleep(600)  # a console that lives until the test kills it
"""


def running(pid: int) -> bool:
    """The process runs (a zombie nobody reaped has ended)."""
    try:
        return "\nState:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False


def test_a_standby_beside_a_console_that_was_killed_goes_with_it(
    tmp_path: Path, active: HostProcess
) -> None:
    console = subprocess.Popen([sys.executable, "-c", CONSOLE, str(tmp_path / "standby")],
                               cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True)
    standby = 0
    try:
        assert console.stdin is not None and console.stdout is not None
        console.stdin.write(active.code + "\n")
        console.stdin.flush()
        standby = int(console.stdout.readline())
        assert running(standby)
        console.kill()  # not quit: nobody stops the standby
        console.wait()
        until(lambda: not running(standby))  # it notices it was left alone, and goes
    finally:
        kill_all([console])
        if standby and running(standby):
            os.kill(standby, signal.SIGKILL)
