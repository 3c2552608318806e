"""Game records (issue 2 point 4, protocol/RECORD.md): the format, the round trip, refusals."""

from __future__ import annotations

import copy
import json
import random

import pytest
from rules_kit import pile

from sagani_net.games.sagani.rules import RuleError, State, replay, shuffled_tiles
from sagani_net.games.sagani.tiles import TILE_IDS

FIELDS_BY_TYPE = {
    "take": {"seat", "type", "index"},
    "draw": {"seat", "type"},
    "pick": {"seat", "type", "index"},
    "pass": {"seat", "type"},
    "reveal": {"seat", "type"},
    "place": {"seat", "type", "cell", "rotation"},
}


def finished(players: int = 3, mode: str = "multi", seed: int = 17) -> State:
    state = State.new(players, mode, seed)
    rng = random.Random(seed)
    while not state.is_over():
        state.apply(state.random_action(rng))
    return state


def with_intermezzo() -> dict:
    """A finished 2-player record with an intermezzo in it (picks and passes)."""
    for seed in range(100):
        record = finished(2, seed=seed).to_record()
        kinds = {a["type"] for a in record["actions"]}
        if {"pick", "pass", "draw"} <= kinds:
            return record
    raise AssertionError("no random 2-player game of the first 100 seeds has an intermezzo")


# -- format -----------------------------------------------------------------------------------


def test_record_has_the_fields_of_the_format():
    record = finished().to_record()
    assert record["game"] == "sagani"
    assert (record["players"], record["mode"], record["seed"]) == (3, "multi", 17)
    assert record["config"] == {"players": 3, "mode": "multi"}
    assert set(record) == {"game", "config", "players", "mode", "seed", "tiles", "actions",
                           "result"}
    assert set(record["result"]) == {"scores", "ranking"}


def test_record_tiles_are_the_shuffled_pile_top_first_before_any_deal():
    state = State.new(3, seed=17)
    first_offer = state.offer[:]
    record = finished().to_record()
    assert record["tiles"] == shuffled_tiles(17)
    assert sorted(record["tiles"]) == list(TILE_IDS)
    assert record["tiles"][:5] == first_offer


def test_advanced_solo_record_tiles_are_the_pile_before_tiles_are_set_aside():
    tiles = pile(1, 3, 4)  # 1 and 3 go aside at once; 4 (6 points) is the first to reveal
    state = State.new(1, "solo-advanced", tiles=tiles)
    assert state.set_aside == [1, 3]
    assert state.to_record()["tiles"] == tiles


def test_record_actions_carry_seat_type_and_their_fields_only():
    record = with_intermezzo()
    for action in record["actions"]:
        assert set(action) == FIELDS_BY_TYPE[action["type"]]
        if action["type"] == "place":
            assert isinstance(action["cell"], list) and len(action["cell"]) == 2
            assert action["rotation"] in (0, 90, 180, 270)
        if "index" in action:
            assert isinstance(action["index"], int)


def test_record_actions_are_in_order_with_the_deciding_seat():
    state = State.new(2, seed=3)
    rng = random.Random(3)
    seats = []
    for _ in range(30):
        seats.append(state.current_seat)
        state.apply(state.random_action(rng))
    record = state.to_record()
    assert [a["seat"] for a in record["actions"]] == seats
    assert [a["type"] for a in record["actions"][:2]] in (["take", "place"], ["draw", "place"])


def test_solo_record_uses_reveal_and_reports_tiles_used():
    record = finished(1, "solo", 4).to_record()
    assert {a["type"] for a in record["actions"]} == {"reveal", "place"}
    assert set(record["result"]) == {"scores", "ranking", "tiles_used", "won"}


def test_advanced_solo_record_result_is_the_final_score():
    state = finished(1, "solo-advanced", 4)
    p = state.seats[0]
    final = p.score - p.unflipped_value() + p.bonus - 2 * p.cacophony
    assert state.to_record()["result"] == {"scores": [final], "ranking": [0]}


def test_unfinished_record_has_no_result_and_replays_to_the_same_position():
    state = State.new(4, seed=8)
    rng = random.Random(8)
    for _ in range(33):
        state.apply(state.random_action(rng))
    record = state.to_record()
    assert "result" not in record
    assert replay(record)[0].view() == state.view()


# -- round trip -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "mode"), [(2, "multi"), (4, "multi"), (1, "solo"), (1, "solo-advanced")]
)
def test_record_round_trips_through_json(players, mode):
    state = State.new(players, mode, seed=23)
    rng = random.Random(23)
    events = []
    while not state.is_over():
        events += state.apply(state.random_action(rng))
    record = state.to_record()
    text = json.dumps(record)
    again, replayed = replay(json.loads(text))
    assert replayed == events
    assert again.view() == state.view()
    assert json.dumps(again.to_record()) == text


def test_record_of_a_hand_laid_pile_has_no_seed_and_replays():
    tiles = list(reversed(TILE_IDS))
    state = State.new(2, tiles=tiles)
    rng = random.Random(1)
    while not state.is_over():
        state.apply(state.random_action(rng))
    record = state.to_record()
    assert record["seed"] is None and record["tiles"] == tiles
    assert replay(json.loads(json.dumps(record)))[0].view() == state.view()


# -- refusals -------------------------------------------------------------------------------


def refused(record: dict) -> RuleError:
    with pytest.raises(RuleError) as error:
        replay(record)
    return error.value


def alter(record: dict, n: int, **fields) -> dict:
    record = copy.deepcopy(record)
    record["actions"][n].update(fields)
    return record


def test_altered_placement_fails_loudly_at_that_action():
    record = with_intermezzo()
    n = next(i for i, a in enumerate(record["actions"]) if a["type"] == "place" and i > 20)
    error = refused(alter(record, n, cell=[40, 40]))
    assert error.code == "not_adjacent"
    assert f"action {n} " in error.message


def test_altered_take_index_fails_loudly_at_that_action():
    record = with_intermezzo()
    n = next(i for i, a in enumerate(record["actions"]) if a["type"] == "take" and i > 10)
    error = refused(alter(record, n, index=7))
    assert error.code == "bad_index"
    assert f"action {n} " in error.message


def test_draw_slipped_in_where_not_allowed_fails_at_that_action():
    record = with_intermezzo()
    n = next(i for i, a in enumerate(record["actions"]) if a["type"] == "take")
    record = copy.deepcopy(record)
    record["actions"][n] = {"seat": record["actions"][n]["seat"], "type": "draw"}
    error = refused(record)
    assert error.code == "not_allowed"
    assert f"action {n} " in error.message


def test_action_by_the_wrong_seat_fails_at_that_action():
    record = with_intermezzo()
    error = refused(alter(record, 4, seat=1 - record["actions"][4]["seat"]))
    assert error.code == "wrong_seat"
    assert "action 4 " in error.message


def test_action_with_a_bad_rotation_fails_at_that_action():
    record = with_intermezzo()
    n = next(i for i, a in enumerate(record["actions"]) if a["type"] == "place")
    error = refused(alter(record, n, rotation=45))
    assert error.code == "bad_action"
    assert f"action {n} " in error.message


def test_altered_result_is_refused():
    record = with_intermezzo()
    record["result"]["scores"][0] += 1
    assert refused(record).code == "bad_record"


def test_the_records_tiles_are_dealt_not_the_seeds_shuffle():
    record = with_intermezzo()
    tiles = record["tiles"]
    tiles[0], tiles[1] = tiles[1], tiles[0]
    state, _events = replay({**record, "actions": [], "result": None})
    assert state.view()["offer"] == tiles[:5]
    assert state.to_record()["tiles"] == tiles and state.seed == record["seed"]


def test_a_record_whose_seed_was_changed_replays_to_the_same_game():
    record = with_intermezzo()
    state, events = replay({**record, "seed": record["seed"] + 1})
    again, events_again = replay(record)
    assert events == events_again and state.to_record()["result"] == record["result"]


@pytest.mark.parametrize("field", ["game", "config", "tiles", "actions"])
def test_record_without_a_required_field_is_refused(field):
    record = with_intermezzo()
    del record[field]
    if field == "config":  # without it, a record is read in the first format: no players
        del record["players"]
    with pytest.raises(RuleError):
        replay(record)


@pytest.mark.parametrize("field", ["players", "mode"])
def test_a_record_of_the_first_format_needs_players_and_mode(field):
    record = with_intermezzo()
    del record["config"], record[field]
    assert refused(record).code == "bad_record"


def test_a_record_of_the_first_format_still_replays():
    record = with_intermezzo()
    del record["config"]
    state, _events = replay(record)
    assert state.to_record()["result"] == record["result"]


def test_a_record_with_a_config_the_rules_refuse_is_refused():
    record = with_intermezzo()
    record["config"] = {"players": 9}
    assert refused(record).code == "bad_record"


def test_altered_pick_index_fails_loudly_at_that_action():
    record = with_intermezzo()
    n = next(i for i, a in enumerate(record["actions"]) if a["type"] == "pick")
    error = refused(alter(record, n, index=4))
    assert error.code == "bad_index"
    assert f"action {n} " in error.message


def test_action_after_the_end_fails_at_that_action():
    record = with_intermezzo()
    n = len(record["actions"])
    record["actions"].append({"type": "pass"})  # no seat: nobody is to move
    error = refused(record)
    assert error.code == "game_over"
    assert f"action {n} " in error.message


@pytest.mark.parametrize("tile", ["x", 1.0, True])
def test_a_record_whose_tiles_are_not_all_tile_ids_is_refused_as_such(tile):
    """A record's pile with a "x" (or 1.0, or true, for tile 1) in it was read on: sagani replay
    said "a damaged record (TypeError("'<' not supported ..."))" or "(TypeError('list indices
    must be integers ...'))", and true stood for tile 1."""
    record = with_intermezzo()
    record["tiles"] = [tile if t == 1 else t for t in record["tiles"]]
    error = refused(record)
    assert (error.code, error.message) == ("bad_record", "tiles must be the 72 tile ids, each once")
