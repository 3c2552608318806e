"""Sagrada's bot knowledge: an evaluation of a window, and hooks for the generic search.

- :func:`evaluate` (the generic greedy policy and the search's rollouts score with it): points
  already made, objectives still in reach, favour tokens, the private colour's pips still to
  come, and the empty cells the seat cannot expect to fill (by each cell's chance that a
  fitting die shows up, against its turns left). Solo, it is the margin over the target the
  round track will likely show: a high die drafted or paid for a tool stays off the track, and
  a cell left empty costs its 3 points and one more die on the track.
- :func:`rollout_action`: a cheap policy for playouts: place a die where it fits best by a few
  quick signs (restricted cells first, the private colour, solo high dice, never a placement
  that leaves a neighbouring cell unfillable), never spend tokens, else pass.
- :func:`random_action` and :func:`playout`: uniformly random play, for the random policy
  and the engine benchmark.
- :class:`Search`: the generic ISMCTS's hooks (single actions as moves, candidates pruned by
  the evaluation, rollouts by :func:`rollout_action`).

>>> from sagani_net.games.sagrada.rules import SAGRADA
>>> state = SAGRADA.new_state(SAGRADA.parse_config({"players": 2}), seed=1)
>>> round(evaluate(state, 0), 1) == round(evaluate(state.clone(), 0), 1)
True
"""

from __future__ import annotations

import random
from collections.abc import Hashable

from sagani_net.game import logistic, margin_rewards
from sagani_net.games.sagrada.components import (
    CELLS,
    CLASH,
    COLOUR,
    COLOUR_DICE,
    COLOURS,
    COLUMN_CELLS,
    OBJECTIVES,
    ORTH,
    ROW_CELLS,
    SHADE_PAIRS,
    VALUE,
    objective_points,
    private_points,
)
from sagani_net.games.sagrada.rules import (
    CHOOSE,
    OVER,
    PASS,
    ROUNDS,
    SOLO_DICE,
    SOLO_EMPTY_PENALTY,
    Action,
    State,
)


def TURN_KEY(state: State) -> Hashable:  # noqa: N802 (a hook the analysis looks up by name)
    """Whose turn, and which: the round and the place in its order, so that the last seat's
    two turns in a row (the snake) and a solo player's turns count each as its own."""
    return (state.phase, state.round, state.turn, state.current_seat)


#: Share of the turns left that a seat fills, on average, once cells get scarce.
FILL_RATE = 1.0
#: Weight of the private colour's pips still to come, and how much more often than by chance
#: the seat fills a cell with its private colour. Solo, counting them measured no better
#: (greedy, 400 games): the pull of the round track towards high dice says enough there.
FUTURE_PRIVATE = 0.5
SOLO_FUTURE_PRIVATE = 0.0
PRIVATE_BIAS = 2.0
#: Kinds of dice (5 colours x 6 values).
KINDS = 30
#: Share of the rounds left in which a cell competes well enough for a turn to be filled.
ROUND_SHARE = 0.4
#: What a filled cell brings besides avoiding the empty cell's point (objectives, private).
FILL_WORTH = 2.0
#: Solo: the die a cell left empty leaves on the round track, on average.
LEFT_DIE = 3.0
#: Share of a line objective's points counted per die already in a line that can still score.
LINE_CREDIT = 0.5
#: Share of a set objective's points counted for a die towards the next set.
PAIR_CREDIT = 0.25
SET_CREDIT = 0.5
#: Penalty for an empty cell that at most SCARCE_DICE kinds of dice can still fill.
SCARCE_CELL = 0.3
SCARCE_DICE = 3
#: The rollout policy's signs: a restricted cell filled, a pip of the private colour, solo a
#: pip off the round track, a neighbouring cell no die can fill any more.
SIGN_RESTRICTED = 2.0
SIGN_PRIVATE = 0.33
SIGN_SOLO_VALUE = 0.25
SIGN_KILL = 3.0
#: Solo: what a round leaves on the round track, on average (the 2 lower of 4 dice).
SOLO_TRACK_PER_ROUND = 4.5


def turns_left(state: State, seat: int) -> int:
    """The turns ``seat`` still has in which it may draft, this one included if it has not
    drafted yet."""
    if state.phase == CHOOSE:
        return 2 * ROUNDS
    if state.phase == OVER:
        return 0
    count = 2 * (ROUNDS - state.round - 1)
    order, players = state.order, state.players
    for t in range(state.turn, len(order)):
        if order[t] != seat or t >= players and state.skip >> seat & 1:
            continue
        if t == state.turn and (state.drafted or state.step is not None):
            continue
        count += 1
    return count


def _line_credit(window: list[int], number: int) -> float:
    """Points a line objective may still bring: a share per die in each incomplete line whose
    dice all differ so far."""
    lines = ROW_CELLS if number in (1, 3) else COLUMN_CELLS
    of = COLOUR if number in (1, 2) else VALUE
    points = OBJECTIVES[number].points
    credit = 0.0
    for line in lines:
        dice = [window[i] for i in line if window[i]]
        if len(dice) == len(line) or len({of[d] for d in dice}) < len(dice):
            continue
        credit += points * LINE_CREDIT * len(dice) / len(line)
    return credit


def _set_credit(window: list[int], number: int) -> float:
    """Points a set objective may still bring: a share of the next set, by how much of it the
    window holds already."""
    points = OBJECTIVES[number].points
    if number in SHADE_PAIRS:
        a, b = SHADE_PAIRS[number]
        values = [VALUE[d] for d in window]
        return points * PAIR_CREDIT * abs(values.count(a) - values.count(b))
    if number in (8, 9):
        of, kinds = (VALUE, range(1, 7)) if number == 8 else (COLOUR, range(len(COLOURS)))
        seen = [of[d] for d in window if d]
        counts = [seen.count(k) for k in kinds]
        done = min(counts)
        return points * SET_CREDIT * sum(1 for c in counts if c > done) / len(counts)
    return 0.0


def evaluate(state: State, seat: int) -> float:
    """How good ``state`` is for ``seat``: roughly the points it will end with (solo: its
    margin over the target score). Before the game starts, a chosen pattern is judged as the
    empty window it will be, with its favour tokens."""
    if state.phase == OVER:
        assert state.outcome is not None
        final = float(state.outcome.scores[seat])
        return final - state.target() if state.solo else final
    chosen = state.chosen[seat]
    if chosen is None:
        return 0.0
    pattern = state.patterns[chosen]
    window = state.windows[seat]
    tokens = state.tokens[seat]
    if state.phase == CHOOSE and not state.solo:
        tokens = pattern.difficulty
    value = float(tokens)
    for number in state.objectives:
        value += objective_points(number, window)
        value += _line_credit(window, number) if number <= 4 else _set_credit(window, number)
    left = turns_left(state, seat)
    privates = state.privates[seat]
    empty, fills, scarce, potential = _outlook(state, window, pattern.allow, left, privates)
    # Solo: the better of two private colours scores; its dice to come count too.
    weight = SOLO_FUTURE_PRIVATE if state.solo else FUTURE_PRIVATE
    value += max(private_points(c, window) + weight * p
                 for c, p in zip(privates, potential, strict=True))
    missed = empty - min(fills, FILL_RATE * left)
    if state.solo:
        # A cell left empty costs its penalty and leaves one more die on the round track.
        value -= (SOLO_EMPTY_PENALTY + LEFT_DIE) * missed + SCARCE_CELL * scarce
        return value - projected_target(state)
    return value - (1 + FILL_WORTH) * missed - SCARCE_CELL * scarce


def promise(state: State, seat: int) -> float:
    """What the position promises ``seat``: its evaluation, or before it has a pattern (which
    :func:`evaluate` calls 0) the mean of what the patterns it may choose promise. Solo
    rewards are centred there: centred on 0, every pattern's reward was the logistic of a
    margin some 40 points below the target, 0.2% for each, and the choice went unjudged."""
    if state.chosen[seat] is not None:
        return evaluate(state, seat)
    chosen = []
    for action in state.legal_actions():
        after = state.clone()
        after.push(action)
        chosen.append(evaluate(after, seat))
    return sum(chosen) / len(chosen)


def _outlook(state: State, window: list[int], allow: tuple[int, ...], left: int,
             privates: tuple[int, ...]) -> tuple[int, float, int, list[float]]:
    """What the empty cells of ``window`` promise: how many there are, how many the seat can
    expect to fill, how many only a few kinds of dice can still fill, and per private colour
    the pips its dice may still bring.

    A cell's chance is that of a fitting die showing up in the rounds left, by the kinds of
    dice its pattern and its neighbours still allow (neighbours to come will only narrow it).
    Its pips of a colour are those of an average fitting die of that colour, counted by the
    share of such dice among the fitting ones (the seat picks them, hence the bias)."""
    rounds = min(ROUNDS - state.round, (left + 1) // 2) * ROUND_SHARE
    dice = SOLO_DICE if state.solo else 2 * state.players + 1
    empty = scarce = 0
    fills = 0.0
    potential = [0.0] * len(privates)
    for i in range(CELLS):
        if window[i]:
            continue
        empty += 1
        m = allow[i]
        for j in ORTH[i]:
            d = window[j]
            if d:
                m &= ~CLASH[d]
        kinds = m.bit_count()
        if not kinds:
            continue
        if kinds <= SCARCE_DICE:
            scarce += 1
        miss = (1.0 - kinds / KINDS) ** dice  # per round: no fitting die in the pool
        chance = 1.0 - miss**rounds
        fills += chance
        for k, colour in enumerate(privates):
            own = m & COLOUR_DICE[colour]
            if own:
                count = own.bit_count()
                pips = sum(v for v in range(1, 7) if own >> (colour * 6 + v) & 1)
                potential[k] += chance * min(1.0, PRIVATE_BIAS * count / kinds) * pips / count
    return empty, fills, scarce, potential


def projected_target(state: State) -> float:
    """Solo: the target score the round track will likely show at the end. Of this round's
    pool, the seat drafts the highest dice in the turns it has left (as far as it can), so a
    high die drafted now lowers the target; later rounds leave their average."""
    if state.phase == OVER:
        return float(state.target())
    drafts = max(0, turns_left(state, 0) - 2 * (ROUNDS - state.round - 1))
    pool = sorted(VALUE[d] for d in state.pool)
    keep = max(0, len(pool) - drafts)
    stays = sum(pool[:keep])
    return state.target() + stays + SOLO_TRACK_PER_ROUND * (ROUNDS - state.round - 1)


def _placement_sign(state: State, seat: int, die: int, cell: int) -> float:
    """A quick sign of a placement's worth: fill restricted cells, feed the private colour,
    keep the neighbouring cells fillable; solo, take high dice off the round track's way."""
    pattern = state.chosen_pattern(seat)
    value = VALUE[die]
    sign = SIGN_RESTRICTED if pattern.cells[cell] else 0.0
    if COLOUR[die] in state.privates[seat]:
        sign += SIGN_PRIVATE * value
    if state.solo:
        sign += SIGN_SOLO_VALUE * value
    window, allow, clash = state.windows[seat], pattern.allow, CLASH[die]
    for i in ORTH[cell]:
        if window[i]:
            continue
        m = allow[i] & ~clash
        for j in ORTH[i]:
            d = window[j]
            if d:
                m &= ~CLASH[d]
        if not m:
            sign -= SIGN_KILL
    return sign


def rollout_action(state: State, rng: random.Random) -> Action:
    """A cheap, sensible action: the best placement by :func:`_placement_sign` (random among
    equals), no tools, else pass. Inside a tool's steps: a random legal action."""
    if state.step is not None or state.phase != "play":
        actions = state.legal_actions()
        return actions[int(rng.random() * len(actions))]
    if state.drafted:
        return PASS
    seat = state.seat
    best, best_sign = PASS, -1.0
    for i, die in enumerate(state.pool):
        for cell in state.cells_for(seat, die):
            sign = _placement_sign(state, seat, die, cell) + rng.random()
            if sign > best_sign:
                best, best_sign = Action.draft(i, cell), sign
    return best


class Search:
    """The generic ISMCTS's hooks: moves are single actions; the candidates are the legal
    actions, placements pruned to the best few by the one-ply evaluation; rollouts play
    :func:`rollout_action` for a few rounds and score the state with :func:`evaluate`."""

    def __init__(self, placements: int = 6, rollout_rounds: int = 3,
                 margin_scale: float = 6.0) -> None:
        if placements < 1 or rollout_rounds < 0 or margin_scale <= 0:
            raise ValueError("placements >= 1, rollout_rounds >= 0, margin_scale > 0")
        self.placements = placements
        self.rollout_rounds = rollout_rounds
        self.margin_scale = margin_scale
        #: Solo: the margin the root position promises, where rewards are centred.
        self.baseline: float | None = None

    def signature(self, state: State) -> Hashable:
        """Everything the seat's legal actions depend on that chance can change: the pool, the
        die in hand, the round track (earlier pools' leftovers) and the seat's window."""
        seat = state.seat
        return (seat, state.phase, state.step, state.held, state.drafted, state.tool_done,
                tuple(state.pool), tuple(map(tuple, state.track)),
                tuple(state.windows[seat]))

    def candidates(self, state: State, root: bool) -> list[Action]:
        legal = state.legal_actions()
        seat = state.seat
        keep = self.placements * (2 if root else 1)
        if root and state.solo and self.baseline is None:
            self.baseline = promise(state, seat)
        placing = [a for a in legal if a.kind in ("draft", "place") and a.cell >= 0]
        others = [a for a in legal if not (a.kind in ("draft", "place") and a.cell >= 0)]
        if not root:  # tools only at the root: deeper, they cost more than they tell
            others = [a for a in others if a.kind != "tool" and a.kind != "draft"] or others
        if len(placing) > keep:
            scored = []
            for a in placing:
                after = state.clone()
                after.push(a)
                scored.append((evaluate(after, seat), a))
            scored.sort(key=lambda va: -va[0])
            placing = [a for _, a in scored[:keep]]
        return placing + others

    def decisions(self, move: Action) -> list[Action]:
        return [move]

    def play(self, state: State, move: Action) -> None:
        state.push(move)

    def rollout(self, state: State, rng: random.Random) -> list[float]:
        stop = min(ROUNDS, state.round + self.rollout_rounds)
        while state.phase != OVER and (state.round < stop or state.phase == CHOOSE):
            state.push(rollout_action(state, rng))
        values = [evaluate(state, s) for s in range(state.players)]
        if state.players == 1:
            # The evaluation is the margin over the target. Centred on the root's, rewards
            # tell moves apart however far from winning the game is: scored from 0, a game
            # 20 points behind gives every move nearly the same reward.
            return [logistic((values[0] - (self.baseline or 0.0)) / self.margin_scale)]
        return margin_rewards(values, self.margin_scale)

