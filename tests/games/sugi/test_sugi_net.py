"""A whole 5-player game of Sugi over a real host on 127.0.0.1: five greedy bots, each its own
client in its own thread, and a spectator in the real console app on pipe input."""

from __future__ import annotations

import asyncio
import threading

from console_kit import running_console
from test_net_support import WAIT_S, until_async

from sagani_net.bots.runner import BotRunner
from sagani_net.cli.console.model import FINAL, ConsoleModel
from sagani_net.cli.console.render import screen_text
from sagani_net.client import AsyncClient, Client, Replica
from sagani_net.games.sugi.rules import SUGI
from sagani_net.host import Host

PLAYERS = 5
SEED = 2026
GAME_S = 120


def test_five_bots_play_a_whole_game_while_a_spectator_watches(host: Host) -> None:
    creator = Client(host.endpoint)
    table = creator.create({"players": PLAYERS}, game="sugi", seed=SEED,
                           bots=list(range(PLAYERS)))
    finals: dict[int, Replica] = {}
    errors: list[BaseException] = []

    def bot(seat: int) -> None:
        runner = BotRunner(host.endpoint, "greedy", seed=seat, name=f"bot{seat + 1}")
        try:
            runner.join(table, seat=seat)
            finals[seat] = runner.play()
        except BaseException as exc:  # reported by the test thread
            errors.append(exc)
        finally:
            runner.close()

    async def watch() -> tuple[ConsoleModel, str]:
        spectator = AsyncClient(host.endpoint)
        await spectator.join(table, role="spectator")
        model = ConsoleModel()
        async with running_console(model, spectator):
            threads = [threading.Thread(target=bot, args=(seat,)) for seat in range(PLAYERS)]
            for thread in threads:
                thread.start()
            await until_async(lambda: model.status == "over" or bool(errors), GAME_S)
            for thread in threads:
                await asyncio.to_thread(thread.join, WAIT_S)
            await until_async(lambda: model.page == FINAL)
            screen = screen_text(model, 80, 24)
        spectator.close()
        return model, screen

    model, screen = asyncio.run(asyncio.wait_for(watch(), GAME_S + WAIT_S))
    assert not errors, errors
    record = creator.record(table)
    creator.close()
    # Every seat and the spectator saw the same end, and the record replays to it.
    result = model.view["result"]
    assert sorted(finals) == list(range(PLAYERS))
    assert all(r.view["result"] == result for r in finals.values())
    replayed = SUGI.from_record(record).result()
    assert replayed is not None and replayed.to_data() == result
    assert len(result["pedestals"]) == 3 and len(record["names"]) == PLAYERS
    # The spectator saw no secret, and the resolution step by step in its log.
    assert model.you is None and model.private is None
    log = model.log
    arrived = [line for line in log if "reaches the Temple, pedestal" in line]
    # (the log keeps its last LOG_LIMIT lines: an early arrival may have scrolled out)
    assert arrived and [line.split()[0] for line in arrived] == result["pedestals"][-len(arrived):]
    assert log[-1].startswith("game over: ")
    resolving = [i for i, line in enumerate(log) if "resolves the timeline" in line]
    assert resolving and log[resolving[0] + 1].startswith("t1: card ")
    assert any(" moves from " in line for line in log)
    # Its final page ranks all five, with the family trees the end revealed.
    assert "Game over" in screen
    for seat in range(PLAYERS):
        assert f"bot{seat + 1}" in screen
    assert screen.count("✓") >= 3
