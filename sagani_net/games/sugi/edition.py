"""Our edition of Sugi's components, read from the data files and checked.

The 12 forest tiles, the 50 movement cards and the 10 family tree cards live in
``data/tiles.json``, ``data/cards.json`` and ``data/families.json`` (the format is in
``DESIGN.md``). An owner of the real box may type in the real ones; :func:`load_edition` refuses
a damaged file with a sentence that names the file and the entry. Check a replacement with
``python -m sagani_net.games.sugi.edition DIR``.

Directions are ``N`` (towards the Temple), ``E``, ``S``, ``W``; a turn is 0, 90, 180 or 270
degrees clockwise. Tiles and cards are drawn upright.

>>> EDITION.tiles[7].open
'NES'
>>> EDITION.cards[31].arrows, EDITION.cards[31].action
((('yellow', 'N'), ('red', 'E')), 'rotate')
>>> EDITION.families[0].points
(('yellow', 7), ('red', 5), ('purple', 3))
"""

from __future__ import annotations

import json
import os
import sys
from itertools import combinations
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from pathlib import Path

COLOURS = ("yellow", "red", "purple", "black", "blue")
DIRECTIONS = ("N", "E", "S", "W")
ACTIONS = ("rotate", "free", "ghost", "remove")
TURNS = (0, 90, 180, 270)
#: The board's three lanes, left to right; a space is ``column * LANES + lane``.
LANES = 3
LANE_NAMES = "abc"


def space_name(space: int) -> str:
    """``b3`` for lane b, column 3."""
    return f"{LANE_NAMES[space % LANES]}{space // LANES}"
FAMILY_POINTS = (7, 5, 3)
TILE_COUNT, CARD_COUNT, FAMILY_COUNT = 12, 50, 10
FILES = ("tiles.json", "cards.json", "families.json")


class EditionError(ValueError):
    """A data file that does not describe a Sugi edition; the message names file and entry."""


class ForestTile(NamedTuple):
    """A forest tile upright: the sides a samurai may cross (the others show an obstacle)."""

    id: int
    open: str  # a subset of "NESW", in that order


class MovementCard(NamedTuple):
    """A movement card upright: its arrows in reading order, and its action icon."""

    id: int
    arrows: tuple[tuple[str, str], ...]  # (colour, direction)
    action: str


class FamilyTree(NamedTuple):
    """A family tree card: three samurai and their points, highest first."""

    id: int
    points: tuple[tuple[str, int], ...]  # (colour, points)

    def value(self, colour: str) -> int:
        return dict(self.points).get(colour, 0)


class Edition(NamedTuple):
    """One complete set of components."""

    tiles: tuple[ForestTile, ...]
    cards: tuple[MovementCard, ...]
    families: tuple[FamilyTree, ...]

    def to_data(self) -> dict[str, Any]:
        """The components as plain data, in the files' own format."""
        return {
            "tiles": [{"id": t.id, "open": t.open} for t in self.tiles],
            "cards": [{"id": c.id, "arrows": [list(a) for a in c.arrows], "action": c.action}
                      for c in self.cards],
            "families": [{"id": f.id, "points": dict(f.points)} for f in self.families],
        }


def load_edition(directory: Path | str | None = None) -> Edition:
    """Read and check the three files in ``directory`` (default: the package's ``data/``).

    :raises EditionError: the first thing wrong, naming the file and the entry.
    """
    # Plain files beside this module (the package ships them): importlib.resources and
    # pathlib, which would also read them from a zip, cost a short command more than its
    # games (sagani selfplay).
    root = os.path.join(os.path.dirname(__file__), "data") if directory is None else directory
    texts = {}
    for name in FILES:
        try:
            with open(os.path.join(root, name), encoding="utf-8") as f:
                texts[name] = f.read()
        except OSError as e:
            raise EditionError(f"{name}: cannot read it ({e.strerror or e})") from None
    return Edition(
        tiles=_entries(texts["tiles.json"], "tiles.json", "tiles", TILE_COUNT, _tile),
        cards=_entries(texts["cards.json"], "cards.json", "cards", CARD_COUNT, _card),
        families=_families(texts["families.json"]),
    )


def _entries(text: str, name: str, key: str, count: int, read: Any) -> tuple[Any, ...]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise EditionError(f"{name}: not JSON ({e})") from None
    if not isinstance(data, dict) or not isinstance(data.get(key), list):
        raise EditionError(f'{name}: expected {{"{key}": [...]}}')
    items = data[key]
    if len(items) != count:
        raise EditionError(f"{name}: expected {count} {key}, got {len(items)}")
    out = []
    for i, item in enumerate(items):
        if not isinstance(item, dict) or item.get("id") != i:
            raise EditionError(f'{name}: entry {i} must be a map with "id": {i}')
        try:
            out.append(read(item))
        except (EditionError, TypeError, ValueError, KeyError) as e:
            raise EditionError(f"{name}: entry {i}: {e}") from None
    return tuple(out)


def _tile(item: dict[str, Any]) -> ForestTile:
    sides = item["open"]
    if not isinstance(sides, str) or "".join(d for d in DIRECTIONS if d in sides) != sides:
        raise EditionError('"open" lists open sides among N, E, S, W in that order, e.g. "NES"')
    if not sides:
        raise EditionError("a tile needs an open side, or no samurai could ever enter it")
    return ForestTile(item["id"], sides)


def _card(item: dict[str, Any]) -> MovementCard:
    arrows = item["arrows"]
    if not isinstance(arrows, list) or len(arrows) not in (1, 2):
        raise EditionError('"arrows" is a list of 1 or 2 [colour, direction] pairs')
    for arrow in arrows:
        if (not isinstance(arrow, list) or len(arrow) != 2 or arrow[0] not in COLOURS
                or arrow[1] not in DIRECTIONS):
            raise EditionError(f"arrow {arrow!r}: expected [colour, direction], a colour among "
                               f"{', '.join(COLOURS)}, a direction among N, E, S, W")
    if item["action"] not in ACTIONS:
        raise EditionError(f'"action" is one of {", ".join(ACTIONS)}, not {item["action"]!r}')
    return MovementCard(item["id"], tuple((c, d) for c, d in arrows), item["action"])


def _family(item: dict[str, Any]) -> FamilyTree:
    points = item["points"]
    if not isinstance(points, dict) or sorted(points.values(), reverse=True) != list(FAMILY_POINTS):
        raise EditionError('"points" gives three colours 7, 5 and 3 points')
    for colour in points:
        if colour not in COLOURS:
            raise EditionError(f"{colour!r} is not a samurai colour ({', '.join(COLOURS)})")
    ranked = sorted(points.items(), key=lambda cv: -cv[1])
    return FamilyTree(item["id"], tuple(ranked))


def _families(text: str) -> tuple[FamilyTree, ...]:
    families = _entries(text, "families.json", "families", FAMILY_COUNT, _family)
    trios = sorted(tuple(sorted(c for c, _ in f.points)) for f in families)
    if trios != sorted(tuple(sorted(t)) for t in combinations(COLOURS, 3)):
        raise EditionError("families.json: each of the 10 trios of colours appears on one card")
    return families


EDITION: Edition = load_edition()


def main(argv: list[str] | None = None) -> int:
    """Check a directory holding replacement files; print what is wrong, or a summary."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m sagani_net.games.sugi.edition DIR", file=sys.stderr)
        return 2
    try:
        edition = load_edition(args[0])
    except EditionError as e:
        print(e, file=sys.stderr)
        return 1
    print(f"ok: {len(edition.tiles)} forest tiles, {len(edition.cards)} movement cards, "
          f"{len(edition.families)} family tree cards")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
