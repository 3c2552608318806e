"""Issue 21 points 1 and 2, start at once: what `sagani play` imports before its first screen,
what `sagani host` imports before it answers a ``hello``, and what `sagani selfplay` imports
to play random games (which modules, not how long: the figures come from bench/startup.py and
bench/engine.py). Each command runs whole, in a process of its own, from a probe that writes
``sys.modules`` down at that moment."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import zmq
from cli_kit import a_terminal
from test_net_support import Raw, running_host

import sagani_net
from sagani_net.bots.local import GameSpec, play_local
from sagani_net.games import about, game_names, get_game
from sagani_net.protocol import VERSION, decode_message, encode
from sagani_net.store import Store, TableRow

WAIT_S = 60

#: Not needed for the first screen of a Sagani game: the other games' engines, the bots (they
#: start once the screen is drawn), the standby and the host command, zeroconf, a search
#: bot's worker processes, the house bots' crypto.
NOT_BEFORE_THE_FIRST_SCREEN = (
    "sagani_net.games.sagrada.rules", "sagani_net.games.sugi.rules", "sagani_net.bots",
    "sagani_net.standby", "sagani_net.cli.host_cmd", "sagani_net.discovery", "zeroconf",
    "multiprocessing", "concurrent.futures.process", "nacl",
)
#: Not needed to answer a hello on a new data dir: any engine (the welcome lists the games'
#: ``about``), the client and asyncio, the bots, zeroconf, the console.
NOT_BEFORE_THE_WELCOME = (
    "sagani_net.games.sagani.rules", "sagani_net.games.sagrada.rules",
    "sagani_net.games.sugi.rules", "sagani_net.client", "asyncio", "sagani_net.bots",
    "sagani_net.discovery", "zeroconf", "nacl", "prompt_toolkit", "multiprocessing",
)

#: Not needed by ``sagani selfplay --policy random`` of any game: the other games' engines,
#: the game's own bots (random needs none), the search, the tournament's tables, worker
#: processes, the network (the protocol's codec too) and the console.
NOT_IN_RANDOM_SELFPLAY = (
    "sagani_net.bots.mcts", "sagani_net.bots.tournament", "sagani_net.bots.runner",
    "multiprocessing", "concurrent.futures", "zmq", "prompt_toolkit", "nacl", "sqlite3",
    "sagani_net.client", "sagani_net.host", "asyncio", "sagani_net.protocol", "msgpack",
)
#: Nor, for a game whose engine needs none of them (Sagrada's state is made of dataclasses),
#: what costs a 100-game run a share of its games: dataclasses (it imports inspect), logging,
#: pathlib, importlib.resources (zipfile, tempfile).
NOT_IN_A_LEAN_SELFPLAY = (
    "dataclasses", "inspect", "logging", "pathlib", "importlib.resources", "zipfile",
    "tempfile", "ipaddress", "urllib",
)
LEAN_GAMES = ("sagani", "sugi")

SELFPLAY_PROBE = """
import sys
before = set(sys.modules)
from sagani_net.cli.main import main
code = main(sys.argv[2:])
with open(sys.argv[1], "w") as f:
    f.write("\\n".join(sorted(set(sys.modules) - before)))
sys.exit(code)
"""

PLAY_PROBE = """
import json, os, sys
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.application import create_app_session
from sagani_net.cli.console import app

made = app.Console.__init__

def init(self, *args, **kwargs):
    made(self, *args, **kwargs)

    def drawn(_):
        with open(sys.argv[1], "w") as f:
            json.dump(sorted(sys.modules), f)
        os._exit(0)

    self.app.after_render += drawn

app.Console.__init__ = init
from sagani_net.cli.main import main
with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
    sys.exit(main(["play", "--new", "--data-dir", sys.argv[2]]))
"""

HOST_PROBE = """
import json, sys
from sagani_net import host

answer = host.Host._hello

def hello(self, request):
    reply = answer(self, request)
    with open(sys.argv[1], "w") as f:
        json.dump(sorted(sys.modules), f)
    return reply

host.Host._hello = hello
from sagani_net.cli.main import main
sys.exit(main(["host", "--quiet", "--port", "0", "--data-dir", sys.argv[2]]))
"""


def loaded(modules: list[str], names: tuple[str, ...]) -> list[str]:
    """Those of ``modules`` that are one of ``names`` or inside one of them."""
    return [m for m in modules if any(m == n or m.startswith(n + ".") for n in names)]


def test_sagani_play_draws_its_first_screen_before_importing_what_can_wait(
    tmp_path: Path,
) -> None:
    seen = tmp_path / "modules.json"
    # The probe's own imports (the console, prompt_toolkit) are ones `sagani play` makes too.
    # Its keys come from a pipe; its standard input is a terminal, as `sagani play` needs.
    with a_terminal() as keyboard:
        done = subprocess.run([sys.executable, "-c", PLAY_PROBE, str(seen),
                               str(tmp_path / "play")], stdin=keyboard, capture_output=True,
                              text=True, timeout=WAIT_S)
    assert seen.exists(), done.stderr
    modules = json.loads(seen.read_text())
    # It did get to the screen: the host, the console and Sagani's part of it are there.
    assert {"sagani_net.host", "sagani_net.games.sagani.ui", "prompt_toolkit"} <= set(modules)
    assert loaded(modules, NOT_BEFORE_THE_FIRST_SCREEN) == []


def test_sagani_host_answers_hello_without_an_engine_the_client_or_asyncio(
    tmp_path: Path,
) -> None:
    seen = tmp_path / "modules.json"
    host = subprocess.Popen([sys.executable, "-c", HOST_PROBE, str(seen), str(tmp_path / "d")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    req = zmq.Context.instance().socket(zmq.REQ)
    req.linger = 0
    try:
        assert host.stdout is not None
        for line in host.stdout:
            if line.startswith("sagani host: requests "):
                req.connect(line.split()[3])
                break
        req.send(encode({"v": VERSION, "type": "hello", "id": 1}))
        assert req.poll(WAIT_S * 1000), "no answer to hello"
        welcome = decode_message(req.recv())
    finally:
        req.close()
        host.kill()
        _, errors = host.communicate(timeout=WAIT_S)
    assert welcome["type"] == "welcome", errors
    assert [g["name"] for g in welcome["games"]] == game_names()
    modules = json.loads(seen.read_text())
    assert "sagani_net.standby" in modules  # the probe saw the host that answered
    assert loaded(modules, NOT_BEFORE_THE_WELCOME) == []


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_sagani_help_and_version_do_not_read_the_installed_metadata(flag: str) -> None:
    """importlib.metadata alone costs more than the rest of the command's start: the version
    is the package's own ``__version__``, which pyproject.toml reads for the wheel."""
    probe = ("import sys, atexit\nfrom sagani_net.cli.main import main\n"
             "atexit.register(lambda: print('METADATA', 'importlib.metadata' in sys.modules, "
             "file=sys.stderr))\n"
             f"main([{flag!r}])")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=WAIT_S)
    assert "METADATA False" in done.stderr, done.stderr
    version = subprocess.run([sys.executable, "-m", "sagani_net.cli.main", "--version"],
                             capture_output=True, text=True, timeout=WAIT_S)
    assert version.returncode == 0 and version.stdout == f"sagani {sagani_net.__version__}\n"


#: What `sagani play` and its kin import to run, not to read their command line.
NOT_TO_READ_A_COMMAND_LINE = ("sagani_net.cli.play_cmd", "prompt_toolkit", "zmq", "asyncio",
                              "sagani_net.host", "sqlite3")


#: Command lines read and answered without running anything, and their exit codes.
READ_ONLY = [(["play", "--help"], 0), (["join", "--help"], 0), (["tables", "--help"], 0),
             (["replay", "--help"], 0), (["play", "--seed", "-1"], 2),
             (["play", "--bots", "foo"], 2)]


@pytest.mark.parametrize(("argv", "code"), READ_ONLY, ids=[" ".join(a) for a, _ in READ_ONLY])
def test_the_console_commands_read_their_command_line_before_importing_what_they_run(
        argv: list[str], code: int) -> None:
    """A mistake or ``--help`` of ``sagani play`` is answered at once: its console, host and
    zmq (a quarter of a second) are imported only when the command runs."""
    probe = ("import sys, atexit\nfrom sagani_net.cli.main import main\n"
             "atexit.register(lambda: print('LOADED', [m for m in sys.argv[1:] "
             "if m in sys.modules], file=sys.stderr))\n"
             f"sys.exit(main({argv!r}))")
    done = subprocess.run([sys.executable, "-c", probe, *NOT_TO_READ_A_COMMAND_LINE],
                          capture_output=True, text=True, timeout=WAIT_S)
    assert done.returncode == code, done.stderr
    assert done.stderr.splitlines()[-1] == "LOADED []", done.stderr
    assert ("usage: sagani " in done.stdout) if code == 0 else done.stderr.startswith("sagani")


#: Not needed to read a finished game's record from a data dir: the host and its tables, the
#: standby, the network (which took the command three times as long as ``--version``).
NOT_TO_EXPORT_A_STORED_RECORD = ("sagani_net.host", "sagani_net.tables", "sagani_net.standby",
                                 "sagani_net.client", "zmq", "sagani_net.cli.host_cmd")


def test_record_export_from_a_data_dir_imports_the_store_alone(tmp_path: Path) -> None:
    record = play_local(GameSpec(0, "sagani", {"players": 2, "mode": "multi"}, 3,
                                 ("random", "random"))).record
    store = Store(tmp_path / "d")
    store.add_table(TableRow("t1", "sagani", record["config"], 3, [], "over", 9, 0.0))
    store.finish_table("t1", 9, record)
    store.commit()
    store.close()
    seen, out = tmp_path / "modules.txt", tmp_path / "t1.json"
    done = subprocess.run([sys.executable, "-c", SELFPLAY_PROBE, str(seen), "record", "export",
                           "t1", "--data-dir", str(tmp_path / "d"), "-o", str(out)],
                          capture_output=True, text=True, timeout=WAIT_S)
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text()) == record
    assert loaded(seen.read_text().split(), NOT_TO_EXPORT_A_STORED_RECORD) == []


def test_each_game_says_of_itself_what_its_rules_play() -> None:
    """The welcome and the command line read a game's ``about``; its engine plays the same."""
    for name in game_names():
        game, said = get_game(name), about(name)
        assert (said.name, said.title, said.options) == (game.name, game.title, game.options)


@pytest.mark.parametrize("game", game_names())
def test_random_selfplay_imports_its_game_and_little_else(tmp_path: Path, game: str) -> None:
    """What the process loads beyond the interpreter's start (the probe's baseline)."""
    seen = tmp_path / "modules.txt"
    done = subprocess.run([sys.executable, "-c", SELFPLAY_PROBE, str(seen), "selfplay", "--game",
                           game, "--policy", "random", "--games", "2"],
                          capture_output=True, text=True, timeout=WAIT_S)
    assert done.returncode == 0, done.stderr
    assert "2 games of" in done.stdout
    modules = seen.read_text().split()
    assert f"sagani_net.games.{game}.rules" in modules  # it did play
    others = tuple(f"sagani_net.games.{g}.rules" for g in game_names() if g != game)
    assert loaded(modules, (*NOT_IN_RANDOM_SELFPLAY, *others, f"sagani_net.games.{game}.bots")
                  ) == []
    if game in LEAN_GAMES:
        assert loaded(modules, NOT_IN_A_LEAN_SELFPLAY) == []
    if game == "sagani":  # its data is a CSV file: json is imported to write records alone
        assert "json" not in modules


def test_a_seed_and_a_seat_on_the_command_line_have_the_bounds_of_the_wire() -> None:
    """``sagani_net.cli.args`` keeps the bounds itself, so that reading a seed or a player count
    needs no codec."""
    from sagani_net.cli.args import MAX_SEATS, MAX_SEED
    from sagani_net.protocol import messages

    assert (MAX_SEED, MAX_SEATS) == (messages.MAX_ID, messages.MAX_SEATS)


#: Not needed to list a host's tables: the console and prompt_toolkit, the host (the listing
#: loaded both with `sagani play`'s module: 0.1 s of a 0.23 s command).
NOT_TO_LIST_TABLES = ("prompt_toolkit", "sagani_net.cli.console", "sagani_net.host",
                      "sagani_net.tables", "sagani_net.cli.play_cmd")


def test_sagani_tables_imports_the_client_alone(tmp_path: Path) -> None:
    with running_host(tmp_path / "d") as host:
        Raw(host.endpoint)("create", game="sugi", config={"players": 3})
        seen = tmp_path / "modules.txt"
        done = subprocess.run([sys.executable, "-c", SELFPLAY_PROBE, str(seen), "tables",
                               host.endpoint.removeprefix("tcp://")],
                              capture_output=True, text=True, timeout=WAIT_S)
    assert done.returncode == 0, done.stderr
    assert "sugi" in done.stdout
    assert loaded(seen.read_text().split(), NOT_TO_LIST_TABLES) == []


def test_sagani_replay_does_not_import_the_host(tmp_path: Path) -> None:
    """Only `sagani play` starts a host; `replay` and `join` loaded it all the same (40 ms)."""
    record = tmp_path / "game.json"
    spec = GameSpec(0, "sagani", {"players": 2, "mode": "multi"}, 3, ("random", "random"))
    record.write_text(json.dumps(play_local(spec).record))
    seen = tmp_path / "modules.txt"
    done = subprocess.run([sys.executable, "-c", SELFPLAY_PROBE, str(seen), "replay",
                           str(record), "--print"], capture_output=True, text=True,
                          timeout=WAIT_S)
    assert done.returncode == 0, done.stderr
    assert loaded(seen.read_text().split(), ("sagani_net.host", "sagani_net.tables")) == []
