"""Issue 20 in the console shell, Sagani and Sugi: sentences whole, messages that say why and go
when they stop being true, undo within a turn, the help's words. The real prompt_toolkit app on
pipe input against a real host on 127.0.0.1 (a greedy bot, or a bot seat that never answers)."""

from __future__ import annotations

import asyncio
import logging
import random
from pathlib import Path

from cli_kit import Terminal, lan_party
from console_kit import GAME_TIMEOUT_S, in_console, running_console, seated, start
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from test_net_support import until_async

from sagani_net.bots import make_policy
from sagani_net.cli.console.app import Console
from sagani_net.cli.console.model import GAME, HELP, ConsoleModel
from sagani_net.cli.console.render import help_pages, screen_text
from sagani_net.client import AsyncClient
from sagani_net.games import rules_file
from sagani_net.games.sugi.rules import State as SugiState
from sagani_net.host import Host
from sagani_net.limits import QuietRepeats

SUGI_SEED = 9  # seat 0 plans first, holding 14 free, 26 ghost, 43 remove, 46 ghost
RIGHT, ESC = "\x1b[C", "\x1b"


def screen(model: ConsoleModel) -> str:
    return screen_text(model, 80, 24)


def unwrapped(text: str) -> str:
    """The screen's lines joined by spaces: a wrapped sentence reads whole again."""
    return " ".join(line.strip() for line in text.splitlines())


# -- 6: whole sentences -------------------------------------------------------------------------


def test_a_long_message_and_a_long_log_line_wrap_whole_at_80x24(host: Host) -> None:
    async def body(model, running):  # type: ignore[no-untyped-def]
        running.keys.send_text("r")  # 2 players: no reveal, and no tile in hand to turn
        await until_async(lambda: "take one first" in model.message)
        assert len(model.message) > 80
        long_line = ("mcts-bot plays Sun's Glory with Glazing Hammer on the die it drafted "
                     "second, then passes the turn to ann")
        model.add_log(long_line)
        text = screen(model)
        assert all(len(line) <= 80 for line in text.splitlines()) and len(text.splitlines()) == 24
        assert model.message in unwrapped(text)
        assert long_line in unwrapped(text)
        assert "passes the turn to ann" in text  # the log line's end, not cut off

    in_console(host, body)


# -- 7: messages that say why -------------------------------------------------------------------


def test_r_with_no_tile_in_hand_in_a_2_player_game_says_why(host: Host) -> None:
    async def body(model, running):  # type: ignore[no-untyped-def]
        running.keys.send_text("r")
        await until_async(lambda: model.message != "")
        assert model.message.startswith("r turns the tile in hand, and you hold none: take one "
                                        "first")
        assert "not possible" not in model.message
        running.keys.send_text(":reveal\r")
        await until_async(lambda: "revealing is for the solo games" in model.message)

    in_console(host, body)


def test_enter_with_no_tile_in_hand_says_what_to_do_first(host: Host) -> None:
    """Enter places the ghost; with no tile in hand it did nothing, as if the key were dead."""
    async def body(model, running):  # type: ignore[no-untyped-def]
        assert model.my_turn and model.ui.selection is None
        running.keys.send_text("\r")
        await until_async(lambda: model.message != "")
        assert model.message == ("Enter places the tile in hand, and you hold none: take one "
                                 "first (1-5, or d to draw)")
        running.keys.send_text("1")  # a tile in hand: Enter places it, as before
        await until_async(lambda: model.ui.selection is not None)
        version = model.view["version"]
        running.keys.send_text("\r")
        await until_async(lambda: model.view["version"] > version)

    in_console(host, body)


def mute_bot_table(host: Host, game: str, seed: int):  # type: ignore[no-untyped-def]
    async def make() -> tuple[AsyncClient, AsyncClient]:
        me = AsyncClient(host.endpoint)
        await me.connect()
        table = await me.create({"players": 2}, game=game, seed=seed, bots=[1], deadline_s=0.2)
        bot = AsyncClient(host.endpoint)  # takes the bot seat and never moves
        await bot.join(table, role="bot", seat=1, name="mute")
        await me.join(table, seat=0, name="ann")
        return me, bot

    return make()


def test_a_missed_deadline_reads_in_words_in_sagani_and_sugi(host: Host) -> None:
    """The bot seat says nothing: the host plays for it, and the log says so in a sentence."""
    for game, seed, keys in (("sagani", 5, "1\r"), ("sugi", SUGI_SEED, "1\r")):

        async def main(game: str = game, seed: int = seed, keys: str = keys) -> None:
            me, bot = await mute_bot_table(host, game, seed)
            model = ConsoleModel()
            async with running_console(model, me) as running:
                await until_async(lambda: model.my_turn and (game != "sugi" or model.private))
                if game == "sagani":
                    running.keys.send_text(keys[0])
                    await until_async(lambda: model.ui.selection is not None)
                    keys = keys[1:]
                running.keys.send_text(keys)
                await until_async(
                    lambda: any("mute ran out of time" in line for line in model.log))
            line = next(line for line in model.log if "ran out of time" in line)
            assert line == ("mute ran out of time: the host plays the game's default move "
                            "for that seat")
            assert not any("type=" in line for line in model.log), model.log
            me.close()
            bot.close()

        asyncio.run(asyncio.wait_for(main(), GAME_TIMEOUT_S))


def test_sugi_enter_with_no_card_in_hand_says_what_to_do_first(host: Host) -> None:
    """Enter with no card chosen did nothing at all, as if the key were dead."""
    async def body(model, running):  # type: ignore[no-untyped-def]
        await until_async(lambda: model.my_turn and model.private)
        running.keys.send_text("\r")
        await until_async(lambda: model.message != "")
        assert model.message == ("Enter plays the card in hand, and you hold none: choose one "
                                 "first (1-4)")

    in_console(host, body, game="sugi", seed=SUGI_SEED)


def test_the_log_says_the_game_starts_to_the_last_seat_to_join_as_to_the_first(
        host: Host) -> None:
    """The last seat's join starts the game, in an update sent before its reply: that
    console's log never said the game had started, where the first seat's did."""
    async def main() -> None:
        last, bot = await mute_bot_table(host, "sagani", 5)  # ann joins after the bot
        model = ConsoleModel()
        async with running_console(model, last):
            await until_async(lambda: model.view is not None and model.log)
            assert model.log[0] == "the game starts", model.log
        first = AsyncClient(host.endpoint)
        await first.connect()
        table = await first.create({"players": 2}, game="sagani", seed=5)
        await first.join(table, seat=0, name="ann")
        model = ConsoleModel()
        async with running_console(model, first):
            await until_async(lambda: model.view is not None)
            second = AsyncClient(host.endpoint)
            await second.join(table, seat=1, name="bob")
            await until_async(lambda: "the game starts" in model.log)
            assert model.log.count("the game starts") == 1, model.log
        for client in (last, bot, first, second):
            client.close()

    asyncio.run(asyncio.wait_for(main(), GAME_TIMEOUT_S))


def test_the_log_limiter_summary_says_what_it_held_back() -> None:
    """Its summary names the last line it held back, whole; no ``%s`` left unfilled."""
    now = [0.0]
    logger = logging.getLogger("test.quiet_repeats")
    logger.propagate = False
    lines: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record.getMessage())

    handler = Keep()
    logger.addHandler(handler)
    quiet = QuietRepeats(per_window=2, window_s=10, clock=lambda: now[0])
    logger.addFilter(quiet)
    try:
        for version in range(5):
            logger.warning("table %s #%d v%d: %s", "5ad1", 3, version, "stale_version")
        now[0] = 11.0  # the window is over: the next line brings the summary
        logger.warning("something else")
    finally:
        logger.removeFilter(quiet)
        logger.removeHandler(handler)
    assert lines[:2] == ["table 5ad1 #3 v0: stale_version", "table 5ad1 #3 v1: stale_version"]
    (summary,) = [line for line in lines if "more lines" in line]
    assert summary == ("(3 more lines like this one in the last 10 s were not written; the "
                       "last: table 5ad1 #3 v4: stale_version)")
    assert "%" not in summary


# -- 8: hints that go when they stop being true -------------------------------------------------


def test_a_not_sent_message_goes_once_the_position_moves_on(host: Host) -> None:
    async def body(model, running):  # type: ignore[no-untyped-def]
        running.keys.send_text(":take 1 at 5,5 rot 0\r")
        await until_async(lambda: "not sent" in model.message)
        assert "not sent" in screen(model)
        version = model.view["version"]
        running.keys.send_text(":take 1 at 0,0 rot 90\r")
        await until_async(lambda: model.view["version"] > version)
        await until_async(lambda: model.my_turn)  # the bot answered: your next turn
        assert model.message == "" and "not sent" not in screen(model)

    in_console(host, body)


def test_sugis_number_hint_counts_the_cards_in_hand(host: Host) -> None:
    async def body(model, running):  # type: ignore[no-untyped-def]
        assert "1-4 choose a card" in screen(model)
        version = model.view["version"]
        running.keys.send_text("1\r")  # a card to the timeline: 3 left until maintenance
        await until_async(lambda: model.view["version"] > version)
        await until_async(lambda: model.my_turn and len(model.ui.hand) == 3
                          and not running.console._sending)
        text = screen(model)
        assert "1-3 choose a card" in text and "1-4" not in text.splitlines()[-2]

    in_console(host, body, game="sugi", seed=SUGI_SEED)


def test_the_open_seat_invite_goes_once_the_seat_is_taken(host: Host) -> None:
    async def main() -> None:
        me, table = await seated(host, players=2, seed=5)
        model = ConsoleModel()
        model.invite = "sagani join 127.0.0.1:47410"
        async with running_console(model, me):
            await until_async(lambda: model.seats != [])
            await until_async(lambda: "others join with" in screen(model))
            assert "seat 2 open: others join with  sagani join 127.0.0.1:47410" in screen(model)
            other = AsyncClient(host.endpoint)
            await other.join(table, seat=1, name="bo")
            await until_async(lambda: model.status == "running" and model.view is not None)
            await until_async(lambda: "others join with" not in screen(model))
            assert model.open_seats() == []
            other.close()
        me.close()

    asyncio.run(asyncio.wait_for(main(), GAME_TIMEOUT_S))


def test_the_lobby_names_who_sat_down_before_you_and_keeps_the_join_line_whole(
    host: Host,
) -> None:
    """bob joins a table of four where ann waits: his log never saw her sit down, so the
    message line names the seated, whole as in a sentence; the line to type stays whole on a
    line of its own."""

    async def main() -> None:
        ann, table = await seated(host, players=4, seed=5)
        bob = AsyncClient(host.endpoint)
        await bob.join(table, seat=1, name="bob")
        model = ConsoleModel()
        model.invite = "sagani join 127.0.0.1:47410"
        async with running_console(model, bob):
            await until_async(lambda: "seated: 1 ann, 2 bob" in screen(model))
            lines = screen(model).splitlines()
            assert "seat 3, 4 open: others join with  sagani join 127.0.0.1:47410" in lines
            cat = AsyncClient(host.endpoint)
            await cat.join(table, seat=2, name="house greedy")  # not cut as on the boards
            await until_async(lambda: "seated: 1 ann, 2 bob, 3 house greedy" in screen(model))
            assert "seat 4 open" in screen(model)
            cat.close()
        ann.close()
        bob.close()

    asyncio.run(asyncio.wait_for(main(), GAME_TIMEOUT_S))


def test_sugis_final_timeline_names_the_cards_never_resolved() -> None:
    """The game ends mid-resolution: the cards after the last one turned up show what they
    were, marked unresolved, not as empty slots."""
    for seed in range(1, 100):  # the first greedy game that ends before its timeline is done
        state = SugiState.new(3, seed)
        policy, rng = make_policy("greedy", game="sugi"), random.Random(seed)
        model = ConsoleModel(game="sugi")
        model.load({"table": "t", "you": 0, "status": "running", "turn": state.current_seat,
                    "seats": [{"name": n} for n in ("ann", "bob", "cy")],
                    "view": state.view(0), "private": state.private(0)})
        last: list[dict] = []  # the events since the last resolution began
        while not state.is_over():
            events = state.apply(policy.choose(state, rng))
            for event in events:
                last = [event] if event["type"] == "resolution" else [*last, event]
            model.receive({"status": "over" if state.is_over() else "running",
                           "turn": state.current_seat, "view": state.view(0),
                           "private": state.private(0), "events": events})
        turned = sum(e["type"] == "card_revealed" for e in last)
        if last and last[0]["type"] == "resolution" and turned < last[0]["cards"]:
            break
    else:
        raise AssertionError("no game of the first 99 seeds ended mid-resolution")
    model.page = GAME
    text = screen(model)
    revealed = [line for line in model.log if line.startswith("t") and ": card " in line]
    assert revealed[-1].startswith(f"t{turned}: card")
    assert f"the game ended before t{turned + 1}" in text
    unresolved = state.discard[-1]
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if " t1     t2" in line) + 1
    timeline = lines[at]
    assert f"#{unresolved}" in timeline and "·" not in timeline, timeline
    assert "unres." in lines[at + 1]


# -- 10: undo within a turn ---------------------------------------------------------------------


def test_sagani_undoes_each_step_not_sent_and_keeps_what_the_host_accepted(host: Host) -> None:
    async def body(model, running):  # type: ignore[no-untyped-def]
        ui, keys = model.ui, running.keys
        keys.send_text("1")
        await until_async(lambda: ui.selection is not None)
        keys.send_text("\r")
        await until_async(lambda: len(model.view["seats"][0]["display"]) == 1)
        # Your turn again (the bot answered; nothing moves until you do): u takes nothing back.
        await until_async(lambda: model.my_turn and not running.console._sending)
        keys.send_text("u")
        await until_async(lambda: model.message.startswith("nothing to undo"))
        assert len(model.view["seats"][0]["display"]) == 1
        version = host.tables[model.table].state.version
        keys.send_text("2")  # a tile next to the first: room for the ghost to move
        await until_async(lambda: ui.selection is not None)
        start_cell = ui.selection.cell
        keys.send_text(RIGHT)
        await until_async(lambda: ui.selection.cell != start_cell)
        keys.send_text("r")
        await until_async(lambda: ui.selection.rotation == 90)
        keys.send_text("u")  # the turn
        await until_async(lambda: ui.selection.rotation == 0)
        assert ui.selection.cell != start_cell
        keys.send_text(ESC)  # the move
        await until_async(lambda: ui.selection.cell == start_cell)
        keys.send_text("u")  # the take: nothing in hand, nothing sent
        await until_async(lambda: ui.selection is None)
        keys.send_text("u")
        await until_async(lambda: model.message.startswith("nothing to undo"))
        assert host.tables[model.table].state.version == version  # nothing went out

    in_console(host, body)


def test_sugi_undoes_the_aim_then_the_action_then_the_card(host: Host) -> None:
    async def body(model, running):  # type: ignore[no-untyped-def]
        ui, keys = model.ui, running.keys
        keys.send_text("2a")  # card 26: the ghost
        await until_async(lambda: ui.choice is not None and ui.choice.mode == "ghost")
        first = ui.choice.space
        keys.send_text("\x1b[B")  # down: the ghost's next target
        await until_async(lambda: ui.choice.space != first)
        keys.send_text("u")
        await until_async(lambda: ui.choice.space == first)
        keys.send_text(ESC)
        await until_async(lambda: ui.choice.mode == "card")
        keys.send_text("r")
        await until_async(lambda: ui.choice.turn == 90)
        keys.send_text("uu")
        await until_async(lambda: ui.choice is None)
        assert host.tables[model.table].state.version == 0 and model.my_turn

    in_console(host, body, game="sugi", seed=SUGI_SEED)


def test_the_keys_page_says_how_to_undo() -> None:
    model = ConsoleModel()
    with create_pipe_input() as keys:
        Console(model, None, input=keys, output=DummyOutput())
    (line,) = [line for line in help_pages(model)[0] if line.startswith(" u Esc")]
    assert "undo the last step of your turn not yet sent; sent moves stay" in line


# -- 12: small things ---------------------------------------------------------------------------


def test_sugis_help_explains_the_star_and_links_the_installed_rules(host: Host) -> None:
    async def body(model, running):  # type: ignore[no-untyped-def]
        running.keys.send_text("?")
        await until_async(lambda: model.page == HELP)
        pages = []
        for _ in range(len(help_pages(model))):
            pages.append(screen(model))
            running.keys.send_text(" ")
            shown = len(pages)
            await until_async(lambda shown=shown: model.help_page == shown or model.page != HELP)
        assert any("* who plays first this round" in page for page in pages[1:-1])
        path = rules_file("sugi")
        assert path.is_file() and "Sugi" in path.read_text(encoding="utf-8")
        assert "".join(str(path).split()) in "".join(pages[-1].split())  # it may wrap
        assert "sagani_net/games/sugi/RULES.md (" not in pages[-1]

    in_console(host, body, game="sugi", seed=SUGI_SEED)


def test_the_shipped_rules_cite_nothing_that_does_not_ship() -> None:
    for game in ("sagani", "sugi"):
        text = rules_file(game).read_text(encoding="utf-8")
        assert "shared/" not in text, game
    design = Path(rules_file("sugi")).with_name("DESIGN.md").read_text(encoding="utf-8")
    assert "shared/" not in design


# -- the sagani command ---------------------------------------------------------------------------

def test_the_host_prints_how_players_join_and_the_invite_goes_once_seated(tmp_path: Path) -> None:
    """``sagani host`` says how to join; ``sagani join --game SUGI`` (any case) makes a table
    whose console shows the invite while seat 2 is open, and not once bob has taken it."""
    with lan_party(tmp_path / "host") as (host, _):
        assert host.stdout is not None
        address = host.stdout.readline().split()[3].removeprefix("tcp://")
        told = [host.stdout.readline() for _ in range(2)]
        assert told == ["  players join with:\n", f"  sagani join {address}\n"]
        ann = Terminal("join", address, "--game", "SUGI", "--players", "2", "--name", "ann",
                       env={"XDG_DATA_HOME": str(tmp_path / "ann")})
        ann.wait_for(f"seat 2 open: others join with  sagani join {address}")
        assert " sugi · table " in ann.screen.text()
        bob = Terminal("join", address, "--name", "bob",
                       env={"XDG_DATA_HOME": str(tmp_path / "bob")})
        bob.wait_for("you: bob")
        ann.wait_for("Family tree")  # the game started
        ann.wait_for("(plan)")
        assert "others join with" not in ann.screen.text()
        for term in (ann, bob):
            term.send("q")
            assert term.close() == 0


def test_the_hosts_own_events_read_as_words_in_every_game() -> None:
    names = [{"name": "ann", "taken": True}, {"name": "mute", "taken": True}]
    for game in ("sagani", "sagrada", "sugi"):
        model = ConsoleModel(game=game, seats=names)
        for event in ({"type": "deadline_missed", "seat": 1}, {"type": "seat_left", "seat": 1},
                      {"type": "seat_taken", "seat": 1, "role": "bot", "name": "mute"},
                      {"type": "game_started"}):
            text = model.event_text(event)
            assert "=" not in text and "deadline_missed" not in text, (game, text)


def test_sagani_solo_offers_undo_only_once_there_is_a_step_to_undo(host: Host) -> None:
    """A revealed tile is the host's: its hint names no undo until a rotation or a move is
    made, and then it does."""

    async def main() -> None:
        me, _ = await seated(host)
        model = ConsoleModel()
        async with running_console(model, me) as running:
            await until_async(lambda: model.my_turn and model.view is not None)
            running.keys.send_text("r")
            await until_async(
                lambda: model.ui.selection is not None and not running.console._sending)
            assert "Enter place  : type a command" in model.ui.hints()
            running.keys.send_text("r")  # a rotation: a step of your own
            await until_async(lambda: model.ui.selection.rotation == 90)
            assert "Enter place  u/Esc undo" in model.ui.hints()
        me.close()

    asyncio.run(asyncio.wait_for(main(), GAME_TIMEOUT_S))


def test_a_spectators_move_is_refused_as_watching_not_as_waiting_for_a_turn(host: Host) -> None:
    """A spectator who pressed 1 or typed a move read 'take 1: it is not your turn', as if
    a turn of theirs would come; it says they are watching, in every game."""
    async def main(game: str, typed: str) -> None:
        me, bot, bot_task = await start(host, seed=5, game=game)
        watcher = AsyncClient(host.endpoint)
        assert me.replica is not None
        await watcher.join(me.replica.table, role="spectator")
        model = ConsoleModel()
        try:
            async with running_console(model, watcher) as running:
                await until_async(lambda: model.view is not None and model.turn is not None)
                running.console.run_command(typed)
                assert "you are watching: only the players move" in model.message, model.message
                assert "not your turn" not in screen_text(model, 80, 24)
        finally:
            bot_task.cancel()
            for client in (me, bot, watcher):
                client.close()

    for game, typed in (("sagani", "take 1 at 0,0 rot 0"), ("sagrada", "choose 1"),
                        ("sugi", "timeline 17 rot 90")):
        asyncio.run(asyncio.wait_for(main(game, typed), 60))
