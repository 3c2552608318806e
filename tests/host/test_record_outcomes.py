"""Records hold every random outcome (issue 19, point 3): Sagrada's setup and rolls, Sugi's deal
and reshuffles are written as they happen, equal what the seats were shown, and are what a
replay plays (its seed changed, a record replays alike; an altered outcome is followed, an
impossible one refused); records of the older shape, without them, still replay from their
seed; and none of it leaves the host before the game is over."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest
from test_host_records import play_out
from test_net_support import TESTS, Raw, running_host

from sagani_net.cli.play_cmd import replay_frames
from sagani_net.game import RuleError
from sagani_net.games.sagrada.components import COLOURS
from sagani_net.games.sagrada.rules import SAGRADA
from sagani_net.games.sagrada.rules import State as SagradaState
from sagani_net.games.sagrada.rules import replay as sagrada_replay
from sagani_net.games.sugi.rules import State as SugiState
from sagani_net.games.sugi.rules import replay as sugi_replay

OLD_SAGRADA = TESTS / "records" / "sagrada-before-setup.json"
#: Written by the engine before issue 19: Grozing Pliers (action 29) turned a die into one that
#: fit nowhere, and it went back to the pool.
SPOILED_SAGRADA = (TESTS / "records" /
                   "sagrada-tool-left-a-die-nowhere.json")
#: The tools whose use rolls or draws: Flux Brush, Glazing Hammer, Flux Remover.
CHANCE_TOOLS = [6, 7, 11]


def wire(record: dict[str, Any]) -> dict[str, Any]:
    """A record as stored and served: plain JSON."""
    return json.loads(json.dumps(record))


def refusal(replay: Any, record: dict[str, Any]) -> RuleError:
    with pytest.raises(RuleError) as info:
        replay(record)
    return info.value


# -- Sagrada ---------------------------------------------------------------------------------


def sagrada_game(seed: int, tools: list[int] | None = CHANCE_TOOLS
                 ) -> tuple[SagradaState, list[dict[str, Any]]]:
    """A random whole game of two with ``tools`` in play (None: the seed's), and its events."""
    config = SAGRADA.parse_config({"players": 2})
    state = SagradaState.new(config, seed)
    if tools is not None:
        state = SagradaState.new(config, seed, {**wire(state.to_record())["setup"],
                                                "tools": tools})
    rng, events = random.Random(seed), []
    while not state.is_over():
        events.extend(state.apply(state.random_action(rng)))
    return state, events


def chance_game() -> tuple[SagradaState, list[dict[str, Any]]]:
    """A game in which each chance tool was used."""
    for seed in range(40):
        state, events = sagrada_game(seed)
        used = {e["tool"] for e in events if e["type"] == "tool_used"}
        if set(CHANCE_TOOLS) <= used:
            return state, events
    raise AssertionError("no random game of the first 40 seeds used all three chance tools")


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_sagrada_setup_in_the_record_is_what_the_seats_were_dealt(players: int) -> None:
    state = SAGRADA.new_state(SAGRADA.parse_config({"players": players}), seed=8)
    setup = wire(state.to_record())["setup"]
    view = state.view()
    assert setup["tools"] == [t["tool"] for t in view["tools"]]
    assert setup["objectives"] == view["objectives"]
    assert setup["privates"] == [state.private(s)["objectives"] for s in range(players)]
    assert setup["patterns"] == [state.private(s)["patterns"] for s in range(players)]


def test_sagrada_rolls_in_the_record_are_what_the_events_showed() -> None:
    state, events = chance_game()
    shown = []
    for e in events:
        if e["type"] in ("round_started", "pool_rerolled"):
            shown.append(e["pool"])
        elif e["type"] == "die_rerolled":
            shown.append([e["die"]])
        elif e["type"] == "die_redrawn":
            shown.append([e["colour"]])
    assert wire(state.to_record())["rolls"] == shown


def test_a_sagrada_record_with_its_seed_changed_replays_to_the_same_game() -> None:
    state, events = chance_game()
    record = wire(state.to_record())
    again, replayed = sagrada_replay({**record, "seed": record["seed"] + 1})
    assert replayed == events and again.result() == state.result()
    assert again.windows == state.windows and again.track == state.track


def test_a_sagrada_record_is_replayed_as_it_says_not_as_its_seed_would() -> None:
    record = wire(sagrada_game(3)[0].to_record())
    opening = {**record, "actions": record["actions"][:2], "result": None}  # both choose
    colour = COLOURS.index(record["rolls"][0][0][0])
    other = COLOURS[(colour + 1) % len(COLOURS)] + "6"
    opening["rolls"] = [[other, *record["rolls"][0][1:]]]
    opening["setup"]["tools"] = [1, 2, 3]
    state = SAGRADA.from_record(opening)
    view = state.view()
    assert view["pool"] == opening["rolls"][0] and [t["tool"] for t in view["tools"]] == [1, 2, 3]
    assert sum(view["bag"].values()) == 90 - len(view["pool"])


def test_a_sagrada_record_of_the_older_shape_still_replays() -> None:
    stored = json.loads(OLD_SAGRADA.read_text())
    assert "setup" not in stored and "rolls" in stored  # written before the setup was recorded
    assert SAGRADA.from_record(stored).result().to_data() == stored["result"]
    state, events = sagrada_game(6, tools=None)
    record = wire(state.to_record())
    for old in ({k: v for k, v in record.items() if k != "setup"},
                {k: v for k, v in record.items() if k not in ("setup", "rolls")}):
        again, replayed = sagrada_replay(old)
        assert replayed == events and again.to_record() == record


def test_a_sagrada_record_from_before_tools_had_to_leave_a_cell_still_replays() -> None:
    """A game begun when Grozing Pliers could leave the die fitting nowhere replays by the rule
    of its day, in the library and in ``sagani replay``; a record of today says ``tools_fit``,
    and the same use in it is refused."""
    stored = json.loads(SPOILED_SAGRADA.read_text())
    assert "tools_fit" not in stored and "setup" not in stored
    state, events = sagrada_replay(stored)
    assert state.result().to_data() == stored["result"]
    assert any(e["type"] == "die_returned" for e in events)
    assert len(replay_frames(stored)) == len(stored["actions"]) + 1
    assert refusal(sagrada_replay, {**stored, "tools_fit": True}).code == "not_allowed"
    assert wire(sagrada_game(3)[0].to_record())["tools_fit"] is True
    # A new game never plays by the old rule, nor does a record of today.
    assert not SagradaState.new(SAGRADA.parse_config({"players": 2}), 1).spoiling
    assert not sagrada_replay(wire(sagrada_game(3)[0].to_record()))[0].spoiling


@pytest.mark.parametrize(
    ("where", "value", "says"),
    [
        ("setup", {"tools": [1, 2]}, "setup tools"),
        ("setup", {"tools": [1, 1, 2]}, "setup tools"),
        ("setup", {"objectives": [1, 2, 99]}, "setup objectives"),
        ("setup", {"privates": [["R"], ["R"]]}, "setup privates"),
        ("setup", {"privates": [["RY"], ["G"]]}, "setup privates"),
        ("setup", {"patterns": [[0, 1, 2, 3], [3, 4, 5, 6]]}, "setup patterns"),
        ("setup", {"patterns": [[0, 1, 2, 3], [4, 5, 6, 9999]]}, "setup patterns"),
        ("setup", {"luck": 1}, "setup is a map"),
        ("round", ["R3", "G2"], "5 dice"),
        ("round", ["R3", "G2", "B1", "B1", "X1"], "a die is"),
    ],
)
def test_a_sagrada_record_whose_outcomes_cannot_be_is_refused(
    where: str, value: Any, says: str
) -> None:
    record = wire(sagrada_game(3)[0].to_record())
    if where == "setup":
        record["setup"].update(value)
    else:
        record["rolls"][0] = value
    error = refusal(sagrada_replay, record)
    assert error.code == "bad_record" and says in error.message


def test_a_sagrada_record_whose_chance_tool_changed_a_colour_or_emptied_the_bag_is_refused() -> (
    None
):
    state, events = chance_game()
    record = wire(state.to_record())
    rolls = record["rolls"]
    brush = next(i for i, r in enumerate(rolls) if len(r) == 1 and len(r[0]) == 2)
    bad = copy.deepcopy(record)
    die = bad["rolls"][brush][0]
    bad["rolls"][brush] = [COLOURS[(COLOURS.index(die[0]) + 1) % 5] + die[1]]
    assert "keeps its colour" in refusal(sagrada_replay, bad).message
    remover = next(i for i, r in enumerate(rolls) if len(r) == 1 and len(r[0]) == 1)
    bad = copy.deepcopy(record)
    bad["rolls"][remover] = ["X"]
    assert f"rolls[{remover}]" in refusal(sagrada_replay, bad).message
    extra = {**record, "rolls": [*rolls, rolls[-1]]}
    assert "holds" in refusal(sagrada_replay, extra).message


def test_sagrada_round_pools_that_take_more_dice_than_the_bag_has_are_refused() -> None:
    record = wire(sagrada_game(3)[0].to_record())
    # Both choose, then every turn passes; 18 dice of each colour: the fourth round of five
    # reds is more than the bag holds.
    actions = [*record["actions"][:2], *[{"type": "pass"}] * 40]
    record = {**record, "actions": actions, "rolls": [["R1"] * 5] * 10, "result": None}
    error = refusal(sagrada_replay, record)
    assert error.code == "bad_record" and "no red die left" in error.message


# -- Sugi ------------------------------------------------------------------------------------


def sugi_game(players: int, seed: int) -> tuple[SugiState, list[dict[str, Any]], list[int]]:
    """A random whole game, its events and the versions whose action reshuffled."""
    state = SugiState.new(players, seed)
    rng, events, reshuffled = random.Random(seed), [], []
    while not state.is_over():
        made = state.apply(state.random_action(rng))
        if any(e["type"] == "deck_reshuffled" for e in made):
            reshuffled.append(state.version)
        events.extend(made)
    return state, events, reshuffled


@pytest.mark.parametrize("players", [2, 3, 5])
def test_the_sugi_deal_in_the_record_is_what_the_seats_were_dealt(players: int) -> None:
    state = SugiState.new(players, seed=21)
    deal = wire(state.to_record())["deal"]
    assert deal["hands"] == [state.private(s)["hand"] for s in range(players)]
    assert deal["families"] == [state.private(s)["family"] for s in range(players)]
    assert deal["first"] == state.current_seat == state.view()["round_start"]
    assert deal["deck"] == state.deck[::-1] and len(deal["deck"]) == state.view()["deck"]
    # Each face-down tile, once turned up, is the one the deal says, turned as it says (and as
    # the rotate actions on it since turned it).
    tiles = {(c, lane): [tile, rotation] for c, lane, tile, rotation in deal["forest"]}
    revealed = 0
    for e in sugi_game(players, 21)[1]:
        space = tuple(e.get("space") or ())
        if e["type"] == "tile_rotated" and "rotation" not in e:  # still face down
            tiles[space][1] = (tiles[space][1] + e["by"]) % 360
        elif e["type"] == "tile_revealed":
            assert [e["tile"], e["rotation"]] == tiles[space]
            revealed += 1
    assert revealed


def test_sugi_reshuffles_in_the_record_are_the_decks_they_made() -> None:
    state, events, reshuffled = sugi_game(2, 5)
    record = wire(state.to_record())
    made = [e["cards"] for e in events if e["type"] == "deck_reshuffled"]
    assert made and [len(deck) for deck in record["reshuffles"]] == made
    # Replayed to just after the first reshuffle, the deck is that reshuffle less what was
    # drawn from its top since.
    upto = {**record, "actions": record["actions"][: reshuffled[0]], "result": None}
    deck = sugi_replay(upto)[0].deck[::-1]
    first = record["reshuffles"][0]
    assert deck == first[len(first) - len(deck):]


def test_a_sugi_record_with_its_seed_changed_replays_to_the_same_game() -> None:
    for players, seed in ((2, 5), (4, 9)):
        state, events, _ = sugi_game(players, seed)
        record = wire(state.to_record())
        assert record["reshuffles"]
        again, replayed = sugi_replay({**record, "seed": seed + 1000})
        assert replayed == events and again.result() == state.result()
        assert {**again.to_record(), "seed": seed} == record


def test_a_sugi_record_is_replayed_as_it_says_not_as_its_seed_would() -> None:
    state, _events, reshuffled = sugi_game(2, 5)
    record = wire(state.to_record())
    # The deal: seat 1 first, and the deck's two top cards the other way round.
    start = {**record, "actions": [], "result": None}
    start["deal"] = {**record["deal"], "first": 1 - record["deal"]["first"]}
    deck = start["deal"]["deck"] = record["deal"]["deck"][:]
    deck[0], deck[1] = deck[1], deck[0]
    dealt = sugi_replay(start)[0]
    assert dealt.current_seat == start["deal"]["first"] and dealt.deck[::-1] == deck
    # A reshuffle: the new deck the other way round.
    upto = {**record, "actions": record["actions"][: reshuffled[0]], "result": None}
    upto["reshuffles"] = [record["reshuffles"][0][::-1]]
    deck_after = sugi_replay(upto)[0].deck[::-1]
    assert deck_after == upto["reshuffles"][0][len(upto["reshuffles"][0]) - len(deck_after):]


def test_a_sugi_record_of_the_older_shape_still_replays() -> None:
    state, events, _ = sugi_game(3, 7)
    record = wire(state.to_record())
    old = {k: v for k, v in record.items() if k not in ("deal", "reshuffles")}
    again, replayed = sugi_replay(old)
    assert replayed == events and again.to_record() == record


def _sugi_deal_changes(deal: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    hands, deck, forest = deal["hands"], deal["deck"], deal["forest"]
    twice = [[hands[0][0], *hands[0][1:]], [hands[0][0], *hands[1][1:]]]
    return [
        ({"hands": twice}, "deal hands"),
        ({"hands": [hands[0][:3], hands[1]]}, "deal hands"),
        ({"deck": deck[1:]}, "deal hands"),
        ({"families": [deal["families"][0]] * 2}, "deal families"),
        ({"forest": [forest[1], *forest[1:]]}, "deal forest"),
        ({"forest": [[*forest[0][:3], 45], *forest[1:]]}, "deal forest"),
        ({"first": 2}, "deal first"),
        ({"first": True}, "deal first"),
    ]


@pytest.mark.parametrize("case", range(8))
def test_a_sugi_record_whose_deal_cannot_be_is_refused(case: int) -> None:
    record = wire(SugiState.new(2, seed=3).to_record())
    change, says = _sugi_deal_changes(record["deal"])[case]
    error = refusal(sugi_replay, {**record, "deal": {**record["deal"], **change}})
    assert error.code == "bad_record" and says in error.message


def test_a_sugi_record_whose_reshuffle_cannot_be_is_refused() -> None:
    state, _events, _ = sugi_game(2, 5)
    record = wire(state.to_record())
    bad = copy.deepcopy(record)
    bad["reshuffles"][0] = bad["reshuffles"][0][1:]
    error = refusal(sugi_replay, bad)
    assert error.code == "bad_record" and "reshuffles[0]" in error.message
    extra = {**record, "reshuffles": [*record["reshuffles"], record["reshuffles"][-1]]}
    assert "holds" in refusal(sugi_replay, extra).message


# -- nothing leaves the host before the end --------------------------------------------------


def _walk(value: Any) -> Any:
    """Every map and list inside ``value``."""
    yield value
    children = value.values() if isinstance(value, dict) else value if isinstance(
        value, list) else ()
    for child in children:
        yield from _walk(child)


@pytest.mark.parametrize("name", ["sagrada", "sugi"])
def test_no_random_outcome_of_the_record_leaves_the_host_before_the_end(
    name: str, tmp_path: Path
) -> None:
    """Mid-game, what seat 0 and a spectator may ask for (snapshots, private data, every page
    of history, the record) holds none of the record's outcomes but seat 0's own: no deal,
    setup, rolls or seed, not seat 1's hand or private objective, not the deck's order."""
    with running_host(tmp_path) as host:
        raw = Raw(host.endpoint)
        created = raw("create", game=name, config={"players": 2}, seed=5)
        table = created["table"]
        tokens = [raw("join", table=table, name=n)["token"] for n in ("ann", "bo")]
        rng = random.Random(2)
        for _ in range(30):  # well into the game, never to its end
            seat = raw.patient("sync", table=table)["turn"]
            snap = raw.patient("sync", table=table, token=tokens[seat])
            sample = host.tables[table].state.clone()
            action = sample.action_data(rng.choice(sample.legal_actions()))
            raw.patient("act", table=table, seat=seat, token=tokens[seat], version=snap["version"],
                action=action)
        state = host.tables[table].state
        assert not state.is_over()
        record = state.to_record()
        got = [raw.patient("sync", table=table, token=tokens[0]), raw.patient("sync", table=table),
               raw.patient("private", table=table, token=tokens[0])]
        since = 0
        while True:
            page = raw.patient("history", table=table, since=since)
            got.append(page)
            if not page["more"]:
                break
            since = page["moves"][-1]["version"]
        refused = raw.patient("record", table=table)
        assert refused["code"] == "not_over" and "record" not in refused
        got.append(refused)
        if name == "sugi":
            secrets = [record["deal"]["hands"][1], state.hands[1], state.deck[::-1],
                       record["deal"]["deck"]]
        else:
            secrets = [record["setup"]["privates"][1], record["setup"]["patterns"][1],
                       state.private(1)["objectives"]]
        for found in (v for message in got for v in _walk(message)):
            if isinstance(found, dict):
                assert not {"deal", "reshuffles", "setup", "rolls", "seed", "privates"} & set(found)
            assert not any(found == secret for secret in secrets if len(secret) > 0), found
        # Once over, the whole record is given out, as it was played.
        play_out(raw, table, tokens, rng)
        served = raw.patient("record", table=table)["record"]
        raw.close()
    assert served["reshuffles" if name == "sugi" else "rolls"] is not None
    assert (served["deal"] if name == "sugi" else served["setup"]) == (
        record["deal"] if name == "sugi" else record["setup"])


# -- sagani replay ---------------------------------------------------------------------------


def test_sagani_replay_steps_through_a_record_by_its_outcomes_alone() -> None:
    """``sagani replay``'s frames, the seed changed, are the same positions and events."""

    def seedless(frames: list[Any]) -> list[Any]:
        return [({k: v for k, v in view.items() if k != "seed"}, events)
                for view, events in frames]

    for state in (chance_game()[0], sugi_game(2, 5)[0]):
        record = wire(state.to_record())
        frames = replay_frames({**record, "seed": record["seed"] + 1})
        assert seedless(frames) == seedless(replay_frames(record))
        assert len(frames) == len(record["actions"]) + 1 and frames[-1][0]["phase"] == "over"
