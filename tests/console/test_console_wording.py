"""Six screens of a LAN evening at 80x24 that said less than the truth: two brackets in a row
on the status line, the stand-in offer for a bot's seat, a Sagrada table not yet started, the
replay's table named after its file, "host moved to ..." kept to the end on a spectator's
screen, and a final screen silent about the seats the host played."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import pytest
from console_kit import running_console
from test_net_support import WAIT_S, choose, until_async

from sagani_net.bots import make_policy
from sagani_net.cli.console.model import FINAL, ConsoleModel
from sagani_net.cli.console.render import screen_text
from sagani_net.cli.main import main
from sagani_net.client import AsyncClient
from sagani_net.games import get_game
from sagani_net.host import Host


def sugi(seats: list[dict], moves: int = 0, seed: int = 3) -> tuple[ConsoleModel, object]:
    """ann's console (seat 1) at a 2-seat Sugi table after ``moves`` greedy moves."""
    game = get_game("sugi")
    state = game.new_state(game.parse_config({"players": 2}), seed)
    policy, rng = make_policy("greedy", game="sugi"), random.Random(seed)
    for _ in range(moves):
        state.apply(policy.choose(state, rng))
    model = ConsoleModel(game="sugi", connection="online")
    model.load({"table": "t1", "you": 0, "status": "running", "turn": state.current_seat,
                "seats": seats, "view": state.view(0), "private": state.private(0)})
    return model, state


def test_whose_turn_and_what_it_asks_for_are_one_bracket_on_the_status_line() -> None:
    """'bob's turn (away) (plan)': two brackets in a row, the second of unclear reference."""
    model, state = sugi([{"name": "ann"}, {"name": "bob", "away": True}])
    model.host_turn = 1
    top = screen_text(model, 80, 24).splitlines()[0]
    assert "bob's turn (plan; away)" in top, top
    assert ") (" not in top


@pytest.mark.parametrize(("seat", "offer"), [
    ({"name": "greedy-bot", "role": "bot", "kind": "bot", "away": True},
     "greedy-bot (a bot) is away: B has the host's greedy bot play till it is back"),
    ({"name": "carl", "away": True},
     "carl is away: B has the host's greedy bot play for them till they are back"),
])
def test_the_stand_in_offer_says_whose_bot_plays_for_a_bot_and_for_a_person(
        seat: dict, offer: str) -> None:
    """For a bot's seat it read 'B seats a bot for greedy-bot until they are back', as if the
    away bot were to get a bot of its own."""
    model, _ = sugi([{"name": "ann"}, seat])
    model.host_turn = 1
    text = screen_text(model, 80, 24)
    assert f"\n{offer}\n" in text, text
    assert "seats a bot for" not in text


def test_a_sagrada_table_not_started_says_it_waits_for_players_to_join() -> None:
    """A spectator read '(waiting for ann, seat 2, seat 3)' under 'The players choose their
    window patterns' while nobody could choose: two seats were still open."""
    game = get_game("sagrada")
    state = game.new_state(game.parse_config({"players": 3}), 1)
    model = ConsoleModel(game="sagrada", connection="online")
    model.load({"table": "t1", "status": "open", "view": state.view(None),
                "seats": [{"name": "ann", "taken": True}, {"taken": False}, {"taken": False}]})
    text = screen_text(model, 80, 24)
    assert "Waiting for players to join  (1 of 3 seated; then each chooses a window pattern)" \
        in text, text
    assert "waiting for ann" not in text and "choose their window patterns" not in text
    assert all(len(line) <= 80 for line in text.splitlines())


def test_a_replay_says_it_is_a_file_not_a_table(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """`sagani replay sagrada1.json` said 'table sagrada1': a record holds no table id
    (protocol/RECORD.md), and no table of that name was ever hosted."""
    game = get_game("sagrada")
    state = game.new_state(game.parse_config({"players": 2}), 1)
    record = state.to_record()
    assert "table" not in record
    path = tmp_path / "sagrada1.json"
    path.write_text(json.dumps(record))
    assert main(["replay", str(path), "--print"]) == 0
    top = capsys.readouterr().out.splitlines()[0]
    assert " sagrada · file sagrada1.json · " in top, top
    assert "table" not in top


def test_a_spectator_lets_host_moved_go_once_the_game_moves_on(host: Host) -> None:
    """The message stood on a spectator's screen till the game ended: said lasting, as news
    of the connection, and a spectator presses no key of a move that would clear it. The
    client's ``moved_to`` is set as a failover sets it (tests/failover play a real one)."""

    async def main_() -> None:
        bob, ann, watcher = (AsyncClient(host.endpoint) for _ in range(3))
        await bob.connect()
        table = await bob.create({"players": 2}, seed=5)
        await bob.join(table, seat=0, name="bob")  # seat 0 moves first
        await ann.join(table, seat=1, name="ann")
        await watcher.join(table, role="spectator")
        model = ConsoleModel()
        rng = random.Random(1)
        async with running_console(model, watcher):
            await until_async(lambda: model.version == 0 and model.turn == 0)
            watcher.moved_to = "tcp://127.0.0.1:47410"
            await bob.act(choose(bob.state.view, rng))  # a take: bob places next
            await until_async(lambda: model.version == 1 and model.message != "")
            assert model.message == "host moved to 127.0.0.1:47410"
            assert "host moved to 127.0.0.1:47410" in screen_text(model, 80, 24)
            await bob.act(choose(bob.state.view, rng))
            await until_async(lambda: model.version == 2)
            assert model.message == ""
            lines = screen_text(model, 80, 24).splitlines()
            # The log keeps it (a · line); the message line, above the keys, is the game's.
            assert [line for line in lines if "host moved" in line] == [
                "· host moved to 127.0.0.1:47410"]
        for client in (bob, ann, watcher):
            client.close()

    asyncio.run(asyncio.wait_for(main_(), WAIT_S))


def test_the_final_screen_says_which_seats_the_host_played() -> None:
    """'greedy-bot wins.' (here 'You win.') and nothing of the host's bot that had played
    greedy-bot's seat since round 3, nor of ann's turn the host played when her time ran
    out."""
    seats = [{"name": "ann"}, {"name": "greedy-bot", "role": "bot", "kind": "bot"}]
    model, state = sugi(seats)
    game = get_game("sugi")
    policy, rng = make_policy("greedy", game="sugi"), random.Random(3)
    stood_in = False
    while not state.is_over():
        view = state.view(0)
        if view["round"] == 2 and state.current_seat == 0 and not model.defaults:
            model.receive({"type": "update", "events": [{"type": "deadline_missed",
                                                          "seat": 0}], "view": view})
        if view["round"] == 3 and not stood_in:
            stood_in = True
            seats = [seats[0], {**seats[1], "away": True, "stand_in": True}]
            model.receive({"type": "update", "seats": seats, "view": view,
                           "events": [{"type": "stand_in", "seat": 1, "by": 0}]})
        state.apply(policy.choose(state, rng))
    model.receive({"type": "update", "status": "over", "view": state.view(0), "events": []})
    assert model.page == FINAL and game.name == "sugi"
    text = screen_text(model, 80, 24)
    assert "The host's greedy bot played greedy-bot's seat from round 3 on." in text, text
    assert "ann ran out of time once: the host played the default move." in text, text
    assert "You win." in text
    assert all(len(line) <= 80 for line in text.splitlines()) and len(text.splitlines()) == 24
