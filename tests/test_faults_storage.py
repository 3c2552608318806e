"""A data dir that cannot be written (read-only, full, not a directory): a clear error, the
games stay at their last committed state, and the database is never corrupt.

Full and read-only are real where the test may mount a small tmpfs (root in a container); a
full disk is also simulated everywhere with SQLite's ``max_page_count`` on a real file.
"""

from __future__ import annotations

import random
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from test_net_support import ROOT, Raw, choose, running_host

from protocol import VERSION, encode
from sagani_net.games import get_game
from sagani_net.host import Host
from sagani_net.store import DB_NAME


@contextmanager
def tmpfs(path: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` at ``path``, or a skip where mounting is not allowed."""
    path.mkdir()
    name = f"sagani{uuid.uuid4().hex[:6]}"
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", name, str(path)],
                          capture_output=True)  # fmt: skip
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=True)


def remount(path: Path, options: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{options}", str(path)], check=True)


def integrity(data_dir: Path) -> str:
    db = sqlite3.connect(f"file:{data_dir / DB_NAME}?mode=ro", uri=True)
    try:
        return db.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        db.close()


def run_host_cli(data_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli.host_cmd", "host", "--quiet", "--port", "0", "--data-dir",
         str(data_dir)], cwd=ROOT, capture_output=True, text=True, timeout=30,
    )  # fmt: skip


class Patient:
    """Raw requests that wait out ``rate_limited`` as PROTOCOL.md asks (same bytes again).

    These tests send a few hundred requests as fast as the host answers: on a quiet machine
    that is more than the per-peer rate, and a refusal for it is no storage fault.
    """

    def __init__(self, raw: Raw) -> None:
        self.raw = raw

    def __call__(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.raw.next_id += 1
        body = encode({"v": VERSION, "type": kind, "id": self.raw.next_id, **fields})
        while (reply := self.raw.send_bytes(body)).get("code") == "rate_limited":
            time.sleep(0.2)
        return reply


class Game:
    """A started 2-player table played with random legal actions through raw requests."""

    def __init__(self, raw: Raw, seed: int) -> None:
        self.raw = Patient(raw)
        raw = self.raw
        self.table = raw("create", game="sagani", config={"players": 2}, seed=seed)["table"]
        self.tokens = [raw("join", table=self.table)["token"] for _ in range(2)]
        self.rng = random.Random(seed)
        self.accepted: list[tuple[int, int, dict[str, Any]]] = []

    def act(self) -> dict[str, Any]:
        snap = self.raw("sync", table=self.table)
        seat, version = snap["turn"], snap["version"]
        action = choose(snap["view"], self.rng)
        reply = self.raw("act", table=self.table, seat=seat, token=self.tokens[seat],
                         version=version, action=action)  # fmt: skip
        if reply["type"] == "accepted":
            self.accepted.append((version, seat, action))
        return reply

    def snapshot(self) -> tuple[int, int, dict[str, Any]]:
        snap = self.raw("sync", table=self.table)
        return snap["version"], snap["seq"], snap["view"]

    def finish(self) -> dict[str, Any]:
        while self.raw("sync", table=self.table)["status"] != "over":
            assert self.act()["type"] == "accepted"
        return self.raw("record", table=self.table)["record"]


def fill_until_refused(game: Game) -> dict[str, Any]:
    """Play until the host refuses for lack of room; check that nothing moved."""
    for _ in range(200):
        before = game.snapshot()
        reply = game.act()
        if reply["type"] == "error":
            assert reply["code"] == "storage_failed", reply
            assert "cannot write" in reply["message"]
            assert game.snapshot() == before  # memory went back to what is on disk
            return reply
    raise AssertionError("the data dir never filled up")


def check_record(record: dict[str, Any], accepted: list) -> None:
    for version, seat, action in accepted:
        assert record["actions"][version] == {"seat": seat, **action}
    assert len(record["actions"]) == len(accepted)
    assert get_game("sagani").from_record(record).ranking() == record["result"]["ranking"]


def play_through_a_full_disk(data_dir: Path, make_room, fill=None) -> None:
    with running_host(data_dir) as host:
        raw = Raw(host.endpoint)
        game = Game(raw, seed=701)
        for _ in range(4):
            assert game.act()["type"] == "accepted"
        if fill is not None:
            fill(host)
        fill_until_refused(game)
        # Refused again and again, the host keeps serving and the game stays put.
        stuck = game.snapshot()
        for _ in range(5):
            assert game.act()["code"] == "storage_failed"
        assert game.snapshot() == stuck
        assert game.raw("hello")["type"] == "welcome"
        assert integrity(data_dir) == "ok"
        make_room(host)
        record = game.finish()
        raw.close()
    assert integrity(data_dir) == "ok"
    check_record(record, game.accepted)
    # And a restart finds the same finished game on disk.
    with running_host(data_dir) as host:
        raw = Raw(host.endpoint)
        assert raw("record", table=game.table)["record"] == record
        raw.close()


def test_full_database_simulated_with_max_page_count(tmp_path: Path) -> None:
    def fill(host: Host) -> None:
        pages = host.store.db.execute("PRAGMA page_count").fetchone()[0]
        host.store.db.execute(f"PRAGMA max_page_count = {pages}")

    def make_room(host: Host) -> None:
        host.store.db.execute("PRAGMA max_page_count = 1000000")

    play_through_a_full_disk(tmp_path, make_room, fill)


def test_full_filesystem_refuses_cleanly_and_resumes_when_there_is_room(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "small", "160k") as data_dir:
        play_through_a_full_disk(data_dir, lambda host: remount(data_dir, "size=16m"))


def test_read_only_data_dir_is_a_clear_error_and_the_games_survive(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "disk", "4m") as data_dir:
        with running_host(data_dir) as host:
            raw = Raw(host.endpoint)
            game = Game(raw, seed=702)
            for _ in range(10):
                assert game.act()["type"] == "accepted"
            raw.close()
        remount(data_dir, "ro")
        for where in (data_dir, data_dir / "new"):
            done = run_host_cli(where)
            assert done.returncode == 2
            assert f"cannot use the data dir {where}" in done.stderr
            assert "Traceback" not in done.stderr
        remount(data_dir, "rw")
        assert integrity(data_dir) == "ok"
        with running_host(data_dir) as host:
            raw = Raw(host.endpoint)
            raw.next_id = 1000  # message ids are never reused within a session
            game.raw = Patient(raw)
            assert game.snapshot()[0] == 10
            check_record(game.finish(), game.accepted)
            raw.close()


def test_data_dir_that_is_a_file_is_a_clear_error(tmp_path: Path) -> None:
    not_a_dir = tmp_path / "games"
    not_a_dir.write_text("not a directory")
    done = run_host_cli(not_a_dir)
    assert done.returncode == 2
    assert "cannot use the data dir" in done.stderr and "Traceback" not in done.stderr
    assert not_a_dir.read_text() == "not a directory"
