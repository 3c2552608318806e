"""The search bot: information-set Monte Carlo tree search over determinized draw orders.

The bot's only input is what its seat may see: :meth:`MctsPolicy.choose` turns the state it is
given into ``state.view(seat)`` at once and never touches the state again. Each iteration
samples a draw order consistent with that view (:meth:`State.from_view`), walks one tree shared
by all samples (single-observer ISMCTS: a child is scored only among the samples in which it
was legal), plays a short greedy rollout and scores the result with a heuristic.

A turn is searched as one macro-action, the tile choice and its placement together; placements
are pruned to the best few by :func:`sagani_net.bots.simple.placement_value`. The placement
found for the chosen tile is remembered and played on the turn's second decision without a
second search, so the time budget is per turn. A draw from the pile is searched as "draw, then
place greedily", because the drawn tile is unknown when the choice is made; a solo reveal is
forced, and its placement is searched once the tile is known.

Deterministic for a given ``rng`` state when only the iteration budget binds (``think_s=None``).
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass

from sagani_net.bots import policy
from sagani_net.bots.simple import ranked_placements
from sagani_net.game import Data
from sagani_net.games.sagani.rules import CHOOSE, OVER, PLACE, Action, Player, State
from sagani_net.games.sagani.tiles import TILES

#: One searched decision: the choice (None when the tile is already held) and the placement
#: (None: placed by the rollout policy, for a draw from the pile or a pass).
Macro = tuple[Action | None, Action | None]

#: Solo goal and the pace greedy keeps in basic solo, for estimating tiles still needed.
SOLO_GOAL = 75
SOLO_POINTS_PER_TILE = 2.6
#: Placements kept per tile and display (more than any search keeps).
RANKED = 8
#: Share of an unflipped tile's value counted as already earned, by open arrows left.
OPEN_CREDIT = (1.0, 0.5, 0.25, 0.1, 0.05)


@dataclass(frozen=True)
class SearchConfig:
    """The knobs of the search; the defaults are what the strength figures were measured with."""

    think_s: float | None = 1.0
    iterations: int | None = None
    #: Placements kept per tile: at the root, and deeper in the tree.
    root_placements: int = 5
    placements: int = 3
    #: Rollout length in turns (all seats together) before the heuristic scores the state;
    #: solo turns are cheaper (one tile to place, no offer to weigh), so they look further.
    rollout_turns: int = 4
    solo_rollout_turns: int = 8
    #: UCB1's constant; rewards lie in [0, 1] and differ little between good moves.
    exploration: float = 0.35
    #: Points of equity difference that make a win about 73% likely (logistic scale).
    margin_scale: float = 8.0

    def __post_init__(self) -> None:
        if not 1 <= self.placements <= self.root_placements <= RANKED:
            raise ValueError(f"placements per tile must be 1..{RANKED}, fewer below the root")


class Node:
    """Statistics of one macro-action in the tree, from the view of the seat that played it."""

    __slots__ = ("children", "visits", "total", "available", "candidates")

    def __init__(self) -> None:
        self.children: dict[Macro, Node] = {}
        self.visits = 0
        self.total = 0.0
        self.available = 0
        # Candidate lists by position signature; chance (refills, draws) can change them.
        self.candidates: dict[tuple, list[Macro]] = {}


@policy("mcts")
class MctsPolicy:
    """ISMCTS over determinizations; see the module docstring.

    >>> bot = MctsPolicy(think_s=None, iterations=50)
    >>> state = State.new(2, seed=3)
    >>> state.apply(bot.choose(state, random.Random(1))) and None
    """

    name = "mcts"

    def __init__(
        self,
        think_s: float | None = 1.0,
        iterations: int | None = None,
        **options: object,
    ) -> None:
        if think_s is None and iterations is None:
            raise ValueError("give the search a time budget, an iteration budget, or both")
        self.config = SearchConfig(think_s=think_s, iterations=iterations, **options)  # type: ignore[arg-type]
        self._plan: tuple[tuple, Action] | None = None
        self._placements = Placements()
        #: Iterations run by the last search (for tests and logs).
        self.last_iterations = 0

    def choose(self, state: State, rng: random.Random) -> Action:
        seat = state.current_seat
        if seat is None:
            raise ValueError("the game is over; there is nothing to choose")
        # The search sees only this; the state (and its secret draw order) is not used again.
        return self.choose_from_view(state.view(seat), rng)

    def choose_from_view(self, view: Data, rng: random.Random) -> Action:
        """The action for the seat to move in ``view``, which must be that seat's view."""
        base = State.from_view(view, rng)
        if base.phase == PLACE and self._plan is not None and self._plan[0] == _plan_key(base):
            planned = self._plan[1]
            self._plan = None
            return planned
        legal = base.legal_actions() if base.phase == CHOOSE else None
        if legal is not None and len(legal) == 1:
            return legal[0]  # a reveal or a forced pass: nothing to think about
        macro = self._search(view, rng)
        choice, place = macro
        if choice is None:
            assert place is not None
            return place
        if place is not None:
            after = base.clone()
            after.push(choice)
            self._plan = (_plan_key(after), place)
        return choice

    # -- the search -------------------------------------------------------------------------

    def _search(self, view: Data, rng: random.Random) -> Macro:
        cfg = self.config
        started = time.perf_counter()
        deadline = None if cfg.think_s is None else started + cfg.think_s
        limit = cfg.iterations if cfg.iterations is not None else 10**9
        root = Node()
        self._placements = Placements()
        n = 0
        while n < limit:
            if deadline is not None and n and time.perf_counter() >= deadline:
                break
            self._iterate(root, State.from_view(view, rng), rng)
            n += 1
            if n == 1 and len(root.children) == 1 and _only_candidates(root) == 1:
                break  # one candidate: no search needed
        self.last_iterations = n
        # The robust child: most visited, ties to the better mean, then to candidate order.
        best = max(root.children.items(), key=lambda kv: (kv[1].visits, kv[1].total / kv[1].visits))
        return best[0]

    def _iterate(self, root: Node, state: State, rng: random.Random) -> None:
        cfg = self.config
        path: list[tuple[Node, int]] = []
        node = root
        depth = 0
        while state.phase != OVER:
            seat = state.seat
            candidates = self._candidates(node, state, depth == 0)
            fresh = next((m for m in candidates if m not in node.children), None)
            for m in candidates:
                child = node.children.get(m)
                if child is not None:
                    child.available += 1
            if fresh is not None:
                child = node.children[fresh] = Node()
                child.available = 1
                self._placements.play(state, fresh)
                path.append((child, seat))
                break
            explore = cfg.exploration
            best_value, best_macro = -1.0, candidates[0]
            for m in candidates:
                c = node.children[m]
                # UCB1 over the samples in which the child was legal (ISMCTS availability).
                value = c.total / c.visits + explore * math.sqrt(math.log(c.available) / c.visits)
                if value > best_value:
                    best_value, best_macro = value, m
            node = node.children[best_macro]
            self._placements.play(state, best_macro)
            path.append((node, seat))
            depth += 1
        rewards = self._rollout(state, rng)
        for child, seat in path:
            child.visits += 1
            child.total += rewards[seat]

    def _candidates(self, node: Node, state: State, root: bool) -> list[Macro]:
        """The macro-actions searched here, best first by the greedy heuristic."""
        p = state.seats[state.seat]
        key = (
            state.seat, state.phase, state.held, tuple(state.offer), tuple(state.storage),
            state.intermezzo is not None, state.top_tile() if state.mode != "multi" else None,
            frozenset(p.tiles.items()),
        )  # fmt: skip
        found = node.candidates.get(key)
        if found is None:
            found = node.candidates[key] = self._list_candidates(state, root)
        return found

    def _list_candidates(self, state: State, root: bool) -> list[Macro]:
        k = self.config.root_placements if root else self.config.placements
        if state.phase == PLACE:
            assert state.held is not None
            return [(None, a) for _, a in self._placements.ranking(state, state.held)[:k]]
        scored: list[tuple[float, Macro]] = []
        for action in state.legal_actions():
            if action.type in ("take", "pick", "reveal"):
                if action.type == "reveal":
                    tile = state.top_tile()
                else:
                    source = state.offer if action.type == "take" else state.storage
                    tile = source[action.index]  # type: ignore[index]
                assert tile is not None
                for value, place in self._placements.ranking(state, tile)[:k]:
                    scored.append((value, (action, place)))
            elif action.type == "draw":
                scored.append((-1e6, (action, None)))
            else:  # pass
                scored.append((-1e6, (action, None)))
        scored.sort(key=lambda vm: -vm[0])
        return [m for _, m in scored]

    # -- rollouts and scoring ---------------------------------------------------------------

    def _rollout(self, state: State, rng: random.Random) -> list[float]:
        """Greedy turns until the game ends or the rollout length is reached; then rewards."""
        turns = 0
        cfg = self.config
        limit = cfg.rollout_turns if state.mode == "multi" else cfg.solo_rollout_turns
        while state.phase != OVER and turns < limit:
            self._placements.play(state, self._placements.greedy_macro(state))
            turns += 1
        return self._rewards(state)

    def _rewards(self, state: State) -> list[float]:
        """A reward in [0, 1] for every seat."""
        if state.mode == "solo":
            return [_solo_reward(state)]
        if state.mode == "solo-advanced":
            return [_advanced_reward(state)]
        scale = self.config.margin_scale
        over = state.phase == OVER
        if over:
            ranking = state.ranking()
            place = {seat: i for i, seat in enumerate(ranking)}
            values = [float(s) for s in state.scores()]
        else:
            late = state.end_triggered or state.last_round
            values = [_equity(p, 0.3 if late else 1.0) for p in state.seats]
        rewards = []
        for i, vi in enumerate(values):
            total = 0.0
            for j, vj in enumerate(values):
                if i == j:
                    continue
                shaped = _logistic((vi - vj) / scale)
                # A finished game: winning is what counts, the margin only breaks ties in value.
                total += (0.8 * (place[i] < place[j]) + 0.2 * shaped) if over else shaped
            rewards.append(total / (len(values) - 1))
        return rewards


def _plan_key(state: State) -> tuple:
    """What identifies the position in which a planned placement is to be played."""
    return (state.seat, state.version, state.held, frozenset(state.seats[state.seat].tiles))


def _only_candidates(root: Node) -> int:
    return max((len(c) for c in root.candidates.values()), default=0)


class Placements:
    """Placements of a tile ranked by the greedy heuristic, remembered for the whole search.

    The ranking depends only on the display and the supply, which many samples and rollouts
    share (the seat that is not searching keeps its display for a whole turn), so most
    lookups are hits. Ties keep the greedy policy's order: its best is our first.
    """

    __slots__ = ("ranked",)

    def __init__(self) -> None:
        self.ranked: dict[tuple, list[tuple[float, Action]]] = {}

    def ranking(self, state: State, tile: int) -> list[tuple[float, Action]]:
        player = state.seats[state.seat]
        costs = state.mode != "solo-advanced"
        key = (tile, player.supply, costs, frozenset(player.tiles.items()))
        found = self.ranked.get(key)
        if found is None:
            found = self.ranked[key] = ranked_placements(player, tile, costs, keep=RANKED)
        return found

    def best(self, state: State, tile: int) -> tuple[float, Action]:
        return self.ranking(state, tile)[0]

    def play(self, state: State, macro: Macro) -> None:
        """Play a macro-action; a missing placement is the greedy one."""
        choice, place = macro
        if choice is not None:
            # A reveal's placement was listed for the tile this sample reveals (the candidate
            # key holds the pile's top tile), so it fits.
            state.push(choice)
        if state.phase == PLACE:
            if place is None:
                assert state.held is not None
                place = self.best(state, state.held)[1]
            state.push(place)

    def greedy_macro(self, state: State) -> Macro:
        """The rollout policy: the greedy bot's turn, without weighing a draw from the pile."""
        if state.phase == PLACE:
            assert state.held is not None
            return (None, self.best(state, state.held)[1])
        best_value, best = -1e9, None
        for action in state.legal_actions():
            if action.type == "take":
                tile = state.offer[action.index]  # type: ignore[index]
            elif action.type == "pick":
                tile = state.storage[action.index]  # type: ignore[index]
            elif action.type == "pass":
                if best is None:
                    best_value, best = 0.0, (action, None)
                continue
            elif action.type == "reveal":
                return (action, None)
            else:  # draw: the rollout leaves it alone
                continue
            value, place = self.best(state, tile)
            if value > best_value:
                best_value, best = value, (action, place)
        assert best is not None
        return best


def _potential(p: Player) -> float:
    """What the unflipped tiles are worth already, by how few arrows each still needs."""
    total = 0.0
    for cell, open_ in p.open.items():
        total += TILES[p.tiles[cell][0]].value * OPEN_CREDIT[min(len(open_), 4)]
    return total


def _equity(p: Player, weight: float) -> float:
    return p.score + weight * _potential(p)


def _logistic(x: float) -> float:
    if x < -30:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))


def _solo_reward(state: State) -> float:
    """Basic solo: fewer tiles to reach 75 is better; estimated at a cut-off rollout."""
    p = state.seats[0]
    if state.phase == OVER and p.score < SOLO_GOAL:
        return 0.0
    missing = max(0.0, SOLO_GOAL - _equity(p, 1.0)) if state.phase != OVER else 0.0
    tiles = p.placed + missing / SOLO_POINTS_PER_TILE
    return min(1.0, max(0.0, (50.0 - tiles) / 30.0))


def _advanced_reward(state: State) -> float:
    """Advanced solo: the final score, with unflipped tiles counted by how close they are."""
    p = state.seats[0]
    if state.phase == OVER:
        final = float(state.scores()[0])
    else:
        unflipped = sum(
            TILES[p.tiles[c][0]].value * (1.0 - 2.0 * OPEN_CREDIT[min(len(o), 4)])
            for c, o in p.open.items()
        )
        final = p.score - unflipped + p.bonus - 2.0 * p.cacophony
    return min(1.0, max(0.0, final / 500.0))
