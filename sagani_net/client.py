"""The client library: what the console and the bots use to talk to a host.

Requests are Lazy Pirate (a timeout per try, then close and reopen the REQ socket and send the
same message again, a bounded number of times; the host answers a repeated id from its cache).
State follows the Clone pattern: subscribe to the table's topic first, take a snapshot with its
sequence number, drop updates at or below it, and resync on a gap or after heartbeat silence.
A seat's private data never comes on the broadcast: an update that names the seat makes the
client ask for it (the ``private`` request) before it hands the update out.

:class:`AsyncClient` is the core (asyncio, ``zmq.asyncio``); :class:`Client` is the same API for
code without an event loop.

>>> client = Client("tcp://127.0.0.1:47410")          # doctest: +SKIP
>>> table = client.create({"players": 2})              # doctest: +SKIP
>>> replica = client.join(table, name="ann")           # doctest: +SKIP
>>> if client.my_turn: client.act({"type": "take", "index": 0})   # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

import zmq
import zmq.asyncio

from sagani_net.protocol import DEFAULT_PORT, VERSION, decode_message, encode, topic
from sagani_net.protocol.messages import (
    NOT_ACTIVE_PAUSE_SHARE,
    REQUEST_TIMEOUT_S,
    SILENCE_HEARTBEATS,
    try_s,
)
from sagani_net.security import client_setup, parse_address

#: Tries after the first before a request gives up.
REQUEST_RETRIES = 3
#: How long act() waits for the broadcast of its own action before it asks for a snapshot.
CATCH_UP_S = 0.5
#: Random bytes of the nonce that names a create or join and its retries (PROTOCOL.md).
NONCE_BYTES = 16
#: The refusals that ask for a wait, not a give-up (PROTOCOL.md, section 2): the same bytes
#: are sent again after WAIT_FIRST_S, doubling to WAIT_MOST_S, at most WAITS times a request.
WAIT_CODES = frozenset({"rate_limited", "storage_failed"})
WAIT_FIRST_S = 0.2
WAIT_MOST_S = 1.0
WAITS = 10

T = TypeVar("T")


def host_address(typed: str | None) -> str:
    """What a user types for a host (``host``, ``host:port``, ``tcp://host[:port]``, nothing
    for this machine) as the address a client takes; a join code (``sagani://...``, secure
    mode) passes as it is.

    >>> host_address("192.0.2.20")
    'tcp://192.0.2.20:47410'
    """
    typed = typed or "127.0.0.1"
    if "://" in typed and not typed.startswith("tcp://"):
        return typed
    bare = typed.removeprefix("tcp://")
    if ":" not in bare:
        bare = f"{bare}:{DEFAULT_PORT}"
    return f"tcp://{bare}"


class HostError(Exception):
    """The host refused a request: its ``code`` (protocol/errors.py), ``message`` and reply."""

    def __init__(self, reply: dict[str, Any]) -> None:
        self.code = str(reply.get("code"))
        self.message = str(reply.get("message"))
        self.reply = reply
        super().__init__(f"{self.code}: {self.message}")


class HostTimeout(Exception):
    """No reply after every retry: the host is down or unreachable."""


@dataclass
class Replica:
    """The client's copy of one table, kept in step by snapshots and sequenced updates.

    ``view`` is public (what every update brings); ``private`` is what this seat alone may
    see, which only replies to this seat's token bring. They stay apart; :attr:`merged` lays one
    over the other for a user that wants all the seat knows.

    >>> r = Replica("t1", you=0, view={"turn": 0}, private={"hand": [3, 7]})
    >>> r.merged
    {'turn': 0, 'hand': [3, 7]}
    """

    table: str
    seq: int = -1
    version: int = 0
    status: str = "open"
    turn: int | None = None
    you: int | None = None
    seats: list[dict[str, Any]] = field(default_factory=list)
    view: dict[str, Any] = field(default_factory=dict)
    game: str = ""
    config: dict[str, Any] = field(default_factory=dict)
    #: The table's per-move deadline for bot seats in seconds (None: none); a bot budgets its
    #: thinking from the moment it sees its turn.
    deadline_s: float | None = None
    #: The table's turn timer for the seats people hold, seconds (None: none).
    turn_timer_s: float | None = None
    #: When the last snapshot's decision runs out on this machine's clock (time.monotonic(),
    #: from its ``turn_left_s``, grace not counted); None: no clock ran, or the host is older.
    turn_due_s: float | None = None
    #: What this seat alone may see (``GameState.private``); None for a spectator or when the
    #: game gives the seat nothing.
    private: dict[str, Any] | None = None
    #: The table's seq when ``private`` was taken: an older answer never replaces a newer one.
    private_seq: int = -1

    def load(self, snapshot: dict[str, Any]) -> None:
        """Take a snapshot (from join, sync or an error reply) as the whole truth."""
        self.seq = snapshot["seq"]
        self.you = snapshot["you"]
        self.game = snapshot["game"]
        self.config = snapshot["config"]
        # .get: a host from before deadlines sends no such field.
        self.deadline_s = snapshot.get("deadline_s")
        self.turn_timer_s = snapshot.get("turn_timer_s")
        left = snapshot.get("turn_left_s")
        self.turn_due_s = time.monotonic() + left if isinstance(left, (int, float)) else None
        self._take(snapshot)
        # A snapshot is the whole truth, the seat's private part included (.get: older hosts).
        self.private, self.private_seq = snapshot.get("private"), self.seq

    def take_private(self, private: dict[str, Any] | None, seq: int) -> None:
        """Hold ``private`` as it stood at ``seq`` (from an ``accepted`` or ``private`` reply),
        unless what the replica holds is newer."""
        if seq >= self.private_seq:
            self.private, self.private_seq = private, seq

    def wants_private(self, update: dict[str, Any]) -> bool:
        """Whether an applied ``update`` changed this seat's private data beyond what the
        replica holds (the host names such seats in ``private``; the data never goes on PUB)."""
        return (self.you is not None and self.you in update.get("private", ())
                and self.private_seq < update["seq"])

    @property
    def merged(self) -> dict[str, Any]:
        """The public view with the seat's private data laid over it (a game keeps the keys of
        the two apart, so nothing of the view is hidden)."""
        return self.view if self.private is None else {**self.view, **self.private}

    def receive(self, message: dict[str, Any]) -> str:
        """Apply a broadcast; returns "applied", "old" (dropped) or "gap" (resync needed)."""
        if message.get("table") != self.table:
            return "old"
        seq = message["seq"]
        if message["type"] == "heartbeat":
            if seq == self.seq and isinstance(message.get("away"), list):
                self._take_away(message["away"])
            return "gap" if seq > self.seq else "old"
        if seq <= self.seq:
            return "old"
        if seq != self.seq + 1:
            return "gap"
        self.seq = seq
        self._take(message)
        return "applied"

    def _take_away(self, away: list[Any]) -> None:
        """The seats away now, as a heartbeat says (a new list of seats if any changed, so that
        a front end sees the change by the list's identity)."""
        if any(bool(s.get("away")) != (i in away) for i, s in enumerate(self.seats)):
            self.seats = [{**s, "away": i in away} for i, s in enumerate(self.seats)]

    def _take(self, message: dict[str, Any]) -> None:
        self.version = message["version"]
        self.status = message["status"]
        self.turn = message["turn"]
        self.seats = message["seats"]
        self.view = message["view"]

    @property
    def my_turn(self) -> bool:
        return self.status == "running" and self.you is not None and self.turn == self.you


@dataclass(frozen=True)
class Session:
    """What a client saves to come back to its seat after a crash or a restart."""

    address: str
    table: str
    seat: int | None
    token: str


class AsyncClient:
    """One connection to a host and (after :meth:`join`) one table. Not shared between loops."""

    def __init__(
        self,
        address: str,
        *,
        context: zmq.asyncio.Context | None = None,
        timeout_s: float = REQUEST_TIMEOUT_S,
        retries: int = REQUEST_RETRIES,
        standby: str | None = None,
    ) -> None:
        # A join code (sagani://HOST:PORT?key=...) also brings the secure host's key.
        where = parse_address(address)
        self.address = where.endpoint
        self.server_key = where.server_key
        #: The standby host's request endpoint, as the host named it (hello and join replies):
        #: where requests go when this one is silent (PROTOCOL.md, Failover).
        self.standby = standby
        #: Set when a request was answered by the standby: the broadcasts must follow.
        self._moved = False
        #: Where the host moved the last time a hello was answered elsewhere than the one
        #: before (a front end says "host moved to ..."); None while it never moved.
        self.moved_to: str | None = None
        #: How many times the host moved so (a failover: the client went to the other host).
        self.host_moves = 0
        #: What the last ``not_active`` refusal said (a standby answered), so that a request
        #: that times out on it is not taken for one no host answered.
        self.not_active: str | None = None
        self._hello_address: str | None = None
        # One routing id for every REQ socket of this client: a retry on a reopened socket is
        # the same peer to the host, so it finds its cached reply to a join.
        self._routing_id = b"c" + secrets.token_bytes(15)  # a leading 0 byte is reserved
        self.timeout_s = timeout_s
        self.retries = retries
        self.ctx = context or zmq.asyncio.Context.instance()
        self.welcome: dict[str, Any] = {}
        self.replica: Replica | None = None
        self.token: str | None = None
        self._req: zmq.asyncio.Socket | None = None
        self._req_address = ""
        self._sub: zmq.asyncio.Socket | None = None
        self._pub_address = ""
        self._next_id = secrets.randbits(40)
        self._lock = asyncio.Lock()
        self._sub_lock = asyncio.Lock()
        self._pending: deque[dict[str, Any]] = deque()
        self._heard_s = time.monotonic()

    # -- requests ---------------------------------------------------------------------------

    async def request(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Send one request, Lazy Pirate style; returns the reply.

        Raises HostError for a refusal and HostTimeout when every try went unanswered. A
        refusal that asks for a wait (``rate_limited``, ``storage_failed``) is waited out a few
        times before it is raised; those waits are no tries.
        """
        async with self._lock:
            self._next_id += 1
            body = encode({"v": VERSION, "type": kind, "id": self._next_id, **fields})
            waits = 0
            tries = 0
            # The last refusal of a standby that does not serve, and where it came from.
            refused: tuple[str, str] | None = None
            while tries <= self.retries:
                if self._req is not None and self._req_address != self.address:
                    self._req.close()  # the host moved (silence) since this socket was made
                    self._req = None
                if self._req is None:
                    self._req = self.ctx.socket(zmq.REQ)
                    self._req.linger = 0
                    self._req.routing_id = self._routing_id
                    # With one routing id, a late reply to an abandoned request can reach the
                    # new socket; correlation ids make the socket drop it.
                    self._req.setsockopt(zmq.REQ_CORRELATE, 1)
                    self._req.setsockopt(zmq.REQ_RELAXED, 1)
                    client_setup(self._req, self.server_key)
                    self._req.connect(self.address)
                    self._req_address = self.address
                try:
                    await self._req.send(body)
                    raw_reply = await self._reply(self._req)
                except asyncio.CancelledError:
                    # Cancelled between send and reply: this REQ socket can never send again.
                    self._req.close()
                    self._req = None
                    raise
                if raw_reply is not None:
                    reply = decode_message(raw_reply)
                    if reply.get("type") != "error":
                        return reply
                    if reply.get("code") in WAIT_CODES and waits < WAITS:
                        # Answered: this socket may send again, the same bytes, same id.
                        await asyncio.sleep(min(WAIT_MOST_S, WAIT_FIRST_S * 2 ** waits))
                        waits += 1
                        continue
                    if reply.get("code") != "not_active":
                        raise HostError(reply)
                    # The standby still hears the active host: back there, after a moment. A
                    # client that knew only this address (the host moved) learns it here.
                    self.not_active = str(reply.get("message"))
                    refused = (self.address, self.not_active)
                    active = reply.get("active")
                    if isinstance(active, str) and active != self.address:
                        self.standby = active
                    await asyncio.sleep(self.timeout_s * NOT_ACTIVE_PAUSE_SHARE)
                # A REQ socket that timed out is stuck waiting; only a new one can send again.
                self._req.close()
                self._req = None
                self._switch(self._req_address)
                tries += 1
            if refused is not None:
                # Not "no reply": a standby answered, and may say what a person must do (a
                # standby left behind does not serve until its active host is started again).
                where, words = refused
                raise HostTimeout(f"no host serves {kind} after {tries} tries; "
                                  f"{where.removeprefix('tcp://')} says: {words}")
            raise HostTimeout(f"no reply from {self.address} to {kind} after {tries} tries")

    def _switch(self, silent: str) -> None:
        """Send the next try to the other host of the pair, if there is one, unless the client
        went there already: ``silent`` is the host that did not answer, and two tasks may each
        find it silent (a ``here`` waiting on it, the broadcasts' follower); the second must not
        send the client back to it, for another whole try."""
        if self.standby is not None and self.address == silent:
            self.address, self.standby = self.standby, self.address
            self._moved = not self._moved

    async def _reply(self, req: zmq.asyncio.Socket) -> bytes | None:
        """The reply to the request just sent on ``req``, or None after one try's timeout.

        A late reply to an abandoned request (same routing id) wakes the poll too, and the
        socket then drops it for its correlation id: the receive finds nothing and the wait
        goes on.
        """
        # With a standby to go to, a host silent for as long as its heartbeats may be is gone.
        wait_s = try_s(self._heartbeat_s, self.standby is not None, self.timeout_s)
        give_up_s = time.monotonic() + wait_s
        while (left_s := give_up_s - time.monotonic()) > 0:
            if not await req.poll(left_s * 1000):  # POLLIN, the default
                return None
            try:
                return await req.recv(zmq.NOBLOCK)
            except zmq.Again:
                continue
        return None

    async def connect(self) -> dict[str, Any]:
        """Say hello; learn the protocol version, the games and where broadcasts come from."""
        self.welcome = await self.request("hello", client="sagani_net")
        self._moved = False
        previous, self._hello_address = self._hello_address, self.address
        if previous not in (None, self.address):
            self.moved_to = self.address
            self.host_moves += 1
        self.standby = self.welcome.get("standby") or self.standby
        # The host may bind 0.0.0.0; subscribe where requests go, on the port it names.
        host = self.address.rsplit(":", 1)[0]
        self._pub_address = f"{host}:{self.welcome['pub_port']}"
        return self.welcome

    async def tables(self) -> list[dict[str, Any]]:
        """Every table on the host, page after page (PROTOCOL.md, tables)."""
        listing: list[dict[str, Any]] = []
        after = None
        while True:
            # The first page without `after`: a host from before pages knows no such field.
            page = await self.request("tables", **({} if after is None else {"after": after}))
            listing += page["tables"]
            after = page.get("next")
            if after is None or not page["tables"]:
                return listing

    async def create(
        self,
        config: dict[str, Any],
        *,
        game: str = "sagani",
        seed: int | None = None,
        bots: list[int] | tuple[int, ...] = (),
        deadline_s: float | None = None,
        turn_timer_s: float | None = None,
    ) -> str:
        """Create a table; returns its id. ``deadline_s``: per-move deadline of its bot seats,
        ``turn_timer_s``: turn timer of the seats people hold (None: the host's default, if
        any)."""
        fields: dict[str, Any] = {"game": game, "config": config, "seed": seed, "bots": list(bots)}
        if deadline_s is not None:  # sent only when asked for, so older hosts understand the rest
            fields["deadline_s"] = deadline_s
        if turn_timer_s is not None:
            fields["turn_timer_s"] = turn_timer_s
        # The nonce makes a retry (and only a retry) get the same table (PROTOCOL.md, section 2).
        reply = await self.request("create", nonce=secrets.token_urlsafe(NONCE_BYTES), **fields)
        table: str = reply["table"]
        return table

    async def join(
        self, table: str, *, role: str = "player", seat: int | None = None, name: str = ""
    ) -> Replica:
        """Take a seat (or watch, with role "spectator"); subscribes before the snapshot."""
        await self._subscribe(table)
        reply = await self.request("join", table=table, role=role, seat=seat, name=name or role,
                                   nonce=secrets.token_urlsafe(NONCE_BYTES))
        return self._joined(reply)

    async def resume(self, table: str, token: str) -> Replica:
        """Come back to a seat with a saved token (after a crash, or a host restart)."""
        await self._subscribe(table)
        return self._joined(await self.request("join", table=table, token=token))

    async def sync(self) -> Replica:
        """Fetch a fresh snapshot of the table (the Clone pattern's resync)."""
        replica = self._need_replica()
        reply = await self.request("sync", table=replica.table, token=self.token)
        replica.load(reply)
        # The snapshot supersedes updates not yet handed out; ones still in the SUB queue are
        # dropped by their seq as they come.
        self._pending.clear()
        return replica

    async def act(self, action: dict[str, Any]) -> list[dict[str, Any]]:
        """Play ``action`` on the current version; returns its events once the replica shows
        them (the update for the action is broadcast before the reply is sent).

        Raises HostError (after loading the fresh snapshot it carries) when refused; an act
        the host had accepted before (``already_accepted``) is no refusal: no events, the
        snapshot loaded.
        """
        replica = self._need_replica()
        try:
            reply = await self.request("act", table=replica.table, seat=replica.you,
                                       token=self.token, version=replica.version,
                                       action=action)
        except HostError as exc:
            if "snapshot" in exc.reply:
                replica.load(exc.reply["snapshot"])
            if exc.code == "already_accepted":
                # A retry that reached a restarted host after another seat had moved: it was
                # played; its events went out then, and the snapshot is from after it.
                return []
            raise
        replica.take_private(reply.get("private"), reply["seq"])
        if self._moved:
            await self._follow_host()
        deadline_s = time.monotonic() + CATCH_UP_S
        while replica.seq < reply["seq"]:
            left_s = deadline_s - time.monotonic()
            if left_s <= 0:
                # The update went missing (a subscription still settling): fetch the state.
                await self._resync()
                break
            await self._pump(left_s)
        events: list[dict[str, Any]] = reply["events"]
        return events

    async def private(self) -> dict[str, Any] | None:
        """Fetch this seat's private data into the replica. Following updates does it by itself
        for every update that names the seat, so a caller seldom needs this."""
        replica = self._need_replica()
        reply = await self.request("private", table=replica.table, token=self.token)
        replica.take_private(reply["private"], reply["seq"])
        return replica.private

    async def legal(self) -> list[dict[str, Any]]:
        """Every legal action of this seat, which must be the seat to move, in wire form (what
        :meth:`act` takes), on the version the replica holds: every page of the host's
        ``legal`` answer. Raises HostError (after loading the snapshot it carries) when
        refused: ``not_your_turn``, or ``stale_version`` when the table has moved on (the
        replica is then at the new version: ask again)."""
        replica = self._need_replica()
        actions: list[dict[str, Any]] = []
        page: int | None = 0
        while page is not None:
            try:
                reply = await self.request("legal", table=replica.table, token=self.token,
                                           version=replica.version, page=page)
            except HostError as exc:
                if "snapshot" in exc.reply:
                    replica.load(exc.reply["snapshot"])
                raise
            actions.extend(reply["actions"])
            page = reply["next"]
        return actions

    async def static(self, game: str | None = None) -> dict[str, Any]:
        """The static data (tiles, cards, patterns) of the joined table's game and config, or
        of ``game`` with its default config."""
        if game is not None:
            reply = await self.request("static", game=game)
        else:
            reply = await self.request("static", table=self._need_replica().table)
        static: dict[str, Any] = reply["static"]
        return static

    async def history(self, since: int = 0) -> list[dict[str, Any]]:
        """The moves of the joined table after version ``since``, oldest first, each
        ``{"version", "seat", "events"}`` with the game's events (every page of the host's
        ``history`` answer). The host keeps only the newest moves: a first move above
        ``since + 1`` means the ones before it are not kept."""
        table = self._need_replica().table
        moves: list[dict[str, Any]] = []
        while True:
            reply = await self.request("history", table=table, since=since)
            moves.extend(reply["moves"])
            if not (reply["more"] and reply["moves"]):
                return moves
            since = reply["moves"][-1]["version"]

    async def here(self) -> dict[str, Any]:
        """Tell the host this seat's player is there (a console does it every
        :attr:`presence_s` while it waits: PROTOCOL.md, Presence); the reply names the seats
        away now."""
        replica = self._need_replica()
        return await self.request("here", table=replica.table, token=self.token)

    async def stand_in(self, seat: int) -> dict[str, Any]:
        """Ask the host to play away ``seat`` (from 0) until its player is back."""
        replica = self._need_replica()
        return await self.request("stand_in", table=replica.table, token=self.token, seat=seat)

    @property
    def presence_s(self) -> float | None:
        """How often a seated player's client tells the host it is there; None: a host that
        does not ask it."""
        value = self.welcome.get("presence_s")
        return float(value) if isinstance(value, int | float) and value > 0 else None

    async def leave(self) -> None:
        """Give up the seat (``leave``): it is free for anyone to join; the token is spent."""
        replica = self._need_replica()
        await self.request("leave", table=replica.table, token=self.token)
        self.token = None

    async def record(self, table: str) -> dict[str, Any]:
        """The record of a finished game."""
        record: dict[str, Any] = (await self.request("record", table=table))["record"]
        return record

    # -- updates ----------------------------------------------------------------------------

    async def next_update(self, timeout_s: float | None = None) -> dict[str, Any] | None:
        """The next change to the replica: an "update", or a "snapshot" after a resync; None if
        nothing came within ``timeout_s``."""
        self._need_replica()
        deadline_s = None if timeout_s is None else time.monotonic() + timeout_s
        silence_s = self._silence_s
        if self._moved:
            await self._follow_host()
        while not self._pending:
            now = time.monotonic()
            wait_s = self._heard_s + silence_s - now
            if deadline_s is not None:
                if now >= deadline_s:
                    return None
                wait_s = min(wait_s, deadline_s - now)
            if not await self._pump(wait_s) and time.monotonic() >= self._heard_s + silence_s:
                # Silence: the host may have restarted, or be gone; its standby (if any) takes
                # over. Hello (there first), subscribe and resync.
                self._switch(self._hello_address or self.address)
                await self._follow_host()
        return self._pending.popleft()

    async def _pump(self, wait_s: float) -> bool:
        """Read one broadcast (waiting up to ``wait_s``) into the replica; False if none came."""
        replica = self._need_replica()
        async with self._sub_lock:  # one reader at a time: act() and updates() may overlap
            sub = self._sub
            assert sub is not None
            if not await sub.poll(max(0.0, wait_s) * 1000):  # POLLIN, the default
                return False
            _, body = await sub.recv_multipart()
        self._heard_s = time.monotonic()
        message = decode_message(body)
        if message.get("type") == "heartbeat" and message.get("standby"):
            self.standby = message["standby"]  # one came after we joined
        outcome = replica.receive(message)
        if outcome == "applied":
            if replica.wants_private(message):  # one round trip, before anyone sees the update
                await self.private()
            self._pending.append(message)
        elif outcome == "gap":
            await self._resync()
        return True

    async def updates(self) -> AsyncIterator[dict[str, Any]]:
        """Every change to the replica, in order, forever (cancel the task to stop)."""
        while True:
            update = await self.next_update()
            if update is not None:
                yield update

    # -- state ------------------------------------------------------------------------------

    @property
    def state(self) -> Replica:
        """The table as this client follows it (RuntimeError before a join)."""
        return self._need_replica()

    @property
    def my_turn(self) -> bool:
        """Whether this client's seat is to move."""
        return self.replica is not None and self.replica.my_turn

    @property
    def heard_s(self) -> float:
        """When (``time.monotonic()``) the host last said anything: an update, a heartbeat."""
        return self._heard_s

    @property
    def silent(self) -> bool:
        """The host has said nothing (no update, no heartbeat) for longer than the client
        waits before it reconnects and resyncs: a front end can say so at once."""
        return time.monotonic() - self._heard_s > self._silence_s

    @property
    def _heartbeat_s(self) -> float:
        heartbeat_s: float = self.welcome.get("heartbeat_s", 1.0)
        return heartbeat_s

    @property
    def _silence_s(self) -> float:
        return SILENCE_HEARTBEATS * self._heartbeat_s

    @property
    def session(self) -> Session:
        """The host, table, seat and token to come back to the seat with."""
        replica = self._need_replica()
        assert self.token is not None
        return Session(self.address, replica.table, replica.you, self.token)

    def close(self) -> None:
        """Close the sockets at once (nothing is waited for)."""
        for sock in (self._req, self._sub):
            if sock is not None:
                sock.close(linger=0)
        self._req = self._sub = None

    # -- helpers ----------------------------------------------------------------------------

    async def _subscribe(self, table: str) -> None:
        if not self._pub_address:
            await self.connect()
        # Not under a reader's feet: closing a socket cancels the poll another task awaits on
        # it (an act answered by the standby moves the subscription while updates are read).
        async with self._sub_lock:
            if self._sub is not None:
                self._sub.close(linger=0)
            self._sub = self.ctx.socket(zmq.SUB)
            self._sub.linger = 0
            client_setup(self._sub, self.server_key)
            self._sub.connect(self._pub_address)
            self._sub.subscribe(topic(table))
        self._heard_s = time.monotonic()

    async def _follow_host(self) -> None:
        """Hello, subscribe and resync at the host that answers now (after a move)."""
        await self.connect()
        await self._subscribe(self._need_replica().table)
        await self._resync()

    def _joined(self, reply: dict[str, Any]) -> Replica:
        self.standby = reply.get("standby") or self.standby
        self.token = reply["token"]
        self.replica = Replica(reply["table"])
        self.replica.load(reply["snapshot"])
        self._pending.clear()
        return self.replica

    async def _resync(self) -> None:
        replica = await self.sync()
        self._pending.append({"type": "snapshot", "table": replica.table, "seq": replica.seq,
                              "version": replica.version})

    def _need_replica(self) -> Replica:
        if self.replica is None:
            raise RuntimeError("join a table first")
        return self.replica


class Client:
    """The blocking face of :class:`AsyncClient`, on a private event loop (bots, scripts)."""

    def __init__(self, address: str, **options: Any) -> None:
        self._loop = asyncio.new_event_loop()
        # The process's shared context, as AsyncClient's: a context of its own would be
        # terminated by the garbage collector if the client were dropped without close(), and
        # term() there waits for sockets that the same collection has yet to close: for ever.
        self.core = AsyncClient(address, **options)

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        return self._loop.run_until_complete(coro)

    def connect(self) -> dict[str, Any]:
        return self._run(self.core.connect())

    def tables(self) -> list[dict[str, Any]]:
        return self._run(self.core.tables())

    # Spelt out, not **options: a caller's mistyped keyword is the type checker's to find.
    def create(
        self,
        config: dict[str, Any],
        *,
        game: str = "sagani",
        seed: int | None = None,
        bots: list[int] | tuple[int, ...] = (),
        deadline_s: float | None = None,
        turn_timer_s: float | None = None,
    ) -> str:
        return self._run(self.core.create(config, game=game, seed=seed, bots=bots,
                                          deadline_s=deadline_s, turn_timer_s=turn_timer_s))

    def join(
        self, table: str, *, role: str = "player", seat: int | None = None, name: str = ""
    ) -> Replica:
        return self._run(self.core.join(table, role=role, seat=seat, name=name))

    def resume(self, table: str, token: str) -> Replica:
        return self._run(self.core.resume(table, token))

    def sync(self) -> Replica:
        return self._run(self.core.sync())

    def act(self, action: dict[str, Any]) -> list[dict[str, Any]]:
        return self._run(self.core.act(action))

    def private(self) -> dict[str, Any] | None:
        return self._run(self.core.private())

    def legal(self) -> list[dict[str, Any]]:
        return self._run(self.core.legal())

    def static(self, game: str | None = None) -> dict[str, Any]:
        return self._run(self.core.static(game))

    def history(self, since: int = 0) -> list[dict[str, Any]]:
        return self._run(self.core.history(since))

    def leave(self) -> None:
        self._run(self.core.leave())

    def here(self) -> dict[str, Any]:
        return self._run(self.core.here())

    def stand_in(self, seat: int) -> dict[str, Any]:
        return self._run(self.core.stand_in(seat))

    def record(self, table: str) -> dict[str, Any]:
        return self._run(self.core.record(table))

    def request(self, kind: str, **fields: Any) -> dict[str, Any]:
        return self._run(self.core.request(kind, **fields))

    def next_update(self, timeout_s: float | None = None) -> dict[str, Any] | None:
        return self._run(self.core.next_update(timeout_s))

    def wait_for(self, ready: Callable[[Replica], bool], timeout_s: float) -> bool:
        """Follow updates until ``ready(replica)`` holds; False if ``timeout_s`` runs out."""
        deadline_s = time.monotonic() + timeout_s
        while not ready(self.core.state):
            left_s = deadline_s - time.monotonic()
            if left_s <= 0:
                return False
            self.next_update(left_s)
        return True

    @property
    def state(self) -> Replica:
        return self.core.state

    @property
    def my_turn(self) -> bool:
        return self.core.my_turn

    @property
    def session(self) -> Session:
        return self.core.session

    def close(self) -> None:
        self.core.close()
        self._loop.close()



def _docs_from_async() -> None:
    """Each of :class:`Client`'s methods says what :class:`AsyncClient`'s says (one text, not
    two to keep in step); a blocking one of its own (``wait_for``) keeps its own."""
    for name, method in vars(Client).items():
        said = getattr(getattr(AsyncClient, name, None), "__doc__", None)
        if not name.startswith("_") and said and method.__doc__ is None:
            method.__doc__ = said


_docs_from_async()
