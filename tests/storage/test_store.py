"""The SQLite store: what is committed comes back after reopening; what is not, does not."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sagani_net.store import DB_NAME, SessionRow, Store, TableRow, _json


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
    assert store.accepted_action("t1", "hash-a", 6) == (
        1, 5, {"type": "place", "cell": [0, 0], "rotation": 0})
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


# -- the journal (issue 18 point 11) ------------------------------------------------------------


def journal_rows(store: Store) -> int:
    return store.db.execute("SELECT count(*) FROM journal").fetchone()[0]


def test_with_no_standby_each_action_is_written_once(tmp_path: Path) -> None:
    """Before: every write went into the journal too (the action twice, JSON in JSON), for
    ever. The cursor and head still move with every write, and survive a restart."""
    store = Store(tmp_path)
    store.add_table(table_row())
    for version in range(50):
        store.add_action("t1", version, 0, {"type": "draw"}, "hash-a", version, version)
        store.commit()
    assert journal_rows(store) == 0
    assert store.cursor() == 51 and len(store.head()) == 64
    cursor, head = store.cursor(), store.head()
    store.close()
    again = Store(tmp_path)
    assert (again.cursor(), again.head()) == (cursor, head)


def test_the_journal_keeps_only_what_a_standby_has_not_confirmed(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.journalling = True  # as ActiveLink sets it while a standby follows
    store.add_table(table_row())
    for version in range(20):
        store.add_action("t1", version, 0, {"type": "draw"}, "hash-a", version, version)
    store.commit()
    assert [e[0] for e in store.entries(0, 100)] == list(range(1, 22))
    store.confirm(15)
    store.add_action("t1", 20, 0, {"type": "draw"}, "hash-a", 20, 20)
    store.commit()
    # Entry 15 stays: the standby is known by it when it follows again.
    assert [e[0] for e in store.entries(0, 100)] == list(range(15, 23))
    assert store.follows_from(15, store.entries(14, 1)[0][3])
    assert not store.follows_from(14, "") and not store.follows_from(15, "another head")
    store.journalling = False  # the standby was lost: it will get a snapshot
    store.add_action("t1", 21, 0, {"type": "draw"}, "hash-a", 21, 21)
    store.commit()
    assert journal_rows(store) == 0 and store.cursor() == 23


def test_the_entries_of_an_open_transaction_are_the_ones_the_journal_then_holds(
    tmp_path: Path,
) -> None:
    """The link sends a batch's entries before the commit, from what the store kept as it
    wrote them: the same entries, by any cursor and limit, as the journal gives once they are
    committed; none of a rolled-back batch."""
    store = Store(tmp_path)
    store.journalling = True
    store.add_table(table_row())
    store.commit()
    for version in range(6):
        store.add_action("t1", version, 0, {"type": "draw"}, "hash-a", version, version)
    ranges = [(after, limit) for after in range(9) for limit in (1, 3, 100)]
    before = {key: store.entries(*key) for key in ranges}
    assert [e[0] for e in before[1, 100]] == list(range(2, 8))
    store.commit()
    assert {key: store.entries(*key) for key in ranges} == before
    store.add_action("t1", 6, 0, {"type": "draw"}, "hash-a", 6, 6)
    assert [e[0] for e in store.entries(6, 100)] == [7, 8]
    store.rollback()
    assert [e[0] for e in store.entries(6, 100)] == [7]


def test_a_snapshot_makes_the_same_store(tmp_path: Path) -> None:
    source = Store(tmp_path / "a")
    source.add_table(table_row())
    source.add_session(SessionRow("hash-a", "t1", 0, "player", "ann"))
    source.add_action("t1", 0, 0, {"type": "take", "index": 2}, "hash-a", 41, 5)
    source.add_create_nonce("nonce-hash", "t1")
    source.commit()
    copy = Store(tmp_path / "b")
    copy.add_session(SessionRow("other", "t9", 0, "player", "bob"))  # a history of its own
    copy.commit()
    copy.clear()
    copy.restore(source.snapshot())
    copy.set_head(source.cursor(), source.head())
    copy.commit()
    copy.close()
    copy = Store(tmp_path / "b")
    assert copy.snapshot() == source.snapshot()
    assert (copy.cursor(), copy.head()) == (source.cursor(), source.head())
    assert copy.unfinished()[0].actions == [{"seat": 0, "type": "take", "index": 2}]
    assert copy.created_by("nonce-hash") == table_row()


def test_the_table_a_create_made_is_found_by_its_nonce_hash_whatever_became_of_it(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path)
    store.add_table(table_row())
    store.add_create_nonce("nonce-hash", "t1")
    store.finish_table("t1", 9, {"actions": []})
    store.commit()
    found = Store(tmp_path).created_by("nonce-hash")
    assert found is not None and (found.id, found.status, found.seq) == ("t1", "over", 9)
    assert store.created_by("another") is None


def test_a_data_dir_with_the_old_endless_journal_keeps_its_cursor_not_the_journal(
    tmp_path: Path,
) -> None:
    """A store made before the journal was pruned: its journal goes, its cursor stays (of two
    hosts of a pair the one that holds more still serves), and so do its games."""
    store = Store(tmp_path)
    store.add_table(table_row())
    store.commit()
    store.db.executescript(
        "DROP TABLE journal; DROP TABLE journal_head; "
        "CREATE TABLE journal (id INTEGER PRIMARY KEY, statement TEXT NOT NULL, "
        "params TEXT NOT NULL); "
        "INSERT INTO journal VALUES (1, 'add_table', '[]'), (7, 'drop_session', '[\"x\"]');"
    )
    store.close()
    old = Store(tmp_path)
    assert old.cursor() == 7 and old.head() != "" and journal_rows(old) == 0
    assert [row.id for row in old.unfinished()] == ["t1"]
    columns = [row[1] for row in old.db.execute("PRAGMA table_info(journal)")]
    assert columns == ["id", "statement", "params", "head"]


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=12,
)


@given(JSON_VALUES)
@settings(max_examples=300, deadline=None)
def test_the_store_writes_the_text_json_dumps_writes(value: object) -> None:
    """The journal's text and its chained head are made from the store's JSON: the very text
    of json.dumps with compact separators (one encoder made once stands in for it)."""
    assert _json(value) == json.dumps(value, separators=(",", ":"))


def test_the_store_refuses_to_write_what_json_cannot_hold() -> None:
    with pytest.raises(TypeError, match="not JSON serializable"):
        _json({"action": object()})


def sqlite_steps(store: Store, call: Callable[[], object]) -> int:
    """How much work SQLite did for ``call``: its virtual machine's instructions, in hundreds
    (the rows a query reads are most of them)."""
    steps = 0

    def tick() -> int:
        nonlocal steps
        steps += 1
        return 0  # go on

    store.db.set_progress_handler(tick, 100)
    try:
        call()
    finally:
        store.db.set_progress_handler(None, 100)
    return steps


def add_finished_games(store: Store, first: int, count: int) -> None:
    """``count`` finished tables of two seats and a spectator, with their moves: history."""
    for n in range(first, first + count):
        table_id = f"old{n:05d}"
        store.add_table(TableRow(table_id, "sagani", {"players": 2}, n, [], "open", 0, n))
        for seat in (0, 1, None):
            store.add_session(SessionRow(f"{table_id}-{seat}", table_id, seat, "player", "p"))
        for version in range(60):
            store.add_action(table_id, version, version % 2, {"type": "pass"},
                             f"{table_id}-{version % 2}", version, version + 1)
        store.finish_table(table_id, 61, {"game": "sagani", "padding": "x" * 5000})
    store.commit()


def test_neither_a_start_nor_a_finished_table_read_back_reads_the_rest_of_history(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path)
    store.add_table(table_row("now"))
    store.add_session(SessionRow("hash-a", "now", 0, "player", "ann"))
    add_finished_games(store, 0, 1)
    before = (sqlite_steps(store, store.unfinished),
              sqlite_steps(store, lambda: store.finished("old00000")))
    add_finished_games(store, 1, 400)
    after = (sqlite_steps(store, store.unfinished),
             sqlite_steps(store, lambda: store.finished("old00000")))
    # Before the indexes every table's row and every session was read: 133 and 39 hundred
    # instructions with these 401 games, where one game took 0 and 3.
    assert after[0] <= before[0] + 5 and after[1] <= before[1] + 5, (before, after)


def test_a_database_closed_whole_is_not_read_through_again_at_its_next_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PRAGMA quick_check reads the whole file: a second at 30,000 finished games before the
    host answered anyone. A file as the last store left it when it closed it whole has nothing
    to show it; any other (written by something else since, or a run that never closed) is
    checked as before."""
    store = Store(tmp_path)
    store.add_table(TableRow("t1", "sagani", {"players": 2}, 1, [], "running", 0, 0.0))
    store.commit()
    store.close()
    statements: list[str] = []
    real_connect = sqlite3.connect

    def traced(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        db = real_connect(*args, **kwargs)
        db.set_trace_callback(statements.append)
        return db

    monkeypatch.setattr(sqlite3, "connect", traced)
    Store(tmp_path).close()
    assert statements and not any("quick_check" in s for s in statements)

    other = real_connect(tmp_path / DB_NAME)  # the sqlite3 shell, say
    other.execute("UPDATE tables SET seq = 5")
    other.commit()
    other.close()
    statements.clear()
    unclosed = Store(tmp_path)
    assert "PRAGMA quick_check" in statements
    assert unclosed.unfinished()[0].seq == 5

    statements.clear()
    Store(tmp_path).close()  # the one before never closed: no mark
    assert "PRAGMA quick_check" in statements
    unclosed.close()
