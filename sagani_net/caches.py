"""A map that forgets: the one container every cache keyed by what a client sends uses, so that
no number of distinct requests grows the host (a game's too: Sagrada keeps the pattern lists
tables name). Below the games and the network alike; the standard library only.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class BoundedCache(Generic[K, V]):
    """A map that forgets its least recently used entries past ``max_entries`` or past
    ``max_weight`` in all (each entry weighs ``weight(value)``): every cache keyed by what a
    client sends is one of these, so that no number of distinct requests grows the host.
    An entry heavier than ``max_weight`` alone is not kept.

    >>> cache = BoundedCache(max_entries=2, max_weight=10, weight=len)
    >>> cache.put("a", "xxxx"); cache.put("b", "yyyy"); cache.get("a")
    'xxxx'
    >>> cache.put("c", "zzzz"); cache.get("b"), len(cache), cache.weight  # b was used least
    (None, 2, 8)
    >>> cache.put("d", "w" * 11); cache.get("d"), len(cache)
    (None, 2)
    """

    def __init__(self, max_entries: int, max_weight: int | None = None,
                 weight: Callable[[V], int] | None = None) -> None:
        self.max_entries = max_entries
        self.max_weight = max_weight
        self._weigh = weight or (lambda _value: 1)
        self._entries: OrderedDict[K, tuple[V, int]] = OrderedDict()
        #: What the entries weigh in all.
        self.weight = 0

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: K) -> V | None:
        found = self._entries.get(key)
        if found is None:
            return None
        self._entries.move_to_end(key)
        return found[0]

    def put(self, key: K, value: V) -> None:
        self.pop(key)
        w = self._weigh(value)
        if self.max_weight is not None and w > self.max_weight:
            return
        self._entries[key] = (value, w)
        self.weight += w
        while len(self._entries) > self.max_entries or (
                self.max_weight is not None and self.weight > self.max_weight):
            self.weight -= self._entries.popitem(last=False)[1][1]

    def pop(self, key: K) -> V | None:
        found = self._entries.pop(key, None)
        if found is None:
            return None
        self.weight -= found[1]
        return found[0]

    def clear(self) -> None:
        self._entries.clear()
        self.weight = 0

