"""Window patterns: the 24 published ones, and a checked loader for a user's own.

A pattern file is JSON: a list of patterns, each ``{"name": str, "difficulty": 3-6, "grid":
4 rows of 5 cells, "pair": int (optional)}``; a cell is ``""`` (no restriction), a colour
letter ``R Y G B P`` or a value ``"1"``-``"6"``. Two patterns with the same ``pair`` are the
two sides of one card, dealt together. Every problem found is reported, one per line, and a
pattern that no sequence of dice could complete is refused.

>>> [p.name for p in PUBLISHED[:2]], PUBLISHED[0].difficulty
(["Sun's Glory", 'Firelight'], 6)
>>> parse_patterns([{"name": "Twins", "difficulty": 3, "grid": [["R", "R", "", "", ""]] +
...                  [[""] * 5] * 3}])  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
sagani_net.game.RuleError: bad_patterns: pattern 1 (Twins): no dice can complete it: ...
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sagani_net.game import Data, RuleError
from sagani_net.games.sagrada.components import (
    CELLS,
    COLOUR_DICE,
    COLOURS,
    COLUMNS,
    EVERY_DIE,
    ORTH,
    ROWS,
    VALUE_DICE,
    cell_text,
)

DIFFICULTIES = (3, 4, 5, 6)
#: Patterns of one's own a table takes at most: twice the published set. A table's config holds
#: them, and every snapshot and record of it (PROTOCOL.md, section 8).
MAX_PATTERNS = 48
RESTRICTIONS = ("", *COLOURS, *"123456")


@dataclass(frozen=True)
class Pattern:
    """One window pattern; ``cells`` in reading order. ``allow`` is per cell the dice its
    restriction lets in; the other two lift colour or value restrictions (tools 2 and 3)."""

    name: str
    difficulty: int
    cells: tuple[str, ...]
    pair: int | None = None
    allow: tuple[int, ...] = field(init=False, repr=False, compare=False)
    allow_any_colour: tuple[int, ...] = field(init=False, repr=False, compare=False)
    allow_any_value: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        def mask(cell: str, colours: bool, values: bool) -> int:
            if cell and cell in COLOURS and colours:
                return COLOUR_DICE[COLOURS.index(cell)]
            if cell.isdigit() and values:
                return VALUE_DICE[int(cell)]
            return EVERY_DIE

        for name, colours, values in (("allow", True, True), ("allow_any_colour", False, True),
                                      ("allow_any_value", True, False)):
            object.__setattr__(self, name, tuple(mask(c, colours, values) for c in self.cells))

    def to_data(self) -> Data:
        """The file form: ``{"name", "difficulty", "grid", "pair"}``."""
        grid = [list(self.cells[r * COLUMNS:(r + 1) * COLUMNS]) for r in range(ROWS)]
        data: Data = {"name": self.name, "difficulty": self.difficulty, "grid": grid}
        if self.pair is not None:
            data["pair"] = self.pair
        return data


def completion(cells: Sequence[str]) -> list[int] | None:
    """Dice for every cell that obey the restrictions ``cells`` and rule 4, or None if there
    are none; at most 11 tries per cell, no search.

    Rules 1 and 2 never stand in the way of a full window (fill it outward from an edge cell),
    so a pattern can be completed exactly when such dice exist. Rule 4 asks neighbours to
    differ in colour and in value, and any colour goes with any value: the colours and the
    values are two separate colourings of the grid, each with some cells fixed by the pattern.
    One exists exactly when no two touching cells want the same thing, for a free cell has at
    most 4 orthogonal neighbours, so at most 4 of the 5 colours and 4 of the 6 values are taken
    around it whatever order the cells are filled in. (No colour runs short: no two dice of a
    colour touch, so at most 10 of the 18 are needed.)
    """
    colours = [COLOURS.index(c) if c and c in COLOURS else -1 for c in cells]
    values = [int(c) if c.isdigit() else 0 for c in cells]
    fixed_colour, fixed_value = list(colours), list(values)
    for i in range(CELLS):
        near = ORTH[i]
        if fixed_colour[i] >= 0 and any(colours[j] == colours[i] for j in near):
            return None
        if fixed_value[i] and any(values[j] == values[i] for j in near):
            return None
        if colours[i] < 0:
            colours[i] = next(c for c in range(5) if all(colours[j] != c for j in near))
        if not values[i]:
            values[i] = next(v for v in range(1, 7) if all(values[j] != v for j in near))
    return [colour * 6 + value for colour, value in zip(colours, values, strict=True)]


def _shown(holder: Any, key: Any) -> str:
    """A value as a problem names it: as JSON, which reads like the patterns of a file or of a
    table's config in any language (``"5"``, ``null``), not as Python's repr (``'5'``,
    ``None``); an absent field as missing."""
    if isinstance(holder, dict) and key not in holder:
        return "missing"
    return json.dumps(holder[key], ensure_ascii=False)


def _problems(n: int, item: Any) -> list[str]:
    where = f"pattern {n}"
    if not isinstance(item, dict):
        return [f"{where}: a pattern is a map with name, difficulty, grid (and pair)"]
    if isinstance(item.get("name"), str) and item["name"].strip():
        where = f"pattern {n} ({item['name']})"
    problems = []
    extra = set(item) - {"name", "difficulty", "grid", "pair"}
    if extra:
        problems.append(f"{where}: unknown fields {sorted(extra)}")
    name = item.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > 40:
        problems.append(f"{where}: name must be a text of 1-40 characters")
    difficulty = item.get("difficulty")
    if type(difficulty) is not int or difficulty not in DIFFICULTIES:
        problems.append(f"{where}: difficulty must be 3, 4, 5 or 6, "
                        f"not {_shown(item, 'difficulty')}")
    pair = item.get("pair")
    if pair is not None and type(pair) is not int:
        problems.append(f"{where}: pair must be a whole number")
    grid = item.get("grid")
    if not (isinstance(grid, list) and len(grid) == ROWS
            and all(isinstance(row, list) and len(row) == COLUMNS for row in grid)):
        problems.append(f"{where}: grid must be {ROWS} rows of {COLUMNS} cells")
        return problems
    for r, row in enumerate(grid):
        for c, cell in enumerate(row):
            if cell not in RESTRICTIONS:
                problems.append(f"{where}: cell {r + 1},{c + 1} is {_shown(row, c)}; a cell is "
                                f"\"\", a colour letter ({', '.join(COLOURS)}) or a value 1-6")
    if problems:
        return problems
    cells = tuple(cell for row in grid for cell in row)
    for i, cell in enumerate(cells):
        for j in ORTH[i]:
            if j > i and cell and cells[j] == cell:
                problems.append(f"{where}: no dice can complete it: cells {cell_text(i)} and "
                                f"{cell_text(j)} both want {cell} side by side")
    # Nothing else can stand in the way (completion says why).
    return problems


def parse_patterns(data: Any, most: int | None = MAX_PATTERNS) -> tuple[Pattern, ...]:
    """Check a list of patterns in the file form; raises RuleError("bad_patterns", ...) naming
    every problem, one per line. The work is linear in the list, which holds at most ``most``
    patterns: a longer one is refused before any pattern is read (None: any number, for a
    config accepted before there was a limit)."""
    if not isinstance(data, list) or not data:
        raise RuleError("bad_patterns", "patterns must be a non-empty list of patterns")
    if most is not None and len(data) > most:
        raise RuleError("bad_patterns", f"a table takes at most {most} patterns of your own, "
                        f"not {len(data)}")
    problems = [p for n, item in enumerate(data, 1) for p in _problems(n, item)]
    names = Counter(item["name"] for item in data
                    if isinstance(item, dict) and isinstance(item.get("name"), str))
    for name in sorted(n for n, count in names.items() if count > 1):
        problems.append(f"two patterns are called {name!r}")
    pairs = Counter(item["pair"] for item in data
                    if isinstance(item, dict) and type(item.get("pair")) is int)
    for pair, count in sorted(pairs.items()):
        if count > 2:
            problems.append(f"pair {pair} is on {count} patterns; a card has two sides")
    if problems:
        raise RuleError("bad_patterns", "\n".join(problems))
    return tuple(_pattern(item) for item in data)


def _pattern(item: Data) -> Pattern:
    """A pattern from its file form, already checked."""
    cells = tuple(cell for row in item["grid"] for cell in row)
    return Pattern(item["name"], item["difficulty"], cells, item.get("pair"))


def read_patterns(path: str | Path) -> list[Data]:
    """A user's pattern file, checked, in the file form (ready for the ``patterns`` option);
    raises RuleError("bad_patterns", ...) for an unreadable file or any problem in it."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise RuleError("bad_patterns", f"cannot read {path}: {e.strerror}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise RuleError("bad_patterns", f"{path} is not JSON: {e}") from None
    return [p.to_data() for p in parse_patterns(data)]


def published_data() -> list[Data]:
    """The published patterns as the game ships them, in the file form (unchecked: a test
    checks them, so that starting a program does not)."""
    # A plain file beside this module (the package ships it), without importlib.resources
    # (zipfile, tempfile...), which self-play would pay for at every start.
    with open(os.path.join(os.path.dirname(__file__), "data", "patterns.json"),
              encoding="utf-8") as f:
        return list(json.load(f))


#: The 24 published patterns, two per card.
PUBLISHED: tuple[Pattern, ...] = tuple(_pattern(item) for item in published_data())
