"""What a ``legal`` request costs the host, against a ``sync``: median CPU microseconds of the
handler, the first ask of a decision (the list worked out and paged) and a later one (a page
served from the table's cache), on decisions of random games with the most actions.

Run: ``python bench/legal.py [--decisions N]``. One process, the handlers called directly on a
real host (no sockets in the timing): CPU time (``time.process_time``) of this process.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from sagani_net.host import Host
from sagani_net.store import Store

GAMES = [("sagani", {"players": 4}), ("sagrada", {"players": 4}), ("sugi", {"players": 5})]


def micros(call: Any, repeat: int = 1) -> float:
    start = time.process_time()
    for _ in range(repeat):
        call()
    return (time.process_time() - start) / repeat * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        host = Host(Store(Path(tmp)), port=0, client_seeds=True)  # seeded tables: repeatable
        handlers = host.room.handlers  # straight to the tables: no sockets measured
        try:
            for game, config in GAMES:
                first, cached, sync, sizes = [], [], [], []
                ids = iter(range(1, 10**9))
                table = handlers["create"]({"id": next(ids), "game": game, "config": config,
                                            "seed": 1, "bots": [], "deadline_s": None,
                                            "turn_timer_s": None})["table"]
                tokens = [handlers["join"]({"id": next(ids), "table": table, "token": None,
                                            "role": "player", "seat": None, "name": None})["token"]
                          for _ in range(len(host.tables[table].holders))]
                rng = random.Random(1)
                while len(first) < args.decisions:
                    state = host.tables[table].state
                    if state.is_over():
                        break
                    ask = {"id": 1, "table": table, "token": tokens[state.current_seat],
                           "version": None, "page": 0}
                    look = {"id": 1, "table": table, "token": ask["token"]}
                    first.append(micros(lambda ask=ask: handlers["legal"](ask)))
                    cached.append(micros(lambda ask=ask: handlers["legal"](ask), 20))
                    sync.append(micros(lambda look=look: handlers["sync"](look), 20))
                    sizes.append(host.tables[table].legal[1])
                    state.apply(rng.choice(state.legal_actions()))
                    host.tables[table].legal = None
                print(f"{game} {config}: {len(first)} decisions, up to {max(sizes)} actions; "
                      f"legal first ask {statistics.median(first):.0f} us (max "
                      f"{max(first):.0f}), a cached page {statistics.median(cached):.0f} us, "
                      f"sync {statistics.median(sync):.0f} us (medians)")
        finally:
            host.close()


if __name__ == "__main__":
    main()
