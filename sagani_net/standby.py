"""A pair of hosts: the active one and a standby that takes over (issue 14, after the ZeroMQ
Guide's Binary Star pattern).

**Replication.** Every write of the store moves its cursor and a chained digest of its history,
its head (:data:`sagani_net.store.WRITES`). The active host serves the writes on a *link*
socket (a ROUTER, ``--link-port``); a standby (``sagani host --standby CODE``) connects with a
DEALER and says ``follow`` with its own cursor and head. If the active host's journal goes
back that far, the standby gets every entry after it, replays them into its own
:class:`~sagani_net.store.Store`, commits and acknowledges; otherwise (a new standby, one that
was away, or a host that was active and accepted something the other never got) it gets a
``snapshot``: every table, session and action, which replace its store in one transaction.

**The journal is short.** The active host journals its writes only while a standby follows,
and drops what the standby has confirmed (all but the last entry, by which the standby is
known when it follows again): a host with no standby writes each action once.

**Nothing accepted is lost.** The active host sends a batch's entries as it commits them
(the standby writes them meanwhile), and once committed waits for the standby's
acknowledgement before it broadcasts or replies (:meth:`ActiveLink.wait`): what anyone has
heard of is on both disks. A batch the active host then fails to commit is undone on the
standby by a snapshot. A standby that does not acknowledge within
:data:`ACK_WAIT_HEARTBEATS` is left behind: the active goes on alone (and says so) until the
standby has caught up again; meanwhile its beats name the last write replied for without it,
and a standby lost without that write does not take over (its players would see those moves
undone). A standby that has just followed is waited for at the next batch
all the same, though it may still be writing its snapshot (bounded the same way): clients are
told of it from its follow on, and would go to it.

**Roles.** Where each host stands is one :class:`Role` of a :class:`Machine`, moved only by
the :data:`TRANSITIONS` table (the Guide's Binary Star keeps its states so): a starting host
electing, an active one, and a standby unheard, passive or lost; any other move is refused.

**One active host.** The standby refuses every request (``not_active``, naming the active host)
while it hears the active host's beats, which carry the active host's heartbeat (the standby
must count it lost no later than clients do) and request port. It becomes active only when it
has lost them *and* a
client comes to it; then it reloads its games from its store and serves. A host that comes back
after losing the role is started as the standby of the new active one (and gets a snapshot if
its history went its own way), so it never accepts an action on stale state; what it had
accepted that the new active host lacks is kept in a copy of its store beside
(:meth:`~sagani_net.store.Store.keep_copy`), never thrown away. Two hosts of a
pair started together agree which one serves (:func:`elect`): the one whose store holds more
writes (the greater cursor).

**The secret.** The link is always CURVE-encrypted, and its server key pair is derived from the
*standby key*: a peer without the key cannot even complete the handshake, and the ``follow``
request must also carry an HMAC of the key. A plain host keeps a random standby key
(``standby.key`` in its data dir); a secure host derives it from its CURVE secret key, the
secret half of its join code's key, which its standby must hold anyway to serve the same join
code. The active host prints the secret, with its addresses, as one *standby code*
(:class:`StandbyCode`). See SECURITY.md.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import hmac
import logging
import math
import secrets
import shutil
import socket
import sqlite3
import threading
import time
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import msgpack
import zmq
from zmq.utils import z85

from sagani_net import limits as caps
from sagani_net import security
from sagani_net.game import plural
from sagani_net.host import POLL_MS, Host
from sagani_net.peers import ConnectionGuard, close_guarded
from sagani_net.private_files import write_private
from sagani_net.protocol import encode
from sagani_net.store import SnapshotReader, Store

log = logging.getLogger("sagani_net.standby")

KEY_FILE = "standby.key"
#: Where a host notes the link address of the standby that followed it: started again as a
#: plain host, it asks that one first whether it became active (:func:`elect`).
PEER_FILE = "standby.peer"
KEY_BYTES = 32
#: The link port is the request port plus this, unless given (like the broadcast port's + 1).
LINK_PORT_OFFSET = 2
#: Journal entries per link message (a standby catching up gets its backlog in such pieces).
BATCH_ENTRIES = 1000
#: About how many bytes of rows a piece of a snapshot holds: one goes out each turn of the
#: active host's loop.
SNAPSHOT_PIECE_BYTES = 1 << 20
#: The pair beat to each other this many times per host heartbeat period.
BEATS_PER_HEARTBEAT = 4
#: A seat that goes away or comes back makes the active host beat at its next turn (a standby
#: that took over up to a quarter heartbeat later showed it wrong), but no sooner than this
#: after the last beat that told such a change: seats coming and going in a flood make 50
#: beats a second at most. Counted from the pair's regular beat instead, a change after a quiet
#: spell waited for the gap up to a third of the time (one in three beats fall within 20 ms
#: before it, at the tests' pace), and a takeover in that gap lost it.
AWAY_BEAT_GAP_S = 0.02
#: Heartbeat periods of silence on the link after which a peer counts as gone. Clients move
#: after client.SILENCE_HEARTBEATS (3) periods; the standby must have given up on the active
#: host before they come, or it would send them back.
LOST_HEARTBEATS = 2.0
#: Connections one machine may hold to the link: a standby's, and its probe while it starts.
LINK_CONNECTIONS_PER_ADDRESS = 4
#: The largest message a standby sends on the link (follow, ack, beat, probe are a few dozen
#: bytes).
MAX_LINK_MESSAGE_BYTES = 64 * 1024
#: Heartbeat periods the active host waits for the standby to acknowledge a batch.
ACK_WAIT_HEARTBEATS = 1.0
#: Shortest wait for a former standby's answer when a host starts: a busy machine must not make
#: a host that lost its role start as a second active one.
PROBE_MIN_S = 2.0
#: Follow requests a standby sends its active host unanswered before it says so, once: that
#: host is not running there, or the code holds another secret (the link's handshake then
#: fails without a word on either side).
UNANSWERED_FOLLOWS = 3
NOT_ACTIVE = "this host is the standby; the active host is alive"
#: An active host's refusal once it found its standby took over while it was away.
TOOK_OVER = ("this host was away and its standby took over; it serves no more (start it again: "
             "it follows that host)")
#: The refusal's words before the active host was ever heard: it may be down, or the code wrong.
NOT_HEARD = ("this host is the standby and has not heard its active host yet; it serves only "
             "after following it")
#: The refusal's words of a standby that lost its active host in the middle of a snapshot.
NO_COPY = ("this host is the standby and lost its active host before it had a whole copy of its "
           "games; it does not serve: start the active host again")
#: The refusal's words of a standby that lost its active host while it was left behind.
BEHIND = ("this host is the standby and lost its active host while it was behind it: moves the "
          "players were told of are not here, and serving would undo them; start the active "
          "host again (or this one plainly, to serve what it has)")
#: The refusal's words of a standby that lost its active host after being silent itself long
#: enough to be lost by it (a stopped process, a machine asleep): that host may have gone on
#: without it.
STALLED = ("this host is the standby and was stopped (or its machine asleep) long enough for its "
           "active host to go on without it: moves the players were told of may not be here, "
           "and serving would undo them; start the active host again (or this one plainly, to "
           "serve what it has)")
_PROOF_LABEL = b"sagani standby link"
_SECURE_KEY_LABEL = b"sagani standby key"
SCHEME = "sagani-standby"


class Role(Enum):
    """Where a host of a pair stands (the Guide's Binary Star, its states)."""

    #: Electing (:func:`elect`): its link answers probes with ``starting`` and its cursor.
    STARTING = "starting"
    #: Serving clients; its link answers probes with ``active``.
    ACTIVE = "active"
    #: A standby that has not yet heard its active host: refuses clients, never takes over
    #: (it holds nothing worth serving).
    UNHEARD = "unheard"
    #: A standby that hears its active host: refuses clients (``not_active``).
    PASSIVE = "passive"
    #: A standby whose active host has been silent past :attr:`ActiveLink.lost_s`: the next
    #: client makes it active.
    LOST = "lost"
    #: Stopped before it ever served as a standby, or stopped serving.
    STOPPED = "stopped"


class Event(Enum):
    """What happens to a host of a pair."""

    #: It starts and asks the other host whom to follow (:func:`elect`).
    PROBE = "probe"
    #: The election is over (it serves, or follows as a :class:`Standby`).
    ELECTED = "elected"
    #: A message of the active host came (a standby's).
    HEARD = "heard"
    #: The active host said nothing for :attr:`ActiveLink.lost_s`.
    SILENT = "silent"
    #: A client's request came to a standby.
    CLIENT = "client"
    #: Told to stop.
    STOP = "stop"


#: Every move a host of a pair makes; a pair not here is refused (the state stays): a client
#: coming to a standby that hears its active host, or to one that never heard it, is refused
#: (``not_active``), as a client request to a passive peer is in Binary Star.
TRANSITIONS: dict[tuple[Role, Event], Role] = {
    (Role.ACTIVE, Event.PROBE): Role.STARTING,
    (Role.STARTING, Event.ELECTED): Role.ACTIVE,
    (Role.UNHEARD, Event.HEARD): Role.PASSIVE,
    (Role.PASSIVE, Event.HEARD): Role.PASSIVE,
    (Role.LOST, Event.HEARD): Role.PASSIVE,
    (Role.PASSIVE, Event.SILENT): Role.LOST,
    (Role.LOST, Event.CLIENT): Role.ACTIVE,
    (Role.UNHEARD, Event.STOP): Role.STOPPED,
    (Role.PASSIVE, Event.STOP): Role.STOPPED,
    (Role.LOST, Event.STOP): Role.STOPPED,
    (Role.ACTIVE, Event.STOP): Role.STOPPED,
}


class Machine:
    """A host's :class:`Role`, moved only by :meth:`apply`, by :data:`TRANSITIONS`. Driven by
    one thread (the loop of the host it belongs to); others wait on what it does."""

    def __init__(self, state: Role) -> None:
        self.state = state

    def apply(self, event: Event) -> bool:
        """Take ``event``: move as the table says and return True, or refuse it (the state
        stays) and return False."""
        after = TRANSITIONS.get((self.state, event))
        if after is None:
            return False
        if after is not self.state:
            log.debug("%s on %s: %s", self.state.value, event.value, after.value)
        self.state = after
        return True


class CodeError(ValueError):
    """A standby code that cannot be used; the message says why."""


@dataclass(frozen=True)
class StandbyCode:
    """All a standby needs of its active host, in one line the active host prints::

        sagani-standby://192.168.1.20:47410?link=47412&secret=...            (plain)
        sagani-standby://192.168.1.20:47410?link=47412&secure=1&secret=...   (secure)

    ``host:port`` is where clients reach the active host, ``link`` the port a standby follows
    it on; ``secret`` (32 bytes, base64url) is the standby key of a plain host, or the CURVE
    secret key of a secure one. Whoever holds the code can read every game's secrets.
    """

    host: str
    port: int
    link_port: int
    secret: bytes
    secure: bool = False

    @property
    def key(self) -> bytes:
        """The standby key the link is keyed with."""
        return secure_link_key(self.secret) if self.secure else self.secret

    @property
    def link(self) -> str:
        return f"tcp://{self.host}:{self.link_port}"

    @property
    def keys(self) -> security.KeyPair | None:
        """The active host's CURVE key pair (secure), which its standby serves too."""
        if not self.secure:
            return None
        secret = z85.encode(self.secret)
        return security.KeyPair(zmq.curve_public(secret), secret)

    @property
    def address(self) -> str:
        """How a client reaches the active host: its join code, or its endpoint."""
        keys = self.keys
        if keys is not None:
            return security.join_code(self.host, self.port, keys.public)
        return f"tcp://{self.host}:{self.port}"

    def text(self) -> str:
        secret = base64.urlsafe_b64encode(self.secret).rstrip(b"=").decode()
        secure = "&secure=1" if self.secure else ""
        return f"{SCHEME}://{self.host}:{self.port}?link={self.link_port}{secure}&secret={secret}"

    @classmethod
    def parse(cls, text: str) -> StandbyCode:
        """Read a code; raises CodeError saying what is wrong with it."""
        try:  # urlsplit refuses an unclosed "[" (an IPv6 address cut short)
            parts = urlsplit(text.strip())
        except ValueError:
            raise CodeError("a standby code names the host, its port and its link port") \
                from None
        if parts.scheme != SCHEME:
            raise CodeError(f"a standby code starts with {SCHEME}:// (the active host prints it)")
        query = parse_qs(parts.query)
        port: int | None
        link_port: int | None
        try:
            port, link_port = parts.port, int(query["link"][0])
        except (KeyError, ValueError):
            port = link_port = None
        if not parts.hostname or port is None or link_port is None or not 0 < link_port < 65536:
            raise CodeError("a standby code names the host, its port and its link port")
        try:
            secret = base64.urlsafe_b64decode(query["secret"][0] + "==")
        except (KeyError, ValueError, binascii.Error):
            secret = b""
        if len(secret) != KEY_BYTES:
            raise CodeError("the secret in this standby code is damaged (a missing part?)")
        host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
        return cls(host, port, link_port, secret, query.get("secure") == ["1"])


def secure_link_key(curve_secret: bytes) -> bytes:
    """The standby key of a secure host, from its CURVE secret key (raw 32 bytes)."""
    return hmac.new(curve_secret, _SECURE_KEY_LABEL, hashlib.sha256).digest()


def host_code(endpoint: str, link_endpoint: str, key: bytes,
              keys: security.KeyPair | None) -> StandbyCode:
    """The standby code of a host bound at ``endpoint`` whose link is ``link_endpoint``; named
    like its join code (a host bound to every interface by this machine's name)."""
    name, port = security.public_name(endpoint)
    name = f"[{name}]" if ":" in name else name
    link_port = security.public_name(link_endpoint)[1]
    if keys is not None:
        return StandbyCode(name, port, link_port, z85.decode(keys.secret), secure=True)
    return StandbyCode(name, port, link_port, key)


def link_key(data_dir: Path | str, keys: security.KeyPair | None) -> bytes:
    """This host's standby key: derived from its CURVE secret key in secure mode, else the one
    kept in ``data_dir`` (made on first use)."""
    if keys is not None:
        return secure_link_key(z85.decode(keys.secret))
    return new_key(data_dir)


def adopt(data_dir: Path | str, code: StandbyCode, store: Store) -> None:
    """Make ``data_dir`` the standby's of the host ``code`` names: keep its key (and, secure,
    its key pair) there, to serve the same link and join code once active. Raises CodeError if
    the data dir holds games of another host: following would wipe them."""
    if not same_pair(data_dir, code) and store.cursor() > 0:
        raise CodeError(f"{data_dir} holds games that are not this host's; give the standby a "
                        "data dir of its own (--data-dir)")
    save_key(data_dir, code.key)
    if code.keys is not None:
        security.save_host_keys(data_dir, code.keys)


def same_pair(data_dir: Path | str, code: StandbyCode) -> bool:
    """``data_dir`` keeps the standby key of the host ``code`` names."""
    try:
        return read_key(Path(data_dir) / KEY_FILE) == code.key
    except (OSError, ValueError):
        return False


def local_address(host: str) -> str:
    """The address of this machine that faces ``host`` (where its standby must listen so that
    the clients of ``host`` reach it). Sends nothing: a UDP connect only picks the route."""
    try:
        family, _, _, _, where = socket.getaddrinfo(host.strip("[]"), 9, type=socket.SOCK_DGRAM)[0]
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.connect(where)
            return str(probe.getsockname()[0])
    except OSError as exc:
        raise CodeError(f"cannot find a route to {host}: {exc.strerror or exc}") from None


def new_key(data_dir: Path | str) -> bytes:
    """The standby key kept in ``data_dir`` (made, owner-only, on first use): 32 random bytes,
    written as hex."""
    path = Path(data_dir) / KEY_FILE
    if not path.exists():
        write_private(path, secrets.token_hex(KEY_BYTES) + "\n")
    return read_key(path)


def read_key(path: Path | str) -> bytes:
    """A standby key from its file; raises ValueError if the file holds none."""
    text = Path(path).read_text().strip()
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) != KEY_BYTES:
        raise ValueError(f"{path} does not hold a standby key ({KEY_BYTES * 2} hex digits)")
    return key


def save_key(data_dir: Path | str, key: bytes) -> None:
    """Keep ``key`` in ``data_dir``, so that this host serves the same link once active."""
    write_private(Path(data_dir) / KEY_FILE, key.hex() + "\n")


def former_standby(data_dir: Path | str) -> str | None:
    """The link address of the other host of this one's pair (``standby.peer``): the standby
    that last followed it, or the host it last followed."""
    path = Path(data_dir) / PEER_FILE
    return (path.read_text().strip() or None) if path.exists() else None


def elect(link: ActiveLink, peer: str | None, *, follow_silent: bool = False) -> str | None:
    """Whom a starting host follows: ``peer`` (the other host of its pair: its former standby,
    or the host it was told to follow), or None when it serves. ``link`` is its own, bound.

    It asks ``peer`` (``probe``) and meanwhile answers the same question on its own link with
    ``starting``, its cursor and a random nonce. A peer that answers ``active`` is followed; one
    that answers ``starting`` starts too, and the host with the greater (cursor, nonce) serves
    (both compare alike); one that follows this host makes it serve; a silent one is followed if
    ``follow_silent``, else this host serves. The wait is as long as a standby's before it counts
    its active host lost, at least :data:`PROBE_MIN_S`, and at least as long again after this
    host answered ``starting``: the peer acts on that answer, and this host must learn how."""
    if peer is None:
        return None
    wait_s = max(PROBE_MIN_S, link.lost_s)
    mine = {"cursor": link.store.cursor(), "nonce": secrets.token_bytes(16)}
    sock = _link_client(zmq.Context.instance(), link.key)
    link.role.apply(Event.PROBE)
    link.mine = mine
    try:
        try:
            sock.connect(peer)
        except zmq.ZMQError:  # not an address (a damaged file): nobody to ask
            return None
        sock.send(_pack({"type": "probe", "proof": _proof(link.key)}))
        poller = zmq.Poller()
        poller.register(sock, zmq.POLLIN)
        poller.register(link.sock, zmq.POLLIN)
        give_up_s = time.monotonic() + wait_s
        while (left_s := give_up_s - time.monotonic()) > 0:
            ready = dict(poller.poll(math.ceil(left_s * 1000)))  # not 0 for the last ms
            if link.sock in ready:
                link.tick()
                if link.standby is not None:  # the peer follows this host
                    return None
                if link.probed_s is not None:
                    give_up_s = max(give_up_s, link.probed_s + wait_s)
            if sock in ready:
                answer = _unpack(sock.recv()) or {}
                if answer.get("type") == "active":
                    return peer
                if _is_starting(answer, link.key):
                    theirs = (answer["cursor"], answer["nonce"])
                    return peer if theirs > (mine["cursor"], mine["nonce"]) else None
        return peer if follow_silent else None
    finally:
        link.role.apply(Event.ELECTED)
        link.mine = None
        sock.close()


def _is_starting(message: dict[str, Any], key: bytes) -> bool:
    """A proven ``starting`` answer with a cursor and a nonce to compare."""
    return (message.get("type") == "starting" and _proven(message, key)
            and isinstance(message.get("cursor"), int)
            and isinstance(message.get("nonce"), bytes))


def _awake_s() -> float:
    """Seconds by a clock that goes on while the machine sleeps (where there is one): a
    standby's own silence counts its machine's sleep too."""
    if _AWAKE_CLOCK is None:
        return time.monotonic()
    return time.clock_gettime(_AWAKE_CLOCK)


_AWAKE_CLOCK: int | None = getattr(time, "CLOCK_BOOTTIME", None)


def _link_client(ctx: zmq.Context[zmq.Socket[bytes]], key: bytes) -> zmq.Socket[bytes]:
    """A DEALER that can reach a link served with ``key`` (a fresh key pair of its own)."""
    sock: zmq.Socket[bytes] = ctx.socket(zmq.DEALER)
    sock.linger = 0
    public, secret = zmq.curve_keypair()
    sock.curve_secretkey = secret
    sock.curve_publickey = public
    sock.curve_serverkey = zmq.curve_public(_server_secret(key))
    return sock


def _proof(key: bytes) -> bytes:
    return hmac.new(key, _PROOF_LABEL, hashlib.sha256).digest()


def _server_secret(key: bytes) -> bytes:
    # The link's CURVE secret key is the standby key itself (Z85); its public half is never
    # printed or sent, so only who holds the key can name the server.
    return z85.encode(key)


def _proven(message: dict[str, Any], key: bytes) -> bool:
    """The message carries the proof that its sender holds the standby key."""
    proof = message.get("proof")
    return isinstance(proof, bytes) and hmac.compare_digest(proof, _proof(key))


def _pack(message: dict[str, Any]) -> bytes:
    return encode(message)


def _unpack(body: bytes) -> dict[str, Any] | None:
    try:
        message = msgpack.unpackb(body, raw=False)
    except Exception:  # a peer's garbage never stops the link
        return None
    return message if isinstance(message, dict) else None


class ActiveLink:
    """The active host's side: serves the journal to one standby (``host.link``)."""

    def __init__(
        self,
        host: Host,
        key: bytes,
        *,
        bind: str,
        port: int,
        context: zmq.Context[zmq.Socket[bytes]] | None = None,
    ) -> None:
        store = self.store = host.store
        self._host = host
        #: The host's request port: the standby names it to clients it refuses (``not_active``).
        self.request_port = int(host.endpoint.rsplit(":", 1)[1])
        self.key = key
        self._peer_file = store.data_dir / PEER_FILE
        self.sock = (context or zmq.Context.instance()).socket(zmq.ROUTER)
        self.sock.linger = 0
        self.sock.curve_secretkey = _server_secret(key)
        self.sock.curve_publickey = zmq.curve_public(_server_secret(key))
        self.sock.curve_server = True
        # Only a standby with the key gets past the handshake, and it sends small messages;
        # anyone may connect, so one machine may not take the host's descriptors this way.
        self.sock.maxmsgsize = MAX_LINK_MESSAGE_BYTES
        try:
            self.sock.bind(f"tcp://{bind}:{port or '*'}")
        except zmq.ZMQError:
            self.sock.close()  # a port in use: the caller says so, and nothing is left open
            raise
        self._connections = ConnectionGuard(self.sock, "link",
                                            max_per_address=LINK_CONNECTIONS_PER_ADDRESS)
        self.endpoint = self.sock.getsockopt_string(zmq.LAST_ENDPOINT)
        self.pace(host.heartbeat_s)
        #: The standby's routing id on the link, and where clients reach it (its request
        #: endpoint), once one follows.
        self._follower: bytes | None = None
        self.standby: str | None = None
        #: The number of the follower's last ``follow``, named in every message to it: a
        #: standby that was silent past :attr:`lost_s` knows by it that this host heard it since.
        self._follow_no: int | None = None
        self._sent = 0
        self._acked = 0
        #: The last entry of a batch replied to without the standby's word (a standby left
        #: behind, or still taking its snapshot): the standby is told in the beats, and does
        #: not take over without it, for players were told of it.
        self._replied_alone = 0
        #: Whether this batch's wait() waits (the standby was in sync when it began); the
        #: cursor at a failed commit, after which entries go only once committed (None: they
        #: go before the commit).
        self._waiting = False
        self._held_since: int | None = None
        #: A standby followed since the last batch: the next batch is waited for though the
        #: standby is still catching up (it is named to clients from its follow on).
        self._new_follower = False
        #: Whether a batch was sent and is not yet committed or rolled back (its first send
        #: decides whether it is waited for).
        self._batch = False
        #: The snapshot going out, a piece each turn of the loop (:meth:`tick`), and the number
        #: of the next piece: read and sent at once, a store of 3,000 games held every other
        #: table for 2.2 s and took 290 MiB. The entries written meanwhile wait until it is out.
        self._snapshot: SnapshotReader | None = None
        self._part = 0
        self._heard_s = 0.0
        self._next_beat_s = 0.0
        #: The tables' count of seats gone away or come back at the last beat, and when a beat
        #: last told it moved: a beat goes as soon as it moves (AWAY_BEAT_GAP_S).
        self._away_told = 0
        self._away_beat_at_s = -math.inf
        #: Starting (:func:`elect`) or active: what a probe is answered; while starting, its
        #: cursor and nonce, which a probe gets instead of ``active``, and when a probe last
        #: got them.
        self.role = Machine(Role.ACTIVE)
        self.mine: dict[str, Any] | None = None
        self.probed_s: float | None = None
        #: The link of the standby that last followed; once it is silent, it is asked whether
        #: it took over (this host was away: a closed lid, a stopped process) until
        #: ``_asked_until``, on a socket of its own.
        self._standby_link: str | None = None
        self._asking: zmq.Socket[bytes] | None = None
        self._asked_until = 0.0
        #: Where clients reach the standby asked (its request endpoint).
        self._took_over_at: str | None = None

    def pace(self, heartbeat_s: float) -> None:
        """The pair's pace at ``heartbeat_s``: how often the two beat, how long a silence
        loses the other (a standby keeps it on its own link too)."""
        self.heartbeat_s = heartbeat_s
        self.beat_s = heartbeat_s / BEATS_PER_HEARTBEAT
        self.lost_s = heartbeat_s * LOST_HEARTBEATS
        self._ack_wait_s = heartbeat_s * ACK_WAIT_HEARTBEATS

    @property
    def in_sync(self) -> bool:
        """A standby follows and has acknowledged everything sent to it."""
        return self._follower is not None and self._acked >= self._sent

    def watch(self) -> None:
        """Cut the connections past one machine's share (every turn of the loop that owns it)."""
        self._connections.events()

    def tick(self) -> None:
        """Send the next piece of a snapshot, read what the standby sent, beat, and notice a
        standby gone silent (never waits)."""
        self.watch()
        if self._snapshot is not None:
            self._send_piece()  # one a turn (the first went out with the follow)
        while self.sock.poll(0, zmq.POLLIN):
            self._receive()
        now_s = time.monotonic()
        if self._asking is not None:
            self._hear_whether_it_took_over(now_s)
        if self._follower is None:
            return
        if now_s - self._heard_s > self.lost_s:
            log.warning("the standby %s is silent; serving alone", self.standby)
            self._ask_whether_it_took_over(now_s)
            # Clients are told at once (the host beats on every table when this changes): a
            # standby named after it went is one they would go to, and find nobody.
            self._follower = self.standby = None
            self.store.journalling = False  # back, it gets a snapshot
            self._end_snapshot()
            return
        if now_s >= self.due_s():
            self._beat()

    def due_s(self) -> float:
        """When :meth:`tick` beats next (inf: no standby follows): at the pair's pace, or sooner
        once a seat went away or came back since the last beat."""
        if self._follower is None:
            return math.inf
        if self._host.room.away_changes != self._away_told:
            return min(self._next_beat_s, self._away_beat_at_s + AWAY_BEAT_GAP_S)
        return self._next_beat_s

    def _ask_whether_it_took_over(self, now_s: float) -> None:
        """A standby goes silent when it dies, or when it took over while this host was away
        (it stops following then): ask its link, as a starting host would (:func:`elect`)."""
        if self._standby_link is None or self._asking is not None:
            return
        self._asking = _link_client(zmq.Context.instance(), self.key)
        try:
            self._asking.connect(self._standby_link)
        except zmq.ZMQError:  # not an address ZeroMQ takes: nobody to ask
            self._asking.close()
            self._asking = None
            return
        self._asking.send(_pack({"type": "probe", "proof": _proof(self.key)}))
        self._asked_until = now_s + max(PROBE_MIN_S, self.lost_s)
        self._took_over_at = self.standby

    def _hear_whether_it_took_over(self, now_s: float) -> None:
        assert self._asking is not None
        if self._asking.poll(0, zmq.POLLIN):
            answer = _unpack(self._asking.recv()) or {}
            if answer.get("type") == "active" and self._follower is None:
                # Two active hosts, and the clients went to the other one: send whoever comes
                # here there, rather than serve a history of its own.
                self._host.refusing = ("not_active", TOOK_OVER, {"active": self._took_over_at})
                log.warning("the standby %s took over while this host was away: this host "
                            "refuses every request from now on, naming it; stop it and start it "
                            "again, and it follows that host", self._took_over_at)
        elif now_s < self._asked_until:
            return
        self._asking.close()
        self._asking = None

    def _beat(self) -> None:
        # ``away``: the seats away now, so that a standby that takes over does not show them
        # back until it has given them its grace (PROTOCOL.md, Presence).
        if self._host.room.away_changes != self._away_told:
            self._away_told = self._host.room.away_changes
            self._away_beat_at_s = time.monotonic()
        self._send({"type": "beat", "cursor": self._sent, "alone": self._replied_alone,
                    "away": self._host.room.away_seats(), **self._about()})

    def send(self) -> None:
        """Send the batch's entries written since the last send, not yet committed: the
        standby writes them while this host goes on. :meth:`wait` then waits for its word; a
        batch this host fails to commit is undone on the standby too (:meth:`rolled_back`)."""
        if not self._batch:  # the batch's first send: a standby catching up is not waited for,
            # unless it has just followed: the acts it is told of first are on its disk too
            self._batch = True
            if self._snapshot is not None:
                # Not while its snapshot goes out: its word comes after the last piece, and the
                # pieces go between batches. The first batch after them is the one waited for.
                self._waiting = False
            else:
                self._waiting = self.in_sync or self._new_follower
                self._new_follower = False
        if self._held_since is None:
            self._send_new()

    def wait(self) -> None:
        """After a commit: wait until the standby has every entry sent (if it keeps up)."""
        self._batch = False
        self._send_new()  # what send() held back, if it did
        if self._held_since is not None and self.store.cursor() > self._held_since:
            self._held_since = None  # a batch with writes went in: the disk takes them again
        give_up_s = time.monotonic() + self._ack_wait_s
        while self._waiting and self._follower is not None and self._acked < self._sent:
            left_s = give_up_s - time.monotonic()
            if left_s <= 0:
                log.warning("the standby %s did not confirm entry %d in %.2f s; going on without "
                            "waiting until it catches up", self.standby, self._sent,
                            self._ack_wait_s)
                break
            if self.sock.poll(math.ceil(left_s * 1000), zmq.POLLIN):  # not 0: no spin
                self._receive()
        if self._follower is not None and self._acked < self._sent:
            # Replied to before the standby has it: tell it before the replies go (a beat now,
            # behind the entries), so that lost with this host it knows it must not serve.
            self._replied_alone = self._sent
            self._beat()

    def rolled_back(self) -> None:
        """The batch was not committed here: a standby that may have written it gets this
        host's store whole (its acks of the undone entries name a head this host never had,
        and count for nothing). Until a commit succeeds, entries go only once committed: a
        failing disk would otherwise cost a snapshot a batch."""
        self._batch = False
        self._held_since = self.store.cursor()
        if self._follower is not None and self._sent > self.store.cursor():
            log.warning("the standby %s was sent a batch this host could not commit: it gets "
                        "this host's store again", self.standby)
            self._send_snapshot()

    def _send_new(self) -> None:
        if (self._follower is not None and self._snapshot is None
                and self._sent < self.store.cursor()):
            self._send_entries()

    def close(self) -> None:
        self._end_snapshot()
        close_guarded([self._connections])
        if self._asking is not None:
            self._asking.close()

    def _receive(self) -> None:
        frames = self.sock.recv_multipart(copy=False)
        if len(frames) != 2:
            return
        message = _unpack(frames[1].bytes)
        if message is None:
            return
        sender = frames[0].bytes
        kind = message.get("type")
        if kind == "follow":
            self._follow(sender, message, frames[1])
        elif kind == "probe" and _proven(message, self.key):
            answer: dict[str, Any] = {"type": "active"}
            if self.role.state is Role.STARTING and self.mine is not None:
                answer = {"type": "starting", "proof": _proof(self.key), **self.mine}
                self.probed_s = time.monotonic()
            with contextlib.suppress(zmq.ZMQError):
                self.sock.send_multipart((sender, _pack(answer)), zmq.NOBLOCK)
        elif sender == self._follower:
            self._heard_s = time.monotonic()
            cursor = message.get("cursor")
            if (kind == "ack" and isinstance(cursor, int) and self._acked < cursor <= self._sent
                    and isinstance(message.get("head"), str)
                    and self.store.follows_from(cursor, message["head"])):
                self._acked = cursor
                self.store.confirm(self._acked)  # pruned at the next commit

    def _follow(self, sender: bytes, message: dict[str, Any], frame: zmq.Frame) -> None:
        if not _proven(message, self.key):
            log.warning("a standby without the key was refused")
            return
        cursor, port, link_port, head = (message.get(name)
                                         for name in ("cursor", "port", "link_port", "head"))
        if not (isinstance(cursor, int) and isinstance(port, int) and isinstance(link_port, int)
                and isinstance(head, str)):
            return
        try:
            address = frame.get("Peer-Address")
        except zmq.ZMQError:
            address = "127.0.0.1"
        self._end_snapshot()  # of a standby before, or of this one before it came again
        self._follower, self.standby = sender, f"tcp://{address}:{port}"
        number = message.get("follow")
        self._follow_no = number if isinstance(number, int) else None
        self._new_follower = True
        self._standby_link = f"tcp://{address}:{link_port}"
        self._peer_file.write_text(f"{self._standby_link}\n")
        self._heard_s = time.monotonic()
        self.store.journalling = True  # from the next write on, until the standby is lost
        if self.store.follows_from(cursor, head):
            self._sent = self._acked = cursor
            log.info("standby %s follows from entry %d", self.standby, cursor)
            self._send_entries()
        else:
            self._send_snapshot()
        # At once, even with no entry to send: this host names the standby to clients from now
        # on, and a standby that never heard its active host would never take over.
        self._beat()

    def _send_entries(self) -> None:
        while entries := self.store.entries(self._sent, BATCH_ENTRIES):
            self._sent = entries[-1][0]  # before it goes (see _send_snapshot)
            self._send({"type": "entries", "entries": [entry[:3] for entry in entries],
                        "head": entries[-1][3], **self._about()})

    def _send_snapshot(self) -> None:
        """Every row as last committed, in pieces the standby applies in one transaction (it
        keeps its old store until the last piece is in), then the cursor and head they make:
        the first now, before anything else the standby hears of this host (mid-snapshot it
        holds no copy to take over with), then one a turn of the loop (:meth:`tick`)."""
        self._end_snapshot()
        self._snapshot = self.store.snapshot_reader()
        self._part = 0
        log.info("standby %s gets a snapshot at entry %d (its own history is not this one's, "
                 "or the journal no longer goes back to it)", self.standby, self._snapshot.cursor)
        # Counted as sent before it goes: a thread that reads in_sync (a test's standby by
        # hand) could otherwise get its snapshot, ack it, and find the link in step with a
        # standby that has confirmed nothing, before this host has even read the ack.
        self._sent, self._acked = self._snapshot.cursor, 0
        self._send_piece()

    def _send_piece(self) -> None:
        snapshot = self._snapshot
        assert snapshot is not None
        rows, done = snapshot.piece(SNAPSHOT_PIECE_BYTES)
        self._send({"type": "snapshot", "part": self._part, "rows": rows, "done": done,
                    "cursor": snapshot.cursor, "head": snapshot.head, **self._about()})
        self._part += 1
        if done:
            self._snapshot = None
            self._send_new()  # what was written while it went out

    def _end_snapshot(self) -> None:
        """Stop sending a snapshot (its standby is gone, or gets another)."""
        if self._snapshot is not None:
            self._snapshot.close()
            self._snapshot = None

    def _about(self) -> dict[str, Any]:
        """What the standby keeps of this host beside the journal: the heartbeat (it must lose
        this host no later than clients do) and where clients reach it."""
        return {"heartbeat_s": self.heartbeat_s, "port": self.request_port,
                "follow": self._follow_no}

    def _send(self, message: dict[str, Any]) -> None:
        assert self._follower is not None
        # Gone, or not reading: tick() notices the silence.
        with contextlib.suppress(zmq.ZMQError):
            self.sock.send_multipart((self._follower, _pack(message)), zmq.NOBLOCK)
        self._next_beat_s = time.monotonic() + self.beat_s


class Standby:
    """A host that follows an active one and takes over when it is gone; see the module
    docstring. ``host`` is bound (its request port is where clients will come) and must not
    serve until :meth:`serve` hands it over; so is ``link``, its own link, served once it is
    active (the other host comes back as this one's standby)."""

    def __init__(
        self,
        host: Host,
        link: ActiveLink,
        active: str,
        *,
        context: zmq.Context[zmq.Socket[bytes]] | None = None,
    ) -> None:
        self.host = host
        self.link = link
        self.key = link.key
        self.active = active
        #: Where the active host's clients reach it, once it has said (its beats name the port).
        self.active_requests: str | None = None
        self.sock = _link_client(context or zmq.Context.instance(), self.key)
        # Nothing waits on the link for an active host that is away: the follows and beats of
        # minutes (a follow every two heartbeats) all reached it when it came back, and it
        # answered every follow, a snapshot each. A follow that finds no connection goes as
        # soon as there is one (_follow_waits).
        self.sock.immediate = True
        self.sock.connect(active)
        host.refusing = ("not_active", NOT_HEARD, {})
        #: Unheard, passive, lost, active or stopped (:data:`TRANSITIONS`); moved only by the
        #: thread that runs :meth:`serve`.
        self.role = Machine(Role.UNHEARD)
        #: When the active host was last heard; None until the first time.
        self.heard_s: float | None = None
        self._next_beat_s = 0.0
        self._next_follow_s = 0.0
        #: The last follow found no connection to the active host: it is sent again once
        #: there is one.
        self._follow_waits = False
        #: Follow requests sent while the active host was never heard.
        self._unanswered = 0
        #: The piece of a snapshot that comes next (None: none is coming).
        self._next_part: int | None = None
        #: The last entry the active host replied to players for without this standby's
        #: word: until its store holds it, this standby does not take over.
        self._must_have = 0
        #: Follow requests sent so far; each is numbered, and the active host names the last
        #: one it heard in what it sends.
        self._follows = 0
        #: When this standby last said something to the active host it had heard, by a clock
        #: that also counts a machine's sleep; and, after it was silent long enough for that
        #: host to lose it, the follow whose answer it needs before it takes over (None: it
        #: needs none).
        self._said_s: float | None = None
        self._answer_from: int | None = None
        #: The store as it was before a snapshot began replacing it (Store.keep_copy).
        self._kept: Path | None = None
        self._stop = threading.Event()
        self.took_over = threading.Event()
        #: The seats away at the active host, as its last beat said: {table: [seat]}.
        self._away: dict[str, list[int]] = {}

    def serve(self) -> None:
        """Follow the active host until it is lost and a client comes; then serve as the
        active host until :meth:`stop`."""
        try:
            if self._follow_until_needed():
                # Active: what the pair's history says of it, then the host's own loop.
                self.sock.close()
                self.host.store.rollback()  # half a snapshot: the store as it was before it
                self.host.refusing = None
                self.host.reload(away=self._away)
                self.host.link = self.link
                self.took_over.set()
                log.warning("the active host %s is gone and clients came: this host is active "
                            "now (%s)", self._named(), plural(len(self.host.tables), "table"))
                self.host.serve()
                self.role.apply(Event.STOP)
                return
        finally:
            self.sock.close()
        self.role.apply(Event.STOP)
        self.link.close()
        self.host.close()  # stopped while passive: the host never served

    def _named(self) -> str:
        """The active host as its clients reach it, once it has said where (else its link)."""
        if self.active_requests is None:
            return self.active
        return f"{self.active_requests} (link {self.active})"

    def serve_in_thread(self) -> threading.Thread:
        thread = threading.Thread(target=self.serve, name="sagani-standby", daemon=True)
        thread.start()
        return thread

    def stop(self) -> None:
        self._stop.set()
        self.host.stop()

    def _notice_silence(self, now_s: float) -> None:
        """The active host, heard before, has been silent past the timeout since: lost."""
        if (self.role.state is Role.PASSIVE and self.heard_s is not None
                and now_s - self.heard_s > self.link.lost_s):
            self.role.apply(Event.SILENT)

    def _follow_until_needed(self) -> bool:
        """The passive loop; True when this host must take over, False when stopped."""
        poller = zmq.Poller()
        poller.register(self.sock, zmq.POLLIN)
        poller.register(self.host.router, zmq.POLLIN)
        while not self._stop.is_set():
            now_s = time.monotonic()
            self._notice_silence(now_s)
            unheard = self.role.state is Role.UNHEARD
            if (unheard or self.role.state is Role.LOST) and now_s >= self._next_follow_s:
                self._follow()  # again and again while unheard: the active may come back
            elif self._follow_waits and self.sock.poll(0, zmq.POLLOUT):
                self._follow()  # the active host is there again: at once, not at the next turn
            self._beat_if_due()
            ready = dict(poller.poll(int(min(POLL_MS, self.link.beat_s * 1000))))
            if self.sock in ready:
                while self.sock.poll(0, zmq.POLLIN):
                    self._receive()
                    # A snapshot's pieces may keep coming for seconds: a beat between them, or
                    # the active host loses this standby for its silence.
                    self._beat_if_due()
            if self.host.router in ready:
                self._notice_own_silence()  # woken with a client waiting: before it is served
                self._notice_silence(time.monotonic())
                if self._next_part is not None and self.role.state is Role.LOST:
                    # In the middle of a snapshot its store is not the active host's history:
                    # served, it showed players none of their games, and the active host,
                    # started again, followed it and was given its empty store.
                    self.host.refusing = ("not_active", NO_COPY, {})
                elif (self.role.state is Role.LOST
                      and self.host.store.cursor() < self._must_have):
                    # Left behind: serving would undo moves the players were told were made.
                    self.host.refusing = ("not_active", BEHIND, {})
                elif self.role.state is Role.LOST and self._answer_from is not None:
                    # Silent itself past the active host's patience: that host may have gone
                    # on alone, and never said so here.
                    self.host.refusing = ("not_active", STALLED, {})
                elif self.role.apply(Event.CLIENT):  # lost: active now
                    return True  # leave the request for the host's own loop to answer
                self.host.refuse()  # refused: bounded, rate-limited, connections watched
            else:
                self.host.guard(time.monotonic())  # a peer may fill memory and never finish
            self.link.watch()  # its own link, served once active, is open to anyone already
        return False

    def _beat_if_due(self) -> None:
        if time.monotonic() >= self._next_beat_s and self.role.state is not Role.UNHEARD:
            self._send({"type": "beat"})

    def _follow(self) -> None:
        store = self.host.store
        cursor = store.cursor()
        port = int(self.host.endpoint.rsplit(":", 1)[1])
        self._follows += 1
        self._follow_waits = not self._send({
            "type": "follow", "follow": self._follows, "proof": _proof(self.key),
            "cursor": cursor, "head": store.head(), "port": port,
            "link_port": int(self.link.endpoint.rsplit(":", 1)[1])})
        self._next_follow_s = time.monotonic() + self.link.lost_s
        if self.role.state is Role.UNHEARD:
            if self._unanswered == UNANSWERED_FOLLOWS:
                log.warning("the active host %s has not answered this standby: is it running "
                            "there, and is this its standby code of now? (one with another "
                            "secret gets no answer at all); nothing is kept, and nothing taken "
                            "over, until it answers", self.active)
            self._unanswered += 1

    def _receive(self) -> None:
        message = _unpack(self.sock.recv())
        if message is None:
            return
        if self.role.state is Role.UNHEARD:
            # Started again plainly, this host asks that one first (elect): serving at once, it
            # would serve the copy it holds beside the active host.
            (self.host.store.data_dir / PEER_FILE).write_text(f"{self.active}\n")
            self.host.refusing = ("not_active", NOT_ACTIVE, {})
            if self._unanswered > UNANSWERED_FOLLOWS:
                log.warning("the active host %s answers now; this standby follows it",
                            self.active)
        self.heard_s = time.monotonic()
        self.role.apply(Event.HEARD)
        kind = message.get("type")
        alone = message.get("alone")
        if isinstance(alone, int):
            self._must_have = max(self._must_have, alone)
        answered = message.get("follow")
        if (self._answer_from is not None and isinstance(answered, int)
                and answered >= self._answer_from):
            self._answer_from = None  # heard since: it follows that host's history again
        store = self.host.store
        heartbeat_s, port = message.get("heartbeat_s"), message.get("port")
        if (isinstance(heartbeat_s, float) and heartbeat_s != self.host.heartbeat_s
                and caps.MIN_HEARTBEAT_S <= heartbeat_s <= caps.MAX_HEARTBEAT_S):
            self._pace(heartbeat_s)  # the active host's, whatever this one was started with
        if isinstance(port, int) and 0 < port < 65536:
            # Where clients reach it (named in refusals): on the machine its link is on.
            self.active_requests = f"{self.active.rsplit(':', 1)[0]}:{port}"
            self.host.refusing = ("not_active", NOT_ACTIVE, {"active": self.active_requests})
        if kind == "beat" and isinstance(message.get("away"), dict):
            self._away = message["away"]
        if kind == "entries":
            try:
                store.replay([tuple(entry) for entry in message["entries"]])
                if store.head() != message.get("head"):
                    raise ValueError("the heads differ")
            except (ValueError, TypeError, KeyError) as exc:
                # Not the history the active host has: ask again, and get a snapshot.
                log.warning("entries from %s do not follow this store (%s)", self.active, exc)
                store.rollback()
                self._follow()
                return
            store.commit(then=self._ack)
        elif kind == "snapshot":
            part = message.get("part")
            if part == 0:
                store.rollback()  # a snapshot begun before: this one replaces it
                if self._kept is None:  # what this host accepted on its own is not thrown away
                    self._kept = store.keep_copy()
                store.clear()  # in the same transaction as the rows: all or nothing
                self._next_part = 0
            try:
                if self._next_part is None or part != self._next_part:
                    raise ValueError(f"piece {part} came instead of {self._next_part}")
                self._next_part += 1
                store.restore([(table, tuple(row)) for table, row in message["rows"]])
            except (ValueError, TypeError, KeyError, sqlite3.Error) as exc:
                log.warning("a snapshot from %s does not fit (%s); asking again", self.active,
                            exc)
                store.rollback()
                self._follow()
                return
            if message.get("done"):
                self._next_part = None
                store.set_head(message["cursor"], message["head"])
                store.commit(then=self._ack)
                self._judge_kept_copy()

    def _judge_kept_copy(self) -> None:
        """Keep the copy of the store a snapshot replaced if it held games the active host's
        lacks (a host that went its own way and came back as the standby), and say where."""
        kept, self._kept = self._kept, None
        if kept is None:
            return
        tables, actions = self.host.store.lost_from(kept)
        if not tables and not actions:
            shutil.rmtree(kept, ignore_errors=True)  # a history the active host's goes on from
            return
        log.warning("this host's store held %d tables and %d actions the active host %s has "
                    "not: it follows that host's history, and keeps its own in %s (sagani "
                    "record export --data-dir reads it)", tables, actions, self.active, kept)

    def _ack(self) -> None:
        """Tell the active host what this store now holds, by its cursor and head (an ack of
        entries the active host has since undone names a head it never had)."""
        store = self.host.store
        self._send({"type": "ack", "cursor": store.cursor(), "head": store.head()})

    def _pace(self, heartbeat_s: float) -> None:
        """Beat, and count the active host lost, at the pace of ``heartbeat_s``; serve with it
        too once active (clients keep the heartbeat the active host told them)."""
        self.host.heartbeat_s = heartbeat_s
        self.link.pace(heartbeat_s)

    def _send(self, message: dict[str, Any]) -> bool:
        """Send ``message`` if the link is connected; say whether it went."""
        self._notice_own_silence()  # before this message, which would end the silence
        sent = False
        with contextlib.suppress(zmq.ZMQError):
            self.sock.send(_pack(message), zmq.NOBLOCK)
            sent = True
        self._next_beat_s = time.monotonic() + self.link.beat_s
        # (Not while unheard: it follows only every lost_s then, and there is nothing to lose.)
        self._said_s = None if self.role.state is Role.UNHEARD else _awake_s()
        return sent

    def _notice_own_silence(self) -> None:
        """This standby said nothing for long enough that its active host may have lost it (a
        stopped process, a machine asleep) and gone on alone, replying to moves it never sent
        here, and telling it nothing more: it takes over only once that host has answered a
        follow sent now."""
        if (self._said_s is None or self._answer_from is not None
                or _awake_s() - self._said_s <= self.link.lost_s - self.link.beat_s):
            return
        log.warning("this standby was silent for %.1f s (stopped, or its machine asleep): its "
                    "active host %s may have gone on without it; it takes over only once it "
                    "has heard that host again", _awake_s() - self._said_s, self._named())
        self._answer_from = self._follows + 1
        self._follow()
