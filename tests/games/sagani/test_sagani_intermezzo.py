"""R5: the intermezzo, with its order by R4 reversed.

Each game here is stacked with :func:`rules_kit.pile_at` and played by
:func:`rules_kit.fill_storage`: quiet turns (nothing covered, nothing scored), drawing whenever
one offer tile is left, so that storage fills with one tile per offer and the fourth draw
starts an intermezzo after turn 20. ``dealt(t)`` is the pile position of turn ``t``'s tile.
"""

from __future__ import annotations

import pytest
from rules_kit import STORED_AT, dealt, fill_storage, of_type, pile_at, scores, turn, types

from sagani_net.games.sagani.rules import Action, RuleError, State


def to_intermezzo(players: int, placed: dict[int, int] | None = None, wants=None) -> State:
    state = State.new(players, tiles=pile_at(placed or {}))
    fill_storage(state, wants)
    return state


def test_intermezzo_starts_when_offer_empties_with_exactly_four_stored():
    state = State.new(2, tiles=pile_at({}))
    events = fill_storage(state)
    started = of_type(events, "intermezzo_started")
    assert len(started) == 1
    assert events[-1] == started[0]  # after the turn that stored the fourth tile, before refill
    assert len(started[0]["storage"]) == 4
    assert state.offer == []
    assert state.seats[0].turns + state.seats[1].turns == 20


def test_no_intermezzo_while_fewer_than_four_are_stored():
    state = State.new(2, tiles=pile_at({}))
    stored = []
    while state.intermezzo is None:
        events = turn(state, "draw") if state.can_draw() else turn(state)
        if "offer_refilled" in types(events):
            stored.append(len(state.storage))
    assert stored == [1, 2, 3]


@pytest.mark.parametrize(("players", "order"), [(2, [1, 0]), (3, [2, 1, 0]), (4, [3, 2, 1, 0])])
def test_intermezzo_ties_at_zero_go_in_reverse_turn_order(players, order):
    # German FAQ: the start player reached 0 first, then the others in turn order.
    state = to_intermezzo(players)
    assert state.scores() == [0] * players
    assert state.view()["intermezzo"]["order"] == order
    assert state.current_seat == order[0]


def test_intermezzo_order_goes_from_furthest_behind_to_furthest_ahead():
    # Three players. Seat 2 scores 2 (F2, then F1, beside its F3), seat 0 scores 1 (E19 beside
    # its E21), seat 1 nothing: order 1, 0, 2, which is not the reverse turn order.
    placed = {dealt(0): 21, dealt(2): 3, dealt(6): 19, dealt(5): 2, dealt(8): 1}
    wants = {6: (19, scores(1)), 5: (2, scores(1)), 8: (1, scores(1))}
    state = to_intermezzo(3, placed, wants)
    assert state.scores() == [1, 0, 2]
    assert state.view()["intermezzo"]["order"] == [1, 0, 2]


def test_intermezzo_stack_ties_put_the_earlier_marker_ahead():
    # Seat 2 reaches 1 point on turn 5, seat 0 on turn 6: seat 2's marker lies under seat 0's,
    # so seat 2 is ahead of seat 0 and chooses after it (R4).
    placed = {dealt(0): 21, dealt(2): 3, dealt(5): 2, dealt(6): 19}
    wants = {5: (2, scores(1)), 6: (19, scores(1))}
    state = to_intermezzo(3, placed, wants)
    assert state.scores() == [1, 0, 1]
    assert state.ranking() == [2, 0, 1]
    assert state.view()["intermezzo"]["order"] == [1, 0, 2]


def test_intermezzo_offers_storage_tiles_or_pass_and_no_draw():
    state = to_intermezzo(2)
    assert state.legal_actions() == [Action.pick(i) for i in range(4)] + [Action("pass")]
    assert state.view()["can_draw"] is False
    with pytest.raises(RuleError) as refused:
        state.apply(Action("draw"))
    assert refused.value.code == "not_allowed"
    with pytest.raises(RuleError) as refused:
        state.apply(Action.take(0))
    assert refused.value.code == "not_allowed"


def test_intermezzo_pick_is_placed_by_the_turn_rules():
    state = to_intermezzo(2)
    seat = state.current_seat
    tile = state.storage[1]
    events = state.apply(Action.pick(1))
    assert events == [
        {"type": "tile_taken", "seat": seat, "tile": tile, "source": "storage", "index": 1}
    ]
    with pytest.raises(RuleError) as refused:
        state.apply(Action.place((9, 9), 0))
    assert refused.value.code == "not_adjacent"
    turns_before = state.seats[seat].turns
    events = state.apply(state.legal_actions()[0])
    assert "tile_placed" in types(events)
    assert state.seats[seat].turns == turns_before  # an intermezzo pick is not a turn


def test_intermezzo_pick_scores_like_a_turn():
    # Storage's first tile is F2; seat 1 (first to choose, ties at zero) holds a fire tile.
    placed = {dealt(1): 3, STORED_AT[0]: 2}
    state = to_intermezzo(2, placed)
    assert state.storage[0] == 2
    assert state.current_seat == 1
    events = turn(state, 2, scores(1))
    assert [e["points"] for e in of_type(events, "tile_flipped")] == [1]
    assert state.scores() == [0, 1]


def test_intermezzo_player_may_pass():
    state = to_intermezzo(3)
    storage = state.storage[:]
    events = state.apply(Action("pass"))
    assert events == [{"type": "player_passed", "seat": 2, "reason": "intermezzo"}]
    assert state.storage == storage
    assert state.current_seat == 1



def test_a_seat_past_its_deadline_in_an_intermezzo_passes():
    """The pick is a choice (R5): the host's default move for a silent seat takes no tile,
    which it would place unturned on the first free cell, maybe for cacophony."""
    state = to_intermezzo(3)
    assert state.default_action() == Action("pass")
    state.apply(state.default_action())
    assert state.storage and state.current_seat == 1
    fresh = State.new(3, tiles=pile_at({}))
    assert fresh.default_action() == Action("take", 0)  # a turn's take is no choice

def test_intermezzo_tiles_not_taken_stay_in_storage():
    state = to_intermezzo(3)
    storage = state.storage[:]
    turn(state, storage[2])
    state.apply(Action("pass"))
    events = state.apply(Action("pass"))
    assert types(events)[:2] == ["player_passed", "intermezzo_ended"]
    assert "storage_cleared" not in types(events)
    assert state.storage == [storage[0], storage[1], storage[3]]


def test_storage_cleared_when_nobody_takes_a_tile():
    state = to_intermezzo(3)
    storage = state.storage[:]
    events = []
    for _ in range(3):
        events += state.apply(Action("pass"))
    assert of_type(events, "intermezzo_ended") == [{"type": "intermezzo_ended", "taken": 0}]
    assert of_type(events, "storage_cleared") == [{"type": "storage_cleared", "tiles": storage}]
    assert state.storage == []
    assert state.view()["removed"] == storage


def test_after_intermezzo_offer_refilled_and_play_goes_on_after_the_emptying_player():
    # Three players: turn 20 (seat 1) stored the fourth tile; after the intermezzo the offer is
    # refilled with five and seat 2 plays.
    order = pile_at({})
    state = State.new(3, tiles=order)
    fill_storage(state)
    assert state.view()["intermezzo"]["after"] == 1
    events = []
    for _ in range(3):
        events += state.apply(Action("pass"))
    assert of_type(events, "offer_refilled") == [{"type": "offer_refilled", "tiles": order[24:29]}]
    assert state.current_seat == 2
    assert state.intermezzo is None


def test_intermezzo_order_is_fixed_when_it_begins():
    # Ties at zero: order 2, 1, 0. Seat 2 picks F2 and scores 1, so it is now ahead of the
    # others; the order stays 2, 1, 0 all the same.
    placed = {dealt(2): 3, STORED_AT[0]: 2}
    state = to_intermezzo(3, placed)
    assert state.view()["intermezzo"]["order"] == [2, 1, 0]
    turn(state, 2, scores(1))
    assert state.scores() == [0, 0, 1]
    assert state.current_seat == 1
    assert state.view()["intermezzo"]["order"] == [2, 1, 0]
    state.apply(Action("pass"))
    assert state.current_seat == 0


def test_tiles_left_in_storage_bring_the_next_intermezzo_sooner():
    # One tile taken, three stay: the very next draw fills storage again, one offer later.
    state = to_intermezzo(3)
    turn(state, state.storage[0])
    state.apply(Action("pass"))
    state.apply(Action("pass"))
    assert len(state.storage) == 3
    events = fill_storage(state)
    assert len(of_type(events, "tile_placed")) == 5  # four takes and one draw
    assert len(of_type(events, "intermezzo_started")) == 1
