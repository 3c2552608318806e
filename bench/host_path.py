"""Where one act's time goes in the host, in bench/net.py's latency run (b): prints numbers,
asserts nothing.

    python bench/host_path.py                 # 1,000 acts, about 10 s
    python bench/host_path.py --standby       # and the standby's side of each act (e)

The host is ``sagani host`` in its own process, as in bench/net.py, started with a timer
around each step of an act's path (this file, run as ``--child``, wraps them and then runs the
host's own ``main``). The acts are (b)'s: one 4-player table, one act at a time, a floor round
trip before each. Printed: the median wall time of each step per act and the host's CPU per
act (its loop's thread), with the floor and (b) of the same run, so that what an act costs in
the host can be set against what (b)'s target leaves for it (bench/net.py (a')). The timers
cost about a microsecond each, counted in.

Each act here comes after the host has waited a few milliseconds, as players' acts do: its
caches are cold, and the same steps take two to three times what bench/net.py (c)'s busy host
spends on them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import zmq

sys.path.insert(0, str(Path(__file__).resolve().parent))

import net  # noqa: E402

#: The host's steps (module, class or "-" for a function of the module, name) and their labels,
#: in the order an act meets them. An act's step of the loop is the one that ran ``_act``.
HOST_STEPS = (
    ("zmq", "Poller", "poll", "the wait (not counted in the step)"),
    ("sagani_net.recovery", "Recovery", "check", "look at the data files (stat)"),
    ("sagani_net.peers", "ConnectionGuard", "events", "the connections' news"),
    ("sagani_net.limits", "RateLimiter", "allow", "the peer's rate"),
    ("sagani_net.host", "Host", "_receive", "read the frames, the connection"),
    ("sagani_net.host", "-", "decode_request", "decode (msgpack, limits)"),
    ("sagani_net.host", "-", "check_request", "check the fields"),
    ("sagani_net.tables", "Tables", "_session", "the token's session (sha256)"),
    ("sagani_net.game", "Engine", "parse_action", "parse the action"),
    ("sagani_net.game", "Engine", "apply", "apply it (the rules)"),
    ("sagani_net.tables", "Tables", "_publish", "the update (view, seats, encoding)"),
    ("sagani_net.games.sagani.rules", "State", "view", "  of it, the view"),
    ("sagani_net.tables", "-", "encode", "encode the update and the reply"),
    ("sagani_net.store", "Store", "add_action", "store the action (SQLite insert)"),
    ("sagani_net.tables", "Tables", "_act", "the act in the tables, all told"),
    ("sagani_net.host", "Host", "_handle", "the request, all told"),
    ("sagani_net.standby", "ActiveLink", "send", "send the entries to the standby"),
    ("sagani_net.host", "Host", "_commit", "commit (SQLite, WAL)"),
    ("sagani_net.standby", "ActiveLink", "wait", "wait for the standby's ack"),
    ("sagani_net.host", "-", "_send", "send the update and the reply"),
    ("sagani_net.tables", "Tables", "expire", "bots' deadlines"),
    ("sagani_net.tables", "Tables", "start_clocks", "start the next decision's clock"),
    ("sagani_net.host", "Host", "guard", "guard the connections"),
)
#: The standby's steps for one batch of entries (its ``_receive``).
STANDBY_STEPS = (
    ("sagani_net.standby", "-", "_unpack", "decode the entries"),
    ("sagani_net.store", "Store", "replay", "write them (SQLite)"),
    ("sagani_net.store", "Store", "commit", "commit"),
    ("sagani_net.standby", "Standby", "_send", "send the ack"),
)
#: The call that holds one act's work: the host's loop step, the standby's receive.
TOP = {"host": ("sagani_net.host", "Host", "step"),
       "standby": ("sagani_net.standby", "Standby", "_receive")}
#: Acts left out at the start (the tables being made, the first game's first moves).
WARM_UP = 50


# -- the child: a host with timers -----------------------------------------------------------


def _owner(module: str, owner: str) -> Any:
    found = __import__(module, fromlist=["_"])
    return found if owner == "-" else getattr(found, owner)


def run_child(role: str, out: str, host_argv: list[str]) -> int:
    """Run ``sagani host`` with timers on :data:`HOST_STEPS` (or :data:`STANDBY_STEPS`); on
    exit, write each timed call's wall seconds (one JSON line of lists) to ``out``."""
    import json

    samples: list[dict[str, float]] = []
    now: dict[str, float] = {}
    depth = [0]
    top_name = TOP[role][2]

    def timed(owner: Any, name: str) -> None:
        inner = getattr(owner, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            outer = depth[0] == 0 and name == top_name
            if outer:
                now.clear()
                now["cpu"] = -time.thread_time()
            depth[0] += 1
            started, started_cpu = time.perf_counter(), time.thread_time()
            try:
                return inner(*args, **kwargs)
            finally:
                now[name] = now.get(name, 0.0) + time.perf_counter() - started
                now[f"{name} cpu"] = now.get(f"{name} cpu", 0.0) + time.thread_time() - started_cpu
                depth[0] -= 1
                if outer:
                    now["cpu"] += time.thread_time()
                    if role == "standby" or "_act" in now:
                        samples.append(dict(now))

        setattr(owner, name, call)

    steps = HOST_STEPS if role == "host" else STANDBY_STEPS
    for module, owner, name in (*(step[:3] for step in steps), TOP[role]):
        timed(_owner(module, owner), name)
    from sagani_net.cli.host_cmd import main

    try:
        return main(["host", *host_argv])
    finally:
        Path(out).write_text(json.dumps(samples[WARM_UP:]))


# -- the parent ------------------------------------------------------------------------------


def report(title: str, steps: tuple[tuple[str, str, str, str], ...], top: str,
           path: Path) -> None:
    import json

    samples = json.loads(path.read_text())
    if not samples:
        print(f"{title}: no act was timed")
        return

    def median_us(name: str) -> float:
        return statistics.median(s.get(name, 0.0) for s in samples) * 1e6

    print(f"{title} ({len(samples)} acts; median us per act: wall, CPU)")
    whole = statistics.median(s[top] - s.get("poll", 0.0) for s in samples) * 1e6
    for _, _, name, label in steps:
        if any(name in s for s in samples) and name != "poll":
            print(f"  {label:44} {median_us(name):7.0f} {median_us(name + ' cpu'):7.0f}")
    print(f"  {'the whole step, less its waits':44} {whole:7.0f} {median_us('cpu'):7.0f}")


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--child"]:
        return run_child(args[1], args[2], args[3:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=1000, help="acts timed")
    parser.add_argument("--standby", action="store_true", help="with a standby following")
    options = parser.parse_args(args)
    ctx = zmq.Context()
    echo = net.Echo(ctx)
    here = str(Path(__file__).resolve())
    with tempfile.TemporaryDirectory() as scratch:
        out = {role: Path(scratch, f"{role}.json") for role in TOP}

        def launcher(role: str) -> list[str]:
            Path(scratch, role).mkdir()  # its data dir
            return [sys.executable, here, "--child", role, str(out[role])]

        host, endpoint, code = net.start_host(str(Path(scratch, "host")), launcher=launcher("host"))
        procs = [host]
        try:
            if options.standby:
                procs.insert(0, net.start_host(str(Path(scratch, "standby")), standby_of=code,
                                               launcher=launcher("standby"))[0])
                net.wait_for_standby(ctx, endpoint)
            lat = net.measure_latency(ctx, endpoint, options.samples, echo)
        finally:
            for proc in procs:
                proc.terminate()
                proc.wait()
        echo.stop()
        print(f"bench/host_path.py: {options.samples} acts of bench/net.py (b)"
              f"{' with a standby following' if options.standby else ''}; load average "
              f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        floor, to_all = lat["floor"][0], lat["to_all"][0]
        print(f"floor p50 {floor:.0f} us; act -> all 4 updated p50 {to_all:.0f} us "
              f"({to_all / floor:.2f}x); act -> reply p50 {lat['to_reply'][0]:.0f} us")
        report("the host, for one act", HOST_STEPS, "step", out["host"])
        if options.standby:
            report("the standby, for one act's entries", STANDBY_STEPS, "_receive",
                   out["standby"])
    ctx.term()
    return 0


if __name__ == "__main__":
    sys.exit(main())
