"""The host's durable memory: tables, sessions, accepted actions and finished records in SQLite.

One connection, WAL mode. The host writes inside an open transaction and calls
:meth:`Store.commit` before it sends the replies and broadcasts of a batch, so every accepted
action is on disk (in the WAL) before anyone hears of it. Seats keep token hashes, never tokens.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DB_NAME = "sagani.sqlite3"
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
"""


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
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.path = self.data_dir / DB_NAME
        self.db = sqlite3.connect(self.path, isolation_level="DEFERRED", check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute(f"PRAGMA synchronous={synchronous}")
        self.db.execute(f"PRAGMA wal_autocheckpoint={WAL_AUTOCHECKPOINT_PAGES}")
        self.db.executescript(_SCHEMA)
        # A data dir made before tables had deadline_s gets the column (NULL: no deadline).
        columns = {row[1] for row in self.db.execute("PRAGMA table_info(tables)")}
        if "deadline_s" not in columns:
            self.db.execute("ALTER TABLE tables ADD COLUMN deadline_s REAL")
        self.db.commit()

    def close(self) -> None:
        self.db.close()

    def commit(self) -> None:
        """Make everything written since the last commit durable."""
        if self.db.in_transaction:
            self.db.commit()

    # -- writes (inside the open transaction) -----------------------------------------------

    def add_table(self, row: TableRow) -> None:
        self.db.execute(
            "INSERT INTO tables (id, game, config, seed, bots, status, seq, created_s, record, "
            "deadline_s) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)",
            (row.id, row.game, _json(row.config), row.seed, _json(row.bots), row.status,
             row.seq, row.created_s, row.deadline_s),
        )  # fmt: skip

    def set_table(self, table_id: str, status: str, seq: int) -> None:
        self.db.execute(
            "UPDATE tables SET status = ?, seq = ? WHERE id = ?", (status, seq, table_id)
        )

    def finish_table(self, table_id: str, seq: int, record: dict[str, Any]) -> None:
        self.db.execute(
            "UPDATE tables SET status = 'over', seq = ?, record = ? WHERE id = ?",
            (seq, _json(record), table_id),
        )

    def add_session(self, row: SessionRow) -> None:
        self.db.execute(
            "INSERT INTO sessions VALUES (?, ?, ?, ?, ?)",
            (row.token_hash, row.table_id, row.seat, row.role, row.name),
        )

    def drop_session(self, token_hash: str) -> None:
        self.db.execute("DELETE FROM sessions WHERE token_hash = ?", (token_hash,))

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
        self.db.execute(
            "INSERT INTO actions VALUES (?, ?, ?, ?, ?, ?, ?)",
            (table_id, version, seat, _json(action), session, msg_id, seq),
        )

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
                "FROM tables WHERE status != 'over' ORDER BY created_s"
            )
        ]
        by_id = {row.id: row for row in rows}
        sessions = self._sessions("table_id IN (SELECT id FROM tables WHERE status != 'over')")
        for session in sessions.values():
            if session.table_id in by_id:
                by_id[session.table_id].sessions.append(session)
        for table_id, seat, action, session, msg_id, seq in self.db.execute(
            "SELECT table_id, seat, action, session, msg_id, seq FROM actions WHERE table_id IN "
            "(SELECT id FROM tables WHERE status != 'over') ORDER BY table_id, version"
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
