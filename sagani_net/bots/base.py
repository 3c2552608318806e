"""What every policy is, and how a policy finds a game's own bot knowledge.

A game's ``bots.py`` (see :mod:`sagani_net.games`) may define, all optional but ``evaluate``
(without which, or without a ``bots.py``, a game has the random policy only):

- ``evaluate(state, seat) -> float``: how good ``state`` is for ``seat`` (higher is better);
  the generic greedy policy and the generic search's rollouts score with it.
- ``action_values(state, rng) -> [(value, action), ...]``: the one-ply values of the legal
  actions, for a game whose single decision says little on its own (a Sagani take is worth
  the placement it allows); the greedy policy uses them instead of ``evaluate``.
- ``Search(**options)``: the search's hooks (see :class:`sagani_net.bots.mcts.SearchHooks`);
  without it, the search plays single actions (:class:`sagani_net.bots.mcts.PlainSearch`),
  among ``candidate_actions(state)`` if given, with rollouts of ``rollout_action(state, rng)``
  if given.
- ``STRATEGIES``: strategies of its own, name -> factory (see :func:`sagani_net.bots.make_policy`).
- ``SOLO_FIGURES``: result figures (name -> column title) that tournament and self-play tables
  show for one-seat games that reached their goal (fewer is better, as in tiles to the goal).

A game's bots import its rules only, never this package.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from types import ModuleType
from typing import Any, Protocol

from sagani_net.game import Data, Game, GameState, RuleError
from sagani_net.games import game_part

log = logging.getLogger("sagani_net.bots")


class Policy(Protocol):
    name: str

    def choose(self, state: GameState, rng: random.Random) -> Any:
        """The action to play for ``state.current_seat``; ``state`` is the policy's to search
        (a determinized one: it holds nothing the seat may not know)."""


def game_bots(game: str) -> ModuleType | None:
    """The ``bots`` part of the game called ``game``; None for a game without one (it gets
    the random policy only)."""
    try:
        return game_part(game, "bots")
    except ModuleNotFoundError as exc:
        if exc.name is None or not exc.name.endswith(".bots"):
            raise  # the part exists but imports something missing
        return None


def evaluation(game: str) -> Callable[[GameState, int], float]:
    """The game's ``evaluate``; raises ValueError for a game without one."""
    evaluate = getattr(game_bots(game), "evaluate", None)
    if evaluate is None:
        raise ValueError(f"{game} has no evaluation in its bots.py: only random plays it")
    return evaluate


def decide(
    policy: Policy,
    game: Game,
    seat: int,
    view: Data,
    private: Data | None,
    rng: random.Random,
    view_rng: random.Random,
) -> Data:
    """What ``policy`` plays for ``seat``, as wire data, from what the seat knows.

    The policy gets a state rebuilt from the view and private data alone (hidden parts sampled
    from ``view_rng``), in a tournament exactly as over the network. An answer that the rules
    refuse is replaced by the game's default move, so a bot never sends an illegal action.
    """
    state = game.determinize(view, private, seat, view_rng)
    try:
        action = policy.choose(state.clone(), rng)
        state.clone().apply(action)
    except RuleError as exc:
        log.warning("policy %s answered an illegal move (%s); playing the default move",
                    policy.name, exc)
        action = state.default_action()
    return state.action_data(action)
