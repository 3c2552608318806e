"""Typed commands: the same moves as the keys, as words (for speed and for screen readers).

Offer and storage numbers count from 1, as on screen::

    take 2 at 1,-1 rot 90     take 2          (a ghost to move with the keys)
    draw at 0,1 rot 0         pick 1 at 2,0   reveal at 1,0 rot 270
    place 1,-1 90             at 1,-1 rot 90  rot 180
    pass   show 2   help   quit   (replays: next, back, first, last, step 12)

>>> command = parse("take 2 at 1,-1 rot 90")
>>> str(command.choice), command.cell, command.rotation
('take 1', (1, -1), 90)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from sagani_net.games.sagani.rules import Action
from sagani_net.games.sagani.tiles import ROTATIONS

VERBS = (
    "take", "pick", "draw", "reveal", "pass", "place", "at", "rot", "show", "help", "quit",
    "next", "back", "first", "last", "step",
)  # fmt: skip


class CommandError(ValueError):
    """A command that cannot be read; the message says what was expected."""


class Command(NamedTuple):
    """A parsed command.

    ``kind`` is ``play`` (a ``choice`` to make, then a placement if ``cell`` is given),
    ``place`` (put the tile in hand at ``cell``), ``rotate``, ``show`` (a seat's display,
    ``number`` from 1), ``step`` (replay to move ``number``) or a word: ``help``, ``quit``,
    ``next``, ``back``, ``first``, ``last``.
    """

    kind: str
    choice: Action | None = None
    cell: tuple[int, int] | None = None
    rotation: int | None = None
    number: int | None = None


def parse(text: str) -> Command:
    """Read one command; raises CommandError with a hint."""
    words = text.replace(";", " ").split()
    if not words:
        raise CommandError("type a command, or help")
    verb, rest = words[0].lower(), words[1:]
    if verb in ("take", "pick"):
        if not rest:
            raise CommandError(f"{verb} which tile? e.g. {verb} 2")
        number = _int(rest[0], f"{verb} needs a tile number, e.g. {verb} 2")
        if number < 1:
            raise CommandError("tiles are numbered from 1")
        cell, rotation = _placement(rest[1:])
        return Command("play", Action(verb, number - 1), cell, rotation)
    if verb in ("draw", "reveal", "pass"):
        cell, rotation = _placement(rest)
        if verb == "pass" and cell is not None:
            raise CommandError("pass takes nothing after it")
        return Command("play", Action(verb), cell, rotation)
    if verb in ("place", "at"):
        if not rest:
            raise CommandError(f"{verb} where? e.g. {verb} 1,-1 90")
        cell, rotation = _placement(["at", *rest])
        return Command("place", None, cell, rotation)
    if verb in ("rot", "rotate"):
        if not rest:
            return Command("rotate", rotation=None)
        return Command("rotate", rotation=_rotation(rest[0]))
    if verb in ("show", "step"):
        if len(rest) != 1:
            raise CommandError(f"{verb} needs one number, e.g. {verb} 2")
        return Command(verb, number=_int(rest[0], f"{verb} needs a number"))
    if verb in ("help", "quit", "next", "back", "first", "last") and not rest:
        return Command(verb)
    raise CommandError(f"cannot read {text.strip()!r}; try help")


def _placement(words: list[str]) -> tuple[tuple[int, int] | None, int | None]:
    """``[at] X,Y [[rot] R]`` -> (cell, rotation); nothing -> (None, None)."""
    if not words:
        return None, None
    if words[0].lower() == "at":
        words = words[1:]
    if not words:
        raise CommandError("at where? e.g. at 1,-1")
    cell = _cell(words[0])
    words = words[1:]
    if words and words[0].lower() in ("rot", "rotate"):
        words = words[1:]
        if not words:
            raise CommandError("rot needs 0, 90, 180 or 270")
    if len(words) > 1:
        raise CommandError(f"unexpected {' '.join(words[1:])!r}")
    return cell, (_rotation(words[0]) if words else 0)


def _cell(word: str) -> tuple[int, int]:
    parts = word.strip("()").split(",")
    if len(parts) != 2:
        raise CommandError(f"a cell is x,y like 1,-1, not {word!r}")
    x = _int(parts[0], f"a cell is x,y like 1,-1, not {word!r}")
    y = _int(parts[1], f"a cell is x,y like 1,-1, not {word!r}")
    return x, y


def _rotation(word: str) -> int:
    value = _int(word, f"rotation is 0, 90, 180 or 270, not {word!r}")
    if value not in ROTATIONS:
        raise CommandError(f"rotation is 0, 90, 180 or 270, not {value}")
    return value


def _int(word: str, hint: str) -> int:
    try:
        return int(word)
    except ValueError:
        raise CommandError(hint) from None


def complete(
    text: str,
    choices: Iterable[Action] = (),
    cells: Iterable[tuple[int, int]] = (),
) -> list[str]:
    """Words that could come next after ``text`` (for the last, partly typed word).

    ``choices`` are the actions open now, ``cells`` the legal cells.
    """
    words = text.split()
    partial = "" if text.endswith(" ") or not words else words.pop()
    choices = list(choices)
    if not words:
        open_now = {a.type for a in choices}
        verbs = [v for v in VERBS if v in open_now or v not in ("take", "pick", "draw", "reveal",
                                                              "pass")]  # fmt: skip
        options = verbs
    else:
        verb, last = words[0].lower(), words[-1].lower()
        cell_words = [f"{x},{y}" for x, y in cells]
        if verb in ("take", "pick") and len(words) == 1:
            options = [str((a.index or 0) + 1) for a in choices if a.type == verb]
        elif last in ("at", "place"):
            options = cell_words
        elif last in ("rot", "rotate"):
            options = [str(r) for r in ROTATIONS]
        elif "," in last and any(c.isdigit() for c in last):
            options = ["rot"]
        elif verb in ("take", "pick", "draw", "reveal") and "at" not in words:
            options = ["at"]
        else:
            options = []
    return [o for o in options if o.startswith(partial.lower())]
