"""R8: what everyone sees, and State.from_view for bots that may only see that."""

from __future__ import annotations

import random

import pytest
from rules_kit import fill_storage, pile, pile_at, reveal

from sagani_net.games.sagani.rules import Action, State
from sagani_net.games.sagani.tiles import TILE_IDS, TILES

SECRET_KEYS = {"seed", "tiles"}


def advance(state: State, actions: int, seed: int) -> State:
    rng = random.Random(seed)
    for _ in range(actions):
        if state.is_over():
            break
        state.apply(state.random_action(rng))
    return state


def plain(value: object) -> bool:
    """Only str, int, bool, None, lists and str-keyed dicts: ready for msgpack and JSON."""
    if value is None or isinstance(value, str | int | bool):
        return True
    if isinstance(value, list):
        return all(plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and plain(v) for k, v in value.items())
    return False


def seen_tiles(view: dict) -> list[int]:
    """Every tile the view shows face up: offer, storage, removed, held, displays."""
    tiles = view["offer"] + view["storage"] + view["removed"]
    tiles += [] if view["held"] is None else [view["held"]]
    tiles += [t[2] for seat in view["seats"] for t in seat["display"]]
    return tiles


@pytest.mark.parametrize(("players", "mode"), [(2, "multi"), (4, "multi"), (1, "solo-advanced")])
def test_views_never_hold_the_seed_or_the_pile_before_the_end(players, mode):
    state = State.new(players, mode, seed=21)
    rng = random.Random(1)
    while not state.is_over():
        for seat in (None, *range(players)):
            view = state.view(seat)
            assert not SECRET_KEYS & view.keys()
            assert view["unseen"] == sorted(view["unseen"])
        state.apply(state.random_action(rng))


def test_view_at_the_end_shows_the_seed_and_the_pile():
    state = advance(State.new(2, seed=21), 10_000, 1)
    assert state.is_over()
    view = state.view()
    assert view["seed"] == 21
    assert view["tiles"] == list(state.tiles)


def test_view_unseen_is_the_sorted_multiset_of_tiles_not_yet_seen():
    state = advance(State.new(3, seed=4), 40, 4)
    view = state.view()
    assert view["unseen"] == sorted(view["unseen"])
    assert sorted(view["unseen"] + seen_tiles(view)) == list(TILE_IDS)
    assert len(view["unseen"]) == view["pile"]


def test_view_shows_the_back_of_the_pile_top():
    order = pile(40, 2, 66, 9, 31, 57)
    view = State.new(2, tiles=order).view()
    assert view["top"] == ["air", 3]  # tile 57's back: element and value
    assert 57 not in view["offer"]


def test_advanced_solo_view_shows_set_aside_backs_and_counts_them_in_the_pile():
    state = State.new(1, "solo-advanced", tiles=pile(1, 4, 3, 5))
    view = state.view()
    assert view["set_aside"] == [["fire", 1]]
    assert view["pile"] == 72
    assert view["top"] == ["fire", 6]
    reveal(state)
    state.apply(Action.place((0, 0), 0))
    assert state.view()["set_aside"] == [["fire", 1], ["fire", 3]]


def test_view_shows_every_public_fact():
    state = advance(State.new(3, seed=9), 30, 9)
    view = state.view(1)
    assert view["you"] == 1
    assert "you" not in state.view()
    assert view["ranking"] == state.ranking()
    for seat, public in enumerate(view["seats"]):
        player = state.seats[seat]
        assert (public["score"], public["supply"], public["cacophony"]) == (
            player.score, player.supply, player.cacophony,
        )
        assert {(x, y) for x, y, *_ in public["display"]} == set(player.tiles)
        for x, y, tile, rotation, covered, flipped in public["display"]:
            assert flipped == ((x, y) not in player.open)
            assert 0 <= covered < 256 and rotation in (0, 90, 180, 270) and tile in TILES


def test_view_is_plain_data():
    state = fill_storage_state()
    for seat in (None, 0, 1, 2):
        assert plain(state.view(seat))


def fill_storage_state() -> State:
    state = State.new(3, tiles=pile_at({}))
    fill_storage(state)
    return state


def test_same_public_history_with_different_hidden_order_gives_identical_views():
    # Two piles that agree on every tile dealt so far and on the top's back, and differ in
    # the hidden order below: every view is the same, tile for tile.
    one = advance(State.new(3, seed=30), 25, 30)
    dealt = 72 - one.pile_size()
    hidden = list(one.tiles[dealt + 1 :])
    random.Random(2).shuffle(hidden)
    other_tiles = [*one.tiles[: dealt + 1], *hidden]
    assert other_tiles != list(one.tiles)
    other = State.new(3, tiles=other_tiles)
    for _seat, action in one.history:
        other.apply(action)
    for seat in (None, 0, 1, 2):
        assert one.view(seat) == other.view(seat)


# -- State.from_view --------------------------------------------------------------------------


def mid_game_states() -> list[State]:
    states = [advance(State.new(players, seed=players), 23, players) for players in (2, 3, 4)]
    states.append(advance(State.new(4, seed=5), 30, 5))  # holding a tile, maybe
    states.append(fill_storage_state())  # in an intermezzo
    states.append(advance(State.new(1, "solo-advanced", seed=6), 41, 6))
    states.append(advance(State.new(1, "solo", seed=7), 20, 7))
    return states


@pytest.mark.parametrize("index", range(7))
def test_state_from_view_agrees_with_the_view(index):
    state = mid_game_states()[index]
    view = state.view()
    guess = State.from_view(view, random.Random(index))
    assert guess.view() == view


@pytest.mark.parametrize("index", range(7))
def test_state_from_view_has_the_same_legal_actions(index):
    state = mid_game_states()[index]
    guess = State.from_view(state.view(), random.Random(index))
    assert guess.legal_actions() == state.legal_actions()
    if state.phase == "place":
        for action in state.legal_actions():
            assert guess.preview(action) == state.preview(action)


def test_state_from_view_keeps_the_top_back_and_samples_the_rest():
    state = advance(State.new(2, seed=12), 9, 12)
    view = state.view()
    orders = set()
    for k in range(5):
        guess = State.from_view(view, random.Random(k))
        top = guess.top_tile()
        assert [TILES[top].element, TILES[top].value] == view["top"]
        assert sorted(guess.pile) == view["unseen"]
        orders.add(tuple(guess.pile))
    assert len(orders) > 1


def test_set_aside_tiles_stay_face_down_until_revealed():
    # Tiles 1 and 2 share a back (fire, 1): games that set aside one or the other look the
    # same to everyone until the set-aside tiles come up at the end.
    one = State.new(1, "solo-advanced", tiles=pile(1, 4, 2))
    other = State.new(1, "solo-advanced", tiles=pile(2, 4, 1))
    assert one.set_aside != other.set_aside
    assert one.view() == other.view()
    for state in (one, other):
        reveal(state)
        state.apply(Action.place((0, 0), 0))
    assert one.view() == other.view()
