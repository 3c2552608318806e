"""What each TCP connection to the host has sent and not been read, and read and not been
answered: the host's memory per peer, bounded whatever ZeroMQ would buffer.

libzmq limits a frame (ZMQ_MAXMSGSIZE) and counts messages (high-water marks), but it holds a
multipart message until its last frame arrives, however many frames that takes, and queues
replies by count, not by size. So the host watches each connection itself: a socket monitor
tells it the file descriptor of every connection accepted, and the kernel's TCP_INFO gives
how many bytes each one has received and had acknowledged. A connection whose received bytes
run ahead of the whole requests the host has read from it by more than ``max_unread_bytes`` is
holding an endless or huge message: the host shuts it down, and libzmq frees what it held.
A connection that leaves more than ``max_unread_reply_bytes`` of replies unread gets no more
replies until it reads.

A look at a connection is a system call (a few microseconds), and a busy host has hundreds:
each :meth:`ConnectionGuard.check` looks at every connection while there are at most
``EVERY_LOOK`` of them; beyond that at a share of them in turn (a sweep of ``SWEEP_LOOKS``
checks looks at every connection there was when it began), and at every check at the ones
that are suspect: accepted since the last check, or found holding more than
``SUSPECT_BYTES`` unread at their last look.
"""

from __future__ import annotations

import ctypes
import logging
import os
import socket
import struct
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, cast

import zmq

log = logging.getLogger("sagani_net.host")

#: Where Linux's struct tcp_info keeps tcpi_bytes_acked and tcpi_bytes_received (u64 each,
#: since Linux 4.1 and 4.2).
_TCP_INFO_BYTES = 136
_ACKED_AT = 120
_RECEIVED_AT = 128
#: Connections a check looks at, all of them, before it looks at them in turn; the most checks
#: between two looks at one connection then; what a connection may hold unread and still be
#: looked at only in its turn (an honest peer's requests are read as they come: it holds none).
EVERY_LOOK = 64
SWEEP_LOOKS = 5
SUSPECT_BYTES = 64 * 1024
#: What CURVE adds to a frame: it travels as a MESSAGE command ("\x07MESSAGE"), with an
#: 8-byte nonce, a 16-byte MAC and a flags byte.
CURVE_FRAME_BYTES = 33
#: More than the greeting and handshake of a connection take (CURVE's included): the bytes
#: counted as read and sent before the first message.
HANDSHAKE_BYTES = 4096


def wire_bytes(size: int, curve: bool) -> int:
    """The bytes a ZMTP frame of ``size`` bytes takes on the wire: exact, because the counts
    add up over a connection's life (an estimate per frame would drift without bound)."""
    if curve:
        size += CURVE_FRAME_BYTES
    return size + (2 if size <= 255 else 9)  # a short or a long frame header


@dataclass
class Connection:
    fd: int
    #: Counts connections, so that a descriptor number used again is another connection.
    serial: int
    #: The socket's inode: libzmq may close the descriptor and the number may name another
    #: file by the time the host acts on it; the inode tells.
    inode: int
    #: Bytes of whole messages the host has read from it (with their wire overhead).
    read: int = HANDSHAKE_BYTES
    #: Bytes of replies the host has sent it (with their wire overhead).
    sent: int = HANDSHAKE_BYTES
    #: Of which the peer had acknowledged this many at the last look.
    acked: int = 0
    #: The peer's IP address ("" if it could not be read).
    address: str = ""
    #: The topics it is subscribed to (a broadcast socket's connection): libzmq keeps a set of
    #: them per connection, so a topic sent again holds nothing more, and an unsubscription
    #: frees room only for a topic it holds.
    topics: set[bytes] = field(default_factory=set)


#: TCP_INFO's layout above is Linux's; elsewhere the counts are unknown and nothing is cut
#: (SECURITY.md says what bounds a peer there).
_HAVE_TCP_INFO = sys.platform.startswith("linux") and hasattr(socket, "TCP_INFO")


class _TcpInfo(ctypes.Structure):
    """The start of Linux's struct tcp_info, up to the two counters the guard reads."""

    _fields_ = [("head", ctypes.c_ubyte * _ACKED_AT), ("bytes_acked", ctypes.c_uint64),
                ("bytes_received", ctypes.c_uint64)]


_libc = ctypes.CDLL(None, use_errno=True)
_IPPROTO_TCP, _TCP_INFO = int(socket.IPPROTO_TCP), getattr(socket, "TCP_INFO", 11)
_getsockopt = _libc.getsockopt
_getsockopt.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_void_p,
                        ctypes.POINTER(ctypes.c_uint32)]


class TcpCounter:
    """Reads TCP_INFO's two counters of a descriptor with libc's getsockopt, into a buffer of
    its own made once: the guard asks about every connection every GUARD_INTERVAL_S, and a
    socket.socket made and detached around each descriptor, a bytes object for each answer,
    cost more than the system call. One per thread that asks (a host's loop has its own)."""

    def __init__(self) -> None:
        self._info = _TcpInfo()
        self._size = ctypes.c_uint32()
        self._refs = ctypes.byref(self._info), ctypes.byref(self._size)

    def __call__(self, fd: int) -> tuple[int, int] | None:
        """(bytes received, bytes the peer acknowledged) of the TCP socket ``fd``, or None."""
        if not _HAVE_TCP_INFO:
            return None
        self._size.value = _TCP_INFO_BYTES
        info_ref, size_ref = self._refs
        if (_getsockopt(fd, _IPPROTO_TCP, _TCP_INFO, info_ref, size_ref) != 0
                or self._size.value < _TCP_INFO_BYTES):
            return None
        return self._info.bytes_received, self._info.bytes_acked


def tcp_counts(fd: int) -> tuple[int, int] | None:
    """(bytes received, bytes the peer acknowledged) of the TCP socket ``fd``, or None."""
    return TcpCounter()(fd)


def peer_address(fd: int, port: int) -> str | None:
    """The IP address at the other end of ``fd``, a TCP connection accepted on ``port``, or
    None if ``fd`` is no such connection.

    A monitor tells of a connection after the fact: by the time the host reads the event,
    libzmq may have closed the descriptor and given its number to another socket, a listener
    or another bound socket's peer. Such a file is not this guard's to count or to cut (a
    listener cut under libzmq fails its next accept, and libzmq aborts the process)."""
    try:
        sock = socket.socket(fileno=fd)
    except OSError:
        return None
    try:
        if (sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN)
                or sock.getsockname()[1] != port):
            return None
        return str(sock.getpeername()[0])
    except (OSError, IndexError, TypeError):  # not connected, or not an IP socket
        return None
    finally:
        sock.detach()  # the descriptor is libzmq's


def inode(fd: int) -> int | None:
    try:
        return os.fstat(fd).st_ino
    except OSError:
        return None


def cut(conn: Connection, reset: bool = True) -> bool:
    """Break a connection under libzmq: reset it (connect to AF_UNSPEC aborts a TCP
    connection: the peer gets an RST, the kernel drops its buffers) and shut it down, so that
    libzmq, seeing it fail, closes it and frees what it held. Without ``reset``, what the
    kernel has still to send goes before the end (the host's last replies, as it stops). It
    works on a duplicate of the descriptor, checked to be the same socket: the number may
    already be another file's. False if it was not (closed already, or another file's now)."""
    try:
        fd = os.dup(conn.fd)
    except OSError:
        return False
    try:
        if inode(fd) != conn.inode:
            return False
        try:
            sock = socket.socket(fileno=fd)
        except OSError:
            return False  # not a socket
        try:
            if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN):
                return False  # a listener: libzmq takes its next accept's EINVAL and aborts
            if reset:
                unspec = struct.pack("=H14x", socket.AF_UNSPEC)
                _libc.connect(fd, unspec, len(unspec))
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # already reset: nothing left to shut
        finally:
            sock.detach()
        return True
    finally:
        os.close(fd)


_EVENTS, _POLLIN = int(zmq.EVENTS), int(zmq.POLLIN)
#: How long a closing host waits for libzmq to drop the connections it broke (a few ms on a
#: quiet machine): past it, it closes all the same.
DROP_WAIT_S = 0.5


def parse_monitor_message(frames: list[bytes]) -> dict[str, int]:
    """A socket monitor's event as ``zmq.utils.monitor`` reads it (a 16-bit event and a 32-bit
    value, then the endpoint), written here: that module imports zmq.asyncio, and with it
    asyncio, which a host has no use for and `sagani host` would wait for at start."""
    event, value = struct.unpack("=hi", frames[0])
    return {"event": event, "value": value}


class ConnectionGuard:
    """The connections of one bound socket, and what each may hold; see the module docstring.

    ``max_unread_bytes`` None: nothing the peer sends is ever read as requests (a PUB socket's
    subscribers), so ``max_total_bytes`` bounds all it may send.
    """

    def __init__(
        self,
        sock: zmq.Socket[Any],
        name: str,
        *,
        max_unread_bytes: int | None = None,
        max_total_bytes: int | None = None,
        max_unread_reply_bytes: int | None = None,
        max_per_address: int | None = None,
        max_subscriptions: int | None = None,
        curve: bool = False,
    ) -> None:
        self.name = name
        self.max_subscriptions = max_subscriptions
        self.curve = curve
        self.max_unread_bytes = max_unread_bytes
        self.max_total_bytes = max_total_bytes
        self.max_unread_reply_bytes = max_unread_reply_bytes
        self.max_per_address = max_per_address
        self.connections: dict[int, Connection] = {}
        self._per_address: dict[str, int] = {}
        self.cuts = 0
        self._serials = 0
        self.monitor = sock.get_monitor_socket(zmq.EVENT_ACCEPTED | zmq.EVENT_DISCONNECTED)
        self._sock = sock
        self._counts = TcpCounter()
        #: The connections this sweep has still to look at, and those looked at every check.
        self._turns: list[int] = []
        self._suspects: set[int] = set()
        #: The port the socket listens on, read at its first connection (it binds after).
        self._port: int | None = None
        #: Set by drop_all: the socket is about to close, and a connection told of late is cut.
        self._dropping = False

    def close(self) -> None:
        self._sock.disable_monitor()
        self.monitor.close()

    def drop_all(self) -> None:
        """Break every connection there is, and those still to come, before the socket closes:
        libzmq 4.3.5 aborts the process (session_base.cpp:233) when a connection fails while
        its socket is closing and its engine is part way through a message, as a subscriber's
        that stopped reading is. Failing while the socket is open, it is dropped cleanly.
        :meth:`dropped` tells when libzmq has dropped them all."""
        self.events()
        # New connections are cut as they are told of. Not unbound: the listener owns the
        # sessions of the connections it accepted, and ends them with it, the very race.
        self._dropping = True
        for conn in list(self.connections.values()):
            if not cut(conn, reset=False):  # gone already, or its number another file's
                self._forget(conn.fd)

    def dropped(self) -> bool:
        """True once libzmq has told of every connection :meth:`drop_all` broke."""
        self.events()
        return not self.connections

    def events(self) -> None:
        """Take in the connections accepted and closed since the last look."""
        while cast(int, self.monitor.get(_EVENTS)) & _POLLIN:  # (ints: pyzmq's enums cost)
            event = parse_monitor_message(self.monitor.recv_multipart(zmq.NOBLOCK))
            fd = int(event["value"])
            if event["event"] == zmq.EVENT_ACCEPTED:
                self._accepted(fd)
            else:
                self._forget(fd)

    def _accepted(self, fd: int) -> None:
        self._serials += 1
        self._forget(fd)  # a number reused before its DISCONNECTED was read
        if self._port is None:
            endpoint = cast(bytes, self._sock.getsockopt(zmq.LAST_ENDPOINT))
            self._port = int(endpoint.rsplit(b":", 1)[1])
        address = peer_address(fd, self._port)
        if address is None:  # closed already, its number another file's: nothing to guard
            return
        conn = Connection(fd, self._serials, inode(fd) or -1, address=address)
        self.connections[fd] = conn
        self._suspects.add(fd)  # whatever it sent before it was known counts too
        count = self._per_address[conn.address] = self._per_address.get(conn.address, 0) + 1
        if self._dropping:
            if not cut(conn, reset=False):
                self._forget(fd)
            return
        # Descriptors are the host's to run out of: one machine may not take them all.
        if self.max_per_address is not None and conn.address and count > self.max_per_address:
            log.warning("%s: %s holds %d connections already; another is cut", self.name,
                        conn.address, count - 1)
            self.cuts += 1
            self._forget(fd)
            cut(conn)

    def _forget(self, fd: int) -> None:
        conn = self.connections.pop(fd, None)
        self._suspects.discard(fd)
        if conn is not None:
            left = self._per_address[conn.address] - 1
            if left:
                self._per_address[conn.address] = left
            else:
                del self._per_address[conn.address]

    def _connection(self, fd: int) -> Connection | None:
        conn = self.connections.get(fd)
        if conn is None:  # accepted since the monitor was last read
            self.events()
            conn = self.connections.get(fd)
        return conn

    def serial(self, fd: int) -> int:
        """Which connection ``fd`` is: a number no other connection of this socket had.

        The descriptor of a closed connection is soon another's: the inode tells them apart,
        and until the monitor has told of the new one, it gets a number of its own.
        """
        now = inode(fd)
        conn = self._connection(fd)
        if conn is not None and conn.inode != now:
            self.events()
            conn = self.connections.get(fd)
        if conn is None or conn.inode != now:
            self._serials += 1
            return -self._serials
        return conn.serial

    def read(self, fd: int, sizes: list[int]) -> None:
        """The host read a whole message, frames of ``sizes`` bytes, from ``fd``."""
        conn = self._connection(fd)
        if conn is not None:
            conn.read += sum(wire_bytes(size, self.curve) for size in sizes)

    def sent(self, fd: int, sizes: list[int]) -> None:
        """The host sent ``fd`` a message, frames of ``sizes`` bytes."""
        conn = self.connections.get(fd)
        if conn is not None:
            conn.sent += sum(wire_bytes(size, self.curve) for size in sizes)

    def backed_up(self, fd: int) -> bool:
        """True if ``fd`` has left more replies unread than it may."""
        conn = self.connections.get(fd)
        limit = self.max_unread_reply_bytes
        if conn is None or limit is None or conn.sent - conn.acked <= limit:
            return False  # the usual case, without asking the kernel
        counts = self._counts(fd)
        if counts is not None:
            conn.acked = counts[1]
        return conn.sent - conn.acked > limit

    def take_subscriptions(self) -> None:
        """Apply the subscriptions and unsubscriptions waiting at an XPUB with XPUB_MANUAL,
        counting what each connection holds, and cut one that would hold more than
        ``max_subscriptions``: libzmq frees what it kept of its subscriptions with it. (libzmq
        keeps a copy of those it passes up, in a trie of its own, until the cut.) A CURVE
        connection's are not counted: libzmq does not say which connection they came from, and
        only holders of the join code get that far."""
        sock, limit = self._sock, self.max_subscriptions
        while cast(int, sock.get(_EVENTS)) & _POLLIN:
            message = sock.recv(zmq.NOBLOCK, copy=False)
            body = message.bytes
            if not body or body[0] > 1:
                continue  # neither: a message of another kind, which a PUB drops too
            try:
                fd: int | None = message.get(zmq.SRCFD)
            except zmq.ZMQError:  # a CURVE connection's (decrypted: no descriptor), or libzmq's
                fd = None  # own unsubscriptions for a connection that closed
            conn = None if fd is None else self._connection(fd)
            if fd is not None and conn is None and body[0] == 1:
                continue  # a connection cut (what libzmq still had of it) or gone already
            if conn is not None and limit is not None:
                if body[0] == 1:
                    conn.topics.add(body[1:])
                elif body[1:] in conn.topics:
                    conn.topics.remove(body[1:])
                else:
                    continue  # of a topic it never held: nothing to free, none to count
                if len(conn.topics) > limit:
                    log.warning("%s: a connection asked for more than %d subscriptions; it is "
                                "cut", self.name, limit)
                    self.cuts += 1
                    self._forget(conn.fd)
                    cut(conn)
                    continue
            # For the connection this message came from (libzmq's "last pipe").
            sock.setsockopt(zmq.SUBSCRIBE if body[0] == 1 else zmq.UNSUBSCRIBE, body[1:])

    def check(self) -> None:
        """Cut every connection holding more than it may; called every few milliseconds (which
        connections it looks at: the module docstring)."""
        self.events()
        if self.max_subscriptions is not None:
            self.take_subscriptions()
        connections = self.connections
        if len(connections) <= EVERY_LOOK:
            looks: Iterable[int] = list(connections)
            self._turns.clear()
        else:
            if not self._turns:
                self._turns = list(connections)
            share = max(EVERY_LOOK, -(-len(connections) // SWEEP_LOOKS))
            looks = {*self._turns[-share:], *self._suspects}
            del self._turns[-share:]
        for fd in looks:
            conn = connections.get(fd)
            counts = self._counts(fd) if conn is not None else None
            if conn is None or counts is None:
                continue
            received, conn.acked = counts
            unread = received - conn.read if self.max_unread_bytes is not None else received
            if self.max_unread_bytes is not None:
                over = unread > self.max_unread_bytes
            else:
                over = self.max_total_bytes is not None and received > self.max_total_bytes
            if over:
                log.warning("%s: a connection sent %d bytes the host has not read as requests; "
                            "it is cut", self.name, received - conn.read)
                self.cuts += 1
                self._forget(fd)
                cut(conn)
            elif unread > SUSPECT_BYTES:
                self._suspects.add(fd)
            else:
                self._suspects.discard(fd)


def close_guarded(guards: Iterable[ConnectionGuard], wait_s: float = DROP_WAIT_S) -> None:
    """Close the guards' sockets, each connection dropped first (:meth:`ConnectionGuard.drop_all`
    says why), waiting up to ``wait_s`` for libzmq to tell that it has dropped them."""
    guards = list(guards)
    for guard in guards:
        guard.drop_all()
    poller = zmq.Poller()
    for guard in guards:
        poller.register(guard.monitor, zmq.POLLIN)
    give_up = time.monotonic() + wait_s
    while not all(guard.dropped() for guard in guards):
        left = give_up - time.monotonic()
        if left <= 0:
            log.warning("closing with connections libzmq has not dropped yet")
            break
        poller.poll(max(1, int(left * 1000)))
    for guard in guards:
        guard.close()
        guard._sock.close()
