"""R2 step 1 and R6's refill rules: the offer, the draw-pile option, the turn order."""

from __future__ import annotations

import pytest
from rules_kit import LOW_TILES, of_type, pile, pile_at, turn, types

from sagani_net.games.sagani.rules import Action, RuleError, State
from sagani_net.games.sagani.tiles import TILES


def test_offer_is_dealt_from_the_top_of_the_pile_in_order():
    state = State.new(3, tiles=pile(40, 2, 66, 9, 31))
    assert state.offer == [40, 2, 66, 9, 31]
    assert state.view()["offer"] == [40, 2, 66, 9, 31]
    assert state.view()["pile"] == 72 - 5


@pytest.mark.parametrize(("players", "mode", "offer", "pile_left"),
                         [(2, "multi", 5, 67), (3, "multi", 5, 67), (4, "multi", 5, 67),
                          (1, "solo", 0, 72), (1, "solo-advanced", 0, 72)])
def test_setup_gives_each_player_24_discs_at_0_and_one_pile_of_the_rest(
        players, mode, offer, pile_left):
    # One pile, as the German book deals it: the English three stacks come in one order too.
    view = State.new(players, mode, tiles=pile()).view()
    assert [(s["score"], s["supply"], s["cacophony"], s["bonus"], s["display"])
            for s in view["seats"]] == [(0, 24, 0, 0, [])] * players
    assert (len(view["offer"]), view["storage"], view["removed"]) == (offer, [], [])
    assert view["pile"] == pile_left
    assert (view["end_triggered"], view["last_round"]) == (False, False)


def test_start_player_is_seat_zero():
    for players in (2, 3, 4):
        assert State.new(players, tiles=pile()).current_seat == 0


def test_turns_go_round_in_seat_order():
    state = State.new(3, tiles=pile_at({}))
    seats = []
    for _ in range(7):
        seats.append(state.current_seat)
        turn(state)
    assert seats == [0, 1, 2, 0, 1, 2, 0]


def test_take_index_counts_the_tiles_still_in_the_offer():
    state = State.new(2, tiles=pile(40, 2, 66, 9, 31))
    events = state.apply(Action.take(1))
    assert of_type(events, "tile_taken")[0]["tile"] == 2
    state.apply(Action.place((0, 0), 0))
    assert state.offer == [40, 66, 9, 31]
    events = state.apply(Action.take(1))
    assert of_type(events, "tile_taken")[0]["tile"] == 66


def test_take_index_outside_the_offer_is_refused():
    state = State.new(2, tiles=pile())
    with pytest.raises(RuleError) as refused:
        state.apply(Action.take(5))
    assert refused.value.code == "bad_index"


@pytest.mark.parametrize("offer_left", [5, 4, 3, 2])
def test_draw_pile_option_not_offered_with_more_than_one_offer_tile(offer_left):
    state = State.new(2, tiles=pile_at({}))
    for _ in range(5 - offer_left):
        turn(state)
    assert len(state.offer) == offer_left
    assert Action("draw") not in state.legal_actions()
    before = state.view()
    with pytest.raises(RuleError) as refused:
        state.apply(Action("draw"))
    assert refused.value.code == "not_allowed"
    assert state.view() == before


def test_draw_pile_option_offered_with_exactly_one_offer_tile():
    state = State.new(2, tiles=pile_at({}))
    for _ in range(4):
        turn(state)
    assert state.legal_actions() == [Action.take(0), Action("draw")]
    assert state.view()["can_draw"] is True


def test_draw_stores_the_last_offer_tile_and_takes_the_top_of_the_pile():
    order = pile_at({})
    state = State.new(2, tiles=order)
    for _ in range(4):
        turn(state)
    last, top = state.offer[0], order[5]
    events = state.apply(Action("draw"))
    assert events == [
        {"type": "tile_stored", "seat": 0, "tile": last},
        {"type": "tile_taken", "seat": 0, "tile": top, "source": "pile"},
    ]
    assert state.storage == [last]
    assert state.held == top


def test_draw_pile_top_shows_only_its_back_before_it_is_chosen():
    order = pile_at({})
    state = State.new(2, tiles=order)
    top = TILES[order[5]]
    view = state.view()
    assert view["top"] == [top.element, top.value]
    assert order[5] not in view["offer"]
    assert view["held"] is None


def test_offer_refilled_with_five_when_the_last_tile_is_taken():
    order = pile_at({})
    state = State.new(2, tiles=order)
    for _ in range(4):
        turn(state)
    events = turn(state)  # takes the last offer tile
    assert of_type(events, "offer_refilled") == [{"type": "offer_refilled", "tiles": order[5:10]}]
    assert state.offer == order[5:10]
    assert state.storage == []


def test_offer_refilled_with_five_after_a_draw_empties_it():
    order = pile_at({})
    state = State.new(2, tiles=order)
    for _ in range(4):
        turn(state)
    events = turn(state, "draw")
    assert of_type(events, "offer_refilled") == [{"type": "offer_refilled", "tiles": order[6:11]}]
    assert "intermezzo_started" not in types(events)  # one stored tile is not four


def test_offer_not_refilled_while_tiles_remain():
    state = State.new(2, tiles=pile_at({}))
    events = turn(state)
    assert "offer_refilled" not in types(events)
    assert len(state.offer) == 4


def test_player_with_no_tile_to_take_passes():
    # R6. With 72 tiles a refill always leaves enough tiles for the last round, so no game of
    # ours reaches this; the state is set up by hand: an empty offer and an empty pile.
    state = State.new(2, tiles=pile())
    state.offer.clear()
    state.pile.clear()
    assert state.legal_actions() == [Action("pass")]
    events = state.apply(Action("pass"))
    assert events[0] == {"type": "player_passed", "seat": 0, "reason": "no_tile"}
    assert state.current_seat == 1


def test_solo_has_no_offer_and_reveals_the_top_tile():
    state = State.new(1, "solo", tiles=pile(*LOW_TILES))
    assert state.view()["offer"] == []
    assert state.legal_actions() == [Action("reveal")]
    events = state.apply(Action("reveal"))
    assert events == [{"type": "tile_taken", "seat": 0, "tile": LOW_TILES[0], "source": "pile"}]
