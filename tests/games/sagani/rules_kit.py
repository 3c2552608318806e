"""Helpers for the rules tests: stacked piles, scripted turns and placements chosen by preview.

Boards in the tests are drawn with y growing upwards (North), x to the right (East), one cell per
column; a tile is written as its element's initial and its id, e.g. ``F2`` for tile 2 (fire).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sagani_net.game import without_seat
from sagani_net.games.sagani.rules import Action, Placement, State
from sagani_net.games.sagani.tiles import TILE_IDS, TILES

DATA = Path(__file__).parent / "data"

#: Tiles with one or two arrows, all among N, NE, NW as printed: cheap, easy to keep quiet.
LOW_TILES = tuple(t for t in TILE_IDS if TILES[t].value <= 3)

Want = Callable[[Placement], bool]


def pile(*top: int) -> list[int]:
    """All 72 tile ids, top first: ``top`` in the order given, then the rest by id."""
    assert len(set(top)) == len(top), "a tile can be in the pile only once"
    return [*top, *(t for t in TILE_IDS if t not in top)]


def pile_at(placed: dict[int, int]) -> list[int]:
    """All 72 tile ids, top first, with ``placed[i]`` at position ``i``; the other positions
    take the low tiles, then the rest, in id order.
    """
    used = set(placed.values())
    rest = iter([t for t in (*LOW_TILES, *TILE_IDS) if t not in used])
    order: list[int] = []
    for i in range(72):
        tile = placed[i] if i in placed else next(rest)
        while tile in order:
            tile = next(rest)
        order.append(tile)
    assert sorted(order) == list(TILE_IDS)
    return order


def dealt(turn_number: int) -> int:
    """The pile position of the tile that turn ``turn_number`` (0-based) plays in
    :func:`fill_storage`: each cycle deals six tiles, the first four are taken, the fifth is
    stored when the sixth is drawn. Storage gets positions 4, 10, 16 and 22.
    """
    cycle, k = divmod(turn_number, 5)
    return 6 * cycle + (k if k < 4 else 5)


#: The pile positions :func:`fill_storage` sends to storage, in order.
STORED_AT = (4, 10, 16, 22)


def quiet(pl: Placement) -> bool:
    """A placement that covers nothing, is not covered, and costs no cacophony."""
    return not pl.covers and not pl.covered and pl.cacophony == 0


def scores(points: int) -> Want:
    """A placement that scores exactly ``points`` and costs no cacophony."""
    return lambda pl: pl.points == points and pl.cacophony == 0


def place_where(state: State, want: Want) -> Action:
    """The first legal placement of the held tile whose preview satisfies ``want``."""
    for action in state.legal_actions():
        if want(state.preview(action)):
            return action
    raise AssertionError(f"no placement of tile {state.held} fits for seat {state.seat}")


def turn(
    state: State, tile: int | str | None = None, want: Want | Action = quiet
) -> list[dict[str, Any]]:
    """Play one turn or intermezzo pick: take ``tile`` (an id from the offer, or from storage in
    an intermezzo), ``"draw"``, ``"pass"``, or None for the first offer tile; then place it.
    """
    if tile == "pass":
        return state.apply(Action("pass"))
    if tile == "draw":
        choice = Action("draw")
    elif state.intermezzo is not None:
        assert isinstance(tile, int), "an intermezzo pick names its tile"
        choice = Action.pick(state.storage.index(tile))
    else:
        choice = Action.take(0 if tile is None else state.offer.index(tile))
    events = state.apply(choice)
    where = want if isinstance(want, Action) else place_where(state, want)
    return events + state.apply(where)


def fill_storage(state: State, wants: dict[int, tuple[int, Want]] | None = None) -> list[dict]:
    """Play quiet turns, drawing whenever one offer tile is left, until an intermezzo starts.

    ``wants`` maps a turn number (0-based, from now) to the tile to take and how to place it.
    """
    wants = wants or {}
    events: list[dict] = []
    n = 0
    while state.intermezzo is None:
        assert not state.is_over()
        if n in wants:
            tile, want = wants[n]
            events += turn(state, tile, want)
        elif state.can_draw():
            events += turn(state, "draw")
        else:
            events += turn(state)
        n += 1
    return events


def solo(*placements: tuple[int, tuple[int, int], int], then: tuple[int, ...] = ()) -> State:
    """A basic-solo game whose display is built by real turns: ``(tile, cell, rotation)`` each,
    the pile stacked so that those tiles come in that order, then ``then``.
    """
    state = State.new(1, "solo", tiles=pile(*(t for t, _, _ in placements), *then))
    for _tile, cell, rotation in placements:
        state.apply(Action("reveal"))
        state.apply(Action.place(cell, rotation))
    return state


def reveal(state: State) -> int:
    """Solo: reveal the next tile and return it."""
    state.apply(Action("reveal"))
    assert state.held is not None
    return state.held


def types(events: list[dict]) -> list[str]:
    return [e["type"] for e in events]


def of_type(events: list[dict], kind: str) -> list[dict]:
    return [e for e in events if e["type"] == kind]


def unflipped(state: State, seat: int = 0) -> dict[tuple[int, int], int]:
    """Cell -> tile of the seat's tiles still face up (not flipped), from the public view."""
    display = state.view()["seats"][seat]["display"]
    return {(x, y): tile for x, y, tile, _rot, _cov, flipped in display if not flipped}


def load_record(name: str) -> dict:
    return json.loads((DATA / name).read_text())


def replay_until(record: dict, stop: Callable[[State, list[dict]], bool]) -> tuple[State, list]:
    """Replay ``record`` action by action until ``stop(state, events of that action)``."""
    state = State.new(record["players"], record["mode"], record["seed"], record["tiles"])
    for data in record["actions"]:
        events = state.apply(Action.from_dict(without_seat(data)))
        if stop(state, events):
            return state, events
    raise AssertionError("the record never reaches the situation")
