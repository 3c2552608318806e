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

import hashlib
import json
import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sagani_net.private_files import DIR_MODE, FILE_MODE

DB_NAME = "sagani.sqlite3"
#: The files SQLite keeps beside the database in WAL mode.
SIDE_FILES = ("-wal", "-shm")
#: NORMAL survives a killed host process (the WAL is written before commit returns); FULL also
#: survives a power cut, at the price of an fsync per commit.
SYNCHRONOUS = "NORMAL"
#: WAL pages between checkpoints. A checkpoint fsyncs (milliseconds); the default 1000 pages
#: would stall a busy host several times a second, and a commit writes about one page.
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
    deadline_s REAL
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
CREATE TABLE IF NOT EXISTS journal (
    id INTEGER PRIMARY KEY,
    statement TEXT NOT NULL,
    params TEXT NOT NULL
);
"""

#: Every write the store makes, by name. Each is journalled with its parameters in the same
#: transaction, so that a standby host replays the journal into its own store (standby.py).
WRITES = {
    "add_table": "INSERT INTO tables (id, game, config, seed, bots, status, seq, created_s, "
                 "record, deadline_s) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)",
    "set_table": "UPDATE tables SET status = ?, seq = ? WHERE id = ?",
    "finish_table": "UPDATE tables SET status = 'over', seq = ?, record = ? WHERE id = ?",
    "add_session": "INSERT INTO sessions VALUES (?, ?, ?, ?, ?)",
    "drop_session": "DELETE FROM sessions WHERE token_hash = ?",
    "add_action": "INSERT INTO actions VALUES (?, ?, ?, ?, ?, ?, ?)",
}  # fmt: skip
#: One journal entry: (id, statement name, its parameters as JSON text).
Entry = tuple[int, str, str]


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


class Store:
    """SQLite in ``data_dir``; see the module docstring for the commit rule."""

    def __init__(self, data_dir: Path | str, *, synchronous: str = SYNCHRONOUS) -> None:
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
        self.path = self.data_dir / DB_NAME
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
        self.db = sqlite3.connect(self.path, isolation_level="DEFERRED", check_same_thread=False)
        try:
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute(f"PRAGMA synchronous={synchronous}")
            self.db.execute(f"PRAGMA wal_autocheckpoint={WAL_AUTOCHECKPOINT_PAGES}")
            check = self.db.execute("PRAGMA quick_check").fetchall()
            if check != [("ok",)]:
                raise sqlite3.DatabaseError(check[0][0])
            self.db.executescript(_SCHEMA)
            # A data dir made before tables had deadline_s gets the column (NULL: no deadline).
            columns = {row[1] for row in self.db.execute("PRAGMA table_info(tables)")}
            if "deadline_s" not in columns:
                self.db.execute("ALTER TABLE tables ADD COLUMN deadline_s REAL")
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

    @classmethod
    def reader(cls, data_dir: Path | str) -> Store:
        """The store of ``data_dir`` opened read-only, for a command that only looks (a host
        may be running on it). Creates nothing, changes nothing; raises StorageDamaged (one
        line) for a database the host found damaged or one SQLite cannot read."""
        store = cls.__new__(cls)
        store.data_dir = Path(data_dir)
        store.path = store.data_dir / DB_NAME
        found = _damage_found(store.path)
        if found is not None:
            raise StorageDamaged(f"the database {store.path} is damaged ({found}); start the host "
                                 "with --salvage to keep what is readable")  # fmt: skip
        try:
            store.db = sqlite3.connect(f"{store.path.resolve().as_uri()}?mode=ro", uri=True,
                                       check_same_thread=False)  # fmt: skip
            store.db.execute("PRAGMA query_only=1")
            store.db.execute("SELECT count(*) FROM tables").fetchone()
        except sqlite3.Error as exc:
            raise StorageDamaged(f"cannot read the database {store.path}: {exc}") from None
        store._seen = store._fingerprint()
        return store

    def close(self) -> None:
        self.db.close()

    def commit(self) -> None:
        """Make everything written since the last commit durable."""
        if self.db.in_transaction:
            self.db.commit()
            self._seen = self._fingerprint()

    def rollback(self) -> None:
        """Forget everything written since the last commit (a refused batch)."""
        self.db.rollback()
        self._seen = self._fingerprint()  # what the refused writes changed was this store's

    # -- faults under the host --------------------------------------------------------------

    def _fingerprint(self) -> tuple[tuple[int, int, int] | None, ...]:
        """Identity, size and time of change of the database and its WAL: they change only
        when this store commits (a checkpoint too happens inside a commit)."""
        marks = []
        for path in (self.path, self.path.with_name(DB_NAME + "-wal")):
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
                                  row.status, row.seq, row.created_s, row.deadline_s))  # fmt: skip

    def set_table(self, table_id: str, status: str, seq: int) -> None:
        self._write("set_table", (status, seq, table_id))

    def finish_table(self, table_id: str, seq: int, record: dict[str, Any]) -> None:
        self._write("finish_table", (seq, _json(record), table_id))

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

        The table's own row is not touched, so that a commit writes about one page.
        """
        self._write("add_action", (table_id, version, seat, _json(action), session, msg_id, seq))

    def _write(self, statement: str, params: tuple[Any, ...], entry_id: int | None = None) -> None:
        """Run one of :data:`WRITES` and journal it (as entry ``entry_id``, or the next)."""
        self.db.execute(WRITES[statement], params)
        self.db.execute("INSERT INTO journal VALUES (?, ?, ?)",
                        (entry_id, statement, _json(params)))  # fmt: skip

    # -- the journal (standby.py replicates it) ---------------------------------------------

    def cursor(self) -> int:
        """The id of the last journal entry (0: none); ids only grow."""
        return self.db.execute("SELECT coalesce(max(id), 0) FROM journal").fetchone()[0]

    def entries(self, after: int, limit: int) -> list[Entry]:
        """Up to ``limit`` journal entries after id ``after``, in order."""
        return self.db.execute("SELECT id, statement, params FROM journal WHERE id > ? "
                               "ORDER BY id LIMIT ?", (after, limit)).fetchall()  # fmt: skip

    def entry_digest(self, entry_id: int) -> str | None:
        """A digest of entry ``entry_id`` (None if there is none): two stores whose journals
        agree up to an entry have the same digest for it."""
        row = self.db.execute("SELECT statement, params FROM journal WHERE id = ?",
                              (entry_id,)).fetchone()  # fmt: skip
        return None if row is None else hashlib.sha256(_json(row).encode()).hexdigest()

    def replay(self, entries: list[Entry]) -> None:
        """Apply another store's journal entries (which follow this store's last one) in the
        open transaction; :meth:`commit` makes them durable."""
        for entry_id, statement, params in entries:
            self._write(statement, tuple(json.loads(params)), entry_id)

    def clear(self) -> None:
        """Forget every table, session, action and journal entry (a standby whose journal went
        its own way starts again from the active host's)."""
        for table in ("tables", "sessions", "actions", "journal"):
            self.db.execute(f"DELETE FROM {table}")

    # -- reads ------------------------------------------------------------------------------

    def accepted_action(self, table_id: str, session: str, msg_id: int) -> tuple[int, int] | None:
        """(version, seq) of the action ``session`` sent as ``msg_id``, if it was accepted."""
        row = self.db.execute(
            "SELECT version, seq FROM actions WHERE table_id = ? AND session = ? AND msg_id = ?",
            (table_id, session, msg_id),
        ).fetchone()
        return None if row is None else (row[0], row[1])

    def actions(self, table_id: str) -> list[dict[str, Any]]:
        """The accepted actions of a table in order, each with its ``seat``."""
        return [
            {"seat": seat, **json.loads(action)}
            for seat, action in self.db.execute(
                "SELECT seat, action FROM actions WHERE table_id = ? ORDER BY version", (table_id,)
            )
        ]

    def record(self, table_id: str) -> dict[str, Any] | None:
        """The finished record of a table, or None (unknown table or game not over)."""
        row = self.db.execute("SELECT record FROM tables WHERE id = ?", (table_id,)).fetchone()
        return None if row is None or row[0] is None else json.loads(row[0])

    def has_table(self, table_id: str) -> bool:
        row = self.db.execute("SELECT 1 FROM tables WHERE id = ?", (table_id,)).fetchone()
        return row is not None

    def table_ids(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT id FROM tables ORDER BY created_s")]

    def finished(self, table_id: str) -> tuple[TableRow, dict[str, Any]] | None:
        """A finished table, with its sessions, and its record; None if unknown or running."""
        r = self.db.execute(
            "SELECT id, game, config, seed, bots, status, seq, created_s, record, deadline_s "
            "FROM tables WHERE id = ? AND status = 'over'",
            (table_id,),
        ).fetchone()
        if r is None:
            return None
        row = TableRow(r[0], r[1], json.loads(r[2]), r[3], json.loads(r[4]), r[5], r[6], r[7],
                       deadline_s=r[9])  # fmt: skip
        sessions = self._sessions("table_id = ?", (table_id,))
        # The message ids too: the game-ending action's reply may be lost in a crash, and its
        # retry must get that reply, not "game_over".
        for session, msg_id in self.db.execute(
            "SELECT session, msg_id FROM actions WHERE table_id = ?", (table_id,)
        ):
            if session in sessions:
                sessions[session].accepted.add(msg_id)
        row.sessions = list(sessions.values())
        return row, json.loads(r[8])

    def unfinished(self) -> list[TableRow]:
        """Every table whose game is not over, with its actions in order and its sessions."""
        rows = [
            TableRow(r[0], r[1], json.loads(r[2]), r[3], json.loads(r[4]), r[5], r[6], r[7],
                     deadline_s=r[8])  # fmt: skip
            for r in self.db.execute(
                "SELECT id, game, config, seed, bots, status, seq, created_s, deadline_s "
                "FROM tables WHERE status IN ('open', 'running') ORDER BY created_s"
            )
        ]
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


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


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
        for table, columns in (("tables", 10), ("sessions", 5), ("actions", 7), ("journal", 3)):
            rows = _readable_rows(old, table)
            if table == "actions":
                rows = _unbroken_actions(rows)
            marks = ", ".join("?" * columns)
            for row in rows:
                try:
                    store.db.execute(f"INSERT OR IGNORE INTO {table} VALUES ({marks})", row)
                except sqlite3.Error:
                    continue  # a row too damaged to keep
            kept[table] = len(rows)
        store.commit()
    finally:
        old.close()
        store.close()
    return (f"salvaged {kept['tables']} tables, {kept['sessions']} sessions and "
            f"{kept['actions']} actions into {path}; the damaged files are {aside}*")


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
