"""The console's state: what the host said, what you are choosing, and what changed.

Nothing here draws or talks to the network. The app feeds it snapshots and updates and asks it
for the actions to send; :mod:`cli.console.render` draws it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from sagani_net.games.sagani.rules import Action, RuleError, State
from sagani_net.games.sagani.tiles import ROTATIONS, TILES

Cell = tuple[int, int]
Data = dict[str, Any]

#: Log lines kept in memory (the screen shows the last few).
LOG_LIMIT = 500
GAME, HELP, FINAL = "game", "help", "final"
ONLINE, CONNECTING, RECONNECTING, OFFLINE, LOCAL = (
    "online", "connecting", "reconnecting", "offline", "local",
)  # fmt: skip


@dataclass
class Selection:
    """A tile in hand, not yet placed: where it comes from, and where its ghost stands.

    ``source`` is the choice still to be sent (``take 2``) or None when the host already
    knows it (a drawn or revealed tile, or a take sent before a reconnect).
    """

    source: Action | None
    tile: int
    cell: Cell
    rotation: int = 0


@dataclass
class ConsoleModel:
    """Everything the console shows; see the module docstring."""

    you: int | None = None
    table: str = ""
    status: str = "open"
    connection: str = CONNECTING
    view: Data | None = None
    seats: list[Data] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    shown: int = 0
    selection: Selection | None = None
    preview: Data | None = None
    message: str = ""
    page: str = GAME
    pan: list[int] = field(default_factory=lambda: [0, 0])
    #: seat -> cells that are new or changed since your last turn ended.
    changed: dict[int, set[Cell]] = field(default_factory=dict)
    #: Replay: "move 12/80" for the status line; empty when live.
    replay_step: str = ""
    #: Log lines from this index on, and these scores, are what happened since your last turn.
    log_mark: int = 0
    scores_mark: list[int] = field(default_factory=list)
    _mark: dict[int, dict[Cell, tuple[Any, ...]]] = field(default_factory=dict)
    _state: State | None = None
    _state_version: int = -1

    # -- questions --------------------------------------------------------------------------

    @property
    def phase(self) -> str:
        return self.view["phase"] if self.view else "open"

    @property
    def turn(self) -> int | None:
        return self.view["turn"] if self.view and self.status == "running" else None

    @property
    def my_turn(self) -> bool:
        return self.you is not None and self.turn == self.you and not self.replay_step

    @property
    def players(self) -> int:
        return self.view["players"] if self.view else len(self.seats)

    def name(self, seat: int) -> str:
        """A seat's name as people read it: its player's name, or "seat N"."""
        if seat < len(self.seats):
            name = self.seats[seat].get("name") or ""
            if name:
                return name[:10]
        return f"seat {seat + 1}"

    def state(self) -> State | None:
        """A local engine state agreeing with the view, for legal cells and previews."""
        if self.view is None:
            return None
        if self._state_version != self.view["version"] or self._state is None:
            # The draw order is unknown here; a fixed seed keeps the console deterministic.
            self._state = State.from_view(self.view, random.Random(0))
            self._state_version = self.view["version"]
        return self._state

    def legal_cells(self) -> list[Cell]:
        """Where the tile in hand may go: empty cells next to your display, or (0, 0)."""
        if self.view is None or self.you is None:
            return []
        frontier = self.view["seats"][self.you]["frontier"]
        return [(c[0], c[1]) for c in frontier]

    def choices(self) -> list[Action]:
        """The choose-phase actions open to you now (take, draw, pick, pass, reveal)."""
        state = self.state()
        if state is None or not self.my_turn or self.phase != "choose":
            return []
        return state.legal_actions()

    # -- feeding from the host --------------------------------------------------------------

    def load(self, snapshot: Data) -> None:
        """Take a snapshot (join, sync, refused action): the whole truth."""
        self.table = snapshot.get("table", self.table)
        if "you" in snapshot:
            self.you = snapshot["you"]
        self.seats = snapshot.get("seats", self.seats)
        self._take(snapshot)

    def receive(self, message: Data) -> None:
        """Take an update or an accepted reply: new view, and its events in words."""
        if "seats" in message:
            self.seats = message["seats"]
        ended = False
        events = message.get("events", ())
        placed = [e["seat"] for e in events if e.get("type") == "tile_placed"]
        if self.you is None and placed:
            # A spectator has no turns: highlight the latest move, on the display it changed.
            self.remember()
            self.shown = placed[-1]
        for event in events:
            self.add_log(describe(event, self))
            mine = event.get("seat") == self.you and self.you is not None
            ended |= mine and event.get("type") in ("tile_placed", "player_passed")
        self._take(message)
        if ended:
            self.remember()  # your turn ended: changes count from here (solo games too)

    def _take(self, message: Data) -> None:
        self.status = message.get("status", self.status)
        if "view" in message and message["view"]:
            self.view = message["view"]
        if self.you is not None and self.view is not None and self.shown >= self.players:
            self.shown = self.you
        if self.view is not None and not self._mark:
            self.remember()  # the first view: nothing is new yet, and your display comes first
            if self.you is not None:
                self.shown = self.you
        self._keep_selection()
        if self.status == "over" and self.page == GAME and self.view is not None:
            self.page = FINAL
        self._find_changes()

    def remember(self) -> None:
        """Note every display as it is now; later differences are highlighted."""
        if self.view is None:
            return
        self._mark = {
            seat: {(t[0], t[1]): tuple(t[2:]) for t in data["display"]}
            for seat, data in enumerate(self.view["seats"])
        }
        self.log_mark = len(self.log)
        self.scores_mark = [data["score"] for data in self.view["seats"]]
        self.changed = {}

    def _find_changes(self) -> None:
        if self.view is None:
            return
        self.changed = {}
        for seat, data in enumerate(self.view["seats"]):
            before = self._mark.get(seat, {})
            cells = {
                (t[0], t[1]) for t in data["display"] if before.get((t[0], t[1])) != tuple(t[2:])
            }
            if cells:
                self.changed[seat] = cells

    def _keep_selection(self) -> None:
        """Keep the ghost across updates while it still makes sense; start one if a tile is
        already held (a draw, a reveal, or a take sent before a reconnect)."""
        if not self.my_turn:
            self.selection = None
            self.preview = None
            return
        if self.phase == "place":
            held = self.view["held"] if self.view else None
            sel = self.selection
            if held is None:
                self.selection = None
            elif sel is None or sel.tile != held:
                self.selection = Selection(None, held, self._start_cell())
            else:
                sel.source = None  # the host holds the choice now; keep the ghost where it is
            self.update_preview()
        elif self.selection is not None:
            # A ghost for a choice no longer open (or for a tile already placed) goes.
            if self.selection.source is None or self.selection.source not in self.choices():
                self.selection = None
            self.update_preview()

    def add_log(self, line: str) -> None:
        self.log.append(line)
        if len(self.log) > LOG_LIMIT:
            dropped = len(self.log) - LOG_LIMIT
            del self.log[:dropped]
            self.log_mark = max(0, self.log_mark - dropped)

    # -- choosing and placing ---------------------------------------------------------------

    def select(self, action: Action) -> list[Action]:
        """Choose where your tile comes from. ``take``/``pick`` start a ghost locally (nothing is
        sent until you confirm); ``draw``, ``reveal`` and ``pass`` are returned to send now."""
        if action not in self.choices():
            self.message = f"{_human(action)} is not possible now"
            return []
        self.message = ""
        if action.type in ("take", "pick"):
            assert self.view is not None and action.index is not None
            source = self.view["offer"] if action.type == "take" else self.view["storage"]
            tile = source[action.index]
            sel = self.selection
            keep = sel is not None and sel.source is not None
            cell = sel.cell if keep and sel is not None else self._start_cell()
            rotation = sel.rotation if keep and sel is not None else 0
            self.selection = Selection(action, tile, cell, rotation)
            self.shown = self.you if self.you is not None else self.shown
            self.update_preview()
            return []
        self.selection = None
        return [action]

    def _start_cell(self) -> Cell:
        cells = self.legal_cells()
        if not cells:
            return (0, 0)
        return min(cells, key=lambda c: (abs(c[0]) + abs(c[1]), -c[1], c[0]))

    def move(self, dx: int, dy: int) -> None:
        """Move the ghost to the nearest legal cell in direction (dx, dy)."""
        sel = self.selection
        if sel is None:
            # Pan: offsets from the display's west and north edges, kept within the display.
            cells = [(t[0], t[1]) for t in self.view["seats"][self.shown]["display"]] if (
                self.view) else []  # fmt: skip
            xs, ys = [c[0] for c in cells] or [0], [c[1] for c in cells] or [0]
            self.pan[0] = min(max(0, self.pan[0] + dx), max(xs) - min(xs))
            self.pan[1] = min(max(0, self.pan[1] - dy), max(ys) - min(ys))
            return
        x, y = sel.cell
        best: tuple[int, Cell] | None = None
        for c in self.legal_cells():
            ahead = (c[0] - x) * dx + (c[1] - y) * dy
            if ahead <= 0:
                continue
            side = abs((c[0] - x) * dy) + abs((c[1] - y) * dx)
            score = ahead + 2 * side
            if best is None or score < best[0]:
                best = (score, c)
        if best is not None:
            sel.cell = best[1]
            self.update_preview()

    def rotate(self, steps: int = 1) -> None:
        if self.selection is not None:
            i = ROTATIONS.index(self.selection.rotation)
            self.selection.rotation = ROTATIONS[(i + steps) % 4]
            self.update_preview()

    def place_at(self, cell: Cell, rotation: int) -> None:
        if self.selection is not None:
            self.selection.cell = cell
            self.selection.rotation = rotation
            self.update_preview()

    def cancel(self) -> None:
        """Drop a tile chosen but not yet sent (a held tile stays: it must be placed)."""
        if self.selection is not None and self.selection.source is not None:
            self.selection = None
            self.preview = None
        self.message = ""

    def update_preview(self) -> None:
        """What placing the ghost would do, computed locally with the engine."""
        sel = self.selection
        state = self.state()
        self.preview = None
        if sel is None or state is None:
            return
        try:
            if sel.source is not None:
                state = state.clone()
                state.apply(sel.source)
            self.preview = state.preview(Action.place(sel.cell, sel.rotation)).summary()
        except RuleError as exc:
            self.message = exc.message

    def confirm(self) -> list[Action]:
        """The actions that play the ghost as it stands: the choice (if unsent) and the place."""
        sel = self.selection
        if sel is None or not self.my_turn:
            return []
        actions = [sel.source] if sel.source is not None else []
        # The ghost is spent: keys pressed before the host answers must not act on it again.
        self.selection = None
        self.preview = None
        return [*actions, Action.place(sel.cell, sel.rotation)]


def _human(action: Action) -> str:
    """An action as typed in the console (offer and storage numbers count from 1)."""
    if action.type in ("take", "pick"):
        return f"{action.type} {(action.index or 0) + 1}"
    if action.type == "place" and action.cell is not None:
        return f"place {action.cell[0]},{action.cell[1]} {action.rotation}"
    return action.type


def tile_name(tile: int) -> str:
    """``fire 6`` for a tile id."""
    t = TILES[tile]
    return f"{t.element} {t.value}"


def describe(event: Data, model: ConsoleModel) -> str:
    """One event in words, for the log."""
    kind = event.get("type", "?")
    who = model.name(event["seat"]) if isinstance(event.get("seat"), int) else ""
    if kind == "tile_taken":
        where = {"offer": "the offer", "storage": "storage", "pile": "the draw pile"}
        return f"{who} took {tile_name(event['tile'])} from {where.get(event['source'], '?')}"
    if kind == "tile_placed":
        x, y = event["cell"]
        return f"{who} placed {tile_name(event['tile'])} at {x},{y} rot {event['rotation']}"
    if kind == "arrow_covered":
        x, y = event["cell"]
        return f"{who}: arrow {event['arrow']} of {x},{y} covered"
    if kind == "tile_flipped":
        x, y = event["cell"]
        return f"{who}: tile at {x},{y} flipped, +{event['points']} -> {event['score']}"
    if kind == "cacophony_taken":
        return f"{who} took {event['count']} cacophony disc(s), score {event['score']}"
    if kind == "tile_stored":
        return f"{who} moved {tile_name(event['tile'])} to storage"
    if kind == "player_passed":
        return f"{who} passed"
    if kind == "offer_refilled":
        return "offer refilled: " + ", ".join(tile_name(t) for t in event["tiles"])
    if kind == "intermezzo_started":
        order = ", ".join(model.name(s) for s in event["order"])
        return f"intermezzo! storage is full; choosing order: {order}"
    if kind == "intermezzo_ended":
        return f"intermezzo over, {event['taken']} tile(s) taken"
    if kind == "storage_cleared":
        return "nobody took a storage tile: all four leave the game"
    if kind == "end_triggered":
        return f"{who} reached {event['score']}: the game ends after this round"
    if kind == "last_round":
        return f"the draw pile is low ({event['pile']}): this round is the last"
    if kind == "bonus":
        return f"bonus +{event['points']} (total {event['total']})"
    if kind == "tile_set_aside":
        return f"a {event['element']} {event['value']} was set aside for the end"
    if kind == "game_over":
        ranking = ", ".join(model.name(s) for s in event["ranking"])
        return f"game over: {ranking}"
    if kind == "seat_taken":
        return f"{event.get('name') or 'someone'} sat down at seat {event['seat'] + 1}"
    if kind == "seat_left":
        return f"{who} left the table"
    if kind == "game_started":
        return "the game starts"
    return " ".join(f"{k}={v}" for k, v in event.items())
