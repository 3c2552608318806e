"""The tables' logic: games, who sits at them, their clocks, presence, history and replies.

:class:`Tables` answers every request but ``hello`` (the host's own: where it broadcasts, how
big a request may be): a decoded, checked request in, a reply out. It never touches a socket:
it queues the updates to broadcast in :attr:`Tables.outbox` (encoded by :meth:`Tables.updates`)
and says which heartbeats to send (:meth:`Tables.beats`), and the host (:mod:`sagani_net.host`)
sends them once the batch is committed. Time comes from an injected clock (a callable
returning seconds; the host's is :func:`time.monotonic`), so that deadlines, away seats, idle
tables and history are tested without sockets or sleeps (tests/host/test_tables.py).

>>> clock = FakeClock()                                # doctest: +SKIP
>>> tables = Tables(Store(tmp), clock=clock)           # doctest: +SKIP
>>> tables.handle(request, "10.0.0.1")                 # doctest: +SKIP
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import itertools
import json
import logging
import math
import secrets
import sqlite3
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from sagani_net.game import Game, GameState, RuleError, config_words, event_sentence
from sagani_net.games import get_game
from sagani_net.limits import (
    QUIET_KIND,
    RECORDS_REMOVED_PER_GAME,
    PrintableLines,
    QuietRepeats,
)
from sagani_net.protocol import ProtocolError, decode_message, encode, reply, topic
from sagani_net.protocol.messages import (
    BOT_FALLBACK_S,
    DEADLINE_GRACE_S,
    numbered_name,
    rejoin_s,
)
from sagani_net.protocol.wire import VERSION
from sagani_net.quotas import Limits, Quotas
from sagani_net.store import SessionRow, Store, TableRow

# The host's logger: what the tables do is what the host does, to whoever reads its log.
log = logging.getLogger("sagani_net.host")
# Whatever a peer or a table does again and again, the log says it a few times, then a count.
log.addFilter(QuietRepeats())
log.addFilter(PrintableLines())

#: A table that published nothing for this long gets a heartbeat on its topic.
HEARTBEAT_S = 1.0
#: How long a finished table stays in memory (listed, synced, heartbeats) before only its
#: record is kept; and no more of them than Limits.max_finished_tables at once.
FINISHED_KEEP_S = 600.0
#: A batch ends once its requests have taken this long, and is committed and published: one
#: peer's costly requests delay another table's act by this much plus two of them (the one
#: being handled when it came, one that began its batch: see sagani_net.host.SLOW_S), not by
#: all of them. The host's own moves due at once (:meth:`Tables.expire`) take as long a step.
BATCH_BUDGET_S = 0.02
TOKEN_BYTES = 24
TABLE_ID_BYTES = 4
#: Accepted replies kept in memory per session for instant retries (older ones come from disk).
REPLY_CACHE_SIZE = 16
#: What the store records as the session of a move the host played for a bot that missed its
#: deadline. Real sessions are 64 hex digits (token hashes), so it never matches one, and a
#: retry lookup (by session and message id) never finds it.
HOST_DEFAULT_SESSION = "host:deadline"
#: The session the store records for a move the host played for an away player's seat at the
#: others' request (``stand_in``); like HOST_DEFAULT_SESSION, never a real session's.
HOST_STAND_IN_SESSION = "host:stand-in"
#: A record's reason (``host_played``, RECORD.md) for a move of each of the host's sessions.
HOST_PLAYED = {HOST_DEFAULT_SESSION: "deadline", HOST_STAND_IN_SESSION: "stand_in"}
#: The bot the host plays a stood-in seat with: in the host's loop, so a quick one (under 10 ms
#: of CPU a decision: bench/stand_in.py, figures in docs/reliability.md); and how long it waits
#: before each move, so that people see whose turn it was.
STAND_IN_STRATEGY = "greedy"
STAND_IN_PAUSE_S = 0.5
#: A seated player's client says it is there (``here``, or any request with its token) once a
#: presence period: the host's heartbeat, but never more often than this.
PRESENCE_MIN_S = 0.25
#: Presence periods without a word from a player's token after which its seat is away.
AWAY_PERIODS = 3
#: Largest frame a subscriber may send the broadcast socket (a subscription is a topic).
#: Moves of a table whose events the ``history`` request serves: the newest ones, enough for
#: a whole game of the games we know (a 4-player Sagani game is about 130), kept encoded
#: (about 100 bytes each) so that a thousand tables hold a few tens of MB at most.
HISTORY_KEEP = 256
#: Most moves, and bytes of them, in one ``history`` reply; the client asks for the next page.
HISTORY_PAGE_MOVES = 64
HISTORY_PAGE_BYTES = 32 * 1024
#: Legal actions in one ``legal`` reply. The longest action of our games encodes in under 64
#: bytes, so a page is under 8 KiB (one request of its peer's rate, limits.REPLY_COST_BYTES).
LEGAL_PAGE_ACTIONS = 64


OPEN, RUNNING, OVER, EXPIRED = "open", "running", "over", "expired"
#: Ids of removed records remembered, for ``record_removed`` (older ones get ``no_table``).
REMOVED_KEPT = 4096


@dataclass
class Session(SessionRow):
    """One join: a token (kept only as its hash) bound to a table and a seat (None: spectator),
    the message ids of its accepted actions, and the latest of their replies."""

    replies: OrderedDict[int, bytes] = field(default_factory=OrderedDict)
    #: When (the tables' clock, s) its token last came with a request, and whether its seat is away
    #: (a player's, or a bot's this host never heard: AWAY_PERIODS presence periods without
    #: one). In memory: after a restart everyone has its grace again (Tables.unheard_s).
    seen_s: float = 0.0
    away: bool = False
    #: Whether this host heard the token since it began to serve (a join is heard). A bot may
    #: be silent between its turns once it was heard; one never heard after a restart or a
    #: takeover most likely ran beside the host that is gone (house bots do).
    heard: bool = True


@dataclass
class Table:
    """A game and who sits at it. ``seq`` counts this table's broadcasts."""

    id: str
    game_name: str
    config: dict[str, Any]
    seed: int
    bots: list[int]
    state: GameState
    status: str
    seq: int
    created_s: float
    holders: list[str | None]
    spectators: set[str] = field(default_factory=set)
    published: bool = True
    #: When the game ended (the tables' clock, s), for forgetting finished tables.
    over_s: float | None = None
    #: Per-move deadline of the bot seats (seconds), None: none.
    deadline_s: float | None = None
    #: Turn timer of the seats people hold (seconds), None: none.
    turn_timer_s: float | None = None
    #: Seats of away players the host plays for (``stand_in``) until they are back.
    stand_ins: set[int] = field(default_factory=set)
    #: A seat went away or came back since the last heartbeat: the next one goes out.
    presence_changed: bool = False
    #: The pending decision the deadline clock runs for, and whether a stand-in plays it (a
    #: clock of its own): (version, seat, stood in), or None.
    timed: tuple[int, int, bool] | None = None
    #: When (the tables' clock, s) someone last joined it or acted on it (the host's default
    #: moves do not count), for closing tables nobody uses; a restart starts the clock again.
    active_s: float = 0.0
    #: The address (IP) that created it, whose quota it counts against (None after a restart).
    owner: str | None = None
    #: The newest moves (at most HISTORY_KEEP), each ``{version, seat, events}`` encoded, for
    #: ``history``; None until someone asks (then built by replaying the store), and kept up
    #: by every accepted action from then on.
    history: deque[bytes] | None = None
    #: For ``legal``: the version and the legal actions of the seat to move, in wire form (a
    #: few KB a table at most): worked out once per version, however many pages and peers
    #: ask; dropped by the next action.
    legal: tuple[int, list[dict[str, Any]]] | None = None
    #: Each seat's private data as last announced, encoded: of the seats the game says an
    #: action may have changed (``private_seats``, a superset), the update names only those
    #: whose data did change, so that no seat fetches what it has. None: not known yet.
    privates: list[bytes] | None = None

    @property
    def topic(self) -> bytes:
        return topic(self.id)

    @functools.cached_property
    def listed_config(self) -> dict[str, Any]:
        """The config as ``tables`` lists it: an option holding a list or a map (Sagrada's
        ``patterns``) is summed up as ``{count, digest}``, so that a table's entry in the
        listing stays small whatever its config holds (PROTOCOL.md, tables). Worked out once:
        a table's config never changes."""
        return {name: _summary(value) if isinstance(value, list | dict) else value
                for name, value in self.config.items()}

    @property
    def turn(self) -> int | None:
        return self.state.current_seat if self.status == RUNNING else None


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()



#: What the tables tell the time by: seconds from any start, never going back.
Clock = Callable[[], float]


class Tables:
    """Every table and session of a host; see the module docstring. ``standby`` says where
    clients go if the host falls silent (named in ``welcome``, ``joined`` and heartbeats)."""

    def __init__(
        self,
        store: Store,
        *,
        clock: Clock = time.monotonic,
        limits: Limits | None = None,
        heartbeat_s: float = HEARTBEAT_S,
        bot_deadline_s: float | None = None,
        bot_fallback_s: float | None = BOT_FALLBACK_S,
        turn_timer_s: float | None = None,
        client_seeds: bool = False,
        standby: Callable[[], str | None] = lambda: None,
        stored: Callable[[], None] = lambda: None,
    ) -> None:
        self.store = store
        #: Called once an action is stored, before its update is made: the host's standby
        #: may start writing it then (sagani_net.host).
        self.stored = stored
        self.clock = clock
        self.limits = limits or Limits()
        self.quotas = Quotas(self.limits)
        self.standby = standby
        # A float whatever the caller passed (``heartbeat_s=1``): welcome says ``float``, and a
        # typed client reads it into one (Java's unpackDouble refuses an int).
        heartbeat_s = float(heartbeat_s)
        self.heartbeat_s = heartbeat_s
        #: Whether every ``create`` may choose its seed: a host whose every client is its owner
        #: (``sagani play``, tests). Otherwise only a table nobody else can lose at may.
        self.client_seeds = client_seeds
        #: The deadline of tables whose create request names none (``--bot-deadline``).
        self.bot_deadline_s = bot_deadline_s
        #: A bot seat's clock at a table with no deadline at all (:data:`BOT_FALLBACK_S`);
        #: None: none, its bot is waited for however long it thinks (a tournament's own host).
        self.bot_fallback_s = bot_fallback_s
        #: The turn timer of tables whose create request names none (``--turn-timer``).
        self.turn_timer_s = turn_timer_s
        #: How often a seated player's client says it is there, and the silence after which its
        #: seat is away (PROTOCOL.md, Presence).
        self.presence_s = max(heartbeat_s, PRESENCE_MIN_S)
        self.away_s = AWAY_PERIODS * self.presence_s
        #: Counts the seats gone away or come back: the pair's link beats as soon as it moves,
        #: for a standby that takes over must know the seats away (sagani_net.standby).
        self.away_changes = 0
        self._unheard(takeover=False)
        self.tables: dict[str, Table] = {}
        self.sessions: dict[str, Session] = {}
        #: The ids of the finished tables in memory, longest held first (:meth:`_hold_over`).
        self._over: dict[str, None] = {}
        #: The ids of the tables whose records this host removed last (:meth:`_remove_oldest`),
        #: for ``record_removed``: at most REMOVED_KEPT of them.
        self._removed: OrderedDict[str, None] = OrderedDict()
        #: Updates to broadcast once the batch is committed: (topic, update). Queued as made
        #: and encoded by :meth:`updates`, which the host calls while its standby writes the
        #: batch; an update never changes once queued (its parts are fresh or immutable).
        self.outbox: list[tuple[bytes, dict[str, Any]]] = []
        #: A write that failed in this batch: the host rolls the batch back (sagani_net.recovery).
        self.storage_failure: sqlite3.Error | None = None
        #: The address (IP) of the request being handled, whose quotas it counts against.
        self.address = ""
        #: Table id -> when (clock s) its bot seat to move runs out of time. Only tables with
        #: a pending timed decision are here, so the loop's min() over it stays small.
        self._due: dict[str, float] = {}
        #: Tables whose pending bot decision has a clock that starts once the update announcing
        #: it is sent (at the end of the batch): the bot cannot answer a turn it has not heard.
        self._unstarted: set[str] = set()
        self.handlers: dict[str, Callable[[dict[str, Any]], dict[str, Any] | bytes]] = {
            "tables": self._tables,
            "create": self._create,
            "join": self._join,
            "sync": self._sync,
            "act": self._act,
            "private": self._private,
            "legal": self._legal,
            "leave": self._leave,
            "record": self._record,
            "static": self._static,
            "history": self._history,
            "here": self._here,
            "stand_in": self._stand_in,
        }
        self._restore()

    def handle(self, request: dict[str, Any], address: str = "") -> dict[str, Any] | bytes:
        """The reply to a checked request (:func:`sagani_net.protocol.check_request`) from
        ``address``; raises ProtocolError for a refusal, sqlite3.Error if the store fails."""
        self.address = address
        return self.handlers[request["type"]](request)

    # -- the clocks, as the host's loop sees them -------------------------------------------

    def next_due_s(self) -> float | None:
        """When the first pending timed decision runs out, None: none is on the clock."""
        return min(self._due.values()) if self._due else None

    @property
    def timing(self) -> bool:
        """Some pending decision's clock is running (:meth:`expire` has something to do)."""
        return bool(self._due)

    def delay_clocks(self, by_s: float) -> None:
        """Stop every running clock for ``by_s``: the host was held up for that long."""
        for table_id in self._due:
            self._due[table_id] += by_s

    def stop_clocks(self) -> None:
        """No more default moves: the host can no longer store them."""
        self._due.clear()
        self._unstarted.clear()

    def start_clocks(self) -> None:
        """Start the clocks armed since the last look: the updates that tell the seats of their
        turns have just been sent (or, after a restart, nothing was ever said)."""
        if not self._unstarted:
            return
        now_s = self.clock()
        for table_id in self._unstarted:
            # (_arm takes a table out of _unstarted once its decision is off the clock.)
            table = self.tables.get(table_id)
            seat = self._timed_seat(table) if table is not None else None
            if table is None or seat is None:
                continue
            clock_s = self._clock_s(table, seat)
            assert clock_s is not None
            self._due[table_id] = now_s + clock_s + self._grace_s(table, seat)
        self._unstarted.clear()

    def _unheard(self, takeover: bool) -> None:
        #: How long a token this host has not heard since it began to serve may stay silent
        #: before its seat is away: a client that is there needs that long to find this host
        #: after a restart or a takeover (PROTOCOL.md, Presence), never less than ``away_s``.
        self.unheard_s = max(self.away_s, rejoin_s(self.heartbeat_s, self.presence_s, takeover))

    def reload(self, takeover: bool = False) -> None:
        """Forget the games in memory and bring them back from the store (a standby taking
        over: ``takeover``, or a batch the store refused); if the store cannot give them back,
        memory stays as it was and the error is raised. Each table kept keeps its creator's
        quota."""
        self._unheard(takeover)
        before = (dict(self.tables), dict(self.sessions), dict(self._due), dict(self._over))
        self.tables.clear()
        self.sessions.clear()
        self._due.clear()
        self._over.clear()
        try:
            self._restore()
        except Exception:
            self.tables, self.sessions, self._due, self._over = before
            raise
        for table in self.tables.values():
            old = before[0].get(table.id)
            table.owner = old.owner if old is not None and table.status != OVER else None
        self.quotas.recount((t.owner for t in self.tables.values() if t.owner is not None),
                            self.sessions)
        # A removal the store refused with its batch did not happen.
        for table_id in [t for t in self._removed if self.store.has_table(t)]:
            del self._removed[table_id]

    def close_idle(self, now_s: float) -> bool:
        """Expire the tables nobody joined or played for a while (Limits.open_idle_s,
        running_idle_s); True if any was."""
        idle = [t for t in self.tables.values()
                if (t.status == OPEN and now_s - t.active_s > self.limits.open_idle_s)
                or (t.status == RUNNING and now_s - t.active_s > self.limits.running_idle_s)]
        for table in idle:
            if table.status == OPEN:
                # Never started: no game to keep, and a guest's stream of them would pile up.
                self.store.drop_table(table.id)
            else:
                self.store.set_table(table.id, EXPIRED, table.seq)
            self._forget(table)
            log.info("table %s: nobody joined or played for a while; it is closed", table.id)
        if any(table.status != OPEN for table in idle):
            self._remove_oldest()
        return bool(idle)

    def updates(self) -> list[tuple[bytes, bytes]]:
        """The batch's updates encoded, (topic, body) each, and the outbox emptied. One that
        cannot be encoded (a game's bug) is logged and left out: its table's next update has
        a later seq, which tells its clients to fetch a snapshot."""
        out = []
        for table_topic, update in self.outbox:
            try:
                out.append((table_topic, encode(update)))
            except Exception:
                log.exception("an update of table %s could not be encoded", update["table"])
        self.outbox.clear()
        return out

    def beats(self, standby: str | None, everyone: bool) -> list[tuple[bytes, bytes]]:
        """The heartbeats to send (topic, encoded): one on every quiet table, or on a table
        where a seat went away or came back; on every table if ``everyone`` (a standby came
        or went, so that players who joined before it know where to go: PROTOCOL.md,
        Failover). Marks the silent players away, and forgets the long finished tables."""
        now_s = self.clock()
        self._mark_away(now_s)
        out = []
        for table in list(self.tables.values()):
            if table.over_s is not None and now_s - table.over_s > FINISHED_KEEP_S:
                self._forget(table)
            elif everyone or not table.published or table.presence_changed:
                # ``away``: a seat that went away or came back is told at the next beat.
                body = {"v": VERSION, "type": "heartbeat", "table": table.id, "seq": table.seq,
                        "version": table.state.version, "standby": standby,
                        "away": self._away(table)}
                out.append((table.topic, encode(body)))
            table.published = table.presence_changed = False
        return out

    def _remove_oldest(self) -> None:
        """Remove the records of the oldest finished (or expired) games past the newest
        Limits.finished_records, a few at a time (RECORDS_REMOVED_PER_GAME). A game still
        running is never among them; one held in memory goes from it too."""
        keep = self.limits.finished_records
        if keep is None:
            return
        removed = self.store.finished_beyond(keep, RECORDS_REMOVED_PER_GAME)
        for table_id in removed:
            self.store.drop_table(table_id)
            table = self.tables.get(table_id)
            if table is not None:
                self._forget(table, removed=True)
            self._removed[table_id] = None
            if len(self._removed) > REMOVED_KEPT:
                self._removed.popitem(last=False)
        if removed:
            log.info("removed %s (%s): the data dir keeps the newest %d (sagani host "
                     "--keep-games)", "the record of the oldest finished game"
                     if len(removed) == 1 else
                     f"the records of the {len(removed)} oldest finished games",
                     ", ".join(removed[:3]) + (", ..." if len(removed) > 3 else ""), keep)

    def _forget(self, table: Table, removed: bool = False) -> None:
        """Drop a long finished (or expired) table from memory (its record stays in the
        store, unless it was ``removed``)."""
        del self.tables[table.id]
        self._due.pop(table.id, None)
        self._over.pop(table.id, None)
        self._release(table)
        for token_hash in [*table.holders, *table.spectators]:
            if token_hash is not None:
                self.sessions.pop(token_hash, None)
                self.quotas.drop_session(token_hash)
        if table.status == OVER and not removed:
            log.info("table %s: over, no longer held in memory; only its record is kept", table.id)

    def _release(self, table: Table) -> None:
        """A table over or forgotten no longer counts against its creator's quota."""
        self.quotas.release_table(table.owner)
        table.owner = None

    # -- requests ---------------------------------------------------------------------------

    def _tables(self, request: dict[str, Any]) -> dict[str, Any] | bytes:
        """One page of the tables, oldest first: as many as fit in Limits.tables_page_bytes,
        and ``next``, where the next page starts (None: none)."""
        after = _page_start(request["after"])
        tables = [t for t in sorted(self.tables.values(), key=_listing_order)
                  if after is None or _listing_order(t) > after]
        entries = [self._listed(t) for t in tables]
        whole = encode(reply("tables", request["id"], tables=entries, next=None))
        if len(whole) <= self.limits.tables_page_bytes:
            return whole  # the usual case: one page, encoded once
        size = 0
        for n, entry in enumerate(entries):
            size += len(encode(entry))
            if n and size > self.limits.tables_page_bytes:
                last = tables[n - 1]
                return reply("tables", request["id"], tables=entries[:n],
                             next=f"{last.created_s!r} {last.id}")
        return whole  # the entries fit: only the envelope went over

    def _listed(self, t: Table) -> dict[str, Any]:
        """A table as ``tables`` lists it."""
        return {"table": t.id, "game": t.game_name, "config": t.listed_config,
                "status": t.status, "seq": t.seq, "version": t.state.version,
                "seats": self.seats(t), "spectators": len(t.spectators),
                "deadline_s": t.deadline_s, "turn_timer_s": t.turn_timer_s}

    def _create(self, request: dict[str, Any]) -> dict[str, Any]:
        nonce_hash = None if request["nonce"] is None else _nonce_hash(request["nonce"])
        made = None if nonce_hash is None else self.store.created_by(nonce_hash)
        if made is not None:
            # A retry whose reply was lost with the host that made the table (a restart, a
            # failover): the replies kept for retries are in memory, the table is on disk. It
            # gets that table whatever else it holds, as the kept reply would be.
            log.info("table %s: its create was sent again; the table it made is named again",
                     made.id)
            return _created(request["id"], made, get_game(made.game))
        if sum(t.status != OVER for t in self.tables.values()) >= self.limits.max_tables:
            raise ProtocolError("too_many_tables", "the host has no room for another table")
        self.quotas.check("tables", self.address)
        game, config = _game_config(request["game"], request["config"])
        seats = game.seats(config)
        if any(seat >= seats for seat in request["bots"]):
            # The code join gives for a seat the table lacks: one code for one mistake.
            raise ProtocolError("bad_seat", f"bots must be seats of this table, 0..{seats - 1}")
        cap = self.limits.bot_seats_per_address
        if cap is not None and request["bots"]:
            held = sum(len(t.bots) for t in self.tables.values() if t.owner == self.address)
            if held + len(set(request["bots"])) > cap:
                raise ProtocolError("too_many_tables", f"your address keeps {held} seats for "
                                    f"bots in open or running tables, and one address may keep "
                                    f"{cap}: the house bots play them all")
        seed = request["seed"]
        if seed is None:
            seed = secrets.randbits(63)
        elif not (self.client_seeds or seats == 1):
            # Whoever chose the seed knows the deal, the draw and every private objective. A
            # table of bot seats is no exception: any client joining as a bot takes one.
            raise ProtocolError("bad_field", "a table of more than one seat gets a seed the "
                                "host draws; leave seed out (only a solo table may choose "
                                "its seed, or any table at a host run with --client-seeds)")
        deadline_s = request["deadline_s"]
        if deadline_s is None and self.bot_deadline_s is not None:
            deadline_s = float(self.bot_deadline_s)
        turn_timer_s = request["turn_timer_s"]
        if turn_timer_s is None and self.turn_timer_s is not None:
            turn_timer_s = float(self.turn_timer_s)
        table_id = secrets.token_hex(TABLE_ID_BYTES)
        while table_id in self.tables or self.store.has_table(table_id):
            table_id = secrets.token_hex(TABLE_ID_BYTES)
        row = TableRow(table_id, game.name, config, seed, sorted(request["bots"]), OPEN, 0,
                       time.time(), deadline_s=deadline_s, turn_timer_s=turn_timer_s)
        table = self._table_from_row(row, game)
        self.store.add_table(row)
        if nonce_hash is not None:
            self.store.add_create_nonce(nonce_hash, table_id)
        self.tables[table_id] = table
        table.owner = self.address
        self.quotas.own_table(self.address)
        # Options in words, a list by its count: Python's form printed None, and a player's
        # own window patterns every grid of them.
        log.info("table %s: created, %s (%s)%s%s", table_id, game.name,
                 ", ".join(config_words(config, "given")),
                 "" if deadline_s is None else f", bot deadline {deadline_s:g} s",
                 "" if turn_timer_s is None else f", turn timer {turn_timer_s:g} s")
        return _created(request["id"], row, game)

    def _join(self, request: dict[str, Any]) -> dict[str, Any]:
        table = self._table(request["table"])
        if request["token"] is not None:  # coming back with a saved token
            session = self._session(request["token"], table)
            return self._joined(request, table, session, request["token"])
        nonce = request["nonce"]
        token = secrets.token_urlsafe(TOKEN_BYTES) if nonce is None else _nonce_token(table, nonce)
        known = self.sessions.get(hash_token(token)) if nonce is not None else None
        if known is not None and known.table_id == table.id:
            # A retry whose reply was lost with the host that took the seat (a restart, a
            # failover): the replies kept for retries are in memory, the seat is on disk.
            self._seen(table, known)
            return self._joined(request, table, known, token)
        role = request["role"]
        if len(self.sessions) >= self.limits.max_sessions:
            raise ProtocolError("too_many_sessions", "the host has no room for another session")
        self.quotas.check("sessions", self.address)
        if role == "spectator":
            if request["seat"] is not None:
                raise ProtocolError("bad_field", "a spectator takes no seat")
            if len(table.spectators) >= self.limits.max_spectators:
                raise ProtocolError("too_many_spectators", "this table has no room to watch")
            mine = [self.sessions[h] for h in table.spectators
                    if self.quotas.owner(h) == self.address]
            if len(mine) >= self.limits.spectators_per_address:
                # A spectator's console says nothing once it has joined, and one that died
                # (killed, a lid closed) never left: its address's longest-held place goes to
                # the new one, which a live watcher does not need to go on watching.
                oldest = min(mine, key=lambda session: session.seen_s)
                self._drop(table, oldest)
                log.info("table %s: %s watches it %d times already; its longest-held place "
                         "goes to a new spectator", table.id, self.address, len(mine))
            seat = None
        else:
            if table.status == OVER:
                # Its seats are who played it, in listings and snapshots, after a restart too:
                # a seat its player left is not a stranger's to take.
                raise ProtocolError("game_over", "the game has ended; a join with role "
                                    "\"spectator\" watches it")
            seat = self._free_seat(table, role, request["seat"])
        name = request["name"] or role
        if seat is not None:
            name = self._unique_name(table, name)
        session = Session(hash_token(token), table.id, seat, role, name, seen_s=self.clock())
        self.sessions[session.token_hash] = session
        self.quotas.own_session(session.token_hash, self.address)
        table.active_s = self.clock()
        self.store.add_session(SessionRow(session.token_hash, table.id, seat, role, session.name))
        if seat is None:
            table.spectators.add(session.token_hash)
        else:
            table.holders[seat] = session.token_hash
            events: list[dict[str, Any]] = [
                {"type": "seat_taken", "seat": seat, "role": role, "name": session.name}
            ]
            if table.status == OPEN and all(table.holders):
                table.status = RUNNING
                events.append({"type": "game_started"})
            self._publish(table, events)
            self._arm(table)
        return self._joined(request, table, session, token)

    def _joined(
        self, request: dict[str, Any], table: Table, session: Session, token: str
    ) -> dict[str, Any]:
        return reply("joined", request["id"], table=table.id, seat=session.seat,
                     role=session.role, token=token, standby=self.standby(),
                     snapshot=self._snapshot(table, session.seat))

    def _unique_name(self, table: Table, name: str) -> str:
        """``name``, numbered if a seat of ``table`` is called that already."""
        held = {session.name for holder in table.holders if holder is not None
                and (session := self.sessions.get(holder)) is not None}
        return numbered_name(name, held)

    def _free_seat(self, table: Table, role: str, wanted: int | None) -> int:
        if wanted is not None:
            if wanted >= len(table.holders):
                raise ProtocolError("bad_seat", f"this table has seats 0..{len(table.holders) - 1}")
            if table.holders[wanted] is not None:
                raise ProtocolError("seat_taken", f"seat {wanted} is taken; leave seat out "
                                    "for the first free one")
            if wanted in table.bots and role != "bot":
                # A person there would hold up the game: a player's seat has no clock.
                raise ProtocolError("bot_seat", f"seat {wanted} is kept for bots: only a join "
                                    "with role \"bot\" takes it; leave seat out for the first "
                                    "free player's seat")
            return wanted
        free = [seat for seat, holder in enumerate(table.holders) if holder is None]
        if role == "bot":
            # Bots fill the seats kept for bots first, then any free seat.
            preferred = [seat for seat in free if seat in table.bots] or free
        else:
            preferred = [seat for seat in free if seat not in table.bots]
        if not preferred:
            raise ProtocolError("table_full", f"no free seat for a {role} at this table; "
                                "a join with role \"spectator\" watches it")
        return preferred[0]

    def _sync(self, request: dict[str, Any]) -> dict[str, Any]:
        table = self._table(request["table"])
        seat = None
        if request["token"] is not None:
            seat = self._session(request["token"], table).seat
        return reply("snapshot", request["id"], **self._snapshot(table, seat))

    def _act(self, request: dict[str, Any]) -> dict[str, Any] | bytes:
        table = self._table(request["table"])
        session = self._session(request["token"], table)
        if session.seat is None:
            raise ProtocolError("not_a_player", "spectators watch; they cannot act")
        seat = request["seat"]
        if session.seat != seat:
            raise ProtocolError("bad_token", f"this token holds seat {session.seat}, not {seat}")
        msg_id = request["id"]
        if msg_id in session.accepted:
            return self._cached_reply(table, session, request)
        state = table.state
        self._check_decision(table, seat, request["version"])
        # As sent: an action with a field too many (a ``seat``, say) is the game's bad_action.
        data = request["action"]
        try:
            events = state.apply(state.parse_action(data))
        except RuleError as exc:
            code = "bad_action" if exc.code == "bad_action" else "illegal_action"
            raise ProtocolError(code, exc.message, rule=exc.code,
                                snapshot=self._snapshot(table, seat)) from None
        self._accept(table, seat, data, events, session.token_hash, msg_id)
        table.active_s = self.clock()
        body = _accepted(table.id, seat, msg_id, table.seq, state, events)
        session.accepted.add(msg_id)
        self._remember(session, msg_id, body)
        return body

    def _check_decision(self, table: Table, seat: int, version: int | None) -> None:
        """Refuse, with a fresh snapshot for ``seat``, unless the table runs, is at ``version``
        (None: any) and it is ``seat``'s decision: the checks of ``act`` and ``legal``."""

        def refuse(code: str, message: str) -> ProtocolError:
            return ProtocolError(code, message, snapshot=self._snapshot(table, seat))

        state = table.state
        if table.status == OPEN:
            raise refuse("not_started", "the table is still waiting for players")
        if table.status == OVER:
            raise refuse("game_over", "the game has ended")
        if version is not None and version != state.version:
            # Above the current version too: it names a state that does not exist yet.
            raise refuse("stale_version", f"the request was made on version {version}, "
                         f"the game is at {state.version}")
        if state.current_seat != seat:
            raise refuse("not_your_turn", f"it is seat {state.current_seat}'s decision")

    def _accept(
        self,
        table: Table,
        seat: int,
        data: dict[str, Any],
        events: list[dict[str, Any]],
        session: str,
        msg_id: int,
        missed: bool = False,
    ) -> None:
        """Publish and store an action just applied to ``table.state`` (made on the version
        before it): one path for a client's act and for the host's default move (``missed``:
        the seat ran out of time, which the update says first). The update names the seats
        whose private data the action changed."""
        state = table.state
        table.legal = None  # of the version before
        if state.is_over():
            table.status = OVER
            self._release(table)
        seq = table.seq + 1  # the update's, made below
        self.store.add_action(table.id, state.version - 1, seat, data, session, msg_id, seq)
        if table.status == OVER:
            self.store.finish_table(table.id, seq, self._final_record(table))
            log.info("table %s: over; best first: %s", table.id, self._standings(table))
            self._remove_oldest()
        self.stored()
        told = [{"type": "deadline_missed", "seat": seat}, *events] if missed else events
        self._publish(table, told, persist=False, private=_changed_privates(table, events))
        if table.history is not None:
            table.history.append(_move(state.version, seat, events))
        self._arm(table)
        if table.status == OVER:
            self._hold_over(table)

    # -- deadlines for bot seats ------------------------------------------------------------

    @staticmethod
    def _grace_s(table: Table, seat: int) -> float:
        """The time past a decision's clock the host waits for an act on the network (none for
        a stand-in, which is the host's own)."""
        return 0.0 if seat in table.stand_ins else DEADLINE_GRACE_S

    def _left_s(self, table: Table) -> float | None:
        """Seconds left of the pending decision's clock (its grace not counted); None if none
        runs. One armed in this batch starts when its update is sent: all of it is left."""
        seat = self._timed_seat(table)
        if seat is None:
            return None
        due_s = self._due.get(table.id)
        if due_s is None:
            clock_s = self._clock_s(table, seat) if table.id in self._unstarted else None
            return None if clock_s is None else float(clock_s)
        return round(max(0.0, due_s - self._grace_s(table, seat) - self.clock()), 3)

    def _timed_seat(self, table: Table) -> int | None:
        """The seat whose decision runs on the clock now, if any (:meth:`_clock_s`)."""
        seat = table.state.current_seat if table.status == RUNNING else None
        return seat if seat is not None and self._clock_s(table, seat) is not None else None

    def _clock_s(self, table: Table, seat: int) -> float | None:
        """The time ``seat``'s decision may take, None: no limit. A seat the host stands in
        for waits STAND_IN_PAUSE_S; one kept for bots or held by a bot has the table's
        deadline, else the host's fallback; one a person holds (or nobody yet), its turn
        timer."""
        if seat in table.stand_ins:
            return STAND_IN_PAUSE_S
        if self._bot_seat(table, seat):
            return table.deadline_s if table.deadline_s is not None else self.bot_fallback_s
        return table.turn_timer_s

    def _bot_seat(self, table: Table, seat: int) -> bool:
        """A seat kept for bots, or one a bot holds: it runs on a deadline, not a turn timer."""
        session = self._holder(table, seat)
        return seat in table.bots or (session is not None and session.role == "bot")

    def _arm(self, table: Table) -> None:
        """Start (or keep, or stop) the clock of the table's pending decision.

        Called after every change of state, status, seat holder or stand-in. The clock of a
        decision that is still the same one keeps running: a bot that rejoins does not get more
        time. A stand-in that comes or goes makes it another clock: the stand-in's pace, or the
        seat's own again.
        """
        seat = self._timed_seat(table)
        if seat is None:
            table.timed = None
            self._due.pop(table.id, None)
            self._unstarted.discard(table.id)
            return
        pending = (table.state.version, seat, seat in table.stand_ins)
        if table.timed != pending or not (table.id in self._due or table.id in self._unstarted):
            table.timed = pending
            self._due.pop(table.id, None)
            self._unstarted.add(table.id)  # started by start_clocks, once the seat is told

    def expire(self) -> bool:
        """Play the default move (or a stand-in's) for the seats past their clocks, oldest due
        first, for at most a batch's budget; True if any was played.

        The default is the game's ``default_action()``: deterministic, so a replay of the record
        and a restarted host agree on it. It is stored like any accepted action, with the
        session :data:`HOST_DEFAULT_SESSION` and the version as its message id.
        """
        now_s = self.clock()
        end_s = now_s + BATCH_BUDGET_S
        played = False
        for table_id in sorted((t for t, due_s in self._due.items() if due_s <= now_s),
                               key=self._due.__getitem__):
            if played and self.clock() > end_s:
                # The host's own moves (stand-ins think) are charged to no peer: like a batch
                # of requests, they take a batch's budget, and the oldest due go first; the
                # rest are due still, after the requests waiting meanwhile.
                break
            table = self.tables[table_id]
            seat = self._timed_seat(table)
            if seat is None:  # nothing pending any more; _arm keeps this from happening
                self._arm(table)
                continue
            state = table.state
            version = state.version
            try:
                if seat in table.stand_ins:  # the away player's stand-in moves
                    data = _stand_in_move(table, seat)
                    events = state.apply(state.parse_action(data))
                    self._accept(table, seat, data, events, HOST_STAND_IN_SESSION, version)
                    played = True
                    continue
                action = state.default_action()
                data = state.action_data(action)
                events = state.apply(action)
                self._bot_missed(table, seat)  # before the update, which says so
                self._accept(table, seat, data, events, HOST_DEFAULT_SESSION, version,
                             missed=True)
                played = True
                # Its type only: the action may name a card of the seat's own (Sugi's is one
                # of its hand, face down), and this line is on the host's screen.
                # Seats from 1, as people read them everywhere else (sagani tables).
                log.warning("table %s: seat %s missed its %g s %s at version %d; the host "
                            "played its default move (%s) for it", table.id,
                            self._seat(table, seat),
                            self._clock_s(table, seat),
                            "deadline" if self._bot_seat(table, seat) else "turn timer",
                            version, data.get("type"))
            except sqlite3.Error as exc:  # _commit() rolls back and reloads
                self.storage_failure = exc
                return True
            except Exception:  # the host never dies of one table
                log.exception("table %s: the default move failed; its clock is stopped", table_id)
                self._due.pop(table_id, None)
        return played

    def _cached_reply(self, table: Table, session: Session, request: dict[str, Any]) -> bytes:
        """The reply to an act accepted before: from the session's newest replies, or rebuilt
        for the table's newest move (a retry after a restart). An older one is answered
        ``already_accepted``: rebuilding it means replaying the game from disk, which a
        player re-sending its old acts would make the host do again and again. An act that
        is no retry (another action or version under an id the token used) is refused: the
        reply of the first would tell its client that an action never played was accepted."""
        msg_id = request["id"]
        found = self.store.accepted_action(table.id, session.token_hash, msg_id)
        assert found is not None, "accepted message ids are always stored"
        version, seq, action = found
        if (request["version"], request["action"]) != (version, action):
            raise ProtocolError(
                "bad_field", f"id {msg_id} is taken: this token's act on version {version} "
                "was accepted with it, and this act is another; a retry sends the same act "
                "again, a new act a new id (PROTOCOL.md, section 2)")
        body = session.replies.get(msg_id)
        if body is None:
            if version + 1 != table.state.version:
                # Worded by the version it made, as ``version`` says (section 2).
                raise ProtocolError("already_accepted", f"message {msg_id} was accepted: it "
                                    f"made version {version + 1}; the game has moved on since",
                                    version=version + 1, seq=seq,
                                    snapshot=self._snapshot(table, session.seat))
            # Once per table and restart: the reply is then among the session's newest, until
            # newer moves of the session push it out (and then it is no longer the newest).
            state, _, events = next(itertools.islice(self._replay(table), version, None))
            body = _accepted(table.id, session.seat, msg_id, seq, state, events)
            self._remember(session, msg_id, body)
        log.info("table %s: retry of message %d answered from the cache", table.id, msg_id)
        return body

    def _leave(self, request: dict[str, Any]) -> dict[str, Any]:
        table = self._table(request["table"])
        session = self._session(request["token"], table)
        self._drop(table, session)
        return reply("left", request["id"], table=table.id, seat=session.seat)

    def _drop(self, table: Table, session: Session) -> None:
        """``session`` is no more: its seat free, its token spent."""
        del self.sessions[session.token_hash]
        self.quotas.drop_session(session.token_hash)
        self.store.drop_session(session.token_hash)
        if session.seat is None:
            table.spectators.discard(session.token_hash)
        else:
            table.holders[session.seat] = None
            self._publish(table, [{"type": "seat_left", "seat": session.seat}])
            self._arm(table)

    def _record(self, request: dict[str, Any]) -> dict[str, Any]:
        if request["table"] in self._removed:
            keep = self.limits.finished_records
            raise ProtocolError("record_removed", f"the record of table {request['table']} was "
                                f"removed: this host keeps its newest {keep} finished games")
        table = self._table(request["table"])
        if table.status != OVER:
            raise ProtocolError("not_over", "the record is given out once the game is over")
        # As stored when the game ended (a record from an older host keeps its shape).
        return reply("record", request["id"], table=table.id, record=self.store.record(table.id))

    def _private(self, request: dict[str, Any]) -> dict[str, Any]:
        table = self._table(request["table"])
        session = self._session(request["token"], table)
        if session.seat is None:
            raise ProtocolError("not_a_player", "a spectator has no private data")
        return reply("private", request["id"], table=table.id, seat=session.seat, seq=table.seq,
                     version=table.state.version,
                     private=table.state.private(session.seat))

    def _legal(self, request: dict[str, Any]) -> dict[str, Any]:
        """One page of the legal actions of the token's seat, which must be the seat to move,
        in the engine's order and in wire form (what ``act`` takes as ``action``). The checks
        and refusals are ``act``'s, so a bot meets the same codes either way."""
        table = self._table(request["table"])
        session = self._session(request["token"], table)
        if session.seat is None:
            raise ProtocolError("not_a_player", "spectators watch; they have no moves")
        self._check_decision(table, session.seat, request["version"])
        state = table.state
        if table.legal is None or table.legal[0] != state.version:
            table.legal = (state.version, [state.action_data(a) for a in state.legal_actions()])
        actions = table.legal[1]
        count, page = len(actions), request["page"]
        pages = max(1, -(-count // LEGAL_PAGE_ACTIONS))  # one page, empty, when there are none
        if page >= pages:
            raise ProtocolError("bad_field", f"page must be in 0..{pages - 1}: this decision has "
                                f"{count} legal actions")
        return reply("legal", request["id"], table=table.id, seat=session.seat, seq=table.seq,
                     version=state.version, count=count, page=page, pages=pages,
                     next=page + 1 if page + 1 < pages else None,
                     actions=actions[page * LEGAL_PAGE_ACTIONS:(page + 1) * LEGAL_PAGE_ACTIONS])

    def _static(self, request: dict[str, Any]) -> dict[str, Any]:
        if (request["table"] is None) == (request["game"] is None):
            raise ProtocolError("bad_field", "static names either a table or a game")
        if request["table"] is not None:
            if request["config"] is not None:
                raise ProtocolError("bad_field", "a table's static data follows its own config")
            table = self._table(request["table"])
            game, config = get_game(table.game_name), table.config
        else:
            game, config = _game_config(request["game"], request["config"] or {})
        return reply("static", request["id"], game=game.name, config=config,
                     static=game.static_data(config))

    def _history(self, request: dict[str, Any]) -> dict[str, Any]:
        """The events of the moves after version ``since``, oldest first: one page of at most
        HISTORY_PAGE_MOVES moves and HISTORY_PAGE_BYTES bytes, from the newest HISTORY_KEEP
        moves. Events are what the updates broadcast, so no token is asked for."""
        table = self._table(request["table"])
        kept = self._kept_moves(table)
        version = table.state.version
        oldest = version - len(kept) + 1  # the version the first kept move made
        moves: list[dict[str, Any]] = []
        size = 0
        for move in itertools.islice(kept, max(0, request["since"] + 1 - oldest), None):
            size += len(move)
            if len(moves) == HISTORY_PAGE_MOVES or (moves and size > HISTORY_PAGE_BYTES):
                break
            moves.append(decode_message(move))
        return reply("history", request["id"], table=table.id, version=version, moves=moves,
                     more=bool(moves) and moves[-1]["version"] < version)

    def _kept_moves(self, table: Table) -> deque[bytes]:
        """The table's newest moves for ``history``; the first time, by replaying the store
        (a table created here starts with none, one from before a restart has its actions
        on disk only)."""
        if table.history is None:
            table.history = deque(
                (_move(state.version, seat, events) for state, seat, events in self._replay(table)),
                maxlen=HISTORY_KEEP,
            )
            assert len(table.history) == min(table.state.version, HISTORY_KEEP), table.id
        return table.history

    def _replay(self, table: Table) -> Iterator[tuple[GameState, int, list[dict[str, Any]]]]:
        """The table's game again from its seed, one stored action at a time: the state just
        after it (one object, played on), the seat that made it, and the game's events."""
        game = get_game(table.game_name)
        state = game.new_state(table.config, table.seed)
        for seat, events in game.positions(state, self.store.actions(table.id)):
            yield state, seat, events

    # -- helpers ----------------------------------------------------------------------------

    def _table(self, table_id: str) -> Table:
        table = self.tables.get(table_id) or self._load_finished(table_id)
        if table is None:
            raise ProtocolError("no_table", f"no table {table_id!r} is being played here")
        return table

    def _load_finished(self, table_id: str) -> Table | None:
        """Bring a finished table back from disk: forgotten, or finished just before a crash
        (its last update may never have gone out, so its players will come asking)."""
        found = self.store.finished(table_id)
        if found is None:
            return None
        row, record = found
        game = get_game(row.game)
        table = Table(row.id, row.game, row.config, row.seed, row.bots, game.from_record(record),
                      OVER, row.seq, row.created_s, [None] * game.seats(row.config),
                      deadline_s=row.deadline_s, active_s=self.clock())
        self._add_sessions(table, row.sessions)
        table.turn_timer_s = row.turn_timer_s
        self.tables[table.id] = table
        self._hold_over(table)
        return table

    def _hold_over(self, table: Table) -> None:
        """Keep the finished ``table`` in memory for FINISHED_KEEP_S from now, among at most
        Limits.max_finished_tables: past that many, the one held longest is forgotten, so that
        neither a busy evening nor requests for every old game of the data dir (each read back
        from disk) make the host hold more."""
        table.over_s = self.clock()
        self._over[table.id] = None
        # (Never the table just held: the request that read it back is served from it.)
        while len(self._over) > max(1, self.limits.max_finished_tables):
            self._forget(self.tables[next(iter(self._over))])

    def _holder(self, table: Table, seat: int) -> Session | None:
        """The session holding ``seat``, if anyone holds it."""
        holder = table.holders[seat]
        return self.sessions.get(holder) if holder else None

    def _session(self, token: str, table: Table) -> Session:
        session = self.sessions.get(hash_token(token))
        if session is None or session.table_id != table.id:
            raise ProtocolError("bad_token", f"that token does not belong to table {table.id}")
        self._seen(table, session)
        return session

    # -- presence and stand-ins (PROTOCOL.md, Presence) -------------------------------------

    def _seen(self, table: Table, session: Session) -> None:
        """A request came with ``session``'s token: it is there. A player back from away gets
        the seat back from its stand-in, if it had one (before this request is handled)."""
        session.seen_s = self.clock()
        session.heard = True
        if not session.away:
            return
        self._set_away(table, session, False)
        if session.seat in table.stand_ins:
            table.stand_ins.discard(session.seat)
            self._publish(table, [{"type": "stand_in_left", "seat": session.seat}])
            self._arm(table)
            log.info("table %s: seat %s's stand-in leaves", table.id,
                     self._seat(table, session.seat))

    def _set_away(self, table: Table, session: Session, away: bool) -> None:
        """The one place a seat goes away or comes back: its table's next heartbeat says so,
        and the pair's link beats at once (``away_changes``)."""
        session.away = away
        table.presence_changed = True
        self.away_changes += 1
        # The host's screen is the only place its operator sees who left: seats as in
        # `sagani tables` (from 1, with the name).
        if session.seat is not None:
            log.info("table %s: seat %s is %s", table.id, self._seat(table, session.seat),
                     "away" if away else "back")

    def _bot_missed(self, table: Table, seat: int) -> None:
        """A bot that let its clock run out is away until its token is heard again: a bot may
        say nothing between its turns, not through one. The others may then ask for a
        stand-in, and need not wait out its clock at every decision of a game it left."""
        session = self._holder(table, seat)
        if session is not None and session.role == "bot" and not session.away:
            self._set_away(table, session, True)

    def _mark_away(self, now_s: float) -> None:
        """Every player seat whose token said nothing for ``away_s`` is away from now on, and
        every bot seat whose token this host never heard: a bot lost with the host that failed
        (or restarted without it) would cost the table its whole deadline at each of its
        decisions before anyone could ask for a stand-in. A token not heard since this host
        began to serve has ``unheard_s`` (its client may still be on its way here)."""
        for table in self.tables.values():
            if table.status == OVER:
                continue
            for seat in range(len(table.holders)):
                session = self._holder(table, seat)
                if session is None or session.away:
                    continue
                silent_s = self.away_s if session.heard else self.unheard_s
                if ((session.role == "player" or not session.heard)
                        and now_s - session.seen_s > silent_s):
                    self._set_away(table, session, True)

    def away_seats(self) -> dict[str, list[int]]:
        """The seats away now, of every table in play that has some: what a standby keeps."""
        seats = {}
        for table in self.tables.values():
            if table.status != OVER and (away := self._away(table)):
                seats[table.id] = away
        return seats

    def keep_away(self, away: dict[Any, Any]) -> None:
        """After a takeover, the seats that were away at the host gone (its ``away_seats``)
        stay away: shown present while this host gives them its grace, they would come back and
        go away again for nothing. The first request with the seat's token brings it back."""
        for table_id, seats in away.items():
            table = self.tables.get(table_id) if isinstance(table_id, str) else None
            if table is None or table.status == OVER or not isinstance(seats, list):
                continue
            for seat in seats:
                if isinstance(seat, int) and 0 <= seat < len(table.holders):
                    session = self._holder(table, seat)
                    if session is not None and not session.away:
                        self._set_away(table, session, True)

    def _away(self, table: Table) -> list[int]:
        """The seats of ``table`` that are away (a player's, or a bot's: PROTOCOL.md, Presence)."""
        away = []
        for seat in range(len(table.holders)):
            session = self._holder(table, seat)
            if session is not None and session.away:
                away.append(seat)
        return away

    def _here(self, request: dict[str, Any]) -> dict[str, Any]:
        """A seated player's client is there (the token's request is all it takes)."""
        table = self._table(request["table"])
        session = self._session(request["token"], table)
        return reply("here", request["id"], table=table.id, seat=session.seat,
                     away=self._away(table))

    def _stand_in(self, request: dict[str, Any]) -> dict[str, Any]:
        """A player at the table asks the host to play an away seat (with the
        STAND_IN_STRATEGY bot) until its holder's token comes back."""
        table = self._table(request["table"])
        session = self._session(request["token"], table)
        seat = request["seat"]
        if session.seat is None:
            raise ProtocolError("not_a_player", "spectators cannot seat a stand-in")
        if table.status != RUNNING:
            raise ProtocolError("not_started" if table.status == OPEN else "game_over",
                                "a stand-in plays a running game")
        if seat >= len(table.holders):
            raise ProtocolError("bad_seat", f"this table has seats 0..{len(table.holders) - 1}")
        absent = self._holder(table, seat)
        if absent is None or not absent.away:
            raise ProtocolError("not_away", f"seat {seat} is not away (a player silent for a "
                                "while, a bot past its deadline or not heard since a host "
                                "restart); the seat infos and heartbeats say which are")
        if seat not in table.stand_ins:
            table.stand_ins.add(seat)
            self._publish(table, [{"type": "stand_in", "seat": seat, "by": session.seat}])
            self._arm(table)
            log.info("table %s: seat %s asked for a stand-in for away seat %s", table.id,
                     self._seat(table, session.seat), self._seat(table, seat))
        return reply("stand_in", request["id"], table=table.id, seat=seat)

    def seats(self, table: Table) -> list[dict[str, Any]]:
        seats = []
        for seat in range(len(table.holders)):
            session = self._holder(table, seat)
            seats.append({
                "seat": seat,
                "kind": "bot" if seat in table.bots else "player",
                "taken": session is not None,
                "role": session.role if session else None,
                "name": session.name if session else None,
                "away": session is not None and session.away,
                "stand_in": seat in table.stand_ins,
            })
        return seats

    def _snapshot(self, table: Table, seat: int | None) -> dict[str, Any]:
        """What ``seat`` (None: a spectator) may know of the table. Only ever sent in a reply to
        a request that proved the seat's token: it holds the seat's private data."""
        state = table.state
        return {"table": table.id, "game": table.game_name, "config": table.config,
                "status": table.status, "seq": table.seq, "version": state.version,
                "turn": table.turn, "seats": self.seats(table), "you": seat,
                "view": state.view(seat, shared=True),  # encoded at once
                "private": None if seat is None else state.private(seat),
                "deadline_s": table.deadline_s, "turn_timer_s": table.turn_timer_s,
                # A snapshot's position may be old to its reader: how long its decision has.
                "turn_left_s": self._left_s(table)}

    def _final_record(self, table: Table) -> dict[str, Any]:
        """The record stored when a game ends: the game's own, with the names at its seats
        and the moves the host played for a seat (its default move past the seat's clock, or
        its bot standing in), which a replay and the analysis tell apart from the seat's own."""
        record = {**table.state.to_record(), "names": self._names(table)}
        played = [{"index": index, "reason": HOST_PLAYED[session]}
                  for index, session in enumerate(self.store.action_sessions(table.id))
                  if session in HOST_PLAYED]
        if played:
            record["host_played"] = played
        return record

    def _standings(self, table: Table) -> str:
        """A finished game's result in a line: each seat as `sagani tables` names it (from 1,
        with its name) and its score, best first."""
        result = table.state.result()
        assert result is not None  # the game is over
        return ", ".join(f"{self._seat(table, seat)} {result.scores[seat]}"
                         for seat in result.ranking)

    def _seat(self, table: Table, seat: int) -> str:
        """A seat for the host's lines as `sagani tables` names it: from 1, and who holds it."""
        session = self._holder(table, seat)
        return f"{seat + 1}:{session.name if session else 'free'}"

    def _names(self, table: Table) -> list[str]:
        """Who sits at each seat: its holder's name, or "seat N" (from 1, as people count)."""
        names = []
        for seat in range(len(table.holders)):
            session = self._holder(table, seat)
            names.append(session.name if session else f"seat {seat + 1}")
        return names

    def _publish(
        self,
        table: Table,
        events: list[dict[str, Any]],
        persist: bool = True,
        private: list[int] | tuple[int, ...] = (),
    ) -> None:
        """Queue an update (sent after the commit); ``persist`` saves the new seq with the table.
        ``private`` names the seats whose private data changed: it goes on PUB, the data never
        does (each such seat fetches its own with the ``private`` request)."""
        table.seq += 1
        table.published = True
        update = {"v": VERSION, "type": "update", "table": table.id, "seq": table.seq,
                  "version": table.state.version, "status": table.status, "turn": table.turn,
                  "events": events, "seats": self.seats(table), "private": list(private),
                  "view": table.state.view(None, shared=True)}
        self.outbox.append((table.topic, update))
        if persist:
            self.store.set_table(table.id, table.status, table.seq)
        if log.isEnabledFor(logging.INFO) and events:
            names = self._names(table)
            for event in events:
                # Counted by kind: bots' moves at other tables hid who sat down and who won.
                log.info("table %s #%d v%d: %s", table.id, table.seq, table.state.version,
                         event_sentence(get_game(table.game_name), event, names),
                         extra={QUIET_KIND: event.get("type")})

    def _remember(self, session: Session, msg_id: int, body: bytes) -> None:
        session.replies[msg_id] = body
        if len(session.replies) > REPLY_CACHE_SIZE:
            session.replies.popitem(last=False)

    def _table_from_row(self, row: TableRow, game: Game) -> Table:
        """The table ``row`` holds, its game at its stored actions (a new table has none);
        raises RuleError if this host's rules refuse one of them."""
        state = game.resume(row.config, row.seed, row.actions)
        seats = game.seats(row.config)
        table = Table(row.id, row.game, row.config, row.seed, row.bots, state, row.status,
                      row.seq, row.created_s, [None] * seats, deadline_s=row.deadline_s,
                      turn_timer_s=row.turn_timer_s, active_s=self.clock())
        table.privates = _privates(state, seats)
        return table

    def _add_sessions(self, table: Table, rows: list[SessionRow]) -> None:
        for s in rows:
            self.sessions[s.token_hash] = Session(s.token_hash, s.table_id, s.seat, s.role,
                                                  s.name, s.accepted, seen_s=self.clock(),
                                                  heard=False)
            if s.seat is None:
                table.spectators.add(s.token_hash)
            else:
                table.holders[s.seat] = s.token_hash

    def _restore(self) -> None:
        """Bring back every unfinished table from the store, at its version and sequence."""
        for row in self.store.unfinished():
            try:
                table = self._table_from_row(row, get_game(row.game))
            except RuleError as exc:
                # Not this host's rules any more (an engine changed under a stored game): the
                # others still come back; this one stays in the store as it was.
                log.error("table %s: its stored actions do not replay (%s); it is not resumed",
                          row.id, exc.message)
                continue
            self._add_sessions(table, row.sessions)
            self.tables[row.id] = table
            # A pending bot decision's clock starts again from the restart: the bot may not
            # even have heard of its turn before the host went down.
            self._arm(table)
            log.info("table %s: resumed at version %d, seq %d", row.id, table.state.version,
                     table.seq)


def _accepted(
    table_id: str,
    seat: int | None,
    msg_id: int,
    seq: int,
    state: GameState,
    events: list[dict[str, Any]],
) -> bytes:
    """The reply to an accepted action; built the same way when a retry needs it again.

    It carries no view: the update with the same seq (sent just before) has it, and one view
    per action instead of two is a third of the host's work.
    """
    over = state.is_over()
    return encode(reply("accepted", msg_id, table=table_id, seat=seat, seq=seq,
                        version=state.version, status=OVER if over else RUNNING,
                        turn=None if over else state.current_seat, events=events,
                        private=None if seat is None else state.private(seat)))


def _changed_privates(table: Table, events: list[dict[str, Any]]) -> list[int]:
    """The seats whose private data the action that made ``events`` changed: of those the game
    names (``private_seats``: may have changed), the ones whose data differs from what they
    had (:attr:`Table.privates`, kept up here). Until that is known, every seat named."""
    state = table.state
    known = table.privates
    changed = []
    for seat in state.private_seats(events):
        now = _private_bytes(state, seat)
        if known is None or known[seat] != now:
            changed.append(seat)
            if known is not None:
                known[seat] = now
    return changed


def _privates(state: GameState, seats: int) -> list[bytes]:
    """Every seat's private data as it stands, encoded (:attr:`Table.privates`)."""
    return [_private_bytes(state, seat) for seat in range(seats)]


def _private_bytes(state: GameState, seat: int) -> bytes:
    """A seat's private data (None for a seat without) as bytes to compare."""
    return encode({"private": state.private(seat)})


def _created(msg_id: int, row: TableRow, game: Game) -> dict[str, Any]:
    """The reply to the create that made the table ``row`` holds."""
    return reply("created", msg_id, table=row.id, game=row.game, config=row.config,
                 seats=game.seats(row.config), bots=row.bots, deadline_s=row.deadline_s,
                 turn_timer_s=row.turn_timer_s)


def _nonce_hash(nonce: str) -> str:
    """What the store keeps of a create's nonce, for its retries to find the table it made.
    The reply they get holds no secret (tables are listed to anyone), but a nonce proves a
    retry: the store keeps its hash, as it keeps tokens', so that no reader of the data dir
    learns one (a careless client's join with the same nonce has a token worked out from it)."""
    return hash_token(f"sagani create nonce {nonce}")


def _nonce_token(table: Table, nonce: str) -> str:
    """The token of a join with ``nonce`` at ``table``: worked out from the table's seed (a
    secret of the host's until the game is over, which its standby holds too), so that a retry
    of that join reaching a host that never saw it (restarted, or the standby) finds the seat
    it took. Whoever holds the nonce holds the token, as with the replies kept for retries."""
    key = b"sagani join nonce " + table.seed.to_bytes(8, "big") + table.id.encode()
    digest = hmac.digest(key, nonce.encode(), "sha256")[:TOKEN_BYTES]
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _stand_in_move(table: Table, seat: int) -> dict[str, Any]:
    """The move of an away player's stand-in: the STAND_IN_STRATEGY bot's, thinking on what
    the seat may see; the game's default move if the bot fails (the game must go on)."""
    from sagani_net.bots.runner import think  # the bots use the client; the host, only this

    state = table.state
    try:
        return think(STAND_IN_STRATEGY, state.view(seat), secrets.randbits(64), None,
                     table.game_name, seat, state.private(seat))
    except Exception:
        log.exception("table %s: the stand-in of seat %d failed; the default move instead",
                      table.id, seat)
        return state.action_data(state.default_action())


def _move(version: int, seat: int, events: list[dict[str, Any]]) -> bytes:
    """One move as ``history`` tells it (encoded to be kept): the version it made, who made
    it, and the game's events (the host's own, such as ``deadline_missed``, are not in it, so
    that the answer is the same from memory and from a replay after a restart)."""
    return encode({"version": version, "seat": seat, "events": events})


def _game_config(name: str, data: dict[str, Any]) -> tuple[Game, dict[str, Any]]:
    """The game called ``name`` and ``data`` checked as its config, or the protocol's refusal."""
    try:
        game = get_game(name)
        return game, game.parse_config(data)
    except RuleError as exc:
        code = "unknown_game" if exc.code == "unknown_game" else "bad_config"
        raise ProtocolError(code, exc.message) from None


def _listing_order(table: Table) -> tuple[float, str]:
    return table.created_s, table.id


def _page_start(after: str | None) -> tuple[float, str] | None:
    """Where a `tables` page starts: after the table of ``after`` (a ``next`` of an earlier
    page: its creation time and id), whether or not that table is still there."""
    if after is None:
        return None
    created_s, _, table_id = after.partition(" ")
    try:
        start = float(created_s)
    except ValueError:
        start = math.nan
    if not math.isfinite(start):  # "nan" read as a float, before, and listed no table at all
        raise ProtocolError("bad_field", "after must be the next of a tables reply")
    return start, table_id


def _summary(value: list[Any] | dict[str, Any]) -> dict[str, Any]:
    """A list or map as ``tables`` shows it: how many elements, and the first 16 hex digits of
    the SHA-256 of its JSON text (keys sorted, no spaces, UTF-8) to tell two apart."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return {"count": len(value), "digest": hashlib.sha256(text.encode()).hexdigest()[:16]}

