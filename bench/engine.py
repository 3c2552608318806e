"""Engine speed of every registered game: random whole games per second, and median
microseconds of the hot calls, each with its ratio to the game's target.

Run: ``python bench/engine.py [--seconds S] [--game NAME]``. For each game: random games with
4 players (or as many as it allows, if fewer), and ``clone()``, ``legal_actions()`` and
``apply()`` on states half-way through such games. Targets (one core): Sagani >= 1,500 games/s,
clone <= 15 us, legal_actions() <= 100 us (issue 2); Sagrada and Sugi, and any game not named,
>= 300 games/s, clone <= 15 us, legal_actions() <= 200 us (issue 9). Times are this process's
CPU time (``time.process_time``), which is what one core does: the machine is shared, and wall
time would count other people's work as ours.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sagani_net.game import Data, Game, GameState, playout, random_action
from sagani_net.games import configs, game_names, get_game


@dataclass(frozen=True)
class Targets:
    games_per_s: float
    clone_us: float
    legal_us: float


TARGETS = {"sagani": Targets(1500, 15, 100)}
#: Sagrada, Sugi and any game added later.
DEFAULT_TARGETS = Targets(300, 15, 200)


#: The seat count the targets are for; a game without it is timed at its most seats.
SEATS = 4


def bench_config(name: str) -> Data:
    """The first config with :data:`SEATS` seats, or else with the most seats."""
    game = get_game(name)
    found = configs(name)
    return next((c for c in found if game.seats(c) == SEATS), max(found, key=game.seats))


def games_per_second(game: Game, config: Data, playout: Callable, seconds: float) -> float:
    """Whole games from fresh seeds, a uniformly random legal action at each decision."""
    rng = random.Random(1)
    games = 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        playout(game.new_state(config, games), rng)
        games += 1
    return games / (time.process_time() - started)


def midgame_states(game: Game, config: Data, move: Callable, count: int) -> list[GameState]:
    """States half-way through random games. Of the decision there and the next one, the one
    with more legal actions (a turn's costly step: a Sagani placement, not its tile choice)."""
    rng = random.Random(2)
    states = []
    for seed in range(count):
        state = game.new_state(config, seed)
        actions = []
        while not state.is_over():
            actions.append(move(state, rng))
            state.apply(actions[-1])
        state = game.new_state(config, seed)
        for action in actions[: len(actions) // 2]:
            state.apply(action)
        after = state.clone()
        after.apply(actions[len(actions) // 2])
        busier = after if len(after.legal_actions()) > len(state.legal_actions()) else state
        states.append(busier)
    return states


def median_us(
    call: Callable[[GameState], Any], states: list[GameState], repeat: int = 200
) -> float:
    samples = []
    for state in states:
        started = time.process_time()
        for _ in range(repeat):
            call(state)
        samples.append((time.process_time() - started) / repeat * 1e6)
    return statistics.median(samples)


def apply_once(state: GameState) -> None:
    state.clone().apply(state.legal_actions()[0])


def bench(name: str, seconds: float) -> list[tuple[str, float, float | None]]:
    """(figure, value, target) rows for one game; a target None is for information."""
    game = get_game(name)
    config = bench_config(name)
    seats = game.seats(config)
    move = random_action
    targets = TARGETS.get(name, DEFAULT_TARGETS)
    # Whole games first, while the process holds nothing else for the collector to walk.
    games = games_per_second(game, config, playout, seconds)
    states = midgame_states(game, config, move, 30)
    actions = statistics.median(len(s.legal_actions()) for s in states)
    clone_us = median_us(lambda s: s.clone(), states)
    legal_us = median_us(lambda s: s.legal_actions(), states)
    apply_us = median_us(apply_once, states) - clone_us
    return [
        (f"random games/s, {seats} seats", games, targets.games_per_s),
        (f"clone() us, mid-game {seats} seats", clone_us, targets.clone_us),
        (f"legal_actions() us, mid-game ({actions:.0f} actions)", legal_us, targets.legal_us),
        ("apply() us, mid-game, with events", apply_us, None),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per games/s figure")
    parser.add_argument("--game", choices=game_names(), action="append",
                        help="only this game (repeat for more; default: every game)")
    args = parser.parse_args()
    for name in args.game or game_names():
        print(f"{get_game(name).title} ({bench_config(name)})")
        for figure, value, target in bench(name, args.seconds):
            if target is None:
                print(f"  {figure:52s} {value:10.1f}")
            else:
                better = value / target if "games" in figure else target / value
                print(f"  {figure:52s} {value:10.1f}   target {target:>5g}  "
                      f"x{better:.2f} of target")


if __name__ == "__main__":
    main()
