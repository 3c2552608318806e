"""The SQLite store: what is committed comes back after reopening; what is not, does not."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from sagani_net.store import SessionRow, Store, TableRow


def table_row(table_id: str = "t1") -> TableRow:
    return TableRow(table_id, "sagani", {"players": 2, "mode": "multi"}, 7, [1], "running", 3, 1.0)


def test_committed_tables_sessions_and_actions_come_back(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.add_table(table_row())
    store.add_session(SessionRow("hash-a", "t1", 0, "player", "ann"))
    store.add_session(SessionRow("hash-w", "t1", None, "spectator", "watcher"))
    store.add_action("t1", 0, 0, {"type": "take", "index": 2}, "hash-a", 41, 5)
    store.commit()
    store.close()

    (row,) = Store(tmp_path).unfinished()
    assert (row.id, row.seed, row.bots, row.seq) == ("t1", 7, [1], 5)
    assert row.config == {"players": 2, "mode": "multi"}
    assert row.actions == [{"seat": 0, "type": "take", "index": 2}]
    sessions = {s.token_hash: s for s in row.sessions}
    assert sessions["hash-a"].seat == 0 and sessions["hash-a"].accepted == {41}
    assert sessions["hash-w"].seat is None


def test_uncommitted_writes_are_lost_with_the_process(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.add_table(table_row())
    store.commit()
    store.add_action("t1", 0, 0, {"type": "draw"}, "hash-a", 1, 4)
    # No commit: another connection (the next host) must not see the action.
    assert Store(tmp_path).unfinished()[0].actions == []


def test_accepted_action_is_found_by_session_and_message_id(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.add_table(table_row())
    store.add_action("t1", 0, 0, {"type": "take", "index": 1}, "hash-a", 5, 4)
    store.add_action("t1", 1, 0, {"type": "place", "cell": [0, 0], "rotation": 0}, "hash-a", 6, 5)
    assert store.accepted_action("t1", "hash-a", 6) == (1, 5)
    assert store.accepted_action("t1", "hash-a", 7) is None
    assert [a["type"] for a in store.actions("t1")] == ["take", "place"]
    with pytest.raises(sqlite3.IntegrityError):
        store.add_action("t1", 1, 0, {"type": "draw"}, "hash-b", 1, 6)


def test_finished_table_keeps_its_record_and_is_not_resumed(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.add_table(table_row())
    store.finish_table("t1", 9, {"game": "sagani", "result": {"ranking": [1, 0]}})
    store.commit()
    assert store.unfinished() == []
    assert store.record("t1") == {"game": "sagani", "result": {"ranking": [1, 0]}}
    assert store.record("nope") is None and store.table_ids() == ["t1"]


def test_database_is_in_wal_mode(tmp_path: Path) -> None:
    store = Store(tmp_path)
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_each_table_and_record_keeps_its_game(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.add_table(table_row("t1"))
    store.add_table(TableRow("t2", "toy", {"players": 3}, 8, [], "running", 1, 2.0))
    store.add_table(TableRow("t3", "toy", {"players": 2}, 9, [], "running", 1, 3.0))
    store.finish_table("t3", 4, {"game": "toy", "names": ["ann", "bob"]})
    store.commit()
    store.close()
    store = Store(tmp_path)
    assert [(row.id, row.game, row.config) for row in store.unfinished()] == [
        ("t1", "sagani", {"players": 2, "mode": "multi"}), ("t2", "toy", {"players": 3})]
    found = store.finished("t3")
    assert found is not None
    row, record = found
    assert (row.game, record) == ("toy", {"game": "toy", "names": ["ann", "bob"]})
