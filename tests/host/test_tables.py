"""The tables' logic driven directly (sagani_net.tables): no socket, no sleep. A fake clock is
advanced by hand, so that deadlines, turn timers, stand-ins, away seats, idle tables and
history are shown to the instant; the store is a real SQLite file in a tmp dir."""

from __future__ import annotations

import itertools
import logging
from pathlib import Path
from typing import Any

import pytest

import sagani_net.tables as tables_module
from sagani_net.protocol import VERSION, ProtocolError, check_request, decode_message
from sagani_net.protocol.messages import DEADLINE_GRACE_S, REQUEST_TIMEOUT_S, try_s
from sagani_net.quotas import Limits
from sagani_net.store import Store
from sagani_net.tables import STAND_IN_PAUSE_S, Tables

ADDRESS = "127.0.0.2"  # the peer's address, as the host would pass it: loopback, like every test


class FakeClock:
    """Seconds that move only when the test says so."""

    def __init__(self) -> None:
        self.now_s = 1000.0

    def __call__(self) -> float:
        return self.now_s

    def advance(self, by_s: float) -> None:
        self.now_s += by_s


class Room:
    """A Tables on a fake clock, and the requests a client would send it."""

    def __init__(self, path: Path, **options: Any) -> None:
        self.clock = FakeClock()
        self.store = Store(path)
        self.tables = Tables(self.store, clock=self.clock, **options)
        self._ids = itertools.count(1)

    def ask(self, kind: str, **fields: Any) -> dict[str, Any]:
        request = check_request({"v": VERSION, "type": kind, "id": next(self._ids), **fields})
        out = self.tables.handle(request, ADDRESS)
        return decode_message(out) if isinstance(out, bytes) else out

    def updates(self) -> list[dict[str, Any]]:
        """The updates the batch queued (what the host would broadcast), and the batch ends."""
        sent = [decode_message(body) for _, body in self.tables.updates()]
        self.store.commit()
        self.tables.start_clocks()  # the host starts the clocks once the updates are out
        return sent

    def game(self, **create: Any) -> tuple[str, list[str]]:
        """A two-seat Sagani table, every seat taken (seat 1 as a bot if it is kept for one)."""
        fields = {"game": "sagani", "config": {"players": 2}, **create}
        table = self.ask("create", **fields)["table"]
        tokens = [self.ask("join", table=table, role="bot" if seat in fields.get("bots", [])
                           else "player", seat=seat)["token"] for seat in range(2)]
        self.updates()
        return table, tokens

    def state(self, table: str) -> Any:
        return self.tables.tables[table].state

    def play(self, table: str, tokens: list[str], until_seat: int | None = None,
             moves: int = 1000) -> None:
        """Each seat to move plays its first legal action, ``moves`` times or until it is
        ``until_seat``'s turn."""
        for _ in range(moves):
            seat = self.state(table).current_seat
            if seat == until_seat:
                return
            legal = self.ask("legal", table=table, token=tokens[seat])
            self.ask("act", table=table, token=tokens[seat], seat=seat,
                     version=legal["version"], action=legal["actions"][0])
            self.updates()


def beats(tables: Tables) -> list[dict[str, Any]]:
    """The heartbeats the host would send now (only those with news: a seat away or back)."""
    return [decode_message(body) for _, body in tables.beats(None, everyone=False)]


def events(updates: list[dict[str, Any]]) -> list[str]:
    return [event["type"] for update in updates for event in update["events"]]


def test_a_bot_seat_gets_the_default_move_once_its_deadline_and_the_grace_are_past(
    tmp_path: Path,
) -> None:
    room = Room(tmp_path)
    table, tokens = room.game(bots=[1], deadline_s=0.5)
    room.play(table, tokens, until_seat=1)
    version = room.state(table).version
    room.clock.advance(0.5 + DEADLINE_GRACE_S - 0.01)
    assert not room.tables.expire() and room.state(table).version == version
    room.clock.advance(0.02)
    assert room.tables.expire()
    assert room.state(table).version == version + 1
    told = room.updates()
    assert events(told)[0] == "deadline_missed" and told[0]["events"][0]["seat"] == 1


def test_a_bot_seat_at_a_table_without_a_deadline_has_the_fallback_clock(tmp_path: Path) -> None:
    room = Room(tmp_path, bot_fallback_s=5.0)
    table, tokens = room.game(bots=[1])
    room.play(table, tokens, until_seat=1)
    room.clock.advance(5.0 + DEADLINE_GRACE_S - 0.01)
    assert not room.tables.expire()
    room.clock.advance(0.02)
    assert room.tables.expire() and "deadline_missed" in events(room.updates())


def test_a_turn_timer_runs_for_the_seats_people_hold_and_stands_still_while_the_host_is_held(
    tmp_path: Path,
) -> None:
    room = Room(tmp_path)
    table, tokens = room.game(turn_timer_s=2.0)
    seat = room.state(table).current_seat
    room.clock.advance(2.0 + DEADLINE_GRACE_S - 0.01)
    room.tables.delay_clocks(1.0)  # a costly request held the host that long
    room.clock.advance(0.02)
    assert not room.tables.expire()
    room.clock.advance(1.0)
    assert room.tables.expire()
    told = room.updates()
    assert told[0]["events"][0] == {"type": "deadline_missed", "seat": seat}


def test_a_snapshot_says_how_long_its_decision_has_left(tmp_path: Path) -> None:
    """A snapshot (a join, a reconnect) may come long after its decision was announced: a
    console back from a reconnect showed the timer's whole length while the default move came
    sooner. ``turn_left_s`` is what is left of the clock, the grace not counted."""
    room = Room(tmp_path)
    table, tokens = room.game(turn_timer_s=30.0)
    seat = room.state(table).current_seat
    assert room.ask("sync", table=table, token=tokens[seat])["turn_left_s"] == 30.0
    room.clock.advance(12.5)
    assert room.ask("sync", table=table)["turn_left_s"] == 17.5
    room.tables.delay_clocks(2.0)  # the host held up: the clock stood still
    assert room.ask("sync", table=table)["turn_left_s"] == 19.5
    room.clock.advance(19.5 + DEADLINE_GRACE_S / 2)  # in the grace: nothing left to count
    assert room.ask("sync", table=table)["turn_left_s"] == 0.0
    # Armed in this batch, its clock starts once the batch's updates are sent: all of it left.
    room.play(table, tokens, moves=1)
    legal = room.ask("legal", table=table, token=tokens[room.state(table).current_seat])
    room.ask("act", table=table, token=tokens[legal["seat"]], seat=legal["seat"],
             version=legal["version"], action=legal["actions"][0])
    assert room.ask("sync", table=table)["turn_left_s"] == 30.0
    untimed, _ = room.game()
    assert room.ask("sync", table=untimed)["turn_left_s"] is None


def test_player_seats_without_a_timer_never_run_on_a_clock(tmp_path: Path) -> None:
    room = Room(tmp_path)
    table, _ = room.game()
    assert room.tables.next_due_s() is None
    room.clock.advance(3000.0)
    assert not room.tables.expire() and room.state(table).version == 0


def test_a_player_seat_at_a_table_with_a_bot_deadline_never_runs_on_it(tmp_path: Path) -> None:
    """The deadline is the bot seats' alone (it was a real host's test, with sleeps)."""
    room = Room(tmp_path)
    table, tokens = room.game(bots=[1], deadline_s=0.5)
    room.play(table, tokens, until_seat=0)
    version = room.state(table).version
    assert room.tables.next_due_s() is None
    room.clock.advance(3000.0)
    assert not room.tables.expire() and room.state(table).version == version


def test_a_silent_player_is_away_its_stand_in_plays_and_leaves_when_it_is_back(
    tmp_path: Path,
) -> None:
    room = Room(tmp_path, heartbeat_s=1.0)
    table, tokens = room.game()
    away = room.state(table).current_seat
    here = 1 - away
    room.clock.advance(room.tables.away_s + 0.1)
    room.ask("here", table=table, token=tokens[here])  # only the other one says it is there
    beats = [decode_message(body) for _, body in room.tables.beats(None, everyone=False)]
    assert [beat["away"] for beat in beats] == [[away]]
    assert room.ask("here", table=table, token=tokens[here])["away"] == [away]
    with pytest.raises(ProtocolError, match="not_away"):
        room.ask("stand_in", table=table, token=tokens[here], seat=here)  # it is there
    room.ask("stand_in", table=table, token=tokens[here], seat=away)
    assert events(room.updates()) == ["stand_in"]
    version = room.state(table).version
    room.clock.advance(STAND_IN_PAUSE_S - 0.01)  # no grace: nobody's act crosses a network
    assert not room.tables.expire()
    room.clock.advance(0.02)
    assert room.tables.expire() and room.state(table).version == version + 1
    assert "deadline_missed" not in events(room.updates())
    room.ask("here", table=table, token=tokens[away])  # back: the seat is its own again
    assert events(room.updates()) == ["stand_in_left"]
    assert room.tables.tables[table].stand_ins == set()
    assert room.ask("here", table=table, token=tokens[here])["away"] == []


@pytest.mark.parametrize("takeover", [True, False])
def test_after_a_takeover_or_a_restart_a_seat_is_away_only_once_a_client_had_time_to_come(
    tmp_path: Path, takeover: bool,
) -> None:
    """Its client may be waiting out a try at the host gone: 3 presence periods were less (at
    0.25 s, 0.75 s against a try of 0.75 s after a takeover, of 2.5 s after a restart)."""
    room = Room(tmp_path, heartbeat_s=0.25)
    table, tokens = room.game()
    if takeover:
        room.tables.reload(takeover=True)  # what a standby does as it takes over
    else:
        room.tables = Tables(room.store, clock=room.clock, heartbeat_s=0.25)
    tables = room.tables
    assert tables.unheard_s > try_s(0.25, standby=takeover) > 0
    assert tables.unheard_s > (REQUEST_TIMEOUT_S if not takeover else tables.away_s)
    room.clock.advance(tables.unheard_s - 0.01)
    room.ask("here", table=table, token=tokens[0])  # seat 0's client found this host
    assert beats(tables) == []  # no news: nobody went away
    room.clock.advance(0.02)
    assert [beat["away"] for beat in beats(tables)] == [[1]]
    assert room.ask("here", table=table, token=tokens[1])["away"] == []  # 1 is back


def test_a_standby_that_takes_over_keeps_the_seats_its_active_host_had_away(
    tmp_path: Path,
) -> None:
    """Shown present for its grace, such a seat came back and went away again for nothing.
    What the beats said is taken only where it names a seat held at a table in play."""
    room = Room(tmp_path, heartbeat_s=0.25)
    table, tokens = room.game()
    away = {table: [1, 7, "x", -1], "nope": [0], 3: [0]}
    room.tables.reload(takeover=True)
    room.tables.keep_away(away)  # junk among the seats
    assert [beat["away"] for beat in beats(room.tables)] == [[1]]
    assert room.tables.away_seats() == {table: [1]}
    assert room.ask("here", table=table, token=tokens[1])["away"] == []  # back at its word


def test_the_record_names_the_moves_the_host_played_and_why(tmp_path: Path) -> None:
    """A finished game's record said nothing of the moves the host played: a replay showed a
    bot's default move past its clock, or the stand-in's, as the seat's own, and the analysis
    marked them as its mistakes. ``host_played`` names each, by its number in ``actions``."""
    room = Room(tmp_path, heartbeat_s=1.0)
    table, tokens = room.game(bots=[1], deadline_s=30.0)
    played: list[dict[str, Any]] = []

    def host_moves(reason: str, after_s: float) -> None:
        while room.state(table).current_seat == 1:
            played.append({"index": room.state(table).version, "reason": reason})
            room.clock.advance(after_s)
            assert room.tables.expire()
            room.updates()

    room.play(table, tokens, until_seat=1)
    host_moves("deadline", 30.0 + DEADLINE_GRACE_S + 0.01)  # a turn: a take and a placement
    room.ask("stand_in", table=table, token=tokens[0], seat=1)
    room.updates()
    room.play(table, tokens, until_seat=1)
    host_moves("stand_in", STAND_IN_PAUSE_S + 0.01)
    room.ask("sync", table=table, token=tokens[1])  # back: it plays its own to the end
    room.updates()
    room.play(table, tokens)
    assert room.tables.tables[table].status == "over"
    record = room.ask("record", table=table)["record"]
    assert played and record["host_played"] == played
    assert {record["actions"][p["index"]]["seat"] for p in played} == {1}
    # A game the host played no move of says nothing.
    other, others = room.game()
    room.play(other, others)
    assert "host_played" not in room.ask("record", table=other)["record"]


def test_a_bot_past_its_deadline_is_away_until_it_is_heard_and_may_be_stood_in_for(
    tmp_path: Path,
) -> None:
    """A bot that left the game mid-way cost its table the whole deadline at every one of its
    decisions; once it has missed one, it is away, and the players may ask for a stand-in."""
    room = Room(tmp_path, heartbeat_s=1.0)
    table, tokens = room.game(bots=[1], deadline_s=30.0)
    room.play(table, tokens, until_seat=1)
    # Silent between its turns is no absence for a bot (a player would be away after 3 s).
    room.clock.advance(29.0)
    assert room.tables.tables[table].state.current_seat == 1
    assert room.ask("here", table=table, token=tokens[0])["away"] == []
    with pytest.raises(ProtocolError, match="not_away"):
        room.ask("stand_in", table=table, token=tokens[0], seat=1)
    # Its clock runs out: the default move, and the same update says the bot is away.
    room.clock.advance(1.0 + DEADLINE_GRACE_S + 0.01)
    assert room.tables.expire()
    (missed,) = room.updates()
    assert missed["events"][0] == {"type": "deadline_missed", "seat": 1}
    assert [seat["away"] for seat in missed["seats"]] == [False, True]
    assert [beat["away"] for beat in (decode_message(body) for _, body
                                      in room.tables.beats(None, everyone=False))] == [[1]]
    # The player asks for a stand-in: the bot's next decision comes after half a second, not
    # after its 30 s deadline, played by the host's bot rather than the default move.
    # (Its turn's second decision is pending: it goes at the stand-in's pace too.)
    room.ask("stand_in", table=table, token=tokens[0], seat=1)
    assert events(room.updates()) == ["stand_in"]
    for _ in range(2):
        room.play(table, tokens, until_seat=1)
        version = room.state(table).version
        room.clock.advance(STAND_IN_PAUSE_S + 0.01)
        assert room.tables.expire() and room.state(table).version == version + 1
        assert "deadline_missed" not in events(room.updates())
    # The bot comes back (any request with its token) with its decision pending: the seat, and
    # the clock of that decision, are its own again.
    assert room.state(table).current_seat == 1
    room.ask("sync", table=table, token=tokens[1])
    assert events(room.updates()) == ["stand_in_left"]
    assert room.ask("here", table=table, token=tokens[0])["away"] == []
    version = room.state(table).version
    room.clock.advance(29.0)
    assert not room.tables.expire() and room.state(table).version == version


def test_history_comes_in_pages_from_memory_and_again_from_the_store_after_a_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tables_module, "HISTORY_KEEP", 8)
    monkeypatch.setattr(tables_module, "HISTORY_PAGE_MOVES", 3)
    room = Room(tmp_path)
    table, tokens = room.game()
    assert room.ask("history", table=table, since=0)["moves"] == []
    room.play(table, tokens, moves=12)
    pages = []
    since = 0
    while True:
        page = room.ask("history", table=table, since=since)
        pages.append([move["version"] for move in page["moves"]])
        if not page["more"]:
            break
        since = page["moves"][-1]["version"]
    assert pages == [[5, 6, 7], [8, 9, 10], [11, 12]]  # the newest 8 moves, 3 a page
    first = room.ask("history", table=table, since=4)
    again = Room(tmp_path)  # a restart: the moves come back by replaying the store
    assert again.ask("history", table=table, since=4) == {**first, "id": 1}


def test_a_table_nobody_joins_or_plays_is_closed_once_idle(tmp_path: Path) -> None:
    room = Room(tmp_path, limits=Limits(open_idle_s=60.0, running_idle_s=600.0))
    waiting = room.ask("create", game="sagani", config={"players": 2})["table"]
    playing, tokens = room.game()
    room.clock.advance(59.0)
    assert not room.tables.close_idle(room.clock())
    room.ask("join", table=waiting, role="player", seat=0)  # a join keeps it open
    room.clock.advance(59.0)
    assert not room.tables.close_idle(room.clock())
    room.clock.advance(2.0)
    room.play(playing, tokens, moves=1)  # an act keeps it going
    room.clock.advance(540.0)
    assert room.tables.close_idle(room.clock())
    assert set(room.tables.tables) == {playing}
    room.clock.advance(61.0)
    assert room.tables.close_idle(room.clock()) and room.tables.tables == {}
    assert room.ask("tables")["tables"] == []


def test_quotas_count_the_tables_of_an_address_until_they_end(tmp_path: Path) -> None:
    room = Room(tmp_path, limits=Limits(tables_per_address=1, open_idle_s=60.0))
    room.ask("create", game="sagani", config={"players": 2})
    with pytest.raises(ProtocolError, match="too_many_tables"):
        room.ask("create", game="sagani", config={"players": 2})
    room.clock.advance(61.0)
    assert room.tables.close_idle(room.clock())  # expired: it no longer counts
    room.ask("create", game="sagani", config={"players": 2})


def finished_game(room: Room) -> tuple[str, list[str]]:
    table, tokens = room.game()
    while room.tables.tables[table].status != "over":
        room.play(table, tokens, moves=1)
    return table, tokens


def test_finished_tables_held_in_memory_are_capped_the_longest_held_forgotten_first(
    tmp_path: Path,
) -> None:
    room = Room(tmp_path, limits=Limits(max_finished_tables=2))
    first, tokens = finished_game(room)
    second, _ = finished_game(room)
    third, _ = finished_game(room)
    running, _ = room.game()
    assert set(room.tables.tables) == {second, third, running}
    assert set(room.tables.sessions) == {
        h for t in (second, third, running) for h in room.tables.tables[t].holders}
    # Forgotten, it is read back from disk when asked for, and the one held longest goes.
    back = room.ask("sync", table=first, token=tokens[0])
    assert (back["status"], back["you"]) == ("over", 0)
    assert set(room.tables.tables) == {third, first, running}


def test_requests_for_many_old_games_hold_no_more_finished_tables_than_the_cap(
    tmp_path: Path,
) -> None:
    room = Room(tmp_path)
    played, _ = finished_game(room)
    old = [f"{n:08x}" for n in range(12)]  # the same game again under other ids: history
    db = room.store.db
    for table_id in old:
        for table, key in (("tables", "id"), ("sessions", "table_id"), ("actions", "table_id")):
            columns = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
            # (a token hash is the key of its session: each copy's differ by the table's id)
            copied = ", ".join(":new" if c == key else ":new || token_hash" if c == "token_hash"
                               else c for c in columns)
            db.execute(f"INSERT INTO {table} SELECT {copied} FROM {table} WHERE {key} = :was",
                       {"new": table_id, "was": played})
    room.store.commit()
    restarted = Room(tmp_path, limits=Limits(max_finished_tables=5))
    for table_id in old:
        assert restarted.ask("sync", table=table_id)["status"] == "over"
        assert len(restarted.tables.tables) <= 5
    assert set(restarted.tables.tables) == set(old[-5:])


def test_a_host_that_holds_no_finished_table_still_serves_one_it_reads_back(
    tmp_path: Path,
) -> None:
    room = Room(tmp_path, limits=Limits(max_finished_tables=0))
    first, tokens = finished_game(room)
    second, _ = finished_game(room)
    assert first not in room.tables.tables
    back = room.ask("sync", table=first, token=tokens[1])  # its seat's token still counts
    assert (back["status"], back["you"]) == ("over", 1)
    assert set(room.tables.tables) == {first}


def test_the_hosts_line_of_a_finished_game_names_each_seat_as_sagani_tables_does(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    """It printed the result's Python form, "over, Result(scores=(48, 52), ranking=(1, 0),
    figures={...})": seats from 0 and the game's figures, on the operator's screen."""
    room = Room(tmp_path)
    with caplog.at_level(logging.INFO, logger="sagani_net.host"):
        table, _ = finished_game(room)
    result = room.state(table).result()
    best_first = ", ".join(f"{seat + 1}:{'player' if seat == 0 else 'player 2'} "
                           f"{result.scores[seat]}" for seat in result.ranking)
    assert f"table {table}: over; best first: {best_first}" in caplog.messages


def test_the_host_says_on_its_screen_who_is_away_and_who_is_back(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    """Only the consoles said it: the operator's screen had no line when a player left."""
    room = Room(tmp_path, heartbeat_s=1.0)
    table, tokens = room.game()
    with caplog.at_level(logging.INFO, logger="sagani_net.host"):
        room.clock.advance(room.tables.away_s + 0.1)
        room.ask("here", table=table, token=tokens[0])
        beats(room.tables)  # the heartbeat that tells the table
        room.ask("here", table=table, token=tokens[1])
    said = [line for line in caplog.messages if line.startswith(f"table {table}: seat")]
    assert said == [f"table {table}: seat 2:player 2 is away",
                    f"table {table}: seat 2:player 2 is back"]


def test_moves_at_one_table_do_not_hide_who_sits_down_at_another_from_the_hosts_screen(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    """Every event's line had one template, of which the log writes 20 in 10 s: a bots' game
    took them all, and the lines of a seat taken, a game started or won elsewhere were not
    written."""
    room = Room(tmp_path)
    with caplog.at_level(logging.INFO, logger="sagani_net.host"):
        finished_game(room)
        table, _ = room.game()
    assert f"table {table} #2 v0: player 2 sat down at seat 2" in caplog.messages
    assert f"table {table} #2 v0: the game starts" in caplog.messages


def test_the_hosts_line_of_a_new_table_says_its_options_in_words_and_counts_a_list(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    """It printed the options' Python form: "sagrada {'players': 2, ..., 'patterns': None}",
    and with a player's own window patterns every grid of them, on one line."""
    grid = [["", "", "", "", ""], ["R", "1", "Y", "", "R"], ["", "Y", "2", "R", ""],
            ["", "", "Y", "3", "1"]]
    room = Room(tmp_path)
    with caplog.at_level(logging.INFO, logger="sagani_net.host"):
        plain = room.ask("create", game="sagrada", config={"players": 2})["table"]
        own = room.ask("create", game="sagrada", config={"players": 2, "patterns": [
            {"name": f"p{i}", "difficulty": 4, "grid": grid} for i in range(8)]})["table"]
    said = [line for line in caplog.messages if ": created, " in line]
    assert said[0].startswith(f"table {plain}: created, sagrada (players 2, difficulty "), said
    assert said[1].startswith(f"table {own}: created, sagrada (players 2, "), said
    assert "patterns 8 given" in said[1] and "None" not in said[0] and "grid" not in said[1]
