"""Sagrada's console: the real prompt_toolkit app on pipe input against a real host on
127.0.0.1 (a greedy bot in the other seat), and its screens against golden files."""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Callable
from typing import Any

import pytest
from console_kit import check_golden, running_console, start
from test_net_support import until_async
from test_sagrada_support import table

from sagani_net.bots import make_policy
from sagani_net.cli.console.model import FINAL, GAME, HELP, ConsoleModel
from sagani_net.cli.console.render import screen_text
from sagani_net.client import AsyncClient
from sagani_net.games.sagrada.components import TOOLS, cell_text, die_of, die_text
from sagani_net.games.sagrada.rules import SAGRADA, Action, State
from sagani_net.games.sagrada.ui import TOOL_SHORT, snake_line
from sagani_net.gameui import line_text
from sagani_net.host import Host

TEST_TIMEOUT_S = 60
#: A deal whose tools are Grozing Pliers (key a), Eglomise Brush (b) and Running Pliers (c).
PLIERS_SEED = 5
LEFT, RIGHT, ENTER = "\x1b[D", "\x1b[C", "\r"


def at_table(host: Host, seed: int, play: Callable[..., Any]) -> None:
    """Run ``play(model, keys, state)`` in the console at a new table; ``state()`` is the
    host's own game state. Keys are sent once the console has no move on its way, so that the
    test's state is the console's (the console itself holds keys until the host answered)."""

    async def main() -> None:
        me, bot, bot_task = await start(host, seed, "sagrada")
        table = host.tables[me.state.table]
        model = ConsoleModel(game="sagrada")
        async with running_console(model, me) as running:
            await until_async(lambda: model.my_turn)
            await play(model, Keys(running), lambda: table.state)
        bot_task.cancel()
        me.close()
        bot.close()

    asyncio.run(asyncio.wait_for(main(), TEST_TIMEOUT_S))


class Keys:
    """The console's pipe input, sending only once no move is on its way to the host."""

    def __init__(self, running: Any) -> None:
        self.running = running

    async def send(self, text: str) -> None:
        await until_async(lambda: not self.running.console._sending)
        self.running.keys.send_text(text)


async def choose_first(model: ConsoleModel, keys: Keys) -> None:
    await keys.send(ENTER)
    await until_async(lambda: model.view["phase"] == "play" and model.my_turn)


async def placed_first(model: ConsoleModel, keys: Keys) -> None:
    """Choose the first pattern, then place pool die 1 where the cursor starts: the tools in
    slots b and c are open."""
    await choose_first(model, keys)
    await keys.send("1")
    await until_async(lambda: model.ui.cursor is not None)
    await keys.send(ENTER)
    await until_async(lambda: model.view["drafted"] and "b/c tool" in model.ui.hints())


def test_the_pattern_is_chosen_with_number_keys_and_arrows(host: Host) -> None:
    async def play(model: ConsoleModel, keys: Keys, state: Callable[[], State]) -> None:
        await keys.send("3")
        await until_async(lambda: model.ui.candidate == 2)
        await keys.send(LEFT)  # back to the second
        await until_async(lambda: model.ui.candidate == 1)
        assert state().chosen[0] is None  # nothing is sent before Enter
        await keys.send(ENTER)
        await until_async(lambda: model.view["phase"] == "play")
        assert state().chosen[0] == state().dealt[0][1]

    at_table(host, 3, play)


def test_a_die_is_drafted_and_placed_with_keys(host: Host) -> None:
    async def play(model: ConsoleModel, keys: Keys, state: Callable[[], State]) -> None:
        await choose_first(model, keys)
        die = model.view["pool"][1]
        await keys.send("2")
        await until_async(lambda: model.ui.picked == 1 and model.ui.cursor is not None)
        first = model.ui.cursor
        await keys.send(RIGHT)
        await until_async(lambda: model.ui.cursor != first or not _any_right(model, first))
        cell = model.ui.cursor
        assert cell in model.ui.targets()
        assert model.ui.note().startswith(f"{die} at {cell_text(cell)}: your score")
        version = model.view["version"]
        await keys.send(ENTER)
        await until_async(lambda: f"ann places {die} at {cell_text(cell)}." in model.log)
        assert model.view["version"] > version and die_text(state().windows[0][cell]) == die

    at_table(host, 3, play)


def _any_right(model: ConsoleModel, cell: int) -> bool:
    """Whether a target cell lies right of ``cell`` (else the arrow keeps the cursor)."""
    return any(t % 5 > cell % 5 for t in model.ui.targets())


def test_a_typed_draft_places_the_die(host: Host) -> None:
    async def play(model: ConsoleModel, keys: Keys, state: Callable[[], State]) -> None:
        await choose_first(model, keys)
        draft = next(a for a in model.ui.legal() if a.kind == "draft" and a.die == 2)
        die, where = model.view["pool"][2], cell_text(draft.cell)
        await keys.send(f":draft 3 at {where}{ENTER}")
        await until_async(lambda: f"ann places {die} at {where}." in model.log)
        assert die_text(state().windows[0][draft.cell]) == die

    at_table(host, 3, play)


def test_a_tool_is_used_step_by_step_with_keys(host: Host) -> None:
    """Grozing Pliers: pick a die, a (the tool on it), a value key, then Enter places it."""

    async def play(model: ConsoleModel, keys: Keys, state: Callable[[], State]) -> None:
        await choose_first(model, keys)
        assert model.view["tools"][0]["tool"] == 1
        die = model.view["pool"][0]
        await keys.send("1")
        await until_async(lambda: model.ui.picked == 0)
        await keys.send("a")
        await until_async(lambda: model.ui.step() == "value")
        assert "(choose its value)" in screen_text(model, 80, 24)
        values = [a.number for a in model.ui.legal() if a.kind == "value"]
        assert values and all(abs(v - int(die[1])) == 1 for v in values)
        await keys.send(str(values[0]))
        await until_async(lambda: model.ui.step() == "place" and model.ui.cursor is not None)
        cell = model.ui.cursor
        assert f"Hand {die[0]}{values[0]}" in screen_text(model, 80, 24)
        await keys.send(ENTER)
        await until_async(lambda: any(line.startswith("ann places") for line in model.log))
        assert die_text(state().windows[0][cell]) == f"{die[0]}{values[0]}"
        log = "\n".join(model.log)
        assert "ann uses Grozing Pliers, paying 1 favour token." in log
        assert f"ann sets the die to {die[0]}{values[0]}." in log
        assert state().tokens[0] == state().patterns[state().chosen[0]].difficulty - 1

    at_table(host, PLIERS_SEED, play)


def test_a_moving_tool_lifts_a_die_and_moves_it_with_keys(host: Host) -> None:
    """Eglomise Brush after placing: b, Enter lifts the die under the cursor, an arrow picks
    the cell, Enter moves it there; typed words complete from the moves open now."""

    async def play(model: ConsoleModel, keys: Keys, state: Callable[[], State]) -> None:
        await placed_first(model, keys)
        await keys.send("b")
        await until_async(lambda: model.ui.step() == "move" and model.ui.cursor is not None)
        source = model.ui.cursor
        assert model.ui.complete("move ") == [cell_text(source)]
        die = die_text(state().windows[0][source])
        await keys.send(ENTER)
        await until_async(lambda: model.ui.lifted == source and model.ui.cursor is not None)
        target = model.ui.cursor
        assert target != source and f"▸{die}" in screen_text(model, 80, 24)  # drawn there
        await keys.send(ENTER)
        moved = f"ann moves {die} from {cell_text(source)} to {cell_text(target)}."
        await until_async(lambda: moved in model.log)
        assert state().windows[0][source] == 0 and die_text(state().windows[0][target]) == die

    at_table(host, PLIERS_SEED, play)


def test_refused_moves_send_nothing_and_say_why(host: Host) -> None:
    async def play(model: ConsoleModel, keys: Keys, state: Callable[[], State]) -> None:
        await choose_first(model, keys)
        version = state().version
        await keys.send(f":draft 1 at 2,3{ENTER}")  # a first die goes on an edge
        await until_async(lambda: model.message != "")
        words = _refusal(state(), Action.draft(0, 7))
        assert "[1, 2] (2,3)" in words  # the rules name the cell for bots and people both
        assert model.message == "not sent: " + words.replace("[1, 2] (2,3)", "2,3")
        assert "edge" in model.message
        await keys.send("b")  # Eglomise Brush: no die in the window to move yet
        await until_async(lambda: "Eglomise Brush" in model.message)
        await keys.send(f":tool 5{ENTER}")
        await until_async(lambda: model.message == "not sent: tool 5 is not in play")
        await keys.send(f":tool 13{ENTER}")  # no such card: the rules' words, not a KeyError
        await until_async(lambda: model.message == "not sent: tool 13 is not in play")
        await keys.send(f":place 1,1{ENTER}")  # nothing drafted: said so, no "P0"
        await until_async(lambda: "nothing is drafted" in model.message)
        assert "P0" not in model.message
        await keys.send(f":draft 2 at 9,9{ENTER}")
        await until_async(lambda: "there is no cell 9,9" in model.message)
        assert state().version == version
        await keys.send("p")  # the turn ends: the refusal goes when the next one comes
        await until_async(lambda: state().version > version and model.my_turn)
        assert model.message == ""

    at_table(host, PLIERS_SEED, play)


def _refusal(state: State, action: Action) -> str:
    try:
        state.clone().apply(action)
    except Exception as exc:  # noqa: BLE001 - the rules' own words
        return str(getattr(exc, "message", exc))
    raise AssertionError(f"{action} is legal")


# -- screens ------------------------------------------------------------------------------------


def played(moves: int, players: int = 2, seed: int = 3) -> tuple[State, list[dict]]:
    """A game after ``moves`` greedy decisions (deterministic), and its events (1 player: the
    solo game)."""
    state = SAGRADA.new_state(SAGRADA.parse_config({"players": players}), seed)
    policy, rng = make_policy("greedy", game="sagrada"), random.Random(1)
    events: list[dict] = []
    for _ in range(moves):
        events.extend(state.apply(policy.choose(state, rng)))
    return state, events


def model_for(state: State, events: list[dict], you: int) -> ConsoleModel:
    """The console's model as a host would feed it: the view, your private data, events."""
    model = ConsoleModel(connection="online", game="sagrada")
    names = ["ann", "greedy", "bo", "cy"][: state.players]
    model.load({"table": "t1", "you": you, "status": "running",
                "seats": [{"name": n} for n in names], "view": state.view(you),
                "private": state.private(you)})
    model.receive({"events": events[-6:], "view": state.view(you), "private": state.private(you)})
    return model


def test_golden_pattern_choice_shows_the_four_candidates_side_by_side() -> None:
    state, events = played(0)
    model = model_for(state, events, 0)
    text = screen_text(model, 80, 24)
    check_golden("sagrada-choose-80x24.txt", text)
    names = [state.patterns[i].name for i in state.dealt[0]]
    heads = text.splitlines()[2]
    assert all(name[:10] in heads for name in names)
    assert all(len(line) <= 80 for line in text.splitlines())


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_golden_mid_game_turn_with_a_die_picked(size: tuple[int, int]) -> None:
    width, height = size
    state, events = played(20, players=2 if width == 80 else 4)
    model = model_for(state, events, state.current_seat or 0)
    model.ui.digit(2)  # the second pool die in hand, the cursor on a cell open to it
    text = screen_text(model, width, height)
    check_golden(f"sagrada-turn-{width}x{height}.txt", text)
    lines = text.splitlines()
    assert len(lines) == height and all(len(line) <= width for line in lines)
    assert "▸2:" in text and "your score" in text  # the die in hand and its preview
    assert "Round " in text and "Tools" in text and "Private:" in text


def test_golden_solo_turn_shows_payment_in_dice_and_the_target() -> None:
    state, events = played(12, players=1)
    model = model_for(state, events, 0)
    model.ui.digit(1)
    text = screen_text(model, 80, 24)
    check_golden("sagrada-solo-80x24.txt", text)
    target = sum(int(die[1:]) for dice in state.view()["track"] for die in dice)
    assert f"target so far {target:>3}" in text and "pay a P die" in text
    assert "one empty cell less +3" in text  # 3 points an empty cell in the solo game


def test_the_snake_of_turns_falls_back_to_seat_numbers_when_names_do_not_fit() -> None:
    state, events = played(9, players=4)
    model = model_for(state, events, state.current_seat or 0)
    wide, narrow = (line_text(snake_line(model.ui, w)).rstrip() for w in (80, 40))
    assert wide == "Round 1/10  ann greedy bo you [you] bo greedy ann"
    assert narrow == "Round 1/10  1 2 3 you [you] 3 2 1"
    model.seats = [{"name": n} for n in ("ann", "greedy", "greedy 2", "greedy 3")]
    wide, middle = (line_text(snake_line(model.ui, w)).rstrip() for w in (90, 60))
    assert wide == "Round 1/10  ann greedy greedy 2 you [you] greedy 2 greedy ann"  # whole
    assert middle == "Round 1/10  ann greedy greed 2 you [you] greed 2 greedy ann"


# -- a tool's use is chosen whole, then sent; every step before that can be taken back -----


ESC = "\x1b"
#: A deal whose tools are Lathekin (key a), Glazing Hammer (b) and Flux Remover (c).
REMOVER_SEED = 3


def test_a_moving_tool_costs_nothing_until_its_move_is_chosen_and_esc_keeps_the_cursor(
    host: Host,
) -> None:
    """Eglomise Brush: b, Enter (lift), Esc puts the die down with the cursor still on a die
    to move (Enter lifts again), Esc again drops the tool unpaid; then the whole use goes."""

    async def play(model: ConsoleModel, keys: Keys, state: Callable[[], State]) -> None:
        # What the console held, should a wait run out (this test failed once in a loaded
        # full suite, 2026-12-06 23:08, and not in 25 runs alone beside two busy loops).
        def said() -> str:
            return (f"step {model.ui.step()}, lifted {model.ui.lifted}, cursor "
                    f"{model.ui.cursor}, plan {model.ui.plan}, message {model.message!r}, "
                    f"log {model.log[-4:]}")

        await placed_first(model, keys)
        version, tokens = state().version, list(state().tokens)
        await keys.send("b")
        await until_async(lambda: model.ui.step() == "move" and model.ui.cursor is not None,
                          said=said)
        assert "paying" not in "\n".join(model.log) and state().version == version
        assert "nothing sent or paid until its last step" in screen_text(model, 80, 24)
        source = model.ui.cursor
        await keys.send(ENTER)
        await until_async(lambda: model.ui.lifted == source, said=said)
        await keys.send(ESC)
        await until_async(lambda: model.ui.lifted is None, said=said)
        assert model.ui.cursor in model.ui.targets() and "▸" in screen_text(model, 80, 24)
        await keys.send(ENTER)  # Enter lifts again at once: the cursor is where it is drawn
        await until_async(lambda: model.ui.lifted == model.ui.cursor or model.ui.lifted is not None,
                          said=said)
        await keys.send(ESC)
        await until_async(lambda: model.ui.lifted is None, said=said)
        await keys.send(ESC)  # the tool itself is taken back, unpaid
        await until_async(lambda: model.ui.step() is None and not model.ui.plan, said=said)
        assert state().version == version and state().tokens == tokens, said()
        assert not any("Eglomise Brush" in line for line in model.log), said()
        await keys.send("b")
        await until_async(lambda: model.ui.step() == "move", said=said)
        await keys.send(ENTER)
        await until_async(lambda: model.ui.lifted is not None, said=said)
        await keys.send(ENTER)
        await until_async(lambda: any(" moves " in line for line in model.log), said=said)
        assert state().tokens[0] == tokens[0] - 1, said()
        assert sum("uses Eglomise Brush" in line for line in model.log) == 1, said()

    at_table(host, PLIERS_SEED, play)


def test_grozing_pliers_steps_are_taken_back_with_u_and_sent_whole(host: Host) -> None:
    async def play(model: ConsoleModel, keys: Keys, state: Callable[[], State]) -> None:
        await choose_first(model, keys)
        version = state().version
        await keys.send("1")
        await until_async(lambda: model.ui.picked == 0)
        await keys.send("a")
        await until_async(lambda: model.ui.step() == "value")
        value = next(a.number for a in model.ui.legal() if a.kind == "value")
        await keys.send(str(value))
        await until_async(lambda: model.ui.step() == "place")
        assert "(Grozing Pliers, not yet paid)" in screen_text(model, 80, 24)
        await keys.send("u")  # back to the value
        await until_async(lambda: model.ui.step() == "value")
        await keys.send("u")  # back to the die picked, no tool
        await until_async(lambda: model.ui.step() is None and model.ui.picked == 0)
        assert model.message == "took back Grozing Pliers: nothing was sent"  # not "tool 1"
        assert state().version == version and state().tool_done is False
        await keys.send("a")
        await until_async(lambda: model.ui.step() == "value")
        await keys.send(str(value))
        await until_async(lambda: model.ui.step() == "place" and model.ui.cursor is not None)
        cell = model.ui.cursor
        await keys.send(ENTER)
        # It timed out once in a full run under load: the wait says what the console showed.
        await until_async(lambda: any(line.startswith("ann places") for line in model.log),
                          said=lambda: f"message {model.message!r}, connection "
                          f"{model.connection}, host at {state().version}, log {model.log[-3:]}")
        sent = [str(a) for seat, a in state().history[version:] if seat == 0]
        assert sent == ["draft 1", "tool 1", f"value {value}", f"place {cell_text(cell)}"]

    at_table(host, PLIERS_SEED, play)


def test_a_tool_the_host_rolls_for_says_so_and_waits_for_enter(host: Host) -> None:
    """Flux Remover: c warns that the draw cannot be taken back and sends nothing; Esc costs
    nothing; c and Enter send it. Its value is then chosen locally (u takes it back) and the
    die shows no value before it is chosen."""

    async def play(model: ConsoleModel, keys: Keys, state: Callable[[], State]) -> None:
        await choose_first(model, keys)
        assert model.view["tools"][2]["tool"] == 11
        version = state().version
        await keys.send("1")
        await until_async(lambda: model.ui.picked == 0)
        await keys.send("c")
        await until_async(lambda: model.ui.confirming is not None)
        text = screen_text(model, 80, 24)
        assert "Flux Remover (1 token): the host draws a new die - cannot be taken back" in text
        assert "Enter use it" in text
        await keys.send(ESC)
        await until_async(lambda: model.ui.confirming is None)
        assert state().version == version
        await keys.send("c")
        await until_async(lambda: model.ui.confirming is not None)
        await keys.send(ENTER)
        await until_async(lambda: model.ui.step() == "value" and not model.ui.plan)
        colour = state().view()["step"]["held"][0]
        assert f"Hand {colour}?" in screen_text(model, 80, 24)
        drawn = state().version
        await keys.send("6")
        await until_async(lambda: model.ui.step() == "place")
        assert state().version == drawn  # the value is chosen, not yet sent
        assert "(Flux Remover)" in screen_text(model, 80, 24)  # paid when it was drawn
        await keys.send("u")
        await until_async(lambda: model.ui.step() == "value")
        await keys.send("5")
        await until_async(lambda: model.ui.step() == "place")
        if model.ui.targets():
            await keys.send(ENTER)
            await until_async(lambda: any(line.startswith("ann places") for line in model.log))
        else:
            await keys.send("r")
            await until_async(lambda: any("back to the pool" in line for line in model.log))
        assert [str(a) for _, a in state().history[drawn:drawn + 2]][0] == "value 5"

    at_table(host, REMOVER_SEED, play)


def test_patterns_are_chosen_at_once_and_a_choice_before_your_turn_waits_for_it(
    host: Host,
) -> None:
    """You in seat 2: your choice made while seat 1 is choosing is kept (nothing sent, the
    screen says whose turn it is) and sent by itself once seat 1 has chosen."""

    async def main() -> None:
        first = AsyncClient(host.endpoint)
        await first.connect()
        table = await first.create({"players": 2}, game="sagrada", seed=3)
        me = AsyncClient(host.endpoint)
        await me.join(table, seat=1, name="bo")
        await first.join(table, seat=0, name="ann")
        model = ConsoleModel(game="sagrada")
        async with running_console(model, me) as running:
            await until_async(lambda: model.view is not None and model.private is not None
                              and model.status == "running")
            assert not model.my_turn
            text = screen_text(model, 80, 24)
            assert "ann is choosing" in text
            running.keys.send_text("3" + ENTER)
            await until_async(lambda: model.ui.chosen_ahead == 2)
            assert host.tables[table].state.chosen[1] is None
            assert "sent at your turn to choose, after ann" in screen_text(model, 80, 24)
            await first.act({"type": "choose", "pattern": 0})
            await until_async(lambda: model.view["phase"] == "play")
            state = host.tables[table].state
            assert state.chosen[1] == state.dealt[1][2]
        first.close()
        me.close()

    asyncio.run(asyncio.wait_for(main(), TEST_TIMEOUT_S))


def test_score_now_is_one_rule_for_every_row_private_objectives_left_out() -> None:
    """Your row counts as the others' do and as a replay's: without the private objective,
    which the preview names apart."""
    state, events = played(20)
    you = state.current_seat or 0
    assert state.score_sheet(you)["private"] > 0  # with it, your row would read otherwise
    model = model_for(state, events, you)
    text = screen_text(model, 80, 24)
    assert "pts, private not counted" in text
    rows = [line.split("│")[-1] for line in text.splitlines() if line.split("│")[-1][2:4]
            in (" a", " g")]
    for seat, name in enumerate(["ann", "greedy"]):
        row = next(r for r in rows if r[1:].startswith(f"{seat + 1} {name}"))
        assert row.split()[-1] == str(state.scores()[seat])


def test_after_the_end_the_rows_are_the_final_scores_and_say_so() -> None:
    """Once the game is over the view's scores count the private objectives: the boards,
    looked at after the end (Tab, or a replay's last move), must not call them left out."""
    state, events = played(0)
    policy, rng = make_policy("greedy", game="sagrada"), random.Random(1)
    while not state.is_over():
        events.extend(state.apply(policy.choose(state, rng)))
    model = model_for(state, events, 0)
    model.page = GAME
    text = screen_text(model, 80, 24)
    assert "private not counted" not in text and "Final score" in text
    rows = [line.split("│")[-1] for line in text.splitlines()]
    for seat, name in enumerate(["ann", "greedy"]):
        row = next(r for r in rows if r[1:].startswith(f"{seat + 1} {name}"))
        assert row.split()[-1] == str(state.result().scores[seat])


def test_pattern_names_are_whole_on_the_choice_and_on_every_window() -> None:
    """At 80 columns a long name wraps under its candidate; at 160 with long player names
    each window's pattern name still shows whole."""
    config = SAGRADA.parse_config({"players": 2})
    state = next(s for s in (SAGRADA.new_state(config, seed) for seed in range(200))
                 if any(len(s.patterns[i].name) > 15 for i in s.dealt[0]))
    model = model_for(state, [], 0)
    heads = [line.ljust(80) for line in screen_text(model, 80, 24).splitlines()[2:4]]
    for slot, i in enumerate(state.dealt[0]):  # each candidate is 20 columns wide
        column = " ".join(line[slot * 20 : (slot + 1) * 20] for line in heads)
        assert " ".join(state.patterns[i].name.split()) in " ".join(column.split())
    state, events = played(20, players=4)
    model = model_for(state, events, state.current_seat or 0)
    model.seats = [{"name": f"mcts-bot-{n}"} for n in range(4)]
    text = screen_text(model, 160, 48)
    for seat in range(4):
        assert state.pattern(seat).name in text


def test_at_80x24_every_tool_shows_what_it_does_and_solo_patterns_show_no_tokens() -> None:
    state, events = played(20)
    model = model_for(state, events, state.current_seat or 0)
    text = screen_text(model, 80, 24)
    assert all(TOOL_SHORT[t] in text for t in state.tools)
    solo = SAGRADA.new_state(SAGRADA.parse_config({"players": 1, "difficulty": 5}), 4)
    text = screen_text(model_for(solo, [], 0), 80, 24)
    assert all(f"{t:>2} {TOOLS[t].name}" in text for t in solo.tools)
    assert "●" not in text.split("\n", 1)[1]  # solo: no favour tokens (the first line: online)
    events = solo.apply(Action("choose", number=0))
    text = screen_text(model_for(solo, events, 0), 80, 24)  # the scores go under the window
    assert "target so far   0" in text and "(the track)" in text  # whole, not "(the"


def test_enter_on_another_players_turn_says_so() -> None:
    """Enter on another's turn did nothing and said nothing, as if the key were dead."""
    state, events = played(6, seed=0)
    model = model_for(state, events, 1 - state.current_seat)
    assert model.ui.confirm() == []
    assert model.message == "Enter places a die: it is not your turn"


def test_tap_wheel_says_why_it_ends_after_one_move() -> None:
    """Seed 0 after 6 greedy decisions: Tap Wheel (key c) can move one die, and no second die
    of its colour can follow; the whole use is sent at the move, and the line says why."""
    state, events = played(6, seed=0)
    assert state.tools[2] == 12
    model = model_for(state, events, state.current_seat)
    ui = model.ui
    assert ui.use_tool(2) == [] and ui.step() == "move"  # chosen, nothing sent yet
    assert ui.confirm() == [] and ui.lifted is not None
    sent = ui.confirm()
    assert [a["type"] for a in sent] == ["tool", "move"]
    assert model.message == ("Tap Wheel ends after one move: no second die of that colour "
                             "can move now")


@pytest.mark.parametrize("seed", [REMOVER_SEED, PLIERS_SEED])
def test_a_whole_game_with_keys_and_tools_to_the_final_screen(host: Host, seed: int) -> None:
    """Number keys, Enter, tool keys with every step they need, and p, to the ranking: each
    turn uses a tool when one is open (on the picked die for a drafted-die tool) and drafts
    and places where it can; every key is answered before the next, and none is refused."""

    async def play(model: ConsoleModel, keys: Keys, state: Callable[[], State]) -> None:
        await choose_first(model, keys)
        ui = model.ui
        tools = 0

        def seen() -> tuple[Any, ...]:
            return (model.view["version"], ui.step(), len(ui.plan), ui.confirming, ui.picked,
                    ui.lifted, model.message)

        for _ in range(2000):
            await until_async(lambda: model.status == "over" or (
                model.my_turn and not keys.running.console._sending))
            if model.status == "over":
                break
            key = _next_key(model)
            tools += key in "abcde"
            before = seen()
            await keys.send(key)
            await until_async(lambda before=before: model.status == "over" or seen() != before)
            assert not model.refusal, (key, model.message)
            assert screen_text(model, 80, 24).count("\n") == 24
        assert model.status == "over" and "Game over" in screen_text(model, 80, 24)
        uses = [line for line in model.log if line.startswith("ann uses ")]
        assert tools and uses

    at_table(host, seed, play)


def _next_key(model: ConsoleModel) -> str:
    """The key a player who takes every tool and the first die that fits would press now."""
    ui, view = model.ui, model.ui.view
    legal = ui.legal()
    step = ui.step()
    slots = ui._tool_slots() if not view["tool_used"] else []
    if ui.confirming is not None:
        return ENTER
    if step == "value":
        return str(next(a.number for a in legal if a.kind == "value"))
    if step in ("move", "swap") or step in ("held", "place") and ui.targets():
        if step == "move" and not ui.targets() and not ui.swaps():
            return "s"
        return ENTER
    if step == "place":
        return "r"
    if step == "held":
        return "abcde"[slots[0]]
    if ui.picked is not None:
        return "abcde"[slots[0]] if slots and step is None else ENTER
    drafts = [a.die for a in legal if a.kind == "draft"]
    if step == "draft_again":
        return str(drafts[0] + 1)
    if slots:
        return "abcde"[slots[0]]
    if drafts and not view["drafted"]:
        return str(drafts[0] + 1)
    return "p"


def test_grozing_pliers_offers_only_the_value_after_which_the_die_fits() -> None:
    """Seed 5 after 14 greedy decisions: pool die 2 raised or lowered fits only as a 4. The
    hint names that value alone, the other value's key sends nothing and says why, and the
    one that fits goes on to placing."""
    state, events = played(14, seed=PLIERS_SEED)
    model = model_for(state, events, state.current_seat)
    ui = model.ui
    die = model.view["pool"][1]
    other = 2 * int(die[1]) - 4  # the value on the other side of the die's own
    ui.digit(2)
    assert ui.use_tool(0) == [] and ui.step() == "value"
    assert ui.hints().startswith("4 the die's value")
    assert ui.digit(other) == [] and ui.step() == "value"
    assert "would fit nowhere" in model.message
    assert ui.digit(4) == [] and ui.step() == "place" and ui.targets()


def test_lathekin_both_moves_are_chosen_before_anything_is_sent() -> None:
    """Seed 3 after 5 greedy decisions: Lathekin (key a). The first move is chosen and shown,
    Esc out of the second "where to" keeps the cursor on a die, u takes the first move back;
    only the second move sends the whole use."""
    state, events = played(5, seed=REMOVER_SEED)
    model = model_for(state, events, state.current_seat)
    ui = model.ui
    assert ui.use_tool(0) == [] and ui.step() == "move"
    assert ui.confirm() == [] and ui.lifted is not None  # lift
    assert ui.confirm() == [] and len(ui.plan) == 2 and ui.step() == "move"  # first move
    moved = ui.view["seats"][state.current_seat]["window"]
    assert moved != state.view()["seats"][state.current_seat]["window"]  # shown, not sent
    assert ui.confirm() == [] and ui.lifted is not None  # lift the second
    ui.cancel()  # Esc out of "where to"
    assert ui.lifted is None and ui.cursor in ui.targets()
    assert "▸" in screen_text(model, 80, 24)
    ui.undo()  # the first move goes back
    assert len(ui.plan) == 1 and ui.step() == "move" and ui.cursor in ui.targets()
    ui.confirm()
    ui.confirm()
    ui.confirm()
    sent = ui.confirm()
    assert [a["type"] for a in sent] == ["tool", "move", "move"] and not ui.plan


def test_a_tool_you_cannot_pay_for_says_its_cost_in_words() -> None:
    """With no favour token left, a tool's key says what it costs: '1 favour token', not
    '1 tokens'."""
    state, events = played(2)
    seat = state.current_seat
    state.tokens[seat] = 0
    model = model_for(state, events, seat)
    slot = next(s for s in range(3) if state.cost(s) == 1 and not TOOLS[state.tools[s]].on_drafted)
    assert model.ui.use_tool(slot) == []
    assert model.message == f"{TOOLS[state.tools[slot]].name} needs 1 favour token"


def test_enter_with_no_die_that_fits_says_so_rather_than_pick_a_die() -> None:
    """Seed 2 after 49 greedy decisions: no pool die fits the window; Enter says that p
    passes, not 'pick a die first'."""
    state, events = played(49, seed=2)
    assert not any(a.kind == "draft" for a in state.legal_actions())
    model = model_for(state, events, state.current_seat)
    assert model.ui.confirm() == []
    assert model.message == "no die in the pool fits your window now: p passes"


def test_the_solo_final_screen_has_no_favour_token_column() -> None:
    """Solo Sagrada has no favour tokens: its final scores show none (two players' do)."""
    for players, tokens in ((1, False), (2, True)):
        state, events = played(0, players=players)
        policy, rng = make_policy("greedy", game="sagrada"), random.Random(1)
        while state.result() is None:
            events.extend(state.apply(policy.choose(state, rng)))
        model = model_for(state, events, 0)
        model.receive({"status": "over", "view": state.view(0)})
        text = screen_text(model, 80, 24)
        assert "empty  score" in text and ("tokens" in text) == tokens


def test_names_cut_to_fit_keep_the_number_that_tells_them_apart() -> None:
    """Two bots "greedy-bot" and "greedy-bot 2": the score rows (8 columns for a name) show
    them apart."""
    state, events = played(6, players=3)
    model = model_for(state, events, 0)
    model.seats = [{"name": n} for n in ("ann", "greedy-bot", "greedy-bot 2")]
    text = screen_text(model, 80, 24)
    assert "2 greedy-b " in text and "3 greedy 2 " in text


def test_before_every_seat_is_taken_the_patterns_show_and_the_status_line_is_whole() -> None:
    """A table waiting for its second player: your four patterns, no "( is choosing" with a
    name missing, and a status line whose connection is not cut at 80 columns."""
    state, _ = played(0)
    model = ConsoleModel(connection="online", game="sagrada")
    model.load({"table": "5ab213c7", "you": 0, "status": "open",
                "seats": [{"name": "root", "taken": True}, {"name": "", "taken": False}],
                "view": state.view(0), "private": state.private(0)})
    lines = screen_text(model, 80, 24).splitlines()
    assert "waiting for players (1/2 seated)" in lines[0] and lines[0].rstrip().endswith("●")
    assert lines[1].startswith("Your window patterns  (you choose once every seat is taken)")
    assert " is choosing" not in "\n".join(lines)


def test_enter_with_no_die_picked_names_the_keys_of_the_pool_as_it_is() -> None:
    """Enter before a die is picked says which number keys pick one: as many as the pool
    holds, not always 1-9."""
    state, events = played(2)
    model = model_for(state, events, state.current_seat)
    dice = len(state.view()["pool"])
    assert model.ui.confirm() == []
    assert model.message == f"pick a die first (1-{dice}), or type draft 3 at 2,4"


def test_a_preview_adds_up_to_its_change_and_says_the_private_objective_apart() -> None:
    """The private objective is not in the score now: named among the parts of the change, a
    die of your colour read '+1: private +1 at the end, one empty cell less +1'."""
    state, events = played(20)
    you = state.current_seat or 0
    (colour,) = state.private(you)["objectives"]
    model = model_for(state, events, you)
    for slot, die in enumerate(model.view["pool"]):
        model.ui.digit(slot + 1)
        note = model.ui.note()
        if die.startswith(colour):
            break
    else:
        raise AssertionError(f"no die of the private colour {colour} in the pool")
    change, parts = re.fullmatch(r".*: your score -?\d+ -> -?\d+ \(([+-]\d+)(.*)\)", note).groups()
    summed, _, private = parts.partition("; private ")
    assert private.endswith(" at the end")
    assert sum(int(n) for n in re.findall(r" ([+-]\d+)", summed)) == int(change)


def test_a_preview_during_a_tool_starts_from_the_score_now_and_counts_the_token() -> None:
    """Seed 5 after 2 greedy decisions: Grozing Pliers on a pool die, its value chosen, not yet
    sent. The preview starts from the score the rows show (the tool is not paid yet) and names
    the token the placement pays with it; it said '-18 -> -17 (+1 ...)' beside a row's -17."""
    state, events = played(2, seed=PLIERS_SEED)
    you = state.current_seat
    assert state.tools[0] == 1 and state.cost(0) == 1
    model = model_for(state, events, you)
    ui = model.ui
    held = next(a.die for a in state.legal_actions() if a.kind == "draft" and a.cell < 0)
    ui.digit(held + 1)
    assert ui.use_tool(0) == [] and ui.step() == "value"
    ui.digit(next(a.number for a in ui.legal() if a.kind == "value"))
    assert ui.step() == "place" and ui.cursor in ui.targets()
    now = state.scores()[you]
    note = ui.note()
    before, after, change, parts = re.fullmatch(
        r".*: your score (-?\d+) -> (-?\d+) \(([+-]\d+)(.*)\)", note).groups()
    assert int(before) == now and int(after) - now == int(change)
    summed = parts.partition("; private ")[0]
    assert "favour tokens -1" in summed
    assert sum(int(n) for n in re.findall(r" ([+-]\d+)", summed)) == int(change)


ALONE, PAIR = "R6 . . . .\n" + ". . . . .\n" * 3, "R6 Y1 . . .\n" + ". . . . .\n" * 3


@pytest.mark.parametrize(("second", "tokens", "privates", "why"), [
    # Round 10 of two players opens with seat 2: seat 1's first turn came later.
    (ALONE, (2, 2), ((0,), (0,)), "points, private and tokens: later first turn in round 10."),
    (PAIR, (3, 2), ((0,), (0,)), "points: more favour tokens left, 3 to 2."),  # Y1 fills a cell
    (ALONE, (8, 2), ((1,), (0,)), "points: more private objective points, 6 to 0."),  # red 6
], ids=["turn", "tokens", "private"])
def test_a_tied_final_score_says_which_tie_break_decided(
    second: str, tokens: tuple[int, int], privates: tuple[tuple[int], ...], why: str,
) -> None:
    """Equal totals: 'ann wins.' beside two equal scores said nothing of why; the final screen
    names the tie-break that decided, as the rules order them."""
    state = table(tools=(2, 10, 7), windows=(ALONE, second), tokens=tokens, privates=privates,
                  objectives=(1, 2, 3))
    state.round, state.pool = 9, []
    events: list[dict] = []
    state._end_round(events)
    result = state.result()
    assert result.scores[0] == result.scores[1]
    model = model_for(state, events, 1)
    model.receive({"status": "over", "view": state.view(1)})
    text = screen_text(model, 80, 24)
    winner = "You win!" if result.ranking[0] == 1 else f"{model.name(result.ranking[0])} wins."
    assert f"{winner}\nTied on {result.scores[0]} {why}" in text



def stuck_die_table() -> tuple[State, list[dict]]:
    """Seed 3 after 36 greedy decisions, pool die 1 made a Y6 that fits no cell of the window,
    the seat given tokens: Lathekin (a) and Glazing Hammer (b) can be used before drafting,
    Flux Remover (c) on the drafted die."""
    state, events = played(36, seed=REMOVER_SEED)
    state.tokens[state.current_seat] = 6
    state.pool[0] = die_of("Y", 6)
    assert not any(a.kind == "draft" and a.die == 0 and a.cell >= 0
                   for a in state.legal_actions())
    return state, events


def test_a_picked_die_that_fits_nowhere_offers_only_the_tools_that_work_on_it() -> None:
    """1 picks the Y6: the message and the hint line name c (Flux Remover), not a and b,
    which are used before drafting; the hint offers no arrows and no Enter to place it, and
    Enter says the same again."""
    state, events = stuck_die_table()
    model = model_for(state, events, state.current_seat)

    async def main() -> None:
        async with running_console(model) as running:
            running.keys.send_text("1")
            await until_async(lambda: model.ui.picked == 0)
            said = "Y6 fits nowhere: use a tool on it (c), or Esc"
            assert model.message == said
            hints = screen_text(model, 80, 24).splitlines()[-2]
            assert hints.startswith("c tool on it  Esc drop") and "Enter place" not in hints
            model.say("")
            running.keys.send_text(ENTER)
            await until_async(lambda: model.message)
            assert model.message == said

    asyncio.run(asyncio.wait_for(main(), TEST_TIMEOUT_S))


def test_a_value_that_fits_nowhere_offers_return_not_place() -> None:
    """Flux Remover's new die given a value that fits no cell: the hint line offers r and u,
    not Enter to place, and Enter says that r returns it (it used to do nothing, silently).
    Seed 3 after 40 greedy decisions, the seat given tokens: pool die 1 drafted for Flux
    Remover."""
    state, events = played(40, seed=REMOVER_SEED)
    state.tokens[state.current_seat] = 6
    state.apply(Action.draft(0))
    state.apply(next(a for a in state.legal_actions() if a.kind == "tool" and a.number == 11))
    nowhere = next(v for v in range(1, 7) if not any(
        a.kind == "place" for a in _after(state, Action("value", number=v)).legal_actions()))
    model = model_for(state, events, state.current_seat)

    async def main() -> None:
        async with running_console(model) as running:
            running.keys.send_text(str(nowhere))
            await until_async(lambda: model.ui.step() == "place")
            hints = screen_text(model, 80, 24).splitlines()[-2]
            assert hints.startswith("r return it  u/Esc take back") and "Enter" not in hints
            running.keys.send_text(ENTER)
            await until_async(lambda: model.message)
            assert model.message == f"{model.ui.hand()} fits nowhere: r returns it to the pool"

    asyncio.run(asyncio.wait_for(main(), TEST_TIMEOUT_S))


def _after(state: State, action: Action) -> State:
    state = state.clone()
    state.apply(action)
    return state


def test_a_tie_on_points_says_on_the_final_screen_why_the_winner_is_ahead() -> None:
    """Seed 2, greedy against greedy, ends 46 to 46: seat 2 wins on its private objective.
    The final screen says so, rather than two equal scores and a winner unexplained."""
    state, events = played(0, seed=2)
    policy, rng = make_policy("greedy", game="sagrada"), random.Random(1)
    while state.result() is None:
        events.extend(state.apply(policy.choose(state, rng)))
    model = model_for(state, events, 0)
    model.receive({"status": "over", "view": state.view(0)})

    async def main() -> None:
        async with running_console(model) as running:
            running.keys.send_text("f")
            await until_async(lambda: model.page == FINAL)
            text = screen_text(model, 80, 24)
            assert "greedy wins.\nTied on 46 points: more private objective points, 30 to 25." \
                in text

    asyncio.run(asyncio.wait_for(main(), TEST_TIMEOUT_S))


def test_a_tie_of_three_on_the_final_screen_says_each_place_and_why() -> None:
    """Three tied on points: the line said only why the winner was ahead of the second, as if
    the third had scored less. Each place of the tie is said now, its seats named."""
    state, events = played(0, players=3, seed=2)
    policy, rng = make_policy("greedy", game="sagrada"), random.Random(1)
    while state.result() is None:
        events.extend(state.apply(policy.choose(state, rng)))
    view = state.view(0)
    result = view["result"]
    # The same total for all three, in the order the tie-breaks give: bo ahead on private
    # objective points, then ann ahead of greedy on favour tokens left, then greedy on turns.
    for seat, (private, tokens) in zip((2, 0, 1), ((5, 1), (3, 2), (3, 1)), strict=True):
        result["sheets"][seat].update(total=40, private=private, tokens=tokens)
        result["scores"][seat] = 40
    result["ranking"] = [2, 0, 1]
    model = model_for(state, events, 1)
    model.receive({"status": "over", "view": view})
    text = " ".join(screen_text(model, 80, 24).replace("│", " ").split())
    assert ("bo wins. Tied on 40 points: bo before ann on private objective points, 5 to 3; "
            "ann before greedy on favour tokens left, 2 to 1.") in text, text


def test_the_rules_page_breaks_a_last_tie_by_round_10_not_by_seat() -> None:
    """The last tie-break is the first turn of round 10 taken latest: with 2 players that is
    seat 1, the earlier seat; the help's rules page said "the later seat"."""
    state, events = played(2)
    model = model_for(state, events, state.current_seat)

    async def main() -> None:
        async with running_console(model) as running:
            running.keys.send_text(":rules\r")
            await until_async(lambda: "Rules in short" in screen_text(model, 80, 24))
            text = " ".join(screen_text(model, 80, 24).split())
            assert "Ties: private, tokens, then whoever took their first turn of round 10 " \
                   "latest." in text
            running.keys.send_text(ENTER)  # out of the help, where q would not quit
            await until_async(lambda: model.page != HELP)

    asyncio.run(asyncio.wait_for(main(), TEST_TIMEOUT_S))


def test_a_refused_pattern_choice_counts_the_patterns_from_1() -> None:
    """Typed 'choose 0': the refusal says 1 to 4, as people type them; it said "from 0 to 3
    (in text, 1 to 4)", which tells someone who typed 0 that 0 is one."""
    state, events = played(0)
    model = model_for(state, events, state.current_seat)

    async def main() -> None:
        async with running_console(model) as running:
            running.keys.send_text(":choose 0\r")
            await until_async(lambda: model.message)
            assert model.message == "not sent: choose a pattern slot from 1 to 4"

    asyncio.run(asyncio.wait_for(main(), TEST_TIMEOUT_S))


def test_a_tab_while_choosing_does_not_open_the_game_on_another_window() -> None:
    """Tab while the patterns are chosen has no window to show (the hint offers none); once
    they are revealed, your own window is the one shown, not the one that Tab passed to."""
    state, events = played(0)
    you = state.current_seat
    model = model_for(state, events, you)

    async def main() -> None:
        async with running_console(model) as running:
            assert "Tab" not in screen_text(model, 80, 24).splitlines()[-2]
            running.keys.send_text("\t")
            await until_async(lambda: model.shown != you)
            revealed = []
            while state.view()["phase"] == "choose":
                revealed += state.apply(Action.choose(0))
            model.receive({"events": revealed, "view": state.view(you),
                           "private": state.private(you)})
            assert model.shown == you
            assert screen_text(model, 80, 24).splitlines()[1].startswith("▶You: ")

    asyncio.run(asyncio.wait_for(main(), TEST_TIMEOUT_S))


def test_solo_a_tool_on_the_only_die_of_its_colour_says_it_cannot_be_paid() -> None:
    """Solo, seed 5: the pool is P1 R1 G6 B2 and Grozing Pliers (key a) is paid with a purple
    die. Picking P1 and pressing a says that P1 cannot both pay and be worked on, not 'used on
    a die just drafted' (it was picked, and the picked die is drafted for the tool)."""
    state = SAGRADA.new_state(SAGRADA.parse_config({"players": 1}), PLIERS_SEED)
    events = state.apply(Action("choose", number=0))
    assert [die_text(d) for d in state.pool] == ["P1", "R1", "G6", "B2"]
    assert TOOLS[state.tools[0]].name == "Grozing Pliers"
    model = model_for(state, events, 0)
    model.ui.pick(0)
    assert model.ui.use_tool(0) == []
    assert model.message == "Grozing Pliers: paid with a purple pool die, and P1 is the only one"
    model.ui.pick(1)  # R1: P1 pays, in the tool's last step
    model.ui.use_tool(0)
    assert [a.kind for a in model.ui.plan] == ["draft", "tool"]


def test_the_rules_page_says_what_the_solo_game_changes_and_fits_80_by_24() -> None:
    """The solo line said only how tools are paid, the target and -3 an empty cell; a solo
    player also needs that a tool is used once, that the better of two private colours counts
    and that a tie with the target loses (S-solo)."""
    state = SAGRADA.new_state(SAGRADA.parse_config({"players": 1}), PLIERS_SEED)
    model = model_for(state, [], 0)

    async def main() -> None:
        async with running_console(model) as running:
            running.keys.send_text(":rules\r")
            await until_async(lambda: "Rules in short" in screen_text(model, 80, 24))
            screen = screen_text(model, 80, 24)
            assert "any other key: back" in screen.splitlines()[-2]  # the page is whole
            text = " ".join(screen.split())
            for said in ("a tool is used once, paid with a pool die of its colour (the die "
                         "leaves the game)", "two private colours, the better counts",
                         "beating the round track's total (a tie loses)"):
                assert said in text
            running.keys.send_text(ENTER)
            await until_async(lambda: model.page != HELP)

    asyncio.run(asyncio.wait_for(main(), TEST_TIMEOUT_S))


def test_a_solo_game_offers_no_tab_to_other_windows() -> None:
    """Tab goes to the next player's window: alone, yours is the only one."""
    for players, tab in ((1, False), (2, True)):
        state, events = played(2, players=players)
        model = model_for(state, events, state.current_seat)
        assert ("Tab windows" in screen_text(model, 80, 24).splitlines()[-2]) == tab


def test_the_final_screen_says_every_private_objective_whole_with_long_and_wide_names() -> None:
    """Four names of ten columns (one in Japanese, two columns a character): the line of
    private objectives ran past 80 columns and the last colour read 'purp'; it wraps, and a
    log line with such a name wraps by columns too."""
    state, events = played(0, players=4, seed=2)
    policy, rng = make_policy("greedy", game="sagrada"), random.Random(1)
    while not state.is_over():
        events += state.apply(policy.choose(state, rng))
    model = model_for(state, events, 0)
    names = ["山田太郎山", "Maximilian", "greedy 2", "Zoë"]
    model.seats = [{"name": n} for n in names]
    model.status, model.page = "over", FINAL
    text = screen_text(model, 80, 24)
    said = " ".join(line.strip() for line in text.splitlines()
                    if "Private objectives" in line or line.startswith("  "))
    colours = {"R": "red", "Y": "yellow", "G": "green", "B": "blue", "P": "purple"}
    for seat, name in enumerate(names):
        own = state.view(None)["privates"][seat]
        assert f"{name} {'/'.join(colours[c] for c in own)}" in said, text
    model.page = GAME
    model.log.append("山田太郎山 uses Cork-backed Straightedge, paying 2 favour tokens, and "
                     "places G5 at 3,3.")
    text = screen_text(model, 80, 24)
    assert ("山田太郎山 uses Cork-backed Straightedge, paying 2 favour tokens, and places\n"
            "  G5 at 3,3.\n") in text, text


def test_solo_a_tool_key_pays_with_the_lowest_die_of_its_colour() -> None:
    """The key pays with the lowest die of the tool's colour (type tool N pay M to choose):
    it sorted by the die's number modulo 6, where a 6 is 0, and paid with B6 before B1."""
    state = table(players=1, tools=(7,), pool="B6 R1 B1 G2", turn=1,
                  windows=("R3 . . . .\n" + ". . . . .\n" * 3,))
    model = model_for(state, [], 0)
    model.ui.use_tool(0)  # Glazing Hammer waits for Enter: the host rolls
    assert model.ui.confirming == [Action.tool(7, 2)]
    assert "(paid with B1)" in model.ui.note()


@pytest.mark.parametrize(("players", "difficulty", "keys"), [
    (2, 3, "a b c"), (1, 5, "a b c d e"), (1, 1, "a")])
def test_the_help_names_the_keys_of_the_tools_in_play(players: int, difficulty: int,
                                                      keys: str) -> None:
    """The help's tool page said 'keys a b c' in a solo game of 5 tools (keys a-e) or of 1."""
    config = {"players": players, **({"difficulty": difficulty} if players == 1 else {})}
    state = SAGRADA.new_state(SAGRADA.parse_config(config), 4)
    events = state.apply(Action("choose", number=0))
    model = model_for(state, events, 0)
    assert model.ui.help_pages()[1][0] == f"Tools in this game (keys {keys}; typed: tool N)"


def test_a_drafted_die_tool_says_pick_a_die_only_when_picking_one_would_do() -> None:
    """A drafted-die tool's key without a picked die said 'pick a die first' even where no
    pick could help: no purple die to pay with (solo), or a die drafted this turn already."""
    one_die = "R3 . . . .\n" + ". . . . .\n" * 3
    state = table(players=1, tools=(1,), pool="R1 G2 B3 Y4", windows=(one_die,))
    model = model_for(state, [], 0)
    assert model.ui.use_tool(0) == []
    assert model.message == "Grozing Pliers needs a purple die in the pool"
    state = table(players=1, tools=(1,), pool="R1 G2 P3 Y4", windows=(one_die,))
    model = model_for(state, [], 0)
    assert model.ui.use_tool(0) == []
    assert model.message == "Grozing Pliers is used on a drafted die: pick a die first (1-4)"
    # Drafted and placed; Eglomise Brush keeps the turn open, Flux Brush has missed its time.
    state = table(tools=(6, 2), tokens=(5, 5), pool="Y4 G5 B6 P1 P2",
                  windows=("R3 G2 . . .\n" + ". . . . .\n" * 3, one_die))
    state.apply(Action.parse("draft 1 at 2,1"))
    assert state.current_seat == 0
    model = model_for(state, [], 0)
    assert model.ui.use_tool(0) == []
    assert model.message == "Flux Brush is used on a die just drafted, before placing it"


def test_solo_a_tool_key_with_nothing_to_act_on_says_so_not_to_name_a_die() -> None:
    """Eglomise Brush with a blue die in the pool and an empty window: its key said 'is paid
    with a blue die of the pool: name it (in text: tool N pay M)', and 'tool 2 pay 4' typed
    then said it had nothing to act on. A payment named changes nothing: it says why now."""
    empty = ". . . . .\n" * 4
    state = table(players=1, tools=(2,), pool="P1 R1 G6 B2", windows=(empty,))
    model = model_for(state, [], 0)
    assert model.ui.use_tool(0) == []
    assert model.message == "Eglomise Brush has nothing to act on now"


def test_solo_glazing_hammer_paid_with_the_pools_last_die_says_so() -> None:
    """B5 alone in the pool on the second turn: its key said 'name it (in text: tool N pay
    M)', and naming B5 would leave nothing to re-roll."""
    state = table(players=1, tools=(7,), pool="B5", turn=1,
                  windows=("R3 . . . .\n" + ". . . . .\n" * 3,))
    model = model_for(state, [], 0)
    assert model.ui.use_tool(0) == []
    assert model.message == ("Glazing Hammer: paying with B5 would leave no die in the pool to "
                             "re-roll")
