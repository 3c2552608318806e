"""An honest player's `sync` while a peer sends costly Sagrada pattern configs (issue 18, point
2): prints figures, asserts nothing.

    python bench/patterns.py                  # about 15 s
    python bench/patterns.py --samples 200 --seconds 4

The host is ``sagani host`` in its own process. First the honest player's round trips alone,
then the same while an attacker process sends, as fast as its rate allows (16 requests in
flight), issue 18's frames in turn, each with new names so that no cache knows them: the
261-byte `static` of 3 copies of a grid a backtracking search took a second to complete, a
`static` of 600 copies, a `create` of 49 (one over the limit) and a `static` of 48 (a good
list, the most a table takes). Before the fix an honest `sync` waited 3.1-9.3 s.
Then the host's resident memory before and after ``--lists`` `static` requests, each with a
new list of 48 patterns (before the fix, 40 new lists of 560 added 36 MiB for good).
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import zmq

sys.path.insert(0, str(Path(__file__).resolve().parent))
from net import Requester, cpu_s, percentiles, start_host  # noqa: E402

from sagani_net.protocol import VERSION, decode_message, encode  # noqa: E402

COSTLY = [["", "", "", "", ""], ["R", "1", "Y", "", "R"], ["", "Y", "2", "R", ""],
          ["", "", "Y", "3", "1"]]
IN_FLIGHT = 16
PACE_S = 0.005


def attack_frame(n: int) -> bytes:
    """The ``n % 4``th of issue 18's four frames, named anew by ``n``."""

    def config(count: int, players: int = 2) -> dict[str, Any]:
        patterns = [{"name": f"{n}.{i}", "difficulty": 4, "grid": COSTLY} for i in range(count)]
        return {"players": players, "pattern_set": "custom", "patterns": patterns}

    def frame(kind: str, cfg: dict[str, Any]) -> bytes:
        return encode({"v": VERSION, "type": kind, "id": n, "game": "sagrada", "config": cfg})

    kind = n % 4
    if kind == 0:
        return frame("static", config(3))
    if kind == 1:
        return frame("static", config(600))
    if kind == 2:
        return frame("create", config(49))
    return frame("static", config(48, players=4))


def attack(endpoint: str, seconds: float, out: Any) -> None:
    """Keep IN_FLIGHT attack requests in flight for ``seconds``; send back the replies' codes."""
    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.linger = 0
    sock.connect(endpoint)
    codes: Counter[str] = Counter()
    sent = in_flight = 0
    end_s = time.monotonic() + seconds
    while time.monotonic() < end_s or in_flight:
        while in_flight < IN_FLIGHT and time.monotonic() < end_s:
            sock.send_multipart([b"", attack_frame(sent)])
            sent += 1
            in_flight += 1
        if sock.poll(1000):
            reply = decode_message(sock.recv_multipart()[-1])
            codes[reply.get("code") or reply["type"]] += 1
            in_flight -= 1
        elif time.monotonic() > end_s + 30:
            break
    sock.close()
    out.put((sent, dict(codes)))


def honest(req: Requester, table: str, samples: int) -> list[float]:
    times = []
    for _ in range(samples):
        started_s = time.perf_counter()
        req("sync", table=table)
        times.append(time.perf_counter() - started_s)
        time.sleep(PACE_S)
    return times


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def distinct_lists(req: Requester, count: int) -> None:
    """``count`` `static` requests, each with a new good list (waiting out the rate limit)."""
    for n in range(count):
        while True:
            frame = attack_frame(4 * (10**6 + n) + 3)
            req.sock.send(frame)
            reply = decode_message(req.sock.recv())
            if reply.get("code") != "rate_limited":
                assert reply["type"] == "static", reply
                break
            time.sleep(0.05)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=600)
    parser.add_argument("--seconds", type=float, default=8.0, help="how long the attack lasts")
    parser.add_argument("--lists", type=int, default=300, help="distinct lists for the memory")
    args = parser.parse_args(argv)
    print(f"issue 18 frames: {[len(attack_frame(n)) for n in range(4)]} bytes")
    with tempfile.TemporaryDirectory() as data_dir:
        proc, endpoint, _ = start_host(data_dir)
        try:
            req = Requester(zmq.Context.instance(), endpoint)
            table = req("create", game="sagrada", config={"players": 2})["table"]
            req("join", table=table)
            base = honest(req, table, args.samples)
            spawn = multiprocessing.get_context("spawn")
            out = spawn.Queue()
            attacker = spawn.Process(target=attack, args=(endpoint, args.seconds, out))
            cpu_before = cpu_s(proc.pid)
            attacker.start()
            time.sleep(0.5)  # under way
            attacked = honest(req, table, args.samples)
            sent, codes = out.get(timeout=args.seconds + 60)
            assert attacker.pid is not None
            attacker_cpu = cpu_s(attacker.pid)
            attacker.join()
            host_cpu = cpu_s(proc.pid) - cpu_before
            distinct_lists(req, 20)  # the caches filled once
            rss_before = rss_mib(proc.pid)
            distinct_lists(req, args.lists)
            rss_after = rss_mib(proc.pid)
        finally:
            proc.terminate()
            proc.wait()
    b50, b99 = percentiles(base)
    a50, a99 = percentiles(attacked)
    print(f"honest sync alone:        p50 {b50 / 1000:.2f} ms, p99 {b99 / 1000:.2f} ms "
          f"({len(base)} samples)")
    print(f"honest sync under attack: p50 {a50 / 1000:.2f} ms, p99 {a99 / 1000:.2f} ms "
          f"({len(attacked)} samples, the slowest {max(attacked) * 1000:.1f} ms)")
    print(f"attacker: {sent} requests in {args.seconds:g} s, answered {codes}; "
          f"host CPU {host_cpu:.2f} s, the attacker's own {attacker_cpu:.2f} s (2 cores shared)")
    print(f"host RSS {rss_before:.1f} MiB -> {rss_after:.1f} MiB after {args.lists} more "
          "distinct lists of 48 patterns")
    return 0


if __name__ == "__main__":
    sys.exit(main())
