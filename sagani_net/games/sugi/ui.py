"""Sugi's part of the console: the forest, the timeline, your hand and family tree, and the keys
and typed commands for every move (:class:`SugiUI`).

The board stands with the Temple at the top, so that an arrow ``↑`` (north) points the way the
samurai want to go. Lanes a, b, c run left to right; columns 0 (Start) to 5 (Temple) bottom to
top; a space is ``b3``. A face-up forest tile is a box whose blocked sides are walls (``━``,
``┃``) and whose open sides are gaps; a face-down tile is a back (``░``). Samurai are letters in
their colours (``Y`` yellow, ``R`` red, ``P`` purple, ``K`` black, ``B`` blue), the ghost ``G``;
the letters alone keep the screen readable without colour (``NO_COLOR``).

A card is its arrows as they act, in reading order: ``Y↑R→`` moves yellow north, then red east.
The card in hand shows, lowercase on the board, where its arrows would take the samurai if it
were resolved now (``?``: a face-down tile decides).

Typed commands are the game's own text forms, cards by their number::

    timeline 17 rot 90          action 17 rotate b3 90      action 17 rotate t2 180
    action 17 free 23 t2 rot 90 action 17 ghost b2          action 17 remove t3
    push E                      discard 17 23               discard

>>> "".join(text for _, text in card_fragments(21, 0))
'Y↑Y→'
>>> "".join(text for _, text in card_fragments(21, 180))
'Y←Y↓'
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from sagani_net.game import Data, RuleError
from sagani_net.games import rules_file
from sagani_net.games.sugi.about import LATEST_EDITION
from sagani_net.games.sugi.edition import COLOURS, DIRECTIONS, LANES, TURNS, space_name
from sagani_net.games.sugi.rules import (
    ARRIVED,
    COMPONENTS,
    FOREST,
    MAINTENANCE,
    NEIGHBOUR,
    ON_TEMPLE,
    PLAN,
    PUSH,
    ROTATE_BY,
    ROUND_CAP,
    TEMPLE_SPACES,
    Action,
    S,
    State,
)
from sagani_net.games.sugi.rules import SUGI as GAME
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
)

Fragment = tuple[str, str]

LETTER = {"yellow": "Y", "red": "R", "purple": "P", "black": "K", "blue": "B"}
ARROW = "↑→↓←"  # indexed like DIRECTIONS (N E S W)
GHOST = "G"
TILE_W, INSIDE_W = 9, 7
#: The board's width: a gutter of column numbers, then three lanes of tiles a space apart.
BOARD_W = 2 + 3 * (TILE_W + 1)
FOREST_COLUMNS = (4, 3, 2, 1)  # top to bottom

STYLES = {
    "samurai.yellow": "fg:ansiyellow bold",
    "samurai.red": "fg:ansired bold",
    "samurai.purple": "fg:ansimagenta bold",
    "samurai.black": "bg:#bcbcbc fg:#000000 bold",
    "samurai.blue": "fg:ansiblue bold",
    "ghost": "reverse bold",
    "wall": "fg:#d7875f bold",
    "back": "fg:ansibrightblack",
    "corner": "fg:ansibrightblack",
    "cursor": "fg:ansiyellow bold",
    "legal": "fg:ansiyellow",
    "preview": "underline bold",
    "chosen": "reverse",
}


def samurai_fragment(colour: str, preview: bool = False) -> Fragment:
    """A samurai's letter in its colour; lowercase where a preview would take it."""
    letter = LETTER[colour].lower() if preview else LETTER[colour]
    return (f"class:samurai.{colour}" + (" class:preview" if preview else ""), letter)


def card_fragments(card: int, rotation: int) -> list[Fragment]:
    """A card's arrows as they act when it lies turned by ``rotation``, in reading order."""
    steps = COMPONENTS.steps[card * 4 + rotation // 90]
    return [(f"class:samurai.{COLOURS[c]}", LETTER[COLOURS[c]] + ARROW[d]) for c, d in steps]


def card_text(card: int, rotation: int = 0) -> str:
    return "".join(text for _, text in card_fragments(card, rotation))


def sides_of(tile: int, rotation: int) -> int:
    """The open sides (bit d: direction d) of a face-up tile turned by ``rotation``."""
    return COMPONENTS.sides[tile * 4 + rotation // 90 % 4]


# -- what a card would do ----------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One arrow of a previewed card: the samurai, where it stands, where it ends, and why it
    stays (``""``: it moves; ``"?"``: a face-down tile decides)."""

    colour: str
    start: int
    end: int
    why: str


def walk(state: State, card: int, rotation: int) -> list[Step]:
    """What ``card`` turned by ``rotation`` would do if it were resolved now, as far as the
    face-up tiles tell (S7): each arrow in reading order, from where the last one left off."""
    places = state.samurai[:]
    steps: list[Step] = []
    for colour, d in COMPONENTS.steps[card * 4 + rotation // 90]:
        at = places[colour]
        name = COLOURS[colour]
        if at == ARRIVED:
            steps.append(Step(name, at, at, "on a pedestal"))
            continue
        to = NEIGHBOUR[at][d]
        why = ""
        if to < 0:
            why = "edge"
        elif not state.passable(at, d, to, known=True):
            why = "obstacle"
        elif to == state.ghost or (state.ghost < 0 and to >= TEMPLE_SPACES[0]):
            why = "ghost"
        elif not state.revealed[to]:
            why = "?"
        if why and why != "?":
            steps.append(Step(name, at, at, why))
            continue
        places[colour] = ARRIVED if to >= TEMPLE_SPACES[0] else to
        steps.append(Step(name, at, places[colour], why))
    return steps


def walk_text(steps: list[Step]) -> str:
    """``Y b0→b1, R b1→b2?, P stays (obstacle)`` (``?``: if the face-down tile lets it)."""
    parts = []
    for s in steps:
        letter = LETTER[s.colour]
        if s.end == s.start:
            parts.append(f"{letter} stays ({s.why})")
        else:
            start = space_name(s.start)
            end = "Temple" if s.end == ARRIVED else space_name(s.end)
            parts.append(f"{letter} {start}→{end}{'?' if s.why == '?' else ''}")
    return ", ".join(parts)


def ghost_text(state: State, target: int) -> str:
    """Whom the ghost sent to ``target`` would push, as it meets them (S11), as far as the
    face-up tiles tell: ``pushes red, blue?`` (``?``: if the face-down tiles let it get
    there), and where it would stop, short of ``target``, at one who cannot go aside (S12):
    ``pushes red; blue cannot be pushed: the ghost ends on b2``. Empty: it meets nobody."""
    way = state.ghost_way(target)
    if not way:
        return ""
    back = state.ghost
    d = S if back == ON_TEMPLE else NEIGHBOUR[back].index(way[0])
    sure, pushed, stuck = True, [], ""
    for to in way:
        sure = sure and state.revealed[to]  # a face-down tile may turn up and stop it short
        for colour, at in enumerate(state.samurai):
            if at != to:
                continue
            mark = "" if sure else "?"
            ways = state.push_ways(to, d)
            if not ways:
                end = to if back == ON_TEMPLE else back  # from the Temple it stays (S12)
                stuck = (f"{COLOURS[colour]}{mark} cannot be pushed: the ghost ends on "
                         f"{space_name(end)}")
                break
            pushed.append(COLOURS[colour] + mark)
            # Pushed only into face-down tiles, it may not go, and the ghost then steps back.
            sure = sure and any(state.revealed[NEIGHBOUR[to][w]] for w in ways)
        if stuck:
            break
        back = to
    said = f"pushes {', '.join(pushed)}" if pushed else ""
    return "; ".join(part for part in (said, stuck) if part)


# -- the choice in hand ------------------------------------------------------------------------


@dataclass
class Choice:
    """A hand card chosen and what is being done with it: ``mode`` "card" (to the timeline,
    turned by ``turn``) or the card's action being aimed: "rotate" (a forest ``space``, or the
    timeline ``slot`` when ``on_timeline``, by ``by``), "free" (``place`` at ``slot``, turned by
    ``turn``), "ghost" (to ``space``), "remove" (``slot``)."""

    card: int
    mode: str = "card"
    turn: int = 0
    space: int = -1
    slot: int = -1
    by: int = 90
    place: int = -1
    on_timeline: bool = False

    def action(self) -> Action:
        if self.mode == "card":
            return Action.timeline(self.card, self.turn)
        if self.mode == "rotate":
            if self.on_timeline:
                return Action("rotate", self.card, slot=self.slot, turn=self.by)
            return Action("rotate", self.card, space=self.space, turn=self.by)
        if self.mode == "free":
            return Action("free", self.card, self.place, slot=self.slot, turn=self.turn)
        if self.mode == "ghost":
            return Action("ghost", self.card, space=self.space)
        return Action("remove", self.card, slot=self.slot)


# -- help ----------------------------------------------------------------------------------------

COMMANDS_PAGE = """\
Commands (cards by their number; t1 is the timeline's left end; Tab completes)
 timeline 17 rot 90            put card 17 face down at the timeline's end
 action 17 rotate b3 90        discard 17: turn the tile on b3 90° clockwise
 action 17 rotate t2 180       ... or turn timeline card t2
 action 17 free 23 t2 rot 90   discard 17: put 23 at t2, turned 90; draw one
 action 17 ghost b2            discard 17: the ghost goes to b2
 action 17 remove t3           discard 17: t3 to the bottom of the deck
 push E                        push the samurai the ghost reached (N E S W)
 discard 17 23   discard       maintenance: discard those (or none), draw to 4
 show 2   help   rules   quit

Players: ▶ whose turn, * who plays first this round; (3): cards in hand.
Board: Temple at the top, Start (column 0) at the bottom, lanes a b c.
 ━ ┃ a blocked side   gap: open   ░ a face-down tile   G the ghost
 Y yellow  R red  P purple  K black  B blue; lowercase: where the card in
 hand would take them (? if a face-down tile lets it). Cards read Y↑R→: yellow
 north, then red east, as they act turned the way they lie."""

RULES_PAGE = """\
Rules in short
Goal: your secret family tree names 3 samurai (7, 5, 3 points). Points for
 each of them on a pedestal when the 3rd samurai reaches the Temple.
Planning: in turn, put a card face down at the timeline's right end (turned as
 you like), or discard it for its action: rotate a tile or a timeline card;
 free (place another card anywhere in the timeline, then draw); ghost (in a
 line: it pushes aside every samurai on its way, and stops a space back at one
 who cannot go); remove (a timeline card to the bottom of the deck).
The timeline holds 5 cards (6 with 4-5 players); whoever places the last one
 resolves it: cards turn face up left to right, each arrow moves its samurai
 one space unless an obstacle, the edge or the ghost stops it. Entering a
 face-down tile turns it up. The ghost on the Temple keeps everyone out.
{call}Maintenance: discard any, draw up to 4. Ties: best scoring samurai home first.
The full rules, as installed:
 {path}"""

#: The Temple's call and summons (RULES.md S17) as the table's edition plays them: they move
#: samurai that no card moved, so the short rules must say so (edition 1 has neither).
CALL_RULES = {
    2: """\
Our edition 2: with two samurai home, planning ends with the samurai in columns
 0-3 stepping north, as by an arrow (an obstacle or the ghost stops it).
""",
    3: """\
Our edition 3: with two home or from round 20, planning ends with the samurai in
 columns 0-3 stepping north, as by an arrow (an obstacle or the ghost stops it).
""",
    4: """\
Our edition 4: with two home or from round 20, planning ends with the samurai in
 columns 0-3 stepping north, as by an arrow; from round 30 every samurai not
 home steps north, through obstacles, over the ghost, into the Temple.
""",
}
#: The round cap (S14) ends a game of these editions that nobody won; edition 4's summons
#: bring every game home before it, so its page leaves it out.
CAPPED_EDITIONS = (1, 2, 3)
CAP_RULE = (f"Round {ROUND_CAP} ends a game still running there (our safety net), scored as "
            "it stands.\n")


# -- the console part ----------------------------------------------------------------------------


class SugiUI(GameUI[State]):
    """Sugi in the console: the card in hand (turned, aimed, previewed), the marks for
    maintenance, the last resolution, and the screen."""

    styles = STYLES

    def __init__(self, game: Any, model: Any) -> None:
        super().__init__(game, model)
        self.choice: Choice | None = None
        #: Maintenance: the hand cards marked to be discarded.
        self.marked: set[int] = set()
        #: The cards of the last resolution, face up: (slot, card, rotation, owner).
        self.resolved: list[tuple[int, int, int, int]] = []
        self.resolver: int | None = None
        #: How many cards the last resolution had (the game may end before the last ones).
        self.resolving = 0

    # -- questions --------------------------------------------------------------------------

    @property
    def phase(self) -> str:
        return self.view["phase"] if self.view else ""

    @property
    def hand(self) -> list[int]:
        private = self.model.private
        return list(private["hand"]) if private else []

    def known_state(self, view: Data, private: Data | None, you: int | None) -> State | None:
        # Private data can be a step behind the view (it comes in its own round trip, and
        # another's move may shift your timeline slots or draw your card from the deck's
        # bottom): then only your hand and family tree, which change by your own moves.
        tries = [private] if private is None else [private, {
            **private, "timeline": [], "deck_bottom": []}]
        for known in tries:
            try:
                return GAME.determinize(view, known, you, random.Random(0))
            except (RuleError, IndexError, KeyError, TypeError, ValueError):
                continue  # the screen must not fall over data it cannot fit together
        return None

    def playing(self) -> bool:
        return self.model.my_turn and self.model.private is not None

    def own_timeline(self) -> dict[int, tuple[int, int]]:
        """Your face-down timeline cards: slot -> (card, rotation)."""
        private, view = self.model.private, self.view
        if not private or view is None:
            return {}
        owners = view["timeline"]
        # Only where the view agrees (the private data may be a step behind it).
        return {slot: (card, rotation) for slot, card, rotation in private["timeline"]
                if slot < len(owners) and owners[slot] == self.model.you}

    def not_now(self) -> str:
        """Why no move can be sent now."""
        if not self.model.my_turn:
            return self.not_your_turn()
        return "your hand is still on its way from the host: try again"

    def check(self, action: Action) -> list[Data]:
        """``action`` as wire data if the rules allow it now; else say why and send nothing."""
        state = self.state()
        if state is None or not self.playing():
            self.model.say(self.not_now())
            return []
        try:
            state.clone().apply(action)
        except RuleError as exc:
            self.model.say(f"not sent: {in_text(exc.message)}")
            return []
        self.choice = None
        self.marked = set()
        self.model.say("")
        return [action.to_dict()]

    # -- keys -------------------------------------------------------------------------------

    def key_bindings(self) -> list[Key]:
        def planning() -> bool:
            return self.playing() and self.phase == PLAN

        def aiming() -> bool:
            return self.choice is not None and self.choice.mode != "card"

        keys = [
            Key((str(n),), "choose a hand card (free: the one to place; maintenance: mark "
                "it)" if n == 1 else "", partial(self.number, n), label="1-4")
            for n in range(1, 5)
        ]
        keys += [
            Key(("r",), "turn the card in hand clockwise (rotate: by how much; R back)",
                lambda: self.turn(1), when=lambda: self.choice is not None),
            Key(("R",), "", lambda: self.turn(-1), when=lambda: self.choice is not None),
            Key(("a",), "discard the card in hand for its action, then aim it",
                self.aim, when=planning),
            Key(("t",), "the card to the timeline (rotate: aim at timeline or "
                "forest)", self.t_key, when=lambda: self.choice is not None),
            Key(("enter",), "play: card to the timeline, action aimed, or discards "
                "marked", self.enter, label="Enter"),
        ]
        for key, d in (("up", 0), ("right", 1), ("down", 2), ("left", 3)):
            keys.append(Key((key,), "aim (the tile, slot or space) or push that way"
                            if d == 0 else "", partial(self.arrow, d),
                            when=lambda: aiming() or self.phase == PUSH,
                            label="arrows"))
        return keys

    def number(self, n: int) -> list[Data]:
        hand = self.hand
        if not self.playing() or n > len(hand):
            return []
        card = hand[n - 1]
        if self.phase == MAINTENANCE:
            self.marked ^= {card}
        elif self.phase == PLAN:
            choice = self.choice
            if choice is not None and choice.mode == "free" and card != choice.card:
                choice.place = card
            else:
                self.choice = Choice(card)
            self.model.say("")
        return []

    def turn(self, steps: int) -> list[Data]:
        choice = self.choice
        if choice is None:
            return []
        if choice.mode == "rotate":
            choice.by = ROTATE_BY[(ROTATE_BY.index(choice.by) + steps) % 3]
        elif choice.mode in ("card", "free"):
            choice.turn = TURNS[(TURNS.index(choice.turn) + steps) % 4]
        return []

    def aim(self) -> list[Data]:
        """Start aiming the chosen card's action (where to, which slot)."""
        choice, state, view = self.choice, self.state(), self.view
        if choice is None or state is None or view is None:
            self.model.say("choose a card first (1-4)")
            return []
        icon = COMPONENTS.icon[choice.card]
        slots = len(view["timeline"])
        if icon == "ghost":
            targets = state.ghost_targets()
            if not targets:
                self.model.say("the ghost has nowhere to go")
                return []
            choice.space = targets[0]
        elif icon == "remove":
            if not slots:
                self.model.say("the timeline is empty: nothing to remove")
                return []
            choice.slot = slots - 1
        elif icon == "free":
            others = [c for c in self.hand if c != choice.card]
            if not others:
                self.model.say("free needs a second card in your hand")
                return []
            choice.place, choice.slot, choice.turn = others[0], slots, 0
        else:
            choice.space, choice.slot, choice.on_timeline = FOREST[1], max(0, slots - 1), False
        choice.mode = icon
        self.model.say("")
        return []

    def t_key(self) -> list[Data]:
        choice = self.choice
        if choice is None:
            return []
        if choice.mode == "rotate":
            if not self.view or not self.view["timeline"]:
                self.model.say("the timeline is empty")
            else:
                choice.on_timeline = not choice.on_timeline
            return []
        if choice.mode == "card":
            return self.check(choice.action())
        return []

    def enter(self) -> list[Data]:
        # Said why when there is nothing to play: the key did nothing at all, as if dead.
        if not self.playing():
            self.model.say(f"Enter plays a card: {self.not_now()}")
            return []
        if self.phase == MAINTENANCE:
            return self.check(Action("discard", cards=tuple(sorted(self.marked))))
        if self.phase == PUSH:
            self.model.say("the timeline is pushed with the arrows: Enter plays nothing now")
            return []
        if self.choice is None:
            self.model.say("Enter plays the card in hand, and you hold none: choose one first "
                           f"({self.card_keys()})" if self.hand
                           else "Enter plays a card, and you have none")
            return []
        return self.check(self.choice.action())

    def arrow(self, d: int) -> list[Data]:
        state = self.state()
        if state is None:
            return []
        if self.phase == PUSH:
            if self.playing():
                if d not in state.push_options():
                    ways = [DIRECTIONS[o] for o in state.push_options()]
                    self.model.say(f"cannot push {DIRECTIONS[d]}: only {' or '.join(ways)} "
                                   f"{'is' if len(ways) == 1 else 'are'} allowed")
                    return []
                return self.check(Action("push", direction=d))
            return []
        choice = self.choice
        if choice is None:
            return []
        slots = len(state.timeline)
        if choice.mode in ("free", "remove") or (choice.mode == "rotate" and choice.on_timeline):
            if d in (1, 3):
                last = slots if choice.mode == "free" else slots - 1
                choice.slot = min(max(0, choice.slot + (1 if d == 1 else -1)), last)
        elif choice.mode == "rotate":
            column, lane = divmod(choice.space, LANES)
            column = min(4, max(1, column + {0: 1, 2: -1}.get(d, 0)))
            lane = min(2, max(0, lane + {1: 1, 3: -1}.get(d, 0)))
            choice.space = column * LANES + lane
        elif choice.mode == "ghost":
            choice.space = ghost_step(choice.space, d, state.ghost_targets())
        return []

    # -- typed commands ---------------------------------------------------------------------

    def command(self, text: str) -> list[Data]:
        try:
            data = self.game.parse_text(text)
        except RuleError as exc:
            raise CommandError(f"{exc.message}; see help (:help)") from None
        state = self.state()
        if state is None or not self.playing():
            raise CommandError(self.not_now())
        try:
            state.clone().apply(state.parse_action(data))
        except RuleError as exc:
            raise CommandError(f"not sent: {in_text(exc.message)}") from None
        self.choice = None
        self.marked = set()
        return [data]

    def complete(self, text: str) -> list[str]:
        words = text.lower().split()
        partial = "" if text.endswith(" ") or not words else words.pop()
        options = self._next_words(words)
        return [o for o in options if o.startswith(partial)]

    def _next_words(self, words: list[str]) -> list[str]:
        state, hand = self.state(), [str(c) for c in self.hand]
        phase = self.phase
        slots = len(state.timeline) if state is not None else 0
        timeline = [f"t{i + 1}" for i in range(slots)]
        turns = [str(t) for t in TURNS]
        if not words:
            return {PLAN: ["timeline", "action"], PUSH: ["push"],
                    MAINTENANCE: ["discard"]}.get(phase, [])
        verb, n = words[0], len(words)
        if verb == "discard":
            return [c for c in hand if c not in words[1:]]
        if verb == "push":
            return [DIRECTIONS[d] for d in state.push_options()] if n == 1 and state else []
        if verb == "timeline":
            return [hand, ["rot"], turns, []][min(n - 1, 3)]
        if verb != "action":
            return []
        if n == 1:
            return hand
        if not words[1].isdigit() or int(words[1]) >= len(COMPONENTS.icon):
            return []
        icon = COMPONENTS.icon[int(words[1])]
        if n == 2:
            return [icon]
        if icon == "rotate":
            targets = [space_name(s) for s in FOREST] + timeline
            return [targets, [str(b) for b in ROTATE_BY], []][min(n - 3, 2)]
        if icon == "free":
            others = [c for c in hand if c != words[1]]
            slots_free = [f"t{i + 1}" for i in range(slots + 1)]
            return [others, slots_free, ["rot"], turns, []][min(n - 3, 4)]
        if icon == "ghost" and n == 3 and state is not None:
            return [space_name(s) for s in state.ghost_targets()]
        if icon == "remove" and n == 3:
            return timeline
        return []

    def cancel(self) -> bool:
        """Esc: an aimed action goes back to the card; a card goes back to the hand."""
        if self.choice is not None and self.choice.mode != "card":
            self.choice = Choice(self.choice.card, turn=0)
        else:
            self.choice = None
        self.marked = set()
        return False

    def step_state(self) -> tuple[Choice | None, frozenset[int]]:
        """The card in hand as turned and aimed, and the cards marked for maintenance."""
        return (None if self.choice is None else replace(self.choice)), frozenset(self.marked)

    def restore(self, state: tuple[Choice | None, frozenset[int]]) -> None:
        choice, marked = state
        self.choice = None if choice is None else replace(choice)
        self.marked = set(marked)

    # -- updates ----------------------------------------------------------------------------

    def updated(self, events: list[Data]) -> None:
        for event in events:
            if event.get("type") == "resolution":
                self.resolved, self.resolver = [], event.get("seat")
                self.resolving = event.get("cards", 0)
            elif event.get("type") == "card_revealed":
                self.resolved.append((event["slot"], event["card"], event["rotation"],
                                      event["owner"]))
        hand = self.hand
        if not self.playing() or self.phase != PLAN or (
            self.choice is not None and self.choice.card not in hand
        ):
            self.choice = None
        if self.choice is not None and self.choice.mode == "free" and self.choice.place not in hand:
            self.choice = Choice(self.choice.card)
        if not self.playing() or self.phase != MAINTENANCE:
            self.marked = set()
        self.marked &= set(hand)

    # -- words on the shell's lines ---------------------------------------------------------

    def turn_note(self) -> str:
        view = self.view
        if view is None:
            return ""
        if view["phase"] == PUSH and view["push"]:
            return f"push {view['push']['samurai']}"
        return {PLAN: "plan", MAINTENANCE: "discard and draw"}.get(view["phase"], "")

    def note(self) -> str:
        """What the card in hand would do now."""
        choice, state = self.choice, self.state()
        if choice is None or state is None:
            if self.phase == MAINTENANCE and self.playing():
                marked = " ".join(map(str, sorted(self.marked))) or "nothing (keep all)"
                return f"discard {marked}, then draw up to 4"
            view = self.view
            if self.phase == PUSH and self.playing() and view is not None:
                options = " ".join(DIRECTIONS[d] for d in state.push_options()) if state else ""
                return f"push {view['push']['samurai']}: {options}"
            return ""
        action = choice.action()
        if choice.mode in ("card", "free"):
            card = choice.card if choice.mode == "card" else choice.place
            moves = walk_text(walk(state, card, choice.turn))
            return f"{action}: {moves}"
        if choice.mode == "ghost":
            meets = ghost_text(state, choice.space)
            return f"{action}: {meets}" if meets else str(action)
        if choice.mode == "remove":
            owner = state.timeline[choice.slot][2] if choice.slot < len(state.timeline) else None
            name = "your" if owner == self.model.you else f"{self.model.name(owner)}'s" \
                if owner is not None else ""
            whose = f" ({name} card)" if name else ""
            return f"{action}{whose} to the bottom of the deck"
        return f"{action}: {self._rotated(choice, state)}"

    def _rotated(self, choice: Choice, state: State) -> str:
        """What a rotation aimed now would show: a face-up tile's open sides after it."""
        if choice.on_timeline:
            if choice.slot not in self.own_timeline():
                return "a face-down card of another player (only its owner will know)"
            card, rotation = self.own_timeline()[choice.slot]
            return f"your card {card_text(card, rotation)} becomes " \
                f"{card_text(card, (rotation + choice.by) % 360)}"
        space = choice.space
        if not state.revealed[space]:
            return "face down: it stays face down, turned unseen"
        before = state.sides[space]
        after = sides_of(state.tile_at[space], (state.turn[space] * 90 + choice.by) % 360)
        return f"open {open_sides(before)} becomes open {open_sides(after)}"

    def card_keys(self) -> str:
        """The number keys that pick a card now: as many as the hand holds ("1-4")."""
        cards = len(self.hand)
        return "1" if cards == 1 else f"1-{cards}"

    def hints(self) -> str:
        shell = ": command  ? help  q quit"
        if not self.playing():
            return "PgUp log  : command  ? help  q quit"
        if self.phase == PUSH:
            return f"arrows push  {shell}"
        cards = len(self.hand)
        numbers = self.card_keys()
        if self.phase == MAINTENANCE:
            if not cards:
                return f"Enter draw up to 4 (nothing to discard)  {shell}"
            # Fits 80 columns either way: "keep all" only while nothing is marked.
            undo = "  u/Esc undo" if self.marked else " (none: keep all)"
            return f"{numbers} mark  Enter discard the marked{undo}  {shell}"
        choice = self.choice
        if choice is None:
            return f"{numbers} choose a card  {shell}"
        if choice.mode == "card":
            return f"r turn  Enter timeline  a {COMPONENTS.icon[choice.card]}  u/Esc undo  {shell}"
        extra = {"rotate": "arrows aim  t timeline  r by",
                 "free": f"{numbers} card  ←→ slot  r turn", "ghost": "arrows aim",
                 "remove": "←→ slot"}[choice.mode]
        return f"{extra}  Enter play  u/Esc undo  {shell}"

    def help_pages(self) -> list[list[str]]:
        edition = self.view.get("edition", 1) if self.view else LATEST_EDITION
        call = CALL_RULES.get(edition, "") + (CAP_RULE if edition in CAPPED_EDITIONS else "")
        rules = RULES_PAGE.format(call=call, path=rules_file(self.game.name))
        return [COMMANDS_PAGE.splitlines(), rules.splitlines()]

    # -- the screen -------------------------------------------------------------------------

    def body_height(self, width: int, height: int) -> int:
        # The panel's extras only where they leave the log two more rows than it must have.
        panel = self.panel(max(20, width - BOARD_W - 1), height - 2)
        return min(height, max(BOARD_H, len(panel)))

    def body(self, width: int, height: int) -> list[Line]:
        board = board_lines(self)
        panel_w = width - BOARD_W - 1
        if panel_w < 20:
            return box([*board, *self.panel(width, height - len(board))], width, height)
        panel = self.panel(panel_w, height)
        used = max(len(board), len(panel))
        left, right = box(board, BOARD_W, used), box(panel, panel_w, used)
        lines = [[*left[i], ("class:dim", "│"), *right[i]] for i in range(used)]
        return box(lines, width, height)

    def panel(self, width: int, height: int) -> list[Line]:
        """Round and players, the timeline, your hand and family tree; on a tall terminal
        (when they fit in ``height``) the last resolution, what you know of the deck's
        bottom and the newest discards too."""
        view = self.view
        assert view is not None
        lines = [*head_lines(self, width), [], *timeline_lines(self, width), []]
        lines += hand_lines(self)
        more = more_lines(self, width)
        if len(lines) + len(more) <= height:
            lines += more
        return [fit(merge(line), width) for line in lines]

    def final(self, width: int, height: int) -> list[Line]:
        return final_lines(self, width, height)


def open_sides(sides: int) -> str:
    return "".join(d for i, d in enumerate(DIRECTIONS) if sides >> i & 1)


def ghost_step(at: int, d: int, targets: list[int]) -> int:
    """The ghost target an arrow in direction ``d`` goes to (N is up the columns), else
    ``at``."""
    where = divmod(at, LANES) if at >= 0 else (5, 1)
    found = nearest(where, ((1, 0), (0, 1), (-1, 0), (0, -1))[d],
                    (divmod(t, LANES) for t in targets))
    return at if found is None else found[0] * LANES + found[1]


# -- drawing -------------------------------------------------------------------------------------

BOARD_H = 16


def board_lines(ui: SugiUI) -> list[Line]:
    """The pedestals, lane names, the Temple, columns 4 to 1 of the forest, the Start."""
    view = ui.view
    assert view is not None
    state = ui.state()
    choice = ui.choice
    # What goes inside each space: samurai, the ghost, the preview's lowercase letters.
    inside: dict[int, list[Fragment]] = {}
    pushed = view["push"]["samurai"] if view["push"] else None
    for colour, place in zip(COLOURS, view["samurai"], strict=True):
        if place is not None:
            style, letter = samurai_fragment(colour)
            if colour == pushed:
                style += " class:chosen"  # the samurai the ghost's mover pushes now
            inside.setdefault(place[0] * LANES + place[1], []).append((style, letter))
    ghost = view["ghost"]
    if ghost is not None:
        inside.setdefault(ghost[0] * LANES + ghost[1], []).append(("class:ghost", GHOST))
    arriving: list[Fragment] = []
    cursor, legal, unknown = -1, set(), set()
    sides = {c * LANES + lane: sides_of(t, r) for c, lane, t, r in view["forest"] if t is not None}
    if choice is not None and state is not None and ui.playing():
        if choice.mode in ("card", "free"):
            card = choice.card if choice.mode == "card" else choice.place
            ends: dict[str, int] = {}
            for step in walk(state, card, choice.turn):
                if step.end != step.start:
                    ends[step.colour] = step.end  # a samurai's letter where it ends only
                if step.why == "?":
                    unknown.add(step.end)
            for colour, end in ends.items():
                if end == ARRIVED:
                    arriving.append(samurai_fragment(colour, True))
                else:
                    inside.setdefault(end, []).append(samurai_fragment(colour, True))
        elif choice.mode == "ghost":
            cursor, legal = choice.space, set(state.ghost_targets())
            inside.setdefault(cursor, []).append(("class:ghost class:preview", GHOST.lower()))
        elif choice.mode == "rotate" and not choice.on_timeline:
            cursor = choice.space
            if choice.space in sides:
                tile = state.tile_at[choice.space]
                sides[choice.space] = sides_of(tile, (state.turn[choice.space] * 90 + choice.by)
                                               % 360)
    pedestals: Line = [("", "  Pedestals ")]
    for i in range(3):
        pedestals.append(("", f" {i + 1} "))
        placed = view["pedestals"]
        pedestals.append(samurai_fragment(placed[i]) if i < len(placed) else ("class:dim", "·"))
    lanes: Line = [("class:dim", "  " + "".join(f"{n:^{TILE_W}} " for n in "abc"))]
    temple: Line = [("class:dim", "5 ")]
    word = " Temple "
    if ghost is None:
        word = f" Temple {GHOST} "
    width = 3 * TILE_W + 2
    left = (width - len(word) - len(arriving)) // 2
    temple += [("class:wall", "═" * left)]
    if ghost is None:
        temple += [("", " Temple "), ("class:ghost", GHOST), ("", " ")]
    else:
        temple += [("", word)]
    temple += arriving
    temple += [("class:wall", "═" * (width - left - len(word) - len(arriving)))]
    lines: list[Line] = [pedestals, lanes, temple]
    for column in FOREST_COLUMNS:
        rows: list[Line] = [[("class:dim", "  ")], [("class:dim", f"{column} ")],
                            [("class:dim", "  ")]]
        for lane in range(LANES):
            space = column * LANES + lane
            drawn = tile_rows(sides.get(space), inside.get(space, []), cursor=space == cursor,
                              legal=space in legal, unknown=space in unknown)
            for r in range(3):
                rows[r] += [*drawn[r], ("", " ")]
        lines += [merge(r) for r in rows]
    start: Line = [("class:dim", "0 ")]
    for lane in range(LANES):
        space = lane
        mark = "»«" if space == cursor else "[]"
        style = "class:cursor" if space == cursor else "class:corner"
        content = inside.get(space, [])
        if space in legal and not content:
            content = [("class:legal", "·")]
        start += [(style, mark[0]), *centred(content, INSIDE_W), (style, mark[1]), ("", " ")]
    lines.append(merge(start))
    return [fit(line, BOARD_W) for line in lines]


def centred(fragments: list[Fragment], width: int, fill: Fragment = ("", " ")) -> list[Fragment]:
    used = sum(len(t) for _, t in fragments)
    if used > width:
        return fit(fragments, width)
    left = (width - used) // 2
    pad_style, pad = fill
    return [(pad_style, pad * left), *fragments, (pad_style, pad * (width - used - left))]


def tile_rows(sides: int | None, inside: list[Fragment], *, cursor: bool = False,
              legal: bool = False, unknown: bool = False) -> list[Line]:
    """A forest space, 9 x 3: face up, walls on the blocked sides and gaps on the open ones;
    face down, a back. The cursor doubles the corners; a legal target holds a dot."""
    corners = "╔╗╚╝" if cursor else "┌┐└┘"
    corner = "class:cursor" if cursor else "class:corner"
    if legal and not inside:
        inside = [("class:legal", "·")]
    if unknown:
        inside = [*inside, ("class:preview", "?")]
    if sides is None:
        back = ("class:back", "░")
        return [
            [(corner, corners[0]), ("class:back", "░" * INSIDE_W), (corner, corners[1])],
            [back, *centred(inside, INSIDE_W, back), back],
            [(corner, corners[2]), ("class:back", "░" * INSIDE_W), (corner, corners[3])],
        ]

    def side(d: int, text: str) -> Fragment:
        return ("class:wall", text) if not sides >> d & 1 else ("", " " * len(text))

    return [
        [(corner, corners[0]), side(0, "━" * INSIDE_W), (corner, corners[1])],
        [side(3, "┃"), *centred(inside, INSIDE_W), side(1, "┃")],
        [(corner, corners[2]), side(2, "━" * INSIDE_W), (corner, corners[3])],
    ]


def head_lines(ui: SugiUI, width: int) -> list[Line]:
    """Round and phase, then the players: hand sizes, the first player, whose turn."""
    view = ui.view
    model = ui.model
    assert view is not None
    phase = {PLAN: "planning", PUSH: "the ghost pushes", MAINTENANCE: "maintenance",
             "over": "over"}.get(view["phase"], view["phase"])
    lines: list[Line] = [[("class:title", f"Round {view['round']}"), ("", f"  {phase}"),
                          ("class:dim", f"  deck {view['deck']}  discards "
                                        f"{len(view['discard'])}")]]
    line: Line = []
    used = 0
    for seat in range(view["players"]):
        mark = "▶" if seat == model.turn else ("*" if seat == view["round_start"] else " ")
        style = "class:you" if seat == model.you else ""
        # The hand size in brackets: a name may end in a number of its own ("greedy 2").
        text = f"{mark}{model.name(seat)} ({view['hands'][seat]})  "
        if used + len(text) > width and line:
            lines.append(line)
            line, used = [], 0
        line.append((style, text))
        used += len(text)
    legend = "(* first this round)"  # help tells the rest (▶, the hand sizes)
    starred = view["round_start"] != model.turn
    if starred and used + len(legend) <= width:
        line.append(("class:dim", legend))
    lines.append(line)
    if starred and used + len(legend) > width:  # its own line: the * is explained on screen
        lines.append([("class:dim", " " + legend)])
    push = view["push"]
    if push is not None:
        state = ui.state()
        aside = " ".join(DIRECTIONS[d] for d in state.push_options()) if state else ""
        lines.append([("class:message", f"{model.name(view['turn'])} pushes "
                       f"{push['samurai']} aside: {aside}")])
    return lines


def timeline_lines(ui: SugiUI, width: int) -> list[Line]:
    """The timeline as slots t1...: your own cards face up (as they act), others' as backs,
    who placed each; when it is empty, the last resolution face up."""
    view = ui.view
    model = ui.model
    assert view is not None
    owners = list(view["timeline"])
    own = ui.own_timeline()
    cards: list[tuple[int | None, int, int | None]] = [
        (own[i][0], own[i][1], owner) if i in own else (None, 0, owner)
        for i, owner in enumerate(owners)
    ]
    choice = ui.choice if ui.playing() else None
    chosen = -1
    if choice is not None and choice.mode == "free":
        chosen = choice.slot
        cards.insert(choice.slot, (choice.place, choice.turn, model.you))
    elif choice is not None and (choice.mode == "remove" or
                                 (choice.mode == "rotate" and choice.on_timeline)):
        chosen = choice.slot
        if choice.mode == "rotate" and 0 <= chosen < len(cards):
            card, rotation, owner = cards[chosen]
            cards[chosen] = (card, (rotation + choice.by) % 360, owner)
    title = f"Timeline {len(owners)}/{view['limit']}"
    past = not owners and ui.resolved
    unresolved: list[int] = []
    if past:
        title += f"  last resolved by {model.name(ui.resolver or 0)}:"
        cards = [(card, rotation, owner) for _, card, rotation, owner in ui.resolved]
        missing = ui.resolving - len(cards)
        if view["phase"] == "over" and missing > 0 and len(view["discard"]) >= missing:
            # The game ended with these never turned up; they went to the discards as they lay.
            unresolved = view["discard"][-missing:]
            title = f"Timeline: the game ended before t{len(cards) + 1}"
    elif view["last_placer"] is not None:
        title += f"  last card: {model.name(view['last_placer'])}"
    step = 7
    slots = max(view["limit"], len(cards))
    head: Line = [("", "".join(f" t{i + 1}".ljust(step) for i in range(slots)))]
    row: Line = []
    who: Line = []
    for i in range(slots):
        if i - len(cards) in range(len(unresolved)):
            card = unresolved[i - len(cards)]
            row.append(("class:dim", f" #{card}".ljust(step)))
            who.append(("class:dim", " unres.".ljust(step)))
        elif i < len(cards):
            card, rotation, owner = cards[i]
            if card is None:
                face = [("class:back", "░░░░")]
            else:
                face = card_fragments(card, rotation)
                if past:
                    face = [(s + " class:dim", t) for s, t in face]
            left, right = ("[", "]") if i == chosen else (" ", " ")
            used = sum(len(t) for _, t in face)
            row += [("class:cursor", left), *face, ("class:cursor", right),
                    ("", " " * (step - used - 2))]
            name = "you" if owner == model.you else model.name(owner or 0, step - 1)
            who.append(("class:dim", f" {name}".ljust(step)))
        else:
            row.append(("class:dim", " ·".ljust(step)))
    lines = [[("class:title", title)], head, row]
    if who:
        lines.append(who)
    return lines


def more_lines(ui: SugiUI, width: int) -> list[Line]:
    """The last resolution while the timeline fills again, your cards known at the bottom of
    the deck (S9), the newest discards."""
    view = ui.view
    model = ui.model
    assert view is not None
    lines: list[Line] = []
    if view["timeline"] and ui.resolved:
        line: Line = [("class:title", "Last resolved"),
                      ("", f" by {model.name(ui.resolver or 0)}:")]
        lines.append([])
        for slot, card, rotation, _ in ui.resolved:
            piece = [("class:dim", f" t{slot + 1} "), *card_fragments(card, rotation)]
            if len(line_text(line) + line_text(piece)) > width:  # wrapped whole, not cut
                lines.append(line)
                line = [("", " ")]
            line += piece
        lines.append(line)
    bottom = (model.private or {}).get("deck_bottom") or []
    if bottom:
        known = ", ".join(f"{card} ({place + 1}. from the bottom)" for place, card in bottom)
        lines += [[], [("class:title", "Deck bottom"), ("", f" {known}")]]
    if view["discard"]:
        line = [("class:title", "Discards"), ("class:dim", " newest first:")]
        used = 23
        for card in reversed(view["discard"]):
            face = [("", f" {card}:"), *card_fragments(card, 0)]
            used += sum(len(t) for _, t in face)
            if used > width:
                break
            line += face
        lines += [[], line]
    return lines


def hand_lines(ui: SugiUI) -> list[Line]:
    """Your hand, numbered for the keys: each card's arrows upright (or turned as chosen) and
    its action; then your family tree card."""
    model = ui.model
    private = model.private
    if private is None:
        if model.view is not None and model.view.get("result"):  # no longer a secret
            return [[("class:dim", "game over: f shows every family tree")]]
        what = "watching" if model.you is None else "waiting for your hand"
        return [[("class:dim", f"{what}: hands and family trees are secret")]]
    lines: list[Line] = [[("class:title", "Your hand")]]
    choice = ui.choice if ui.playing() else None
    for n, card in enumerate(private["hand"]):
        rotation = 0
        mark = " "
        style = ""
        if choice is not None and card == choice.card:
            mark, style = "▶", "class:chosen"
            rotation = choice.turn if choice.mode == "card" else 0
        elif choice is not None and choice.mode == "free" and card == choice.place:
            mark, rotation = "+", choice.turn
        if card in ui.marked:
            mark = "✗"
        face = card_fragments(card, rotation)
        used = sum(len(t) for _, t in face)
        line: Line = [(style, f"{mark}{n + 1}  {card:>2}  "), *face, ("", " " * (6 - used))]
        turned = f"rot {rotation:<3}" if rotation else "       "
        line += [("class:dim", turned), (style, f" {COMPONENTS.icon[card]}")]
        if choice is not None and card == choice.card and choice.mode != "card":
            line.append(("class:message", " ◀ aiming"))
        lines.append(line)
    family = COMPONENTS.edition.families[private["family"]]
    fam: Line = [("class:title", "Family tree"), ("", " ")]
    for colour, points in family.points:
        fam += [("", " "), samurai_fragment(colour), ("", f" {points}")]
    lines.append(fam)
    return lines


def final_lines(ui: SugiUI, width: int, height: int) -> list[Line]:
    """The ranking with each player's family tree revealed and what it scored."""
    model = ui.model
    view = model.view
    assert view is not None
    result: Data = view.get("result") or {}
    lines: list[Line] = [[("class:title", "Game over")], []]
    arrived: list[str] = result["pedestals"] if "pedestals" in result else view["pedestals"]
    pedestals: Line = [("", "Pedestals: ")]
    for i, colour in enumerate(arrived):
        pedestals += [("", f" {i + 1} "), samurai_fragment(colour)]
    lines += [pedestals, [("class:dim", f"after {result.get('rounds', view['round'])} rounds")],
              []]
    lines.append([("class:dim", " #  player      points  family tree")])
    families = result.get("families", [])
    winners = result.get("winners", [])
    for rank, seat in enumerate(result.get("ranking", [])):
        style = "class:you" if seat == model.you else ""
        place = 1 if seat in winners else rank + 1  # a shared win (S15) is first for each
        line: Line = [(style, f" {place}  {pad(model.name(seat), 10)}  "
                              f"{result['scores'][seat]:>5}  ")]
        if seat < len(families):
            for colour, points in COMPONENTS.edition.families[families[seat]].points:
                on = colour in arrived
                line += [samurai_fragment(colour), ("" if on else "class:dim",
                                                    f"{points}{'✓' if on else ' '} ")]
        lines.append(line)
    lines.append([])
    if winners:
        names = " and ".join(("You" if i == 0 else "you") if w == model.you
                             else model.sentence_name(w) for i, w in enumerate(winners))
        verb = "win" if len(winners) > 1 or winners == [model.you] else "wins"
        lines.append([("class:message", f"{names} {verb}.")])
    lines.append([("class:dim", "✓ on a pedestal: it scores. Ties: whose best scoring samurai "
                                "arrived first")])
    return box(lines, width, height)


UI = SugiUI
