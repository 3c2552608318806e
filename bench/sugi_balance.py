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
(``ROUND_CAP``) with the most its rate can be at 95% confidence (no net in 1,000 games bounds it
at 1 in 334; 1 in 1,000 needs about 3,000), wins by seat and by family tree card. A long run goes
in parts (``--start``, ``--log``); ``--summary LOG...`` reports over the games of the logs. (The
engine's speed: ``python bench/engine.py --game sugi``.)
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections import Counter
from typing import NamedTuple

from sagani_net.bots.tournament import GameSpec, play_local
from sagani_net.games.sugi.rules import (
    EDITIONS,
    LATEST_EDITION,
    ROUND_CAP,
    SUGI,
    SUMMONS_ROUND,
)

BOTS = ("greedy", "mcts", "random")
#: Games longer than this are counted apart: how thin the tail towards the net is.
LONG = 30


class Played(NamedTuple):
    """What the report needs of one game: its length, the pedestals filled, the winning seats,
    every seat's family tree card and the seat the tested bot sat in."""

    rounds: int
    pedestals: list[str]
    winners: list[int]
    families: list[int]
    hero: int

    @property
    def netted(self) -> bool:
        return len(self.pedestals) < 3

    def log_line(self, index: int, seed: int, cpu_s: float) -> str:
        return (f"game {index} seed {seed} rounds {self.rounds} "
                f"pedestals {','.join(self.pedestals) or '-'} "
                f"winners {','.join(map(str, self.winners))} "
                f"families {','.join(map(str, self.families))} cpu {cpu_s:.0f} s\n")

    @classmethod
    def from_log_line(cls, line: str) -> tuple[int, Played]:
        """(the game's seed, the game) of a line :meth:`log_line` wrote."""
        words = line.split()
        field = dict(zip(words[0::2], words[1::2], strict=False))
        index = int(field["game"])

        def numbers(text: str) -> list[int]:
            return [int(n) for n in text.split(",") if n]

        pedestals = [] if field["pedestals"] == "-" else field["pedestals"].split(",")
        return int(field["seed"]), cls(int(field["rounds"]), pedestals,
                                       numbers(field["winners"]), numbers(field["families"]),
                                       index % 2)


def upper_bound(events: int, trials: int, confidence: float = 0.95) -> float:
    """The exact (Clopper-Pearson) one-sided upper bound of a rate seen ``events`` times in
    ``trials``: with no event, about 3 / trials at 95%."""
    if events >= trials:
        return 1.0
    low, high = events / trials, 1.0
    for _ in range(60):  # bisection: the chance of seeing at most ``events`` falls with p
        p = (low + high) / 2
        at_most = sum(math.comb(trials, k) * p**k * (1 - p) ** (trials - k)
                      for k in range(events + 1))
        low, high = (p, high) if at_most > 1 - confidence else (low, p)
    return high


def report(games: list[Played], players: int, versus: bool, edition: int | None = None) -> None:
    """Game length, the net's rate and its upper bound (``edition`` 4 and later cannot reach
    it at all), then win shares by seat and by family tree card (or the tested bot's wins,
    ``versus``)."""
    n = len(games)
    rounds = [g.rounds for g in games]
    nets = sum(g.netted for g in games)
    bound = (f"which edition {edition} cannot reach: its games end by round {SUMMONS_ROUND + 4}"
             if edition is not None and edition >= 4
             else f"at most 1 in {1 / upper_bound(nets, n):,.0f} games at 95%")
    print(f"rounds: mean {statistics.mean(rounds):.2f}, min {min(rounds)}, max {max(rounds)}; "
          f"ended by the round-{ROUND_CAP} net: {nets} ({bound}); over {LONG} rounds: "
          f"{sum(r > LONG for r in rounds)}")
    seat_wins: Counter[int] = Counter()
    family_wins: Counter[int] = Counter()
    family_games: Counter[int] = Counter()
    hero_wins = 0.0
    for g in games:
        share = 1 / len(g.winners)  # a shared win counts shared
        for s in g.winners:
            seat_wins[s] += share
            family_wins[g.families[s]] += share
        family_games.update(g.families)
        hero_wins += share if g.hero in g.winners else 0
    if versus:
        print(f"the tested bot wins {hero_wins / n:.1%}")
        return
    fair = 1 / players
    print("seat win share / fair: "
          + ", ".join(f"{s + 1}: {seat_wins[s] / n / fair:.2f}" for s in range(players)))
    # A family card's fair share: of the games it was dealt in, 1/players.
    ratios = {f: family_wins[f] / family_games[f] / fair for f in sorted(family_games)}
    print("family card win share / fair: " + ", ".join(f"{f}: {r:.2f}" for f, r in ratios.items()))
    print(f"worst: seat {max(seat_wins[s] / n / fair for s in range(players)):.2f}, "
          f"family card {max(ratios.values()):.2f}")


def summary(paths: list[str]) -> None:
    """The report over the games of ``--log`` files (a long run in parts): each deal counted
    once, the player count read from the games."""
    games: dict[int, Played] = {}
    for path in paths:
        with open(path) as lines:
            for line in lines:
                if line.startswith("game "):
                    seed, game = Played.from_log_line(line)
                    games[seed] = game
    counts = {len(g.families) for g in games.values()}
    if len(counts) != 1:
        raise SystemExit(f"the logs hold games of {sorted(counts)} players: one count at a time")
    (players,) = counts
    print(f"{len(games)} games, {players} players, from {', '.join(paths)}")
    report(list(games.values()), players, versus=False)


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
    parser.add_argument("--summary", nargs="+", metavar="LOG", default=None,
                        help="play nothing: the report over the games these --log files hold "
                             "(equal bots, one player count; a deal in two files counts once)")
    args = parser.parse_args()
    if args.summary:
        summary(args.summary)
        return
    mcts = {"think_s": None, "iterations": args.iterations} if args.iterations else {}
    effort = (f"mcts {args.iterations} iterations a move" if args.iterations
              else "mcts 1 s a move, as users get it")
    # Normalized as selfplay's and the host's are (a config without an edition is an old one).
    config = SUGI.parse_config({"players": args.players, "edition": args.edition})
    games = []
    started = time.process_time()
    log = open(args.log, "a", buffering=1) if args.log else None  # noqa: SIM115 (line by line)
    for g in range(args.start, args.start + args.games):
        hero = g % 2
        lineup = [args.versus or args.bot] * args.players
        lineup[hero] = args.bot
        seed = args.seed * 1_000_003 + g
        result = play_local(GameSpec(g, "sugi", config, seed, tuple(lineup), {"mcts": mcts}))
        figures = result.figures
        game = Played(figures["rounds"], list(figures["pedestals"]), list(figures["winners"]),
                    list(figures["families"]), hero)
        games.append(game)
        if log is not None:
            log.write(game.log_line(g, seed, time.process_time() - started))
        if game.netted and args.nets:
            print(f"net: seed {seed}", file=sys.stderr)
    if log is not None:
        log.close()
    used = sorted({args.bot, args.versus or args.bot})
    print(f"{len(games)} games, {args.players} players, edition {args.edition}, {args.bot}"
          + (f" vs {args.versus}" if args.versus else "")
          + (f" ({effort})" if "mcts" in used else "")
          + f", {time.process_time() - started:.0f} s CPU")
    report(games, args.players, versus=args.versus is not None, edition=args.edition)


if __name__ == "__main__":
    main()
