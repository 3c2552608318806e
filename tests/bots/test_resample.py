"""In-process seats see no more than over the network: ``Game.resample`` and the legal moves.

Self-play and tournaments play a uniform policy (``random``) as the engine's own draw, which
looks at the legal moves alone, and give any other policy a state resampled from the truth
(:meth:`sagani_net.game.Game.resample`). For every game (and the test game with private data,
which keeps the seam's default), the resampled state shows the seat what the truth shows, keeps
nothing hidden of the truth, and is the very state the wire path (``determinize`` from the
seat's view and private data) would give for the same generator.
"""

from __future__ import annotations

import copy
import itertools
import random
from collections.abc import Iterator
from typing import Any

import msgpack
import pytest
from conftest import TOY

from sagani_net.bots.base import UNIFORM, LocalSeat
from sagani_net.bots.simple import RandomPolicy
from sagani_net.bots.tournament import GameSpec, play_local
from sagani_net.game import Data, GameState, RuleError, random_action
from sagani_net.games import configs, game_names, get_game
from sagani_net.protocol.messages import seat_names

GAMES = [*game_names(), TOY]
SEEDS = (0, 1)
#: How far into a game the positions are, as shares of its length.
SHARES = (0.0, 0.15, 0.4, 0.7, 0.95)


@pytest.fixture(params=GAMES)
def name(request: pytest.FixtureRequest, toy_registered: str) -> str:
    return str(request.param)


def config_of(name: str) -> Data:
    players = 3 if name == TOY else 4
    return get_game(name).parse_config({"players": players})


def wire(value: Any) -> Any:
    """``value`` after a trip through msgpack, as a bot gets it from the host."""
    return msgpack.unpackb(msgpack.packb(value, use_bin_type=True), raw=False)


def positions(name: str) -> Iterator[GameState]:
    """States along random games, the game's start among them; none over."""
    game = get_game(name)
    for seed in SEEDS:
        rng = random.Random(seed)
        state = game.new_state(config_of(name), seed)
        actions = []
        while not state.is_over():
            actions.append(random_action(state, rng))
            state.apply(actions[-1])
        for share in SHARES:
            state = game.new_state(config_of(name), seed)
            for action in actions[: int(share * (len(actions) - 1))]:
                state.apply(action)
            yield state


def knowledge(state: GameState) -> list[Any]:
    """Everything anyone could read of ``state``: every seat's view and private data, and the
    spectator's view."""
    seats = range(len(state.scores()))
    return [state.view(None), *(state.view(s) for s in seats), *(state.private(s) for s in seats)]


def continuation(state: GameState, seed: int) -> list[Any]:
    """The public views along random play from ``state`` to the end, with the same generator:
    two states agree on it when their hidden parts (draw order, future rolls, other hands)
    agree, as play reveals them."""
    state, rng = state.clone(), random.Random(seed)
    seen = [state.view(None)]
    while not state.is_over():
        state.apply(random_action(state, rng))
        seen.append(state.view(None))
    return seen


def same_state(a: GameState, b: GameState) -> bool:
    return knowledge(a) == knowledge(b) and continuation(a, 3) == continuation(b, 3)


def no_record_of_the_truth(sample: GameState, truth: GameState) -> bool:
    """The sample keeps neither the truth's record nor its seed: it has no record (as a state
    rebuilt from a view), or one without the truth's seed."""
    try:
        record = sample.to_record()
    except RuleError as refused:
        return refused.code == "no_record"
    return record.get("seed") != truth.to_record()["seed"]


def test_a_resampled_state_shows_the_seat_what_the_truth_shows(name: str) -> None:
    game = get_game(name)
    for n, state in enumerate(positions(name)):
        before = knowledge(state), state.to_record()
        for seat in range(len(state.scores())):
            sample = game.resample(state, seat, random.Random(n))
            assert sample is not state
            assert sample.view(seat) == state.view(seat)
            assert sample.view(None) == state.view(None)
            assert sample.private(seat) == state.private(seat)
            assert sample.version == state.version
            assert sample.current_seat == state.current_seat
            if seat == state.current_seat:
                assert sample.legal_actions() == state.legal_actions()
            assert no_record_of_the_truth(sample, state)
            assert continuation(sample, n)[-1]  # a whole state: it plays to the end
        assert (knowledge(state), state.to_record()) == before  # the truth is untouched


def test_a_resampled_state_is_the_one_the_wire_path_samples(name: str) -> None:
    """The same generator gives the same state from the truth as from the seat's view and
    private data through msgpack: in-process and network games are the same games."""
    game = get_game(name)
    for n, state in enumerate(positions(name)):
        for seat in range(len(state.scores())):
            fast = game.resample(state, seat, random.Random(n))
            wired = game.determinize(wire(state.view(seat)), wire(state.private(seat)), seat,
                                     random.Random(n))
            assert same_state(fast, wired)


def test_a_resampled_state_depends_on_what_the_seat_knows_only(name: str) -> None:
    """Two truths that differ only in what ``seat`` cannot see (the second one sampled from
    its view) give the same resampled state for the same generator; and the hidden parts are
    sampled, not the truth's: over a few generators they differ from the truth's."""
    game = get_game(name)
    twins_differ = resampled_differ = 0
    for n, state in enumerate(positions(name)):
        seat = state.current_seat
        assert seat is not None
        twin = game.determinize(state.view(seat), state.private(seat), seat,
                                random.Random(100 + n))
        twins_differ += not same_state(twin, state)
        assert same_state(game.resample(state, seat, random.Random(n)),
                          game.resample(twin, seat, random.Random(n)))
        resampled_differ += sum(not same_state(game.resample(state, seat, random.Random(k)),
                                               state) for k in range(3))
    positions_count = len(SEEDS) * len(SHARES)
    assert twins_differ >= positions_count // 2
    assert resampled_differ >= 3 * positions_count // 2


def test_a_uniform_seat_draws_what_a_random_bot_draws_on_the_wire_paths_state(name: str) -> None:
    """A random seat in-process plays the engine's draw on the truth, which depends on the
    legal moves alone: the very move the random policy chooses on the state the wire path
    samples from the seat's view."""
    game = get_game(name)
    assert RandomPolicy.sees == UNIFORM
    for n, state in enumerate(positions(name)):
        seat = state.current_seat
        assert seat is not None
        sample = game.determinize(state.view(seat), state.private(seat), seat, random.Random(n))
        for k in range(5):
            truth = state.clone()
            LocalSeat(RandomPolicy(name), game, truth, seat, f"{n}:{k}").play()
            chosen = RandomPolicy(name).choose(sample.clone(), random.Random(f"{n}:{k}:policy"))
            expected = state.clone()
            expected.apply(chosen)
            assert truth.view(None) == expected.view(None)


class Spy:
    """A policy that checks the state it gets against the truth, then plays a random move."""

    name = "spy"

    def __init__(self, truth: GameState, seat: int) -> None:
        self.truth, self.seat, self.got = truth, seat, 0

    def choose(self, state: GameState, rng: random.Random) -> Any:
        truth = self.truth
        assert state is not truth
        assert state.view(self.seat) == truth.view(self.seat)
        assert state.private(self.seat) == truth.private(self.seat)
        assert no_record_of_the_truth(state, truth)
        self.got += 1
        return random_action(state, rng)


def test_an_in_process_seat_gives_its_policy_a_resampled_state_never_the_truth(
    name: str,
) -> None:
    game = get_game(name)
    truth = game.new_state(config_of(name), 4)
    seats = len(truth.scores())
    spies = [Spy(truth, seat) for seat in range(seats)]
    local = [LocalSeat(spies[seat], game, truth, seat, seat) for seat in range(seats)]
    decisions = 0
    while not truth.is_over():
        local[truth.current_seat].play()  # type: ignore[index]
        decisions += 1
    assert sum(spy.got for spy in spies) == decisions == len(truth.to_record()["actions"])


def test_the_same_spec_gives_the_same_game_in_process(name: str) -> None:
    lineup = ("random",) * len(get_game(name).new_state(config_of(name), 0).scores())
    spec = GameSpec(0, name, config_of(name), 11, lineup)
    first, again = play_local(spec), play_local(spec)
    assert first.record == again.record
    assert get_game(name).from_record(first.record).result() is not None


def test_uniform_seats_play_the_game_of_seats_deciding_one_after_another(name: str) -> None:
    """Self-play of random seats draws for every seat at once (Engine.playout_seats): the
    same game as each seat playing its own move in turn, as a seat over the network does."""
    game = get_game(name)
    lineup = ("random",) * len(game.new_state(config_of(name), 0).scores())
    for seed in SEEDS:
        spec = GameSpec(3, name, config_of(name), seed, lineup)
        state = game.new_state(spec.config, seed)
        seats = [LocalSeat(policy, game, state, seat, spec.seat_seed(seat))
                 for seat, policy in enumerate(spec.policies())]
        assert all(seat.uniform for seat in seats)
        while (turn := state.current_seat) is not None:
            seats[turn].play()
        played = dict(play_local(spec).record)
        assert played.pop("names") == seat_names(lineup)  # as a host's table names them
        assert played == state.to_record()


@pytest.mark.parametrize("game", [g for g in game_names() if g != "sagani"])
def test_greedy_seats_play_the_same_game_twice_in_process(game: str) -> None:
    config = config_of(game)
    spec = GameSpec(1, game, config, 5, ("greedy", "random", "greedy", "random"))
    assert play_local(spec).record == play_local(spec).record


def test_an_in_process_seat_plays_the_default_move_for_an_illegal_answer(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Broken:
        name = "broken"

        def choose(self, state: GameState, rng: random.Random) -> Any:
            return "no move of any game"

    game = get_game("sugi")
    truth = game.new_state(config_of("sugi"), 2)
    expected = truth.clone()
    expected.apply(expected.default_action())
    seat = truth.current_seat
    assert seat is not None
    LocalSeat(Broken(), game, truth, seat, 0).play()
    assert truth.view(None) == expected.view(None)
    assert "policy broken answered an illegal move" in caplog.text


def reachable(root: object, constants: set[int] | frozenset[int] = frozenset()) -> list[object]:
    """Every object reachable from ``root`` through containers and attributes (slots too),
    but for atoms, types, callables and generators, and for the game's ``constants`` (ids),
    which are neither listed nor walked through: Sugi's card tables are most of a state's
    objects, and walking them at every position of every config took minutes."""
    seen: set[int] = set(constants)
    found: list[object] = []
    todo = [root]
    while todo:
        obj = todo.pop()
        if id(obj) in seen:
            continue
        kind = _kind(type(obj))
        if kind is _ATOM:
            continue
        seen.add(id(obj))
        found.append(obj)
        if kind is _MAP:
            todo += [*obj, *obj.values()]  # type: ignore[attr-defined]
        elif kind is _ITEMS:
            todo += obj  # type: ignore[arg-type]
        else:
            todo += [getattr(obj, name, None) for name in attributes(obj)]
    return found


_ATOM, _MAP, _ITEMS, _OBJECT = "atom", "map", "items", "object"
#: What each type is to :func:`reachable` (the walk asked isinstance and callable of every
#: object: 10 million calls, most of the Sugi case's 8 s).
_KINDS: dict[type, str] = {}


def _kind(cls: type) -> str:
    kind = _KINDS.get(cls)
    if kind is None:
        if (issubclass(cls, int | float | str | bytes | type | random.Random)
                or cls is type(None) or any("__call__" in vars(k) for k in cls.__mro__)):
            kind = _ATOM
        elif issubclass(cls, dict):
            kind = _MAP
        elif issubclass(cls, list | tuple | set | frozenset):
            kind = _ITEMS
        else:
            kind = _OBJECT
        _KINDS[cls] = kind
    return kind


def attributes(obj: object) -> list[str]:
    return [*(n for cls in type(obj).__mro__ for n in getattr(cls, "__slots__", ())),
            *getattr(obj, "__dict__", {})]


class Vandal:
    """A policy that chooses a random move, then writes to everything its state holds (but the
    game's constants, which every state shares): a list gets an item more, a map a key more, a
    number of an object's 1000 more."""

    name = "vandal"

    def __init__(self, constants: set[int]) -> None:
        self.constants = constants
        self.chosen: list[Any] = []

    def choose(self, state: GameState, rng: random.Random) -> Any:
        self.chosen.append(random_action(state, rng))
        for obj in reachable(state, self.constants):
            if isinstance(obj, list):
                obj.append(7777)
            elif isinstance(obj, dict):
                obj[("vandal",)] = 7777
            elif not isinstance(obj, tuple | set | frozenset):
                for name in attributes(obj):
                    value = getattr(obj, name, None)
                    if type(value) is int:
                        setattr(obj, name, value + 1000)
        return self.chosen[-1]


@pytest.mark.parametrize("game_name", game_names())
def test_a_policy_that_writes_to_its_state_changes_nothing_of_the_truth(game_name: str) -> None:
    """In-process, the state a policy gets is its own to change, as over the network (a state
    rebuilt from the wire): writing to it directly, not through apply, leaves the true game
    as it was. Sagani's displays and Sagrada's windows and config were shared with the truth,
    so a policy that tried a placement by hand, or raised a seat's score, played it."""
    game = get_game(game_name)
    for config in configs(game_name):
        truth = game.new_state(config, 3)
        # What every state shares whatever its deal (tile and card tables): not the game's.
        other = game.new_state(copy.deepcopy(config), 4)
        constants = {id(o) for o in reachable(other)} & {id(o) for o in reachable(truth)}
        # The same game played beside it, from its record: no vandal ever reaches it.
        expected = game.from_record(truth.to_record())
        rng = random.Random(0)
        for n in itertools.count():
            if truth.is_over():
                break
            if n % 5:
                action = random_action(truth, rng)
                truth.apply(action)
                expected.apply(action)
                continue
            vandal = Vandal(constants)
            LocalSeat(vandal, game, truth, truth.current_seat, n).play()  # type: ignore[arg-type]
            expected.apply(vandal.chosen[0])
            assert knowledge(truth) == knowledge(expected), (config, n)
            assert truth.to_record() == expected.to_record(), (config, n)
            assert truth.legal_actions() == expected.legal_actions(), (config, n)


@pytest.mark.parametrize("game_name", game_names())
def test_a_resampled_state_shares_no_object_it_may_change_with_the_truth(game_name: str) -> None:
    """Nothing a policy can reach from its sample (lists, maps, objects, however deep: a
    worked-out cache too) is an object of the truth's that it may change, but for the game's
    constants, which every state shares whatever its deal; at every third position of a game
    of every config. Before, Sagani's displays, Sagrada's windows, config and the cells its
    Cork-backed Straightedge had worked out were the truth's own."""
    game = get_game(game_name)
    for config in configs(game_name):
        truth = game.new_state(config, 5)
        # Kept while the ids are: a state freed at once gave its ids to the samples, whose
        # objects the walk then took for constants (a sample's own root among them).
        other = game.new_state(copy.deepcopy(config), 6)
        constants = {id(o) for o in reachable(other)}
        rng = random.Random(1)
        while not truth.is_over():
            if truth.version % 3:  # every third position: each phase comes round many times
                truth.apply(random_action(truth, rng))
                continue
            seat = truth.current_seat
            assert seat is not None
            sample = game.resample(truth, seat, random.Random(2))
            mine = {id(o) for o in reachable(truth, constants)}
            shared = [o for o in reachable(sample, constants)
                      if id(o) in mine and not isinstance(o, tuple | frozenset)]
            assert not shared, (config, truth.version, shared)
            truth.apply(random_action(truth, rng))
