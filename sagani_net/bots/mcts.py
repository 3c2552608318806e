"""The search bot for every game: information-set Monte Carlo tree search over determinizations.

The bot's only input is what its seat may know: :meth:`MctsPolicy.choose` turns the state it is
given into ``state.view(seat)`` and ``state.private(seat)`` at once and never touches the state
again. Each iteration samples a full state consistent with them (:meth:`Game.determinize`:
draw order, other hands, future rolls), walks one tree shared by all samples (single-observer
ISMCTS: a child is scored only among the samples in which it was legal), plays a rollout and
scores the result with a reward in [0, 1] per seat.

What a move is, which moves are worth searching, how a rollout plays and how its end is scored
come from the game's ``Search`` hooks (:class:`SearchHooks`) in its ``bots.py``; a game without
them is searched over single legal actions with random rollouts scored by its ``evaluate``
(:class:`PlainSearch`). A move may stand for several decisions of the seat (a Sagani turn: the
tile and its placement): the first is played, the rest are remembered and played on the next
decisions without a second search, as long as the position is the one the plan expected, so the
time budget is per move.

Deterministic for a given ``rng`` state when only the iteration budget binds (``think_s=None``).
"""

from __future__ import annotations

import functools
import math
import random
import time
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from sagani_net.bots.base import evaluation, game_bots
from sagani_net.game import (
    Data,
    Game,
    GameState,
    margin_rewards,
    random_action,
    ranking_rewards,
    winners,
)
from sagani_net.games import DEFAULT_GAME, get_game

#: The most nodes one search's tree grows to: past it the iterations left refine the moves it
#: holds, playing out from its leaves. A node keeps its candidate moves (a Sagani node some
#: 15 KB), and the tree grew by one an iteration: 'sagani analyze --think 3600' (an hour a
#: decision) would have grown it to tens of gigabytes; now a Sagani search stays under 500 MB
#: (measured: 364 MB at 20,000 iterations, 489 MB at 120,000). Far above what a default search
#: reaches: 300 iterations an analysed decision, about 1,000 a bot's second.
MAX_NODES = 20_000


class SearchHooks(Protocol):
    """A game's knowledge for the search; one object serves one search (it may cache)."""

    def candidates(self, state: GameState, root: bool) -> list[Hashable]:
        """The moves searched for the seat to move, best first (``root``: at the root, where
        a game may look wider)."""

    def signature(self, state: GameState) -> Hashable:
        """What the candidates depend on: a node keeps its candidates by it (chance can change
        them from one sample to the next)."""

    def decisions(self, move: Any) -> list[Any]:
        """The actions ``move`` stands for, in order."""

    def play(self, state: GameState, move: Any) -> None:
        """Play ``move`` on a search state."""

    def rollout(self, state: GameState, rng: random.Random) -> list[float]:
        """Play on from ``state`` and return a reward in [0, 1] for every seat."""


@dataclass(frozen=True)
class SearchConfig:
    """The knobs of the search itself; the game's own (``options``) go to its hooks."""

    think_s: float | None = 1.0
    iterations: int | None = None
    #: UCB1's constant; rewards lie in [0, 1] and differ little between good moves.
    exploration: float = 0.35


class Node:
    """Statistics of one move in the tree, from the view of the seat that played it."""

    __slots__ = ("children", "visits", "total", "available", "candidates")

    def __init__(self) -> None:
        self.children: dict[Hashable, Node] = {}
        self.visits = 0
        self.total = 0.0
        self.available = 0
        # Candidate lists by position signature; chance (refills, draws) can change them.
        self.candidates: dict[Hashable, list[Hashable]] = {}


class MctsPolicy:
    """ISMCTS over determinizations; see the module docstring.

    >>> bot = MctsPolicy("sagani", think_s=None, iterations=50)
    >>> state = get_game("sagani").new_state({"players": 2, "mode": "multi"}, 3)
    >>> state.apply(bot.choose(state, random.Random(1))) and None
    """

    name = "mcts"

    def __init__(
        self,
        game: str = DEFAULT_GAME,
        think_s: float | None = 1.0,
        iterations: int | None = None,
        exploration: float = 0.35,
        search: Callable[..., SearchHooks] | None = None,
        **options: Any,
    ) -> None:
        """``search`` makes the hooks of one search from ``options``: by default the game's
        ``Search``, or :class:`PlainSearch` for a game without one."""
        if think_s is None and iterations is None:
            raise ValueError("give the search a time budget, an iteration budget, or both")
        self.config = SearchConfig(think_s, iterations, exploration)
        self.game: Game = get_game(game)
        if search is None:
            bots = game_bots(game)
            search = getattr(bots, "Search", None) or functools.partial(
                PlainSearch, evaluation(game), getattr(bots, "candidate_actions", None),
                getattr(bots, "rollout_action", None),
            )
        self._hooks: Callable[[], SearchHooks] = functools.partial(search, **options)
        self._hooks()  # refuses unknown or bad options now, not at the first move
        #: The decisions still to play of the last move chosen, and the view they expect.
        self._plan: tuple[Data, list[Any]] | None = None
        #: Iterations run by the last search (for tests and logs).
        self.last_iterations = 0
        #: The root of the last search: its children are the moves searched, with their
        #: statistics for the seat to move (the analysis reads them).
        self.last_root: Node | None = None

    def choose(self, state: GameState, rng: random.Random) -> Any:
        seat = state.current_seat
        if seat is None:
            raise ValueError("the game is over; there is nothing to choose")
        # The search sees only these; the state (and its secrets) is not used again.
        return self.choose_from_view(state.view(seat), state.private(seat), seat, rng)

    def choose_from_view(
        self, view: Data, private: Data | None, seat: int, rng: random.Random
    ) -> Any:
        """The action for ``seat`` (the seat to move) from what it knows."""
        base = self.game.determinize(view, private, seat, rng)
        plan, self._plan = self._plan, None
        # Compared as the rules see it here (the wire may have changed the view's form).
        if plan is not None and plan[0] == base.view(seat):
            return self._follow(base, plan[1], seat)
        legal = base.legal_actions()
        if len(legal) == 1:
            return legal[0]  # a forced decision: nothing to think about
        hooks = self._hooks()
        return self._follow(base, hooks.decisions(self._search(view, private, seat, rng, hooks)),
                            seat)

    def search_root(
        self, view: Data, private: Data | None, seat: int, rng: random.Random,
        wrap: Callable[[SearchHooks], SearchHooks] | None = None,
    ) -> Node:
        """Search from what ``seat`` (the seat to move) knows with the game's hooks (passed
        through ``wrap`` if given) and return the root: each child a move searched, with its
        ``visits`` and ``total`` reward for ``seat``."""
        hooks = self._hooks()
        self._search(view, private, seat, rng, wrap(hooks) if wrap else hooks)
        assert self.last_root is not None
        return self.last_root

    def search_paired(
        self, view: Data, private: Data | None, seat: int, rng: random.Random,
        wraps: list[Callable[[SearchHooks], SearchHooks]],
    ) -> list[Node]:
        """Search one root per ``wraps`` (each wrapping the game's hooks, as a rule to keep
        one root move) from what ``seat`` knows, on the same samples: each iteration draws
        one sample and plays it out from every root with the same random numbers, so that
        the roots' mean rewards differ by the moves alone, not by the luck of their samples.
        Returns the roots (the budget counts iterations of all of them together)."""
        cfg = self.config
        deadline = None if cfg.think_s is None else time.perf_counter() + cfg.think_s
        limit = cfg.iterations if cfg.iterations is not None else 10**9
        hooks = [wrap(self._hooks()) for wrap in wraps]
        roots = [Node() for _ in wraps]
        nodes = [0] * len(wraps)
        samples = self._samples(view, private, seat, rng)
        n = 0
        while n < limit:
            if deadline is not None and n and time.perf_counter() >= deadline:
                break
            sample = next(samples)
            seed = rng.getrandbits(64)
            for i, root in enumerate(roots):
                nodes[i] += self._iterate(root, sample.clone(), random.Random(seed), hooks[i],
                                          grow=nodes[i] < MAX_NODES)
            n += len(roots)
        self.last_iterations = n
        return roots

    def _follow(self, base: GameState, decisions: list[Any], seat: int) -> Any:
        """Play the first of ``decisions``; keep the rest for the view it leads to."""
        first, rest = decisions[0], decisions[1:]
        if rest:
            after = base.clone()
            after.apply(first)
            self._plan = (after.view(seat), rest)
        return first

    # -- the search -------------------------------------------------------------------------

    def _search(
        self, view: Data, private: Data | None, seat: int, rng: random.Random,
        hooks: SearchHooks,
    ) -> Hashable:
        cfg = self.config
        started = time.perf_counter()
        deadline = None if cfg.think_s is None else started + cfg.think_s
        limit = cfg.iterations if cfg.iterations is not None else 10**9
        root = Node()
        n = nodes = 0
        samples = self._samples(view, private, seat, rng)
        while n < limit:
            if deadline is not None and n and time.perf_counter() >= deadline:
                break
            nodes += self._iterate(root, next(samples), rng, hooks, grow=nodes < MAX_NODES)
            n += 1
            if n == 1 and len(root.children) == 1 and _most_candidates(root) == 1:
                break  # one candidate: no search needed
        self.last_iterations = n
        self.last_root = root
        # The robust child: most visited, ties to the better mean, then to candidate order.
        best = max(root.children.items(), key=lambda kv: (kv[1].visits, kv[1].total / kv[1].visits))
        return best[0]

    def _samples(
        self, view: Data, private: Data | None, seat: int, rng: random.Random,
    ) -> Iterator[GameState]:
        """A fresh sample of what the seat does not know for each iteration. The first comes
        from the view; the others are resampled from it (kept whole), which draws the very
        state the view would (Game.resample) without rebuilding one from the wire each time."""
        first = self.game.determinize(view, private, seat, rng)
        known = first.clone()
        yield first
        while True:
            yield self.game.resample(known, seat, rng)

    def _iterate(
        self, root: Node, state: GameState, rng: random.Random, hooks: SearchHooks,
        grow: bool = True,
    ) -> int:
        """One iteration: down the tree, a new node (none unless ``grow``: the tree is full), a
        rollout, and its rewards up the path; returns the nodes it added (0 or 1)."""
        path: list[tuple[Node, int]] = []
        added = 0
        node = root
        depth = 0
        explore = self.config.exploration
        while not state.is_over():
            seat = state.current_seat
            assert seat is not None
            key = hooks.signature(state)
            candidates = node.candidates.get(key)
            if candidates is None:
                candidates = hooks.candidates(state, depth == 0)
                if grow:
                    node.candidates[key] = candidates
            fresh = next((m for m in candidates if m not in node.children), None)
            for m in candidates:
                child = node.children.get(m)
                if child is not None:
                    child.available += 1
            if fresh is not None:
                if not grow:
                    break  # the tree is full: a rollout from here
                child = node.children[fresh] = Node()
                added = 1
                child.available = 1
                hooks.play(state, fresh)
                path.append((child, seat))
                break
            best_value, best_move = -1.0, candidates[0]
            for m in candidates:
                c = node.children[m]
                # UCB1 over the samples in which the child was legal (ISMCTS availability).
                value = c.total / c.visits + explore * math.sqrt(math.log(c.available) / c.visits)
                if value > best_value:
                    best_value, best_move = value, m
            node = node.children[best_move]
            hooks.play(state, best_move)
            path.append((node, seat))
            depth += 1
        rewards = hooks.rollout(state, rng)
        for child, seat in path:
            child.visits += 1
            child.total += rewards[seat]
        return added


def _most_candidates(root: Node) -> int:
    return max((len(c) for c in root.candidates.values()), default=0)


class PlainSearch:
    """The search's hooks for a game without a ``Search`` of its own: single actions are the
    moves (keyed by their wire form); the candidates are the game's ``candidate_actions(state)``
    if it has them, else every legal action; rollouts play its ``rollout_action(state, rng)``
    (else random actions) for a while, and their end is scored by the game's ``evaluate`` (or by
    its ranking, once the game is over)."""

    def __init__(
        self,
        evaluate: Callable[[GameState, int], float],
        candidate_actions: Callable[[GameState], list[Any]] | None = None,
        rollout_action: Callable[[GameState, random.Random], Any] | None = None,
        rollout_decisions: int = 60,
        margin_scale: float = 8.0,
    ) -> None:
        self.evaluate = evaluate
        self.candidate_actions = candidate_actions or (lambda state: state.legal_actions())
        self.rollout_action = rollout_action or random_action
        #: Decisions a rollout plays before it scores the state.
        self.rollout_decisions = rollout_decisions
        #: Difference in evaluation that makes a win about 73% likely (logistic scale).
        self.margin_scale = margin_scale

    def signature(self, state: GameState) -> Hashable:
        return tuple(frozen(state.action_data(a)) for a in state.legal_actions())

    def candidates(self, state: GameState, root: bool) -> list[Hashable]:
        return [Move(frozen(state.action_data(a)), a) for a in self.candidate_actions(state)]

    def decisions(self, move: Move) -> list[Any]:
        return [move.action]

    def play(self, state: GameState, move: Move) -> None:
        state.apply(move.action)

    def rollout(self, state: GameState, rng: random.Random) -> list[float]:
        for _ in range(self.rollout_decisions):
            if state.is_over():
                break
            state.apply(self.rollout_action(state, rng))
        seats = len(state.scores())
        result = state.result()
        if result is not None and seats > 1:
            return ranking_rewards(result.ranking, winners(result.ranking, result.figures))
        values = [self.evaluate(state, seat) for seat in range(seats)]
        if seats == 1:
            # Alone: more is better, without a ceiling that would make every move look alike.
            return [0.5 + 0.5 * values[0] / (abs(values[0]) + self.margin_scale)]
        return margin_rewards(values, self.margin_scale)


@dataclass(frozen=True)
class Move:
    """A single action as a move of the tree, compared by its wire form."""

    key: Hashable
    action: Any = field(compare=False)


def frozen(data: Any) -> Hashable:
    """Wire data as a hashable value (maps as sorted pairs, lists as tuples)."""
    if isinstance(data, dict):
        return tuple(sorted((k, frozen(v)) for k, v in data.items()))
    if isinstance(data, list | tuple):
        return tuple(frozen(v) for v in data)
    plain: Hashable = data  # a str, a number, a bool or None
    return plain

