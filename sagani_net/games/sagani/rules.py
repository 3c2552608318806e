"""The Sagani rules engine: one state object, deterministic from a seed.

The turn sequence lives here and only here (RULINGS R2, R5, R6, R7). A turn is two decisions for
the seat to move: choose where the tile comes from (``take``, ``draw``, ``pick``, ``pass``,
``reveal``), then ``place`` it.

>>> state = State.new(players=2, seed=7)
>>> state.current_seat, state.phase
(0, 'choose')
>>> events = state.apply(Action.take(0))
>>> events = state.apply(Action.place((0, 0), 90))
>>> state.current_seat
1
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

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
    check_result,
    is_int,
    positions,
    replay_actions,
    shuffle,
)
from sagani_net.games.sagani import words
from sagani_net.games.sagani.about import ABOUT, MODES
from sagani_net.games.sagani.tiles import (
    ARROWS,
    DIRECTIONS,
    ELEMENT_OF,
    ELEMENTS,
    ROTATIONS,
    TILE_IDS,
    TILES,
    VALUE_OF,
)

#: RULINGS R1: end thresholds by number of players (the German rulebook's).
THRESHOLDS = {1: 75, 2: 75, 3: 60, 4: 45}
DISCS = 24
OFFER_SIZE = 5
STORAGE_SIZE = 4
CACOPHONY_POINTS = 2
SOLO_GOAL = 75
SET_ASIDE = 5
BONUS_POINTS = 5
BONUS_FROM_TILE = 5
BONUS_MAX_UNFLIPPED = 2

CHOOSE, PLACE, OVER = "choose", "place", "over"
ROT_INDEX = {r: i for i, r in enumerate(ROTATIONS)}
_new_tuple = tuple.__new__
#: Each action's fields besides its type (protocol/games/sagani.md, Actions).
ACTION_FORMS: ActionForms = {
    "take": (("index",),), "draw": ((),), "pick": (("index",),), "pass": ((),),
    "reveal": ((),), "place": (("cell", "rotation"),),
}
ACTION_TYPES = tuple(ACTION_FORMS)


class Action(NamedTuple):
    """One decision. Text form: ``take 2``, ``draw``, ``pick 0``, ``pass``, ``reveal``,
    ``place 1,-1 90``; wire form: :meth:`to_dict`.

    >>> Action.parse("place 1,-1 90")
    Action(type='place', index=None, cell=(1, -1), rotation=90)
    >>> str(Action.take(2))
    'take 2'
    """

    type: str
    # The field shadows tuple.index on purpose: the wire and the text form call it index.
    index: int | None = None  # type: ignore[assignment]
    cell: tuple[int, int] | None = None
    rotation: int = 0

    @classmethod
    def take(cls, index: int) -> Action:
        return cls("take", index)

    @classmethod
    def pick(cls, index: int) -> Action:
        return cls("pick", index)

    @classmethod
    def place(cls, cell: tuple[int, int], rotation: int = 0) -> Action:
        return cls("place", None, (cell[0], cell[1]), rotation)

    def __str__(self) -> str:
        if self.type in ("take", "pick"):
            return f"{self.type} {self.index}"
        if self.type == "place":
            assert self.cell is not None
            return f"place {self.cell[0]},{self.cell[1]} {self.rotation}"
        return self.type

    def typed(self) -> str:
        """The action as typed in the console, where offer and storage tiles count from 1
        (the text form counts them from 0, as the wire does): ``take 1`` is ``take 0``."""
        if self.type in ("take", "pick"):
            return f"{self.type} {(self.index or 0) + 1}"
        return str(self)

    @classmethod
    def parse(cls, text: str) -> Action:
        """Read the text form; raises RuleError("bad_action", ...)."""
        words = text.split()
        try:
            if words and words[0] in ("take", "pick") and len(words) == 2:
                return cls(words[0], int(words[1]))
            if words and words[0] == "place" and len(words) in (2, 3):
                x, y = (int(v) for v in words[1].split(","))
                return cls.place((x, y), int(words[2]) if len(words) == 3 else 0)
            if len(words) == 1 and words[0] in ("draw", "pass", "reveal"):
                return cls(words[0])
        except ValueError:
            pass
        raise RuleError("bad_action", f"cannot read {text!r} as an action")

    def to_dict(self) -> Data:
        """The wire and record form, e.g. ``{"type": "take", "index": 2}``."""
        if self.type in ("take", "pick"):
            return {"type": self.type, "index": self.index}
        if self.type == "place":
            assert self.cell is not None
            return {
                "type": "place",
                "cell": [self.cell[0], self.cell[1]],
                "rotation": self.rotation,
            }
        return {"type": self.type}

    @classmethod
    def from_dict(cls, data: Any) -> Action:
        """Read the wire form, checking every field; raises RuleError("bad_action", ...)."""
        kind = action_form(data, ACTION_FORMS)
        if kind in ("take", "pick"):
            if not is_int(data["index"]):
                raise RuleError("bad_action", "index must be an integer")
            return cls(kind, data["index"])
        if kind == "place":
            cell, rotation = data["cell"], data["rotation"]
            if not (isinstance(cell, list | tuple) and len(cell) == 2 and all(map(is_int, cell))):
                raise RuleError("bad_action", "cell must be [x, y] with integers")
            if not is_int(rotation) or rotation not in ROTATIONS:
                raise RuleError("bad_action", "rotation must be 0, 90, 180 or 270")
            return cls.place((cell[0], cell[1]), rotation)
        return cls(kind)


TAKES = [Action("take", i) for i in range(OFFER_SIZE)]
PICKS = [Action("pick", i) for i in range(STORAGE_SIZE)]
DRAW, PASS, REVEAL = Action("draw"), Action("pass"), Action("reveal")


class Placement(NamedTuple):
    """What placing a tile would do, computed without changing anything (see :meth:`State.preview`).

    ``covers`` are ``(cell, direction)`` of arrows already in the display that the new tile
    covers; ``flips`` the cells of those tiles that complete; ``covered`` the new tile's own
    arrows that are covered at once (direction indexes); ``open`` the rest.
    """

    tile: int
    cell: tuple[int, int]
    rotation: int
    covers: tuple[tuple[tuple[int, int], int], ...]
    flips: tuple[tuple[int, int], ...]
    covered: tuple[int, ...]
    open: tuple[int, ...]
    points: int  # flipped value, the new tile's included when it completes at once
    discs_freed: int
    cacophony: int  # cacophony discs this placement takes

    @property
    def completes(self) -> bool:
        return not self.open

    def summary(self) -> Data:
        """Plain data for the console and the wire."""
        return {
            "tile": self.tile,
            "cell": list(self.cell),
            "rotation": self.rotation,
            "covers": [[c[0], c[1], DIRECTIONS[d]] for c, d in self.covers],
            "flips": [list(c) for c in self.flips] + ([list(self.cell)] if self.completes else []),
            "covered": [DIRECTIONS[d] for d in self.covered],
            "open": [DIRECTIONS[d] for d in self.open],
            "points": self.points,
            "discs_freed": self.discs_freed,
            "cacophony": self.cacophony,
        }


# Lines through a cell, used to find what an arrow sees in O(1). An arrow in direction d runs
# along line kind d & 3 (0: column, 1: NE-SW diagonal, 2: row, 3: SE-NW diagonal), towards a
# larger position along that line when d < 4. A line key packs (line, element, kind) in one int.
Lines = tuple[tuple[int, int], ...]
CellInfo = tuple[tuple[tuple[int, int], ...], tuple[Lines, ...]]
#: Cell -> (its four orthogonal neighbours, per element the (line key, position) of the four
#: lines through it), made once per cell: placing a tile is the hot path.
CELLS: dict[tuple[int, int], CellInfo] = {}


def cell_info(cell: tuple[int, int]) -> CellInfo:
    """``cell``'s entry of :data:`CELLS`, made and kept there (callers look in CELLS first:
    a cell seen before then costs no call)."""
    x, y = cell
    neighbours = ((x, y + 1), (x + 1, y), (x, y - 1), (x - 1, y))
    lines = tuple(
        ((x * 16 + e, y), ((x - y) * 16 + e + 1, x), (y * 16 + e + 2, x), ((x + y) * 16 + e + 3, x))
        for e in range(0, 16, 4)
    )
    info = CELLS[cell] = (neighbours, lines)
    return info


#: Indexed by tile * 4 + rotation index (a list: faster than a dict with tuple keys), per arrow
#: (direction, line kind, wanted element).
ARROW_LINES: list[tuple[tuple[int, int, int], ...]] = [()] * (4 * (max(TILES) + 1))
for (_tile, _rot), _arrows in ARROWS.items():
    ARROW_LINES[_tile * 4 + _rot] = tuple((d, d & 3, want) for d, want in _arrows)
#: Indexed by tile id.
ELEMENT: list[int] = [ELEMENT_OF.get(t, 0) for t in range(max(TILES) + 1)]
VALUE: list[int] = [VALUE_OF.get(t, 0) for t in range(max(TILES) + 1)]
ARROW_COUNT: list[int] = [len(ARROWS[t, 0]) if t in TILES else 0 for t in range(max(TILES) + 1)]
#: A display's entry ``(tile id, rotation index)``, indexed by tile * 4 + rotation index: made
#: once, not at every placement.
LAID: list[tuple[int, int]] = [(t, r) for t in range(max(TILES) + 1) for r in range(4)]


class Player:
    """One seat's display and supply. Shared between clones until one of them writes to it."""

    __slots__ = (
        "score", "landed", "supply", "cacophony", "turns", "bonus", "placed",
        "tiles", "open", "frontier", "ends", "watch", "owner", "shown",
    )

    def __init__(self, landed: int) -> None:
        self.score = 0
        self.landed = landed  # R4: the tick at which the marker last landed; lower is ahead
        self.supply = DISCS
        self.cacophony = 0
        self.turns = 0
        self.bonus = 0
        self.placed = 0
        self.tiles: dict[tuple[int, int], tuple[int, int]] = {}  # cell -> (tile id, rotation index)
        self.open: dict[tuple[int, int], tuple[int, ...]] = {}  # unflipped cell -> open directions
        self.frontier: dict[tuple[int, int], None] = {}  # empty cells next to the display, ordered
        # Line key -> (lowest, highest) position of a tile on it: what an arrow can see.
        self.ends: dict[int, tuple[int, int]] = {}
        self.watch: dict[int, tuple[tuple[int, tuple[int, int], int], ...]] = {}  # open arrows
        self.owner: object = None
        self.shown: tuple[tuple[tuple[Any, ...], ...], tuple[tuple[int, int], ...]] | None = None

    def copy(self, owner: object) -> Player:
        p = Player.__new__(Player)
        p.score, p.landed, p.supply, p.cacophony = (
            self.score,
            self.landed,
            self.supply,
            self.cacophony,
        )
        p.turns, p.bonus, p.placed = self.turns, self.bonus, self.placed
        p.tiles, p.open, p.frontier = self.tiles.copy(), self.open.copy(), self.frontier.copy()
        p.ends, p.watch = self.ends.copy(), self.watch.copy()
        p.owner = owner
        p.shown = self.shown
        return p

    def lay(self, cell: tuple[int, int], tile: int, rot: int, info: CellInfo | None = None
            ) -> None:
        """Put a tile in the display: it fills a frontier cell and becomes a target on its lines.
        ``info``: the cell's entry of :data:`CELLS`, if the caller has it already."""
        self.shown = None
        tiles = self.tiles
        tiles[cell] = LAID[tile * 4 + rot]
        self.placed += 1
        frontier = self.frontier
        frontier.pop(cell, None)
        neighbours, lines = info or CELLS.get(cell) or cell_info(cell)
        for n in neighbours:
            if n not in tiles:
                frontier[n] = None
        ends = self.ends
        for key, pos in lines[ELEMENT[tile]]:
            span = ends.get(key)
            if span is None:
                ends[key] = (pos, pos)
            elif pos < span[0]:
                ends[key] = (pos, span[1])
            elif pos > span[1]:
                ends[key] = (span[0], pos)

    def wait_for(self, cell: tuple[int, int], tile: int, rot: int, open_: tuple[int, ...]) -> None:
        """Note the tile's open arrows (directions ``open_``), so that a later tile on their
        lines covers them."""
        lines = (CELLS.get(cell) or cell_info(cell))[1]
        self.watch_open(cell, [(*lines[want][kind], d)
                               for d, kind, want in ARROW_LINES[tile * 4 + rot] if d in open_])

    def watch_open(self, cell: tuple[int, int], arrows: list[tuple[int, int, int]]) -> None:
        """:meth:`wait_for` with the open arrows as :meth:`own_arrows` finds them: (line key,
        position, direction), in the tile's arrow order."""
        self.shown = None
        watch = self.watch
        directions = []
        for key, pos, d in arrows:
            directions.append(d)
            watch[key] = watch.get(key, ()) + ((pos, cell, d),)
        self.open[cell] = tuple(directions)

    def unflipped_value(self) -> int:
        return sum(TILES[self.tiles[c][0]].value for c in self.open)

    def final_score(self) -> int:
        """Advanced solo (R7): the score if the game ended now."""
        return self.score - self.unflipped_value() + self.bonus - CACOPHONY_POINTS * self.cacophony

    def evaluate(self, tile: int, cell: tuple[int, int], rot: int) -> Placement:
        """R2 steps 3-5 for ``tile`` at ``cell``, without changing anything."""
        info = CELLS.get(cell) or cell_info(cell)
        covers, flips, freed = self.seen_by(tile, cell, info)
        covered, still_open = self.own_arrows(tile, cell, rot, info)
        tiles = self.tiles
        points = sum([VALUE[tiles[c][0]] for c in flips])
        if not still_open:
            points += VALUE[tile]
        missing = ARROW_COUNT[tile] - self.supply - freed
        # tuple.__new__ skips the named tuple's Python-level __new__: this is the hot path.
        return _new_tuple(
            Placement,
            (
                tile, cell, ROTATIONS[rot], tuple(covers), flips, tuple(covered),
                tuple([d for _, _, d in still_open]), points, freed, max(missing, 0),
            ),
        )

    def seen_by(self, tile: int, cell: tuple[int, int], info: CellInfo | None = None
                ) -> tuple[list[tuple[tuple[int, int], int]], tuple[tuple[int, int], ...], int]:
        """R2 step 3 for ``tile`` at ``cell``, whatever its rotation (a target is its element
        on its lines): the arrows in the display it covers ``(cell, direction)``, the cells of
        the tiles that then complete, and the discs they free."""
        lines = (info or CELLS.get(cell) or cell_info(cell))[1]
        covers = []
        flips: tuple[tuple[int, int], ...] = ()
        freed = 0
        watch = self.watch
        if watch:
            for key, pos in lines[ELEMENT[tile]]:
                waiting = watch.get(key)
                if waiting:
                    for at, source, d in waiting:
                        if (pos > at) if d < 4 else (pos < at):
                            covers.append((source, d))
            if covers:
                hits: dict[tuple[int, int], int] = {}
                for source, _ in covers:
                    hits[source] = hits.get(source, 0) + 1
                open_ = self.open
                flips = tuple([c for c, n in hits.items() if n == len(open_[c])])
                tiles = self.tiles
                for c in flips:
                    freed += ARROW_COUNT[tiles[c][0]]
        return covers, flips, freed

    def own_arrows(self, tile: int, cell: tuple[int, int], rot: int,
                   info: CellInfo | None = None) -> tuple[list[int], list[tuple[int, int, int]]]:
        """R2 step 5 for ``tile`` at ``cell`` turned ``rot``: its own arrows covered at once
        (directions) and those left open (line key, position, direction: what
        :meth:`watch_open` takes)."""
        lines = (info or CELLS.get(cell) or cell_info(cell))[1]
        ends = self.ends
        covered = []
        still_open = []
        for d, kind, want in ARROW_LINES[tile * 4 + rot]:
            key, pos = lines[want][kind]
            span = ends.get(key)
            if span is not None and (span[1] > pos if d < 4 else span[0] < pos):
                covered.append(d)
            else:
                still_open.append((key, pos, d))
        return covered, still_open


def shuffled_tiles(seed: int) -> list[int]:
    """The draw pile for ``seed``, top first."""
    tiles = list(TILE_IDS)
    shuffle(tiles, random.Random(seed))
    return tiles


class State(Engine):
    """A game of Sagani in progress. See the module docstring for an example.

    Public attributes the bots and the console read: ``phase`` (``choose``, ``place`` or
    ``over``), ``seat`` (to move), ``held`` (the tile to place, None in ``choose``), ``offer``
    and ``storage`` (tile ids), ``intermezzo``, ``seats`` (a :class:`Player` each: ``score``,
    ``supply``, ``cacophony``, ``tiles`` cell -> (tile, rotation index), ``open`` and
    ``frontier``); :meth:`preview` says what a placement would do. The pile's order
    (``pile``, ``set_aside``) is secret: in a state rebuilt from a view it is a sample.
    """

    action_type = Action
    __slots__ = (
        "players", "mode", "seed", "tiles", "threshold", "pile", "set_aside", "offer", "storage",
        "removed", "seats", "seat", "phase", "held", "turn_seat", "intermezzo",
        "taken_in_intermezzo", "end_triggered", "last_round", "history", "origin", "tick",
        "outcome", "mark", "old_solo_end",
    )
    players: int
    mode: str
    seed: int | None  # None: rebuilt from a view
    tiles: tuple[int, ...]  # the deal, top first, for the record
    threshold: int
    pile: list[int]  # top at the end
    set_aside: list[int]
    offer: list[int]
    storage: list[int]
    removed: list[int]
    seats: list[Player]
    held: int | None
    turn_seat: int
    intermezzo: tuple[tuple[int, ...], int] | None  # (seats in order, index of the one to move)
    taken_in_intermezzo: int
    end_triggered: bool  # basic solo too: the score reached 75 in this turn (R7)
    last_round: bool
    history: list[tuple[int, Action]]
    tick: int
    outcome: Result | None
    #: The owner of the displays this state may change in place: a token rather than the state
    #: itself, so that no display refers back to its state and a finished game is freed at
    #: once (a cycle waits for the collector, which then walks every object of the game).
    mark: object
    #: A record made before R7 was read "reaches 75" (see :func:`replay`): its basic solo game
    #: ended only on 75 at a turn's end, and replays so.
    old_solo_end: bool

    # -- creation ---------------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        players: int = 2,
        mode: str = "multi",
        seed: int | None = None,
        tiles: list[int] | None = None,
    ) -> State:
        """A new game. ``tiles`` (top first) overrides the shuffle, for tests and records: a
        record's tiles are what was played, its seed only where they came from (a program
        that cannot run this shuffle can still write and replay records)."""
        if mode not in MODES:
            raise RuleError("bad_config", f"mode must be one of {MODES}")
        if mode == "multi" and players not in (2, 3, 4) or mode != "multi" and players != 1:
            raise RuleError("bad_config", "multi is for 2-4 players, the solo modes for 1")
        if tiles is None:
            if seed is None:
                seed = random.SystemRandom().randrange(2**63)
            tiles = shuffled_tiles(seed)
        elif not all(map(is_int, tiles)) or sorted(tiles) != list(TILE_IDS):
            raise RuleError("bad_record", "tiles must be the 72 tile ids, each once")
        s = cls.__new__(cls)
        s.players = players
        s.mode = mode
        s.seed = seed
        s.tiles = tuple(tiles)
        s.threshold = THRESHOLDS[players]
        s.pile = list(reversed(tiles))  # top at the end, so dealing pops
        s.set_aside = []
        s.offer = []
        s.storage = []
        s.removed = []
        s.seats = [Player(i) for i in range(players)]
        s.seat = 0
        s.phase = CHOOSE
        s.held = None
        s.turn_seat = 0
        s.intermezzo = None
        s.taken_in_intermezzo = 0
        s.end_triggered = False
        s.last_round = False
        s.old_solo_end = False
        s.history = []
        s.origin = 0
        s.tick = players
        s.outcome = None
        s.mark = object()
        for p in s.seats:
            p.owner = s.mark
        if mode == "multi":
            s._refill(None)
        else:
            s._set_aside_top(None)
        return s

    def clone(self) -> State:
        """An independent copy; displays are shared until either side changes them."""
        c = State.__new__(State)
        c.players, c.mode, c.seed, c.tiles = self.players, self.mode, self.seed, self.tiles
        c.threshold, c.pile, c.set_aside = self.threshold, self.pile.copy(), self.set_aside.copy()
        c.offer, c.storage, c.removed = self.offer.copy(), self.storage.copy(), self.removed.copy()
        self.mark, c.mark = object(), object()  # neither may change the shared displays
        c.seats = self.seats.copy()
        c.seat, c.phase, c.held, c.turn_seat = self.seat, self.phase, self.held, self.turn_seat
        c.intermezzo, c.taken_in_intermezzo = self.intermezzo, self.taken_in_intermezzo
        c.end_triggered, c.last_round = self.end_triggered, self.last_round
        c.history, c.origin = self.history.copy(), self.origin
        c.tick, c.outcome, c.old_solo_end = self.tick, self.outcome, self.old_solo_end
        return c

    def _own(self, seat: int) -> Player:
        p = self.seats[seat]
        if p.owner is not self.mark:
            p = self.seats[seat] = p.copy(self.mark)
        return p

    # -- questions --------------------------------------------------------------------------

    def scores(self) -> list[int]:
        if self.outcome is not None:
            return list(self.outcome.scores)
        return [p.score for p in self.seats]

    def result(self) -> Result | None:
        return self.outcome

    def private(self, seat: int) -> Data | None:
        return None

    def private_seats(self, events: list[Data]) -> list[int]:
        return []

    def default_action(self) -> Action:
        """The move the host plays for a bot past its deadline: ``pass`` where it is legal (an
        intermezzo's pick is a choice, R5: a tile placed unturned on the first free cell could
        cost the seat cacophony that passing never does), else the first legal one (take the
        offer's first tile, place it on the first free cell unturned)."""
        actions = self.legal_actions()
        return PASS if PASS in actions else actions[0]

    def ranking(self) -> list[int]:
        """Seats best first (R4): more points, then the marker lower in its stack."""
        if self.outcome is not None:
            return list(self.outcome.ranking)
        seats = self.seats
        return sorted(range(self.players), key=lambda i: (-seats[i].score, seats[i].landed))

    def pile_size(self) -> int:
        return len(self.pile) + len(self.set_aside)

    def top_tile(self) -> int | None:
        """The pile's next tile; only its back (element, value) is public."""
        if self.pile:
            return self.pile[-1]
        return self.set_aside[0] if self.set_aside else None

    def can_draw(self) -> bool:
        return (
            self.intermezzo is None and self.mode == "multi" and len(self.offer) == 1
            and bool(self.pile) and len(self.storage) < STORAGE_SIZE
        )

    def legal_actions(self) -> list[Action]:
        """Every legal decision for the seat to move, in a stable order."""
        if self.phase == PLACE:
            rotations = ROTATIONS
            return [Action("place", None, c, r) for c in self._cells() for r in rotations]
        if self.phase == OVER:
            return []
        if self.mode != "multi":
            return [REVEAL]
        if self.intermezzo is not None:
            return PICKS[: len(self.storage)] + [PASS]
        actions = TAKES[: len(self.offer)]
        if self.can_draw():
            actions.append(DRAW)
        return actions or [PASS]

    def _cells(self) -> list[tuple[int, int]]:
        frontier = self.seats[self.seat].frontier
        return list(frontier) if frontier else [(0, 0)]

    def random_action(self, rng: random.Random) -> Action:
        """A uniformly random legal action, without listing them all."""
        if self.phase == PLACE:
            frontier = self.seats[self.seat].frontier
            i = int(rng.random() * 4 * (len(frontier) or 1))  # one draw picks cell and rotation
            cell = [*frontier][i >> 2] if frontier else (0, 0)
            return _new_tuple(Action, ("place", None, cell, ROTATIONS[i & 3]))
        if self.mode != "multi":
            return REVEAL
        if self.intermezzo is None and len(self.offer) > 1:
            return TAKES[int(rng.random() * len(self.offer))]
        actions = self.legal_actions()
        return actions[int(rng.random() * len(actions))]

    def preview(self, action: Action) -> Placement:
        """What placing the held tile as ``action`` would cover, flip, score and cost.

        Changes nothing. Raises RuleError if that placement is not legal now.
        """
        self._check_type(action)
        self._check(action)
        return self._evaluate(action)

    def _evaluate(self, action: Action) -> Placement:
        assert self.held is not None and action.cell is not None
        rot = ROT_INDEX[action.rotation]
        return self.seats[self.seat].evaluate(self.held, action.cell, rot)

    # -- the turn sequence ------------------------------------------------------------------

    def _check(self, action: Action) -> None:
        phase = self.phase
        kind = action.type
        if phase == OVER:
            raise RuleError("game_over", "the game is over")
        if phase == PLACE:
            if kind != "place":
                raise RuleError("wrong_phase", f"place the tile you hold first, not {kind}")
            if action.rotation not in ROTATIONS:
                raise RuleError("bad_rotation", "rotation must be 0, 90, 180 or 270")
            frontier = self.seats[self.seat].frontier
            if frontier and action.cell not in frontier:
                raise RuleError(
                    "not_adjacent",
                    f"cell {list(action.cell or ())} is not an empty cell next to your display",
                )
            if not frontier and action.cell != (0, 0):
                raise RuleError(
                    "first_tile_at_origin", "the first tile of a display goes at [0, 0]"
                )
            return
        if kind == "place":
            raise RuleError("wrong_phase", "choose a tile before placing one")
        if kind not in {a.type for a in self.legal_actions()}:
            raise RuleError("not_allowed", f"{kind} is not allowed now: {self._why_not(kind)}")
        if kind in ("take", "pick"):
            source = self.offer if kind == "take" else self.storage
            if not is_int(action.index) or not 0 <= action.index < len(source):
                raise RuleError("bad_index", f"{kind} index must be from 0 to {len(source) - 1}")

    def _why_not(self, kind: str) -> str:
        """Why a choice of ``kind`` is not open now (the choose phase of a game not over)."""
        if self.mode != "multi":
            return "in a solo game each turn begins with reveal"
        if kind == "reveal":
            return "reveal is for the solo games"
        if self.intermezzo is not None:
            return "during an intermezzo a seat picks a storage tile or passes"
        if kind == "pick":
            return "pick is for an intermezzo"
        if kind == "pass":
            return "there is an offer tile to take"
        if kind == "draw":  # can_draw() is false
            if len(self.offer) != 1:
                return f"a draw needs exactly one offer tile, and the offer holds {len(self.offer)}"
            if not self.pile:
                return "the pile is empty"
            return f"storage is full ({STORAGE_SIZE} tiles)"
        return "the offer is empty: pass"

    def _do(self, action: Action, ev: list[Data] | None) -> None:
        """R2 step 1 (choose) or steps 2-5 (place), then whatever the turn's end brings."""
        seat = self.seat
        kind = action.type
        self.history.append((seat, action))
        if kind == "place":
            self._place(action, ev)
            return
        if kind == "take":
            assert action.index is not None
            self.held = self.offer.pop(action.index)
        elif kind == "pick":
            assert action.index is not None
            self.held = self.storage.pop(action.index)
            self.taken_in_intermezzo += 1
        elif kind == "draw":
            stored = self.offer.pop()
            self.storage.append(stored)
            self.held = self.pile.pop()
            if ev is not None:
                ev.append({"type": "tile_stored", "seat": seat, "tile": stored})
        elif kind == "reveal":
            self.held = self.pile.pop() if self.pile else self.set_aside.pop(0)
        else:  # pass
            in_intermezzo = self.intermezzo is not None
            if ev is not None:
                reason = "intermezzo" if in_intermezzo else "no_tile"
                ev.append({"type": "player_passed", "seat": seat, "reason": reason})
            if in_intermezzo:
                self._next_in_intermezzo(ev)
            else:
                self._after_turn(ev)
            return
        self.phase = PLACE
        if ev is not None:
            source = {"take": "offer", "pick": "storage", "draw": "pile", "reveal": "pile"}[kind]
            event: Data = {"type": "tile_taken", "seat": seat, "tile": self.held, "source": source}
            if action.index is not None:
                event["index"] = action.index
            ev.append(event)

    def _place(self, action: Action, ev: list[Data] | None) -> None:
        seat = self.seat
        p = self.seats[seat]
        if p.owner is not self.mark:
            p = self._own(seat)
        tile, cell, rot = self.held, action.cell, ROT_INDEX[action.rotation]
        assert tile is not None and cell is not None
        info = CELLS.get(cell) or cell_info(cell)
        covers, flips, _ = p.seen_by(tile, cell, info)
        covered, still_open = p.own_arrows(tile, cell, rot, info)
        x, y = cell
        # R2 step 2: the tile lies in the display and becomes a target on its four lines.
        p.lay(cell, tile, rot, info)
        if ev is not None:
            ev.append({
                "type": "tile_placed", "seat": seat, "tile": tile, "cell": [x, y],
                "rotation": ROTATIONS[rot],
            })
        # R2 step 3: arrows already in the display that now see it; completed tiles flip.
        watch = p.watch
        open_ = p.open
        element = ELEMENT[tile]
        for source, d in covers:
            sx, sy = source
            key, pos = CELLS[source][1][element][d & 3]  # the line the arrow waits on
            waiting = watch[key]
            if len(waiting) == 1:
                del watch[key]
            else:
                i = waiting.index((pos, source, d))
                watch[key] = waiting[:i] + waiting[i + 1 :]
            still = open_[source]
            i = still.index(d)
            open_[source] = still[:i] + still[i + 1 :]
            p.shown = None
            if ev is not None:
                ev.append({
                    "type": "arrow_covered", "seat": seat, "cell": [sx, sy],
                    "arrow": DIRECTIONS[d], "by": [x, y],
                })
        for source in flips:
            self._flip(p, seat, source, ev)
        # R2 step 4: discs on the new tile (the flips gave theirs back), cacophony for the
        # missing ones, even if it completes.
        need = ARROW_COUNT[tile]
        if need > p.supply:
            missing = need - p.supply
            p.cacophony += missing
            p.supply = 0
            if self.mode != "solo-advanced":
                self._move(p, -CACOPHONY_POINTS * missing)
            if ev is not None:
                ev.append({
                    "type": "cacophony_taken", "seat": seat, "count": missing,
                    "score": p.score, "total": p.cacophony,
                })
        else:
            p.supply -= need
        # R2 step 5: the new tile's own arrows.
        if ev is not None:
            for d in covered:
                ev.append({
                    "type": "arrow_covered", "seat": seat, "cell": [x, y],
                    "arrow": DIRECTIONS[d], "by": None,
                })
        p.watch_open(cell, still_open)
        if not still_open:
            self._flip(p, seat, cell, ev)
        self.held = None
        if self.intermezzo is not None:
            self._next_in_intermezzo(ev)
        else:
            self._after_turn(ev)

    def _flip(self, p: Player, seat: int, cell: tuple[int, int], ev: list[Data] | None) -> None:
        tile = p.tiles[cell][0]
        del p.open[cell]
        p.shown = None
        p.supply += ARROW_COUNT[tile]
        value = TILES[tile].value
        self._move(p, value)
        if ev is not None:
            ev.append({
                "type": "tile_flipped", "seat": seat, "cell": list(cell), "tile": tile,
                "points": value, "score": p.score,
            })
        if p.score >= self.threshold and not self.end_triggered and self.mode != "solo-advanced":
            # R6: at once, and for good, even if cacophony follows; basic solo (R7): the game
            # is won the moment the score reaches 75, and ends with the turn.
            self.end_triggered = True
            if ev is not None and self.mode == "multi":
                ev.append({"type": "end_triggered", "seat": seat, "score": p.score})

    def _move(self, p: Player, points: int) -> None:
        """Move a score marker; it lands on top of the stack of its new value (R4)."""
        p.score += points
        p.landed = self.tick
        self.tick += 1

    def _after_turn(self, ev: list[Data] | None) -> None:
        """The end of a regular turn: solo ends, intermezzo, game end, refill, next seat."""
        seat = self.seat
        p = self.seats[seat]
        if p.owner is not self.mark:
            p = self._own(seat)
        p.turns += 1
        self.phase = CHOOSE
        if self.mode != "multi":
            self._after_solo_turn(p, ev)
            return
        if not self.offer and len(self.storage) == STORAGE_SIZE:
            self._start_intermezzo(ev)
            return
        self._continue_round(ev)

    def _continue_round(self, ev: list[Data] | None) -> None:
        """After a regular turn (and its intermezzo): end the game or hand over to the next seat."""
        seat = self.turn_seat
        if (self.end_triggered or self.last_round) and seat == self.players - 1:
            self._finish(ev)
            return
        if not self.offer:
            self._refill(ev)
        self.seat = self.turn_seat = (seat + 1) % self.players

    def _refill(self, ev: list[Data] | None) -> None:
        pile = self.pile
        dealt = pile[: -OFFER_SIZE - 1 : -1]  # the top five (fewer when short), top first
        del pile[-OFFER_SIZE:]
        self.offer.extend(dealt)
        if ev is not None:
            ev.append({"type": "offer_refilled", "tiles": dealt})
        if len(self.pile) <= 4 and not self.last_round:
            self.last_round = True  # R6: the pile ran low, this round is the last
            if ev is not None:
                ev.append({"type": "last_round", "pile": len(self.pile)})

    def _start_intermezzo(self, ev: list[Data] | None) -> None:
        order = tuple(reversed(self.ranking()))  # R5: furthest behind first, fixed now
        self.intermezzo = (order, 0)
        self.taken_in_intermezzo = 0
        self.seat = order[0]
        if ev is not None:
            ev.append(
                {"type": "intermezzo_started", "order": list(order), "storage": self.storage[:]}
            )

    def _next_in_intermezzo(self, ev: list[Data] | None) -> None:
        assert self.intermezzo is not None
        order, i = self.intermezzo
        self.phase = CHOOSE
        if i + 1 < len(order) and self.storage:
            self.intermezzo = (order, i + 1)
            self.seat = order[i + 1]
            return
        self.intermezzo = None
        if ev is not None:
            ev.append({"type": "intermezzo_ended", "taken": self.taken_in_intermezzo})
        if self.taken_in_intermezzo == 0:
            cleared, self.storage = self.storage, []
            self.removed.extend(cleared)
            if ev is not None:
                ev.append({"type": "storage_cleared", "tiles": cleared})
        self._continue_round(ev)

    def _after_solo_turn(self, p: Player, ev: list[Data] | None) -> None:
        if self.mode == "solo":
            if self._solo_won(p) or not self.pile:
                self._finish(ev)
            return
        if p.placed >= BONUS_FROM_TILE and len(p.open) <= BONUS_MAX_UNFLIPPED:
            p.bonus += BONUS_POINTS
            if ev is not None:
                ev.append({"type": "bonus", "seat": 0, "points": BONUS_POINTS, "total": p.bonus})
        if not self.pile and not self.set_aside:
            self._finish(ev)
            return
        self._set_aside_top(ev)

    def _solo_won(self, p: Player) -> bool:
        """Basic solo: the score reached 75 in this game (R7), even if this turn's cacophony
        took it back below; an old record's game (``old_solo_end``): 75 at the turn's end."""
        return p.score >= SOLO_GOAL if self.old_solo_end else self.end_triggered

    def _set_aside_top(self, ev: list[Data] | None) -> None:
        """Advanced solo: the first five 1- or 3-point tiles go aside face down, to come last."""
        if self.mode != "solo-advanced":
            return
        pile = self.pile
        while pile and len(self.set_aside) < SET_ASIDE and TILES[pile[-1]].value in (1, 3):
            tile = pile.pop()
            self.set_aside.append(tile)
            if ev is not None:
                t = TILES[tile]
                ev.append({"type": "tile_set_aside", "element": t.element, "value": t.value})

    def _finish(self, ev: list[Data] | None) -> None:
        self.phase = OVER
        self.intermezzo = None
        p = self.seats[0]
        if self.mode == "solo":
            won = self._solo_won(p)
            self.outcome = Result((p.score,), (0,), {"tiles_used": p.placed, "won": won})
        elif self.mode == "solo-advanced":
            self.outcome = Result((p.final_score(),), (0,))
        else:
            self.outcome = Result(tuple(self.scores()), tuple(self.ranking()))
        if ev is not None:
            ev.append({"type": "game_over", **self.outcome.to_data()})

    # -- views and records ------------------------------------------------------------------

    def view(self, seat: int | None = None, shared: bool = False) -> Data:
        """Everything ``seat`` may see (R8); None is a spectator. Plain data, nothing secret.

        Each display tile is ``[x, y, tile, rotation, covered, flipped]`` where ``covered`` is
        a bitmask over the rotated arrow directions (bit 0 = N, 1 = NE, ... 7 = NW).
        ``shared=True`` gives the displays and frontiers as the engine's own tuples instead of
        fresh lists: for a caller that encodes the view at once (the host, after every action).
        """
        top = self.top_tile()
        over = self.phase == OVER
        data: Data = {
            "game": "sagani",
            "players": self.players,
            "mode": self.mode,
            "version": self.origin + len(self.history),
            "phase": self.phase,
            "turn": None if over else self.seat,
            "held": self.held,
            "offer": self.offer[:],
            "storage": self.storage[:],
            "removed": self.removed[:],
            "pile": len(self.pile) + len(self.set_aside),
            "top": None if top is None else _back(top),
            "set_aside": [_back(t) for t in self.set_aside],
            "unseen": sorted(self.pile + self.set_aside),
            "can_draw": self.phase == CHOOSE and self.can_draw(),
            "intermezzo": None
            if self.intermezzo is None
            else {"order": list(self.intermezzo[0]), "after": self.turn_seat},
            "threshold": self.threshold if self.mode == "multi" else SOLO_GOAL,
            "end_triggered": self.end_triggered,
            "last_round": self.last_round,
            "ranking": self.ranking(),
            "seats": [_seat_view(p, shared) for p in self.seats],
        }
        if over:
            assert self.outcome is not None
            data["result"] = self.outcome.to_data()
            data["seed"] = self.seed
            data["tiles"] = list(self.tiles)
        if seat is not None:
            data["you"] = seat
        return data

    def to_record(self) -> Data:
        """The game record (``protocol/RECORD.md``): enough to replay the game exactly.

        ``config`` is the table's; ``players`` and ``mode`` stay beside it for readers of the
        first record format, which had only them.
        """
        if self.origin:
            raise RuleError("no_record", "a state rebuilt from a view has no record")
        record: Data = {
            "game": "sagani",
            "config": {"players": self.players, "mode": self.mode},
            "players": self.players,
            "mode": self.mode,
            "seed": self.seed,
            "tiles": list(self.tiles),
            "actions": [{"seat": seat, **a.to_dict()} for seat, a in self.history],
        }
        if self.outcome is not None:
            record["result"] = self.outcome.to_data()
        return record

    @classmethod
    def from_record(cls, record: Data) -> State:
        """Replay a record; raises RuleError at the first action that does not hold."""
        state, events = replay(record)
        return state

    @classmethod
    def from_view(cls, view: Data, rng: random.Random) -> State:
        """A state that agrees with a public ``view``, the unknown draw order sampled at random.

        This is how a bot, which never sees the draw order, gets a state to search: every
        unseen tile is equally likely anywhere in the pile, except that the top tile and the
        set-aside tiles (advanced solo) match their public backs.
        """
        players = view["players"]
        s = cls.__new__(cls)
        s.players, s.mode, s.seed, s.tiles = players, view["mode"], None, ()
        s.threshold = THRESHOLDS[players]
        s.pile, s.set_aside = _sampled_pile(view["unseen"], view["set_aside"], view["pile"],
                                            view["top"], rng)
        s.offer, s.storage, s.removed = (
            list(view["offer"]),
            list(view["storage"]),
            list(view["removed"]),
        )
        s.seat = view["turn"] if view["turn"] is not None else 0
        s.phase = view["phase"]
        s.held = view["held"]
        intermezzo = view["intermezzo"]
        if intermezzo is None:
            s.intermezzo, s.turn_seat, s.taken_in_intermezzo = None, s.seat, 0
        else:
            order = tuple(intermezzo["order"])
            s.intermezzo = (order, order.index(s.seat))
            s.turn_seat = intermezzo["after"]
            s.taken_in_intermezzo = STORAGE_SIZE - len(s.storage)
        s.end_triggered, s.last_round = view["end_triggered"], view["last_round"]
        s.history, s.origin, s.tick, s.outcome = [], view["version"], players, None
        s.old_solo_end = False
        s.mark = object()
        s.seats = []
        for seat, data in enumerate(view["seats"]):
            p = Player(view["ranking"].index(seat))
            p.owner = s.mark
            p.score, p.supply, p.cacophony = data["score"], data["supply"], data["cacophony"]
            p.turns, p.bonus = data["turns"], data["bonus"]
            for x, y, tile, rotation, *_ in data["display"]:
                p.lay((x, y), tile, ROTATIONS.index(rotation))
            for x, y, tile, rotation, covered, flipped in data["display"]:
                if not flipped:
                    rot = ROTATIONS.index(rotation)
                    open_ = tuple(d for d, _ in ARROWS[tile, rot] if not covered >> d & 1)
                    p.wait_for((x, y), tile, rot, open_)
            s.seats.append(p)
        if s.phase == OVER:
            figures = dict(view["result"])
            scores, ranking = figures.pop("scores"), figures.pop("ranking")
            s.outcome = Result(tuple(scores), tuple(ranking), figures)
        return s

    def __repr__(self) -> str:
        return (
            f"<State {self.mode} players={self.players} version={self.version} "
            f"phase={self.phase} seat={self.current_seat} scores={self.scores()}>"
        )


def _back(tile: int) -> list[Any]:
    """What everyone sees of a face-down ``tile``: its back, ``[element, value]``."""
    return [TILES[tile].element, TILES[tile].value]


def _sampled_pile(unseen: list[int], set_aside: list[list[Any]], pile: int, top: Any,
                  rng: random.Random) -> tuple[list[int], list[int]]:
    """The draw pile (top at the end) and the set-aside tiles, sampled from ``rng`` as a
    seat knows them: the ``unseen`` tiles (sorted), ``pile`` of them face down (the set-aside
    ones included), the backs of the ``set_aside`` ones and of the ``top`` one. Every unseen
    tile is equally likely anywhere, except that the top tile and the set-aside ones match
    their backs. ``State.from_view`` and ``Sagani.resample`` both sample through here."""
    left = list(unseen)
    shuffle(left, rng)

    def take_back(back: list[Any]) -> int:
        for i, t in enumerate(left):
            if TILES[t].element == back[0] and TILES[t].value == back[1]:
                return left.pop(i)
        raise RuleError("bad_view", f"no unseen tile has the back {back}")

    aside = [take_back(back) for back in set_aside]
    main_pile = pile - len(aside)
    top_tile = [take_back(top)] if main_pile > 0 else []
    return left[: max(0, main_pile - len(top_tile))] + top_tile, aside


def _seat_view(p: Player, shared: bool = False) -> Data:
    if p.shown is None:
        # Worked out once per change of the display: the host sends a view after every action.
        rows = []
        for (x, y), (tile, rot) in p.tiles.items():
            open_ = p.open.get((x, y))
            covered = 0
            for d, _ in ARROWS[tile, rot]:
                if open_ is None or d not in open_:
                    covered |= 1 << d
            rows.append((x, y, tile, ROTATIONS[rot], covered, open_ is None))
        p.shown = (tuple(rows), tuple(p.frontier) or ((0, 0),))
    display, frontier = p.shown
    return {
        "score": p.score,
        "supply": p.supply,
        "cacophony": p.cacophony,
        "turns": p.turns,
        "bonus": p.bonus,
        "display": display if shared else list(map(list, display)),
        "frontier": frontier if shared else list(map(list, frontier)),
    }


def replay(record: Data) -> tuple[State, list[Data]]:
    """Rebuild a game from its record; returns the state and every event, in order.

    :raises RuleError: ``bad_record`` for a malformed record, or the rule's own code, with the
        action's number, for the first action that is not legal.
    """
    check_record(record, "sagani", lists=("tiles", "actions"), needs=())
    if "config" in record:
        config = record["config"]
    else:  # the first record format: players and mode, no config
        for field in ("players", "mode"):
            if field not in record:
                raise RuleError("bad_record", f"the record has no 'config' (nor {field!r})")
        config = {"players": record["players"], "mode": record["mode"]}
    try:
        config = SAGANI.parse_config(config)
    except RuleError as e:
        raise RuleError("bad_record", f"the record's config: {e.message}") from None
    state = State.new(config["players"], config["mode"], record.get("seed"), record["tiles"])
    events = [e for _, made in SAGANI.positions(state, record["actions"]) for e in made]
    check_result(record, None if state.outcome is None else state.outcome.to_data())
    return state, events


def _ends_early(state: State, actions: Sequence[Data]) -> bool:
    """Whether today's R7 ends ``state``'s game before ``actions`` do. A basic solo game played
    before R7 was read "reaches 75" went on after a turn that reached 75 and ended below it
    (cacophony), and ended only on 75 at a turn's end; no game of today's rule can: it ended
    at that turn."""
    try:
        replay_actions(state.clone(), actions)
    except RuleError as e:
        return e.code == "game_over"
    return False


class Sagani(Rules, about=ABOUT):
    """Sagani behind the :class:`sagani_net.game.Game` seam.

    >>> SAGANI.parse_config({"players": 1})
    {'players': 1, 'mode': 'solo'}
    >>> SAGANI.action_text({"type": "place", "cell": [1, -1], "rotation": 90})
    'place 1,-1 90'
    """

    action_type = Action
    words = words

    def parse_config(self, data: Any) -> Data:
        if isinstance(data, dict):
            # Either word alone says which: one player plays the basic solo, a solo mode has
            # one player.
            if data.get("players") == 1 and "mode" not in data:
                data = {**data, "mode": "solo"}
            elif data.get("mode", "multi") != "multi" and "players" not in data:
                data = {**data, "players": 1}
        config = check_options(self.options, data)
        mode, players = config["mode"], config["players"]
        if mode == "multi" and players not in (2, 3, 4) or mode != "multi" and players != 1:
            raise RuleError("bad_config", "multi is for 2-4 players, the solo modes for 1")
        return {"players": players, "mode": mode}

    def new_state(self, config: Data, seed: int) -> State:
        return State.new(config["players"], config["mode"], seed)

    def positions(self, state: GameState, actions: Sequence[Data]
                  ) -> Iterator[tuple[int, list[Data]]]:
        assert isinstance(state, State)
        if state.mode == "solo" and not state.old_solo_end and _ends_early(state, actions):
            state.old_solo_end = True  # the rule it was played by
        return positions(state, actions)

    def replay(self, record: Data) -> tuple[State, list[Data]]:
        return replay(record)

    def determinize(
        self, view: Data, private: Data | None, seat: int | None, rng: random.Random
    ) -> State:
        """A state behind ``view`` with the draw order sampled (:meth:`State.from_view`).
        Sagani gives no seat anything private (``private`` is None): every seat, and a
        spectator, knows the same."""
        return State.from_view(view, rng)

    def resample(self, state: GameState, seat: int, rng: random.Random) -> State:
        """A copy of ``state`` with the draw order sampled afresh, as :meth:`State.from_view`
        samples it from a view (:func:`_sampled_pile`), and nothing of the truth's deal or
        record kept; it shares nothing it may change with ``state``."""
        assert isinstance(state, State)
        s = state.clone()
        top = state.top_tile()
        s.pile, s.set_aside = _sampled_pile(
            sorted(state.pile + state.set_aside), [_back(t) for t in state.set_aside],
            state.pile_size(), None if top is None else _back(top), rng)
        s.seed, s.tiles, s.history, s.origin = None, (), [], state.version
        # Displays of its own: a clone shares them until one side plays, and a policy that
        # writes to its sample's (a placement tried by hand) would change the truth's game.
        s.seats = [p.copy(s.mark) for p in state.seats]
        return s

    def static_data(self, config: Data) -> Data:
        """The 72 tiles as printed upright (``arrows``: ``[direction, element]``), and the
        names that views and actions use for elements, directions and rotations."""
        return {"tiles": [{"id": t.id, "element": t.element, "value": t.value,
                           "arrows": [list(a) for a in t.arrows]} for t in TILES.values()],
                "elements": list(ELEMENTS), "directions": list(DIRECTIONS),
                "rotations": list(ROTATIONS)}


SAGANI = Sagani()

__all__ = [
    "Action", "Placement", "RuleError", "SAGANI", "State", "replay", "shuffled_tiles",
    "ELEMENTS", "DIRECTIONS",
]
