"""The full-screen console: one prompt_toolkit Application on one asyncio loop.

The screen is drawn from :func:`cli.console.render.screen` over a :class:`ConsoleModel`; the
network runs as background tasks of the app (``app.create_background_task``) that feed the
model and ask for a redraw. Keys and typed commands both end in :meth:`Console.choose`,
:meth:`Console.confirm` or :meth:`Console.send`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition, has_focus
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import Float, FloatContainer, HSplit, Layout, VSplit, Window
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.output import Output

from cli.console import render
from cli.console.commands import CommandError, complete, parse
from cli.console.model import (
    CONNECTING,
    FINAL,
    GAME,
    HELP,
    OFFLINE,
    ONLINE,
    RECONNECTING,
    ConsoleModel,
    describe,
)
from sagani_net.client import AsyncClient, HostError, HostTimeout
from sagani_net.games.sagani.rules import Action

log = logging.getLogger("cli.console")

#: Pause between tries to reach a host that went away.
RETRY_S = 0.5
#: How often the console checks that the host is still heard from.
WATCH_S = 0.5


class Replay:
    """A recorded game as a list of frames (view and the events that led to it)."""

    def __init__(self, frames: list[tuple[dict[str, Any], list[dict[str, Any]]]]) -> None:
        self.frames = frames
        self.index = 0

    def show(self, model: ConsoleModel, index: int) -> None:
        """Put frame ``index`` on the model; the log holds every event up to it."""
        self.index = max(0, min(index, len(self.frames) - 1))
        view, _ = self.frames[self.index]
        model.log = []
        for _, events in self.frames[1 : self.index + 1]:
            for event in events:
                model.add_log(describe(event, model))
        model.view = view
        model.status = "over" if view["phase"] == "over" else "running"
        model.replay_step = f"move {self.index}/{len(self.frames) - 1}"
        last = self.frames[self.index][1]
        model.changed = {}
        for event in last:
            if event.get("type") == "tile_placed":
                model.changed.setdefault(event["seat"], set()).add(tuple(event["cell"]))
        # Show the display the last move changed; before any move, the first to play.
        actors = [e["seat"] for e in last if isinstance(e.get("seat"), int)]
        if actors:
            model.shown = actors[-1]
        elif view["turn"] is not None:
            model.shown = view["turn"]


class _CommandCompleter(Completer):
    def __init__(self, model: ConsoleModel) -> None:
        self.model = model

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Any:
        text = document.text_before_cursor
        words = text.split()
        partial = "" if text.endswith(" ") or not words else words[-1]
        cells = self.model.legal_cells() if self.model.my_turn else []
        for option in complete(text, self.model.choices(), cells):
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
    ) -> None:
        self.model = model
        self.client = client
        self.replay = replay
        self.rejoin = rejoin
        self._sending = False
        self._down = False  # the last request to the host failed
        self._seen_seq = -1  # the last broadcast whose events are in the log
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
            style=render.STYLE,
            full_screen=True,
            mouse_support=False,
            input=input,
            output=output,
        )
        # Esc alone must act at once, not wait to see whether it starts a key sequence.
        self.app.ttimeoutlen = 0.05
        self.app.timeoutlen = 0.3
        if replay is not None:
            replay.show(model, 0)

    # -- drawing ----------------------------------------------------------------------------

    def _screen(self) -> list[tuple[str, str]]:
        size = self.app.output.get_size()
        lines = render.screen(self.model, size.columns, max(8, size.rows - 1))
        out: list[tuple[str, str]] = []
        for i, line in enumerate(lines):
            if i:
                out.append(("", "\n"))
            out.extend(line)
        return out

    def redraw(self) -> None:
        self.app.invalidate()

    # -- running ----------------------------------------------------------------------------

    async def run(self) -> int:
        """Run until quit; returns an exit status."""
        if self.client is not None:
            self.app.pre_run_callables.append(self._start_tasks)
        result = await self.app.run_async()
        return result or 0

    def _start_tasks(self) -> None:
        self.app.create_background_task(self._follow())
        self.app.create_background_task(self._watch())

    async def _watch(self) -> None:
        """Say "reconnecting" as soon as the host falls silent; the client's own recovery
        (hello, resubscribe, resync) can take a while before it gives up with an error."""
        client = self.client
        assert client is not None
        while True:
            await asyncio.sleep(WATCH_S)
            silent = client.silent
            if silent and self.model.connection == ONLINE:
                self.model.connection = RECONNECTING
                self.redraw()
            elif not silent and self.model.connection == RECONNECTING and not self._down:
                self.model.connection = ONLINE
                self.redraw()

    async def _follow(self) -> None:
        """Keep the model in step with the host: updates, and reconnects after silence."""
        client = self.client
        assert client is not None
        self.model.connection = ONLINE  # joined: the client holds a fresh snapshot
        self._feed([])
        while True:
            try:
                message = await client.next_update(timeout_s=1.0)
                if self.model.connection in (CONNECTING, RECONNECTING, OFFLINE):
                    self.model.connection = ONLINE
                    self.model.message = ""
                if message is not None:
                    self._feed(message.get("events", []), message.get("seq"))
                self.redraw()
            except asyncio.CancelledError:
                raise
            except (HostTimeout, HostError, OSError) as exc:
                # The host went away (restart, network blip): say so, then try again.
                self._down = True
                self.model.connection = RECONNECTING
                self.model.message = f"host unreachable ({exc}); retrying"
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
            self.model.connection = ONLINE
            self.model.message = ""
            self._feed([])
        except (HostTimeout, HostError, OSError):
            pass

    def _feed(self, events: list[dict[str, Any]], seq: int | None = None) -> None:
        client = self.client
        assert client is not None
        replica = client.replica
        if replica is None:
            return
        if seq is not None and seq <= self._seen_seq:
            events = []  # an own action's reply, already logged when it came back
        self._seen_seq = max(self._seen_seq, replica.seq if seq is None else seq)
        self.model.you = replica.you
        self.model.table = replica.table
        self.model.receive(
            {
                "events": events,
                "view": replica.view,
                "seats": replica.seats,
                "status": replica.status,
            }
        )
        self.redraw()

    def send(self, actions: list[Action]) -> None:
        """Send actions in order, in the background; the first refusal stops the rest."""
        if not actions or self.client is None or self._sending:
            return
        self._sending = True
        self.app.create_background_task(self._send(actions))

    async def _send(self, actions: list[Action]) -> None:
        client = self.client
        assert client is not None
        try:
            for action in actions:
                events = await client.act(action.to_dict())
                assert client.replica is not None
                self._feed(events, client.replica.seq)
        except HostError as exc:
            self.model.message = f"refused: {exc.message}"
            self._feed([])
        except HostTimeout as exc:
            self.model.connection = RECONNECTING
            self.model.message = f"not sent: {exc}"
        finally:
            self._sending = False
            self.redraw()

    # -- playing ----------------------------------------------------------------------------

    def choose(self, action: Action) -> None:
        if not self._sending:  # the view is about to change; decide on the new one
            self.send(self.model.select(action))

    def confirm(self) -> None:
        if not self._sending:
            self.send(self.model.confirm())

    def run_command(self, text: str) -> None:
        """Carry out one typed command."""
        model = self.model
        try:
            command = parse(text)
        except CommandError as exc:
            model.message = str(exc)
            return
        model.message = ""
        kind = command.kind
        if kind == "quit":
            self.quit()
        elif kind == "help":
            model.page = HELP
        elif kind == "show":
            if command.number is not None and 1 <= command.number <= model.players:
                model.shown = command.number - 1
                model.page = GAME
            else:
                model.message = f"show 1 to {model.players}"
        elif kind in ("next", "back", "first", "last", "step"):
            self.step(kind, command.number)
        elif kind == "rotate":
            if model.selection is None:
                model.message = "no tile in hand to rotate"
            elif command.rotation is None:
                model.rotate()
            else:
                model.place_at(model.selection.cell, command.rotation)
        elif kind == "place":
            if model.selection is None:
                model.message = "take a tile first (take N, draw, pick N)"
                return
            assert command.cell is not None
            model.place_at(command.cell, command.rotation or 0)
            self.confirm()
        else:  # play: a choice, maybe with its placement
            assert command.choice is not None
            if command.cell is None:
                self.choose(command.choice)
                return
            if command.choice.type in ("draw", "reveal"):
                # The tile is unknown until drawn: send the choice, then place what comes.
                self.send([command.choice, Action.place(command.cell, command.rotation or 0)])
                return
            model.select(command.choice)
            if model.selection is not None:
                model.place_at(command.cell, command.rotation or 0)
                self.confirm()

    def step(self, kind: str, number: int | None = None) -> None:
        """Move through a replay."""
        if self.replay is None:
            self.model.message = "stepping is for replays"
            return
        i = self.replay.index
        target = {"next": i + 1, "back": i - 1, "first": 0, "last": len(self.replay.frames) - 1}
        self.replay.show(self.model, target.get(kind, number or 0))

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
        placing = Condition(lambda: model.selection is not None) & on_main
        replaying = Condition(lambda: self.replay is not None) & on_main

        @kb.add("c-c")
        @kb.add("q", filter=on_main)
        def _quit(event: KeyPressEvent) -> None:
            """Quit."""
            self.quit()

        @kb.add("<any>", filter=help_shown)
        def _back(event: KeyPressEvent) -> None:
            """Leave the help screen."""
            model.page = GAME if model.status != "over" else FINAL

        @kb.add("?", filter=on_main)
        def _help(event: KeyPressEvent) -> None:
            """Show the help screen."""
            model.page = HELP

        for n in range(1, 6):

            @kb.add(str(n), filter=on_main)
            def _pick(event: KeyPressEvent, n: int = n) -> None:
                """Take (or in an intermezzo pick) tile number n."""
                view = model.view
                if view is None:
                    return
                kind = "pick" if view["intermezzo"] is not None else "take"
                self.choose(Action(kind, n - 1))

        @kb.add("d", filter=on_main)
        def _draw(event: KeyPressEvent) -> None:
            """Draw: store the last offer tile and take the pile's top."""
            self.choose(Action("draw"))

        @kb.add("p", filter=on_main)
        def _pass(event: KeyPressEvent) -> None:
            """Pass."""
            self.choose(Action("pass"))

        @kb.add("r", filter=placing)
        def _rotate(event: KeyPressEvent) -> None:
            """Rotate the tile in hand clockwise."""
            model.rotate(1)

        @kb.add("R", filter=placing)
        def _rotate_back(event: KeyPressEvent) -> None:
            """Rotate the tile in hand counter-clockwise."""
            model.rotate(-1)

        @kb.add("r", filter=on_main & ~placing)
        def _reveal(event: KeyPressEvent) -> None:
            """Reveal the next tile (solo)."""
            self.choose(Action("reveal"))

        @kb.add("enter", filter=placing)
        def _confirm(event: KeyPressEvent) -> None:
            """Place the tile where the ghost stands."""
            self.confirm()

        @kb.add("escape", filter=on_main, eager=True)
        def _cancel(event: KeyPressEvent) -> None:
            """Cancel the choice."""
            model.cancel()
            if model.page == HELP:
                model.page = GAME

        for key, (dx, dy) in {
            "up": (0, 1),
            "down": (0, -1),
            "left": (-1, 0),
            "right": (1, 0),
        }.items():

            @kb.add(key, filter=on_main & ~replaying)
            def _move(event: KeyPressEvent, dx: int = dx, dy: int = dy) -> None:
                """Move the ghost (or pan the display)."""
                model.move(dx, dy)

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
            self.step("first")

        @kb.add("end", filter=replaying)
        def _last(event: KeyPressEvent) -> None:
            self.step("last")

        @kb.add("tab", filter=on_main)
        def _next_display(event: KeyPressEvent) -> None:
            """Show the next player's display."""
            if model.players:
                model.shown = (model.shown + 1) % model.players
                model.pan = [0, 0]
                if model.page == FINAL:
                    model.page = GAME

        @kb.add("s-tab", filter=on_main)
        def _prev_display(event: KeyPressEvent) -> None:
            """Show the previous player's display."""
            if model.players:
                model.shown = (model.shown - 1) % model.players
                model.pan = [0, 0]

        @kb.add("f", filter=on_main)
        def _final(event: KeyPressEvent) -> None:
            """Back to the final screen once the game is over."""
            if model.status == "over":
                model.page = FINAL

        @kb.add(":", filter=on_main)
        @kb.add("/", filter=on_main)
        def _command(event: KeyPressEvent) -> None:
            """Type a command."""
            event.app.layout.focus(self.command)

        @kb.add("escape", filter=has_focus(self.command), eager=True)
        def _leave_command(event: KeyPressEvent) -> None:
            self.command.reset()
            event.app.layout.focus(self.main)

        return kb


async def run_console(console: Console) -> int:
    """Run the console, closing its client at the end."""
    try:
        return await console.run()
    finally:
        if console.client is not None:
            with contextlib.suppress(Exception):
                console.client.close()
