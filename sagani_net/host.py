"""The headless host: authoritative games behind a ZeroMQ ROUTER, broadcast on a PUB.

One socket loop (:meth:`Host.step`) reads a batch of requests, handles each, commits the store
(and waits for a following standby to have written it too), then publishes the batch's updates
and sends its replies; nothing is heard before it is on disk.
This module is the transport: the sockets, the wire (frames, envelopes, rates, retries) and
the loop. What the requests do is :mod:`sagani_net.tables` (which never touches a socket),
the per-address quotas :mod:`sagani_net.quotas`, what a failing data dir makes the host do
:mod:`sagani_net.recovery`. The host knows games only through :mod:`sagani_net.game`; the wire
format is :mod:`sagani_net.protocol`.

>>> host = Host(Store(tmp), port=0)      # doctest: +SKIP
>>> host.serve()                         # doctest: +SKIP
"""

from __future__ import annotations

import hashlib
import logging
import math
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol, cast

import zmq

from sagani_net import limits as caps
from sagani_net.caches import BoundedCache
from sagani_net.games import about, game_names
from sagani_net.limits import RateLimiter
from sagani_net.peers import ConnectionGuard, close_guarded
from sagani_net.protocol import (
    ProtocolError,
    check_request,
    decode_message,
    decode_request,
    encode,
    error,
    reply,
    request_id,
)
from sagani_net.protocol.errors import logged
from sagani_net.protocol.messages import (
    BOT_FALLBACK_S,
    DEADLINE_GRACE_S,
    MAX_DEADLINE_S,
    MIN_DEADLINE_S,
)
from sagani_net.protocol.wire import (
    DEFAULT_PORT,
    MAX_PORT,
    MAX_REQUEST_BYTES,
    SUPPORTED_VERSIONS,
    VERSION,
)
from sagani_net.quotas import Limits
from sagani_net.recovery import Recovery
from sagani_net.store import StorageDamaged, Store
from sagani_net.tables import (
    BATCH_BUDGET_S,
    HEARTBEAT_S,
    HOST_DEFAULT_SESSION,
    HOST_STAND_IN_SESSION,
    LEGAL_PAGE_ACTIONS,
    REPLY_CACHE_SIZE,
    STAND_IN_STRATEGY,
    Session,
    Table,
    Tables,
    hash_token,
)

# What the host's users import from here, whichever module of the host defines it.
__all__ = [
    "BOT_FALLBACK_S", "DEADLINE_GRACE_S", "DEFAULT_PORT", "HEARTBEAT_S", "HOST_DEFAULT_SESSION",
    "HOST_STAND_IN_SESSION", "LEGAL_PAGE_ACTIONS", "POLL_MS", "REPLY_CACHE_SIZE",
    "STAND_IN_STRATEGY", "BindError", "Host", "Limits", "Link", "Session", "Table", "hash_token",
]


class Link(Protocol):
    """The replication link to a standby host (:class:`sagani_net.standby.ActiveLink` is the
    one there is): the host's loop drives it, and it never calls back into the host."""

    #: The standby's request endpoint, for clients to go to if this host falls silent.
    standby: str | None

    def tick(self) -> None: ...

    def due_s(self) -> float: ...

    def send(self) -> None: ...

    def wait(self) -> None: ...

    def rolled_back(self) -> None: ...

    def close(self) -> None: ...


log = logging.getLogger("sagani_net.host")  # its filters: sagani_net.tables


#: Longest wait in one poll, so that stop() is noticed promptly.
POLL_MS = 100
#: For this long after one of its requests took more than a batch's budget, an address's
#: requests only ever start a batch, so that they hold up nobody's act but their own; the
#: addresses so marked at once are bounded.
SLOW_S = 1.0
MAX_SLOW_ADDRESSES = 4096
#: Create and join replies remembered for retries (in memory only), and their bytes in all
#: (a joined reply holds a snapshot: tens of KiB for a big table).
RECENT_SIZE = 4096
RECENT_BYTES = 32 * 1024 * 1024
#: Largest frame a subscriber may send the broadcast socket: a subscription to the longest
#: topic a table may have (``table.``, 32 characters, a dot) and a few bytes to spare; in
#: secure mode, CURVE's handshake commands (about 300 bytes), which libzmq holds to it too.
SUBSCRIPTION_BYTES = 64
CURVE_SUBSCRIPTION_BYTES = 512
#: The kernel's receive buffer for each subscriber's connection.
SUBSCRIBER_RCVBUF_BYTES = 4096
#: Where a request came from when libzmq gives no connection for it: a peer of ZMTP 1.0 or 2.0
#: sends messages with no properties, so neither its descriptor nor its address. The host's
#: sockets refuse such peers at the greeting; this is for one that got past it all the same.
NO_CONNECTION = -1


#: Requests that change what is stored; refused with ``storage_failed`` once the data dir is
#: known to be damaged (a join with a token only comes back to a seat, and is served).
WRITES = frozenset(("create", "join", "act", "leave", "stand_in"))


class BindError(zmq.ZMQError):
    """The host cannot listen where it was asked (port in use, no such address); the message
    is one line a front end can print. A ZMQError, so callers that caught libzmq's still do."""

    def __init__(self, message: str, errno: int | None = None) -> None:
        super().__init__(errno, message)



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
        context: zmq.Context[zmq.Socket[bytes]] | None = None,
        secure: Callable[[zmq.Socket[bytes]], None] | None = None,
        bot_deadline_s: float | None = None,
        bot_fallback_s: float | None = BOT_FALLBACK_S,
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
        self.limits = limits or Limits()
        #: Whether the last batch ended with requests still waiting (a bot's act among them,
        #: maybe): no deadline is enforced before they are read.
        self._behind = False
        #: A request read and held back for the next batch (its frames, connection, address),
        #: and the addresses whose requests only start batches, until when (see SLOW_S).
        self._carried: tuple[list[bytes], int, str] | None = None
        self._slow: dict[str, float] = {}
        #: Until when a flood from each address was told of (_say_flooding).
        self._flood_said: BoundedCache[str, float] = BoundedCache(MAX_SLOW_ADDRESSES)
        # Replies to creates and joins by (type, table, id): a retried join gets the same seat.
        self._recent: BoundedCache[tuple[Any, ...], bytes] = BoundedCache(
            RECENT_SIZE, RECENT_BYTES, weight=len)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        #: The connection (file descriptor) and address of the request being handled.
        self._from_fd = -1
        self._from_address = ""
        #: Whether this batch's first stored action went to the standby already (_stored).
        self._sent_early = False
        #: The replication link to a standby host (sagani_net.standby), if this host has one.
        self.link: Link | None = None
        try:
            #: The tables and what the requests do to them, on the host's clock.
            self.room = Tables(
                store, clock=time.monotonic, limits=self.limits, heartbeat_s=heartbeat_s,
                bot_deadline_s=bot_deadline_s, bot_fallback_s=bot_fallback_s,
                turn_timer_s=turn_timer_s, client_seeds=client_seeds, standby=self._standby,
                stored=self._stored)
        except Exception as exc:  # what is on disk does not make a game
            raise StorageDamaged(f"the games in {store.path} cannot be read back ({exc!r}); start "
                                 "the host with --salvage to keep what is readable") from exc
        self.recovery = Recovery(store, self.room)
        ctx = context or zmq.Context.instance()
        self.router = ctx.socket(zmq.ROUTER)
        # A PUB whose subscriptions the host applies itself (XPUB_MANUAL), once the guard has
        # counted what each connection holds (ConnectionGuard.take_subscriptions).
        self.pub = ctx.socket(zmq.XPUB)
        self.pub.setsockopt(zmq.XPUB_MANUAL, 1)
        for sock in (self.router, self.pub):
            sock.linger = 0
            sock.sndhwm = self.limits.sndhwm
            sock.rcvhwm = self.limits.rcvhwm
            if secure is not None:  # issue 6: CURVE server keys go here
                secure(sock)
            else:
                # libzmq refuses ZMTP 1.0 and 2.0 peers at the greeting only where ZAP may be
                # asked (CURVE, or a ZAP domain; with no ZAP handler in the process a NULL
                # peer gets in unasked). Their messages carry no properties, so no connection
                # to count them against: 16 ZMTP 1.0 subscribers of 110 KB each made the host
                # 430-550 MiB bigger (the subscriptions cap counts a connection's), and a request
                # of 12 bytes stopped it (a request's descriptor could not be read).
                sock.zap_domain = b"sagani"
        if pub_port is None:
            pub_port = port + 1 if port else 0
        # A peer's oversized frame is cut off by libzmq before it is buffered; a new
        # connection with a known routing id (a client's Lazy Pirate retry) takes it over.
        self.router.maxmsgsize = self.limits.max_frame_bytes
        self.pub.maxmsgsize = SUBSCRIPTION_BYTES if secure is None else CURVE_SUBSCRIPTION_BYTES
        # libzmq adds to a trie of its own every subscription it has read when it looks, and
        # reads all the kernel holds: let both hold few (a subscriber sends little).
        self.pub.rcvhwm = caps.MAX_SUBSCRIPTIONS
        self.pub.rcvbuf = SUBSCRIBER_RCVBUF_BYTES
        self.pub.sndhwm = self.limits.pub_sndhwm  # before the bind: a pipe takes it when made
        self.router.router_handover = 1
        self._rate = RateLimiter(self.limits.rate_per_s, self.limits.rate_burst)
        # One poller for the loop's every wait (Socket.poll makes and fills one each time).
        self._poller = zmq.Poller()
        self._poller.register(self.router, zmq.POLLIN)
        # What libzmq would hold for a peer without bound (a message whose last frame never
        # comes, replies nobody reads) is measured per connection (sagani_net.peers).
        self._requests = ConnectionGuard(
            self.router, "requests", max_unread_bytes=self.limits.max_unread_bytes,
            max_unread_reply_bytes=self.limits.max_unread_reply_bytes,
            max_per_address=self.limits.connections_per_address,
            curve=secure is not None)
        self._subscribers = ConnectionGuard(
            self.pub, "broadcasts", max_total_bytes=caps.MAX_SUBSCRIBER_BYTES,
            max_subscriptions=caps.MAX_SUBSCRIPTIONS,
            max_per_address=self.limits.connections_per_address)
        try:
            self.endpoint = _bind(self.router, bind, port)
            self.pub_endpoint = _bind(self.pub, bind, pub_port)
        except BindError:
            self._close_sockets()
            raise
        # What welcome lists is loaded now, not on the first hello: that one would pay (in its
        # peer's rate, which counts the host's CPU) for importing every game's about.py.
        for name in game_names():
            about(name)
        self._next_heartbeat_s = time.monotonic() + heartbeat_s
        #: The standby the last heartbeats named.
        self._told_standby: str | None = None
        #: While set (code, message, fields), every request is refused with that error: a
        #: standby that still hears its active host (sagani_net.standby).
        self.refusing: tuple[str, str, dict[str, Any]] | None = None
        self._next_guard_s = 0.0
        log.info("host on %s, broadcasts on %s, data in %s", self.endpoint, self.pub_endpoint,
                 store.path)

    # -- what the tables hold, for those who look (tests, the standby) ----------------------

    @property
    def tables(self) -> dict[str, Table]:
        return self.room.tables

    @property
    def sessions(self) -> dict[str, Session]:
        return self.room.sessions

    @property
    def heartbeat_s(self) -> float:
        """The heartbeat period (a standby takes its active host's)."""
        return self.room.heartbeat_s

    @heartbeat_s.setter
    def heartbeat_s(self, value: float) -> None:
        self.room.heartbeat_s = float(value)  # as in Tables: welcome's is a float

    @property
    def presence_s(self) -> float:
        return self.room.presence_s

    @property
    def storage_broken(self) -> str | None:
        """Why the data dir can no longer be trusted (:class:`sagani_net.recovery.Recovery`)."""
        return self.recovery.broken

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

    def reload(self, away: dict[str, list[int]] | None = None) -> None:
        """Forget the games in memory and bring them back from the store: a standby taking
        over, whose store the active host filled; ``away``: the seats away there, as its
        active host last said (:meth:`Tables.keep_away`)."""
        self._recent.clear()
        self.room.reload(takeover=True)
        self.room.keep_away(away or {})

    def _close_sockets(self) -> None:
        close_guarded((self._requests, self._subscribers))

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
        if self.link is not None:
            self.link.tick()
        # The next thing the loop must do unasked: a heartbeat, a bot's move deadline, a look
        # at what each connection holds, or the link's next beat (at once when a seat went
        # away or came back in the last turn: its tick is at the start of the next).
        due_s = self.room.next_due_s()
        wake_s = min(self._next_heartbeat_s, self._next_guard_s,
                     self._next_heartbeat_s if due_s is None else due_s,
                     math.inf if self.link is None else self.link.due_s())
        # Rounded up: a wait under a millisecond rounded down to 0 would spin the loop until
        # the moment came, a whole core's worth of empty polls.
        wait_ms = max(0, min(timeout_ms, math.ceil((wake_s - time.monotonic()) * 1000)))
        if self._carried is not None:
            wait_ms = 0  # a request is waiting already
        replies: list[tuple[int, list[bytes]]] = []
        ready = bool(self._poller.poll(wait_ms))
        now_s = time.monotonic()
        if self.recovery.broken is None and (ready or due_s is not None
                                             or now_s >= self._next_heartbeat_s):
            self.recovery.check()  # before anything is written in this step
        self._behind = False
        self._sent_early = False
        if ready or self._carried is not None:
            started_s = time.monotonic()
            replies = self._intake()
            # A request that held the host past a batch's budget held every bot's act up too:
            # the clocks stand still for that long (a bot's time is its own, not a peer's).
            overrun_s = time.monotonic() - started_s - BATCH_BUDGET_S
            if overrun_s > 0:
                self.room.delay_clocks(overrun_s)
        changed = False
        if self.recovery.broken is None:
            changed = self.room.expire() if self.room.timing and not self._behind else False
            if now_s >= self._next_heartbeat_s:
                changed = self.room.close_idle(now_s) or changed
        if replies or changed:
            if self.link is not None and self.room.storage_failure is None:
                self.link.send()  # the rest of the batch, written there while this host commits
            updates = self.room.updates()  # encoded while the standby writes, too
            # The rule: committed before anyone hears of it.
            if not self._commit():
                updates = []  # of a batch that never happened
                replies = [(fd, [*frames[:-1], _storage_error(frames[-1])])
                           for fd, frames in replies]
            elif self.link is not None:
                self.link.wait()  # on the standby's disk too before anyone hears of it
            # Broadcasts first: the act-to-everyone-updated latency is what players feel. To
            # every subscription sent so far, as a PUB would (it applies them as it sends).
            self._subscribers.take_subscriptions()
            for topic, body in updates:
                _send(self.pub, (topic, body))
            for fd, frames in replies:
                self._send_reply(fd, frames)
        self.room.start_clocks()
        if now_s >= self._next_heartbeat_s or self._standby() != self._told_standby:
            self._heartbeats()
        self.guard(now_s)
        return len(replies)

    def _intake(self) -> list[tuple[int, list[bytes]]]:
        """Read and handle one batch of waiting requests; their replies, by connection."""
        replies: list[tuple[int, list[bytes]]] = []
        router = self.router
        self._requests.events()  # a descriptor number may be a new connection's by now
        # A client subscribes before it asks for a snapshot (the Clone pattern): what it
        # subscribed to by then hears the updates its request makes.
        self._subscribers.take_subscriptions()
        end_s = time.monotonic() + BATCH_BUDGET_S
        for _ in range(self.limits.max_batch):
            if self._carried is not None:  # held back from the last batch: first in this one
                frames, self._from_fd, self._from_address = self._carried
                self._carried = None
            else:
                # Asking first is cheaper than the exception a receive on an empty queue raises.
                if not cast(int, router.get(_EVENTS)) & _POLLIN:
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
            self._behind = bool(cast(int, router.get(_EVENTS)) & _POLLIN)  # a full batch
        return replies

    def _say_flooding(self, address: str) -> None:
        """Only the flooding client heard of its flood (rate_limited): the operator hears of it
        too, once a log window per address, not once a refused request."""
        now_s = time.monotonic()
        if (self._flood_said.get(address) or 0.0) > now_s:
            return
        self._flood_said.put(address, now_s + caps.LOG_WINDOW_S)
        log.warning("a client at %s sends requests faster than a connection may (%g a second, "
                    "%d at once): its requests are refused as rate_limited", address or "?",
                    self.limits.rate_per_s, self.limits.rate_burst)

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
        try:
            self._from_fd = first.get(zmq.SRCFD)
        except zmq.ZMQError:  # an old ZMTP's peer: its request is refused (_handle)
            self._from_fd = NO_CONNECTION
        try:
            self._from_address = cast(str, first.get("Peer-Address"))
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
        _send(self.router, frames)

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
            self._say_flooding(self._from_address)
            return [*head, encode(error(None, "rate_limited", "too many requests; slow down"))]
        if self._from_fd == NO_CONNECTION:
            # Nothing it sends can be counted against its connection or its address (quotas,
            # retries, the unread-bytes watch): the protocol is ZMTP 3.0 or 3.1 (section 1).
            return [*head, encode(error(None, "bad_frame", "this connection speaks a ZMTP "
                                        "older than 3.0; the host speaks 3.0 and 3.1"))]
        started_s = time.thread_time()
        msg_id = None
        message: dict[str, Any] = {}
        try:
            message = decode_request(body)
            msg_id = request_id(message)
            if self.refusing is not None:
                raise ProtocolError(*self.refusing[:2], **self.refusing[2])
            request = check_request(message)
            if self.recovery.broken is not None and _writes(request):
                raise ProtocolError("storage_failed", "the host's data is damaged; it serves "
                                    "reads only until it is restarted")
            key = self._retry_key(request, body)
            out: dict[str, Any] | bytes | None = self._recent.get(key) if key else None
            if out is None:
                if request["type"] == "hello":  # the transport's own: where, how, how big
                    out = self._hello(request)
                else:
                    out = self.room.handle(request, self._from_address)
                if key is not None:
                    out = out if isinstance(out, bytes) else encode(out)
                    self._recent.put(key, out)
        except ProtocolError as exc:
            # Not a refused act's sentence: it is for its seat alone (logged says why). A
            # standby sends every client on to the active host as the protocol asks: no news
            # (a standby's screen had a line every few seconds of each client that knew it).
            if exc.code != "not_active":
                log.info("refused %s: %s", _refused(message, self._from_address),
                         logged(exc.code, exc.message, exc.fields.get("rule")))
            out = error(msg_id, exc.code, exc.message, **exc.fields)
        except sqlite3.Error as exc:  # a full or read-only data dir: _commit() recovers
            self.room.storage_failure = exc
            out = error(msg_id, "storage_failed", f"the host cannot write its data: {exc}")
        except Exception:  # the host never dies of one request
            log.exception("request %s failed", msg_id)
            out = error(msg_id, "internal", "the host failed on this request")
        body = out if isinstance(out, bytes) else encode(out)
        # An expensive answer costs its peer more of its rate (limits.REPLY_COST_BYTES, and
        # REQUEST_COST_S of the host's time).
        self._rate.charge(frames[0], len(body), time.thread_time() - started_s)
        return [*head, body]

    def _retry_key(self, request: dict[str, Any], body: bytes) -> tuple[Any, ...] | None:
        """Where the reply to a create or join is remembered, so that a retry gets it again.

        Only who sent the request can ask again: with a ``nonce`` (unguessable, chosen by the
        client for that request) the key is the nonce, which a Lazy Pirate retry on a new
        connection sends again; without one, the key is the connection itself, so that no
        other connection, whatever routing id it claims, is ever given a token it did not ask
        for, with the request's bytes, which a retry sends again (a client that uses an id
        twice, for two requests, gets each one's answer, not the first one's table or seat).
        """
        if request["type"] not in ("create", "join"):
            return None
        nonce = request.get("nonce")
        if nonce is not None:
            return (request["type"], request.get("table"), nonce)
        return (self._requests.serial(self._from_fd),
                hashlib.blake2b(body, digest_size=16).digest())

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
            presence_s=self.room.presence_s,
            max_request_bytes=MAX_REQUEST_BYTES,
            standby=self._standby(),
        )

    def _stored(self) -> None:
        """An action is stored (:attr:`Tables.stored`): the batch's first goes to the standby
        at once, which writes it while this host makes its update and handles the rest of the
        batch (sent at the batch's end: one more message a batch, at most)."""
        if self.link is not None and not self._sent_early and self.room.storage_failure is None:
            self._sent_early = True
            self.link.send()

    def _commit(self) -> bool:
        """Commit the batch (:meth:`sagani_net.recovery.Recovery.commit`); a refused one takes
        the retry cache's replies with it (they name what was rolled back)."""
        if self.recovery.commit():
            return True
        self._recent.clear()
        if self.link is not None:
            self.link.rolled_back()
        return False

    def _heartbeats(self) -> None:
        """Send the beats the tables ask for; on every table when a standby came or went."""
        now_s = time.monotonic()
        standby = self._standby()
        everyone, self._told_standby = standby != self._told_standby, standby
        self._subscribers.take_subscriptions()
        for topic, body in self.room.beats(standby, everyone):
            _send(self.pub, (topic, body))
        self._next_heartbeat_s = now_s + self.heartbeat_s

    def _standby(self) -> str | None:
        """Where clients go if this host falls silent: the standby's request endpoint."""
        return self.link.standby if self.link is not None else None


#: pyzmq's flags and options as plain ints: its enums make an enum object of every | and &
#: (send_multipart ORs SNDMORE into each frame's flags), a few microseconds a message.
_EVENTS, _POLLIN, _SNDMORE = int(zmq.EVENTS), int(zmq.POLLIN), int(zmq.SNDMORE)


def _send(sock: zmq.Socket[bytes], frames: list[bytes] | tuple[bytes, ...]) -> None:
    """``sock.send_multipart(frames)``, with int flags (see _SNDMORE)."""
    last = len(frames) - 1
    for n, frame in enumerate(frames):
        sock.send(frame, _SNDMORE if n < last else 0)


def _storage_error(body: bytes) -> bytes:
    """The error that replaces a reply whose batch could not be committed."""
    msg_id = request_id(decode_message(body))
    return encode(error(msg_id, "storage_failed",
                        "the host cannot write its data dir; nothing was changed"))


def _game_info(name: str) -> dict[str, Any]:
    """A game as ``welcome`` lists it: its name, title and table options (its ``about``: the
    first hello need not wait for every engine to be imported)."""
    game = about(name)
    return {"name": game.name, "title": game.title,
            "options": [option.to_data() for option in game.options]}


def _refused(message: dict[str, Any], address: str) -> str:
    """What a refused request was, for the host's line: it named the request by its client
    message id alone ("refused 5"), which tells an operator nothing. Its type and table only
    when they are short words (anyone may send anything), and where it came from."""
    kind, table = message.get("type"), message.get("table")
    said = kind if isinstance(kind, str) and kind.isidentifier() and len(kind) <= 24 else "request"
    if isinstance(table, str) and table.isalnum() and len(table) <= 16:
        said += f" of table {table}"
    return f"{said} from {address or 'an unknown address'}"


def _writes(request: dict[str, Any]) -> bool:
    return request["type"] in WRITES and not (request["type"] == "join" and request["token"])


def _bind(sock: zmq.Socket[bytes], address: str, port: int) -> str:
    endpoint = f"tcp://{address}:{port or '*'}"
    if not 0 <= port <= MAX_PORT:
        raise BindError(f"cannot listen on {endpoint}: a port is 0..{MAX_PORT}")
    try:
        sock.bind(endpoint)
    except zmq.ZMQError as exc:
        raise BindError(f"cannot listen on {endpoint}: {exc.strerror}", exc.errno) from None
    return sock.getsockopt_string(zmq.LAST_ENDPOINT)
