"""Network figures on loopback, all in one run: prints numbers and ratios, asserts nothing.

    python bench/net.py                 # the full run (about 15 s)
    python bench/net.py --samples 300 --tables 20   # a quick look

(a) the floor: a bare pyzmq REQ -> ROUTER round trip (an echo process, no decoding) with msgpack
    payloads the size of an act and of its reply, one before each timed act so that both see
    the same machine; (a') the floor with a broadcast: the echo also publishes an update's
    size to 4 subscribers, which is all (b) would cost if the host's own work took no time;
    (b) act -> reply and act -> the update has
    reached all 4 subscribers of a 4-player table, each as a ratio to the floor; (c) accepted
    actions per second of one host process serving many tables of fast bots, and its CPU per
    action, also as a share of a random Sagani game played in this process beside it; (d) bytes per
    update and per snapshot late in a 4-player game; (e) act -> reply again with a standby host
    following (issue 14: the active host replies only once the standby has the action on disk).

The host is ``sagani host`` in its own process with a fresh data directory (SQLite WAL, every
action committed before its reply). The bots mirror their table from its seed with the engine,
so choosing a move costs them microseconds and the host is what is measured.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack
import zmq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine import bench_config, engine_rates  # noqa: E402

from sagani_net.game import playout  # noqa: E402
from sagani_net.games import get_game  # noqa: E402
from sagani_net.protocol import VERSION, decode_message, encode, topic  # noqa: E402

PLAYERS = 4
WAIT_MS = 10_000
#: Pause between two timed round trips (floor and actions alike): players do not act back to
#: back, and the host's per-peer rate limit (sagani_net.limits) would refuse a peer doing so.
PACE_S = 0.0015
#: The floor's reply size: about an `accepted` reply's.
REPLY_BYTES = 137
#: A snapshot is fetched (untimed) every this many actions, for its size.
SNAPSHOT_EVERY = 10
#: "Late game": the last fifth of a game's actions.
LATE = 0.8


def start_host(
    data_dir: str, standby_of: str | None = None, launcher: list[str] | None = None
) -> tuple[subprocess.Popen[str], str, str]:
    """A host process; returns it, its request endpoint and, of an active host, its standby
    code. ``standby_of``: the standby code of the active host it follows as the standby.
    ``launcher``: what runs the host's ``main`` (bench/host_path.py's timers), given the
    arguments after ``host``."""
    # --client-seeds: the bots mirror each table from the seed they chose.
    argv = [*(launcher or [sys.executable, "-m", "sagani_net.cli.host_cmd", "host"]), "--quiet",
            "--port", "0", "--client-seeds", "--data-dir", data_dir, "--heartbeat-s", "0.2"]
    if standby_of is not None:
        argv += ["--standby", "-"]  # the code on stdin, out of the process list
    proc = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(f"{standby_of or ''}\n")
    proc.stdin.close()
    found = re.search(r"requests (\S+) broadcasts", proc.stdout.readline())
    assert found, "the host did not start"
    code = ""
    if standby_of is None:
        for line in proc.stdout:
            if line.startswith("sagani host: standby code "):
                code = line.split()[-1]
                break
    return proc, found[1], code


class Requester:
    """A REQ socket with numbered requests (no retries: loopback, a host we started)."""

    def __init__(self, ctx: zmq.Context, endpoint: str) -> None:
        self.sock = ctx.socket(zmq.REQ)
        self.sock.linger = 0
        self.sock.connect(endpoint)
        self.next_id = 0

    def frame(self, kind: str, **fields: Any) -> bytes:
        self.next_id += 1
        return encode({"v": VERSION, "type": kind, "id": self.next_id, **fields})

    def __call__(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.sock.send(self.frame(kind, **fields))
        reply = decode_message(self.sock.recv())
        assert reply["type"] != "error", reply
        return reply


class MirroredTable:
    """A table seated with bots that mirror the game from its seed."""

    def __init__(self, req: Requester, seed: int) -> None:
        game = get_game("sagani")
        config = game.parse_config({"players": PLAYERS})
        self.id = req("create", game="sagani", config=config, seed=seed)["table"]
        self.tokens = [req("join", table=self.id, role="bot")["token"] for _ in range(PLAYERS)]
        self.state = game.new_state(config, seed)
        self.rng = random.Random(seed)
        self.action: dict[str, Any] = {}

    def act_fields(self) -> dict[str, Any]:
        seat = self.state.current_seat
        assert seat is not None
        self.action = self.state.random_action(self.rng).to_dict()
        return {"table": self.id, "seat": seat, "token": self.tokens[seat],
                "version": self.state.version, "action": self.action}

    def accepted(self) -> None:
        self.state.apply(self.state.parse_action(self.action))


def cpu_s(pid: int) -> float:
    """CPU time (user + system) a process has used so far, from /proc (Linux)."""
    return _stat_cpu_s(Path(f"/proc/{pid}/stat"))


def io_thread_cpu_s(pid: int) -> float:
    """Of :func:`cpu_s`, what libzmq's I/O threads used (``ZMQbg/IO/n``): the sends' and
    receives' system calls, which the host's own loop only queues."""
    total = 0.0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            if (task / "comm").read_text().startswith("ZMQbg/IO"):
                total += _stat_cpu_s(task / "stat")
        except OSError:  # a thread that ended meanwhile
            pass
    return total


def _stat_cpu_s(stat: Path) -> float:
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentiles(samples_s: list[float]) -> tuple[float, float]:
    ordered = sorted(samples_s)
    p50 = statistics.median(ordered)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return p50 * 1e6, p99 * 1e6


# -- (b) and (d): one 4-player table, four subscribers -------------------------------------


#: How an update's body begins ({"v": 1, "type": "update", ...}): a heartbeat's does not.
UPDATE_MARK = msgpack.packb("type") + msgpack.packb("update")


def measure_latency(
    ctx: zmq.Context, endpoint: str, samples: int, echo: Echo
) -> dict[str, Any]:
    """(b) and (d); each timed act follows one timed round trip to the ``echo`` server (the
    floor), so that both are taken under the same load of this shared machine."""
    req = Requester(ctx, endpoint)
    pub_port = req("hello")["pub_port"]
    # One request socket per seat, as four players would have.
    seat_reqs = [Requester(ctx, endpoint) for _ in range(PLAYERS)]
    subs = []
    for _ in range(PLAYERS):
        sub = ctx.socket(zmq.SUB)
        sub.linger = 0
        sub.connect(f"{endpoint.rsplit(':', 1)[0]}:{pub_port}")
        sub.subscribe(b"table.")
        subs.append(sub)
    poller = zmq.Poller()
    for seat_req in seat_reqs:
        poller.register(seat_req.sock, zmq.POLLIN)
    for sub in subs:
        poller.register(sub, zmq.POLLIN)
    to_reply_s: list[float] = []
    to_all_s: list[float] = []
    floor_s: list[float] = []
    # Sizes from finished games: (progress through the game, bytes) of each update, and of a
    # snapshot taken every SNAPSHOT_EVERY actions.
    update_sizes: list[tuple[float, int]] = []
    snapshot_sizes: list[tuple[float, int]] = []
    every_update: list[int] = []  # of unfinished games too
    act_bytes = reply_bytes = 0
    seed = 100
    while len(to_reply_s) < samples:
        table = MirroredTable(req, seed)
        seed += 1
        _wait_for_subscribers(subs, poller)
        game_updates: list[tuple[int, int]] = []
        game_snapshots: list[tuple[int, int]] = []
        while not table.state.is_over() and len(to_reply_s) < samples:
            actor = seat_reqs[table.state.current_seat or 0]
            frame = actor.frame("act", **table.act_fields())
            time.sleep(PACE_S)
            floor_s.append(_echo_round_trip(echo.req, len(frame)))
            time.sleep(PACE_S)
            started = time.perf_counter()
            actor.sock.send(frame)
            reply, reply_at, heard, arrived = _reply_and_updates(poller, actor.sock, subs,
                                                                  UPDATE_MARK)
            assert all(msgpack.unpackb(body)["type"] == "update" for body in heard)
            message = decode_message(reply)
            assert message["type"] == "accepted", message
            table.accepted()
            to_reply_s.append(reply_at - started)
            to_all_s.append(arrived - started)
            act_bytes, reply_bytes = len(frame), len(reply)
            game_updates.append((table.state.version, len(heard[0])))
            every_update.append(len(heard[0]))
            if table.state.version % SNAPSHOT_EVERY == 0:
                req.sock.send(req.frame("sync", table=table.id, token=table.tokens[0]))
                game_snapshots.append((table.state.version, len(req.sock.recv())))
        if table.state.is_over():
            end = table.state.version
            update_sizes += [(version / end, size) for version, size in game_updates]
            snapshot_sizes += [(version / end, size) for version, size in game_snapshots]
    for sock in [*subs, req.sock, *(seat_req.sock for seat_req in seat_reqs)]:
        sock.close()
    late = [size for progress, size in update_sizes if progress >= LATE]
    late_snapshots = [size for progress, size in snapshot_sizes if progress >= LATE]
    return {
        # None: no game ended within the samples (the late game's sizes need a whole game).
        "update_late_mean": statistics.mean(late) if late else None,
        "update_max": max(every_update),
        "snapshot_late_mean": statistics.mean(late_snapshots) if late_snapshots else None,
        "update_mean": statistics.mean(every_update),
        "floor": percentiles(floor_s),
        "to_reply": percentiles(to_reply_s),
        "to_all": percentiles(to_all_s),
        "act_bytes": act_bytes,
        "reply_bytes": reply_bytes,
    }


def _reply_and_updates(
    poller: zmq.Poller, sock: zmq.Socket, subs: list[zmq.Socket], mark: bytes
) -> tuple[bytes, float, list[bytes], float]:
    """Wait for the reply on ``sock`` and an update (a message with ``mark`` in its first
    bytes; a heartbeat has not) on each of ``subs``: (the reply, when it came, the updates,
    when the last came)."""
    reply_at = None
    heard: list[bytes] = []
    arrived = 0.0
    while reply_at is None or len(heard) < len(subs):
        events = dict(poller.poll(WAIT_MS))
        now = time.perf_counter()
        assert events, "no reply or update within the wait"
        if sock in events:
            reply = sock.recv()
            reply_at = now
        for sub in subs:
            if sub in events:
                body = sub.recv_multipart()[1]
                # Sorted by a glance at its first bytes, so that decoding one update does not
                # delay the clock of the next; (b) checks them in full after.
                if mark in body[:16]:
                    heard.append(body)
                    arrived = now
    return reply, reply_at, heard, arrived


def _wait_for_subscribers(subs: list[zmq.Socket], poller: zmq.Poller,
                          ask: Callable[[], None] | None = None) -> None:
    """Subscriptions take a moment to reach the host: wait until each sub hears something.
    ``ask``: makes a server that publishes nothing unasked (the echo) publish, before each
    look (``poller`` then holds the subs alone)."""
    heard: set[zmq.Socket] = set()
    give_up_s = time.monotonic() + WAIT_MS / 1000
    while len(heard) < len(subs):
        assert time.monotonic() < give_up_s, "the subscribers heard nothing"
        if ask is not None:
            ask()
        for sock in dict(poller.poll(WAIT_MS if ask is None else 10)):
            assert sock in subs, "an unexpected reply"
            sock.recv_multipart()
            heard.add(sock)
    for sub in subs:  # drop whatever else is queued
        while sub.poll(0):
            sub.recv_multipart()


# -- (a): the floor ------------------------------------------------------------------------


#: A floor request that asks the echo to publish first starts with this byte (a msgpack map
#: never does): the rest is the size of what to publish, as decimal text.
PUBLISH_MARK = b"P"
#: The topic the echo publishes on: one the subscribers of (a') subscribe to.
ECHO_TOPIC = b"table.echo"


def _echo(port_out: Any, reply_size: int) -> None:
    ctx = zmq.Context()
    router = ctx.socket(zmq.ROUTER)
    pub = ctx.socket(zmq.PUB)
    for sock in (router, pub):
        sock.linger = 0
        sock.bind("tcp://127.0.0.1:*")
    port_out.put((router.getsockopt_string(zmq.LAST_ENDPOINT),
                  pub.getsockopt_string(zmq.LAST_ENDPOINT)))
    reply = msgpack.packb({"pad": "x" * max(0, reply_size - 10)})
    published: dict[bytes, bytes] = {}
    while True:
        identity, empty, body = router.recv_multipart()
        if body == b"stop":
            router.send_multipart((identity, empty, b"ok"))
            return
        if body[:1] == PUBLISH_MARK:  # (a'): an update's broadcast first, as the host sends it
            update = published.get(body)
            if update is None:
                update = published[body] = msgpack.packb({"pad": "u" * int(body[1:])})
            pub.send_multipart((ECHO_TOPIC, update))
        router.send_multipart((identity, empty, reply))


class Echo:
    """The floor's server: a bare ROUTER echo in its own process (no decoding), which also
    publishes when asked (a')."""

    def __init__(self, ctx: zmq.Context) -> None:
        mp = multiprocessing.get_context("spawn")
        port_out = mp.Queue()
        self.server = mp.Process(target=_echo, args=(port_out, REPLY_BYTES), daemon=True)
        self.server.start()
        self.endpoint, self.pub_endpoint = port_out.get(timeout=30)
        self.req = ctx.socket(zmq.REQ)
        self.req.linger = 0
        self.req.connect(self.endpoint)

    def stop(self) -> None:
        self.req.send(b"stop")
        self.req.recv()
        self.req.close()
        self.server.join(5)


def measure_fanout(ctx: zmq.Context, echo: Echo, samples: int, size: int, act_bytes: int
                   ) -> tuple[float, float]:
    """(a'): p50 of the floor and of the floor with a broadcast, in turns: the echo publishes
    ``size`` bytes to 4 subscribers before it replies, and the clock stops when the reply and
    all 4 have come, as (b)'s does. What (b) costs beyond it is the host's own work."""
    subs = []
    poller = zmq.Poller()
    for _ in range(PLAYERS):
        sub = ctx.socket(zmq.SUB)
        sub.linger = 0
        sub.connect(echo.pub_endpoint)
        sub.subscribe(ECHO_TOPIC)
        poller.register(sub, zmq.POLLIN)
        subs.append(sub)
    publish = PUBLISH_MARK + str(size).encode()

    def ask() -> None:
        echo.req.send(publish)
        echo.req.recv()

    _wait_for_subscribers(subs, poller, ask)
    poller.register(echo.req, zmq.POLLIN)
    mark = msgpack.packb("pad")
    floor_s, fanout_s = [], []
    for _ in range(samples):
        time.sleep(PACE_S)
        floor_s.append(_echo_round_trip(echo.req, act_bytes))
        time.sleep(PACE_S)
        started = time.perf_counter()
        echo.req.send(publish)
        _, _, _, arrived = _reply_and_updates(poller, echo.req, subs, mark)
        fanout_s.append(arrived - started)
    for sub in subs:
        sub.close()
    return percentiles(floor_s)[0], percentiles(fanout_s)[0]


def _echo_round_trip(req: zmq.Socket, size: int) -> float:
    payload = msgpack.packb({"pad": "x" * max(0, size - 10)})
    started = time.perf_counter()
    req.send(payload)
    req.recv()
    return time.perf_counter() - started


# -- (c): throughput -----------------------------------------------------------------------

#: Issue 21's target for the host's CPU per accepted action (us), set on a quiet machine where
#: bench/engine.py played about 2,100 random 4-player Sagani games a second. This machine's
#: speed moves by half from one hour to the next: (c) also prints the host's CPU per action
#: as a share of such a game measured in this process beside each round, a ratio that holds
#: still while the machine does not.
TARGET_US = 150
TARGET_GAME_US = round(1e6 / 2_100)


def engine_game_s(seconds: float = 0.3) -> float:
    """CPU seconds a random 4-player Sagani game takes in this process now (bench/engine.py's
    games)."""
    games_per_s, _ = engine_rates(get_game("sagani"), bench_config("sagani"), playout, seconds)
    return 1 / games_per_s


def measure_throughput(
    ctx: zmq.Context, endpoint: str, tables: int, subscribers: int
) -> tuple[int, float]:
    """Every table's bots act the moment they may, with ``subscribers`` SUB sockets on each
    table's topic drained as updates come; returns (accepted actions, seconds)."""
    setup = Requester(ctx, endpoint)
    pub_address = f"{endpoint.rsplit(':', 1)[0]}:{setup('hello')['pub_port']}"
    games = [MirroredTable(setup, 1000 + i) for i in range(tables)]
    setup.sock.close()
    dealers = []
    poller = zmq.Poller()
    subs = []
    for game in games:
        for _ in range(subscribers):
            sub = ctx.socket(zmq.SUB)
            sub.linger = 0
            sub.connect(pub_address)
            sub.subscribe(topic(game.id))
            poller.register(sub, zmq.POLLIN)
            subs.append(sub)
    if subs:
        _wait_for_subscribers(subs, poller)
    for _ in games:
        dealer = ctx.socket(zmq.DEALER)
        dealer.linger = 0
        dealer.connect(endpoint)
        poller.register(dealer, zmq.POLLIN)
        dealers.append(dealer)
    by_socket = dict(zip(dealers, games, strict=True))
    next_id = 0

    def send(dealer: zmq.Socket) -> None:
        nonlocal next_id
        next_id += 1
        fields = by_socket[dealer].act_fields()
        dealer.send_multipart((b"", encode({"v": VERSION, "type": "act", "id": next_id,
                                            **fields})))

    accepted = 0
    started = time.perf_counter()
    for dealer in dealers:
        send(dealer)
    running = len(dealers)
    heard = 0
    while running:
        for sock in dict(poller.poll(WAIT_MS)):
            if sock not in by_socket:
                sock.recv_multipart()
                heard += 1
                continue
            dealer = sock
            reply = decode_message(dealer.recv_multipart()[-1])
            assert reply["type"] == "accepted", reply
            accepted += 1
            game = by_socket[dealer]
            game.accepted()
            if game.state.is_over():
                running -= 1
            else:
                send(dealer)
    elapsed_s = time.perf_counter() - started
    for sock in [*dealers, *subs]:
        sock.close()
    return accepted, elapsed_s


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=2000, help="latency samples")
    parser.add_argument("--tables", type=int, default=50, help="tables in the throughput run")
    parser.add_argument("--rounds", type=int, default=2, help="throughput runs (fresh tables)")
    parser.add_argument("--subscribers", type=int, default=PLAYERS,
                        help="SUB sockets per table in the throughput run")
    args = parser.parse_args(argv)
    ctx = zmq.Context()
    echo = Echo(ctx)
    with tempfile.TemporaryDirectory() as data_dir:
        host, endpoint, _ = start_host(data_dir)
        try:
            lat = measure_latency(ctx, endpoint, args.samples, echo)
            rates = []
            for _ in range(args.rounds):
                game_s = engine_game_s()
                before_s, io_before_s = cpu_s(host.pid), io_thread_cpu_s(host.pid)
                accepted, elapsed_s = measure_throughput(ctx, endpoint, args.tables,
                                                         args.subscribers)
                host_s = cpu_s(host.pid) - before_s
                io_s = io_thread_cpu_s(host.pid) - io_before_s
                game_s = (game_s + engine_game_s()) / 2
                rates.append((accepted, elapsed_s, host_s, io_s, game_s))
        finally:
            host.terminate()
            host.wait()
    fanout = measure_fanout(ctx, echo, args.samples, round(lat["update_mean"]),
                            lat["act_bytes"])
    paired = measure_with_standby(ctx, args.samples, echo)
    echo.stop()
    floor = lat["floor"]
    ctx.term()

    print(f"sagani_net network bench: loopback, {args.samples} samples, host process with "
          f"SQLite WAL (synchronous=NORMAL); load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} CPUs")
    print(f"(a) floor REQ->ROUTER echo ({lat['act_bytes']} B out, {lat['reply_bytes']} B back):"
          f" p50 {floor[0]:.0f} us, p99 {floor[1]:.0f} us")
    for label, key in (("act -> reply", "to_reply"), ("act -> all 4 updated", "to_all")):
        p50, p99 = lat[key]
        print(f"(b) {label}: p50 {p50:.0f} us ({p50 / floor[0]:.2f}x floor), "
              f"p99 {p99:.0f} us ({p99 / floor[1]:.2f}x floor p99)")
    for accepted, elapsed_s, host_cpu_s, io_s, game_s in rates:
        per_action_s = host_cpu_s / accepted
        print(f"(c) {args.tables} tables x {PLAYERS} bots, {args.subscribers} subscribers per "
              f"table: {accepted} accepted actions in "
              f"{elapsed_s:.2f} s = {accepted / elapsed_s:,.0f} actions/s; host CPU "
              f"{per_action_s * 1e6:.0f} us per action (libzmq's I/O thread "
              f"{io_s / accepted * 1e6:.0f} of it) = "
              f"{accepted / max(host_cpu_s, 1e-9):,.0f} actions per CPU-second; "
              f"{per_action_s / game_s:.3f} of a random Sagani game played here beside it "
              f"({game_s * 1e6:.0f} us; the target, {TARGET_US} us when a game took "
              f"{TARGET_GAME_US} us, is {TARGET_US / TARGET_GAME_US:.3f})")
    floor50, fanout50 = fanout
    print(f"(a') the floor with a broadcast: the echo also publishes {lat['update_mean']:.0f} B "
          f"(an update's mean) to 4 subscribers before it replies: echo -> all 4 heard p50 "
          f"{fanout50:.0f} us, {fanout50 / floor50:.2f}x the floor beside it ({floor50:.0f} us); "
          f"of (b)'s 2.0x target, {2 - fanout50 / floor50:.2f}x the floor is left for the "
          f"host's own work")
    if lat["update_late_mean"] is None:
        print("(d) no game ended within the samples: the late game's sizes need more")
    else:
        print(f"(d) late-game (last fifth) 4-player update: mean {lat['update_late_mean']:.0f} "
              f"B; largest update of all {lat['update_max']} B (limit 4096); late-game "
              f"snapshot: mean {lat['snapshot_late_mean']:.0f} B")
    (p50, p99), (floor50, floor99) = paired["to_reply"], paired["floor"]
    print(f"(e) act -> reply with a standby following: p50 {p50:.0f} us ({p50 / floor50:.2f}x "
          f"floor), p99 {p99:.0f} us ({p99 / floor99:.2f}x floor p99); (b) in the same run was "
          f"{lat['to_reply'][0] / floor[0]:.2f}x at p50")
    return 0


def measure_with_standby(ctx: zmq.Context, samples: int, echo: Echo) -> dict[str, Any]:
    """(e): the latency run against an active host with a standby host following it."""
    with tempfile.TemporaryDirectory() as active_dir, tempfile.TemporaryDirectory() as other:
        active, endpoint, code = start_host(active_dir)
        standby, _, _ = start_host(other, standby_of=code)
        try:
            wait_for_standby(ctx, endpoint)
            return measure_latency(ctx, endpoint, samples, echo)
        finally:
            for proc in (standby, active):
                proc.terminate()
                proc.wait()


def wait_for_standby(ctx: zmq.Context, endpoint: str) -> None:
    """Until the host at ``endpoint`` names a standby that follows it."""
    req = Requester(ctx, endpoint)
    give_up_s = time.monotonic() + WAIT_MS / 1000
    while req("hello")["standby"] is None:
        assert time.monotonic() < give_up_s, "the standby did not follow"
        time.sleep(0.05)  # polling a host we started, not ordering a test's events
    req.sock.close()


if __name__ == "__main__":
    sys.exit(main())
