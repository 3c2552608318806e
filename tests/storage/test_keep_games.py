"""The data dir keeps the records of the newest finished games only (``--keep-games``), and no
row of an open table that expired before anyone played: nothing a request makes the host
write stays for ever. Games still running are never touched."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest
from test_net_support import Raw, play_first_legal, read_store, running_host, until

from sagani_net.quotas import Limits
from sagani_net.store import DB_NAME, SessionRow, Store, TableRow


def started(store: Store, table_id: str, created_s: float = 1.0) -> None:
    """A table with a session, an action and a create nonce."""
    store.add_table(TableRow(table_id, "toy", {"players": 1}, 1, [], "running", 0, created_s))
    store.add_create_nonce(f"nonce-{table_id}", table_id)
    store.add_session(SessionRow(f"hash-{table_id}", table_id, 0, "player", "ann"))
    store.add_action(table_id, 0, 0, {"type": "play"}, f"hash-{table_id}", 1, 1)


def finished(store: Store, table_id: str) -> None:
    started(store, table_id)
    store.finish_table(table_id, 2, {"game": "toy"})


def rows(db: sqlite3.Connection) -> list[list[tuple]]:
    return [db.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall()
            for t in ("tables", "sessions", "actions", "create_nonces")]


def test_the_oldest_finished_go_first_every_row_of_them_and_a_standby_replays_it(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path / "a")
    store.journalling = True  # as while a standby follows: the removal is an entry too
    # Made in one order, ended in another: the one that ended first goes first.
    for n, table_id in enumerate(("late", "middle", "early")):
        started(store, table_id, created_s=1.0 + n)
    for table_id in ("early", "middle", "late"):
        store.finish_table(table_id, 2, {"game": "toy"})
    store.add_table(TableRow("playing", "toy", {"players": 1}, 1, [], "running", 0, 0.5))
    store.add_action("playing", 0, 0, {"type": "play"}, "hash-p", 1, 1)
    assert store.finished_beyond(3, 64) == []
    assert store.finished_beyond(1, 64) == ["early", "middle"]
    assert store.finished_beyond(1, 1) == ["early"]
    for table_id in store.finished_beyond(1, 64):
        store.drop_table(table_id)
    store.commit()
    assert store.table_ids() == ["playing", "late"]
    assert [r[0] for r in rows(store.db)[3]] == ["nonce-late"]
    assert {r[1] for r in rows(store.db)[1]} == {"late"}
    assert {r[0] for r in rows(store.db)[2]} == {"late", "playing"}
    # A standby replays the journal into the same rows, cursor and head.
    copy = Store(tmp_path / "b")
    copy.replay([(i, statement, params) for i, statement, params, _ in store.entries(0, 1000)])
    copy.commit()
    assert rows(copy.db) == rows(store.db)
    assert (copy.cursor(), copy.head()) == (store.cursor(), store.head())


def test_a_kept_copy_lacking_only_removed_records_lost_nothing(tmp_path: Path) -> None:
    """A standby keeps its store aside before a snapshot replaces it, and throws it away only
    if the snapshot holds all it had: records the active host removed since are not lost
    (else every snapshot past the bound would leave a whole copy behind), a newer game is."""
    store = Store(tmp_path)
    for table_id in ("t0", "t1", "t2"):
        finished(store, table_id)
    store.commit()
    kept = store.keep_copy()
    assert kept is not None
    store.drop_table("t0")
    store.commit()
    assert store.lost_from(kept) == (0, 0)
    copy = Store(kept)
    finished(copy, "t9")  # a game the copy's host had and this one never got
    copy.commit()
    copy.close()
    assert store.lost_from(kept) == (1, 1)


def test_a_host_keeps_the_newest_finished_games_and_every_running_one(
    tmp_path: Path, toy_registered: str, caplog: pytest.LogCaptureFixture
) -> None:
    limits = Limits(finished_records=2, open_idle_s=0.2)
    caplog.set_level(logging.INFO, logger="sagani_net.host")
    with running_host(tmp_path, limits=limits, heartbeat_s=0.05) as host:
        raw = Raw(host.endpoint)
        # A game running across all the others, one move in.
        running = raw("create", game="toy", config={"players": 2}, seed=5)["table"]
        tokens = [raw("join", table=running, name=n)["token"] for n in ("ann", "bob")]
        play_first_legal(raw, running, tokens, moves=1)
        games = []
        for n in range(4):
            table = raw("create", game="toy", config={"players": 2}, seed=n)["table"]
            seats = [raw("join", table=table, name=f"p{i}")["token"] for i in (0, 1)]
            play_first_legal(raw, table, seats)
            games.append(table)
        assert raw("record", table=games[0])["code"] == "record_removed"
        assert raw("record", table=games[1])["code"] == "record_removed"
        assert raw("record", table=games[3])["record"]["game"] == "toy"
        assert raw("sync", table=games[0])["code"] == "no_table"
        # One at a time, in words for one ('the records of the 1 oldest finished games').
        assert (f"removed the record of the oldest finished game ({games[0]}): the data dir "
                "keeps the newest 2 (sagani host --keep-games)") in caplog.messages
        kept = {r[0] for r in read_store(tmp_path, "SELECT id FROM tables")}
        assert kept == {running, games[2], games[3]}
        for table in ("sessions", "actions", "create_nonces"):
            left = read_store(tmp_path, f"SELECT count(*) FROM {table} WHERE table_id IN "
                              "(?, ?)", games[0], games[1])
            assert left == [(0,)], table
        assert len(read_store(tmp_path, "SELECT 1 FROM actions WHERE table_id = ?", running)) == 1
        # An open table nobody joined expires, and leaves no row behind.
        lonely = raw("create", game="toy", config={"players": 2})["table"]
        until(lambda: not read_store(tmp_path, "SELECT 1 FROM tables WHERE id = ?", lonely))
        assert raw("sync", table=running, token=tokens[1])["status"] == "running"
        raw.close()


def test_a_data_dir_from_before_end_times_is_read_and_its_games_ordered_by_creation(
    tmp_path: Path,
) -> None:
    db = sqlite3.connect(tmp_path / DB_NAME)
    db.execute("CREATE TABLE tables (id TEXT PRIMARY KEY, game TEXT NOT NULL, config TEXT NOT "
               "NULL, seed INTEGER NOT NULL, bots TEXT NOT NULL, status TEXT NOT NULL, seq "
               "INTEGER NOT NULL, created_s REAL NOT NULL, record TEXT, deadline_s REAL, "
               "turn_timer_s REAL)")
    for n, table_id in enumerate(("old", "older")):
        db.execute("INSERT INTO tables VALUES (?, 'toy', '{}', 1, '[]', 'over', 2, ?, '{}', "
                   "NULL, NULL)", (table_id, 10.0 - n))
    db.commit()
    db.close()
    store = Store(tmp_path)
    assert store.finished_beyond(1, 64) == ["older"]


def test_an_older_hosts_finish_entry_still_replays(tmp_path: Path) -> None:
    """A standby upgraded before its active host's journal was drained may still be sent a
    finish written without an end time; it ends the table, ordered by when it was made."""
    older = Store(tmp_path / "a")
    older.journalling = True
    started(older, "t1")
    entries = [(i, statement, params) for i, statement, params, _ in older.entries(0, 100)]
    entries.append((len(entries) + 1, "finish_table", '[2,"{}","t1"]'))
    store = Store(tmp_path / "b")
    store.replay(entries)
    store.commit()
    assert store.record("t1") == {} and store.finished_beyond(0, 64) == ["t1"]
