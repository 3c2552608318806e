"""Hands in the console: your hand numbered, the table's cards, and keys to play or give.

What a new game's UI needs of the shell is :class:`sagani_net.gameui.GameUI`: the local
engine state (``state()``), the game-over page and typed commands come from it as they are.
"""

from __future__ import annotations

from sagani_net.games import rules_file
from sagani_net.gameui import GameUI, Key, Line, box
from toy_game.rules import Action, State

Data = dict[str, object]
#: The most cards a hand can hold (3 dealt, one given, all 16 in the end game of two).
MAX_KEYS = 9


class HandsUI(GameUI[State]):
    """Your hand (1-9 plays that card, g first gives it), the cards played, the pile."""

    board = "hand"

    def __init__(self, game: object, model: object) -> None:
        super().__init__(game, model)  # type: ignore[arg-type]
        #: g was pressed: the next number gives that card instead of playing it.
        self.giving = False

    def hand(self) -> list[int]:
        private = self.model.private
        return list(private["hand"]) if private else []

    # -- the screen -------------------------------------------------------------------------

    def body(self, width: int, height: int) -> list[Line]:
        view = self.model.view
        if view is None:
            return box([], width, height)
        lines: list[Line] = []
        for seat in range(view["players"]):
            mark = ">" if view["turn"] == seat else " "
            lines.append([("", f"{mark} {self.model.name(seat):<10.10} {view['scores'][seat]:>3} "
                               f"points  {view['hand_sizes'][seat]} cards  "
                               f"{view['gives_left'][seat]} give")])
        lines.append([])
        played = " ".join(str(card) for _, card in view["played"]) or "none yet"
        lines.append([("", f"played: {played}")])
        lines.append([("", f"pile: {view['pile']} cards")])
        lines.append([])
        hand = "  ".join(f"{n}:{card}" for n, card in enumerate(self.hand(), 1))
        lines.append([("class:title", "your hand  "), ("", hand or "empty")])
        return box(lines, width, height)

    def turn_note(self) -> str:
        return "give" if self.giving else ""

    def hints(self) -> str:
        return "1-9 play  g give  Tab boards  : command  ? help  q quit"

    def help_pages(self) -> list[list[str]]:
        return [rules_file(self.game.name).read_text().splitlines()]

    # -- input ------------------------------------------------------------------------------

    def key_bindings(self) -> list[Key]:
        keys = [Key((str(n),), "play that card of your hand (after g: give it)" if n == 1
                    else "", lambda n=n: self.number(n), label="1-9")
                for n in range(1, MAX_KEYS + 1)]
        keys.append(Key(("g",), "give the next card you choose to the next seat", self.give))
        return keys

    def number(self, n: int) -> list[Data]:
        hand, state = self.hand(), self.state()
        if not self.model.my_turn or state is None or not 0 < n <= len(hand):
            return []
        action = Action("give" if self.giving else "play", hand[n - 1])
        if action not in state.legal_actions():
            self.model.say(f"you cannot {action} now", refusal=True)
            return []
        self.giving = False
        return [action.to_dict()]

    def give(self) -> list[Data]:
        self.giving = self.model.my_turn
        return []

    def cancel(self) -> bool:
        was, self.giving = self.giving, False
        return was

    def step_state(self) -> bool:
        return self.giving

    def restore(self, state: object) -> None:
        self.giving = bool(state)

    def updated(self, events: list[dict[str, object]]) -> None:
        if not self.model.my_turn:
            self.giving = False


UI = HandsUI
