"""What Sugi's bots know about the game: a position's worth, and hooks for search.

- :func:`evaluate` scores a state for one seat, for the generic one-ply greedy: the timeline as
  it stands is resolved first (on a copy), then each samurai's progress towards the Temple counts
  by its worth on the seat's family tree card (a samurai the card does not name counts against:
  it would take a pedestal).
- :func:`candidate_actions` and :func:`rollout_action` are the optional hooks of the generic
  ISMCTS: the few moves worth searching (the best by one-ply evaluation), and a cheap playout
  that pushes one's own samurai on.
- :func:`random_action` and :func:`playout`: uniformly random play, as fast as the engine goes.

Every function reads only what the seat would know in a determinized state (its own family tree
card and hand); on a real state it would see more, so callers give it a determinized one.
"""

from __future__ import annotations

import random

from sagani_net.games.sugi.rules import (
    ARRIVED,
    LANES,
    MAINTENANCE,
    ON_TEMPLE,
    OVER,
    PLAN,
    TURNS,
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
#: How many actions the search weighs at a decision (the best by one-ply evaluation).
CANDIDATES = 8
#: A rollout puts its best card in the timeline, turned its best way, this often.
ROLLOUT_PLACE_SHARE = 0.85


def weights(state: State, seat: int) -> list[float]:
    """Per samurai colour: its points on the seat's card, or RIVAL_WEIGHT."""
    return [p or RIVAL_WEIGHT for p in state.parts.points[state.families[seat]]]


def evaluate(state: State, seat: int) -> float:
    """How good ``state`` is for ``seat``: larger is better."""
    if state.phase != OVER and state.timeline:
        state = state.clone()
        state._resolve(None)
    w = weights(state, seat)
    value = 0.0
    for colour, at in enumerate(state.samurai):
        value += w[colour] * (ARRIVED_COLUMNS if at == ARRIVED else at // LANES)
    if state.outcome is not None:
        value += WIN_BONUS if seat in state.outcome.winners else -WIN_BONUS
    elif state.ghost == ON_TEMPLE:
        value -= 0.5 * sum(x for x in w if x > 0)  # the Temple is shut while the ghost is there
    return value


def distinct_actions(state: State) -> list[Action]:
    """The legal actions less those that are the same for whoever cannot see a face-down tile:
    turning one by 90, 180 or 270 degrees is the same gamble, so only the quarter turn stays
    (on a determinized state, the sampled tile would otherwise pick the turn)."""
    revealed = state.revealed
    return [a for a in state.legal_actions()
            if not (a.type == "rotate" and a.space >= 0 and a.turn != 90
                    and not revealed[a.space])]  # fmt: skip


def candidate_actions(state: State) -> list[Action]:
    """The actions worth searching: the :data:`CANDIDATES` distinct actions best by one-ply
    :func:`evaluate` for the seat to move, in legal order."""
    legal = distinct_actions(state)
    if len(legal) <= CANDIDATES:
        return legal
    seat = state.current_seat
    assert seat is not None
    values = []
    for action in legal:
        after = state.clone()
        after.push(action)
        values.append(evaluate(after, seat))
    ranked = sorted(range(len(legal)), key=lambda i: -values[i])[:CANDIDATES]
    return [legal[i] for i in sorted(ranked)]


def gain(state: State, seat: int, card: int, turn: int) -> float:
    """How far ``card``, turned ``turn`` degrees, would push the seat's samurai on (its rivals'
    steps counted against), in points times spaces, as if nothing blocked."""
    w = weights(state, seat)
    return sum(w[c] * FORWARD[d] for c, d in state.parts.steps[card * 4 + turn // 90])


def best_turn(state: State, seat: int, card: int) -> int:
    """The way to turn ``card`` that pushes the seat's samurai furthest towards the Temple."""
    return max(TURNS, key=lambda t: gain(state, seat, card, t))


def rollout_action(state: State, rng: random.Random) -> Action:
    """A cheap playout move: mostly the hand's card that gains most, turned its best way, put in
    the timeline (ties at random); else a random action."""
    if state.phase == PLAN and rng.random() < ROLLOUT_PLACE_SHARE:
        seat = state.seat
        turned = [(card, best_turn(state, seat, card)) for card in state.hands[seat]]
        card, turn = max(turned, key=lambda ct: gain(state, seat, *ct) + rng.random() * 0.1)
        return Action.timeline(card, turn)
    if state.phase == MAINTENANCE:
        return Action("discard")
    return state.random_action(rng)


def random_action(state: State, rng: random.Random) -> Action:
    """A uniformly random legal action, without listing them all (the engine counts them)."""
    return state.random_action(rng)


def playout(state: State, rng: random.Random) -> None:
    """Uniformly random actions to the end of the game, unchecked and without events."""
    state.playout(rng)
