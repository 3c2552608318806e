"""The seam's promises, checked for every registered game and every table config it allows.

A new game in :data:`sagani_net.games.PACKAGES` gets these checks for free: the configs come
from its ``options`` (every combination of their choices that its ``parse_config`` accepts), and
everything else goes through :mod:`sagani_net.game` only. The checks run on a few random games
per config, at a handful of positions each, to stay quick. The test game with private data
(``toy_game/``, registered only while its cases run) goes through them too, so that the
private-data promises are checked even while no registered game has any. (The network part of
conformance is ``test_conformance_net.py``.)
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass
from typing import Any

import msgpack
import pytest
from conftest import TOY, TOY_PACKAGE

from sagani_net.bots.mcts import frozen
from sagani_net.game import Data, GameState, RuleError
from sagani_net.games import PACKAGES, configs, game_names, get_game

#: Random games per config, and the positions of each that the deeper checks look at.
GAMES_PER_CONFIG = 2
POSITIONS_PER_GAME = 6
#: No game of ours comes near this many decisions; a playout past it does not end.
MAX_DECISIONS = 20_000


def toy_configs() -> list[Data]:
    PACKAGES[TOY] = TOY_PACKAGE
    try:
        return configs(TOY)
    finally:
        del PACKAGES[TOY]


CASES = [(name, config) for name in game_names() for config in configs(name)] + [
    (TOY, config) for config in toy_configs()
]
IDS = [f"{name}-" + "-".join(str(v) for v in config.values()) for name, config in CASES]
cases = pytest.mark.parametrize(("name", "config"), CASES, ids=IDS)


@pytest.fixture(autouse=True)
def registered(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The test game in the registry while a case of it runs."""
    params = getattr(request.node, "callspec", None)
    if params is not None and params.params.get("name") == TOY:
        monkeypatch.setitem(PACKAGES, TOY, TOY_PACKAGE)


def test_every_game_offers_at_least_one_config() -> None:
    for name in game_names():
        assert configs(name), f"{name} accepts none of its own option combinations"


@dataclass(frozen=True)
class Played:
    """A random game to its end: the actions' wire data, in order, and its seed."""

    seed: int
    actions: tuple[Data, ...]


def wire(value: Any) -> Any:
    """``value`` after a trip through msgpack as the host sends it; raises for non-plain data."""
    return msgpack.unpackb(msgpack.packb(value, use_bin_type=True), raw=False,
                           strict_map_key=True)


@functools.cache
def played(name: str, config_key: tuple, seed: int) -> Played:
    game = get_game(name)
    state = game.new_state(dict(config_key), seed)
    rng = random.Random(seed)
    actions = []
    for _ in range(MAX_DECISIONS):
        if state.is_over():
            break
        legal = state.legal_actions()
        assert legal, f"no legal action at version {state.version}, yet the game is not over"
        action = legal[int(rng.random() * len(legal))]
        actions.append(state.action_data(action))
        events = state.apply(action)
        for event in events:
            assert isinstance(event, dict) and isinstance(event.get("type"), str)
    return Played(seed, tuple(actions))


def games(name: str, config: Data) -> list[Played]:
    return [played(name, frozen(config), seed) for seed in range(1, GAMES_PER_CONFIG + 1)]


def replayed(name: str, config: Data, game_played: Played, stop: int | None = None) -> GameState:
    """``game_played`` freshly replayed: its state after its first ``stop`` actions (None: all
    of them, to the end)."""
    state = get_game(name).new_state(config, game_played.seed)
    for data in game_played.actions[:stop]:
        state.apply(state.parse_action(data))
    return state


def positions(name: str, config: Data) -> list[GameState]:
    """States part-way through the random games (the start included), each freshly replayed."""
    found = []
    for game_played in games(name, config):
        n = len(game_played.actions)
        stops = sorted({0, *(n * k // POSITIONS_PER_GAME for k in range(1, POSITIONS_PER_GAME))})
        found += [replayed(name, config, game_played, stop) for stop in stops]
    return found


def legal_data(state: GameState) -> list[Data]:
    return [state.action_data(a) for a in state.legal_actions()]


def snapshot(state: GameState, seats: int) -> tuple:
    """All that the seats and a spectator can learn of a state, and its version."""
    return (state.version, state.current_seat, state.view(None),
            [(state.view(s), state.private(s)) for s in range(seats)], state.scores())


# -- whole games --------------------------------------------------------------------------------


@cases
def test_random_playouts_finish_with_a_result(name: str, config: Data) -> None:
    seats = get_game(name).seats(config)
    for game_played in games(name, config):
        state = replayed(name, config, game_played)
        assert state.is_over() and state.current_seat is None
        assert state.legal_actions() == []
        result = state.result()
        assert result is not None
        assert len(result.scores) == seats and sorted(result.ranking) == list(range(seats))
        assert wire(result.to_data()) == result.to_data()


@cases
def test_every_change_of_private_data_is_announced(name: str, config: Data) -> None:
    # The host tells only the seats named by private_seats to fetch their private data again; a
    # seat left out would play on with a stale hand.
    game = get_game(name)
    seats = game.seats(config)
    for game_played in games(name, config):
        state = game.new_state(config, game_played.seed)
        for data in game_played.actions:
            before = [wire(state.private(s)) for s in range(seats)]
            events = state.apply(state.parse_action(data))
            changed = {s for s in range(seats) if wire(state.private(s)) != before[s]}
            missed = changed - set(state.private_seats(events))
            assert not missed, f"{data} at version {state.version - 1}: {sorted(missed)} not told"


@cases
def test_a_record_replays_to_the_same_game(name: str, config: Data) -> None:
    game = get_game(name)
    for game_played in games(name, config):
        state = replayed(name, config, game_played)
        record = wire(state.to_record())  # as stored and sent: plain data
        assert record["game"] == name and record["config"] == config
        assert [{k: v for k, v in a.items() if k != "seat"} for a in record["actions"]] == [
            wire(a) for a in game_played.actions
        ]
        again = game.from_record(record)
        assert again.result() == state.result()
        assert again.view(None) == state.view(None)
        assert again.to_record() == state.to_record()


@cases
def test_a_record_with_a_bad_header_is_bad_record(name: str, config: Data) -> None:
    """Every game checks a record's header the same way (``game.check_record``): another
    game's name, no actions, actions that are no list, a record that is no map."""
    game = get_game(name)
    record = wire(game.new_state(config, 3).to_record())
    for bad in ({**record, "game": "chess"}, {k: v for k, v in record.items() if k != "actions"},
                {**record, "actions": {}}, [record],
                # RECORD.md's seed: an integer 0..2^63-1 or null. A Sagani record, whose
                # replay reads its tiles, took any seed at all: "x", -5, 2^70.
                {**record, "seed": "x"}, {**record, "seed": -5}, {**record, "seed": 2**70},
                {**record, "seed": 1.5}, {**record, "seed": True}):
        with pytest.raises(RuleError) as refused:
            game.from_record(bad)  # type: ignore[arg-type]
        assert refused.value.code == "bad_record", bad
    for seed in (0, 2**63 - 1):
        assert game.from_record({**record, "seed": seed}).version == 0



@cases
def test_a_record_whose_result_its_moves_do_not_make_is_bad_record(name: str,
                                                                    config: Data) -> None:
    """RECORD.md: a recorded result that differs from the replayed one is refused, and so is
    one whose moves stop before the end it names (it replayed, quietly, to a game not over)."""
    game = get_game(name)
    for game_played in games(name, config):
        record = wire(replayed(name, config, game_played).to_record())
        assert "result" in record
        scores = record["result"]["scores"]
        for bad, says in (
            ({**record, "actions": record["actions"][:-1]}, "do not end the game"),
            ({**record, "result": {**record["result"], "scores": [s + 1 for s in scores]}},
             "differs from the replayed one"),
        ):
            with pytest.raises(RuleError) as refused:
                game.from_record(bad)
            assert refused.value.code == "bad_record" and says in refused.value.message

@cases
def test_a_record_short_of_an_outcome_its_moves_met_is_bad_record(name: str,
                                                                 config: Data) -> None:
    """RECORD.md: a replay never rolls. A finished record with its last roll (Sagrada) or
    reshuffle (Sugi) cut off replayed, quietly, with the missing ones rolled from its seed: a
    record no program in another language could replay passed for a whole one."""
    game = get_game(name)
    for game_played in games(name, config):
        record = wire(replayed(name, config, game_played).to_record())
        for field in ("rolls", "reshuffles"):
            if record.get(field):
                for cut in ({**record, field: record[field][:-1]},
                            {k: v for k, v in {**record, field: record[field][:-1]}.items()
                             if k != "result"}):
                    with pytest.raises(RuleError) as refused:
                        game.from_record(cut)
                    assert refused.value.code == "bad_record"
                    assert "its play made" in refused.value.message, refused.value.message


@cases
def test_a_record_replays_from_its_own_outcomes_not_its_seed(name: str, config: Data) -> None:
    """Every random outcome is in the record (RECORD.md): with its seed changed, it replays to
    the same game (the seed is only where the outcomes came from)."""
    game = get_game(name)

    def seedless(data: Data) -> Data:
        return {k: v for k, v in data.items() if k != "seed"}

    for game_played in games(name, config):
        state = replayed(name, config, game_played)
        record = wire(state.to_record())
        again = game.from_record({**record, "seed": record["seed"] + 1})
        assert again.result() == state.result()
        assert seedless(again.view(None)) == seedless(state.view(None))
        assert seedless(again.to_record()) == seedless(record)


# -- positions ----------------------------------------------------------------------------------


@cases
def test_a_clone_is_independent(name: str, config: Data) -> None:
    seats = get_game(name).seats(config)
    for state in positions(name, config):
        if state.is_over():
            continue
        before = snapshot(state, seats)
        twin = state.clone()
        action = state.legal_actions()[-1]
        twin.apply(action)
        assert snapshot(state, seats) == before  # the original did not move
        state.apply(action)
        assert snapshot(state, seats) == snapshot(twin, seats)  # both went the same way


@cases
def test_push_plays_a_legal_action_as_apply_does(name: str, config: Data) -> None:
    # The greedy bot and the searches play their copies with push (unchecked, no events): a
    # state it left otherwise than apply would make them judge a game that is not the one played.
    seats = get_game(name).seats(config)
    for state in positions(name, config):
        legal = state.legal_actions()
        for action in legal[:: max(1, len(legal) // 8)]:
            checked, pushed = state.clone(), state.clone()
            checked.apply(action)
            pushed.push(action)
            assert snapshot(pushed, seats) == snapshot(checked, seats), action
            assert pushed.to_record() == checked.to_record()


@cases
def test_an_illegal_action_raises_and_changes_nothing(name: str, config: Data) -> None:
    seats = get_game(name).seats(config)
    every_action = {frozen(d): d for p in games(name, config) for d in p.actions}
    tried = 0
    for state in positions(name, config):
        legal = {frozen(d) for d in legal_data(state)}
        before = snapshot(state, seats)
        illegal = [d for key, d in every_action.items() if key not in legal][:5]
        for data in illegal:
            with pytest.raises(RuleError):
                state.apply(state.parse_action(data))
            assert snapshot(state, seats) == before
            tried += 1
        with pytest.raises(RuleError):
            state.parse_action({"type": "no such action"})
    assert tried, "no position had an action of the game that was illegal there"


@cases
def test_what_is_no_action_of_the_game_is_bad_action_and_changes_nothing(
    name: str, config: Data
) -> None:
    # What a policy of one's own may answer by mistake: the wire form, the text form, nothing.
    # Each engine's checks read its action's fields: Sagani's and Sagrada's failed with an
    # AttributeError, a traceback that named no answer.
    seats = get_game(name).seats(config)
    for state in positions(name, config)[:3]:
        before = snapshot(state, seats)
        action = state.legal_actions()[0]
        for answer in (state.action_data(action), str(action), None):
            for play in (state.apply, getattr(state, "play", state.apply)):
                with pytest.raises(RuleError) as refused:
                    play(answer)
                assert refused.value.code == "bad_action" and "legal_actions()" in str(
                    refused.value), answer
            assert snapshot(state, seats) == before


@cases
def test_an_action_with_a_field_too_many_is_bad_action(name: str, config: Data) -> None:
    # A seat field above all (issue 18, point 13): the act request names the seat, and an
    # action that names one too must not be played, for whichever seat.
    for state in positions(name, config):
        before = snapshot(state, get_game(name).seats(config))
        for data in legal_data(state)[:3]:
            for extra in ({"seat": state.current_seat}, {"seat": 0}, {"colour": "red"}):
                with pytest.raises(RuleError) as refused:
                    state.parse_action({**data, **extra})
                assert refused.value.code == "bad_action", (data, extra)
        assert snapshot(state, get_game(name).seats(config)) == before


@cases
def test_actions_round_trip_through_their_wire_and_text_forms(name: str, config: Data) -> None:
    game = get_game(name)
    for state in positions(name, config):
        for data in legal_data(state):
            assert wire(data) == data
            assert state.action_data(state.parse_action(wire(data))) == data
            text = game.action_text(data)
            assert isinstance(text, str) and text
            assert game.parse_text(text) == data
    with pytest.raises(RuleError):
        game.parse_text("")


@cases
def test_the_default_action_is_legal(name: str, config: Data) -> None:
    for state in positions(name, config):
        if state.is_over():
            continue
        default = state.action_data(state.default_action())
        assert default in legal_data(state)
        assert state.action_data(state.clone().default_action()) == default  # deterministic
        state.clone().apply(state.default_action())


@cases
def test_views_private_data_and_events_are_plain_data(name: str, config: Data) -> None:
    game = get_game(name)
    seats = game.seats(config)
    for state in positions(name, config):
        assert wire(state.view(None)) == state.view(None)
        for seat in range(seats):
            assert wire(state.view(seat)) == state.view(seat)
            assert wire(state.private(seat)) == state.private(seat)
        if not state.is_over():
            events = state.clone().apply(state.legal_actions()[0])
            assert wire(events) == events
            assert set(state.private_seats(events)) <= set(range(seats))


@cases
def test_determinized_samples_agree_with_what_the_seat_knows(name: str, config: Data) -> None:
    game = get_game(name)
    seats = game.seats(config)
    rng = random.Random(7)
    for state in positions(name, config):
        if state.is_over():
            continue
        for seat in (None, *range(seats)):
            view = state.view(seat)
            private = None if seat is None else state.private(seat)
            # As a bot gets them: through the wire.
            sample = game.determinize(wire(view), wire(private), seat, rng)
            assert sample.view(seat) == view
            if seat is not None:
                assert sample.private(seat) == private
            assert sample.version == state.version
            assert sample.current_seat == state.current_seat
            if seat == state.current_seat:
                assert legal_data(sample) == legal_data(state)
            # A sample is a whole state: it can be played on to the end, every action checked
            # by apply (drawn by the game's random mover, tests/games/test_random_mover.py:
            # listing every legal action at each of a Sugi game's decisions took most of
            # this test's time).
            playout = sample.clone()
            for _ in range(MAX_DECISIONS):
                if playout.is_over():
                    break
                playout.apply(playout.random_action(rng))
            assert playout.is_over()


@cases
def test_static_data_is_plain_data(name: str, config: Data) -> None:
    static = get_game(name).static_data(config)
    assert isinstance(static, dict) and static
    assert wire(static) == static


@pytest.mark.parametrize(("name", "drop"), [
    ("sagrada", {"rolls": ...}), ("sagrada", {"setup": None}),
    ("sugi", {"reshuffles": ...}), ("sugi", {"deal": ...}), ("sugi", {"deal": None}),
])
def test_a_record_of_no_shape_records_had_is_bad_record(name: str, drop: dict[str, Any]) -> None:
    """The shapes are Sagrada's setup and rolls, rolls alone, neither; Sugi's deal and
    reshuffles, or neither. A record with one part left out (...) or null replayed, the part
    dealt or rolled from its seed, quietly."""
    game = get_game(name)
    record = wire(replayed(name, configs(name)[0], games(name, configs(name)[0])[0])
                  .to_record())
    for field, value in drop.items():
        record = {k: v for k, v in record.items() if k != field}
        if value is not ...:
            record[field] = value
    with pytest.raises(RuleError) as refused:
        game.from_record(record)
    assert refused.value.code == "bad_record" and "a record" in refused.value.message
