"""The random and the greedy policy, for every game."""

from __future__ import annotations

import random
from typing import Any

from sagani_net.bots.base import UNIFORM, evaluation, game_bots
from sagani_net.game import GameState, random_action
from sagani_net.games import DEFAULT_GAME


class RandomPolicy:
    """A uniformly random legal action."""

    name = "random"
    #: It looks at nothing but the legal moves (see :class:`sagani_net.bots.base.Policy`).
    sees = UNIFORM

    def __init__(self, game: str = DEFAULT_GAME) -> None:
        self.game = game

    def choose(self, state: GameState, rng: random.Random) -> Any:
        return random_action(state, rng)


class GreedyPolicy:
    """One ply: the legal action whose result the game's ``evaluate`` likes best for the seat
    to move (ties to the first legal one), or the best of the game's own ``action_values``."""

    name = "greedy"

    def __init__(self, game: str = DEFAULT_GAME) -> None:
        bots = game_bots(game)
        # Each action is judged on a copy made for it alone: the game may spend it.
        self._evaluate = getattr(bots, "evaluate_spent", None) or evaluation(game)
        self._action_values = getattr(bots, "action_values", None)

    def choose(self, state: GameState, rng: random.Random) -> Any:
        if self._action_values is not None:
            values = self._action_values(state, rng)
        else:
            values = self.one_ply(state)
        return max(values, key=lambda va: va[0])[1]  # max keeps the first of equal values

    def one_ply(self, state: GameState) -> list[tuple[float, Any]]:
        """Every legal action with the evaluation of the state it leads to."""
        seat = state.current_seat
        assert seat is not None
        values = []
        for action in state.legal_actions():
            after = state.clone()
            after.push(action)  # one of legal_actions(): no second check, no events to make
            values.append((self._evaluate(after, seat), action))
        return values
