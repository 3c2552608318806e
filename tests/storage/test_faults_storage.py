"""A data dir that cannot be written (read-only, full, not a directory): a clear error, the
games stay at their last committed state, and the database is never corrupt.

Full and read-only are real where the test may mount a small tmpfs (root in a container); a
full disk is also simulated everywhere with SQLite's ``max_page_count`` on a real file.
"""

from __future__ import annotations

import json
import logging
import os
import random
import re
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fault_kit import Game, fill_until_refused, remount, tmpfs
from test_net_support import ROOT, RUN_SAGANI, Raw, read_store, running_host

from sagani_net.games import get_game
from sagani_net.host import Host
from sagani_net.store import CLOSED_MARK, DB_NAME, StorageDamaged, Store, salvage


def integrity(data_dir: Path) -> str:
    return str(read_store(data_dir, "PRAGMA integrity_check")[0][0])


def run_host_cli(data_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*RUN_SAGANI, "host", "--quiet", "--port", "0", "--data-dir",
         str(data_dir)], cwd=ROOT, capture_output=True, text=True, timeout=30,
    )


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
        assert game.ask("hello")["type"] == "welcome"
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
    # Room for the schema, the seats and the first moves (the WAL holds them all), no more.
    with tmpfs(tmp_path / "small", "240k") as data_dir:
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
            game.raw = raw
            assert game.snapshot()[0] == 10
            check_record(game.finish(), game.accepted)
            raw.close()


def test_record_export_reads_a_data_dir_on_a_read_only_disk(tmp_path: Path) -> None:
    """A disk the kernel remounted read-only after errors, or a copy on read-only media: the
    records are what one wants out of it, and export said "cannot read the database ...:
    unable to open database file" (SQLite could not make the WAL's -shm file)."""
    with tmpfs(tmp_path / "disk", "4m") as data_dir:
        with running_host(data_dir) as host:
            raw = Raw(host.endpoint)
            game = Game(raw, seed=703)
            record = game.finish()
            raw.close()
        remount(data_dir, "ro")
        done = subprocess.run([*RUN_SAGANI, "record", "export", game.table, "--data-dir",
                               str(data_dir)], cwd=ROOT, capture_output=True, text=True,
                              timeout=30)
        remount(data_dir, "rw")
        assert (done.returncode, done.stderr) == (0, "")
        assert json.loads(done.stdout) == record


def test_data_dir_that_is_a_file_is_a_clear_error(tmp_path: Path) -> None:
    not_a_dir = tmp_path / "games"
    not_a_dir.write_text("not a directory")
    done = run_host_cli(not_a_dir)
    assert done.returncode == 2
    assert "cannot use the data dir" in done.stderr and "Traceback" not in done.stderr
    assert not_a_dir.read_text() == "not a directory"


# -- the database damaged under a running host (issue 10) ---------------------------------------


def damage_while_running(data_dir: Path, damage, caplog: pytest.LogCaptureFixture,
                         why: str) -> Game:
    """Play, damage the files, then check that no further change is taken (``storage_failed``
    and a log line) while reads are still served from memory."""
    with running_host(data_dir) as host:
        game = Game(Raw(host.endpoint), seed=704)
        for _ in range(6):
            assert game.act()["type"] == "accepted"
        before = game.snapshot()
        with caplog.at_level(logging.ERROR, logger="sagani_net.host"):
            damage(data_dir)
            for _ in range(3):
                assert game.act()["code"] == "storage_failed"
            assert game.ask("create", game="sagani", config={"players": 2})["code"] \
                == "storage_failed"
        assert game.snapshot() == before  # reads still served, nothing moved
        assert game.ask("tables")["type"] == "tables"
        assert host.storage_broken is not None and why in host.storage_broken
        lines = [r.getMessage() for r in caplog.records if "is damaged" in r.getMessage()]
        assert len(lines) == 1 and why in lines[0], lines
        game.raw.close()
    return game


def test_database_deleted_under_the_host_refuses_changes_and_serves_reads(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    def delete(data_dir: Path) -> None:
        for side in ("", "-wal", "-shm"):
            (data_dir / (DB_NAME + side)).unlink()

    damage_while_running(tmp_path, delete, caplog, "deleted")


def test_wal_overwritten_under_the_host_refuses_changes_and_serves_reads(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    def overwrite(data_dir: Path) -> None:
        wal = data_dir / (DB_NAME + "-wal")
        with open(wal, "r+b") as out:  # the same file, its frames gone
            out.seek(32)
            out.write(bytes(wal.stat().st_size - 32))

    damage_while_running(tmp_path, overwrite, caplog, "WAL file was written")
    # SQLite would open these files again without a word, the accepted actions gone: the next
    # start refuses them in one line that says what to do, and a salvage clears the way.
    done = run_host_cli(tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "found it so while it ran" in done.stderr and "--salvage" in done.stderr
    salvage(tmp_path)
    Store(tmp_path).close()


def corrupt(path: Path) -> None:
    """Overwrite the second half of a database file with garbage, as a bad disk or a stray
    write would (the host's last checkpoint, when it stops, rewrites only a few pages)."""
    size = path.stat().st_size
    with open(path, "r+b") as out:
        out.seek(size // 2)
        out.write(random.Random(9).randbytes(size - size // 2))


def start_salvaging_host(data_dir: Path) -> tuple[subprocess.Popen[str], str, str]:
    """``sagani host --salvage`` in a subprocess: it, its request endpoint, and the line it
    said about the salvage (on stderr, before it serves)."""
    proc = subprocess.Popen(
        [*RUN_SAGANI, "host", "--quiet", "--salvage", "--port", "0",
         "--data-dir", str(data_dir)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    return proc, proc.stdout.readline().split("requests ")[1].split()[0], proc.stderr.readline()


def test_salvage_of_a_database_that_is_not_damaged_serves_it_as_it_is(tmp_path: Path) -> None:
    """--salvage on a sound database (left in a start script, or given at a guess): it was
    moved aside as 'the damaged files' and copied row by row, at every such start, each run
    another copy of every game kept beside it. It is served as it is, and the line says so."""
    with running_host(tmp_path) as host:
        game = Game(Raw(host.endpoint), seed=720)
        for _ in range(3):
            assert game.act()["type"] == "accepted"
        game.raw.close()
    proc, endpoint, said = start_salvaging_host(tmp_path)
    try:
        assert said.startswith("sagani host: --salvage: the database ") and "not damaged" in said
        raw = Raw(endpoint)
        assert raw.patient("sync", table=game.table)["version"] == 3
        raw.close()
    finally:
        proc.terminate()
        proc.wait()
    assert not list(tmp_path.glob(DB_NAME + ".damaged-*"))


def test_database_corrupted_under_the_host_then_restarted_is_salvaged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # A bigger database than one game, so that the damage lands among the actions.
    with running_host(tmp_path) as host:
        raw = Raw(host.endpoint)
        games = [Game(raw, seed=710 + i) for i in range(6)]
        for _ in range(30):
            for game in games:
                assert game.act()["type"] == "accepted"
        raw.close()
    damage_while_running(tmp_path, lambda d: corrupt(d / DB_NAME), caplog,
                         "database file was written")
    # On start: one line that says what to do, no traceback.
    done = run_host_cli(tmp_path)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "is damaged" in lines[0] and "--salvage" in lines[0], lines
    assert "Traceback" not in done.stderr
    # --salvage keeps what is readable, says so, and serves it: every game it kept plays.
    proc, endpoint, salvaged = start_salvaging_host(tmp_path)
    try:
        assert salvaged.startswith("sagani host: salvaged "), salvaged
        print(salvaged.strip())
        raw = Raw(endpoint)
        for table in raw.patient("tables")["tables"]:
            assert raw.patient("sync", table=table["table"])["version"] == table["version"]
        raw.close()
    finally:
        proc.terminate()
        proc.wait()
    assert integrity(tmp_path) == "ok"
    assert list(tmp_path.glob(DB_NAME + ".damaged-*")), "the damaged file is kept aside"


def test_data_dir_and_database_files_are_the_owners_alone(tmp_path: Path) -> None:
    data_dir = tmp_path / "host"
    data_dir.mkdir(mode=0o755)
    os.chmod(data_dir, 0o755)  # as an older host made it
    with running_host(data_dir) as host:
        game = Game(Raw(host.endpoint), seed=705)
        assert game.act()["type"] == "accepted"
        modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in data_dir.iterdir()}
        game.raw.close()
    assert stat.S_IMODE(data_dir.stat().st_mode) == 0o700
    assert {DB_NAME, DB_NAME + "-wal", DB_NAME + "-shm"} <= set(modes)
    assert set(modes.values()) == {0o600}, modes


def sagani_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """One ``sagani`` command of this checkout, run to its end."""
    return subprocess.run([*RUN_SAGANI, *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def solo_sagrada_game(endpoint: str) -> str:
    """A whole solo Sagrada game by a random bot (its own process); the table's id."""
    done = sagani_cli("bot", "--create", "1", "--game", "sagrada", "--strategy", "random",
                      endpoint.removeprefix("tcp://"))
    assert done.returncode == 0 and "game over" in done.stdout, done.stderr
    found = re.search(r"created table ([0-9a-f]+)", done.stdout)
    assert found is not None, done.stdout
    return found.group(1)


def test_record_export_from_a_live_host_leaves_it_whole(tmp_path: Path) -> None:
    """Issue 18 point 1, with real processes: a host, a bot, two exports of the data dir the
    host serves; the host plays a whole new game after them, no damage found, and the second
    export is as good as the first. (Before: the first export's close checkpointed the WAL into
    the database and deleted it, the host refused every change from then on.)"""
    data_dir = tmp_path / "host"
    host = subprocess.Popen(
        [*RUN_SAGANI, "host", "--port", "0", "--data-dir",
         str(data_dir)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert host.stdout is not None
        endpoint = host.stdout.readline().split("requests ")[1].split()[0]
        first = solo_sagrada_game(endpoint)
        exports = []
        for name in ("one.json", "two.json"):
            done = sagani_cli("record", "export", "--data-dir", str(data_dir), first,
                              "-o", str(tmp_path / name))
            assert done.returncode == 0 and done.stderr == "", done.stderr
            exports.append(json.loads((tmp_path / name).read_text()))
            second = solo_sagrada_game(endpoint)  # the same host, a whole new game
        assert exports[0] == exports[1] and exports[0]["game"] == "sagrada"
        again = sagani_cli("record", "export", "--data-dir", str(data_dir), second)
        assert again.returncode == 0 and json.loads(again.stdout)["game"] == "sagrada"
    finally:
        host.terminate()
        _, log = host.communicate(timeout=30)
    assert "damaged" not in log and "storage_failed" not in log, log
    assert not (data_dir / (DB_NAME + ".damaged")).exists()


def test_a_reader_of_a_live_data_dir_writes_nothing(tmp_path: Path) -> None:
    """Store.reader is read-only: its database and WAL are byte for byte as the host left them
    while it reads, after it closes, and a write through it is refused."""
    with running_host(tmp_path) as host:
        game = Game(Raw(host.endpoint), seed=706)
        for _ in range(4):
            assert game.act()["type"] == "accepted"
        files = [tmp_path / DB_NAME, tmp_path / (DB_NAME + "-wal")]
        before = [(p.stat().st_ino, p.read_bytes()) for p in files]
        reader = Store.reader(tmp_path)
        assert reader.table_ids() == [game.table]
        assert reader.unfinished()[0].actions == [{"seat": s, **a} for _, s, a in game.accepted]
        with pytest.raises(sqlite3.OperationalError, match="readonly|read-only"):
            reader.drop_session("anyone")
        reader.close()
        assert [(p.stat().st_ino, p.read_bytes()) for p in files] == before
        assert host.store.damage() is None
        assert game.act()["type"] == "accepted"  # and the host goes on writing
        game.raw.close()


def test_record_export_of_a_damaged_data_dir_is_one_line(tmp_path: Path) -> None:
    Store(tmp_path).close()
    Store(tmp_path).mark_damaged("its WAL file was deleted")
    done = sagani_cli("record", "export", "--data-dir", str(tmp_path), "abc")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "--salvage" in done.stderr


def test_another_program_reading_the_live_database_leaves_the_host_whole(tmp_path: Path) -> None:
    """A program that opens the database as SQLite does by default (the sqlite3 shell, a
    backup tool) and only reads: its close must not checkpoint the WAL away, which it does
    when the host's own locks are gone (the host opened and closed the file after SQLite did:
    POSIX drops every lock of a process on a file when any of its descriptors closes)."""
    with running_host(tmp_path) as host:
        game = Game(Raw(host.endpoint), seed=707)
        for _ in range(4):
            assert game.act()["type"] == "accepted"
        # In a process of its own: SQLite shares one process's locks among its connections.
        code = ("import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); "
                "print(db.execute('SELECT count(*) FROM actions').fetchone()[0]); db.close()")
        done = subprocess.run([sys.executable, "-c", code, str(tmp_path / DB_NAME)],
                              capture_output=True, text=True, timeout=30)
        assert done.stdout.strip() == "4", done.stderr
        assert (tmp_path / (DB_NAME + "-wal")).exists()
        assert host.store.damage() is None
        assert game.act()["type"] == "accepted"
        game.raw.close()


def test_a_database_found_damaged_at_start_is_said_in_one_line(tmp_path: Path) -> None:
    """A host killed (no clean close) whose file then lost a page: SQLite's check spans two
    lines, "(*** in database main ***" and "Page 3: btreeInitPage() ...", and so did the
    host's one line that says what to do."""
    Store(tmp_path).close()
    (tmp_path / CLOSED_MARK).unlink(missing_ok=True)  # as after kill -9
    with open(tmp_path / DB_NAME, "r+b") as out:
        out.seek(2 * 4096)  # the third page, a table's root
        out.write(b"\x5a" * 4096)
    with pytest.raises(StorageDamaged) as damaged:
        Store(tmp_path)
    assert "\n" not in str(damaged.value) and "Page 3" in str(damaged.value)
