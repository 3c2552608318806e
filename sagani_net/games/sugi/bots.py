"""What Sugi's bots know about the game: a position's worth, and hooks for search.

- :func:`evaluate` scores a state for one seat, for the generic one-ply greedy: the timeline as
  it stands is resolved first (on a copy), then each samurai's progress towards the Temple (the
  steps its way there still takes, round obstacles and the ghost, or through them at the cost
  of a turn or a ghost move: :func:`steps_left`) counts by its worth on the seat's family tree
  card (a samurai the card does not name counts against: it would take a pedestal).
- :func:`random_action` and :func:`playout`: uniformly random play, as fast as the engine goes.
- :class:`Search`: Sugi's hooks of the generic ISMCTS: what the seat may believe of the hidden
  parts, the few moves worth searching (:func:`best_actions`), rollouts of best placements
  (:func:`placement`) to the next resolution, scored by :func:`evaluate`.

Every function reads only what the seat would know in a determinized state (its own family tree
card and hand); on a real state it would see more, so callers give it a determinized one.
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable

from sagani_net.games.sugi.edition import LANES, TURNS
from sagani_net.games.sugi.rules import (
    ARRIVED,
    MAINTENANCE,
    NEIGHBOUR,
    ON_TEMPLE,
    OPPOSITE,
    OVER,
    PLAN,
    SPACES,
    TEMPLE_COLUMN,
    TEMPLE_SPACES,
    Action,
    State,
)

#: A samurai that is not on the seat's card, per space forward: it races for a pedestal.
RIVAL_WEIGHT = -2.0
#: A samurai on a pedestal counts as this many columns (the Temple is column 5).
ARRIVED_COLUMNS = 7.0
#: Finishing as a winner, or not, in columns-times-points.
WIN_BONUS = 10.0
#: How far each direction takes a samurai towards the Temple.
FORWARD = (1, 0, -1, 0)


def weights(state: State, seat: int) -> list[float]:
    """Per samurai colour: its points on the seat's card, or RIVAL_WEIGHT."""
    return [p or RIVAL_WEIGHT for p in state.parts.points[state.families[seat]]]


def evaluate(state: State, seat: int) -> float:
    """How good ``state`` is for ``seat``: larger is better."""
    if state.phase != OVER and state.timeline:
        state = state.clone()  # resolved below, as the timeline will stand
    return evaluate_spent(state, seat)


def evaluate_spent(state: State, seat: int) -> float:
    """:func:`evaluate` of a copy the caller has made for it and will not use again: a
    timeline still to come is resolved in it, where :func:`evaluate` resolves a copy (the
    one-ply looks of the search and its rollouts judge a fresh copy after every move)."""
    if state.phase != OVER and state.timeline:
        state._resolve(None)
    w = weights(state, seat)
    value = 0.0
    left = steps_left(state)
    for colour, at in enumerate(state.samurai):
        value += w[colour] * (ARRIVED_COLUMNS if at == ARRIVED else TEMPLE_COLUMN - left[at])
    if state.outcome is not None:
        value += WIN_BONUS if seat in state.outcome.winners else -WIN_BONUS
    elif state.ghost == ON_TEMPLE:
        value -= 0.5 * sum(x for x in w if x > 0)  # the Temple is shut while the ghost is there
    return value


#: What a side known to be blocked adds to a step through it: the way is still there, a rotate
#: card away, but a detour of one step is cheaper (so where the forest has an open way of
#: about the same length, the count is the one round the obstacles).
TURN_STEPS = 2
#: What the ghost's space adds to a step into it: a ghost card sends it away.
GHOST_STEPS = 2
#: More than any count steps_left can reach (every space has a way, at worst through a turned
#: tile on each of its steps).
_FAR = SPACES * (1 + 2 * TURN_STEPS + GHOST_STEPS)
#: Per space, the steps into it from a space off the Temple, as (space, bit of the side it
#: leaves by, bit of the side it enters by): what steps_left walks back along, worked out
#: once rather than at every evaluation.
_STEPS_IN = tuple(
    tuple((at, 1 << d, 1 << OPPOSITE[d]) for d in range(4)
          if 0 <= (at := NEIGHBOUR[to][OPPOSITE[d]]) < TEMPLE_SPACES[0])
    for to in range(SPACES)
)


#: steps_left's counts by board, and how many boards it keeps (a few hundred KB at most).
_COUNTED: dict[tuple[int, ...], tuple[int, ...]] = {}
_COUNTED_MAX = 2048


def steps_left(state: State) -> tuple[int, ...]:
    """Per space, the fewest steps from it to the Temple, a side known to be blocked costing
    TURN_STEPS more and the ghost's space GHOST_STEPS more (a face-down tile counts as open).
    A samurai's progress is the Temple's column less this: on an open board, its column; a
    samurai behind an obstacle or the ghost is worth less, so the one-ply look-ahead turns a
    tile open, sends the ghost away or steps round, where counting columns saw no gain.

    No space is ever out of reach: a forest walled in, or shut by the ghost, still counts the
    turns and the ghost's move that would open it, so opening it shows a gain one move ahead.
    (Counted as no way at all, a wall made every move look alike to the bots, who then played
    blind arrows until the round-60 net: issue 19.)"""
    # The count reads only the sides known to be shut and the ghost, which most moves leave as
    # they were: a search evaluates the same board again and again, so the counts are kept.
    ghost = state.ghost
    shut = [~sides if up else 0 for sides, up in zip(state.sides, state.revealed, strict=True)]
    key = (ghost, *shut)
    known = _COUNTED.get(key)
    if known is not None:
        return known
    left = [_FAR] * SPACES
    for t in TEMPLE_SPACES:
        left[t] = 0
    # Shortest ways back from the Temple, a space looked at again whenever it is reached more
    # cheaply (few are: the costs are small and most ways run straight north).
    queue = list(TEMPLE_SPACES)
    for to in queue:
        base = left[to] + (1 + GHOST_STEPS if to == ghost else 1)
        shut_to = shut[to]
        for at, leave, enter in _STEPS_IN[to]:  # one step from at, by its side leave, reaches to
            cost = base
            if shut_to & enter:
                cost += TURN_STEPS
            if shut[at] & leave:
                cost += TURN_STEPS
            if cost < left[at]:
                left[at] = cost
                queue.append(at)
    if len(_COUNTED) >= _COUNTED_MAX:
        _COUNTED.clear()
    counted = _COUNTED[key] = tuple(left)
    return counted


def distinct_actions(state: State) -> list[Action]:
    """The legal actions less those that are the same for whoever cannot see a face-down tile:
    turning one by 90, 180 or 270 degrees is the same gamble, so only the quarter turn stays
    (on a determinized state, the sampled tile would otherwise pick the turn)."""
    revealed = state.revealed
    return [a for a in state.legal_actions()
            if not (a.type == "rotate" and a.space >= 0 and a.turn != 90
                    and not revealed[a.space])]


def best_actions(state: State, keep: int) -> list[Action]:
    """The ``keep`` distinct actions best by one-ply :func:`evaluate` for the seat to move,
    best first (ties in legal order)."""
    legal = distinct_actions(state)
    if len(legal) <= keep:
        return legal
    seat = state.current_seat
    assert seat is not None
    scored = []
    for i, action in enumerate(legal):
        after = state.clone()
        after.push(action)
        scored.append((-evaluate_spent(after, seat), i, action))
    scored.sort()
    return [action for _, _, action in scored[:keep]]


def gain(state: State, seat: int, card: int, turn: int) -> float:
    """How far ``card``, turned ``turn`` degrees, would push the seat's samurai on (its rivals'
    steps counted against), in points times spaces, as if nothing blocked."""
    w = weights(state, seat)
    return sum(w[c] * FORWARD[d] for c, d in state.parts.steps[card * 4 + turn // 90])


def best_turn(state: State, seat: int, card: int) -> int:
    """The way to turn ``card`` that pushes the seat's samurai furthest towards the Temple."""
    return max(TURNS, key=lambda t: gain(state, seat, card, t))


class Search:
    """Sugi's hooks for the generic ISMCTS (:class:`sagani_net.bots.mcts.MctsPolicy`).

    - **Belief**: :meth:`Game.determinize` deals the other seats' family tree cards and turns
      their face-down timeline cards at random, but players push their own samurai on. The
      first time the search meets a sample, it deals the other seats family tree cards anew,
      the likelier the further their samurai have come (``infer_families``, odds
      ``exp(worth / family_scale)``), then turns each card another seat placed its owner's
      best way (:func:`best_turn`), ``believe`` of the time. Only hidden parts change: the
      sample still agrees with everything the seat knows.
    - **Candidates**: the distinct actions (:func:`distinct_actions`) best by one-ply
      :func:`evaluate` (which resolves the timeline as it stands, in its order, obstacles and
      ghost included): ``root_candidates`` at the root, ``candidates`` deeper; pushes all;
      maintenance keeps the hand (the evaluation cannot tell hands apart).
    - **Rollouts**: both sides put their best card in the timeline, turned the best way by the
      same evaluation, until the timeline is resolved ``rollout_resolutions`` times (or the game
      ends); the state is then scored by :func:`evaluate` per seat (the family tree card's worth
      of each samurai's progress), as a logistic of the margin over each other seat.
    """

    def __init__(self, root_candidates: int = 10, candidates: int = 4, believe: float = 0.8,
                 rollout_resolutions: int = 1, margin_scale: float = 6.0,
                 family_scale: float = 8.0, infer_families: bool = True) -> None:
        if not 1 <= candidates <= root_candidates or not 0 <= believe <= 1:
            raise ValueError("1 <= candidates <= root_candidates, 0 <= believe <= 1")
        if rollout_resolutions < 1 or margin_scale <= 0:
            raise ValueError("rollout_resolutions >= 1, margin_scale > 0")
        self.root_candidates = root_candidates
        self.candidates_deeper = candidates
        self.believe = believe
        self.rollout_resolutions = rollout_resolutions
        self.margin_scale = margin_scale
        self.family_scale = family_scale
        self.infer_families = infer_families
        #: The sample last refined (a new state object is a new sample; kept alive so that its
        #: identity cannot be reused).
        self._sample: State | None = None
        self._belief_rng = random.Random(0)

    # -- belief --------------------------------------------------------------------------------

    def _refine(self, state: State) -> None:
        """Deal the other seats family tree cards that fit how far the samurai have come, then
        turn their face-down timeline cards the way their owners would."""
        self._sample = state
        me = state.seat
        rng = self._belief_rng
        if self.infer_families:
            self._deal_families(state, rng)
        timeline = state.timeline
        for slot, (card, _, owner) in enumerate(timeline):
            if owner != me and rng.random() < self.believe:
                timeline[slot] = (card, best_turn(state, owner, card) // 90, owner)

    def signature(self, state: State) -> Hashable:
        """The seat to move, the phase and its legal actions' inputs: the seat's hand, the
        timeline's length, the ghost and the samurai (chance changes hands and tiles)."""
        if state is not self._sample:
            self._refine(state)
        return (state.seat, state.phase, tuple(state.hands[state.seat]), len(state.timeline),
                state.ghost, tuple(state.samurai), tuple(state.revealed),
                state.pushing)

    def _deal_families(self, state: State, rng: random.Random) -> None:
        """Players push their own samurai on, so a family whose samurai are further on is the
        likelier: each other seat's card is drawn, among those the seat to move does not hold
        (its own, or one already dealt), with odds ``exp(worth of the progress / scale)``."""
        progress = [ARRIVED_COLUMNS if at == ARRIVED else at // LANES for at in state.samurai]
        points = state.parts.points
        families = state.families[:]  # clones share the list: this sample gets its own
        left = [f for f in state.parts.family_ids if f != families[state.seat]]
        for other in range(state.players):
            if other == state.seat:
                continue
            odds = [math.exp(sum(p * g for p, g in zip(points[f], progress, strict=True))
                             / self.family_scale) for f in left]
            pick = rng.random() * sum(odds)
            for i, weight in enumerate(odds):
                pick -= weight
                if pick <= 0 or i == len(odds) - 1:
                    families[other] = left.pop(i)
                    break
        state.families = families

    # -- moves ---------------------------------------------------------------------------------

    def candidates(self, state: State, root: bool) -> list[Action]:
        if state.phase == MAINTENANCE:
            return [Action("discard")]
        return best_actions(state, self.root_candidates if root else self.candidates_deeper)

    def decisions(self, move: Action) -> list[Action]:
        return [move]

    def play(self, state: State, move: Action) -> None:
        state.push(move)

    # -- rollouts ------------------------------------------------------------------------------

    def rollout(self, state: State, rng: random.Random) -> list[float]:
        resolutions = 0
        while state.phase != OVER:
            if state.phase == PLAN:
                if resolutions >= self.rollout_resolutions:
                    break
                before = state.round
                state.push(placement(state, rng))
                if state.round != before or state.phase == MAINTENANCE:
                    resolutions += 1
            elif state.phase == MAINTENANCE:
                state.push(Action("discard"))
            else:
                state.push(state.random_action(rng))
        return rewards(state, self.margin_scale)


def placement(state: State, rng: random.Random) -> Action:
    """The planning move of a rollout: the hand's card and turn whose timeline, resolved as it
    would stand, :func:`evaluate` likes best for the seat (ties at random)."""
    seat = state.seat
    best, best_value = None, -math.inf
    for card in state.hands[seat]:
        for turn in TURNS:
            action = Action.timeline(card, turn)
            after = state.clone()
            after.push(action)
            value = evaluate_spent(after, seat) + rng.random() * 1e-3
            if value > best_value:
                best, best_value = action, value
    assert best is not None
    return best


def rewards(state: State, margin_scale: float) -> list[float]:
    """A reward in [0, 1] per seat: a finished game by its ranking (winners who share the win
    tie: half a point against each other), else the logistic of the evaluation's margin over
    each other seat, averaged."""
    seats = state.players
    outcome = state.outcome
    if outcome is not None:
        place = {seat: i for i, seat in enumerate(outcome.ranking)}
        # The ranking lists shared winners in seat order; counted as it stands, a shared win
        # (a shared nothing at the round-60 net, say) was a win to the first and a loss to
        # the others.
        shared = set(outcome.winners)
        return [sum(0.5 if i in shared and j in shared else float(place[i] < place[j])
                    for j in range(seats) if j != i) / (seats - 1) for i in range(seats)]
    values = [evaluate(state, seat) for seat in range(seats)]
    return [sum(_logistic((vi - vj) / margin_scale) for j, vj in enumerate(values) if j != i)
            / (seats - 1) for i, vi in enumerate(values)]


def _logistic(x: float) -> float:
    if x < -30:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))
