"""A bot author's own policy, named MODULE:NAME or FILE.py:NAME, where any strategy is named:
``make_policy``, ``sagani selfplay``, ``sagani tournament`` (in-process and through a host) and
``sagani bot`` (a real process at a real host)."""

from __future__ import annotations

import json
import logging
import random
import subprocess
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_kit import tournament_table
from test_net_support import ROOT, RUN_SAGANI, running_host, until

from sagani_net.bots import make_policy
from sagani_net.bots.base import decide
from sagani_net.bots.runner import BotRunner, think_cap_s
from sagani_net.bots.tournament import TournamentSpec, run_games, summarize
from sagani_net.cli.main import main
from sagani_net.client import Client
from sagani_net.game import GameState
from sagani_net.games import get_game

#: A policy as a bot author writes it, in a file of its own: the last legal action, so that its
#: games differ from the house's (whose greedy and default moves lean to the first).
LAST_LEGAL = textwrap.dedent('''
    class LastLegal:
        name = "last-legal"

        def __init__(self, game):
            self.game = game

        def choose(self, state, rng):
            return state.legal_actions()[-1]


    def no_game():
        return LastLegal("x")


    def not_a_policy(game):
        return game
''')


EXAMPLE = ROOT / "docs" / "examples" / "one_ply.py"


@pytest.fixture
def policy_file(tmp_path: Path) -> Path:
    path = tmp_path / "mine.py"
    path.write_text(LAST_LEGAL)
    return path


def test_a_policy_in_a_file_is_made_by_its_name_with_the_game(policy_file: Path) -> None:
    policy = make_policy(f"{policy_file}:LastLegal", game="sugi")
    assert policy.name == "last-legal" and policy.game == "sugi"  # type: ignore[attr-defined]
    # Loaded once per process: a tournament makes each game's policies afresh.
    assert type(make_policy(f"{policy_file}:LastLegal", game="sugi")) is type(policy)


def test_a_policy_in_a_module_is_made_by_its_name() -> None:
    policy = make_policy("sagani_net.bots.simple:GreedyPolicy", game="sagrada")
    assert policy.name == "greedy"


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("{dir}/absent.py:LastLegal", "no file"),
        ("no_such_module_here:LastLegal", "no module 'no_such_module_here'"),
        ("{dir}/mine.py:Missing", "has no callable 'Missing'"),
        ("{dir}/mine.py:no_game", "calling it with game='sagani' failed"),
        ("{dir}/mine.py:not_a_policy", "made 'sagani', which is no policy"),
    ],
)
def test_a_strategy_that_cannot_be_made_says_why(policy_file: Path, name: str, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        make_policy(name.format(dir=policy_file.parent), game="sagani")


def test_selfplay_plays_a_policy_of_ones_own_and_records_its_seat_by_its_name(
    policy_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = tmp_path / "records"
    assert main(["selfplay", "--game", "sugi", "--policy", f"{policy_file}:LastLegal,random",
                 "--games", "2", "--records", str(records)]) == 0
    assert "LastLegal" in capsys.readouterr().out
    for path in records.glob("*.json"):
        assert json.loads(path.read_text())["names"] == ["LastLegal", "random"]


def test_a_tournament_plays_a_policy_of_ones_own_the_same_in_process_and_through_a_host(
    policy_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["tournament", "--game", "sagrada", "--strategies", f"{policy_file}:LastLegal,greedy",
            "--games", "2", "--workers", "1"]
    tables = []
    for network in ([], ["--network"]):
        assert main(args + network) == 0
        tables.append(tournament_table(capsys.readouterr().out))
    local, networked = tables
    assert networked == local
    # A name too long for the column (a path) on a line of its own, its figures under it.
    name = f"{policy_file}:LastLegal"
    assert [row.split()[:1] for row in local[1:]] == [[name], ["2"], ["greedy"]]
    assert max(len(line) for line in local if line != name) <= 80


@pytest.mark.parametrize("command", ["selfplay --policy", "tournament --strategies"])
def test_a_strategy_that_cannot_be_loaded_is_one_line_before_any_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    assert main([*command.split(), f"{tmp_path}/absent.py:Mine,greedy"]) == 2
    err = capsys.readouterr().err
    assert "no file" in err and len(err.strip().splitlines()) == 1


def test_the_bot_command_plays_a_policy_of_ones_own_at_a_host(
    policy_file: Path, tmp_path: Path
) -> None:
    with running_host(tmp_path / "data") as host:
        done = subprocess.run(  # a solo game of Sagani: no other seat to fill
            [*RUN_SAGANI, "bot", host.endpoint.removeprefix("tcp://"), "--create", "1",
             "--strategy", f"{policy_file}:LastLegal", "--quiet"],
            cwd=ROOT, capture_output=True, text=True, timeout=60,
        )
        assert done.returncode == 0, done.stderr
        table = done.stdout.split("created table ")[1].split()[0]
        client = Client(host.endpoint)
        try:
            names = client.record(table)["names"]
        finally:
            client.close()
    assert "game over" in done.stdout
    assert names == ["LastLegal-bot"]


def test_the_bot_command_refuses_a_strategy_it_cannot_load_in_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [*RUN_SAGANI, "bot", "127.0.0.1:1", "--create", "2", "--strategy",
         f"{tmp_path}/absent.py:Mine"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2
    assert "no file" in done.stderr and len(done.stderr.strip().splitlines()) == 1


class Patient:
    """A policy of one's own that says how long it may think (``think_s``), and can be late:
    it waits until ``host_version()`` is past its state's (the host played for it)."""

    name = "patient"

    def __init__(self, game: str, host_version: Callable[[], int] | None = None) -> None:
        self.think_s: float | None = None
        self.host_version = host_version

    def choose(self, state: GameState, rng: random.Random) -> Any:
        if self.host_version is not None:
            host_version = self.host_version
            until(lambda: host_version() > state.version)
        return state.legal_actions()[0]


def test_a_policy_of_ones_own_is_told_how_long_it_may_think_at_a_table_with_a_deadline(
    tmp_path: Path,
) -> None:
    with running_host(tmp_path) as host:
        runner = BotRunner(host.endpoint, Patient("sagani"))
        try:
            runner.join(runner.create({"players": 1}, deadline_s=1.5))
            assert runner.policy.think_s == think_cap_s(1.5) == 1.0  # type: ignore[union-attr]
        finally:
            runner.close()


def test_the_line_of_a_tables_deadline_names_the_table_and_is_for_ones_own_policies(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """House bots wrote 'greedy-bot: the table's deadline is 3 s; past it ... (a policy with
    a think_s attribute is told ...)' on the host's screen at every seat, naming no table:
    the line is said of one's own policies, with the table, and not of random or greedy."""
    with running_host(tmp_path) as host, caplog.at_level(logging.INFO, "sagani_net.bots.runner"):
        runners = [BotRunner(host.endpoint, Mute()), BotRunner(host.endpoint, "greedy")]
        try:
            table = runners[0].create({"players": 2}, deadline_s=1.5)
            for seat, runner in enumerate(runners):
                runner.join(table, seat)
        finally:
            for runner in runners:
                runner.close()
    said = [r.getMessage() for r in caplog.records if "deadline is" in r.getMessage()]
    assert said == [f"mute-bot at table {table}: the table's deadline is 1.5 s; past it the "
                    "host plays the default move for this seat (a policy with a think_s "
                    "attribute is told how long it may think)"], said


class Mute:
    """A policy of one's own without ``think_s``: it cannot be told how long it may think."""

    name = "mute"

    def choose(self, state: GameState, rng: random.Random) -> Any:
        return state.legal_actions()[0]


def test_a_move_the_host_played_past_the_deadline_is_said_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with running_host(tmp_path) as host:
        policy = Patient("sagani")
        runner = BotRunner(host.endpoint, policy)
        try:
            table = runner.create({"players": 1}, deadline_s=0.1)
            # Read across threads: an int the host's thread rebinds.
            policy.host_version = lambda: host.room.tables[table].state.version
            runner.join(table)
            with caplog.at_level(logging.WARNING, logger="sagani_net.bots.runner"):
                runner._move(runner.client.sync())
        finally:
            runner.close()
    assert runner.moves == 0
    assert runner.late_moves == 1  # what sagani bot's last line says beside its moves
    assert "past the 0.1 s deadline: the host played the default move" in caplog.text


@pytest.mark.parametrize(
    ("game", "policy"),
    [("sagani", "SaganiOnePly"), ("sagrada", "SagradaOnePly"), ("sugi", "SugiRoundAhead")],
)
def test_the_example_policies_of_ones_own_beat_random(game: str, policy: str) -> None:
    # docs/examples/one_ply.py, as the README shows it run: loaded by its file and name.
    spec = TournamentSpec(lineup=(f"{EXAMPLE}:{policy}", "random"), games=2, game=game)
    rows = summarize(spec, run_games(spec, workers=1))
    assert [row.wins for row in rows] == [2, 0]


def test_sagani_play_seats_policies_of_ones_own_for_bots_and_autoplay(
    policy_file: Path, tmp_path: Path
) -> None:
    # The bot plays in a worker process (one's own may think long): the file is loaded there.
    done = subprocess.run(
        [*RUN_SAGANI, "play", "--game", "sugi", "--autoplay", f"{policy_file}:LastLegal",
         "--bots", f"{EXAMPLE}:SugiRoundAhead", "--seed", "3", "--new", "--data-dir",
         str(tmp_path / "play")],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    record = json.loads(Path(done.stdout.split("record: ")[1].strip()).read_text())
    assert record["names"] == ["LastLegal", "SugiRoundAhead"]


def test_a_bot_whose_strategy_refuses_the_tables_game_gives_its_seat_up(
    policy_file: Path, tmp_path: Path
) -> None:
    policy_file.write_text(LAST_LEGAL + textwrap.dedent('''
        class SaganiOnly(LastLegal):
            def __init__(self, game):
                if game != "sagani":
                    raise ValueError(f"SaganiOnly plays Sagani, not {game}")
                super().__init__(game)
    '''))
    with running_host(tmp_path / "data") as host:
        creator = Client(host.endpoint)
        runner = BotRunner(host.endpoint, f"{policy_file}:SaganiOnly")
        other = BotRunner(host.endpoint, "random")
        try:
            table = creator.create({"players": 2}, game="sugi", bots=[0, 1])
            with pytest.raises(ValueError, match="plays Sagani, not sugi"):
                runner.join(table, 0)
            assert other.join(table, 0) == 0  # the seat is free again
        finally:
            for client in (creator, runner, other):
                client.close()


#: A policy of one's own that raises where its author's code may: at import, when made, or
#: while choosing.
FAULTY = {
    "raises_at_import": 'raise RuntimeError("boom at import")\n',
    "syntax_error": "def broken(:\n",
    "exits_at_import": "import sys\nsys.exit(0)\n",
    "raises_when_made": LAST_LEGAL + textwrap.dedent('''
        class Fussy(LastLegal):
            def __init__(self, game):
                raise RuntimeError("boom when made")
    '''),
}


@pytest.mark.parametrize(("module", "said"), [
    ("raises_at_import", "importing {path} raised RuntimeError: boom at import ({path}, line 1)"),
    ("syntax_error", "importing {path} raised SyntaxError: "),
    ("exits_at_import", "importing {path} raised SystemExit: 0 ({path}, line 2)"),
    ("raises_when_made", "making it with game='sagani' raised RuntimeError: boom when made"),
])
def test_a_strategy_whose_own_code_raises_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], module: str, said: str
) -> None:
    path = tmp_path / f"{module}.py"
    path.write_text(FAULTY[module])
    factory = "Fussy" if module == "raises_when_made" else "Mine"
    # A traceback (exit 1) before; SystemExit at import ended the tournament with exit 0.
    assert main(["tournament", "--strategies", f"{path}:{factory},random", "--games", "1"]) == 2
    err = capsys.readouterr().err
    assert said.format(path=path) in err and len(err.strip().splitlines()) == 1, err


RAISES_WHILE_CHOOSING = LAST_LEGAL + textwrap.dedent('''
    class Clumsy(LastLegal):
        name = "clumsy"

        def choose(self, state, rng):
            raise KeyError("a secret card")
''')
CHOOSING_LINE = 1 + RAISES_WHILE_CHOOSING.splitlines().index(
    '        raise KeyError("a secret card")')


def tournament_against_random(
    tmp_path: Path, source: str, name: str, caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> tuple[Path, list[str]]:
    """A game of the policy ``name`` that ``source`` defines against random, in a tournament
    that ends well and names it: the policy's file, and the bots' warnings."""
    path = tmp_path / f"{name.lower()}.py"
    path.write_text(source)
    with caplog.at_level(logging.WARNING, "sagani_net.bots"):
        assert main(["tournament", "--strategies", f"{path}:{name},random", "--games", "1",
                     "--workers", "1"]) == 0
    assert f"{path}:{name}" in capsys.readouterr().out
    return path, [record.getMessage() for record in caplog.records]


def test_a_policy_that_raises_while_choosing_plays_the_default_move_with_a_log_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before, the tournament ended with the policy's traceback.
    path, said = tournament_against_random(tmp_path, RAISES_WHILE_CHOOSING, "Clumsy", caplog,
                                           capsys)
    assert said[0] == (f"policy clumsy raised KeyError ({path}, line {CHOOSING_LINE}); playing "
                       "the default move")
    assert said[1:] == [f"{said[0]} (the 10th time in this process: only the 1st, 10th, 100th... "
                        "are written)"]  # a Sagani game of two: some 30 decisions a seat


def test_a_policy_that_raises_at_every_decision_is_said_so_at_its_1st_10th_100th_time(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "clumsy.py"
    path.write_text(RAISES_WHILE_CHOOSING)
    with caplog.at_level(logging.WARNING, "sagani_net.bots"):
        assert main(["tournament", "--strategies", f"{path}:Clumsy,random", "--games", "4",
                     "--workers", "1"]) == 0
    # Some 130 decisions: a line each before.
    assert [record.getMessage().partition("move")[2] for record in caplog.records] == [
        "", *(f" (the {n}th time in this process: only the 1st, 10th, 100th... are written)"
              for n in (10, 100))]


def test_a_bot_whose_policy_raises_while_choosing_plays_its_game_to_the_end(
    tmp_path: Path,
) -> None:
    path = tmp_path / "clumsy.py"
    path.write_text(RAISES_WHILE_CHOOSING)
    with running_host(tmp_path / "data") as host:
        done = subprocess.run(  # a solo game: no other seat to fill
            [*RUN_SAGANI, "bot", host.endpoint.removeprefix("tcp://"), "--create", "1",
             "--strategy", f"{path}:Clumsy"],
            cwd=ROOT, capture_output=True, text=True, timeout=60,
        )
    # Before: a traceback, the seat kept and the table stalled (exit 1).
    assert done.returncode == 0, done.stderr
    assert "game over" in done.stdout and "Traceback" not in done.stderr
    assert f"policy clumsy raised KeyError ({path}, line {CHOOSING_LINE})" in done.stderr
    assert "a secret card" not in done.stderr  # its message may name the seat's hand


EXITS_WHILE_CHOOSING = LAST_LEGAL + textwrap.dedent('''
    import sys


    class Quitter(LastLegal):
        name = "quitter"

        def choose(self, state, rng):
            sys.exit(3)
''')
EXIT_LINE = 1 + EXITS_WHILE_CHOOSING.splitlines().index("        sys.exit(3)")


def test_a_policy_that_exits_while_choosing_plays_the_default_move_with_a_log_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """sys.exit in choose is the policy's mistake like any other: before, it ended the whole
    tournament (or self-play, or sagani bot, keeping its seat) with exit 3 and not a word."""
    path, said = tournament_against_random(tmp_path, EXITS_WHILE_CHOOSING, "Quitter", caplog,
                                           capsys)
    assert said[0] == (f"policy quitter raised SystemExit ({path}, line {EXIT_LINE}); playing "
                       "the default move")
    # Over the network the bot decides through decide(): the default move's wire data.
    game = get_game("sagani")
    state = game.new_state(game.parse_config({"players": 2}), 1)
    policy = make_policy(f"{path}:Quitter", game="sagani")
    assert decide(policy, game, 0, state.view(0), None, random.Random(0), random.Random(1)) \
        == state.action_data(state.default_action())
