"""Scoring: every public objective on hand-built windows (those that score nothing too), the
private objective, tokens, empty cells, tie-breaks and the solo game's target."""

from __future__ import annotations

import pytest
from test_sagrada_support import table, window

from sagani_net.games.sagrada.components import (
    COLOURS,
    objective_points,
    parse_die,
    private_points,
)

FULL = """
R1 Y2 G3 B4 P5
Y3 G4 B5 P6 R1
G5 B6 P1 R2 Y3
B2 P3 R4 Y5 G6
"""
ROWS_MIXED = """
R1 R2 G3 B4 P5
Y3 G4 B5 P6 R1
G5 B6 P1 R2 Y3
B2 P3 R4 Y5 .
"""


@pytest.mark.parametrize(("number", "drawing", "points"), [
    (1, FULL, 4 * 6),  # every row has five colours
    (1, ROWS_MIXED, 2 * 6),  # row 1 repeats red, row 4 is not complete
    (1, "R1 Y2 G3 B4 .\n" + ". . . . .\n" * 3, 0),
    (2, FULL, 5 * 5),
    (2, "R1 . . . .\nR2 . . . .\nG3 . . . .\nB4 . . . .\n", 0),  # red twice
    (2, "R1 . . . .\nY2 . . . .\nG3 . . . .\nB4 . . . .\n", 5),
    (3, FULL, 4 * 5),
    (3, "R1 Y1 G3 B4 P5\n" + ". . . . .\n" * 3, 0),
    (4, FULL, 5 * 4),
    (4, "R1 . . . .\nY2 . . . .\nG1 . . . .\nB4 . . . .\n", 0),
    (5, "R1 Y2 G1 . .\n" + ". . . . .\n" * 3, 2),  # two 1s, one 2: one set
    (5, "R1 Y1 G1 . .\n" + ". . . . .\n" * 3, 0),
    (6, "R3 Y4 G3 B4 .\n" + ". . . . .\n" * 3, 4),
    (6, "R3 Y3 . . .\n" + ". . . . .\n" * 3, 0),
    (7, "R5 Y6 . . .\nG6 . . . .\n" + ". . . . .\n" * 2, 2),
    (7, "R1 Y2 . . .\n" + ". . . . .\n" * 3, 0),
    (8, "R1 Y2 G3 B4 P5\nY6 . . . .\n" + ". . . . .\n" * 2, 5),
    (8, FULL, 5 * 3),  # three of each value: 1 2 3 4 5 6 appear at least three times
    (8, "R1 Y2 G3 B4 P5\n" + ". . . . .\n" * 3, 0),
    (9, FULL, 4 * 4),
    (9, "R1 Y2 G3 B4 .\n" + ". . . . .\n" * 3, 0),
    (10, "R1 . . . .\n. R2 . . .\n. . R3 . .\n. . . G4 .\n", 3),
    (10, "R1 . G1 . .\n. B2 . . .\n" + ". . . . .\n" * 2, 0),
])
def test_public_objective(number: int, drawing: str, points: int) -> None:
    assert objective_points(number, window(drawing)) == points


def test_shade_variety_on_the_full_window_counts_the_rarest_value() -> None:
    values = [int(w[1]) for w in FULL.split()]
    assert min(values.count(v) for v in range(1, 7)) == 3


def test_private_objective_sums_its_colour() -> None:
    w = window(FULL)
    assert private_points(COLOURS.index("R"), w) == 1 + 1 + 2 + 4
    assert private_points(COLOURS.index("P"), window(". . . . .\n" * 4)) == 0


def test_score_adds_objectives_private_and_tokens_less_empty_cells() -> None:
    state = table(windows=(ROWS_MIXED, FULL), tokens=(3, 0), objectives=(1, 5, 10),
                  privates=((0,), (4,)))
    sheet = state.score_sheet(0)
    light = objective_points(5, window(ROWS_MIXED))
    diagonals = objective_points(10, window(ROWS_MIXED))
    assert sheet["objectives"] == [12, light, diagonals]
    assert sheet["private"] == 1 + 2 + 1 + 2 + 4 and sheet["tokens"] == 3 and sheet["empty"] == 1
    assert sheet["total"] == 12 + light + diagonals + 10 + 3 - 1
    # The public score leaves the secret private objective out.
    assert state.scores()[0] == sheet["total"] - sheet["private"]


def finished(state):
    """End the arranged game now: the pool goes to the track of round 10."""
    state.round, state.pool = 9, []
    state._end_round(None)
    return state.result()


def test_ties_go_to_the_private_objective_then_tokens() -> None:
    alone = "R6 . . . .\n" + ". . . . .\n" * 3
    # Round 10 opens with seat 1, so seat 0 would win the last tie-break: the earlier ones
    # must decide here for seat 1.
    # Equal totals: seat 1 has 6 private points and no tokens, seat 0 none and 6 tokens.
    state = table(windows=(alone, alone), tokens=(6, 0), objectives=(1, 2, 3),
                  privates=((1,), (0,)))
    result = finished(state)
    assert result.scores[0] == result.scores[1] and result.ranking == (1, 0)
    # Equal totals and private points: more tokens left wins.
    two = "R6 Y1 . . .\n" + ". . . . .\n" * 3
    state = table(windows=(two, alone), tokens=(2, 3), objectives=(1, 2, 3),
                  privates=((0,), (0,)))
    result = finished(state)
    sheets = result.figures["sheets"]
    assert result.scores[0] == result.scores[1] and sheets[0]["private"] == sheets[1]["private"]
    assert result.ranking == (1, 0)


def test_last_tie_break_is_the_later_first_turn_of_round_ten() -> None:
    same = "R6 . . . .\n" + ". . . . .\n" * 3
    state = table(players=3, windows=(same, same, same), tokens=(2, 2, 2), objectives=(1, 2, 3),
                  privates=((0,), (0,), (0,)))
    result = finished(state)
    # Round 10 starts with seat 9 % 3 = 0: first turns 0, 1, 2; seat 2 went last.
    assert result.ranking == (2, 1, 0)
    assert len(set(result.scores)) == 1


@pytest.mark.parametrize(("players", "ranking"), [(2, (0, 1)), (4, (0, 3, 2, 1))])
def test_last_tie_break_when_round_ten_opens_with_another_seat(players, ranking) -> None:
    # Round 10 starts with seat 9 % players = 1: first turns 1, 2, ..., then 0, which went last.
    same = "R6 . . . .\n" + ". . . . .\n" * 3
    state = table(players=players, windows=(same,) * players, tokens=(2,) * players,
                  objectives=(1, 2, 3), privates=((0,),) * players)
    result = finished(state)
    assert len(set(result.scores)) == 1
    assert result.ranking == ranking


def test_full_ranking_for_four_players() -> None:
    state = table(players=4, windows=(FULL, ROWS_MIXED, ". . . . .\n" * 4, FULL),
                  tokens=(0, 0, 0, 1), objectives=(1, 2, 3), privates=((0,), (0,), (0,), (0,)))
    result = finished(state)
    assert result.ranking == (3, 0, 1, 2)
    assert result.scores[3] == result.scores[0] + 1 and result.scores[2] == -20


def test_solo_scores_the_better_private_objective_and_three_per_empty_cell() -> None:
    drawing = "R6 G5 . . .\n" + ". . . . .\n" * 3
    state = table(players=1, windows=(drawing,), objectives=(1, 2),
                  privates=((COLOURS.index("R"), COLOURS.index("G")),), track={0: "B6 P6"})
    sheet = state.score_sheet(0)
    assert sheet["private"] == 6 and sheet["empty"] == 18
    assert sheet["total"] == 6 - 3 * 18
    result = finished(state)
    assert result.figures["target"] == 12 and result.figures["won"] is False
    assert result.scores == (6 - 54,) and result.ranking == (0,)


def test_solo_wins_when_the_score_beats_the_target() -> None:
    state = table(players=1, windows=(FULL,), objectives=(1, 2),
                  privates=((0, 1),), track={0: "B6 P6", 3: "Y1"})
    result = finished(state)
    assert result.figures["target"] == 13
    assert result.scores[0] == 24 + 25 + max(1 + 1 + 2 + 4, 2 + 3 + 3 + 5)
    assert result.figures["won"] is True


def test_solo_target_equal_to_the_score_is_a_loss() -> None:
    state = table(players=1, windows=(FULL,), objectives=(1, 2), privates=((0, 1),))
    score = 24 + 25 + 13
    state.track = [[] for _ in range(10)]
    state.track[0] = [parse_die("B6")] * (score // 6) + [parse_die("B2")]
    assert state.target() == score
    assert finished(state).figures["won"] is False
