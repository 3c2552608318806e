"""``sagani selfplay``: headless games between policies, one record per game, for every game.

A game here is a tournament's game (:func:`sagani_net.bots.tournament.play_local`) with the
seats kept as named: every seat decides from what it knows alone (the legal moves, or a state
whose hidden parts are resampled: :class:`sagani_net.bots.base.LocalSeat`).
"""

from __future__ import annotations

import argparse
import sys
import time

from sagani_net.bots import STRATEGIES, strategy_names, unknown_strategies
from sagani_net.bots.base import game_bots
from sagani_net.bots.local import GameResult, GameSpec, play_local
from sagani_net.cli import args as check
from sagani_net.cli.args import UsageError
from sagani_net.cli.game_options import add_game_arguments, game_config
from sagani_net.game import config_words, plural, winners
from sagani_net.games import get_game

# What this command imports is counted in its games per second (100 random games of Sagani
# take less than a tenth of a second): json is imported only to write records, and no
# dataclass is made here (tests/cli/test_startup_imports.py).

#: A run still going after this long shows its progress on stderr (as a tournament does from
#: the start): a hundred random games are over long before, with nothing drawn.
PROGRESS_AFTER_S = 1.0


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = check.command_parser(
        sub, "selfplay",
        description="Play games between policies in this process, the seats kept as named, "
        "and print each seat's mean score and win share; game i uses seed S+i.",
    )
    add_game_arguments(p)
    p.add_argument("--games", type=check.games, default=10, help="how many games (default 10)")
    p.add_argument("--seed", type=check.seed, default=0,
                   help="game i uses seed S+i (default 0: the same games at every run)")
    p.add_argument(
        "--policy", type=check.names, default="greedy",
        # Every game's strategies only: naming a game's own would import every game to ask.
        help=f"{', '.join(STRATEGIES)} (or one of the game's own, {check.OWN_STRATEGY}), or one "
        "per seat joined by commas (greedy,random); default %(default)s, for every seat",
    )
    check.add_search_options(p)
    p.add_argument("--records", type=check.records_directory,
                   help="write one JSON record per game here")
    p.set_defaults(func=run)


class Summary:
    """Totals over a run of games."""

    def __init__(self, seats: int) -> None:
        self.seats = seats
        self.games = 0
        self.actions = 0
        self.scores = [0] * seats
        self.wins = [0.0] * seats  # a win shared by k seats counts 1/k to each
        #: One seat: whether the game has a goal (its result says ``won``), the games that
        #: reached it, and their figures.
        self.goal = False
        self.won = 0
        self.figures: dict[str, list[int]] = {}

    def add(self, result: GameResult, solo_figures: dict[str, str]) -> None:
        self.games += 1
        self.actions += result.actions
        for seat, score in enumerate(result.scores):
            self.scores[seat] += score
        shared = winners(result.ranking, result.figures)
        for seat in shared:
            self.wins[seat] += 1 / len(shared)
        self.goal = self.goal or "won" in result.figures
        if result.figures.get("won"):
            self.won += 1
            for figure, title in solo_figures.items():
                if figure in result.figures:
                    self.figures.setdefault(title, []).append(result.figures[figure])


def run(args: argparse.Namespace) -> int:
    game, config = game_config(args)
    seats = get_game(game).seats(config)
    names = list(args.policy)
    unknown = unknown_strategies(names, game)
    if unknown:
        known = strategy_names(game)
        raise UsageError(f"--policy: unknown {', '.join(unknown)}; known: {', '.join(known)}, "
                         f"{check.OWN_STRATEGY}")
    check.made_strategies(names, game)
    if len(names) == 1:
        names *= seats
    if len(names) != seats:
        raise UsageError(f"--policy names {plural(len(names), 'policy', 'policies')} for "
                         f"{plural(seats, 'seat')}")
    if args.records:
        check.make_directory(args.records)
    summary = Summary(seats)
    solo_figures = getattr(game_bots(game), "SOLO_FIGURES", {}) if seats == 1 else {}
    options = {"mcts": check.search_options(args)}
    started = time.monotonic()
    one_seat = seats == 1
    bar = None
    for i in range(args.games):
        seed = args.seed + i
        result = play_local(GameSpec(i, game, config, seed, tuple(names), options))
        summary.add(result, solo_figures)
        if bar is None and i + 1 < args.games and time.monotonic() - started > PROGRESS_AFTER_S:
            from sagani_net.bots.tournament import Progress  # a long run's: no cost to a short

            bar = Progress(args.games, sys.stderr, done=i, started_s=started)
        if bar is not None:
            bar.tick()
        if args.records:
            import json

            label = "-".join(w.split()[-1] for w in config_words(config))
            path = args.records / f"{game}-{label}-{seed}.json"
            check.write_text(path, json.dumps(result.record, indent=1) + "\n")
    elapsed = time.monotonic() - started
    setting = ", ".join(config_words(config))
    print(f"{plural(summary.games, 'game')} of {get_game(game).title} ({setting}), "
          f"{plural(seats, 'seat')} ({', '.join(names)})")
    for seat in range(seats):
        mean = summary.scores[seat] / summary.games
        share = summary.wins[seat] / summary.games
        # Alone, a seat always ranks first: what it won is said below, if the game has a goal.
        shown = f"  win share {share:6.1%}" if seats > 1 else ""
        print(f"  seat {seat + 1} {names[seat]:>8}: mean score {mean:7.2f}{shown}")
    print(f"  mean actions per seat {summary.actions / summary.games / seats:.1f}")
    if one_seat and summary.goal:
        print(f"  reached the goal in {summary.won} of {summary.games} games", end="")
        for title, values in summary.figures.items():
            print(f"; {title}: mean {sum(values) / len(values):.1f}, best {min(values)}", end="")
        print()
    rate = summary.games / elapsed
    # A searching bot can take longer than a second a game: then the seconds say more.
    print(f"  {rate:.1f} games/s" if rate >= 1 else f"  {elapsed / summary.games:.1f} s a game")
    return 0
