"""The headless host: authoritative games behind a ZeroMQ ROUTER, broadcast on a PUB.

One socket loop (:meth:`Host.step`) reads a batch of requests, handles each, commits the store,
then publishes the batch's updates and sends its replies; nothing is heard before it is on disk.
The host knows games only through :mod:`sagani_net.game`; the wire format is :mod:`protocol`.

>>> host = Host(Store(tmp), port=0)      # doctest: +SKIP
>>> host.serve()                         # doctest: +SKIP
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import logging
import secrets
import sqlite3
import threading
import time
from collections import Counter, OrderedDict, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

import zmq

from sagani_net import limits as caps
from sagani_net.game import Game, GameState, RuleError, without_seat
from sagani_net.games import game_names, get_game
from sagani_net.limits import (
    MAX_FRAME_BYTES,
    RATE_BURST,
    RATE_PER_S,
    BoundedCache,
    PrintableLines,
    QuietRepeats,
    RateLimiter,
)
from sagani_net.peers import ConnectionGuard
from sagani_net.protocol import (
    ProtocolError,
    check_request,
    decode_message,
    decode_request,
    encode,
    error,
    reply,
    request_id,
    topic,
)
from sagani_net.protocol.messages import MAX_DEADLINE_S, MAX_NAME_LEN, MIN_DEADLINE_S
from sagani_net.protocol.wire import DEFAULT_PORT, MAX_REQUEST_BYTES, SUPPORTED_VERSIONS, VERSION
from sagani_net.store import SessionRow, StorageDamaged, Store, TableRow


class Link(Protocol):
    """The replication link to a standby host (:class:`sagani_net.standby.ActiveLink` is the
    one there is): the host's loop drives it, and it never calls back into the host."""

    #: The standby's request endpoint, for clients to go to if this host falls silent.
    standby: str | None

    def tick(self) -> None: ...

    def replicate(self) -> None: ...

    def close(self) -> None: ...

log = logging.getLogger("sagani_net.host")
# Whatever a peer or a table does again and again, the log says it a few times, then a count.
log.addFilter(QuietRepeats())
log.addFilter(PrintableLines())

#: A table that published nothing for this long gets a heartbeat on its topic.
HEARTBEAT_S = 1.0
#: How long a finished table stays in memory (listed, synced, heartbeats) before only its
#: record is kept.
FINISHED_KEEP_S = 600.0
#: Longest wait in one poll, so that stop() is noticed promptly.
POLL_MS = 100
#: A batch ends once its requests have taken this long, and is committed and published: one
#: peer's costly requests delay another table's act by this much plus two of them (the one
#: being handled when it came, one that began its batch: see SLOW_S), not by all of them.
BATCH_BUDGET_S = 0.02
#: For this long after one of its requests took more than a batch's budget, an address's
#: requests only ever start a batch, so that they hold up nobody's act but their own; the
#: addresses so marked at once are bounded.
SLOW_S = 1.0
MAX_SLOW_ADDRESSES = 4096
TOKEN_BYTES = 24
TABLE_ID_BYTES = 4
#: Accepted replies kept in memory per session for instant retries (older ones come from disk).
REPLY_CACHE_SIZE = 16
#: Create and join replies remembered for retries (in memory only), and their bytes in all
#: (a joined reply holds a snapshot: tens of KiB for a big table).
RECENT_SIZE = 4096
RECENT_BYTES = 32 * 1024 * 1024
#: Time a bot seat gets beyond its table's deadline before the host plays for it: the update
#: announcing the turn and the bot's act both cross the network.
DEADLINE_GRACE_S = 0.25
#: What the store records as the session of a move the host played for a bot that missed its
#: deadline. Real sessions are 64 hex digits (token hashes), so it never matches one, and a
#: retry lookup (by session and message id) never finds it.
HOST_DEFAULT_SESSION = "host:deadline"
#: The session the store records for a move the host played for an away player's seat at the
#: others' request (``stand_in``); like HOST_DEFAULT_SESSION, never a real session's.
HOST_STAND_IN_SESSION = "host:stand-in"
#: The bot the host plays a stood-in seat with: in the host's loop, so a quick one (under 10 ms
#: of CPU a decision: bench/stand_in.py, figures in docs/reliability.md); and how long it waits
#: before each move, so that people see whose turn it was.
STAND_IN_STRATEGY = "greedy"
STAND_IN_PAUSE_S = 0.5
#: The clock of a bot seat at a table that sets no ``deadline_s``: anyone may join as a bot,
#: and a "bot" that never moves must not hold the game for ever (issue 18, point 9).
BOT_FALLBACK_S = 60.0
#: A seated player's client says it is there (``here``, or any request with its token) once a
#: presence period: the host's heartbeat, but never more often than this.
PRESENCE_MIN_S = 0.25
#: Presence periods without a word from a player's token after which its seat is away.
AWAY_PERIODS = 3
#: Largest frame a subscriber may send the broadcast socket (a subscription is a topic).
SUBSCRIPTION_BYTES = 1024
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
#: Requests that change what is stored; refused with ``storage_failed`` once the data dir is
#: known to be damaged (a join with a token only comes back to a seat, and is served).
WRITES = frozenset(("create", "join", "act", "leave", "stand_in"))


class BindError(zmq.ZMQError):
    """The host cannot listen where it was asked (port in use, no such address); the message
    is one line a front end can print. A ZMQError, so callers that caught libzmq's still do."""

    def __init__(self, message: str, errno: int | None = None) -> None:
        super().__init__(errno, message)


@dataclass(frozen=True)
class Limits:
    """Capacity limits; each refusal has its own error code (protocol/errors.py)."""

    max_tables: int = 1000
    max_sessions: int = 20000
    max_spectators: int = 64
    #: Requests handled between two commits; bounds the latency a burst adds.
    max_batch: int = 256
    #: ZeroMQ high-water marks (messages queued per peer before dropping).
    sndhwm: int = 10000
    rcvhwm: int = 10000
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
    connections_per_address: int = caps.CONNECTIONS_PER_ADDRESS
    #: An open table nobody joined, or a running one nobody played, for this long expires.
    open_idle_s: float = caps.OPEN_TABLE_IDLE_S
    running_idle_s: float = caps.RUNNING_TABLE_IDLE_S
    #: Bytes of table entries in one `tables` page (the next page has the rest).
    tables_page_bytes: int = caps.TABLES_PAGE_BYTES


@dataclass
class Session(SessionRow):
    """One join: a token (kept only as its hash) bound to a table and a seat (None: spectator),
    the message ids of its accepted actions, and the latest of their replies."""

    replies: OrderedDict[int, bytes] = field(default_factory=OrderedDict)
    #: When (monotonic s) its token last came with a request, and whether its seat is away
    #: (a player's only: AWAY_PERIODS presence periods without one). In memory: after a
    #: restart everyone has a presence period's grace again.
    seen_s: float = field(default_factory=time.monotonic)
    away: bool = False


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
    #: When the game ended (monotonic seconds), for forgetting finished tables.
    over_s: float | None = None
    #: Per-move deadline of the bot seats (seconds), None: none.
    deadline_s: float | None = None
    #: Turn timer of the seats people hold (seconds), None: none.
    turn_timer_s: float | None = None
    #: Seats of away players the host plays for (``stand_in``) until they are back.
    stand_ins: set[int] = field(default_factory=set)
    #: A seat went away or came back since the last heartbeat: the next one goes out.
    presence_changed: bool = False
    #: The pending decision the deadline clock runs for: (version, seat), or None.
    timed: tuple[int, int] | None = None
    #: When (monotonic s) someone last joined it or acted on it (the host's default moves do
    #: not count), for closing tables nobody uses; a restart starts the clock again.
    active_s: float = field(default_factory=time.monotonic)
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


class Host:
    """Serves many tables; see the module docstring. Sockets are bound in the constructor."""

    def __init__(
        self,
        store: Store,
        *,
        bind: str = "127.0.0.1",
        port: int = DEFAULT_PORT,
        pub_port: int | None = None,
        limits: Limits | None = None,
        heartbeat_s: float = HEARTBEAT_S,
        context: zmq.Context | None = None,
        secure: Callable[[zmq.Socket], None] | None = None,
        bot_deadline_s: float | None = None,
        bot_fallback_s: float = BOT_FALLBACK_S,
        turn_timer_s: float | None = None,
        client_seeds: bool = False,
    ) -> None:
        if not (caps.MIN_HEARTBEAT_S <= heartbeat_s <= caps.MAX_HEARTBEAT_S):  # NaN too
            raise ValueError(f"the heartbeat must be {caps.MIN_HEARTBEAT_S}.."
                             f"{caps.MAX_HEARTBEAT_S} s, not {heartbeat_s}")
        for what, bound in (("a bot deadline", bot_deadline_s), ("a turn timer", turn_timer_s)):
            if bound is not None and not (MIN_DEADLINE_S <= bound <= MAX_DEADLINE_S):
                raise ValueError(f"{what} must be {MIN_DEADLINE_S}..{MAX_DEADLINE_S} s, "
                                 f"not {bound}")
        self.store = store
        #: Whether every ``create`` may choose its seed: a host whose every client is its owner
        #: (``sagani play``, tests). Otherwise only a table nobody else can lose at may.
        self.client_seeds = client_seeds
        #: The deadline of tables whose create request names none (``--bot-deadline``).
        self.bot_deadline_s = bot_deadline_s
        #: A bot seat's clock at a table with no deadline at all (:data:`BOT_FALLBACK_S`).
        self.bot_fallback_s = bot_fallback_s
        #: The turn timer of tables whose create request names none (``--turn-timer``).
        self.turn_timer_s = turn_timer_s
        #: How often a seated player's client says it is there, and the silence after which its
        #: seat is away (PROTOCOL.md, Presence).
        self.presence_s = max(heartbeat_s, PRESENCE_MIN_S)
        self.away_s = AWAY_PERIODS * self.presence_s
        #: Table id -> when (monotonic s) its bot seat to move runs out of time. Only tables with
        #: a pending timed decision are here, so the loop's min() over it stays small.
        self._due: dict[str, float] = {}
        #: Tables whose pending bot decision has a clock that starts once the update announcing
        #: it is sent (at the end of the batch): the bot cannot answer a turn it has not heard.
        self._unstarted: set[str] = set()
        #: Whether the last batch ended with requests still waiting (a bot's act among them,
        #: maybe): no deadline is enforced before they are read.
        self._behind = False
        #: A request read and held back for the next batch (its frames, connection, address),
        #: and the addresses whose requests only start batches, until when (see SLOW_S).
        self._carried: tuple[list[bytes], int, str] | None = None
        self._slow: dict[str, float] = {}
        self.limits = limits or Limits()
        self.heartbeat_s = heartbeat_s
        self.tables: dict[str, Table] = {}
        self.sessions: dict[str, Session] = {}
        self._outbox: list[tuple[bytes, bytes]] = []
        # Replies to creates and joins by (type, table, id): a retried join gets the same seat.
        self._recent: BoundedCache[tuple[Any, ...], bytes] = BoundedCache(
            RECENT_SIZE, RECENT_BYTES, weight=len)
        self._stop = threading.Event()
        self._storage_failure: sqlite3.Error | None = None
        #: Why the data dir can no longer be trusted (files deleted, replaced or changed under
        #: the host, or unreadable): every write is refused, reads are served from memory.
        self.storage_broken: str | None = None
        self._thread: threading.Thread | None = None
        #: Open or running tables and sessions per address (IP), and whose each session is.
        self._tables_of: Counter[str] = Counter()
        self._sessions_of: Counter[str] = Counter()
        self._session_owner: dict[str, str] = {}
        #: The connection (file descriptor) and address of the request being handled.
        self._from_fd = -1
        self._from_address = ""
        #: The replication link to a standby host (sagani_net.standby), if this host has one.
        self.link: Link | None = None
        try:
            self._restore()
        except Exception as exc:  # what is on disk does not make a game
            raise StorageDamaged(f"the games in {store.path} cannot be read back ({exc!r}); start "
                                 "the host with --salvage to keep what is readable") from exc
        ctx = context or zmq.Context.instance()
        self.router = ctx.socket(zmq.ROUTER)
        self.pub = ctx.socket(zmq.PUB)
        for sock in (self.router, self.pub):
            sock.linger = 0
            sock.sndhwm = self.limits.sndhwm
            sock.rcvhwm = self.limits.rcvhwm
            if secure is not None:  # issue 6: CURVE server keys go here
                secure(sock)
        if pub_port is None:
            pub_port = port + 1 if port else 0
        # A peer's oversized frame is cut off by libzmq before it is buffered; a new
        # connection with a known routing id (a client's Lazy Pirate retry) takes it over.
        self.router.maxmsgsize = self.limits.max_frame_bytes
        self.pub.maxmsgsize = SUBSCRIPTION_BYTES
        self.router.router_handover = 1
        self._rate = RateLimiter(self.limits.rate_per_s, self.limits.rate_burst)
        # What libzmq would hold for a peer without bound (a message whose last frame never
        # comes, replies nobody reads) is measured per connection (sagani_net.peers).
        self._requests = ConnectionGuard(
            self.router, "requests", max_unread_bytes=self.limits.max_unread_bytes,
            max_unread_reply_bytes=self.limits.max_unread_reply_bytes,
            max_per_address=self.limits.connections_per_address,
            curve=secure is not None)
        self._subscribers = ConnectionGuard(
            self.pub, "broadcasts", max_total_bytes=caps.MAX_SUBSCRIBER_BYTES,
            max_per_address=self.limits.connections_per_address)
        try:
            self.endpoint = _bind(self.router, bind, port)
            self.pub_endpoint = _bind(self.pub, bind, pub_port)
        except BindError:
            self._close_sockets()
            raise
        self._next_heartbeat_s = time.monotonic() + heartbeat_s
        #: The standby the last heartbeats named.
        self._told_standby: str | None = None
        #: While set (code, message, fields), every request is refused with that error: a
        #: standby that still hears its active host (sagani_net.standby).
        self.refusing: tuple[str, str, dict[str, Any]] | None = None
        self._next_guard_s = 0.0
        self._handlers: dict[str, Callable[[dict[str, Any]], dict[str, Any] | bytes]] = {
            "hello": self._hello,
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
        log.info("host on %s, broadcasts on %s, data in %s", self.endpoint, self.pub_endpoint,
                 store.path)

    # -- the socket loop --------------------------------------------------------------------

    def serve(self) -> None:
        """Run until :meth:`stop`; then close the sockets and the store."""
        try:
            while not self._stop.is_set():
                self.step(POLL_MS)
        finally:
            self.close()

    def close(self) -> None:
        """Close the sockets (the link's too) and the store."""
        if self.link is not None:
            self.link.close()
        self._close_sockets()
        self.store.close()

    def reload(self) -> None:
        """Forget the games in memory and bring them back from the store: a standby taking
        over, whose store the active host filled."""
        before = dict(self.tables)
        self.tables.clear()
        self.sessions.clear()
        self._due.clear()
        self._recent.clear()
        self._restore()
        self._recount(before)

    def _close_sockets(self) -> None:
        for guard in (self._requests, self._subscribers):
            guard.close()
        self.router.close()
        self.pub.close()

    def serve_in_thread(self) -> threading.Thread:
        """Serve on a daemon thread (tests, ``sagani play``); :meth:`stop` ends it."""
        self._thread = threading.Thread(target=self.serve, name="sagani-host", daemon=True)
        self._thread.start()
        return self._thread

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()

    def step(self, timeout_ms: int) -> int:
        """Wait up to ``timeout_ms`` for requests, handle one batch; returns how many."""
        # The next thing the loop must do unasked: a heartbeat, a bot's move deadline, or a
        # look at what each connection holds.
        wake_s = min([self._next_heartbeat_s, self._next_guard_s, *self._due.values()])
        wait_ms = max(0, min(timeout_ms, (wake_s - time.monotonic()) * 1000))
        if self._carried is not None:
            wait_ms = 0  # a request is waiting already
        replies: list[tuple[int, list[bytes]]] = []
        if self.link is not None:
            self.link.tick()
        ready = self.router.poll(wait_ms, zmq.POLLIN)
        now_s = time.monotonic()
        if self.storage_broken is None and (ready or self._due or now_s >= self._next_heartbeat_s):
            self._check_storage()  # before anything is written in this step
        self._behind = False
        if ready or self._carried is not None:
            started_s = time.monotonic()
            replies = self._intake()
            # A request that held the host past a batch's budget held every bot's act up too:
            # the clocks stand still for that long (a bot's time is its own, not a peer's).
            overrun_s = time.monotonic() - started_s - BATCH_BUDGET_S
            if overrun_s > 0:
                for table_id in self._due:
                    self._due[table_id] += overrun_s
        changed = False
        if self.storage_broken is None:
            changed = self._expire() if self._due and not self._behind else False
            if now_s >= self._next_heartbeat_s:
                changed = self._close_idle(now_s) or changed
        if replies or changed:
            # The rule: committed before anyone hears of it.
            if not self._commit():
                replies = [(fd, [*frames[:-1], _storage_error(frames[-1])])
                           for fd, frames in replies]
            elif self.link is not None:
                self.link.replicate()  # on the standby's disk too before anyone hears of it
            # Broadcasts first: the act-to-everyone-updated latency is what players feel.
            for topic, body in self._outbox:
                self.pub.send_multipart((topic, body))
            self._outbox.clear()
            for fd, frames in replies:
                self._send_reply(fd, frames)
        if self._unstarted:
            self._start_clocks()
        if now_s >= self._next_heartbeat_s or self._standby() != self._told_standby:
            self._heartbeats()
        self.guard(now_s)
        return len(replies)

    def _intake(self) -> list[tuple[int, list[bytes]]]:
        """Read and handle one batch of waiting requests; their replies, by connection."""
        replies = []
        router = self.router
        self._requests.events()  # a descriptor number may be a new connection's by now
        end_s = time.monotonic() + BATCH_BUDGET_S
        for _ in range(self.limits.max_batch):
            if self._carried is not None:  # held back from the last batch: first in this one
                frames, self._from_fd, self._from_address = self._carried
                self._carried = None
            else:
                # Asking first is cheaper than the exception a receive on an empty queue raises.
                if not router.get(zmq.EVENTS) & zmq.POLLIN:
                    break
                if time.monotonic() > end_s:
                    self._behind = True  # the rest waits for the next batch, deadlines too
                    break
                frames = self._receive()
                if replies and self._slow.get(self._from_address, 0.0) > time.monotonic():
                    # Lately costly: it may start a batch, never hold up one that others are in.
                    self._carried = (frames, self._from_fd, self._from_address)
                    self._behind = True
                    break
            if self._requests.backed_up(self._from_fd):
                continue  # it reads no replies: it gets none until it does
            started_s = time.monotonic()
            replies.append((self._from_fd, self._handle(frames)))
            if time.monotonic() - started_s > BATCH_BUDGET_S:
                self._slow_address(self._from_address)
        else:
            self._behind = bool(router.get(zmq.EVENTS) & zmq.POLLIN)  # a full batch
        return replies

    def _slow_address(self, address: str) -> None:
        """``address`` sent a request that took more than a batch's budget: for SLOW_S its
        requests only start batches (the table is kept small: what expired goes)."""
        now_s = time.monotonic()
        if len(self._slow) >= MAX_SLOW_ADDRESSES:
            self._slow = {a: until_s for a, until_s in self._slow.items() if until_s > now_s}
        if len(self._slow) < MAX_SLOW_ADDRESSES:
            self._slow[address] = now_s + SLOW_S

    def guard(self, now_s: float) -> None:
        """Cut the connections that hold more than they may, every few milliseconds (a message
        libzmq keeps until its last frame never wakes the loop)."""
        if now_s >= self._next_guard_s:
            self._requests.check()
            self._subscribers.check()
            self._next_guard_s = now_s + caps.GUARD_INTERVAL_S

    def refuse(self) -> None:
        """Answer the waiting requests with :attr:`refusing`'s error, read and limited as when
        serving, touching no table: a standby's answer while its active host lives."""
        for fd, frames in self._intake():
            self._send_reply(fd, frames)
        self.guard(time.monotonic())

    def _receive(self) -> list[bytes]:
        """Read one request message frame by frame, keeping at most the frames a request may
        have (the rest is read and dropped: its frames are refused, never echoed). Sets
        ``_from_fd`` and ``_from_address`` to where it came from."""
        first = self.router.recv(zmq.NOBLOCK, copy=False)
        frames = [first.bytes]
        sizes = []  # of the frames the peer sent (the routing id is libzmq's)
        count = 0
        more = first.more
        while more:
            try:
                frame = self.router.recv(zmq.NOBLOCK, copy=False)
            except zmq.Again:  # never seen; a message is whole or not at all
                log.warning("a request message ended before its last frame")
                break
            more = frame.more
            count += 1
            sizes.append(len(frame))
            # One frame over the limit is kept (never echoed) so that _handle sees too many.
            if count <= caps.MAX_REQUEST_FRAMES + 1:
                frames.append(frame.bytes)
        self._from_fd = first.get(zmq.SRCFD)
        try:
            self._from_address = first.get("Peer-Address")
        except zmq.ZMQError:  # not a TCP connection
            self._from_address = ""
        self._requests.read(self._from_fd, sizes)
        return frames

    def _send_reply(self, fd: int, frames: list[bytes]) -> None:
        if len(frames[-1]) > caps.MAX_REPLY_BYTES:
            log.error("a %d-byte reply was not sent; the limit is %d", len(frames[-1]),
                      caps.MAX_REPLY_BYTES)
            frames = [*frames[:-1], encode(error(request_id(decode_message(frames[-1])),
                      "internal", "the answer would be too big to send"))]
        self._requests.sent(fd, [len(frame) for frame in frames[1:]])
        self.router.send_multipart(frames)

    def _handle(self, frames: list[bytes]) -> list[bytes]:
        # REQ peers put an empty delimiter before the body (after the routing ids of any
        # proxies on the way); DEALER peers may send the body alone.
        if len(frames) >= 3 and frames[-2] == b"":
            head, body = frames[:-1], frames[-1]
        elif len(frames) == 2:
            head, body = frames[:1], frames[1]
        else:
            head, body = frames[: frames.index(b"") + 1] if b"" in frames else frames[:1], b""
        # The reply goes back along the envelope: it must be one a request may have, so that
        # no reply is longer than the limits allow (a request cannot make the host echo more).
        if (len(frames) > caps.MAX_REQUEST_FRAMES + 1
                or any(len(frame) > caps.MAX_ENVELOPE_FRAME_BYTES for frame in head)):
            head, body = [frames[0], b""], b""
        if not body:
            return [*head, encode(error(None, "bad_frame", "a request is exactly one frame, "
                                        "after at most one envelope"))]
        if not self._rate.allow(frames[0]):
            return [*head, encode(error(None, "rate_limited", "too many requests; slow down"))]
        started_s = time.thread_time()
        msg_id = None
        try:
            message = decode_request(body)
            msg_id = request_id(message)
            if self.refusing is not None:
                raise ProtocolError(*self.refusing[:2], **self.refusing[2])
            request = check_request(message)
            if self.storage_broken is not None and _writes(request):
                raise ProtocolError("storage_failed", "the host's data is damaged; it serves "
                                    "reads only until it is restarted")
            key = self._retry_key(request)
            out = self._recent.get(key) if key else None
            if out is None:
                out = self._handlers[request["type"]](request)
                if key is not None:
                    out = encode(out)
                    self._recent.put(key, out)
        except ProtocolError as exc:
            log.info("refused %s: %s", msg_id, exc)
            out = error(msg_id, exc.code, exc.message, **exc.fields)
        except sqlite3.Error as exc:  # a full or read-only data dir: _commit() recovers
            self._storage_failure = exc
            out = error(msg_id, "storage_failed", f"the host cannot write its data: {exc}")
        except Exception:  # the host never dies of one request
            log.exception("request %s failed", msg_id)
            out = error(msg_id, "internal", "the host failed on this request")
        body = out if isinstance(out, bytes) else encode(out)
        # An expensive answer costs its peer more of its rate (limits.REPLY_COST_BYTES, and
        # REQUEST_COST_S of the host's time).
        self._rate.charge(frames[0], len(body), time.thread_time() - started_s)
        return [*head, body]

    def _retry_key(self, request: dict[str, Any]) -> tuple[Any, ...] | None:
        """Where the reply to a create or join is remembered, so that a retry gets it again.

        Only who sent the request can ask again: with a ``nonce`` (unguessable, chosen by the
        client for that request) the key is the nonce, which a Lazy Pirate retry on a new
        connection sends again; without one, the key is the connection itself, so that no
        other connection, whatever routing id it claims, is ever given a token it did not ask
        for.
        """
        if request["type"] not in ("create", "join"):
            return None
        nonce = request.get("nonce")
        if nonce is not None:
            return (request["type"], request.get("table"), nonce)
        return (self._requests.serial(self._from_fd), request["type"], request.get("table"),
                request["id"])

    def _commit(self) -> bool:
        """Commit the batch. If the data dir refuses it (full, read-only), roll it back and
        reload every game from disk, so memory never runs ahead of what is durable. If what is
        on disk cannot be read back, the storage is broken: see :meth:`_check_storage`."""
        failure, self._storage_failure = self._storage_failure, None
        if failure is None:
            try:
                self.store.commit()
                return True
            except sqlite3.Error as exc:
                failure = exc
        log.error("cannot write %s (%s): the batch is refused and the games stay at their "
                  "last committed state", self.store.path, failure)
        self._outbox.clear()
        self._recent.clear()
        kept = (dict(self.tables), dict(self.sessions), dict(self._due))
        try:
            self.store.rollback()
            self.tables.clear()
            self.sessions.clear()
            self._due.clear()
            self._restore()
        except Exception as exc:  # the database itself is damaged
            self.tables, self.sessions, self._due = kept
            self._storage_broke(f"it cannot be read back ({exc})")
        else:
            self._recount(kept[0])
        return False

    def _recount(self, before: dict[str, Table]) -> None:
        """The quotas after a reload from disk: each table keeps its creator, and what the
        refused batch had added is gone."""
        for table in self.tables.values():
            old = before.get(table.id)
            table.owner = old.owner if old is not None and table.status != OVER else None
        self._tables_of = Counter(t.owner for t in self.tables.values() if t.owner is not None)
        self._session_owner = {h: a for h, a in self._session_owner.items() if h in self.sessions}
        self._sessions_of = Counter(self._session_owner.values())

    def _check_storage(self) -> None:
        """Before a batch: were the database's files deleted, replaced or written by someone
        else since the host's last commit? Then nothing more goes into them."""
        damage = self.store.damage()
        if damage is not None:
            self._storage_broke(damage)

    def _storage_broke(self, why: str) -> None:
        self.storage_broken = why
        self._due.clear()
        self._unstarted.clear()
        self.store.mark_damaged(why)
        log.error("the database %s is damaged: %s. The host refuses every change from now on "
                  "(storage_failed) and serves what it holds; stop it, then start it again (it "
                  "will say how to salvage the data)", self.store.path, why)

    def _close_idle(self, now_s: float) -> bool:
        """Expire the tables nobody joined or played for a while (Limits.open_idle_s,
        running_idle_s); True if any was."""
        idle = [t for t in self.tables.values()
                if (t.status == OPEN and now_s - t.active_s > self.limits.open_idle_s)
                or (t.status == RUNNING and now_s - t.active_s > self.limits.running_idle_s)]
        for table in idle:
            self.store.set_table(table.id, EXPIRED, table.seq)
            self._forget(table)
            log.info("table %s: nobody joined or played for a while; it is closed", table.id)
        return bool(idle)

    # -- quotas per address -----------------------------------------------------------------

    def _check_quota(self, kind: str) -> None:
        """Refuse a new table or session to an address that holds its share already."""
        address = self._from_address
        if kind == "tables":
            held, allowed = self._tables_of[address], self.limits.tables_per_address
        else:
            held, allowed = self._sessions_of[address], self.limits.sessions_per_address
        if held >= allowed:
            raise ProtocolError(f"too_many_{kind}", f"your address holds {held} {kind}, as "
                                "many as one address may")

    def _own_session(self, token_hash: str) -> None:
        self._session_owner[token_hash] = self._from_address
        self._sessions_of[self._from_address] += 1

    def _drop_session(self, token_hash: str) -> None:
        owner = self._session_owner.pop(token_hash, None)
        if owner is not None:
            self._sessions_of[owner] -= 1

    def _release_table(self, table: Table) -> None:
        """A table over or forgotten no longer counts against its creator's quota."""
        if table.owner is not None:
            self._tables_of[table.owner] -= 1
            table.owner = None

    def _heartbeats(self) -> None:
        """Beat on every quiet table; on every table when a standby came or went, so that
        players who joined before it know where to go (PROTOCOL.md, Failover)."""
        now_s = time.monotonic()
        standby = self._standby()
        everyone, self._told_standby = standby != self._told_standby, standby
        self._mark_away(now_s)
        for table in list(self.tables.values()):
            if table.over_s is not None and now_s - table.over_s > FINISHED_KEEP_S:
                self._forget(table)
            elif everyone or not table.published or table.presence_changed:
                # ``away``: a seat that went away or came back is told at the next beat.
                body = {"v": VERSION, "type": "heartbeat", "table": table.id, "seq": table.seq,
                        "version": table.state.version, "standby": standby,
                        "away": self._away(table)}
                self.pub.send_multipart((table.topic, encode(body)))
            table.published = table.presence_changed = False
        self._next_heartbeat_s = now_s + self.heartbeat_s

    def _forget(self, table: Table) -> None:
        """Drop a long finished (or expired) table from memory (its record stays in the
        store)."""
        del self.tables[table.id]
        self._due.pop(table.id, None)
        self._release_table(table)
        for token_hash in [*table.holders, *table.spectators]:
            if token_hash is not None:
                self.sessions.pop(token_hash, None)
                self._drop_session(token_hash)
        if table.status == OVER:
            log.info("table %s: finished a while ago; only its record is kept", table.id)

    # -- requests ---------------------------------------------------------------------------

    def _hello(self, request: dict[str, Any]) -> dict[str, Any]:
        return reply(
            "welcome",
            request["id"],
            version=VERSION,
            versions=list(SUPPORTED_VERSIONS),
            games=[_game_info(name) for name in game_names()],
            pub=self.pub_endpoint,
            pub_port=int(self.pub_endpoint.rsplit(":", 1)[1]),
            heartbeat_s=self.heartbeat_s,
            presence_s=self.presence_s,
            max_request_bytes=MAX_REQUEST_BYTES,
            standby=self._standby(),
        )

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
                "seats": self._seats(t), "spectators": len(t.spectators),
                "deadline_s": t.deadline_s, "turn_timer_s": t.turn_timer_s}

    def _create(self, request: dict[str, Any]) -> dict[str, Any]:
        if sum(t.status != OVER for t in self.tables.values()) >= self.limits.max_tables:
            raise ProtocolError("too_many_tables", "the host has no room for another table")
        self._check_quota("tables")
        game, config = _game_config(request["game"], request["config"])
        seats = game.seats(config)
        if any(seat >= seats for seat in request["bots"]):
            # The code join gives for a seat the table lacks: one code for one mistake.
            raise ProtocolError("bad_seat", f"bots must be seats of this table, 0..{seats - 1}")
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
        self.tables[table_id] = table
        table.owner = self._from_address
        self._tables_of[table.owner] += 1
        log.info("table %s: created, %s %s%s%s", table_id, game.name, config,
                 "" if deadline_s is None else f", bot deadline {deadline_s:g} s",
                 "" if turn_timer_s is None else f", turn timer {turn_timer_s:g} s")
        return reply("created", request["id"], table=table_id, game=game.name, config=config,
                     seats=seats, bots=row.bots, deadline_s=deadline_s,
                     turn_timer_s=turn_timer_s)

    def _join(self, request: dict[str, Any]) -> dict[str, Any]:
        table = self._table(request["table"])
        if request["token"] is not None:  # coming back with a saved token
            session = self._session(request["token"], table)
            return self._joined(request, table, session, request["token"])
        role = request["role"]
        if len(self.sessions) >= self.limits.max_sessions:
            raise ProtocolError("too_many_sessions", "the host has no room for another session")
        self._check_quota("sessions")
        if role == "spectator":
            if request["seat"] is not None:
                raise ProtocolError("bad_field", "a spectator takes no seat")
            if len(table.spectators) >= self.limits.max_spectators:
                raise ProtocolError("too_many_spectators", "this table has no room to watch")
            seat = None
        else:
            seat = self._free_seat(table, role, request["seat"])
        token = secrets.token_urlsafe(TOKEN_BYTES)
        name = request["name"] or role
        if seat is not None:
            name = self._unique_name(table, name)
        session = Session(hash_token(token), table.id, seat, role, name)
        self.sessions[session.token_hash] = session
        self._own_session(session.token_hash)
        table.active_s = time.monotonic()
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
                     role=session.role, token=token, standby=self._standby(),
                     snapshot=self._snapshot(table, session.seat))

    def _unique_name(self, table: Table, name: str) -> str:
        """``name``, numbered if a seat of ``table`` is called that already ("greedy",
        "greedy 2", ...): scores, logs, records and replays tell the seats apart by name."""
        held = {session.name for holder in table.holders if holder is not None
                and (session := self.sessions.get(holder)) is not None}
        number, unique = 1, name
        while unique in held:
            number += 1
            suffix = f" {number}"
            unique = name[: MAX_NAME_LEN - len(suffix)] + suffix
        return unique

    def _standby(self) -> str | None:
        """Where clients go if this host falls silent: the standby's request endpoint."""
        return self.link.standby if self.link is not None else None

    def _free_seat(self, table: Table, role: str, wanted: int | None) -> int:
        if wanted is not None:
            if wanted >= len(table.holders):
                raise ProtocolError("bad_seat", f"this table has seats 0..{len(table.holders) - 1}")
            if table.holders[wanted] is not None:
                raise ProtocolError("seat_taken", f"seat {wanted} is taken")
            if wanted in table.bots and role != "bot":
                # A person there would hold up the game: a player's seat has no clock.
                raise ProtocolError("bot_seat", f"seat {wanted} is kept for a bot")
            return wanted
        free = [seat for seat, holder in enumerate(table.holders) if holder is None]
        if role == "bot":
            # Bots fill the seats kept for bots first, then any free seat.
            preferred = [seat for seat in free if seat in table.bots] or free
        else:
            preferred = [seat for seat in free if seat not in table.bots]
        if not preferred:
            raise ProtocolError("table_full", f"no free seat for a {role} at this table")
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
            return self._cached_reply(table, session, msg_id)
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
        table.active_s = time.monotonic()
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
            table.over_s = time.monotonic()
            self._release_table(table)
        told = [{"type": "deadline_missed", "seat": seat}, *events] if missed else events
        self._publish(table, told, persist=False, private=state.private_seats(events))
        self.store.add_action(table.id, state.version - 1, seat, data, session, msg_id,
                              table.seq)
        if table.history is not None:
            table.history.append(_move(state.version, seat, events))
        if table.status == OVER:
            self.store.finish_table(table.id, table.seq, self._final_record(table))
            log.info("table %s: over, %s", table.id, state.result())
        self._arm(table)

    # -- deadlines for bot seats ------------------------------------------------------------

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
        holder = table.holders[seat]
        session = self.sessions.get(holder) if holder else None
        if seat in table.bots or (session is not None and session.role == "bot"):
            return table.deadline_s if table.deadline_s is not None else self.bot_fallback_s
        return table.turn_timer_s

    def _arm(self, table: Table) -> None:
        """Start (or keep, or stop) the clock of the table's pending decision.

        Called after every change of state, status or seat holder. The clock of a decision
        that is still the same one keeps running: a bot that rejoins does not get more time.
        """
        seat = self._timed_seat(table)
        if seat is None:
            table.timed = None
            self._due.pop(table.id, None)
            self._unstarted.discard(table.id)
            return
        pending = (table.state.version, seat)
        if table.timed != pending or not (table.id in self._due or table.id in self._unstarted):
            table.timed = pending
            self._due.pop(table.id, None)
            self._unstarted.add(table.id)  # started by _start_clocks, once the seat is told

    def _start_clocks(self) -> None:
        """Start the clocks armed since the last look: the updates that tell the seats of their
        turns have just been sent (or, after a restart, nothing was ever said)."""
        now_s = time.monotonic()
        for table_id in self._unstarted:
            # (_arm takes a table out of _unstarted once its decision is off the clock.)
            table = self.tables.get(table_id)
            seat = self._timed_seat(table) if table is not None else None
            if table is None or seat is None:
                continue
            clock_s = self._clock_s(table, seat)
            assert clock_s is not None
            grace_s = 0.0 if seat in table.stand_ins else DEADLINE_GRACE_S
            self._due[table_id] = now_s + clock_s + grace_s
        self._unstarted.clear()

    def _expire(self) -> bool:
        """Play the default move (or a stand-in's) for the seats past their clocks, oldest due
        first, for at most a batch's budget; True if any was played.

        The default is the game's ``default_action()``: deterministic, so a replay of the record
        and a restarted host agree on it. It is stored like any accepted action, with the
        session :data:`HOST_DEFAULT_SESSION` and the version as its message id.
        """
        now_s = time.monotonic()
        end_s = now_s + BATCH_BUDGET_S
        played = False
        for table_id in sorted((t for t, due_s in self._due.items() if due_s <= now_s),
                               key=self._due.__getitem__):
            if played and time.monotonic() > end_s:
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
                self._accept(table, seat, data, events, HOST_DEFAULT_SESSION, version,
                             missed=True)
                played = True
                log.warning("table %s: seat %d missed its %g s deadline at version %d; the host "
                            "played %s for it", table.id, seat, self._clock_s(table, seat),
                            version, data)
            except sqlite3.Error as exc:  # _commit() rolls back and reloads
                self._storage_failure = exc
                return True
            except Exception:  # the host never dies of one table
                log.exception("table %s: the default move failed; its clock is stopped", table_id)
                self._due.pop(table_id, None)
        return played

    def _cached_reply(self, table: Table, session: Session, msg_id: int) -> bytes:
        """The reply to an act accepted before: from the session's newest replies, or rebuilt
        for the table's newest move (a retry after a restart). An older one is answered
        ``already_accepted``: rebuilding it means replaying the game from disk, which a
        player re-sending its old acts would make the host do again and again."""
        body = session.replies.get(msg_id)
        if body is None:
            found = self.store.accepted_action(table.id, session.token_hash, msg_id)
            assert found is not None, "accepted message ids are always stored"
            version, seq = found
            if version + 1 != table.state.version:
                raise ProtocolError("already_accepted", f"message {msg_id} was accepted at "
                                    f"version {version}; the game has moved on since",
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
        del self.sessions[session.token_hash]
        self._drop_session(session.token_hash)
        self.store.drop_session(session.token_hash)
        if session.seat is None:
            table.spectators.discard(session.token_hash)
        else:
            table.holders[session.seat] = None
            self._publish(table, [{"type": "seat_left", "seat": session.seat}])
            self._arm(table)
        return reply("left", request["id"], table=table.id, seat=session.seat)

    def _record(self, request: dict[str, Any]) -> dict[str, Any]:
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
        state = get_game(table.game_name).new_state(table.config, table.seed)
        for data in self.store.actions(table.id):
            yield state, data["seat"], state.apply(state.parse_action(without_seat(data)))

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
                      over_s=time.monotonic(), deadline_s=row.deadline_s)
        self._add_sessions(table, row.sessions)
        table.turn_timer_s = row.turn_timer_s
        self.tables[table.id] = table
        return table

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
        session.seen_s = time.monotonic()
        if not session.away:
            return
        session.away = False
        table.presence_changed = True
        if session.seat in table.stand_ins:
            table.stand_ins.discard(session.seat)
            self._publish(table, [{"type": "stand_in_left", "seat": session.seat}])
            self._arm(table)
            log.info("table %s: seat %d is back; its stand-in leaves", table.id, session.seat)

    def _mark_away(self, now_s: float) -> None:
        """Every player seat whose token said nothing for ``away_s`` is away from now on."""
        for table in self.tables.values():
            if table.status == OVER:
                continue
            for holder in table.holders:
                session = self.sessions.get(holder) if holder else None
                if (session is not None and session.role == "player" and not session.away
                        and now_s - session.seen_s > self.away_s):
                    session.away = True
                    table.presence_changed = True

    def _away(self, table: Table) -> list[int]:
        """The seats of ``table`` whose players are away."""
        away = []
        for seat, holder in enumerate(table.holders):
            session = self.sessions.get(holder) if holder else None
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
        """A player at the table asks the host to play an away player's seat (with the
        STAND_IN_STRATEGY bot) until that player's token comes back."""
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
        holder = table.holders[seat]
        absent = self.sessions.get(holder) if holder else None
        if absent is None or absent.role != "player" or not absent.away:
            raise ProtocolError("not_away", f"seat {seat} is not an away player's")
        if seat not in table.stand_ins:
            table.stand_ins.add(seat)
            self._publish(table, [{"type": "stand_in", "seat": seat, "by": session.seat}])
            self._arm(table)
            log.info("table %s: seat %d asked for a stand-in for away seat %d", table.id,
                     session.seat, seat)
        return reply("stand_in", request["id"], table=table.id, seat=seat)

    def _seats(self, table: Table) -> list[dict[str, Any]]:
        seats = []
        for seat, holder in enumerate(table.holders):
            session = self.sessions.get(holder) if holder else None
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
                "turn": table.turn, "seats": self._seats(table), "you": seat,
                "view": state.view(seat, shared=True),  # encoded at once
                "private": None if seat is None else state.private(seat),
                "deadline_s": table.deadline_s, "turn_timer_s": table.turn_timer_s}

    def _final_record(self, table: Table) -> dict[str, Any]:
        """The record stored when a game ends: the game's own, with the names at its seats."""
        names = []
        for seat, holder in enumerate(table.holders):
            session = self.sessions.get(holder) if holder else None
            names.append(session.name if session else f"seat {seat + 1}")
        return {**table.state.to_record(), "names": names}

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
                  "events": events, "seats": self._seats(table), "private": list(private),
                  "view": table.state.view(None, shared=True)}
        self._outbox.append((table.topic, encode(update)))
        if persist:
            self.store.set_table(table.id, table.status, table.seq)
        if log.isEnabledFor(logging.INFO):
            for event in events:
                log.info("table %s #%d v%d: %s", table.id, table.seq, table.state.version,
                         " ".join(f"{k}={v}" for k, v in event.items()))

    def _remember(self, session: Session, msg_id: int, body: bytes) -> None:
        session.replies[msg_id] = body
        if len(session.replies) > REPLY_CACHE_SIZE:
            session.replies.popitem(last=False)

    def _table_from_row(self, row: TableRow, game: Game) -> Table:
        state = game.new_state(row.config, row.seed)
        seats = game.seats(row.config)
        return Table(row.id, row.game, row.config, row.seed, row.bots, state, row.status,
                     row.seq, row.created_s, [None] * seats, deadline_s=row.deadline_s,
                     turn_timer_s=row.turn_timer_s)

    def _add_sessions(self, table: Table, rows: list[SessionRow]) -> None:
        for s in rows:
            self.sessions[s.token_hash] = Session(s.token_hash, s.table_id, s.seat, s.role,
                                                  s.name, s.accepted)
            if s.seat is None:
                table.spectators.add(s.token_hash)
            else:
                table.holders[s.seat] = s.token_hash

    def _restore(self) -> None:
        """Bring back every unfinished table from the store, at its version and sequence."""
        for row in self.store.unfinished():
            table = self._table_from_row(row, get_game(row.game))
            for data in row.actions:
                assert table.state.current_seat == data["seat"], (row.id, table.state.version)
                table.state.apply(table.state.parse_action(without_seat(data)))
            self._add_sessions(table, row.sessions)
            self.tables[row.id] = table
            # A pending bot decision's clock starts again from the restart: the bot may not
            # even have heard of its turn before the host went down.
            self._arm(table)
            log.info("table %s: resumed at version %d, seq %d", row.id, table.state.version,
                     table.seq)


def _storage_error(body: bytes) -> bytes:
    """The error that replaces a reply whose batch could not be committed."""
    msg_id = request_id(decode_message(body))
    return encode(error(msg_id, "storage_failed",
                        "the host cannot write its data dir; nothing was changed"))


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


def _game_info(name: str) -> dict[str, Any]:
    """A game as ``welcome`` lists it: its name, title and table options."""
    game = get_game(name)
    return {"name": game.name, "title": game.title,
            "options": [option.to_data() for option in game.options]}


def _listing_order(table: Table) -> tuple[float, str]:
    return table.created_s, table.id


def _page_start(after: str | None) -> tuple[float, str] | None:
    """Where a `tables` page starts: after the table of ``after`` (a ``next`` of an earlier
    page: its creation time and id), whether or not that table is still there."""
    if after is None:
        return None
    created_s, _, table_id = after.partition(" ")
    try:
        return float(created_s), table_id
    except ValueError:
        raise ProtocolError("bad_field", "after must be the next of a tables reply") from None


def _summary(value: list[Any] | dict[str, Any]) -> dict[str, Any]:
    """A list or map as ``tables`` shows it: how many elements, and the first 16 hex digits of
    the SHA-256 of its JSON text (keys sorted, no spaces, UTF-8) to tell two apart."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return {"count": len(value), "digest": hashlib.sha256(text.encode()).hexdigest()[:16]}


def _writes(request: dict[str, Any]) -> bool:
    return request["type"] in WRITES and not (request["type"] == "join" and request["token"])


def _bind(sock: zmq.Socket, address: str, port: int) -> str:
    endpoint = f"tcp://{address}:{port or '*'}"
    if not 0 <= port <= 65535:
        raise BindError(f"cannot listen on {endpoint}: a port is 0..65535")
    try:
        sock.bind(endpoint)
    except zmq.ZMQError as exc:
        raise BindError(f"cannot listen on {endpoint}: {exc.strerror}", exc.errno) from None
    return sock.getsockopt_string(zmq.LAST_ENDPOINT)
