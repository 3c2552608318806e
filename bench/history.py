"""What a host's history costs it: a data dir of many finished games (all three games), then
a real `sagani host` on it, measured as an operator would see it.

    PYTHONPATH=$PWD python bench/history.py --games 3000

1. The games are played through the tables' logic (no sockets: the writes a host makes, only
   faster), with a spectator at every third table, then a few tables left running or open.
2. `sagani host` starts on the data dir: the time to its first `welcome`, its RSS; then
   after a clean stop against as after a crash (the whole-file check at open), alternated.
3. A client sends one `sync` for every finished game (as one browsing old games would): the
   host's RSS before and after, and how many tables its `tables` listing then holds.
4. A real standby (`sagani host --standby`) joins while a client syncs a running table every
   5 ms: the active host's peak RSS (VmHWM) and the longest `sync`.

Every figure is of this one run; RSS is /proc/PID/status.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import msgpack
import zmq

from sagani_net.protocol import check_request, decode_message
from sagani_net.quotas import Limits
from sagani_net.store import CLOSED_MARK, DB_NAME, Store
from sagani_net.tables import Tables

GAMES = [("sagani", {"players": 2}), ("sagani", {"players": 4}), ("sagrada", {"players": 2}),
         ("sugi", {"players": 3})]
SAGANI = [sys.executable, "-c", "import sys; from sagani_net.cli.main import main; "
          "sys.exit(main())"]


def fill(data_dir: Path, games: int) -> None:
    """``games`` finished games and a few running and open tables, as a host writes them."""
    store = Store(data_dir)
    now_s = [0.0]
    limits = Limits(max_tables=10**6, max_sessions=10**7, tables_per_address=10**6,
                    sessions_per_address=10**7)
    tables = Tables(store, clock=lambda: now_s[0], limits=limits)
    ids = iter(range(1, 1 << 62))
    rng = random.Random(1)

    def ask(kind: str, **fields: Any) -> dict[str, Any]:
        out = tables.handle(check_request({"v": 1, "type": kind, "id": next(ids), **fields}))
        return decode_message(out) if isinstance(out, bytes) else out

    def play(table: str, tokens: list[str], moves: int) -> None:
        for _ in range(moves):
            state = tables.tables[table].state
            if tables.tables[table].status == "over":
                return
            seat = state.current_seat
            legal = ask("legal", table=table, token=tokens[seat])["actions"]
            ask("act", table=table, seat=seat, token=tokens[seat], version=state.version,
                action=rng.choice(legal))

    for n in range(games + 20):
        game, config = GAMES[n % len(GAMES)]
        table = ask("create", game=game, config=config)["table"]
        tokens = [ask("join", table=table, name=f"p{i}")["token"]
                  for i in range(config["players"])]
        if n % 3 == 0:
            ask("join", table=table, role="spectator")
        play(table, tokens, 10 if n >= games else 10**6)  # the last 20 left running
        store.commit()
        tables.outbox.clear()
        now_s[0] += 1.0
        tables.beats(None, False)  # (forgets the finished ones, as a host does)
    for _ in range(5):
        ask("create", game="sagani", config={"players": 2})
    store.commit()
    store.close()


class Raw:
    def __init__(self, endpoint: str) -> None:
        self.sock = zmq.Context.instance().socket(zmq.REQ)
        self.sock.linger = 0
        self.sock.connect(endpoint)
        self.next_id = 0

    def __call__(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.next_id += 1
        body = msgpack.packb({"v": 1, "type": kind, "id": self.next_id, **fields})
        while True:
            self.sock.send(body)
            reply: dict[str, Any] = msgpack.unpackb(self.sock.recv())
            if reply.get("code") != "rate_limited":
                return reply
            time.sleep(0.05)  # the back-off PROTOCOL.md asks for

    def close(self) -> None:
        self.sock.close()


def status(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def start(data_dir: Path, *args: str) -> tuple[subprocess.Popen[str], list[str]]:
    proc = subprocess.Popen([*SAGANI, "host", "--port", "0", "--quiet", "--data-dir",
                             str(data_dir), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    lines = [proc.stdout.readline()]
    return proc, lines


def found(pattern: str, text: str) -> str:
    match = re.search(pattern, text)
    assert match is not None, text
    return match[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "a"
        began_s = time.perf_counter()
        fill(data, args.games)
        db = sqlite3.connect(data / DB_NAME)
        over = [r[0] for r in db.execute("SELECT id FROM tables WHERE status = 'over'")]
        (running,) = db.execute("SELECT id FROM tables WHERE status = 'running' LIMIT 1").fetchone()
        db.close()
        size_mb = (data / DB_NAME).stat().st_size / 1e6
        print(f"{len(over)} finished games, a {size_mb:.0f} MB database, made in "
              f"{time.perf_counter() - began_s:.0f} s")

        started_s = time.perf_counter()
        host, lines = start(data)
        raw = Raw(found(r"requests (\S+)", lines[0]))
        raw("hello", client="bench")
        up_s = time.perf_counter() - started_s
        rss_kb = status(host.pid, "VmRSS")
        print(f"start: welcome after {up_s:.2f} s, RSS {rss_kb / 1024:.0f} MiB")
        for table in over:
            assert raw("sync", table=table)["status"] == "over"
        after_kb = status(host.pid, "VmRSS")
        listed = len(raw("tables")["tables"])
        print(f"a sync of each finished game: RSS {after_kb / 1024:.0f} MiB "
              f"(x{after_kb / rss_kb:.2f}); the listing holds {listed} tables")
        host.terminate()
        host.wait()

        # A start after a clean stop (the store's closed-whole mark: no whole-file check) and
        # one as after a crash (the mark taken away: PRAGMA quick_check), alternated.
        raw.close()
        times: dict[bool, list[float]] = {True: [], False: []}
        for _ in range(3):
            for clean in (True, False):
                if not clean:
                    (data / CLOSED_MARK).unlink(missing_ok=True)
                started_s = time.perf_counter()
                host, lines = start(data)
                raw = Raw(found(r"requests (\S+)", lines[0]))
                raw("hello", client="bench")
                times[clean].append(time.perf_counter() - started_s)
                raw.close()
                host.terminate()
                host.wait()
        after_clean, after_crash = (sorted(times[c])[1] for c in (True, False))
        print(f"welcome after a clean stop {after_clean:.2f} s, as after a crash (the whole "
              f"file checked) {after_crash:.2f} s: x{after_crash / after_clean:.2f} (medians of 3)")

        # The standby: a fresh start, so that the peak is the snapshot's.
        host, lines = start(data)
        while "standby code" not in lines[-1] and "sagani-standby://" not in lines[-1]:
            assert host.stdout is not None
            lines.append(host.stdout.readline())
        code = found(r"(sagani-standby://\S+)", "".join(lines)).strip("'")
        raw.close()
        raw = Raw(found(r"requests (\S+)", lines[0]))
        raw("hello", client="bench")
        before_kb = status(host.pid, "VmHWM")
        waits_s: list[float] = []
        done = threading.Event()

        def probe() -> None:
            while not done.is_set():
                began = time.perf_counter()
                raw("sync", table=running)
                waits_s.append(time.perf_counter() - began)
                time.sleep(0.005)  # a client's pace, not an ordering

        thread = threading.Thread(target=probe)
        thread.start()
        standby, _ = start(Path(tmp) / "b", "--standby", code)
        tables = len(over) + 25
        given_up_s = time.monotonic() + 120
        copied = 0
        while copied < tables and time.monotonic() < given_up_s:
            time.sleep(0.2)  # polling another process's file
            try:
                copy = sqlite3.connect(Path(tmp) / "b" / DB_NAME)
                copied = copy.execute("SELECT count(*) FROM tables").fetchone()[0]
                copy.close()
            except sqlite3.Error:
                copied = 0
        time.sleep(1.0)  # a heartbeat more of syncs after it
        done.set()
        thread.join()
        peak_kb = status(host.pid, "VmHWM")
        print(f"a standby joins: it has {copied}/{tables} tables; the active host's peak RSS "
              f"{peak_kb / 1024:.0f} MiB (x{peak_kb / before_kb:.2f} of before); the longest "
              f"sync of another table {max(waits_s) * 1000:.0f} ms "
              f"(x{max(waits_s) / sorted(waits_s)[len(waits_s) // 2]:.0f} the median)")
        for proc in (standby, host):
            proc.terminate()
            proc.wait()
        raw.close()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
