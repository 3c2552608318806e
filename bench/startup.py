"""Start-up of the ``sagani`` command as whole processes, side by side in one run.

Run: ``python bench/startup.py [--runs N] [--venv DIR]``. Each round starts, in turn: ``python
-c pass`` (the floor), ``sagani --version``, ``sagani --help``, ``sagani play`` in a
pseudo-terminal of 80x24 until its first screen is drawn (the key help line), and ``sagani
host`` on 127.0.0.1 until it answers a ``hello``. Prints medians over the rounds and each
against its target (issue 21 point 1): ``--version`` and ``--help`` within 3x the floor, the
first screen within 0.4 s, ``hello`` answered within 0.5 s. Rounds interleave the commands, so
that a shared machine's load falls on all of them alike. Asserts nothing.

Everything runs as people get it: the ``sagani`` command and the ``python`` of a virtual
environment with this checkout's wheel installed (:mod:`wheel_env`), not this environment,
whose editable install slows ``python -c pass`` as much as the rest and so flatters every
ratio. ``--venv DIR`` keeps that environment in DIR and reuses it.
"""

from __future__ import annotations

import argparse
import os
import pty
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import zmq
from wheel_env import installed

from sagani_net.protocol import VERSION, decode_message, encode

#: The ``sagani`` command measured (main sets it: the wheel's, in its environment).
SAGANI: list[str] = []
#: Drawn on the last line of every first screen of ``sagani play``.
FIRST_SCREEN = b"? help"
WAIT_S = 30.0


def run_to_exit(argv: list[str]) -> float:
    """Seconds from the start of ``argv`` to its exit, waited for in a blocking ``waitpid``.

    Not ``subprocess.run(timeout=...)``: with a timeout, CPython's ``Popen.wait`` polls with
    sleeps that double from 1 ms, so it sees an exit only at 1, 3, 7, 15, 31, 63 ms... (a
    34 ms ``sagani --version`` read as 64 ms). A timer kills a child that hangs instead."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    watchdog = threading.Timer(WAIT_S, proc.kill)
    watchdog.start()
    try:
        code = proc.wait()
    finally:
        watchdog.cancel()
    elapsed = time.perf_counter() - started
    if code:
        raise subprocess.CalledProcessError(code, argv)
    return elapsed


def play_to_first_screen(home: Path) -> float:
    """Seconds from the fork to the first screen of ``sagani play`` in an 80x24 terminal."""
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "80", "LINES": "24",
           "HOME": str(home), "XDG_DATA_HOME": str(home / "data"),
           "XDG_CONFIG_HOME": str(home / "config"), "XDG_STATE_HOME": str(home / "state")}
    started = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: the console, on the terminal's slave side
        os.execvpe(SAGANI[0], SAGANI + ["play"], env)
    seen = b""
    try:
        deadline = started + WAIT_S
        while FIRST_SCREEN not in seen:
            if time.perf_counter() > deadline:
                raise TimeoutError("sagani play drew no first screen")
            if select.select([fd], [], [], 0.5)[0]:
                seen = seen[-256:] + os.read(fd, 65536)
        return time.perf_counter() - started
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)


def host_to_hello(data_dir: Path) -> float:
    """Seconds from the start of ``sagani host`` to its answer to a ``hello``."""
    started = time.perf_counter()
    host = subprocess.Popen([*SAGANI, "host", "--quiet", "--port", "0", "--data-dir",
                             str(data_dir)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)
    assert host.stdout is not None
    req = zmq.Context.instance().socket(zmq.REQ)
    req.linger = 0
    try:
        for line in host.stdout:
            if line.startswith("sagani host: requests "):
                req.connect(line.split()[3])
                break
        else:
            raise RuntimeError("sagani host said no address")
        req.send(encode({"v": VERSION, "type": "hello", "id": 1}))
        if not req.poll(WAIT_S * 1000):
            raise TimeoutError("no answer to hello")
        assert decode_message(req.recv())["type"] == "welcome"
        return time.perf_counter() - started
    finally:
        req.close()
        host.kill()
        host.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="rounds (default 10)")
    parser.add_argument("--venv", type=Path, default=None,
                        help="make (or reuse) the wheel's environment here (default: a "
                        "scratch folder)")
    args = parser.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="sagani-startup-"))
    sagani = installed(args.venv or scratch / "venv")
    SAGANI[:] = [str(sagani)]
    python = str(sagani.with_name("python"))
    steps: dict[str, Callable[[int], float]] = {
        "python -c pass": lambda i: run_to_exit([python, "-c", "pass"]),
        "sagani --version": lambda i: run_to_exit([*SAGANI, "--version"]),
        "sagani --help": lambda i: run_to_exit([*SAGANI, "--help"]),
        "sagani play, first screen": lambda i: play_to_first_screen(scratch / f"home{i}"),
        "sagani host, hello answered": lambda i: host_to_hello(scratch / f"host{i}"),
    }
    times: dict[str, list[float]] = {name: [] for name in steps}
    try:
        for step in steps.values():  # one round, untimed: the files in the cache
            step(-1)
        for i in range(args.runs):
            for name, step in steps.items():
                times[name].append(step(i))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    median = {name: statistics.median(values) for name, values in times.items()}
    floor = median["python -c pass"]
    print(f"sagani start-up, {args.runs} rounds, medians (load average "
          f"{os.getloadavg()[0]:.2f}; {sagani}, this checkout's wheel):")
    targets = {"sagani --version": 3 * floor, "sagani --help": 3 * floor,
               "sagani play, first screen": 0.4, "sagani host, hello answered": 0.5}
    print(f"  {'python -c pass':30} {floor * 1000:7.0f} ms  (the floor)")
    for name, limit in targets.items():
        seconds = median[name]
        print(f"  {name:30} {seconds * 1000:7.0f} ms  {seconds / floor:5.1f}x floor; "
              f"{seconds / limit:.2f} of the target ({'within' if seconds <= limit else 'OVER'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
