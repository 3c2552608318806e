"""Per-peer request rate limits: a token bucket for each ROUTER peer.

Each peer (its ZeroMQ routing id) may send ``burst`` requests at once and ``rate_per_s`` a
second after that; a request over the limit gets a ``rate_limited`` error without being
decoded. Buckets are kept for at most ``max_peers`` peers; the least recently heard go first
(a peer that is forgotten starts again with a full bucket, which is no worse than a new peer).

>>> bucket = RateLimiter(rate_per_s=1.0, burst=2)
>>> [bucket.allow(b"peer", now_s=0.0) for _ in range(3)]
[True, True, False]
>>> bucket.allow(b"peer", now_s=1.0)
True
"""

from __future__ import annotations

import time
from collections import OrderedDict

#: Requests a second one peer may send, sustained, and in one burst. A person clicks a few
#: times a second and a bot acts once per turn; a Lazy Pirate retry is one more request.
RATE_PER_S = 200.0
RATE_BURST = 400
#: Peers whose buckets are remembered.
MAX_PEERS = 10_000
#: Largest message the request socket accepts at all (ZMQ_MAXMSGSIZE): a bigger one makes
#: libzmq drop the connection before any of it is buffered. Frames between the decoder's limit
#: (protocol.wire.MAX_REQUEST_BYTES) and this one are read and refused with ``too_big``.
MAX_FRAME_BYTES = 256 * 1024


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
