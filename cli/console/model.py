"""The console's state: what the host said, what the log holds, which page is up.

Nothing here draws or talks to the network. The app feeds it snapshots and updates; the game's
part (:class:`sagani_net.gameui.GameUI`, ``model.ui``) keeps what you are choosing;
:mod:`sagani_net.cli.console.render` draws both.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, field
from typing import Any

from sagani_net.game import Data, event_sentence
from sagani_net.games import DEFAULT_GAME, game_part, get_game
from sagani_net.gameui import SENTENCE_NAME_CHARS, GameUI, columns, cut
from sagani_net.protocol.messages import BOT_FALLBACK_S, DEADLINE_GRACE_S, printable

#: Log lines kept in memory (the screen shows what fits; PgUp/PgDn scroll).
LOG_LIMIT = 500
#: A bot to move that has said nothing for this long shows when the host moves for it: a bot
#: that died said nothing for its whole deadline (60 s by default), and the screen nothing either.
BOT_QUIET_S = 5.0
#: Longest name the screen shows, and a name as the host numbers like ones ("greedy 2").
NAME_CHARS = 10
NUMBERED = re.compile(r"(.*?)((?: \d+)?)")
GAME, HELP, FINAL = "game", "help", "final"
ONLINE, CONNECTING, RECONNECTING, OFFLINE, LOCAL = (
    "online", "connecting", "reconnecting", "offline", "local",
)


def make_ui(game: str, model: ConsoleModel) -> GameUI:
    """The console part of ``game`` (its ``ui.py`` exports ``UI``), on ``model``; a game
    without one yet gets the bare :class:`GameUI` (its view as text, typed moves).
    Raises RuleError("unknown_game", ...) for a game this console does not have."""
    rules = get_game(game)
    try:
        part = game_part(game, "ui")
    except ModuleNotFoundError as exc:
        if not (exc.name or "").endswith(".ui"):
            raise
        return GameUI(rules, model)
    return part.UI(rules, model)


@dataclass
class ConsoleModel:
    """Everything the console shows; see the module docstring."""

    you: int | None = None
    table: str = ""
    status: str = "open"
    connection: str = CONNECTING
    view: Data | None = None
    #: The table's turn timer for people, seconds (None: none), as the status line says it.
    turn_timer_s: float | None = None
    #: When the decision on screen was announced (``time.monotonic()``): the host counts each
    #: decision's time from the update that announced it; a snapshot (a join, a reconnect)
    #: says how much of it is left. None when unknown (a snapshot of an older host).
    announced_s: float | None = None
    #: The per-move deadline of the table's bot seats, seconds (None: the host's fallback).
    deadline_s: float | None = None
    #: The seat to move as the host says it (updates and snapshots carry it); None: unknown.
    host_turn: int | None = None
    #: What your seat alone may see (a hand, a private objective); None when nothing.
    private: Data | None = None
    seats: list[Data] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    #: The seat whose board is on screen (Tab).
    shown: int = 0
    message: str = ""
    #: The message is a refusal of a move: it goes when the turn comes back.
    refusal: bool = False
    #: The message is about the connection, not a move: a new position leaves it standing.
    lasting: bool = False
    #: The game version the message was said at: once the position moves on it is old.
    said_at: int | None = None
    #: How others take the open seats (``sagani join HOST``), shown while seats are open.
    invite: str = ""
    #: How a bot takes a seat kept for bots (``sagani bot HOST --table T``), shown likewise.
    bot_invite: str = ""
    #: Undo: the game part's choice as it stood before each step of this turn not yet sent.
    steps: list[Any] = field(default_factory=list)
    page: str = GAME
    help_page: int = 0
    #: Log lines scrolled back from the newest (PgUp/PgDn).
    log_back: int = 0
    #: Replay: "move 12/80" for the status line; empty when live.
    replay_step: str = ""
    #: Replay: the record's file name, on the status line where a live game has its table's
    #: id (a record holds none: protocol/RECORD.md).
    record_file: str = ""
    #: The game version the log tells of (-1: none yet).
    logged_version: int = -1
    #: Log lines from this index on are what happened since your last turn.
    log_mark: int = 0
    #: What the screen says before the first view (joining: where it is asking).
    waiting: str = ""
    #: Replay with an analysis: the search's verdict on the move that led to this position.
    verdict: str = ""
    #: An analysis running in the background: how far it is (a progress bar), or why it failed.
    analysis_note: str = ""
    #: The final screen (or a replay without verdicts) offers ``a``: analyse this game.
    analysable: bool = False
    #: The replay has verdicts: ``c`` goes to the costliest decisions.
    has_verdicts: bool = False
    #: (keys, what they do) of every key binding, for the first help page (set by the app).
    key_help: list[tuple[str, str]] = field(default_factory=list)
    #: Others see this screen (``--cover``; ``sagani play --open``): it starts covered and
    #: covers itself again whenever the turn passes to another seat, the hand-over the
    #: published games ask for.
    cover: bool = False
    #: What only your seat may see is behind a curtain now (``h`` lifts and drops it).
    covered: bool = False
    #: By seat, the host's stand-ins for it as this console saw them: where each began and
    #: ended ("round 3", "move 41"; "" unseen, None: not ended).
    stand_ins: dict[int, list[list[str | None]]] = field(default_factory=dict)
    #: By seat, the default moves the host played for it past its clock (``deadline_missed``).
    defaults: dict[int, int] = field(default_factory=dict)
    #: Moves came to this console without the host's events (a join mid-game, a reconnect:
    #: ``history`` leaves them out), so the two above may miss some.
    saw_part: bool = False
    game: str = DEFAULT_GAME
    ui: GameUI = field(init=False, repr=False)
    _first_view: bool = field(default=True, repr=False)

    def __post_init__(self) -> None:
        self.ui = make_ui(self.game, self)
        self.covered = self.covered or self.cover

    def set_game(self, game: str) -> None:
        """Play ``game`` from now on (a table's game is known once joined)."""
        if game != self.game:
            self.game = game
            self.ui = make_ui(game, self)

    # -- questions --------------------------------------------------------------------------

    @property
    def turn(self) -> int | None:
        """The seat to move: the host's word for it, else the view's ``turn``."""
        if self.view is None or self.status != "running":
            return None
        turn = self.host_turn if self.host_turn is not None else self.view.get("turn")
        return turn if isinstance(turn, int) else None

    @property
    def my_turn(self) -> bool:
        return self.you is not None and self.turn == self.you and not self.replay_step

    @property
    def may_cover(self) -> bool:
        """``h`` covers the screen: your seat holds something no one else may see (a hand, a
        private objective), in a game not over and not a replay."""
        return self.private is not None and self.status != "over" and not self.replay_step

    @property
    def curtain(self) -> bool:
        """The screen hides the game: covered while your seat holds something no one else
        may see (a hand, a private objective), in a game not over. The game's part draws from
        that everywhere (board, notes, completions), so the curtain hides all of it."""
        return self.covered and self.private is not None and self.status != "over"

    @property
    def players(self) -> int:
        if self.view is not None and isinstance(self.view.get("players"), int):
            return int(self.view["players"])
        return len(self.seats)

    def name(self, seat: int, width: int = NAME_CHARS) -> str:
        """A seat's name as people read it, in at most ``width`` characters: its player's
        name, or "seat N" (from 1)."""
        name = ""
        if 0 <= seat < len(self.seats):
            # Escaped: a record or an older host may hold a name that would paint the screen.
            name = printable(self.seats[seat].get("name") or "")
        name = name or f"seat {seat + 1}"
        if columns(name) > width:  # in columns: a Chinese or Japanese name takes two a letter
            # Cut, but keep the number the host adds to tell like names apart ("greedy 2").
            match = NUMBERED.fullmatch(name)
            assert match is not None  # the pattern matches every one-line name
            base, number = match.groups()
            name = (cut(base, max(1, width - len(number))).rstrip() + number if number
                    else cut(name, width).rstrip())  # "Alexandra 's turn" otherwise
        return name

    def away(self, seat: int) -> bool:
        """The seat's player is away (the host has not heard from them for a few seconds)."""
        return 0 <= seat < len(self.seats) and bool(self.seats[seat].get("away"))

    def bot_seat(self, seat: int) -> bool:
        """The seat runs on a bot's clock (kept for bots, or held by a bot), not on the turn
        timer, which is for the seats people hold (PROTOCOL.md, section 9)."""
        data = self.seats[seat] if 0 <= seat < len(self.seats) else {}
        return data.get("kind") == "bot" or data.get("role") == "bot"

    def stood_in(self, seat: int) -> bool:
        """A bot plays the seat for its away player."""
        return 0 <= seat < len(self.seats) and bool(self.seats[seat].get("stand_in"))

    @property
    def may_stand_in(self) -> int | None:
        """The seat to move, when its player is away, nobody stands in for it yet and you
        hold a seat (the ``B`` key and ``standin`` seat a bot for it); else None."""
        seat = self.turn
        if (seat is None or self.you is None or seat == self.you or self.replay_step
                or not self.away(seat) or self.stood_in(seat)):
            return None
        return seat

    def sentence_name(self, seat: int) -> str:
        return self.name(seat, SENTENCE_NAME_CHARS)

    def names(self, width: int = NAME_CHARS) -> list[str]:
        return [self.name(seat, width) for seat in range(max(self.players, len(self.seats)))]

    def event_text(self, event: Data) -> str:
        """One event in words, the seats named as this screen names them (``event_sentence``,
        which never raises)."""
        return event_sentence(self.ui.game, event, self.names(SENTENCE_NAME_CHARS))

    # -- feeding from the host --------------------------------------------------------------

    def load(self, snapshot: Data) -> None:
        """Take a snapshot (join, sync, refused action): the whole truth."""
        self.table = snapshot.get("table", self.table)
        if "you" in snapshot:
            self.you = snapshot["you"]
        self.seats = snapshot.get("seats", self.seats)
        self._note_stand_ins(_where(snapshot.get("view") or self.view))
        left_s = snapshot.get("turn_left_s")
        due_s = time.monotonic() + left_s if isinstance(left_s, (int, float)) else None
        self._take(snapshot, [], due_s=due_s, told=due_s is not None)

    def receive(self, message: Data) -> None:
        """Take an update or an accepted reply: new view, and its events in words."""
        if "seats" in message:
            self.seats = message["seats"]
        events = list(message.get("events", ()))
        self.ui.updating(events)
        # Where the game is when the host's events came: the message's own position.
        where = _where(message.get("view") or self.view)
        for event in events:
            self._note_host_play(event, where)
            self.add_log(self.event_text(event))
        self._note_stand_ins(where)
        version = message.get("version")
        if isinstance(version, int) and message.get("type") in ("update", "snapshot"):
            self.logged_version = max(self.logged_version, version)
        # A snapshot (a join, a resync, a reconnect) may be of a decision announced long ago:
        # its count goes by when the host said it runs out (``turn_due_s``, from the client).
        if message.get("type") == "snapshot":
            due_s = message.get("turn_due_s")
            self._take(message, events, due_s=due_s,
                       told=due_s is not None)
        else:
            self._take(message, events, announced_s=time.monotonic())
        # The update's own turn, not the view's: that may be past the next seat's move already.
        then = message.get("turn_then")
        if self.cover and isinstance(then, int) and then != self.you:
            self.covered = True  # the turn passed to another seat: to the next player's eyes

    def catch_up(self, moves: list[Data] | None, version: int, away: bool,
                 started: bool = False) -> None:
        """Log the moves up to ``version`` that the log lacks (after a join, a resume, a
        reconnect): ``moves`` is the host's ``history`` since :attr:`logged_version`, each
        ``{"version", "seat", "events"}``; None when the host could not give it, and the log
        then says how many moves it misses. ``away``: they were made while you were away.
        ``started``: the game has started; a log that starts here with the whole game says
        so first (the last seat's join starts the game in an update sent before its reply).
        A host behind the log (a standby that took over after it lost its active host, which
        went on alone, say) undid the moves past ``version``: the log says so, and logs the
        moves made from there."""
        if 0 <= version < self.logged_version:
            undone = _moves(self.logged_version - version)
            self.add_log(f"the host has the game as it was {undone} ago: the last {undone} "
                         "in this log were undone, and play goes on from before them")
            self.logged_version = version
        since = max(self.logged_version, 0)
        told = [move for move in moves or () if since < move["version"] <= version]
        missed = version - since - len(told)
        self.saw_part = self.saw_part or version > since
        if started and self.logged_version < 0 and missed == 0:
            self.add_log(self.event_text({"type": "game_started"}))
        if moves is None:
            if self.logged_version >= 0 and missed > 0:
                self.add_log(f"{_moves(missed)} made while the connection was down: the board "
                             "shows them")
        else:
            if away and told:
                self.add_log("(while you were away)")
            if missed > 0:  # older than the host keeps
                self.add_log(f"({_moves(missed)} before these are not in the log)")
            for move in told:
                for event in move["events"]:
                    self.add_log(self.event_text(event))
        self.logged_version = max(self.logged_version, version)

    def _note_host_play(self, event: Data, where: str) -> None:
        """Note a seat the host began or stopped playing, or played a default move for."""
        seat = event.get("seat")
        if not isinstance(seat, int):
            return
        spans = self.stand_ins.setdefault(seat, [])
        if event.get("type") == "stand_in" and not (spans and spans[-1][1] is None):
            spans.append([where, None])
        elif event.get("type") == "stand_in_left" and spans and spans[-1][1] is None:
            spans[-1][1] = where
        elif event.get("type") == "deadline_missed":
            self.defaults[seat] = self.defaults.get(seat, 0) + 1
        if not spans:
            del self.stand_ins[seat]

    def note_replayed(self, frames: list[tuple[Data, list[Data]]]) -> None:
        """What the host played in a replayed game (``replay_frames``: each position and the
        events that led to it), for its final screen."""
        self.stand_ins, self.defaults = {}, {}
        for view, events in frames:
            for event in events:
                self._note_host_play(event, _where(view))

    def _note_stand_ins(self, where: str) -> None:
        """The seat infos' ``stand_in``, for what no event told (a snapshot of a stand-in
        begun before this console joined, an event lost while it reconnected)."""
        for seat in range(len(self.seats)):
            spans = self.stand_ins.get(seat, [])
            playing = bool(spans) and spans[-1][1] is None
            if self.stood_in(seat) and not playing:
                self.stand_ins.setdefault(seat, []).append(["", None])
            elif playing and not self.stood_in(seat):
                spans[-1][1] = where

    def host_play(self) -> list[str]:
        """Sentences for the final screen: each seat the host played for part of the game,
        with its stand-in's bot or with default moves past the seat's clock (in a replay, as
        the record's ``host_played`` says: :meth:`note_replayed`)."""
        said = []
        for seat in sorted(set(self.stand_ins) | set(self.defaults)):
            name = self.sentence_name(seat)
            for start, end in self.stand_ins.get(seat, []):
                if not start:  # begun before this console heard of it
                    when = "for part of the game, " + ("to the end" if end is None
                                                      else f"to {end}")
                else:
                    when = (f"from {start} on" if end is None else f"in {start}"
                            if end == start else f"from {start} to {end}")
                said.append(f"The host's greedy bot played {name}'s seat {when}.")
            if count := self.defaults.get(seat, 0):
                times = "once" if count == 1 else f"{count} times"
                said.append(f"{name} ran out of time {times}: the host played the default move.")
        if said and self.saw_part:
            said.append("(As far as this console saw: it did not follow the whole game.)")
        return said

    def _clock_s(self, seat: int | None) -> float | None:
        """The clock a decision of ``seat`` runs on: the turn timer for a person's seat, the
        deadline (or the host's fallback) for a bot's; None when none runs."""
        if seat is None:
            return None
        if self.bot_seat(seat):
            return self.deadline_s if self.deadline_s is not None else BOT_FALLBACK_S
        return self.turn_timer_s

    def _take(self, message: Data, events: list[Data], announced_s: float | None = None,
              told: bool = False, due_s: float | None = None) -> None:
        """Take a message's position; ``announced_s`` is when its decision was announced (or
        ``due_s``, when its clock runs out: a snapshot's), taken if the decision is new, or
        ``told`` by the host's own clock (a snapshot saying what is left): a host that came
        back or took over starts the clock of a decision again."""
        # The decision to make: a game's start is one at version 0, as each move's is one
        decision = (self.version, self.status, self.turn)
        self.status = message.get("status", self.status)
        if "private" in message:
            self.private = message["private"]
        if "turn" in message:
            self.host_turn = message["turn"]
        was_mine = self.my_turn
        before = self.version
        if "view" in message and message["view"]:
            self.view = message["view"]
        if due_s is not None:
            clock_s = self._clock_s(self.turn)
            announced_s = None if clock_s is None else due_s - clock_s
        if told or (self.version, self.status, self.turn) != decision:
            self.announced_s = announced_s
        if self.version != before:
            self.steps.clear()  # the host has the position now: what it accepted stays
            self.moved_on()
        if self.shown >= self.players and self.you is not None:
            self.shown = self.you
        if self.view is not None and self._first_view:
            self._first_view = False
            if self.you is not None:
                self.shown = self.you
            self.remember()  # the first view: nothing is new yet, and your board comes first
        if self.refusal and self.my_turn and not was_mine:
            self.message, self.refusal = "", False  # the turn came back: that refusal is old
        if self.status == "over" and self.page == GAME and self.view is not None:
            self.page = FINAL
        self.ui.updated(events)

    def remember(self) -> None:
        """Your turn ended: log lines and changes from here are new."""
        self.log_mark = len(self.log)
        self.ui.remember()

    def add_log(self, line: str) -> None:
        self.log.append(line)
        if len(self.log) > LOG_LIMIT:
            dropped = len(self.log) - LOG_LIMIT
            del self.log[:dropped]
            self.log_mark = max(0, self.log_mark - dropped)

    @property
    def time_left_s(self) -> int | None:
        """Whole seconds left of the turn timer for the decision on screen, counted from
        when its update came (the host's clock starts as it sends it, and adds a grace), or
        from what a snapshot said was left; None without a timer, or when that is unknown."""
        if self.turn_timer_s is None or self.announced_s is None:
            return None
        return max(0, math.ceil(self.turn_timer_s - (time.monotonic() - self.announced_s)))

    @property
    def bot_left_s(self) -> int | None:
        """Whole seconds until the host plays the default move for the bot seat to move, once
        that bot has been silent for :data:`BOT_QUIET_S`; None before, or when unknown."""
        seat = self.turn
        if (seat is None or self.announced_s is None or not self.bot_seat(seat)
                or self.away(seat) or self.stood_in(seat) or self.status != "running"):
            return None
        waited_s = time.monotonic() - self.announced_s
        if waited_s < BOT_QUIET_S:
            return None
        deadline_s = (self.deadline_s if self.deadline_s is not None else BOT_FALLBACK_S)
        return max(0, math.ceil(deadline_s + DEADLINE_GRACE_S - waited_s))

    @property
    def version(self) -> int | None:
        """The game version on screen (None before the first view)."""
        return self.view.get("version") if self.view is not None else None

    def say(self, message: str, refusal: bool = False, lasting: bool = False) -> None:
        """Put a sentence on the message line. It goes when the position moves on (it spoke
        of the one before), unless ``lasting`` (the connection's news); a refusal goes when
        your turn comes back at the latest."""
        self.message, self.refusal, self.lasting = message, refusal, lasting
        self.said_at = self.version

    def moved_on(self) -> None:
        """The position moved on (the host's, or a replay's step): a sentence said of the one
        before goes ("not sent: ...", "no decision lost anything"), unless it is lasting."""
        if self.message and not self.lasting and self.said_at is not None:
            self.message = ""

    def open_seats(self, bots: bool = False) -> list[int]:
        """The seats of a table not yet started still waiting for a person (``bots``: those
        kept for a bot, waiting for their bots)."""
        if self.status != "open":
            return []
        return [seat for seat, data in enumerate(self.seats)
                if not data.get("taken") and (data.get("kind") == "bot") == bots]

    # -- undo within a turn -----------------------------------------------------------------

    def stepped(self, before: Any) -> None:
        """A key or command changed the choice in hand from ``before``: one step to undo."""
        if before != self.ui.step_state():
            self.steps.append(before)

    def undo(self) -> bool:
        """Take back the last step not yet sent; False when there is none."""
        if not self.steps:
            return False
        self.ui.restore(self.steps.pop())
        return True


def _where(view: Data | None) -> str:
    """Where a game is, as its final screen says when something began: the game's round where
    its view counts them, else the move (the version, as a replay counts moves)."""
    view = view or {}
    if isinstance(view.get("round"), int):
        return f"round {view['round']}"
    return f"move {view.get('version') or 0}"


def _moves(count: int) -> str:
    return "1 move" if count == 1 else f"{count} moves"
