"""What a stand-in costs the host: the time its bot (sagani_net.host.STAND_IN_STRATEGY) takes
per decision, which the host spends in its own loop when it plays an away player's seat.

Run: ``python bench/stand_in.py [--games N] [--players P]``. For each game: N whole games
played by the stand-in's bot alone, every decision timed in this process's CPU time (what one
core does; the machine may be shared); prints the median, the 99th percentile and the worst.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from sagani_net.bots.runner import think
from sagani_net.games import game_names, get_game
from sagani_net.host import STAND_IN_STRATEGY


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--players", type=int, default=3)
    args = parser.parse_args()
    for name in game_names():
        game = get_game(name)
        times_ms: list[float] = []
        for index in range(args.games):
            state = game.new_state(game.parse_config({"players": args.players}), index)
            rng = random.Random(index)
            while not state.is_over():
                seat = state.current_seat
                start = time.process_time()
                data = think(STAND_IN_STRATEGY, state.view(seat), rng.getrandbits(64), None,
                             name, seat, state.private(seat))
                times_ms.append((time.process_time() - start) * 1000)
                state.apply(state.parse_action(data))
        times_ms.sort()
        p99 = times_ms[min(len(times_ms) - 1, int(len(times_ms) * 0.99))]
        print(f"{name:<8} {len(times_ms):>5} decisions: median {statistics.median(times_ms):.1f} "
              f"ms, p99 {p99:.1f} ms, worst {times_ms[-1]:.1f} ms")


if __name__ == "__main__":
    main()
