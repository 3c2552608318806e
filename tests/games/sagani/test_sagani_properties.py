"""Properties of whole games, random and greedy, for 2, 3 and 4 players and the solo modes.

Each game is played once per (players, mode, policy, seed) and kept, with the events and the
public view after every action; the properties below read those.
"""

from __future__ import annotations

import functools
import json
import random
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sagani_net.bots import make_policy
from sagani_net.games.sagani.rules import Action, RuleError, State, replay
from sagani_net.games.sagani.tiles import DIRECTIONS, STEPS, TILES, rotated_arrows

#: A game has at most 72 placements, 72 choices and a few intermezzo passes.
MAX_ACTIONS = 400
POLICIES = {name: make_policy(name) for name in ("random", "greedy")}

FEW = settings(
    max_examples=20, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)

seeds = st.integers(0, 2**32 - 1)
policies = st.sampled_from(("random", "greedy"))
#: (players, mode, policy, seed)
multi_games = st.tuples(st.sampled_from((2, 3, 4)), st.just("multi"), policies, seeds)
solo_games = st.tuples(st.just(1), st.just("solo"), policies, seeds)
advanced_games = st.tuples(st.just(1), st.just("solo-advanced"), policies, seeds)
any_games = st.one_of(multi_games, solo_games, advanced_games)
scored_games = st.one_of(multi_games, solo_games)


@dataclass(frozen=True)
class Step:
    seat: int
    events: tuple[dict, ...]
    view: dict  # the spectator's view after the action


@dataclass(frozen=True)
class Played:
    state: State  # the finished game; tests must not change it
    steps: tuple[Step, ...]
    events: tuple[dict, ...]


@functools.lru_cache(maxsize=256)
def play(players: int, mode: str, policy: str, seed: int) -> Played:
    state = State.new(players, mode, seed)
    rng = random.Random(seed)
    chooser = POLICIES[policy]
    steps = []
    for _ in range(MAX_ACTIONS):
        if state.is_over():
            break
        seat = state.current_seat
        events = state.apply(chooser.choose(state, rng))
        steps.append(Step(seat, tuple(events), state.view()))
    return Played(state, tuple(steps), tuple(e for s in steps for e in s.events))


@pytest.fixture(autouse=True, scope="module")
def forget_the_games():
    """The games kept above hold a view after every action: 2.2 million objects the cycle
    collector tracks, which every later full collection in this process would walk (pytest
    makes five at the session's end)."""
    yield
    play.cache_clear()


def part_played(game, data) -> tuple[State, int]:
    """A fresh game of ``game`` with the first k actions of its played history applied, k drawn
    by hypothesis; returns the state and k."""
    k = data.draw(st.integers(0, len(play(*game).state.history) - 1), label="actions played")
    return first_actions(game, k), k


def first_actions(game, k: int) -> State:
    """A fresh game of ``game`` with the first ``k`` actions of its played history applied."""
    state = State.new(game[0], game[1], game[3])
    for _seat, action in play(*game).state.history[:k]:
        state.apply(action)
    return state


def displays(view: dict):
    """(seat, public seat data) for every seat."""
    return enumerate(view["seats"])


# -- discs and score ------------------------------------------------------------------------


@FEW
@given(any_games)
def test_discs_are_conserved(game):
    # 24 + cacophony taken = supply + discs on unflipped tiles, after every action.
    for step in play(*game).steps:
        for _seat, seat in displays(step.view):
            on_tiles = sum(len(TILES[t[2]].arrows) for t in seat["display"] if not t[5])
            assert 24 + seat["cacophony"] == seat["supply"] + on_tiles


@FEW
@given(scored_games)
def test_score_is_flipped_values_minus_two_per_cacophony_disc(game):
    for step in play(*game).steps:
        for _seat, seat in displays(step.view):
            flipped = sum(TILES[t[2]].value for t in seat["display"] if t[5])
            assert seat["score"] == flipped - 2 * seat["cacophony"]


@FEW
@given(advanced_games)
def test_advanced_solo_track_is_flipped_values_and_final_score_settles_the_rest(game):
    played = play(*game)
    for step in played.steps:
        seat = step.view["seats"][0]
        assert seat["score"] == sum(TILES[t[2]].value for t in seat["display"] if t[5])
    seat = played.steps[-1].view["seats"][0]
    face_up = sum(TILES[t[2]].value for t in seat["display"] if not t[5])
    final = seat["score"] - face_up + seat["bonus"] - 2 * seat["cacophony"]
    assert played.state.scores() == [final]


# -- arrows (R2, R3) ------------------------------------------------------------------------


def sees(cells: dict[tuple[int, int], str], reach: int, x: int, y: int, d: str, want: str) -> bool:
    """Whether a tile of element ``want`` lies anywhere within ``reach`` on the ray."""
    dx, dy = STEPS[DIRECTIONS.index(d)]
    return any(cells.get((x + k * dx, y + k * dy)) == want for k in range(1, reach + 1))


@FEW
@given(any_games)
def test_arrows_are_covered_exactly_when_they_see_a_matching_tile(game):
    # Checked for the display that changed, after every action: an arrow is covered iff a
    # tile of its element lies on its ray; a tile is flipped iff all its arrows are covered.
    for step in play(*game).steps:
        seat = step.view["seats"][step.seat]
        cells = {(x, y): TILES[t].element for x, y, t, *_ in seat["display"]}
        if not cells:
            continue
        xs, ys = [x for x, _ in cells], [y for _, y in cells]
        reach = max(max(xs) - min(xs), max(ys) - min(ys))
        for x, y, tile, rotation, covered, flipped in seat["display"]:
            arrows = rotated_arrows(tile, rotation)
            seen = [sees(cells, reach, x, y, d, want) for d, want in arrows]
            assert flipped == all(seen)
            for (d, _want), is_seen in zip(arrows, seen, strict=True):
                assert bool(covered >> DIRECTIONS.index(d) & 1) == is_seen


# -- the end ----------------------------------------------------------------------------------


@FEW
@given(any_games)
def test_every_game_ends(game):
    played = play(*game)
    assert played.state.is_over()
    assert played.events[-1]["type"] == "game_over"
    assert [e["type"] for e in played.events].count("game_over") == 1


@FEW
@given(multi_games)
def test_multiplayer_games_end_with_equal_turns(game):
    view = play(*game).steps[-1].view
    assert len({seat["turns"] for seat in view["seats"]}) == 1


@settings(FEW, max_examples=18)
@given(st.sampled_from((2, 3, 4)), seeds)
def test_greedy_games_end_by_the_threshold_or_by_the_pile(players, seed):
    # R6: a game ends once the threshold is reached, or after the round the pile ran low in.
    # Greedy play usually reaches the threshold, but not always (seed 2444909, 4 players: the
    # pile ran out at 39/32/33/37), so which of the two ended it is not a promise.
    played = play(players, "multi", "greedy", seed)
    assert played.state.is_over()
    triggered = [e for e in played.events if e["type"] == "end_triggered"]
    last_round = [e for e in played.events if e["type"] == "last_round"]
    assert len(triggered) <= 1 and len(last_round) <= 1
    assert triggered or last_round
    assert played.state.end_triggered == bool(triggered)
    if triggered:
        assert triggered[0]["score"] >= {2: 75, 3: 60, 4: 45}[players]
    else:
        assert max(played.state.scores()) < {2: 75, 3: 60, 4: 45}[players]
        assert last_round[0]["pile"] <= 4


def test_greedy_games_end_by_the_pile_when_nobody_reaches_the_threshold():
    played = play(4, "multi", "greedy", 2444909)
    assert not played.state.end_triggered
    assert any(e["type"] == "last_round" for e in played.events)
    assert played.state.is_over() and max(played.state.scores()) < 45


# -- hidden information (R8) ---------------------------------------------------------------


@FEW
@given(any_games)
def test_views_never_hold_the_draw_order_or_the_seed_before_the_end(game):
    for step in play(*game).steps[:-1]:
        view = step.view
        assert "seed" not in view and "tiles" not in view
        assert view["unseen"] == sorted(view["unseen"])


@FEW
@given(multi_games, st.data())
def test_same_public_history_with_other_hidden_order_gives_the_same_views(game, data):
    state, k = part_played(game, data)
    dealt = 72 - state.pile_size()
    hidden = list(state.tiles[dealt + 1 :])
    random.Random(data.draw(seeds, label="shuffle")).shuffle(hidden)
    other = State.new(game[0], game[1], tiles=[*state.tiles[: dealt + 1], *hidden])
    for _seat, action in play(*game).state.history[:k]:
        other.apply(action)
    for seat in (None, *range(game[0])):
        assert other.view(seat) == state.view(seat)


# -- clone ------------------------------------------------------------------------------------


def randomly_advanced(game, data, most: int) -> tuple[State, random.Random]:
    """A fresh game of ``game`` after up to ``most`` random actions (hypothesis draws how many),
    with the generator that chose them."""
    players, mode, _policy, seed = game
    state = State.new(players, mode, seed)
    rng = random.Random(seed)
    for _ in range(data.draw(st.integers(0, most), label="actions before the clone")):
        if state.is_over():
            break
        state.apply(state.random_action(rng))
    return state, rng


def replayed_view(state: State) -> dict:
    """The view of a fresh game replaying ``state``'s actions."""
    record = state.to_record()
    record.pop("result", None)
    return replay(record)[0].view()


@settings(FEW, max_examples=40)
@given(any_games, st.data())
def test_clone_is_independent_of_its_original(game, data):
    state, rng = randomly_advanced(game, data, 150)
    if state.is_over():
        return
    twin = state.clone()
    steps = data.draw(st.integers(1, 12), label="actions on each side")
    original_view = state.view()
    for _ in range(steps):  # the twin moves: the original does not
        if not twin.is_over():
            twin.apply(twin.random_action(rng))
        assert state.view() == original_view
    twin_view = twin.view()
    grandchild = twin.clone()
    for _ in range(steps):  # the original moves: the twin does not
        if not state.is_over():
            state.apply(state.random_action(rng))
        assert twin.view() == twin_view
    for _ in range(steps):  # the grandchild moves: neither of the others does
        if not grandchild.is_over():
            grandchild.apply(grandchild.random_action(rng))
        assert twin.view() == twin_view
    for s in (state, twin, grandchild):
        assert s.view() == replayed_view(s)


@settings(FEW, max_examples=20)
@given(multi_games, st.data())
def test_clone_follows_the_same_game_as_its_original(game, data):
    # Mutual independence aside, a clone is a faithful copy: the same actions give the same
    # events and views on both.
    state, rng = randomly_advanced(game, data, 100)
    if state.is_over():
        return
    twin = state.clone()
    while not state.is_over():
        action = state.random_action(rng)
        assert twin.legal_actions() == state.legal_actions()
        assert twin.apply(action) == state.apply(action)
    assert twin.view() == state.view()


# -- records ----------------------------------------------------------------------------------


@FEW
@given(any_games)
def test_replaying_each_record_reproduces_it(game):
    played = play(*game)
    record = json.loads(json.dumps(played.state.to_record()))
    state, events = replay(record)
    assert events == list(played.events)
    assert state.view() == played.steps[-1].view
    assert state.to_record() == record


# -- State.from_view ------------------------------------------------------------------------


@FEW
@given(any_games, st.data())
def test_state_from_view_agrees_with_the_view_and_has_the_same_legal_actions(game, data):
    state, k = part_played(game, data)
    for seat in (None, *range(game[0])):
        view = state.view(seat)
        guess = State.from_view(view, random.Random(k))
        assert guess.view(seat) == view
        assert guess.legal_actions() == state.legal_actions()


# -- the API around the rules ---------------------------------------------------------------

ILLEGAL_TRIES = (
    Action.take(5), Action.take(-1), Action.pick(4), Action("draw"), Action("pass"),
    Action("reveal"), Action.place((0, 0), 0), Action.place((99, 99), 90),
    Action.place((1, 0), 45),
)


def snapshot(state: State) -> tuple:
    return state.view(), state.version, state.legal_actions(), state.to_record()


@FEW
@given(any_games, st.data())
def test_illegal_actions_are_refused_and_change_nothing(game, data):
    state, _k = part_played(game, data)
    legal = set(state.legal_actions())
    before = snapshot(state)
    for action in ILLEGAL_TRIES:
        if action in legal:
            continue
        with pytest.raises(RuleError):
            state.apply(action)
        assert snapshot(state) == before


@FEW
@given(any_games, st.data())
def test_preview_changes_nothing_and_foretells_the_placement(game, data):
    played = play(*game)
    places = [i for i, (_seat, a) in enumerate(played.state.history) if a.type == "place"]
    k = data.draw(st.sampled_from(places), label="placement")
    state = first_actions(game, k)
    before = snapshot(state)
    previews = {a: state.preview(a) for a in state.legal_actions()}
    assert snapshot(state) == before
    action = played.state.history[k][1]
    seat = state.current_seat
    score = state.seats[seat].score
    events = state.apply(action)
    placement = previews[action]
    flipped = [e for e in events if e["type"] == "tile_flipped"]
    assert sum(e["points"] for e in flipped) == placement.points
    assert len(flipped) == len(placement.flips) + placement.completes
    cost = 2 * placement.cacophony if game[1] != "solo-advanced" else 0
    assert state.seats[seat].score == score + placement.points - cost


@FEW
@given(any_games, st.data())
def test_random_action_is_always_legal(game, data):
    players, mode, _policy, seed = game
    state = State.new(players, mode, seed)
    rng = random.Random(data.draw(seeds, label="rng"))
    while not state.is_over():
        action = state.random_action(rng)
        assert action in state.legal_actions()
        state.apply(action)
