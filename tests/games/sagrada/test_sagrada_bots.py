"""Sagrada's bot knowledge: the evaluation, the rollout policy and the search hooks."""

from __future__ import annotations

import random

from test_sagrada_support import table

from sagani_net.bots.tournament import TournamentSpec, run_games
from sagani_net.games.sagrada import bots
from sagani_net.games.sagrada.rules import SAGRADA, Action, State

HALF = """
R1 Y2 G3 B4 P5
. . . . .
. . . . .
. . . . .
"""


def one_ply_best(state: State) -> Action:
    seat = state.current_seat
    values = []
    for action in state.legal_actions():
        after = state.clone()
        after.apply(action)
        values.append((bots.evaluate(after, seat), action))
    return max(values, key=lambda va: va[0])[1]


def test_placing_a_die_beats_passing() -> None:
    state = table(pool="G6 Y4 B1 P3 R5", windows=(HALF, HALF), objectives=(1, 5, 9))
    assert one_ply_best(state).kind == "draft"


def test_a_cell_no_die_can_fill_any_more_counts_against_the_window() -> None:
    # 2,1 wants a red; a red die above it already blocks it.
    state = table(windows=(HALF, HALF), patterns=(". . . . .\nR . . . .\n" + ". . . . .\n" * 2,),
                  objectives=(5, 6, 7))
    blocked = bots.evaluate(state, 0)
    state.patterns = (state.patterns[1], state.patterns[1])
    state.cache = [None, None]
    assert bots.evaluate(state, 0) > blocked


FULL = """
R1 Y2 G3 B4 P5
G2 B3 P4 R5 Y6
B4 P5 R6 Y1 G2
P6 R1 Y3 G4 B5
"""


def test_the_private_colour_counts_for_its_seat() -> None:
    # Full windows: red dice make 13, yellow 12; nothing is left to come.
    state = table(windows=(FULL, FULL), tokens=(0, 0), privates=((0,), (1,)), objectives=(5, 6, 7))
    assert bots.evaluate(state, 0) - bots.evaluate(state, 1) == 13 - 12


def test_room_for_the_private_colour_counts_before_its_dice_come() -> None:
    reds = "R . . . R\n. . . . .\n. . . . .\nR . . . R"
    state = table(windows=(HALF, HALF), patterns=(reds, reds), privates=((0,), (1,)),
                  tokens=(0, 0), objectives=(5, 6, 7))
    assert bots.evaluate(state, 0) > bots.evaluate(state, 1)


def test_solo_a_high_die_drafted_keeps_the_target_low() -> None:
    state = table(players=1, pool="R6 Y1 G2 B3", privates=((2, 3),), objectives=(5, 6))
    high, low = state.clone(), state.clone()
    high.apply(Action.parse("draft 1 at 1,1"))
    low.apply(Action.parse("draft 2 at 1,1"))
    # The second turn drafts the pool's highest die: Y1 G2 stay, or G2 B3 after the Y1.
    assert bots.projected_target(low) - bots.projected_target(high) == (2 + 3) - (1 + 2)
    assert bots.evaluate(high, 0) > bots.evaluate(low, 0)


def test_favour_tokens_are_worth_keeping() -> None:
    state = table(windows=(HALF, HALF), tokens=(3, 1), privates=((0,), (0,)))
    assert bots.evaluate(state, 0) - bots.evaluate(state, 1) == 2


def test_turns_left_count_the_snake() -> None:
    state = table(players=3, windows=(HALF, HALF, HALF))
    assert [bots.turns_left(state, s) for s in range(3)] == [20, 20, 20]
    state.apply(Action("pass"))
    assert [bots.turns_left(state, s) for s in range(3)] == [19, 20, 20]


def test_rollout_policy_keeps_neighbouring_cells_fillable() -> None:
    # 2,3 wants a 3: a 3 at 2,2 (orthogonally next to it) would leave it unfillable.
    pattern = ". . . . .\n. . 3 . .\n" + ". . . . .\n" * 2
    state = table(pool="B3", windows=("R1 . . . .\n" + ". . . . .\n" * 3,), patterns=(pattern,),
                  privates=((0,), (1,)))
    cells = {bots.rollout_action(state, random.Random(seed)).cell for seed in range(30)}
    assert cells == {Action.parse("draft 1 at 1,2").cell, Action.parse("draft 1 at 2,1").cell}


def test_greedy_beats_random() -> None:
    spec = TournamentSpec(lineup=("greedy", "random"), games=6, seed=3, game="sagrada",
                          config={"players": 2})
    results = run_games(spec, workers=1)
    wins = sum(r.strategies[r.ranking[0]] == "greedy" for r in results)
    assert wins >= 5


def test_rollout_policy_plays_legal_actions_to_the_end() -> None:
    for players in (1, 2, 4):
        state = SAGRADA.new_state(SAGRADA.parse_config({"players": players}), players)
        rng = random.Random(players)
        while not state.is_over():
            action = bots.rollout_action(state, rng)
            assert action in state.legal_actions()
            state.apply(action)


def test_search_hooks_give_legal_candidates_and_rewards_in_range() -> None:
    search = bots.Search(placements=3, rollout_rounds=1)
    rng = random.Random(5)
    for players in (1, 3):
        state = SAGRADA.new_state(SAGRADA.parse_config({"players": players}), 9)
        for _ in range(25):
            candidates = search.candidates(state, root=True)
            legal = state.legal_actions()
            assert candidates and all(c in legal for c in candidates)
            assert search.signature(state) == search.signature(state.clone())
            rewards = search.rollout(state.clone(), rng)
            assert len(rewards) == players and all(0.0 <= r <= 1.0 for r in rewards)
            search.play(state, candidates[int(rng.random() * len(candidates))])
