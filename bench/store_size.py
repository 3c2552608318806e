"""How big the host's database grows (issue 18 point 11): 2-player Sagani games of random legal
actions, played through a real host on 127.0.0.1, until ``--actions`` actions are accepted;
once with no standby, once with a standby following on the link. Prints the database's size
after the host closed (the WAL checkpointed into it), the journal's rows, and bytes per action.

    PYTHONPATH=$PWD python bench/store_size.py --actions 10000
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

from test_net_support import Raw, act, seated_table  # noqa: E402

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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=10000)
    args = parser.parse_args()
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
