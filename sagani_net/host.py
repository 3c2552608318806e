"""The headless host: authoritative games behind a ZeroMQ ROUTER, broadcast on a PUB.

One socket loop (:meth:`Host.step`) reads a batch of requests, handles each, commits the store,
then publishes the batch's updates and sends its replies; nothing is heard before it is on disk.
The host knows games only through :mod:`sagani_net.game`; the wire format is :mod:`protocol`.

>>> host = Host(Store(tmp), port=0)      # doctest: +SKIP
>>> host.serve()                         # doctest: +SKIP
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import zmq

from protocol import (
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
from protocol.wire import DEFAULT_PORT, MAX_REQUEST_BYTES, SUPPORTED_VERSIONS, VERSION
from sagani_net.game import Game, GameState, RuleError
from sagani_net.games import game_names, get_game
from sagani_net.limits import MAX_FRAME_BYTES, RATE_BURST, RATE_PER_S, RateLimiter
from sagani_net.store import SessionRow, Store, TableRow

log = logging.getLogger("sagani_net.host")

#: A table that published nothing for this long gets a heartbeat on its topic.
HEARTBEAT_S = 1.0
#: How long a finished table stays in memory (listed, synced, heartbeats) before only its
#: record is kept.
FINISHED_KEEP_S = 600.0
#: Longest wait in one poll, so that stop() is noticed promptly.
POLL_MS = 100
TOKEN_BYTES = 24
TABLE_ID_BYTES = 4
#: Accepted replies kept in memory per session for instant retries (older ones come from disk).
REPLY_CACHE_SIZE = 16
#: Create and join replies remembered for retries (in memory only).
RECENT_SIZE = 4096
#: Time a bot seat gets beyond its table's deadline before the host plays for it: the update
#: announcing the turn and the bot's act both cross the network.
DEADLINE_GRACE_S = 0.25
#: What the store records as the session of a move the host played for a bot that missed its
#: deadline. Real sessions are 64 hex digits (token hashes), so it never matches one, and a
#: retry lookup (by session and message id) never finds it.
HOST_DEFAULT_SESSION = "host:deadline"

OPEN, RUNNING, OVER = "open", "running", "over"


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
    #: Largest request message the socket accepts (ZMQ_MAXMSGSIZE; bigger drops the peer).
    max_frame_bytes: int = MAX_FRAME_BYTES


@dataclass
class Session(SessionRow):
    """One join: a token (kept only as its hash) bound to a table and a seat (None: spectator),
    the message ids of its accepted actions, and the latest of their replies."""

    replies: OrderedDict[int, bytes] = field(default_factory=OrderedDict)


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
    #: The pending decision the deadline clock runs for: (version, seat), or None.
    timed: tuple[int, int] | None = None

    @property
    def topic(self) -> bytes:
        return topic(self.id)

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
    ) -> None:
        self.store = store
        #: The deadline of tables whose create request names none (``--bot-deadline``).
        self.bot_deadline_s = bot_deadline_s
        #: Table id -> when (monotonic s) its bot seat to move runs out of time. Only tables with
        #: a pending timed decision are here, so the loop's min() over it stays small.
        self._due: dict[str, float] = {}
        self.limits = limits or Limits()
        self.heartbeat_s = heartbeat_s
        self.tables: dict[str, Table] = {}
        self.sessions: dict[str, Session] = {}
        self._outbox: list[tuple[bytes, bytes]] = []
        # Replies to creates and joins by (type, table, id): a retried join gets the same seat.
        self._recent: OrderedDict[tuple[bytes, str, str | None, int | None], bytes] = (
            OrderedDict()
        )
        self._stop = threading.Event()
        self._storage_failure: sqlite3.Error | None = None
        self._thread: threading.Thread | None = None
        self._restore()
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
        # A peer's oversized message is cut off by libzmq before it is buffered; a new
        # connection with a known routing id (a client's Lazy Pirate retry) takes it over.
        self.router.maxmsgsize = self.limits.max_frame_bytes
        self.router.router_handover = 1
        self._rate = RateLimiter(self.limits.rate_per_s, self.limits.rate_burst)
        self.endpoint = _bind(self.router, bind, port)
        self.pub_endpoint = _bind(self.pub, bind, pub_port)
        self._next_heartbeat_s = time.monotonic() + heartbeat_s
        self._handlers: dict[str, Callable[[dict[str, Any]], dict[str, Any] | bytes]] = {
            "hello": self._hello,
            "tables": self._tables,
            "create": self._create,
            "join": self._join,
            "sync": self._sync,
            "act": self._act,
            "private": self._private,
            "leave": self._leave,
            "record": self._record,
            "static": self._static,
        }
        log.info("host on %s, broadcasts on %s, data in %s", self.endpoint, self.pub_endpoint,
                 store.path)  # fmt: skip

    # -- the socket loop --------------------------------------------------------------------

    def serve(self) -> None:
        """Run until :meth:`stop`; then close the sockets and the store."""
        try:
            while not self._stop.is_set():
                self.step(POLL_MS)
        finally:
            self.router.close()
            self.pub.close()
            self.store.close()

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
        # The next thing the loop must do unasked: a heartbeat, or a bot's move deadline.
        wake_s = min([self._next_heartbeat_s, *self._due.values()])
        wait_ms = max(0, min(timeout_ms, (wake_s - time.monotonic()) * 1000))
        replies = []
        if self.router.poll(wait_ms, zmq.POLLIN):
            router = self.router
            for _ in range(self.limits.max_batch):
                # Asking first is cheaper than the exception a receive on an empty queue raises.
                if not router.get(zmq.EVENTS) & zmq.POLLIN:
                    break
                replies.append(self._handle(router.recv_multipart(zmq.NOBLOCK)))
        expired = self._expire() if self._due else False
        if replies or expired:
            # The rule: committed before anyone hears of it.
            if not self._commit():
                replies = [[*frames[:-1], _storage_error(frames[-1])] for frames in replies]
            # Broadcasts first: the act-to-everyone-updated latency is what players feel.
            for topic, body in self._outbox:
                self.pub.send_multipart((topic, body))
            self._outbox.clear()
            for frames in replies:
                self.router.send_multipart(frames)
        if time.monotonic() >= self._next_heartbeat_s:
            self._heartbeats()
        return len(replies)

    def _handle(self, frames: list[bytes]) -> list[bytes]:
        # REQ peers put an empty delimiter before the body (after the routing ids of any
        # proxies on the way); DEALER peers may send the body alone.
        if len(frames) >= 3 and frames[-2] == b"":
            head, body = frames[:-1], frames[-1]
        elif len(frames) == 2:
            head, body = frames[:1], frames[1]
        else:
            head = frames[: frames.index(b"") + 1] if b"" in frames else frames[:1]
            return [*head, encode(error(None, "bad_frame", "a request is exactly one frame"))]
        if not self._rate.allow(frames[0]):
            return [*head, encode(error(None, "rate_limited", "too many requests; slow down"))]
        msg_id = None
        try:
            message = decode_request(body)
            msg_id = request_id(message)
            request = check_request(message)
            # Keyed by peer too: another peer replaying the same id gets no one else's token.
            key = (frames[0], request["type"], request.get("table"), msg_id)
            out = self._recent.get(key) or self._handlers[request["type"]](request)
            if request["type"] in ("create", "join") and key not in self._recent:
                out = self._recent[key] = encode(out)
                if len(self._recent) > RECENT_SIZE:
                    self._recent.popitem(last=False)
        except ProtocolError as exc:
            log.info("refused %s: %s", msg_id, exc)
            out = error(msg_id, exc.code, exc.message, **exc.fields)
        except sqlite3.Error as exc:  # a full or read-only data dir: _commit() recovers
            self._storage_failure = exc
            out = error(msg_id, "storage_failed", f"the host cannot write its data: {exc}")
        except Exception:  # the host never dies of one request
            log.exception("request %s failed", msg_id)
            out = error(msg_id, "internal", "the host failed on this request")
        return [*head, out if isinstance(out, bytes) else encode(out)]

    def _commit(self) -> bool:
        """Commit the batch. If the data dir refuses it (full, read-only), roll it back and
        reload every game from disk, so memory never runs ahead of what is durable."""
        failure, self._storage_failure = self._storage_failure, None
        if failure is None:
            try:
                self.store.commit()
                return True
            except sqlite3.Error as exc:
                failure = exc
        log.error("cannot write %s (%s): the batch is refused and the games stay at their "
                  "last committed state", self.store.path, failure)  # fmt: skip
        self.store.db.rollback()
        self._outbox.clear()
        self._recent.clear()
        self.tables.clear()
        self.sessions.clear()
        self._due.clear()
        self._restore()
        return False

    def _heartbeats(self) -> None:
        now_s = time.monotonic()
        for table in list(self.tables.values()):
            if table.over_s is not None and now_s - table.over_s > FINISHED_KEEP_S:
                self._forget(table)
            elif not table.published:
                body = {"v": VERSION, "type": "heartbeat", "table": table.id, "seq": table.seq,
                        "version": table.state.version}  # fmt: skip
                self.pub.send_multipart((table.topic, encode(body)))
            table.published = False
        self._next_heartbeat_s = now_s + self.heartbeat_s

    def _forget(self, table: Table) -> None:
        """Drop a long finished table from memory (its record stays in the store)."""
        del self.tables[table.id]
        self._due.pop(table.id, None)
        for token_hash in [*table.holders, *table.spectators]:
            if token_hash is not None:
                self.sessions.pop(token_hash, None)
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
            max_request_bytes=MAX_REQUEST_BYTES,
        )

    def _tables(self, request: dict[str, Any]) -> dict[str, Any]:
        listing = [
            {"table": t.id, "game": t.game_name, "config": t.config, "status": t.status,
             "seq": t.seq, "version": t.state.version, "seats": self._seats(t),
             "spectators": len(t.spectators), "deadline_s": t.deadline_s}
            for t in self.tables.values()
        ]  # fmt: skip
        return reply("tables", request["id"], tables=listing)

    def _create(self, request: dict[str, Any]) -> dict[str, Any]:
        if sum(t.status != OVER for t in self.tables.values()) >= self.limits.max_tables:
            raise ProtocolError("too_many_tables", "the host has no room for another table")
        game, config = _game_config(request["game"], request["config"])
        seats = game.seats(config)
        if any(seat >= seats for seat in request["bots"]):
            raise ProtocolError("bad_field", f"bots must be seats 0..{seats - 1}")
        seed = request["seed"] if request["seed"] is not None else secrets.randbits(63)
        deadline_s = request["deadline_s"]
        if deadline_s is None and self.bot_deadline_s is not None:
            deadline_s = float(self.bot_deadline_s)
        table_id = secrets.token_hex(TABLE_ID_BYTES)
        while table_id in self.tables or self.store.has_table(table_id):
            table_id = secrets.token_hex(TABLE_ID_BYTES)
        row = TableRow(table_id, game.name, config, seed, sorted(request["bots"]), OPEN, 0,
                       time.time(), deadline_s=deadline_s)  # fmt: skip
        table = self._table_from_row(row, game)
        self.store.add_table(row)
        self.tables[table_id] = table
        log.info("table %s: created, %s %s%s", table_id, game.name, config,
                 "" if deadline_s is None else f", bot deadline {deadline_s:g} s")  # fmt: skip
        return reply("created", request["id"], table=table_id, game=game.name, config=config,
                     seats=seats, bots=row.bots, deadline_s=deadline_s)  # fmt: skip

    def _join(self, request: dict[str, Any]) -> dict[str, Any]:
        table = self._table(request["table"])
        if request["token"] is not None:  # coming back with a saved token
            session = self._session(request["token"], table)
            return self._joined(request, table, session, request["token"])
        role = request["role"]
        if len(self.sessions) >= self.limits.max_sessions:
            raise ProtocolError("too_many_sessions", "the host has no room for another session")
        if role == "spectator":
            if request["seat"] is not None:
                raise ProtocolError("bad_field", "a spectator takes no seat")
            if len(table.spectators) >= self.limits.max_spectators:
                raise ProtocolError("too_many_spectators", "this table has no room to watch")
            seat = None
        else:
            seat = self._free_seat(table, role, request["seat"])
        token = secrets.token_urlsafe(TOKEN_BYTES)
        session = Session(hash_token(token), table.id, seat, role, request["name"] or role)
        self.sessions[session.token_hash] = session
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
                     role=session.role, token=token,
                     snapshot=self._snapshot(table, session.seat))  # fmt: skip

    def _free_seat(self, table: Table, role: str, wanted: int | None) -> int:
        if wanted is not None:
            if wanted >= len(table.holders):
                raise ProtocolError("bad_seat", f"this table has seats 0..{len(table.holders) - 1}")
            if table.holders[wanted] is not None:
                raise ProtocolError("seat_taken", f"seat {wanted} is taken")
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

        def refuse(code: str, message: str, **fields: Any) -> ProtocolError:
            return ProtocolError(code, message, snapshot=self._snapshot(table, seat), **fields)

        if table.status == OPEN:
            raise refuse("not_started", "the table is still waiting for players")
        if table.status == OVER:
            raise refuse("game_over", "the game has ended")
        if request["version"] != state.version:
            raise refuse("stale_version",
                         f"the action was made on version {request['version']}, "
                         f"the game is at {state.version}")  # fmt: skip
        if state.current_seat != seat:
            raise refuse("not_your_turn", f"it is seat {state.current_seat}'s decision")
        data = _without_seat(request["action"])
        try:
            events = state.apply(state.parse_action(data))
        except RuleError as exc:
            code = "bad_action" if exc.code == "bad_action" else "illegal_action"
            raise refuse(code, exc.message, rule=exc.code) from None
        self._accept(table, seat, data, events, session.token_hash, msg_id)
        body = _accepted(table.id, seat, msg_id, table.seq, state, events)
        session.accepted.add(msg_id)
        self._remember(session, msg_id, body)
        return body

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
        if state.is_over():
            table.status = OVER
            table.over_s = time.monotonic()
        told = [{"type": "deadline_missed", "seat": seat}, *events] if missed else events
        self._publish(table, told, persist=False, private=state.private_seats(events))
        self.store.add_action(table.id, state.version - 1, seat, data, session, msg_id,
                              table.seq)  # fmt: skip
        if table.status == OVER:
            self.store.finish_table(table.id, table.seq, self._final_record(table))
            log.info("table %s: over, %s", table.id, state.result())
        self._arm(table)

    # -- deadlines for bot seats ------------------------------------------------------------

    def _timed_seat(self, table: Table) -> int | None:
        """The seat whose decision runs on the clock now, if any: a running table with a
        deadline, whose seat to move is kept for bots or held by a bot. Players never are."""
        if table.deadline_s is None or table.status != RUNNING:
            return None
        seat = table.state.current_seat
        if seat is None:
            return None
        if seat in table.bots:
            return seat
        holder = table.holders[seat]
        session = self.sessions.get(holder) if holder else None
        return seat if session is not None and session.role == "bot" else None

    def _arm(self, table: Table) -> None:
        """Start (or keep, or stop) the clock of the table's pending decision.

        Called after every change of state, status or seat holder. The clock of a decision
        that is still the same one keeps running: a bot that rejoins does not get more time.
        """
        seat = self._timed_seat(table)
        if seat is None:
            table.timed = None
            self._due.pop(table.id, None)
            return
        pending = (table.state.version, seat)
        if table.timed != pending or table.id not in self._due:
            table.timed = pending
            assert table.deadline_s is not None
            self._due[table.id] = time.monotonic() + table.deadline_s + DEADLINE_GRACE_S

    def _expire(self) -> bool:
        """Play the default move for every bot seat past its deadline; True if any was played.

        The default is the game's ``default_action()``: deterministic, so a replay of the record
        and a restarted host agree on it. It is stored like any accepted action, with the
        session :data:`HOST_DEFAULT_SESSION` and the version as its message id.
        """
        now_s = time.monotonic()
        played = False
        for table_id in [t for t, due_s in self._due.items() if due_s <= now_s]:
            table = self.tables[table_id]
            seat = self._timed_seat(table)
            if seat is None:  # nothing pending any more; _arm keeps this from happening
                self._arm(table)
                continue
            state = table.state
            version = state.version
            try:
                action = state.default_action()
                data = state.action_data(action)
                events = state.apply(action)
                self._accept(table, seat, data, events, HOST_DEFAULT_SESSION, version,
                             missed=True)  # fmt: skip
                played = True
                log.warning("table %s: seat %d missed its %g s deadline at version %d; the host "
                            "played %s for it", table.id, seat, table.deadline_s, version,
                            data)  # fmt: skip
            except sqlite3.Error as exc:  # _commit() rolls back and reloads
                self._storage_failure = exc
                return True
            except Exception:  # the host never dies of one table
                log.exception("table %s: the default move failed; its clock is stopped", table_id)
                self._due.pop(table_id, None)
        return played

    def _cached_reply(self, table: Table, session: Session, msg_id: int) -> bytes:
        body = session.replies.get(msg_id)
        if body is None:
            # Rare (a retry after a restart, or long after): rebuild it by replaying the table.
            found = self.store.accepted_action(table.id, session.token_hash, msg_id)
            assert found is not None, "accepted message ids are always stored"
            version, seq = found
            state = get_game(table.game_name).new_state(table.config, table.seed)
            actions = self.store.actions(table.id)
            for data in actions[:version]:
                state.apply(state.parse_action(_without_seat(data)))
            events = state.apply(state.parse_action(_without_seat(actions[version])))
            body = _accepted(table.id, session.seat, msg_id, seq, state, events)
            self._remember(session, msg_id, body)
        log.info("table %s: retry of message %d answered from the cache", table.id, msg_id)
        return body

    def _leave(self, request: dict[str, Any]) -> dict[str, Any]:
        table = self._table(request["table"])
        session = self._session(request["token"], table)
        del self.sessions[session.token_hash]
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
                     private=table.state.private(session.seat))  # fmt: skip

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
                     static=game.static_data(config))  # fmt: skip

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
                      over_s=time.monotonic(), deadline_s=row.deadline_s)  # fmt: skip
        self._add_sessions(table, row.sessions)
        self.tables[table.id] = table
        return table

    def _session(self, token: str, table: Table) -> Session:
        session = self.sessions.get(hash_token(token))
        if session is None or session.table_id != table.id:
            raise ProtocolError("bad_token", f"that token does not belong to table {table.id}")
        return session

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
            })  # fmt: skip
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
                "deadline_s": table.deadline_s}  # fmt: skip

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
                  "view": table.state.view(None, shared=True)}  # fmt: skip
        self._outbox.append((table.topic, encode(update)))
        if persist:
            self.store.set_table(table.id, table.status, table.seq)
        if log.isEnabledFor(logging.INFO):
            for event in events:
                log.info("table %s #%d v%d: %s", table.id, table.seq, table.state.version,
                         " ".join(f"{k}={v}" for k, v in event.items()))  # fmt: skip

    def _remember(self, session: Session, msg_id: int, body: bytes) -> None:
        session.replies[msg_id] = body
        if len(session.replies) > REPLY_CACHE_SIZE:
            session.replies.popitem(last=False)

    def _table_from_row(self, row: TableRow, game: Game) -> Table:
        state = game.new_state(row.config, row.seed)
        seats = game.seats(row.config)
        return Table(row.id, row.game, row.config, row.seed, row.bots, state, row.status,
                     row.seq, row.created_s, [None] * seats, deadline_s=row.deadline_s)  # fmt: skip

    def _add_sessions(self, table: Table, rows: list[SessionRow]) -> None:
        for s in rows:
            self.sessions[s.token_hash] = Session(s.token_hash, s.table_id, s.seat, s.role,
                                                  s.name, s.accepted)  # fmt: skip
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
                table.state.apply(table.state.parse_action(_without_seat(data)))
            self._add_sessions(table, row.sessions)
            self.tables[row.id] = table
            # A pending bot decision's clock starts again from the restart: the bot may not
            # even have heard of its turn before the host went down.
            self._arm(table)
            log.info("table %s: resumed at version %d, seq %d", row.id, table.state.version,
                     table.seq)  # fmt: skip


def _storage_error(body: bytes) -> bytes:
    """The error that replaces a reply whose batch could not be committed."""
    msg_id = request_id(decode_message(body))
    return encode(error(msg_id, "storage_failed",
                        "the host cannot write its data dir; nothing was changed"))  # fmt: skip


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
                        private=None if seat is None else state.private(seat)))  # fmt: skip


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
            "options": [option.to_data() for option in game.options]}  # fmt: skip


def _without_seat(action: dict[str, Any]) -> dict[str, Any]:
    # Records name the seat of each action; the game's parse_action wants the action alone.
    return {key: value for key, value in action.items() if key != "seat"}


def _bind(sock: zmq.Socket, address: str, port: int) -> str:
    sock.bind(f"tcp://{address}:{port or '*'}")
    return sock.getsockopt_string(zmq.LAST_ENDPOINT)
