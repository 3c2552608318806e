"""R7: the basic and the advanced solo game."""

from __future__ import annotations

import random

from rules_kit import load_record, of_type, pile, reveal, types, unflipped

from sagani_net.analysis import decisions
from sagani_net.bots import make_policy
from sagani_net.cli.console.app import replay_frames
from sagani_net.game import without_seat
from sagani_net.games.sagani.rules import SAGANI, Action, State
from sagani_net.games.sagani.tiles import TILES

#: Five three-point tiles to put on top of an advanced pile: they go aside at once.
ASIDE = (3, 10, 12, 15, 18)


def play_out(state: State, seed: int) -> list[dict]:
    """Random legal actions to the end; the events."""
    rng = random.Random(seed)
    events = []
    while not state.is_over():
        events += state.apply(state.random_action(rng))
    return events


# -- basic ------------------------------------------------------------------------------------


def test_basic_solo_has_no_offer_no_intermezzo_and_no_draw():
    state = State.new(1, "solo", seed=3)
    events = []
    while not state.is_over():
        if state.phase == "choose":
            assert state.legal_actions() == [Action("reveal")]
        events += state.apply(state.random_action(random.Random(len(events))))
    kinds = set(types(events))
    assert not kinds & {"tile_stored", "offer_refilled", "intermezzo_started", "storage_cleared"}


def test_basic_solo_reveals_the_top_tile_each_turn():
    order = pile(55, 2, 38)
    state = State.new(1, "solo", tiles=order)
    revealed = []
    for cell in ((0, 0), (1, 0), (2, 0)):
        revealed.append(reveal(state))
        state.apply(Action.place(cell, 180))
    assert revealed == [55, 2, 38]


def test_basic_solo_ends_when_the_score_reaches_75_with_the_tile_count():
    record = load_record("solo_greedy.json")
    state = State.new(1, "solo", record["seed"], record["tiles"])
    for data in record["actions"][:-1]:
        state.apply(Action.from_dict(without_seat(data)))
        assert state.scores()[0] < 75 and not state.is_over()
    events = state.apply(Action.from_dict(without_seat(record["actions"][-1])))
    assert state.seats[0].score >= 75
    placed = state.seats[0].placed
    assert placed == len(record["actions"]) // 2 < 72
    assert events[-1] == {
        "type": "game_over", "scores": [state.seats[0].score], "ranking": [0],
        "tiles_used": placed, "won": True,
    }


def greedy_solo(seed: int, old_rule: bool = False) -> tuple[State, list[dict]]:
    """A basic solo game of the greedy bot; ``old_rule``: as the engine played before R7 was
    read "reaches 75" (the game ended only on 75 at a turn's end)."""
    policy, rng = make_policy("greedy"), random.Random(seed)
    state = State.new(1, "solo", seed=seed)
    state.old_solo_end = old_rule
    events: list[dict] = []
    while not state.is_over():
        events += state.apply(policy.choose(state, rng))
    return state, events


def test_basic_solo_is_won_the_moment_the_score_reaches_75_even_if_cacophony_follows():
    """R7 "the game ends when the score reaches 75" (the rulebook: "as soon as you have at
    least 75 points"): in seed 132's greedy game a flip reaches 75 and the placement's missing
    discs then cost 2 points: the game ends with that turn, won, at 73."""
    state, events = greedy_solo(132)
    reached = next(n for n, e in enumerate(events)
                   if e["type"] == "tile_flipped" and e["score"] >= 75)
    after = events[reached:]
    assert of_type(after, "cacophony_taken")[0]["score"] == 73
    assert of_type(after, "tile_placed") == []  # the same turn
    assert after[-1] == {"type": "game_over", "scores": [73], "ranking": [0],
                         "tiles_used": 29, "won": True}
    assert "end_triggered" not in types(events)  # a multi-player event; solo just ends


def test_a_record_of_the_old_rule_still_replays_to_its_own_end():
    """Before that reading, seed 132's game went on past 75-then-73 and ended later: its
    record replays by the rule it was played by, to the result it holds."""
    old, _ = greedy_solo(132, old_rule=True)
    record = old.to_record()
    assert record["result"]["tiles_used"] > 29
    replayed = State.from_record(record)
    assert replayed.result() == old.result() and replayed.version == old.version
    # Every program that steps through a record does so by that rule too.
    frames = replay_frames(record)
    assert len(frames) == old.version + 1 and frames[-1][0]["result"] == record["result"]
    assert len(decisions(record)) == old.version
    assert SAGANI.resume({"players": 1, "mode": "solo"}, 132, record["actions"]).result() == (
        old.result())


def test_basic_solo_game_is_lost_when_the_tiles_run_out():
    state = State.new(1, "solo", seed=11)
    events = play_out(state, 11)
    over = of_type(events, "game_over")[0]
    assert over["tiles_used"] == 72
    assert over["won"] is False
    assert over["scores"][0] < 75


def test_basic_solo_cacophony_costs_at_once():
    # test_rules_discs plays its cacophony boards in basic solo; here, a whole game agrees.
    state = State.new(1, "solo", seed=11)
    events = play_out(state, 11)
    taken = of_type(events, "cacophony_taken")
    assert taken
    flipped = sum(e["points"] for e in of_type(events, "tile_flipped"))
    assert state.seats[0].score == flipped - 2 * sum(e["count"] for e in taken)


# -- advanced ---------------------------------------------------------------------------------


def test_advanced_solo_sets_aside_the_first_five_one_or_three_point_tiles():
    # 1 (1 point) aside at once; 4 (6) revealed; then 3 and 19 aside; 5 (6) revealed; then 20
    # and 37 aside: five. 38 (1 point) is revealed like any other tile.
    state = State.new(1, "solo-advanced", tiles=pile(1, 4, 3, 19, 5, 20, 37, 38))
    assert state.set_aside == [1]
    assert reveal(state) == 4
    events = state.apply(Action.place((0, 0), 0))
    assert of_type(events, "tile_set_aside") == [
        {"type": "tile_set_aside", "element": "fire", "value": 3},
        {"type": "tile_set_aside", "element": "earth", "value": 1},
    ]  # the backs only: the faces stay hidden
    assert state.set_aside == [1, 3, 19]
    assert reveal(state) == 5
    state.apply(Action.place((1, 0), 0))
    assert state.set_aside == [1, 3, 19, 20, 37]
    assert reveal(state) == 38


def test_advanced_solo_set_aside_tiles_come_last_in_the_order_drawn():
    state = State.new(1, "solo-advanced", tiles=pile(1, 4, 3, 19, 5, 20, 37, 38))
    events = play_out(state, 5)
    taken = [e["tile"] for e in of_type(events, "tile_taken")]
    assert len(taken) == 72 == len(set(taken))
    assert taken[-5:] == [1, 3, 19, 20, 37]


def test_advanced_solo_plays_all_72_tiles():
    state = State.new(1, "solo-advanced", seed=8)
    events = play_out(state, 8)
    assert len(of_type(events, "tile_placed")) == 72
    assert types(events)[-1] == "game_over"
    assert state.pile_size() == 0


def test_advanced_solo_cacophony_is_deducted_only_at_the_end():
    state = State.new(1, "solo-advanced", seed=8)
    events = play_out(state, 8)
    cacophony = sum(e["count"] for e in of_type(events, "cacophony_taken"))
    assert cacophony > 0
    flipped = sum(e["points"] for e in of_type(events, "tile_flipped"))
    assert state.seats[0].score == flipped  # the track never moved down


def test_advanced_solo_final_score():
    # Final = track - values of unflipped tiles + bonus - 2 x cacophony discs taken.
    state = State.new(1, "solo-advanced", seed=8)
    play_out(state, 8)
    view = state.view()["seats"][0]
    face_up = sum(TILES[t].value for t in unflipped(state).values())
    assert face_up > 0
    expected = view["score"] - face_up + view["bonus"] - 2 * view["cacophony"]
    assert state.scores() == [expected]
    assert state.outcome is not None and state.outcome.scores == (expected,)
    assert state.to_record()["result"]["scores"] == [expected]


def bonus_board(fifth: tuple[int, tuple[int, int], int]) -> tuple[State, list[list[dict]], list]:
    """Advanced solo, five placements; the events of each turn and the unflipped count after.

     0  .   F2  E19     F2 and E19 wait (N arrows, nothing above them); E20, F1 and the
    -1  F1  E20         fifth tile complete at once.
    -2  ?
       -1   0   1
    """
    tiles = (2, 19, 20, 1, fifth[0])
    state = State.new(1, "solo-advanced", tiles=pile(*ASIDE, *tiles))
    plan = [(2, (0, 0), 0), (19, (1, 0), 0), (20, (0, -1), 0), (1, (-1, -1), 0), fifth]
    turns, face_up = [], []
    for tile, cell, rotation in plan:
        assert reveal(state) == tile
        turns.append(state.apply(Action.place(cell, rotation)))
        face_up.append(len(unflipped(state)))
    return state, turns, face_up


def test_advanced_solo_no_bonus_before_the_fifth_tile():
    state, turns, face_up = bonus_board((35, (-1, -2), 0))
    assert face_up[:4] == [1, 2, 2, 2]
    assert not any("bonus" in types(events) for events in turns[:4])


def test_advanced_solo_bonus_from_the_fifth_tile_with_two_or_fewer_unflipped():
    # E35 (N:fire NE:earth) at (-1, -2) sees F1 above and E20 up-right: complete at once.
    state, turns, face_up = bonus_board((35, (-1, -2), 0))
    assert face_up[4] == 2
    assert of_type(turns[4], "bonus") == [{"type": "bonus", "seat": 0, "points": 5, "total": 5}]
    assert state.view()["seats"][0]["bonus"] == 5


def test_advanced_solo_no_bonus_with_three_unflipped():
    # W38 at (2, 0) waits for water to its N: three tiles face up.
    state, turns, face_up = bonus_board((38, (2, 0), 0))
    assert face_up[4] == 3
    assert "bonus" not in types(turns[4])
    assert state.view()["seats"][0]["bonus"] == 0
