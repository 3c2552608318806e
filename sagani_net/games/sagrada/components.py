"""Dice, the window's geometry, the tool cards and the objectives, precomputed once at import.

A die is one small int, ``colour * 6 + value`` (colour 0-4 in the order of :data:`COLOURS`,
value 1-6): 1-30, and 0 is an empty cell. Sets of dice are bitmasks over those ints, so that
"which dice may go in this cell" is one int per cell. A window is a list of 20 dice in reading
order (cell = row * 5 + column, both from 0); people read cells as ``row,column`` from 1.

>>> die_text(die_of("Y", 4)), COLOUR[die_of("Y", 4)], VALUE[die_of("Y", 4)]
('Y4', 1, 4)
>>> window = [0] * CELLS
>>> for cell, die in ((0, "R1"), (1, "Y2"), (2, "G3"), (3, "B4"), (4, "P5")):
...     window[cell] = parse_die(die)
>>> objective_points(1, window), objective_points(3, window), objective_points(5, window)
(6, 5, 2)
"""

from __future__ import annotations

from typing import NamedTuple

from sagani_net.game import RuleError

COLOURS = "RYGBP"
COLOUR_NAMES = ("red", "yellow", "green", "blue", "purple")
ROWS, COLUMNS = 4, 5
CELLS = ROWS * COLUMNS
DICE_PER_COLOUR = 18

#: Indexed by die (0 = no die).
COLOUR: tuple[int, ...] = (-1, *((d - 1) // 6 for d in range(1, 31)))
VALUE: tuple[int, ...] = (0, *((d - 1) % 6 + 1 for d in range(1, 31)))
EVERY_DIE = sum(1 << d for d in range(1, 31))
COLOUR_DICE = tuple(sum(1 << (c * 6 + v) for v in range(1, 7)) for c in range(5))
VALUE_DICE = (0, *(sum(1 << (c * 6 + v) for c in range(5)) for v in range(1, 7)))
#: Dice that may not lie orthogonally next to a die: its colour and its value (rule 4).
CLASH = (0, *(COLOUR_DICE[COLOUR[d]] | VALUE_DICE[VALUE[d]] for d in range(1, 31)))


def die_of(colour: str, value: int) -> int:
    return COLOURS.index(colour) * 6 + value


def die_text(die: int) -> str:
    """``R3`` for a red three."""
    return f"{COLOURS[COLOUR[die]]}{VALUE[die]}"


def parse_die(text: object) -> int:
    """Read ``R3``; raises RuleError("bad_die", ...)."""
    if (isinstance(text, str) and len(text) == 2 and text[0] in COLOURS
            and text[1] in "123456"):
        return die_of(text[0], int(text[1]))
    raise RuleError("bad_die", f"a die is a colour of {COLOURS} and a value 1-6, not {text!r}")


def cell_text(cell: int) -> str:
    """``2,4``: row and column as people count them, from 1."""
    return f"{cell // COLUMNS + 1},{cell % COLUMNS + 1}"


def cell_words(cell: int) -> str:
    """``[1, 3] (2,4)``: a cell in a refusal's message, as the wire counts it (from 0), then as
    the text form does (from 1), so that a bot and a person both read it right."""
    row, column = divmod(cell, COLUMNS)
    return f"[{row}, {column}] ({cell_text(cell)})"


def _around(cell: int, steps: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
    r, c = divmod(cell, COLUMNS)
    return tuple(
        (r + dr) * COLUMNS + c + dc for dr, dc in steps
        if 0 <= r + dr < ROWS and 0 <= c + dc < COLUMNS
    )


_ORTHOGONAL = ((-1, 0), (0, -1), (0, 1), (1, 0))
_DIAGONAL = ((-1, -1), (-1, 1), (1, -1), (1, 1))
ORTH: tuple[tuple[int, ...], ...] = tuple(_around(i, _ORTHOGONAL) for i in range(CELLS))
DIAG: tuple[tuple[int, ...], ...] = tuple(_around(i, _DIAGONAL) for i in range(CELLS))
#: Per cell, the bitmask of the cells next to it orthogonally or diagonally (rule 2).
NEAR_CELLS: tuple[int, ...] = tuple(
    sum(1 << j for j in ORTH[i] + DIAG[i]) for i in range(CELLS)
)
#: Rows 1 and 4, columns 1 and 5: where a window's first die goes (rule 1).
EDGE: tuple[bool, ...] = tuple(
    i // COLUMNS in (0, ROWS - 1) or i % COLUMNS in (0, COLUMNS - 1) for i in range(CELLS)
)
ROW_CELLS = tuple(tuple(range(r * COLUMNS, (r + 1) * COLUMNS)) for r in range(ROWS))
COLUMN_CELLS = tuple(tuple(range(c, CELLS, COLUMNS)) for c in range(COLUMNS))


#: Every cell of a window, as a set of bits; the edge cells (:data:`EDGE`); the cells with a
#: neighbour to their west, and to their east (a set shifted by one column keeps only these).
ALL_CELLS = (1 << CELLS) - 1
EDGE_CELLS = sum(1 << i for i in range(CELLS) if EDGE[i])
_HAS_WEST = sum(1 << i for i in range(CELLS) if i % COLUMNS)
_HAS_EAST = sum(1 << i for i in range(CELLS) if i % COLUMNS < COLUMNS - 1)


def open_cells(window: list[int], filled: int, allow: tuple[int, ...], loose: bool = False
               ) -> list[int]:
    """Per cell, the dice that may be placed there now (a bitmask; 0 for none).

    ``filled`` is the bitmask of occupied cells; ``allow`` the pattern's per-cell dice
    (restrictions, possibly lifted by a tool). ``loose``: Cork-backed Straightedge, only cells
    with no die next to them (and any cell for a window's first die).
    """
    if filled:
        # The filled cells and every cell next to one (NEAR_CELLS), spread by shifts of the
        # whole set: this runs after every change of a window, and most cells are out at once.
        row = filled | (filled << 1) & _HAS_WEST | (filled >> 1) & _HAS_EAST
        near = (row | row << COLUMNS | row >> COLUMNS) & ALL_CELLS
        todo = ALL_CELLS & ~near if loose else near & ~filled
    else:
        todo = ALL_CELLS if loose else EDGE_CELLS
    masks = [0] * CELLS
    while todo:
        bit = todo & -todo
        todo ^= bit
        i = bit.bit_length() - 1
        m = allow[i]
        for j in ORTH[i]:
            d = window[j]
            if d:
                m &= ~CLASH[d]
        masks[i] = m
    return masks


class Tool(NamedTuple):
    number: int
    name: str
    colour: str  # what pays for it in the solo game
    text: str
    #: Used between drafting and placing, on the drafted die.
    on_drafted: bool


TOOLS: dict[int, Tool] = {t.number: t for t in (
    Tool(1, "Grozing Pliers", "P", "After drafting, raise or lower the drafted die by 1 "
         "(a 6 does not become a 1, nor a 1 a 6).", True),
    Tool(2, "Eglomise Brush", "B", "Move one die in your window ignoring colour "
         "restrictions; every other rule holds.", False),
    Tool(3, "Copper Foil Burnisher", "R", "Move one die in your window ignoring value "
         "restrictions; every other rule holds.", False),
    Tool(4, "Lathekin", "Y", "Move exactly two different dice, obeying every placement "
         "rule.", False),
    Tool(5, "Lens Cutter", "G", "After drafting, swap the drafted die with a die on the "
         "round track, then place that one.", True),
    Tool(6, "Flux Brush", "P", "After drafting, re-roll the drafted die; if it cannot be "
         "placed, it returns to the draft pool.", True),
    Tool(7, "Glazing Hammer", "B", "Re-roll every die in the draft pool; only on your second "
         "turn of the round, before drafting.", False),
    Tool(8, "Running Pliers", "R", "After your first turn's draft, draft and place another "
         "die at once; you skip your second turn this round.", False),
    Tool(9, "Cork-backed Straightedge", "Y", "After drafting, place the die in a cell next to "
         "no other die; colour and value restrictions still hold.", True),
    Tool(10, "Grinding Stone", "G", "After drafting, turn the die to its opposite face "
         "(7 minus its value).", True),
    Tool(11, "Flux Remover", "P", "After drafting, put the die back in the bag and draw "
         "another; choose its value and place it, or return it to the draft pool.", True),
    Tool(12, "Tap Wheel", "B", "Move up to two dice of one colour that is on the round "
         "track, obeying every placement rule.", False),
)}


class Objective(NamedTuple):
    number: int
    name: str
    points: int
    text: str


OBJECTIVES: dict[int, Objective] = {o.number: o for o in (
    Objective(1, "Row Color Variety", 6, "each complete row with 5 different colours"),
    Objective(2, "Column Color Variety", 5, "each complete column with 4 different colours"),
    Objective(3, "Row Shade Variety", 5, "each complete row with 5 different values"),
    Objective(4, "Column Shade Variety", 4, "each complete column with 4 different values"),
    Objective(5, "Light Shades", 2, "each set of one 1 and one 2"),
    Objective(6, "Medium Shades", 2, "each set of one 3 and one 4"),
    Objective(7, "Deep Shades", 2, "each set of one 5 and one 6"),
    Objective(8, "Shade Variety", 5, "each set of all six values"),
    Objective(9, "Color Variety", 4, "each set of all five colours"),
    Objective(10, "Color Diagonals", 1, "each die diagonally next to a die of its colour"),
)}

#: The two values each shades objective pairs up.
SHADE_PAIRS = {5: (1, 2), 6: (3, 4), 7: (5, 6)}


def _varied_lines(window: list[int], lines: tuple[tuple[int, ...], ...], of: tuple[int, ...]
                  ) -> int:
    """Complete lines whose dice all differ in ``of`` (COLOUR or VALUE)."""
    count = 0
    for line in lines:
        seen = {of[window[i]] for i in line if window[i]}
        if len(seen) == len(line) and all(window[i] for i in line):
            count += 1
    return count


def objective_sets(number: int, window: list[int]) -> int:
    """How many times public objective ``number`` scores in ``window``."""
    if number in (1, 2, 3, 4):
        lines = ROW_CELLS if number in (1, 3) else COLUMN_CELLS
        return _varied_lines(window, lines, COLOUR if number in (1, 2) else VALUE)
    if number in SHADE_PAIRS:
        a, b = SHADE_PAIRS[number]
        values = [VALUE[d] for d in window]
        return min(values.count(a), values.count(b))
    if number == 8:
        values = [VALUE[d] for d in window]
        return min(values.count(v) for v in range(1, 7))
    if number == 9:
        colours = [COLOUR[d] for d in window]
        return min(colours.count(c) for c in range(5))
    if number == 10:
        return sum(
            1 for i, d in enumerate(window)
            if d and any(window[j] and COLOUR[window[j]] == COLOUR[d] for j in DIAG[i])
        )
    raise RuleError("bad_objective", f"no public objective {number}")


def objective_points(number: int, window: list[int]) -> int:
    """Points public objective ``number`` gives ``window``."""
    return OBJECTIVES[number].points * objective_sets(number, window)


def private_points(colour: int, window: list[int]) -> int:
    """Shades of a colour: the sum of the values of that colour's dice."""
    return sum(VALUE[d] for d in window if d and COLOUR[d] == colour)
