"""Per-move deadlines for bot seats, on a real host on 127.0.0.1 (issue 5, point 3).

A bot seat past its table's ``deadline_s`` (+ the host's grace) gets the game's first legal
action played for it by the host, stored and broadcast like any action with a
``deadline_missed`` event; player seats never run on a clock.
"""

from __future__ import annotations

import logging
import sqlite3
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from cli_kit import sagani
from test_net_support import (
    RUN_SAGANI,
    WAIT_S,
    Raw,
    Updates,
    choose,
    port_of,
    read_store,
    running_host,
    sessions_of_moves,
    start_host_process,
    until,
)

from sagani_net.bots.runner import BotRunner, think_cap_s
from sagani_net.host import HOST_DEFAULT_SESSION, HOST_STAND_IN_SESSION, Host
from sagani_net.store import Store

DEADLINE_S = 0.2


def default_moves(data_dir: Path, table: str) -> list[tuple[int, int, int]]:
    """(version, seat, msg_id) of every move the host played for a late bot, read from disk."""
    return read_store(data_dir, "SELECT version, seat, msg_id FROM actions WHERE table_id = ? "
                      "AND session = ? ORDER BY version", table, HOST_DEFAULT_SESSION)


def bot_table(raw: Raw, deadline_s: float | None = DEADLINE_S, seed: int = 3) -> dict[str, Any]:
    """A running 2-player table: seat 0 a player, seat 1 a bot that never answers."""
    fields: dict[str, Any] = {"seed": seed, "bots": [1]}
    if deadline_s is not None:
        fields["deadline_s"] = deadline_s
    created = raw("create", game="sagani", config={"players": 2}, **fields)
    player = raw("join", table=created["table"], name="ann")
    bot = raw("join", table=created["table"], role="bot", name="mute")
    assert bot["seat"] == 1 and bot["snapshot"]["status"] == "running"
    return {"table": created["table"], "created": created, "player": player["token"],
            "bot": bot["token"], "snapshot": bot["snapshot"]}


def play_player_turn(raw: Raw, table: str, token: str) -> None:
    """Seat 0 plays whole decisions while it is its turn (the rng is fixed: same game always)."""
    import random

    rng = random.Random(1)
    while (snap := raw("sync", table=table))["turn"] == 0:
        reply = raw("act", table=table, seat=0, token=token, version=snap["version"],
                    action=choose(snap["view"], rng))
        assert reply["type"] == "accepted", reply


def test_create_checks_the_deadline_and_snapshots_and_listings_carry_it(raw: Raw) -> None:
    for bad in (0, 0.05, 3601, True, "1", [1.0]):
        refused = raw("create", game="sagani", config={"players": 2}, deadline_s=bad)
        assert refused["code"] == "bad_field", bad
    made = bot_table(raw, deadline_s=2)
    assert made["created"]["deadline_s"] == 2.0
    assert made["snapshot"]["deadline_s"] == 2.0
    listing = {t["table"]: t for t in raw("tables")["tables"]}
    assert listing[made["table"]]["deadline_s"] == 2.0
    plain = raw("create", game="sagani", config={"players": 2})
    assert plain["deadline_s"] is None
    assert raw("sync", table=plain["table"])["deadline_s"] is None


def test_a_silent_bot_seat_gets_the_first_legal_move_and_the_game_goes_on(
    host: Host, raw: Raw, tmp_path: Path
) -> None:
    made = bot_table(raw)
    table = made["table"]
    updates = Updates(host.pub_endpoint, table)
    try:
        updates.wait_live()
        for _ in range(2):  # two rounds: the player moves, the mute bot's turn times out
            play_player_turn(raw, table, made["player"])
            before = raw("sync", table=table)
            assert before["turn"] == 1
            started_s = time.monotonic()
            after = until(lambda: (s := raw("sync", table=table))["turn"] == 0 and s)
            # A turn is two decisions, each played by the host after deadline + grace.
            assert time.monotonic() - started_s >= 2 * DEADLINE_S
            assert after["version"] == before["version"] + 2
        until(lambda: len(updates.events("deadline_missed")) == 4)
        assert updates.events("deadline_missed") == [{"type": "deadline_missed", "seat": 1}] * 4
        # The default move is the game's first legal action, replayable from the record.
        moves = default_moves(tmp_path, table)
        assert [seat for _, seat, _ in moves] == [1, 1, 1, 1]
        assert [msg_id for _, _, msg_id in moves] == [version for version, _, _ in moves]
    finally:
        updates.close()


def test_a_bot_that_missed_its_deadline_is_away_and_a_player_may_seat_a_stand_in(
    host: Host, raw: Raw, tmp_path: Path
) -> None:
    """A bot gone for good cost the table its whole deadline at each of its decisions, and the
    lobby called the seat taken. Once it misses one, the lobby says it is away, and a player
    may ask the host to play it at the stand-in's pace."""
    made = bot_table(raw, deadline_s=1.0)
    table = made["table"]
    assert "2:mute (bot)\n" in sagani("tables", host.endpoint).stdout  # silent, not away
    refused = raw("stand_in", table=table, token=made["player"], seat=1)
    assert refused["code"] == "not_away"
    play_player_turn(raw, table, made["player"])
    until(lambda: default_moves(tmp_path, table))  # the turn's first decision, after 1.25 s
    lobby = sagani("tables", host.endpoint)
    assert lobby.returncode == 0 and "2:mute (bot, away)" in lobby.stdout
    # Its second decision's clock runs from the first's default move: a player seats a
    # stand-in well inside it, which plays it half a second later.
    assert raw("stand_in", table=table, token=made["player"], seat=1)["type"] == "stand_in"
    until(lambda: raw("sync", table=table)["turn"] == 0)
    assert [session for seat, session in sessions_of_moves(tmp_path, table) if seat == 1] == [
        HOST_DEFAULT_SESSION, HOST_STAND_IN_SESSION]
    assert "2:mute (bot, away, a bot stands in)" in sagani("tables", host.endpoint).stdout



def test_a_bot_not_back_after_a_restart_is_away_and_a_player_may_seat_a_stand_in(
    tmp_path: Path
) -> None:
    """House bots run beside their host and are lost with it (a failover, a restart without
    them): such a bot seat cost the table its whole deadline at each of its decisions, the
    first one before anyone could ask for a stand-in. A bot seat this host has not heard for
    three presence periods since it began to serve is away; once heard, silence is its own."""
    with running_host(tmp_path, heartbeat_s=0.2) as host:
        raw = Raw(host.endpoint)
        made = bot_table(raw, deadline_s=60.0)
        raw.close()
    with running_host(tmp_path, heartbeat_s=0.2) as host:
        raw = Raw(host.endpoint)
        try:
            table = made["table"]

            def away() -> list[bool]:
                raw("here", table=table, token=made["player"])  # the player is there
                return [seat["away"] for seat in raw("sync", table=table)["seats"]]

            until(lambda: away() == [False, True])
            assert raw("stand_in", table=table, token=made["player"],
                       seat=1)["type"] == "stand_in"
            raw("sync", table=table, token=made["bot"])  # the bot comes back after all
            assert away() == [False, False]
        finally:
            raw.close()
    # A bot heard since the host began to serve is not away for its silence.
    with running_host(tmp_path, heartbeat_s=0.2) as host:
        raw = Raw(host.endpoint)
        try:
            raw("sync", table=made["table"], token=made["bot"])
            stand_in = raw("stand_in", table=made["table"], token=made["player"], seat=1)
            assert stand_in["code"] == "not_away"  # the player's request: silent from now on

            def seats() -> list[bool]:
                return [seat["away"] for seat in raw("sync", table=made["table"])["seats"]]

            # The player, silent since after the bot, is away: the bot, silent as long, is not.
            until(lambda: seats()[0])
            assert seats() == [True, False]
        finally:
            raw.close()

def test_a_bot_seat_without_a_deadline_runs_on_the_hosts_fallback_clock(tmp_path: Path) -> None:
    """Issue 18, point 9: anyone may join a bot seat as a bot; at a table with no deadline such
    a "bot" that never moves held the game for ever. The host's fallback clock plays for it."""
    with running_host(tmp_path, bot_fallback_s=DEADLINE_S) as host:
        raw = Raw(host.endpoint)
        try:
            made = bot_table(raw, deadline_s=None)
            assert made["created"]["deadline_s"] is None  # the table itself sets none
            play_player_turn(raw, made["table"], made["player"])
            until(lambda: raw("sync", table=made["table"])["turn"] == 0)
            assert [seat for _, seat, _ in default_moves(tmp_path, made["table"])] == [1, 1]
        finally:
            raw.close()


def test_a_late_act_is_refused_and_never_plays_twice(host: Host, raw: Raw, tmp_path: Path) -> None:
    made = bot_table(raw)
    table = made["table"]
    play_player_turn(raw, table, made["player"])
    seen = raw("sync", table=table, token=made["bot"])
    assert seen["turn"] == 1
    until(lambda: raw("sync", table=table)["version"] > seen["version"])
    late = raw("act", table=table, seat=1, token=made["bot"], version=seen["version"],
               action={"type": "take", "index": 0})
    assert late["code"] == "stale_version"
    assert late["snapshot"]["version"] > seen["version"]
    # Once the host has played the whole turn, acting on the current version is not its turn.
    now = until(lambda: (s := raw("sync", table=table))["turn"] == 0 and s)
    refused = raw("act", table=table, seat=1, token=made["bot"], version=now["version"],
                  action={"type": "take", "index": 0})
    assert refused["code"] == "not_your_turn" and "snapshot" in refused
    assert raw("sync", table=table)["version"] == now["version"]
    moves = default_moves(tmp_path, table)
    assert [version for version, _, _ in moves] == [seen["version"], seen["version"] + 1]


def test_a_default_move_survives_kill_9_and_the_clock_restarts_after_a_restart(
    tmp_path: Path,
) -> None:
    proc, endpoint, pub_endpoint = start_host_process(
        tmp_path, "--port", "0", "--heartbeat-s", "0.2", "--bot-deadline", str(DEADLINE_S))
    ports = ("--port", port_of(endpoint), "--pub-port", port_of(pub_endpoint))
    raw = Raw(endpoint)
    try:
        # No deadline in the request: the host's --bot-deadline applies.
        made = bot_table(raw, deadline_s=None)
        table = made["table"]
        assert made["snapshot"]["deadline_s"] == DEADLINE_S
        play_player_turn(raw, table, made["player"])
        first = raw("sync", table=table)
        played = until(lambda: (s := raw("sync", table=table))["version"] > first["version"]
                            and s)
        proc.kill()
        proc.wait()
        raw.close()
        proc, endpoint, _ = start_host_process(tmp_path, "--heartbeat-s", "0.2", *ports)
        raw = Raw(endpoint)
        back = raw("sync", table=table)
        # Everything heard is there (a second default may have gone out before the kill).
        assert back["version"] >= played["version"]
        assert back["deadline_s"] == DEADLINE_S
        # The pending bot decision gets a fresh clock from the restart, then the host plays it.
        done = until(lambda: (s := raw("sync", table=table))["turn"] == 0 and s)
        assert done["version"] == first["version"] + 2
        moves = default_moves(tmp_path, table)
        assert [version for version, _, _ in moves] == [first["version"], first["version"] + 1]
    finally:
        raw.close()
        proc.kill()
        proc.wait()


def test_a_bot_runner_thinks_inside_the_table_deadline_and_is_never_timed_out(
    tmp_path: Path,
) -> None:
    # Long enough that a third of it (what the bot keeps spare) covers a loaded machine's delays.
    deadline_s = 1.5
    # The host and the other bot in processes of their own, as they would be: a search thread
    # beside them would hold the GIL and slow them, and the host would see that as lateness.
    host, endpoint, _ = start_host_process(tmp_path, "--port", "0", "--bot-deadline",
                                           str(deadline_s))
    # think 5 s on the command line; the table's deadline must cap it.
    searcher = BotRunner(endpoint, "mcts", seed=1, think_s=5.0)
    other = None
    try:
        table = searcher.create({"players": 2}, seed=9)
        searcher.join(table, 0)
        assert searcher.move_deadline_s == deadline_s
        other = subprocess.Popen([*RUN_SAGANI, "bot",
                                  endpoint.removeprefix("tcp://"), "--table", table, "--seat",
                                  "2", "--strategy", "greedy", "--quiet"])
        stop = threading.Event()
        thread = threading.Thread(target=searcher.play, args=(stop,), daemon=True)
        thread.start()
        until(lambda: searcher.moves >= 3)  # a second of search each
        stop.set()
        thread.join(WAIT_S)
        # The search is budgeted inside the table's deadline, not the command line's 5 s (how
        # long a move really took depends on the machine's load, so that is not asserted)...
        assert searcher.policy is not None
        assert searcher.policy.config.think_s == think_cap_s(deadline_s) == 1.0
        # ...and the host never had to play for it.
        assert default_moves(tmp_path, table) == []
    finally:
        searcher.close()
        if other is not None:
            other.kill()
            other.wait()
        host.terminate()
        host.wait()


def test_an_older_data_dir_gets_the_deadline_column(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "sagani.sqlite3")
    db.execute("CREATE TABLE tables (id TEXT PRIMARY KEY, game TEXT NOT NULL, config TEXT NOT "
               "NULL, seed INTEGER NOT NULL, bots TEXT NOT NULL, status TEXT NOT NULL, seq "
               "INTEGER NOT NULL, created_s REAL NOT NULL, record TEXT)")
    db.execute("INSERT INTO tables VALUES ('t1', 'sagani', '{\"players\": 2, \"mode\": "
               "\"multi\"}', 1, '[]', 'open', 0, 1.0, NULL)")
    db.commit()
    db.close()
    (row,) = Store(tmp_path).unfinished()
    assert row.deadline_s is None


def test_bots_missing_deadlines_on_many_tables_cannot_flood_the_log(
    tmp_path: Path, caplog: Any
) -> None:
    """Issue 10: 66,000 warning lines in 40 s. Lines of one kind are counted past a few."""
    import logging

    from test_net_support import running_host

    from sagani_net.limits import LOG_LINES_PER_WINDOW, LOG_WINDOW_S

    tables = 12
    with caplog.at_level(logging.WARNING, logger="sagani_net.host"), \
            running_host(tmp_path, heartbeat_s=0.2) as host:
        raw = Raw(host.endpoint)
        made = []
        for seed in range(tables):  # two bot seats that never answer: the host plays both
            table = raw("create", game="sagani", config={"players": 2}, seed=seed, bots=[0, 1],
                        deadline_s=0.1)["table"]
            for _ in range(2):
                raw("join", table=table, role="bot", name="mute")
            made.append(table)
        until(lambda: sum(len(default_moves(tmp_path, t)) for t in made) >= 3 * tables)
        raw.close()
    missed = [r for r in caplog.records if "missed its" in r.getMessage()]
    played = sum(len(default_moves(tmp_path, t)) for t in made)
    assert played >= 3 * tables
    # So many lines a window; windows start at any line of the host's (not only these), so
    # lines spanning less than one window may fall into two.
    windows = 2 + int((missed[-1].created - missed[0].created) // LOG_WINDOW_S)
    assert len(missed) <= LOG_LINES_PER_WINDOW * windows and len(missed) < played


def test_the_hosts_lines_about_a_seat_count_it_from_1_and_name_its_clock(
    host: Host, raw: Raw, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The host's screen said 'seat 0 missed its 0.2 s deadline' of the first seat, which
    `sagani tables` and every console call seat 1, and called a person's turn timer a
    deadline; so did the lines of stand-ins. Seats count from 1 wherever people read them,
    with who holds them, as `sagani tables` lists them ("seat 1 missed ..." named nobody)."""
    with caplog.at_level(logging.INFO, logger="sagani_net.host"):
        table = raw("create", game="sagani", config={"players": 2}, seed=3, bots=[1],
                    deadline_s=DEADLINE_S, turn_timer_s=DEADLINE_S)["table"]
        player = raw("join", table=table, name="ann")["token"]
        raw("join", table=table, role="bot", name="mute")
        # Nobody moves: the host plays the person's turn, then the mute bot's.
        until(lambda: any(seat == 1 for _, seat, _ in default_moves(tmp_path, table)))
        assert raw("stand_in", table=table, token=player, seat=1)["type"] == "stand_in"
    said = [r.getMessage() for r in caplog.records if f"table {table}: seat" in r.getMessage()]
    assert any(line.startswith(f"table {table}: seat 1:ann missed its 0.2 s turn timer at ")
               for line in said), said
    assert any(line.startswith(f"table {table}: seat 2:mute missed its 0.2 s deadline at ")
               for line in said), said
    assert f"table {table}: seat 1:ann asked for a stand-in for away seat 2:mute" in said, said


def test_the_hosts_event_lines_are_sentences_with_the_seats_names(
    host: Host, raw: Raw, caplog: pytest.LogCaptureFixture
) -> None:
    """The host's line of each event printed its wire fields ("type=deadline_missed seat=0"),
    the first seat numbered 0 there alone: it reads as the consoles' log does, seats by
    name. A seat nobody holds is "seat N", from 1."""
    with caplog.at_level(logging.INFO, logger="sagani_net.host"):
        table = raw("create", game="sagani", config={"players": 2}, seed=3, bots=[1],
                    deadline_s=DEADLINE_S)["table"]
        token = raw("join", table=table, name="ann")["token"]
        raw("join", table=table, role="bot", name="mute")
        play_player_turn(raw, table, token)
        until(lambda: "mute ran out of time" in caplog.text)
    said = [r.getMessage() for r in caplog.records]
    lines = [line for line in said if line.startswith(f"table {table} #")]
    assert any(line.endswith(": ann sat down at seat 1") for line in lines), lines
    assert any(": ann placed " in line for line in lines), lines
    assert any(line.endswith(": mute ran out of time: the host plays the game's default move "
                             "for that seat") for line in lines), lines
    assert not any("seat=" in line or "type=" in line for line in lines), lines
