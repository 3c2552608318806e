"""What ``sagani tournament`` spends on its own plumbing, on worker processes: the CPU of
the process that hands out the games and collects their results, per game, against a game's
own CPU.

Run: ``python bench/tournament.py [--games 2000] [--workers 2] [--rounds 3]``. Each round runs
:func:`sagani_net.bots.tournament.run_games` with a ``play`` that sleeps half a millisecond and
returns the same small result (what is left is the runner's own work), then the same games
collected the way the runner did until 2026-12-07 (a loop of ``wait(pending,
FIRST_COMPLETED)``, reproduced here), in turns. Printed: the collecting process's CPU per
game (``time.process_time``: its threads too, the pool's among them), each way, their ratio,
and both against what a random 4-seat Sagani game takes to play (the cheapest games a
tournament plays).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from concurrent.futures import FIRST_COMPLETED, Future, wait

from sagani_net.bots.tournament import (
    GameResult,
    GameSpec,
    TournamentSpec,
    play_local,
    run_games,
)
from sagani_net.games import get_game
from sagani_net.workers import pool as worker_pool

#: How long each game of nothing takes (asleep: the workers leave the cores to the collector);
#: games end one by one, as real ones do, rather than in bursts.
GAME_S = 0.0005


def nothing(game: GameSpec) -> GameResult:
    """A game that plays nothing: its result (module-level: the workers unpickle it)."""
    time.sleep(GAME_S)
    return GameResult(game.index, game.strategies, (0, 0), (0, 1), 0.0, 0, made={})


def collected_by_waits(spec: TournamentSpec, workers: int) -> list[GameResult]:
    """run_games as it collected results until 2026-12-07."""
    games = [spec.game_spec(i) for i in range(spec.games)]
    with worker_pool(workers, None) as pool:
        futures: list[Future[GameResult]] = [pool.submit(nothing, game) for game in games]
        pending = set(futures)
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                future.result()
        return [f.result() for f in futures]


def cpu_per_game(call: object, games: int) -> float:
    start = time.process_time()
    call()  # type: ignore[operator]
    return (time.process_time() - start) / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    spec = TournamentSpec(("random", "random"), game="sagani", games=args.games, seed=1)
    new, old = [], []
    for _ in range(args.rounds):
        new.append(cpu_per_game(lambda: run_games(spec, workers=args.workers, play=nothing),
                                args.games))
        old.append(cpu_per_game(lambda: collected_by_waits(spec, args.workers), args.games))
    rules = get_game("sagani")
    config = rules.parse_config({"players": 4})
    rng = random.Random(1)
    game = statistics.median(
        cpu_per_game(lambda: play_local(GameSpec(0, "sagani", config, rng.getrandbits(32),
                                                 ("random",) * 4)), 1)
        for _ in range(200))
    n, o = statistics.median(new), statistics.median(old)
    print(f"{args.games} games on {args.workers} workers, medians of {args.rounds} rounds: the "
          f"collecting process's CPU per game {n * 1e6:.0f} us, collected by waits "
          f"{o * 1e6:.0f} us (old/new x{o / n:.1f})")
    print(f"  a random 4-seat Sagani game: {game * 1e6:.0f} us to play; plumbing/game "
          f"{n / game:.2f}, collected by waits {o / game:.2f}")


if __name__ == "__main__":
    main()
