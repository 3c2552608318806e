"""The real console app on pipe input for the console tests, a table to play it on, and the
golden screens (tests/golden/) its drawings are checked against."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput
from test_net_support import WAIT_S, until_async

from sagani_net.cli.console.app import Console
from sagani_net.cli.console.model import ConsoleModel
from sagani_net.cli.play_cmd import bot_loop
from sagani_net.client import AsyncClient
from sagani_net.host import Host

#: The bound on a whole console test (a game against a bot): generous, because a shared
#: 2-core machine can be slow; every step within it waits on its event (until_async).
GAME_TIMEOUT_S = 240


@dataclass
class Running:
    """A console app running on pipe input: the keys to send, the app, and its exit status."""

    keys: PipeInput
    console: Console
    status: int | None = None


@contextlib.asynccontextmanager
async def running_console(
    model: ConsoleModel, client: AsyncClient | None = None, **options: Any
) -> AsyncIterator[Running]:
    """The real console app on pipe input for the block; quit with q on the way out.
    ``output``: what it draws on (default a DummyOutput, 80x40)."""
    output = options.pop("output", None) or DummyOutput()
    with create_pipe_input() as keys:
        console = Console(model, client, input=keys, output=output, **options)
        task = asyncio.create_task(console.run())
        running = Running(keys, console)
        try:
            yield running
        finally:
            keys.send_text("q")
            running.status = await asyncio.wait_for(task, WAIT_S)


async def start(
    host: Host, seed: int, game: str = "sagani", kind: str = "greedy"
) -> tuple[AsyncClient, AsyncClient, asyncio.Task]:
    """A 2-player table of ``game``: you (ann) in seat 1 (0 on the wire), a ``kind`` bot
    (named so) in seat 2."""
    me = AsyncClient(host.endpoint)
    await me.connect()
    table = await me.create({"players": 2}, game=game, seed=seed, bots=[1])
    bot = AsyncClient(host.endpoint)
    await bot.join(table, role="bot", seat=1, name=kind)
    await me.join(table, seat=0, name="ann")
    return me, bot, asyncio.create_task(bot_loop(bot, kind, 1))


def in_console(host: Host, body, game: str = "sagani", seed: int = 5,
               timeout_s: float = GAME_TIMEOUT_S,
               cover: bool = False):  # type: ignore[no-untyped-def]
    """Run ``body(model, running)`` in the console of seat 0 against a greedy bot, from your
    first turn (Sugi: once your hand is in); ``cover``: as ``--cover`` starts it."""

    async def main() -> None:
        me, bot, bot_task = await start(host, seed, game)
        model = ConsoleModel(cover=cover)
        try:
            async with running_console(model, me) as running:
                await until_async(lambda: model.my_turn and (game != "sugi" or model.private))
                await body(model, running)
        finally:
            bot_task.cancel()
            me.close()
            bot.close()

    asyncio.run(asyncio.wait_for(main(), timeout_s))


async def press_a_sagani_move(model: ConsoleModel, keys: PipeInput) -> None:
    """One Sagani move with keys, as a person plays it: a held tile rotated once and placed;
    else the first offer tile (or stored tile) taken and placed one step right of the ghost's
    cell; else a pass."""
    kinds = {a.type for a in model.ui.choices()}
    if model.ui.phase == "place" and model.ui.selection is not None:
        keys.send_text("r\r")  # a held tile: rotate once, place
    elif "take" in kinds or "pick" in kinds:
        keys.send_text("1")
        await until_async(lambda: model.ui.selection is not None)
        keys.send_text("\x1b[C\r")  # right arrow: move the ghost; place
    else:
        keys.send_text("p")


async def seated(host: Host, players: int = 1, seed: int = 6) -> tuple[AsyncClient, str]:
    """A Sagani table of ``players`` with you (ann) in seat 1 (0 on the wire), the other seats
    open: the client and the table."""
    me = AsyncClient(host.endpoint)
    await me.connect()
    table = await me.create({"players": players}, seed=seed)
    await me.join(table, seat=0, name="ann")
    return me, table


GOLDEN = Path(__file__).resolve().parent / "golden"


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("SAGANI_UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no golden file {name}; run with SAGANI_UPDATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8")
