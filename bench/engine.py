"""Engine speed of every registered game: random whole games per second, and median
microseconds of the hot calls, each with its ratio to the game's target; and the project's own
self-play against the engine.

Run: ``python bench/engine.py [--seconds S] [--game NAME] [--no-selfplay] [--venv DIR]``.

For each game: random games with 4 players (or as many as it allows, if fewer), and
``clone()``, ``legal_actions()`` and ``apply()`` on states half-way through such games. Targets
(one core): Sagani >= 1,500 games/s, clone <= 15 us, legal_actions() <= 100 us (issue 2);
Sagrada and Sugi, and any game not named, >= 300 games/s, clone <= 15 us, legal_actions() <=
200 us (issue 9). Times are this process's CPU time (``time.process_time``), which is what one
core does: the machine is shared, and wall time would count other people's work as ours.

Then the self-play line (issue 21): ``sagani selfplay --policy random --games 100`` with the
same seats, as people run it: the ``sagani`` command of a throw-away virtual environment with
this checkout's wheel installed (``python -m venv``, then ``pip install`` of the wheel, which
compiles the bytecode at install), not this environment, whose editable install puts an
import finder (pathlib, urllib, re...) into every start. Timed as a whole process, start-up
included, by the child's CPU time, in games/s against the engine's random games/s in this
process, as a ratio (target >= 0.70): a gap between the engine and what people run shows at
once. The same in actions/s beside it, for information: the process plays seeds 0-99, the
engine its own, and a game's length varies (Sugi's by a factor of three), so a hundred games
can be a few per cent longer or shorter than the engine's. All are medians of
:data:`SELFPLAY_RUNS` measures taken in turns (half a second of the engine, one process), after
one process to warm the file cache. Printed beside them, the floors
no project code can go under in that environment: ``python -c pass``, and ``python -c "import
argparse"``, what every ``sagani`` command costs before any of ours (pip's ``sagani`` script
imports ``re`` too, as argparse does). Making the environment takes a few seconds (``pip``
fetches the dependencies); ``--venv DIR`` keeps it in DIR and reuses it (the wheel is
reinstalled every run).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import resource
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wheel_env import installed

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
    return engine_rates(game, config, playout, seconds)[0]


def engine_rates(game: Game, config: Data, playout: Callable, seconds: float
                 ) -> tuple[float, float]:
    """(games/s, actions/s) of :func:`games_per_second`'s games."""
    rng = random.Random(1)
    games = actions = 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        state = game.new_state(config, games)
        playout(state, rng)
        games += 1
        actions += state.version
    elapsed = time.process_time() - started
    return games / elapsed, actions / elapsed


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
SELFPLAY_RUNS = 5
#: The engine's turn beside each self-play process, in seconds of CPU.
ENGINE_TURN_S = 0.5


def selfplay_command(sagani: Path, name: str, seats: int) -> list[str]:
    """The ``sagani selfplay`` command people run, for random games of ``name``."""
    return [str(sagani), "selfplay", "--game", name, "--policy", "random",
            "--games", str(SELFPLAY_GAMES), "--players", str(seats)]


def child_cpu_s(command: list[str]) -> float:
    """The CPU time (user and system) of one run of ``command`` as a process."""
    return child_run(command)[0]


def child_run(command: list[str]) -> tuple[float, str]:
    """The CPU time (user and system) of one run of ``command`` as a process, and what it
    printed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, done.stdout


def selfplay_rates(sagani: Path, name: str, seats: int) -> tuple[float, float, float, float]:
    """(games/s of whole ``sagani selfplay`` processes of :data:`SELFPLAY_GAMES` random games,
    start-up included, by their CPU time; the engine's random games/s in this process; the same
    two in actions/s), each the median of :data:`SELFPLAY_RUNS` measures taken in turns, so that
    a shared machine's load, which comes and goes, weighs on both alike. Actions/s leave out how
    long the games happened to be: self-play's 100 seeds are not the engine's."""
    command = selfplay_command(sagani, name, seats)
    _, said = child_run(command)  # the files in the cache, as for a command run twice
    per_seat = re.search(r"mean actions per seat ([0-9.]+)", said)
    assert per_seat, said
    actions = float(per_seat[1]) * seats * SELFPLAY_GAMES
    game, config = get_game(name), bench_config(name)
    engine, engine_actions, process = [], [], []
    for _ in range(SELFPLAY_RUNS):
        games_s, actions_s = engine_rates(game, config, playout, ENGINE_TURN_S)
        engine.append(games_s)
        engine_actions.append(actions_s)
        process.append(1 / child_cpu_s(command))
    median = statistics.median
    return (SELFPLAY_GAMES * median(process), median(engine), actions * median(process),
            median(engine_actions))


def floor_cpu_s(sagani: Path, code: str = "pass") -> float:
    """The median CPU seconds of ``python -c CODE`` beside ``sagani``: ``pass`` is the
    interpreter's own start, which no command can go under."""
    command = [str(sagani.with_name("python")), "-c", code]
    child_cpu_s(command)
    return statistics.median(child_cpu_s(command) for _ in range(SELFPLAY_RUNS))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per games/s figure")
    parser.add_argument("--game", choices=game_names(), action="append",
                        help="only this game (repeat for more; default: every game)")
    parser.add_argument("--no-selfplay", action="store_true",
                        help="leave out the self-play process line")
    parser.add_argument("--venv", type=Path, default=None,
                        help="the environment to install the wheel in and run sagani from "
                        "(made if missing, kept; default: a throw-away one)")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} (2 cores: above 1, other work shares them)")
    with tempfile.TemporaryDirectory(prefix="sagani-bench-") as scratch:
        sagani, floor_s, start_s = None, 0.0, 0.0
        if not args.no_selfplay:
            sagani = installed(args.venv or Path(scratch, "venv"))
            floor_s = floor_cpu_s(sagani)
            # What any command line of ours starts with: the entry script imports re, the
            # command line is argparse.
            start_s = floor_cpu_s(sagani, "import re, argparse")
            print(f"self-play runs {sagani} (this checkout's wheel); there python -c pass "
                  f"takes {floor_s * 1000:.1f} ms CPU, python -c 'import re, argparse' "
                  f"{start_s * 1000:.1f} ms")
        for name in args.game or game_names():
            report(name, args.seconds, sagani, floor_s, start_s)


def report(name: str, seconds: float, sagani: Path | None, floor_s: float = 0.0,
           start_s: float = 0.0) -> None:
    """Print one game's figures; its self-play line too unless ``sagani`` is None (``floor_s``:
    the interpreter's own start there; ``start_s``: with re and argparse imported)."""
    print(f"{get_game(name).title} ({bench_config(name)})")
    rows = bench(name, seconds)
    for figure, value, target in rows:
        if target is None:
            print(f"  {figure:52s} {value:10.1f}")
        else:
            better = value / target if "games" in figure else target / value
            print(f"  {figure:52s} {value:10.1f}   target {target:>5g}  "
                  f"x{better:.2f} of target")
    if sagani is not None:
        seats = get_game(name).seats(bench_config(name))
        rate, engine, actions_s, engine_actions_s = selfplay_rates(sagani, name, seats)
        print(f"  {f'self-play process games/s ({SELFPLAY_GAMES} games, CPU)':52s} "
              f"{rate:10.1f}   x{rate / engine:.2f} of the engine's {engine:.0f} in turn  "
              f"(target x{SELFPLAY_TARGET:.2f}; {SELFPLAY_GAMES / rate * 1000:.0f} ms a "
              f"process, {floor_s * 1000:.0f} of them python's own start; the engine's "
              f"{SELFPLAY_GAMES / engine * 1000:.0f} ms)")
        engine_s = SELFPLAY_GAMES / engine  # the engine's time for the process's games
        best = SELFPLAY_GAMES / (engine_s + start_s)
        print(f"  {'  at best, with nothing of ours but the games':52s} {best:10.1f}   "
              f"x{best / engine:.2f} of the engine's  (python, re and argparse: "
              f"{start_s * 1000:.0f} ms)")
        print(f"  {'  the same in actions/s (games of other lengths)':52s} {actions_s:10.0f}   "
              f"x{actions_s / engine_actions_s:.2f} of the engine's {engine_actions_s:.0f}")
        print(f"    ({' '.join(['sagani', *selfplay_command(sagani, name, seats)[1:]])})")

if __name__ == "__main__":
    main()
