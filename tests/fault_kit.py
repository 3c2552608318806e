"""Tools for the fault, fuzz and security tests: a TCP proxy that can cut a link or listen in,
a player process that logs what the host accepted from it, and a data dir that fills up.

Everything listens and connects on 127.0.0.1 only. Run as a script it is one player process:
``python fault_kit.py ADDRESS TABLE SEED [TOKEN]`` joins TABLE (or comes back to its seat with
TOKEN), prints ``seat S token T``, then one ``accepted [version, seat, action]`` line per
accepted action, and ``over`` when the game has ended.
"""

from __future__ import annotations

import json
import multiprocessing
import random
import select
import socket
import struct
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import zmq
from test_net_support import WAIT_S, Accepted, Raw, choose, play_to_end, until

from sagani_net.client import Client
from sagani_net.protocol import VERSION, decode_message, encode

#: Client options that ride out a host restart: short tries, many of them.
PATIENT = {"timeout_s": 0.3, "retries": 60}

CHUNK = 65536
TICK_S = 0.02


MIB = 1024 * 1024
#: The most an attack sends; a defended host cuts it long before.
ATTACK_BYTES = 128 * MIB
#: What the host may grow by under one attack: its limit per connection plus slack for
#: libzmq's and the allocator's own buffers.
RSS_SLACK_BYTES = 40 * MIB


def rss_bytes() -> int:
    """This process's resident set (the host serves on a thread of it)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


class PeakRss(threading.Thread):
    """Samples the resident set every few milliseconds while a block runs."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.before = rss_bytes()
        self.peak = self.before
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.wait(0.005):
            self.peak = max(self.peak, rss_bytes())

    def __enter__(self) -> PeakRss:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self.join()

    @property
    def growth(self) -> int:
        return self.peak - self.before


def zmtp_dealer(port: int, socket_type: bytes = b"DEALER") -> socket.socket:
    """A hand-made ZMTP 3.0 peer (NULL mechanism, socket type DEALER unless told) past its
    handshake: what a hostile program writes instead of using libzmq."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.settimeout(WAIT_S)
    sock.sendall(b"\xff" + bytes(8) + b"\x7f" + b"\x03\x00" + b"NULL".ljust(20, b"\0")
                 + b"\0" + bytes(31))
    # libzmq drops a peer that runs ahead of the host's greeting: wait for all 64 bytes.
    greeting = b""
    while len(greeting) < 64:
        greeting += sock.recv(64 - len(greeting))
    ready = (b"\x05READY" + b"\x0bSocket-Type" + struct.pack(">I", len(socket_type))
             + socket_type)
    sock.sendall(b"\x04" + bytes([len(ready)]) + ready)
    return sock


def zmtp_subscription(topic: bytes) -> bytes:
    """A ZMTP 3.0 subscription message for ``topic``, as a hand-made SUB writes it."""
    return b"\x00" + bytes([1 + len(topic)]) + b"\x01" + topic


def zmtp_unsubscription(topic: bytes) -> bytes:
    """A ZMTP 3.0 unsubscription message for ``topic``, as a hand-made SUB writes it."""
    return b"\x00" + bytes([1 + len(topic)]) + b"\x00" + topic


def spreading_subscriptions(first: int, pairs: int) -> bytes:
    """``pairs`` pairs of topics that part at their last byte, one with 0x00 there and one
    with 0xff, each under a prefix of its own (3 bytes from ``first`` on): each pair makes a
    node of libzmq's subscription trie hold a table of 256 children (2 KiB) for 14 bytes."""
    return b"".join(zmtp_subscription((first + n).to_bytes(3, "big") + end)
                    for n in range(pairs) for end in (b"\x00", b"\xff"))


def heard_or_cut(sock: socket.socket) -> bool:
    """Wait for a hand-made subscriber's first broadcast (True) or for the host to cut it
    (False); the host's READY, which comes first, is read and dropped."""
    def read(size: int) -> bytes:
        data = b""
        while len(data) < size:
            try:
                more = sock.recv(size - len(data))
            except ConnectionResetError:
                return b""
            if not more:
                return b""
            data += more
        return data
    sock.settimeout(WAIT_S)
    head = read(2)
    if len(head) < 2 or not read(head[1]):  # the host's READY command (a short frame)
        return False
    return bool(read(1))


def hand_made_subscribers(port: int, first: Callable[[int], bytes], last: bytes,
                          count: int = 16) -> list[bool]:
    """Whether each of ``count`` hand-made subscribers, one after another, heard a broadcast
    after sending ``first(n)`` (n its number) and then ``last`` (a subscription), or was cut
    (False: also when the host cut it while it was still sending)."""
    heard = []
    for n in range(count):
        try:
            sock = zmtp_dealer(port, b"SUB")
            sock.sendall(first(n) + last)
        except (BrokenPipeError, ConnectionResetError):
            heard.append(False)
            continue
        heard.append(heard_or_cut(sock))
        sock.close()
    return heard


def endless_message(port: int, frame_bytes: int) -> tuple[int, int]:
    """A message that never ends, in frames of ``frame_bytes``, from a hand-made peer to
    ``port`` until the host cuts it (or ATTACK_BYTES went): the bytes sent, and how much the
    host's memory grew meanwhile (it serves in this process)."""
    with PeakRss() as rss:
        sock = zmtp_dealer(port)
        sent = stream_until_cut(sock, bytes(frame_bytes), ATTACK_BYTES)
        sock.close()
    return sent, rss.growth


def stream_until_cut(sock: socket.socket, frame: bytes, limit: int) -> int:
    """Send ``frame`` again and again, each with the MORE flag (a message that never ends),
    until the host cuts the connection or ``limit`` bytes went; returns the bytes sent."""
    header = b"\x03" + struct.pack(">Q", len(frame))  # long frame, more to come
    sent = 0
    sock.settimeout(WAIT_S)
    try:
        while sent < limit:
            sock.sendall(header + frame)
            sent += len(header) + len(frame)
    except (BrokenPipeError, ConnectionResetError):
        pass
    return sent


def hoard_connections(port: int, count: int, source: str = "127.0.0.2"
                      ) -> tuple[list[socket.socket], int]:
    """Open ``count`` TCP connections from ``source`` to ``port`` on 127.0.0.1, each with a
    0.05 s timeout for :func:`closed_by_host`; returns those made and how many the host cut
    before ``connect()`` returned (a reset: a connection past its cap, as it should be)."""
    made: list[socket.socket] = []
    for _ in range(count):
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT_S,
                                            source_address=(source, 0))
        except ConnectionResetError:
            continue
        sock.settimeout(0.05)
        made.append(sock)
    return made, count - len(made)


def closed_by_host(sock: socket.socket) -> bool:
    """True once the host has reset or closed ``sock`` (its ZMTP greeting may come first)."""
    try:
        while sock.recv(4096):
            pass
    except TimeoutError:
        return False
    except OSError:
        return True
    return True


class Proxy:
    """Forwards TCP connections from a free 127.0.0.1 port to ``127.0.0.1:target_port``.

    ``cut()`` black-holes the link like a dropped Wi-Fi: connections stay open but no byte
    moves either way (they wait in the kernel) until ``restore()``. ``heard`` keeps every byte
    that went through, both ways, for tests that look for plaintext on the wire.
    """

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.heard = bytearray()
        self._open = threading.Event()
        self._open.set()
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def endpoint(self) -> str:
        return f"tcp://127.0.0.1:{self.port}"

    def cut(self, drop: bool = False) -> None:
        """Stop every byte; with ``drop`` also break the open connections (what was in flight
        is lost, as when a laptop sleeps long enough for TCP to give up)."""
        self._open.clear()
        if drop:
            with self._lock:
                for sock in self._sockets:
                    sock.close()
                self._sockets.clear()

    def restore(self) -> None:
        self._open.set()

    def close(self) -> None:
        self._closed.set()
        self.listener.close()
        with self._lock:
            for sock in self._sockets:
                sock.close()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self.listener.accept()
                upstream = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                return
            with self._lock:
                self._sockets += [client, upstream]
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        peers = {a: b, b: a}
        try:
            while not self._closed.is_set():
                if not self._open.wait(TICK_S):
                    continue
                ready, _, _ = select.select(list(peers), [], [], TICK_S)
                for sock in ready:
                    data = sock.recv(CHUNK)
                    if not data:
                        return
                    with self._lock:
                        self.heard += data
                    peers[sock].sendall(data)
        except (OSError, ValueError):  # closed under us by cut(drop=True) or close()
            pass
        finally:
            a.close()
            b.close()


@contextmanager
def proxied(target_port: int) -> Iterator[Proxy]:
    proxy = Proxy(target_port)
    try:
        yield proxy
    finally:
        proxy.close()


def port_number(endpoint: str) -> int:
    return int(endpoint.rsplit(":", 1)[1])


def player_main(address: str, table: str, seed: int, token: str | None) -> None:
    client = Client(address, **PATIENT)
    try:
        replica = client.resume(table, token) if token else client.join(table, name=f"p{seed}")
        print(f"seat {replica.you} token {client.session.token}", flush=True)

        def report(accepted: Accepted) -> None:
            print("accepted", json.dumps(accepted), flush=True)

        play_to_end(client, random.Random(seed), on_accept=report)
        print("over", flush=True)
    finally:
        client.close()


if __name__ == "__main__":
    player_main(sys.argv[1], sys.argv[2], int(sys.argv[3]), (sys.argv[4:] or [None])[0])


# -- a flood of listings (tests/faults/test_faults_peers.py, bench/attacks.py) ---------------

#: How often each flooder asks for the listing: under the per-peer rate, as in issue 10.
FLOOD_PER_S = 150
FLOODERS = 3


def create_tables(endpoint: str, count: int) -> list[str]:
    """``count`` 4-player Sagani tables, pipelined on one connection; those the per-peer rate
    refuses are asked again once its bucket has refilled. Their ids, in order."""
    dealer = zmq.Context.instance().socket(zmq.DEALER)
    dealer.linger, dealer.rcvtimeo = 0, int(WAIT_S * 1000)
    dealer.connect(endpoint)
    made: dict[int, str] = {}
    try:
        while len(made) < count:
            asked = [i for i in range(count) if i not in made][:300]  # within the rate's burst
            for i in asked:
                dealer.send_multipart([b"", encode({"v": VERSION, "type": "create", "id": i,
                                                    "game": "sagani",
                                                    "config": {"players": 4}})])
            refused = 0
            for _ in asked:
                reply = decode_message(dealer.recv_multipart()[-1])
                if reply["type"] == "created":
                    made[reply["id"]] = reply["table"]
                else:
                    assert reply.get("code") == "rate_limited", reply
                    refused += 1
            if refused or len(made) < count:
                time.sleep(1.6)  # the per-peer rate's bucket refills: time is how it does
    finally:
        dealer.close()
    return [made[i] for i in range(count)]


def sync_round_trips(raw: Raw, table: str, count: int) -> list[float]:
    """Round trips of ``sync`` on one table (what a player's console asks), sorted."""
    times = []
    for _ in range(count):
        started_s = time.monotonic()
        assert raw("sync", table=table)["type"] == "snapshot"
        times.append(time.monotonic() - started_s)
    return sorted(times)


def flood_tables(endpoint: str, stop: Any, read: bool, flooding: Any) -> None:
    """Ask for the listing of every table FLOOD_PER_S times a second; read the replies or
    never read them. Runs in a process of its own, as a flooder would (on a thread of the
    caller's process it would take the GIL from the host)."""
    dealer = zmq.Context.instance().socket(zmq.DEALER)
    dealer.linger, dealer.sndtimeo = 0, 100
    dealer.rcvhwm = 0 if read else 1
    dealer.connect(endpoint)
    body = encode({"v": VERSION, "type": "tables", "id": 1})
    in_flight = 0
    next_s = time.monotonic()
    try:
        while not stop.is_set():
            next_s += 1 / FLOOD_PER_S
            time.sleep(max(0.0, next_s - time.monotonic()))  # the flood's rate is the attack
            try:
                dealer.send_multipart([b"", body])
                in_flight += 1
                flooding.set()
            except zmq.Again:
                time.sleep(0.01)  # the host's queue is full: a flooder presses on, later
            while read and (in_flight > 20 or dealer.poll(0)):
                if dealer.poll(100):
                    dealer.recv_multipart()
                in_flight -= 1
    finally:
        dealer.close()


def listings_flood(endpoint: str, table: str, samples: int) -> tuple[list[float], list[float]]:
    """An honest player's ``sync`` round trips on ``table``, alone and then while
    :data:`FLOODERS` processes flood the host with listings (two read the replies, one never
    does): (alone, flooded), each sorted."""
    honest = Raw(endpoint)
    try:
        base = sync_round_trips(honest, table, samples)
        spawn = multiprocessing.get_context("spawn")
        stop = spawn.Event()
        flooding = [spawn.Event() for _ in range(FLOODERS)]
        flooders = [spawn.Process(target=flood_tables, args=(endpoint, stop, i < 2, started))
                    for i, started in enumerate(flooding)]
        for process in flooders:
            process.start()
        try:
            until(lambda: all(started.is_set() for started in flooding))
            flooded = sync_round_trips(honest, table, samples)
        finally:
            stop.set()
            for process in flooders:
                process.join(WAIT_S)
    finally:
        honest.close()
    return base, flooded


def percentiles(samples: list[float]) -> str:
    """p50, p99 and the slowest of round trips in seconds, in ms."""
    ms = sorted(s * 1000 for s in samples)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    return (f"p50 {ms[len(ms) // 2]:.2f} ms, p99 {p99:.2f} ms, slowest {ms[-1]:.2f} ms "
            f"(n={len(ms)})")


# -- a data dir that fills up -------------------------------------------------------------------


@contextmanager
def tmpfs(path: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` at ``path``, or a skip where mounting is not allowed."""
    path.mkdir()
    name = f"sagani{uuid.uuid4().hex[:6]}"
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", name, str(path)],
                          capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=True)


def remount(path: Path, options: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{options}", str(path)], check=True)


class Game:
    """A started 2-player table played with random legal actions through raw requests, each
    waiting out ``rate_limited`` (:meth:`Raw.patient`): these tests send a few hundred as fast
    as the host answers, more than the per-peer rate on a quiet machine, and a refusal for it
    is no storage fault."""

    def __init__(self, raw: Raw, seed: int) -> None:
        self.raw = raw
        self.table = self.ask("create", game="sagani", config={"players": 2}, seed=seed)["table"]
        self.tokens = [self.ask("join", table=self.table)["token"] for _ in range(2)]
        self.rng = random.Random(seed)
        self.accepted: list[tuple[int, int, dict[str, Any]]] = []

    def ask(self, kind: str, **fields: Any) -> dict[str, Any]:
        return self.raw.patient(kind, **fields)

    def act(self) -> dict[str, Any]:
        snap = self.ask("sync", table=self.table)
        seat, version = snap["turn"], snap["version"]
        action = choose(snap["view"], self.rng)
        reply = self.ask("act", table=self.table, seat=seat, token=self.tokens[seat],
                         version=version, action=action)
        if reply["type"] == "accepted":
            self.accepted.append((version, seat, action))
        return reply

    def snapshot(self) -> tuple[int, int, dict[str, Any]]:
        snap = self.ask("sync", table=self.table)
        return snap["version"], snap["seq"], snap["view"]

    def finish(self) -> dict[str, Any]:
        while self.ask("sync", table=self.table)["status"] != "over":
            assert self.act()["type"] == "accepted"
        return self.ask("record", table=self.table)["record"]


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
