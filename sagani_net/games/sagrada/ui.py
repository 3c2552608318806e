"""Sagrada's part of the console: windows of coloured dice, the pool, the round track, the tools
and objectives, the pattern choice, and keys and typed commands for every step of a turn.

A window is 4 rows by 5 columns; cells are ``row,column`` from 1, as the rules' text form::

        1   2   3   4   5
      ┌───┬───┬───┬───┬───┐
    1 │ R3│  r│  4│  ·│+G5│      R3  a die (colour letter, value) in its colour
      ├───┼───┼───┼───┼───┤      r   an empty cell that wants red;  4  one that wants a 4
    2 │  ·│ +·│  ·│  ·│  ·│      ·   an empty cell with no restriction

The character before a cell marks it: ``+`` a cell the die in hand (or a die to move) may take,
``▸`` the cursor (the die in hand is drawn there), ``*`` new since your last turn, ``^`` the die
a tool is moving. Letters and marks keep the screen readable without colour (``NO_COLOR``).

Keys: 1-9 pick a pool die, arrows move it over the cells it may take, Enter places it; a b c
use the tool in that slot (on the picked die, for the tools that act on a drafted die); p
passes. A tool's later steps take the same keys (the hint line names them); they are played
on a copy of the game and sent (and the tool paid) together once the last is chosen, so u or
Esc takes back any of them; a tool the host rolls for waits for Enter. Typed commands are
the rules' text form: ``draft 3 at 2,4``, ``tool 7``, ``move 1,1 to 2,3``, ``value 4``,
``swap 4.2``, ``place 2,3``, ``pass``; ``draft 3`` alone picks the die for the arrows.
"""

from __future__ import annotations

import itertools
import re
import textwrap
from collections.abc import Callable
from functools import partial
from typing import Any

from sagani_net.game import Data, RuleError, plural
from sagani_net.games import rules_file
from sagani_net.games.sagrada.components import (
    CELLS,
    COLOUR,
    COLOUR_NAMES,
    COLOURS,
    COLUMNS,
    OBJECTIVES,
    ROWS,
    TOOLS,
    VALUE,
    cell_text,
    die_text,
)
from sagani_net.games.sagrada.patterns import Pattern
from sagani_net.games.sagrada.rules import (
    DRAFT_AGAIN,
    HELD,
    MOVE,
    PLACE,
    ROUNDS,
    SWAP,
    TIE_BREAKS,
    VALUE_STEP,
    Action,
    State,
    pattern_set,
)
from sagani_net.gameui import (
    CommandError,
    GameUI,
    Key,
    Line,
    box,
    fit,
    in_text,
    line_text,
    merge,
    nearest,
    pad,
    wrap,
)

STYLES = {
    "die.r": "bg:#af0000 fg:#ffffff bold",
    "die.y": "bg:#d7af00 fg:#000000 bold",
    "die.g": "bg:#008700 fg:#ffffff bold",
    "die.b": "bg:#005fd7 fg:#ffffff bold",
    "die.p": "bg:#8700af fg:#ffffff bold",
    "want.r": "fg:#ff5f5f",
    "want.y": "fg:#ffd700",
    "want.g": "fg:#5fd75f",
    "want.b": "fg:#5fafff",
    "want.p": "fg:#d787ff",
    "want.value": "fg:#d0d0d0",
    "grid": "fg:ansibrightblack",
    "legal": "fg:ansiyellow bold",
    "cursor": "reverse",
    "new": "underline",
    "chosen": "reverse",
}

#: What each tool and public objective does, short enough for the panel (the help page has
#: the cards' whole text).
TOOL_SHORT = {
    1: "drafted die +1 or -1", 2: "move, colour free", 3: "move, value free",
    4: "move exactly 2 dice", 5: "swap with track die", 6: "re-roll drafted die",
    7: "re-roll pool, 2nd turn", 8: "draft 2, skip 2nd turn", 9: "place next to no die",
    10: "turn drafted die over", 11: "redraw drafted die", 12: "move 1-2 of track colour",
}
OBJECTIVE_SHORT = {
    1: "per row of 5 colours", 2: "per column of 4 colours", 3: "per row of 5 values",
    4: "per column of 4 values", 5: "per 1 and 2", 6: "per 3 and 4", 7: "per 5 and 6",
    8: "per set of 1-6", 9: "per set of 5 colours", 10: "per die diagonal to its colour",
}
#: The width of a public objective's column on the final page (its name wraps to fit).
OBJECTIVE_W = 9
#: Tools whose outcome only the host can give: Flux Brush and Glazing Hammer roll, Flux
#: Remover draws. Their use waits for Enter, and cannot be taken back once sent.
ROLLED = {6: "the host re-rolls the die", 7: "the host re-rolls the pool",
          11: "the host draws a new die"}
#: Tool keys: the tool card in slot 0, 1, 2 (solo: up to 5).
TOOL_KEYS = "abcde"
#: A window's grid drawn with borders: its width and height in characters.
GRID_W, GRID_H = 2 + COLUMNS * 4 + 1, 2 * ROWS + 2
#: The narrow grid (one line per row): for tight heights and the four candidates at 80 columns.
SMALL_W, SMALL_H = 2 + COLUMNS * 3 + 1, ROWS + 2

# -- cells and windows ---------------------------------------------------------------------------


def cell_fragment(die: str, want: str, mark: str = " ", extra: str = "") -> list[tuple[str, str]]:
    """One cell, 3 characters: a mark, then the die (``R3``) or the restriction (`` r``,
    `` 4``, `` ·``)."""
    mark_style = "class:legal" if mark in "+▸^" and mark != " " else "class:new"
    out = [(mark_style if mark != " " else "", mark)]
    if die:
        out.append((f"class:die.{die[0].lower()} {extra}".strip(), die))
    elif want and want in COLOURS:
        out.append((f"class:want.{want.lower()} {extra}".strip(), " " + want.lower()))
    elif want:
        out.append((f"class:want.value {extra}".strip(), " " + want))
    else:
        out.append((f"class:grid {extra}".strip(), " ·"))
    return out


def window_rows(
    window: list[str],
    pattern: Pattern | None,
    *,
    marks: dict[int, str] | None = None,
    ghost: tuple[int, str] | None = None,
    small: bool = False,
) -> list[Line]:
    """A window as text lines: ``GRID_W`` x ``GRID_H`` with borders, or ``SMALL_W`` x
    ``SMALL_H`` (``small``). ``marks``: cell -> mark character; ``ghost``: the die in hand
    drawn at a cell (the cursor)."""
    marks = marks or {}
    wants = pattern.cells if pattern is not None else ("",) * CELLS

    def cell(i: int) -> list[tuple[str, str]]:
        if ghost is not None and ghost[0] == i:
            return cell_fragment(ghost[1], "", "▸", "class:cursor")
        mark = marks.get(i, " ")
        return cell_fragment(window[i], wants[i], mark, "class:cursor" if mark == "▸" else "")

    g = "class:grid"
    if small:
        lines: list[Line] = [[(g, "  " + "".join(f"{c + 1:>3}" for c in range(COLUMNS)) + " ")]]
        for r in range(ROWS):
            row: Line = [(g, f"{r + 1} ")]
            for c in range(COLUMNS):
                row.extend(cell(r * COLUMNS + c))
            row.append(("", " "))
            lines.append(merge(row))
        lines.append([("", " " * SMALL_W)])
        return lines
    lines = [[(g, "  " + "".join(f"{c + 1:>4}" for c in range(COLUMNS)) + " ")],
             [(g, "  ┌" + "───┬" * (COLUMNS - 1) + "───┐")]]
    for r in range(ROWS):
        row = [(g, f"{r + 1} │")]
        for c in range(COLUMNS):
            row.extend(cell(r * COLUMNS + c))
            row.append((g, "│"))
        lines.append(merge(row))
        if r < ROWS - 1:
            lines.append([(g, "  ├" + "───┼" * (COLUMNS - 1) + "───┤")])
    lines.append([(g, "  └" + "───┴" * (COLUMNS - 1) + "───┘")])
    return lines


def dice_line(dice: list[str], numbered: bool = False, picked: int | None = None) -> Line:
    """Dice in a row: ``1:R3 2:G5`` (numbered from 1; ``▸`` the picked one) or ``R3 G5``."""
    line: Line = []
    for i, die in enumerate(dice):
        if numbered:
            line.append(("class:legal" if i == picked else "", f"{'▸' if i == picked else ''}"
                         f"{i + 1}:"))
        extra = " class:cursor" if i == picked else ""
        line.append((f"class:die.{die[0].lower()}{extra}", die))
        line.append(("", " "))
    return line


# -- the console part ---------------------------------------------------------------------------


class SagradaUI(GameUI[State]):
    """Sagrada in the console: what you are choosing (a candidate pattern, a pool die and the
    cell for it, a die to move, a round-track die), the screen, keys and typed commands."""

    styles = STYLES
    board = "window"

    def __init__(self, game: Any, model: Any) -> None:
        super().__init__(game, model)
        #: Choose phase: the candidate (0-3) under the cursor.
        self.candidate = 0
        #: A pool die picked to draft, not yet sent.
        self.picked: int | None = None
        #: The cell under the cursor in your window (placing or moving), or None.
        self.cursor: int | None = None
        #: Moving tools: the cell of the die lifted to move.
        self.lifted: int | None = None
        #: Lens Cutter: the round-track choice under the cursor (index into the swaps).
        self.swap_at = 0
        #: seat -> cells changed since your last turn ended.
        self.changed: dict[int, set[int]] = {}
        #: The decisions of a tool's use (and the draft before it) chosen but not sent: the
        #: whole use goes to the host (and is paid) only once its last step is chosen, so that
        #: Esc or u takes back any step before that at no cost.
        self.plan: list[Action] = []
        #: The host's version the plan was made on.
        self._plan_base = -1
        #: Decisions whose outcome only the host can give (a roll or a draw), waiting for
        #: Enter: they cannot be taken back once sent.
        self.confirming: list[Action] | None = None
        #: Choose phase: the slot chosen before your turn to choose came, sent when it comes.
        self.chosen_ahead: int | None = None
        self._mark: list[list[str]] = []
        #: (round, turn index) of the turn of yours on screen; None when it is not yours.
        self._my_turn: tuple[Any, Any] | None = None
        self._planned: tuple[tuple[Any, ...], State, Data] | None = None
        #: The state shown, and its legal actions by the pool die drafted first (None: none),
        #: None where that draft is refused: see :meth:`_listed`.
        self._lists: tuple[State, dict[int | None, tuple[State, list[Action]] | None]] | None = None

    # -- questions --------------------------------------------------------------------------

    @property
    def view(self) -> Data | None:
        """What the screen shows: the host's view, or, with decisions chosen but not sent, the
        view as they would leave it."""
        if self.plan:
            planned = self._plan()
            if planned is not None:
                return planned[1]
        return self.model.view

    def _plan(self) -> tuple[State, Data] | None:
        """The state and view after the plan, worked out once per plan and host view."""
        host = self.host_state()
        if host is None:
            return None
        key = (self.state_made, tuple(self.plan))
        if self._planned is None or self._planned[0] != key:
            state = host.clone()
            for action in self.plan:
                state.apply(action)
            view = state.view(self.model.you)
            # Nothing is paid before the plan is sent: tokens, tool costs and scores as they
            # stand at the host.
            shown = self.model.view
            assert shown is not None
            view["tools"], view["scores"] = shown["tools"], shown["scores"]
            for seat, data in zip(view["seats"], shown["seats"], strict=True):
                seat["tokens"] = data["tokens"]
            self._planned = (key, state, view)
        return self._planned[1], self._planned[2]

    def patterns(self) -> tuple[Pattern, ...]:
        view = self.view
        return pattern_set(view["config"])[0] if view else ()

    def pattern_of(self, seat: int) -> Pattern | None:
        """The pattern ``seat`` plays (yours from your private data before the reveal)."""
        view = self.view
        if view is None:
            return None
        index = view["seats"][seat]["pattern"]
        private = self.model.private
        if index is None and seat == self.model.you and private:
            index = private.get("pattern")
        return self.patterns()[index] if index is not None else None

    def state(self) -> State | None:
        """The engine state the screen shows: the host's (:meth:`host_state`), with the plan's
        decisions played on a copy."""
        if self.plan:
            planned = self._plan()
            if planned is not None:
                return planned[0]
        return self.host_state()

    def host_state(self) -> State | None:
        """The state the host's view and your private data stand for (:meth:`GameUI.state`),
        without the plan."""
        return super().state()

    def mine(self) -> bool:
        """Your decision now (live, your seat to move)."""
        view = self.view
        return bool(self.model.my_turn and view and view["phase"] != "over")

    def legal(self) -> list[Action]:
        state = self.state()
        if not self.mine() or state is None or state.current_seat != self.model.you:
            return []
        listed = self._listed(state)
        return listed[1] if listed else []

    def _listed(self, state: State, draft: int | None = None) -> tuple[State, list[Action]] | None:
        """``state`` after drafting pool die ``draft`` if given, and its legal actions (None if
        the rules refuse that draft): worked out once per state shown and draft, since a redraw
        asks some fifteen times (marks, keys, hints, each tool's slot) and a shown state is
        never changed in place."""
        if self._lists is None or self._lists[0] is not state:
            self._lists = (state, {})
        lists = self._lists[1]
        if draft not in lists:
            after = state
            if draft is not None:
                after = state.clone()
                try:
                    after.apply(Action.draft(draft))
                except RuleError:
                    lists[draft] = None
                    return None
            lists[draft] = (after, after.legal_actions())
        return lists[draft]

    def step(self) -> str | None:
        view = self.view
        step = view.get("step") if view else None
        return step["kind"] if step else None

    def held_die(self) -> str:
        """The die a tool step holds (drafted, changed or brought), or ``""``."""
        view = self.view
        step = view.get("step") if view else None
        return (step or {}).get("held") or ""

    def hand(self) -> str:
        """The die you would place with Enter: the picked pool die, the held one, or the one
        lifted to move."""
        view = self.view
        if view is None:
            return ""
        if self.picked is not None and self.picked < len(view["pool"]):
            return str(view["pool"][self.picked])
        if self.step() in (HELD, PLACE):
            return self.held_die()
        if self.step() == MOVE and self.lifted is not None and self.model.you is not None:
            return str(view["seats"][self.model.you]["window"][self.lifted])
        return ""

    def targets(self) -> dict[int, Action]:
        """Cell -> the action Enter sends with the cursor there, in the current mode."""
        legal = self.legal()
        step = self.step()
        if step in (HELD, PLACE):
            return {a.cell: a for a in legal if a.kind == "place"}
        if step == MOVE:
            if self.lifted is None:
                return {a.cell: a for a in legal if a.kind == "move"}
            return {a.to: a for a in legal if a.kind == "move" and a.cell == self.lifted}
        if self.picked is not None:
            return {a.cell: a for a in legal
                    if a.kind == "draft" and a.die == self.picked and a.cell >= 0}
        return {}

    def swaps(self) -> list[Action]:
        return [a for a in self.legal() if a.kind == "swap"] if self.step() == SWAP else []

    # -- the screen -------------------------------------------------------------------------

    def body(self, width: int, height: int) -> list[Line]:
        view = self.view
        if view is None or view.get("game") != "sagrada":
            return super().body(width, height)
        if view["phase"] == "choose":
            return choose_body(self, width, height)
        return play_body(self, width, height)

    def body_height(self, width: int, height: int) -> int:
        """The rows the window and the panel need; the log gets the rest."""
        view = self.view
        if view is None or view.get("game") != "sagrada":
            return height
        if view["phase"] == "choose":
            return height
        return min(height, max(len(lines) for _, lines in play_columns(self, width, height)))

    def final(self, width: int, height: int) -> list[Line]:
        return final_lines(self, width, height)

    def turn_note(self) -> str:
        view = self.view
        if view is None:
            return ""
        if view["phase"] == "choose":
            return "choose a pattern"
        step = self.step()
        if step is None:
            return "tool or pass" if view["drafted"] else ""
        # Short: the status line has some 20 columns left at 80; the hand line names the tool.
        return {HELD: "place it or a tool", PLACE: "place the die",
                VALUE_STEP: "choose its value", SWAP: "swap a die",
                MOVE: "move a die", DRAFT_AGAIN: "draft again"}[step]

    def note(self) -> str:
        """A use waiting for Enter and what it costs; else the preview of the placement under
        the cursor (its score against now); else what the plan has chosen, not yet sent."""
        if self.confirming is not None and self.mine():
            return self._confirm_text()
        view = self.view
        if view is not None and view["phase"] == "choose" and self.chosen_ahead is not None:
            name = self.patterns()[(self.model.private or {})["patterns"][self.chosen_ahead]].name
            return f"You chose {name}; it is sent at your turn to choose, after {self.choosing()}"
        hand = self.hand()
        targets = self.targets()
        if hand and self.cursor in targets:
            return self._preview_text(targets[self.cursor], hand)
        tool = next((a.number for a in self.plan if a.kind == "tool"), 0)
        if tool:
            return f"{TOOLS[tool].name}: nothing sent or paid until its last step; u/Esc undo"
        return ""

    def _confirm_text(self) -> str:
        assert self.confirming is not None
        tool = next(a for a in self.confirming if a.kind == "tool")
        state = self.state()
        if state is not None and tool.die >= 0:  # solo: the pool die paid, after the draft
            state = state.clone()
            for action in self.confirming[: self.confirming.index(tool)]:
                state.apply(action)
            cost = f"paid with {die_text(state.pool[tool.die])}"
        else:
            view = self.view or {}
            slot = [t["tool"] for t in view.get("tools", [])].index(tool.number)
            tokens = view["tools"][slot]["cost"]
            cost = plural(tokens, "token")
        # Short enough for 80 columns; the hint line says Enter uses it.
        return f"{TOOLS[tool.number].name} ({cost}): {ROLLED[tool.number]} - cannot be taken back"

    def _preview_text(self, action: Action | None, hand: str) -> str:
        state, host = self.state(), self.host_state()
        you = self.model.you
        if action is None or state is None or host is None or you is None:
            return ""
        # The score now, as every row shows it (private objectives are counted at the end),
        # and as the host has it: a plan's tool is not paid yet, nor its first move made, and
        # the placement sends them with it.
        before = host.score_sheet(you, private=False)
        after_state = state.clone()
        try:
            after_state.apply(action)
        except RuleError:
            return ""
        after = after_state.score_sheet(you, private=False)
        gained = []
        for n, a, b in zip(host.objectives, before["objectives"], after["objectives"],
                           strict=True):
            if b != a:
                gained.append(f"{OBJECTIVES[n].name} {b - a:+}")
        later = ""  # yours: not in the score now, so said apart from what adds up to it
        if self.model.private is not None:
            own = [host.score_sheet(you)["private"], after_state.score_sheet(you)["private"]]
            if own[1] != own[0]:
                later = f"; private {own[1] - own[0]:+} at the end"
        if after["tokens"] != before["tokens"]:
            gained.append(f"favour tokens {after['tokens'] - before['tokens']:+}")
        if after["empty"] != before["empty"]:
            # What the rest of the change is: the cell no longer counts against you (1 point,
            # 3 in the solo game).
            rest = (after["total"] - before["total"] - after["tokens"] + before["tokens"]
                    - sum(after["objectives"]) + sum(before["objectives"]))
            gained.append(f"one empty cell less {rest:+}")
        what = f"{hand} to {cell_text(action.to)}" if action.kind == "move" else \
            f"{hand} at {cell_text(action.cell)}"
        delta = after["total"] - before["total"]
        return (f"{what}: your score {before['total']} -> {after['total']} ({delta:+}"
                + (": " + ", ".join(gained) if gained else "") + later + ")")

    def hints(self) -> str:
        view = self.view
        tail = "Tab windows  : command  ? help  q quit"
        if view is None:
            return tail
        if view["phase"] == "choose" or len(view["seats"]) == 1:
            tail = tail.replace("Tab windows  ", "")  # no window yet, or yours alone
        if view["phase"] == "choose":
            if self.chosen_ahead is not None:
                return "Esc/u take the choice back  " + tail
            return "1-4 or ←/→ pick a pattern  Enter choose  " + tail if self.can_choose() \
                else tail
        if not self.mine():
            return tail
        if self.confirming is not None:
            return "Enter use it (it cannot be taken back)  Esc/u not now  : command"
        step = self.step()
        tools = self._tool_keys()
        back = "  u/Esc take back" if self.plan else ""
        if step == VALUE_STEP:
            values = [str(a.number) for a in self.legal() if a.kind == "value"]
            return f"{'/'.join(values)} the die's value{back}  : command  ? help"
        if step == SWAP:
            return f"←/→ choose a round-track die  Enter swap{back}  : command  ? help"
        if step == MOVE:
            stop = "  s stop" if any(a.kind == "stop" for a in self.legal()) else ""
            what = "where to" if self.lifted is not None else "a die to move"
            back = "  u/Esc take back" if self.plan or self.lifted is not None else ""
            return f"arrows {what}  Enter {'move' if self.lifted is not None else 'lift'}" \
                   f"{stop}{back}  : command"
        # A die that fits nowhere has no cell to move to nor to place on: those keys are not
        # offered.
        place = "arrows cell  Enter place" if self.targets() else ""
        if step in (HELD, PLACE):
            ret = "  r return it" if any(a.kind == "return" for a in self.legal()) else ""
            return f"{place}{ret}{tools}{back}  : command  ? help".lstrip()
        if self.picked is not None:
            if not place:
                tools = self._tool_keys(self._drafted_tool_slots())
                return f"{tools.strip()} on it  Esc drop  : command  ? help".lstrip()
            return f"{place}{tools}  Esc drop  : command  ? help"
        pool = len(view["pool"])
        if step == DRAFT_AGAIN:
            return f"1-{pool} pick your second die (Running Pliers){back}  : command  ? help"
        kinds = {a.kind for a in self.legal()}
        parts = [f"1-{pool} pick a die"] if "draft" in kinds else []
        parts += [tools.strip()] if tools else []
        return "  ".join([*parts, "p pass", tail])

    def _tool_keys(self, slots: list[int] | None = None) -> str:
        slots = self._tool_slots() if slots is None else slots
        return f"  {'/'.join(TOOL_KEYS[s] for s in slots)} tool" if slots else ""

    def _tool_slots(self) -> list[int]:
        """Tool slots a key can use now (on the picked die, for the drafted-die tools)."""
        view = self.view
        if view is None:
            return []
        return [slot for slot, t in enumerate(view["tools"]) if self._tool_actions(t["tool"])]

    def _drafted_tool_slots(self) -> list[int]:
        """Tool slots a key can use now on the picked die itself (the others are used before
        drafting: their key drops the pick)."""
        view = self.view
        assert view is not None
        return [slot for slot in self._tool_slots()
                if TOOLS[view["tools"][slot]["tool"]].on_drafted]

    def help_pages(self) -> list[list[str]]:
        """Commands and symbols; the tools and objectives of this game in full; the rules."""
        view = self.view or {}
        tools = [t["tool"] for t in view.get("tools", [])] or list(TOOLS)
        objectives = view.get("objectives") or list(OBJECTIVES)
        keys = " ".join(TOOL_KEYS[: len(tools)]) if view else "a b c"  # solo: 1 to 5 tools
        cards = [f"Tools in this game (keys {keys}; typed: tool N)"]
        for slot, number in enumerate(tools):
            t = TOOLS[number]
            key = TOOL_KEYS[slot] if view else " "
            cards += textwrap.wrap(f"{t.name} ({t.number}): {t.text}", 78,
                                   initial_indent=f" {key} ", subsequent_indent="     ")
        cards.append("Public objectives")
        for n in objectives:
            o = OBJECTIVES[n]
            cards += textwrap.wrap(f"{o.name}: {o.points} points for {o.text}", 78,
                                   initial_indent="   ", subsequent_indent="     ")
        cards.append("Private objective: the sum of the values of your colour's dice")
        rules = RULES_PAGE.format(rules=rules_file(self.game.name))  # as installed
        return [COMMANDS_PAGE.splitlines(), cards, rules.splitlines()]

    # -- keys and commands ------------------------------------------------------------------

    def key_bindings(self) -> list[Key]:
        keys = [Key((str(n),), "pick a pool die (choosing: a pattern; a tool's value step: the "
                    "value)" if n == 1 else "", partial(self.digit, n), label="1-9")
                for n in range(1, 10)]
        keys += [
            Key(("enter",), "place, choose, move or swap what the cursor is on",
                self.confirm, label="Enter"),
            Key(("p",), "pass (end your turn)", lambda: self._send_if(Action("pass"))),
            Key(("s",), "stop after one move (Tap Wheel)",
                lambda: self._send_if(Action("stop"))),
            Key(("r",), "return the die to the pool (Flux Remover)",
                lambda: self._send_if(Action("return"))),
        ]
        for slot, key in enumerate(TOOL_KEYS):
            keys.append(Key((key,), "use that slot's tool (one used on a drafted die: on the "
                            "picked one)" if slot == 0 else "",
                            partial(self.use_tool, slot), label="a-e"))
        for key, (dr, dc) in {"up": (-1, 0), "down": (1, 0), "left": (0, -1),
                              "right": (0, 1)}.items():
            keys.append(Key((key,), "move the cursor over the cells open to the die"
                            if key == "up" else "", partial(self.move, dr, dc),
                            label="arrows"))
        return keys

    def digit(self, n: int) -> list[Data]:
        view = self.view
        if view is None:
            return []
        if view["phase"] == "choose":
            if n <= 4 and self.can_choose() and self.chosen_ahead is None:
                self.candidate = n - 1
            return []
        if not self.mine() or self.confirming is not None:
            return []
        if self.step() == VALUE_STEP:
            return self.advance([Action("value", number=n)])
        return self.pick(n - 1)

    def pick(self, index: int) -> list[Data]:
        """Pick pool die ``index`` to draft: the cursor goes to a cell open to it."""
        view = self.view
        if view is None or not 0 <= index < len(view["pool"]):
            self.model.say("no such die in the pool", refusal=True)
            return []
        if self.step() not in (None, DRAFT_AGAIN) or view["drafted"] and self.step() is None:
            self.model.say("you have drafted a die this turn", refusal=True)
            return []
        self.picked = index
        self.lifted = None
        targets = self.targets()
        slots = [] if targets else self._drafted_tool_slots()
        if not targets and not slots:
            self.picked = None
            self.model.say(f"{view['pool'][index]} fits nowhere in your window now", refusal=True)
            return []
        self.model.say("" if targets else self._nowhere(slots), refusal=not targets)
        self.model.shown = self.model.you if self.model.you is not None else self.model.shown
        self.cursor = self._first(targets)
        return []

    def _nowhere(self, slots: list[int]) -> str:
        """What a picked die that fits nowhere may still become: the tools that work on it."""
        keys = "/".join(TOOL_KEYS[slot] for slot in slots)
        return f"{self.hand()} fits nowhere: use a tool on it ({keys}), or Esc"

    def _first(self, targets: dict[int, Action]) -> int | None:
        if not targets:
            return None
        if self.cursor in targets:
            return self.cursor
        return min(targets)

    def at(self, targets: dict[int, Action]) -> int | None:
        """The cursor, always on a target while there is one (what the screen draws and
        Enter acts on are the same cell)."""
        self.cursor = self._first(targets)
        return self.cursor

    def move(self, dr: int, dc: int) -> list[Data]:
        """Arrows: the nearest target cell that way (Lens Cutter: the next round-track die;
        choosing: the next candidate)."""
        view = self.view
        if view is None:
            return []
        if view["phase"] == "choose":
            if self.can_choose() and self.chosen_ahead is None:  # Esc takes a choice back
                self.candidate = (self.candidate + dc + dr) % 4
            return []
        if not self.mine() or self.confirming is not None:
            return []
        swaps = self.swaps()
        if swaps:
            self.swap_at = (self.swap_at + dc + dr) % len(swaps)
            return []
        targets = self.targets()
        if not targets:
            return []
        if self.cursor not in targets:
            self.cursor = self._first(targets)
            return []
        rows_columns = (divmod(cell, COLUMNS) for cell in targets)
        found = nearest(divmod(self.cursor, COLUMNS), (dr, dc), rows_columns)
        if found is not None:
            self.cursor = found[0] * COLUMNS + found[1]
        return []

    def confirm(self) -> list[Data]:
        """Enter: choose the candidate, place, move, lift or swap; or send a use that waits
        for Enter because the host rolls for it."""
        view = self.view
        if view is None:
            return []
        if view["phase"] == "choose":
            return self._choose_now()
        if not self.mine():
            self.model.say(f"Enter places a die: {self.not_your_turn()}")  # not a dead key
            return []
        if self.confirming is not None:
            sent = [*self.plan, *self.confirming]
            self.plan, self.confirming = [], None
            return [a.to_dict() for a in sent]
        swaps = self.swaps()
        if swaps:
            return self.advance([swaps[self.swap_at % len(swaps)]])
        targets = self.targets()
        cursor = self.at(targets)
        if cursor is None:
            if self.step() is None and self.picked is None and not view["drafted"]:
                if not any(a.kind == "draft" for a in self.legal()):
                    self.model.say("no die in the pool fits your window now: p passes",
                                   refusal=True)
                else:
                    self.model.say(f"pick a die first ({dice_keys(view)}), or type draft 3 at 2,4",
                                   refusal=True)
            elif self.picked is not None:
                self.model.say(self._nowhere(self._drafted_tool_slots()), refusal=True)
            elif self.step() in (HELD, PLACE):
                ret = any(a.kind == "return" for a in self.legal())
                self.model.say(f"{self.hand()} fits nowhere"
                               + (": r returns it to the pool" if ret else ""), refusal=True)
            return []
        if self.step() == MOVE and self.lifted is None:
            self.lifted = cursor
            self.at(self.targets())
            return []
        return self.advance([targets[cursor]])

    def advance(self, actions: list[Action], typed: bool = False) -> list[Data]:
        """Take decisions, checked on a copy of the game after the plan. A decision that
        leaves a tool's step open joins the plan (nothing is sent, nothing paid); one that
        ends the use (or needs no tool) goes to the host with the plan; one whose outcome the
        host rolls or draws waits for Enter (:attr:`confirming`). A refusal sends nothing and
        says why (``typed``: as a CommandError)."""
        host = self.host_state()
        you = self.model.you
        if host is None or not self.mine() or host.current_seat != you:
            return []
        plan = [*self.plan, *actions]
        check = host.clone()
        try:
            for action in plan:
                check.apply(action)
        except RuleError as exc:
            message = for_people(exc.message)
            if typed:
                raise CommandError(f"not sent: {message}") from None
            self.model.say(message, refusal=True)
            return []
        self.model.say("")
        self._plan_base = self.model.view["version"] if self.model.view else -1
        self.lifted = None
        if any(a.kind == "tool" and a.number in ROLLED for a in actions):
            self.confirming = list(actions)
            return []
        self.picked = None
        if check.step is not None and check.current_seat == you:
            self.plan = plan
            self._settle()
            return []
        if len(plan) > 1 and plan[0].kind == "tool" and plan[0].number == 12 and \
                plan[-1].kind == "move" and sum(a.kind == "move" for a in plan) == 1:
            self.model.say("Tap Wheel ends after one move: no second die of that colour can "
                           "move now")
        self.plan, self.confirming = [], None
        return [a.to_dict() for a in plan]

    def undo(self) -> None:
        """u (and Esc): take back the last step not yet sent: a use waiting for Enter, a
        lifted die, a step of the plan (a drafted-die tool with its draft: the die stays
        picked), the picked die. What the host has accepted stays."""
        said = ""
        if self.chosen_ahead is not None:
            self.chosen_ahead = None
            said = "choice taken back: nothing was sent"
        elif self.confirming is not None:
            self.confirming = None
            said = "not used: nothing was sent"
        elif self.lifted is not None:
            self.lifted = None
        elif self.plan:
            last = self.plan.pop()
            if last.kind == "tool" and self.plan and self.plan[-1].kind == "draft" and \
                    self.plan[-1].cell < 0:
                self.picked = self.plan.pop().die
            what = TOOLS[last.number].name if last.kind == "tool" else str(last)
            said = f"took back {what}: nothing was sent"
        elif self.picked is not None:
            self.picked = self.cursor = None
        elif self.mine():
            said = "nothing to take back: what the host has accepted stays"
        self._settle()
        if said:
            self.model.say(said)

    def _settle(self) -> None:
        """Keep the picked die, the lifted die, the cursor and the round-track choice true to
        the screen now (the cursor always on a target while there is one)."""
        view = self.view
        if view is None or not self.mine():
            self.picked = self.lifted = self.cursor = None
            return
        step = self.step()
        if self.picked is not None and (self.picked >= len(view["pool"]) or step not in (
                None, DRAFT_AGAIN) or view["drafted"] and step is None):
            self.picked = None
        if step != MOVE:
            self.lifted = None
        self.at(self.targets())
        swaps = self.swaps()
        self.swap_at = min(self.swap_at, max(0, len(swaps) - 1))

    # -- the pattern choice: everyone may choose at once ------------------------------------

    def can_choose(self) -> bool:
        """Whether you may pick a pattern now: the choice is open and yours is not made. Your
        turn to choose need not have come: a choice made before it is sent when it does."""
        view, private = self.view, self.model.private or {}
        return bool(view and view["phase"] == "choose" and self.model.you is not None
                    and private.get("patterns") and private.get("pattern") is None
                    and self.model.status == "running")

    def choosing(self) -> str:
        """Whose turn to choose it is (the host takes the choices in seat order)."""
        turn = self.model.turn
        return self.model.name(turn) if turn is not None else ""

    def _choose_now(self) -> list[Data]:
        if not self.can_choose():
            return []
        if self.mine():
            self.chosen_ahead = None
            return self.advance([Action.choose(self.candidate)])
        self.chosen_ahead = self.candidate
        return []

    def due(self) -> list[Data]:
        if self.chosen_ahead is None or not self.can_choose() or not self.mine():
            return []
        slot, self.chosen_ahead = self.chosen_ahead, None
        self.candidate = slot
        return self.advance([Action.choose(slot)])

    def use_tool(self, slot: int) -> list[Data]:
        view = self.view
        if view is None or not self.mine() or slot >= len(view["tools"]) or \
                self.confirming is not None:
            return []
        number = view["tools"][slot]["tool"]
        actions = self._tool_actions(number)
        if not actions:
            self.model.say(self._tool_refusal(number), refusal=True)
            return []
        return self.advance(actions)

    def _tool_actions(self, number: int) -> list[Action]:
        """What using tool ``number`` sends now: the tool (its cheapest payment), after the
        picked die's draft for a tool used on a drafted die; [] when it cannot be used (a
        number typed that no card has: the rules' refusal says so)."""
        tool = TOOLS.get(number)
        state = self.state()
        if tool is None or state is None or not self.mine():
            return []
        draft = None
        if tool.on_drafted and self.picked is not None and self.step() is None:
            draft = self.picked
        elif state.current_seat != self.model.you:
            return []
        listed = self._listed(state, draft)
        if listed is None:
            return []
        options = [a for a in listed[1] if a.kind == "tool" and a.number == number]
        if not options:
            return []
        # Solo: pay with the lowest die of the tool's colour (type ``tool N pay M`` to choose).
        pool = listed[0].pool
        options.sort(key=lambda a: VALUE[pool[a.die]] if a.die >= 0 else 0)
        first = [Action.draft(draft)] if draft is not None else []
        return [*first, options[0]]

    def _tool_refusal(self, number: int) -> str:
        tool = TOOLS[number]
        state = self.state()
        if state is None:
            return f"{tool.name} cannot be used now"
        if tool.on_drafted and self.picked is None and self.step() is None:
            # "Pick a die first" only where a picked die would do: not once a die is drafted
            # this turn, nor when no pool die can be drafted for it (the rules say why).
            if (self.view or {}).get("drafted"):
                return f"{tool.name} is used on a die just drafted, before placing it"
            for die in range(len(state.pool)):
                listed = self._listed(state, die)
                if listed and any(a.kind == "tool" and a.number == number for a in listed[1]):
                    keys = dice_keys(self.view)
                    return f"{tool.name} is used on a drafted die: pick a die first ({keys})"
            try:
                state.clone().apply(Action.tool(number))
            except RuleError as exc:
                if exc.code in ("bad_tool", "tool_used", "tool_spent", "cannot_pay"):
                    return for_people(exc.message)
            return f"{tool.name} can be used on no die of the pool now"
        check = state.clone()
        picked = self.picked if tool.on_drafted and self.step() is None else None
        if picked is not None and picked < len(state.pool) and number in state.tools:
            die = state.pool[picked]
            try:
                check.apply(Action.draft(picked))  # the rules then say why this tool cannot
            except RuleError:  # no tool can be used on it: say so if this one's outcome is why
                if not state.tool_outcomes(number, die):
                    return f"{tool.name} would leave {die_text(die)} with no cell it may go to"
                colour = COLOURS.index(tool.colour)
                payable = not state.tool_done and not state.uses[state.tools.index(number)]
                if state.solo and payable and COLOUR[die] == colour and not any(
                        COLOUR[d] == colour for i, d in enumerate(state.pool) if i != picked):
                    # Solo pays with a pool die of the tool's colour: not the one it acts on.
                    return (f"{tool.name}: paid with a {COLOUR_NAMES[colour]} pool die, and "
                            f"{die_text(die)} is the only one")
        try:
            check.apply(Action.tool(number))
        except RuleError as exc:
            message = for_people(exc.message)
            return message if message.startswith(tool.name) else f"{tool.name}: {message}"
        return f"{tool.name} cannot be used now"

    def _send_if(self, action: Action) -> list[Data]:
        """``action`` as a decision of its own (see :meth:`advance`)."""
        if not self.mine() or self.confirming is not None:
            return []
        return self.advance([action])

    def command(self, text: str) -> list[Data]:
        """A typed move in the rules' text form, checked on a copy of the game before anything
        is sent, and taken like a key (:meth:`advance`); ``draft N`` alone picks the die for
        the arrows (or, with a die picked, ``tool N`` drafts it for the tool)."""
        words = text.lower().split()
        try:
            action = Action.parse(text)
        except RuleError as exc:
            raise CommandError(exc.message) from None
        if action.kind == "choose" and self.can_choose() and not self.mine():
            if not 0 <= action.number < 4:
                raise CommandError("choose a pattern from 1 to 4")
            self.candidate = self.chosen_ahead = action.number
            return []
        if not self.mine():
            raise CommandError(self.not_your_turn())
        self.confirming = None
        state = self.state()
        assert state is not None
        actions = [action]
        if action.kind == "draft" and action.cell < 0 and self.step() is None:
            self.pick(action.die)
            return []
        if action.kind == "tool":
            if action.die < 0 and len(words) == 2:
                found = self._tool_actions(action.number)
                if found:
                    return self.advance(found, typed=True)
            if TOOLS.get(action.number) and TOOLS[action.number].on_drafted and \
                    self.picked is not None and self.step() is None:
                actions = [Action.draft(self.picked), action]
        return self.advance(actions, typed=True)

    def complete(self, text: str) -> list[str]:
        words = text.split()
        partial = "" if text.endswith(" ") or not words else words.pop()
        legal = self.legal()
        options: list[str]
        if not words:
            kinds = {a.kind for a in legal}
            options = [k for k in ("choose", "draft", "place", "tool", "move", "value", "swap",
                                   "pass", "stop", "return") if k in kinds]
        elif len(words) == 1 and words[0] in ("draft", "tool", "choose", "value", "swap",
                                               "place", "move"):
            words_now = {str(a).split()[1] for a in legal if a.kind == words[0]}
            options = sorted(words_now, key=lambda w: (len(w), w))  # 2 before 11
        elif words[0] == "draft" and len(words) == 2:
            options = ["at"]
        elif words[0] == "draft" and len(words) == 3 and words[2] == "at":
            options = [cell_text(a.cell) for a in legal
                       if a.kind == "draft" and str(a.die + 1) == words[1] and a.cell >= 0]
        elif words[0] == "move" and len(words) == 2:
            options = ["to"]
        elif words[0] == "move" and len(words) == 3:
            options = [cell_text(a.to) for a in legal
                       if a.kind == "move" and cell_text(a.cell) == words[1]]
        else:
            options = []
        return [o for o in options if o.startswith(partial.lower())]

    def cancel(self) -> bool:
        """Esc and u (the shell's keys): take back the last step not yet sent. Sagrada keeps
        its own steps (a tool's plan), and says what it took back."""
        self.undo()
        return True

    # -- updates ----------------------------------------------------------------------------

    def updating(self, events: list[Data]) -> None:
        placed = [e["seat"] for e in events if e.get("type") in ("die_placed", "die_moved")]
        if self.model.you is None and placed:
            self.model.remember()  # a spectator has no turns: the latest move is what is new
            self.model.shown = placed[-1]

    def updated(self, events: list[Data]) -> None:
        you = self.model.you
        host = self.model.view
        if (self.plan or self.confirming is not None) and (
                host is None or host["version"] != self._plan_base):
            self.plan, self.confirming = [], None  # made on a view that is gone
        if self.chosen_ahead is not None and not self.can_choose():
            self.chosen_ahead = None
        self._settle()
        self._find_changes()
        turn_over = any(e.get("type") in ("turn_passed", "round_started", "patterns_revealed")
                        or e.get("seat") == you and e.get("type") == "die_placed"
                        for e in events)
        # A turn of yours that ended where the next is yours too (every turn of a solo game,
        # the second of a round's two in a row): the turn stayed yours, and every die of the
        # game stayed marked new, every log line too.
        turn = (host.get("round"), host.get("turn_index")) if host is not None else None
        ended = self._my_turn is not None and turn != self._my_turn
        self._my_turn = turn if self.mine() else None
        if you is not None and (turn_over and not self.mine() or ended):
            self.model.remember()
        if you is not None and any(e.get("type") == "patterns_revealed" for e in events):
            self.model.shown = you  # a Tab while choosing, with no window to show, is forgotten

    def remember(self) -> None:
        view = self.view
        if view is None or "seats" not in view:
            return
        self._mark = [list(s["window"]) for s in view["seats"]]
        self.changed = {}

    def _find_changes(self) -> None:
        view = self.view
        if view is None or "seats" not in view:
            return
        self.changed = {}
        for seat, data in enumerate(view["seats"]):
            before = self._mark[seat] if seat < len(self._mark) else [""] * CELLS
            cells = {i for i, d in enumerate(data["window"]) if d and d != before[i]}
            if cells:
                self.changed[seat] = cells


UI = SagradaUI


# -- screens ------------------------------------------------------------------------------------


def window_block(ui: SagradaUI, seat: int, width: int, small: bool = False) -> list[Line]:
    """A titled window: its owner, pattern and favour tokens, then the grid with the marks of
    what you are doing (your window) or of what changed since your last turn."""
    model = ui.model
    view = ui.view
    assert view is not None
    data = view["seats"][seat]
    pattern = ui.pattern_of(seat)
    who = "You" if seat == model.you else model.name(seat)
    mark = "▶" if seat == model.turn else " "
    name = pattern.name if pattern else "?"
    tokens = f" ●{data['tokens']}" if view["config"]["players"] > 1 else ""
    marks: dict[int, str] = {i: "*" for i in ui.changed.get(seat, ())}
    ghost = None
    if seat == model.you and ui.mine():
        targets = ui.targets()
        for cell in targets:
            marks[cell] = "+"
        if ui.lifted is not None:
            marks[ui.lifted] = "^"
        hand = ui.hand() if ui.step() != MOVE or ui.lifted is not None else ""
        cursor = ui.at(targets)
        if cursor is not None:
            if hand:
                ghost = (cursor, hand)
            else:
                marks[cursor] = "▸"
    grid_w = max(SMALL_W if small else GRID_W, width)
    style = "class:you" if seat == model.you else ""
    title = f"{mark}{who}: {name}"
    if len(title) + len(tokens) <= grid_w:
        heads = [[(style, title), ("", tokens)]]
    else:  # the owner and tokens on a line, the pattern's name whole under it
        heads = [[(style, f"{mark}{who}"[:grid_w - len(tokens)]), ("", tokens)]]
        heads += [[(style, text)] for text in textwrap.wrap(name, grid_w - 1,
                                                            initial_indent=" ",
                                                            subsequent_indent=" ")]
    rows = window_rows(data["window"], pattern, marks=marks, ghost=ghost, small=small)
    return [*(fit(h, width) for h in heads), *(fit(r, width) for r in rows)]


def snake_line(ui: SagradaUI, width: int) -> Line:
    """``Round 3/10  ann bo [bo] ann``: the round's snake of turns, the one now in brackets
    (a seat that skips its second turn struck out with ``-``)."""
    model = ui.model
    view = ui.view
    assert view is not None
    players = view["config"]["players"]
    skipping = set(view["skipping"])
    for named in (10, 7, 0):  # whole names if they fit, else shorter, else seat numbers
        line: Line = [("class:title", f"Round {min(view['round'] + 1, ROUNDS)}/{ROUNDS}"),
                      ("", " ")]
        for i, seat in enumerate(view["order"]):
            now = i == view["turn_index"] and view["phase"] == "play"
            skipped = i >= players and seat in skipping
            name = "you" if seat == model.you else model.name(seat, named) if named else \
                str(seat + 1)
            if now:
                line.append(("class:turn", f" [{name}]"))
            else:
                style = "class:dim" if i < view["turn_index"] or skipped else ""
                line.append((style, f" -{name}-" if skipped else f" {name}"))
        if sum(len(text) for _, text in line) <= width:
            break
    return fit(merge(line), width)


def track_lines(ui: SagradaUI, width: int) -> list[Line]:
    """The round track: each round's leftover dice (Lens Cutter: the one to swap marked)."""
    view = ui.view
    assert view is not None
    swaps = ui.swaps()
    chosen = swaps[ui.swap_at % len(swaps)] if swaps else None
    line: Line = [("class:title", "Track"), ("", " ")]
    lines: list[Line] = []
    used = 6
    for r, dice in enumerate(view["track"][: view["round"]]):
        part: Line = [("class:dim", f"{r + 1}:")]
        for i, die in enumerate(dice):
            here = chosen is not None and chosen.number == r and chosen.die == i
            if i:
                part.append(("", " "))
            part.append((f"class:die.{die[0].lower()}" + (" class:cursor" if here else ""), die))
            if here:
                part.append(("class:legal", "◂"))
        if not dice:
            part.append(("class:dim", "--"))
        size = sum(len(t) for _, t in part) + 1
        if used + size > width and used > 6:
            lines.append(line)
            line, used = [("", "      ")], 6
        line.extend(part)
        line.append(("", "  "))
        used += size + 1
    if not view["track"][: view["round"]] or not any(view["track"]):
        line.append(("class:dim", "empty"))
    lines.append(line)
    return [fit(merge(x), width) for x in lines]


def tool_lines(ui: SagradaUI, width: int, wrap: bool = True) -> list[Line]:
    """The tools in play with their key, number, name, cost now and what each does (under it
    when the line is too narrow; left out, ``wrap=False``, where rows are short: the help's
    second page has them all)."""
    view = ui.view
    assert view is not None
    solo = view["config"]["players"] == 1
    usable = set(ui._tool_slots())
    lines: list[Line] = [[("class:title", "Tools"), ("class:dim", "  key · number · cost now")]]
    names = max((len(TOOLS[t["tool"]].name) for t in view["tools"]), default=0)
    costs = []
    for t in view["tools"]:
        if solo:
            costs.append("used" if t["cost"] is None else f"pay a {t['cost']} die")
        else:
            costs.append(plural(t["cost"], "token"))
    cost_w = max(map(len, costs), default=0) + 1
    for slot, t in enumerate(view["tools"]):
        tool = TOOLS[t["tool"]]
        style = "class:legal" if slot in usable else ""
        line: Line = [(style, f" {TOOL_KEYS[slot]}"), ("", f" {tool.number:>2} "),
                      ("", f"{tool.name:<{names}}"),
                      ("class:dim", f" {costs[slot]:<{cost_w}}")]
        short = f" {TOOL_SHORT[tool.number]}"
        if sum(len(t) for _, t in line) + len(short) <= width:
            lines.append([*line, ("", short)])
        elif wrap:  # what it does goes under it
            lines += [line, [("", "     " + short)]]
        else:
            lines.append(line)
    return [fit(line, width) for line in lines]


def objective_lines(ui: SagradaUI, width: int) -> list[Line]:
    """The public objectives, then your private one with what it scores now."""
    view = ui.view
    assert view is not None
    lines: list[Line] = [[("class:title", "Objectives")]]
    for n in view["objectives"]:
        o = OBJECTIVES[n]
        lines.append([("", f" {o.name}: {o.points}"), ("class:dim", f" {OBJECTIVE_SHORT[n]}")])
    private = ui.model.private
    colours = (private or {}).get("objectives") or (
        view.get("privates", [None] * 4)[ui.model.you] if ui.model.you is not None
        and "privates" in view else None)
    if colours:
        you = ui.model.you
        window = view["seats"][you]["window"] if you is not None else []
        parts: Line = [("", " Private:")]
        for c in colours:
            shades = sum(int(d[1]) for d in window if d and d[0] == c)
            parts += [("", " "), (f"class:want.{c.lower()}", COLOUR_NAMES[COLOURS.index(c)])]
            if view["phase"] != "choose":
                parts.append(("class:dim", f" shades {shades}"))
        lines.append(parts)
    elif ui.model.you is not None:
        lines.append([("class:dim", " Private: not known yet")])
    return [fit(line, width) for line in lines]


def scores_lines(ui: SagradaUI, width: int) -> list[Line]:
    """Each seat: dice placed, favour tokens (not in solo), score now by one rule for every
    row, yours too: public objectives, tokens, empty cells; private objectives are secret, so
    they count at the end only (as in the host's view, a spectator's and a replay's), where
    the rows are the final scores and say so."""
    model = ui.model
    view = ui.view
    assert view is not None
    solo = view["config"]["players"] == 1
    tokens_head = "" if solo else " ●"
    if view.get("result"):  # the final scores: private objectives counted
        lines = [[("class:title", "Final score"), ("class:dim", f"  dice{tokens_head}  pts")]]
    else:
        head: Line = [("class:title", "Score now"), ("class:dim", f"  dice{tokens_head}  pts")]
        label = ", " + PRIVATE_OUT
        lines = [[*head, ("class:dim", label)]] if len(line_text(head) + label) <= width else [
            head, [("class:dim", f"  ({PRIVATE_OUT})")]]
    for seat, data in enumerate(view["seats"]):
        dice = sum(1 for d in data["window"] if d)
        mark = "▶" if seat == model.turn else " "
        style = "class:you" if seat == model.you else ""
        tokens = "" if solo else f" {data['tokens']:>2}"
        lines.append([(style, f"{mark}{seat + 1} {pad(model.name(seat, 8), 8)} {dice:>4}{tokens} "
                              f"{view['scores'][seat]:>4}")])
    if solo:
        target = sum(int(d[1]) for dice in view["track"] for d in dice)
        so_far, whose = f" target so far {target:>3}", " (the track)"
        if len(so_far + whose) <= width:
            lines.append([("", so_far), ("class:dim", whose)])
        else:  # under the window at 80 columns: the words on a line of their own
            lines += [[("", so_far)], [("class:dim", "  " + whose.strip())]]
    return [fit(line, width) for line in lines]


def dice_keys(view: Data | None) -> str:
    """The number keys that pick a pool die now: ``1-5`` (``1`` for one die)."""
    dice = len(view["pool"]) if view else 0
    return "1" if dice == 1 else f"1-{dice}"


#: A cell as a refusal names it for bots and people both (``[1, 3] (2,4)``, see cell_words).
_WIRE_CELL = re.compile(r"\[\d+, \d+\] \((\d+,\d+)\)")


def for_people(message: str) -> str:
    """A refusal's message as the console shows it: its cells as people count them only
    (``2,4``), without the wire's form from 0 beside them."""
    return in_text(_WIRE_CELL.sub(r"\1", message))


def play_columns(ui: SagradaUI, width: int, height: int) -> list[tuple[int, list[Line]]]:
    """The play screen's columns as (width, lines), not yet padded: your window (or the one Tab
    shows) on the left; round, pool, track, tools, objectives and scores on the right (the
    scores under the window when the right is too short); on a wide screen the others'
    windows beside them."""
    model = ui.model
    view = ui.view
    assert view is not None
    you = model.you if model.you is not None else model.shown
    main = model.shown if model.shown != you or model.you is None else you
    small = height < GRID_H + 1  # (body_height's answer keeps the layout it measured)
    left_w = (SMALL_W if small else GRID_W) + 1
    left = window_block(ui, main, left_w, small)
    if main != you:
        left.append(fit([("class:dim", "(Tab: next window)")], left_w))
    right_w = width - left_w - 1
    others = [s for s in range(len(view["seats"])) if s != main]
    # The others' windows stand beside the panel when it keeps PANEL_W columns; each takes
    # its width and a column between.
    other_cols = min(len(others), max(0, (width - left_w - 1 - PANEL_W) // (GRID_W + 2)))
    right_w -= other_cols * (GRID_W + 2)
    right: list[Line] = [snake_line(ui, right_w)]
    right.append(fit(merge([("class:title", "Pool"), ("", " "),
                            *dice_line(view["pool"], True, ui.picked)]), right_w))
    held = ui.held_die()
    if held and view["step"]:
        tool = TOOLS[view["step"]["tool"]].name if view["step"]["tool"] else "drafted"
        # A tool the host rolled or drew for is paid already; only a plan's tool is not.
        tool += ", not yet paid" if any(a.kind == "tool" for a in ui.plan) else ""
        if view["step"]["kind"] == VALUE_STEP and view["step"]["tool"] == 11:
            held = held[0] + "?"  # drawn, its value not yet chosen
        right.append(fit([("class:title", "Hand"), ("", " "),
                          (f"class:die.{held[0].lower()}", held),
                          ("class:dim", f"  ({tool})")], right_w))
    right += track_lines(ui, right_w)
    objectives = objective_lines(ui, right_w)
    tools = tool_lines(ui, right_w)
    if len(right) + len(tools) + len(objectives) > height:  # short rows: effects on ? pages
        tools = tool_lines(ui, right_w, wrap=False)
        if len(right) + len(tools) + len(objectives) < height:
            tools.append(fit([("class:dim", "     (? then Space: what each tool does)")], right_w))
    right += tools + objectives
    scores = scores_lines(ui, right_w)
    if len(right) + len(scores) <= height:
        right += scores
    else:  # a short screen: the scores go under the window
        scores = scores_lines(ui, left_w)
        if len(left) + len(scores) > height and PRIVATE_OUT in line_text(scores[1]):
            del scores[1]  # the label's own line, rather than a seat's row
        left += scores
    columns = [(left_w, left), (right_w, right)]
    if other_cols:
        per_col = max(1, min(height // (GRID_H + 1), -(-len(others) // other_cols)))
        for col in range(other_cols):
            block: list[Line] = []
            for seat in others[col * per_col : (col + 1) * per_col]:
                block += window_block(ui, seat, GRID_W + 1)
            columns.append((GRID_W + 1, block))
    return columns


#: The score now's label: what it leaves out.
PRIVATE_OUT = "private not counted"
#: The panel's width that the others' windows leave it at least.
PANEL_W = 56


def play_body(ui: SagradaUI, width: int, height: int) -> list[Line]:
    columns = [(w, box(lines, w, height)) for w, lines in play_columns(ui, width, height)]
    out = []
    for i in range(height):
        line: Line = []
        for j, (_, col) in enumerate(columns):
            if j:
                line.append(("class:dim", "│" if j == 1 else " "))
            line.extend(col[i])
        out.append(fit(line, width))
    return out


def choose_body(ui: SagradaUI, width: int, height: int) -> list[Line]:
    """The four patterns you were dealt side by side (the cursor on one), each name whole
    (wrapped when long); who is choosing now, and your choice if made before your turn."""
    model = ui.model
    view = ui.view
    assert view is not None
    private = model.private or {}
    dealt = private.get("patterns") or []
    patterns = ui.patterns()
    solo = view["config"]["players"] == 1
    lines: list[Line] = []
    waiting = [model.name(s) for s, d in enumerate(view["seats"]) if not d["chosen"]]
    whose = ui.choosing()
    if model.you is not None and private.get("pattern") is not None:
        chosen = patterns[private["pattern"]]
        tokens = "" if solo else f" ({chosen.difficulty} tokens)"
        lines.append([("class:title", f"You chose {chosen.name}{tokens}."),
                      ("", f"  Waiting for {', '.join(waiting)}.")])
    elif model.my_turn and not dealt:
        lines.append([("class:title", "Choose your window pattern"),
                      ("", " (1-4, Enter): this console has not been told your four yet")])
    elif model.status == "open" and not dealt:
        # Nobody chooses before every seat is taken: "(waiting for ann, seat 2, seat 3)" named
        # the seated as if they held the game up.
        taken = sum(1 for seat in model.seats if seat.get("taken"))
        lines.append([("class:title", "Waiting for players to join"),
                      ("", f"  ({taken} of {len(model.seats)} seated; then each chooses a "
                           "window pattern)")])
    elif model.you is None or not dealt:
        lines.append([("class:title", "The players choose their window patterns"),
                      ("", f"  (waiting for {', '.join(waiting)})")])
    elif model.status != "running":  # seats still open: nobody is choosing yet
        lines.append([("class:title", "Your window patterns"),
                      ("", "  (you choose once every seat is taken)")])
    elif ui.chosen_ahead is not None:
        lines.append([("class:title", f"Your choice: {ui.chosen_ahead + 1}"),
                      ("", f"  {whose} is choosing; yours goes to the host next")])
    elif model.my_turn:
        lines.append([("class:title", "Choose your window pattern"),
                      ("class:dim", "" if solo else "  (● its favour tokens)")])
    else:
        lines.append([("class:title", "Choose your window pattern now"),
                      ("", f"  ({whose} is choosing; the host takes yours next)")])
    if dealt:
        small = width < 4 * (GRID_W + 2)
        cell_w = (SMALL_W if small else GRID_W) + 2
        mine = ui.can_choose()
        blocks = []
        for slot, index in enumerate(dealt):
            p = patterns[index]
            here = mine and slot == (ui.chosen_ahead if ui.chosen_ahead is not None
                                     else ui.candidate)
            tokens = "" if solo else f" ●{p.difficulty}"
            words = textwrap.wrap(f"{slot + 1} {p.name}{tokens}", cell_w - 2) or [""]
            head = [fit([("class:chosen" if here else "class:title",
                          f"{'▸' if here and not i else ' '}{text}")], cell_w)
                    for i, text in enumerate(words)]
            blocks.append((head, [fit(r, cell_w) for r in window_rows([""] * CELLS, p,
                                                                       small=small)]))
        per_row = max(1, min(len(blocks), width // cell_w))  # narrower than 80: two rows
        for first in range(0, len(blocks), per_row):
            row = blocks[first : first + per_row]
            heads = max(len(head) for head, _ in row)
            for head, _ in row:
                head += [[("", " " * cell_w)]] * (heads - len(head))
            for r in range(heads):
                lines.append(merge([frag for head, _ in row for frag in head[r]]))
            for r in range(len(row[0][1])):
                lines.append(merge([frag for _, grid in row for frag in grid[r]]))
    lines.append([])
    lines += objective_lines(ui, width)
    lines += tool_lines(ui, width)
    if len(lines) > height:  # short rows: no blank lines, so that every tool shows
        lines = [line for line in lines if line_text(line).strip()]
    return box(lines, width, height)


def tie_words(ranking: list[int], sheets: list[Data], name: Callable[[int], str]) -> str:
    """Why the winner is ahead of the players with as many points (the rules' ties), or
    ``""``: without it the screen shows equal scores and a winner. With three or more tied,
    each place of the tie is said, the seats named by ``name``."""
    if len(ranking) < 2 or len(sheets) <= max(ranking):
        return ""
    total = sheets[ranking[0]]["total"]
    tied = [seat for seat in ranking if sheets[seat]["total"] == total]
    if len(tied) < 2:
        return ""
    words_of = {"private": "private objective points", "tokens": "favour tokens left"}

    def why(ahead: Data, behind: Data) -> tuple[str, str]:
        for key in TIE_BREAKS:
            if ahead[key] != behind[key]:
                return words_of[key], f"{ahead[key]} to {behind[key]}"
        return "", "a later first turn in round 10"

    if len(tied) == 2:
        words, figures = why(sheets[tied[0]], sheets[tied[1]])
        if not words:
            return f"Tied on {total} points, private and tokens: later first turn in round 10."
        return f"Tied on {total} points: more {words}, {figures}."
    places = []
    for ahead, behind in itertools.pairwise(tied):
        words, figures = why(sheets[ahead], sheets[behind])
        places.append(f"{name(ahead)} before {name(behind)} "
                      + (f"on {words}, {figures}" if words else f"by {figures}"))
    return f"Tied on {total} points: {'; '.join(places)}."


def final_lines(ui: SagradaUI, width: int, height: int) -> list[Line]:
    """The ranking with each score's parts; solo: the target and whether it was beaten."""
    model = ui.model
    view = ui.view
    assert view is not None
    result = view.get("result") or {"scores": view["scores"],
                                    "ranking": list(range(len(view["seats"])))}
    sheets = result.get("sheets") or []
    lines: list[Line] = [[("class:title", "Game over")], []]
    if "target" in result:
        verdict = "beaten" if result.get("won") else "missed"
        lines.append([("", f"Target {result['target']} (the round track's values): "
                           f"{verdict} with {result['scores'][0]}")])
    # Each public objective's column is headed by its name in words, wrapped over lines.
    names = [textwrap.wrap(OBJECTIVES[n].name, OBJECTIVE_W) for n in view["objectives"]]
    depth = max((len(n) for n in names), default=1)
    solo = "target" in result  # solo has no favour tokens: no column for them
    for row in range(depth):
        words = [n[row - depth + len(n)] if row >= depth - len(n) else "" for n in names]
        last = row == depth - 1
        head = (" #  player      " if last else " " * 16) + " ".join(
            f"{w:>{OBJECTIVE_W}}" for w in words) + (
            f"  private{'' if solo else ' tokens'}  empty  score" if last else "")
        lines.append([("class:dim", head.rstrip())])
    for rank, seat in enumerate(result["ranking"]):
        style = "class:you" if seat == model.you else ""
        sheet = sheets[seat] if seat < len(sheets) else None
        if sheet is None:
            text = f" {rank + 1}  {pad(model.name(seat), 10)}  {result['scores'][seat]:>5}"
        else:
            parts = " ".join(f"{p:>{OBJECTIVE_W}}" for p in sheet["objectives"])
            penalty = 3 if solo else 1
            tokens = "" if solo else f" {sheet['tokens']:>6}"
            text = (f" {rank + 1}  {pad(model.name(seat), 10)}  {parts}  {sheet['private']:>7}"
                    f"{tokens}  {-penalty * sheet['empty']:>5}  {sheet['total']:>5}")
        lines.append([(style, text)])
    if "privates" in view:
        privates = ", ".join(f"{model.name(s)} " + "/".join(COLOUR_NAMES[COLOURS.index(c)]
                             for c in own) for s, own in enumerate(view["privates"]))
        # Wrapped: four names of ten characters took it past 80 columns, the last colour cut.
        lines += [[("class:dim", row)]
                  for row in wrap(f"Private objectives: {privates}", width, "  ")]
    lines.append([])
    if "target" not in result and result["ranking"]:
        winner = result["ranking"][0]
        who = "You win!" if winner == model.you else f"{model.sentence_name(winner)} wins."
        lines.append([("class:message", who)])
        tie = tie_words(result["ranking"], sheets, model.sentence_name)
        lines += [[("", row)] for row in wrap(tie, width)] if tie else []
    # No key hint of its own: the console's hint line has "Tab look at the windows", and
    # `replay --print` shows this box where no key does anything.
    return box(lines, width, height)


# -- help ---------------------------------------------------------------------------------------

COMMANDS_PAGE = """\
Commands (dice and cells counted from 1: cell row,column; Tab completes)
 draft 3 at 2,4   draft pool die 3 and place it at row 2, column 4
 draft 3          pick it, then move it with the arrows (Enter places)
 tool 7           use tool card 7 (solo: tool 7 pay 2 pays with pool die 2)
 place 2,3        place the die a tool holds  value 4   its value (tools 1, 11)
 move 1,1 to 2,3  a moving tool's move        swap 4.2  Lens Cutter: round.die
 choose 2   pass   stop   return   show 2   help   rules   quit
Window: R3 a die (colour letter and value); r a cell that wants red; 4 one that
wants a 4; · no restriction. + a cell open to the die in hand, ▸ the cursor,
* new since your last turn, ^ the die being moved. Colours: R red, Y yellow,
G green, B blue, P purple. The message line previews a placement's score now.
A tool's steps are chosen first: nothing is sent or paid until its last step,
and u or Esc takes back any step before that. Flux Brush, Glazing Hammer and
Flux Remover wait for Enter: the host rolls, which cannot be taken back."""

RULES_PAGE = """\
Rules in short; the full rules, with our rulings, as installed:
 {rules}
10 rounds, each a snake of turns (1 2 3 3 2 1). On a turn draft a die from the
 pool and place it, and/or use one tool (favour tokens: 1, then 2 once used);
 or pass. Dice left at a round's end go to the round track.
Placing: the first die on an edge; later dice next to a die (diagonal counts);
 match the cell's colour or value; never beside (orthogonally) a die of the
 same colour or value.
Score: public objectives, your private colour (the sum of its values), 1 per
 favour token left, -1 per empty cell. Ties: private, tokens, then whoever
 took their first turn of round 10 latest.
Solo: two turns a round; a tool is used once, paid with a pool die of its
 colour (the die leaves the game); two private colours, the better counts;
 -3 per empty cell; win by beating the round track's total (a tie loses)."""
