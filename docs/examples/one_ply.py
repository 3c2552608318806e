"""Policies of one's own, one per game, written with the library: each looks one decision ahead
and beats the random policy (in a tournament of 20 games, seed 0: 20-0 in Sagani and Sugi,
17-3 in Sagrada; against the house's greedy 6-14, 4-16 and 10-10).

Nothing here is registered anywhere: the commands load a policy by its file and name.

    sagani selfplay --game sagani --policy docs/examples/one_ply.py:SaganiOnePly,greedy
    sagani tournament --game sugi --strategies docs/examples/one_ply.py:SugiRoundAhead,random
    sagani bot HOST --table T --strategy docs/examples/one_ply.py:SagradaOnePly

A policy is made as ``NAME(game=...)`` and asked ``choose(state, rng)`` for one of
``state.legal_actions()`` (``sagani_net.bots.base.Policy``). The state is rebuilt from what the
seat knows, its secrets sampled afresh: clone it and play on the copies at will. What the
views hold is in ``protocol/games/*.md``; the engines' own attributes in their ``rules.py``.
"""

from __future__ import annotations

import random
from typing import Any

from sagani_net.game import GameState
from sagani_net.games import get_game
from sagani_net.games.sagani.rules import State as SaganiState
from sagani_net.games.sagrada.rules import State as SagradaState
from sagani_net.games.sugi.rules import State as SugiState


class SaganiOnePly:
    """Place the held tile where the rules' preview likes it best; take the offer tile whose
    best placement is worth most."""

    name = "sagani-one-ply"

    def __init__(self, game: str) -> None:
        self.game = game

    def choose(self, state: GameState, rng: random.Random) -> Any:
        assert isinstance(state, SaganiState)
        if state.phase == "place":
            return self.best_placement(state)[1]
        best: tuple[float, Any] | None = None
        for action in state.legal_actions():  # take, draw, pick, pass or reveal
            after = state.clone()
            after.push(action)
            worth = self.best_placement(after)[0] if after.phase == "place" else 0.0
            if best is None or worth > best[0]:
                best = (worth, action)
        assert best is not None
        return best[1]

    @staticmethod
    def best_placement(state: SaganiState) -> tuple[float, Any]:
        def worth(action: Any) -> float:
            placed = state.preview(action)  # what it covers, flips, scores and costs
            return (placed.points - 2 * placed.cacophony + 0.5 * len(placed.covers)
                    - 0.3 * len(placed.open))

        return max(((worth(action), action) for action in state.legal_actions()),
                   key=lambda pair: pair[0])


class SagradaOnePly:
    """The decision after which the seat's score sheet (its private objective counted) plus a
    credit per filled cell is best."""

    name = "sagrada-one-ply"
    FILLED = 1.5

    def __init__(self, game: str) -> None:
        self.game = game

    def choose(self, state: GameState, rng: random.Random) -> Any:
        assert isinstance(state, SagradaState)
        seat = state.current_seat
        assert seat is not None
        best: tuple[float, Any] | None = None
        for action in state.legal_actions():
            after = state.clone()
            after.push(action)
            sheet = after.score_sheet(seat)
            # A hair of randomness parts ties, from the seat's own generator.
            worth = sheet["total"] + self.FILLED * (20 - sheet["empty"]) + rng.random() * 1e-3
            if best is None or worth > best[0]:
                best = (worth, action)
        assert best is not None
        return best[1]


class SugiRoundAhead:
    """Each decision (a sample of them) played on to the end of the round at random, a few
    times, each on a fresh sample of what the seat cannot see; scored on the seat's family
    tree card: its samurai's columns count by their points, the others' against it."""

    name = "sugi-round-ahead"

    def __init__(self, game: str, playouts: int = 4, width: int = 30) -> None:
        self.game, self.playouts, self.width = game, playouts, width

    def choose(self, state: GameState, rng: random.Random) -> Any:
        assert isinstance(state, SugiState)
        rules = get_game(self.game)
        seat = state.current_seat
        assert seat is not None
        view, private = state.view(seat), state.private(seat)
        assert private is not None
        static = rules.static_data(rules.parse_config(
            {"players": view["players"], "edition": view["edition"]}))
        points = static["families"][private["family"]]["points"]
        actions = state.legal_actions()
        if len(actions) > self.width:
            actions = rng.sample(actions, self.width)
        best: tuple[float, Any] | None = None
        for action in actions:
            worth = 0.0
            for _ in range(self.playouts):
                sample = rules.resample(state, seat, rng)  # the seat's secrets stay its own
                assert isinstance(sample, SugiState)
                sample.push(action)
                round_ = sample.round  # an attribute: a view a step would cost more
                while not sample.is_over() and sample.round == round_:
                    legal = sample.legal_actions()
                    sample.push(legal[int(rng.random() * len(legal))])
                for colour, space in zip(static["colours"], sample.view()["samurai"],
                                         strict=True):
                    column = 7 if space is None else space[0]  # None: on a pedestal
                    worth += points.get(colour, -2) * column
            if best is None or worth > best[0]:
                best = (worth, action)
        assert best is not None
        return best[1]
