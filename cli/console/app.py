"""The full-screen console: one prompt_toolkit Application on one asyncio loop.

The screen is drawn from :func:`sagani_net.cli.console.render.screen` over a :class:`ConsoleModel`;
the network runs as background tasks of the app (``app.create_background_task``) that feed the
model and ask for a redraw. The shell's keys (quit, help, undo, boards, log, replay stepping, the
command line) are bound here; the game's come from its GameUI (``model.ui.key_bindings()``), and
its keys and typed commands both end in :meth:`Console.send`. The first help page is made from the
bindings' own help lines.

Undo within a turn: around every game key and typed move the shell asks the game's part for
its choice in hand (``GameUI.step_state``); a change is a step, kept until the host has a new
version, and ``u`` or Esc gives the last one back (``GameUI.restore``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition, has_focus
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import Float, FloatContainer, HSplit, Layout, VSplit, Window
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.output import Output, create_output

from sagani_net.cli.console import commands, render
from sagani_net.cli.console.model import (
    CONNECTING,
    FINAL,
    GAME,
    HELP,
    LOCAL,
    LOG_LIMIT,
    OFFLINE,
    ONLINE,
    RECONNECTING,
    ConsoleModel,
)
from sagani_net.client import AsyncClient, HostError, HostTimeout
from sagani_net.game import RuleError, host_played
from sagani_net.games import get_game
from sagani_net.gameui import SENTENCE_NAME_CHARS, CommandError, Key

if TYPE_CHECKING:  # the analysis (and the search) is imported only when it is asked for
    from sagani_net.analysis import Analysis, Verdict

log = logging.getLogger("sagani_net.cli.console")

#: Pause between tries to reach a host that went away.
RETRY_S = 0.5
#: How often the console checks that the host is still heard from.
WATCH_S = 0.5
#: Game keys kept while a move is on its way (a quick hand's next steps; more is a stuck key).
KEYS_AHEAD = 8


def replay_frames(record: dict[str, Any]) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Every position of a recorded game with the events that led to it (the first has none).

    The game is the record's own; the whole record is checked (``Game.from_record``) first,
    so a damaged one raises RuleError before any frame is made. The first frame is the record
    without its actions: its random outcomes (a deal, rolls) stay in that state for the actions
    to meet, so the frames come from the record alone, never from its seed.

    The moves the host played for a seat (the record's ``host_played``) come with the events
    its updates carried then: ``deadline_missed`` before a default move, ``stand_in`` and
    ``stand_in_left`` around a run of its bot's moves (who asked for it is not recorded).
    """
    game = get_game(record.get("game", "sagani") if isinstance(record, dict) else None)
    game.from_record(record)
    by_host = host_played(record)
    start = {k: v for k, v in record.items() if k not in ("actions", "result")}
    state = game.from_record({**start, "actions": []})
    frames: list[tuple[dict[str, Any], list[dict[str, Any]]]] = [(state.view(None), [])]
    standing_in: set[int] = set()
    for index, (seat, events) in enumerate(game.positions(state, record["actions"])):
        told: list[dict[str, Any]] = []
        reason = by_host.get(index)
        if reason == "stand_in" and seat not in standing_in:
            standing_in.add(seat)
            told.append({"type": "stand_in", "seat": seat})
        elif reason != "stand_in" and seat in standing_in:
            standing_in.discard(seat)
            told.append({"type": "stand_in_left", "seat": seat})
        if reason == "deadline":
            told.append({"type": "deadline_missed", "seat": seat})
        frames.append((state.view(None), [*told, *events]))
    return frames


class Replay:
    """A recorded game as a list of frames (view and the events that led to it); with
    ``verdicts`` (the analysis's, by action number), each move's verdict beside it, and
    ``record`` kept to analyse it on demand."""

    def __init__(
        self, frames: list[tuple[dict[str, Any], list[dict[str, Any]]]], over: bool = True,
        verdicts: dict[int, Verdict] | None = None, record: dict[str, Any] | None = None,
    ) -> None:
        self.frames = frames
        #: The record's game ended (its last frame is the end).
        self.over = over
        self.index = 0
        self.verdicts = verdicts
        self.record = record
        #: Where ``c`` went last among the costliest decisions.
        self.costly_at = -1
        #: The log's lines of the frames told so far, in order, and where each frame's lines end
        #: (``_ends[i]``: after frame i's events); worded with the names in ``_named``. Each
        #: step shows the log up to its frame: told again from the first frame at every step,
        #: stepping through a record was quadratic (15 ms a step at the end of a 516-move
        #: game, where drawing the screen takes under 1).
        self._lines: list[str] = []
        self._ends = [0]
        self._named: list[str] | None = None

    def costliest(self) -> list[Verdict]:
        """Each seat's costliest decisions (:data:`sagani_net.analysis.COSTLIEST` of them, those
        that lost anything), costliest first."""
        from sagani_net.analysis import summarize

        verdicts = list((self.verdicts or {}).values())
        seats = sorted({v.seat for v in verdicts})
        chosen = [v for s in summarize(verdicts, max(seats, default=-1) + 1)
                  for v in s.costliest]
        return sorted(chosen, key=lambda v: (-v.loss, v.index))

    def show(self, model: ConsoleModel, index: int) -> None:
        """Put frame ``index`` on the model; the log holds every event up to it, and the
        game's part highlights what the last move changed."""
        index = max(0, min(index, len(self.frames) - 1))
        if index != self.index:
            model.moved_on()
        self.index = index
        view, last = self.frames[self.index]
        model.log = self._log(model, self.index)
        model.view = self.frames[max(0, self.index - 1)][0]
        model.remember()  # changes count from the frame before
        model.view = view
        last_frame = self.index == len(self.frames) - 1
        model.status = "over" if self.over and last_frame else "running"
        if last_frame:
            model.note_replayed(self.frames)
        model.replay_step = f"move {self.index}/{len(self.frames) - 1}"
        model.has_verdicts = self.verdicts is not None
        model.analysable = self.verdicts is None and self.record is not None
        verdict = (self.verdicts or {}).get(self.index - 1)
        model.verdict = verdict_text(verdict, model) if verdict is not None else ""
        model.ui.updated(last)
        # Show the board the last move changed; before any move, the first to play.
        actors = [e["seat"] for e in last if isinstance(e.get("seat"), int)]
        if actors:
            model.shown = actors[-1]
        elif isinstance(view.get("turn"), int):
            model.shown = view["turn"]

    def _log(self, model: ConsoleModel, index: int) -> list[str]:
        """The log as it stands at frame ``index``: every event up to it in words, the last
        :data:`LOG_LIMIT` lines (as :meth:`ConsoleModel.add_log` keeps them), a new list."""
        names = model.names(SENTENCE_NAME_CHARS)  # what event_text words them with
        if names != self._named:
            self._named, self._lines, self._ends = names, [], [0]
        while len(self._ends) <= index:
            _, events = self.frames[len(self._ends)]
            self._lines.extend(model.event_text(event) for event in events)
            self._ends.append(len(self._lines))
        end = self._ends[index]
        return self._lines[max(0, end - LOG_LIMIT) : end]


def verdict_text(v: Verdict, model: ConsoleModel) -> str:
    """One move's verdict in words, for the message line of a replay: the value of the move
    played and of the best for the seat that moved (its win chance; alone, the solo reward),
    and what it lost in points of per cent; the moves as the console types them."""
    from sagani_net.analysis import shown

    game = model.ui.game.name
    who = f"{model.name(v.seat)} played {shown(game, v.played)}"
    if v.host == "deadline":
        return f"{model.name(v.seat)} ran out of time: the host played {shown(game, v.played)}"
    if v.host is not None:
        return (f"{model.name(v.seat)} was away: the host's bot played "
                f"{shown(game, v.played)}")
    if v.forced:
        return f"{who}: the only move"
    what = "win chance" if model.players > 1 else "solo reward"
    if v.best == v.played:
        return f"{who}: {what} {_pct(v.value_played)}%, the search's choice too"
    if v.loss <= 0:
        # The search's choice is its most visited move; the one played may score as well.
        return (f"{who}: {what} {_pct(v.value_played)}%, as good as the search's choice "
                f"{shown(game, v.best)}: {_pct(v.value_best)}%")
    mark = f"{v.mark.upper()}: " if v.mark else ""
    return (f"{mark}{who}: {what} {_pct(v.value_played)}%; best {shown(game, v.best)}: "
            f"{_pct(v.value_best)}% (-{v.loss * 100:.1f})")


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.0f}"


def progress_text(done: int, total: int) -> str:
    """The background analysis's progress bar, for the message line."""
    width = 20
    filled = done * width // max(1, total)
    return f"analysing the game: [{'#' * filled}{'.' * (width - filled)}] {done}/{total} decisions"


def analyse_in_background(record: dict[str, Any],
                          on_verdict: Callable[[int, int], None]) -> Analysis:
    """The analysis the console runs for ``a``: the default effort, every core; its workers
    spawned, not forked (``sagani play`` runs the host's and ZeroMQ's threads here)."""
    import multiprocessing

    from sagani_net.analysis import analyse

    return analyse(record, on_verdict=on_verdict, context=multiprocessing.get_context("spawn"))


class _Closed(Exception):
    """The console closed while it analysed the game: the analysis ends."""


class _CommandCompleter(Completer):
    def __init__(self, model: ConsoleModel) -> None:
        self.model = model

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Any:
        text = document.text_before_cursor
        words = text.split()
        partial = "" if text.endswith(" ") or not words else words[-1]
        # Covered: the game's completions would list the hand.
        game = [] if self.model.curtain else self.model.ui.complete(text)
        for option in [*game, *commands.complete(text)]:
            yield Completion(option, start_position=-len(partial))


class Console:
    """The console for one table. ``client`` is an :class:`AsyncClient` that has joined (None
    for a replay); ``rejoin(client)`` gets the seat back after the host was away (default: a
    resync)."""

    def __init__(
        self,
        model: ConsoleModel,
        client: AsyncClient | None = None,
        *,
        replay: Replay | None = None,
        input: Input | None = None,
        output: Output | None = None,
        rejoin: Callable[[AsyncClient], Any] | None = None,
        record: Callable[[], Awaitable[dict[str, Any]]] | None = None,
        analyser: Callable[[dict[str, Any], Callable[[int, int], None]], Analysis]
        = analyse_in_background,
    ) -> None:
        """``record()`` gets the finished game's record: with it, the final screen offers
        ``a``, which runs ``analyser(record, on_verdict)`` in the background and then opens
        the replay with its verdicts (a replay with a record offers ``a`` too)."""
        self.model = model
        self.client = client
        self.replay = replay
        #: On a terminal of its own (no output given), the glyphs it can show.
        self.ascii = output is None and render.ascii_terminal()
        self.rejoin = rejoin
        self.record = record
        self.analyser = analyser
        self._analysing = False
        #: Set once the console has closed: a background analysis stops at its next verdict
        #: (its thread would otherwise keep the process alive, every decision searched).
        self._closed = threading.Event()
        model.analysable = record is not None
        self._sending = False
        #: Game keys pressed while a move was on its way, played once it has arrived.
        self._keys: deque[tuple[str, ...]] = deque()
        self._down = False  # the last request to the host failed
        #: A move was refused while the host was away: said again once it is back.
        self._unsent = False
        self._told_move: str | None = None  # where the host moved when the console last said
        #: The host answers but has not this table (started again on another data dir): what
        #: the line says of it until a try finds the table; the console is not online then.
        self._table_gone: str | None = None
        #: The seats whose players were away when the console last looked (for the log).
        self._away: set[int] = set()
        #: The counts on the top line when it was last drawn: the turn timer's, a silent bot's.
        self._shown_left: tuple[int | None, int | None] = (None, None)
        if client is not None and client.replica is not None and client.replica.game:
            model.set_game(client.replica.game)
        self.history = InMemoryHistory()
        self.command = Buffer(
            multiline=False,
            completer=_CommandCompleter(model),
            complete_while_typing=False,  # Tab completes; Up and Down stay for the history
            history=self.history,
            accept_handler=self._accept,
        )
        self.main = Window(
            FormattedTextControl(self._screen, focusable=True, show_cursor=False),
            always_hide_cursor=True,
        )
        prompt = Window(FormattedTextControl([("class:hint", "> ")]), width=2, height=1)
        line = VSplit([prompt, Window(BufferControl(self.command), height=1)])
        menu = Float(xcursor=True, ycursor=True, content=CompletionsMenu(max_height=6))
        body = FloatContainer(HSplit([self.main, line]), floats=[menu])
        self.app: Application[int] = Application(
            layout=Layout(body, focused_element=self.main),
            key_bindings=self._bindings(),
            style=render.style(model),
            full_screen=True,
            mouse_support=False,
            input=input,
            # Standard output sent to a file (`sagani play > log`): the console is drawn on
            # standard error's terminal, where it was drawn into the file, the screen blank.
            output=output or create_output(always_prefer_tty=True),
        )
        #: Set once the first screen is drawn: what can wait (the bots of ``sagani play``,
        #: their imports) waits for it, so that the console is there at once.
        self.drawn = asyncio.Event()
        self.app.after_render += lambda _: self.drawn.set()
        # Esc alone must act at once, not wait to see whether it starts a key sequence.
        self.app.ttimeoutlen = 0.05
        self.app.timeoutlen = 0.3
        if replay is not None:
            replay.show(model, 0)

    # -- drawing ----------------------------------------------------------------------------

    def _screen(self) -> StyleAndTextTuples:
        size = self.app.output.get_size()
        lines = render.screen(self.model, size.columns, max(8, size.rows - 1))
        out: StyleAndTextTuples = []
        for i, line in enumerate(lines):
            if i:
                out.append(("", "\n"))
            out.extend(line)
        if self.ascii:
            return [(part[0], part[1].translate(render.ASCII), *part[2:])
                    for part in out]
        return out

    def _log_page(self) -> int:
        size = self.app.output.get_size()
        return render.log_page(self.model, size.columns, max(8, size.rows - 1))

    def redraw(self) -> None:
        self.app.invalidate()

    # -- running ----------------------------------------------------------------------------

    async def run(self) -> int:
        """Run until quit; returns an exit status."""
        if self.client is not None:
            self.app.pre_run_callables.append(self._start_tasks)
        try:
            result = await self.app.run_async()
        finally:
            self._closed.set()
        return result or 0

    def _start_tasks(self) -> None:
        self.app.create_background_task(self._follow())
        self.app.create_background_task(self._watch())
        self.app.create_background_task(self._present())

    async def _present(self) -> None:
        """Tell the host this seat's player is there, once a presence period (the host's word
        for it, at least a quarter of a second: PROTOCOL.md, Presence), one request at a
        time: a console only listens while it waits, and its seat would look away."""
        client = self.client
        assert client is not None
        while True:
            period_s = client.presence_s
            if period_s is None or client.replica is None or client.replica.you is None:
                return  # a spectator, or a host that does not ask it
            await asyncio.sleep(period_s)
            if client.replica.status == "over":
                return
            if client.token is not None:
                with contextlib.suppress(HostTimeout, HostError, OSError):
                    await client.here()

    async def _watch(self) -> None:
        """Say "reconnecting" as soon as the host falls silent; the client's own recovery
        (hello, resubscribe, resync) can take a while before it gives up with an error."""
        client = self.client
        assert client is not None
        while True:
            await asyncio.sleep(WATCH_S)
            self._tell_presence()
            silent = client.silent
            if silent and self.model.connection == ONLINE:
                self.model.connection = RECONNECTING
                self.redraw()
            elif not silent and self.model.connection == RECONNECTING and not self._down:
                self.model.connection = ONLINE
                self._tell_unsent()
                self.redraw()
            elif self._counts() != self._shown_left:
                self.redraw()  # the turn timer's count on the top line, or a silent bot's
            self._shown_left = self._counts()

    def _counts(self) -> tuple[int | None, int | None]:
        return self.model.time_left_s, self.model.bot_left_s

    def _tell_presence(self) -> None:
        """Say in the log who went away and who came back (heartbeats bring it between
        updates: PROTOCOL.md, Presence), and show it."""
        replica = self.client.replica if self.client is not None else None
        if replica is None:
            return
        away = {i for i, seat in enumerate(replica.seats) if seat.get("away")}
        if away == self._away and self.model.seats is replica.seats:
            return
        self.model.seats = replica.seats
        for seat in sorted(away - self._away):
            self.model.add_log(f"{self.model.sentence_name(seat)} is away")
        for seat in sorted(self._away - away):
            self.model.add_log(f"{self.model.sentence_name(seat)} is back")
        self._away = away
        self.redraw()

    def stand_in(self, seat: int) -> None:
        """Ask the host to play away ``seat`` (from 0) with a bot until its player is back."""
        model = self.model
        if self.client is None or model.you is None:
            model.say("only a player at the table can seat a bot for someone")
        elif not 0 <= seat < model.players or seat == model.you:
            model.say(f"standin takes another seat, 1 to {model.players}")
        elif not model.away(seat):
            model.say(f"{model.name(seat)} is here: a bot stands in only for someone away")
        else:
            self.app.create_background_task(self._stand_in(seat))

    async def _stand_in(self, seat: int) -> None:
        assert self.client is not None
        try:
            await self.client.stand_in(seat)
            self.model.say("")
        except HostError as exc:
            self.model.say(f"no stand-in: {exc.message}")
        except HostTimeout as exc:
            self.model.say(f"no stand-in: {exc}")
        self.redraw()

    async def _follow(self) -> None:
        """Keep the model in step with the host: updates, and reconnects after silence.

        Every broadcast reaches this loop exactly once and in order (the client queues the
        ones it reads while an action waits for its reply), so the log is written here alone.
        """
        client = self.client
        assert client is not None
        self.model.connection = ONLINE  # joined: the client holds a fresh snapshot
        await self.catch_up(client.state.version, away=False)
        while True:
            try:
                message = await client.next_update(timeout_s=1.0)
                if message is not None and self._table_gone is not None:
                    # Of this table: the host has it again (and its client resynced).
                    self._table_gone = None
                    self._down = False
                if (self.model.connection in (CONNECTING, RECONNECTING, OFFLINE)
                        and self._table_gone is None):
                    self._online()
                if message is not None and message["type"] == "snapshot":
                    # The client resynced (a gap, or the host silent): the moves in between
                    # came in no update.
                    await self.catch_up(message["version"], away=True)
                elif message is not None:
                    self._feed(message.get("events", []), message)
                self._tell_move()  # also a move too quick for the silence to show
                self.redraw()
            except asyncio.CancelledError:
                raise
            except (HostTimeout, HostError, OSError) as exc:
                # The host went away (restart, network blip): say so, then try again.
                self._down = True
                self.model.connection = RECONNECTING
                if not self._table_is_gone(exc):
                    self.model.say(f"host unreachable ({exc}); retrying", lasting=True)
                self.redraw()
                await asyncio.sleep(RETRY_S)
                await self._reconnect()
            except Exception:  # a background task must not die silently
                log.exception("following the host failed")
                self.model.connection = OFFLINE
                self.redraw()
                await asyncio.sleep(RETRY_S)

    async def _reconnect(self) -> None:
        client = self.client
        assert client is not None
        try:
            await client.connect()
            if self.rejoin is not None:
                await self.rejoin(client)
            else:
                await client.sync()
            self._down = False
            self._table_gone = None
            self._online()
            await self.catch_up(client.state.version, away=True)
            self._tell_move()
        except HostError as exc:
            if self._table_is_gone(exc):
                self.model.connection = RECONNECTING
                self.redraw()
        except (HostTimeout, OSError):
            pass

    def _table_is_gone(self, exc: Exception) -> bool:
        """Say so if ``exc`` is the host's word that it has not this table (it answers: it is
        not unreachable); True if said."""
        client = self.client
        if not (isinstance(exc, HostError) and exc.code == "no_table" and client is not None
                and client.replica is not None):
            return False
        self._table_gone = (f"the host at {client.address.removeprefix('tcp://')} has no table "
                            f"{client.replica.table} (started again on another data dir?); "
                            "retrying")
        self.model.say(self._table_gone, lasting=True)
        return True

    def _online(self) -> None:
        """The host answers again: say that a move made while it was away was not sent,
        unless it moved (its standby took over): :meth:`_tell_move` says so once the new
        host's position is on screen."""
        self.model.connection = ONLINE
        if self.client is not None and self.client.moved_to not in (None, self._told_move):
            self._unsent = False  # the line has news enough; the turn shows on the screen
        if not self._tell_unsent():
            self.model.say("")

    def _tell_unsent(self) -> bool:
        """Say that the move made while the host was away was not sent, once the host is back
        (the line had said "play again once it is back"); True if said now."""
        if not self._unsent:
            return False
        self._unsent = False
        # Not lasting: it speaks of this position, and goes when the position moves on.
        self.model.say("the host is back; your move was not sent: play it again")
        return True

    def _tell_move(self) -> None:
        """Say "host moved to ..." once for each move of the host, in the log, and on the
        message line for the position on screen: it goes when the position moves on, as a
        sentence of a move does. Said lasting, it stood there to the end of the game on a
        spectator's screen, which no key of a move ever cleared."""
        assert self.client is not None
        moved_to = self.client.moved_to
        if moved_to is None or moved_to == self._told_move:
            return
        self._told_move = moved_to
        told = f"host moved to {moved_to.removeprefix('tcp://')}"
        self.model.add_log(told)
        self.model.say(told)

    async def catch_up(self, version: int, away: bool) -> None:
        """Show the snapshot the client just took at ``version``, after logging the moves up
        to it that the log lacks (the whole game so far on a join or a resume, the moves made
        while away after a reconnect), from the host's ``history``. The updates that follow
        the snapshot bring the moves after it. The console does it when it starts; a caller
        may do it before (nothing is asked twice)."""
        client = self.client
        assert client is not None
        moves = None
        if version > max(self.model.logged_version, 0):
            # An older host, or one gone again, gives none: the log says how many it misses.
            with contextlib.suppress(HostTimeout, HostError, OSError):
                moves = await client.history(max(self.model.logged_version, 0))
        self.model.seats = client.state.seats  # the names the log lines use
        self.model.catch_up(moves, version, away, started=client.state.status != "open")
        self._feed([], {"type": "snapshot", "version": version})

    def _feed(self, events: list[dict[str, Any]], message: dict[str, Any] | None = None) -> None:
        """Show the replica; ``message`` is the update or snapshot that brought ``events``
        (None: the view changed by our own act, its events still to come as an update)."""
        client = self.client
        assert client is not None
        replica = client.replica
        if replica is None:
            return
        self.model.you = replica.you
        self.model.table = replica.table
        self.model.turn_timer_s = replica.turn_timer_s
        self.model.deadline_s = replica.deadline_s
        # Its log line says they are back: presence is not to say it a second time.
        self._away -= {e["seat"] for e in events if e.get("type") == "stand_in_left"}
        self.model.receive(
            {
                "events": events,
                "view": replica.view,
                "seats": replica.seats,
                "status": replica.status,
                "turn": replica.turn,
                # The seat's private data, where the client keeps it apart from the view.
                "private": getattr(replica, "private", None),
                **({"type": message.get("type"), "version": message.get("version"),
                    "turn_then": message.get("turn"), "turn_due_s": replica.turn_due_s}
                   if message else {}),
            }
        )
        if self.model.curtain and self.app.layout.has_focus(self.command):
            # The curtain dropped while a command was typed: Up would bring back the moves
            # typed before, Tab list the hand.
            self.command.reset()
            self.app.layout.focus(self.main)
        self._send_due()
        self.redraw()

    def _send_due(self) -> None:
        """Send what the game asks to send without a key (a choice made ahead of its turn)."""
        if not self._sending and self.online:
            self.send(self.model.ui.due())

    @property
    def online(self) -> bool:
        return self.model.connection in (ONLINE, LOCAL) and not self._down

    def send(self, actions: list[dict[str, Any]]) -> None:
        """Send actions in order, in the background; the first refusal stops the rest.
        Nothing is sent (and the message line says so) while the host is away."""
        if not actions or self.client is None or self._sending:
            return
        if not self.online:
            self.model.say("the host is away: nothing sent; play again once it is back",
                           lasting=True)
            self._unsent = True
            return
        self._unsent = False
        self._sending = True
        self.app.create_background_task(self._send(actions))

    async def _send(self, actions: list[dict[str, Any]]) -> None:
        client = self.client
        assert client is not None
        try:
            for action in actions:
                await client.act(action)
                self._feed([])  # the events come in order through the update stream
        except HostError as exc:
            self._feed([])  # first: a refusal may bring a newer position, which it speaks of
            self.model.say(f"refused: {exc.message}", refusal=True)
            self._keys.clear()  # they followed a move that did not happen
        except HostTimeout as exc:
            self.model.connection = RECONNECTING
            self.model.say(f"not sent: {exc}", lasting=True)  # the connection's news
            self._keys.clear()
        finally:
            self._sending = False
            while self._keys and not self._sending:
                self._play_held(self._keys.popleft())
            self._send_due()
            self.redraw()

    # -- playing ----------------------------------------------------------------------------

    def play_key(self, key: Key) -> None:
        """A game key: its actions go to the host (see :meth:`play`)."""
        self.play(key.run)

    def play(self, run: Callable[[], list[dict[str, Any]]]) -> None:
        """Send what ``run`` (a game key, a typed move) returns; a change of the choice in hand
        it made is a step that ``u`` or Esc takes back."""
        before = self.model.ui.step_state()
        actions = run()
        self.model.stepped(before)
        self.send(actions)

    def undo(self, quiet: bool = False) -> None:
        """Take back the last step of your turn that the host has not seen; with none, drop
        what is in hand (Esc) or say so (``u``; ``quiet``: Esc says nothing)."""
        model = self.model
        if self._sending:
            model.say("wait: your last move is on its way")
        elif model.undo():
            model.say("")
        elif not model.ui.cancel():
            model.say("" if quiet else "nothing to undo: what the host has accepted stays")

    def hold_key(self, keys: tuple[str, ...]) -> None:
        """A game key pressed while a move is on its way: it waits for the move (the view is
        about to change, and the key is meant for the new one)."""
        if len(self._keys) < KEYS_AHEAD:
            self._keys.append(keys)

    def _play_held(self, keys: tuple[str, ...]) -> None:
        """A held key, as its binding that acts now (``when``) would have played it."""
        for key in self.model.ui.key_bindings():
            if key.keys == keys and key.when():
                self.play_key(key)
                return

    def run_command(self, text: str) -> None:
        """Carry out one typed command: the shell's words, else the game's."""
        model = self.model
        try:
            command = commands.parse(text)
            if command is None:
                if model.curtain:  # a move made unseen, whose refusal would speak of the hand
                    model.say("covered: h uncovers it, then type your move", lasting=True)
                    return
                if self._sending:
                    raise CommandError("wait: your last move is on its way")
                model.say("")
                self.play(lambda: model.ui.command(text))
                return
        except CommandError as exc:
            model.say(str(exc), refusal=True)  # gone when your next turn comes
            return
        model.say("")
        kind = command.kind
        if kind == "quit":
            self.quit()
        elif kind in ("help", "rules"):
            model.page = HELP
            model.help_page = 0 if kind == "help" else len(render.help_pages(model)) - 1
        elif kind == "standin":
            self.stand_in((command.number or 0) - 1)
        elif kind == "show":
            if command.number is not None and 1 <= command.number <= model.players:
                model.shown = command.number - 1
                model.page = GAME
            elif model.players == 1:
                model.say(f"show picks a player's {model.ui.board}; alone, yours is the only one")
            else:
                model.say(f"show picks a player's {model.ui.board}: show 1 to show {model.players}")
        else:
            self.step(kind, command.number)

    def step(self, kind: str, number: int | None = None) -> None:
        """Move through a replay."""
        if self.replay is None:
            self.model.say("stepping is for replays")
            return
        i = self.replay.index
        target = {"next": i + 1, "back": i - 1, "first": 0, "last": len(self.replay.frames) - 1}
        self.replay.show(self.model, target.get(kind, number or 0))

    # -- analysis ---------------------------------------------------------------------------

    def can_analyse(self) -> bool:
        if self._analysing:
            return False
        if self.replay is not None:
            return self.replay.verdicts is None and self.replay.record is not None
        return self.record is not None and self.model.status == "over"

    def start_analysis(self) -> None:
        """``a``: analyse the game in the background, then open the replay with verdicts."""
        if self.can_analyse():
            self._analysing = True
            self.model.analysable = False  # the hint offers it no more while it runs
            self.model.analysis_note = "analysing the game: getting its record ..."
            self.app.create_background_task(self._analyse())

    async def _analyse(self) -> None:
        model = self.model
        try:
            if self.replay is not None and self.replay.record is not None:
                record = self.replay.record
            else:
                assert self.record is not None
                record = await self.record()

            def on_verdict(done: int, total: int) -> None:  # on the analysis's thread
                if self._closed.is_set():
                    raise _Closed  # ends the analysis (sagani_net.analysis.analyse)
                model.analysis_note = progress_text(done, total)
                self.app.invalidate()

            analysis = await asyncio.to_thread(self.analyser, record, on_verdict)
            verdicts = {v.index: v for v in analysis.verdicts}
            if self.replay is None:
                self.replay = Replay(replay_frames(record),
                                     over=get_game(model.game).from_record(record).is_over(),
                                     record=record)
                model.page = GAME
            self.replay.verdicts = verdicts
            model.analysis_note = ""
            model.analysable = False
            self.replay.show(model, self.replay.index)
            self.next_costly()  # straight to where the game turned
        except (HostError, HostTimeout, OSError, RuleError, RuntimeError) as exc:
            # RuntimeError: a worker died (BrokenProcessPool); the console goes on without.
            model.analysis_note = f"no analysis: {exc}"
            model.analysable = True  # a may try again
        finally:
            self._analysing = False
        self.redraw()

    def next_costly(self) -> None:
        """``c``: the position after the next of the costliest decisions, costliest first."""
        replay = self.replay
        if replay is None or replay.verdicts is None:
            return
        costly = replay.costliest()
        if not costly:
            self.model.say("no decision lost anything")
            return
        replay.costly_at = (replay.costly_at + 1) % len(costly)
        replay.show(self.model, costly[replay.costly_at].index + 1)

    def quit(self) -> None:
        if not self.app.is_done:
            self.app.exit(result=0)

    def _accept(self, buffer: Buffer) -> bool:
        text = buffer.text.strip()
        if text:
            self.run_command(text)
        self.app.layout.focus(self.main)
        self.redraw()
        return False  # clears the buffer; the history keeps the text

    # -- keys -------------------------------------------------------------------------------

    def _bindings(self) -> KeyBindings:
        kb = KeyBindings()
        model = self.model
        help_shown = Condition(lambda: model.page == HELP) & ~has_focus(self.command)
        on_main = ~has_focus(self.command) & ~help_shown
        replaying = Condition(lambda: self.replay is not None) & on_main
        curtain = Condition(lambda: model.curtain)
        in_game = on_main & ~replaying & Condition(lambda: model.page == GAME)
        # Not while covered: a game key's note, refusal or choice would show your hand.
        playing = in_game & ~curtain
        entries: list[tuple[str, str]] = []

        def describe(label: str, text: str | None) -> None:
            line = (text or "").strip().splitlines()[0] if text else ""
            line = line[:1].lower() + line[1:]
            if line and (label, line.rstrip(".")) not in entries:
                entries.append((label, line.rstrip(".")))

        @kb.add("c-c")
        @kb.add("q", filter=on_main)
        def _quit(event: KeyPressEvent) -> None:
            """Quit (the game is kept: come back to it)."""
            self.quit()

        @kb.add(" ", filter=help_shown)
        @kb.add("right", filter=help_shown)
        def _next_page(event: KeyPressEvent) -> None:
            """Next help page."""
            pages = len(render.help_pages(model))
            if model.help_page + 1 < pages:
                model.help_page += 1
            else:
                model.page = GAME if model.status != "over" else FINAL

        @kb.add("<any>", filter=help_shown)
        def _back(event: KeyPressEvent) -> None:
            """Leave the help screen."""
            model.page = GAME if model.status != "over" else FINAL

        @kb.add("?", filter=on_main)
        def _help(event: KeyPressEvent) -> None:
            """Help: keys, then commands, then the rules (Space: next page)."""
            model.page = HELP
            model.help_page = 0

        @kb.add("h", filter=on_main & ~replaying & Condition(lambda: model.may_cover))
        def _cover(event: KeyPressEvent) -> None:
            """Cover or uncover what only you may see: for a screen others look at."""
            model.covered = not model.covered
            model.say("")  # what it said was of the screen before

        describe("?", _help.__doc__)
        describe("q", _quit.__doc__)
        describe("h", _cover.__doc__)
        sending = Condition(lambda: self._sending)
        for key in model.ui.key_bindings():
            describe(key.label or " ".join(key.keys), key.help)
            kb.add(*key.keys, filter=playing & ~sending & Condition(key.when))(
                lambda event, key=key: self.play_key(key)
            )
        # Held whole while a move is on its way: which binding acts is known only after it.
        for keys in {key.keys for key in model.ui.key_bindings()}:
            kb.add(*keys, filter=playing & sending)(lambda event, keys=keys: self.hold_key(keys))

        # Covered too: it shows nothing of yours, and the message line offers it.
        @kb.add("B", filter=in_game & Condition(lambda: model.may_stand_in is not None))
        def _stand_in(event: KeyPressEvent) -> None:
            """Seat a bot for the away player to move till they are back (standin N)."""
            seat = model.may_stand_in
            if seat is not None:
                self.stand_in(seat)

        @kb.add("escape", filter=on_main, eager=True)
        def _cancel(event: KeyPressEvent) -> None:
            self.undo(quiet=True)

        @kb.add("u", filter=playing)
        def _undo(event: KeyPressEvent) -> None:
            """Undo the last step of your turn not yet sent; sent moves stay."""
            self.undo()

        @kb.add("right", filter=replaying)
        @kb.add("n", filter=replaying)
        def _next(event: KeyPressEvent) -> None:
            """Replay: next move."""
            self.step("next")

        @kb.add("left", filter=replaying)
        @kb.add("b", filter=replaying)
        def _prev(event: KeyPressEvent) -> None:
            """Replay: previous move."""
            self.step("back")

        @kb.add("home", filter=replaying)
        def _first(event: KeyPressEvent) -> None:
            """Replay: the start (End: the end)."""
            self.step("first")

        @kb.add("end", filter=replaying)
        def _last(event: KeyPressEvent) -> None:
            """Replay: the end."""
            self.step("last")

        @kb.add("a", filter=on_main & Condition(self.can_analyse))
        def _analyse_game(event: KeyPressEvent) -> None:
            """After the game: analyse it, then replay it with each move's verdict."""
            self.start_analysis()

        @kb.add("c", filter=replaying & Condition(lambda: self.replay is not None
                                                  and self.replay.verdicts is not None))
        def _costly(event: KeyPressEvent) -> None:
            """Replay: the next of the costliest decisions."""
            self.next_costly()

        @kb.add("tab", filter=on_main)
        def _next_board(event: KeyPressEvent) -> None:
            """Show the next player's board or display (S-Tab back)."""
            if model.players:
                model.shown = (model.shown + 1) % model.players
                model.ui.pan_reset()
                if model.page == FINAL:
                    model.page = GAME

        @kb.add("s-tab", filter=on_main)
        def _prev_board(event: KeyPressEvent) -> None:
            if model.players:
                model.shown = (model.shown - 1) % model.players
                model.ui.pan_reset()

        @kb.add("pageup", filter=on_main)
        def _log_back(event: KeyPressEvent) -> None:
            """Scroll the log back (PgDn forward)."""
            model.log_back = min(model.log_back + self._log_page(), max(0, len(model.log) - 1))

        @kb.add("pagedown", filter=on_main)
        def _log_forward(event: KeyPressEvent) -> None:
            model.log_back = max(0, model.log_back - self._log_page())

        @kb.add("f", filter=on_main)
        def _final(event: KeyPressEvent) -> None:
            """Back to the final screen once the game is over."""
            if model.status == "over":
                model.page = FINAL

        # Not while covered: Up would bring back the moves typed before (Sugi's face-down
        # timeline cards), and Tab would list the hand.
        @kb.add(":", filter=on_main & ~curtain)
        @kb.add("/", filter=on_main & ~curtain)
        def _command(event: KeyPressEvent) -> None:
            """Type a command (Tab completes, Up/Down history)."""
            event.app.layout.focus(self.command)

        @kb.add("escape", filter=has_focus(self.command), eager=True)
        def _leave_command(event: KeyPressEvent) -> None:
            self.command.reset()
            event.app.layout.focus(self.main)

        for label, handler in (("u Esc", _undo), ("Tab", _next_board), ("PgUp", _log_back),
                               (": /", _command), ("f", _final), ("→ n", _next),
                               ("← b", _prev), ("Home", _first),
                               ("a", _analyse_game), ("c", _costly), ("B", _stand_in)):
            describe(label, handler.__doc__)
        model.key_help = entries
        return kb


#: How long a spectator's console waits, as it ends, for the host to take its place back.
LEAVE_WAIT_S = 2.0


async def run_console(console: Console, leave: bool = False) -> int:
    """Run the console, closing its client at the end; with ``leave`` (a spectator's), give its
    place up first: a table has 64 places to watch, 16 for each address, and a console that
    quit held its own until the table was gone, so that a machine that started watching 16
    times was refused the next."""
    try:
        return await console.run()
    finally:
        if console.client is not None:
            if leave and console.client.token is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(console.client.leave(), LEAVE_WAIT_S)
            with contextlib.suppress(Exception):
                console.client.close()
