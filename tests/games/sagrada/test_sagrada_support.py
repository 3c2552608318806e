"""Helpers for the Sagrada tests: tables set up by hand, windows and patterns drawn as text.

A window is drawn as 4 rows of 5 cells, ``.`` for an empty cell and a die as ``R3``; a pattern
the same way, ``.`` for a blank cell, a colour letter or a value.
"""

from __future__ import annotations

import random

from sagani_net.games.sagrada.components import CELLS, parse_die
from sagani_net.games.sagrada.patterns import Pattern
from sagani_net.games.sagrada.rules import SAGRADA, Action, State

BLANK = ". . . . .\n" * 4


def cells(drawing: str) -> list[str]:
    words = drawing.split()
    assert len(words) == CELLS, f"a drawing has {CELLS} cells, not {len(words)}"
    return words


def window(drawing: str) -> list[int]:
    return [0 if w == "." else parse_die(w) for w in cells(drawing)]


def pattern(drawing: str = BLANK, difficulty: int = 4, name: str = "Test") -> Pattern:
    return Pattern(name, difficulty, tuple("" if w == "." else w for w in cells(drawing)))


def cell(text: str) -> int:
    """``"2,4"`` (as people count) to a cell index."""
    row, column = (int(v) for v in text.split(","))
    return (row - 1) * 5 + column - 1


def table(
    players: int = 2,
    tools: tuple[int, ...] = (),
    pool: str = "",
    windows: tuple[str, ...] = (),
    patterns: tuple[str, ...] = (),
    tokens: tuple[int, ...] = (),
    track: dict[int, str] | None = None,
    turn: int = 0,
    round_: int = 0,
    privates: tuple[tuple[int, ...], ...] = (),
    objectives: tuple[int, ...] = (),
    seed: int = 1,
) -> State:
    """A game past the pattern choice, arranged by hand: ``turn`` is the position in the
    round's snake; windows, patterns (blank by default), tokens and the pool as given."""
    config = SAGRADA.parse_config({"players": players})
    state = SAGRADA.new_state(config, seed)
    for _ in range(players):
        state.apply(Action.choose(0))
    state.patterns = tuple(pattern(patterns[s] if s < len(patterns) else BLANK)
                           for s in range(players))
    state.chosen = list(range(players))
    state.tools = tuple(tools)
    state.uses = [0] * len(tools)
    if objectives:
        state.objectives = objectives
    if privates:
        state.privates = privates
    for s in range(players):
        drawn = window(windows[s]) if s < len(windows) else [0] * CELLS
        state.windows[s] = drawn
        state.filled[s] = sum(1 << i for i, d in enumerate(drawn) if d)
    state.owned = (1 << players) - 1
    state.cache = [None] * players
    if tokens:
        state.tokens = list(tokens)
    if pool:
        state.pool = [parse_die(d) for d in pool.split()]
    for r, dice in (track or {}).items():
        state.track[r] = [parse_die(d) for d in dice.split()]
    state.round = round_
    start = round_ % players
    forth = tuple((start + i) % players for i in range(players))
    state.order = forth + forth[::-1]
    state.turn, state.seat = turn, state.order[turn]
    return state


def play_text(state: State, *texts: str) -> list[dict]:
    """Apply actions given in their text form; return all their events."""
    events = []
    for text in texts:
        events.extend(state.apply(Action.parse(text)))
    return events


def types(events: list[dict]) -> list[str]:
    return [e["type"] for e in events]


def random_game(players: int, seed: int, **config: object) -> State:
    """A whole game of uniformly random legal actions, every one checked by ``apply``."""
    state = SAGRADA.new_state(SAGRADA.parse_config({"players": players, **config}), seed)
    rng = random.Random(seed)
    while not state.is_over():
        state.apply(state.random_action(rng))
    return state


def test_table_puts_the_drawn_dice_in_the_window() -> None:
    state = table(windows=("R3 . . . .\n" + ". . . . .\n" * 2 + ". . . . G6",))
    assert state.windows[0][0] == parse_die("R3") and state.windows[0][19] == parse_die("G6")
    assert state.current_seat == 0 and state.phase == "play"
