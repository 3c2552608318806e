"""Policies: what a bot decides, given a state it may search. No sockets here.

Every game gets ``random``, ``greedy`` (one ply over the game's evaluation) and ``mcts``
(information-set search over the game's determinizer), each with the game's own hooks from its
``bots.py`` (:mod:`sagani_net.bots.base`). A bot never sees a secret: over the network and in
tournaments it decides on a state rebuilt from its seat's view and private data
(:meth:`sagani_net.game.Game.determinize`).

>>> make_policy("greedy", game="sagani").name
'greedy'
"""

from __future__ import annotations

from collections.abc import Callable

from sagani_net.bots.base import Policy
from sagani_net.bots.mcts import MctsPolicy
from sagani_net.bots.simple import GreedyPolicy, RandomPolicy
from sagani_net.games import DEFAULT_GAME

#: The policies every game has, by name.
POLICIES: dict[str, Callable[..., Policy]] = {
    "random": RandomPolicy,
    "greedy": GreedyPolicy,
    "mcts": MctsPolicy,
}
STRATEGIES = tuple(POLICIES)


def make_policy(name: str, game: str = DEFAULT_GAME, **options: object) -> Policy:
    """A policy by name (``random``, ``greedy``, ``mcts``) for the game called ``game``."""
    try:
        factory = POLICIES[name]
    except KeyError:
        raise ValueError(f"unknown policy {name!r}; known: {', '.join(POLICIES)}") from None
    return factory(game=game, **options)


__all__ = ["POLICIES", "STRATEGIES", "Policy", "make_policy"]
