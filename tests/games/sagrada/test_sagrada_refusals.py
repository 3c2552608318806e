"""Refusals say why, and count as the wire does (issue 19, point 4): a Sagrada ``not_allowed``
names the step or tool the action needs, or what it breaks; a cell or index in a message is
given as the wire counts it (from 0), then as the text form does (from 1)."""

from __future__ import annotations

import pytest
from test_sagrada_support import play_text, table

from sagani_net.game import RuleError
from sagani_net.games.sagrada.rules import Action

ONE_DIE = "R3 . . . .\n" + ". . . . .\n" * 3
TWO_DICE = "R3 G2 . . .\n" + ". . . . .\n" * 3
POOL = "Y4 G5 B6 P1 P2"


def message(state, text: str, code: str = "not_allowed") -> str:
    with pytest.raises(RuleError) as info:
        state.apply(Action.parse(text))
    assert info.value.code == code, info.value
    return info.value.message


def test_an_action_of_a_step_outside_any_step_says_no_tool_is_under_way() -> None:
    state = table(tools=(3,), tokens=(5, 5), pool=POOL, windows=(ONE_DIE, ONE_DIE))
    assert message(state, "stop").endswith("not allowed now: no tool is under way")
    assert "no tool is under way" in message(state, "move 1,1 to 2,1")


def test_a_choose_once_the_patterns_are_chosen_says_so_not_that_no_tool_is_under_way() -> None:
    state = table(tools=(3,), tokens=(5, 5), pool=POOL, windows=(ONE_DIE, ONE_DIE))
    assert message(state, "choose 1").endswith("not allowed now: every seat has chosen its "
                                               "pattern")


def test_stop_names_the_tool_that_stops_and_when() -> None:
    state = table(tools=(4,), tokens=(5, 5), pool=POOL, windows=(TWO_DICE, ONE_DIE))
    play_text(state, "tool 4", "move 1,1 to 2,1")
    assert "only Tap Wheel stops after one move, not Lathekin" in message(state, "stop")


def test_a_move_says_what_is_wrong_with_it_counting_cells_as_the_wire_does() -> None:
    state = table(tools=(3,), tokens=(5, 5), pool=POOL, windows=(TWO_DICE, ONE_DIE))
    play_text(state, "tool 3")
    assert "there is no die at [2, 2] (3,3)" in message(state, "move 3,3 to 2,1")
    said = message(state, "move 1,1 to 1,4")  # alone there once lifted
    assert "breaks a placement rule (values aside) at [0, 3] (1,4)" in said


def test_a_first_lathekin_move_that_leaves_no_second_says_so() -> None:
    # Arranged by hand: after moving the die at 2,1 to 1,1, the other one has nowhere to go.
    state = table(tools=(4,), tokens=(5, 5), pool=POOL,
                  windows=(". . . . .\nR3 R5 . . .\n. . . . .\n. . . . .", ONE_DIE))
    play_text(state, "tool 4")
    firsts = {str(a) for a in state.legal_actions()}
    moves = {f"move {a // 5 + 1},{a % 5 + 1} to {b // 5 + 1},{b % 5 + 1}"
             for a, b in state.moves(0, 4)}
    lonely = sorted(moves - firsts)
    assert lonely, "the window should allow a first move after which no second can follow"
    assert "must leave a second one possible" in message(state, lonely[0])


def test_placement_refusals_count_from_0_then_in_text_from_1() -> None:
    state = table(tools=(3,), tokens=(5, 5), pool=POOL, windows=(ONE_DIE, ONE_DIE))
    said = message(state, "draft 1 at 3,3", "not_adjacent")
    assert "cannot go at [2, 2] (3,3)" in said
    said = message(state, "draft 9 at 1,2", "bad_index")
    assert "the pool has dice 0 to 4 (in text, 1 to 5)" in said


def test_a_not_allowed_message_never_counts_from_1_unsaid() -> None:
    """The refused action's text form (``move 1,4 to 1,3``, ``swap 1.1``) counts from 1 without
    saying so: a message names the action's kind, and its cells and indexes both ways."""
    state = table(tools=(3, 5), tokens=(5, 5), pool=POOL, windows=(TWO_DICE, ONE_DIE))
    play_text(state, "tool 3")
    said = message(state, "move 3,3 to 2,1")
    assert said.startswith("move is not allowed now:") and "3,3 to" not in said
    state = table(tools=(5,), tokens=(5, 5), pool=POOL, windows=(ONE_DIE, ONE_DIE),
                  track={0: "Y1"}, round_=1)
    play_text(state, "draft 2", "tool 5")
    said = message(state, "swap 1.2")
    assert said == ("swap is not allowed now: the round track has no die 1 in round 0 "
                    "(in text, 1.2)")
    assert "(in text: draft 3 at 2,4)" in message(table(pool=POOL), "place 1,1")


def test_sugi_slot_refusals_count_from_0_then_in_text_from_1() -> None:
    from sagani_net.games.sugi.rules import SUGI

    config = SUGI.parse_config({"players": 2})
    icons = [card["action"] for card in SUGI.static_data(config)["cards"]]
    state = SUGI.new_state(config, 0)  # its first hand holds a rotate and a free card
    hand = state.private(state.current_seat)["hand"]
    rotate = next(c for c in hand if icons[c] == "rotate")
    free = next(c for c in hand if icons[c] == "free")
    with pytest.raises(RuleError, match=r"no timeline card at slot 3: it is empty"):
        state.apply(state.parse_action({"type": "rotate", "card": rotate, "slot": 3, "by": 90}))
    other = next(c for c in hand if c != free)
    with pytest.raises(RuleError, match=r"slot 0 to 0 \(in text, t1 to t1\)"):
        state.apply(state.parse_action({"type": "free", "card": free, "place": other,
                                        "slot": 2, "rotation": 0}))


def test_sagani_not_allowed_says_why() -> None:
    from sagani_net.games import get_game

    game = get_game("sagani")
    state = game.new_state(game.parse_config({"players": 2}), 1)
    cases = {"pick": "pick is for an intermezzo", "pass": "there is an offer tile to take",
             "draw": "a draw needs exactly one offer tile, and the offer holds 5",
             "reveal": "reveal is for the solo games"}
    for kind, why in cases.items():
        data = {"type": kind, "index": 0} if kind == "pick" else {"type": kind}
        with pytest.raises(RuleError) as info:
            state.apply(state.parse_action(data))
        assert info.value.code == "not_allowed" and info.value.message.endswith(why), kind
    solo = game.new_state(game.parse_config({"mode": "solo"}), 1)
    with pytest.raises(RuleError, match="each turn begins with reveal"):
        solo.apply(solo.parse_action({"type": "take", "index": 0}))
