"""What a hostile seated player costs the others (issue 18, points 5 and 6): prints figures,
asserts nothing.

    python bench/attacks.py                 # both parts (about 30 s)
    python bench/attacks.py --samples 100   # a quicker look

(a) Old retries: ``sagani host`` in its own process, a 2-player Sagani table one client plays
    60 moves of (both seats), then an honest client's ``sync`` round trips, alone and while the
    attacker, on a DEALER socket, re-sends 20 of its oldest accepted acts 20 times each (400
    frames) again and again: p50 and p99 of the honest sync, and what the attacker got back.
(b) Bot turns: a host on a thread of this process, whose ``tables`` request is made to cost
    0.4 s of the host's time (standing in for any costly request); a table with a bot seat
    (``random``, a 0.3 s deadline) and the attacker at the other seat, which sends each act
    with 3 such requests at once on the same socket. Counts the bot turns that came with the
    attack and those the host played for the bot (``deadline_missed``); and, on another
    table, an honest act's round trip while the volleys go on (p50, p99).
(c) A flood of listings: a host on a thread of this process with 1,000 4-player tables; an
    honest client's ``sync`` round trips alone, then while three processes ask for the
    listing 150 times a second each (two read the replies, one never does).
(d) Peers of an old ZMTP: ``sagani host`` in its own process; 16 hand-made ZMTP 1.0
    subscribers, each sending 110 KB of subscriptions that spread libzmq's trie and staying
    connected (the host's growth in VmRSS), then a 12-byte ZMTP 1.0 request (is the host still
    there?). Before the host refused them at the greeting: +430-550 MiB, and the host gone.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import zmq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from fault_kit import create_tables, listings_flood  # noqa: E402
from test_net_support import Raw, choose, running_host  # noqa: E402

from sagani_net.bots.runner import BotRunner  # noqa: E402
from sagani_net.client import Client  # noqa: E402
from sagani_net.protocol import VERSION, decode_message, encode, topic  # noqa: E402
from sagani_net.quotas import Limits  # noqa: E402

OLD_ACTS, RESENDS, MOVES = 20, 20, 60
COST_S, DEADLINE_S, VOLLEY = 0.4, 0.3, 3


def percentiles(samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    return (f"p50 {statistics.median(ms):7.2f} ms  p99 {p99:7.2f} ms  max {ms[-1]:7.2f} ms  "
            f"(n={len(ms)})")


def dealer(endpoint: str) -> zmq.Socket:
    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.linger = 0
    sock.connect(endpoint)
    return sock


def old_retries(samples: int) -> None:
    with tempfile.TemporaryDirectory() as data_dir:
        proc = subprocess.Popen([sys.executable, "-m", "sagani_net.cli.host_cmd", "host", "--quiet",
                                 "--port", "0", "--data-dir", data_dir], cwd=ROOT,
                                stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        endpoint = re.search(r"requests (\S+)", proc.stdout.readline())[1]  # type: ignore[index]
        try:
            raw = Raw(endpoint)
            table = raw("create", game="sagani", config={"players": 2})["table"]
            tokens = [raw("join", table=table)["token"] for _ in range(2)]
            frames, rng = [], random.Random(1)
            while len(frames) < MOVES:
                snap = raw("sync", table=table)
                if snap["status"] != "running":
                    break
                seat = snap["turn"]
                frame = encode({"v": VERSION, "type": "act", "id": 10_000 + len(frames),
                                "table": table, "seat": seat, "token": tokens[seat],
                                "version": snap["version"],
                                "action": choose(snap["view"], rng)})
                assert raw.send_bytes(frame)["type"] == "accepted"
                frames.append(frame)
            honest = Raw(endpoint)

            def syncs() -> list[float]:
                times = []
                for _ in range(samples):
                    start_s = time.perf_counter()
                    honest("sync", table=table)
                    times.append(time.perf_counter() - start_s)
                return times

            print(f"(a) honest sync, alone:                 {percentiles(syncs())}")
            stop = threading.Event()
            answers: dict[str, int] = {}

            def attack() -> None:
                sock = dealer(endpoint)
                while not stop.is_set():
                    for _ in range(RESENDS):
                        for frame in frames[:OLD_ACTS]:
                            sock.send_multipart([b"", frame])
                    for _ in range(RESENDS * OLD_ACTS):
                        reply = decode_message(sock.recv_multipart()[-1])
                        key = reply.get("code", reply["type"])
                        answers[key] = answers.get(key, 0) + 1
                sock.close()

            attacker = threading.Thread(target=attack)
            attacker.start()
            under = syncs()
            stop.set()
            attacker.join()
            print(f"(a) honest sync, 400 old retries a go:  {percentiles(under)}")
            print(f"    the attacker's answers: {answers}")
            honest.close()
            raw.close()
        finally:
            proc.terminate()
            proc.wait()


def bot_turns(acts: int) -> None:
    with tempfile.TemporaryDirectory() as data_dir, running_host(Path(data_dir)) as host:
        tables = host.room.handlers["tables"]

        def costly(request: dict[str, Any]) -> dict[str, Any]:
            time.sleep(COST_S)
            return tables(request)

        host.room.handlers["tables"] = costly
        table = Client(host.endpoint).create({"players": 2}, bots=[1], deadline_s=DEADLINE_S)
        sub = zmq.Context.instance().socket(zmq.SUB)
        sub.connect(host.pub_endpoint)
        sub.subscribe(topic(table))
        attacker = Client(host.endpoint)
        attacker.join(table, name="mallory")
        bot = BotRunner(host.endpoint, "random", seed=1)
        bot.join(table)
        stop = threading.Event()
        playing = threading.Thread(target=bot.play, args=(stop,))
        playing.start()
        raw = Raw(host.endpoint)
        other = raw("create", game="sagani", config={"players": 2})["table"]
        others = [raw("join", table=other)["token"] for _ in range(2)]
        honest: list[float] = []
        sock = dealer(host.endpoint)
        attacked = 0
        for n in range(acts):
            if not attacker.wait_for(lambda r: r.my_turn or r.status == "over", 30):
                break
            state = attacker.state
            if state.status == "over":
                break
            snap = raw("sync", table=other)  # the honest player's view, before the volley
            sock.send_multipart([b"", encode({
                "v": VERSION, "type": "act", "id": 5000 + n, "table": table, "seat": state.you,
                "token": attacker.core.token, "version": state.version,
                "action": choose(state.view, random.Random(n))})])
            for _ in range(VOLLEY):
                sock.send_multipart([b"", encode({"v": VERSION, "type": "tables", "id": 1})])
            start_s = time.perf_counter()  # an honest act on another table, meanwhile
            seat = snap["turn"]
            raw("act", table=other, seat=seat, token=others[seat], version=snap["version"],
                action=choose(snap["view"], random.Random(n)))
            honest.append(time.perf_counter() - start_s)
            accepted = decode_message(sock.recv_multipart()[-1])
            attacked += accepted.get("turn") == 1
            for _ in range(VOLLEY):
                sock.recv_multipart()
            attacker.wait_for(lambda r, v=accepted["version"]: r.version >= v, 30)
        attacker.wait_for(lambda r: r.turn == 0 or r.status == "over", 30)
        missed = 0
        while sub.poll(0):
            message = decode_message(sub.recv_multipart()[1])
            if message["type"] == "update":
                missed += sum(e["type"] == "deadline_missed" for e in message["events"])
        stop.set()
        playing.join()
        print(f"(b) bot turns that came with the attack: {attacked}; played by the host for the "
              f"bot (lost): {missed}")
        print(f"(b) an honest act on another table during the volleys: {percentiles(honest)}")
        print("    ", [round(h * 1000) for h in honest])
        for closing in (sock, sub):
            closing.close()
        for client in (bot, attacker):
            client.close()
        raw.close()


def listing_flood(samples: int, tables: int = 1000) -> None:
    limits = Limits(max_tables=tables, tables_per_address=tables)
    with tempfile.TemporaryDirectory() as data_dir, running_host(Path(data_dir),
                                                                 limits=limits) as host:
        table = create_tables(host.endpoint, tables)[0]
        alone, flooded = listings_flood(host.endpoint, table, samples)
    print(f"(c) listing flood, {tables} tables: honest sync alone     {percentiles(alone)}")
    print(f"    under 3 flooders of `tables` at 150/s each:  {percentiles(flooded)}; "
          f"p50 x{statistics.median(flooded) / statistics.median(alone):.1f} of alone")


def old_zmtp() -> None:
    with tempfile.TemporaryDirectory() as data_dir:
        proc = subprocess.Popen([sys.executable, "-m", "sagani_net.cli.host_cmd", "host", "--quiet",
                                 "--port", "0", "--data-dir", data_dir], cwd=ROOT,
                                stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        line = proc.stdout.readline()
        ports = [int(p) for p in re.findall(r"tcp://127\.0\.0\.1:(\d+)", line)]
        status = Path(f"/proc/{proc.pid}/status")

        def rss_mib() -> float:
            kib = re.search(r"VmRSS:\s+(\d+)", status.read_text())[1]  # type: ignore[index]
            return int(kib) / 1024

        try:
            before, peers, refused = rss_mib(), [], 0
            for n in range(16):
                sock = socket.create_connection(("127.0.0.1", ports[1]))
                topics = ((n * 8000 + k).to_bytes(3, "big") + end for k in range(7900)
                          for end in (b"\x00", b"\xff"))
                try:  # ZMTP 1.0: an empty identity, then messages of (length, flags, body)
                    sock.sendall(b"\x01\x00" + b"".join(bytes([len(t) + 2, 0]) + b"\x01" + t
                                                      for t in topics))
                except OSError:
                    refused += 1
                peers.append(sock)
            time.sleep(2)  # libzmq reads what the kernel holds by itself
            print(f"(d) 16 ZMTP 1.0 subscribers of 110 KB each: host {before:.0f} -> "
                  f"{rss_mib():.0f} MiB; refused while sending: {refused}")
            request = socket.create_connection(("127.0.0.1", ports[0]))
            hello = encode({"v": VERSION, "type": "hello", "id": 1})
            with contextlib.suppress(OSError):
                request.sendall(b"\x01\x00" + bytes([len(hello) + 1, 0]) + hello)
            raw = Raw(f"tcp://127.0.0.1:{ports[0]}")
            raw.sock.rcvtimeo = 3000
            try:
                answer = raw("hello")["type"]
            except zmq.Again:
                answer = "nothing"
            print(f"    a 12-byte ZMTP 1.0 request, then an honest hello: {answer}; "
                  f"host running: {proc.poll() is None}")
            for closing in (*peers, request):
                closing.close()
            raw.close()
        finally:
            proc.terminate()
            proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=400, help="honest syncs timed in (a)")
    parser.add_argument("--acts", type=int, default=12, help="the attacker's acts in (b)")
    args = parser.parse_args()
    old_retries(args.samples)
    bot_turns(args.acts)
    listing_flood(min(args.samples, 300))
    old_zmtp()


if __name__ == "__main__":
    main()
