"""The console's per-game part: what a game draws, and the keys and words it understands.

The shell (:mod:`sagani_net.cli.console.app`, :mod:`~sagani_net.cli.console.model`,
:mod:`~sagani_net.cli.console.render`) owns the connection, the status line, the log (each event
through ``Game.event_text``), the message line, the command line with completion and history, the
help pages (the first made from the key bindings), replay stepping and whose board is shown (Tab).
A game's ``ui.py`` exports ``UI``, a subclass of :class:`GameUI` built with the shell's
:class:`~sagani_net.cli.console.model.ConsoleModel`; it draws the body of the screen and turns
keys and typed commands into actions (wire data, as ``Game.parse_action`` reads them). The shell
sends what a key or command returns, in order, stopping at the first refusal.

A GameUI imports its game's rules and this module, never the network. This module needs only
the seam (:mod:`sagani_net.game`), so it lives in the library, below the games: the console
shell above finds each game's ``ui`` part through the registry (:func:`sagani_net.games.
game_part`), and nothing under ``sagani_net`` imports ``cli``.

Drawing is in prompt_toolkit fragments ``(style, text)``: a :data:`Line` is a list of them, and
every drawing function returns exactly the lines and widths it was asked for (:func:`fit`).
"""

from __future__ import annotations

import functools
import random
import re
import textwrap
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar, cast

from wcwidth import wcwidth

from sagani_net.game import Data, Game, GameState, RuleError

#: Longest name in a sentence (a log line, "... wins."), which has the screen's width and
#: wraps, where boards and score rows cut names to fit their columns: "Alexandra the Great" whole.
SENTENCE_NAME_CHARS = 24


class Table(Protocol):
    """What a GameUI may read and do of the shell's model (:class:`sagani_net.cli.console.model.
    ConsoleModel` is the one there is): the table as the shell knows it."""

    view: Data | None
    private: Data | None
    you: int | None
    seats: list[Data]
    status: str
    shown: int
    message: str
    steps: list[Any]  # the local steps an undo takes back, newest last

    @property
    def turn(self) -> int | None: ...

    @property
    def my_turn(self) -> bool: ...

    def name(self, seat: int, width: int = ...) -> str:
        """A seat's name as people read it, in at most ``width`` characters."""

    def sentence_name(self, seat: int) -> str:
        """:meth:`name` in a sentence (a log line, "... wins."), which wraps: cut at
        :data:`SENTENCE_NAME_CHARS` only."""

    def names(self) -> list[str]: ...

    def remember(self) -> None: ...

    def say(self, message: str, refusal: bool = False, lasting: bool = False) -> None: ...

Fragment = tuple[str, str]
Line = list[Fragment]


class CommandError(ValueError):
    """A typed command that cannot be read or played; the message says what was expected."""


@dataclass(frozen=True)
class Key:
    """One key binding of a game: the keys (prompt_toolkit names), a line for the help page,
    and what it does. ``run`` returns the actions to send now (possibly none).

    ``when`` says whether the key acts now (other bindings of the same key may then act);
    ``label`` is how the help page names the keys (default: the keys themselves).
    A game's keys act only on its own screen, never in a replay or while a command is typed.
    """

    keys: tuple[str, ...]
    help: str
    run: Callable[[], list[Data]]
    when: Callable[[], bool] = lambda: True
    label: str = ""


#: The engine state a game's UI works on (its rules' ``State``).
StateT = TypeVar("StateT", bound=GameState)


class GameUI(Generic[StateT]):
    """The per-game part of the console; every method has a plain default, so a new game
    starts with a readable (if bare) console and adds its drawing as it goes.

    The model (``self.model``) holds what the shell knows: ``view`` (public: what everyone
    sees), ``private`` (what your seat alone sees, or None), ``you``, ``seats``, ``status``,
    ``turn``, ``my_turn``, ``shown`` (the seat whose board Tab chose), ``names()``, and
    ``say(text)`` for the message line. A UI keeps its own state (a die or tile in hand, a
    cursor) and drops what no longer holds in :meth:`updated`.
    """

    #: What the game calls a player's board, for the shell's words ("Tab: next display").
    board = "board"
    #: Extra prompt_toolkit styles (``class:`` names) this game draws with.
    styles: dict[str, str] = {}

    def __init__(self, game: Game, model: Table) -> None:
        self.game = game
        self.model = model
        self._state: StateT | None = None
        #: What the state was made from, held (not their ids: a freed dict's id is reused by
        #: the next one, and a stale state then refused a legal key press).
        self._made_from: tuple[object, ...] = ()
        #: Counts the states made, so that what a UI works out from one can tell them apart.
        self.state_made = 0

    @property
    def view(self) -> Data | None:
        """The view the screen shows: the host's (a game that shows decisions chosen but not
        yet sent, as Sagrada does, shows the view they would leave)."""
        return self.model.view

    def not_your_turn(self) -> str:
        """Why a move is refused while it is not yours to make. A spectator (or a replay's
        reader) has no seat: "it is not your turn" had them wait for a turn that never comes."""
        if self.model.you is None:
            return "you are watching: only the players move"
        return "it is not your turn"

    # -- a local engine ---------------------------------------------------------------------

    def state(self) -> StateT | None:
        """A local engine state agreeing with what you know (the view and your private data),
        for legal moves and previews: made once per view, private data and seat. None before
        a view of this game, or when :meth:`known_state` cannot fit one."""
        view, private = self.model.view, self.model.private
        if view is None or view.get("game") != self.game.name:
            return None
        made_from = (view, private, view["version"], self.model.you)
        old = self._made_from
        if not old or old[0] is not view or old[1] is not private or old[2:] != made_from[2:]:
            self._made_from = made_from
            self.state_made += 1
            self._state = self.known_state(view, private, self.model.you)
        return self._state

    def known_state(self, view: Data, private: Data | None, you: int | None) -> StateT | None:
        """The state behind ``view`` and ``private``: every hidden part sampled with a fixed
        seed, so that the screen stays steady (and never draws what it sampled)."""
        return cast(StateT, self.game.determinize(view, private, you, random.Random(0)))

    # -- the screen -------------------------------------------------------------------------

    def body(self, width: int, height: int) -> list[Line]:
        """The game between the status line and the log: ``height`` lines of ``width``."""
        view = self.model.view or {}
        return box([[("", f"{k}: {v}")] for k, v in view.items() if k != "seats"], width, height)

    def body_height(self, width: int, height: int) -> int:
        """How many of ``height`` lines the body needs now; the log gets the rest."""
        return height

    def final(self, width: int, height: int) -> list[Line]:
        """The game-over page: ranking and what each score is made of."""
        result = (self.model.view or {}).get("result") or {}
        lines: list[Line] = [[("class:title", "Game over")], []]
        for rank, seat in enumerate(result.get("ranking", [])):
            score = result["scores"][seat]
            lines.append([("", f" {rank + 1}  {pad(self.model.name(seat), 10)}  {score:>5}")])
        return box(lines, width, height)

    def turn_note(self) -> str:
        """What the turn on screen asks for, a few words for the status line, e.g. ``place``
        (the shell brackets it, with what it says of the seat: ``bob's turn (place; away)``)."""
        return ""

    def note(self) -> str:
        """The message line when the shell has nothing to say: a preview of the move in hand."""
        return ""

    def hints(self) -> str:
        """The keys that do something now, for the bottom line (the game's own page)."""
        return "Tab boards  : command  ? help  q quit"

    def help_pages(self) -> list[list[str]]:
        """Pages after the keys' pages: commands and symbols, then the rules in a few lines."""
        return []

    # -- input ------------------------------------------------------------------------------

    def key_bindings(self) -> list[Key]:
        """The game's key bindings (their help lines make the keys page)."""
        return []

    def command(self, text: str) -> list[Data]:
        """A typed command the shell did not know: the actions to send, all checked before
        any is sent; raises CommandError. Default: one action in the game's text form."""
        try:
            return [self.game.parse_text(text)]
        except RuleError as exc:
            raise CommandError(exc.message) from None

    def complete(self, text: str) -> list[str]:
        """Words that could follow ``text`` (its last word partly typed)."""
        return []

    def cancel(self) -> bool:
        """Esc or u with no step of the shell's to undo: drop a choice not yet sent. True if
        the game took a step back itself and said so (a game that keeps its own steps)."""
        return False

    def step_state(self) -> Any:
        """The choice in hand (what is chosen, turned, aimed, but not yet sent) as a value the
        shell keeps to undo a step: a copy, compared with ``==``. The shell calls it around
        every key and typed command; when it differs after one, that was a step, and ``u``
        or Esc gives the value before it back to :meth:`restore`. What the host has
        accepted is never undone: a new game version drops the kept steps. Default: None
        (no steps to undo)."""
        return None

    def restore(self, state: Any) -> None:
        """Undo: put back a choice that :meth:`step_state` gave."""

    def due(self) -> list[Data]:
        """Actions to send now without a key (say, a choice made before its turn, once the
        turn comes); the shell asks after every update."""
        return []

    def pan_reset(self) -> None:
        """Another board is shown (Tab): start it unpanned."""

    # -- updates ----------------------------------------------------------------------------

    def updating(self, events: list[Data]) -> None:
        """Before the model takes a new view (the old one is still there)."""

    def updated(self, events: list[Data]) -> None:
        """After the model took a new view and logged ``events``: keep or drop choices in
        hand, highlight changes."""

    def remember(self) -> None:
        """Your turn ended (or the game started): what changes from here is new."""


def columns(text: str) -> int:
    """The terminal columns ``text`` takes: a player's name in Chinese or Japanese takes two a
    character (wcwidth, as prompt_toolkit lays it out)."""
    return len(text) if text.isascii() else _columns(text)


@functools.lru_cache(maxsize=4096)
def _columns(text: str) -> int:
    # Cached: a screen's fragments (its frames, arrows and discs) are the same at every draw.
    return sum(max(0, wcwidth(ch)) for ch in text)


def cut(text: str, width: int) -> str:
    """``text`` cut to at most ``width`` columns (:func:`columns`), a wide character whole."""
    if text.isascii():
        return text[:width]
    if _columns(text) <= width:
        return text
    used = 0
    for n, ch in enumerate(text):
        used += max(0, wcwidth(ch))
        if used > width:
            return text[:n]
    return text


def wrap(text: str, width: int, indent: str = "") -> list[str]:
    """``text`` in lines of at most ``width`` columns (:func:`columns`), broken at spaces (a
    word longer than a line is broken too); the lines after the first start with ``indent``.
    A name in Chinese or Japanese takes two columns a character: counted in characters, as
    :func:`textwrap.wrap` counts, such a line ran past the screen and lost its end.

    >>> wrap("Glazing Hammer is used on your second turn", 20, "  ")
    ['Glazing Hammer is', '  used on your', '  second turn']
    >>> wrap("山田太郎 wins the game", 10)
    ['山田太郎', 'wins the', 'game']
    >>> wrap(" → n      replay: next move", 40)
    [' → n      replay: next move']
    """
    width = max(1, width)
    if text.isascii():
        return textwrap.wrap(text, width, subsequent_indent=indent) or [""]
    if columns(indent) >= width:
        indent = ""
    lines: list[str] = []
    line = ""
    # Each word with the spaces before it, as textwrap keeps them: a help page's key column
    # (" → n      replay") and a line's indent stay where they are; only a break drops them.
    for chunk in re.findall(r"\s*\S+", re.sub(r"\s", " ", text.expandtabs())):
        word = chunk.lstrip()
        trial = line + chunk
        if columns(trial) <= width:
            line = trial
            continue
        if line:
            lines.append(line)
        line = (indent if lines else "") + word
        while columns(line) > width:  # a word longer than a line
            head = cut(line, width) or line[0]
            lines.append(head)
            line = indent + line[len(head):]
    if line:
        lines.append(line)
    return lines or [""]


def pad(text: str, width: int) -> str:
    """``text`` cut or padded to exactly ``width`` columns: a name in a table's column."""
    text = cut(text, width)
    return text + " " * (width - columns(text))


def fit(line: Line, width: int) -> Line:
    """Cut or pad a line to exactly ``width`` columns."""
    out: Line = []
    left = width
    for style, text in line:
        if left <= 0:
            break
        piece = cut(text, left)
        out.append((style, piece))
        left -= columns(piece)
    if left > 0:
        out.append(("", " " * left))
    return out


def box(lines: list[Line], width: int, height: int) -> list[Line]:
    """``lines`` cut or padded to exactly ``height`` lines of ``width`` characters."""
    return [fit(line, width) for line in lines[:height]] + [
        [("", " " * width)] for _ in range(height - min(height, len(lines)))
    ]


def merge(fragments: Iterable[Fragment]) -> Line:
    """Neighbouring fragments of one style joined."""
    out: Line = []
    for style, text in fragments:
        if out and out[-1][0] == style:
            out[-1] = (style, out[-1][1] + text)
        else:
            out.append((style, text))
    return out


def nearest(
    at: tuple[int, int], way: tuple[int, int], targets: Iterable[tuple[int, int]]
) -> tuple[int, int] | None:
    """The target an arrow key goes to from ``at`` going ``way`` (a unit step on a grid): the
    fewest steps ahead, each step aside counting as two; the first of equals; None when no
    target lies ahead.

    >>> nearest((0, 0), (1, 0), [(4, 0), (1, 1), (-1, 0)])
    (1, 1)
    """
    best: tuple[int, tuple[int, int]] | None = None
    for target in targets:
        dx, dy = target[0] - at[0], target[1] - at[1]
        ahead = dx * way[0] + dy * way[1]
        if ahead <= 0:
            continue
        score = ahead + 2 * (abs(dx * way[1]) + abs(dy * way[0]))
        if best is None or score < best[0]:
            best = (score, target)
    return None if best is None else best[1]


#: A range a refusal gives twice: as the wire counts (from 0), then as people type it.
_WIRE_RANGE = re.compile(r"\b\d+ to \d+ \(in text, ([^)]*)\)")


def in_text(message: str) -> str:
    """A rules refusal as the console shows it: a range in the text form alone, as typed
    ("slot 0 to 4 (in text, t1 to t5)" reads "slot t1 to t5"); a person who typed 0 was told
    to choose "from 0 to 3"."""
    return _WIRE_RANGE.sub(r"\1", message)


def line_text(line: Line) -> str:
    return "".join(text for _, text in line)
