"""The installed ``sagani`` command, end to end, in subprocesses (a pseudo-terminal for the
console). Everything stays on 127.0.0.1 and in a temporary data dir."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pty
import re
import select
import shutil
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_net_support import RUN_SAGANI

from sagani_net.store import Store

SAGANI = shutil.which("sagani")
pytestmark = pytest.mark.skipif(SAGANI is None, reason="the sagani command is not installed")
RUN_TIMEOUT_S = 60


def sagani(*args: str) -> subprocess.CompletedProcess[str]:
    assert SAGANI is not None
    return subprocess.run(
        [SAGANI, *args], capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False
    )


class Screen:
    """Just enough of a VT100 to read what prompt_toolkit draws (it moves the cursor over
    unchanged characters, so the raw stream cannot simply be searched)."""

    CSI = re.compile(r"\x1b\[([0-9;?]*)([A-Za-z])|\x1b\][^\x07]*\x07|\x1b[=>78]|\x1b\(B")

    def __init__(self, rows: int = 24, columns: int = 80) -> None:
        self.rows, self.columns = rows, columns
        self.cells = [[" "] * columns for _ in range(rows)]
        self.row = self.col = 0

    def feed(self, data: str) -> None:
        pos = 0
        while pos < len(data):
            match = self.CSI.match(data, pos)
            if match:
                if match.group(2):
                    self._csi(match.group(1), match.group(2))
                pos = match.end()
                continue
            ch = data[pos]
            pos += 1
            if ch == "\r":
                self.col = 0
            elif ch == "\n":
                self.row = min(self.rows - 1, self.row + 1)
            elif ch == "\b":
                self.col = max(0, self.col - 1)
            elif ch >= " ":
                if self.col < self.columns:
                    self.cells[self.row][self.col] = ch
                self.col += 1

    def _csi(self, params: str, final: str) -> None:
        numbers = [int(p) if p.isdigit() else 0 for p in params.lstrip("?").split(";")]
        n = max(1, numbers[0])
        if final == "A":
            self.row = max(0, self.row - n)
        elif final == "B":
            self.row = min(self.rows - 1, self.row + n)
        elif final == "C":
            self.col = min(self.columns - 1, self.col + n)
        elif final == "D":
            self.col = max(0, self.col - n)
        elif final == "G":
            self.col = n - 1
        elif final in "Hf" and not params.startswith("?"):
            self.row = max(1, numbers[0]) - 1
            self.col = (max(1, numbers[1]) if len(numbers) > 1 else 1) - 1
        elif final == "K":
            start = 0 if numbers[0] == 2 else self.col
            end = self.col + 1 if numbers[0] == 1 else self.columns
            self.cells[self.row][start:end] = [" "] * (end - start)
        elif final == "J":
            rows = range(self.rows) if numbers[0] == 2 else range(self.row + 1, self.rows)
            for r in rows:
                self.cells[r] = [" "] * self.columns
            if numbers[0] != 2:
                self.cells[self.row][self.col :] = [" "] * (self.columns - self.col)

    def text(self) -> str:
        return "\n".join("".join(row).rstrip() for row in self.cells)


@contextlib.contextmanager
def lan_party(data_dir: Path, *host_args: str) -> Iterator[tuple[subprocess.Popen[str], list]]:
    """The real ``sagani host`` on a free port for the block, and a list for the bot processes
    the block starts; all of them stopped at the end, however it ends."""
    assert SAGANI is not None
    host = subprocess.Popen(
        [SAGANI, "host", "--port", "0", "--data-dir", str(data_dir), "--quiet", *host_args],
        stdout=subprocess.PIPE, text=True,
    )
    bots: list[subprocess.Popen[bytes]] = []
    try:
        yield host, bots
    finally:
        for proc in [*bots, host]:
            proc.terminate()
            proc.wait(timeout=10)


class Terminal:
    """A command on an 80x24 pseudo-terminal: send keys, wait for text on the screen."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        assert SAGANI is not None
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        env = {**os.environ, "TERM": "xterm", "NO_COLOR": "1", **(env or {})}
        self.proc = subprocess.Popen(
            [SAGANI, *args], stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True
        )
        os.close(slave)
        self.screen = Screen()

    def wait_for(self, text: str, timeout_s: float = 20) -> None:
        deadline = time.monotonic() + timeout_s
        while text not in self.screen.text():
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{text!r} never showed; the screen:\n{self.screen.text()}")
            ready, _, _ = select.select([self.master], [], [], min(left, 0.1))
            if ready:
                try:
                    self.screen.feed(os.read(self.master, 65536).decode("utf-8", "replace"))
                except OSError:  # the child closed the terminal
                    break
        assert text in self.screen.text()

    def send(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def close(self) -> int:
        try:
            return self.proc.wait(timeout=15)
        finally:
            os.close(self.master)


def test_selfplay_then_replay_prints_the_final_screen(tmp_path: Path) -> None:
    done = sagani("selfplay", "--games", "1", "--seed", "4", "--records", str(tmp_path))
    assert done.returncode == 0, done.stderr
    (record,) = tmp_path.glob("*.json")
    shown = sagani("replay", str(record), "--print")
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    # At the terminal's width (none here: 120 columns), no key hints, the ranking last.
    assert all(len(line) <= 120 for line in lines)
    assert "game over" in lines[0] and "Game over" in shown.stdout
    assert "q quit" not in shown.stdout and not lines[-1].startswith(">")
    assert lines[-1].endswith("wins.")
    wide = subprocess.run([SAGANI, "replay", str(record), "--print"], capture_output=True,
                          text=True, env={**os.environ, "COLUMNS": "80", "LINES": "24"})
    assert all(len(line) <= 80 for line in wide.stdout.splitlines())


def test_play_autoplay_runs_host_and_bots_to_the_end(tmp_path: Path) -> None:
    # mcts thinks in a worker process; a short --think keeps the game quick.
    done = sagani("play", "--autoplay", "greedy", "--players", "3", "--bots", "mcts,random",
                  "--think", "0.02", "--seed", "8", "--new",
                  "--data-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert ": over" in done.stdout
    assert len([line for line in done.stdout.splitlines() if "points" in line]) == 3
    assert not (tmp_path / "play.json").exists()  # a finished game leaves nothing to resume
    path = done.stdout.split("record: ")[1].strip()
    record = json.loads(Path(path).read_text())
    assert record["game"] == "sagani" and len(record["names"]) == 3  # who played


def test_play_in_a_terminal_quits_cleanly_and_resumes(tmp_path: Path) -> None:
    term = Terminal("play", "--seed", "3", "--new", "--name", "ann", "--data-dir", str(tmp_path))
    term.wait_for("YOUR TURN")
    term.send("1")
    term.wait_for("Enter place")
    term.send("\r")
    term.wait_for("(1 tile,")
    term.send("q")
    term.wait_for("`sagani play` resumes it")  # quitting says how to come back
    assert term.close() == 0
    term = Terminal("play", "--data-dir", str(tmp_path))
    term.wait_for("Resume it?")
    term.send("y\r")
    term.wait_for("(1 tile,")
    term.wait_for("ann placed")  # the log starts with the game so far
    term.send("q")
    assert term.close() == 0
    # --new sets the unfinished game aside, where no host loads it at every start.
    done = sagani("play", "--new", "--autoplay", "greedy", "--data-dir", str(tmp_path))
    assert done.returncode == 0 and "the unfinished game is set aside in" in done.stdout
    (aside,) = (tmp_path / "abandoned").iterdir()
    assert Store(aside).unfinished() and not Store(tmp_path).unfinished()


def test_unknown_bot_kind_is_refused_with_a_sentence(tmp_path: Path) -> None:
    done = sagani("play", "--bots", "clever", "--data-dir", str(tmp_path))
    assert done.returncode == 2
    assert "unknown bot kinds 'clever'; known: greedy, random, mcts" in done.stderr


def test_help_lists_the_console_commands() -> None:
    done = subprocess.run([*RUN_SAGANI, "--help"], capture_output=True,
                          text=True, check=True)
    for command in ("play", "join", "replay"):
        assert command in done.stdout


def test_sagani_alone_prints_the_help_and_there_is_a_version() -> None:
    alone = sagani()
    assert alone.returncode == 0 and "play" in alone.stdout and not alone.stderr
    version = sagani("--version")
    assert version.returncode == 0 and version.stdout.startswith("sagani ")


@pytest.mark.parametrize("command", ["play", "join", "replay", "host", "bot", "tournament",
                                     "selfplay"])
def test_every_subcommand_has_a_description(command: str) -> None:
    done = sagani(command, "--help")
    assert done.returncode == 0
    usage, description = done.stdout.split("\n\n")[:2]
    assert not description.lstrip().startswith(("positional", "options")), done.stdout
    assert "%%" not in done.stdout


def test_selfplay_help_names_every_policy_and_counts_seats_from_1(tmp_path: Path) -> None:
    assert "mcts" in sagani("selfplay", "--help").stdout
    done = sagani("selfplay", "--games", "1", "--policy", "greedy,random")
    assert "seat 1 " in done.stdout and "seat 2 " in done.stdout and " seat 0" not in done.stdout


def test_host_join_and_bot_play_over_the_network(tmp_path: Path) -> None:
    """Three commands, as at a LAN party but on 127.0.0.1: a host, a person, a bot."""
    assert SAGANI is not None
    with lan_party(tmp_path / "host") as (host, bots):
        assert host.stdout is not None
        line = host.stdout.readline()  # "sagani host: requests tcp://127.0.0.1:PORT ..."
        address = line.split()[3]
        # The console keeps its seat tokens in the user data dir: keep them in tmp_path.
        home = {"XDG_DATA_HOME": str(tmp_path / "data")}
        person = Terminal("join", address, "--players", "2", "--bots", "1", "--name", "ann",
                          env=home)
        person.wait_for("waiting for players (1/2 seated)")
        table = re.search(r"table ([0-9a-f]+)", person.screen.text())
        assert table is not None
        lobby = sagani("tables", address)  # the lobby names each table's game
        assert lobby.returncode == 0
        assert f"{table.group(1)}  sagani   open" in lobby.stdout and "1:ann" in lobby.stdout
        bots.append(subprocess.Popen([SAGANI, "bot", address, "--table", table.group(1),
                                      "--quiet"]))
        person.wait_for("YOUR TURN")
        person.send("1")
        person.wait_for("Enter place")
        person.send("\r")
        person.wait_for("ann placed")
        person.wait_for("YOUR TURN")  # the bot answered over the network
        person.send("q")
        assert person.close() == 0
        assert (tmp_path / "data" / "sagani" / "join.json").exists()


def test_a_secure_host_prints_its_join_code_whole_and_quoted(tmp_path: Path) -> None:
    assert SAGANI is not None
    host = subprocess.Popen([SAGANI, "host", "--secure", "--print-join-code", "--port", "0",
                             "--data-dir", str(tmp_path), "--quiet"],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert host.stdout is not None
        first = host.stdout.readline().strip()
        assert first.startswith("'sagani://") and first.endswith("'") and "?key=" in first
    finally:
        host.terminate()
        host.wait(timeout=10)


def test_record_export_says_where_it_looked(tmp_path: Path) -> None:
    done = subprocess.run([SAGANI, "record", "export", "nosuch"], capture_output=True, text=True,
                          env={**os.environ, "XDG_DATA_HOME": str(tmp_path)})
    assert done.returncode == 2
    assert str(tmp_path / "sagani") in done.stderr and str(tmp_path / "sagani" / "play") in (
        done.stderr)


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["plya"]])
def test_the_command_line_answers_without_importing_the_console_the_host_or_zmq(
    argv: list[str],
) -> None:
    """Issue 21 point 1: ``sagani --version`` took half a second building every subcommand's
    parser (the console, the host, zmq, prompt_toolkit). Only the command named is built."""
    probe = ("import sys\nfrom sagani_net.cli.main import main\ncode = main(sys.argv[1:])\n"
             "heavy = [m for m in ('zmq', 'prompt_toolkit', 'sqlite3', 'sagani_net.host', "
             "'sagani_net.cli.console.app') if m in sys.modules]\n"
             "print('HEAVY', heavy, file=sys.stderr)\nsys.exit(code)")
    done = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True,
                          timeout=60)
    assert "HEAVY []" in done.stderr, done.stderr
    assert done.returncode == (2 if argv == ["plya"] else 0)
