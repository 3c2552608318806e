"""The host's CPU per accepted action, this checkout against another one, in one run.

    git worktree add --detach ../base 5091005      # the checkout to compare with
    python bench/host_ab.py ../base [--rounds 6]

Each round starts a host of each checkout in turn (a fresh data dir each, the order swapped
every round so that the machine's load falls on both alike) and runs bench/net.py's
throughput part (c) against it: 50 tables of 4 fast bots, 4 subscribers per table. Prints,
per checkout, the median host CPU per accepted action (user + system, read from /proc: the
host's own threads, libzmq's I/O thread included) and accepted actions per second, and their
ratio. Asserts nothing.

A checkout is run as it is, whatever its layout: its ``sagani_net`` first on the path, and its
``protocol/`` and ``cli/`` folders (top-level packages before issue 22, ``sagani_net.protocol``
and ``sagani_net.cli`` after) found beside it, not this checkout's installed ones.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import zmq

sys.path.insert(0, str(Path(__file__).resolve().parent))
from net import cpu_s, measure_throughput  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

#: Runs ``sagani host`` of the checkout at sys.argv[1] (argv after it): its own folders only.
LAUNCHER = """
import runpy, sys
root = sys.argv.pop(1)
sys.path.insert(0, root)
import sagani_net
sagani_net.__path__.append(sys.argv.pop(1))  # protocol/ and cli/ as sagani_net's, if mapped
sys.argv[0] = "sagani"
runpy.run_module("sagani_net.cli.main" if sys.argv.pop(1) == "new" else "cli.main",
                 run_name="__main__")
"""


def start_host(checkout: Path, links: Path, data_dir: str) -> tuple[subprocess.Popen[str], str]:
    """``sagani host`` of ``checkout`` on a free 127.0.0.1 port; returns it and its endpoint."""
    layout = "new" if "sagani_net.cli" in (checkout / "pyproject.toml").read_text() else "old"
    argv = [sys.executable, "-c", LAUNCHER, str(checkout), str(links), layout, "host",
            "--quiet", "--port", "0", "--client-seeds", "--data-dir", data_dir,
            "--heartbeat-s", "0.2"]
    proc = subprocess.Popen(argv, cwd=checkout, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("\n")  # no standby code
    proc.stdin.close()
    found = re.search(r"requests (\S+) broadcasts", proc.stdout.readline())
    assert found, f"the host of {checkout} did not start"
    return proc, found[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("other", type=Path, help="the checkout to compare this one with")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--tables", type=int, default=50)
    args = parser.parse_args(argv)
    checkouts = {"this": ROOT, "other": args.other.resolve()}
    figures: dict[str, list[tuple[float, float]]] = {name: [] for name in checkouts}
    ctx = zmq.Context()
    with tempfile.TemporaryDirectory() as scratch:
        links = {}
        for name, checkout in checkouts.items():
            links[name] = Path(scratch) / f"links-{name}"
            links[name].mkdir()
            for folder in ("protocol", "cli"):
                (links[name] / folder).symlink_to(checkout / folder)
        for round_ in range(args.rounds):
            order = list(checkouts) if round_ % 2 == 0 else list(reversed(checkouts))
            for name in order:
                with tempfile.TemporaryDirectory() as data_dir:
                    host, endpoint = start_host(checkouts[name], links[name], data_dir)
                    try:
                        before_s = cpu_s(host.pid)
                        accepted, elapsed_s = measure_throughput(ctx, endpoint, args.tables, 4)
                        used_s = cpu_s(host.pid) - before_s
                    finally:
                        host.terminate()
                        host.wait()
                figures[name].append((used_s / accepted * 1e6, accepted / elapsed_s))
    ctx.term()
    print(f"host CPU per accepted action, {args.rounds} rounds of {args.tables} tables x 4 bots "
          f"(load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs)")
    medians = {}
    for name, checkout in checkouts.items():
        cpu_us = statistics.median(f[0] for f in figures[name])
        rate = statistics.median(f[1] for f in figures[name])
        medians[name] = cpu_us
        print(f"  {name:5} {cpu_us:6.0f} us/action, {rate:7,.0f} actions/s  ({checkout}; "
              f"rounds {', '.join(f'{f[0]:.0f}' for f in figures[name])})")
    print(f"  this / other: x{medians['this'] / medians['other']:.2f} of the CPU per action")
    return 0


if __name__ == "__main__":
    sys.exit(main())
