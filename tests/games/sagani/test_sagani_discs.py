"""R2 steps 3-4: sound discs, freed discs, cacophony.

The boards below lock discs away in a column of three-arrow tiles at x = 0, each turned 90 so
that its arrows point E, SE and NE, into the empty half x > 0 where nothing ever answers them.
"""

from __future__ import annotations

from rules_kit import of_type, reveal, solo, types, unflipped

from sagani_net.games.sagani.rules import Action

#: Three-arrow tiles for the column; 5 is fire (SE: water once turned), the rest earth.
COLUMN = (5, 22, 23, 31, 32, 33, 36, 44)


def column(tiles: tuple[int, ...], bottom: int) -> tuple[tuple[int, tuple[int, int], int], ...]:
    """``tiles`` stacked upwards from (0, bottom), each turned 90: arrows E, SE, NE."""
    return tuple((t, (0, bottom + i), 90) for i, t in enumerate(tiles))


def test_new_tile_takes_one_disc_per_arrow_from_supply():
    state = solo((10, (0, 0), 0))  # two arrows
    assert state.seats[0].supply == 22
    state = solo((10, (0, 0), 0), (4, (0, 1), 90))  # and three more
    assert state.seats[0].supply == 19
    assert state.seats[0].cacophony == 0


def test_freed_discs_pay_for_the_new_tile():
    #  7  E36 ...
    #  1  F5  .        F2 at the origin waits for fire to its E (one disc); seven column tiles
    #  0  F2> ?        hold 21 discs: 2 left. F4 (three arrows) at (1, 0) completes F2 first,
    #                  whose disc comes back: 2 + 1 pay for F4, no cacophony (German FAQ).
    state = solo((2, (0, 0), 90), *column(COLUMN[:7], 1), then=(4,))
    assert state.seats[0].supply == 2
    reveal(state)
    placement = state.preview(Action.place((1, 0), 90))
    assert (placement.discs_freed, placement.cacophony) == (1, 0)
    events = state.apply(Action.place((1, 0), 90))
    assert "cacophony_taken" not in types(events)
    assert state.seats[0].supply == 0
    assert state.seats[0].cacophony == 0
    assert state.scores() == [1]


def test_freed_discs_count_before_cacophony():
    # As above, but F9 has four arrows: 2 + 1 freed pay for three, one cacophony disc for the
    # fourth; the events follow R2: cover and flip the old tile, then take cacophony.
    state = solo((2, (0, 0), 90), *column(COLUMN[:7], 1), then=(9,))
    reveal(state)
    events = state.apply(Action.place((1, 0), 0))
    assert types(events) == ["tile_placed", "arrow_covered", "tile_flipped", "cacophony_taken"]
    assert of_type(events, "cacophony_taken")[0]["count"] == 1
    assert state.scores() == [1 - 2]


def test_cacophony_taken_for_each_missing_disc():
    #  1     E22     eight column tiles hold all 24 discs; F9 at (-1, 0), turned 180 so that
    #  0  ?  F5 ...  it sees nothing, needs four: four cacophony discs
    state = solo(*column(COLUMN, 0), then=(9,))
    assert state.seats[0].supply == 0
    reveal(state)
    events = state.apply(Action.place((-1, 0), 180))
    taken = of_type(events, "cacophony_taken")
    assert [(e["count"], e["total"]) for e in taken] == [(4, 4)]
    assert state.seats[0].cacophony == 4


def test_cacophony_costs_two_points_at_once():
    state = solo(*column(COLUMN, 0), then=(9,))
    reveal(state)
    events = state.apply(Action.place((-1, 0), 180))
    assert of_type(events, "cacophony_taken")[0]["score"] == -8
    assert state.scores() == [-8]  # below zero is allowed (R4)


def test_cacophony_taken_even_when_new_tile_completes_at_once():
    #  2     E23
    #  1  ?  E22     F12 (NE:fire NW:earth) turned 90 at (-1, 1): SE sees F5, NE sees E23,
    #  0     F5      complete at once. It still takes two cacophony discs first (German FAQ).
    state = solo(*column(COLUMN, 0), then=(12,))
    reveal(state)
    placement = state.preview(Action.place((-1, 1), 90))
    assert placement.completes
    assert placement.cacophony == 2
    events = state.apply(Action.place((-1, 1), 90))
    assert types(events) == [
        "tile_placed", "cacophony_taken", "arrow_covered", "arrow_covered", "tile_flipped",
    ]
    assert state.scores() == [3 - 4]
    assert state.seats[0].cacophony == 2


def test_cacophony_discs_return_to_supply_when_their_tile_flips():
    state = solo(*column(COLUMN, 0), then=(12,))
    reveal(state)
    state.apply(Action.place((-1, 1), 90))
    assert state.seats[0].supply == 2  # the two cacophony discs came back with the flip


def test_cacophony_discs_are_never_given_back():
    state = solo(*column(COLUMN, 0), then=(12, 2))
    reveal(state)
    state.apply(Action.place((-1, 1), 90))
    reveal(state)
    state.apply(Action.place((-2, 1), 0))  # F2, one disc
    assert state.seats[0].cacophony == 2
    assert state.scores() == [3 - 4]


def test_cacophony_discs_are_reused_as_sound_discs():
    # After the flip the supply holds the two cacophony discs; the next one-arrow tile uses
    # one of them and takes no new cacophony disc.
    state = solo(*column(COLUMN, 0), then=(12, 2))
    reveal(state)
    state.apply(Action.place((-1, 1), 90))
    reveal(state)
    events = state.apply(Action.place((-2, 1), 0))
    assert "cacophony_taken" not in types(events)
    assert state.seats[0].supply == 1


def test_flipped_tile_discs_return_to_supply():
    #  1  F2 .      F10 (two discs) flips when W38 covers its NE arrow: both discs return
    #  0  F10 .
    state = solo((10, (0, 0), 0), (2, (0, 1), 0), then=(38,))
    before = state.seats[0].supply
    reveal(state)
    placement = state.preview(Action.place((1, 1), 0))
    assert placement.discs_freed == 2
    state.apply(Action.place((1, 1), 0))
    assert state.seats[0].supply == before + 2 - 1
    assert (0, 0) not in unflipped(state)
