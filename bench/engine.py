"""Engine speed: random full games per second, and median microseconds of the hot calls.

Run: ``python bench/engine.py [--seconds S]``. Prints figures and their ratio to the targets
(issue 2: >= 1,500 random 4-player games/s, clone <= 15 us, legal_actions() <= 100 us on one
core). Times are this process's CPU time (``time.process_time``), which is what one core
does: the machine is shared, and wall time would count other people's work as ours.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from sagani_net.games.sagani.rules import PLACE, State

TARGET_GAMES_PER_S = 1500
TARGET_CLONE_US = 15
TARGET_LEGAL_US = 100


def games_per_second(players: int, seconds: float) -> float:
    """Whole games from a fresh shuffle, a uniformly random legal action at each decision."""
    rng = random.Random(1)
    games = 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        State.new(players, seed=games).playout(rng)
        games += 1
    return games / (time.process_time() - started)


def midgame_states(count: int) -> list[State]:
    """4-player states halfway through random games, each at a placement decision."""
    rng = random.Random(2)
    states = []
    for seed in range(count):
        state = State.new(4, seed=seed)
        while state.version < 70 or state.phase != PLACE:
            state.push(state.random_action(rng))
        states.append(state)
    return states


def median_us(call, states: list[State], repeat: int = 200) -> float:
    samples = []
    for state in states:
        started = time.process_time()
        for _ in range(repeat):
            call(state)
        samples.append((time.process_time() - started) / repeat * 1e6)
    return statistics.median(samples)


def apply_once(state: State) -> None:
    state.clone().apply(state.legal_actions()[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per games/s figure")
    args = parser.parse_args()
    # Whole games first, while the process holds nothing else for the collector to walk.
    games_2p = games_per_second(2, args.seconds)
    games_4p = games_per_second(4, args.seconds)
    states = midgame_states(30)
    cells = statistics.median(len(s.legal_actions()) for s in states)
    clone_us = median_us(State.clone, states)
    legal_us = median_us(State.legal_actions, states)
    apply_us = median_us(apply_once, states) - clone_us
    rows = [
        ("random games/s, 2 players", games_2p, None),
        ("random games/s, 4 players", games_4p, TARGET_GAMES_PER_S),
        ("clone() us, mid-game 4p", clone_us, TARGET_CLONE_US),
        (f"legal_actions() us, mid-game 4p ({cells:.0f} placements)", legal_us, TARGET_LEGAL_US),
        ("apply(place) us, mid-game 4p, with events", apply_us, None),
    ]
    for name, value, target in rows:
        if target is None:
            print(f"{name:52s} {value:10.1f}")
        else:
            better = value / target if "games" in name else target / value
            print(f"{name:52s} {value:10.1f}   target {target:>5}  x{better:.2f} of target")


if __name__ == "__main__":
    main()
