"""How big the host's database grows (issue 18 point 11): 2-player Sagani games of random legal
actions, played through a real host on 127.0.0.1, until ``--actions`` actions are accepted;
once with no standby, once with a standby following on the link. Prints the database's size
after the host closed (the WAL checkpointed into it), the journal's rows, and bytes per action.

    PYTHONPATH=$PWD python bench/store_size.py --actions 10000

With ``--games N``: N solo Sagrada games of 48 patterns of one's own each (a guest filling the
disk: each game's first legal action until it ends, on one REQ socket), played against a real
``sagani host`` process for each ``--keep-games`` value given; prints the data dir's size (its
database, WAL and shared-memory files, while the host runs) every ``--every`` games, and the
seconds taken.

    PYTHONPATH=$PWD python bench/store_size.py --games 1000 --every 200 --keep-games all 200
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_net_support import (  # noqa: E402
    Raw,
    act,
    play_first_legal,
    seated_table,
    start_host_process,
)

from sagani_net.host import Host, Limits  # noqa: E402
from sagani_net.standby import ActiveLink, Standby, new_key  # noqa: E402
from sagani_net.store import DB_NAME, Store  # noqa: E402

HEARTBEAT_S = 0.5


def play(data_dir: Path, actions: int, with_standby: bool) -> tuple[int, int, int, float]:
    """(database bytes, journal rows, the standby's database bytes (0: none), seconds) after
    ``actions`` accepted actions."""
    # One client asks as fast as the host answers: no rate limit in the way.
    limits = Limits(rate_per_s=1e9, rate_burst=10**9)
    # client_seeds: the games are dealt by the seeds it chooses (its own host, its own games).
    host = Host(Store(data_dir / "a"), port=0, heartbeat_s=HEARTBEAT_S, limits=limits,
                client_seeds=True)
    key = new_key(data_dir / "a")
    host.link = ActiveLink(host, key, bind="127.0.0.1", port=0)
    host.serve_in_thread()
    pair = None
    if with_standby:
        follower = Host(Store(data_dir / "b"), port=0, heartbeat_s=HEARTBEAT_S)
        pair = Standby(follower, ActiveLink(follower, key, bind="127.0.0.1", port=0),
                       host.link.endpoint)
        thread = pair.serve_in_thread()
        give_up_s = time.monotonic() + 30
        while not host.link.in_sync:
            assert time.monotonic() < give_up_s, "the standby never followed"
            time.sleep(0.01)
    raw = Raw(host.endpoint)
    rng = random.Random(1)
    started_s = time.perf_counter()
    done = 0
    try:
        while done < actions:
            table, tokens = seated_table(raw, players=2, seed=rng.randrange(1 << 30))
            while done < actions:
                reply = act(raw, table, tokens, rng)
                if reply.get("code") == "game_over":
                    break
                assert reply["type"] == "accepted", reply
                done += 1
                if raw("sync", table=table)["status"] == "over":
                    break
        elapsed_s = time.perf_counter() - started_s
    finally:
        raw.close()
        if pair is not None:
            pair.stop()
            thread.join(30)
        host.stop()
    path = data_dir / "a" / DB_NAME
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT count(*) FROM journal").fetchone()[0]
        kept = db.execute("SELECT count(*) FROM actions").fetchone()[0]
    finally:
        db.close()
    assert kept >= actions, kept
    copy = data_dir / "b" / DB_NAME
    return path.stat().st_size, rows, copy.stat().st_size if with_standby else 0, elapsed_s


def patterns(rng: random.Random, count: int = 48) -> list[dict[str, object]]:
    """``count`` Sagrada patterns any dice can complete: a colour or a value in every other
    cell, in a checkerboard, so no two touching cells want anything at all in common."""
    made: list[dict[str, object]] = []
    for n in range(count):
        grid = [["" if (row + col) % 2 else rng.choice("RGBYP123456") for col in range(5)]
                for row in range(4)]
        made.append({"name": f"guest {n}", "difficulty": 3 + n % 4, "grid": grid})
    return made


def data_dir_bytes(data_dir: Path) -> tuple[int, int]:
    """The bytes of the data dir's files, and of those its WAL."""
    wal = data_dir / (DB_NAME + "-wal")
    return (sum(path.stat().st_size for path in data_dir.iterdir() if path.is_file()),
            wal.stat().st_size if wal.exists() else 0)


def fill(data_dir: Path, games: int, every: int, keep: str) -> list[tuple[int, int, int, float]]:
    """(games finished, data dir bytes, WAL bytes, seconds) every ``every`` games of a ``sagani
    host --keep-games keep`` on ``data_dir``, and last once the host stopped (its WAL folded
    into the database)."""
    proc, endpoint, _ = start_host_process(data_dir, "--port", "0", "--keep-games", keep)
    raw = Raw(endpoint)
    config = {"players": 1, "patterns": patterns(random.Random(1)), "pattern_set": "custom"}
    sizes = []
    started_s = time.perf_counter()
    try:
        for done in range(1, games + 1):
            created = raw.patient("create", game="sagrada", config=config, seed=done)
            assert created["type"] == "created", created
            table = created["table"]
            play_first_legal(raw, table, [raw.patient("join", table=table, name="guest")["token"]])
            if done % every == 0:
                sizes.append((done, *data_dir_bytes(data_dir), time.perf_counter() - started_s))
    finally:
        raw.close()
        proc.terminate()
        proc.wait(30)
    sizes.append((games, *data_dir_bytes(data_dir), time.perf_counter() - started_s))
    db = sqlite3.connect(f"file:{data_dir / DB_NAME}?mode=ro", uri=True)
    try:
        free, pages = (db.execute(f"PRAGMA {what}").fetchone()[0]
                       for what in ("freelist_count", "page_count"))
    finally:
        db.close()
    print(f"    {pages} pages, {free} of them free", flush=True)
    return sizes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=10000)
    parser.add_argument("--games", type=int, default=0)
    parser.add_argument("--every", type=int, default=100)
    parser.add_argument("--keep-games", nargs="+", default=["all"])
    args = parser.parse_args()
    if args.games:
        for keep in args.keep_games:
            with tempfile.TemporaryDirectory() as tmp:
                sizes = fill(Path(tmp) / "host", args.games, args.every, keep)
            *running, (_, closed, _, elapsed_s) = sizes
            print(f"--keep-games {keep}: " + ", ".join(
                f"{done} games {size / 2**20:.1f} MiB (WAL {wal / 2**20:.1f})"
                for done, size, wal, _ in running)
                + f"; stopped: {closed / 2**20:.1f} MiB; {elapsed_s:.0f} s", flush=True)
        return 0
    for with_standby in (False, True):
        with tempfile.TemporaryDirectory() as tmp:
            size, rows, copy, elapsed_s = play(Path(tmp), args.actions, with_standby)
        what = "with a standby following" if with_standby else "no standby"
        standby = f", the standby's {copy / 1024:.0f} KiB" if copy else ""
        print(f"{what:>24}: {args.actions} actions, database {size / 1024:.0f} KiB "
              f"({size / args.actions:.0f} bytes per action), {rows} journal rows{standby}, "
              f"{elapsed_s:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
