"""The 72 tiles and the geometry of arrows, precomputed once at import.

Conventions shared by records, the protocol and every client: cells are integer ``(x, y)``,
x grows East and y grows North; arrows as printed upright are N, NE, E, SE, S, SW, W, NW;
rotation is 0, 90, 180 or 270 degrees clockwise.

>>> TILES[8].element, TILES[8].value, TILES[8].arrows
('fire', 10, (('N', 'fire'), ('NE', 'earth'), ('E', 'earth'), ('NW', 'fire')))
>>> rotated_arrows(8, 90)
(('E', 'fire'), ('SE', 'earth'), ('S', 'earth'), ('NE', 'fire'))
"""

from __future__ import annotations

import csv
import os
from typing import NamedTuple

ELEMENTS = ("fire", "water", "earth", "air")
DIRECTIONS = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
ROTATIONS = (0, 90, 180, 270)
#: Unit step of each direction, indexed like DIRECTIONS.
STEPS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))
#: Points by number of arrows.
VALUE_BY_ARROWS = {1: 1, 2: 3, 3: 6, 4: 10}

ELEMENT_INDEX = {name: i for i, name in enumerate(ELEMENTS)}
DIRECTION_INDEX = {name: i for i, name in enumerate(DIRECTIONS)}


class Tile(NamedTuple):
    """A tile as printed upright: element, value and arrows as ``(direction, element)``."""

    id: int
    element: str
    value: int
    arrows: tuple[tuple[str, str], ...]

    def __str__(self) -> str:
        arrows = " ".join(f"{d}:{e}" for d, e in self.arrows)
        return f"#{self.id} {self.element} {self.value} [{arrows}]"


def _load() -> dict[int, Tile]:
    # A plain file beside this module (the package ships it): importlib.resources, which
    # would also read it from a zip, costs a short command more than its games.
    path = os.path.join(os.path.dirname(__file__), "data", "sagani_tiles.csv")
    with open(path, encoding="utf-8", newline="") as f:
        rows = csv.reader(f)
        column = {name: i for i, name in enumerate(next(rows))}
        number, element, value, arrows_at = (
            column[name] for name in ("id", "element", "value", "arrows"))
        table = list(rows)
    tiles = {}
    for row in table:
        arrows = []
        for part in row[arrows_at].split(";"):
            direction, wanted = part.split(":")
            arrows.append((direction, wanted))
        tile = Tile(int(row[number]), row[element], int(row[value]), tuple(arrows))
        if tile.element not in ELEMENTS or VALUE_BY_ARROWS[len(arrows)] != tile.value:
            raise ValueError(f"tile list is damaged at {tile}")
        tiles[tile.id] = tile
    if len(tiles) != 72:
        raise ValueError(f"tile list has {len(tiles)} tiles, expected 72")
    return tiles


TILES: dict[int, Tile] = _load()
TILE_IDS: tuple[int, ...] = tuple(sorted(TILES))

#: Tile id -> element index, for the hot path.
ELEMENT_OF: dict[int, int] = {t.id: ELEMENT_INDEX[t.element] for t in TILES.values()}
VALUE_OF: dict[int, int] = {t.id: t.value for t in TILES.values()}
#: (tile id, rotation index) -> tuple of (direction index, element index), rotated clockwise.
ARROWS: dict[tuple[int, int], tuple[tuple[int, int], ...]] = {}
for _tile in TILES.values():
    _upright = [(DIRECTION_INDEX[d], ELEMENT_INDEX[e]) for d, e in _tile.arrows]
    for _r in range(4):
        ARROWS[_tile.id, _r] = tuple([((d + 2 * _r) % 8, e) for d, e in _upright])


def rotated_arrows(tile_id: int, rotation: int) -> tuple[tuple[str, str], ...]:
    """The tile's arrows after turning it ``rotation`` degrees clockwise."""
    return tuple(
        (DIRECTIONS[d], ELEMENTS[e]) for d, e in ARROWS[tile_id, ROTATIONS.index(rotation)]
    )
