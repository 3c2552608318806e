"""Sugi's bot knowledge: the evaluation and the search hooks."""

from __future__ import annotations

import random

from test_sugi_support import card, position

from sagani_net.bots import make_policy
from sagani_net.games.sugi import bots
from sagani_net.games.sugi.rules import Action, State, parse_space

# Family 0: yellow 7, red 5, purple 3 (black and blue are rivals).
MINE, RIVAL = 0, 1
A2, B2 = parse_space("a2"), parse_space("b2")


def test_a_samurai_of_ones_family_further_on_is_worth_more_and_a_rivals_less():
    base = bots.evaluate(position(families=[0, 9]), MINE)
    assert bots.evaluate(position(families=[0, 9], samurai={"yellow": "b2"}), MINE) > base
    assert bots.evaluate(position(families=[0, 9], samurai={"blue": "b2"}), MINE) < base
    seven = bots.evaluate(position(families=[0, 9], samurai={"yellow": "b2"}), MINE)
    three = bots.evaluate(position(families=[0, 9], samurai={"purple": "b2"}), MINE)
    assert seven > three


def test_a_samurai_behind_an_obstacle_or_the_ghost_counts_the_way_round():
    def worth(**where) -> float:
        state = position(families=[0, 9], samurai={"yellow": "a2"}, **where)
        return bots.evaluate(state, MINE)

    # a2 -> a3 -> a4 -> Temple, or round a blocked side or the ghost: one step more (the
    # others, on b0, go up lane b as before).
    assert bots.steps_left(position())[A2] == 3
    assert worth(tiles={"a2": "ESW"}) == worth() - 7  # yellow is worth 7 a step
    assert worth(ghost="a3") == worth(ghost="c4") - 7  # (the ghost off the Temple both times)
    # a2 open N and S only, a3 closed to the south: back down and round by lane b.
    assert bots.steps_left(position(tiles={"a2": "NS", "a3": "EW"}))[A2] == 6


def test_a_forest_walled_in_counts_the_turn_that_would_open_it():
    # Row 3 shut to the north: no way to the Temple through open sides, yet b2 is not out of
    # reach: up to b3, a turn of b3, then b4 and the Temple.
    walled = position(tiles={"a3": "ESW", "b3": "ESW", "c3": "ESW"})
    assert bots.steps_left(walled)[B2] == 3 + bots.TURN_STEPS
    # A turn is dearer than a step round: with a3 open, b2 goes round by lane a.
    assert bots.steps_left(position(tiles={"b3": "ESW", "c3": "ESW"}))[B2] == 4


def test_the_ghost_on_the_only_way_counts_the_move_that_would_send_it_away():
    # a4 and c4 shut to the north; the ghost on b4: b3 -> b4 -> Temple, the ghost sent away.
    shut = position(tiles={"a4": "ESW", "c4": "ESW"}, ghost="b4")
    assert bots.steps_left(shut)[parse_space("b3")] == 2 + bots.GHOST_STEPS


def test_in_a_forest_walled_in_greedy_opens_a_way_rather_than_play_a_blind_arrow():
    # Issue 19's three-player net (deal 10000107), as it stood from round 12 to round 60:
    # every samurai on c2, no way north through open sides and the ghost on c4. Every arrow
    # is blocked; only a turned tile or the ghost sent away brings anyone nearer.
    forest = {"a3": "ESW", "b3": "EW", "c3": "NEW", "a2": "NEW", "b2": "NEW", "c2": "NS",
              "a1": "ESW"}
    on_c2 = dict.fromkeys(("yellow", "red", "purple", "black", "blue"), "c2")
    hand = [card("red N"), card("purple N", action="rotate"), card("black N"),
            card("yellow N", "yellow N")]
    state = position(3, tiles=forest, samurai=on_c2, ghost="c4", families=[6, 9, 4],
                     hands=[hand, [], []])
    before = bots.steps_left(state)[parse_space("c2")]
    action = make_policy("greedy", game="sugi").choose(state.clone(), random.Random(1))
    assert action.type == "rotate"
    assert bots.steps_left(_after(state, action))[parse_space("c2")] < before


def test_greedy_turns_open_the_tile_that_blocks_its_samurai():
    rotate = card("purple N", action="rotate")
    state = position(families=[0, 9], samurai={"yellow": "a2"}, tiles={"a2": "ESW"},
                     hands=[[rotate], []])
    values = [(bots.evaluate(_after(state, a), MINE), a) for a in state.legal_actions()]
    best = max(values, key=lambda va: va[0])[1]
    assert best.type == "rotate" and best.space == A2  # a2 turned so that its north is open


def _after(state: State, action: Action) -> State:
    after = state.clone()
    after.apply(action)
    return after


def test_the_evaluation_counts_the_timeline_as_if_resolved_now():
    yellow = card("yellow N", action="free")
    planned = position(families=[0, 9], timeline=[(yellow, 0, MINE)])
    backwards = position(families=[0, 9], timeline=[(yellow, 180, MINE)],
                         samurai={"yellow": "b1"})
    assert bots.evaluate(planned, MINE) > bots.evaluate(position(families=[0, 9]), MINE)
    assert bots.evaluate(backwards, MINE) < bots.evaluate(
        position(families=[0, 9], samurai={"yellow": "b1"}), MINE
    )
    assert len(planned.timeline) == 1  # the evaluation resolved a copy
    # The search's own copies are judged without a second one: resolved where they are.
    spent = planned.clone()
    assert bots.evaluate_spent(spent, MINE) == bots.evaluate(planned, MINE)
    assert not spent.timeline


def test_best_turn_sends_ones_own_samurai_towards_the_temple():
    state = position(families=[0, 9])
    assert bots.best_turn(state, MINE, card("yellow N", action="free")) == 0
    assert bots.best_turn(state, MINE, card("black N", action="ghost")) == 180


def test_the_best_actions_are_the_best_by_one_ply_evaluation():
    rng = random.Random(5)
    state = State.new(3, 8)
    for _ in range(12):
        state.apply(state.random_action(rng))
    legal, best = state.legal_actions(), bots.best_actions(state, 8)
    assert len(legal) > 8 == len(best) and set(best) <= set(legal)
    seat = state.current_seat

    def value(action: Action) -> float:
        after = state.clone()
        after.push(action)
        return bots.evaluate(after, seat)

    assert [value(a) for a in best] == sorted(map(value, best), reverse=True)
    assert all(value(a) <= value(best[-1]) for a in legal if a not in best)


def test_a_face_down_tile_is_weighed_at_a_quarter_turn_only():
    rotate = card("red N", action="rotate")
    state = position(hands=[[rotate, card("red N", action="free")], []], hidden=("b2",))
    dropped = set(state.legal_actions()) - set(bots.distinct_actions(state))
    assert dropped == {Action.parse(f"action {rotate} rotate b2 {by}") for by in (180, 270)}


def test_random_play_is_legal_and_ends():
    rng = random.Random(2)
    state = State.new(4, 9)
    state.playout(rng)
    assert state.is_over()
    assert State.new(2, 1).random_action(rng) in State.new(2, 1).legal_actions()


def _positions(players: int, seed: int, steps: int) -> list[State]:
    """Positions met in a game of best placements, one every few decisions."""
    rng = random.Random(seed)
    state = State.new(players, seed)
    seen = []
    for n in range(steps):
        if state.is_over():
            break
        if n % 5 == 0:
            seen.append(state.clone())
        if state.phase == "plan" and rng.random() < 0.7:
            state.apply(bots.placement(state, rng))
        else:
            state.apply(state.random_action(rng))
    return seen


def test_the_search_hooks_offer_legal_moves_and_rollouts_stop_after_a_resolution():
    search = bots.Search(root_candidates=6, candidates=3)
    rng = random.Random(3)
    for players in (2, 3, 5):
        for state in _positions(players, players, 40):
            search.signature(state)
            for root in (True, False):
                moves = search.candidates(state, root)
                assert moves and set(moves) <= set(state.legal_actions())
                assert len(moves) <= (6 if root else 3) or state.phase == "push"
            rolled = state.clone()
            rounds = rolled.round
            rewards = search.rollout(rolled, rng)
            assert len(rewards) == players and all(0 <= r <= 1 for r in rewards)
            # It stops at the start of a planning phase, after one resolution.
            assert rolled.is_over() or (
                rolled.phase == "plan"
                and not rolled.timeline
                and rounds < rolled.round <= rounds + 2
            )


def test_the_searchs_reward_for_a_shared_win_is_a_tie_whatever_the_seats_order():
    # The round-60 net with nobody home: every seat shares the win (S15).
    state = position(3, families=[0, 9, 4])
    state._finish(None)
    assert state.outcome is not None and state.outcome.winners == (0, 1, 2)
    assert bots.rewards(state, 6.0) == [0.5, 0.5, 0.5]
    # A win alone is a win: yellow, red and purple home are family 0's 7, 5 and 3.
    state = position(3, families=[0, 9, 4], samurai=dict.fromkeys(("yellow", "red", "purple")))
    state._finish(None)
    assert state.outcome is not None and state.outcome.winners == (0,)
    assert bots.rewards(state, 6.0)[0] == 1.0


def test_the_belief_turns_only_other_seats_timeline_cards_their_owners_best_way():
    blue = card("blue N", action="ghost")  # family 9 (seat 1): black 7, purple 5, blue 3
    yellow = card("yellow N", action="free")
    state = position(families=[0, 9], timeline=[(blue, 180, 1), (yellow, 180, MINE)])
    view, private = state.view(MINE), state.private(MINE)
    search = bots.Search(believe=1.0)
    search.signature(state)
    assert state.timeline == [(blue, 0, 1), (yellow, 2, MINE)]
    assert (state.view(MINE), state.private(MINE)) == (view, private)  # nothing the seat knows


def test_the_search_decides_from_what_the_seat_knows_only():
    from sagani_net.bots.mcts import MctsPolicy
    from sagani_net.games.sugi.rules import SUGI

    for state in _positions(3, 11, 30)[2:5]:
        seat = state.current_seat
        # Another state the seat cannot tell from this one: every secret resampled.
        other = SUGI.determinize(state.view(seat), state.private(seat), seat, random.Random(9))
        assert other.view(seat) == state.view(seat) and other.private(seat) == state.private(seat)
        chosen = MctsPolicy("sugi", think_s=None, iterations=30).choose(state, random.Random(4))
        assert chosen in state.legal_actions()
        again = MctsPolicy("sugi", think_s=None, iterations=30).choose(other, random.Random(4))
        assert again == chosen


def test_the_belief_deals_the_family_whose_samurai_are_furthest_on_most_often():
    from collections import Counter

    # Family 9 is black 7, purple 5, blue 3: its samurai lead the race.
    ahead = {"black": "a4", "purple": "b4", "blue": "c4"}
    search = bots.Search(believe=0.0)
    dealt = Counter()
    for _ in range(200):
        state = position(families=[0, 9], samurai=ahead)
        search.signature(state)
        dealt[state.families[1]] += 1
    assert dealt[0] == 0  # never the seat's own card
    assert dealt.most_common(1)[0][0] == 9
