"""What Sagani's bots know about Sagani: the hooks of the generic policies in
:mod:`sagani_net.bots`.

- :func:`random_action`: the random policy's move, without listing every legal action;
  :func:`playout`: random moves to the end, as fast as the engine goes.
- :func:`evaluate`: a seat's equity (score plus what its unflipped tiles are already worth).
- :func:`action_values`: the greedy policy's one-ply values. A Sagani turn is two decisions (the
  tile, then its placement), so a take is worth the best placement of the tile it takes, and a
  placement is worth what it scores, frees and sets up (:func:`placement_values`); a draw from the
  pile is worth the mean of a few unseen tiles that fit the pile's public back.
- :class:`Search`: the search's moves. A turn is searched as one macro-action, the tile choice
  and its placement together, with placements pruned to the best few by :func:`placement_values`;
  a draw from the pile is searched as "draw, then place greedily", because the drawn tile is
  unknown when the choice is made. Rollouts are a few greedy turns, scored by :func:`evaluate`.

This module imports Sagani's rules only.
"""

from __future__ import annotations

import random
from collections.abc import Hashable

from sagani_net.game import Data, logistic
from sagani_net.games.sagani.rules import (
    ARROW_COUNT,
    CELLS,
    CHOOSE,
    OVER,
    PLACE,
    SOLO_GOAL,
    VALUE,
    Action,
    Player,
    State,
    cell_info,
)
from sagani_net.games.sagani.tiles import ROTATIONS, TILES

#: How many tiles that fit the pile's back the greedy policy tries when it weighs a draw.
DRAW_SAMPLES = 4
#: The pace greedy keeps in basic solo, for estimating tiles still needed.
SOLO_POINTS_PER_TILE = 2.6
#: Placements kept per tile and display (more than any search keeps).
RANKED = 8
#: Share of an unflipped tile's value counted as already earned, by open arrows left.
OPEN_CREDIT = (1.0, 0.5, 0.25, 0.1, 0.05)

#: Result figures the tables of solo games show over the games that reached the goal, by
#: column title (fewer is better).
SOLO_FIGURES = {"tiles_used": "tiles"}


def TURN_KEY(state: State) -> Hashable:  # noqa: N802 (a hook the analysis looks up by name)
    """Whose turn, and which of theirs: a turn (a take or reveal, then its placement) ends
    with its seat's count of turns, so that a solo game's turns count, each its own."""
    seat = state.current_seat
    return None if seat is None else (seat, state.seats[seat].turns)


def TYPED_TEXT(data: Data) -> str:  # noqa: N802 (a hook the analysis looks up by name)
    """A move as the analysis shows it to people: as the console types it (``take 1`` is the
    offer's first tile; the text form, in the JSON, says ``take 0``)."""
    return Action.from_dict(data).typed()

#: One searched decision: the choice (None when the tile is already held) and the placement
#: (None: placed by the rollout policy, for a draw from the pile or a pass).
Macro = tuple[Action | None, Action | None]


# -- placements -------------------------------------------------------------------------------


def placement_values(player: Player, tile: int, cell: tuple[int, int], costs: bool = True
                     ) -> list[float]:
    """The immediate worth of ``tile`` placed at ``cell`` in each of its four rotations (by
    rotation index): points and cacophony first, then what it sets up. Freed discs avoid
    cacophony later; covered arrows are progress; open arrows are debts.

    What :meth:`Player.evaluate` would find, from :meth:`Player.seen_by` and
    :meth:`Player.own_arrows` without building the :class:`Placement` (the search's rollouts
    weigh every placement of every turn: this is most of an analysis's time). What the tile
    covers and flips is the same in every rotation, so it is worked out once a cell."""
    info = CELLS.get(cell) or cell_info(cell)
    covers, flips, freed = player.seen_by(tile, cell, info)
    # Points and cacophony as Player.evaluate counts them, written out here: a shared helper
    # made every call 10-20% slower (measured), and this is the rollouts' innermost call.
    tiles = player.tiles
    points = sum([VALUE[tiles[c][0]] for c in flips])
    cost = 2 * max(ARROW_COUNT[tile] - player.supply - freed, 0) if costs else 0
    # Each term as the sum has always been made, left to right: the same floats, so that ties
    # between placements break as they did.
    freeing, covering = 0.15 * freed, 0.6 * len(covers)
    own = player.own_arrows
    values = []
    for rot in range(4):
        covered, still_open = own(tile, cell, rot, info)
        value = (points if still_open else points + VALUE[tile]) - cost
        values.append(value + freeing + covering + 0.5 * len(covered) - 0.45 * len(still_open))
    return values


def ranked_placements(
    player: Player, tile: int, costs: bool, keep: int | None = None
) -> list[tuple[float, Action]]:
    """The ``keep`` best placements (all by default) of ``tile`` in ``player``'s display, best
    first by :func:`placement_values`; ties keep the frontier's order."""
    tiles = player.tiles
    scored = []
    for cell in list(player.frontier) or [(0, 0)]:
        x, y = cell
        # Compact displays keep more tiles on each arrow's line: a small tie-breaker.
        snug = 0.05 * sum(
            (x + dx, y + dy) in tiles for dx, dy in ((0, 1), (1, 0), (0, -1), (-1, 0))
        )
        for rot, value in enumerate(placement_values(player, tile, cell, costs)):
            scored.append((value + snug, cell, rot))
    scored.sort(key=lambda v: -v[0])
    return [(value, Action.place(cell, ROTATIONS[rot])) for value, cell, rot in scored[:keep]]


def best_placement(state: State, tile: int) -> tuple[float, Action]:
    """The best placement of ``tile`` for the seat to move, by :func:`placement_values`."""
    costs = state.mode != "solo-advanced"
    return ranked_placements(state.seats[state.seat], tile, costs, keep=1)[0]


# -- the greedy policy's values ---------------------------------------------------------------


def action_values(state: State, rng: random.Random) -> list[tuple[float, Action]]:
    """Every legal action of the seat to move with its one-ply value, in legal order."""
    if state.phase != CHOOSE:
        assert state.held is not None
        player = state.seats[state.seat]
        ranked = ranked_placements(player, state.held, state.mode != "solo-advanced")
        # In legal order (frontier, then rotation), so that ties go to the first legal one.
        value = {action: v for v, action in ranked}
        return [(value[a], a) for a in state.legal_actions()]
    values: list[tuple[float, Action]] = []
    for action in state.legal_actions():
        if action.type == "take":
            assert action.index is not None
            values.append((best_placement(state, state.offer[action.index])[0], action))
        elif action.type == "pick":
            assert action.index is not None
            values.append((best_placement(state, state.storage[action.index])[0], action))
        elif action.type == "draw":
            values.append((_draw_value(state, rng), action))
        else:  # pass, or a solo reveal (then the only action)
            values.append((0.0, action))
    return values


def _draw_value(state: State, rng: random.Random) -> float:
    """The mean best value of a few unseen tiles that fit the pile's public back."""
    top = state.top_tile()
    assert top is not None
    back = (TILES[top].element, TILES[top].value)
    unseen = sorted(state.pile + state.set_aside)
    fits = [t for t in unseen if (TILES[t].element, TILES[t].value) == back]
    sample = rng.sample(fits, min(DRAW_SAMPLES, len(fits)))
    return sum(best_placement(state, t)[0] for t in sample) / len(sample)


# -- evaluation -------------------------------------------------------------------------------


def _potential(p: Player) -> float:
    """What the unflipped tiles are worth already, by how few arrows each still needs."""
    total = 0.0
    for cell, open_ in p.open.items():
        total += TILES[p.tiles[cell][0]].value * OPEN_CREDIT[min(len(open_), 4)]
    return total


def _equity(p: Player, weight: float) -> float:
    return p.score + weight * _potential(p)


def _advanced_final(p: Player) -> float:
    """Advanced solo: the final score, unflipped tiles counted by how close they are."""
    unflipped = sum(
        TILES[p.tiles[c][0]].value * (1.0 - 2.0 * OPEN_CREDIT[min(len(o), 4)])
        for c, o in p.open.items()
    )
    return p.score - unflipped + p.bonus - 2.0 * p.cacophony


def evaluate(state: State, seat: int) -> float:
    """``seat``'s equity in points: its score and the worth of its unflipped tiles (late in a
    game, when they may never flip, less of it); the final score once the game is over."""
    if state.phase == OVER:
        return float(state.scores()[seat])
    p = state.seats[seat]
    if state.mode == "solo-advanced":
        return _advanced_final(p)
    late = state.end_triggered or state.last_round
    return _equity(p, 0.3 if late else 1.0)


# -- the search's moves -----------------------------------------------------------------------


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

    def greedy_macro(self, state: State) -> Macro:
        """The rollout policy: the greedy bot's turn, without weighing a draw from the pile."""
        if state.phase == PLACE:
            assert state.held is not None
            return (None, self.best(state, state.held)[1])
        best_value = -1e9
        best: Macro | None = None
        for action in state.legal_actions():
            if action.type == "take":
                assert action.index is not None
                tile = state.offer[action.index]
            elif action.type == "pick":
                assert action.index is not None
                tile = state.storage[action.index]
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


class Search:
    """Sagani's hooks for the generic search (:class:`sagani_net.bots.mcts.MctsPolicy`): moves
    are :data:`Macro` turns; one object serves one search, and remembers placement rankings.

    The defaults are what the strength figures were measured with.
    """

    def __init__(
        self,
        root_placements: int = 5,
        placements: int = 3,
        rollout_turns: int = 4,
        solo_rollout_turns: int = 8,
        margin_scale: float = 8.0,
    ) -> None:
        if not 1 <= placements <= root_placements <= RANKED:
            raise ValueError(f"placements per tile must be 1..{RANKED}, fewer below the root")
        #: Placements kept per tile: at the root, and deeper in the tree.
        self.root_placements = root_placements
        self.placements = placements
        #: Rollout length in turns (all seats together) before the equity scores the state;
        #: solo turns are cheaper (one tile to place, no offer to weigh), so they look further.
        self.rollout_turns = rollout_turns
        self.solo_rollout_turns = solo_rollout_turns
        #: Points of equity difference that make a win about 73% likely (logistic scale).
        self.margin_scale = margin_scale
        self._placements = Placements()

    def signature(self, state: State) -> tuple:
        """What the candidates depend on: chance (refills, draws) can change them in a node."""
        p = state.seats[state.seat]
        return (
            state.seat, state.phase, state.held, tuple(state.offer), tuple(state.storage),
            state.intermezzo is not None, state.top_tile() if state.mode != "multi" else None,
            frozenset(p.tiles.items()),
        )

    def candidates(self, state: State, root: bool) -> list[Macro]:
        """The macro-actions searched here, best first by the greedy heuristic."""
        k = self.root_placements if root else self.placements
        ranking = self._placements.ranking
        if state.phase == PLACE:
            assert state.held is not None
            return [(None, a) for _, a in ranking(state, state.held)[:k]]
        scored: list[tuple[float, Macro]] = []
        for action in state.legal_actions():
            if action.type in ("take", "pick", "reveal"):
                if action.type == "reveal":
                    tile = state.top_tile()
                else:
                    source = state.offer if action.type == "take" else state.storage
                    assert action.index is not None
                    tile = source[action.index]
                assert tile is not None
                for value, place in ranking(state, tile)[:k]:
                    scored.append((value, (action, place)))
            else:  # a draw or a pass: placed by the rollout policy, if at all
                scored.append((-1e6, (action, None)))
        scored.sort(key=lambda vm: -vm[0])
        return [m for _, m in scored]

    def decisions(self, macro: Macro) -> list[Action]:
        """The decisions a macro-action stands for, in order."""
        return [a for a in macro if a is not None]

    def move_for(self, state: State, action: Action) -> Macro:
        """The macro-action that starts with the legal ``action`` (the analysis adds it to
        the root when no candidate does): a choice is placed by the rollout policy."""
        return (action, None) if state.phase == CHOOSE else (None, action)

    def play(self, state: State, macro: Macro) -> None:
        """Play a macro-action; a missing placement is the greedy one."""
        choice, place = macro
        if choice is not None:
            # A reveal's placement was listed for the tile this sample reveals (the candidate
            # signature holds the pile's top tile), so it fits.
            state.push(choice)
        if state.phase == PLACE:
            if place is None:
                assert state.held is not None
                place = self._placements.best(state, state.held)[1]
            state.push(place)

    def rollout(self, state: State, rng: random.Random) -> list[float]:
        """Greedy turns until the game ends or the rollout length is reached; then a reward in
        [0, 1] for every seat."""
        turns = 0
        limit = self.rollout_turns if state.mode == "multi" else self.solo_rollout_turns
        while state.phase != OVER and turns < limit:
            self.play(state, self._placements.greedy_macro(state))
            turns += 1
        return self.rewards(state)

    def rewards(self, state: State) -> list[float]:
        """A reward in [0, 1] for every seat."""
        if state.mode == "solo":
            return [_solo_reward(state)]
        if state.mode == "solo-advanced":
            return [min(1.0, max(0.0, evaluate(state, 0) / 500.0))]
        scale = self.margin_scale
        over = state.phase == OVER
        values = [evaluate(state, seat) for seat in range(state.players)]
        place = {seat: i for i, seat in enumerate(state.ranking())} if over else {}
        rewards = []
        for i, vi in enumerate(values):
            total = 0.0
            for j, vj in enumerate(values):
                if i == j:
                    continue
                shaped = logistic((vi - vj) / scale)
                # A finished game: winning is what counts, the margin only breaks ties in value.
                total += (0.8 * (place[i] < place[j]) + 0.2 * shaped) if over else shaped
            rewards.append(total / (len(values) - 1))
        return rewards


def _solo_reward(state: State) -> float:
    """Basic solo: fewer tiles to reach 75 is better; estimated at a cut-off rollout."""
    p = state.seats[0]
    if state.phase == OVER and not (state.outcome and state.outcome.figures.get("won")):
        return 0.0
    missing = max(0.0, SOLO_GOAL - _equity(p, 1.0)) if state.phase != OVER else 0.0
    tiles = p.placed + missing / SOLO_POINTS_PER_TILE
    return min(1.0, max(0.0, (50.0 - tiles) / 30.0))
