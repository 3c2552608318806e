"""Load on loopback: many tables of 4 bot clients at once against one host. Prints figures,
asserts nothing about time.

    python bench/load.py                         # 100 tables x 4 bots, 4 processes
    python bench/load.py --tables 20 --workers 2 # a quick look

The host is ``sagani host`` in its own process with a fresh data dir (SQLite WAL, every action
committed before its reply). Each worker process runs its share of the tables, all four bots of
a table on one asyncio loop, each bot an ordinary :class:`sagani_net.client.AsyncClient` with
its own sockets, choosing random legal actions from its view (``State.from_view``) as any
network bot would. Reported:

- whether every game finished, and errors of any kind (refusals other than the expected races,
  timeouts, resyncs);
- lost or doubled actions: each bot logs the actions the host accepted from it; their union
  must be exactly the actions in each table's record, once each, at their versions;
- act -> update latency: from a bot sending ``act`` to each of the other three bots of the
  table receiving the broadcast of that version, p50 / p99 / max; and act -> reply;
- the host's memory: resident set before the tables and at its peak, per table.

Targets (issue 6): no errors, p99 under 50 ms, under 1 MiB per table.

By default each bot pauses ``--think-ms`` (uniform 0.5x..1.5x) before acting, as people and
search bots do; ``--think-ms 0`` makes every bot act the instant it may, which measures how the
queue grows when the machine (host and all 400 bot clients share its cores) is saturated.
The bot processes run without Python's cycle collector (``--bot-gc`` keeps it): with a hundred
replicas per process its pauses reach 100 ms and would be counted as the host's latency.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import multiprocessing
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sagani_net.client import AsyncClient, HostError, HostTimeout  # noqa: E402
from sagani_net.games import get_game  # noqa: E402
from sagani_net.games.sagani.rules import State  # noqa: E402
from sagani_net.protocol import VERSION, decode_message, encode  # noqa: E402

PLAYERS = 4
#: Refusals that are part of normal play: another seat moved first, or the copy was behind.
RACES = ("stale_version", "not_your_turn")


def start_host(data_dir: str, cpus: set[int] | None = None) -> tuple[subprocess.Popen[str], str]:
    def pin() -> None:
        if cpus:
            os.sched_setaffinity(0, cpus)

    proc = subprocess.Popen(
        # Every bot of the run connects from this one machine.
        # (--client-seeds: the bots mirror each table from the seed they chose)
        [sys.executable, "-m", "sagani_net.cli.main", "host", "--quiet", "--port", "0",
         "--client-seeds", "--data-dir", data_dir, "--connections-per-address", "100000"],
        cwd=ROOT, stdout=subprocess.PIPE, text=True, preexec_fn=pin,
    )
    assert proc.stdout is not None
    found = re.search(r"requests (\S+) broadcasts", proc.stdout.readline())
    assert found, "the host did not start"
    return proc, found[1]


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def request(endpoint: str, kind: str, **fields: Any) -> dict[str, Any]:
    import zmq

    sock = zmq.Context.instance().socket(zmq.REQ)
    sock.linger, sock.rcvtimeo = 0, 10_000
    sock.connect(endpoint)
    try:
        sock.send(encode({"v": VERSION, "type": kind, "id": 1, **fields}))
        return decode_message(sock.recv())
    finally:
        sock.close()


# -- the worker processes ---------------------------------------------------------------------


class TableClock:
    """When each version of one table was asked for (the act that made it was sent)."""

    def __init__(self) -> None:
        self.sent_s: dict[int, float] = {}


async def bot(endpoint: str, table: str, seed: int, clock: TableClock, out: dict[str, Any],
              deadline_s: float, think_s: float) -> None:
    client = AsyncClient(endpoint, timeout_s=5.0, retries=3)
    rng = random.Random(seed)
    mine: set[int] = set()  # versions this bot made: their updates reach it through act()
    try:
        replica = await client.join(table, role="bot", name=f"bot{seed}")
        while replica.status != "over" and time.monotonic() < deadline_s:
            if replica.my_turn:
                version = replica.version
                action = State.from_view(replica.view, rng).random_action(rng).to_dict()
                if think_s:
                    await asyncio.sleep(rng.uniform(0.5, 1.5) * think_s)
                sent_s = time.monotonic()
                clock.sent_s[version + 1] = sent_s
                mine.add(version + 1)
                try:
                    await client.act(action)
                except HostError as exc:
                    out["refused"][exc.code] = out["refused"].get(exc.code, 0) + 1
                    continue
                out["reply_s"].append((sent_s, time.monotonic() - sent_s))
                out["accepted"].append((table, version, replica.you, action))
                continue
            update = await client.next_update(max(0.0, deadline_s - time.monotonic()))
            if update is None:
                continue
            if update["type"] == "update" and update["version"] not in mine:
                sent_s = clock.sent_s.get(update["version"])
                if sent_s is not None:
                    out["update_s"].append((sent_s, time.monotonic() - sent_s))
            elif update["type"] == "snapshot":
                out["resyncs"] += 1
        out["finished"] += replica.status == "over"
    except (HostError, HostTimeout) as exc:
        out["failures"].append(f"{table}: {exc}")
    finally:
        client.close()


async def worker_main(endpoint: str, tables: list[str], seed: int, deadline_s: float,
                      think_s: float) -> dict[str, Any]:
    out: dict[str, Any] = {"accepted": [], "reply_s": [], "update_s": [], "refused": {},
                           "resyncs": 0, "finished": 0, "failures": []}
    bots = []
    for t, table in enumerate(tables):
        clock = TableClock()
        bots += [bot(endpoint, table, seed * 1000 + t * 10 + i, clock, out, deadline_s, think_s)
                 for i in range(PLAYERS)]
    await asyncio.gather(*bots)
    return out


def worker(
    args: tuple[str, list[str], int, float, float, set[int] | None, bool],
) -> dict[str, Any]:
    *share, cpus, bot_gc = args
    if cpus:
        os.sched_setaffinity(0, cpus)
    if not bot_gc:
        # A hundred replicas in one process make Python's cycle collector stop it for tens of
        # milliseconds at a time; those pauses belong to the load generator, not to the host.
        gc.disable()
    started_s = time.process_time()
    out = asyncio.run(worker_main(*share))
    out["cpu_s"] = time.process_time() - started_s
    return out


# -- the run ------------------------------------------------------------------------------------


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def check_records(endpoint: str, tables: list[str], accepted: list[tuple]) -> list[str]:
    """Problems found comparing what the bots saw accepted with the host's records."""
    by_table: dict[str, list[tuple[int, int, dict[str, Any]]]] = {t: [] for t in tables}
    for table, version, seat, action in accepted:
        by_table[table].append((version, seat, action))
    problems = []
    for table in tables:
        reply = request(endpoint, "record", table=table)
        if reply["type"] != "record":
            problems.append(f"{table}: no record ({reply.get('code')})")
            continue
        actions = reply["record"]["actions"]
        seen = sorted(version for version, _, _ in by_table[table])
        if seen != list(range(len(actions))):
            lost = sorted(set(range(len(actions))) - set(seen))
            doubled = sorted({v for v in seen if seen.count(v) > 1})
            problems.append(f"{table}: lost versions {lost[:5]}, doubled {doubled[:5]}")
        for version, seat, action in by_table[table]:
            if version < len(actions) and actions[version] != {"seat": seat, **action}:
                problems.append(f"{table}: version {version} differs from the record")
        replayed = get_game("sagani").from_record(reply["record"])
        if replayed.ranking() != reply["record"]["result"]["ranking"]:
            problems.append(f"{table}: replay gives another result")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--workers", type=int, default=4, help="bot processes")
    parser.add_argument("--time-limit-s", type=float, default=240.0,
                        help="the bots stop here, finished or not")
    parser.add_argument("--bot-gc", action="store_true",
                        help="keep Python's cycle collector on in the bot processes (its pauses "
                        "then show in the latency)")
    parser.add_argument("--pin", action="store_true",
                        help="give the host a core of its own and the bots the others")
    parser.add_argument("--warmup-s", type=float, default=5.0,
                        help="latency figures are also given without the first seconds")
    parser.add_argument("--think-ms", type=float, default=200.0,
                        help="a bot's mean pause before it acts, like a person or a search bot "
                        "(0: act at once, a stress test that measures queueing)")
    args = parser.parse_args(argv)

    cores = sorted(os.sched_getaffinity(0))
    host_cpus = bot_cpus = None
    if args.pin and len(cores) >= 2:
        host_cpus, bot_cpus = {cores[0]}, set(cores[1:])
    with tempfile.TemporaryDirectory(prefix="sagani-load-") as data_dir:
        host, endpoint = start_host(data_dir, host_cpus)
        try:
            request(endpoint, "hello")
            base_rss = rss_bytes(host.pid)
            tables = [request(endpoint, "create", game="sagani", config={"players": PLAYERS},
                              seed=1000 + i)["table"] for i in range(args.tables)]
            peak = [base_rss]
            done = threading.Event()

            def sample() -> None:
                while not done.wait(0.1):
                    peak[0] = max(peak[0], rss_bytes(host.pid))

            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()
            started_s = time.monotonic()
            deadline_s = started_s + args.time_limit_s
            shares = [(endpoint, tables[w :: args.workers], w, deadline_s, args.think_ms / 1000,
                       bot_cpus, args.bot_gc) for w in range(args.workers)]
            with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
                results = pool.map(worker, shares)
            elapsed_s = time.monotonic() - started_s
            done.set()
            sampler.join()
            end_rss = rss_bytes(host.pid)
            host_cpu_s = cpu_seconds(host.pid)
            accepted = [a for r in results for a in r["accepted"]]
            problems = check_records(endpoint, tables, accepted)
        finally:
            host.terminate()
            host.wait()

    finished = sum(r["finished"] for r in results) // PLAYERS
    refused: dict[str, int] = {}
    for r in results:
        for code, n in r["refused"].items():
            refused[code] = refused.get(code, 0) + n
    errors = {code: n for code, n in refused.items() if code not in RACES}
    failures = [f for r in results for f in r["failures"]]
    update_s = [s for r in results for s in r["update_s"]]
    reply_s = [s for r in results for s in r["reply_s"]]
    bots_cpu_s = sum(r["cpu_s"] for r in results)
    # Steady state: leave out the first seconds, while 400 bots start, join and subscribe.
    steady_s = started_s + args.warmup_s
    resyncs = sum(r["resyncs"] for r in results)
    mib = 1024 * 1024

    print(f"load: {args.tables} tables x {PLAYERS} bots in {args.workers} processes, "
          f"one host, loopback, think {args.think_ms:.0f} ms; {elapsed_s:.1f} s on "
          f"{len(cores)} cores" + (f", host pinned to core {cores[0]}" if host_cpus else "")
          + ("" if args.bot_gc else ", bots without cycle GC"))
    print(f"machine load average     {os.getloadavg()[1]:.1f} over the last 5 min (other "
          "work on the machine shows here)")
    print(f"CPU                      host {host_cpu_s:.1f} s ({host_cpu_s / elapsed_s:.0%} of a "
          f"core), bot processes {bots_cpu_s:.1f} s ({bots_cpu_s / elapsed_s:.0%} of a core)")
    print(f"games finished           {finished} / {args.tables}")
    print(f"accepted actions         {len(accepted)} ({len(accepted) / elapsed_s:.0f} per s)")
    print(f"lost or doubled          {len(problems)} problems"
          + "".join(f"\n  {p}" for p in problems[:10]))
    print(f"errors                   {sum(errors.values())} {errors or ''}; failures "
          f"{len(failures)}; races refused {sum(refused.get(c, 0) for c in RACES)}; "
          f"resyncs {resyncs}")
    for name, timed in (("act -> update (others)", update_s), ("act -> reply", reply_s)):
        for part, samples in (("whole run", [lat for _, lat in timed]),
                              (f"after {args.warmup_s:.0f} s",
                               [lat for at, lat in timed if at >= steady_s])):
            print(f"{name:24s} {part:12s} p50 {percentile(samples, 0.5) * 1000:6.2f} ms   "
                  f"p99 {percentile(samples, 0.99) * 1000:6.2f} ms   "
                  f"max {max(samples, default=float('nan')) * 1000:6.1f} ms   "
                  f"({len(samples)} samples)")
    print(f"host RSS                 {base_rss / mib:.1f} MiB before, peak {peak[0] / mib:.1f} "
          f"MiB, end {end_rss / mib:.1f} MiB")
    print(f"host memory per table    {(peak[0] - base_rss) / args.tables / 1024:.0f} KiB "
          "(peak - before) / tables")
    if failures:
        print("failures:", *failures[:10], sep="\n  ")
    return 0


if __name__ == "__main__":
    sys.exit(main())
