"""A pair of hosts in one process (issue 14): the standby keeps the active host's journal,
catches up after a disconnect, refuses a peer without the key, and takes over only when the
active host is gone and a client comes; two hosts started together agree which one serves.
Real sockets on 127.0.0.1, real SQLite files."""

from __future__ import annotations

import random
import secrets
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import msgpack
import pytest
import zmq
from failover_kit import free_ports
from test_host import act, seated_table
from test_net_support import Raw

from sagani_net.client import Client
from sagani_net.host import Host
from sagani_net.standby import (
    ActiveLink,
    Standby,
    _server_secret,
    elect,
    former_standby,
    new_key,
    save_key,
)
from sagani_net.store import DB_NAME, Store

HEARTBEAT_S = 0.1
#: Bound on every wait for something the pair does by itself.
WAIT_S = 10.0


def wait_until(done: Callable[[], bool]) -> bool:
    give_up_s = time.monotonic() + WAIT_S
    while not done():
        if time.monotonic() > give_up_s:
            return False
        time.sleep(0.02)
    return True


def journal(data_dir: Path) -> list[tuple[int, str, str]]:
    """The journal of a store, read on a connection of its own (the host keeps its own)."""
    db = sqlite3.connect(f"file:{data_dir / DB_NAME}?mode=ro", uri=True)
    try:
        return db.execute("SELECT id, statement, params FROM journal ORDER BY id").fetchall()
    finally:
        db.close()


def own_link(host: Host, key: bytes, port: int) -> ActiveLink:
    return ActiveLink(host.store, key, bind="127.0.0.1", port=port, heartbeat_s=HEARTBEAT_S)


@contextmanager
def active_host(data_dir: Path, link_port: int = 0) -> Iterator[Host]:
    host = Host(Store(data_dir), port=0, heartbeat_s=HEARTBEAT_S)
    host.link = own_link(host, new_key(data_dir), link_port)
    host.serve_in_thread()
    try:
        yield host
    finally:
        host.stop()


@contextmanager
def standby_host(data_dir: Path, key: bytes, link: str, link_port: int = 0) -> Iterator[Standby]:
    host = Host(Store(data_dir), port=0, heartbeat_s=HEARTBEAT_S)
    pair = Standby(host, own_link(host, key, link_port), link)
    thread = pair.serve_in_thread()
    try:
        yield pair
    finally:
        pair.stop()
        thread.join(WAIT_S)


def test_standby_has_each_action_before_its_reply_and_catches_up_after_a_break(
    tmp_path: Path,
) -> None:
    with active_host(tmp_path / "a") as host:
        assert host.link is not None
        key, link = new_key(tmp_path / "a"), host.link.endpoint
        raw = Raw(host.endpoint)
        with standby_host(tmp_path / "b", key, link):
            assert wait_until(lambda: host.link is not None and host.link.in_sync)
            table, tokens = seated_table(raw, players=2)
            rng = random.Random(5)
            for _ in range(6):
                assert act(raw, table, tokens, rng)["type"] == "accepted"
                # The active host replied only once the standby had the action on disk.
                assert journal(tmp_path / "b") == journal(tmp_path / "a")
            assert raw("hello")["standby"].startswith("tcp://127.0.0.1:")
        for _ in range(4):  # the standby is away
            assert act(raw, table, tokens, rng)["type"] == "accepted"
        assert len(journal(tmp_path / "b")) < len(journal(tmp_path / "a"))
        with standby_host(tmp_path / "b", key, link):
            assert wait_until(lambda: journal(tmp_path / "b") == journal(tmp_path / "a"))
        raw.close()


def test_a_standby_without_the_key_gets_nothing(tmp_path: Path) -> None:
    with active_host(tmp_path / "a") as host:
        assert host.link is not None
        raw = Raw(host.endpoint)
        seated_table(raw, players=2)
        wrong = bytes.fromhex(secrets.token_hex(32))
        with standby_host(tmp_path / "b", wrong, host.link.endpoint) as pair:
            # Someone who knows the link's public key (never printed) but not the key itself:
            # the handshake succeeds, the follow request's proof does not.
            peer = zmq.Context.instance().socket(zmq.DEALER)
            peer.linger = 0
            public, secret = zmq.curve_keypair()
            peer.curve_publickey, peer.curve_secretkey = public, secret
            peer.curve_serverkey = zmq.curve_public(_server_secret(new_key(tmp_path / "a")))
            peer.connect(host.link.endpoint)
            peer.send(msgpack.packb({"type": "follow", "proof": b"x" * 32, "cursor": 0,
                                     "digest": None, "port": 1}))  # fmt: skip
            got = peer.poll(10 * HEARTBEAT_S * 1000, zmq.POLLIN)
            peer.close()
            assert not got
            assert pair.heard_s is None
            assert not host.link.in_sync and raw("hello")["standby"] is None
        assert journal(tmp_path / "b") == []
        raw.close()


def test_standby_refuses_while_the_active_lives_and_takes_over_when_a_client_comes(
    tmp_path: Path,
) -> None:
    with active_host(tmp_path / "a") as host:
        assert host.link is not None
        key = new_key(tmp_path / "a")
        raw = Raw(host.endpoint)
        table, tokens = seated_table(raw, players=2)
        with standby_host(tmp_path / "b", key, host.link.endpoint) as pair:
            assert wait_until(lambda: host.link is not None and host.link.in_sync)
            client = Client(host.endpoint, timeout_s=0.5)
            replica = client.resume(table, tokens[0])
            assert client.core.standby == pair.host.endpoint
            standby_raw = Raw(pair.host.endpoint)
            assert standby_raw("hello")["code"] == "not_active"
            version = replica.version
            host.stop()  # the active host is gone
            # The client's next request goes to the standby, which takes over and has the game.
            replica = client.sync()
            assert pair.took_over.is_set()
            assert replica.version == version and client.core.address == pair.host.endpoint
            client.next_update(HEARTBEAT_S)  # broadcasts follow: hello and subscribe there
            assert client.core.moved_to == pair.host.endpoint  # the console says so
            rng = random.Random(3)
            assert act(standby_raw, table, tokens, rng)["type"] == "accepted"
            client.close()
            standby_raw.close()
        raw.close()


def test_a_reset_standby_forgets_entries_the_active_never_made(tmp_path: Path) -> None:
    """A host that accepted something its standby never got, and then lost the role, starts
    over from the new active host's journal."""
    with active_host(tmp_path / "new") as host:
        assert host.link is not None
        raw = Raw(host.endpoint)
        seated_table(raw, players=2)
        old = Store(tmp_path / "old")
        old.db.execute("INSERT INTO journal VALUES (1, 'drop_session', '[\"gone\"]')")
        old.commit()
        old.close()
        with standby_host(tmp_path / "old", new_key(tmp_path / "new"), host.link.endpoint):
            assert wait_until(lambda: journal(tmp_path / "old") == journal(tmp_path / "new"))
        raw.close()


def test_command_line_mistakes_of_a_pair_are_one_line_and_exit_2(tmp_path: Path) -> None:
    bad_key = tmp_path / "bad.key"
    bad_key.write_text("not a key\n")
    for argv in (["--standby", "127.0.0.1:1"],
                 ["--standby", "127.0.0.1:1", "--standby-key", str(bad_key)]):  # fmt: skip
        done = subprocess.run([sys.executable, "-m", "cli.main", "host", "--port", "0",
                               "--data-dir", str(tmp_path / "d"), *argv],
                              capture_output=True, text=True, timeout=60)  # fmt: skip
        assert done.returncode == 2, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and "standby" in done.stderr
