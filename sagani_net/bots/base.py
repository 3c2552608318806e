"""What every policy is, and how a policy finds a game's own bot knowledge.

A game's ``bots.py`` (see :mod:`sagani_net.games`) may define, all optional but ``evaluate``
(without which, or without a ``bots.py``, a game has the random policy only):

- ``evaluate(state, seat) -> float``: how good ``state`` is for ``seat`` (higher is better);
  the generic greedy policy and the generic search's rollouts score with it.
- ``evaluate_spent(state, seat) -> float``: ``evaluate`` of a copy the caller made for it and
  will not use again (a game whose evaluation would otherwise copy the state may change it);
  the greedy policy's one-ply look uses it.
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

import random
from collections.abc import Callable
from functools import partial
from types import ModuleType
from typing import Any, Protocol

from sagani_net.game import Data, Game, GameState, RuleError, random_action
from sagani_net.games import game_part

#: What :attr:`Policy.sees` says of a policy whose move is a uniformly random legal one.
UNIFORM = "uniform"


class Policy(Protocol):
    """A strategy: a house one, or one of your own that ``sagani bot``, ``tournament`` and
    ``selfplay`` load by name (``FILE.py:NAME``, :func:`sagani_net.bots.make_policy`). It may
    say what it needs to see in ``sees``: ``"state"`` (the default: a whole state to search,
    its hidden parts sampled) or :data:`UNIFORM` (nothing: its move is
    a uniformly random legal one, :func:`sagani_net.game.random_action` with its ``rng``; so
    in-process the seat makes that draw itself on the true state, whose legal moves the seat
    knows anyway, and ``choose`` is not asked: no state is sampled for it).

    A policy may have a ``think_s`` attribute (seconds, None: no limit): at a table with a
    move deadline, the bot (:class:`sagani_net.bots.runner.BotRunner`) lowers it to what a
    decision may take (:func:`sagani_net.bots.runner.think_cap_s`). Past the deadline the host
    plays the game's default move for the seat; the policy is not interrupted."""

    name: str

    def choose(self, state: GameState, rng: random.Random) -> Any:
        """The action to play for ``state.current_seat``: one of ``state.legal_actions()``
        (the game's action, not its wire data: ``state.parse_action(data)`` reads that). An
        answer the rules refuse, or an exception raised here, is logged and replaced by the
        game's default move.

        ``state`` is the policy's to clone, search and change (a determinized or resampled
        one: it holds nothing the seat may not know, its hidden parts are one sample of what
        they may be, and it shares nothing with the game being played; ``state.view(seat)``
        and ``state.private(seat)`` are what the seat sees).
        ``rng`` is the seat's own randomness, seeded: draw from it, not from ``random``, and
        a seeded tournament plays the same games again."""


def seat_rngs(seed: int | str) -> tuple[random.Random, random.Random]:
    """A seat's policy randomness and its determinization randomness, both from one seed."""
    return policy_rng(seed), view_rng(seed)


def policy_rng(seed: int | str) -> random.Random:
    """A seat's policy randomness (see :func:`seat_rngs`)."""
    return random.Random(f"{seed}:policy")


def view_rng(seed: int | str) -> random.Random:
    """A seat's determinization randomness (see :func:`seat_rngs`)."""
    return random.Random(f"{seed}:view")


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
    answered = False
    try:
        action = policy.choose(state.clone(), rng)
        answered = True
        state.clone().apply(action)
    except POLICY_ERRORS as exc:  # a policy of one's own may raise anything: see refused()
        refused(policy, exc, answered)
        action = state.default_action()
    return state.action_data(action)


#: What a policy's ``choose`` may raise that is its own mistake, replaced by the default move:
#: any exception, and sys.exit (which ended a whole tournament, or a bot keeping its seat,
#: with not a word); Ctrl-C (KeyboardInterrupt) still stops the run.
POLICY_ERRORS = (Exception, SystemExit)


#: How many times each refusal's line came up in this process: the 1st, 10th, 100th... are
#: written (a policy that raises at every decision of a thousand-game tournament wrote a line
#: a decision, tens of thousands of the same).
_REFUSALS: dict[str, int] = {}


def refused(policy: Policy, exc: BaseException, answered: bool = True) -> None:
    """Log that the rules refused ``policy``'s answer, or (``answered`` False) something its
    own choosing played, or that its choosing raised ``exc`` (the default move is played
    instead, as over the network, where a bot that ended there kept its seat and stalled
    the table). The same line again is written only at its 10th, 100th... time."""
    import logging  # only when it happens: self-play starts without logging

    log = logging.getLogger("sagani_net.bots")
    # The rule's code, not its sentence, and an exception's type and place, not its message,
    # which may name a card of the seat's hand: a house bot's log is the host's screen. The
    # whole traceback is there for whoever logs at DEBUG.
    if isinstance(exc, RuleError):
        line = (f"policy {policy.name} "
                f"{'answered an illegal move' if answered else 'met a rule error while choosing'}"
                f" ({exc.code})")
    else:
        line = f"policy {policy.name} raised {type(exc).__name__}{raised_where(exc)}"
        log.debug("policy %s raised", policy.name, exc_info=exc)
    times = _REFUSALS[line] = _REFUSALS.get(line, 0) + 1
    if times == 1:
        log.warning("%s; playing the default move", line)
    elif str(times).rstrip("0") == "1":  # 10, 100, 1000...
        log.warning("%s; playing the default move (the %dth time in this process: only the "
                    "1st, 10th, 100th... are written)", line, times)


def raised_where(exc: BaseException) -> str:
    """Where ``exc`` was raised, `` (FILE, line N)``: the last frame of its traceback (a
    SyntaxError's own file and line), the author's code more often than not; or nothing."""
    import traceback

    if isinstance(exc, SyntaxError) and exc.filename:
        return f" ({exc.filename}, line {exc.lineno})"
    if exc.__traceback__ is None:
        return ""
    frame = traceback.extract_tb(exc.__traceback__)[-1]
    return f" ({frame.filename}, line {frame.lineno})"


class LocalSeat:
    """One seat of an in-process game (tournaments, self-play): :attr:`play` plays on the true
    ``state`` what ``policy`` decides for the seat, from what the seat knows.

    A :data:`UNIFORM` policy's move is the engine's own uniform draw from the seat's policy
    randomness (legal by construction, so played unchecked): it sees nothing. Any other
    policy gets a state resampled from the truth (:meth:`sagani_net.game.Game.resample`:
    hidden parts drawn from the seat's view randomness), never the truth itself. For the same
    ``seed`` (:func:`seat_rngs`: the network bot's generators) that is what :func:`decide` gives it
    over the network, so both paths play the same game. An answer that the rules refuse is
    replaced by the game's default move. Built once per seat and game, so that a decision
    costs the policy and the rules, and next to nothing besides.
    """

    __slots__ = ("policy", "game", "state", "seat", "rng", "view_rng", "play")

    def __init__(self, policy: Policy, game: Game, state: GameState, seat: int,
                 seed: int | str) -> None:
        self.policy, self.game, self.state, self.seat = policy, game, state, seat
        self.rng = policy_rng(seed)
        # No view randomness for a uniform policy: seeding a generator takes about 10 us, a
        # percent or two of a random Sagani game.
        self.view_rng: random.Random | None = None
        #: Decide and play the seat's move; it must be the seat's turn.
        self.play: Callable[[], None]
        if getattr(policy, "sees", "state") == UNIFORM:
            self.play = self._uniform()
        else:
            self.view_rng = view_rng(seed)
            self.play = self._resampled

    @property
    def uniform(self) -> bool:
        """Whether it plays the engine's uniform draw from :attr:`rng` (it sees nothing)."""
        return self.view_rng is None

    def _uniform(self) -> Callable[[], None]:
        state, rng = self.state, self.rng
        own = getattr(state, "random_action", None)
        draw: Callable[[random.Random], Any] = own or partial(random_action, state)
        # Without checks or events where the engine can (:meth:`sagani_net.game.Engine.push`):
        # the draw is legal, and nobody reads the events here.
        push: Callable[[Any], Any] = getattr(state, "push", state.apply)

        def play() -> None:
            push(draw(rng))

        return play

    def _resampled(self) -> None:
        state = self.state
        assert self.view_rng is not None
        sample = self.game.resample(state, self.seat, self.view_rng)
        # Without events where the engine can (``play``): nobody reads them here.
        checked: Callable[[Any], Any] = getattr(state, "play", state.apply)
        answered = False
        try:  # as decide() over the network: the same game both ways
            action = self.policy.choose(sample, self.rng)
            answered = True
            checked(action)
        except POLICY_ERRORS as exc:
            refused(self.policy, exc, answered)
            checked(state.default_action())
