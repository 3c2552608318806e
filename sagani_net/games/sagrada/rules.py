"""The Sagrada rules engine: one state object, deterministic from (config, seed, actions).

The turn sequence lives here and only here (``RULES.md`` beside this file). A game opens with the
pattern choice, seat by seat (``choose``); then 10 rounds, each a snake of turns. On a turn the
player may draft and place a die (``draft 3 at 2,4``), use one tool (``tool 7``, a sequence of
decisions for the tools that need them), or ``pass``; a turn ends by itself once nothing is left
to do in it.

Randomness: every moment the rules roll or draw (setup, each round's draft pool, Flux Brush,
Glazing Hammer, Flux Remover) takes a fresh ``random.Random`` seeded from the game's secret seed
and the number of such moments so far, so a clone rolls what the original would, cloning copies
one int, and a determinized state (a new secret seed) rolls something else. What each moment
gave is kept as it happens (``dealt``, ``privates``, ``tools``, ``objectives``; ``rolls``) and
written in the record; a replay takes it from there instead of rolling (``script``), so a record
replays without the seed (``protocol/games/sagrada.md``, Record).

>>> from sagani_net.games.sagrada.rules import SAGRADA
>>> state = SAGRADA.new_state(SAGRADA.parse_config({"players": 2}), seed=5)
>>> state.phase, state.current_seat, len(state.legal_actions())
('choose', 0, 4)
>>> events = state.apply(Action.choose(0))
>>> events = state.apply(Action.choose(1))
>>> state.phase, state.current_seat, len(state.pool)
('play', 0, 5)
"""

from __future__ import annotations

import contextlib
import functools
import json
import random
from collections.abc import Iterator
from functools import reduce
from operator import or_
from typing import Any, NamedTuple

from sagani_net.caches import BoundedCache
from sagani_net.game import (
    ActionForms,
    Data,
    Engine,
    GameState,
    Result,
    RuleError,
    Rules,
    action_form,
    check_options,
    check_record,
    check_replayed,
    grid_cell,
    grid_data,
    is_int,
    plural,
    recorded_outcomes,
    replay_actions,
    shuffle,
)
from sagani_net.games.sagrada import words
from sagani_net.games.sagrada.about import ABOUT, DEFAULT_DIFFICULTY
from sagani_net.games.sagrada.components import (
    CELLS,
    CLASH,
    COLOUR,
    COLOUR_NAMES,
    COLOURS,
    COLUMNS,
    DICE_PER_COLOUR,
    EDGE,
    NEAR_CELLS,
    OBJECTIVES,
    ORTH,
    ROWS,
    TOOLS,
    VALUE,
    cell_text,
    cell_words,
    die_text,
    objective_points,
    open_cells,
    parse_die,
    private_points,
)
from sagani_net.games.sagrada.patterns import MAX_PATTERNS, PUBLISHED, Pattern, parse_patterns

ROUNDS = 10
#: Equal totals are broken by these score sheet figures, more first, in this order; then by
#: who took their first turn of round 10 later (SAGRADA.md; the final screen says which).
TIE_BREAKS = ("private", "tokens")
PATTERNS_DEALT = 4
SOLO_DICE = 4
SOLO_EMPTY_PENALTY = 3
#: How many random moments a game can have, at most (it separates the derived seeds).
MOMENTS = 4096

CHOOSE, PLAY, OVER = "choose", "play", "over"
# Steps inside a turn (``State.step``; None between decisions of the turn itself):
HELD = "held"  # a die drafted to use a tool on it: place it, or use a drafted-die tool
PLACE = "place"  # a die a tool changed or brought: place it (Flux Remover: or return it)
VALUE_STEP = "value"  # Grozing Pliers, Flux Remover: choose the die's value
SWAP = "swap"  # Lens Cutter: choose the round track's die
MOVE = "move"  # Eglomise Brush, Copper Foil Burnisher, Lathekin, Tap Wheel
DRAFT_AGAIN = "draft_again"  # Running Pliers: draft and place a second die

MOVE_TOOLS = {2: 1, 3: 1, 4: 2, 12: 2}  # tool -> most moves
#: Each action's fields besides its type, one tuple a form (protocol/games/sagrada.md).
ACTION_FORMS: ActionForms = {
    "choose": (("pattern",),), "draft": (("die", "cell"), ("die",)), "place": (("cell",),),
    "tool": (("tool",), ("tool", "pay")), "move": (("from", "to"),), "value": (("value",),),
    "swap": (("round", "die"),), "pass": ((),), "stop": ((),), "return": ((),),
}
ACTION_TYPES = tuple(ACTION_FORMS)
_new_tuple = tuple.__new__


class Action(NamedTuple):
    """One decision. ``cell`` and ``to`` are cells 0-19 (row * 5 + column); -1 for none.

    - ``choose``: ``number`` is the slot (0-3) of the dealt pattern.
    - ``draft``: pool die ``die`` placed at ``cell``; ``cell == -1`` drafts it to use a tool on.
    - ``place``: the die in hand at ``cell``.
    - ``tool``: tool card ``number``; solo: ``die`` is the pool die paid.
    - ``move``: the die at ``cell`` to ``to``.  ``value``: face ``number``.
    - ``swap``: Lens Cutter, die ``die`` on round ``number``'s space of the round track.
    - ``pass`` (end the turn), ``stop`` (Tap Wheel after one move), ``return`` (Flux Remover).

    Text form (people count from 1): ``draft 3 at 2,4``, ``tool 7 pay 1``, ``move 1,1 to 2,3``,
    ``swap 4.2``, ``choose 2``.

    >>> Action.parse("draft 3 at 2,4")
    Action(kind='draft', die=2, cell=8, to=-1, number=0)
    >>> str(Action.parse("move 1,1 to 2,3"))
    'move 1,1 to 2,3'
    """

    kind: str
    die: int = -1
    cell: int = -1
    to: int = -1
    number: int = 0

    @classmethod
    def choose(cls, slot: int) -> Action:
        return cls("choose", number=slot)

    @classmethod
    def draft(cls, die: int, cell: int = -1) -> Action:
        return cls("draft", die, cell)

    @classmethod
    def place(cls, cell: int) -> Action:
        return cls("place", cell=cell)

    @classmethod
    def tool(cls, number: int, pay: int = -1) -> Action:
        return cls("tool", pay, number=number)

    @classmethod
    def move(cls, source: int, to: int) -> Action:
        return cls("move", cell=source, to=to)

    def __str__(self) -> str:
        kind = self.kind
        if kind == "choose":
            return f"choose {self.number + 1}"
        if kind == "draft":
            held = "" if self.cell < 0 else f" at {cell_text(self.cell)}"
            return f"draft {self.die + 1}{held}"
        if kind == "place":
            return f"place {cell_text(self.cell)}"
        if kind == "tool":
            return f"tool {self.number}" + ("" if self.die < 0 else f" pay {self.die + 1}")
        if kind == "move":
            return f"move {cell_text(self.cell)} to {cell_text(self.to)}"
        if kind == "value":
            return f"value {self.number}"
        if kind == "swap":
            return f"swap {self.number + 1}.{self.die + 1}"
        return kind

    @classmethod
    def parse(cls, text: str) -> Action:
        """Read the text form; raises RuleError("bad_action", ...)."""
        words = text.lower().split()
        n = len(words)
        try:
            kind = words[0] if words else ""
            if n == 1 and kind in ("pass", "stop", "return"):
                return cls(kind)
            if n == 2 and kind == "choose":
                return cls.choose(_count(words[1]) - 1)
            if kind == "draft" and n in (2, 4) and (n == 2 or words[2] == "at"):
                return cls.draft(_count(words[1]) - 1, _cell(words[3]) if n == 4 else -1)
            if n == 2 and kind == "place":
                return cls.place(_cell(words[1]))
            if kind == "tool" and n in (2, 4) and (n == 2 or words[2] == "pay"):
                return cls.tool(_count(words[1]), _count(words[3]) - 1 if n == 4 else -1)
            if n == 4 and kind == "move" and words[2] == "to":
                return cls.move(_cell(words[1]), _cell(words[3]))
            if n == 2 and kind == "value":
                return cls("value", number=_count(words[1]))
            if n == 2 and kind == "swap":
                round_, die = words[1].split(".")
                return cls("swap", _count(die) - 1, number=_count(round_) - 1)
        except RuleError:
            raise  # says what is wrong (a cell that does not exist)
        except ValueError:
            pass
        raise RuleError("bad_action", f"cannot read {text!r} as an action; for example "
                        "'draft 3 at 2,4', 'tool 7', 'move 1,1 to 2,3', 'pass'")

    def to_dict(self) -> Data:
        """The wire and record form (counting from 0), e.g. ``{"type": "draft", "die": 2,
        "cell": [1, 3]}``."""
        kind = self.kind
        if kind == "choose":
            return {"type": kind, "pattern": self.number}
        if kind == "draft":
            data: Data = {"type": kind, "die": self.die}
            if self.cell >= 0:
                data["cell"] = _cell_data(self.cell)
            return data
        if kind == "place":
            return {"type": kind, "cell": _cell_data(self.cell)}
        if kind == "tool":
            data = {"type": kind, "tool": self.number}
            if self.die >= 0:
                data["pay"] = self.die
            return data
        if kind == "move":
            return {"type": kind, "from": _cell_data(self.cell), "to": _cell_data(self.to)}
        if kind == "value":
            return {"type": kind, "value": self.number}
        if kind == "swap":
            return {"type": kind, "round": self.number, "die": self.die}
        return {"type": kind}

    @classmethod
    def from_dict(cls, data: Any) -> Action:
        """Read the wire form, checking every field; raises RuleError("bad_action", ...)."""
        kind = action_form(data, ACTION_FORMS)
        for name in ("pattern", "die", "tool", "pay", "value", "round"):
            if name in data and not is_int(data[name]):
                raise RuleError("bad_action", f"{name} must be an integer")
        if kind == "choose":
            return cls.choose(data["pattern"])
        if kind == "draft":
            return cls.draft(data["die"], _wire_cell(data["cell"]) if "cell" in data else -1)
        if kind == "place":
            return cls.place(_wire_cell(data["cell"]))
        if kind == "tool":
            return cls.tool(data["tool"], data.get("pay", -1))
        if kind == "move":
            return cls.move(_wire_cell(data["from"]), _wire_cell(data["to"]))
        if kind == "value":
            return cls("value", number=data["value"])
        if kind == "swap":
            return cls("swap", data["die"], number=data["round"])
        return cls(kind)


def _count(word: str) -> int:
    if not word.isdigit():
        raise ValueError(word)
    return int(word)


def _cell(word: str) -> int:
    row, column = (_count(w) for w in word.split(","))
    if not (1 <= row <= ROWS and 1 <= column <= COLUMNS):
        raise RuleError("bad_action", f"there is no cell {word}: a window has rows 1-{ROWS} "
                        f"and columns 1-{COLUMNS}")
    return (row - 1) * COLUMNS + column - 1


def _cell_data(cell: int) -> list[int]:
    return grid_data(cell, COLUMNS)


def _wire_cell(data: Any) -> int:
    cell = grid_cell(data, ROWS, COLUMNS)
    if cell is not None:
        return cell
    raise RuleError("bad_action", f"a cell is [row, column] with row 0-{ROWS - 1} and column "
                    f"0-{COLUMNS - 1}")


def _roll(colour: int, rng: random.Random) -> int:
    """A die of ``colour``, rolled."""
    return colour * 6 + int(rng.random() * 6) + 1


def _check_part(name: str, values: Any, count: int | None, allowed: Any) -> None:
    """A part of a record's setup: a list of ``count`` (None: any number) distinct values,
    each among ``allowed``; raises RuleError("bad_record", ...)."""
    if (not isinstance(values, list) or count is not None and len(values) != count
            or not all(is_int(v) or isinstance(v, str) for v in values)
            or len(set(values)) != len(values) or not all(v in allowed for v in values)):
        many = "" if count is None else f"{count} "
        among = f"{allowed.start}-{allowed.stop - 1}" if isinstance(allowed, range) else list(
            allowed)
        raise RuleError("bad_record", f"setup {name}: a list of {many}different ones of "
                        f"{among}")


#: The parts of a record's setup (``State.to_record``), in the order they are dealt.
SETUP_FIELDS = ("tools", "objectives", "privates", "patterns")
_COLOUR_LETTERS = tuple(COLOURS)
PASS, STOP, RETURN = Action("pass"), Action("stop"), Action("return")
CHOICES = tuple(Action.choose(i) for i in range(PATTERNS_DEALT))
VALUES = tuple(Action("value", number=v) for v in range(1, 7))  # face v is VALUES[v - 1]


# -- patterns in play ------------------------------------------------------------------------

PatternSet = tuple[tuple[Pattern, ...], tuple[tuple[int, ...], ...]]
#: Pattern sets by config, and pattern lists already checked (JSON text in, JSON text out): a
#: determinized state reads its config again at every move. Clients send any number of
#: configs, so both forget the least recently used; an entry holds at most the published
#: patterns and MAX_PATTERNS of one's own (patterns.py), so a count bounds their memory.
_PATTERN_SETS: BoundedCache[str, PatternSet] = BoundedCache(max_entries=32)
_CHECKED: BoundedCache[str, str] = BoundedCache(max_entries=64)


def pattern_set(config: Data) -> PatternSet:
    """The patterns a table with ``config`` deals from, and its cards (the indexes of one card's
    sides: a ``pair`` within one source, or a single pattern). ``config`` was accepted by
    ``parse_config``, maybe before MAX_PATTERNS was (a table in a host's store), so the limit
    is not asked again here."""
    key = json.dumps([config.get("patterns"), config.get("pattern_set")], sort_keys=True)
    found = _PATTERN_SETS.get(key)
    if found is None:
        own = parse_patterns(config["patterns"], most=None) if config.get("patterns") else ()
        sources = [own] if config.get("pattern_set") == "custom" else [PUBLISHED, own]
        patterns: list[Pattern] = []
        cards: dict[Any, list[int]] = {}
        for source, group in enumerate(sources):
            for p in group:
                key_ = (source, p.pair) if p.pair is not None else len(patterns)
                cards.setdefault(key_, []).append(len(patterns))
                patterns.append(p)
        found = (tuple(patterns), tuple(map(tuple, cards.values())))
        _PATTERN_SETS.put(key, found)
    return found


def checked_patterns(data: Any) -> list[Data]:
    """``data`` checked as a list of patterns (``parse_patterns``), in the file form; a list
    seen lately is not checked again."""
    key = ""
    if isinstance(data, list) and len(data) <= MAX_PATTERNS:  # else refused at once, unread
        # Not JSON-like: no key, and parse_patterns says what is wrong.
        with contextlib.suppress(TypeError, ValueError):
            key = json.dumps(data, sort_keys=True)
    found = _CHECKED.get(key)
    if found is None:
        patterns = [p.to_data() for p in parse_patterns(data)]
        if not key:
            return patterns
        found = json.dumps(patterns)
        _CHECKED.put(key, found)
    return list(json.loads(found))


# -- the state ---------------------------------------------------------------------------------


@functools.lru_cache(maxsize=4096)
def _objective_points(objectives: tuple[int, ...], window: tuple[int, ...]) -> tuple[int, ...]:
    """The public objectives' points of a window, worked out once per window: every view shows
    every seat's score, and a move changes one window at most (a seat's score took 136 us
    where the other games' whole views take 9-12)."""
    return tuple(objective_points(n, list(window)) for n in objectives)



@functools.lru_cache(maxsize=4096)
def _window_text(window: tuple[int, ...]) -> tuple[str, ...]:
    """A window's cells as a view shows them, once per window (``""``: an empty cell)."""
    return tuple(die_text(d) if d else "" for d in window)


class State(Engine):
    """One game of Sagrada in progress; see the module docstring.

    Public attributes the bots and the console read: ``phase``, ``round`` (0-9), ``order`` and
    ``turn`` (the snake of this round and the position in it), ``pool``, ``track`` (per round, the
    dice left over), ``windows`` (per seat, 20 dice), ``tokens``, ``tools`` and ``uses`` (per
    tool card in play), ``objectives``, ``step`` and ``held`` (a tool under way).

    Secret parts (never in :meth:`view`): ``privates`` (each seat's private objective),
    ``dealt`` (the patterns each seat was dealt), ``chosen`` until every seat has chosen, and
    ``seed`` (every roll to come). In a state rebuilt from what a seat knows, the seat's own
    are true and the rest a sample: :meth:`score_sheet` of another seat counts a guessed
    private objective (``private=False`` leaves it out).
    """

    action_type = Action
    __slots__ = (
        "config", "players", "solo", "patterns", "tools", "objectives", "seed", "draws",
        "privates", "dealt", "chosen", "phase", "round", "order", "turn", "seat", "skip", "pool",
        "track", "bag", "windows", "filled", "owned", "cache", "tokens", "uses", "drafted",
        "tool_done", "step", "step_tool", "held", "moves_left", "moved", "move_colour",
        "history", "origin", "rolls", "script", "outcome", "spoiling",
    )
    config: Data
    players: int
    solo: bool
    patterns: tuple[Pattern, ...]  # the table's pattern set
    tools: tuple[int, ...]  # tool card numbers in play
    objectives: tuple[int, ...]
    seed: int
    draws: int  # random moments drawn so far
    privates: tuple[tuple[int, ...], ...]  # per seat, its private objective colours
    dealt: tuple[tuple[int, ...], ...]  # per seat, the patterns dealt to choose from
    chosen: list[int | None]  # per seat, the pattern chosen
    round: int
    order: tuple[int, ...]  # this round's snake of seats
    turn: int  # the position in ``order``
    skip: int  # bitmask of seats that miss their second turn (Running Pliers)
    pool: list[int]
    track: list[list[int]]
    bag: list[int]  # dice left per colour
    windows: list[list[int]]  # per seat, a die per cell (0: empty); shared until written
    filled: list[int]  # per seat, bitmask of its filled cells
    owned: int  # bitmask of the seats whose window this state may write
    cache: list[tuple[list[tuple[int, int]], dict[Any, Any]] | None]  # per seat, see _remember
    tokens: list[int]
    uses: list[int]  # per tool in play, how often it was used
    drafted: bool
    tool_done: bool
    step: str | None  # the step of a tool under way
    step_tool: int
    held: int  # the die a tool holds (0: none)
    moves_left: int
    moved: int  # the cell of the die moved first (-1: none)
    move_colour: int  # Tap Wheel: the colour moved (-1: none yet)
    history: list[tuple[int, Action]]
    rolls: list[list[str]]  # every random moment's outcome, for the record
    script: tuple[Any, ...]  # the outcomes a replayed record holds
    outcome: Result | None
    spoiling: bool

    # -- making one -------------------------------------------------------------------------

    @classmethod
    def new(cls, config: Data, seed: int, setup: Data | None = None) -> State:
        """A new game: tools, objectives, private objectives and patterns dealt from ``seed``,
        or as a record's ``setup`` says (checked; ``bad_record`` when it cannot be)."""
        s = cls._blank(config, seed)
        rng = s._rng()
        if setup is not None:
            s._set_up(setup)
            return s
        patterns, cards = pattern_set(config)
        s.tools = tuple(sorted(rng.sample(sorted(TOOLS), config["difficulty"] if s.solo else 3)))
        s.uses = [0] * len(s.tools)
        s.objectives = tuple(sorted(rng.sample(sorted(OBJECTIVES), 2 if s.solo else 3)))
        colours = rng.sample(range(len(COLOURS)), 2 if s.solo else s.players)
        s.privates = tuple((c,) for c in colours) if not s.solo else (tuple(sorted(colours)),)
        order = list(cards)
        shuffle(order, rng)
        flat = [i for card in order for i in card]
        s.dealt = tuple(tuple(flat[i * PATTERNS_DEALT:(i + 1) * PATTERNS_DEALT])
                        for i in range(s.players))
        return s

    @classmethod
    def _blank(cls, config: Data, seed: int) -> State:
        s = cls.__new__(cls)
        s.config = config
        s.players = players = config["players"]
        s.solo = players == 1
        s.patterns = pattern_set(config)[0]
        s.tools, s.objectives, s.privates, s.dealt = (), (), (), ()
        s.seed, s.draws = seed, 0
        s.chosen = [None] * players
        s.phase, s.round, s.order, s.turn, s.seat, s.skip = CHOOSE, 0, (), 0, 0, 0
        s.pool, s.track = [], [[] for _ in range(ROUNDS)]
        s.bag = [DICE_PER_COLOUR] * len(COLOURS)
        s.windows = [[0] * CELLS for _ in range(players)]
        s.filled = [0] * players
        s.owned = (1 << players) - 1
        s.cache = [None] * players
        s.tokens = [0] * players
        s.uses = []
        s.drafted = s.tool_done = False
        s.step, s.step_tool, s.held, s.moves_left, s.moved, s.move_colour = None, 0, 0, 0, -1, -1
        s.history, s.origin, s.rolls, s.script, s.outcome = [], 0, [], (), None
        s.spoiling = False
        return s

    def _set_up(self, setup: Any) -> None:
        """The setup a record holds (``setup`` in ``to_record``), each part checked."""
        players, solo = self.players, self.solo
        if not isinstance(setup, dict) or set(setup) != set(SETUP_FIELDS):
            raise RuleError("bad_record", f"setup is a map of {', '.join(SETUP_FIELDS)}")
        tools, objectives = setup["tools"], setup["objectives"]
        _check_part("tools", tools, self.config["difficulty"] if solo else 3, TOOLS)
        _check_part("objectives", objectives, 2 if solo else 3, OBJECTIVES)
        privates, dealt = setup["privates"], setup["patterns"]
        if not (isinstance(privates, list) and len(privates) == players
                and all(isinstance(own, list) and len(own) == (2 if solo else 1)
                        and all(c in _COLOUR_LETTERS for c in own) for own in privates)):
            raise RuleError("bad_record", f"setup privates: {players} list(s) of "
                            f"{2 if solo else 1} colour letter(s) of {COLOURS}")
        if not (isinstance(dealt, list) and len(dealt) == players
                and all(isinstance(own, list) and len(own) == PATTERNS_DEALT for own in dealt)):
            raise RuleError("bad_record", f"setup patterns: {players} list(s) of "
                            f"{PATTERNS_DEALT} pattern indexes")
        _check_part("privates", [c for own in privates for c in own], None, COLOURS)
        _check_part("patterns", [p for own in dealt for p in own], None,
                    range(len(self.patterns)))
        self.tools, self.objectives = tuple(tools), tuple(objectives)
        self.uses = [0] * len(self.tools)
        self.privates = tuple(tuple(COLOURS.index(c) for c in own) for own in privates)
        self.dealt = tuple(map(tuple, dealt))

    def clone(self) -> State:
        """An independent copy; windows are shared until either side changes one."""
        c = State.__new__(State)
        c.config, c.players, c.solo = self.config, self.players, self.solo
        c.patterns = self.patterns
        c.tools, c.objectives, c.privates, c.dealt = (
            self.tools, self.objectives, self.privates, self.dealt)
        c.seed, c.draws, c.chosen = self.seed, self.draws, self.chosen.copy()
        c.phase, c.round, c.order, c.turn, c.seat, c.skip = (
            self.phase, self.round, self.order, self.turn, self.seat, self.skip)
        c.pool, c.track, c.bag = self.pool.copy(), [t.copy() for t in self.track], self.bag.copy()
        c.windows, c.filled, c.cache = self.windows.copy(), self.filled.copy(), self.cache.copy()
        self.owned = c.owned = 0
        c.tokens, c.uses = self.tokens.copy(), self.uses.copy()
        c.drafted, c.tool_done, c.step, c.step_tool, c.held = (
            self.drafted, self.tool_done, self.step, self.step_tool, self.held)
        c.moves_left, c.moved, c.move_colour = self.moves_left, self.moved, self.move_colour
        c.history, c.origin, c.rolls = self.history.copy(), self.origin, self.rolls.copy()
        c.script = self.script
        c.outcome = self.outcome
        c.spoiling = self.spoiling
        return c

    def _rng(self) -> random.Random:
        """The generator of the next random moment (see the module docstring)."""
        rng = random.Random(self.seed * MOMENTS + self.draws)
        self.draws += 1
        return rng

    def _moment(self) -> tuple[random.Random, Any]:
        """The next random moment after setup: its generator, and what the record being
        replayed says it gave (None: the record does not hold it, so it is rolled)."""
        done = len(self.rolls)
        return self._rng(), self.script[done] if done < len(self.script) else None

    def _draw_pool(self, count: int) -> list[int]:
        """A round's draft pool: ``count`` dice drawn from the bag and rolled."""
        rng, recorded = self._moment()
        if recorded is None:
            pool = [_roll(self._draw_colour(rng), rng) for _ in range(count)]
        else:
            pool = self._recorded_dice(recorded, count)
            for d in pool:
                self._take_from_bag(COLOUR[d], recorded)
        self.rolls.append([die_text(d) for d in pool])
        return pool

    def _reroll(self, dice: list[int]) -> list[int]:
        """Flux Brush, Glazing Hammer: ``dice`` rolled again, each keeping its colour."""
        rng, recorded = self._moment()
        if recorded is None:
            rolled = [_roll(COLOUR[d], rng) for d in dice]
        else:
            rolled = self._recorded_dice(recorded, len(dice))
            if [COLOUR[d] for d in rolled] != [COLOUR[d] for d in dice]:
                raise self._bad_roll(recorded, "a die rolled again keeps its colour: "
                                     + " ".join(map(die_text, dice)))
        self.rolls.append([die_text(d) for d in rolled])
        return rolled

    def _redraw(self) -> int:
        """Flux Remover: a die drawn from the bag, its colour (its value is chosen)."""
        rng, recorded = self._moment()
        if recorded is None:
            colour = self._draw_colour(rng)
        else:
            if not (isinstance(recorded, list) and len(recorded) == 1
                    and recorded[0] in _COLOUR_LETTERS):
                raise self._bad_roll(recorded, f"Flux Remover draws one colour of {COLOURS}")
            colour = COLOURS.index(recorded[0])
            self._take_from_bag(colour, recorded)
        self.rolls.append([COLOURS[colour]])
        return colour

    def _recorded_dice(self, recorded: Any, count: int) -> list[int]:
        if not isinstance(recorded, list) or len(recorded) != count:
            raise self._bad_roll(recorded, f"{count} dice were rolled here")
        try:
            return [parse_die(d) for d in recorded]
        except RuleError as e:
            raise self._bad_roll(recorded, e.message) from None

    def _take_from_bag(self, colour: int, recorded: Any) -> None:
        if not self.bag[colour]:
            raise self._bad_roll(recorded, f"the bag has no {COLOUR_NAMES[colour]} die left")
        self.bag[colour] -= 1

    def _bad_roll(self, recorded: Any, why: str) -> RuleError:
        return RuleError("bad_record", f"rolls[{len(self.rolls)}] {recorded!r}: {why}")

    def _window(self, seat: int) -> list[int]:
        """``seat``'s window, to be changed: copied first if a clone shares it."""
        if not self.owned >> seat & 1:
            self.windows[seat] = self.windows[seat].copy()
            self.owned |= 1 << seat
        self.cache[seat] = None
        return self.windows[seat]

    # -- questions --------------------------------------------------------------------------

    def pattern(self, seat: int) -> Pattern | None:
        """The pattern ``seat`` chose, or None before it has."""
        chosen = self.chosen[seat]
        return None if chosen is None else self.patterns[chosen]

    def chosen_pattern(self, seat: int) -> Pattern:
        """The pattern of ``seat``, which has chosen (the play phase)."""
        chosen = self.chosen[seat]
        assert chosen is not None
        return self.patterns[chosen]

    def cost(self, slot: int) -> int:
        """Favour tokens the tool card in ``slot`` costs now: 1, then 2 once anyone used it."""
        return 2 if self.uses[slot] else 1

    def first_turn(self) -> bool:
        return self.turn < self.players

    def cells_for(self, seat: int, die: int) -> tuple[int, ...]:
        """The cells of ``seat``'s window where ``die`` may be placed now (rules 1-4)."""
        cache = self.cache[seat] or self._remember(seat)
        found = cache[1].get(die)
        if found is None:
            bit = 1 << die
            found = cache[1][die] = tuple([i for i, m in cache[0] if m & bit])
        return found

    def fits(self, seat: int, die: int) -> bool:
        """Whether ``die`` may be placed somewhere in ``seat``'s window now: ``cells_for`` not
        empty, from one mask of every open cell's dice (a tool's possible outcomes are asked
        about at every step, most of them dice not in the pool)."""
        cells, memo = self.cache[seat] or self._remember(seat)
        anywhere = memo.get("fits")
        if anywhere is None:
            anywhere = memo["fits"] = reduce(or_, [m for _, m in cells], 0)
        return bool(anywhere >> die & 1)

    def _remember(self, seat: int) -> tuple[list[tuple[int, int]], dict[Any, Any]]:
        """What ``seat``'s window allows, worked out once per change of the window: the open
        cells, each with its mask (the cells no die may take left out: most of a window, and
        ``cells_for`` scans the rest for every pool die), and a memo of answers (cells per die,
        whether Lathekin can be used, the dice some cell takes, the masks of cells next to no
        die)."""
        pattern = self.chosen_pattern(seat)
        masks = open_cells(self.windows[seat], self.filled[seat], pattern.allow)
        cache = self.cache[seat] = ([(i, m) for i, m in enumerate(masks) if m], {})
        return cache

    def loose_cells(self, seat: int, die: int) -> tuple[int, ...]:
        """Cork-backed Straightedge: cells next to no die where ``die`` obeys its restriction."""
        memo = (self.cache[seat] or self._remember(seat))[1]
        masks = memo.get("loose")
        if masks is None:  # asked for every pool die while the tool is usable
            pattern = self.chosen_pattern(seat)
            # A tuple: a clone's memo, and so a policy's sample, shares it with the truth.
            masks = memo["loose"] = tuple(open_cells(self.windows[seat], self.filled[seat],
                                                     pattern.allow, loose=True))
        bit = 1 << die
        return tuple(i for i, m in enumerate(masks) if m & bit)

    def moves(self, seat: int, tool: int, skip: int = -1, colour: int = -1
              ) -> list[tuple[int, int]]:
        """Every (from, to) move tool ``tool`` allows in ``seat``'s window now: the moved die is
        lifted first and checked at its new cell (RULES.md, moves). ``skip``: a cell whose die
        may not move (it moved already); ``colour``: only dice of that colour (-1: any;
        Tap Wheel without a colour: only colours on the round track)."""
        return list(self._moves(self.windows[seat], self.filled[seat], seat, tool, skip, colour))

    def _moves(self, window: list[int], filled: int, seat: int, tool: int, skip: int,
               colour: int) -> Iterator[tuple[int, int]]:
        pattern = self.chosen_pattern(seat)
        allow = (pattern.allow_any_colour if tool == 2 else
                 pattern.allow_any_value if tool == 3 else pattern.allow)
        colours = self._track_colours() if tool == 12 and colour < 0 else None
        for a in range(CELLS):
            d = window[a]
            if not d or a == skip:
                continue
            if colour >= 0 and COLOUR[d] != colour:
                continue
            if colours is not None and COLOUR[d] not in colours:
                continue
            bit, clash, rest = 1 << d, CLASH[d], filled & ~(1 << a)
            for b in range(CELLS):
                # Cheap tests first: this runs for every die of the window.
                if b == a or rest >> b & 1 or not allow[b] & bit:
                    continue
                if not (rest & NEAR_CELLS[b] if rest else EDGE[b]):
                    continue
                for j in ORTH[b]:
                    if j != a and clash >> window[j] & 1:
                        break
                else:
                    yield a, b

    def _track_colours(self) -> set[int]:
        return {COLOUR[d] for dice in self.track for d in dice}

    def _lathekin_firsts(self, seat: int, stop_at_one: bool = False) -> list[tuple[int, int]]:
        """Lathekin's first moves after which a second die can move."""
        window, filled = self.windows[seat], self.filled[seat]
        found = []
        for a, b in list(self._moves(window, filled, seat, 4, -1, -1)):
            w2 = window.copy()
            w2[b], w2[a] = w2[a], 0
            if next(self._moves(w2, filled & ~(1 << a) | 1 << b, seat, 4, b, -1), None):
                found.append((a, b))
                if stop_at_one:
                    break
        return found

    def _pay_options(self, slot: int, exclude: int = -1) -> list[int]:
        """How the tool in ``slot`` can be paid now: ``[-1]`` (favour tokens) in a game with
        tokens, else every pool die of its colour (two alike are two ways to pay: the list
        offers what ``apply`` takes, and a player may name either); ``[]``: it cannot."""
        if not self.solo:
            return [-1] if self.tokens[self.seat] >= self.cost(slot) else []
        if self.uses[slot]:
            return []
        colour = COLOURS.index(TOOLS[self.tools[slot]].colour)
        return [i for i, d in enumerate(self.pool) if i != exclude and COLOUR[d] == colour]

    def tool_outcomes(self, tool: int, die: int) -> list[int]:
        """The dice drafted-die tool ``tool`` can turn ``die`` into that fit somewhere in the
        window of the seat to move (a die may be drafted only to be placed: only Flux Brush
        and Flux Remover may leave it without a cell, and return it). Tool 9: ``[die]`` when a
        cell next to no die takes it; tools 6 and 11 (the host rolls or draws): ``[die]``."""
        seat = self.seat
        if tool == 1:
            colour, value = COLOUR[die], VALUE[die]
            turned = [colour * 6 + v for v in (value - 1, value + 1) if 1 <= v <= 6]
        elif tool == 5:
            turned = [d for dice in self.track for d in dice]
        elif tool == 10:
            turned = [COLOUR[die] * 6 + 7 - VALUE[die]]
        elif tool == 9:
            return [die] if self.loose_cells(seat, die) else []
        else:
            return [die]
        if self.spoiling:  # a game begun before the rule (see replay): any outcome
            return turned
        return [d for d in turned if self.fits(seat, d)]

    def _drafted_die_tools(self, die: int, exclude: int = -1) -> list[Action]:
        """The drafted-die tools that can be used on ``die`` now, with their payments."""
        if self.tool_done:
            return []
        actions: list[Action] = []
        for slot, tool in enumerate(self.tools):
            if not TOOLS[tool].on_drafted:
                continue
            pays = self._pay_options(slot, exclude)
            if not pays or not self.tool_outcomes(tool, die):
                continue
            actions.extend(Action.tool(tool, pay) for pay in pays)
        return actions

    def _holds(self) -> list[Action]:
        """Drafts without placing: for each pool die a drafted-die tool can be used on."""
        usable = [(slot, tool) for slot, tool in enumerate(self.tools)
                  if TOOLS[tool].on_drafted and (tool != 5 or any(self.track))]
        if not self.solo:  # the payment does not depend on the die
            usable = [(slot, tool) for slot, tool in usable if self._pay_options(slot)]
        if not usable:
            return []
        holds = []
        for i, die in enumerate(self.pool):
            for slot, tool in usable:
                if self.solo and not self._pay_options(slot, exclude=i):
                    continue
                if not self.tool_outcomes(tool, die):
                    continue
                holds.append(_new_tuple(Action, ("draft", i, -1, -1, 0)))
                break
        return holds

    def _turn_tools(self) -> list[Action]:
        """The tools that can be used now, between a turn's decisions (not on a drafted die)."""
        if self.tool_done:
            return []
        seat = self.seat
        actions: list[Action] = []
        for slot, tool in enumerate(self.tools):
            if TOOLS[tool].on_drafted:
                continue
            pays = self._pay_options(slot)
            if not pays:
                continue
            if tool in (2, 3, 12):
                memo = (self.cache[seat] or self._remember(seat))[1]
                key = ("moves", tool)
                usable = memo.get(key)
                if usable is None:
                    usable = next(self._moves(self.windows[seat], self.filled[seat], seat, tool,
                                              -1, -1), None) is not None
                    if tool != 12:  # Tap Wheel's moves depend on the round track too
                        memo[key] = usable
                if not usable:
                    continue
            elif tool == 4:
                memo = (self.cache[seat] or self._remember(seat))[1]
                usable = memo.get("lathekin")
                if usable is None:  # a whole scan when no second move exists: remember it
                    usable = memo["lathekin"] = bool(self._lathekin_firsts(seat, True))
                if not usable:
                    continue
            elif tool == 7:
                if self.first_turn() or self.drafted:
                    continue
                # Something must be left to re-roll once a solo payment took its die.
                pays = [p for p in pays if len(self.pool) > (p >= 0)]
            elif tool == 8:
                if not self.first_turn() or not self.drafted:
                    continue
                pays = [p for p in pays if self._placeable(exclude=p)]
            actions.extend(Action.tool(tool, pay) for pay in pays)
        return actions

    def _placeable(self, exclude: int = -1) -> bool:
        """Whether some pool die (but ``exclude``) can be placed in the window of the seat to
        move."""
        seat = self.seat
        return any(self.fits(seat, d) for i, d in enumerate(self.pool) if i != exclude)

    def _drafts(self) -> list[Action]:
        seat = self.seat
        actions = []
        for i, d in enumerate(self.pool):
            for cell in self.cells_for(seat, d):
                actions.append(_new_tuple(Action, ("draft", i, cell, -1, 0)))
        return actions

    def legal_actions(self) -> list[Action]:
        """Every legal decision for the seat to move, in a stable order."""
        phase = self.phase
        if phase != PLAY:
            return list(CHOICES) if phase == CHOOSE else []
        step = self.step
        seat = self.seat
        if step is None:
            if self.drafted:
                return [*self._turn_tools(), PASS]
            actions = self._drafts()
            if not self.tool_done:
                actions.extend(self._holds())
                actions.extend(self._turn_tools())
            actions.append(PASS)
            return actions
        held = self.held
        if step == HELD:
            places = [Action.place(c) for c in self.cells_for(seat, held)]
            return places + self._drafted_die_tools(held)
        if step == PLACE:
            cells = (self.loose_cells(seat, held) if self.step_tool == 9 else
                     self.cells_for(seat, held))
            places = [Action.place(c) for c in cells]
            return places + [RETURN] if self.step_tool == 11 else places
        if step == VALUE_STEP:
            if self.step_tool == 1:  # only values after which the die fits somewhere
                return [VALUES[VALUE[d] - 1] for d in self.tool_outcomes(1, held)]
            return list(VALUES)
        if step == SWAP:  # only round-track dice that fit somewhere once swapped in
            return [Action("swap", i, number=r) for r, dice in enumerate(self.track)
                    for i, d in enumerate(dice)
                    if self.spoiling or self.fits(seat, d)]
        if step == MOVE:
            if self.step_tool == 4 and self.moves_left == 2:
                pairs = self._lathekin_firsts(seat)
            else:
                pairs = self.moves(seat, self.step_tool, self.moved, self.move_colour)
            actions = [Action.move(a, b) for a, b in pairs]
            return actions + [STOP] if self.step_tool == 12 and self.moved >= 0 else actions
        return self._drafts()  # DRAFT_AGAIN

    def random_action(self, rng: random.Random) -> Action:
        """A uniformly random legal action: ``legal_actions()[i]`` for a uniform ``i``, the
        drafts at the start of a turn (most of them) counted rather than listed."""
        if self.phase != PLAY or self.step is not None or self.drafted:
            return super().random_action(rng)
        seat = self.seat
        found = [self.cells_for(seat, d) for d in self.pool]
        drafts = sum(map(len, found))
        rest = [] if self.tool_done else [*self._holds(), *self._turn_tools()]
        i = int(rng.random() * (drafts + len(rest) + 1))  # legal_actions(): drafts, rest, pass
        if i >= drafts:
            i -= drafts
            return rest[i] if i < len(rest) else PASS
        for die, cells in enumerate(found):
            if i < len(cells):
                return _new_tuple(Action, ("draft", die, cells[i], -1, 0))
            i -= len(cells)
        raise AssertionError("the counts above cover every draft")

    def default_action(self) -> Action:
        """``pass`` where it is legal (a bot past its deadline gives up its turn), else the
        first legal action."""
        actions = self.legal_actions()
        return PASS if PASS in actions else STOP if STOP in actions else actions[0]

    # -- playing ----------------------------------------------------------------------------

    def _check(self, action: Action) -> None:
        """Raise RuleError, with a reason code, when ``action`` is not legal now (the seam's
        ``apply`` and ``play`` call it before playing)."""
        if self.phase == OVER:
            raise RuleError("game_over", "the game is over")
        if not self._is_legal(action):
            raise self._refusal(action)

    def _is_legal(self, action: Action) -> bool:
        """Whether ``action`` is among the legal actions; the common ones without listing."""
        if self.phase == PLAY and self.step is None:
            kind = action.kind
            if kind == "pass":
                return action == PASS
            if kind == "draft" and action.cell >= 0:
                pool = self.pool
                return (not self.drafted and type(action.die) is int and 0 <= action.die < len(pool)
                        and action.cell in self.cells_for(self.seat, pool[action.die])
                        and action == Action.draft(action.die, action.cell))
        return action in self.legal_actions()

    def _refusal(self, action: Action) -> RuleError:
        """Why ``action`` is not legal now, as precisely as the rules can say."""
        kind, step = action.kind, self.step
        if self.phase == CHOOSE:
            if kind != "choose":
                return RuleError("wrong_phase", "choose your window pattern first")
            return RuleError("bad_index", f"choose a pattern slot from 0 to {PATTERNS_DEALT - 1} "
                             f"(in text, 1 to {PATTERNS_DEALT})")
        expected = {HELD: ("place", "tool"), PLACE: ("place", "return"), VALUE_STEP: ("value",),
                    SWAP: ("swap",), MOVE: ("move", "stop"), DRAFT_AGAIN: ("draft",)}
        if step is not None and kind not in expected[step]:
            doing = f"{TOOLS[self.step_tool].name} " if self.step_tool else ""
            return RuleError("wrong_step", f"finish the {doing}step first: "
                             f"{' or '.join(expected[step])}")
        if kind in ("draft", "place"):
            return self._placement_refusal(action)
        if kind == "tool":
            return self._tool_refusal(action)
        nowhere = self._fits_nowhere(action)
        if nowhere:
            return RuleError("not_allowed", f"{nowhere} would fit nowhere in your window, and a "
                             "drafted die must be placed")
        # The action's kind, not its text form: that counts from 1, and a message counts as the
        # wire does first (the reason names the cells both ways).
        return RuleError("not_allowed",
                         f"{action.kind} is not allowed now: {self._why_not(action)}")

    def _why_not(self, action: Action) -> str:
        """The reason for a ``not_allowed`` refusal: which step or tool the action needs, or
        what of the step it breaks (cells on the wire, from 0, then in text, from 1)."""
        kind, step, tool = action.kind, self.step, self.step_tool
        name = TOOLS[tool].name if tool else ""
        if kind == "choose":
            return "every window pattern has been chosen"
        if step is None:
            return "no tool is under way" if kind != "pass" else "the turn cannot end now"
        if kind == "return":
            return "only Flux Remover's die goes back to the pool"
        if kind == "stop":
            if tool != 12:
                return f"only Tap Wheel stops after one move, not {name}"
            return "Tap Wheel stops after its first move, not before"
        if kind == "value":
            allowed = [a.number for a in self.legal_actions()]
            return f"{name} gives the die in hand a value in {allowed}"
        if kind == "swap":
            return (f"the round track has no die {action.die} in round {action.number} (in text, "
                    f"{action.number + 1}.{action.die + 1})")
        if kind == "move":
            source, window = action.cell, self.windows[self.seat]
            if not window[source]:
                return f"there is no die at {cell_words(source)}"
            if source == self.moved:
                return f"the die at {cell_words(source)} has moved already"
            colour = COLOUR[window[source]]
            if self.move_colour >= 0 and colour != self.move_colour:
                return f"Tap Wheel's second move is of a {COLOUR_NAMES[self.move_colour]} die"
            if tool == 12 and self.move_colour < 0 and colour not in self._track_colours():
                return "Tap Wheel moves a die of a colour that lies on the round track"
            if tool == 4 and self.moves_left == 2 and (source, action.to) in self.moves(
                    self.seat, tool):
                return "Lathekin's first move must leave a second one possible"
            lifted = {2: " (colours aside)", 3: " (values aside)"}.get(tool, "")
            return f"the die breaks a placement rule{lifted} at {cell_words(action.to)}"
        return "this step does not allow it"

    def _fits_nowhere(self, action: Action) -> str:
        """The die a Grozing Pliers value or a Lens Cutter swap would bring into the hand, if
        it would fit no cell ("" otherwise)."""
        die = 0
        kind, number = action.kind, action.number
        if (kind == "value" and self.step == VALUE_STEP and self.step_tool == 1
                and 1 <= number <= 6 and abs(number - VALUE[self.held]) == 1):
            die = COLOUR[self.held] * 6 + number
        elif (kind == "swap" and self.step == SWAP and 0 <= number < ROUNDS
                and 0 <= action.die < len(self.track[number])):
            die = self.track[number][action.die]
        return die_text(die) if die and not self.fits(self.seat, die) else ""

    def _placement_refusal(self, action: Action) -> RuleError:
        if action.kind == "draft":
            if self.step is None and self.drafted:
                return RuleError("already_drafted", "you have drafted a die this turn")
            if not 0 <= action.die < len(self.pool):
                return RuleError("bad_index", f"the pool has dice 0 to {len(self.pool) - 1} (in "
                                 f"text, 1 to {len(self.pool)})")
            die = self.pool[action.die]
            if action.cell < 0:
                # Messages stay under 70 characters: a console's message line is 80 wide.
                return RuleError("no_tool", "a die is drafted without a cell only for a tool, "
                                 "and none can act on it now")
        else:
            die = self.held
            if not die:
                return RuleError("not_allowed", "nothing is drafted: draft a die with its "
                                 "cell (in text: draft 3 at 2,4)")
        if not 0 <= action.cell < CELLS:
            return RuleError("bad_cell", "no such cell")
        code, why = placement_problem(self.windows[self.seat], self.pattern(self.seat), die,
                                      action.cell, loose=self.step_tool == 9)
        return RuleError(code, f"{die_text(die)} cannot go at {cell_words(action.cell)}: {why}")

    def _tool_refusal(self, action: Action) -> RuleError:
        if action.number not in self.tools:
            return RuleError("bad_tool", f"tool {action.number} is not in play")
        if self.tool_done:
            return RuleError("tool_used", "you have used a tool this turn")
        slot = self.tools.index(action.number)
        tool = TOOLS[action.number]
        if self.solo and self.uses[slot]:
            return RuleError("tool_spent", f"{tool.name} has been used")
        if not self._pay_options(slot, exclude=-1):
            colour = COLOUR_NAMES[COLOURS.index(tool.colour)]
            cost = self.cost(slot)
            tokens = plural(cost, "favour token")
            need = f"a {colour} die in the pool" if self.solo else tokens
            return RuleError("cannot_pay", f"{tool.name} needs {need}")
        if not self.solo and action.die >= 0:
            return RuleError("bad_payment", f"{tool.name} is paid in favour tokens, not with a "
                             "die")
        if tool.on_drafted and self.step != HELD:
            return RuleError("wrong_timing", f"{tool.name} is used on a die just drafted")
        if not tool.on_drafted and self.step == HELD:
            return RuleError("wrong_timing", f"{tool.name}: before drafting or after placing, "
                             "never in between")
        # Each timing named apart, and only when it is wrong: a solo payment missing at the
        # right moment was called the wrong moment.
        if tool.number == 7 and self.first_turn():
            return RuleError("wrong_timing", "Glazing Hammer is used on your second turn of "
                             "the round, not your first")
        if tool.number == 7 and self.drafted:
            return RuleError("wrong_timing", "Glazing Hammer is used before drafting")
        if tool.number == 8 and not self.first_turn():
            return RuleError("wrong_timing", "Running Pliers is used on your first turn of "
                             "the round, not your second")
        if tool.number == 8 and not self.drafted:
            return RuleError("wrong_timing", "Running Pliers is used after drafting")
        if self.solo and action.die not in self._pay_options(slot):
            colour = COLOUR_NAMES[COLOURS.index(tool.colour)]
            if action.die >= 0:
                return RuleError("bad_payment", f"pay {tool.name} with a {colour} die of the "
                                 "pool")
            if any(a.kind == "tool" and a.number == action.number
                   for a in self.legal_actions()):
                return RuleError("bad_payment", f"{tool.name} is paid with a {colour} die of "
                                 "the pool: name it (in text: tool N pay M)")
            # No die named, and naming one would not do: why not, as for the first that pays.
            action = action._replace(die=self._pay_options(slot)[0])
        if tool.number == 7:
            return RuleError("cannot_use", f"paying with {die_text(self.pool[action.die])} "
                             "would leave no die in the pool to re-roll")
        if tool.number == 8:
            return RuleError("cannot_use", "no other pool die could go in your window now")
        if tool.on_drafted and not self.tool_outcomes(tool.number, self.held):
            return RuleError("cannot_use", f"{tool.name} would leave {die_text(self.held)} "
                             "with no cell it may go to")
        return RuleError("cannot_use", f"{tool.name} has nothing to act on now")

    def _do(self, action: Action, ev: list[Data] | None) -> None:
        seat = self.seat
        self.history.append((seat, action))
        kind = action.kind
        if kind == "draft":
            die = self.pool.pop(action.die)
            if ev is not None:
                ev.append({"type": "die_drafted", "seat": seat, "die": die_text(die),
                           "index": action.die})
            if action.cell < 0:
                self.held, self.step, self.drafted = die, HELD, True
                return
            self._place(die, action.cell, ev)
            if self.step == DRAFT_AGAIN:
                self.step = None
                self._end_turn(ev)
                return
            self.drafted = True
        elif kind == "place":
            self._place(self.held, action.cell, ev)
            self.held, self.step = 0, None
        elif kind == "tool":
            self._use_tool(action, ev)
            if self.step is not None:
                return
        elif kind == "value":
            self.held = COLOUR[self.held] * 6 + action.number
            if ev is not None:
                ev.append({"type": "die_set", "seat": seat, "tool": self.step_tool,
                           "die": die_text(self.held)})
            if self._hold_for_placing(ev):
                return
        elif kind == "swap":
            spot = self.track[action.number]
            self.held, spot[action.die] = spot[action.die], self.held
            if ev is not None:
                ev.append({"type": "die_swapped", "seat": seat, "die": die_text(self.held),
                           "round": action.number, "left": die_text(spot[action.die])})
            if self._hold_for_placing(ev):
                return
        elif kind == "move":
            if self._move(action, ev):
                return
        elif kind == "return":
            self._return_held(ev)
        elif kind == "stop":
            self._moves_done()
        elif kind == "pass":
            if ev is not None:
                ev.append({"type": "turn_passed", "seat": seat})
            self._end_turn(ev)
            return
        else:  # choose
            self._choose(action.number, ev)
            return
        if not self._turn_goes_on():
            self._end_turn(ev)

    def _place(self, die: int, cell: int, ev: list[Data] | None) -> None:
        seat = self.seat
        self._window(seat)[cell] = die
        self.filled[seat] |= 1 << cell
        if ev is not None:
            ev.append({"type": "die_placed", "seat": seat, "die": die_text(die),
                       "cell": _cell_data(cell)})

    def _turn_goes_on(self) -> bool:
        """Whether the seat to move has anything left to do this turn (else it ends by
        itself)."""
        if self.drafted:
            return bool(self._turn_tools())
        return self._placeable()  # a tool was used before drafting

    def _use_tool(self, action: Action, ev: list[Data] | None) -> None:
        seat, tool = self.seat, action.number
        slot = self.tools.index(tool)
        if self.solo:
            paid = self.pool.pop(action.die)
            cost: Data = {"paid": die_text(paid)}
        else:
            tokens = self.cost(slot)
            self.tokens[seat] -= tokens
            cost = {"tokens": tokens}
        self.uses[slot] += 1
        self.tool_done = True
        if ev is not None:
            ev.append({"type": "tool_used", "seat": seat, "tool": tool, **cost})
        self.step_tool = tool
        if tool == 1:
            self.step = VALUE_STEP
        elif tool == 5:
            self.step = SWAP
        elif tool == 6:
            self.held = self._reroll([self.held])[0]
            if ev is not None:
                ev.append({"type": "die_rerolled", "seat": seat, "die": die_text(self.held)})
            self._hold_for_placing(ev)
        elif tool == 9:
            self.step = PLACE
        elif tool == 10:
            self.held = COLOUR[self.held] * 6 + 7 - VALUE[self.held]
            if ev is not None:
                ev.append({"type": "die_turned", "seat": seat, "die": die_text(self.held)})
            self._hold_for_placing(ev)
        elif tool == 11:
            self.bag[COLOUR[self.held]] += 1
            colour = self._redraw()
            if ev is not None:
                ev.append({"type": "die_redrawn", "seat": seat, "returned": die_text(self.held),
                           "colour": COLOURS[colour]})
            self.held = colour * 6 + 1
            self.step = VALUE_STEP
        elif tool in MOVE_TOOLS:
            self.step, self.moves_left, self.moved, self.move_colour = (
                MOVE, MOVE_TOOLS[tool], -1, -1)
        elif tool == 7:
            self.pool = self._reroll(self.pool)
            if ev is not None:
                ev.append({"type": "pool_rerolled", "seat": seat,
                           "pool": [die_text(d) for d in self.pool]})
            self.step = None
        else:  # 8
            self.step = DRAFT_AGAIN
            self.skip |= 1 << seat
            if ev is not None:
                ev.append({"type": "second_turn_skipped", "seat": seat})

    def _hold_for_placing(self, ev: list[Data] | None) -> bool:
        """After a tool changed the die in hand: placing it becomes the step, or, if it fits
        nowhere (only after Flux Brush's roll: the other tools are offered only with an outcome
        that fits), it returns to the pool. Returns whether the step goes on."""
        seat = self.seat
        if self.step_tool == 11 or self.fits(seat, self.held):
            self.step = PLACE
            return True
        self._return_held(ev)
        return False

    def _return_held(self, ev: list[Data] | None) -> None:
        self.pool.append(self.held)
        if ev is not None:
            ev.append({"type": "die_returned", "seat": self.seat, "die": die_text(self.held)})
        self.held, self.step = 0, None

    def _move(self, action: Action, ev: list[Data] | None) -> bool:
        """One move of a moving tool; returns whether the tool's step goes on."""
        seat = self.seat
        window = self._window(seat)
        die = window[action.cell]
        window[action.to], window[action.cell] = die, 0
        self.filled[seat] = self.filled[seat] & ~(1 << action.cell) | 1 << action.to
        if ev is not None:
            ev.append({"type": "die_moved", "seat": seat, "die": die_text(die),
                       "from": _cell_data(action.cell), "to": _cell_data(action.to)})
        self.moves_left -= 1
        self.moved = action.to
        if self.step_tool == 12:
            self.move_colour = COLOUR[die]
        if self.moves_left and (self.step_tool == 4 or self.moves(
                seat, 12, self.moved, self.move_colour)):
            return True
        self._moves_done()
        return False

    def _moves_done(self) -> None:
        # The move step's own fields go with it: the state is then the one its view rebuilds.
        self.step, self.moves_left, self.moved, self.move_colour = None, 0, -1, -1

    def _end_turn(self, ev: list[Data] | None) -> None:
        self.drafted = self.tool_done = False
        self.step, self.step_tool, self.held = None, 0, 0
        order, players, skip = self.order, self.players, self.skip
        turn = self.turn + 1
        while turn < len(order) and turn >= players and skip >> order[turn] & 1:
            turn += 1
        if turn < len(order):
            self.turn, self.seat = turn, order[turn]
        else:
            self._end_round(ev)

    def _end_round(self, ev: list[Data] | None) -> None:
        left, self.pool = self.pool, []
        self.track[self.round] = left
        if ev is not None:
            ev.append({"type": "round_ended", "round": self.round,
                       "track": [die_text(d) for d in left]})
        self.round += 1
        if self.round == ROUNDS:
            self._finish(ev)
        else:
            self._start_round(ev)

    def _start_round(self, ev: list[Data] | None) -> None:
        players = self.players
        start = self.round % players
        forth = tuple((start + i) % players for i in range(players))
        self.order = forth + forth[::-1]
        self.turn, self.seat, self.skip = 0, start, 0
        self.pool = self._draw_pool(SOLO_DICE if self.solo else 2 * players + 1)
        if ev is not None:
            ev.append({"type": "round_started", "round": self.round, "order": list(self.order),
                       "pool": [die_text(d) for d in self.pool]})

    def _draw_colour(self, rng: random.Random) -> int:
        """A die drawn from the bag: its colour (each die left equally likely)."""
        bag = self.bag
        k = int(rng.random() * sum(bag))
        for colour, count in enumerate(bag):
            if k < count:
                bag[colour] -= 1
                return colour
            k -= count
        raise RuleError("empty_bag", "the bag is empty")

    def _choose(self, slot: int, ev: list[Data] | None) -> None:
        seat = self.seat
        self.chosen[seat] = self.dealt[seat][slot]
        if ev is not None:
            ev.append({"type": "pattern_chosen", "seat": seat})
        waiting = [s for s, c in enumerate(self.chosen) if c is None]
        if waiting:
            self.seat = waiting[0]
            return
        self.phase = PLAY
        chosen = [c for c in self.chosen if c is not None]  # every seat's, none waits
        if not self.solo:
            self.tokens = [self.patterns[c].difficulty for c in chosen]
        if ev is not None:
            ev.append({"type": "patterns_revealed", "patterns": chosen,
                       "names": [self.patterns[c].name for c in chosen],
                       "tokens": list(self.tokens)})
        self._start_round(ev)

    # -- the end ----------------------------------------------------------------------------

    def score_sheet(self, seat: int, private: bool = True) -> Data:
        """``seat``'s score as it stands: each public objective's points, the private
        objective's (the better of two in solo; left out with ``private=False``), favour tokens,
        empty cells and the total."""
        window = self.windows[seat]
        objectives = list(_objective_points(self.objectives, tuple(window)))
        empty = window.count(0)
        own = max(private_points(c, window) for c in self.privates[seat]) if private else 0
        penalty = SOLO_EMPTY_PENALTY if self.solo else 1
        total = sum(objectives) + own + self.tokens[seat] - penalty * empty
        return {"objectives": objectives, "private": own, "tokens": self.tokens[seat],
                "empty": empty, "total": total}

    def target(self) -> int:
        """Solo: the score to beat, the sum of the values on the round track."""
        return sum(VALUE[d] for dice in self.track for d in dice)

    def scores(self) -> list[int]:
        """Scores as they stand; private objectives count only once the game is over."""
        if self.outcome is not None:
            return list(self.outcome.scores)
        return [self.score_sheet(s, private=False)["total"] for s in range(self.players)]

    def result(self) -> Result | None:
        return self.outcome

    def _finish(self, ev: list[Data] | None) -> None:
        self.phase = OVER
        self.step, self.held = None, 0
        sheets = [self.score_sheet(s) for s in range(self.players)]
        scores = tuple(sheet["total"] for sheet in sheets)
        figures: Data = {"sheets": sheets}
        if self.solo:
            target = self.target()
            figures.update(target=target, won=scores[0] > target)
            ranking: tuple[int, ...] = (0,)
        else:
            last = (ROUNDS - 1) % self.players  # who opened round 10

            def standing(s: int) -> tuple[int, ...]:
                sheet = sheets[s]
                return (-sheet["total"], *(-sheet[key] for key in TIE_BREAKS),
                        -((s - last) % self.players))

            ranking = tuple(sorted(range(self.players), key=standing))
        self.outcome = Result(scores, ranking, figures)
        if ev is not None:
            ev.append({"type": "game_over", **self.outcome.to_data()})

    # -- what each one sees -----------------------------------------------------------------

    def view(self, seat: int | None = None, shared: bool = False) -> Data:
        """Everything ``seat`` may see; None is a spectator. Plain data, nothing secret: the
        pattern choices show once everyone has chosen, private objectives once the game is
        over. Dice are ``"R3"``, cells ``[row, column]`` from 0, windows 20 cells in reading
        order (``""`` for an empty one)."""
        over = self.phase == OVER
        revealed = self.phase != CHOOSE
        tools = []
        for slot, tool in enumerate(self.tools):
            cost: str | int | None
            if self.solo:  # paid with a die of the tool's colour, once
                cost = None if self.uses[slot] else TOOLS[tool].colour
            else:
                cost = self.cost(slot)
            tools.append({"tool": tool, "uses": self.uses[slot], "cost": cost})
        step = None
        if self.step is not None:
            step = {"kind": self.step, "tool": self.step_tool,
                    "held": die_text(self.held) if self.held else None,
                    "moves_left": self.moves_left,
                    "moved": _cell_data(self.moved) if self.moved >= 0 else None,
                    "colour": COLOURS[self.move_colour] if self.move_colour >= 0 else None}
        data: Data = {
            "game": "sagrada",
            "config": self.config if shared else dict(self.config),
            "version": self.version,
            "phase": self.phase,
            "turn": self.current_seat,
            "round": self.round,
            "order": list(self.order),
            "turn_index": self.turn,
            "skipping": [s for s in range(self.players) if self.skip >> s & 1],
            "tools": tools,
            "objectives": list(self.objectives),
            "pool": [die_text(d) for d in self.pool],
            "track": [[die_text(d) for d in dice] for dice in self.track],
            "bag": dict(zip(COLOURS, self.bag, strict=True)),
            "drafted": self.drafted,
            "tool_used": self.tool_done,
            "step": step,
            "seats": [{"chosen": c is not None, "pattern": c if revealed else None,
                       "tokens": self.tokens[s],
                       "window": list(_window_text(tuple(self.windows[s])))}
                      for s, c in enumerate(self.chosen)],
            "scores": self.scores(),
        }
        if over:
            assert self.outcome is not None
            data["result"] = self.outcome.to_data()
            data["seed"] = self.seed
            data["privates"] = [[COLOURS[c] for c in own] for own in self.privates]
        if seat is not None:
            data["you"] = seat
        return data

    def private(self, seat: int) -> Data | None:
        """What ``seat`` alone knows: its private objective(s), the four patterns it was dealt
        (indexes into the patterns in play) and the one it chose (None before)."""
        return {"objectives": [COLOURS[c] for c in self.privates[seat]],
                "patterns": list(self.dealt[seat]), "pattern": self.chosen[seat]}

    def private_seats(self, events: list[Data]) -> list[int]:
        return [e["seat"] for e in events if e["type"] == "pattern_chosen"]

    # -- records ----------------------------------------------------------------------------

    def to_record(self) -> Data:
        """The game record: config, seed (provenance), actions, and every random outcome: the
        ``setup`` dealt and what each later moment rolled or drew (``rolls``). A replay takes
        them from the record, so it needs neither the seed nor Python's generator. It holds
        every secret: the host gives it out once the game is over."""
        if self.origin:
            raise RuleError("no_record", "a state rebuilt from a view has no record")
        setup = {"tools": list(self.tools), "objectives": list(self.objectives),
                 "privates": [[COLOURS[c] for c in own] for own in self.privates],
                 "patterns": [list(own) for own in self.dealt]}
        record: Data = {
            "game": "sagrada", "config": self.config, "seed": self.seed,
            "actions": [{"seat": seat, **a.to_dict()} for seat, a in self.history],
            "setup": setup, "rolls": [list(r) for r in self.rolls],
        }
        if not self.spoiling:
            record["tools_fit"] = True
        if self.outcome is not None:
            record["result"] = self.outcome.to_data()
        return record

    def __repr__(self) -> str:
        return (f"<State sagrada players={self.players} version={self.version} "
                f"phase={self.phase} round={self.round} seat={self.current_seat}>")


def placement_problem(window: list[int], pattern: Pattern | None, die: int, cell: int,
                      loose: bool = False) -> tuple[str, str]:
    """Which placement rule ``die`` at ``cell`` breaks, as a code and a reason."""
    if pattern is None:
        return "wrong_phase", "choose a window pattern first"
    if window[cell]:
        return "cell_taken", f"the cell holds {die_text(window[cell])}"
    filled = sum(1 << i for i, d in enumerate(window) if d)
    near = filled & NEAR_CELLS[cell]
    if loose and near:
        return "not_alone", "Cork-backed Straightedge places a die next to no other die"
    if not loose and not filled and not EDGE[cell]:
        return "not_edge", "a window's first die goes on an edge or corner cell"
    if not loose and filled and not near:
        return "not_adjacent", "a die goes next to a die already in the window"
    want = pattern.cells[cell]
    if want and want in COLOURS and COLOURS.index(want) != COLOUR[die]:
        return "wrong_colour", f"the cell wants {COLOUR_NAMES[COLOURS.index(want)]}"
    if want.isdigit() and int(want) != VALUE[die]:
        return "wrong_value", f"the cell wants a {want}"
    for j in ORTH[cell]:
        other = window[j]
        if other and COLOUR[other] == COLOUR[die]:
            return "same_colour", f"it would touch {die_text(other)} at {cell_words(j)}"
        if other and VALUE[other] == VALUE[die]:
            return "same_value", f"it would touch {die_text(other)} at {cell_words(j)}"
    return "not_allowed", "that placement is not allowed now"


def replay(record: Data) -> tuple[State, list[Data]]:
    """Rebuild a game from its record; returns the state and every event, in order.

    The setup and every roll come from the record (``setup``, ``rolls``); a record of an older
    shape without them has them from its seed. A record of a game not over keeps its rolls not
    yet reached in the state, for the actions still to be applied (``sagani replay``). A record
    without ``tools_fit`` (written before issue 19) keeps the rule of its day, in its actions and
    in any play after them: Grozing Pliers, Lens Cutter and Grinding Stone could leave the die
    fitting nowhere, and it went back to the pool.

    :raises RuleError: ``bad_record`` for a malformed record, one whose setup or rolls cannot
        be (a die the bag no longer holds), one that holds more rolls than its play made, or
        whose result differs from the replay's; or the rule's own code, with the action's
        number, for the first action that is not legal.
    """
    check_record(record, "sagrada", needs=("config", "seed"))
    # The shapes records have had: setup and rolls, rolls alone, neither. Any other (a setup
    # null, rolls left out beside a setup) was dealt or rolled from the seed, quietly.
    if "setup" in record and (record["setup"] is None or "rolls" not in record):
        raise RuleError("bad_record", "a record with its setup (a map) has its rolls too")
    rolls = recorded_outcomes(record, "rolls")
    state = State.new(SAGRADA.parse_config(record["config"]), record["seed"], record.get("setup"))
    state.script = rolls
    # A game begun before a tool had to leave the drafted die a cell (issue 19) plays on by the
    # rule of its day, so that its record still replays: a record of today says "tools_fit".
    state.spoiling = record.get("tools_fit") is not True
    events = replay_actions(state, record["actions"])
    outcome = state.outcome
    check_replayed(state, record, "rolls", len(rolls), len(state.rolls),
                   None if outcome is None else outcome.to_data())
    return state, events


def _sample_secrets(
    s: State, seats: list[tuple[int | None, bool]], mine: int | None, known: tuple[int, ...],
    own_dealt: tuple[int, ...], own_pattern: int | None,
    privates: list[tuple[int, ...]] | None, rng: random.Random,
) -> None:
    """Sample into ``s`` what ``mine`` (None: a spectator) does not know, from ``rng`` and in
    this order: the secret seed of every future roll (the bag's order with it), the other
    seats' private objectives (unless the game is over: ``privates`` then, all of them), the
    patterns they were dealt and, before everyone has chosen, their choices. ``seats``: per
    seat, its public pattern (None until revealed) and whether it has chosen; ``known``,
    ``own_dealt`` and ``own_pattern``: ``mine``'s private data. ``from_view`` and
    ``Sagrada.resample`` both sample through here, so that they sample the same."""
    s.seed, s.draws = rng.getrandbits(62), 0
    if privates is None:
        left = [c for c in range(len(COLOURS)) if c not in known]
        shuffle(left, rng)
        per_seat = 2 if s.solo else 1
        privates = [known if i == mine else tuple(left.pop() for _ in range(per_seat))
                    for i in range(s.players)]
    s.privates = tuple(privates)
    # Patterns: a seat's own dealt four and choice are known; the others are sampled, keeping
    # every revealed choice.
    shown = {pattern for pattern, _ in seats if pattern is not None}
    free = [i for i in range(len(s.patterns)) if i not in shown and i not in own_dealt]
    shuffle(free, rng)
    dealt, chosen = [], []
    for i, (pattern, has_chosen) in enumerate(seats):
        if i == mine:
            dealt.append(own_dealt)
            chosen.append(own_pattern)
        elif pattern is not None:
            dealt.append((pattern, *(free.pop() for _ in range(PATTERNS_DEALT - 1))))
            chosen.append(pattern)
        else:
            hand = tuple(free.pop() for _ in range(PATTERNS_DEALT))
            dealt.append(hand)
            chosen.append(hand[int(rng.random() * len(hand))] if has_chosen else None)
    s.dealt, s.chosen = tuple(dealt), chosen


def from_view(view: Data, private: Data | None, seat: int | None, rng: random.Random) -> State:
    """A state that agrees with ``view`` and ``seat``'s private data, everything hidden sampled
    from ``rng``: the bag's order and every future roll (a new secret seed), the other seats'
    private objectives, the patterns they were dealt and, before everyone has chosen, their
    choices."""
    config = SAGRADA.parse_config(view["config"])
    s = State._blank(config, 0)
    s.tools = tuple(t["tool"] for t in view["tools"])
    s.uses = [t["uses"] for t in view["tools"]]
    s.objectives = tuple(view["objectives"])
    mine = seat if seat is not None and private is not None else None
    given: Data = private or {}  # read only when mine is not None
    seats = view["seats"]
    _sample_secrets(
        s, [(d["pattern"], d["chosen"]) for d in seats], mine,
        tuple(COLOURS.index(c) for c in given["objectives"]) if mine is not None else (),
        tuple(given["patterns"]) if mine is not None else (),
        given["pattern"] if mine is not None else None,
        [tuple(COLOURS.index(c) for c in own) for own in view["privates"]]
        if "privates" in view else None, rng)
    s.phase, s.round, s.order, s.turn = view["phase"], view["round"], tuple(view["order"]), view[
        "turn_index"]
    s.seat = view["turn"] if view["turn"] is not None else 0
    s.skip = sum(1 << i for i in view["skipping"])
    s.pool = [parse_die(d) for d in view["pool"]]
    s.track = [[parse_die(d) for d in dice] for dice in view["track"]]
    s.bag = [view["bag"][c] for c in COLOURS]
    s.windows = [[parse_die(c) if c else 0 for c in d["window"]] for d in seats]
    s.filled = [sum(1 << i for i, d in enumerate(w) if d) for w in s.windows]
    s.tokens = [d["tokens"] for d in seats]
    s.drafted, s.tool_done = view["drafted"], view["tool_used"]
    step = view["step"]
    if step is not None:
        s.step, s.step_tool, s.moves_left = step["kind"], step["tool"], step["moves_left"]
        s.held = parse_die(step["held"]) if step["held"] else 0
        s.moved = _wire_cell(step["moved"]) if step["moved"] else -1
        s.move_colour = COLOURS.index(step["colour"]) if step["colour"] else -1
    s.origin = view["version"]
    if s.phase == OVER:
        r = view["result"]
        figures = {k: v for k, v in r.items() if k not in ("scores", "ranking")}
        s.outcome = Result(tuple(r["scores"]), tuple(r["ranking"]), figures)
    return s


class Sagrada(Rules, about=ABOUT):
    """Sagrada behind the :class:`sagani_net.game.Game` seam."""

    action_type = Action
    words = words

    def parse_config(self, data: Any) -> Data:
        config = check_options(self.options, data)
        if config["players"] > 1 and config["difficulty"] != DEFAULT_DIFFICULTY:
            raise RuleError("bad_config", "difficulty is for the solo game (players 1)")
        if config["patterns"] is not None:
            config["patterns"] = checked_patterns(config["patterns"])
        elif config["pattern_set"] == "custom":
            raise RuleError("bad_config", "pattern_set custom needs patterns of your own")
        have, need = len(pattern_set(config)[0]), PATTERNS_DEALT * config["players"]
        if have < need:
            raise RuleError("bad_config", f"{config['players']} players need {need} patterns "
                            f"to deal, not {have}")
        return config

    def new_state(self, config: Data, seed: int) -> State:
        return State.new(config, seed)

    def replay(self, record: Data) -> tuple[State, list[Data]]:
        return replay(record)

    def determinize(self, view: Data, private: Data | None, seat: int | None,
                    rng: random.Random) -> State:
        return from_view(view, private, seat, rng)

    def resample(self, state: GameState, seat: int, rng: random.Random) -> State:
        """A copy of ``state`` with what ``seat`` does not know sampled afresh, as
        :func:`from_view` samples it from the seat's view (:func:`_sample_secrets`), and
        nothing of the truth's record kept; it shares nothing it may change with ``state``."""
        assert isinstance(state, State)
        s = state.clone()
        revealed = state.phase != CHOOSE
        _sample_secrets(
            s, [(c if revealed else None, c is not None) for c in state.chosen], seat,
            state.privates[seat], state.dealt[seat], state.chosen[seat],
            list(state.privates) if state.phase == OVER else None, rng)
        if not revealed:
            s.cache = [None] * s.players  # worked out from choices now sampled
        if s.step is None:  # as from_view, which reads a tool's step only while one is under way
            s.step_tool, s.held, s.moves_left, s.moved, s.move_colour = 0, 0, 0, -1, -1
        s.history, s.origin, s.rolls, s.script = [], state.version, [], ()
        s.spoiling = False  # as from_view: the rule of today
        # Nothing shared that the sample may change: a clone shares the windows (and what is
        # worked out from them) until one side writes, and a policy that writes to its
        # sample's would change the truth's game.
        s.windows = [window.copy() for window in state.windows]
        s.owned = (1 << s.players) - 1
        s.cache = [None if c is None else (c[0].copy(), c[1].copy()) for c in s.cache]
        s.config = {**state.config}
        return s

    def static_data(self, config: Data) -> Data:
        patterns = pattern_set(config)[0]
        return {
            "patterns": [p.to_data() for p in patterns],
            "tools": [{"number": t.number, "name": t.name, "colour": t.colour, "text": t.text,
                       "on_drafted": t.on_drafted} for t in TOOLS.values()],
            "objectives": [{"number": o.number, "name": o.name, "points": o.points,
                            "text": o.text} for o in OBJECTIVES.values()],
            "colours": list(COLOURS), "colour_names": list(COLOUR_NAMES),
            "rows": ROWS, "columns": COLUMNS, "rounds": ROUNDS,
        }


SAGRADA = Sagrada()
