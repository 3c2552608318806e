"""The 12 tool cards: what each does, when it may be used, and what it costs."""

from __future__ import annotations

import random

import pytest
from test_sagrada_support import cell, play_text, table, types

from sagani_net.game import RuleError
from sagani_net.games.sagrada.components import COLOUR, VALUE, die_text, parse_die
from sagani_net.games.sagrada.rules import SAGRADA, Action, State

ONE_DIE = "R3 . . . .\n" + ". . . . .\n" * 3


def refusal(state, text: str) -> str:
    with pytest.raises(RuleError) as info:
        state.apply(Action.parse(text))
    return info.value.code


def kinds(state) -> set[str]:
    return {str(a).split()[0] for a in state.legal_actions()}


# -- cost -------------------------------------------------------------------------------------


def test_a_tool_costs_one_token_first_then_two() -> None:
    state = table(tools=(10,), tokens=(3, 3), pool="Y2 G5 B6 P1 P2", windows=(ONE_DIE, ONE_DIE))
    events = play_text(state, "draft 1", "tool 10", "place 1,2")
    assert {"type": "tool_used", "seat": 0, "tool": 10, "tokens": 1} in events
    assert state.tokens == [2, 3] and state.uses == [1]
    events = play_text(state, "draft 1", "tool 10", "place 1,2")
    assert {"type": "tool_used", "seat": 1, "tool": 10, "tokens": 2} in events
    assert state.tokens == [2, 1]


def test_without_enough_tokens_a_tool_cannot_be_used() -> None:
    state = table(tools=(10,), tokens=(1, 3), pool="Y4 G5 B6 P1 P2", windows=(ONE_DIE, ONE_DIE))
    state.uses = [1]  # now it costs 2
    assert Action.draft(0) not in state.legal_actions()  # nothing to draft it for
    assert refusal(state, "draft 1") == "no_tool"
    assert refusal(state, "tool 10") == "cannot_pay"


def test_one_tool_per_turn() -> None:
    state = table(tools=(10, 2), tokens=(5, 5), pool="Y2 G5 B6 P1 P2",
                  windows=("R3 G2 . . .\n" + ". . . . .\n" * 3, ONE_DIE))
    play_text(state, "draft 1", "tool 10", "place 2,1")
    # Drafted and used a tool: the turn is over, Eglomise Brush must wait.
    assert state.current_seat == 1


def test_solo_pays_with_a_die_of_the_tools_colour_and_the_tool_leaves() -> None:
    state = table(players=1, tools=(10,), pool="G5 Y2 R1 G2", windows=(ONE_DIE,))
    actions = [a for a in state.legal_actions() if a.kind == "draft" and a.cell < 0]
    assert {a.die for a in actions} == {0, 1, 2, 3}  # a green die is left to pay with
    play_text(state, "draft 2")
    assert [str(a) for a in state.legal_actions() if a.kind == "tool"] == ["tool 10 pay 1",
                                                                           "tool 10 pay 3"]
    events = play_text(state, "tool 10 pay 1", "place 1,2")
    assert {"type": "tool_used", "seat": 0, "tool": 10, "paid": "G5"} in events
    assert [die_text(d) for d in state.pool] == ["R1", "G2"]
    assert state.tokens == [0] and state.turn == 1  # the solo game's second turn
    assert "tool" not in kinds(state) and refusal(state, "draft 2") == "no_tool"


#: SAGRADA.md, Tool cards: the colour of die that pays for each tool in the solo game.
PAGE_COLOURS = {1: "P", 2: "B", 3: "R", 4: "Y", 5: "G", 6: "P", 7: "B", 8: "R", 9: "Y",
                10: "G", 11: "P", 12: "B"}


@pytest.mark.parametrize("tool", sorted(PAGE_COLOURS))
def test_solo_tool_costs_a_die_of_the_pages_colour(tool: int) -> None:
    state = table(players=1, tools=(tool,), pool="R1 Y2 G3 B4", windows=(ONE_DIE,))
    assert state.view()["tools"] == [{"tool": tool, "uses": 0, "cost": PAGE_COLOURS[tool]}]
    colour = "RYGBP".index(PAGE_COLOURS[tool])
    pays = state._pay_options(0)
    assert [COLOUR[state.pool[i]] for i in pays] == ([colour] if colour < 4 else [])


def test_solo_glazing_hammer_needs_a_die_left_to_reroll_after_paying() -> None:
    state = table(players=1, tools=(7,), pool="B4", windows=(ONE_DIE,), turn=1)
    assert "tool" not in kinds(state)
    state = table(players=1, tools=(7,), pool="B4 Y2", windows=(ONE_DIE,), turn=1)
    events = play_text(state, "tool 7 pay 1")
    rerolled = next(e for e in events if e["type"] == "pool_rerolled")["pool"]
    assert len(rerolled) == 1 and rerolled[0][0] == "Y"


def test_solo_cannot_pay_without_a_die_of_the_colour() -> None:
    state = table(players=1, tools=(10,), pool="Y4 R1 B2 P5", windows=(ONE_DIE,))
    assert not [a for a in state.legal_actions() if a.kind == "draft" and a.cell < 0]


# -- timing ----------------------------------------------------------------------------------


def test_drafted_die_tools_only_between_drafting_and_placing() -> None:
    state = table(tools=(1, 2), tokens=(5, 5), pool="Y4 G5 B6 P1 P2", windows=(ONE_DIE, ONE_DIE))
    assert refusal(state, "tool 1") == "wrong_timing"
    play_text(state, "draft 1")
    assert refusal(state, "tool 2") == "wrong_timing"  # never in between
    assert refusal(state, "pass") == "wrong_step"
    play_text(state, "tool 1")


def test_moving_tools_before_drafting_or_after_placing() -> None:
    state = table(tools=(2,), tokens=(5, 5), pool="Y4 G5 B6 P1 P2",
                  windows=("R3 G2 . . .\n" + ". . . . .\n" * 3, ONE_DIE))
    assert "tool" in kinds(state)
    play_text(state, "draft 1 at 2,1")
    assert [str(a) for a in state.legal_actions() if a.kind == "tool"] == ["tool 2"]
    play_text(state, "tool 2")
    assert kinds(state) == {"move"}


# -- each tool --------------------------------------------------------------------------------


def test_grozing_pliers_raise_or_lower_by_one_but_not_round_the_corner() -> None:
    state = table(tools=(1,), tokens=(5, 5), pool="Y6 Y1 G5 B6 P1", windows=(ONE_DIE, ONE_DIE))
    play_text(state, "draft 1", "tool 1")
    assert [str(a) for a in state.legal_actions()] == ["value 5"]
    events = play_text(state, "value 5", "place 1,2")
    assert {"type": "die_set", "seat": 0, "tool": 1, "die": "Y5"} in events
    assert state.windows[0][1] == parse_die("Y5")
    play_text(state, "draft 1", "tool 1")
    assert [str(a) for a in state.legal_actions()] == ["value 2"]


def test_grozing_pliers_offers_only_values_that_fit_and_none_when_neither_does() -> None:
    # The open cells want a 4 or a 5: Y4 lowered (Y3) fits nowhere, raised (Y5) fits.
    shape = ". 4 . . .\n4 5 . . .\n" + ". . . . .\n" * 2
    state = table(tools=(1,), tokens=(5, 5), pool="Y4 G5 B6 P1 P2", windows=(ONE_DIE, ONE_DIE),
                  patterns=(shape,))
    play_text(state, "draft 1", "tool 1")
    assert [str(a) for a in state.legal_actions()] == ["value 5"]
    assert refusal(state, "value 3") == "not_allowed"
    # Every open cell wants a 4: neither Y3 nor Y5 fits, so the tool is not offered for Y4.
    state = table(tools=(1,), tokens=(5, 5), pool="Y4 G5 B6 P1 P2", windows=(ONE_DIE, ONE_DIE),
                  patterns=(". 4 . . .\n4 4 . . .\n" + ". . . . .\n" * 2,))
    assert Action.draft(0) not in state.legal_actions()
    assert refusal(state, "draft 1") == "no_tool"
    play_text(state, "draft 1 at 1,2")  # Y4 itself fits: drafted and placed, no tool
    assert state.tokens == [5, 5]


def test_eglomise_brush_moves_a_die_ignoring_colour_but_not_value() -> None:
    state = table(tools=(2,), tokens=(5, 5), pool="Y4 G5 B6 P1 P2",
                  windows=("R3 G2 . . .\n" + ". . . . .\n" * 3, ONE_DIE),
                  patterns=("R . . . .\nB 4 . . .\n" + ". . . . .\n" * 2,))
    play_text(state, "tool 2")
    moves = {str(a) for a in state.legal_actions()}
    assert "move 1,1 to 2,1" in moves  # the red 3 onto a blue cell
    assert "move 1,1 to 2,2" not in moves  # a 4-cell still wants a 4
    assert "move 1,2 to 2,1" in moves
    events = play_text(state, "move 1,1 to 2,1")
    assert {"type": "die_moved", "seat": 0, "die": "R3", "from": [0, 0], "to": [1, 0]} in events
    assert state.step is None and not state.drafted and state.tool_done


def test_copper_foil_burnisher_moves_a_die_ignoring_value_but_not_colour() -> None:
    state = table(tools=(3,), tokens=(5, 5), pool="Y4 G5 B6 P1 P2",
                  windows=("R3 G2 . . .\n" + ". . . . .\n" * 3, ONE_DIE),
                  patterns=("R . . . .\nB 4 . . .\n" + ". . . . .\n" * 2,))
    play_text(state, "tool 3")
    moves = {str(a) for a in state.legal_actions()}
    assert "move 1,1 to 2,2" in moves  # the 3 onto a 4-cell
    assert "move 1,1 to 2,1" not in moves  # red on a blue cell is still refused


def test_a_moved_die_obeys_the_other_rules_and_never_stays_put() -> None:
    state = table(tools=(3,), tokens=(5, 5), pool="Y4 G5 B6 P1 P2",
                  windows=("R3 G2 . . .\n" + ". . . . .\n" * 3, ONE_DIE))
    play_text(state, "tool 3")
    moves = {str(a) for a in state.legal_actions()}
    assert "move 1,1 to 1,1" not in moves
    assert "move 1,1 to 1,4" not in moves  # not next to any die once lifted
    assert "move 1,1 to 1,3" in moves  # next to G2, and red differs from green
    assert "move 1,2 to 1,1" not in moves  # the cell holds a die


def test_eglomise_brush_still_keeps_a_die_off_its_colour_orthogonally() -> None:
    # Rule 4 is not a colour restriction: the brush lifts the cell's colour, not the neighbours'.
    state = table(tools=(2,), tokens=(5, 5), pool="Y4 G5 B6 P1 P2",
                  windows=("R3 G2 . . .\n. . R5 . .\n" + ". . . . .\n" * 2, ONE_DIE))
    play_text(state, "tool 2")
    moves = {str(a) for a in state.legal_actions()}
    assert "move 1,1 to 1,3" not in moves  # above R5
    assert "move 1,1 to 2,1" in moves


def test_a_move_may_leave_another_die_without_a_neighbour() -> None:
    # Only the moved die is checked: G2 at 1,5 is left alone once R3 leaves 1,4.
    state = table(tools=(3,), tokens=(5, 5), pool="Y4 G5 B6 P1 P2",
                  windows=("Y1 . . R3 G2\n" + ". . . . .\n" * 3, ONE_DIE))
    play_text(state, "tool 3", "move 1,4 to 1,2")
    assert die_text(state.windows[0][cell("1,2")]) == "R3"
    assert state.windows[0][cell("1,4")] == 0 and die_text(state.windows[0][cell("1,5")]) == "G2"


def test_the_only_die_of_a_window_moves_to_an_edge_cell() -> None:
    state = table(tools=(2,), tokens=(5, 5), pool="Y4 G5 B6 P1 P2",
                  windows=(". . . . .\n. R3 . . .\n" + ". . . . .\n" * 2, ONE_DIE))
    play_text(state, "tool 2")
    targets = {a.to for a in state.legal_actions()}
    assert targets == {i for i in range(20) if i // 5 in (0, 3) or i % 5 in (0, 4)}


def test_lathekin_moves_exactly_two_different_dice() -> None:
    state = table(tools=(4,), tokens=(5, 5), pool="Y4 G5 B6 P1 P2",
                  windows=("R3 G2 . . .\n" + ". . . . .\n" * 3, ONE_DIE))
    play_text(state, "tool 4", "move 1,1 to 2,1")
    assert state.step == "move" and state.current_seat == 0
    moves = {str(a) for a in state.legal_actions()}
    assert moves and all(m.startswith("move 1,2 ") for m in moves)  # not the moved die again
    assert refusal(state, "stop") == "not_allowed"
    play_text(state, "move 1,2 to 2,2")
    assert state.step is None


def test_lathekin_checks_the_second_move_after_the_first() -> None:
    # G2 at 1,2 may go to 3,1 only once R3 has moved to 2,1 beside it, and may take the cell
    # R3 left; before the first move, 3,1 is next to no die for it.
    state = table(tools=(4,), tokens=(5, 5), pool="Y4 G5 B6 P1 P2",
                  windows=("R3 G2 . . .\n" + ". . . . .\n" * 3, ONE_DIE))
    play_text(state, "tool 4")
    assert Action.move(cell("1,2"), cell("3,1")) not in state.legal_actions()
    play_text(state, "move 1,1 to 2,1")
    assert {str(a) for a in state.legal_actions()} == {
        "move 1,2 to 1,1", "move 1,2 to 2,2", "move 1,2 to 3,1", "move 1,2 to 3,2"}
    play_text(state, "move 1,2 to 3,1")
    assert die_text(state.windows[0][cell("3,1")]) == "G2" and state.current_seat == 0


def test_lathekin_is_not_offered_when_two_moves_are_impossible() -> None:
    state = table(tools=(4,), tokens=(5, 5), pool="Y4 G5 B6 P1 P2", windows=(ONE_DIE, ONE_DIE))
    assert "tool" not in kinds(state)
    assert refusal(state, "tool 4") == "cannot_use"


def test_lens_cutter_swaps_with_the_round_track_then_places() -> None:
    state = table(tools=(5,), tokens=(5, 5), pool="Y4 G5 B6 P1 P2", windows=(ONE_DIE, ONE_DIE),
                  track={0: "B2 P6"}, round_=1, turn=0)
    state.order, state.seat = (0, 1, 1, 0), 0
    play_text(state, "draft 1", "tool 5")
    assert [str(a) for a in state.legal_actions()] == ["swap 1.1", "swap 1.2"]
    events = play_text(state, "swap 1.2", "place 1,2")
    assert [die_text(d) for d in state.track[0]] == ["B2", "Y4"]
    assert state.windows[0][1] == parse_die("P6")
    assert types(events) == ["die_swapped", "die_placed"]


def test_solo_lens_cutter_changes_the_target_by_what_it_leaves_on_the_track() -> None:
    state = table(players=1, tools=(5,), pool="Y4 G5 B6 P1", windows=(ONE_DIE,),
                  track={0: "B2 P6"}, round_=1)
    assert state.target() == 8
    play_text(state, "draft 1", "tool 5 pay 1", "swap 1.2", "place 1,2")
    assert [die_text(d) for d in state.track[0]] == ["B2", "Y4"] and state.target() == 6


def test_lens_cutter_needs_dice_on_the_round_track() -> None:
    state = table(tools=(5,), tokens=(5, 5), pool="Y4 G5 B6 P1 P2", windows=(ONE_DIE, ONE_DIE))
    assert Action.draft(0) not in state.legal_actions()


def test_lens_cutter_offers_only_round_track_dice_that_fit() -> None:
    shape = ". 6 . . .\n6 6 . . .\n" + ". . . . .\n" * 2  # the open cells want a 6
    state = table(tools=(5,), tokens=(5, 5), pool="Y4 G5 B6 P1 P2", windows=(ONE_DIE, ONE_DIE),
                  track={0: "B2 P6"}, round_=1, turn=0, patterns=(shape,))
    state.order, state.seat = (0, 1, 1, 0), 0
    play_text(state, "draft 1", "tool 5")
    assert [str(a) for a in state.legal_actions()] == ["swap 1.2"]
    assert refusal(state, "swap 1.1") == "not_allowed"
    # With only B2 on the track, nothing would fit: the tool is not offered.
    state = table(tools=(5,), tokens=(5, 5), pool="Y4 G5 B6 P1 P2", windows=(ONE_DIE, ONE_DIE),
                  track={0: "B2"}, round_=1, turn=0, patterns=(shape,))
    state.order, state.seat = (0, 1, 1, 0), 0
    assert not [a for a in state.legal_actions() if a.kind == "draft" and a.cell < 0]
    assert refusal(state, "draft 1") == "no_tool"


def test_flux_brush_rerolls_the_drafted_die_and_returns_it_if_it_fits_nowhere() -> None:
    outcomes = set()
    for seed in range(40):
        state = table(tools=(6,), tokens=(5, 5), pool="Y3 G5 B6 P1 P2",
                      windows=(ONE_DIE, ONE_DIE), seed=seed,
                      patterns=(". 2 . . .\n2 2 . . .\n" + ". . . . .\n" * 2,))
        events = play_text(state, "draft 1", "tool 6")
        rolled = parse_die(next(e for e in events if e["type"] == "die_rerolled")["die"])
        assert COLOUR[rolled] == COLOUR[parse_die("Y3")]
        assert state.rolls[-1] == [die_text(rolled)]  # the record keeps the roll
        if VALUE[rolled] == 2:
            assert state.step == "place"
            outcomes.add("place")
        else:
            assert types(events)[-1] == "die_returned" and state.pool[-1] == rolled
            assert state.current_seat == 1  # the draft is spent, the tool too
            outcomes.add("returned")
        if len(outcomes) == 2:
            break
    assert outcomes == {"place", "returned"}


def test_flux_brush_keeps_its_token_when_the_rerolled_die_goes_back() -> None:
    shape = ". 2 . . .\n2 2 . . .\n" + ". . . . .\n" * 2  # the open cells want a 2
    for seed in range(40):
        state = table(tools=(6,), tokens=(5, 5), pool="Y3 G5 B6 P1 P2",
                      windows=(ONE_DIE, ONE_DIE), seed=seed, patterns=(shape,))
        events = play_text(state, "draft 1", "tool 6")
        if types(events)[-1] == "die_returned":
            break
    else:
        raise AssertionError("no seed re-rolled the die to a value that fits nowhere")
    assert state.tokens == [4, 5] and state.uses == [1]
    assert state.windows[0] == table(windows=(ONE_DIE,)).windows[0]  # nothing placed


def test_glazing_hammer_only_on_the_second_turn_before_drafting() -> None:
    state = table(tools=(7,), tokens=(5, 5), pool="Y4 G5 B6", windows=(ONE_DIE, ONE_DIE))
    assert refusal(state, "tool 7") == "wrong_timing"
    state = table(tools=(7,), tokens=(5, 5), pool="Y4 G5 B6", windows=(ONE_DIE, ONE_DIE),
                  turn=2)
    assert state.current_seat == 1 and "tool" in kinds(state)
    events = play_text(state, "tool 7")
    rerolled = next(e for e in events if e["type"] == "pool_rerolled")["pool"]
    assert [d[0] for d in rerolled] == ["Y", "G", "B"]  # same dice, new faces
    assert [die_text(d) for d in state.pool] == rerolled == state.rolls[-1]
    assert state.current_seat == 1 and not state.drafted
    state.apply(next(a for a in state.legal_actions() if a.kind == "draft"))
    assert state.current_seat == 0


def test_glazing_hammer_not_after_drafting() -> None:
    state = table(tools=(7,), tokens=(5, 5), pool="Y4 G5 B6", windows=(ONE_DIE, ONE_DIE), turn=2)
    play_text(state, "draft 1 at 1,2")
    assert state.current_seat == 0  # nothing left for seat 1: the turn ended by itself


def test_running_pliers_drafts_again_and_skips_the_second_turn() -> None:
    state = table(tools=(8,), tokens=(5, 5), pool="Y4 G5 B6 P1 P2", windows=(ONE_DIE, ONE_DIE))
    assert refusal(state, "tool 8") == "wrong_timing"  # after the draft only
    play_text(state, "draft 1 at 1,2")
    events = play_text(state, "tool 8")
    assert "second_turn_skipped" in types(events)
    assert refusal(state, "pass") == "wrong_step"
    play_text(state, "draft 1 at 1,3")
    assert state.current_seat == 1
    play_text(state, "draft 1 at 1,2", "pass", "draft 1 at 2,1")
    # Seat 0's second turn is skipped: the round is over, seat 1 opens the next one.
    assert state.round == 1 and state.current_seat == 1
    assert [die_text(d) for d in state.track[0]] == ["P2"]


def test_running_pliers_of_the_last_seat_skips_the_turn_right_after() -> None:
    # 3 players, round 1: 0 1 2 2 1 0. Seat 2 plays twice in a row; with Running Pliers its
    # second turn, the very next one, is skipped, and seat 1 plays.
    state = table(players=3, tools=(8,), tokens=(5, 5, 5), pool="Y4 G5 B6 P1 P2 R3 Y1",
                  windows=(ONE_DIE, ONE_DIE, ONE_DIE), turn=2)
    assert state.current_seat == 2
    play_text(state, "draft 1 at 1,2", "tool 8", "draft 1 at 1,3")
    assert state.view()["skipping"] == [2]
    assert (state.turn, state.current_seat) == (4, 1)


def test_solo_running_pliers_places_two_dice_and_ends_the_round() -> None:
    state = table(players=1, tools=(8,), pool="Y4 R5 B6 G1", windows=(ONE_DIE,))
    play_text(state, "draft 1 at 1,2")
    assert [str(a) for a in state.legal_actions() if a.kind == "tool"] == ["tool 8 pay 1"]
    play_text(state, "tool 8 pay 1", "draft 2 at 1,3")
    # R5 paid and left the game; the solo game's second turn is skipped: G1 is left over.
    assert die_text(state.windows[0][cell("1,3")]) == "G1"
    assert state.round == 1 and [die_text(d) for d in state.track[0]] == ["B6"]


def test_running_pliers_is_not_offered_when_no_other_pool_die_fits() -> None:
    # Once Y4 is at 1,2 every open cell wants a 4, and the other dice are 1s.
    shape = ". . 4 . .\n4 4 4 . .\n" + ". . . . .\n" * 2
    state = table(tools=(8,), tokens=(5, 5), pool="Y4 G1 B1 P1 P2", windows=(ONE_DIE, ONE_DIE),
                  patterns=(shape,))
    play_text(state, "draft 1 at 1,2")
    assert state.current_seat == 1 and state.tokens == [5, 5]  # nothing left: the turn ended
    state = table(tools=(8,), tokens=(5, 5), pool="Y4 G4 B1 P1 P2", windows=(ONE_DIE, ONE_DIE),
                  patterns=(shape,))
    play_text(state, "draft 1 at 1,2")
    assert Action.tool(8) in state.legal_actions()  # G4 fits at 2,1


def test_running_pliers_not_on_the_second_turn() -> None:
    state = table(tools=(8,), tokens=(5, 5), pool="Y4 G5 B6", windows=(ONE_DIE, ONE_DIE), turn=2)
    play_text(state, "draft 1 at 1,2")
    assert state.current_seat == 0  # tool 8 was not possible: the turn ended


def test_cork_backed_straightedge_places_next_to_no_die() -> None:
    state = table(tools=(9,), tokens=(5, 5), pool="Y4 G5 B6 P1 P2", windows=(ONE_DIE, ONE_DIE),
                  patterns=(". . . . .\n. . . 4 .\n" + ". . . . .\n" * 2,))
    play_text(state, "draft 1", "tool 9")
    cells = {a.cell for a in state.legal_actions()}
    assert cell("1,2") not in cells and cell("2,2") not in cells  # next to R3
    assert cell("3,3") in cells and cell("2,4") in cells  # the 4-cell wants a 4: Y4 fits
    play_text(state, "place 3,3")
    assert state.windows[0][cell("3,3")] == parse_die("Y4")


def test_cork_backed_straightedge_first_die_anywhere() -> None:
    state = table(tools=(9,), tokens=(5, 5), pool="Y4 G5 B6 P1 P2")
    play_text(state, "draft 1", "tool 9", "place 2,3")
    assert state.windows[0][cell("2,3")] == parse_die("Y4")


def test_cork_backed_straightedge_is_not_offered_without_a_cell_next_to_no_die() -> None:
    # Every cell away from R3 wants a 6: Y4 fits only next to R3, so the tool cannot act.
    shape = ". . 6 6 6\n. . 6 6 6\n" + "6 6 6 6 6\n" * 2
    state = table(tools=(9,), tokens=(5, 5), pool="Y4 G5 B6 P1 P2", windows=(ONE_DIE, ONE_DIE),
                  patterns=(shape,))
    held = [a.die for a in state.legal_actions() if a.kind == "draft" and a.cell < 0]
    assert held == [2]  # B6 can go to a cell next to no die; Y4 cannot
    assert refusal(state, "draft 1") == "no_tool"


def test_grinding_stone_turns_the_die_over() -> None:
    state = table(tools=(10,), tokens=(5, 5), pool="Y2 G5 B6 P1 P2", windows=(ONE_DIE, ONE_DIE))
    events = play_text(state, "draft 1", "tool 10")
    assert {"type": "die_turned", "seat": 0, "die": "Y5"} in events
    play_text(state, "place 1,2")
    assert state.windows[0][1] == parse_die("Y5")


@pytest.mark.parametrize("value", range(1, 7))
def test_grinding_stone_turns_every_face_to_seven_minus_it(value: int) -> None:
    state = table(tools=(10,), tokens=(5, 5), pool=f"Y{value} G5 B6 P1 P2",
                  windows=(ONE_DIE, ONE_DIE))
    events = play_text(state, "draft 1", "tool 10")
    assert {"type": "die_turned", "seat": 0, "die": f"Y{7 - value}"} in events


def test_grinding_stone_is_not_offered_when_the_turned_die_fits_nowhere() -> None:
    shape = ". 2 . . .\n2 2 . . .\n" + ". . . . .\n" * 2  # the open cells want a 2
    state = table(tools=(10,), tokens=(5, 5), pool="Y2 G5 B6 P1 P2", windows=(ONE_DIE, ONE_DIE),
                  patterns=(shape,))
    held = [a.die for a in state.legal_actions() if a.kind == "draft" and a.cell < 0]
    assert held == [1]  # G5 turns into G2, which fits; Y2 would become Y5, which does not
    assert refusal(state, "draft 1") == "no_tool"
    play_text(state, "draft 2", "tool 10", "place 1,2")
    assert state.windows[0][1] == parse_die("G2")


def test_flux_remover_still_returns_a_die_whose_value_fits_nowhere() -> None:
    # Flux Remover returns a die by its card; a chosen value that fits nowhere leaves return.
    shape = ". 2 . . .\n2 2 . . .\n" + ". . . . .\n" * 2
    state = table(tools=(11,), tokens=(5, 5), pool="Y2 G5 B6 P1 P2", windows=(ONE_DIE, ONE_DIE),
                  patterns=(shape,))
    play_text(state, "draft 1", "tool 11", "value 5")
    assert [str(a) for a in state.legal_actions()] == ["return"]
    events = play_text(state, "return")
    assert types(events)[-1] == "die_returned" and VALUE[state.pool[-1]] == 5


def test_flux_remover_draws_a_new_die_whose_value_the_player_chooses() -> None:
    state = table(tools=(11,), tokens=(5, 5), pool="Y2 G5 B6 P1 P2", windows=(ONE_DIE, ONE_DIE))
    bag = sum(state.bag)
    events = play_text(state, "draft 1", "tool 11")
    redrawn = next(e for e in events if e["type"] == "die_redrawn")
    assert redrawn["returned"] == "Y2" and sum(state.bag) == bag
    assert state.rolls[-1] == [redrawn["colour"]]
    assert [str(a) for a in state.legal_actions()] == [f"value {v}" for v in range(1, 7)]
    play_text(state, "value 6")
    assert "return" in kinds(state)
    play_text(state, "place 2,2")
    assert die_text(state.windows[0][cell("2,2")]) == redrawn["colour"] + "6"


def test_flux_remover_with_an_empty_bag_draws_the_die_it_put_back() -> None:
    # 4 players use all 90 dice: in round 10 the bag is empty, and holds only the die put back.
    state = table(players=4, tools=(11,), tokens=(5, 5, 5, 5), pool="Y2 G5 B6 P1 P2",
                  windows=(ONE_DIE,) * 4, round_=9)
    state.bag = [0] * 5
    events = play_text(state, "draft 1", "tool 11")
    assert next(e for e in events if e["type"] == "die_redrawn")["colour"] == "Y"
    assert state.bag == [0] * 5 and die_text(state.held)[0] == "Y"


def test_flux_remover_die_may_go_back_to_the_pool() -> None:
    state = table(tools=(11,), tokens=(5, 5), pool="Y2 G5 B6 P1 P2", windows=(ONE_DIE, ONE_DIE))
    events = play_text(state, "draft 1", "tool 11", "value 4", "return")
    assert types(events)[-1] == "die_returned" and VALUE[state.pool[-1]] == 4
    assert state.current_seat == 1


def tap_wheel_table(window: str, track: str, **options: object) -> State:
    """Seat 0's first turn of round 2, with Tap Wheel (12) and ``track`` on round 1's place of
    the round track: ``window`` seat 0's window, seat 1's holding one die."""
    state = table(tools=(12,), tokens=(5, 5), pool="Y4 G5 B6", windows=(window, ONE_DIE),
                  track={0: track}, round_=1, **options)
    state.order, state.seat = (0, 1, 1, 0), 0
    return state


def test_tap_wheel_moves_up_to_two_dice_of_a_colour_on_the_round_track() -> None:
    window = "R3 G2 . . .\nR5 . . . .\n" + ". . . . .\n" * 2
    state = tap_wheel_table(window, "R1")
    play_text(state, "tool 12")
    assert {a.cell for a in state.legal_actions()} == {cell("1,1"), cell("2,1")}  # red only
    play_text(state, "move 1,1 to 1,3")
    assert "stop" in kinds(state)
    moves = {str(a) for a in state.legal_actions() if a.kind == "move"}
    assert moves and all(m.startswith("move 2,1 ") for m in moves)
    play_text(state, "stop")
    assert state.step is None and state.tool_done


def test_tap_wheel_second_die_is_of_the_first_ones_colour() -> None:
    # Red and green are both on the round track; once a red die moved, only red may follow.
    window = "R3 G2 . . .\nR5 G1 . . .\n" + ". . . . .\n" * 2
    state = tap_wheel_table(window, "R1 G4")
    play_text(state, "tool 12")
    assert {a.cell for a in state.legal_actions()} >= {cell("1,2"), cell("2,2")}  # green too
    play_text(state, "move 1,1 to 1,3")
    moves = {a.cell for a in state.legal_actions() if a.kind == "move"}
    assert moves == {cell("2,1")}


def test_tap_wheel_obeys_colour_and_value_restrictions() -> None:
    # "obeying all rules": the red 3 may not go onto a blue cell nor onto a 4-cell.
    window = "R3 G2 . . .\n" + ". . . . .\n" * 3
    state = tap_wheel_table(window, "R1",
                            patterns=(". . B 4 .\nR . . . .\n" + ". . . . .\n" * 2,))
    play_text(state, "tool 12")
    moves = {str(a) for a in state.legal_actions()}
    assert "move 1,1 to 1,3" not in moves and "move 1,1 to 2,1" in moves
    # With Y1 on 1,5, the 4-cell 1,4 is next to a die: only its value keeps R3 off it.
    state.windows[0][cell("1,5")] = parse_die("Y1")
    state.filled[0] |= 1 << cell("1,5")
    state.cache = [None, None]
    assert "move 1,1 to 1,4" not in {str(a) for a in state.legal_actions()}


def test_tap_wheel_ends_by_itself_when_no_second_die_of_the_colour_can_move() -> None:
    window = "R3 G2 . . .\n" + ". . . . .\n" * 3  # one red die
    state = tap_wheel_table(window, "R1")
    play_text(state, "tool 12", "move 1,1 to 2,1")
    assert state.step is None and state.tool_done and state.current_seat == 0
    assert "draft" in kinds(state) and "tool" not in kinds(state)


def test_tap_wheel_needs_a_die_of_a_colour_on_the_round_track() -> None:
    state = tap_wheel_table(ONE_DIE, "B1")
    assert "tool" not in kinds(state)


def test_in_random_self_play_only_flux_brush_and_flux_remover_return_a_drafted_die() -> None:
    """Random 2-player games, every decision uniformly random among the legal ones: a drafted
    die goes back to the pool only by Flux Brush (6) or Flux Remover (11), whatever the tools."""
    config = SAGRADA.parse_config({"players": 2})
    returned = 0
    for seed in range(12):
        state = SAGRADA.new_state(config, seed)
        rng = random.Random(seed)
        used: dict[tuple[int, int], int] = {}  # (round, turn) -> the tool used in it
        while not state.is_over():
            turn = (state.round, state.turn)
            for event in state.apply(state.random_action(rng)):
                if event["type"] == "tool_used":
                    used[turn] = event["tool"]
                elif event["type"] == "die_returned":
                    assert used.get(turn) in (6, 11), (seed, state.tools, used.get(turn))
                    returned += 1
    assert returned  # the seeds include Flux Brush or Flux Remover returning a die


# -- solo payments: any die of the tool's colour ----------------------------------------------


def test_solo_any_pool_die_of_the_tools_colour_pays_even_a_twin() -> None:
    # Two B3s: either pays (SAGRADA.md, S-solo: "spend a die of the tool's colour"). The list
    # offered only the first, and apply refused the second, saying it was no blue die.
    state = table(players=1, tools=(7,), pool="B3 R1 B3 G2", windows=(ONE_DIE,), turn=1)
    assert [str(a) for a in state.legal_actions() if a.kind == "tool"] == [
        "tool 7 pay 1", "tool 7 pay 3"]
    events = play_text(state, "tool 7 pay 3")
    assert {"type": "tool_used", "seat": 0, "tool": 7, "paid": "B3"} in events
    assert [die_text(d)[0] for d in state.pool] == ["B", "R", "G"]
