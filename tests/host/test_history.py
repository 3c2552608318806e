"""The ``history`` request and the console's log built on it (issue 11, point 2).

The host on real 127.0.0.1 sockets (memory, pages, the bound, a restart on the same store);
the real prompt_toolkit console on pipe input: a host restart mid-game, ``sagani play``
resuming a game and ``sagani join`` coming back with a saved token each leave every move in
the log, once, in order.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest
import zmq
from console_kit import GAME_TIMEOUT_S
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from test_net_support import WAIT_S, Raw, choose, running_host, until_async

import sagani_net.cli.play_cmd as play_cmd
import sagani_net.tables as tables_module
from sagani_net.cli.console.app import Console
from sagani_net.cli.console.model import ConsoleModel
from sagani_net.client import AsyncClient, Client
from sagani_net.games import game_names, get_game
from sagani_net.host import Host
from sagani_net.protocol import decode_message, topic
from sagani_net.store import Store

NAMES = ["ann", "bo"]
AWAY = "(while you were away)"


class Table:
    """A 2-player Sagani table on a host, both seats held through raw request sockets."""

    def __init__(self, endpoint: str, seed: int = 4) -> None:
        self.raw = Raw(endpoint)
        self.id = self.raw("create", game="sagani", config={"players": 2}, seed=seed)["table"]
        self.tokens = [self.raw("join", table=self.id, name=name)["token"] for name in NAMES]
        self.rng = random.Random(seed)

    def moved(self, endpoint: str) -> Table:
        """The same table and seats, asked at another endpoint (a host started again). The
        message ids go on counting: an act with an id the host accepted before is a retry."""
        self.raw.close()
        sent, self.raw = self.raw.next_id, Raw(endpoint)
        self.raw.next_id = sent
        return self

    def play(self, moves: int) -> None:
        """``moves`` random legal actions, each by the seat whose decision it is."""
        for _ in range(moves):
            snap = self.raw("sync", table=self.id)
            seat = snap["turn"]
            answer = self.raw("act", table=self.id, seat=seat, token=self.tokens[seat],
                              version=snap["version"], action=choose(snap["view"], self.rng))
            assert answer["type"] == "accepted", answer

    def history(self, since: int = 0) -> dict[str, Any]:
        return self.raw("history", table=self.id, since=since)


def lines_of(moves: list[dict[str, Any]]) -> list[list[str]]:
    """Each move's log lines, as the console words them."""
    game = get_game("sagani")
    return [[game.event_text(event, NAMES) for event in move["events"]] for move in moves]


#: The line a log that starts with the game starts with.
START = "the game starts"


def flat(groups: list[list[str]]) -> list[str]:
    return [line for group in groups for line in group]


def told(model: ConsoleModel) -> list[str]:
    """The console's log without its "while you were away" marks: the moves it tells."""
    return [line for line in model.log if line != AWAY]


# -- the host ---------------------------------------------------------------------------------


def test_history_tells_each_move_as_its_update_did_and_the_same_after_a_restart(
    tmp_path: Path,
) -> None:
    with running_host(tmp_path, heartbeat_s=0.2) as host:
        sub = zmq.Context.instance().socket(zmq.SUB)
        sub.linger, sub.rcvtimeo = 0, int(WAIT_S * 1000)
        sub.connect(host.pub_endpoint)
        table = Table(host.endpoint)
        sub.subscribe(topic(table.id))
        sub.recv_multipart()  # a heartbeat: the subscription is in place
        assert table.history() == {"v": 1, "type": "history", "id": table.raw.next_id,
                                   "table": table.id, "version": 0, "moves": [], "more": False}
        table.play(10)
        heard: dict[int, list[dict[str, Any]]] = {}
        while len(heard) < 10:
            update = decode_message(sub.recv_multipart()[1])
            assert update["type"] == "update", update  # none may be missed
            heard[update["version"]] = update["events"]
        sub.close()
        told = table.history()
        assert [m["version"] for m in told["moves"]] == list(range(1, 11))
        assert [m["events"] for m in told["moves"]] == [heard[v] for v in range(1, 11)]
        record_seats = [a["seat"] for a in host.store.actions(table.id)]
        assert [m["seat"] for m in told["moves"]] == record_seats
        assert (told["version"], told["more"]) == (10, False)
        assert [m["version"] for m in table.history(6)["moves"]] == [7, 8, 9, 10]
        assert table.history(10)["moves"] == [] and table.history(99)["moves"] == []
        assert table.raw("history", table=table.id)["code"] == "missing_field"
        assert table.raw("history", table=table.id, since=-1)["code"] == "bad_field"
        assert table.raw("history", table="nope", since=0)["code"] == "no_table"
    with running_host(tmp_path) as again:  # nothing in memory: replayed from the store
        table.moved(again.endpoint)
        assert table.history()["moves"] == told["moves"]
        table.play(1)
        assert [m["version"] for m in table.history(9)["moves"]] == [10, 11]
        table.raw.close()


@pytest.mark.parametrize("name", game_names())
def test_every_games_history_is_its_events_from_memory_and_after_a_restart(
    tmp_path: Path, name: str
) -> None:
    """The answer kept up move by move and the one replayed from the store agree, for every
    game: the same request gives the same answer before and after a restart."""
    game = get_game(name)
    config = game.parse_config({})
    mirror, rng = game.new_state(config, 11), random.Random(11)
    played: list[dict[str, Any]] = []
    with running_host(tmp_path) as host:
        raw = Raw(host.endpoint)
        table = raw("create", game=name, config=config, seed=11)["table"]
        tokens = [raw("join", table=table)["token"] for _ in range(game.seats(config))]
        assert raw("history", table=table, since=0)["moves"] == []  # kept from here on
        while len(played) < 12 and not mirror.is_over():
            seat, version = mirror.current_seat, mirror.version
            action = rng.choice(mirror.legal_actions())
            answer = raw("act", table=table, seat=seat, token=tokens[seat], version=version,
                         action=mirror.action_data(action))
            assert answer["type"] == "accepted", answer
            played.append({"version": version + 1, "seat": seat, "events": answer["events"]})
            mirror.apply(action)
        kept = raw("history", table=table, since=0)
        raw.close()
    with running_host(tmp_path) as again:
        raw = Raw(again.endpoint)
        assert raw("history", table=table, since=0) == {**kept, "id": 1}
        raw.close()
    assert kept["moves"] == played


def test_history_comes_in_pages_and_keeps_only_the_newest_moves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tables_module, "HISTORY_KEEP", 8)
    monkeypatch.setattr(tables_module, "HISTORY_PAGE_MOVES", 3)
    with running_host(tmp_path) as host:
        table = Table(host.endpoint)
        table.play(12)
        page = table.history()
        assert [m["version"] for m in page["moves"]] == [5, 6, 7] and page["more"]
        client = Client(host.endpoint)
        try:
            client.resume(table.id, table.tokens[0])
            assert [m["version"] for m in client.history()] == list(range(5, 13))
            assert [m["version"] for m in client.history(10)] == [11, 12]
            monkeypatch.setattr(tables_module, "HISTORY_PAGE_BYTES", 1)  # one move a page
            page = table.history(9)
            assert [m["version"] for m in page["moves"]] == [10] and page["more"]
            assert [m["version"] for m in client.history(9)] == [10, 11, 12]
        finally:
            client.close()
            table.raw.close()


# -- the console ------------------------------------------------------------------------------


def test_a_host_restart_mid_game_leaves_no_move_out_of_the_log(tmp_path: Path) -> None:
    """Moves made while the console's host was down come in from the history, marked, once;
    the moves before and after come in with their updates."""

    async def main() -> None:
        first = Host(Store(tmp_path), port=0, heartbeat_s=0.2, client_seeds=True)
        first.serve_in_thread()
        port, pub_port = (int(e.rsplit(":", 1)[1]) for e in (first.endpoint, first.pub_endpoint))
        table = Table(first.endpoint)
        me = AsyncClient(first.endpoint, timeout_s=0.3, retries=1)
        await me.resume(table.id, table.tokens[0])
        model = ConsoleModel()
        second = None
        with create_pipe_input() as keys:
            console = Console(model, me, input=keys, output=DummyOutput())
            task = asyncio.create_task(console.run())
            try:
                table.play(4)
                await until_async(lambda: model.logged_version == 4)
                first.stop()
                await until_async(lambda: model.connection == "reconnecting")
                # The other moves are made on the same store while the console's host is away.
                with running_host(tmp_path) as elsewhere:
                    table.moved(elsewhere.endpoint).play(5)
                second = Host(Store(tmp_path), port=port, pub_port=pub_port, heartbeat_s=0.2,
                              client_seeds=True)
                second.serve_in_thread()
                await until_async(
                    lambda: model.logged_version == 9 and model.connection == "online")
                table.moved(second.endpoint).play(3)
                await until_async(lambda: model.logged_version == 12)
                moves = lines_of(table.history()["moves"])
                assert told(model) == [START, *flat(moves)]
                # The moves made while away say so (a gap the client resyncs over, say a
                # subscription still settling, may add the mark elsewhere too).
                marked = model.log.index(moves[4][0])
                assert model.log[marked - 1] == AWAY
            finally:
                keys.send_text("q")
                await asyncio.wait_for(task, WAIT_S)
                table.raw.close()
                me.close()
                if second is not None:
                    second.stop()

    asyncio.run(asyncio.wait_for(main(), GAME_TIMEOUT_S))


@pytest.fixture
def consoles(monkeypatch: pytest.MonkeyPatch) -> list[Console]:
    """The consoles ``sagani play`` and ``sagani join`` start, to look at from the test."""
    made: list[Console] = []

    class Seen(Console):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(play_cmd, "Console", Seen)
    return made


async def console_of(
    command: Coroutine[Any, Any, int], consoles: list[Console], check: Callable[[Console], bool]
) -> Console:
    """Run ``command`` (its console on pipe input) until ``check`` holds; then quit it."""
    with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
        task = asyncio.create_task(command)
        try:
            await until_async(lambda: bool(consoles) and check(consoles[0]))
        finally:
            keys.send_text("q")
            assert await asyncio.wait_for(task, WAIT_S) == 0
    return consoles[0]


def test_sagani_play_resumes_a_game_with_its_moves_in_the_log(
    tmp_path: Path, consoles: list[Console]
) -> None:
    """The first moves come from the history, the bot's answer after the resume from its
    updates; none twice."""
    with running_host(tmp_path) as host:
        table = Table(host.endpoint)
        table.play(6)  # seat 1, the bot's, is to move
        saved = {"table": table.id, "token": table.tokens[0], "config": {"players": 2},
                 "bots": [{"seat": 1, "kind": "greedy", "token": table.tokens[1]}]}
        args = argparse.Namespace(autoplay=None, think=0.1, game="sagani",
                                  cover=False)
        plan = play_cmd.PlayPlan({"players": 2}, 0, {1: "greedy"}, [])

        def bot_played(console: Console) -> bool:
            return console.model.my_turn and console.model.logged_version >= 8

        console = asyncio.run(console_of(play_cmd._play(args, plan, host, tmp_path, saved),
                                         consoles, bot_played))
        moves = lines_of(table.history()["moves"])
        table.raw.close()
    assert len(moves) >= 8 and told(console.model) == [START, *flat(moves)]
    so_far = [START, *flat(moves[:6])]
    assert console.model.log[: len(so_far)] == so_far  # first, and unmarked


def test_sagani_join_with_a_saved_token_shows_the_moves_so_far(
    tmp_path: Path, consoles: list[Console], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(play_cmd, "user_dir", lambda: tmp_path / "user")
    with running_host(tmp_path) as host:
        table = Table(host.endpoint)
        table.play(7)
        (tmp_path / "user").mkdir()
        saved = {f"{host.endpoint} {table.id}": table.tokens[0]}
        (tmp_path / "user" / play_cmd.JOIN_FILE).write_text(json.dumps(saved))
        args = argparse.Namespace(spectate=False, table=table.id, game=None, players=2, bots=0,
                                  name=None, standby=None, cover=False)
        console = asyncio.run(console_of(play_cmd._join(args, host.endpoint, None), consoles,
                                         lambda c: c.model.logged_version == 7))
        moves = lines_of(table.history()["moves"])
        table.raw.close()
    assert console.model.you == 0 and console.model.log == [START, *flat(moves)]
    assert console.model.log_mark == len(console.model.log)  # the game so far: not news
