"""The host's capacity limits, and what each address (IP) holds against its share of them.

:class:`Limits` bounds the host as a whole (tables, sessions, queues, frames) and each address;
:class:`Quotas` counts the open or running tables and the sessions of each address, so that
one machine cannot fill the host (PROTOCOL.md, Limits). Neither touches a socket or a clock.

>>> quotas = Quotas(Limits(tables_per_address=1))
>>> quotas.check("tables", "10.0.0.1")
>>> quotas.own_table("10.0.0.1")
>>> try:
...     quotas.check("tables", "10.0.0.1")
... except ProtocolError as exc:
...     print(exc.code)
too_many_tables
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from sagani_net import limits as caps
from sagani_net.limits import MAX_FRAME_BYTES, RATE_BURST, RATE_PER_S
from sagani_net.protocol import ProtocolError


@dataclass(frozen=True)
class Limits:
    """Capacity limits; each refusal has its own error code (protocol/errors.py)."""

    max_tables: int = 1000
    max_sessions: int = 20000
    max_spectators: int = 64
    #: Finished tables held in memory at once (limits.FINISHED_TABLES).
    max_finished_tables: int = caps.FINISHED_TABLES
    #: Finished games' records kept in the data dir (limits.FINISHED_RECORDS); None: all.
    finished_records: int | None = caps.FINISHED_RECORDS
    #: A table's spectator places one address may take: a quarter, so that one guest cannot take
    #: them all and leave the players' friends no place to watch.
    spectators_per_address: int = 16
    #: Requests handled between two commits; bounds the latency a burst adds.
    max_batch: int = 256
    #: ZeroMQ high-water marks (messages queued per peer before dropping).
    sndhwm: int = 10000
    rcvhwm: int = 10000
    #: Broadcasts queued for one subscriber that does not read, past what its TCP buffers hold
    #: (beyond, dropped: the Clone rules resync it). At 10,000, as for requests, 50 subscribers
    #: that never read held 43 MiB of heartbeats alone; a client follows one table's topic, and
    #: is a thousand of its messages behind only if it has stopped.
    pub_sndhwm: int = 1000
    #: Per-peer token bucket (sagani_net.limits): sustained requests a second, and burst.
    rate_per_s: float = RATE_PER_S
    rate_burst: int = RATE_BURST
    #: Largest request frame the socket accepts (ZMQ_MAXMSGSIZE; bigger drops the peer).
    max_frame_bytes: int = MAX_FRAME_BYTES
    #: What one connection may make the host hold (sagani_net.peers): bytes sent and not yet
    #: read as whole requests (over: cut), replies left unread (over: no more replies).
    max_unread_bytes: int = caps.MAX_UNREAD_BYTES
    max_unread_reply_bytes: int = caps.MAX_UNREAD_REPLY_BYTES
    #: Open or running tables, and sessions, one address (IP) may hold at once.
    tables_per_address: int = caps.TABLES_PER_ADDRESS
    sessions_per_address: int = caps.SESSIONS_PER_ADDRESS
    #: Seats kept for bots in the open or running tables of one address; None: no cap (a host
    #: with house bots has one: limits.HOUSE_BOT_SEATS_PER_ADDRESS).
    bot_seats_per_address: int | None = None
    connections_per_address: int = caps.CONNECTIONS_PER_ADDRESS
    #: An open table nobody joined, or a running one nobody played, for this long expires.
    open_idle_s: float = caps.OPEN_TABLE_IDLE_S
    running_idle_s: float = caps.RUNNING_TABLE_IDLE_S
    #: Bytes of table entries in one `tables` page (the next page has the rest).
    tables_page_bytes: int = caps.TABLES_PAGE_BYTES


class Quotas:
    """Open or running tables and sessions per address, and whose each session is. In memory
    only: after a restart nobody owns the tables and sessions brought back from disk."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._tables_of: Counter[str] = Counter()
        self._sessions_of: Counter[str] = Counter()
        self._session_owner: dict[str, str] = {}

    def check(self, kind: str, address: str) -> None:
        """Refuse a new table or session (``kind``: "tables" or "sessions") to an address that
        holds its share already."""
        if kind == "tables":
            held, allowed = self._tables_of[address], self.limits.tables_per_address
        else:
            held, allowed = self._sessions_of[address], self.limits.sessions_per_address
        if held >= allowed:
            raise ProtocolError(f"too_many_{kind}", f"your address holds {held} {kind}, as "
                                "many as one address may")

    def own_table(self, address: str) -> None:
        self._tables_of[address] += 1

    def release_table(self, owner: str | None) -> None:
        """A table over or forgotten no longer counts against its creator's quota."""
        if owner is not None:
            self._tables_of[owner] -= 1

    def own_session(self, token_hash: str, address: str) -> None:
        self._session_owner[token_hash] = address
        self._sessions_of[address] += 1

    def owner(self, token_hash: str) -> str | None:
        """The address that made the session (None: made before this host started)."""
        return self._session_owner.get(token_hash)

    def drop_session(self, token_hash: str) -> None:
        owner = self._session_owner.pop(token_hash, None)
        if owner is not None:
            self._sessions_of[owner] -= 1

    def recount(self, table_owners: Iterable[str], sessions: Iterable[str]) -> None:
        """The counts after a reload from disk: the owners of the tables kept, and of the
        sessions still there (what a refused batch had added is gone)."""
        self._tables_of = Counter(table_owners)
        kept = set(sessions)
        self._session_owner = {h: a for h, a in self._session_owner.items() if h in kept}
        self._sessions_of = Counter(self._session_owner.values())
