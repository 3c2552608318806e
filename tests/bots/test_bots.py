"""The bots in-process: every strategy finishes games, and the search bot sees only its view."""

from __future__ import annotations

import functools
import logging
import random

import pytest

from sagani_net.bots import make_policy, mcts, strategy_names
from sagani_net.bots.base import LocalSeat, decide
from sagani_net.bots.mcts import MctsPolicy, PlainSearch
from sagani_net.bots.runner import policy_for
from sagani_net.bots.simple import GreedyPolicy
from sagani_net.bots.tournament import GameSpec, play_local
from sagani_net.games import game_names, get_game
from sagani_net.games.sagani import bots as sagani_bots
from sagani_net.games.sagani.rules import SAGANI, Action, State, shuffled_tiles

#: Tiny budgets keep the search bot quick in tests; it is deterministic with think_s=None.
FAST_MCTS = {"think_s": None, "iterations": 12}


def fast_mcts() -> MctsPolicy:
    return MctsPolicy(**FAST_MCTS)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "strategies",
    [("random", "greedy"), ("mcts", "random"), ("greedy", "mcts", "random"),
     ("mcts", "greedy", "random", "mcts")],
)
def test_every_strategy_finishes_multiplayer_games_against_the_others(
    strategies: tuple[str, ...],
) -> None:
    config = {"players": len(strategies), "mode": "multi"}
    game = GameSpec(0, "sagani", config, 11, strategies, {"mcts": FAST_MCTS})
    result = play_local(game)
    state = State.from_record(result.record)
    assert state.is_over()
    assert sorted(result.ranking) == list(range(len(strategies)))


@pytest.mark.parametrize("mode", ["solo", "solo-advanced"])
def test_the_search_bot_plays_both_solo_modes_to_the_end(mode: str) -> None:
    options = {"mcts": {**FAST_MCTS, "iterations": 4}}
    result = play_local(GameSpec(0, "sagani", {"players": 1, "mode": mode}, 5, ("mcts",), options))
    assert State.from_record(result.record).is_over()
    if mode == "solo":
        assert {"tiles_used", "won"} <= set(result.figures)


def test_the_search_bot_is_deterministic_for_a_seed_and_an_iteration_budget() -> None:
    state = State.new(3, seed=4)
    for _ in range(6):
        state.apply(make_policy("greedy").choose(state, random.Random(0)))
    first = fast_mcts().choose(state, random.Random(99))
    again = fast_mcts().choose(state, random.Random(99))
    assert first == again


def test_the_search_tree_stops_growing_at_its_bound_and_the_search_goes_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The tree grew a node an iteration, each with its candidate placements (some 15 KB in
    Sagani): 20,000 iterations held 364 MB, and 'sagani analyze --think 3600' would have held
    tens of gigabytes a decision. Past MAX_NODES the iterations refine the tree it has."""
    monkeypatch.setattr(mcts, "MAX_NODES", 40)
    state = State.new(2, seed=4)
    bot = MctsPolicy("sagani", think_s=None, iterations=300)
    root = bot.search_root(state.view(0), state.private(0), 0, random.Random(1))

    def nodes(node: mcts.Node) -> int:
        return 1 + sum(nodes(child) for child in node.children.values())

    assert bot.last_iterations == 300 and nodes(root) - 1 <= 40
    assert sum(child.visits for child in root.children.values()) == 300


def hidden_order_twin(state_tiles: list[int], keep: int) -> list[int]:
    """The same deal with the tiles below the first ``keep`` reversed: only the order differs."""
    return state_tiles[:keep] + state_tiles[keep:][::-1]


def test_the_search_bot_decides_the_same_for_two_secret_orders_behind_one_view() -> None:
    tiles = shuffled_tiles(21)
    # The offer (5) and the top tile must match; the order of the other 66 is the secret.
    twin = hidden_order_twin(tiles, 6)
    twin_top = tiles[5]
    assert twin != tiles and twin[5] == twin_top
    a, b = State.new(2, tiles=tiles), State.new(2, tiles=twin)
    for _ in range(3):  # a few identical turns (take + place), drawn from the offer only
        for state in (a, b):
            state.apply(Action.take(0))
        cell = next(iter(a.seats[a.seat].frontier), (0, 0))
        for state in (a, b):
            state.apply(Action.place(cell, 0))
    assert a.view(a.seat) == b.view(b.seat) and a.pile != b.pile
    decisions = []
    for state in (a, b):
        bot = fast_mcts()
        rng = random.Random(5)
        first = bot.choose(state, rng)
        state.apply(first)
        decisions.append((first, bot.choose(state, rng)))
    assert decisions[0] == decisions[1]


def test_the_search_bot_never_reads_the_state_beyond_its_view() -> None:
    state = State.new(2, seed=8)

    class ViewOnly:
        """Answers ``view``, ``private`` and ``current_seat`` and nothing else."""

        current_seat = state.current_seat

        def view(self, seat: int | None = None) -> dict:
            return state.view(seat)

        def private(self, seat: int) -> dict | None:
            return state.private(seat)

        def __getattr__(self, name: str) -> object:
            raise AssertionError(f"the search bot read state.{name}")

    action = fast_mcts().choose(ViewOnly(), random.Random(1))  # type: ignore[arg-type]
    state.apply(action)


def test_the_planned_placement_is_played_on_the_turns_second_decision() -> None:
    state = State.new(2, seed=2)
    bot = fast_mcts()
    rng = random.Random(3)
    state.apply(bot.choose(state, rng))
    bot.last_iterations = -1
    place = bot.choose(state, rng)
    assert place.type == "place" and bot.last_iterations == -1  # no second search
    state.apply(place)


def test_a_deadline_caps_the_search_bots_thinking_time() -> None:
    bot = policy_for("mcts", think_s=5.0, move_deadline_s=0.5)
    assert isinstance(bot, MctsPolicy) and bot.config.think_s == pytest.approx(0.25)


def test_an_illegal_answer_is_replaced_by_a_legal_move() -> None:
    class Broken:
        name = "broken"

        def choose(self, state: State, rng: random.Random) -> Action:
            return Action.place((9, 9), 0)

    state = State.new(2, seed=1)
    data = decide(Broken(), SAGANI, 0, state.view(0), None, random.Random(0), random.Random(0))
    assert data == state.action_data(state.default_action())
    state.apply(state.parse_action(data))


def test_a_rule_error_inside_a_policys_choosing_is_said_so_and_the_default_played_both_ways(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # A policy's own search that played an illegal move was logged as "answered an illegal
    # move": its author looked for a bad answer, not for a bug in the search.
    class Searching:
        name = "searching"

        def choose(self, state: State, rng: random.Random) -> Action:
            state.apply(Action.place((9, 9), 0))
            return state.legal_actions()[0]

    state = State.new(2, seed=1)
    with caplog.at_level(logging.WARNING, logger="sagani_net.bots"):
        data = decide(Searching(), SAGANI, 0, state.view(0), None, random.Random(0),
                      random.Random(0))
    assert data == state.action_data(state.default_action())
    assert "policy searching met a rule error while choosing" in caplog.text
    # In-process, as over the network: the default move, not a traceback.
    LocalSeat(Searching(), SAGANI, state, 0, 1).play()
    assert state.history == [(0, State.new(2, seed=1).default_action())]


@pytest.mark.parametrize("strategy", ["random", "greedy", "mcts"])
@pytest.mark.parametrize("game", game_names())
def test_every_policy_plays_every_game_to_the_end(game: str, strategy: str) -> None:
    rules = get_game(game)
    config = rules.parse_config({})
    seats = rules.seats(config)
    spec = GameSpec(0, game, config, 3, (strategy,) * seats,
                    {"mcts": {"think_s": None, "iterations": 2}})
    result = play_local(spec)
    assert rules.from_record(result.record).is_over()
    assert sorted(result.ranking) == list(range(seats))


def test_the_generic_greedy_step_scores_every_legal_action_by_the_games_evaluation() -> None:
    state = State.new(2, seed=6)
    state.apply(Action.take(0))
    greedy = GreedyPolicy("sagani")
    values = greedy.one_ply(state)
    assert [a for _, a in values] == state.legal_actions()
    value, action = max(values, key=lambda va: va[0])
    after = state.clone()
    after.apply(action)
    assert value == sagani_bots.evaluate(after, 0)
    assert all(v <= value for v, _ in values)


def test_sagani_placement_values_are_what_the_rules_preview_finds_in_every_rotation() -> None:
    # placement_values works out what a tile covers and flips once a cell, for its four
    # rotations: each value must still be the one the rules' own preview of that placement gives.
    checked = 0
    for seed in range(4):
        state = State.new(3, seed=seed)
        rng = random.Random(seed)
        while not state.is_over():
            if state.held is not None:
                player = state.seats[state.seat]
                for cell in list(player.frontier) or [(0, 0)]:
                    values = sagani_bots.placement_values(player, state.held, cell)
                    for rot in range(4):
                        p = player.evaluate(state.held, cell, rot)
                        want = (p.points - 2 * p.cacophony + 0.15 * p.discs_freed
                                + 0.6 * len(p.covers) + 0.5 * len(p.covered) - 0.45 * len(p.open))
                        assert values[rot] == pytest.approx(want), (seed, state.version, cell, rot)
                        checked += 1
            state.apply(state.random_action(rng))
    assert checked > 1000


def test_the_generic_search_plays_a_game_without_search_hooks_of_its_own() -> None:
    # PlainSearch: single legal actions as moves, random rollouts scored by evaluate.
    plain = functools.partial(PlainSearch, sagani_bots.evaluate)
    bot = MctsPolicy("sagani", think_s=None, iterations=8, search=plain, rollout_decisions=10)
    state = State.new(2, seed=4)
    for _ in range(6):
        action = bot.choose(state, random.Random(0))
        assert action in state.legal_actions()
        state.apply(action)


def test_a_game_may_register_strategies_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    class FirstLegal:
        name = "first"

        def choose(self, state: State, rng: random.Random) -> Action:
            return state.legal_actions()[0]

    monkeypatch.setattr(sagani_bots, "STRATEGIES", {"first": FirstLegal}, raising=False)
    assert strategy_names("sagani") == ("random", "greedy", "mcts", "first")
    config = {"players": 2, "mode": "multi"}
    result = play_local(GameSpec(0, "sagani", config, 1, ("first", "greedy")))
    assert State.from_record(result.record).is_over()
    with pytest.raises(ValueError, match="unknown strategy 'second'"):
        make_policy("second")


def test_the_plain_search_keeps_to_the_games_candidates_and_rollout_policy() -> None:
    rolled = []

    def rollout_action(state: State, rng: random.Random) -> Action:
        rolled.append(state.version)
        return state.legal_actions()[0]

    only_last = functools.partial(PlainSearch, sagani_bots.evaluate,
                                  lambda state: state.legal_actions()[-1:], rollout_action)
    bot = MctsPolicy("sagani", think_s=None, iterations=6, search=only_last)
    state = State.new(3, seed=2)
    assert bot.choose(state, random.Random(0)) == state.legal_actions()[-1]
    assert rolled  # the rollouts were the game's
