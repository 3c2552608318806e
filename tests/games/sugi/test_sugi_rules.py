"""Sugi's rules on hand-built boards: one behaviour per test, named after the rule (RULES.md)."""

from __future__ import annotations

import random

import pytest
from test_sugi_support import card, position, types, where

from sagani_net.game import RuleError
from sagani_net.games.sugi.edition import COLOURS
from sagani_net.games.sugi.rules import (
    CALL_ROUND,
    MAINTENANCE,
    OVER,
    PLAN,
    PUSH,
    ROUND_CAP,
    SUGI,
    SUMMONS_ROUND,
    Action,
    State,
    parse_space,
    timeline_limit,
)

RED = card("red N", action="free")
RED2 = card("red N", action="free", skip=1)
RED_ROTATE = card("red N", action="rotate")
RED_GHOST = card("red N", action="ghost")
BLUE = card("blue N", action="free")
BLUE_ROTATE = card("blue N", action="rotate")
BLUE_GHOST = card("blue N", action="ghost")
YELLOW_REMOVE = card("yellow N", action="remove")
YELLOW = card("yellow N", action="free")
RED_RIGHT_AFTER = card("red N", "red E")  # two arrows, the second turned a quarter right
BLACK_GHOST = card("black N", action="ghost")
PURPLE_ROTATE = card("purple N", action="rotate")


def act(text: str) -> Action:
    return Action.parse(text)


# -- setup --------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_setup_deals_4_cards_and_a_secret_family_each_and_lays_the_forest_face_down(players):
    s = State.new(players, seed=11)
    assert [len(h) for h in s.hands] == [4] * players
    assert len(set(s.families)) == players
    assert len(s.deck) == 50 - 4 * players
    view = s.view()
    assert all(tile is None for _, _, tile, _ in view["forest"]) and len(view["forest"]) == 12
    assert view["samurai"] == [[0, 1]] * 5 and view["ghost"] is None
    assert view["limit"] == timeline_limit(players) == (5 if players <= 3 else 6)
    assert sorted(s.tile_at[3:15]) == list(range(12))


def test_the_seed_decides_forest_deal_and_first_player():
    a, b = State.new(4, seed=5), State.new(4, seed=5)
    assert (a.tile_at, a.turn, a.hands, a.families, a.deck, a.seat) == (
        b.tile_at, b.turn, b.hands, b.families, b.deck, b.seat)
    others = [State.new(4, seed=k) for k in range(6, 12)]
    assert any(o.tile_at != a.tile_at for o in others)
    assert {o.seat for o in others} != {a.seat}


# -- planning -----------------------------------------------------------------------------


def test_a_card_goes_face_down_to_the_right_end_of_the_timeline_turned_as_its_player_likes():
    s = position(hands=[[RED, BLUE], [YELLOW]], timeline=[(RED2, 0, 1)])
    events = s.apply(act(f"timeline {BLUE} rot 270"))
    assert events == [{"type": "card_placed", "seat": 0, "slot": 1}]
    assert s.timeline[-1] == (BLUE, 3, 0)
    assert s.view()["timeline"] == [1, 0]  # owners only: the cards and their turns are secret
    assert s.current_seat == 1 and s.hands[0] == [RED]


def test_planning_skips_a_seat_whose_hand_is_empty():
    s = position(3, hands=[[RED], [], [BLUE, YELLOW]])
    s.apply(act(f"timeline {RED} rot 0"))
    assert s.current_seat == 2


def test_a_seat_alone_with_cards_plays_on_until_the_timeline_is_full_or_its_hand_empty():
    # S5: the others are skipped, not the planning ended: it ends only when every hand is empty.
    s = position(hands=[[RED, RED2], []])
    s.apply(act(f"timeline {RED} rot 0"))
    assert s.phase == PLAN and s.current_seat == 0
    assert s.legal_actions() and all(a.card == RED2 for a in s.legal_actions())


def test_rotate_turns_a_face_up_forest_tile_and_its_obstacles():
    s = position(tiles={"b1": "NS"}, hands=[[RED_ROTATE, RED], [BLUE]])
    events = s.apply(act(f"action {RED_ROTATE} rotate b1 90"))
    assert events[0] == {"type": "action_played", "seat": 0, "card": RED_ROTATE,
                         "action": "rotate"}
    assert events[1]["type"] == "tile_rotated" and events[1]["by"] == 90
    space = parse_space("b1")
    assert s.sides[space] == 0b1010  # now open E and W only
    assert RED_ROTATE in s.discard


def test_rotate_turns_a_face_down_tile_without_telling_its_new_turn():
    s = position(hidden=("c4",), hands=[[RED_ROTATE], [BLUE]])
    before = s.turn[parse_space("c4")]
    events = s.apply(act(f"action {RED_ROTATE} rotate c4 180"))
    assert s.turn[parse_space("c4")] == (before + 2) % 4
    assert "rotation" not in events[1] and not s.revealed[parse_space("c4")]


def test_rotate_turns_a_timeline_card_and_its_arrows_with_it():
    s = position(hands=[[RED_ROTATE, YELLOW], [BLUE]], timeline=[(RED, 0, 1)])
    s.apply(act(f"action {RED_ROTATE} rotate t1 90"))
    assert s.timeline[0] == (RED, 1, 1)
    s.limit = 2
    s.apply(act(f"timeline {BLUE} rot 0"))
    assert where(s, "red") == "c0"  # turned a quarter right: the N arrow now points E


def test_free_action_puts_a_card_anywhere_in_the_timeline_then_draws():
    s = position(hands=[[RED, BLUE, YELLOW], [RED2]], timeline=[(BLUE_ROTATE, 0, 1)])
    top = s.deck[-1]
    events = s.apply(act(f"action {RED} free {BLUE} t1 rot 180"))
    assert s.timeline[0] == (BLUE, 2, 0) and len(s.timeline) == 2
    assert types(events) == ["action_played", "card_placed", "drew"]
    assert s.hands[0] == sorted([YELLOW, top])


def test_free_action_needs_a_second_card():
    s = position(hands=[[RED], [BLUE]])
    with pytest.raises(RuleError) as e:
        s.apply(act(f"action {RED} free {RED} t1"))
    assert e.value.code == "not_in_hand"
    assert all(a.type != "free" for a in s.legal_actions())


def test_remove_sends_a_timeline_card_unseen_to_the_bottom_of_the_deck():
    s = position(hands=[[YELLOW_REMOVE, RED], [BLUE]], timeline=[(RED2, 90, 1)])
    events = s.apply(act(f"action {YELLOW_REMOVE} remove t1"))
    assert s.timeline == [] and s.deck[0] == RED2
    assert events[-1] == {"type": "card_removed", "seat": 0, "slot": 0, "owner": 1}
    assert s.private(1)["deck_bottom"] == [[0, RED2]]  # its owner knows where it lies
    assert s.private(0)["deck_bottom"] == []  # the remover did not look


@pytest.mark.parametrize("space", ["b0", "b5"])
def test_only_forest_tiles_rotate(space):
    s = position(hands=[[RED_ROTATE], [BLUE]])
    with pytest.raises(RuleError) as e:
        s.apply(act(f"action {RED_ROTATE} rotate {space} 90"))
    assert e.value.code == "bad_target"
    with pytest.raises(RuleError) as e:
        s.apply(Action("rotate", RED_ROTATE, space=99, turn=90))
    assert e.value.code == "bad_target"


def test_an_action_needs_its_icon_and_the_card_in_hand():
    s = position(hands=[[RED], [BLUE]], timeline=[(YELLOW, 0, 1)])
    with pytest.raises(RuleError) as e:
        s.apply(act(f"action {RED} remove t1"))
    assert e.value.code == "wrong_icon"
    with pytest.raises(RuleError) as e:
        s.apply(act(f"timeline {BLUE}"))
    assert e.value.code == "not_in_hand"
    assert s.version == 0 and s.hands[0] == [RED]


@pytest.mark.parametrize("players, limit", [(2, 5), (3, 5), (4, 6), (5, 6)])
def test_a_full_timeline_ends_planning_and_its_last_placer_resolves(players, limit):
    cards = [card(f"{c} N", action="free") for c in COLOURS] + [RED2]
    hands = [[cards[j] for j in range(limit) if j % players == i] for i in range(players)]
    s = position(players, hands=hands)
    for j in range(limit - 1):
        s.apply(Action.timeline(cards[j]))
        assert s.phase == PLAN
    last = (limit - 1) % players
    events = s.apply(Action.timeline(cards[limit - 1]))
    resolution = next(e for e in events if e["type"] == "resolution")
    assert resolution == {"type": "resolution", "seat": last, "cards": limit}
    assert s.timeline == [] and s.phase in (MAINTENANCE, PLAN)


def test_a_free_card_that_fills_the_timeline_makes_its_player_the_resolver():
    s = position(hands=[[RED, BLUE], [YELLOW]], timeline=[(RED2, 0, 1)] * 1)
    s.limit = 2
    events = s.apply(act(f"action {RED} free {BLUE} t1"))
    assert next(e for e in events if e["type"] == "resolution")["seat"] == 0


def test_planning_ends_when_every_hand_is_empty():
    s = position(hands=[[RED], [BLUE]])
    s.apply(Action.timeline(RED))
    events = s.apply(Action.timeline(BLUE))
    assert "resolution" in types(events) and len(s.timeline) == 0


def test_a_timeline_emptied_by_a_remove_resolves_nothing():
    s = position(hands=[[RED], [YELLOW_REMOVE]])
    s.apply(Action.timeline(RED))
    events = s.apply(act(f"action {YELLOW_REMOVE} remove t1"))  # every hand is empty now
    assert "resolution" not in types(events) and "card_revealed" not in types(events)
    assert types(events)[2] == "maintenance" and where(s, "red") == "b0"


# -- resolution ---------------------------------------------------------------------------


def test_cards_resolve_left_to_right_and_two_arrows_in_reading_order():
    # Upright the card reads red N then red E; turned 180 it reads red W then red S.
    s = position(hands=[[RED], [BLUE]], timeline=[(RED_RIGHT_AFTER, 180, 1)],
                 samurai={"red": "b2"})
    s.limit = 2
    events = s.apply(Action.timeline(RED, 0))
    moves = [(e["from"], e["to"]) for e in events if e["type"] == "samurai_moved"]
    assert moves == [([2, 1], [2, 0]), ([2, 0], [1, 0]), ([1, 0], [2, 0])]
    revealed = [e["slot"] for e in events if e["type"] == "card_revealed"]
    assert revealed == [0, 1]


def test_a_face_down_tile_turns_up_when_a_samurai_tries_it_even_if_it_cannot_enter():
    s = position(hands=[[RED], [BLUE]], tiles={"b1": "EW"}, hidden=("b1",))
    s.limit = 1
    events = s.apply(Action.timeline(RED, 0))
    assert types(events)[1:5] == ["resolution", "card_revealed", "tile_revealed",
                                  "samurai_blocked"]
    assert events[4]["reason"] == "obstacle" and where(s, "red") == "b0"
    assert s.view()["forest"][1][2] is not None  # b1 stays face up


def test_a_face_down_tile_turns_up_when_tried_even_if_the_samurais_own_side_is_blocked():
    s = position(hands=[[RED], [BLUE]], tiles={"b1": "EW"}, hidden=("b2",),
                 samurai={"red": "b1"})
    s.limit = 1
    events = s.apply(Action.timeline(RED, 0))
    assert types(events)[3:5] == ["tile_revealed", "samurai_blocked"]
    assert events[3]["space"] == [2, 1] and events[4]["reason"] == "obstacle"
    assert where(s, "red") == "b1" and s.revealed[parse_space("b2")]


@pytest.mark.parametrize(
    "tiles, start, arrow, reason",
    [
        ({"b1": "NS", "c1": "NESW"}, "b1", 90, "obstacle"),  # leaving by a blocked side
        ({"b1": "NESW", "c1": "NS"}, "b1", 90, "obstacle"),  # entering by a blocked side
        ({}, "b0", 180, "edge"),  # off the board
        ({}, "c2", 90, "edge"),
    ],
)
def test_a_blocked_move_leaves_the_samurai_where_it_is(tiles, start, arrow, reason):
    s = position(hands=[[RED], [BLUE]], tiles=tiles, samurai={"red": start})
    s.limit = 1
    events = s.apply(Action.timeline(RED, arrow))
    blocked = next(e for e in events if e["type"] == "samurai_blocked")
    assert blocked["reason"] == reason and where(s, "red") == start


def test_a_samurai_cannot_enter_the_ghosts_space():
    s = position(hands=[[RED], [BLUE]], ghost="b1")
    s.limit = 1
    events = s.apply(Action.timeline(RED, 0))
    assert next(e for e in events if e["type"] == "samurai_blocked")["reason"] == "ghost"


def test_the_temple_is_shut_while_the_ghost_is_on_it():
    s = position(hands=[[RED], [BLUE]], samurai={"red": "a4"})
    s.limit = 1
    events = s.apply(Action.timeline(RED, 0))
    assert next(e for e in events if e["type"] == "samurai_blocked")["reason"] == "ghost"
    assert where(s, "red") == "a4"


def test_a_samurai_reaching_the_temple_takes_the_next_pedestal_and_moves_no_more():
    s = position(hands=[[RED_RIGHT_AFTER], [BLUE]], samurai={"red": "c4", "blue": None},
                 ghost="a1")
    s.limit = 1
    events = s.apply(Action.timeline(RED_RIGHT_AFTER, 0))
    assert {"type": "samurai_arrived", "samurai": "red", "pedestal": 2} in events
    assert events[-1]["type"] != "game_over"
    assert next(e for e in events if e["type"] == "samurai_blocked")["reason"] == "arrived"
    assert s.view()["pedestals"] == ["blue", "red"]


# -- the ghost ----------------------------------------------------------------------------


def test_the_ghost_leaves_the_temple_into_column_4_of_any_lane_then_straight_down():
    s = position(hands=[[RED_GHOST], [BLUE]], samurai={c: "b0" for c in COLOURS})
    targets = {t for t in s.ghost_targets()}
    assert {parse_space(n) for n in ("a4", "a1", "b4", "b1", "c4", "c3")} <= targets
    assert not {parse_space(n) for n in ("a5", "b5")} & targets
    assert parse_space("b0") in targets and parse_space("a0") in targets
    events = s.apply(act(f"action {RED_GHOST} ghost c2"))
    assert [e["to"] for e in events if e["type"] == "ghost_moved"] == [[4, 2], [3, 2], [2, 2]]
    assert s.view()["ghost"] == [2, 2]


def test_the_ghost_never_goes_back_to_the_temple():
    s = position(hands=[[RED_GHOST], [BLUE]], ghost="b4")
    assert parse_space("b5") not in s.ghost_targets()
    with pytest.raises(RuleError) as e:
        s.apply(act(f"action {RED_GHOST} ghost b5"))
    assert e.value.code == "ghost_cannot"


def test_the_ghost_goes_in_a_straight_line_not_through_known_obstacles():
    s = position(hands=[[RED_GHOST], [BLUE]], ghost="b3", tiles={"b2": "EW"},
                 samurai={"red": "a3"})
    names = ("b4", "b2", "b1", "a3", "c3", "a2")
    targets = {n for n in names if parse_space(n) in s.ghost_targets()}
    assert targets == {"b4", "a3", "c3"}  # b2 is closed to the north


def test_the_ghost_may_be_sent_past_samurai_pushing_them_aside_as_it_goes():
    # SUGI.md G6: it stops where the player chooses; samurai on its way are pushed as it
    # enters their space, and then it goes on.
    s = position(hands=[[RED_GHOST, RED], [BLUE]], ghost="b4", samurai={"red": "b2"})
    names = ("b3", "b2", "b1", "b0")
    assert [n for n in names if parse_space(n) in s.ghost_targets()] == list(names)
    s.apply(act(f"action {RED_GHOST} ghost b1"))
    assert s.phase == PUSH and s.view()["ghost"] == [2, 1]
    assert s.view()["push"]["target"] == [1, 1]
    events = s.apply(act("push E"))
    assert where(s, "red") == "c2"
    assert [e["to"] for e in events if e["type"] == "ghost_moved"] == [[1, 1]]
    assert s.view()["ghost"] == [1, 1] and s.phase == PLAN and s.current_seat == 1


def test_a_ghost_going_on_pushes_the_samurai_of_each_space_it_enters():
    s = position(hands=[[RED_GHOST, RED], [BLUE]], ghost="b4",
                 samurai={"red": "b3", "blue": "b2"})
    s.apply(act(f"action {RED_GHOST} ghost b1"))
    s.apply(act("push W"))
    assert where(s, "red") == "a3" and s.phase == PUSH
    assert s.view()["ghost"] == [2, 1] and s.view()["push"]["samurai"] == "blue"
    s.apply(act("push E"))
    assert where(s, "blue") == "c2" and s.view()["ghost"] == [1, 1] and s.phase == PLAN


def test_a_ghost_that_steps_back_on_its_way_stops_there():
    # b1 open N and S only: blue there can go neither E nor W, so the ghost steps back to b2
    # and stops, short of the b0 it was sent to.
    s = position(hands=[[RED_GHOST, RED], [BLUE]], ghost="b4", tiles={"b1": "NS"},
                 samurai={"red": "b3", "blue": "b1"})
    s.apply(act(f"action {RED_GHOST} ghost b0"))  # the others, on b0, are not reached
    events = s.apply(act("push E"))
    assert types(events)[-1] == "ghost_stepped_back"
    assert s.view()["ghost"] == [2, 1] and where(s, "blue") == "b1" and where(s, "red") == "c3"
    assert s.phase == PLAN and s.current_seat == 1


def test_an_obstacle_found_face_down_stops_the_ghost_short():
    s = position(hands=[[RED_GHOST, RED], [BLUE]], tiles={"b2": "EW"}, hidden=("b2",),
                 samurai={c: "c0" for c in COLOURS})
    assert parse_space("b1") in s.ghost_targets()  # as far as anyone can tell
    events = s.apply(act(f"action {RED_GHOST} ghost b1"))
    assert types(events)[-3:] == ["ghost_moved", "tile_revealed", "ghost_blocked"]
    assert s.view()["ghost"] == [3, 1] and s.current_seat == 1


def test_samurai_in_the_ghosts_space_are_pushed_aside_one_by_one():
    s = position(hands=[[RED_GHOST, RED], [BLUE]], ghost="b3",
                 samurai={"red": "b1", "blue": "b1"})
    s.apply(act(f"action {RED_GHOST} ghost b1"))
    assert s.phase == PUSH and s.current_seat == 0
    assert s.view()["push"]["samurai"] == "red" and s.view()["push"]["waiting"] == ["blue"]
    assert [a.direction for a in s.legal_actions()] == [1, 3]  # aside: E or W
    s.apply(act("push E"))
    assert where(s, "red") == "c1"
    s.apply(act("push W"))
    assert where(s, "blue") == "a1" and s.phase == PLAN and s.current_seat == 1


def test_a_ghost_moving_along_a_row_pushes_north_or_south_never_on_nor_back():
    # The ghost goes west c2 -> b2: red there may go N or S, not W (onward) nor E (back).
    s = position(hands=[[RED_GHOST, RED], [BLUE]], ghost="c2", samurai={"red": "b2"})
    s.apply(act(f"action {RED_GHOST} ghost b2"))
    assert s.phase == PUSH and [a.direction for a in s.legal_actions()] == [0, 2]  # N, S
    with pytest.raises(RuleError) as e:
        s.apply(act("push W"))
    assert e.value.code == "cannot_push"
    s.apply(act("push S"))
    assert where(s, "red") == "b1" and s.view()["ghost"] == [2, 1]


def test_a_samurai_that_cannot_be_pushed_anywhere_sends_the_ghost_one_space_back():
    # b1 open N and S only: red there can go neither E nor W, and S is the ghost's way.
    s = position(hands=[[RED_GHOST, RED], [BLUE]], ghost="b3", tiles={"b1": "NS"},
                 samurai={"red": "b1"})
    events = s.apply(act(f"action {RED_GHOST} ghost b1"))
    assert types(events)[-1] == "ghost_stepped_back"
    assert s.view()["ghost"] == [2, 1] and where(s, "red") == "b1"
    assert s.phase == PLAN and s.current_seat == 1


def test_a_ghost_from_the_temple_that_cannot_push_stays_sharing_the_space_and_says_so():
    # b4 open N and S only: red there can go neither E nor W; back would be the Temple.
    s = position(hands=[[RED_GHOST, RED], [BLUE]], tiles={"b4": "NS"}, samurai={"red": "b4"})
    events = s.apply(act(f"action {RED_GHOST} ghost b4"))
    assert events[-1] == {"type": "ghost_stepped_back", "samurai": "red", "to": [4, 1]}
    assert s.view()["ghost"] == [4, 1] and where(s, "red") == "b4"
    assert s.phase == PLAN and s.current_seat == 1
    text = SUGI.event_text(events[-1], ["ann", "bo"])
    assert text == "red cannot be pushed: the ghost ends its move on b4"  # it did not move back


def test_a_push_into_a_face_down_obstacle_turns_it_up_and_the_player_chooses_again():
    s = position(hands=[[RED_GHOST, RED], [BLUE]], ghost="b3", tiles={"c1": "NS"},
                 hidden=("c1",), samurai={"red": "b1"})
    s.apply(act(f"action {RED_GHOST} ghost b1"))
    events = s.apply(act("push E"))
    assert types(events) == ["tile_revealed", "samurai_blocked"]
    assert s.phase == PUSH and [a.direction for a in s.legal_actions()] == [3]
    s.apply(act("push W"))
    assert where(s, "red") == "a1"


def test_a_pushed_samurai_may_reach_the_temple():
    s = position(hands=[[RED_GHOST, RED], [BLUE]], ghost="a4", samurai={"red": "b4"})
    s.apply(act(f"action {RED_GHOST} ghost b4"))
    events = s.apply(act("push N"))
    assert {"type": "samurai_arrived", "samurai": "red", "pedestal": 1} in events


# -- maintenance --------------------------------------------------------------------------


def test_maintenance_discards_then_draws_up_to_4_from_the_round_starter_on():
    s = position(3, hands=[[RED], [BLUE, YELLOW], [RED2]], seat=1)
    s.apply(Action.timeline(BLUE))  # seat 1 starts the round
    s.apply(Action.timeline(RED2))
    s.apply(Action.timeline(RED))  # every hand but seat 1's is empty: seat 1 goes on
    assert s.current_seat == 1 and s.phase == PLAN
    events = s.apply(Action.timeline(YELLOW))
    # Every hand is empty, so maintenance asks nobody: each draws 4, from seat 1 on.
    drew = [e["seat"] for e in events if e["type"] == "drew"]
    assert drew == [1, 2, 0] and [len(h) for h in s.hands] == [4, 4, 4] and s.round == 2
    assert s.current_seat == 2  # the next round starts with the seat after the last starter
    assert types(events)[-1] == "round_started"


def test_maintenance_lets_a_seat_keep_or_discard_cards():
    s2 = position(hands=[[RED, BLUE], [RED2]])
    s2.limit = 2
    s2.apply(Action.timeline(RED))
    s2.apply(Action.timeline(RED2))
    assert s2.phase == MAINTENANCE and s2.current_seat == 0
    assert Action("discard", cards=(BLUE,)) in s2.legal_actions()
    events = s2.apply(act(f"discard {BLUE}"))
    assert events[0] == {"type": "discarded", "seat": 0, "cards": [BLUE]}
    assert BLUE in s2.discard and len(s2.hands[0]) == 4


def test_an_empty_deck_is_refilled_by_shuffling_the_discards():
    s = position(hands=[[RED], [BLUE]])
    s.discard, s.deck = s.deck[:-2], s.deck[-2:]
    s.limit = 2
    s.apply(Action.timeline(RED))
    events = s.apply(Action.timeline(BLUE))
    assert "deck_reshuffled" in types(events)
    assert len(s.hands[0]) == len(s.hands[1]) == 4
    assert sorted(s.deck + s.hands[0] + s.hands[1] + s.discard) == list(range(50))


def test_the_deck_is_refilled_when_a_draw_finds_it_empty_with_the_cards_discarded_meanwhile():
    s = position(hands=[[RED, BLUE, YELLOW], [RED_ROTATE, RED2]])
    s.discard, s.deck = s.deck[:-1], s.deck[-1:]
    last = s.deck[0]
    events = s.apply(act(f"action {RED} free {BLUE} t1"))  # draws the deck's last card
    assert "deck_reshuffled" not in types(events) and s.deck == [] and last in s.hands[0]
    s.apply(act(f"action {RED_ROTATE} rotate b2 90"))  # discarded after the deck ran out
    events = s.apply(act(f"action {YELLOW} free {last} t1"))  # a draw finds the deck empty
    reshuffled = next(e for e in events if e["type"] == "deck_reshuffled")
    assert reshuffled["cards"] == len(s.deck) + 1 and RED_ROTATE in s.reshuffles[0]


def test_a_card_removed_to_an_empty_deck_is_the_next_card_drawn():
    s = position(hands=[[RED, BLUE, RED2], [YELLOW_REMOVE, PURPLE_ROTATE]],
                 timeline=[(YELLOW, 0, 0)])
    s.discard, s.deck = s.deck, []
    s.apply(Action.timeline(RED))
    s.apply(act(f"action {YELLOW_REMOVE} remove t1"))  # seat 0's card goes under no deck
    assert s.deck == [YELLOW] and s.private(0)["deck_bottom"] == [[0, YELLOW]]
    events = s.apply(act(f"action {BLUE} free {RED2} t1"))
    assert "deck_reshuffled" not in types(events) and s.hands[0] == [YELLOW]
    assert s.timeline[0][0] == RED2
    assert s.private(0)["deck_bottom"] == []  # drawn: nobody knows where it lies any more


# -- the end ------------------------------------------------------------------------------


def test_the_third_samurai_in_the_temple_ends_the_game_at_once_mid_card():
    pair = card("red N", "blue N")
    s = position(hands=[[pair], [BLUE]], samurai={"red": "a4", "yellow": None, "black": None,
                 "blue": "c4"}, ghost="b1", timeline=[])
    s.limit = 1
    events = s.apply(Action.timeline(pair, 0))
    assert s.phase == OVER and types(events)[-1] == "game_over"
    assert where(s, "blue") == "c4"  # its arrow came after the end
    assert s.outcome.pedestals == ("yellow", "black", "red")


def test_a_samurai_pushed_into_the_temple_third_ends_the_game_during_planning():
    s = position(hands=[[RED_GHOST, RED], [BLUE]], ghost="a4", samurai={"red": "b4",
                 "yellow": None, "black": None})
    s.apply(act(f"action {RED_GHOST} ghost b4"))
    s.apply(act("push N"))
    assert s.is_over() and s.current_seat is None and s.legal_actions() == []


def _ended(families: list[int], pedestals: list[str], players: int = 2) -> State:
    s = position(players, families=families, samurai={c: None for c in pedestals})
    s._finish([])
    return s


def test_score_is_the_family_points_of_the_samurai_on_the_pedestals():
    # family 0: yellow 7, red 5, purple 3; family 9: black 7, purple 5, blue 3
    s = _ended([0, 9], ["purple", "red", "blue"])
    assert s.scores() == [8, 8]
    s = _ended([0, 9], ["yellow", "black", "blue"])
    assert s.scores() == [7, 10] and s.result().ranking == (1, 0)


def test_a_tie_goes_to_whose_best_samurai_arrived_first():
    # 8 each; seat 0's best arrived samurai (red, 5) came 2nd, seat 1's (purple, 5) 1st.
    s = _ended([0, 9], ["purple", "red", "blue"])
    assert s.outcome.ranking == (1, 0) and s.outcome.winners == (1,)


def test_a_tie_on_the_best_samurai_goes_to_the_next_one_then_is_shared():
    # family 5: black 7, blue 5, yellow 3; family 8: blue 7, black 5, red 3.
    s = _ended([5, 8], ["black", "blue", "purple"])
    assert s.scores() == [12, 12]
    assert s.outcome.winners == (0,)  # seat 0's 7 (black) arrived 1st, seat 1's 7 (blue) 2nd
    s = _ended([0, 0], ["yellow", "red", "blue"])  # the same card twice: nothing tells apart
    assert s.outcome.winners == (0, 1)


def test_the_round_cap_ends_a_game_that_would_not_end():
    s = position(hands=[[RED], [BLUE]])
    s.round = ROUND_CAP
    s.limit = 2
    s.apply(Action.timeline(RED))
    events = s.apply(Action.timeline(BLUE))
    assert s.is_over() and types(events)[-1] == "game_over" and s.outcome.rounds == ROUND_CAP


def test_the_round_before_the_cap_goes_on_to_the_next_round():
    # G7/S14: the game ends after round 60, not before it (empty hands: maintenance just draws).
    s = position(hands=[[RED], [BLUE]])
    s.round, s.limit, s.edition = 59, 2, 1  # as the page counts, not ROUND_CAP
    s.apply(Action.timeline(RED))
    s.apply(Action.timeline(BLUE))
    assert not s.is_over() and s.phase == PLAN and s.round == 60


# -- our edition's rule: the Temple's call (S17) --------------------------------------------


def _two_home(edition: int = 2, home: tuple[str, ...] = ("yellow", "black")) -> State:
    """Two samurai home (or ``home``), red on b1, purple on a3 under the ghost on a4, blue on c3
    whose north side is blocked; each seat holds one card; the timeline takes two."""
    samurai = {"red": "b1", "purple": "a3", "blue": "c3", **{c: None for c in home}}
    s = position(hands=[[RED], [BLUE]], samurai=samurai, ghost="a4", tiles={"c3": "ESW"})
    s.limit, s.edition = 2, edition
    return s


def test_with_two_samurai_home_the_temple_calls_the_others_one_step_north():
    s = _two_home()
    s.apply(Action.timeline(RED, 90))  # red: b1 -> c1
    events = s.apply(Action.timeline(BLUE, 0))  # blue: c3 north, blocked
    kinds = types(events)
    call = kinds.index("temple_call")
    assert kinds.index("resolution") < call < kinds.index("maintenance")
    after = events[call + 1 : kinds.index("maintenance")]
    assert {"type": "samurai_moved", "samurai": "red", "from": [1, 2], "to": [2, 2]} in after
    assert where(s, "red") == "c2"  # the call is a step as by an arrow
    blocked = {e["samurai"]: e["reason"] for e in after if e["type"] == "samurai_blocked"}
    assert blocked == {"purple": "ghost", "blue": "obstacle"}  # S7 stops it as it stops arrows
    assert where(s, "purple") == "a3" and where(s, "blue") == "c3"


def test_the_temple_does_not_call_a_samurai_on_column_4_nor_before_two_are_home():
    s = _two_home()
    s.samurai[COLOURS.index("red")] = parse_space("b4")
    s.apply(Action.timeline(RED, 270))  # red: b4 -> a4? the ghost is there: it stays
    s.apply(Action.timeline(BLUE, 0))
    assert where(s, "red") == "b4" and len(s.pedestals) == 2  # the last step is the players'
    one = _two_home(home=("yellow",))
    one.apply(Action.timeline(RED, 90))
    events = one.apply(Action.timeline(BLUE, 0))
    assert "temple_call" not in types(events) and where(one, "red") == "c1"


def test_from_round_20_edition_3_calls_whoever_is_home_and_edition_2_does_not():
    for home, edition, called in [((), 3, True), (("yellow",), 3, True), (("yellow",), 2, False)]:
        s = _two_home(edition=edition, home=home)
        s.round = CALL_ROUND
        s.apply(Action.timeline(RED, 90))  # red: b1 -> c1
        events = s.apply(Action.timeline(BLUE, 0))
        assert ("temple_call" in types(events)) == called, (home, edition)
        assert where(s, "red") == ("c2" if called else "c1")
    early = _two_home(edition=3, home=("yellow",))
    early.round = CALL_ROUND - 1
    early.apply(Action.timeline(RED, 90))
    assert "temple_call" not in types(early.apply(Action.timeline(BLUE, 0)))


def test_from_round_30_edition_4_summons_every_samurai_past_walls_and_the_ghost():
    s = _two_home(edition=4, home=("yellow",))
    s.round = SUMMONS_ROUND
    s.apply(Action.timeline(RED, 90))  # red: b1 -> c1
    events = s.apply(Action.timeline(BLUE, 0))  # blue: c3 north, blocked by its closed side
    kinds = types(events)
    summons = kinds.index("temple_summons")
    assert "temple_call" not in kinds and summons < kinds.index("maintenance")
    moved = {e["samurai"]: (e["from"], e["to"])
             for e in events[summons:] if e["type"] == "samurai_moved"}
    assert moved == {
        "red": ([1, 2], [2, 2]),
        "purple": ([3, 0], [5, 0]),  # leaps the ghost on a4 into the Temple
        "black": ([0, 1], [1, 1]),  # from the Start tile
        "blue": ([3, 2], [4, 2]),  # through the closed side that stopped its arrow
    }
    assert [COLOURS[c] for c in s.pedestals] == ["yellow", "purple"] and not s.is_over()
    assert "samurai_blocked" not in kinds[summons:]


def test_the_summons_ends_the_game_with_the_third_samurai_home():
    s = _two_home(edition=4)
    s.round = SUMMONS_ROUND
    s.apply(Action.timeline(RED, 90))
    events = s.apply(Action.timeline(BLUE, 0))
    kinds = types(events)
    assert kinds[kinds.index("temple_summons"):] == [
        "temple_summons", "samurai_moved", "samurai_moved", "samurai_arrived", "game_over"]
    assert s.is_over() and s.outcome.rounds == SUMMONS_ROUND
    assert where(s, "blue") == "c3"  # after purple, in colour order: the game was over


def test_before_round_30_and_in_edition_3_the_call_is_still_a_call():
    for edition, round_ in ((4, SUMMONS_ROUND - 1), (3, SUMMONS_ROUND)):
        s = _two_home(edition=edition)
        s.round = round_
        s.apply(Action.timeline(RED, 90))
        kinds = types(s.apply(Action.timeline(BLUE, 0)))
        assert "temple_call" in kinds and "temple_summons" not in kinds, edition
        assert where(s, "purple") == "a3" and where(s, "blue") == "c3"


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_an_edition_4_game_ends_by_round_34_whatever_is_played(players):
    """Each summons brings every samurai a column nearer, and five take anyone home: random
    play, whose arrows wander for tens of rounds in edition 3, ends by round 34, never at the
    round cap."""
    longest = {}
    for edition in (3, 4):
        rng = random.Random(players)
        lengths = []
        for seed in range(120):
            s = State.new(players, seed=seed, edition=edition)
            s.playout(rng)
            assert len(s.outcome.pedestals) <= 3
            lengths.append(s.outcome.rounds)
        longest[edition] = max(lengths)
    assert longest[4] <= SUMMONS_ROUND + 4 < longest[3]


def test_edition_1_has_no_temple_call():
    s = _two_home(edition=1)
    s.apply(Action.timeline(RED, 90))
    events = s.apply(Action.timeline(BLUE, 0))
    assert "temple_call" not in types(events) and where(s, "red") == "c1"
    assert s.view()["edition"] == 1
