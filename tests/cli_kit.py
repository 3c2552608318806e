"""The real ``sagani`` command for the command-line tests: run once, a host and its bots for a
block, and a console on an 80x24 pseudo-terminal read through just enough of a VT100."""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import termios
import time
from collections.abc import Iterator
from pathlib import Path

from test_net_support import RUN_SAGANI

RUN_TIMEOUT_S = 60


@contextlib.contextmanager
def a_terminal() -> Iterator[int]:
    """A pseudo-terminal's side for a command's standard input: a console command (play, join,
    replay) starts only on a terminal, and one run for its words alone needs one too."""
    terminal, keyboard = pty.openpty()
    try:
        yield keyboard
    finally:
        os.close(terminal)
        os.close(keyboard)


def tournament_table(out: str) -> list[str]:
    """The table ``sagani tournament`` printed, from its header on: the title above it, wrapped
    at 80 columns, ends with the time taken, which differs from run to run."""
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("strategy "))
    return lines[header:]


def sagani(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*RUN_SAGANI, *args], capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False
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
    host = subprocess.Popen(
        [*RUN_SAGANI, "host", "--port", "0", "--data-dir", str(data_dir), "--quiet", *host_args],
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
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        # A UTF-8 terminal unless the test says otherwise (a runner's LANG may be unset: C).
        env = {**os.environ, "TERM": "xterm", "NO_COLOR": "1", "LC_ALL": "C.UTF-8",
               **(env or {})}
        self.proc = subprocess.Popen(
            [*RUN_SAGANI, *args], stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True
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
        """Wait for the command to end, the screen holding all it drew: a frame comes in more
        than one read, so a test that saw its first line and pressed q had the rest unread."""
        try:
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline:
                ready, _, _ = select.select([self.master], [], [], deadline - time.monotonic())
                try:
                    data = os.read(self.master, 65536) if ready else b""
                except OSError:  # the child closed the terminal: everything is read
                    break
                if not data:
                    break
                self.screen.feed(data.decode("utf-8", "replace"))
            return self.proc.wait(timeout=15)
        finally:
            os.close(self.master)


@contextlib.contextmanager
def terminals() -> Iterator[list[Terminal]]:
    """A list to put a test's consoles in; those still running at its end are killed (a
    failed test leaves no console behind)."""
    consoles: list[Terminal] = []
    try:
        yield consoles
    finally:
        for console in consoles:
            if console.proc.poll() is None:
                console.proc.kill()
                console.proc.wait()
