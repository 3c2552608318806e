"""Issue 20 point 9 in the console, on pipe input against a real host on 127.0.0.1: a player
whose console is gone shows as away on the others' screens within a few presence periods (the
console says it is there while it waits, so its own seat never does); B seats a bot for the
away player to move; when that player comes back with the token the bot leaves and they play
on."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path

from console_kit import running_console
from failover_kit import Pair
from test_net_support import choose, sessions_of_moves, until_async

from sagani_net.cli.console.model import ConsoleModel
from sagani_net.cli.console.render import screen_text
from sagani_net.client import AsyncClient, Client
from sagani_net.host import HOST_STAND_IN_SESSION, Host, hash_token

WAIT_S = 20.0


def test_an_away_player_is_shown_a_bot_stands_in_and_the_player_takes_the_seat_back(
    host: Host,  # noqa: F811 - the fixture
) -> None:
    async def main() -> tuple[str, str]:
        bob = AsyncClient(host.endpoint)
        await bob.connect()
        table = await bob.create({"players": 2}, seed=5)
        await bob.join(table, seat=0, name="bob")  # seat 0 moves first
        ann = AsyncClient(host.endpoint)
        await ann.join(table, seat=1, name="ann")
        model = ConsoleModel()
        async with running_console(model, ann) as running:
            await until_async(lambda: model.view is not None and model.turn == 0)
            # Bob's console is gone (his client says nothing more): within a few presence
            # periods everyone sees it. Ann's console said she is there all along.
            await until_async(lambda: model.away(0), WAIT_S)
            assert not host.sessions[hash_token(ann.token or "")].away
            text = screen_text(model, 80, 24)
            assert "bob's turn (away)" in text
            assert ("bob is away: B has the host's greedy bot play for them till they are back"
                    in text)
            assert "bob is away" in model.log
            # A typed stand-in for your own seat is refused in words, nothing sent.
            running.console.run_command("standin 2")
            assert model.message.startswith("standin takes another seat")
            running.keys.send_text("B")
            await until_async(lambda: model.stood_in(0), WAIT_S)
            assert "a bot plays for bob until they are back (asked by ann)" in model.log
            assert "bob's turn (away: a bot plays)" in screen_text(model, 80, 24) or model.my_turn
            # The host's bot plays bob's turn; then it is ann's.
            await until_async(lambda: model.my_turn, WAIT_S)
            # Bob comes back with his token: the bot leaves, and he plays on.
            await bob.sync()
            await until_async(lambda: not model.stood_in(0) and not model.away(0), WAIT_S)
            assert "bob is back and plays on; the bot leaves" in model.log
            running.console._tell_presence()  # what the watch loop does next: said once
            assert "bob is back" not in model.log
            running.keys.send_text("1")  # ann's turn: a tile, placed where the cursor is
            await until_async(lambda: "Enter place" in screen_text(model, 80, 24))
            running.keys.send_text("\r")
            await until_async(lambda: model.turn == 0, WAIT_S)
            rng = random.Random(2)
            while bob.state.turn != 0:
                await bob.next_update(1.0)
            await bob.act(choose(bob.state.view, rng))  # bob's own move, accepted
            bob_hash = hash_token(bob.token or "")
        bob.close()
        ann.close()
        return table, bob_hash

    table, bob_hash = asyncio.run(main())
    # Bob's first turn was the stand-in's (the host's), his last move his own.
    moves = sessions_of_moves(host.store.data_dir, table)
    assert moves[0] == (0, HOST_STAND_IN_SESSION)
    assert moves[-1] == (0, bob_hash)


def test_the_status_line_says_the_turn_timer_and_who_is_away() -> None:
    from sagani_net.games import get_game

    game = get_game("sagani")
    state = game.new_state(game.parse_config({"players": 2}), 1)
    seats = [{"seat": 0, "name": "bob", "away": False}, {"seat": 1, "name": "ann"}]
    model = ConsoleModel(you=1, seats=seats, turn_timer_s=90.0)
    model.load({"status": "running", "turn": 0, "view": state.view(None), "seats": seats})
    assert "bob's turn (90 s a turn)" in screen_text(model, 80, 24)
    model.seats = [{**seats[0], "away": True}, seats[1]]
    assert "bob's turn (away)" in screen_text(model, 80, 24)
    # When it is not the away player's turn, the status line still says who is away.
    model.host_turn = 1
    assert "YOUR TURN (90 s a turn) · away: bob" in screen_text(model, 80, 24)


def test_your_turn_counts_down_the_turn_timer_from_the_update_that_announced_it() -> None:
    """The top line said "(30 s a turn)" and never how much was left: the default move came
    with no warning. The host counts a decision's time from the update that announced it, so
    the console counts from that update's coming; a snapshot (a join, a reconnect) does not
    say how old its position is, and the line keeps the timer's length."""
    from sagani_net.games import get_game

    game = get_game("sagani")
    state = game.new_state(game.parse_config({"players": 2}), 1)
    seats = [{"seat": 0, "name": "ann"}, {"seat": 1, "name": "bob"}]
    model = ConsoleModel(you=0, seats=seats, turn_timer_s=30.0)
    model.load({"status": "running", "turn": 0, "view": state.view(0), "seats": seats})

    def top() -> str:
        return screen_text(model, 80, 24).splitlines()[0]

    assert "YOUR TURN (30 s a turn)" in top()
    # The game's start is announced at version 0, as the view of the table waiting was: the
    # clock is the start's, not the join's.
    model.load({"status": "open", "view": state.view(0)})
    model.announced_s = time.monotonic() - 60  # the table waiting, told of a minute ago
    model.receive({"type": "update", "status": "running", "turn": 0, "view": state.view(0)})
    assert "YOUR TURN (30 s left)" in top()
    state.apply(state.legal_actions()[0])  # Sagani's turn is two decisions: still ann's
    assert state.current_seat == 0
    model.receive({"type": "update", "turn": 0, "view": state.view(0)})
    assert "YOUR TURN (place; 30 s left)" in top()
    assert model.announced_s is not None
    model.announced_s -= 12.5
    assert "YOUR TURN (place; 18 s left)" in top()
    model.announced_s -= 100
    assert "YOUR TURN (place; 0 s left)" in top()
    # Back from a reconnect, the console feeds the snapshot it took as a message of its own;
    # one from a host that does not say what is left shows the timer's length.
    state.apply(state.legal_actions()[0])
    model.receive({"type": "snapshot", "turn": state.current_seat, "view": state.view(0)})
    model.host_turn = 0
    assert "YOUR TURN (30 s a turn)" in top()
    model.host_turn = 1
    assert "bob's turn (30 s a turn)" in top()
    # Another's turn counts down too: the table sees the default move coming. (It said the
    # timer's length only, on the screens of everyone waiting.)
    state.apply(state.legal_actions()[0])  # bob's first decision: his second is announced
    assert state.current_seat == 1
    model.receive({"type": "update", "turn": 1, "view": state.view(0)})
    assert model.announced_s is not None
    model.announced_s -= 7.5
    assert "bob's turn (place; 23 s left)" in top(), top()
    model.seats = [seats[0], {**seats[1], "kind": "bot"}]  # a bot's seat: its own deadline
    assert "bob's turn" in top() and "s a turn" not in top(), top()
    # A snapshot's decision may be old: the host says what is left of it, and the count goes
    # on from there (it showed the timer's whole length till the next decision).
    model.seats = seats
    while state.current_seat != 0:
        state.apply(state.legal_actions()[0])
    model.receive({"type": "snapshot", "turn": 0, "view": state.view(0),
                   "turn_due_s": time.monotonic() + 11.4})
    assert "YOUR TURN (12 s left)" in top(), top()
    joined = ConsoleModel(you=0, seats=seats, turn_timer_s=30.0)
    joined.load({"status": "running", "turn": 0, "view": state.view(0), "seats": seats,
                 "turn_left_s": 4.2})
    assert "(5 s left)" in screen_text(joined, 80, 24).splitlines()[0]


def test_a_status_line_with_a_turn_timer_and_a_note_keeps_who_is_away_at_80_columns() -> None:
    """Sagrada's "(choose a pattern)" beside "(30 s a turn)" took the top line past 80 columns:
    it was cut in the middle of "pattern", with who was away and the connection cut off. The
    table id goes first."""
    from sagani_net.games import get_game

    game = get_game("sagrada")
    state = game.new_state(game.parse_config({"players": 3}), 1)
    seats = [{"seat": 0, "name": "ann"}, {"seat": 1, "name": "bob"},
             {"seat": 2, "name": "cat", "away": True}]
    model = ConsoleModel(you=0, seats=seats, turn_timer_s=30.0, connection="online",
                         game="sagrada")
    model.load({"table": "38019b53", "status": "running", "turn": 0, "view": state.view(0),
                "private": state.private(0), "seats": seats})
    top = screen_text(model, 80, 24).splitlines()[0]
    assert top.startswith(" sagrada · you: ann · YOUR TURN (choose a pattern; 30 s a turn)")
    assert top.rstrip().endswith("· away: cat   ●"), top
    # A long name of yours goes next: it is on the board, who is away is nowhere else.
    model.seats = [{"seat": 0, "name": "Maximilian-Alexander"}, *seats[1:]]
    top = screen_text(model, 80, 24).splitlines()[0]
    assert top.startswith(" sagrada · YOUR TURN (choose a pattern; 30 s a turn) · away: cat")
    model.seats = seats
    for width in (60, 40):  # narrower still: the words cut with … and the connection kept
        top = screen_text(model, width, 24).splitlines()[0]
        assert top.rstrip().endswith("…  ●") and len(top) <= width, top


def test_a_snapshot_of_the_decision_on_screen_sets_the_count_to_what_the_host_says_is_left(
) -> None:
    """After a failover (or a host restart) the host that serves starts the decision's clock
    again: the console, back on the same decision, kept counting down the clock of the host
    that died, and read '0 s left' for the 20 s the new one still gave (seen at 80x24 with a
    pair of sagani host processes, the active one killed with SIGKILL)."""
    from sagani_net.games import get_game

    game = get_game("sugi")
    state = game.new_state(game.parse_config({"players": 2}), 1)
    seats = [{"seat": 0, "name": "ann"}, {"seat": 1, "name": "bob"}]
    model = ConsoleModel(you=0, seats=seats, turn_timer_s=40.0, game="sugi")
    model.load({"status": "running", "turn": 0, "view": state.view(0), "seats": seats,
                "turn_left_s": 3.0})

    def top() -> str:
        return screen_text(model, 80, 24).splitlines()[0]

    assert "YOUR TURN (plan; 3 s left)" in top()
    model.receive({"type": "snapshot", "turn": 0, "view": state.view(0),
                   "turn_due_s": time.monotonic() + 21.6})
    assert "YOUR TURN (plan; 22 s left)" in top(), top()
    model.load({"status": "running", "turn": 0, "view": state.view(0), "turn_left_s": 30.2})
    assert "YOUR TURN (plan; 31 s left)" in top(), top()
    # An update of the same decision (someone's presence, a seat taken) leaves the count.
    model.receive({"type": "update", "turn": 0, "view": state.view(0), "events": []})
    assert "YOUR TURN (plan; 31 s left)" in top(), top()


def test_a_console_moved_to_the_standby_counts_down_the_clock_of_the_host_that_serves(
    tmp_path: Path,
) -> None:
    """A pair of `sagani host --turn-timer 600` processes, the active one killed with SIGKILL:
    the standby that takes over gives the decision on screen its whole clock again, and the
    console, back on that same decision, kept counting the dead host's down (here five
    minutes of it gone). The real console, on pipe input."""
    pair = Pair.start(tmp_path, 0.2, active_args=("--turn-timer", "600"))

    async def main(table: str) -> None:
        ann = AsyncClient(pair.active.address)
        await ann.join(table, seat=1, name="ann")
        model = ConsoleModel()
        async with running_console(model, ann):
            await until_async(lambda: model.time_left_s is not None
                              and ann.standby == pair.standby.endpoint)
            assert model.announced_s is not None
            model.announced_s -= 300  # the decision has been up five minutes
            assert (model.time_left_s or 0) <= 300
            pair.fail_over()
            await until_async(lambda: ann.moved_to is not None)
            await until_async(lambda: (model.time_left_s or 0) > 400,
                              said=lambda: f"{model.time_left_s} s left on the console")

    bob = Client(pair.active.address)
    try:
        table = bob.create({"players": 2}, seed=5)
        bob.join(table, seat=0, name="bob")  # seat 0 moves first: ann waits
        pair.wait_in_sync()
        asyncio.run(main(table))
    finally:
        bob.close()
        pair.stop()
