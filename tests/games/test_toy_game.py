"""Hands, the tests' fourth game, as a whole game package (tests/toy_game/: rules, words, UI,
RULES.md): one registry line is all the wiring it needs, and the real console app plays it on
pipe input, against a bot over a real host on 127.0.0.1, to its final screen."""

from __future__ import annotations

import asyncio
import threading

import pytest
from conftest import TOY
from console_kit import running_console, start
from test_net_support import WAIT_S
from test_net_support import until_async as until
from toy_game.ui import HandsUI

from sagani_net.cli.console.model import FINAL, ConsoleModel, make_ui
from sagani_net.cli.console.render import screen_text
from sagani_net.game import RuleError
from sagani_net.games import get_game, rules_file
from sagani_net.host import Host

#: A deal in which you (seat 0) can give a card on your first turn.
SEED = 1


def fresh(model: ConsoleModel) -> bool:
    """Your private data caught up with the view (it comes in a round trip of its own): your
    hand as large as the view says, holding no card already played."""
    view, private = model.view, model.private
    if view is None or private is None:
        return False
    played = {card for _, card in view["played"]}
    hand = private["hand"]
    return len(hand) == view["hand_sizes"][model.you] and not played & set(hand)


def test_without_its_registry_line_the_house_does_not_know_the_game() -> None:
    with pytest.raises(RuleError) as refused:
        get_game(TOY)
    assert refused.value.code == "unknown_game"


def test_the_registry_line_finds_its_rules_words_ui_and_page(toy_registered: str) -> None:
    game = get_game(toy_registered)
    assert game.event_text({"type": "gave", "seat": 0, "to": 1}, ["ann", "bo"]) == (
        "ann gave a card to bo")
    assert game.parse_text("give 3") == {"type": "give", "card": 3}
    assert isinstance(make_ui(toy_registered, ConsoleModel()), HandsUI)
    assert rules_file(toy_registered).read_text().startswith("# Hands")


def test_the_console_plays_hands_with_keys_to_the_final_screen(
    toy_registered: str, host: Host
) -> None:
    """g 1 gives your first card on the first turn, then 1 plays your lowest card each turn,
    to the ranking page."""

    async def main() -> str:
        me, bot, bot_task = await start(host, SEED, toy_registered, "random")
        model = ConsoleModel()
        try:
            async with running_console(model, me) as running:
                await until(lambda: model.my_turn and model.private is not None)
                assert isinstance(model.ui, HandsUI)
                assert "your hand" in screen_text(model, 80, 24)
                given = model.private["hand"][0]
                running.keys.send_text("g1")
                await until(lambda: "ann gave a card to random" in model.log)
                await until(lambda: given not in model.private["hand"])
                while model.status != "over":
                    await until(lambda: model.status == "over" or (
                        model.my_turn and fresh(model) and model.connection == "online"))
                    if model.status == "over":
                        break
                    version, line = model.view["version"], model.message
                    running.keys.send_text("1")
                    # A 0.2 s heartbeat missed three times on a loaded machine reads as the
                    # host away: the key is refused in words, and pressed again once it is back.
                    await until(lambda v=version, line=line: model.status == "over"
                                or model.view["version"] > v or model.message != line and (
                                    "nothing sent" in model.message
                                    or "play it again" in model.message), said=lambda: (
                                    f"message {model.message!r}, private {model.private}, "
                                    f"view {model.view}, log {model.log[-4:]}, page "
                                    f"{model.page}, {model.connection}, sending "
                                    f"{running.console._sending}, held "
                                    f"{list(running.console._keys)}, a local state "
                                    f"{model.ui.state() is not None}"))
                await until(lambda: model.page == FINAL)
                # The last move's events come in an update after the reply that ended it.
                await until(lambda: any(line.startswith("game over: ") for line in model.log))
                text = screen_text(model, 80, 24)
            assert running.status == 0
            await asyncio.wait_for(bot_task, 5)
        finally:
            bot_task.cancel()
            me.close()
            bot.close()
        assert any(line.startswith("ann played") for line in model.log)
        return text

    text = asyncio.run(asyncio.wait_for(main(), 60))
    assert "Game over" in text
    assert "ann" in text and "random" in text


def test_a_key_pressed_while_the_host_is_silent_is_refused_and_asked_again_once_it_is_back(
    toy_registered: str, host: Host, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The host's loop held (a machine too loaded to run it) past three heartbeats: the
    console reads it as away, refuses a move in words and sends nothing; heard again, it says
    the move was not sent, and the same key then plays it."""

    async def main() -> None:
        me, bot, bot_task = await start(host, SEED, toy_registered, "random")
        model = ConsoleModel()
        release = threading.Event()
        real_step = host.step

        def held_step(timeout_ms: int) -> int:
            release.wait(WAIT_S)
            return real_step(timeout_ms)

        try:
            async with running_console(model, me) as running:
                await until(lambda: model.my_turn and fresh(model))
                version = model.view["version"]
                monkeypatch.setattr(host, "step", held_step)
                await until(lambda: model.connection != "online")
                running.keys.send_text("1")
                await until(lambda: "the host is away: nothing sent" in model.message)
                release.set()
                await until(lambda: model.connection == "online"
                            and "your move was not sent: play it again" in model.message)
                assert model.view["version"] == version  # nothing was sent meanwhile
                running.keys.send_text("1")
                await until(lambda: any(line.startswith("ann played") for line in model.log))
        finally:
            release.set()
            bot_task.cancel()
            me.close()
            bot.close()

    asyncio.run(asyncio.wait_for(main(), 60))


def test_the_local_state_follows_private_data_however_often_it_is_replaced(
    toy_registered: str,
) -> None:
    """Each new private-data dict can take the freed address of one before it (CPython reuses
    memory): the UI's state must follow every one, or a legal key press is refused."""
    truth = get_game(toy_registered).new_state({"players": 2}, seed=SEED)
    model = ConsoleModel()
    model.you, model.view = 0, truth.view(0)
    ui = make_ui(toy_registered, model)
    for card in range(200):
        model.private = {"hand": [card % 16 + 1]}
        state = ui.state()
        assert state is not None and state.private(0) == model.private, f"replacement {card}"
