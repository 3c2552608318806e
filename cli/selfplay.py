"""``sagani selfplay``: headless games between policies, one record per game, for every game.

A game here is a tournament's game (:func:`sagani_net.bots.tournament.play_local`) with the
seats kept as named: every seat decides from what it knows alone (the legal moves, or a state
whose hidden parts are resampled: :class:`sagani_net.bots.base.LocalSeat`).
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass, field

from sagani_net.bots import STRATEGIES, strategy_names
from sagani_net.bots.base import game_bots
from sagani_net.bots.tournament import GameResult, GameSpec, play_local
from sagani_net.cli import args as check
from sagani_net.cli.args import UsageError
from sagani_net.cli.game_options import add_game_arguments, config_words, game_config
from sagani_net.games import get_game


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = check.command_parser(
        sub, "selfplay",
        description="Play games between policies in this process, the seats kept as named, "
        "and print each seat's mean score and win share; game i uses seed S+i.",
    )
    add_game_arguments(p)
    p.add_argument("--games", type=check.games, default=10)
    p.add_argument("--seed", type=check.seed, default=0, help="game i uses seed S+i")
    p.add_argument(
        "--policy", default="greedy",
        # Every game's strategies only: naming a game's own would import every game to ask.
        help=f"{', '.join(STRATEGIES)} (or one of the game's own), or one per seat joined by "
        "commas (greedy,random)",
    )
    p.add_argument("--records", type=check.directory, help="write one JSON record per game here")
    p.set_defaults(func=run)


@dataclass
class Summary:
    """Totals over a run of games."""

    seats: int
    games: int = 0
    actions: int = 0
    scores: list[int] = field(default_factory=list)
    wins: list[int] = field(default_factory=list)
    #: One seat: whether the game has a goal (its result says ``won``), the games that
    #: reached it, and their figures.
    goal: bool = False
    won: int = 0
    figures: dict[str, list[int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.scores = [0] * self.seats
        self.wins = [0] * self.seats

    def add(self, result: GameResult, solo_figures: dict[str, str]) -> None:
        self.games += 1
        self.actions += result.actions
        for seat, score in enumerate(result.scores):
            self.scores[seat] += score
        self.wins[result.ranking[0]] += 1
        self.goal = self.goal or "won" in result.figures
        if result.figures.get("won"):
            self.won += 1
            for figure, title in solo_figures.items():
                if figure in result.figures:
                    self.figures.setdefault(title, []).append(result.figures[figure])


def run(args: argparse.Namespace) -> int:
    game, config = game_config(args)
    seats = get_game(game).seats(config)
    names = [name.strip() for name in args.policy.split(",")]
    known = strategy_names(game)
    unknown = sorted(set(names) - set(known))
    if unknown:
        raise UsageError(f"--policy: unknown {', '.join(unknown)}; known: {', '.join(known)}")
    if len(names) == 1:
        names *= seats
    if len(names) != seats:
        raise UsageError(f"--policy names {len(names)} policies for {seats} seats")
    if args.records:
        args.records.mkdir(parents=True, exist_ok=True)
    summary = Summary(seats)
    solo_figures = getattr(game_bots(game), "SOLO_FIGURES", {}) if seats == 1 else {}
    started = time.perf_counter()
    one_seat = seats == 1
    for i in range(args.games):
        seed = args.seed + i
        result = play_local(GameSpec(i, game, config, seed, tuple(names)))
        summary.add(result, solo_figures)
        if args.records:
            label = "-".join(w.split()[-1] for w in config_words(config))
            path = args.records / f"{game}-{label}-{seed}.json"
            path.write_text(json.dumps(result.record, indent=1) + "\n")
    elapsed = time.perf_counter() - started
    setting = ", ".join(config_words(config))
    print(f"{summary.games} game{'s' * (summary.games != 1)} of {get_game(game).title} "
          f"({setting}), {seats} seat{'s' * (seats != 1)} ({', '.join(names)})")
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
