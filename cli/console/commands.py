"""The shell's typed words, the same for every game (the game's own moves are read by its
:class:`~sagani_net.gameui.GameUI`)::

    show 2   standin 2   help   rules   quit   (replays: next, back, first, last, step 12)

>>> parse("show 2")
Command(kind='show', number=2)
>>> parse("take 2") is None
True
"""

from __future__ import annotations

from typing import NamedTuple

from sagani_net.gameui import CommandError

WORDS = ("show", "standin", "help", "rules", "quit", "next", "back", "first", "last", "step")

__all__ = ["WORDS", "Command", "CommandError", "complete", "parse"]


class Command(NamedTuple):
    """A shell command: ``show`` (a seat's board, ``number`` from 1), ``standin`` (a bot plays
    away seat ``number`` until its player is back), ``step`` (replay to move ``number``) or a
    word: ``help``, ``rules``, ``quit``, ``next``, ``back``, ``first``,
    ``last``."""

    kind: str
    number: int | None = None


def parse(text: str) -> Command | None:
    """Read a shell command; None when ``text`` is not one (the game reads it then)."""
    words = text.split()
    if not words or words[0].lower() not in WORDS:
        return None
    verb, rest = words[0].lower(), words[1:]
    if verb in ("show", "standin", "step"):
        if len(rest) != 1:
            raise CommandError(f"{verb} needs one number, e.g. {verb} 2")
        try:
            return Command(verb, int(rest[0]))
        except ValueError:
            raise CommandError(f"{verb} needs a number, e.g. {verb} 2") from None
    if rest:
        raise CommandError(f"{verb} takes nothing after it")
    return Command(verb)


def complete(text: str) -> list[str]:
    """Shell words that could complete ``text`` (only the first word is the shell's)."""
    words = text.split()
    if len(words) > 1 or (words and text.endswith(" ")):
        return []
    partial = words[0].lower() if words else ""
    return [w for w in WORDS if w.startswith(partial)]
