"""Helpers for the Sugi tests: hand-built positions and cards found by what they show.

Spaces are written as on screen: lane a-c, column 0 (Start) to 5 (Temple), e.g. ``b2``.
A tile is asked for by the sides it should have open once turned, e.g. ``"NS"``.
"""

from __future__ import annotations

from collections.abc import Sequence

from sagani_net.games.sugi.edition import COLOURS, DIRECTIONS, EDITION
from sagani_net.games.sugi.rules import (
    ARRIVED,
    FOREST,
    ON_TEMPLE,
    PLAN,
    State,
    parse_space,
    space_name,
)


def card(*arrows: str, action: str | None = None, skip: int = 0) -> int:
    """The first card (after ``skip`` matches) whose arrows are ``"red N"``, ``"blue E"``...
    in reading order, with the given action icon."""
    wanted = tuple(tuple(a.split()) for a in arrows)
    found = [c.id for c in EDITION.cards
             if c.arrows == wanted and (action is None or c.action == action)]
    assert len(found) > skip, f"our edition has no card {arrows} {action}"
    return found[skip]


def mask(sides: str) -> int:
    return sum(1 << DIRECTIONS.index(d) for d in sides)


def position(
    players: int = 2,
    *,
    tiles: dict[str, str] | None = None,
    hidden: tuple[str, ...] = (),
    samurai: dict[str, str | None] | None = None,
    ghost: str | None = None,
    hands: list[list[int]] | None = None,
    families: list[int] | None = None,
    timeline: Sequence[tuple[int, int, int]] = (),
    discard: Sequence[int] = (),
    seat: int = 0,
) -> State:
    """A planning position. Named tiles get a tile and turn with exactly those sides open;
    the other forest spaces are stand-ins open on every side. All face up except ``hidden``.
    Samurai not named stand on b0; ``None`` puts one on the next pedestal. The deck holds
    every card not dealt, in id order (the top is the highest id)."""
    s = State.new(players, seed=0)
    parts = s.parts
    free = list(parts.tile_ids)
    tile_at = [-1] * len(s.tile_at)
    wanted = {parse_space(k): mask(v) for k, v in (tiles or {}).items()}
    for space, goal in wanted.items():
        tile, turn = next((t, q) for t in free for q in range(4) if parts.sides[t * 4 + q] == goal)
        free.remove(tile)
        tile_at[space], s.turn[space] = tile, turn
        s.sides[space] = goal
    for space in FOREST:
        s.revealed[space] = True
        if space not in wanted:  # a stand-in: whatever tile it is, no side is blocked here
            tile_at[space], s.turn[space] = free.pop(0), 0
            s.sides[space] = mask("NESW")
    s.tile_at = tuple(tile_at)
    for name in hidden:
        s.revealed[parse_space(name)] = False
    s.samurai = [parse_space("b0")] * len(COLOURS)
    s.pedestals = []
    for colour, where in (samurai or {}).items():
        i = COLOURS.index(colour)
        if where is None:
            s.samurai[i] = ARRIVED
            s.pedestals.append(i)
        else:
            s.samurai[i] = parse_space(where)
    s.ghost = ON_TEMPLE if ghost is None else parse_space(ghost)
    s.hands = [sorted(h) for h in (hands or [[] for _ in range(players)])]
    s.families = families or list(range(players))
    s.timeline = [(c, turn // 90, owner) for c, turn, owner in timeline]
    s.discard = list(discard)
    used = {c for h in s.hands for c in h} | {c for c, _, _ in s.timeline} | set(s.discard)
    s.deck = [c for c in parts.card_ids if c not in used]
    s.known_bottom = [() for _ in range(players)]
    s.phase, s.seat, s.round_start, s.round = PLAN, seat, seat, 1
    s.last_placer = timeline[-1][2] if timeline else None
    return s


def where(state: State, colour: str) -> str | None:
    """The space a samurai stands on, ``None`` once on a pedestal."""
    at = state.samurai[COLOURS.index(colour)]
    return None if at == ARRIVED else space_name(at)


def types(events: list[dict]) -> list[str]:
    return [e["type"] for e in events]
