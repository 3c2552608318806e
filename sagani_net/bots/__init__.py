"""Policies: what a bot decides, given a state it may search. No sockets here.

Every game gets ``random``, ``greedy`` (one ply over the game's evaluation) and ``mcts``
(information-set search over the game's determinizer), each with the game's own hooks from its
``bots.py`` (:mod:`sagani_net.bots.base`); a game's ``bots.py`` may add strategies of its own
in a ``STRATEGIES`` map of name to factory (called with the policy's options). A bot never
sees a secret: over the network it decides on a state rebuilt from its seat's view and private
data (:meth:`sagani_net.game.Game.determinize`); in tournaments and self-play on the same state
made from the truth at once (:meth:`sagani_net.game.Game.resample`: its hidden parts sampled
afresh), or on the legal moves alone if that is all it looks at (``random``).

>>> make_policy("greedy", game="sagani").name
'greedy'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from sagani_net.bots.base import Policy, game_bots
from sagani_net.bots.simple import GreedyPolicy, RandomPolicy
from sagani_net.games import DEFAULT_GAME, game_names


def mcts_policy(**options: Any) -> Policy:
    """:class:`sagani_net.bots.mcts.MctsPolicy`, its module imported when first made: random
    and greedy self-play starts without the search (and its dataclasses)."""
    from sagani_net.bots.mcts import MctsPolicy

    return MctsPolicy(**options)


#: The policies every game has, by name.
POLICIES: dict[str, Callable[..., Policy]] = {
    "random": RandomPolicy,
    "greedy": GreedyPolicy,
    "mcts": mcts_policy,
}
STRATEGIES = tuple(POLICIES)


def _own_strategies(game: str) -> dict[str, Callable[..., Policy]]:
    return getattr(game_bots(game), "STRATEGIES", {})


def strategy_names(game: str | None = None) -> tuple[str, ...]:
    """The strategies of ``game``: every game's, then its own; None: of any game."""
    games = game_names() if game is None else [game]
    own = [name for g in games for name in _own_strategies(g) if name not in POLICIES]
    return STRATEGIES + tuple(dict.fromkeys(own))


def unknown_strategies(names: Iterable[str], game: str) -> list[str]:
    """Those of ``names`` that ``game`` has no strategy of, sorted. The game's own strategies
    (its ``bots.py``) are looked at only for a name that is not every game's."""
    rest = set(names) - set(POLICIES)
    return sorted(rest - set(_own_strategies(game))) if rest else []


def make_policy(name: str, game: str = DEFAULT_GAME, **options: object) -> Policy:
    """A policy by name (``random``, ``greedy``, ``mcts``, or one of the game's own: these
    three names always mean the policies every game has) for the game called ``game``; raises
    ValueError for a name the game does not know."""
    if name in POLICIES:
        return POLICIES[name](game=game, **options)
    own = _own_strategies(game)
    if name in own:
        return own[name](**options)
    raise ValueError(f"unknown strategy {name!r}; known: {', '.join(strategy_names(game))}")


__all__ = ["POLICIES", "STRATEGIES", "Policy", "make_policy", "strategy_names",
           "unknown_strategies"]
