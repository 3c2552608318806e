"""A console on a screen others see (``--cover``, ``sagani play --open``): what only its seat
may see stays behind a curtain but while its player lifts it, and the curtain drops again when
the turn ends (the hand-over the published games ask for). The real app on pipe input against
a real host on 127.0.0.1 and a bot."""

from __future__ import annotations

import asyncio

from console_kit import GAME_TIMEOUT_S, running_console, start
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from test_net_support import until_async

from sagani_net.cli.console.app import Console
from sagani_net.cli.console.model import ConsoleModel
from sagani_net.cli.console.render import screen_text
from sagani_net.client import AsyncClient
from sagani_net.host import Host

#: How long a silent player takes to show as away (a few presence periods), with room to spare.
AWAY_S = 20.0
#: What Sugi's screen shows of your seat alone: your hand and your family tree.
YOURS = ("Your hand", "Family tree")


def completions(console: Console, typed: str) -> list[str]:
    completer = console.command.completer
    assert completer is not None
    return [c.text for c in completer.get_completions(Document(typed), CompleteEvent())]


def test_a_covered_console_shows_no_hand_until_h_and_covers_itself_when_the_turn_ends(
        host: Host) -> None:
    """Before, the console drew a Sugi hand (and a Sagrada private objective) the whole game,
    to anyone who looked at the screen: with `sagani play --open`, the other player sits at
    the same machine."""

    async def main() -> None:
        me, bot, bot_task = await start(host, seed=5, game="sugi")
        model = ConsoleModel(cover=True)
        try:
            async with running_console(model, me) as running:
                keys = running.keys
                await until_async(lambda: model.my_turn and model.private is not None)
                hand = [str(card) for card in model.private["hand"]]
                text = screen_text(model, 80, 24)
                assert "covered" in text and "Your turn" in text
                assert not any(words in text for words in YOURS), text
                assert text.splitlines()[-2].startswith("h uncover")
                # The game's keys and completions would show the hand, the command line's
                # history the moves typed before: not while covered.
                assert not set(hand) & set(completions(running.console, "timeline "))
                keys.send_text(":1h")
                await until_async(lambda: not model.covered)
                assert model.ui.choice is None  # the 1 chose nothing behind the curtain
                assert not running.console.app.layout.has_focus(running.console.command)
                text = screen_text(model, 80, 24)
                assert all(words in text for words in YOURS), text
                assert text.splitlines()[-2].startswith("h cover  "), text  # how to hide again
                assert set(hand) <= set(completions(running.console, "timeline "))
                version = model.view["version"]
                keys.send_text("1t\r")  # the first card to the timeline, as it is
                await until_async(lambda: model.view["version"] > version, GAME_TIMEOUT_S)
                await until_async(lambda: model.covered)  # the turn went to the bot
                text = screen_text(model, 80, 24)
                assert "covered" in text and not any(words in text for words in YOURS)
        finally:
            bot_task.cancel()
            me.close()
            bot.close()

    asyncio.run(asyncio.wait_for(main(), GAME_TIMEOUT_S))


def test_h_covers_any_console_with_something_to_hide(host: Host) -> None:
    """Without --cover the screen starts uncovered and stays so after a turn; h covers it
    when someone looks over the player's shoulder, and uncovers it again."""

    async def main() -> None:
        me, bot, bot_task = await start(host, seed=5, game="sugi")
        model = ConsoleModel()
        try:
            async with running_console(model, me) as running:
                await until_async(lambda: model.my_turn and model.private is not None)
                assert "Your hand" in screen_text(model, 80, 24)
                running.keys.send_text("h")
                await until_async(lambda: model.covered)
                text = screen_text(model, 80, 24)
                assert "covered" in text and "Your hand" not in text
                assert "covers itself" not in text  # only --cover covers by itself
                running.keys.send_text("h")
                await until_async(lambda: not model.covered)
        finally:
            bot_task.cancel()
            me.close()
            bot.close()

    asyncio.run(asyncio.wait_for(main(), GAME_TIMEOUT_S))


def test_a_covered_console_still_seats_a_stand_in_for_an_away_player(host: Host) -> None:
    """B shows nothing of your seat, and the message line offers it behind the curtain too:
    it works there (it was among the game's keys, which the curtain stops)."""

    async def main() -> None:
        bob = AsyncClient(host.endpoint)
        await bob.connect()
        table = await bob.create({"players": 2}, game="sugi", seed=9)  # seat 0 plans first
        await bob.join(table, seat=0, name="bob")
        ann = AsyncClient(host.endpoint)
        await ann.join(table, seat=1, name="ann")
        model = ConsoleModel(cover=True)
        try:
            async with running_console(model, ann) as running:
                await until_async(lambda: model.turn == 0 and model.away(0), AWAY_S)
                assert model.curtain
                assert "B has the host's greedy bot play for them" in screen_text(model, 80, 24)
                running.keys.send_text("B")
                await until_async(lambda: model.stood_in(0), AWAY_S)
        finally:
            bob.close()
            ann.close()

    asyncio.run(asyncio.wait_for(main(), GAME_TIMEOUT_S))


def test_the_help_offers_h_only_where_there_is_something_of_yours_to_cover(host: Host) -> None:
    """Sagani hides nothing of a seat's: the first help page offered 'h  cover or uncover
    what only you may see', and h did nothing. Sugi's hand is there to cover."""
    from console_kit import in_console

    from sagani_net.cli.console.model import HELP

    for game, offered in (("sagani", False), ("sugi", True)):
        async def body(model: ConsoleModel, running, offered: bool = offered) -> None:  # type: ignore[no-untyped-def]
            running.keys.send_text("?")
            await until_async(lambda: model.page == HELP)
            text = screen_text(model, 80, 24)
            running.keys.send_text("x")  # back to the game, where q quits
            await until_async(lambda: model.page != HELP)
            assert "Keys" in text and (" h        cover or uncover" in text) == offered, text

        in_console(host, body, game=game)


def test_a_covered_sagani_console_offers_no_h_in_its_key_line(host: Host) -> None:
    """`sagani play --open` covers every console, but Sagani hides nothing of a seat's: its
    key line began "h cover", and h did nothing (the help page had stopped offering it)."""
    from console_kit import in_console

    async def body(model: ConsoleModel, running) -> None:  # type: ignore[no-untyped-def]
        text = screen_text(model, 80, 24)
        assert model.cover and not model.curtain
        assert not text.splitlines()[-2].startswith("h "), text

    in_console(host, body, cover=True)
