"""Issue 21 point 1, start at once: what `sagani play` imports before its first screen and what
`sagani host` imports before it answers a ``hello`` (which modules, not how long: the figures
come from bench/startup.py). Each command runs whole, in a process of its own, from a probe
that writes ``sys.modules`` down at that moment."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import zmq

from sagani_net.games import about, game_names, get_game
from sagani_net.protocol import VERSION, decode_message, encode

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
    done = subprocess.run([sys.executable, "-c", PLAY_PROBE, str(seen), str(tmp_path / "play")],
                          capture_output=True, text=True, timeout=WAIT_S)
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


def test_sagani_help_does_not_look_up_the_installed_version() -> None:
    probe = ("import sys\nfrom sagani_net.cli.main import main\ncode = main(['--help'])\n"
             "print('METADATA', 'importlib.metadata' in sys.modules, file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=WAIT_S)
    assert "METADATA False" in done.stderr, done.stderr
    version = subprocess.run([sys.executable, "-m", "sagani_net.cli.main", "--version"],
                             capture_output=True, text=True, timeout=WAIT_S)
    assert version.returncode == 0 and version.stdout.startswith("sagani ")


def test_each_game_says_of_itself_what_its_rules_play() -> None:
    """The welcome and the command line read a game's ``about``; its engine plays the same."""
    for name in game_names():
        game, said = get_game(name), about(name)
        assert (said.name, said.title, said.options) == (game.name, game.title, game.options)
