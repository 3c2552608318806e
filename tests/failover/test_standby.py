"""A pair of hosts in one process (issue 14): the standby keeps the active host's journal,
catches up after a disconnect, refuses a peer without the key, and takes over only when the
active host is gone and a client comes; two hosts started together agree which one serves.
Real sockets on 127.0.0.1, real SQLite files."""

from __future__ import annotations

import errno
import logging
import random
import secrets
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import msgpack
import pytest
import zmq
from cli_kit import Terminal, terminals
from failover_kit import free_ports
from fault_kit import (
    ATTACK_BYTES,
    RSS_SLACK_BYTES,
    Game,
    closed_by_host,
    endless_message,
    fill_until_refused,
    hoard_connections,
    remount,
    tmpfs,
)
from test_net_support import (
    RUN_SAGANI,
    Raw,
    act,
    act_fields,
    play_first_legal,
    read_store,
    running_host,
    seated_table,
    until,
)
from zmq.utils import z85

from sagani_net import standby as standby_module
from sagani_net.client import Client, HostTimeout
from sagani_net.host import Host, Limits
from sagani_net.protocol import decode_message
from sagani_net.security import Address, KeyPair, parse_address
from sagani_net.standby import (
    BEHIND,
    LINK_CONNECTIONS_PER_ADDRESS,
    NO_COPY,
    NOT_ACTIVE,
    NOT_HEARD,
    ActiveLink,
    CodeError,
    Role,
    Standby,
    StandbyCode,
    _proof,
    _server_secret,
    elect,
    former_standby,
    host_code,
    new_key,
    save_key,
)
from sagani_net.store import SNAPSHOT_TABLES, SessionRow, Store, TableRow

HEARTBEAT_S = 0.1
#: For a test that checks a reply came only once the standby confirmed (a standby slower than
#: a heartbeat is not waited for), or whose standby by hand never beats: long enough that a
#: loaded machine's pause outlasts neither the wait for an ack nor two heartbeats of silence.
PATIENT_HEARTBEAT_S = 1.0
#: Bound on every wait for something the pair does by itself.
WAIT_S = 10.0


def history(data_dir: Path) -> tuple[tuple[int, str], list[list[tuple]]]:
    """What a store holds, read on a connection of its own (the host keeps its own): its cursor
    and head, and every row of its tables, sessions and actions."""
    (head,) = read_store(data_dir, "SELECT cursor, head FROM journal_head")
    return head, [read_store(data_dir, f"SELECT * FROM {table} ORDER BY 1, 2")
                  for table in SNAPSHOT_TABLES]


def journal_length(data_dir: Path) -> int:
    return int(read_store(data_dir, "SELECT count(*) FROM journal")[0][0])


def own_link(host: Host, key: bytes, port: int) -> ActiveLink:
    """The host's link on ``port``. A port the test's last host of that data dir let go of can
    take ZeroMQ's I/O thread a moment to free (it closes sockets in the background): wait for
    it rather than fail (or sleep)."""

    def bound() -> ActiveLink | None:
        try:
            return ActiveLink(host, key, bind="127.0.0.1", port=port)
        except zmq.ZMQError as exc:
            if exc.errno != errno.EADDRINUSE or not port:
                raise
            return None

    return until(bound, said=lambda: f"link port {port} still in use")


@contextmanager
def active_host(
    data_dir: Path, link_port: int = 0, heartbeat_s: float = HEARTBEAT_S,
    limits: Limits | None = None,
) -> Iterator[Host]:
    host = Host(Store(data_dir), port=0, heartbeat_s=heartbeat_s, client_seeds=True,
                limits=limits)
    host.link = own_link(host, new_key(data_dir), link_port)
    host.serve_in_thread()
    try:
        yield host
    finally:
        host.stop()


@contextmanager
def standby_host(data_dir: Path, key: bytes, link: str, link_port: int = 0) -> Iterator[Standby]:
    host = Host(Store(data_dir), port=0, heartbeat_s=HEARTBEAT_S, client_seeds=True)
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
    with active_host(tmp_path / "a", heartbeat_s=PATIENT_HEARTBEAT_S) as host:
        assert host.link is not None
        key, link = new_key(tmp_path / "a"), host.link.endpoint
        raw = Raw(host.endpoint)
        with standby_host(tmp_path / "b", key, link):
            until(lambda: host.link is not None and host.link.in_sync)
            table, tokens = seated_table(raw, players=2)
            rng = random.Random(5)
            for _ in range(6):
                assert act(raw, table, tokens, rng)["type"] == "accepted"
                # The active host replied only once the standby had the action on disk.
                assert history(tmp_path / "b") == history(tmp_path / "a")
            assert raw("hello")["standby"].startswith("tcp://127.0.0.1:")
        for _ in range(4):  # the standby is away
            assert act(raw, table, tokens, rng)["type"] == "accepted"
        assert history(tmp_path / "b")[0][0] < history(tmp_path / "a")[0][0]
        with standby_host(tmp_path / "b", key, link):
            until(lambda: history(tmp_path / "b") == history(tmp_path / "a"))
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
                                     "digest": None, "port": 1}))
            got = peer.poll(10 * HEARTBEAT_S * 1000, zmq.POLLIN)
            peer.close()
            assert not got
            assert pair.heard_s is None
            assert not host.link.in_sync and raw("hello")["standby"] is None
        assert history(tmp_path / "b") == ((0, ""), [[]] * len(SNAPSHOT_TABLES))
        raw.close()


def test_a_standby_its_active_host_never_answers_says_so_once_and_when_it_answers(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A code with another secret, or no host at its address: the standby used to say only
    "standby of ...; it takes over when that host is gone", and wait without a word for ever
    (never following, so never taking over)."""
    caplog.set_level("WARNING", logger="sagani_net.standby")
    (link_port,) = free_ports(1)
    key = new_key(tmp_path / "a")
    with standby_host(tmp_path / "b", key, f"tcp://127.0.0.1:{link_port}") as pair:
        until(lambda: "has not answered this standby" in caplog.text)
        assert pair.heard_s is None
        with active_host(tmp_path / "a", link_port=link_port) as host:
            until(lambda: host.link is not None and host.link.in_sync)
            until(lambda: "answers now; this standby follows it" in caplog.text)
    assert caplog.text.count("has not answered this standby") == 1
    wrong = bytes.fromhex(secrets.token_hex(32))
    with active_host(tmp_path / "a") as host, \
            standby_host(tmp_path / "c", wrong, host.link.endpoint) as pair:
        until(lambda: caplog.text.count("has not answered this standby") == 2)
        assert pair.heard_s is None


def test_standby_refuses_while_the_active_lives_and_takes_over_when_a_client_comes(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="sagani_net")
    with active_host(tmp_path / "a") as host:
        assert host.link is not None
        key = new_key(tmp_path / "a")
        raw = Raw(host.endpoint)
        table, tokens = seated_table(raw, players=2)
        with standby_host(tmp_path / "b", key, host.link.endpoint) as pair:
            until(lambda: host.link is not None and host.link.in_sync)
            client = Client(host.endpoint, timeout_s=0.5)
            replica = client.resume(table, tokens[0])
            assert client.core.standby == pair.host.endpoint
            standby_raw = Raw(pair.host.endpoint)
            refused = standby_raw("hello")
            assert (refused["code"], refused["active"]) == ("not_active", host.endpoint)
            # A client that knows only the standby's address (the host moved since it was told
            # one) is sent on to the active host.
            newcomer = Client(pair.host.endpoint, timeout_s=0.5)
            assert newcomer.connect()["standby"] == pair.host.endpoint
            assert newcomer.core.address == host.endpoint
            newcomer.close()
            version = replica.version
            host.stop()  # the active host is gone
            # The client's next request goes to the standby, which takes over and has the game.
            replica = client.sync()
            assert pair.took_over.is_set()
            assert replica.version == version and client.core.address == pair.host.endpoint
            client.next_update(HEARTBEAT_S)  # broadcasts follow: hello and subscribe there
            assert client.core.moved_to == pair.host.endpoint  # the console says so
            assert client.core.host_moves == 1  # `sagani bot` counts it
            # What the standby's screen says: the takeover in words; no line for each client
            # it sent on to the active host ('refused hello ...: not_active', every 4 s).
            assert "is gone and clients came: this host is active now (1 table)" in caplog.text
            assert "not_active" not in caplog.text
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
        old.add_session(SessionRow("gone", "t", 0, "player", "x"))  # the active never made it
        old.commit()
        old.close()
        with standby_host(tmp_path / "old", new_key(tmp_path / "new"), host.link.endpoint):
            until(lambda: history(tmp_path / "old") == history(tmp_path / "new"))
        raw.close()
    # A session alone is no game lost: the copy made before the snapshot went away again.
    assert not list((tmp_path / "old").glob("replaced-*"))


def test_a_host_that_went_its_own_way_keeps_the_games_the_snapshot_replaces(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A host that accepted moves its standby never got, lost the role and came back as the
    standby of the new active host, was given that host's store: its moves were gone from both
    disks. Its own store is kept beside, readable as a data dir, and the log says where."""
    old = Store(tmp_path / "old")
    old.add_table(TableRow("mine", "sagani", {"players": 2, "mode": "multi"}, 3, [], "running",
                           1, 0.0))
    old.add_action("mine", 0, 0, {"type": "pass"}, "s", 1, 1)
    old.commit()
    old.close()
    with active_host(tmp_path / "new") as host:
        assert host.link is not None
        raw = Raw(host.endpoint)
        seated_table(raw, players=2)
        with (caplog.at_level("WARNING", logger="sagani_net.standby"),
              standby_host(tmp_path / "old", new_key(tmp_path / "new"), host.link.endpoint)):
            until(lambda: history(tmp_path / "old") == history(tmp_path / "new"))
            until(lambda: "keeps its own in" in caplog.text)
        raw.close()
    (kept,) = (tmp_path / "old").glob("replaced-*")
    assert "1 tables and 1 actions" in caplog.text and str(kept) in caplog.text
    copy = Store.reader(kept)
    assert copy.has_table("mine") and copy.actions("mine") == [{"seat": 0, "type": "pass"}]
    copy.close()


def test_a_standby_code_carries_the_addresses_and_the_secret_of_either_mode() -> None:
    key = bytes(range(32))
    plain = host_code("tcp://127.0.0.1:47410", "tcp://127.0.0.1:47412", key, None)
    assert StandbyCode.parse(plain.text()) == plain
    assert (plain.address, plain.link, plain.key) == (
        "tcp://127.0.0.1:47410", "tcp://127.0.0.1:47412", key)
    keys = KeyPair(*zmq.curve_keypair())
    secure = StandbyCode.parse(host_code("tcp://0.0.0.0:5", "tcp://0.0.0.0:7", key, keys).text())
    # The secret of a secure host is its CURVE secret key: its standby serves the same join
    # code, and the link key follows from it (not the plain key file's).
    assert secure.keys == keys and secure.key not in (key, z85.decode(keys.secret))
    assert parse_address(secure.address) == Address(f"tcp://{socket.gethostname()}:5",
                                                     keys.public)
    for damaged in (plain.text().replace("sagani-standby", "sagani"),
                    plain.text()[:-3], plain.text().replace("link=47412", "link=0"),
                    # urlsplit's ValueError for an unclosed "[" was let through: a traceback
                    plain.text().replace("127.0.0.1", "[::1")):
        with pytest.raises(CodeError):
            StandbyCode.parse(damaged)


def test_command_line_mistakes_of_a_pair_are_one_line_and_exit_2(tmp_path: Path) -> None:
    code = host_code("tcp://127.0.0.1:1", "tcp://127.0.0.1:3", bytes(32), None).text()
    theirs = tmp_path / "theirs"  # a data dir that holds another host's games
    with running_host(theirs) as host:
        seated_table(Raw(host.endpoint), players=2)
    cases = [
        (["--standby", "127.0.0.1:1"], ""),
        (["--standby", code[:-5]], ""),
        (["--standby", "-"], "sagani://nonsense\n"),
        # An unclosed "[": read from standard input it was a traceback, and on the command
        # line argparse's "invalid standby_code value: '...'" showed the whole code, secret
        # and all, on the host's screen.
        (["--standby", "-"], code.replace("127.0.0.1", "[::1") + "\n"),
        (["--standby", code.replace("127.0.0.1", "[::1")], ""),
        (["--standby", code, "--secure"], ""),
        (["--standby", code, "--data-dir", str(theirs)], ""),
    ]
    for argv, stdin in cases:
        done = subprocess.run([*RUN_SAGANI, "host", "--port", "0",
                               "--data-dir", str(tmp_path / "d"), *argv], input=stdin,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 2, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and "standby" in done.stderr
        assert "secret=" not in done.stderr  # the secret is never echoed


def test_a_standby_code_pasted_at_a_terminal_is_asked_for_and_never_echoed(
        tmp_path: Path) -> None:
    """`sagani host --standby -` at a terminal (as README and the host's invitation say to run
    it, out of the process list): it asks for the code and turns the terminal's echo off while
    it is pasted. Before, it waited without a word, and the pasted code, which holds the host's
    secret, stayed on the screen and in its scrollback for anyone at the party to read."""
    code = host_code("tcp://127.0.0.1:1", "tcp://127.0.0.1:3", secrets.token_bytes(32),
                     None).text()
    with terminals() as consoles:
        standby = Terminal("host", "--standby", "-", "--port", "0", "--quiet",
                           "--data-dir", str(tmp_path))
        consoles.append(standby)
        standby.wait_for("standby code (not shown")  # echo is off from here on
        standby.send(code + "\n")
        standby.wait_for("standby of 127.0.0.1:1")  # the code was read whole
        assert "sagani-standby://" not in standby.screen.text()


def test_a_host_on_a_terminal_keeps_its_standby_code_off_the_screen(tmp_path: Path) -> None:
    """The host's screen is for anyone at the party to look at: a code read off it lets its
    reader follow the host and read every game's hidden cards. On a terminal the code goes to
    an owner-only file in the data dir, named on the screen; piped (scripts, a log the owner
    keeps) the line stays. Before, it was printed on the screen at every start."""
    with terminals() as consoles:
        host = Terminal("host", "--port", "0", "--data-dir", str(tmp_path))
        consoles.append(host)
        host.wait_for("sagani host --standby -")
        kept = tmp_path / "standby.code"
        screen = host.screen.text()  # 80 columns: the file's path is cut there
        assert f"sagani host: standby code in {kept}"[:80] in screen
        assert "secret=" not in screen
        assert kept.stat().st_mode & 0o777 == 0o600
        code = StandbyCode.parse(kept.read_text())  # the host's own: its address and port
        assert f"sagani host: requests tcp://{code.host}:{code.port} " in screen
        host.proc.terminate()
        host.close()


def test_a_secure_standby_prints_its_join_code_as_asked(tmp_path: Path) -> None:
    """--print-join-code with the code of a secure host: the standby is secure by that code,
    and used to be refused as "a plain host has no join code"."""
    keys = KeyPair(*zmq.curve_keypair())
    code = host_code("tcp://127.0.0.1:1", "tcp://127.0.0.1:3", bytes(32), keys).text()
    proc = subprocess.Popen([*RUN_SAGANI, "host", "--standby", "-", "--print-join-code",
                             "--port", "0", "--data-dir", str(tmp_path)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(code + "\n")
    proc.stdin.close()
    try:
        first = proc.stdout.readline().strip().strip("'")
        assert parse_address(first).server_key == keys.public
    finally:
        proc.terminate()
        proc.wait(WAIT_S)


def start_host(
    key: bytes, data_dir: Path, link_port: int, standby_of: str | None
) -> tuple[Host | Standby, threading.Thread]:
    """A host of the pair started as ``sagani host`` starts it (``--standby`` if ``standby_of``):
    it elects, then serves or follows."""
    host = Host(Store(data_dir), port=0, heartbeat_s=HEARTBEAT_S, client_seeds=True)
    link = own_link(host, key, link_port)
    peer = standby_of or former_standby(data_dir)
    following = elect(link, peer, follow_silent=standby_of is not None)
    if following is None:
        host.link = link
        return host, host.serve_in_thread()
    pair = Standby(host, link, following)
    return pair, pair.serve_in_thread()


@contextmanager
def started_together(
    key: bytes, *hosts: tuple[Path, int, str | None], apart_s: float = 0.0
) -> Iterator[tuple[Host, Standby]]:
    """Start hosts (data dir, link port, ``--standby`` link) at the same moment, or each
    ``apart_s`` after the one before, one thread each; yields the one that serves and the one
    that follows (exactly one of each)."""
    barrier = threading.Barrier(len(hosts))
    started: list[tuple[Host | Standby, threading.Thread]] = []

    def start(order: int, host: tuple[Path, int, str | None]) -> None:
        barrier.wait()
        time.sleep(order * apart_s)  # the gap between the starts is the case under test
        started.append(start_host(key, *host))

    threads = [threading.Thread(target=start, args=pair) for pair in enumerate(hosts)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT_S)
    with ExitStack() as stack:
        for node, thread in started:
            stack.callback(thread.join, WAIT_S)
            stack.callback(node.stop)
        active = [node for node, _ in started if isinstance(node, Host)]
        following = [node for node, _ in started if isinstance(node, Standby)]
        assert len(active) == len(following) == 1, started
        yield active[0], following[0]


def assert_follows(active: Host, standby: Standby, table: str, tokens: list[str]) -> None:
    """``standby`` refuses clients, catches up with ``active``, and an action goes through."""
    assert active.link is not None and standby.active == active.link.endpoint
    standby_raw = Raw(standby.host.endpoint)
    assert standby_raw("hello")["code"] == "not_active"
    standby_raw.close()
    until(lambda: active.link is not None and active.link.in_sync)
    raw = Raw(active.endpoint)
    # Ids of its own, as a client's are: a Raw counts from 1, and an act an earlier call made
    # with the same token under the same id is no retry (it was answered with that act's
    # reply, the action unplayed; now refused).
    raw.next_id = secrets.randbits(40)
    version = raw("sync", table=table)["version"]
    assert act(raw, table, tokens, random.Random(7))["type"] == "accepted"
    assert raw("sync", table=table)["version"] == version + 1
    # (On both disks at once unless the standby was slower than a heartbeat to confirm, as on
    # a loaded machine: then soon after. The wait is the subject of the first test above.)
    copy, kept = standby.host.store.data_dir, active.store.data_dir
    until(lambda: history(copy) == history(kept))
    raw.close()


def link_at(port: int) -> str:
    return f"tcp://127.0.0.1:{port}"


def pair_that_played(tmp_path: Path) -> tuple[str, list[str], dict[str, int], bytes]:
    """A followed by B, a table with a few actions on both, then both down. Returns the table,
    its tokens, the link ports of "a" and "b" (fixed, so that ``standby.peer`` stays right
    across restarts), and the key."""
    ports = dict(zip("ab", free_ports(2), strict=True))
    with active_host(tmp_path / "a", link_port=ports["a"]) as host:
        key = new_key(tmp_path / "a")
        raw = Raw(host.endpoint)
        with standby_host(tmp_path / "b", key, link_at(ports["a"]), ports["b"]):
            save_key(tmp_path / "b", key)  # as --standby does (standby.adopt)
            until(lambda: host.link is not None and host.link.in_sync)
            table, tokens = seated_table(raw, players=2)
            rng = random.Random(5)
            for _ in range(3):
                assert act(raw, table, tokens, rng)["type"] == "accepted"
        raw.close()
    assert former_standby(tmp_path / "a") == link_at(ports["b"])
    return table, tokens, ports, key


@pytest.mark.parametrize("b_started_as", ["plain", "standby"])
@pytest.mark.parametrize("longer", ["a", "b"])
def test_two_hosts_started_together_agree_that_the_longer_journal_serves(
    tmp_path: Path, longer: str, b_started_as: str
) -> None:
    table, tokens, ports, key = pair_that_played(tmp_path)
    # Then one of them served alone for a while (the other was away), and went down too.
    with active_host(tmp_path / longer, link_port=ports[longer]) as host:
        raw = Raw(host.endpoint)
        rng = random.Random(6)
        for _ in range(2):
            assert act(raw, table, tokens, rng)["type"] == "accepted"
        raw.close()
    standby_of = link_at(ports["a"]) if b_started_as == "standby" else None
    if b_started_as == "plain":  # as if A had come back as B's standby once
        (tmp_path / "b" / "standby.peer").write_text(link_at(ports["a"]) + "\n")
    hosts = (tmp_path / "a", ports["a"], None), (tmp_path / "b", ports["b"], standby_of)
    with started_together(key, *hosts) as (active, standby):
        assert active.store.data_dir == tmp_path / longer
        assert_follows(active, standby, table, tokens)


def test_two_hosts_with_the_same_journal_started_together_agree_on_one(tmp_path: Path) -> None:
    table, tokens, ports, key = pair_that_played(tmp_path)
    (tmp_path / "b" / "standby.peer").write_text(link_at(ports["a"]) + "\n")
    # The nonces decide, anew each time; the last time B comes up while A is still asking.
    for apart_s in (0.0, 0.0, 1.0):
        assert history(tmp_path / "a") == history(tmp_path / "b")
        hosts = (tmp_path / "a", ports["a"], None), (tmp_path / "b", ports["b"], None)
        with started_together(key, *hosts, apart_s=apart_s) as (active, standby):
            assert_follows(active, standby, table, tokens)


def test_a_standby_guards_its_connections_as_the_active_host_does(tmp_path: Path) -> None:
    """While it only refuses, a peer's message that never ends is cut all the same: no peer
    can fill the memory of the host that is to take over."""
    with active_host(tmp_path / "a") as host:
        assert host.link is not None
        with standby_host(tmp_path / "b", new_key(tmp_path / "a"), host.link.endpoint) as pair:
            until(lambda: host.link is not None and host.link.in_sync)
            port = int(pair.host.endpoint.rsplit(":", 1)[1])
            sent, growth = endless_message(port, 64 * 1024)
            assert sent < ATTACK_BYTES, "the standby never cut the endless message"
            assert growth < RSS_SLACK_BYTES
            standby_raw = Raw(pair.host.endpoint)
            assert standby_raw("hello")["code"] == "not_active"
            standby_raw.close()


def test_one_address_cannot_take_every_connection_to_the_link(tmp_path: Path) -> None:
    """Anyone may connect to the link port (only the handshake needs the key): one machine
    holds a few connections there at most, and the standby still follows."""
    with active_host(tmp_path / "a") as host:
        assert host.link is not None
        port = int(host.link.endpoint.rsplit(":", 1)[1])
        hoard, cut_at_once = hoard_connections(port, LINK_CONNECTIONS_PER_ADDRESS + 8)
        # Else it kept every connection.
        until(lambda: cut_at_once + sum(map(closed_by_host, hoard)) >= 8)
        with standby_host(tmp_path / "b", new_key(tmp_path / "a"), host.link.endpoint):
            until(lambda: host.link is not None and host.link.in_sync)
        for sock in hoard:
            sock.close()


def test_the_standby_removes_the_records_its_active_host_removes(
    tmp_path: Path, toy_registered: str
) -> None:
    """Past the bound of finished games kept, the active host removes the oldest: a standby
    following it ends up with the same set (the removal is a journal entry like any write)."""
    with active_host(tmp_path / "a", limits=Limits(finished_records=1)) as host:
        assert host.link is not None
        with standby_host(tmp_path / "b", new_key(tmp_path / "a"), host.link.endpoint):
            until(lambda: host.link is not None and host.link.in_sync)
            raw = Raw(host.endpoint)
            for seed in range(3):
                table = raw("create", game=toy_registered, config={}, seed=seed)["table"]
                play_first_legal(raw, table, [raw("join", table=table, name=f"p{seat}")["token"]
                                              for seat in (0, 1)])
            raw.close()
            until(lambda: history(tmp_path / "b") == history(tmp_path / "a"))
            assert [row[0] for row in history(tmp_path / "b")[1][0]] == [table]


def test_the_active_journal_holds_only_what_the_standby_has_not_confirmed(
    tmp_path: Path,
) -> None:
    """Issue 18 point 11: the journal was every write again, for ever. Now it holds the
    entries the standby has not confirmed (and the last one it has); none when no standby
    follows, and a standby that comes back gets the store whole."""
    with active_host(tmp_path / "a") as host:
        assert host.link is not None
        key, link = new_key(tmp_path / "a"), host.link.endpoint
        raw = Raw(host.endpoint)
        table, tokens = seated_table(raw, players=2)
        rng = random.Random(8)
        for _ in range(3):  # no standby yet: nothing journalled
            assert act(raw, table, tokens, rng)["type"] == "accepted"
        assert journal_length(tmp_path / "a") == 0
        with standby_host(tmp_path / "b", key, link):
            until(lambda: host.link is not None and host.link.in_sync)
            until(lambda: history(tmp_path / "b") == history(tmp_path / "a"))
            for _ in range(30):
                assert act(raw, table, tokens, rng)["type"] == "accepted"
            # (A standby slower than a heartbeat to confirm, as on a loaded machine, is not
            # waited for: then the active host keeps more until it has caught up.)
            until(lambda: host.link is not None and host.link.in_sync
                              and history(tmp_path / "b") == history(tmp_path / "a"))
            assert act(raw, table, tokens, rng)["type"] == "accepted"
            # The entry the standby last confirmed and this act's: before, all 30 acts' and more.
            assert journal_length(tmp_path / "a") <= 4
            until(lambda: history(tmp_path / "b") == history(tmp_path / "a"))
            assert journal_length(tmp_path / "b") == 0  # a standby follows no one's journal
        until(lambda: host.link is not None and not host.link.in_sync)  # lost
        assert act(raw, table, tokens, rng)["type"] == "accepted"
        assert journal_length(tmp_path / "a") == 0
        with standby_host(tmp_path / "b", key, link):
            until(lambda: history(tmp_path / "b") == history(tmp_path / "a"))
        raw.close()


def test_a_batch_the_active_host_cannot_commit_is_undone_on_its_standby(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The active host sends a batch's entries as it commits them, so that the standby writes
    them meanwhile. When its own disk then refuses the batch (a real full tmpfs), the standby
    gets the active host's store again; refused batches after it cost no snapshot each; with
    room again the two go on alike."""
    # (240k: room for the store's schema, its indexes and a game's start, then little more.)
    with (tmpfs(tmp_path / "small", "240k") as small,
          active_host(small, heartbeat_s=PATIENT_HEARTBEAT_S) as host):
        assert host.link is not None
        raw = Raw(host.endpoint)
        with standby_host(tmp_path / "b", new_key(small), host.link.endpoint):
            until(lambda: host.link is not None and host.link.in_sync)
            game = Game(raw, seed=703)
            fill_until_refused(game)
            assert caplog.text.count("could not commit: it gets this host's store again") == 1
            until(lambda: history(tmp_path / "b") == history(small))
            for _ in range(3):
                assert game.act()["code"] == "storage_failed"
            assert caplog.text.count("it gets this host's store again") == 1
            remount(small, "size=16m")
            for _ in range(3):
                assert game.act()["type"] == "accepted"
                # Replied to only once the standby had it: the two stores alike at once.
                assert history(tmp_path / "b") == history(small)
        raw.close()


def test_an_ack_naming_a_head_the_active_host_never_had_counts_for_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A standby's ack names its cursor and head: an ack of entries the active host has since
    undone (a failed commit after they were sent) must not pass for one of the entries sent
    since, under the same numbers. A standby with the key that acks the right cursor with
    another head is not taken at its word: the act waits out the ack, as for a silent one."""
    with active_host(tmp_path / "a", heartbeat_s=PATIENT_HEARTBEAT_S) as host:
        assert host.link is not None
        key = new_key(tmp_path / "a")
        raw = Raw(host.endpoint)
        table, tokens = seated_table(raw, players=2)
        peer = HandStandby(host, key)
        rng = random.Random(4)

        def ack_with(head: Callable[[dict], str]) -> None:
            entries = peer.next_of("entries")
            peer.ack(entries["entries"][-1][0], head(entries))

        acker = threading.Thread(target=ack_with, args=(lambda entries: entries["head"],))
        acker.start()
        assert act(raw, table, tokens, rng)["type"] == "accepted"
        acker.join()
        assert "did not confirm" not in caplog.text
        acker = threading.Thread(target=ack_with, args=(lambda entries: "0" * 64,))
        acker.start()
        assert act(raw, table, tokens, rng)["type"] == "accepted"
        acker.join()
        assert "did not confirm entry" in caplog.text
        assert not host.link.in_sync
        peer.close()
        raw.close()


def test_a_batch_sent_in_two_parts_is_waited_for_whole(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The active host sends a batch's first action to its standby at once (written there
    while this host goes on) and the rest at the batch's end. Its replies wait for the
    standby's word on every part: an ack of the first alone does not do."""
    with active_host(tmp_path / "a", heartbeat_s=PATIENT_HEARTBEAT_S) as host:
        assert host.link is not None
        raws = [Raw(host.endpoint) for _ in range(3)]
        rng = random.Random(6)
        bodies = []
        for raw in raws:
            table, tokens = seated_table(raw, players=2)
            bodies.append(raw.frame("act", **act_fields(raw, table, tokens, rng)))
        peer = HandStandby(host, new_key(tmp_path / "a"))
        for raw, body in zip(raws, bodies, strict=True):
            raw.sock.send(body)  # together: one batch as a rule (the host reads until none wait)
        part = peer.next_of("entries")  # the batch's first action
        peer.ack(part["entries"][-1][0], part["head"])  # and never the rest
        replies = [decode_message(raw.sock.recv()) for raw in raws]
        assert [reply["type"] for reply in replies] == ["accepted"] * 3
        # Replied to only once the host gave up on the standby's word on the rest. (Should the
        # three come in more than one batch, the next batch is waited for instead: it began
        # with the standby in sync.) The link reads acks only while it waits, so the batch's
        # second send saw the first part unconfirmed; it must not have called the batch one
        # not to wait for.
        # (What the standby was sent and the store's cursor, should this ever fail again: it
        # failed once in a loaded suite, with nothing logged at all.)
        assert "did not confirm entry" in caplog.text, (
            [e[0] for e in part["entries"]], host.store.cursor(), host.link.in_sync)
        assert not host.link.in_sync
        peer.close()
        for raw in raws:
            raw.close()


def test_the_link_is_out_of_step_from_each_send_until_its_ack(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A snapshot or entries count as sent before they go: a thread that reads ``in_sync`` (a
    standby by hand, as above) never finds the link in step with a standby that has not
    confirmed what it was just sent. (The snapshot was counted after it went: a standby by hand
    could get it, ack it and see the link in step before the host had read the ack, and then
    the host called its next batch one not to wait for.)"""
    with active_host(tmp_path / "a", heartbeat_s=PATIENT_HEARTBEAT_S) as host:
        link = host.link
        assert link is not None
        raw = Raw(host.endpoint)
        table, tokens = seated_table(raw, players=2)
        body = raw.frame("act", **act_fields(raw, table, tokens, random.Random(3)))
        seen: list[tuple[str, bool]] = []
        send = link._send

        def watched(message: dict) -> None:
            send(message)
            if message["type"] in ("snapshot", "entries"):
                seen.append((message["type"], link.in_sync))  # as it went

        monkeypatch.setattr(link, "_send", watched)
        peer = HandStandby(host, new_key(tmp_path / "a"))
        raw.sock.send(body)
        while not raw.sock.poll(0, zmq.POLLIN):  # every part acked as it comes, then the reply
            if peer.sock.poll(50, zmq.POLLIN):
                message = msgpack.unpackb(peer.sock.recv())
                if message["type"] == "entries":
                    peer.ack(message["entries"][-1][0], message["head"])
        assert decode_message(raw.sock.recv())["type"] == "accepted"
        assert [kind for kind, _ in seen][:2] == ["snapshot", "entries"], seen
        assert not any(in_sync for _, in_sync in seen), seen
        assert "did not confirm entry" not in caplog.text  # the act was waited for, and had it
        peer.close()
        raw.close()


def test_a_new_standby_is_waited_for_at_the_next_batch_though_it_is_catching_up(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A standby is named to clients from its follow on, while it may still be writing its
    snapshot: the next batch waits for its word all the same (a standby catching up is not
    waited for otherwise), so an act accepted then is on its disk, or the host says it is not.
    Bounded as any wait: one that never comes costs that batch ACK_WAIT_HEARTBEATS, once."""
    with active_host(tmp_path / "a", heartbeat_s=PATIENT_HEARTBEAT_S) as host:
        assert host.link is not None
        raw = Raw(host.endpoint)
        table, tokens = seated_table(raw, players=2)
        rng = random.Random(4)
        peer = HandStandby(host, new_key(tmp_path / "a"), ack_snapshot=False)
        raw.sock.send(raw.frame("act", **act_fields(raw, table, tokens, rng)))
        peer.next_of("entries")  # and no word at all, of the snapshot or of the act
        assert decode_message(raw.sock.recv())["type"] == "accepted"
        assert caplog.text.count("did not confirm entry") == 1, caplog.text
        # Left behind now: the next act is not waited for (nor logged again).
        assert raw("act", **act_fields(raw, table, tokens, rng))["type"] == "accepted"
        assert caplog.text.count("did not confirm entry") == 1, caplog.text
        peer.close()
        raw.close()


class HandStandby:
    """A standby by hand: a DEALER with the key that follows from nothing, acks the snapshot
    it gets, and acks entries only as a test says."""

    def __init__(self, host: Host, key: bytes, ack_snapshot: bool = True) -> None:
        assert host.link is not None
        self.sock = zmq.Context.instance().socket(zmq.DEALER)
        self.sock.linger = 0
        self.sock.curve_publickey, self.sock.curve_secretkey = zmq.curve_keypair()
        self.sock.curve_serverkey = zmq.curve_public(_server_secret(key))
        self.sock.connect(host.link.endpoint)
        self.sock.send(msgpack.packb({"type": "follow", "proof": _proof(key), "cursor": 0,
                                      "head": "", "port": 1, "link_port": 2}))
        #: The snapshot it got: a store that is not this one's, so all of it.
        self.snapshot = self.next_of("snapshot")
        if ack_snapshot:
            self.ack(self.snapshot["cursor"], self.snapshot["head"])
            until(lambda: host.link is not None and host.link.in_sync)

    def next_of(self, kind: str) -> dict:
        while True:
            assert self.sock.poll(WAIT_S * 1000, zmq.POLLIN), f"no {kind} from the active host"
            message = msgpack.unpackb(self.sock.recv())
            if message["type"] == kind:
                return message

    def ack(self, cursor: int, head: str) -> None:
        self.sock.send(msgpack.packb({"type": "ack", "cursor": cursor, "head": head}))

    def close(self) -> None:
        self.sock.close()


def test_the_active_host_beats_to_its_standby_as_soon_as_a_seat_comes_back(
    tmp_path: Path,
) -> None:
    """A seat that came back (or went away) in the last quarter heartbeat before its active host
    was lost was shown wrong by the standby that took over, which knew the seats away only from
    the pair's beats, 4 a heartbeat. The host here is one that took over with seat 1 away and
    now has a standby of its own."""
    heartbeat_s = 4.0  # a beat a second: a loaded machine's pause is well within half of it
    with running_host(tmp_path, heartbeat_s=heartbeat_s) as first:
        raw = Raw(first.endpoint)
        table, tokens = seated_table(raw)
        raw.close()
    host = Host(Store(tmp_path), port=0, heartbeat_s=heartbeat_s, client_seeds=True)
    host.reload(away={table: [1]})
    link = host.link = own_link(host, new_key(tmp_path), 0)
    host.serve_in_thread()
    peer = HandStandby(host, new_key(tmp_path))
    raw = Raw(host.endpoint)
    try:
        assert peer.next_of("beat")["away"] == {table: [1]}  # the follow's
        # A beat at the pair's pace: the change below comes a moment after it, which held
        # the change's beat back for 20 ms (the gap counted from any beat, not only from one
        # that told a change: the follow's, a second ago).
        assert peer.next_of("beat")["away"] == {table: [1]}
        asked_s = time.monotonic()
        assert raw("here", table=table, token=tokens[1])["away"] == []
        # Told before the host answers anything else, though its last beat (the follow's) went
        # a moment ago: a takeover right after that answer knows seat 1 is back.
        raw("here", table=table, token=tokens[1])
        assert link._away_told == host.room.away_changes
        beat = peer.next_of("beat")
        # At the host's next turn, not at the pair's pace (a beat's time after the follow's).
        assert beat["away"] == {}
        assert time.monotonic() - asked_s < link.beat_s / 2
    finally:
        raw.close()
        peer.close()
        host.stop()


def test_a_snapshot_in_many_pieces_makes_the_same_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A snapshot bigger than a piece comes in several, applied in one transaction."""
    monkeypatch.setattr(standby_module, "SNAPSHOT_PIECE_BYTES", 64)
    with active_host(tmp_path / "a") as host:
        assert host.link is not None
        raw = Raw(host.endpoint)
        table, tokens = seated_table(raw, players=2)
        rng = random.Random(9)
        for _ in range(12):
            assert act(raw, table, tokens, rng)["type"] == "accepted"
        with standby_host(tmp_path / "b", new_key(tmp_path / "a"), host.link.endpoint):
            until(lambda: host.link is not None and host.link.in_sync)
            until(lambda: history(tmp_path / "b") == history(tmp_path / "a"))
            assert act(raw, table, tokens, rng)["type"] == "accepted"  # and it follows on
            until(lambda: history(tmp_path / "b") == history(tmp_path / "a"))
        raw.close()


def test_a_snapshot_goes_out_a_piece_each_turn_and_the_writes_meanwhile_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A snapshot bigger than a piece goes out one piece each turn of the active host's loop
    (its link's tick), from the store as it was when it began, so that the turns between serve
    every other table and only a piece is read at once; what is written meanwhile follows it
    as entries. (Read and sent in one turn, a store of 3,000 games held every table for 2.2 s
    and took 290 MiB.)"""
    monkeypatch.setattr(standby_module, "SNAPSHOT_PIECE_BYTES", 64)
    store = Store(tmp_path / "a")
    for n in range(4):  # finished games (a host resumes none of them: rows are all they are)
        store.add_table(TableRow(f"t{n}", "sagani", {"players": 2}, n, [], "over", 0, n))
        store.add_session(SessionRow(f"hash-{n}", f"t{n}", 0, "player", "ann"))
        store.add_action(f"t{n}", 0, 0, {"type": "draw"}, f"hash-{n}", 1, 1)
        store.finish_table(f"t{n}", 2, {"game": "sagani"})
    store.commit()
    host = Host(store, port=0, heartbeat_s=PATIENT_HEARTBEAT_S)
    link = host.link = own_link(host, new_key(tmp_path / "a"), 0)
    sent: list[dict] = []
    send = link._send
    monkeypatch.setattr(link, "_send", lambda message: (sent.append(message), send(message)))
    peer = zmq.Context.instance().socket(zmq.DEALER)
    peer.linger = 0
    peer.curve_publickey, peer.curve_secretkey = zmq.curve_keypair()
    peer.curve_serverkey = zmq.curve_public(_server_secret(new_key(tmp_path / "a")))
    peer.connect(link.endpoint)
    peer.send(msgpack.packb({"type": "follow", "proof": _proof(new_key(tmp_path / "a")),
                             "cursor": 0, "head": "", "port": 1, "link_port": 2}))
    was = store.snapshot()
    until(lambda: link.tick() or any(m["type"] == "snapshot" for m in sent))

    def pieces() -> list[dict]:
        return [m for m in sent if m["type"] == "snapshot"]

    assert len(pieces()) == 1
    # A write meanwhile, as the host's loop makes between two turns of the link.
    store.add_action("t0", 1, 1, {"type": "pass"}, "hash-0", 2, 2)
    store.commit()
    while not pieces()[-1]["done"]:
        before = len(pieces())
        link.tick()
        assert len(pieces()) == before + 1  # one a turn, never the rest at once
    assert len(pieces()) > 3
    assert [m["part"] for m in pieces()] == list(range(len(pieces())))
    rows = [(table, tuple(row)) for m in pieces() for table, row in m["rows"]]
    assert rows == was  # the store as it was when the snapshot began
    (entries,) = [m for m in sent if m["type"] == "entries"]  # then what was written meanwhile
    copy = Store(tmp_path / "b")
    copy.restore(rows)
    copy.set_head(pieces()[0]["cursor"], pieces()[0]["head"])
    copy.replay([tuple(entry) for entry in entries["entries"]])
    copy.commit()
    assert copy.snapshot() == store.snapshot()
    assert (copy.cursor(), copy.head()) == (store.cursor(), store.head())
    peer.close()
    host.close()  # (and its link)


def test_a_standby_beats_between_the_pieces_of_a_long_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A standby writing a snapshot whose pieces keep coming beats between them: it drained
    them all without a word, and the active host, hearing nothing for two heartbeats, lost it
    (a store of 3,000 games, 100 MB, took longer than that to write)."""
    key = new_key(tmp_path / "a")
    active, port = hand_active(key)

    class Clock:  # the standby's: each piece written takes a beat's time
        offset_s = 0.0

        def __getattr__(self, name: str) -> Any:
            return getattr(time, name)

        def monotonic(self) -> float:
            return time.monotonic() + self.offset_s

    clock = Clock()
    monkeypatch.setattr(standby_module, "time", clock)
    restore = Store.restore

    def costly(store: Store, rows: list) -> None:
        restore(store, rows)
        clock.offset_s += HEARTBEAT_S / standby_module.BEATS_PER_HEARTBEAT

    monkeypatch.setattr(Store, "restore", costly)
    with standby_host(tmp_path / "b", key, f"tcp://127.0.0.1:{port}"):
        follower = followed(active)
        pieces = 6
        for part in range(pieces):  # all at once: the standby finds them waiting
            send_piece(active, follower, part, done=part == pieces - 1)
        heard = []
        while not heard or heard[-1] != "ack":
            assert active.poll(WAIT_S * 1000, zmq.POLLIN), heard
            heard.append(msgpack.unpackb(active.recv_multipart()[1])["type"])
        assert heard.count("beat") >= pieces - 1, heard
    active.close()


def test_a_standby_that_loses_its_active_host_mid_snapshot_does_not_serve(
    tmp_path: Path,
) -> None:
    """Lost in the middle of its first snapshot, a standby holds none of the active host's
    games: it refuses players rather than take over. It took over, served no table, and the
    active host, started again, followed it and was given its empty store: 3,025 tables of a
    data dir gone from both hosts."""
    key = new_key(tmp_path / "a")
    active, port = hand_active(key)
    with standby_host(tmp_path / "b", key, f"tcp://127.0.0.1:{port}") as pair:
        send_piece(active, followed(active), 0, done=False)
        until(lambda: pair._next_part == 1)  # the piece is in, the next one awaited
        active.close()  # and nothing more: the active host is gone
        raw = Raw(pair.host.endpoint)

        def refusal() -> dict | None:
            reply = raw("sync", table="t1")
            return None if reply.get("message") in (NOT_ACTIVE, NOT_HEARD) else reply

        reply = until(refusal, poll_s=0.05)  # (while it still hears it: "alive")
        assert (reply["code"], reply["message"]) == ("not_active", NO_COPY), reply
        assert pair.role.state is Role.LOST
        raw.close()


def hand_active(key: bytes) -> tuple[zmq.Socket, int]:
    """An active host's link by hand: a ROUTER with the pair's key, on a free port."""
    active = zmq.Context.instance().socket(zmq.ROUTER)
    active.linger = 0
    active.curve_server = True
    active.curve_secretkey = _server_secret(key)
    active.curve_publickey = zmq.curve_public(_server_secret(key))
    return active, active.bind_to_random_port("tcp://127.0.0.1")


def followed(active: zmq.Socket) -> bytes:
    """The routing id of the standby whose follow came to ``active``."""
    assert active.poll(WAIT_S * 1000, zmq.POLLIN)
    follower, follow = active.recv_multipart()
    assert msgpack.unpackb(follow)["type"] == "follow"
    return follower


def send_piece(active: zmq.Socket, follower: bytes, part: int, done: bool) -> None:
    active.send_multipart((follower, msgpack.packb(
        {"type": "snapshot", "part": part, "rows": [], "done": done, "cursor": 0, "head": "",
         "heartbeat_s": HEARTBEAT_S, "port": 1})))


def next_heartbeat(sub: zmq.Socket, ready: Callable[[dict], bool]) -> dict:
    """The first heartbeat on ``sub`` that ``ready`` accepts (updates are skipped)."""
    give_up_s = time.monotonic() + WAIT_S
    while (left_s := give_up_s - time.monotonic()) > 0:
        if sub.poll(left_s * 1000):
            message = msgpack.unpackb(sub.recv_multipart()[1])
            if message["type"] == "heartbeat" and ready(message):
                return message
    raise AssertionError("no such heartbeat")


def test_a_standby_that_goes_is_announced_gone_on_every_table(tmp_path: Path) -> None:
    # Issue 18, point 12: welcome and the heartbeats named a stopped standby for ever.
    with active_host(tmp_path / "a") as host:
        assert host.link is not None
        key, link = new_key(tmp_path / "a"), host.link.endpoint
        raw = Raw(host.endpoint)
        table, _ = seated_table(raw, players=2)
        sub = zmq.Context.instance().socket(zmq.SUB)
        sub.linger = 0
        sub.connect(host.pub_endpoint)
        sub.subscribe(f"table.{table}.".encode())
        next_heartbeat(sub, lambda beat: True)  # subscribed
        with standby_host(tmp_path / "b", key, link):
            named = next_heartbeat(sub, lambda beat: beat["standby"] is not None)["standby"]
            assert raw("hello")["standby"] == named
        # Once the link has lost it (two heartbeats of silence), at once on every table.
        next_heartbeat(sub, lambda beat: beat["standby"] is None)
        assert raw("hello")["standby"] is None
        assert raw("join", table=table, role="spectator")["standby"] is None
        sub.close()
        raw.close()


def test_a_standby_left_behind_is_told_of_each_write_replied_for_without_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A standby that does not confirm in time is left behind, and the act is replied to
    without it: the beat that tells it comes first, naming the last write replied for so."""
    with active_host(tmp_path / "a", heartbeat_s=PATIENT_HEARTBEAT_S) as host:
        assert host.link is not None
        raw = Raw(host.endpoint)
        table, tokens = seated_table(raw, players=2)
        peer = HandStandby(host, new_key(tmp_path / "a"))
        raw.sock.send(raw.frame("act", **act_fields(raw, table, tokens, random.Random(4))))
        entries = peer.next_of("entries")  # and no word of it
        assert decode_message(raw.sock.recv())["type"] == "accepted"
        assert peer.next_of("beat")["alone"] == entries["entries"][-1][0]
        peer.close()
        raw.close()


def test_a_standby_that_loses_its_active_host_while_left_behind_does_not_serve(
    tmp_path: Path,
) -> None:
    """It took over with what it had, and the moves the players had been told of, which it
    never got, were undone."""
    key = new_key(tmp_path / "a")
    active, port = hand_active(key)
    with standby_host(tmp_path / "b", key, f"tcp://127.0.0.1:{port}") as pair:
        follower = followed(active)
        send_piece(active, follower, 0, done=True)  # in step at cursor 0
        until(lambda: pair._next_part is None and pair.role.state is Role.PASSIVE)
        active.send_multipart((follower, msgpack.packb(
            {"type": "beat", "cursor": 3, "alone": 3, "heartbeat_s": HEARTBEAT_S, "port": 1})))
        until(lambda: pair._must_have == 3)
        active.close()  # with writes 1-3, replied for, the standby never got
        raw = Raw(pair.host.endpoint)

        def refusal() -> dict | None:
            reply = raw("sync", table="t1")
            return None if reply.get("message") in (NOT_ACTIVE, NOT_HEARD) else reply

        reply = until(refusal, poll_s=0.05)
        assert (reply["code"], reply["message"]) == ("not_active", BEHIND), reply
        assert pair.role.state is Role.LOST and not pair.took_over.is_set()
        raw.close()


def test_a_standby_waiting_for_its_active_host_asks_it_once_when_it_comes(
    tmp_path: Path,
) -> None:
    """A standby follows again every two heartbeats while its active host is away; each of
    those follows waited on the link for the host to come back, and the host, started again,
    answered every one: a snapshot each (a piece of up to 1 MiB at once, and the standby
    starting its copy again each time), dozens after a few minutes away."""
    key = new_key(tmp_path / "a")
    (port,) = free_ports(1)
    with standby_host(tmp_path / "b", key, f"tcp://127.0.0.1:{port}") as pair:
        until(lambda: pair._follows >= 4)  # asked four times, nobody there
        active = zmq.Context.instance().socket(zmq.ROUTER)
        active.linger = 0
        active.curve_server = True
        active.curve_secretkey = _server_secret(key)
        active.curve_publickey = zmq.curve_public(_server_secret(key))
        active.bind(f"tcp://127.0.0.1:{port}")
        follower = followed(active)
        send_piece(active, follower, 0, done=True)
        kinds = []
        while not kinds or kinds[-1] != "ack":  # what the standby sent before its ack
            assert active.poll(WAIT_S * 1000, zmq.POLLIN)
            kinds.append(msgpack.unpackb(active.recv_multipart()[1])["type"])
        assert "follow" not in kinds, kinds
        active.close()


def test_a_client_that_finds_no_host_serving_is_told_what_the_standby_says(
    tmp_path: Path,
) -> None:
    """The active host gone, its standby left behind and refusing: a client's request ended in
    "no reply from ... after 4 tries", which is what the console put on its message line for
    as long as it lasted, though the standby had answered each time, saying what to do."""
    key = new_key(tmp_path / "a")
    active, port = hand_active(key)
    with standby_host(tmp_path / "b", key, f"tcp://127.0.0.1:{port}") as pair:
        follower = followed(active)
        send_piece(active, follower, 0, done=True)
        until(lambda: pair._next_part is None and pair.role.state is Role.PASSIVE)
        active.send_multipart((follower, msgpack.packb(
            {"type": "beat", "cursor": 3, "alone": 3, "heartbeat_s": HEARTBEAT_S, "port": 1})))
        until(lambda: pair._must_have == 3)
        active.close()
        until(lambda: pair.role.state is Role.LOST)
        (gone,) = free_ports(1)  # where the active host's clients reached it: nobody now
        client = Client(f"tcp://127.0.0.1:{gone}", standby=pair.host.endpoint,
                        timeout_s=0.2, retries=3)
        with pytest.raises(HostTimeout) as refused:
            client.connect()
        client.close()
        where = pair.host.endpoint.removeprefix("tcp://")
        assert str(refused.value) == f"no host serves hello after 4 tries; {where} says: {BEHIND}"
