"""A LAN evening at 80x24, found by playing one (host, standby, consoles in terminals of 80x24):
the help's key column, the log scrolled back, a seat kept for a `sagani bot`, an away name on
the status line. The real prompt_toolkit app on pipe input, or the real `sagani` on a
pseudo-terminal of 80x24."""

from __future__ import annotations

import asyncio
import re
import subprocess
from pathlib import Path

from cli_kit import RUN_SAGANI, Terminal, lan_party
from console_kit import running_console
from prompt_toolkit.data_structures import Size
from prompt_toolkit.output import DummyOutput
from test_net_support import WAIT_S, until_async

from sagani_net.cli.console.model import BOT_QUIET_S, HELP, ConsoleModel
from sagani_net.cli.console.render import screen_text
from sagani_net.client import AsyncClient
from sagani_net.games.sagani.rules import State
from sagani_net.host import Host


class Output80x24(DummyOutput):
    """What the app draws on is a terminal of 80x24 (DummyOutput says 80x40)."""

    def get_size(self) -> Size:
        return Size(rows=24, columns=80)


def test_the_help_keeps_the_key_column_of_the_replays_arrow_keys() -> None:
    """Page 2 of the keys read '→ n replay: next move' at column 0, out of the key column:
    the wrap of a line that is not ASCII dropped its leading space and its column's spaces."""

    async def main() -> str:
        model = ConsoleModel()
        async with running_console(model) as running:
            running.keys.send_text("?")
            await until_async(lambda: model.page == HELP)
            running.keys.send_text(" ")
            await until_async(lambda: model.help_page == 1)
            text = screen_text(model, 80, 24)
            running.keys.send_text("x")  # back from the help: q there is a key like any
            await until_async(lambda: model.page != HELP)
            return text

    text = asyncio.run(asyncio.wait_for(main(), WAIT_S))
    assert "\n → n      replay: next move\n" in text, text
    assert "\n ← b      replay: previous move\n" in text, text


def test_page_up_and_down_show_every_line_of_the_log_at_80x24() -> None:
    """At 80x24 the log shows 2 or 3 lines; PgUp went back 5 a press, so 3 of every 5 were
    never on screen. Each press now goes back as many as the screen shows."""

    async def main() -> tuple[set[str], set[str]]:
        model = ConsoleModel()
        for n in range(16):
            model.add_log(f"event {n}")
        seen_up: set[str] = set()
        seen_down: set[str] = set()
        async with running_console(model, output=Output80x24()) as running:
            for key, seen, done in (("\x1b[5~", seen_up, lambda: model.log_back == 15),
                                    ("\x1b[6~", seen_down, lambda: model.log_back == 0)):
                while True:
                    text = screen_text(model, 80, 24)
                    seen.update(line.strip("·▸ ") for line in text.splitlines()
                                if line.lstrip("·▸ ").startswith("event "))
                    if done():
                        break
                    before = model.log_back
                    running.keys.send_text(key)
                    await until_async(lambda before=before: model.log_back != before)
        return seen_up, seen_down

    seen_up, seen_down = asyncio.run(asyncio.wait_for(main(), WAIT_S))
    every = {f"event {n}" for n in range(16)}
    assert seen_up == every, sorted(every - seen_up)
    assert seen_down == every, sorted(every - seen_down)


def test_a_seat_kept_for_a_bot_says_how_to_seat_it_and_the_line_works(tmp_path: Path) -> None:
    """`sagani join --bots 1` at a host without house bots: the console said only 'waiting
    for players (1/2 seated)' and the table waited for a bot with nothing saying how. It says
    the `sagani bot` line; run as said, it seats the bot and the game starts."""
    with lan_party(tmp_path / "host") as (host, bots):
        assert host.stdout is not None
        address = host.stdout.readline().split()[3].removeprefix("tcp://")
        ann = Terminal("join", address, "--players", "2", "--bots", "1", "--name", "ann",
                       env={"XDG_DATA_HOME": str(tmp_path / "ann")})
        told = f"seat 2 kept for a bot: sagani bot {address} --table "
        ann.wait_for(told)
        line = next(row for row in ann.screen.text().splitlines() if told in row)
        command = line.split("sagani ", 1)[1].split()
        assert command[:2] == ["bot", address] and command[2] == "--table"
        bots.append(subprocess.Popen([*RUN_SAGANI, *command, "--strategy", "random"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        ann.wait_for("YOUR TURN")
        assert "kept for a bot" not in ann.screen.text()
        ann.send("q")
        assert ann.close() == 0


def test_the_status_line_names_an_away_player_whole_where_it_fits() -> None:
    """'YOUR TURN (discard and draw) · away: greedy-b' with 14 columns to spare: names were
    cut to 8 there, and 'greedy-b' is nobody's name."""
    state = State.new(3, seed=3)
    model = ConsoleModel(connection="online")
    model.load({"table": "t1", "you": 0, "status": "running", "view": state.view(0),
                "seats": [{"name": "ann"}, {"name": "greedy-bot", "away": True},
                          {"name": "bob"}]})
    status = screen_text(model, 80, 24).splitlines()[0]
    assert "YOUR TURN · away: greedy-bot " in status, status


def test_solo_sagrada_marks_new_only_what_came_since_your_last_turn(host: Host) -> None:
    """Alone, every turn is yours: the console waited for a turn of someone else's to note
    the windows and the log, so every die of the game stayed marked * ("new since your last
    turn") and every log line ▸. Once a turn ends the next one marks nothing new of it."""

    async def main() -> None:
        me = AsyncClient(host.endpoint)
        await me.connect()
        table = await me.create({"players": 1}, game="sagrada", seed=5)
        await me.join(table, seat=0, name="ann")
        model = ConsoleModel(game="sagrada")

        async def send(text: str) -> None:
            await until_async(lambda: not running.console._sending)
            running.keys.send_text(text)

        async with running_console(model, me) as running:
            await until_async(lambda: model.my_turn and model.view is not None)
            await send("\r")  # the first pattern
            await until_async(lambda: model.view["phase"] == "play" and model.my_turn)
            first = model.view["turn_index"]
            await send("1")
            await until_async(lambda: model.ui.cursor is not None)
            await send("\r")
            await until_async(lambda: model.view["drafted"])
            if model.view["turn_index"] == first:
                await send("p")  # a tool could still be used: end the turn
            await until_async(lambda: model.view["turn_index"] != first and model.my_turn)
            text = screen_text(model, 80, 24)
            assert "*" not in "".join(text.splitlines()[1:12]), text  # the window's rows
            assert model.log_mark == len(model.log)
        me.close()

    asyncio.run(asyncio.wait_for(main(), WAIT_S))


def test_a_silent_bot_to_move_shows_when_the_host_will_move_for_it(host: Host) -> None:
    """A bot that died mid-game: the top line said 'greedy's turn' for the whole minute of its
    deadline, as for a bot thinking. Once a bot to move has been silent for BOT_QUIET_S, the
    top line counts down to the host's default move."""

    async def main() -> None:
        me = AsyncClient(host.endpoint)
        await me.connect()
        table = await me.create({"players": 2}, seed=5, bots=[0])
        mute = AsyncClient(host.endpoint)
        await mute.join(table, role="bot", seat=0, name="greedy")  # and never acts
        await me.join(table, seat=1, name="ann")
        model = ConsoleModel()
        async with running_console(model, me):
            await until_async(lambda: model.turn == 0 and model.announced_s is not None)
            assert "greedy's turn" in screen_text(model, 80, 24).splitlines()[0]
            assert model.bot_left_s is None  # a bot may think a while: nothing said yet
            model.announced_s -= BOT_QUIET_S + 5  # as if it had been silent this long
            top = screen_text(model, 80, 24).splitlines()[0]
            assert re.search(r"greedy's turn \(host moves for it in (50|51) s\)", top), top
        me.close()
        mute.close()

    asyncio.run(asyncio.wait_for(main(), WAIT_S))
