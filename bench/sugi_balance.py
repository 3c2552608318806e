"""Sugi's balance by bot self-play, with the bots players meet (issue 19 point 2).

Each game is played by :func:`sagani_net.bots.tournament.play_local`, the very path of
``sagani selfplay`` and ``sagani tournament``: the policies come from
:func:`sagani_net.bots.make_policy` (``greedy``, ``mcts``, ``random``, the ones ``sagani play``,
``sagani bot`` and ``sagani host --bots`` seat), and every seat decides on a state that agrees
with its own view and private data, every secret sampled (``Game.resample``, which samples as
``determinize`` from the view does). The only setting that may differ is mcts's effort: users' mcts
thinks 1 second a move; here ``--iterations N`` gives it a fixed budget instead (deterministic,
and affordable for many games), and the output says so.

Run (from the repository root, ``PYTHONPATH=.``):
``python bench/sugi_balance.py --players 4 --games 1000`` (equal greedy bots), ``--bot mcts
--iterations 40`` (equal mcts bots), or ``--versus random`` for the bot in seat 1 (seat 2 in
odd games) against random bots. It prints game length, how many games the round-60 net ended
(``ROUND_CAP``), wins by seat and by family tree card. (The engine's speed:
``python bench/engine.py --game sugi``.)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter

from sagani_net.bots.tournament import GameSpec, play_local
from sagani_net.games.sugi.rules import EDITIONS, LATEST_EDITION, ROUND_CAP, SUGI

BOTS = ("greedy", "mcts", "random")
#: Games longer than this are counted apart: how thin the tail towards the net is.
LONG = 30


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4, 5))
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--bot", default="greedy", choices=BOTS)
    parser.add_argument("--versus", default=None, choices=BOTS,
                        help="the others play this bot; seat 1 plays --bot (seat 2 in odd games)")
    parser.add_argument("--iterations", type=int, default=None,
                        help="mcts: this many iterations a move instead of 1 s of thinking")
    parser.add_argument("--edition", type=int, default=LATEST_EDITION, choices=EDITIONS,
                        help="our edition's rule set (RULES.md S17)")
    parser.add_argument("--seed", type=int, default=0, help="game i is dealt from seed S*1000003+i")
    parser.add_argument("--start", type=int, default=0,
                        help="play games START to START+GAMES-1 of the seed (a long run in parts)")
    parser.add_argument("--nets", action="store_true", help="print the seed of every netted game")
    parser.add_argument("--log", default=None,
                        help="append a line per game to this file as it ends (seed, rounds, "
                             "pedestals, winners, families), so that a long run can be watched")
    args = parser.parse_args()
    mcts = {"think_s": None, "iterations": args.iterations} if args.iterations else {}
    effort = (f"mcts {args.iterations} iterations a move" if args.iterations
              else "mcts 1 s a move, as users get it")
    # Normalized as selfplay's and the host's are (a config without an edition is an old one).
    config = SUGI.parse_config({"players": args.players, "edition": args.edition})
    rounds, seat_wins, family_wins, family_games = [], Counter(), Counter(), Counter()
    hero_wins = nets = 0
    started = time.process_time()
    log = open(args.log, "a", buffering=1) if args.log else None  # noqa: SIM115 (line by line)
    for g in range(args.start, args.start + args.games):
        hero = g % 2
        lineup = [args.versus or args.bot] * args.players
        lineup[hero] = args.bot
        seed = args.seed * 1_000_003 + g
        result = play_local(GameSpec(g, "sugi", config, seed, tuple(lineup), {"mcts": mcts}))
        figures = result.figures
        rounds.append(figures["rounds"])
        if log is not None:
            log.write(f"game {g} seed {seed} rounds {figures['rounds']} "
                      f"pedestals {','.join(figures['pedestals']) or '-'} "
                      f"winners {','.join(map(str, figures['winners']))} "
                      f"families {','.join(map(str, figures['families']))} "
                      f"cpu {time.process_time() - started:.0f} s\n")
        if len(figures["pedestals"]) < 3:
            nets += 1
            if args.nets:
                print(f"net: seed {seed}", file=sys.stderr)
        winners = figures["winners"]
        share = 1 / len(winners)  # a shared win counts shared
        for s in winners:
            seat_wins[s] += share
            family_wins[figures["families"][s]] += share
        for f in figures["families"]:
            family_games[f] += 1
        hero_wins += share if hero in winners else 0
    if log is not None:
        log.close()
    n = args.games
    used = sorted({args.bot, args.versus or args.bot})
    print(f"{n} games, {args.players} players, edition {args.edition}, {args.bot}"
          + (f" vs {args.versus}" if args.versus else "")
          + (f" ({effort})" if "mcts" in used else "")
          + f", {time.process_time() - started:.0f} s CPU")
    print(f"rounds: mean {statistics.mean(rounds):.2f}, min {min(rounds)}, max {max(rounds)}; "
          f"ended by the round-{ROUND_CAP} net: {nets}; over {LONG} rounds: "
          f"{sum(r > LONG for r in rounds)}")
    if args.versus:
        print(f"{args.bot} wins {hero_wins / n:.1%} against {args.versus}")
        return
    fair = 1 / args.players
    print("seat win share / fair: "
          + ", ".join(f"{s + 1}: {seat_wins[s] / n / fair:.2f}" for s in range(args.players)))
    # A family card's fair share: of the games it was dealt in, 1/players.
    ratios = {f: family_wins[f] / family_games[f] / fair for f in sorted(family_games)}
    print("family card win share / fair: " + ", ".join(f"{f}: {r:.2f}" for f, r in ratios.items()))
    print(f"worst: seat {max(seat_wins[s] / n / fair for s in range(args.players)):.2f}, "
          f"family card {max(ratios.values()):.2f}")


if __name__ == "__main__":
    main()
