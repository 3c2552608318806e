"""``sagani selfplay``: headless games between policies, one record per game."""

from __future__ import annotations

import argparse
import json
import random
import time
from dataclasses import dataclass, field

from cli import args as check
from cli.args import UsageError
from sagani_net.bots import POLICIES, make_policy
from sagani_net.game import RuleError
from sagani_net.games import get_game
from sagani_net.games.sagani.rules import MODES, State


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "selfplay", help="play headless games between policies and save records",
        description="Play games between policies in this process, without a host, and print "
        "mean scores and win shares; --records keeps each game's JSON record (sagani replay "
        "shows one).",
    )  # fmt: skip
    p.add_argument("--players", type=check.players, default=2,
                   help="2-4, or 1 for the solo modes")  # fmt: skip
    p.add_argument("--mode", choices=MODES, default="multi")
    p.add_argument("--games", type=check.games, default=10)
    p.add_argument("--seed", type=check.seed, default=0, help="game i uses seed S+i")
    p.add_argument(
        "--policy", type=check.names_in(_policies, "policies"), default=["greedy"],
        help="random, greedy or mcts, or one per seat joined by commas (greedy,random)",
    )  # fmt: skip
    p.add_argument("--records", type=check.directory,
                   help="write one JSON record per game here")  # fmt: skip
    p.set_defaults(func=run)


def _policies() -> list[str]:
    from sagani_net.bots import mcts, simple  # noqa: F401  (registers the built-in policies)

    return sorted(POLICIES)


def check_args(args: argparse.Namespace) -> int:
    """The seat count the mode and --players make; raises UsageError when they clash."""
    players = 1 if args.mode != "multi" else args.players
    try:
        get_game("sagani").parse_config({"players": players, "mode": args.mode})
    except RuleError as exc:
        raise UsageError(f"--players {args.players} --mode {args.mode}: {exc.message}") from None
    if len(args.policy) not in (1, players):
        raise UsageError(f"--policy names {len(args.policy)} policies for {players} seats")
    return players


@dataclass
class Summary:
    """Totals over a run of games."""

    players: int
    games: int = 0
    turns: int = 0
    scores: list[int] = field(default_factory=list)
    wins: list[int] = field(default_factory=list)
    ends_triggered: int = 0
    tiles_to_goal: list[int] = field(default_factory=list)  # basic solo: games that reached 75

    def __post_init__(self) -> None:
        self.scores = [0] * self.players
        self.wins = [0] * self.players

    def add(self, state: State) -> None:
        self.games += 1
        self.turns += state.seats[0].turns
        for seat, score in enumerate(state.scores()):
            self.scores[seat] += score
        self.wins[state.ranking()[0]] += 1
        self.ends_triggered += state.end_triggered
        if state.outcome is not None and state.outcome.won and state.outcome.tiles_used:
            self.tiles_to_goal.append(state.outcome.tiles_used)


def play_game(players: int, mode: str, seed: int, policies: list) -> State:
    """One game to its end; the policies' randomness comes from the seed too."""
    state = State.new(players, mode, seed)
    rng = random.Random(seed)
    while not state.is_over():
        state.apply(policies[state.current_seat].choose(state, rng))
    return state


def run(args: argparse.Namespace) -> int:
    players = check_args(args)
    names = list(args.policy) * (players if len(args.policy) == 1 else 1)
    policies = [make_policy(name) for name in names]
    if args.records:
        args.records.mkdir(parents=True, exist_ok=True)
    summary = Summary(players)
    started = time.perf_counter()
    for i in range(args.games):
        seed = args.seed + i
        state = play_game(players, args.mode, seed, policies)
        summary.add(state)
        if args.records:
            path = args.records / f"sagani-{args.mode}-{players}p-{seed}.json"
            path.write_text(json.dumps(state.to_record(), indent=1) + "\n")
    elapsed = time.perf_counter() - started
    games = f"{summary.games} game" + "s" * (summary.games != 1)
    print(f"{games}, {players} seat{'s' * (players != 1)} ({', '.join(names)}), mode {args.mode}"
          "; seats count from 1")  # fmt: skip
    for seat in range(players):
        mean = summary.scores[seat] / summary.games
        share = summary.wins[seat] / summary.games
        print(f"  seat {seat + 1} {names[seat]:>8}: mean score {mean:7.2f}  win share {share:6.1%}")
    print(f"  mean turns per seat {summary.turns / summary.games:.1f}")
    if args.mode == "multi":
        print(f"  end triggered in {summary.ends_triggered} of {summary.games} games")
    if args.mode == "solo":
        won = summary.tiles_to_goal
        print(f"  reached 75 in {len(won)} of {summary.games} games", end="")
        if won:
            print(f"; tiles to 75: mean {sum(won) / len(won):.1f}, best {min(won)}", end="")
        print()
    rate = summary.games / elapsed
    print(f"  {rate:.1f} games/s" if rate >= 1 else f"  {elapsed / summary.games:.1f} s a game")
    return 0
