"""The console against a real host on 127.0.0.1: keys in through a pipe, a bot as opponent."""

from __future__ import annotations

import asyncio
import logging
import random
from collections import deque
from pathlib import Path

import pytest
from console_kit import GAME_TIMEOUT_S, press_a_sagani_move, running_console, seated, start
from prompt_toolkit.input import PipeInput
from test_net_support import WAIT_S, until_async

from sagani_net.bots import make_policy
from sagani_net.cli.console.app import Replay
from sagani_net.cli.console.model import FINAL, ConsoleModel
from sagani_net.cli.console.render import screen_text
from sagani_net.cli.play_cmd import replay_frames
from sagani_net.client import AsyncClient
from sagani_net.games.sagani.rules import State
from sagani_net.host import Host
from sagani_net.store import Store


def test_keys_pressed_while_a_move_is_on_its_way_are_played_after_it(host: Host) -> None:
    """A quick hand in a solo game: reveal the next tile, move the ghost, place it, in one
    burst of keys. The keys after r come while the reveal is on its way to the host: they wait
    for it, then play."""

    async def main() -> None:
        me, _ = await seated(host)
        model = ConsoleModel()
        async with running_console(model, me) as running:
            await until_async(lambda: model.my_turn and model.view is not None)
            version = model.view["version"]
            assert [a.type for a in model.ui.choices()] == ["reveal"]
            running.keys.send_text("r\x1b[C\r")
            await until_async(lambda: model.view["version"] >= version + 2)
            assert running.console._keys == deque()
        me.close()

    asyncio.run(main())


def test_console_plays_a_whole_game_with_keys_to_the_final_screen(host: Host) -> None:
    """Number keys, arrows, Enter and p, through an intermezzo, to the ranking."""
    async def main() -> str:
        me, bot, bot_task = await start(host, seed=6)  # a deal with an intermezzo
        model = ConsoleModel()
        async with running_console(model, me) as running:
            keys = running.keys
            await until_async(lambda: model.view is not None)
            turns = 0
            while model.status != "over":
                await until_async(lambda: model.my_turn or model.status == "over", GAME_TIMEOUT_S)
                if model.status == "over":
                    break
                version = model.view["version"]
                await press_a_sagani_move(model, keys)
                # The move and the bot's answer: as long as the host takes on a loaded machine.
                await until_async(
                    lambda v=version: model.view["version"] > v or model.status == "over",
                    GAME_TIMEOUT_S)
                turns += 1
            await until_async(lambda: model.page == FINAL)
            text = screen_text(model, 80, 24)
        assert running.status == 0
        await asyncio.wait_for(bot_task, WAIT_S)
        me.close()
        bot.close()
        assert turns > 10
        assert any(line.startswith("intermezzo!") for line in model.log)
        assert any(line.startswith("ann took") and "storage" in line for line in model.log)
        return text

    text = asyncio.run(asyncio.wait_for(main(), GAME_TIMEOUT_S))
    assert "Game over" in text
    assert "ann" in text and "greedy" in text
    assert "wins" in text


def test_typed_commands_play_a_turn_and_keep_history(host: Host) -> None:
    async def main() -> None:
        me, bot, bot_task = await start(host, seed=5)
        model = ConsoleModel()
        async with running_console(model, me) as running:
            keys = running.keys
            await until_async(lambda: model.my_turn)
            keys.send_text(":take 2 at 0,0 rot 90\r")
            await until_async(lambda: len(model.view["seats"][0]["display"]) == 1)
            placed = model.view["seats"][0]["display"][0]
            assert placed[:2] == [0, 0] and placed[3] == 90
            assert "take 2 at 0,0 rot 90" in running.console.history.get_strings()
            await until_async(lambda: model.my_turn)
            keys.send_text(":frobnicate\r")
            await until_async(lambda: "cannot read" in model.message)
        bot_task.cancel()
        me.close()
        bot.close()

    asyncio.run(asyncio.wait_for(main(), GAME_TIMEOUT_S))


def test_console_recovers_when_the_host_restarts(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    """Started again on another data dir first (its --data-dir forgotten), the host refused
    the console's every request with no_table, and the console said "● online" over the last
    position, frozen: it says the host has not the table, and goes on trying."""
    caplog.set_level(logging.INFO, logger="sagani_net.host")

    async def main() -> None:
        first = Host(Store(tmp_path), port=0, heartbeat_s=0.2, client_seeds=True)
        first.serve_in_thread()
        port = int(first.endpoint.rsplit(":", 1)[1])
        pub_port = int(first.pub_endpoint.rsplit(":", 1)[1])
        me = AsyncClient(first.endpoint, timeout_s=0.3, retries=1)
        await me.connect()
        table = await me.create({"players": 2}, seed=2)
        await me.join(table, seat=0, name="ann")
        other = AsyncClient(first.endpoint)
        await other.join(table, seat=1, name="bo")
        model = ConsoleModel()
        second: Host | None = None
        try:
            async with running_console(model, me) as running:
                await until_async(lambda: model.my_turn)
                first.stop()
                await until_async(lambda: model.connection == "reconnecting")
                # A move while the host is away is refused, in words, and never sent later.
                running.keys.send_text("1\r")
                await until_async(lambda: "nothing sent" in model.message)
                wrong = Host(Store(tmp_path / "elsewhere"), port=port, pub_port=pub_port,
                             heartbeat_s=0.2)
                wrong.serve_in_thread()
                await until_async(lambda: f"has no table {table}" in model.message)
                refused = caplog.text.count("no_table")  # each try, never "online"
                await until_async(lambda: caplog.text.count("no_table") >= refused + 2)
                assert model.connection == "reconnecting"
                assert f"has no table {table}" in model.message
                wrong.stop()
                second = Host(Store(tmp_path), port=port, pub_port=pub_port, heartbeat_s=0.2,
                              client_seeds=True)
                second.serve_in_thread()
                await until_async(lambda: model.connection == "online")
                # Back, the line says that the move was not sent (it said to play it again).
                assert "your move was not sent: play it again" in model.message
                assert second.tables[table].state.version == 0
                running.keys.send_text("1\r")
                await until_async(lambda: len(model.view["seats"][0]["display"]) == 1)
                assert second.tables[table].state.version == 2
        finally:
            if second is not None:
                second.stop()
        me.close()
        other.close()

    asyncio.run(asyncio.wait_for(main(), GAME_TIMEOUT_S))


def test_replay_steps_forwards_and_backwards_with_keys() -> None:
    state = State.new(2, seed=9)
    policy, rng = make_policy("greedy"), random.Random(9)
    while not state.is_over():
        state.apply(policy.choose(state, rng))
    steps = Replay(replay_frames(state.to_record()))
    model = ConsoleModel(connection="local", seats=[{"name": "a"}, {"name": "b"}])

    async def main() -> None:
        async with running_console(model, replay=steps) as running:
            keys = running.keys
            keys.send_text("\x1b[C\x1b[C\x1b[C")  # right, right, right
            await until_async(lambda: steps.index == 3)
            keys.send_text("\x1b[D")  # left
            await until_async(lambda: steps.index == 2)
            assert "f final" not in screen_text(model, 80, 24).splitlines()[-2]
            keys.send_text(":last\r")
            await until_async(lambda: steps.index == len(steps.frames) - 1)
            assert model.status == "over"
            # At the end, the hint offers the result, and f shows it.
            assert "f final" in screen_text(model, 80, 24).splitlines()[-2]
            keys.send_text("f")
            await until_async(lambda: model.page == FINAL)

    asyncio.run(asyncio.wait_for(main(), GAME_TIMEOUT_S))


async def play_turns(model: ConsoleModel, keys: PipeInput, turns: int) -> None:
    """``turns`` times: take offer tile 2 (or another, or pass), place it where the ghost is."""
    for _ in range(turns):
        await until_async(lambda: model.my_turn and model.ui.phase == "choose")
        version = model.view["version"]
        takes = [a.index for a in model.ui.choices() if a.type == "take"]
        if takes:
            keys.send_text("2" if 1 in takes else str(takes[0] + 1))
            await until_async(lambda: model.ui.selection is not None)
            keys.send_text("\r")
        else:
            keys.send_text("p")
        await until_async(lambda v=version: model.view["version"] > v)


def test_the_log_holds_every_move_once_in_order(host: Host) -> None:
    """Your move is logged once, and the bot's answer that may come in with its reply too."""
    async def main() -> None:
        me, bot, bot_task = await start(host, seed=5)
        model = ConsoleModel()
        async with running_console(model, me) as running:
            await play_turns(model, running.keys, 12)
            # Your last move whole, and the bot's answer, are in.
            await until_async(lambda: model.my_turn and model.ui.phase == "choose")
            for seat, name in enumerate(("ann", "greedy")):
                placed = [line for line in model.log if line.startswith(f"{name} placed")]
                took = [line for line in model.log
                        if line.startswith(f"{name} took") and "disc" not in line]
                assert len(placed) == len(model.view["seats"][seat]["display"]), model.log
                assert len(took) == len(placed), "\n".join(model.log)
        bot_task.cancel()
        me.close()
        bot.close()

    asyncio.run(asyncio.wait_for(main(), GAME_TIMEOUT_S))


def test_a_typed_move_with_an_illegal_cell_sends_nothing(host: Host) -> None:
    async def main() -> None:
        me, bot, bot_task = await start(host, seed=5)
        model = ConsoleModel()
        async with running_console(model, me) as running:
            await until_async(lambda: model.my_turn)
            running.keys.send_text(":take 1 at 5,5 rot 0\r")
            await until_async(lambda: "not sent" in model.message)
            assert model.ui.phase == "choose" and model.ui.selection is None
            # Had the take gone out, this whole command would be refused: the tile is held.
            running.keys.send_text(":take 1 at 0,0 rot 90\r")
            await until_async(lambda: len(model.view["seats"][0]["display"]) == 1)
            assert model.view["seats"][0]["display"][0][:2] == [0, 0]
        bot_task.cancel()
        me.close()
        bot.close()

    asyncio.run(asyncio.wait_for(main(), GAME_TIMEOUT_S))


def test_a_solo_game_offers_no_tab_to_other_displays(host: Host) -> None:
    """Tab goes to the next player's display; alone, yours is the only one, so neither the
    display's title nor the keys offer it (before the reveal nor with the tile in hand)."""

    async def main() -> None:
        me, _ = await seated(host)
        model = ConsoleModel()
        async with running_console(model, me) as running:
            await until_async(lambda: model.my_turn and model.view is not None)
            before = screen_text(model, 80, 24)
            running.keys.send_text("r")
            await until_async(lambda: model.ui.selection is not None)
            for text in (before, screen_text(model, 80, 24)):
                assert "Tab" not in text and "(0 tiles, seat 1/1)" in text
        me.close()

    asyncio.run(main())


def test_show_says_what_it_takes_and_alone_that_there_is_one_display(host: Host) -> None:
    """':show 2' alone said 'show 1 to 1'; two players: 'show 3' says which numbers it takes."""

    async def show_one_too_many(players: int) -> str:
        me, _ = await seated(host, players)
        model = ConsoleModel()
        async with running_console(model, me) as running:
            await until_async(lambda: model.view is not None)
            running.keys.send_text(f":show {players + 1}\r")
            await until_async(lambda: model.message.startswith("show"))
        me.close()
        return model.message

    async def main() -> None:
        assert await show_one_too_many(1) == (
            "show picks a player's display; alone, yours is the only one")
        assert await show_one_too_many(2) == "show picks a player's display: show 1 to show 2"

    asyncio.run(main())


def test_a_solo_replay_offers_no_tab_and_its_final_screen_still_does() -> None:
    """Stepping through a solo game, and on its board after the end, Tab has no other display
    to go to; on the final screen it goes to the board, and says so."""
    state = State.new(1, "solo", seed=9)
    policy, rng = make_policy("greedy"), random.Random(9)
    while not state.is_over():
        state.apply(policy.choose(state, rng))
    steps = Replay(replay_frames(state.to_record()))
    model = ConsoleModel(connection="local", seats=[{"name": "a"}])

    async def main() -> None:
        async with running_console(model, replay=steps) as running:
            running.keys.send_text("\x1b[C")
            await until_async(lambda: steps.index == 1)
            assert "Tab" not in screen_text(model, 80, 24).splitlines()[-2]
            running.keys.send_text(":last\r")
            await until_async(lambda: model.status == "over")
            assert "Tab" not in screen_text(model, 80, 24).splitlines()[-2]
            running.keys.send_text("f")
            await until_async(lambda: model.page == FINAL)
            assert "Tab look at the displays" in screen_text(model, 80, 24).splitlines()[-2]

    asyncio.run(asyncio.wait_for(main(), GAME_TIMEOUT_S))

