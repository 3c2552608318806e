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
from functools import partial
from types import ModuleType
from typing import Any, Protocol

from sagani_net.game import Data, Game, GameState, RuleError, random_action
from sagani_net.games import game_part

log = logging.getLogger("sagani_net.bots")


class Policy(Protocol):
    """A strategy. It may say what it needs to see in ``sees``: ``"state"`` (the default: a
    whole state to search, its hidden parts sampled) or ``"moves"`` (the legal moves alone,
    as :class:`Moves`: in-process that costs no sampling at all)."""

    name: str

    def choose(self, state: GameState, rng: random.Random) -> Any:
        """The action to play for ``state.current_seat``; ``state`` is the policy's to search
        (a determinized or resampled one: it holds nothing the seat may not know)."""


class Moves:
    """What a policy that ``sees`` only ``"moves"`` gets of the true state in-process: the
    seat to move and its legal moves, which the seat knows anyway, and nothing else.

    ``drawn`` is the move :meth:`random_action` drew last: the engine's own, legal by
    construction, so :class:`LocalSeat` plays it without checking it again."""

    __slots__ = ("_state", "_draw", "drawn")

    def __init__(self, state: GameState) -> None:
        self._state = state
        own = getattr(state, "random_action", None)
        self._draw: Callable[[random.Random], Any] = own or partial(random_action, state)
        self.drawn: Any = None

    @property
    def current_seat(self) -> int | None:
        return self._state.current_seat

    def legal_actions(self) -> list[Any]:
        return self._state.legal_actions()

    def random_action(self, rng: random.Random) -> Any:
        """A uniformly random legal move, as the game's :func:`sagani_net.game.random_action`
        draws it: the same as on a determinized state for the same ``rng``."""
        self.drawn = self._draw(rng)
        return self.drawn


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
    evaluate: Callable[[GameState, int], float] | None = getattr(game_bots(game), "evaluate", None)
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
    from ``view_rng``): the network path (:mod:`sagani_net.bots.runner`); in-process,
    :class:`LocalSeat` gives it the same from the true state at once. An answer that the rules
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


class LocalSeat:
    """One seat of an in-process game (tournaments, self-play): :meth:`play` plays on the true
    ``state`` what ``policy`` decides for the seat, from what the seat knows.

    The policy gets the legal moves alone (:class:`Moves`) if that is all it ``sees``, else a
    state resampled from the truth (:meth:`sagani_net.game.Game.resample`: hidden parts drawn
    from ``view_rng``), never the truth itself. For the same generators that is what
    :func:`decide` gives it over the network, so both paths play the same game. An answer that
    the rules refuse is replaced by the game's default move. Built once per seat and game, so
    that a decision costs the policy and the rules, and next to nothing besides.
    """

    __slots__ = ("policy", "game", "state", "seat", "rng", "view_rng", "moves", "_push",
                 "_play")

    def __init__(self, policy: Policy, game: Game, state: GameState, seat: int,
                 rng: random.Random, view_rng: random.Random) -> None:
        self.policy, self.game, self.state, self.seat = policy, game, state, seat
        self.rng, self.view_rng = rng, view_rng
        self.moves = Moves(state) if getattr(policy, "sees", "state") == "moves" else None
        # Without events where the engine can (:meth:`sagani_net.game.Engine.push`, ``play``):
        # nobody reads them here.
        self._push: Callable[[Any], Any] = getattr(state, "push", state.apply)
        self._play: Callable[[Any], Any] = getattr(state, "play", state.apply)

    def play(self) -> None:
        """Decide and play the seat's move; it must be the seat's turn."""
        moves = self.moves
        if moves is not None:
            moves.drawn = None
            action = self.policy.choose(moves, self.rng)  # type: ignore[arg-type]
            if action is moves.drawn and action is not None:
                self._push(action)  # the engine's own draw: legal by construction
                return
        else:
            action = self.policy.choose(
                self.game.resample(self.state, self.seat, self.view_rng), self.rng)
        try:
            self._play(action)
        except RuleError as exc:
            log.warning("policy %s answered an illegal move (%s); playing the default move",
                        self.policy.name, exc)
            self._play(self.state.default_action())
