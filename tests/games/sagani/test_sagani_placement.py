"""R2 steps 2, 3 and 5, and R3: where a tile may go, how it turns, what its arrows see."""

from __future__ import annotations

import pytest
from rules_kit import of_type, pile, reveal, solo, types, unflipped

from sagani_net.games.sagani.rules import Action, RuleError, State
from sagani_net.games.sagani.tiles import DIRECTIONS, ROTATIONS, rotated_arrows

N, NE, E, SE, S, SW, W, NW = range(8)


# -- where a tile may go -------------------------------------------------------------------------


def test_first_tile_goes_anywhere_at_origin():
    state = State.new(1, "solo", tiles=pile(2))
    reveal(state)
    assert state.legal_actions() == [Action.place((0, 0), r) for r in ROTATIONS]


@pytest.mark.parametrize("rotation", ROTATIONS)
def test_first_tile_takes_any_rotation(rotation):
    state = State.new(1, "solo", tiles=pile(2))
    reveal(state)
    state.apply(Action.place((0, 0), rotation))
    assert state.view()["seats"][0]["display"][0][:4] == [0, 0, 2, rotation]


def test_first_tile_elsewhere_than_origin_is_refused_and_changes_nothing():
    state = State.new(1, "solo", tiles=pile(2))
    reveal(state)
    before = state.view()
    with pytest.raises(RuleError) as refused:
        state.apply(Action.place((3, -1), 0))
    assert refused.value.code == "first_tile_at_origin"
    assert state.view() == before


def test_a_refused_cell_is_named_as_on_the_wire():
    """protocol/games/sagani.md: a message names cells as the wire does, [x, y] (a client in
    another language knows no Python tuple)."""
    state = State.new(1, "solo", tiles=pile(2))
    reveal(state)
    with pytest.raises(RuleError) as first:
        state.apply(Action.place((3, -1), 0))
    assert first.value.message.endswith("goes at [0, 0]")
    state.apply(Action.place((0, 0), 0))
    reveal(state)
    with pytest.raises(RuleError) as far:
        state.apply(Action.place((3, -1), 0))
    assert far.value.code == "not_adjacent"
    assert far.value.message.startswith("cell [3, -1] is not")


def test_every_display_starts_at_origin():
    state = State.new(2, tiles=pile())
    state.apply(Action.take(0))
    state.apply(Action.place((0, 0), 0))
    state.apply(Action.take(0))
    assert {a.cell for a in state.legal_actions()} == {(0, 0)}


def test_tile_goes_orthogonally_next_to_the_display():
    #  .  ?  .
    #  ?  F2 ?
    #  .  ?  .
    state = solo((2, (0, 0), 0), then=(38,))
    reveal(state)
    assert {a.cell for a in state.legal_actions()} == {(0, 1), (1, 0), (0, -1), (-1, 0)}
    assert {a.rotation for a in state.legal_actions()} == set(ROTATIONS)


def test_cells_next_to_any_tile_of_the_display_are_open():
    #  .  ?  ?  .
    #  ?  F2 W38 ?
    #  .  ?  ?  .
    state = solo((2, (0, 0), 0), (38, (1, 0), 90), then=(55,))
    reveal(state)
    expected = {(0, 1), (1, 1), (2, 0), (1, -1), (0, -1), (-1, 0)}
    assert {a.cell for a in state.legal_actions()} == expected


@pytest.mark.parametrize("cell", [(1, 1), (-1, -1), (0, 2), (2, 0)], ids=str)
def test_tile_not_orthogonally_next_to_the_display_is_refused(cell):
    state = solo((2, (0, 0), 0), then=(38,))
    reveal(state)
    before = state.view()
    with pytest.raises(RuleError) as refused:
        state.apply(Action.place(cell, 0))
    assert refused.value.code == "not_adjacent"
    assert state.view() == before


def test_tile_on_an_occupied_cell_is_refused():
    state = solo((2, (0, 0), 0), (38, (0, 1), 0), then=(55,))
    reveal(state)
    with pytest.raises(RuleError) as refused:
        state.apply(Action.place((0, 1), 0))
    assert refused.value.code == "not_adjacent"


def test_rotation_other_than_quarter_turns_is_refused():
    state = State.new(1, "solo", tiles=pile(2))
    reveal(state)
    with pytest.raises(RuleError) as refused:
        state.apply(Action.place((0, 0), 45))
    assert refused.value.code == "bad_rotation"


def test_placing_before_choosing_a_tile_is_refused():
    state = State.new(2, tiles=pile())
    with pytest.raises(RuleError) as refused:
        state.apply(Action.place((0, 0), 0))
    assert refused.value.code == "wrong_phase"


def test_choosing_again_while_holding_a_tile_is_refused():
    state = State.new(2, tiles=pile())
    state.apply(Action.take(0))
    with pytest.raises(RuleError) as refused:
        state.apply(Action.take(0))
    assert refused.value.code == "wrong_phase"


# -- rotation ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("rotation", "direction"), [(0, "N"), (90, "E"), (180, "S"), (270, "W")])
def test_rotation_turns_orthogonal_arrows_clockwise(rotation, direction):
    assert rotated_arrows(2, rotation) == ((direction, "fire"),)  # tile 2 prints N:fire


@pytest.mark.parametrize(
    ("rotation", "direction"), [(0, "NE"), (90, "SE"), (180, "SW"), (270, "NW")]
)
def test_rotation_turns_diagonal_arrows_clockwise(rotation, direction):
    assert rotated_arrows(1, rotation) == ((direction, "fire"),)  # tile 1 prints NE:fire


def test_rotation_turns_every_arrow_of_a_tile_together():
    # tile 8 prints N:fire NE:earth E:earth NW:fire
    assert rotated_arrows(8, 90) == (("E", "fire"), ("SE", "earth"), ("S", "earth"), ("NE", "fire"))
    assert rotated_arrows(8, 270) == (
        ("W", "fire"),
        ("NW", "earth"),
        ("N", "earth"),
        ("SW", "fire"),
    )


@pytest.mark.parametrize("rotation", ROTATIONS)
def test_rotated_orthogonal_arrow_sees_the_tile_it_now_points_at(rotation):
    #     .  ?  .
    #     ?  F2 ?       F2 turned by `rotation`; a fire tile on each side in turn:
    #     .  ?  .       only the side its arrow now points to is covered.
    state = solo((2, (0, 0), rotation), then=(1,))
    reveal(state)  # tile 1, fire
    pointed = DIRECTIONS.index(rotated_arrows(2, rotation)[0][0])
    for cell, direction in (((0, 1), N), ((1, 0), E), ((0, -1), S), ((-1, 0), W)):
        covers = state.preview(Action.place(cell, 0)).covers
        assert covers == ((((0, 0), pointed),) if direction == pointed else ())


@pytest.mark.parametrize("rotation", ROTATIONS)
def test_rotated_diagonal_arrow_sees_the_tile_it_now_points_at(rotation):
    #  ?  A56  ?        F1 turned by `rotation` at the origin, air tiles beside it;
    #  .  F1   .        a fire tile in each corner in turn: only the corner its arrow
    #  ?  A55  ?        now points to is covered.
    state = solo((1, (0, 0), rotation), (56, (0, 1), 0), (55, (0, -1), 180), then=(2,))
    reveal(state)  # tile 2, fire
    pointed = DIRECTIONS.index(rotated_arrows(1, rotation)[0][0])
    for cell, direction in (((1, 1), NE), ((1, -1), SE), ((-1, -1), SW), ((-1, 1), NW)):
        covers = state.preview(Action.place(cell, 0)).covers
        assert covers == ((((0, 0), direction),) if direction == pointed else ())


# -- what an arrow sees ------------------------------------------------------------------------


def test_arrow_sees_matching_tile_over_gaps():
    #  3  ?  W42
    #  2  .  W43
    #  1  .  W37
    #  0  F2 W38      F2's N arrow sees a fire tile at (0, 3), over two empty cells
    state = solo(
        (2, (0, 0), 0), (38, (1, 0), 90), (37, (1, 1), 90), (43, (1, 2), 90), (42, (1, 3), 90),
        then=(1,),
    )
    reveal(state)
    events = state.apply(Action.place((0, 3), 0))
    assert of_type(events, "arrow_covered")[0] == {
        "type": "arrow_covered", "seat": 0, "cell": [0, 0], "arrow": "N", "by": [0, 3],
    }


def test_arrow_sees_matching_tile_over_other_tiles():
    #  2  ?        F2's N arrow sees a fire tile at (0, 2) over the water tile between
    #  1  W38
    #  0  F2
    state = solo((2, (0, 0), 0), (38, (0, 1), 90), then=(1,))
    reveal(state)
    assert state.preview(Action.place((0, 2), 0)).covers == (((0, 0), N),)


def test_arrow_sees_matching_tile_over_gaps_on_exact_diagonal():
    #  2  .   .   ?
    #  1  .   .   A57
    #  0  F1  A55 A56     F1's NE arrow sees a fire tile at (2, 2) over the empty (1, 1)
    state = solo((1, (0, 0), 0), (55, (1, 0), 180), (56, (2, 0), 180), (57, (2, 1), 180), then=(2,))
    reveal(state)
    assert state.preview(Action.place((2, 2), 0)).covers == (((0, 0), NE),)


def test_arrow_sees_only_along_its_exact_ray():
    # Same board: of all cells a fire tile may go to, only those with dx == dy > 0 are seen.
    state = solo((1, (0, 0), 0), (55, (1, 0), 180), (56, (2, 0), 180), (57, (2, 1), 180), then=(2,))
    reveal(state)
    for action in state.legal_actions():
        x, y = action.cell
        seen = x == y > 0
        assert bool(state.preview(action).covers) == seen, action.cell


def test_arrow_does_not_see_a_tile_of_another_element():
    state = solo((2, (0, 0), 0), (38, (0, 1), 90), then=(55,))
    reveal(state)  # tile 55, air
    assert state.preview(Action.place((0, 2), 0)).covers == ()


def test_existing_arrow_covered_by_new_tile():
    #  1  ?       the new fire tile at (0, 1) covers F10's N arrow (R2 step 3)
    #  0  F10
    state = solo((10, (0, 0), 0), then=(2,))
    reveal(state)
    events = state.apply(Action.place((0, 1), 90))
    covered = of_type(events, "arrow_covered")
    assert [(e["cell"], e["arrow"], e["by"]) for e in covered] == [([0, 0], "N", [0, 1])]
    assert unflipped(state) == {(0, 0): 10, (0, 1): 2}


def test_new_tile_arrow_covered_by_existing_tile():
    #  0  ?  F10    the new tile's E arrow (tile 2 turned 90) sees the fire tile (R2 step 5)
    state = solo((10, (0, 0), 90), then=(2,))
    reveal(state)
    events = state.apply(Action.place((-1, 0), 90))
    assert [(e["cell"], e["arrow"], e["by"]) for e in of_type(events, "arrow_covered")] == [
        ([-1, 0], "E", None)
    ]


def test_tile_flips_when_its_last_arrow_is_covered_and_scores_its_value():
    #  1  F2  ?       F10 (N:fire NE:water): N covered by F2, then NE by a water tile at (1, 1)
    #  0  F10 .
    state = solo((10, (0, 0), 0), (2, (0, 1), 0), then=(38,))
    assert state.scores() == [0]
    assert state.seats[0].supply == 24 - 2 - 1
    reveal(state)
    events = state.apply(Action.place((1, 1), 0))
    flipped = of_type(events, "tile_flipped")
    assert [(f["cell"], f["tile"], f["points"]) for f in flipped] == [([0, 0], 10, 3)]
    assert state.scores() == [3]
    assert state.seats[0].supply == 24 - 1 - 1  # F10's two discs came back, W38 took one
    assert unflipped(state) == {(0, 1): 2, (1, 1): 38}


def test_tile_with_some_arrows_open_does_not_flip():
    state = solo((10, (0, 0), 0), (2, (0, 1), 0))
    assert unflipped(state) == {(0, 0): 10, (0, 1): 2}
    assert state.scores() == [0]


def test_new_tile_completing_at_once_flips_and_scores():
    #  1  F2      F2 turned 180 points S at the fire tile below: complete at once, 1 point
    #  0  F10
    state = solo((10, (0, 0), 90), then=(2,))
    reveal(state)
    events = state.apply(Action.place((0, 1), 180))
    assert [(f["cell"], f["points"]) for f in of_type(events, "tile_flipped")] == [([0, 1], 1)]
    assert state.scores() == [1]
    assert state.seats[0].supply == 24 - 2


def test_flipped_tiles_still_count_as_targets():
    #  0  F2        F2 turned 180 (S:fire) flips when F1 comes below it;
    # -1  F1  ?     then F18's NW arrow (N:earth NW:fire) at (1, -1) sees the flipped F2
    state = solo((2, (0, 0), 180), (1, (0, -1), 270), then=(18,))
    assert (0, 0) not in unflipped(state)
    reveal(state)
    placement = state.preview(Action.place((1, -1), 0))
    assert placement.covered == (NW,)
    assert placement.open == (N,)


def test_covered_arrow_stays_covered():
    #  2  ?         F10's N arrow is covered by F2 at (0, 1); a second fire tile further up
    #  1  F2        covers nothing more, and F10 (NE still open) does not flip.
    #  0  F10
    state = solo((10, (0, 0), 0), (2, (0, 1), 90), then=(1,))
    reveal(state)
    events = state.apply(Action.place((0, 2), 90))
    assert of_type(events, "arrow_covered") == []
    assert (0, 0) in unflipped(state)
    x, y, tile, rotation, covered, flipped = state.view()["seats"][0]["display"][0]
    assert (tile, covered, flipped) == (10, 1 << N, False)


def test_arrows_are_covered_without_a_decision():
    # R3: after placing, the next decision is already the next turn's; nothing left to cover.
    state = solo((10, (0, 0), 0), then=(2,))
    reveal(state)
    events = state.apply(Action.place((0, 1), 90))
    assert "arrow_covered" in types(events)
    assert state.legal_actions() == [Action("reveal")]


def test_one_tile_covers_arrows_of_several_tiles_at_once():
    #  1  F2  ?        a water tile at (1, 1) is on F10's NE ray (wants water) and on W38's
    #  0  F10 W38      N ray (wants water): both are covered, and both tiles, now complete, flip.
    state = solo((10, (0, 0), 0), (38, (1, 0), 0), (2, (0, 1), 90), then=(37,))
    reveal(state)
    events = state.apply(Action.place((1, 1), 0))
    covered = {(tuple(e["cell"]), e["arrow"]) for e in of_type(events, "arrow_covered")}
    assert covered == {((0, 0), "NE"), ((1, 0), "N")}
    flipped = {(tuple(e["cell"]), e["points"]) for e in of_type(events, "tile_flipped")}
    assert flipped == {((0, 0), 3), ((1, 0), 1)}
    assert state.scores() == [4]
