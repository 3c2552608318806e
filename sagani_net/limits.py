"""What one peer may cost the host: request rates, message shapes, memory, quotas, log lines.

Per-peer request rate: a token bucket for each ROUTER peer. Each peer (its ZeroMQ routing id)
may send ``burst`` requests at once and ``rate_per_s`` a second after that; a request over the
limit gets a ``rate_limited`` error without being decoded. A request whose reply is big or
whose handling took long costs more (:meth:`RateLimiter.charge`: one token more per
:data:`REPLY_COST_BYTES` of reply or per :data:`REQUEST_COST_S` of the host's time, whichever
is more), so that a cheap request with an expensive answer (``tables`` on a full host) cannot
take the host's time from the rest: at its rate, a peer gets about a fifth of the host's time.
Buckets are kept for at most ``max_peers`` peers; the least recently heard go first (a peer
that is forgotten starts again with a full bucket, which is no worse than a new peer).

>>> bucket = RateLimiter(rate_per_s=1.0, burst=2)
>>> [bucket.allow(b"peer", now_s=0.0) for _ in range(3)]
[True, True, False]
>>> bucket.allow(b"peer", now_s=1.0)
True
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable

from sagani_net.protocol.messages import printable

#: Requests a second one peer may send, sustained, and in one burst. A person clicks a few
#: times a second and a bot acts once per turn; a Lazy Pirate retry is one more request.
RATE_PER_S = 200.0
RATE_BURST = 400
#: A reply costs its peer one more token per this many bytes (a snapshot: about one; the
#: listing of 1,000 tables: about 33).
REPLY_COST_BYTES = 8192
#: A request costs its peer one more token per this much of the host's processor time spent
#: on it (the thread's own time: a loaded machine does not make requests dearer). A token a
#: millisecond: RATE_PER_S of them is a fifth of the host's time, RATE_BURST 0.4 s.
REQUEST_COST_S = 0.001
#: Peers whose buckets are remembered.
MAX_PEERS = 10_000
#: Bytes of table entries in one `tables` reply: 1,000 tables of 4 players fit (about 265
#: KB); the listing goes on in pages when names or seats make it longer (up to about 1.6 MB).
TABLES_PAGE_BYTES = 512 * 1024
#: Largest frame the request socket accepts at all (ZMQ_MAXMSGSIZE): a bigger one makes libzmq
#: drop the connection. Frames between the decoder's limit
#: (sagani_net.protocol.wire.MAX_REQUEST_BYTES) and this one are read and refused with ``too_big``.
MAX_FRAME_BYTES = 256 * 1024
#: Frames of one request message after the routing id: the body, its empty delimiter and up to
#: four routing ids of proxies on the way (PROTOCOL.md, section 1). A longer message is read
#: and dropped frame by frame, and refused with a reply of fixed size.
MAX_REQUEST_FRAMES = 6
#: A routing id is 1..255 bytes; an envelope frame longer than that is no routing id.
MAX_ENVELOPE_FRAME_BYTES = 255
#: No reply is bigger than this (the envelope is bounded by the two limits above).
MAX_REPLY_BYTES = 1024 * 1024
#: Bytes one connection may have sent the host that it has not yet read as whole requests:
#: ZeroMQ keeps a multipart message until its last frame arrives, whatever its size, so the
#: host measures each connection (the kernel's count of bytes received, TCP_INFO) and cuts
#: one that is over. Requests waiting to be read count too, so this is far above what a
#: pipelining client ever has in flight.
MAX_UNREAD_BYTES = 4 * 1024 * 1024
#: Bytes of replies one connection may leave unread (sent by the host, not acknowledged by the
#: peer's TCP): past it, its requests are dropped unanswered until it reads.
MAX_UNREAD_REPLY_BYTES = 2 * 1024 * 1024
#: What a subscriber may send the broadcast socket in all (subscriptions are a few bytes each).
MAX_SUBSCRIBER_BYTES = 256 * 1024
#: Subscriptions one connection to the broadcast socket may hold (a client follows a table or
#: a few on one connection; ``b""`` is every table). libzmq keeps them in a trie whose nodes
#: hold a table of children spanning their lowest to their highest next byte, up to 2 KiB for
#: a few bytes sent, so their bytes alone bound nothing; their count and length do.
MAX_SUBSCRIPTIONS = 32
#: How often (at most) the host measures its connections.
GUARD_INTERVAL_S = 0.02
#: Tables (open or running) and sessions one address (an IP) may hold at once: a quarter of the
#: host's caps (Limits in sagani_net.quotas), so that one machine cannot fill them.
TABLES_PER_ADDRESS = 250
SESSIONS_PER_ADDRESS = 5000
#: Seats kept for bots, in the open or running tables one address created, at a host that plays
#: them with its own house bots (``sagani host --bots``): each is a bot thinking in the host's
#: house-bot process, with connections of its own, for as long as its game lasts. Without it one
#: guest's 150 tables of five bot seats made another's table wait 41 s for its bot to sit.
HOUSE_BOT_SEATS_PER_ADDRESS = 64
#: Connections one address may hold to each of the host's sockets: far more than a machine of
#: players and bots needs (each client holds one of each), far fewer than the descriptors a
#: host has (it raises its own soft limit at start). ``sagani host --connections-per-address``
#: raises it for a machine that runs hundreds of bots.
CONNECTIONS_PER_ADDRESS = 256
#: Finished tables the host keeps in memory at once (listed, synced and heartbeated without a
#: read from disk), those that ended here and those read back for a request alike: about 100
#: KiB each, so 25 MiB. Past it the one longest held is forgotten (its record stays on disk
#: and is read back when asked for): without a cap, a client that asks for each of the old
#: tables of a data dir of 3,000 games made the host hold 230 MiB more for 10 minutes.
FINISHED_TABLES = 256
#: Finished (or expired) games whose records the data dir keeps; past it the oldest are
#: removed, a few at each game that ends (``sagani host --keep-games``; ``all``: none is).
#: Ten tables playing day and night through a weekend, a game each ten minutes, finish 2,880;
#: a record takes 5-25 KB, so the bound holds 50-250 MB. Without one, a guest finishing solo
#: games as fast as the host answers wrote 4 GB a day.
FINISHED_RECORDS = 10_000
#: Records removed at most when one game ends: more than one, so that a data dir over the bound
#: (one kept with a higher one) comes down to it, never so many that the batch waits long.
RECORDS_REMOVED_PER_GAME = 64
#: An open table nobody joined for this long, or a running one where no player or bot acted
#: for this long, is closed (status "expired"); its seats and sessions are freed.
OPEN_TABLE_IDLE_S = 15 * 60.0
RUNNING_TABLE_IDLE_S = 6 * 3600.0
#: Shortest heartbeat period the host accepts (a shorter one is a busy loop).
MIN_HEARTBEAT_S = 0.01
MAX_HEARTBEAT_S = 3600.0
#: Log lines of one kind (one message template) written per window; the rest are counted and
#: summed up in one line when the window ends.
LOG_LINES_PER_WINDOW = 20
LOG_WINDOW_S = 10.0


class RateLimiter:
    """Token buckets keyed by peer; see the module docstring."""

    def __init__(
        self, rate_per_s: float = RATE_PER_S, burst: int = RATE_BURST, max_peers: int = MAX_PEERS
    ) -> None:
        self.rate_per_s = rate_per_s
        self.burst = burst
        self.max_peers = max_peers
        # peer -> (tokens left, when they were counted)
        self._buckets: OrderedDict[bytes, tuple[float, float]] = OrderedDict()

    def allow(self, peer: bytes, now_s: float | None = None) -> bool:
        """Take one token from ``peer``'s bucket; False if it is empty."""
        now_s = time.monotonic() if now_s is None else now_s
        tokens, then_s = self._buckets.pop(peer, (float(self.burst), now_s))
        tokens = min(float(self.burst), tokens + (now_s - then_s) * self.rate_per_s)
        allowed = tokens >= 1.0
        self._buckets[peer] = (tokens - 1.0 if allowed else tokens, now_s)
        if len(self._buckets) > self.max_peers:
            self._buckets.popitem(last=False)
        return allowed

    def charge(self, peer: bytes, reply_bytes: int, cost_s: float = 0.0,
               now_s: float | None = None) -> None:
        """Take the extra tokens a reply of ``reply_bytes`` that took ``cost_s`` of the host's
        time costs; the bucket may go into debt, which the peer's next requests pay off. What
        the bucket gained while the request was handled counts first, up to the burst: a slow
        request does not pay for itself by taking long.

        >>> bucket = RateLimiter(rate_per_s=1.0, burst=2)
        >>> bucket.allow(b"p", now_s=0.0); bucket.charge(b"p", 3 * REPLY_COST_BYTES, now_s=0.0)
        True
        >>> bucket.allow(b"p", now_s=1.0)
        False
        >>> bucket.allow(b"q", now_s=0.0); bucket.charge(b"q", 10, cost_s=0.0025, now_s=5.0)
        True
        >>> bucket.allow(b"q", now_s=5.5), bucket.allow(b"q", now_s=6.0)
        (False, True)
        """
        extra = max(reply_bytes // REPLY_COST_BYTES, int(cost_s / REQUEST_COST_S))
        if extra and peer in self._buckets:
            now_s = time.monotonic() if now_s is None else now_s
            tokens, then_s = self._buckets[peer]
            tokens = min(float(self.burst), tokens + (now_s - then_s) * self.rate_per_s)
            self._buckets[peer] = (tokens - extra, now_s)


#: A log record's attribute (``extra={QUIET_KIND: ...}``) that splits one template into kinds
#: counted apart by :class:`QuietRepeats`.
QUIET_KIND = "quiet_kind"


class QuietRepeats(logging.Filter):
    """Lets at most ``per_window`` lines of each message template (and kind, QUIET_KIND)
    through per window; at the window's end one line says how many were held back. A flood of
    one kind of event (bots missing deadlines on hundreds of tables, a peer sending garbage)
    cannot flood the log, nor hide the lines of the other kinds."""

    def __init__(self, per_window: int = LOG_LINES_PER_WINDOW, window_s: float = LOG_WINDOW_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.per_window = per_window
        self.window_s = window_s
        self.clock = clock
        self._window_end_s = 0.0
        self._counts: dict[tuple[str, int, object], int] = {}
        #: The last line held back of each template, as it would have been written.
        self._last: dict[tuple[str, int, object], str] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        now_s = self.clock()
        if now_s >= self._window_end_s:
            held = {key: n - self.per_window for key, n in self._counts.items()
                    if n > self.per_window}
            last = self._last
            self._counts, self._last = {}, {}
            self._window_end_s = now_s + self.window_s
            for key, n in held.items():
                # The template alone ("table %s #%d") says little: the last line says what.
                logging.getLogger(record.name).log(
                    key[1], "(%d more lines like this one in the last %g s were not written; "
                    "the last: %s)", n, self.window_s, last[key])
        key = (str(record.msg), record.levelno, getattr(record, QUIET_KIND, None))
        count = self._counts[key] = self._counts.get(key, 0) + 1
        if count > self.per_window:
            self._last[key] = record.getMessage()
        return count <= self.per_window


class PrintableLines(logging.Filter):
    """Writes each line with its control and bidi characters escaped (sagani_net.protocol.messages.
    printable): a name from a store older than the host's check cannot paint the terminal
    that shows the log. Add it after :class:`QuietRepeats`, which keys on the template."""

    def filter(self, record: logging.LogRecord) -> bool:
        # Kept formatted, so that the handler does not format the line a second time.
        record.msg, record.args = printable(record.getMessage()), None
        return True
