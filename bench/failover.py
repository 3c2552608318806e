"""Take-over time of a pair of hosts (issue 14): kill -9 the active host at random moments of
4-player games played by bot processes, and time each kill to the next move a watcher sees.

    PYTHONPATH=$PWD python bench/failover.py --kills 20 --heartbeat-s 0.2

Each kill is checked as the tests check it: every game's record has exactly the moves the bots
were told were accepted, and replays from its seed to the same result.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from failover_kit import Pair, play_with_kills  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--kills-per-game", type=int, default=3)
    parser.add_argument("--heartbeat-s", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        pair = Pair.start(Path(tmp), args.heartbeat_s)
        games = 0
        try:
            while len(pair.takeovers_s) < args.kills:
                left = args.kills - len(pair.takeovers_s)
                game = play_with_kills(pair, min(left, args.kills_per_game), rng,
                                       seed=args.seed * 1000 + games)
                games += 1
                actions = game["record"]["actions"]
                assert game["moves"] == len(actions), (game["moves"], len(actions))
                assert game["replayed"].result().to_data() == game["record"]["result"]
        finally:
            pair.stop()
    times = sorted(pair.takeovers_s)
    p99 = times[min(len(times) - 1, round(0.99 * (len(times) - 1)))]
    print(f"{len(times)} kills in {games} games, heartbeat {args.heartbeat_s:g} s: take-over "
          f"p50 {statistics.median(times):.2f} s, p99 {p99:.2f} s, max {times[-1]:.2f} s "
          f"({statistics.median(times) / args.heartbeat_s:.1f} heartbeats at p50)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
