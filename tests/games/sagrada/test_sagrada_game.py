"""Setup, the pattern choice, rounds and the snake order, records, the determinizer, text forms,
options and whole random games for 1-4 players."""

from __future__ import annotations

import random

import pytest
from test_sagrada_support import random_game, types

from sagani_net.game import RuleError
from sagani_net.games import get_game
from sagani_net.games.sagrada.components import CLASH, ORTH, die_text
from sagani_net.games.sagrada.patterns import PUBLISHED
from sagani_net.games.sagrada.rules import SAGRADA, Action, State, replay


def new(players: int = 2, seed: int = 3, **config: object) -> State:
    return SAGRADA.new_state(SAGRADA.parse_config({"players": players, **config}), seed)


def chosen(state: State) -> State:
    while state.phase == "choose":
        state.apply(Action.choose(0))
    return state


def test_registered_under_its_name() -> None:
    assert get_game("sagrada") is SAGRADA and SAGRADA.title == "Sagrada"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_deals_tools_objectives_privates_and_four_patterns_each(players: int) -> None:
    state = new(players)
    assert len(state.tools) == 3 and len(state.objectives) == 3
    privates = [own[0] for own in state.privates]
    assert len(set(privates)) == players and all(len(own) == 1 for own in state.privates)
    dealt = [i for hand in state.dealt for i in hand]
    assert all(len(hand) == 4 for hand in state.dealt) and len(set(dealt)) == 4 * players
    # Two cards each: both sides of a card go to the same player.
    for hand in state.dealt:
        assert sorted(PUBLISHED[i].pair for i in hand) == sorted(
            [PUBLISHED[hand[0]].pair] * 2 + [PUBLISHED[hand[2]].pair] * 2)


def test_solo_setup_follows_the_difficulty() -> None:
    for difficulty in (1, 5):
        state = new(1, difficulty=difficulty)
        assert len(state.tools) == difficulty and len(state.objectives) == 2
        assert len(state.privates[0]) == 2 and len(state.dealt[0]) == 4


def test_pattern_choice_in_seat_order_hidden_until_everyone_has_chosen() -> None:
    state = new(3)
    assert state.current_seat == 0
    events = state.apply(Action.choose(2))
    assert events == [{"type": "pattern_chosen", "seat": 0}]
    assert state.private_seats(events) == [0]
    assert state.private(0)["pattern"] == state.dealt[0][2]
    view = state.view(None)
    assert view["seats"][0]["chosen"] and view["seats"][0]["pattern"] is None
    assert state.view(1)["seats"][0]["pattern"] is None
    assert all(s["tokens"] == 0 for s in view["seats"])
    assert state.current_seat == 1
    state.apply(Action.choose(0))
    events = state.apply(Action.choose(3))
    assert types(events)[:3] == ["pattern_chosen", "patterns_revealed", "round_started"]
    view = state.view(None)
    expected = [state.dealt[0][2], state.dealt[1][0], state.dealt[2][3]]
    assert [s["pattern"] for s in view["seats"]] == expected
    assert [s["tokens"] for s in view["seats"]] == [PUBLISHED[i].difficulty for i in expected]


def test_the_view_never_holds_private_objectives_dealt_patterns_or_the_seed() -> None:
    state = chosen(new(4))
    view = state.view(None)
    assert not {"privates", "seed", "dealt"} & set(view)
    assert all(set(s) == {"chosen", "pattern", "tokens", "window"} for s in view["seats"])
    private = state.private(2)
    assert private == {"objectives": ["RYGBP"[state.privates[2][0]]],
                       "patterns": list(state.dealt[2]), "pattern": state.dealt[2][0]}


def test_the_private_objectives_and_the_seed_are_shown_once_the_game_is_over() -> None:
    # RULES.md, The end: the secrets of the setup become public with the result.
    state = random_game(3, 0)
    view = state.view(None)
    assert view["privates"] == [["RYGBP"[c] for c in own] for own in state.privates]
    assert view["seed"] == state.seed


def test_snake_order_and_the_start_player_moves_on() -> None:
    state = chosen(new(3))
    assert state.order == (0, 1, 2, 2, 1, 0) and len(state.pool) == 7
    seats = []
    while state.round == 0:
        seats.append(state.current_seat)
        state.apply(Action("pass"))
    assert seats == [0, 1, 2, 2, 1, 0]
    assert state.order == (1, 2, 0, 0, 2, 1) and state.current_seat == 1


def test_left_over_dice_go_to_the_round_track() -> None:
    state = chosen(new(2))
    pool = [die_text(d) for d in state.pool]
    events = []
    for _ in range(4):
        events += state.apply(Action("pass"))
    ended = next(e for e in events if e["type"] == "round_ended")
    assert ended == {"type": "round_ended", "round": 0, "track": pool}
    assert [die_text(d) for d in state.track[0]] == pool
    assert sum(state.bag) == 90 - 5 - 5


def test_solo_rounds_have_four_dice_and_two_turns() -> None:
    state = chosen(new(1))
    assert state.order == (0, 0) and len(state.pool) == 4
    state.apply(Action("pass"))
    state.apply(Action("pass"))
    assert state.round == 1 and len(state.track[0]) == 4


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_random_games_finish_with_a_full_ranking(players: int) -> None:
    for seed in range(3):
        state = random_game(players, seed)
        result = state.result()
        assert result is not None and sorted(result.ranking) == list(range(players))
        assert state.round == 10 and all(len(t) >= 0 for t in state.track)
        assert state.legal_actions() == [] and state.current_seat is None
        if players == 1:
            assert result.figures["target"] == state.target()


def test_records_replay_to_the_same_result_and_events() -> None:
    state = random_game(3, seed=11)
    record = state.to_record()
    assert record["game"] == "sagrada" and record["rolls"] == state.rolls
    again, events = replay(record)
    assert again.result() == state.result() and again.windows == state.windows
    assert again.view() == state.view()
    assert types(events)[-1] == "game_over"
    assert SAGRADA.from_record(record).result() == state.result()


def test_a_record_with_rolls_that_cannot_be_is_refused() -> None:
    record = random_game(2, seed=4).to_record()
    record["rolls"][0][0] = "R7"
    with pytest.raises(RuleError) as info:
        replay(record)
    assert info.value.code == "bad_record" and "rolls[0]" in info.value.message


def test_a_record_with_an_illegal_action_names_it() -> None:
    record = random_game(2, seed=4).to_record()
    record["actions"][0] = {"seat": 0, "type": "choose", "pattern": 7}
    with pytest.raises(RuleError) as info:
        replay(record)
    assert info.value.message.startswith("action 0")


def advance(state: State, rng: random.Random, decisions: int) -> State:
    for _ in range(decisions):
        state.apply(state.random_action(rng))
    return state


@pytest.mark.parametrize("decisions", [1, 4, 60])
def test_determinized_states_agree_with_what_the_seat_knows(decisions: int) -> None:
    state = advance(new(3, seed=8), random.Random(2), decisions)
    seat = state.current_seat
    view, private = state.view(seat), state.private(seat)
    others = set()
    for n in range(12):
        sample = SAGRADA.determinize(view, private, seat, random.Random(n))
        assert sample.view(seat) == view and sample.private(seat) == private
        assert sample.legal_actions() == state.legal_actions()
        others.add(tuple(sample.privates[s] for s in range(3) if s != seat))
        for s in range(3):
            assert len(set(sample.dealt[s])) == 4
            assert sample.chosen[s] is None or sample.chosen[s] in sample.dealt[s]
        if decisions == 1:  # seat 1 is choosing: seat 0's choice is hidden
            assert sample.chosen[1] is None
    assert len(others) > 1  # the others' private objectives are sampled, not known


def test_determinized_states_roll_their_own_future() -> None:
    state = chosen(new(2, seed=5))
    seat = state.current_seat
    view, private = state.view(seat), state.private(seat)
    pools = set()
    for n in range(6):
        sample = SAGRADA.determinize(view, private, seat, random.Random(n))
        for _ in range(4):
            sample.apply(Action("pass"))
        pools.add(tuple(sample.pool))
    assert len(pools) > 1


def test_clone_is_independent_and_rolls_alike() -> None:
    state = chosen(new(2, seed=6))
    copy = state.clone()
    copy.apply(copy.legal_actions()[0])
    assert state.version + 1 == copy.version and state.windows[0] != copy.windows[0]
    a, b = state.clone(), state.clone()
    for s in (a, b):
        for _ in range(4):
            s.apply(Action("pass"))
    assert a.pool == b.pool and a.rolls == b.rolls


def test_text_and_wire_forms_round_trip_for_every_legal_action() -> None:
    rng = random.Random(3)
    for players in (1, 2, 4):
        state = new(players, seed=players, difficulty=5) if players == 1 else new(players)
        while not state.is_over():
            for action in state.legal_actions():
                data = action.to_dict()
                assert Action.from_dict(data) == action
                assert SAGRADA.parse_text(SAGRADA.action_text(data)) == data
            state.apply(state.random_action(rng))


def test_text_forms_read_as_people_count() -> None:
    assert SAGRADA.parse_text("draft 3 at 2,4") == {"type": "draft", "die": 2, "cell": [1, 3]}
    assert SAGRADA.parse_text("tool 7") == {"type": "tool", "tool": 7}
    assert SAGRADA.parse_text("choose 2") == {"type": "choose", "pattern": 1}
    assert SAGRADA.parse_text("swap 4.2") == {"type": "swap", "round": 3, "die": 1}
    assert SAGRADA.parse_text("pass") == {"type": "pass"}
    for bad in ("draft", "draft 3 at 5,1", "draft 3 to 2,4", "tool", "move 1,1 2,2", "swap 4"):
        with pytest.raises(RuleError) as info:
            SAGRADA.parse_text(bad)
        assert info.value.code == "bad_action"


def test_wire_forms_are_checked() -> None:
    for bad in ({"type": "draft"}, {"type": "draft", "die": "1"}, {"type": "fly"},
                {"type": "place", "cell": [4, 0]}, {"type": "pass", "extra": 1}, []):
        with pytest.raises(RuleError) as info:
            Action.from_dict(bad)
        assert info.value.code == "bad_action"


def test_every_event_has_a_sentence() -> None:
    names = ["Ann", "Bo", "Cy", "Di"]
    seen = set()
    for players in (1, 4):
        for seed in range(3):
            state = new(players, seed=seed, difficulty=5) if players == 1 else new(players, seed)
            rng = random.Random(seed)
            while not state.is_over():
                for event in state.apply(state.random_action(rng)):
                    text = SAGRADA.event_text(event, names[:players])
                    assert text.endswith(".") and "Someone" not in text, text
                    seen.add(event["type"])
    assert {"round_started", "die_placed", "tool_used", "game_over"} <= seen


def test_options_are_checked() -> None:
    assert SAGRADA.parse_config({}) == {"players": 2, "difficulty": 3, "patterns": None,
                                        "pattern_set": "all"}
    for bad in ({"players": 5}, {"difficulty": 0}, {"players": "2"}, {"colour": 1},
                {"players": 2, "difficulty": 5},
                {"pattern_set": "custom"}, {"patterns": "mine.json"}):
        with pytest.raises(RuleError) as info:
            SAGRADA.parse_config(bad)
        assert info.value.code in ("bad_config", "bad_patterns")


def test_custom_patterns_join_the_published_ones_or_replace_them() -> None:
    own = [{"name": f"Mine {i}", "difficulty": 4, "grid": [[str(i % 6 + 1), "", "", "", ""]] +
            [[""] * 5] * 3} for i in range(8)]
    config = SAGRADA.parse_config({"players": 2, "patterns": own})
    assert len(SAGRADA.static_data(config)["patterns"]) == 24 + 8
    config = SAGRADA.parse_config({"players": 2, "patterns": own, "pattern_set": "custom"})
    state = chosen(SAGRADA.new_state(config, 1))
    assert all(state.pattern(s).name.startswith("Mine") for s in range(2))
    with pytest.raises(RuleError):
        SAGRADA.parse_config({"players": 3, "patterns": own, "pattern_set": "custom"})


def test_static_data_holds_the_cards_and_patterns() -> None:
    data = SAGRADA.static_data(SAGRADA.parse_config({}))
    assert len(data["patterns"]) == 24 and len(data["tools"]) == 12
    assert len(data["objectives"]) == 10
    assert data["tools"][6]["name"] == "Glazing Hammer"


def test_a_pattern_completion_obeys_every_restriction_and_rule_four() -> None:
    from sagani_net.games.sagrada.patterns import completion

    for p in PUBLISHED:
        filled = completion(p.cells)
        assert filled is not None
        for i, die in enumerate(filled):
            assert p.allow[i] >> die & 1
            assert all(not CLASH[die] >> filled[j] & 1 for j in ORTH[i])


def test_default_action_passes_where_it_can() -> None:
    state = chosen(new(2))
    assert state.default_action() == Action("pass")
    fresh = new(2)
    assert fresh.default_action() == Action.choose(0)
