"""Sugi's bot knowledge: the evaluation and the search hooks."""

from __future__ import annotations

import random

from test_sugi_support import card, position

from sagani_net.games.sugi import bots
from sagani_net.games.sugi.rules import Action, State

# Family 0: yellow 7, red 5, purple 3 (black and blue are rivals).
MINE, RIVAL = 0, 1


def test_a_samurai_of_ones_family_further_on_is_worth_more_and_a_rivals_less():
    base = bots.evaluate(position(families=[0, 9]), MINE)
    assert bots.evaluate(position(families=[0, 9], samurai={"yellow": "b2"}), MINE) > base
    assert bots.evaluate(position(families=[0, 9], samurai={"blue": "b2"}), MINE) < base
    seven = bots.evaluate(position(families=[0, 9], samurai={"yellow": "b2"}), MINE)
    three = bots.evaluate(position(families=[0, 9], samurai={"purple": "b2"}), MINE)
    assert seven > three


def test_the_evaluation_counts_the_timeline_as_if_resolved_now():
    yellow = card("yellow N", action="free")
    planned = position(families=[0, 9], timeline=[(yellow, 0, MINE)])
    backwards = position(families=[0, 9], timeline=[(yellow, 180, MINE)],
                         samurai={"yellow": "b1"})  # fmt: skip
    assert bots.evaluate(planned, MINE) > bots.evaluate(position(families=[0, 9]), MINE)
    assert bots.evaluate(backwards, MINE) < bots.evaluate(
        position(families=[0, 9], samurai={"yellow": "b1"}), MINE
    )
    assert len(planned.timeline) == 1  # the evaluation resolved a copy


def test_best_turn_sends_ones_own_samurai_towards_the_temple():
    state = position(families=[0, 9])
    assert bots.best_turn(state, MINE, card("yellow N", action="free")) == 0
    assert bots.best_turn(state, MINE, card("black N", action="ghost")) == 180


def test_candidates_are_the_best_legal_actions_by_one_ply_evaluation():
    rng = random.Random(5)
    state = State.new(3, 8)
    for _ in range(12):
        state.apply(state.random_action(rng))
    legal, candidates = state.legal_actions(), bots.candidate_actions(state)
    assert len(legal) > bots.CANDIDATES == len(candidates) and set(candidates) <= set(legal)
    seat = state.current_seat

    def value(action: Action) -> float:
        after = state.clone()
        after.push(action)
        return bots.evaluate(after, seat)

    worst_kept = min(map(value, candidates))
    assert all(value(a) <= worst_kept for a in legal if a not in candidates)


def test_a_face_down_tile_is_weighed_at_a_quarter_turn_only():
    rotate = card("red N", action="rotate")
    state = position(hands=[[rotate, card("red N", action="free")], []], hidden=("b2",))
    dropped = set(state.legal_actions()) - set(bots.distinct_actions(state))
    assert dropped == {Action.parse(f"action {rotate} rotate b2 {by}") for by in (180, 270)}


def test_rollouts_play_legal_actions_and_end():
    rng = random.Random(2)
    for seed in range(4):
        state = State.new(3, seed)
        while not state.is_over():
            action = bots.rollout_action(state, rng)
            assert action in state.legal_actions()
            state.apply(action)
        assert state.result() is not None
    state = State.new(4, 9)
    bots.playout(state, rng)
    assert state.is_over()
    assert bots.random_action(State.new(2, 1), rng) in State.new(2, 1).legal_actions()
