"""What the host does when its data dir fails it (docs/reliability.md, Storage).

Two failures, two answers. A batch the store refuses (a full disk, a read-only data dir) is
rolled back and every game is reloaded from what is durable, so memory never runs ahead of the
disk, and the host goes on. A database whose files were deleted, replaced or changed under the
host, or that cannot be read back, is *broken*: from then on every write is refused
(``storage_failed``), what memory holds is served, and the operator is told to restart (the
host then says how to salvage the data). No socket here: the host asks, and sends what it may.
"""

from __future__ import annotations

import logging
import sqlite3

from sagani_net.store import Store
from sagani_net.tables import Tables

log = logging.getLogger("sagani_net.host")


class Recovery:
    """The store's health as the host's loop sees it, and the recovery from a refused batch."""

    def __init__(self, store: Store, tables: Tables) -> None:
        self.store = store
        self.tables = tables
        #: Why the data dir can no longer be trusted (files deleted, replaced or changed under
        #: the host, or unreadable): every write is refused, reads are served from memory.
        self.broken: str | None = None

    def check(self) -> None:
        """Before a batch: were the database's files deleted, replaced or written by someone
        else since the host's last commit? Then nothing more goes into them."""
        if self.broken is None:
            damage = self.store.damage()
            if damage is not None:
                self.broke(damage)

    def commit(self) -> bool:
        """Commit the batch. If the data dir refuses it (or a write of the batch failed), roll
        it back and reload every game from disk, drop the batch's updates, and return False;
        if what is on disk cannot be read back, the storage is broken (:meth:`broke`)."""
        failure: sqlite3.Error | None
        failure, self.tables.storage_failure = self.tables.storage_failure, None
        if failure is None:
            try:
                self.store.commit()
                return True
            except sqlite3.Error as exc:
                failure = exc
        log.error("cannot write %s (%s): the batch is refused and the games stay at their "
                  "last committed state", self.store.path, failure)
        self.tables.outbox.clear()
        try:
            self.store.rollback()
            self.tables.reload()  # keeps memory as it was if the store cannot give it back
        except Exception as exc:  # the database itself is damaged
            self.broke(f"it cannot be read back ({exc})")
        return False

    def broke(self, why: str) -> None:
        """The database is damaged (``why``): no more writes, no more default moves."""
        self.broken = why
        self.tables.stop_clocks()
        self.store.mark_damaged(why)
        log.error("the database %s is damaged: %s. The host refuses every change from now on "
                  "(storage_failed) and serves what it holds; stop it, then start it again (it "
                  "will say how to salvage the data)", self.store.path, why)
