"""How long ``sagani analyze`` takes on a game, and how well its verdicts agree with a search
``--strong`` times as long on a sample of the game's decisions.

Run: ``python bench/analysis.py [--game sagani] [--seed 1] [--lineup greedy,mcts]
[--iterations N] [--strong 4] [--sample 30] [--workers 2]``. The game is played first (mcts at
200 iterations a move), then analysed at ``--iterations`` (default: the analysis's default) on
``--workers`` processes: the wall time of the whole analysis is the figure. Then every
``len/sample``-th searched decision is judged again at ``strong * iterations``: how often both
name the same best move, give the same mark, and the mean difference of their losses.
"""

from __future__ import annotations

import argparse
import time

from sagani_net.analysis import DEFAULT_ITERATIONS, Effort, analyse, format_analysis
from sagani_net.bots.tournament import GameSpec, play_local
from sagani_net.games import get_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="sagani")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--lineup", default="greedy,mcts")
    parser.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS)
    parser.add_argument("--strong", type=int, default=4)
    parser.add_argument("--sample", type=int, default=30)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    rules = get_game(args.game)
    spec = GameSpec(0, args.game, rules.parse_config({}), args.seed,
                    tuple(args.lineup.split(",")),
                    {"mcts": {"think_s": None, "iterations": 200}})
    record = play_local(spec).record
    print(f"{rules.title}, seed {args.seed}, {args.lineup}: {len(record['actions'])} decisions, "
          f"result {record['result']}")
    started = time.perf_counter()
    analysis = analyse(record, Effort(args.iterations), workers=args.workers)
    print(f"analysed in {time.perf_counter() - started:.1f} s on {args.workers} workers at "
          f"{args.iterations} iterations")
    print(format_analysis(analysis))
    searched = [v for v in analysis.verdicts if not v.forced]
    step = max(1, len(searched) // args.sample)
    chosen = {v.index for v in searched[::step][: args.sample]}
    strong = analyse(record, Effort(args.iterations * args.strong), workers=args.workers,
                     only=lambda d: d.index in chosen)
    weak = {v.index: v for v in searched if v.index in chosen}
    pairs = [(weak[v.index], v) for v in strong.verdicts]
    best = sum(a.best == b.best for a, b in pairs)
    marks = sum(a.mark == b.mark for a, b in pairs)
    flagged = sum((a.mark is None) == (b.mark is None) for a, b in pairs)
    diff = sum(abs(a.loss - b.loss) for a, b in pairs) / len(pairs)
    print(f"\nagainst {args.iterations * args.strong} iterations on {len(pairs)} decisions: "
          f"same best move {best}/{len(pairs)}, same mark {marks}/{len(pairs)}, "
          f"both marked or both not {flagged}/{len(pairs)}, mean |loss difference| "
          f"{diff * 100:.1f} points")


if __name__ == "__main__":
    main()
