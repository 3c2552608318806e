"""The host's durable memory: tables, sessions, accepted actions and finished records in SQLite.

One connection, WAL mode. The host writes inside an open transaction and calls
:meth:`Store.commit` before it sends the replies and broadcasts of a batch, so every accepted
action is on disk (in the WAL) before anyone hears of it. Seats keep token hashes, never tokens.

The data dir is the owner's alone (0700, files 0600: it holds the seeds of running games). The
store notices when its files are deleted, replaced or written by anything else while it runs
(:meth:`Store.damage`), and refuses to open a database that fails SQLite's check
(:class:`StorageDamaged`); :func:`salvage` copies what is readable into a new one.

A command that only reads a data dir (``sagani record export``) opens it with
:meth:`Store.reader`: a read-only connection, which can never write the database or its WAL
(SQLite checkpoints a WAL into the database, and deletes it, when the last connection that
may write closes), so the host's damage check never mistakes it for a writer.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sagani_net.private_files import DIR_MODE, FILE_MODE, write_private

DB_NAME = "sagani.sqlite3"
#: A store replaced by its active host's snapshot, kept where it held games the snapshot lacks
#: (:meth:`Store.keep_copy`): ``replaced-DATE-TIME-xxxx/`` in the data dir.
REPLACED_PREFIX = "replaced-"
#: Beside the database once a store closed it whole (:func:`closed_clean`).
CLOSED_MARK = "closed-whole"
#: The files SQLite keeps beside the database in WAL mode.
SIDE_FILES = ("-wal", "-shm")
#: NORMAL survives a killed host process (the WAL is written before commit returns); FULL also
#: survives a power cut, at the price of an fsync per commit.
SYNCHRONOUS = "NORMAL"
#: WAL pages between checkpoints. A checkpoint fsyncs (milliseconds); the default 1000 pages
#: would stall a busy host several times a second, and an action's commit writes about three
#: (whole pages: the action's leaf, journal_head's, and a b-tree balance about one commit in
#: four; docs/reliability.md).
WAL_AUTOCHECKPOINT_PAGES = 16384

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    config TEXT NOT NULL,
    seed INTEGER NOT NULL,
    bots TEXT NOT NULL,
    status TEXT NOT NULL,
    seq INTEGER NOT NULL,
    created_s REAL NOT NULL,
    record TEXT,
    deadline_s REAL,
    turn_timer_s REAL,
    over_s REAL
);
CREATE TABLE IF NOT EXISTS sessions (
    token_hash TEXT PRIMARY KEY,
    table_id TEXT NOT NULL,
    seat INTEGER,
    role TEXT NOT NULL,
    name TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS actions (
    table_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    action TEXT NOT NULL,
    session TEXT NOT NULL,
    msg_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (table_id, version)
) WITHOUT ROWID;
-- What a start (the unfinished tables) and a finished table read back for a request look
-- up: without them both read every table and session of the data dir's history.
CREATE INDEX IF NOT EXISTS tables_by_status ON tables (status);
CREATE INDEX IF NOT EXISTS sessions_by_table ON sessions (table_id);
-- The table each create with a nonce made, by a hash of the nonce: a retry that reaches a
-- host that never answered it (restarted, or the standby) finds it. One row per table at most.
CREATE TABLE IF NOT EXISTS create_nonces (
    nonce_hash TEXT PRIMARY KEY,
    table_id TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS journal (
    id INTEGER PRIMARY KEY,
    statement TEXT NOT NULL,
    params TEXT NOT NULL,
    head TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS journal_head (
    one INTEGER PRIMARY KEY CHECK (one = 1),
    cursor INTEGER NOT NULL,
    head TEXT NOT NULL
);
"""
#: The finished games in the order the oldest go (Store.finished_beyond, at each game's end):
#: without it, each end past the bound sorted every finished table, reading each row past its
#: record (47-53 ms at 10,000 games of 15 KB records, in the host's loop; 0.02 ms with it).
_ENDED_INDEX = ("CREATE INDEX IF NOT EXISTS tables_by_end ON tables (coalesce(over_s, created_s), "
                "id) WHERE status IN ('over', 'expired')")

#: Every write the store makes, by name. Each one moves the store's cursor and head (see
#: :meth:`Store.cursor`); while a standby follows (:attr:`Store.journalling`) each is also kept
#: in the journal, with its parameters, in the same transaction, so that the standby replays it
#: into its own store (standby.py), until the standby has confirmed it.
WRITES: dict[str, str | tuple[str, ...]] = {
    "add_table": "INSERT INTO tables (id, game, config, seed, bots, status, seq, created_s, "
                 "record, deadline_s, turn_timer_s) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)",
    "add_create_nonce": "INSERT INTO create_nonces VALUES (?, ?)",
    "set_table": "UPDATE tables SET status = ?, seq = ? WHERE id = ?",
    # (finish_table, without the end time, is what an older host journalled: a standby may
    # still be given such entries to replay.)
    "finish_table": "UPDATE tables SET status = 'over', seq = ?, record = ? WHERE id = ?",
    "end_table": "UPDATE tables SET status = 'over', seq = ?, record = ?, over_s = ? "
                 "WHERE id = ?",
    "add_session": "INSERT INTO sessions VALUES (?, ?, ?, ?, ?)",
    "drop_session": "DELETE FROM sessions WHERE token_hash = ?",
    "add_action": "INSERT INTO actions VALUES (?, ?, ?, ?, ?, ?, ?)",
    # A finished (or expired) table's every row, the oldest past the bound of finished games
    # kept (Limits.finished_records), or an open table expired before it started. One entry,
    # so that a standby replays it whole.
    "drop_table": ("DELETE FROM actions WHERE table_id = ?",
                   "DELETE FROM sessions WHERE table_id = ?",
                   "DELETE FROM create_nonces WHERE table_id = ?",
                   "DELETE FROM tables WHERE id = ?"),
}
#: One journal entry: (id, statement name, its parameters as JSON text).
Entry = tuple[int, str, str]
#: The tables a snapshot copies (a standby that cannot follow the journal gets them whole),
#: with their column counts; the journal and its head are not data.
SNAPSHOT_TABLES = {"tables": 12, "sessions": 5, "actions": 7, "create_nonces": 2}


class StorageDamaged(Exception):
    """The database cannot be used as it is; the message says what to do (one line)."""


@dataclass
class SessionRow:
    token_hash: str
    table_id: str
    seat: int | None
    role: str
    name: str
    accepted: set[int] = field(default_factory=set)


@dataclass
class TableRow:
    id: str
    game: str
    config: dict[str, Any]
    seed: int
    bots: list[int]
    status: str
    seq: int
    created_s: float
    actions: list[dict[str, Any]] = field(default_factory=list)
    sessions: list[SessionRow] = field(default_factory=list)
    #: Per-move deadline of the bot seats in seconds; None: no deadline.
    deadline_s: float | None = None
    #: Turn timer of the seats people hold in seconds; None: none.
    turn_timer_s: float | None = None


class Store:
    """SQLite in ``data_dir``; see the module docstring for the commit rule."""

    def __init__(self, data_dir: Path | str, *, synchronous: str = SYNCHRONOUS) -> None:
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
        self.path = self.data_dir / DB_NAME
        self._watched = _watched(self.path)
        private(self.data_dir, self.path)
        found = _damage_found(self.path)
        if found is not None:
            # SQLite may open such files without a word (a replaced WAL is skipped), losing
            # what the host had accepted: the host said so while running, and says so again.
            raise StorageDamaged(
                f"the database {self.path} is damaged: the host found it so while it ran "
                f"({found}); start the host with --salvage to keep what is readable (the damaged "
                "files are moved aside, not deleted)"
            )
        unchanged = closed_clean(self.path)  # and the mark is gone before anything writes
        self.db = sqlite3.connect(self.path, isolation_level="DEFERRED", check_same_thread=False)
        try:
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute(f"PRAGMA synchronous={synchronous}")
            self.db.execute(f"PRAGMA wal_autocheckpoint={WAL_AUTOCHECKPOINT_PAGES}")
            check = [("ok",)] if unchanged else self.db.execute("PRAGMA quick_check").fetchall()
            if check != [("ok",)]:  # SQLite's words span lines; the host's say it in one
                raise sqlite3.DatabaseError(" ".join(check[0][0].split()))
            old_head = _old_journal(self.db)
            self.db.executescript(_SCHEMA)
            if self.db.execute("SELECT 1 FROM journal_head").fetchone() is None:
                # (A write only when there is none: another store may hold the write lock.)
                self.db.execute("INSERT INTO journal_head VALUES (1, 0, '')")
            if old_head is not None:
                self.db.execute("UPDATE journal_head SET cursor = ?, head = ?", old_head)
            # A data dir made before tables had deadline_s gets the column (NULL: no deadline).
            columns = {row[1] for row in self.db.execute("PRAGMA table_info(tables)")}
            if "deadline_s" not in columns:
                self.db.execute("ALTER TABLE tables ADD COLUMN deadline_s REAL")
            if "turn_timer_s" not in columns:  # (and before turn timers, this one)
                self.db.execute("ALTER TABLE tables ADD COLUMN turn_timer_s REAL")
            if "over_s" not in columns:  # (and before finished games had an end time)
                self.db.execute("ALTER TABLE tables ADD COLUMN over_s REAL")
            self.db.execute(_ENDED_INDEX)  # (after over_s: an old data dir has it only now)
            self.db.commit()
        except sqlite3.DatabaseError as exc:
            self.db.close()
            if isinstance(exc, sqlite3.OperationalError) and "malformed" not in str(exc):
                raise  # read-only, full, locked: not damage
            raise StorageDamaged(
                f"the database {self.path} is damaged ({exc}); start the host with --salvage "
                "to keep what is readable (the damaged files are moved aside, not deleted)"
            ) from None
        # Only chmod now: opening and closing the database file in this process would drop the
        # POSIX locks SQLite holds on it, and a reader's close would then take the WAL away.
        _owner_only(self.data_dir, self.path)
        self._seen = self._fingerprint()
        self._writer = True
        #: Keep each write in the journal too: only while a standby follows (ActiveLink).
        self.journalling = False
        self._confirmed = 0  # the last entry a standby has confirmed
        self._pruned = 0
        self._journalled = True  # the journal may hold entries (a standby's of the last run)
        #: The journal entries of the open transaction, as :meth:`entries` gives them: the
        #: link sends a batch's entries as it commits them, without reading them back.
        self._uncommitted: list[tuple[int, str, str, str]] = []
        #: The cursor and head as committed (journal_head's row), kept here: a commit writes
        #: them only when they moved, and a rollback goes back to them, without reading it.
        self._committed: tuple[int, str] = self._stored_head()
        self._cursor, self._head = self._committed

    @classmethod
    def reader(cls, data_dir: Path | str) -> Store:
        """The store of ``data_dir`` opened read-only, for a command that only looks (a host
        may be running on it). Creates nothing, changes nothing; raises StorageDamaged (one
        line) for a database the host found damaged or one SQLite cannot read."""
        store = cls.__new__(cls)
        store.data_dir = Path(data_dir)
        store.path = store.data_dir / DB_NAME
        store._watched = _watched(store.path)
        found = _damage_found(store.path)
        if found is not None:
            raise StorageDamaged(f"the database {store.path} is damaged ({found}); start the host "
                                 "with --salvage to keep what is readable")
        uri = f"{store.path.resolve().as_uri()}?mode=ro"
        # A WAL database wants a -shm file beside it, which a read-only file system (a disk
        # the kernel remounted so after errors, a copy on read-only media) cannot have made.
        # With no WAL, and no one able to write one there, it can be read as immutable.
        unchanging = (not os.access(store.data_dir, os.W_OK)
                      and not store.path.with_name(DB_NAME + "-wal").exists())
        try:
            store.db = sqlite3.connect(uri + ("&immutable=1" if unchanging else ""), uri=True,
                                       check_same_thread=False)
            store.db.execute("PRAGMA query_only=1")
            store.db.execute("SELECT count(*) FROM tables").fetchone()
        except sqlite3.Error as exc:
            raise StorageDamaged(f"cannot read the database {store.path}: {exc}") from None
        store._seen = store._fingerprint()
        store._writer = False
        return store

    def close(self) -> None:
        """Close the database; a store that writes leaves a mark that it closed it whole
        (:func:`closed_clean`), unless its WAL is still there (another connection has it)."""
        self.db.close()
        if self._writer and not self.path.with_name(DB_NAME + "-wal").exists():
            with contextlib.suppress(OSError):  # no mark: the next start checks, that is all
                write_private(self.data_dir / CLOSED_MARK, _file_mark(self.path))

    def commit(self, then: Callable[[], None] | None = None) -> None:
        """Make everything written since the last commit durable (and the journal no longer
        than the standby needs: nothing it has confirmed but its last entry, nothing at all
        while none follows). ``then`` is called once it is durable, before the store looks at
        its files again (a standby's ack does not wait for that look)."""
        if (self._cursor, self._head) != self._committed:
            self.db.execute("UPDATE journal_head SET cursor = ?, head = ?",
                            (self._cursor, self._head))
        written = self.db.in_transaction
        if written:
            if not self.journalling and self._journalled:
                self.db.execute("DELETE FROM journal")  # no standby would follow it
                self._journalled = False
            elif self.journalling and self._confirmed > self._pruned:
                self.db.execute("DELETE FROM journal WHERE id < ?", (self._confirmed,))
                self._pruned = self._confirmed
            self.db.commit()
            self._uncommitted.clear()
            self._committed = (self._cursor, self._head)
        if then is not None:
            then()
        if written:
            self._seen = self._fingerprint()

    def rollback(self) -> None:
        """Forget everything written since the last commit (a refused batch)."""
        self.db.rollback()
        self._uncommitted.clear()
        self._cursor, self._head = self._committed
        self._seen = self._fingerprint()  # what the refused writes changed was this store's

    def _stored_head(self) -> tuple[int, str]:
        cursor, head = self.db.execute("SELECT cursor, head FROM journal_head").fetchone()
        return cursor, head

    # -- faults under the host --------------------------------------------------------------

    def _fingerprint(self) -> tuple[tuple[int, int, int] | None, ...]:
        """Identity, size and time of change of the database and its WAL: they change only
        when this store commits (a checkpoint too happens inside a commit)."""
        marks: list[tuple[int, int, int] | None] = []
        for path in self._watched:
            try:
                st = os.stat(path)
                marks.append((st.st_ino, st.st_size, st.st_mtime_ns))
            except FileNotFoundError:
                marks.append(None)
        return tuple(marks)

    def mark_damaged(self, why: str) -> None:
        """Leave a note beside the database that it was found damaged, so that the next start
        refuses it until it is salvaged (best effort: the data dir itself may be gone)."""
        try:
            note = _damage_note(self.path)
            note.write_text(why + "\n", encoding="utf-8")
            os.chmod(note, FILE_MODE)
        except OSError:
            pass

    def damage(self) -> str | None:
        """What happened to the files since the last commit, if anything did (deleted,
        replaced, written by another program); None if they are as this store left them."""
        now = self._fingerprint()
        if now == self._seen:
            return None
        for name, was, is_ in zip(("database", "WAL"), self._seen, now, strict=True):
            if was is not None and is_ is None:
                return f"its {name} file was deleted"
            if was is not None and is_ is not None and was[0] != is_[0]:
                return f"its {name} file was replaced"
            if was != is_:
                return f"its {name} file was written by something else"
        return None

    # -- writes (inside the open transaction) -----------------------------------------------

    def add_table(self, row: TableRow) -> None:
        self._write("add_table", (row.id, row.game, _json(row.config), row.seed, _json(row.bots),
                                  row.status, row.seq, row.created_s, row.deadline_s,
                                  row.turn_timer_s))

    def add_create_nonce(self, nonce_hash: str, table_id: str) -> None:
        """``table_id`` was made by the create whose nonce hashes to ``nonce_hash``."""
        self._write("add_create_nonce", (nonce_hash, table_id))

    def set_table(self, table_id: str, status: str, seq: int) -> None:
        self._write("set_table", (status, seq, table_id))

    def finish_table(self, table_id: str, seq: int, record: dict[str, Any]) -> None:
        self._write("end_table", (seq, _json(record), time.time(), table_id))

    def drop_table(self, table_id: str) -> None:
        """Remove a table and its actions, sessions and create nonce."""
        self._write("drop_table", (table_id,))

    def add_session(self, row: SessionRow) -> None:
        self._write("add_session", (row.token_hash, row.table_id, row.seat, row.role, row.name))

    def drop_session(self, token_hash: str) -> None:
        self._write("drop_session", (token_hash,))

    def add_action(
        self,
        table_id: str,
        version: int,
        seat: int,
        action: dict[str, Any],
        session: str,
        msg_id: int,
        seq: int,
    ) -> None:
        """Record an accepted action: made on ``version``, broadcast as ``seq``.

        The table's own row (its config may span pages) is not touched: the commit writes the
        action's leaf page and journal_head's, and now and then a b-tree balance.
        """
        self._write("add_action", (table_id, version, seat, _json(action), session, msg_id, seq))

    def _write(self, statement: str, params: tuple[Any, ...], text: str | None = None) -> None:
        """Run one of :data:`WRITES`, move the cursor and head, and journal it if a standby
        follows. ``text``: the parameters as the journal has them (a standby's replay)."""
        text = _json(params) if text is None else text
        sql = WRITES[statement]
        for each in (sql,) if isinstance(sql, str) else sql:
            self.db.execute(each, params)
        self._cursor += 1
        self._head = _chain(self._head, statement, text)
        if self.journalling:
            self._journalled = True
            entry = (self._cursor, statement, text, self._head)
            self.db.execute("INSERT INTO journal VALUES (?, ?, ?, ?)", entry)
            self._uncommitted.append(entry)

    # -- the journal (standby.py replicates it) ---------------------------------------------

    def cursor(self) -> int:
        """How many writes this store holds (0: none): it only grows, with every write,
        journalled or not (of two hosts of a pair, the one with more serves)."""
        return self._cursor

    def head(self) -> str:
        """A digest of every write up to :meth:`cursor`, chained: two stores with the same
        cursor and head hold the same history ("" when there is none)."""
        return self._head

    def confirm(self, cursor: int) -> None:
        """A standby has every entry up to ``cursor``: the next commit drops those before it
        (the last is kept, to know the standby by its head when it follows again)."""
        self._confirmed = max(self._confirmed, cursor)

    def follows_from(self, cursor: int, head: str) -> bool:
        """The journal can bring a store at ``cursor`` and ``head`` up to this one's: it is
        this one, or the journal holds that very entry and every one after it."""
        if (cursor, head) == (self._cursor, self._head):
            return True
        row = self.db.execute("SELECT 1 FROM journal WHERE id = ? AND head = ?",
                              (cursor, head)).fetchone()
        return row is not None

    def entries(self, after: int, limit: int) -> list[tuple[int, str, str, str]]:
        """Up to ``limit`` journal entries after id ``after``, in order, each with the head
        after it."""
        uncommitted = self._uncommitted  # the open transaction's, kept as they were written
        if uncommitted and uncommitted[0][0] <= after + 1:
            start = after + 1 - uncommitted[0][0]
            return uncommitted[start:start + limit]
        return self.db.execute("SELECT id, statement, params, head FROM journal WHERE id > ? "
                               "ORDER BY id LIMIT ?", (after, limit)).fetchall()

    def replay(self, entries: list[Entry]) -> None:
        """Apply another store's journal entries (which follow this store's last one) in the
        open transaction; :meth:`commit` makes them durable. Raises ValueError for an entry
        that does not follow (the caller rolls back and asks for a snapshot)."""
        for entry_id, statement, params in entries:
            if entry_id != self._cursor + 1 or statement not in WRITES:
                raise ValueError(f"entry {entry_id} does not follow entry {self._cursor}")
            self._write(statement, tuple(json.loads(params)), params)

    def snapshot(self) -> list[tuple[str, tuple[Any, ...]]]:
        """Every row of :data:`SNAPSHOT_TABLES` (tables first: a session or action names one),
        read at once: what a standby needs when the journal cannot bring it up to date."""
        return list(_rows(self.db))

    def snapshot_reader(self) -> SnapshotReader:
        """The rows of :meth:`snapshot` as last committed, to be read a piece at a time while
        this store goes on writing (:class:`SnapshotReader`)."""
        return SnapshotReader(self.path)

    def restore(self, rows: list[tuple[str, tuple[Any, ...]]]) -> None:
        """Insert rows of another store's :meth:`snapshot` (after :meth:`clear`), in the open
        transaction; :meth:`set_head` then says whose history they are."""
        for table, row in rows:
            columns = SNAPSHOT_TABLES.get(table)
            if columns is None or len(row) != columns:
                raise ValueError(f"not a snapshot row: {table}")
            self.db.execute(f"INSERT INTO {table} VALUES ({', '.join('?' * columns)})", row)

    def set_head(self, cursor: int, head: str) -> None:
        """This store holds the history of another whose cursor and head these are."""
        self._cursor, self._head = cursor, head

    def keep_copy(self) -> Path | None:
        """Copy this store as last committed into a folder of its own in the data dir (a data
        dir in turn, for ``sagani record export --data-dir``), before a snapshot replaces it;
        None if it holds nothing. :meth:`lost_from` then tells whether the copy holds games
        the snapshot lacks, or may go."""
        if self._cursor == 0:
            return None
        stamp = time.strftime("%Y%m%d-%H%M%S")
        folder = Path(tempfile.mkdtemp(prefix=f"{REPLACED_PREFIX}{stamp}-", dir=self.data_dir))
        path = folder / DB_NAME
        private(folder, path)
        copy = sqlite3.connect(path)
        try:
            self.db.backup(copy)
        finally:
            copy.close()
        return folder

    def lost_from(self, copy: Path) -> tuple[int, int]:
        """(tables, actions) of the store kept at ``copy`` (:meth:`keep_copy`) that this one
        lacks: what a host that went its own way had accepted and its active host never got.
        Rows go only with a whole table, one that ended no later than the oldest ended table
        still here (the oldest go first, past the bound of games kept) or an open one expired
        before anyone played: anything else missing was lost."""
        self.db.execute("ATTACH DATABASE ? AS kept", (str(copy / DB_NAME),))
        try:
            missing = (
                "WITH removed AS (SELECT id FROM kept.tables WHERE (status = 'open' AND id NOT "
                "IN (SELECT table_id FROM kept.actions)) OR (status IN ('over', 'expired') AND "
                "coalesce(over_s, created_s) <= (SELECT min(coalesce(over_s, created_s)) FROM "
                "main.tables WHERE status IN ('over', 'expired')))) ")
            (tables,) = self.db.execute(
                missing + "SELECT count(*) FROM (SELECT id FROM kept.tables EXCEPT SELECT id "
                "FROM main.tables EXCEPT SELECT id FROM removed)").fetchone()
            (actions,) = self.db.execute(
                missing + "SELECT count(*) FROM (SELECT table_id, version, seat, action FROM "
                "kept.actions WHERE table_id NOT IN removed EXCEPT SELECT table_id, version, "
                "seat, action FROM main.actions)").fetchone()
        finally:
            self.db.execute("DETACH DATABASE kept")
        return int(tables), int(actions)

    def clear(self) -> None:
        """Forget every row a snapshot holds and every journal entry (a standby whose journal
        went its own way starts again from the active host's)."""
        for table in (*SNAPSHOT_TABLES, "journal"):
            self.db.execute(f"DELETE FROM {table}")
        self._uncommitted.clear()
        self._cursor, self._head = 0, ""

    # -- reads ------------------------------------------------------------------------------

    def accepted_action(
        self, table_id: str, session: str, msg_id: int
    ) -> tuple[int, int, dict[str, Any]] | None:
        """(version, seq, action) of the action ``session`` sent as ``msg_id``, if it was
        accepted: made on ``version``, broadcast as ``seq``, the action as it was sent."""
        row = self.db.execute(
            "SELECT version, seq, action FROM actions "
            "WHERE table_id = ? AND session = ? AND msg_id = ?",
            (table_id, session, msg_id),
        ).fetchone()
        return None if row is None else (row[0], row[1], json.loads(row[2]))

    def actions(self, table_id: str) -> list[dict[str, Any]]:
        """The accepted actions of a table in order, each with its ``seat``."""
        return [
            {"seat": seat, **json.loads(action)}
            for seat, action in self.db.execute(
                "SELECT seat, action FROM actions WHERE table_id = ? ORDER BY version", (table_id,)
            )
        ]

    def action_sessions(self, table_id: str) -> list[str]:
        """The session (a token's hash, or the host's own) of each accepted action of a
        table, in order."""
        return [session for (session,) in self.db.execute(
            "SELECT session FROM actions WHERE table_id = ? ORDER BY version", (table_id,))]

    def record(self, table_id: str) -> dict[str, Any] | None:
        """The finished record of a table, or None (unknown table or game not over)."""
        row = self.db.execute("SELECT record FROM tables WHERE id = ?", (table_id,)).fetchone()
        return None if row is None or row[0] is None else json.loads(row[0])

    def created_by(self, nonce_hash: str) -> TableRow | None:
        """The table the create whose nonce hashes to ``nonce_hash`` made (without its actions
        and sessions), whatever became of it; None if no such create made one."""
        r = self.db.execute(f"SELECT {_TABLE_COLUMNS} FROM tables WHERE id = (SELECT table_id "
                            "FROM create_nonces WHERE nonce_hash = ?)", (nonce_hash,)).fetchone()
        return None if r is None else _table_row(r)

    def finished_beyond(self, keep: int, limit: int) -> list[str]:
        """The ids of up to ``limit`` finished or expired tables past the newest ``keep`` of
        them, oldest first (by when they ended; one from before the store noted it, or expired,
        by when it was made)."""
        (ended,) = self.db.execute(
            "SELECT count(*) FROM tables WHERE status IN ('over', 'expired')").fetchone()
        if ended <= keep:
            return []
        # INDEXED BY: SQLite's planner, with no statistics, takes tables_by_status and sorts.
        return [r[0] for r in self.db.execute(
            "SELECT id FROM tables INDEXED BY tables_by_end WHERE status IN ('over', 'expired') "
            "ORDER BY coalesce(over_s, created_s), id LIMIT ?", (min(limit, ended - keep),))]

    def has_table(self, table_id: str) -> bool:
        row = self.db.execute("SELECT 1 FROM tables WHERE id = ?", (table_id,)).fetchone()
        return row is not None

    def table_ids(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT id FROM tables ORDER BY created_s")]

    def finished(self, table_id: str) -> tuple[TableRow, dict[str, Any]] | None:
        """A finished table, with its sessions, and its record; None if unknown or running."""
        r = self.db.execute(f"SELECT {_TABLE_COLUMNS}, record FROM tables "
                            "WHERE id = ? AND status = 'over'", (table_id,)).fetchone()
        if r is None:
            return None
        row = _table_row(r)
        sessions = self._sessions("table_id = ?", (table_id,))
        # The message ids too: the game-ending action's reply may be lost in a crash, and its
        # retry must get that reply, not "game_over".
        for session, msg_id in self.db.execute(
            "SELECT session, msg_id FROM actions WHERE table_id = ?", (table_id,)
        ):
            if session in sessions:
                sessions[session].accepted.add(msg_id)
        row.sessions = list(sessions.values())
        return row, json.loads(r[10])

    def unfinished(self) -> list[TableRow]:
        """Every table whose game is not over, with its actions in order and its sessions."""
        rows = [_table_row(r) for r in self.db.execute(
            f"SELECT {_TABLE_COLUMNS} FROM tables WHERE status IN ('open', 'running') "
            "ORDER BY created_s")]
        by_id = {row.id: row for row in rows}
        sessions = self._sessions(
            "table_id IN (SELECT id FROM tables WHERE status IN ('open', 'running'))")
        for session in sessions.values():
            if session.table_id in by_id:
                by_id[session.table_id].sessions.append(session)
        for table_id, seat, action, session, msg_id, seq in self.db.execute(
            "SELECT table_id, seat, action, session, msg_id, seq FROM actions WHERE table_id IN "
            "(SELECT id FROM tables WHERE status IN ('open', 'running')) "
            "ORDER BY table_id, version"
        ):
            row = by_id[table_id]
            row.actions.append({"seat": seat, **json.loads(action)})
            row.seq = max(row.seq, seq)
            if session in sessions:
                sessions[session].accepted.add(msg_id)
        return rows

    def _sessions(self, where: str, params: tuple[Any, ...] = ()) -> dict[str, SessionRow]:
        """The sessions ``where`` (SQL on the sessions table) selects, by token hash."""
        return {
            r[0]: SessionRow(*r)
            for r in self.db.execute(
                f"SELECT token_hash, table_id, seat, role, name FROM sessions WHERE {where}", params
            )
        }


class SnapshotReader:
    """Every row of :data:`SNAPSHOT_TABLES` as committed when it was made, with the cursor and
    head they make, read a piece at a time (:meth:`piece`) in a read transaction of a
    connection of its own: the store goes on writing meanwhile (WAL), and only a piece is
    ever in memory, where a store of 3,000 games read at once took 290 MiB."""

    def __init__(self, path: Path) -> None:
        self.db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True,
                                  isolation_level=None, check_same_thread=False)
        try:
            self.db.execute("BEGIN")
            self.cursor, self.head = self.db.execute(
                "SELECT cursor, head FROM journal_head").fetchone()
        except sqlite3.Error:
            self.db.close()
            raise
        self._rows = _rows(self.db)
        self._next = next(self._rows, None)

    def piece(self, max_bytes: int) -> tuple[list[tuple[str, tuple[Any, ...]]], bool]:
        """The next rows, one at least, until their text is over ``max_bytes`` (a finished
        table's record may be large), and whether they are the last (the reader is then
        closed)."""
        rows: list[tuple[str, tuple[Any, ...]]] = []
        size = 0
        while self._next is not None and (not rows or size <= max_bytes):
            rows.append(self._next)
            size += sum(len(value) for value in self._next[1] if isinstance(value, str))
            self._next = next(self._rows, None)
        if self._next is None:
            self.close()
        return rows, self._next is None

    def close(self) -> None:
        self.db.close()


#: The columns of the tables table a TableRow is made of (:func:`_table_row`), in its order.
_TABLE_COLUMNS = "id, game, config, seed, bots, status, seq, created_s, deadline_s, turn_timer_s"


def _table_row(r: tuple[Any, ...]) -> TableRow:
    """A TableRow of a row selected as :data:`_TABLE_COLUMNS` (and maybe more after them)."""
    return TableRow(r[0], r[1], json.loads(r[2]), r[3], json.loads(r[4]), r[5], r[6], r[7],
                    deadline_s=r[8], turn_timer_s=r[9])


def _rows(db: sqlite3.Connection) -> Iterator[tuple[str, tuple[Any, ...]]]:
    for table in SNAPSHOT_TABLES:
        for row in db.execute(f"SELECT * FROM {table}"):
            yield table, tuple(row)


def _json_encoder() -> Callable[[Any], str]:
    """Compact JSON, as ``json.dumps(value, separators=(",", ":"))`` writes it, the same text,
    from one C encoder made here (``JSONEncoder.encode`` makes a new one at every call): a
    host writes two of these for every action."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # a Python without json's C part
        return json.JSONEncoder(separators=(",", ":")).encode
    # No circular check (markers None): what is stored is plain data the host made.
    chunks = make(None, json.JSONEncoder().default, json.encoder.encode_basestring_ascii, None,
                  ":", ",", False, False, True)
    return lambda value: "".join(chunks(value, 0))


_json = _json_encoder()


def _file_mark(path: Path) -> str:
    """The database file's identity, size and time of change, as text."""
    st = os.stat(path)
    return f"{st.st_ino} {st.st_size} {st.st_mtime_ns}\n"


def closed_clean(path: Path) -> bool:
    """True if the database at ``path`` is as a store left it when it closed it whole (its WAL
    folded in and gone): then nothing has written to it since, and the whole-file check at
    open (PRAGMA quick_check, a second at 30,000 finished games) has nothing to find that its
    last check and every commit since did not. The mark is taken away: a run that ends
    without closing leaves none, and the next start checks."""
    mark = path.with_name(CLOSED_MARK)
    try:
        said = mark.read_text()
        mark.unlink()
        return (said == _file_mark(path)
                and not path.with_name(DB_NAME + "-wal").exists())
    except OSError:
        return False


def _watched(path: Path) -> tuple[str, str]:
    """The files :meth:`Store.damage` watches, as text: worked out once, for they are looked
    at before every batch and after every commit."""
    return str(path), str(path) + "-wal"


def _chain(head: str, statement: str, params: str) -> str:
    """The head after a write ``statement`` with ``params`` (JSON text) on ``head``."""
    return hashlib.sha256(f"{head}\n{statement}\n{params}".encode()).hexdigest()


def _old_journal(db: sqlite3.Connection) -> tuple[int, str] | None:
    """A data dir made before the journal was pruned kept every write twice, for ever: its
    journal is dropped (a standby of it gets a snapshot), and its cursor and a head made from
    its last entry are kept (two such hosts that agreed still agree). None if there is none."""
    columns = [row[1] for row in db.execute("PRAGMA table_info(journal)")]
    if not columns or "head" in columns:
        return None
    last = db.execute("SELECT id, statement, params FROM journal ORDER BY id DESC LIMIT 1")
    row = last.fetchone()
    db.execute("DROP TABLE journal")
    return (0, "") if row is None else (row[0], _chain("", row[1], row[2]))


def private(data_dir: Path, path: Path) -> None:
    """Make the data dir and the database's files the owner's alone; the database is created
    owner-only before SQLite opens it (its WAL and shared-memory files take its mode). Never
    once SQLite has it open in this process (see :func:`_owner_only`)."""
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, FILE_MODE))
    _owner_only(data_dir, path)


def _owner_only(data_dir: Path, path: Path) -> None:
    """chmod the data dir and the database's files to the owner's alone (opens no file)."""
    os.chmod(data_dir, DIR_MODE)
    for file in (path, *(path.with_name(path.name + side) for side in SIDE_FILES)):
        if file.exists():
            os.chmod(file, FILE_MODE)


def _damage_note(path: Path) -> Path:
    return path.with_name(path.name + ".damaged")


def _damage_found(path: Path) -> str | None:
    try:
        return _damage_note(path).read_text(encoding="utf-8").strip() or "no reason noted"
    except FileNotFoundError:
        return None


def salvage(data_dir: Path | str) -> str:
    """Move a damaged database aside and copy every row still readable into a new one; each
    table keeps its actions from the first up to the first one lost. Returns what was done,
    in one line."""
    path = Path(data_dir) / DB_NAME
    aside = path.with_name(f"{DB_NAME}.damaged-{time.strftime('%Y%m%dT%H%M%S')}")
    for side in ("", *SIDE_FILES):
        source = path.with_name(path.name + side)
        if source.exists():
            source.replace(aside.with_name(aside.name + side))
    _damage_note(path).unlink(missing_ok=True)
    old = sqlite3.connect(aside)
    store = Store(data_dir)
    kept: dict[str, int] = {}
    try:
        for table, columns in SNAPSHOT_TABLES.items():
            rows = _readable_rows(old, table)
            if table == "actions":
                rows = _unbroken_actions(rows)
            marks = ", ".join("?" * columns)
            for row in rows:
                # A database from before a column was added has fewer: NULL for those.
                row = (*row, *[None] * (columns - len(row)))
                try:
                    store.db.execute(f"INSERT OR IGNORE INTO {table} VALUES ({marks})", row)
                except sqlite3.Error:
                    continue  # a row too damaged to keep
            kept[table] = len(rows)
        # As many writes as it held (of a pair, the host that holds more serves), under a head
        # of its own: rows may be lost, so no standby may count itself in step with it.
        store.set_head(_salvaged_cursor(old), "salvaged " + os.urandom(16).hex())
        store.commit()
    finally:
        old.close()
        store.close()
    return (f"salvaged {kept['tables']} tables, {kept['sessions']} sessions and "
            f"{kept['actions']} actions into {path}; the damaged files are {aside}*")


def _salvaged_cursor(db: sqlite3.Connection) -> int:
    for sql in ("SELECT cursor FROM journal_head", "SELECT max(id) FROM journal"):
        try:
            return int(db.execute(sql).fetchone()[0] or 0)
        except (sqlite3.Error, TypeError, ValueError):
            continue
    return 0


def _readable_rows(db: sqlite3.Connection, table: str) -> list[tuple[Any, ...]]:
    """The rows of ``table`` that can still be read, in order, up to the first damaged page."""
    rows: list[tuple[Any, ...]] = []
    try:
        for row in db.execute(f"SELECT * FROM {table}"):
            rows.append(tuple(row))
    except sqlite3.Error:
        pass  # the rest of this table is unreadable
    return rows


def _unbroken_actions(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Each table's actions 0, 1, 2... up to the first missing version (a game resumes only
    from an unbroken sequence)."""
    by_table: dict[str, dict[int, tuple[Any, ...]]] = {}
    for row in rows:
        by_table.setdefault(row[0], {})[row[1]] = row
    kept = []
    for versions in by_table.values():
        version = 0
        while version in versions:
            kept.append(versions[version])
            version += 1
    return kept
