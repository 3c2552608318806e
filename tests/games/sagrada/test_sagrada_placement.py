"""The four placement rules, on hand-built windows (RULES.md, placement)."""

from __future__ import annotations

import pytest
from test_sagrada_support import cell, play_text, table, types

from sagani_net.game import RuleError
from sagani_net.games.sagrada.components import parse_die
from sagani_net.games.sagrada.rules import Action


def refusal(state, text: str) -> str:
    with pytest.raises(RuleError) as info:
        state.apply(Action.parse(text))
    return info.value.code


def test_first_die_goes_on_an_edge_or_corner_cell() -> None:
    state = table(pool="R3 Y4 G5")
    assert refusal(state, "draft 1 at 2,2") == "not_edge"
    assert set(state.cells_for(0, parse_die("R3"))) == {
        i for i in range(20) if i // 5 in (0, 3) or i % 5 in (0, 4)
    }
    events = play_text(state, "draft 1 at 2,1")
    assert types(events)[:2] == ["die_drafted", "die_placed"]
    assert state.windows[0][cell("2,1")] == parse_die("R3")


def test_later_dice_go_next_to_a_die_orthogonally_or_diagonally() -> None:
    state = table(pool="Y4 G5", windows=("R3 . . . .\n" + ". . . . .\n" * 3,))
    assert refusal(state, "draft 1 at 1,3") == "not_adjacent"
    assert refusal(state, "draft 1 at 4,5") == "not_adjacent"
    assert state.cells_for(0, parse_die("Y4")) == (cell("1,2"), cell("2,1"), cell("2,2"))
    play_text(state, "draft 1 at 2,2")  # diagonal is enough


def test_colour_cell_takes_only_its_colour() -> None:
    state = table(pool="Y4 R5", patterns=("R . . . .\n" + ". . . . .\n" * 3,))
    assert refusal(state, "draft 1 at 1,1") == "wrong_colour"
    play_text(state, "draft 2 at 1,1")
    assert state.windows[0][0] == parse_die("R5")


def test_value_cell_takes_only_its_value() -> None:
    state = table(pool="Y4 R5", patterns=("5 . . . .\n" + ". . . . .\n" * 3,))
    assert refusal(state, "draft 1 at 1,1") == "wrong_value"
    play_text(state, "draft 2 at 1,1")


def test_never_orthogonally_next_to_the_same_colour() -> None:
    state = table(pool="R5 R6", windows=("R3 . . . .\n" + ". . . . .\n" * 3,))
    assert refusal(state, "draft 1 at 1,2") == "same_colour"
    assert refusal(state, "draft 1 at 2,1") == "same_colour"
    play_text(state, "draft 1 at 2,2")  # diagonally next to the same colour is fine


def test_never_orthogonally_next_to_the_same_value() -> None:
    state = table(pool="G3", windows=("R3 . . . .\n" + ". . . . .\n" * 3,))
    assert refusal(state, "draft 1 at 1,2") == "same_value"
    play_text(state, "draft 1 at 2,2")


def test_a_die_that_fits_nowhere_cannot_be_drafted() -> None:
    # The only open cells want a 1; R3 fits nowhere, so no draft of it is offered.
    state = table(pool="R3 Y1", windows=("G2 . . . .\n" + ". . . . .\n" * 3,),
                  patterns=(". 1 . . .\n1 1 . . .\n" + ". . . . .\n" * 2,))
    drafts = [a for a in state.legal_actions() if a.kind == "draft"]
    assert drafts and all(a.die == 1 for a in drafts)
    assert refusal(state, "draft 1 at 1,2") == "wrong_value"


def test_an_occupied_cell_is_refused() -> None:
    state = table(pool="Y4", windows=("R3 . . . .\n" + ". . . . .\n" * 3,))
    assert refusal(state, "draft 1 at 1,1") == "cell_taken"


def test_one_draft_per_turn_and_the_turn_ends_by_itself() -> None:
    state = table(pool="Y4 G5 B6 P1 P2", windows=("R3 . . . .\n" + ". . . . .\n" * 3,))
    play_text(state, "draft 1 at 1,2")
    # No tools in play: nothing is left to do, so seat 1 is next.
    assert state.current_seat == 1 and not state.drafted


def test_placing_after_a_draft_is_refused_while_a_tool_can_still_be_used() -> None:
    state = table(tools=(2,), tokens=(3, 3), pool="Y4 G5 B6 P1 P2",
                  windows=("R3 . . . .\n" + ". . . . .\n" * 3,))
    play_text(state, "draft 1 at 1,2")
    assert state.current_seat == 0 and state.drafted
    assert refusal(state, "draft 1 at 2,2") == "already_drafted"
    play_text(state, "pass")
    assert state.current_seat == 1
