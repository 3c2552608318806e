"""Sugi behind the seam: secrets kept, the determinizer, records, text forms, random playouts."""

from __future__ import annotations

import doctest
import json
import random

import pytest
from test_sugi_support import card, position

import sagani_net.games.sugi.edition as sugi_edition
import sagani_net.games.sugi.rules as sugi_rules
import sagani_net.games.sugi.words as sugi_words
from sagani_net.bots import make_policy
from sagani_net.game import RuleError
from sagani_net.games import get_game
from sagani_net.games.sugi.rules import (
    CALL_ROUND,
    MAINTENANCE,
    PUSH,
    SUGI,
    SUMMONS_ROUND,
    Action,
    State,
    replay,
)
from sagani_net.games.sugi.words import EVENT_TEXT

NAMES = ["Ann", "Bo", "Cy", "Di", "Ed"]


def random_game(players: int, seed: int, rng: random.Random, stop: int | None = None):
    """Play uniformly random legal actions with events; yields each state before each action."""
    state = State.new(players, seed)
    while not state.is_over() and (stop is None or state.version < stop):
        yield state
        state.apply(state.random_action(rng))
    yield state


def test_the_registry_serves_sugi_with_its_options():
    game = get_game("sugi")
    assert game.title == "Sugi"
    assert game.parse_config({}) == {"players": 2, "edition": 4}
    for edition in (1, 2, 3):
        assert game.parse_config({"edition": edition})["edition"] == edition
    assert game.seats({"players": 5}) == 5
    with pytest.raises(RuleError) as e:
        game.parse_config({"players": 6})
    assert e.value.code == "bad_config"
    with pytest.raises(RuleError) as e:
        game.parse_config({"edition": 5})
    assert e.value.code == "bad_config"


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_playouts_end_and_keep_every_card_somewhere(players):
    rng = random.Random(players)
    for seed in range(3):
        for state in random_game(players, seed, rng):
            where = state.deck + state.discard + [c for c, _, _ in state.timeline]
            where += [c for h in state.hands for c in h]
            assert sorted(where) == list(range(50))
            assert len(state.pedestals) <= 3
        assert state.is_over() and state.result() is not None
        assert sorted(state.result().ranking) == list(range(players))


def test_random_action_picks_only_legal_actions_and_can_pick_each_kind():
    rng = random.Random(4)
    kinds = set()
    for state in random_game(4, 9, rng, stop=400):
        if state.is_over():
            break
        legal = state.legal_actions()
        for _ in range(3):
            action = state.random_action(rng)
            assert action in legal
            kinds.add(action.type)
    assert kinds == {"timeline", "rotate", "free", "ghost", "remove", "discard"} | (
        kinds & {"push"}
    )


def test_the_view_holds_no_secret():
    """Resampling every secret leaves every view as it was; the secrets did change."""
    rng = random.Random(2)
    checked = 0
    for state in random_game(4, 3, rng, stop=120):
        views = [state.view(seat) for seat in (None, 0, 1, 2, 3)]
        other = SUGI.determinize(state.view(), None, None, rng)
        assert [other.view(seat) for seat in (None, 0, 1, 2, 3)] == views
        if state.version % 10 == 0:
            secrets = lambda s: (s.hands, s.families, s.deck, s.tile_at, s.timeline)  # noqa: E731
            assert secrets(other) != secrets(state)
            checked += 1
        text = json.dumps(views[0])
        assert '"hand"' not in text and '"family"' not in text
    assert checked >= 5


def test_private_data_is_the_seats_hand_family_and_own_timeline_cards():
    red, blue = card("red N", action="free"), card("blue N", action="free")
    s = position(hands=[[red], [blue]], families=[4, 7], timeline=[(card("yellow N"), 90, 1)])
    assert s.private(0) == {"hand": [red], "family": 4, "timeline": [], "deck_bottom": []}
    assert s.private(1)["timeline"] == [[0, card("yellow N"), 90]]
    events = s.apply(Action.timeline(red, 180))
    # A placed card may shift any seat's own slots on the timeline: every seat is told.
    assert s.private_seats(events) == [0, 1]
    assert s.private(0)["timeline"] == [[1, red, 180]]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_determinizer_agrees_with_what_the_seat_knows(players):
    rng = random.Random(players * 7)
    seen_phases = set()
    for state in random_game(players, players, rng, stop=300):
        if state.is_over():
            break
        seat = state.current_seat
        view, private = state.view(seat), state.private(seat)
        sample = SUGI.determinize(view, private, seat, rng)
        assert sample.view(seat) == view and sample.private(seat) == private
        assert sample.legal_actions() == state.legal_actions()
        assert sorted(sample.tile_at[3:15]) == list(range(12))
        seen_phases.add(state.phase)
        if state.version % 25 == 0:  # the sample plays on: a bot can search it to the end
            sample.playout(rng)
            assert sample.is_over()
    assert MAINTENANCE in seen_phases


def test_the_determinizer_keeps_a_removed_card_where_its_owner_knows_it_is():
    remove = card("yellow N", action="remove")
    mine = card("red N", action="free")
    s = position(hands=[[remove], [card("blue N")]], timeline=[(mine, 0, 1)])
    s.apply(Action.parse(f"action {remove} remove t1"))
    rng = random.Random(1)
    for _ in range(5):
        sample = SUGI.determinize(s.view(1), s.private(1), 1, rng)
        assert sample.deck[0] == mine
    others = {SUGI.determinize(s.view(0), s.private(0), 0, rng).deck[0] for _ in range(20)}
    assert len(others) > 1  # seat 0 did not look


def test_the_determinizer_refuses_private_data_that_does_not_fit_the_view():
    """A seat's data from another moment (an update and a private fetch crossing): a card
    in two places, a hand of the wrong size, a slot that is not the seat's."""
    rng = random.Random(4)
    state = next(st for st in random_game(3, 4, rng, stop=300) if st.view()["discard"]
                 and st.private(st.current_seat)["hand"] and not st.is_over())
    seat = state.current_seat
    view, private = state.view(seat), state.private(seat)
    SUGI.determinize(view, private, seat, rng)  # as it is, it fits
    wrong = [
        {**private, "hand": [*private["hand"][1:], view["discard"][0]]},
        {**private, "hand": private["hand"][1:]},
        {**private, "timeline": [[len(view["timeline"]), private["hand"][0], 0]]},
    ]
    for bad in wrong:
        with pytest.raises(RuleError) as refused:
            SUGI.determinize(view, bad, seat, rng)
        assert refused.value.code == "bad_view"


def test_a_push_decision_survives_the_determinizer():
    ghost = card("red N", action="ghost")
    s = position(hands=[[ghost, card("red N", action="free")], [card("blue N")]], ghost="b3",
                 samurai={"red": "b1", "blue": "b1"})
    s.apply(Action.parse(f"action {ghost} ghost b1"))
    assert s.phase == PUSH
    sample = SUGI.determinize(s.view(0), s.private(0), 0, random.Random(3))
    assert sample.view(0) == s.view(0) and sample.legal_actions() == s.legal_actions()


@pytest.mark.parametrize("players", [2, 5])
def test_a_record_replays_to_the_same_result_and_events(players):
    rng = random.Random(11)
    state = State.new(players, 99)
    events = []
    while not state.is_over():
        events += state.apply(state.random_action(rng))
    record = json.loads(json.dumps(state.to_record()))
    assert record["config"] == {"players": players, "edition": 4} and record["seed"] == 99
    again, replayed = replay(record)
    assert replayed == events and again.result() == state.result()
    assert SUGI.from_record(record).view() == state.view()


def _edition_1_game_that_called() -> State:
    """An edition-1 game between greedy bots in which, after two samurai were home, at least
    one planning ended without the third: edition 2's Temple would have called there."""
    greedy = make_policy("greedy", game="sugi")
    for seed in range(40):
        state, rng = State.new(2, seed, edition=1), random.Random(seed)
        events = []
        while not state.is_over():
            events += state.apply(greedy.choose(state.clone(), rng))
        kinds = [e["type"] for e in events]
        second = [i for i, k in enumerate(kinds) if k == "samurai_arrived"][1]
        if "maintenance" in kinds[second:]:
            return state
    raise AssertionError("no such game in 40 seeds")


def test_a_record_from_before_editions_replays_by_edition_1():
    state = _edition_1_game_that_called()
    old = json.loads(json.dumps(state.to_record()))
    assert old["config"] == {"players": 2, "edition": 1}
    del old["config"]["edition"]  # the shape records had before editions were numbered
    again = SUGI.from_record(old)
    assert again.edition == 1 and again.view() == state.view()
    assert SUGI.new_state({"players": 2}, 3).edition == 1  # a table stored before editions
    assert SUGI.new_state(SUGI.parse_config({}), 3).edition == 4  # a new table
    # Read by edition 2, the same actions do not make the same game: the edition matters.
    try:
        changed = SUGI.from_record({**old, "config": {"players": 2, "edition": 2}}).view()
    except RuleError:
        changed = None
    assert changed != state.view()


@pytest.mark.parametrize(("edition", "changed_from"), [(2, CALL_ROUND), (3, SUMMONS_ROUND)])
def test_a_record_replays_by_its_edition_and_the_next_would_have_played_otherwise(
    edition: int, changed_from: int
) -> None:
    """Random play wanders past round 20 with fewer than two samurai home, and past round 30:
    edition 3's Temple calls there where edition 2's does not, edition 4's summons where
    edition 3's calls; a record says which edition it was played by."""
    rng, state = random.Random(3), State.new(2, 7, edition=edition)
    while not state.is_over():
        state.apply(state.random_action(rng))
    assert state.round > changed_from
    record = json.loads(json.dumps(state.to_record()))
    assert record["config"]["edition"] == edition
    assert SUGI.from_record(record).view() == state.view()
    try:
        next_edition = {**record, "config": {"players": 2, "edition": edition + 1}}
        otherwise = SUGI.from_record(next_edition).view()
    except RuleError:
        otherwise = None
    assert otherwise != state.view()


def test_the_view_says_the_edition_and_the_determinizer_keeps_it():
    for edition in (1, 2, 3, 4):
        state = State.new(3, 5, edition=edition)
        view = state.view(0)
        assert view["edition"] == edition
        sample = SUGI.determinize(view, state.private(0), 0, random.Random(1))
        assert sample.edition == edition
    legacy = {k: v for k, v in State.new(2, 5, edition=1).view(0).items() if k != "edition"}
    assert SUGI.determinize(legacy, None, None, random.Random(1)).edition == 1


def test_a_record_that_does_not_hold_is_refused_at_the_action():
    state = State.new(2, 5)
    state.apply(state.legal_actions()[0])
    record = state.to_record()
    record["actions"][0]["card"] = 999
    with pytest.raises(RuleError) as e:
        SUGI.from_record(record)
    assert e.value.code == "not_in_hand" and "action 0" in e.value.message
    for bad in ({"game": "sagani"}, {**state.to_record(), "seed": "x"}):
        with pytest.raises(RuleError) as e:
            SUGI.from_record(bad)
        assert e.value.code == "bad_record"
    while not state.is_over():
        state.apply(state.random_action(random.Random(1)))
    wrong = {**state.to_record(), "result": {"scores": [1, 2]}}
    with pytest.raises(RuleError) as e:
        SUGI.from_record(wrong)
    assert e.value.code == "bad_record"


def test_every_legal_action_reads_back_from_its_text_and_wire_forms():
    rng = random.Random(6)
    for state in random_game(3, 4, rng, stop=150):
        for action in state.legal_actions():
            data = state.action_data(action)
            assert state.parse_action(data) == action
            text = SUGI.action_text(data)
            assert SUGI.parse_text(text) == data


@pytest.mark.parametrize(
    "text",
    ["timeline", "timeline x", "action 3 rotate", "action 3 ghost z9", "push up",
     "action 3 free 4 2", "hello", ""],
)
def test_unreadable_text_is_a_bad_action(text):
    with pytest.raises(RuleError) as e:
        SUGI.parse_text(text)
    assert e.value.code == "bad_action"


@pytest.mark.parametrize(
    "data",
    [{"type": "timeline", "card": 1}, {"type": "rotate", "card": 1, "by": 90},
     {"type": "ghost", "card": 1, "space": [9, 0]}, {"type": "push", "direction": "up"},
     {"type": "discard", "cards": "1"}, {"type": "timeline", "card": True, "rotation": 0}, []],
)
def test_malformed_wire_actions_are_refused(data):
    with pytest.raises(RuleError) as e:
        Action.from_dict(data)
    assert e.value.code == "bad_action"


def test_every_event_has_a_sentence():
    rng = random.Random(8)
    seen = set()
    for seed in range(6):
        state = State.new(5, seed)
        while not state.is_over():
            for event in state.apply(state.random_action(rng)):
                text = SUGI.event_text(event, NAMES)
                assert "=" not in text and "{" not in text
                seen.add(event["type"])
    assert seen <= set(EVENT_TEXT)
    assert {"card_placed", "card_revealed", "samurai_moved", "game_over"} <= seen


def test_static_data_lists_the_edition_in_play():
    data = SUGI.static_data({"players": 4})
    assert len(data["tiles"]) == 12 and len(data["cards"]) == 50 and len(data["families"]) == 10
    assert data["limit"] == 6 and data["colours"][0] == "yellow"
    json.dumps(data)


def test_a_clone_is_independent_down_to_its_reshuffles():
    rng = random.Random(3)
    state = State.new(2, 21)
    for _ in range(30):
        state.apply(state.random_action(rng))
    copy = state.clone()
    a, b = random.Random(5), random.Random(5)
    state.playout(a)
    copy.playout(b)
    assert state.view() == copy.view()  # same generator state, same choices: same game
    assert state.to_record() == copy.to_record()


@pytest.mark.parametrize("module", [sugi_rules, sugi_edition, sugi_words],
                         ids=lambda m: m.__name__)
def test_docstring_examples_run(module) -> None:
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def test_apply_accepts_exactly_the_listed_actions():
    """Every listed action applies; an action of random fields applies only if its wire form
    is listed (fields an action type does not use are ignored)."""
    rng = random.Random(1)
    kinds = ["timeline", "rotate", "free", "ghost", "remove", "push", "discard"]
    for state in random_game(3, 2, rng, stop=120):
        if state.is_over():
            break
        legal = state.legal_actions()
        for action in legal:
            state.clone().apply(action)
        for _ in range(20):
            action = Action(
                rng.choice(kinds), rng.randint(-1, 50), rng.randint(-1, 50), rng.randint(-1, 6),
                rng.randint(-1, 18), rng.choice([0, 90, 180, 270, 45]), rng.randint(-1, 4),
                tuple(sorted(rng.sample(range(50), rng.randint(0, 2)))),
            )
            try:
                state.clone().apply(action)
            except RuleError:
                assert action not in legal
            else:
                assert Action.from_dict(action.to_dict()) in legal


def test_a_ghost_sent_past_samurai_goes_on_in_a_state_rebuilt_mid_push():
    ghost = card("red N", action="ghost")
    open_ = {name: "NESW" for name in ("b4", "b3", "b2", "b1", "c3")}  # real tiles, as sampled
    s = position(hands=[[ghost, card("red N", action="free")], [card("blue N")]], ghost="b4",
                 tiles=open_, samurai={"red": "b3"})
    s.apply(Action.parse(f"action {ghost} ghost b1"))
    sample = SUGI.determinize(s.view(0), s.private(0), 0, random.Random(3))
    for state in (s, sample):
        state.apply(Action.parse("push E"))
    assert sample.view(0)["ghost"] == s.view(0)["ghost"] == [1, 1]
