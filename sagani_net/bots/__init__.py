"""Policies: what a bot decides, given a state it may search. No sockets here.

A bot that plays over the network rebuilds a state from its view with
:meth:`sagani_net.games.sagani.rules.State.from_view`, so a policy never sees the secret draw order.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol

from sagani_net.games.sagani.rules import Action, State


class Policy(Protocol):
    name: str

    def choose(self, state: State, rng: random.Random) -> Action:
        """The action to play for ``state.current_seat``."""


POLICIES: dict[str, Callable[..., Policy]] = {}


def policy(name: str) -> Callable[[Callable[..., Policy]], Callable[..., Policy]]:
    def register(factory: Callable[..., Policy]) -> Callable[..., Policy]:
        POLICIES[name] = factory
        return factory

    return register


def make_policy(name: str, **options: object) -> Policy:
    """A policy by name (``random``, ``greedy``, ...)."""
    from sagani_net.bots import mcts, simple  # noqa: F401  (registers the built-in policies)

    try:
        factory = POLICIES[name]
    except KeyError:
        raise ValueError(f"unknown policy {name!r}; known: {sorted(POLICIES)}") from None
    return factory(**options)
