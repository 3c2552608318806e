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


def test_a_payment_in_a_game_with_favour_tokens_says_tokens_pay() -> None:
    # Eglomise Brush can move a die here: 'nothing to act on' was not why.
    state = table(tools=(2,), tokens=(5, 5), pool=POOL, windows=(TWO_DICE, ONE_DIE))
    assert Action.tool(2) in state.legal_actions()
    said = message(state, "tool 2 pay 1", "bad_payment")
    assert said == "Eglomise Brush is paid in favour tokens, not with a die"


def test_choose_in_play_says_the_patterns_are_chosen() -> None:
    state = table(pool=POOL, windows=(ONE_DIE, ONE_DIE))
    assert message(state, "choose 1").endswith("every window pattern has been chosen")


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


def test_solo_glazing_hammer_refusals_name_the_real_reason() -> None:
    # The second turn, before drafting: the timing is right, so "wrong_timing" was untrue.
    state = table(players=1, tools=(7,), pool="B3 R1 G2", windows=(ONE_DIE,), turn=1)
    assert "pay" in message(state, "tool 7", "bad_payment")
    assert "blue" in message(state, "tool 7 pay 2", "bad_payment")
    state = table(players=1, tools=(7,), pool="B3", windows=(ONE_DIE,), turn=1)
    assert "re-roll" in message(state, "tool 7 pay 1", "cannot_use")
    # The first turn, or after drafting: the timing is wrong, and the message says which.
    state = table(players=1, tools=(7,), pool="B3 R1 G2 Y5", windows=(ONE_DIE,))
    assert "second turn" in message(state, "tool 7 pay 1", "wrong_timing")
    state = table(players=1, tools=(7,), pool="B3 R1 G2", windows=(ONE_DIE,), turn=1)
    state.drafted = True  # as after a draft, were the turn to go on
    assert "before drafting" in message(state, "tool 7 pay 1", "wrong_timing")


def test_running_pliers_refusals_name_the_real_reason() -> None:
    state = table(tools=(8,), tokens=(5, 5), pool="Y4 G5 B6 P1 P2", windows=(ONE_DIE, ONE_DIE))
    assert "after drafting" in message(state, "tool 8", "wrong_timing")
    state = table(tools=(8,), tokens=(5, 5), pool="Y4 G5 B6", windows=(ONE_DIE, ONE_DIE),
                  turn=2)
    assert "first turn" in message(state, "tool 8", "wrong_timing")
    # Solo, first turn, after drafting: the timing is right; the payment is what is missing.
    state = table(players=1, tools=(8,), pool="Y4 R5 B6 G1", windows=(ONE_DIE,))
    play_text(state, "draft 1 at 1,2")
    assert "pay" in message(state, "tool 8", "bad_payment")
    assert Action.tool(8, 0) in state.legal_actions()
    # When no other pool die can go anywhere, nothing can be drafted again (the turn goes on
    # here for Eglomise Brush, which can move Y4 to 2,1).
    shape = ". . 4 . .\n4 4 4 . .\n" + ". . . . .\n" * 2
    state = table(players=1, tools=(8, 2), pool="Y4 R1 B1 R2", windows=(ONE_DIE,),
                  patterns=(shape,))
    play_text(state, "draft 1 at 1,2")
    assert state.turn == 0 and Action.tool(2, 1) in state.legal_actions()
    assert "no other pool die" in message(state, "tool 8 pay 1", "cannot_use")
