"""The random and the greedy policy."""

from __future__ import annotations

import random

from sagani_net.bots import policy
from sagani_net.games.sagani.rules import CHOOSE, Action, Placement, Player, State
from sagani_net.games.sagani.tiles import ROTATIONS, TILES

#: How many tiles that fit the pile's back the greedy policy tries when it weighs a draw.
DRAW_SAMPLES = 4


@policy("random")
class RandomPolicy:
    """A uniformly random legal action."""

    name = "random"

    def choose(self, state: State, rng: random.Random) -> Action:
        return state.random_action(rng)


def placement_value(pl: Placement, costs: bool = True) -> float:
    """The immediate worth of a placement: points and cacophony first, then what it sets up.

    Freed discs avoid cacophony later; covered arrows are progress; open arrows are debts.
    """
    value = pl.points - (2 * pl.cacophony if costs else 0)
    return (
        value + 0.15 * pl.discs_freed + 0.6 * len(pl.covers) + 0.5 * len(pl.covered)
        - 0.45 * len(pl.open)
    )  # fmt: skip


def ranked_placements(
    player: Player, tile: int, costs: bool, keep: int | None = None
) -> list[tuple[float, Action]]:
    """The ``keep`` best placements (all by default) of ``tile`` in ``player``'s display, best
    first by :func:`placement_value`; ties keep the frontier's order."""
    tiles = player.tiles
    scored = []
    for cell in list(player.frontier) or [(0, 0)]:
        x, y = cell
        # Compact displays keep more tiles on each arrow's line: a small tie-breaker.
        snug = 0.05 * sum(
            (x + dx, y + dy) in tiles for dx, dy in ((0, 1), (1, 0), (0, -1), (-1, 0))
        )
        for rot in range(4):
            scored.append(
                (placement_value(player.evaluate(tile, cell, rot), costs) + snug, cell, rot)
            )
    scored.sort(key=lambda v: -v[0])
    return [(value, Action.place(cell, ROTATIONS[rot])) for value, cell, rot in scored]


def best_placement(state: State, tile: int) -> tuple[float, Action]:
    """The best placement of ``tile`` for the seat to move, by :func:`placement_value`."""
    costs = state.mode != "solo-advanced"
    return ranked_placements(state.seats[state.seat], tile, costs, keep=1)[0]


@policy("greedy")
class GreedyPolicy:
    """Takes the tile and placement with the best immediate value (points, discs, cacophony)."""

    name = "greedy"

    def choose(self, state: State, rng: random.Random) -> Action:
        if state.phase != CHOOSE:
            assert state.held is not None
            return best_placement(state, state.held)[1]
        options: list[tuple[float, Action]] = []
        for action in state.legal_actions():
            if action.type == "take":
                options.append((best_placement(state, state.offer[action.index])[0], action))
            elif action.type == "pick":
                options.append((best_placement(state, state.storage[action.index])[0], action))
            elif action.type == "draw":
                options.append((self._draw_value(state, rng), action))
            elif action.type == "pass":
                options.append((0.0, action))
            else:  # reveal: the only choice
                return action
        return max(options, key=lambda o: o[0])[1]

    def _draw_value(self, state: State, rng: random.Random) -> float:
        """The mean best value of a few unseen tiles that fit the pile's public back."""
        top = state.top_tile()
        assert top is not None
        back = (TILES[top].element, TILES[top].value)
        unseen = sorted(state.pile + state.set_aside)
        fits = [t for t in unseen if (TILES[t].element, TILES[t].value) == back]
        sample = rng.sample(fits, min(DRAW_SAMPLES, len(fits)))
        return sum(best_placement(state, t)[0] for t in sample) / len(sample)
