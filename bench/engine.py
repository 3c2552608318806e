"""Engine speed of every registered game: random whole games per second, and median
microseconds of the hot calls, each with its ratio to the game's target.

Run: ``python bench/engine.py [--seconds S] [--game NAME] [--no-selfplay]``. For each game:
random games with 4 players (or as many as it allows, if fewer), and ``clone()``,
``legal_actions()`` and ``apply()`` on states half-way through such games; then the project's
own self-play, ``sagani selfplay --policy random --games 100`` with the same seats, timed as a
whole process (start-up included, the child's CPU time), in games/s against the engine's
random games/s measured just before, as a ratio (target >= 0.70, issue 21): a gap between the
engine and what people run shows at once. Targets (one core): Sagani >= 1,500 games/s,
clone <= 15 us, legal_actions() <= 100 us (issue 2); Sagrada and Sugi, and any game not named,
>= 300 games/s, clone <= 15 us, legal_actions() <= 200 us (issue 9). Times are this process's
CPU time (``time.process_time``), which is what one core does: the machine is shared, and wall
time would count other people's work as ours.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sagani_net.game import Data, Game, GameState, RuleError, playout, random_action
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
    """The game's defaults with :data:`SEATS` players (what a table of four plays: Sugi's
    latest edition, say), or else its config with the most seats."""
    game = get_game(name)
    try:
        config = game.parse_config({"players": SEATS})
    except RuleError:
        config = None
    if config is not None and game.seats(config) == SEATS:
        return config
    return max(configs(name), key=game.seats)


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


#: Self-play's games per second as a share of the engine's, at least (issue 21).
SELFPLAY_TARGET = 0.70
SELFPLAY_GAMES = 100


def selfplay_command(name: str, seats: int) -> list[str]:
    """The ``sagani selfplay`` command people run, for random games of ``name``."""
    sagani = Path(sys.executable).with_name("sagani")
    return [str(sagani), "selfplay", "--game", name, "--policy", "random",
            "--games", str(SELFPLAY_GAMES), "--players", str(seats)]


def selfplay_games_per_second(name: str, seats: int, cache: Path) -> tuple[float, float]:
    """(games/s by the child's CPU time, games/s by the wall clock) of one whole
    ``sagani selfplay`` process, start-up included.

    As people run it: with the modules' bytecode cached (in ``cache``, warmed by one game
    first, so that the checkout is left as it is even where PYTHONDONTWRITEBYTECODE is set)."""
    env = {key: value for key, value in os.environ.items()
           if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(cache)
    command = selfplay_command(name, seats)
    warm = [*command[:command.index("--games") + 1], "1", *command[command.index("--games") + 2:]]
    subprocess.run(warm, check=True, stdout=subprocess.DEVNULL, env=env)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return SELFPLAY_GAMES / cpu, SELFPLAY_GAMES / wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per games/s figure")
    parser.add_argument("--game", choices=game_names(), action="append",
                        help="only this game (repeat for more; default: every game)")
    parser.add_argument("--no-selfplay", action="store_true",
                        help="leave out the self-play process line")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sagani-bench-") as cache:
        for name in args.game or game_names():
            report(name, args.seconds, None if args.no_selfplay else Path(cache))


def report(name: str, seconds: float, cache: Path | None) -> None:
    """Print one game's figures; its self-play line too unless ``cache`` is None."""
    print(f"{get_game(name).title} ({bench_config(name)})")
    rows = bench(name, seconds)
    for figure, value, target in rows:
        if target is None:
            print(f"  {figure:52s} {value:10.1f}")
        else:
            better = value / target if "games" in figure else target / value
            print(f"  {figure:52s} {value:10.1f}   target {target:>5g}  "
                  f"x{better:.2f} of target")
    if cache is not None:
        seats = get_game(name).seats(bench_config(name))
        engine = rows[0][1]
        cpu, wall = selfplay_games_per_second(name, seats, cache)
        print(f"  {f'self-play process games/s ({SELFPLAY_GAMES} games, CPU)':52s} "
              f"{cpu:10.1f}   x{cpu / engine:.2f} of the engine's {engine:.0f}  "
              f"(target x{SELFPLAY_TARGET:.2f}; wall {wall:.1f} games/s)")
        print(f"    ({' '.join(['sagani', *selfplay_command(name, seats)[1:]])})")


if __name__ == "__main__":
    main()
