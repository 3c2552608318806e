"""The analysis where players look: the replay shows each move's verdict as it steps and ``c``
goes to the costliest decisions; the final screen offers ``a``, which analyses the game in the
background with a progress bar and then opens the replay with the verdicts. The real console
app on pipe input; the analyses are short (a few iterations, on a part of the game)."""

from __future__ import annotations

import asyncio
import json
import random
import re
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_kit import Terminal
from console_kit import running_console
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from test_net_support import RUN_SAGANI
from test_net_support import until_async as until

from sagani_net.analysis import Analysis, Effort, Verdict, analyse, format_analysis, shown
from sagani_net.bots import make_policy
from sagani_net.cli.console.app import Console, Replay, replay_frames
from sagani_net.cli.console.model import FINAL, GAME, HELP, ConsoleModel
from sagani_net.cli.console.render import help_pages, screen_text
from sagani_net.cli.main import main
from sagani_net.cli.play_cmd import bot_loop
from sagani_net.client import AsyncClient
from sagani_net.game import without_seat
from sagani_net.games import get_game
from sagani_net.games.sagani.rules import State
from sagani_net.host import Host

#: Decisions the tests analyse (the first ones): enough for costly ones, quick to search.
ANALYSED = 14


def finished_record(seed: int = 9) -> dict[str, Any]:
    """A whole game of Sagani, greedy against random."""
    state = State.new(2, seed=seed)
    policies, rng = [make_policy("greedy"), make_policy("random")], random.Random(seed)
    while not state.is_over():
        state.apply(policies[state.seat].choose(state, rng))
    return state.to_record()


def quick(record: dict[str, Any], on_verdict: Callable[[int, int], None]) -> Analysis:
    return analyse(record, Effort(30), workers=1, on_verdict=on_verdict,
                   only=lambda d: d.index < ANALYSED)


def names() -> list[dict[str, Any]]:
    return [{"name": "ann"}, {"name": "rnd"}]


def test_the_replay_shows_each_moves_verdict_and_c_goes_to_the_costliest() -> None:
    record = finished_record()
    verdicts = {v.index: v for v in quick(record, lambda done, total: None).verdicts}
    steps = Replay(replay_frames(record), verdicts=verdicts, record=record)
    model = ConsoleModel(connection="local", seats=names())
    costliest = steps.costliest()
    assert costliest and costliest[0].loss >= costliest[-1].loss

    async def main() -> None:
        async with running_console(model, replay=steps) as running:
            assert model.verdict == ""  # the start: no move yet
            running.keys.send_text("\x1b[C")  # right: the first move, and its verdict
            await until(lambda: steps.index == 1)
            first = verdicts[0]
            text = screen_text(model, 80, 24)
            assert f"ann played {shown('sagani', first.played)}" in text, text
            assert "c costliest" in text
            running.keys.send_text("c")
            await until(lambda: steps.index == costliest[0].index + 1)
            text = screen_text(model, 80, 24)
            said = " ".join(text.split())  # the message line wraps a long verdict
            worst = costliest[0]
            assert (f"played {shown('sagani', worst.played)}" in said
                    and f"best {shown('sagani', worst.best)}" in said), text
            assert f"% (-{worst.loss * 100:.1f})" in said and "win chance" in said
            running.keys.send_text("c")
            await until(lambda: steps.index == costliest[1 % len(costliest)].index + 1)
            assert all(len(line) <= 80 for line in text.splitlines())
            assert len(text.splitlines()) == 24

    asyncio.run(asyncio.wait_for(main(), 30))


def test_a_on_the_final_screen_analyses_in_the_background_then_opens_the_replay() -> None:
    record = finished_record()
    last = State.from_record(record)
    model = ConsoleModel(connection="local", seats=names(), status="over", page=FINAL)
    model.view = last.view(None)
    asked = threading.Event()
    go_on = threading.Event()

    def held(record_: dict[str, Any], on_verdict: Callable[[int, int], None]) -> Analysis:
        """The quick analysis, held after its first verdict until the test has seen the bar."""
        def tick(done: int, total: int) -> None:
            on_verdict(done, total)
            if done == 1:
                asked.set()
                go_on.wait(10)
        return quick(record_, tick)

    async def get_record() -> dict[str, Any]:
        return record

    async def main() -> None:
        async with running_console(model, record=get_record, analyser=held) as running:
            console: Console = running.console
            assert "a analyse this game" in screen_text(model, 80, 24)
            running.keys.send_text("a")
            await until(asked.is_set, 10)
            await until(lambda: "analysing the game: [#" in screen_text(model, 80, 24))
            text = screen_text(model, 80, 24)
            assert f"1/{ANALYSED} decisions" in text and "a analyse" not in text, text
            go_on.set()
            await until(lambda: console.replay is not None
                        and console.replay.verdicts is not None, 20)
            assert model.page == GAME and model.replay_step.startswith("move ")
            text = screen_text(model, 80, 24)
            assert "c costliest" in text and "win chance" in " ".join(text.split()), text
            worst = console.replay.costliest()[0]  # type: ignore[union-attr]
            assert console.replay.index == worst.index + 1  # type: ignore[union-attr]

    asyncio.run(asyncio.wait_for(main(), 40))


def test_quitting_while_the_game_is_analysed_ends_the_analysis() -> None:
    """q during the analysis: the console closes and its analysis stops at the next verdict,
    rather than keep the process alive until every decision is searched."""
    record = finished_record()
    model = ConsoleModel(connection="local", seats=names(), status="over", page=FINAL)
    model.view = State.from_record(record).view(None)
    started = threading.Event()
    verdicts: list[int] = []
    stopped: list[BaseException] = []

    def whole(record_: dict[str, Any], on_verdict: Callable[[int, int], None]) -> Analysis:
        def tick(done: int, total: int) -> None:
            verdicts.append(done)
            started.set()
            on_verdict(done, total)
        try:
            return analyse(record_, Effort(30), workers=1, on_verdict=tick)
        except BaseException as exc:
            stopped.append(exc)
            raise

    async def get_record() -> dict[str, Any]:
        return record

    async def main() -> None:
        async with running_console(model, record=get_record, analyser=whole) as running:
            running.keys.send_text("a")
            await until(started.is_set, 10)
        # running_console pressed q on its way out

    asyncio.run(asyncio.wait_for(main(), 30))  # returns once the analysis's thread has ended
    assert len(stopped) == 1, "the analysis ran to its end"
    assert len(verdicts) < len(record["actions"]) // 2, verdicts


def finished_table(host: Host) -> str:
    """A game of Sugi played to its end at ``host`` by two bots (greedy, random): its table."""

    async def play() -> str:
        kinds = ("greedy", "random")
        clients = [AsyncClient(host.endpoint) for _ in kinds]
        await clients[0].connect()
        table = await clients[0].create({"players": 2}, game="sugi", seed=3, bots=[0, 1])
        for seat, client in enumerate(clients):
            await client.join(table, role="bot", seat=seat, name=kinds[seat])
        await asyncio.gather(*(bot_loop(c, kinds[n], n) for n, c in enumerate(clients)))
        for client in clients:
            client.close()
        return table

    return asyncio.run(asyncio.wait_for(play(), 60))


def test_sagani_analyze_reads_a_finished_table_from_a_host(host: Host) -> None:
    table = finished_table(host)
    address = host.endpoint.removeprefix("tcp://")
    done = subprocess.run([*RUN_SAGANI, "analyze", "--table", table, "--host", address,
                           "--iterations", "5", "--json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    client = AsyncClient(host.endpoint)
    try:
        record = asyncio.run(client.record(table))
    finally:
        client.close()
    assert data["game"] == "sugi" and len(data["decisions"]) == len(record["actions"])
    assert data["decisions"][-1]["played"] == get_game("sugi").action_text(
        without_seat(record["actions"][-1]))


def test_sagani_join_offers_a_on_the_final_screen_and_q_stops_its_analysis(
        host: Host, tmp_path: Path) -> None:
    """The real ``sagani join`` at 80x24 on a finished table: the final screen offers ``a``,
    which gets the record from the host and analyses it (the real analyser, on every core)
    with a progress bar; q then quits at once, its analysis stopped."""

    table = finished_table(host)
    address = host.endpoint.removeprefix("tcp://")
    watcher = Terminal("join", address, "--table", table, "--spectate",
                       env={"HOME": str(tmp_path)})
    try:
        watcher.wait_for("a analyse this game")
        watcher.send("a")
        watcher.wait_for("analysing the game: [", 60)
        watcher.send("q")
        assert watcher.close() == 0
    finally:
        if watcher.proc.poll() is None:
            watcher.proc.kill()


def test_the_final_screen_offers_no_analysis_without_a_record() -> None:
    model = ConsoleModel(connection="local", seats=names(), status="over", page=FINAL)
    model.view = State.from_record(finished_record()).view(None)

    async def main() -> None:
        async with running_console(model) as running:
            assert "analyse" not in screen_text(model, 80, 24)
            running.keys.send_text("a\t")  # keys act in order: Tab's effect comes after a's
            await until(lambda: model.page == GAME)
            assert model.analysis_note == "" and running.console.replay is None

    asyncio.run(asyncio.wait_for(main(), 20))


def test_sagani_replay_reads_an_analysis_file_and_refuses_one_of_another_game(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The real command reads the file; its refusals are the same command line in-process
    (no process start each: ``main`` returns the exit code and writes stderr as the command)."""
    record = finished_record()
    (tmp_path / "game.json").write_text(json.dumps(record))
    analysis = quick(record, lambda done, total: None).to_data()
    (tmp_path / "analysis.json").write_text(json.dumps(analysis))
    other = finished_record(seed=10)
    (tmp_path / "other.json").write_text(json.dumps(other))
    sagani = [*RUN_SAGANI, "replay"]
    done = subprocess.run([*sagani, str(tmp_path / "game.json"), "--analysis",
                           str(tmp_path / "analysis.json"), "--print"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    for args in (["other.json", "--analysis", "analysis.json"],
                 ["game.json", "--analysis", "none.json"],
                 ["game.json", "--analysis", "game.json"],
                 ["game.json", "--analysis", "analysis.json", "--analyze"]):
        code = main(["replay", *[str(tmp_path / a) if a.endswith(".json") else a
                                 for a in args], "--print"])
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1, (args, err)
        assert err.startswith("sagani replay: ")


@pytest.mark.parametrize("edit", [
    {"seat": 1},  # another seat's: the replay said 'rnd played take 0' of ann's move
    {"loss": -3.0},  # read as 'the search's choice too'
    {"loss": float("nan")},  # shown as '(-nan)'
    {"value_best": 12.0},  # a win chance of 1200%
])
def test_sagani_replay_refuses_a_hand_edited_verdict_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: dict[str, Any]) -> None:
    record = finished_record()
    (tmp_path / "game.json").write_text(json.dumps(record))
    analysis = quick(record, lambda done, total: None).to_data()
    assert analysis["decisions"][0]["seat"] == 0
    analysis["decisions"][0].update(edit)
    (tmp_path / "analysis.json").write_text(json.dumps(analysis))
    code = main(["replay", str(tmp_path / "game.json"), "--analysis",
                 str(tmp_path / "analysis.json"), "--print"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith("sagani replay: cannot use "), err


def test_the_replay_names_sagani_offer_tiles_from_1_as_its_screen_does() -> None:
    """The replay's offer reads [1] [2] [3]: a verdict on the first tile taken says 'take 1'
    and a best of the third 'take 3' (it said 'take 0' and 'take 2')."""
    said = said_of_the_first_move(Verdict(0, 0, 1, "take 0", "take 2", 0.4, 0.6, 0.2, "blunder",
                                          best_line=("take 2", "place 0,1 90")))
    assert "BLUNDER: ann played take 1: win chance 40%; best take 3: 60%" in said, said


def said_of_the_first_move(verdict: Verdict) -> str:
    """The replay's screen (its words, one space apart) once stepped to after the first move
    of a finished Sagani game, ``verdict`` that move's."""
    record = finished_record()
    steps = Replay(replay_frames(record), verdicts={0: verdict}, record=record)
    model = ConsoleModel(connection="local", seats=names())

    async def main() -> str:
        async with running_console(model, replay=steps) as running:
            running.keys.send_text("\x1b[C")
            await until(lambda: steps.index == 1)
            return " ".join(screen_text(model, 80, 24).split())

    return asyncio.run(main())


def test_the_costliest_move_of_the_analysis_text_is_the_replays_move_of_that_number() -> None:
    """The text named the costliest decision by its record index ('#14') while the replay
    shows its verdict at 'move 15/96' (moves played): stepping to move 14 showed another."""
    record = finished_record()
    analysis = quick(record, lambda done, total: None)
    steps = Replay(replay_frames(record), verdicts={v.index: v for v in analysis.verdicts},
                   record=record)
    worst = steps.costliest()[0]
    text = " ".join(format_analysis(analysis).split())
    named = re.findall(rf"move (\d+) \(turn {worst.turn}\) -{worst.loss * 100:.1f}", text)
    assert len(named) == 1, text
    model = ConsoleModel(connection="local", seats=names())

    async def main() -> None:
        async with running_console(model, replay=steps) as running:
            running.keys.send_text("c")
            await until(lambda: steps.index == worst.index + 1)
            screen = screen_text(model, 80, 24)
            assert f"move {named[0]}/" in screen.splitlines()[0], screen
            assert f"(-{worst.loss * 100:.1f})" in " ".join(screen.split()), screen

    asyncio.run(main())


def test_a_step_after_c_found_nothing_costly_shows_the_moves_verdict_again() -> None:
    """'no decision lost anything' stayed on the message line for the rest of the replay,
    over every verdict stepped to."""
    record = finished_record()
    played = [get_game("sagani").action_text(without_seat(a)) for a in record["actions"][:4]]
    verdicts = {i: Verdict(i, i % 2, 1 + i // 2, text, text, 0.5, 0.5, 0.0, None)
                for i, text in enumerate(played)}
    steps = Replay(replay_frames(record), verdicts=verdicts, record=record)
    model = ConsoleModel(connection="local", seats=names())

    async def main() -> None:
        async with running_console(model, replay=steps) as running:
            running.keys.send_text("c")
            await until(lambda: "no decision lost anything" in screen_text(model, 80, 24))
            running.keys.send_text("\x1b[C")
            await until(lambda: steps.index == 1)
            screen = screen_text(model, 80, 24)
            assert "no decision lost anything" not in screen, screen
            assert "ann played take" in screen and "the search's choice too" in screen, screen

    asyncio.run(main())


def test_a_move_that_lost_nothing_but_was_not_the_searchs_choice_is_not_called_it() -> None:
    """The search's choice is its most visited move; a move played with as high a mean loses
    0 but is another move: the replay called it 'the search's choice too'."""
    said = said_of_the_first_move(Verdict(0, 0, 1, "take 0", "take 2", 0.56, 0.55, 0.0, None,
                                          best_line=("take 2", "place 0,1 90")))
    assert "the search's choice too" not in said, said
    assert ("ann played take 1: win chance 56%, as good as the search's choice take 3: "
            "55%") in said, said


def test_the_analysis_keys_are_on_the_help_pages_and_every_page_fits_80_by_24() -> None:
    """``a`` and ``c`` are said on the help pages like every other key, and the keys, many
    as they are, come in pages that show whole on an 80x24 screen."""
    model = ConsoleModel()
    with create_pipe_input() as keys:
        Console(model, None, input=keys, output=DummyOutput())  # binds the keys
    model.private = {}  # a seat with something of its own to cover: h is said too
    pages = help_pages(model)
    keys_said = [line.split()[0] for page in pages if page[0].startswith("Keys")
                 for line in page[1:]]
    assert "a" in keys_said and "c" in keys_said
    assert len(keys_said) == len(model.key_help)
    for page in pages:
        assert len(page) <= 24 - 6 and all(len(line) <= 80 for line in page), page
    model.page, model.help_page = HELP, 0
    first = screen_text(model, 80, 24)
    assert "Keys\n" in first and "page 1/" in first
    model.help_page = 1
    assert "Keys, continued\n" in screen_text(model, 80, 24)
