"""Helpers shared by the network tests: hosts on free 127.0.0.1 ports, raw requests, a bot.

Run as a script it is one player process: ``python test_net_support.py ADDRESS TABLE SEED``
joins TABLE, plays random legal actions until the game is over and prints its final replica as
JSON.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import zmq

#: The checkout, and its tests/ folder (golden screens, records, the shared kits).
TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
if str(ROOT) not in sys.path:  # when run as a player process
    sys.path.insert(0, str(ROOT))
#: The ``sagani`` command of this checkout, as a process: ``[*RUN_SAGANI, "host", ...]``.
RUN_SAGANI = [sys.executable, "-m", "sagani_net.cli.main"]

from sagani_net.bots import make_policy  # noqa: E402
from sagani_net.client import Client, HostError  # noqa: E402
from sagani_net.games.sagani.rules import Action, State  # noqa: E402
from sagani_net.host import Host  # noqa: E402
from sagani_net.protocol import VERSION, decode_message, encode, topic  # noqa: E402
from sagani_net.store import DB_NAME, Store  # noqa: E402

#: How long a test waits for anything on the wire before it fails: long, because a shared
#: 2-core CI machine can be slow; a passing test never waits for it.
WAIT_S = 30.0
ROTATIONS = (0, 90, 180, 270)
#: How often :func:`until` looks again.
POLL_S = 0.01
#: How long :meth:`Raw.patient` waits before it sends a request the host refused with
#: ``rate_limited`` again (PROTOCOL.md: 0.2 to 1 s).
BACK_OFF_S = 0.2
T = TypeVar("T")


@contextmanager
def running_host(data_dir: Path, **options: Any) -> Iterator[Host]:
    """A host on free 127.0.0.1 ports, serving on a thread for the duration. Its clients
    choose their tables' seeds (``client_seeds``), unless told otherwise: tests replay games."""
    host = Host(Store(data_dir), port=0, **{"client_seeds": True, **options})
    host.serve_in_thread()
    try:
        yield host
    finally:
        host.stop()


class Raw:
    """A bare REQ socket speaking the protocol by hand, for frames the client never sends."""

    def __init__(self, endpoint: str) -> None:
        self.sock = zmq.Context.instance().socket(zmq.REQ)
        self.sock.linger = 0
        self.sock.rcvtimeo = int(WAIT_S * 1000)
        self.sock.connect(endpoint)
        self.next_id = 0

    def send_bytes(self, body: bytes) -> dict[str, Any]:
        self.sock.send(body)
        return decode_message(self.sock.recv())

    def frame(self, kind: str, **fields: Any) -> bytes:
        """A request's bytes, under this socket's next message id (sent as the test says)."""
        self.next_id += 1
        return encode({"v": VERSION, "type": kind, "id": self.next_id, **fields})

    def __call__(self, kind: str, **fields: Any) -> dict[str, Any]:
        return self.send_bytes(self.frame(kind, **fields))

    def patient(self, kind: str, **fields: Any) -> dict[str, Any]:
        """A request that waits out ``rate_limited`` as PROTOCOL.md asks: the same bytes again
        after a back-off (the refused frame was not read). For tests that send requests as
        fast as the host answers, where a refusal for the rate is not what they test."""
        body = self.frame(kind, **fields)
        while (reply := self.send_bytes(body)).get("code") == "rate_limited":
            time.sleep(BACK_OFF_S)  # the back-off the host asks for, not an ordering
        return reply

    def close(self) -> None:
        self.sock.close()


def until(ready: Callable[[], T], timeout_s: float = WAIT_S,
          said: Callable[[], str] | None = None, poll_s: float = POLL_S) -> T:
    """Poll ``ready()`` until it returns something true, and return that; fail after
    ``timeout_s``. How every test waits for an event it is not told of (never a sleep): the
    bound is long, because a shared 2-core machine can be slow, and a passing test never
    waits for it. ``said()``, if given, tells what was seen instead, for the failure; a
    ``ready`` that asks the host polls every ``poll_s`` (within the per-peer rate)."""
    give_up_s = time.monotonic() + timeout_s
    while not (value := ready()):
        if time.monotonic() > give_up_s:
            raise AssertionError(f"timed out after {timeout_s} s waiting for {ready.__name__}"
                                 + (f": {said()}" if said else ""))
        time.sleep(poll_s)
    return value


async def until_async(ready: Callable[[], T], timeout_s: float = WAIT_S,
                      said: Callable[[], str] | None = None) -> T:
    """:func:`until` on an event loop: the loop (a console, its client) runs while it waits."""
    give_up_s = time.monotonic() + timeout_s
    while not (value := ready()):
        if time.monotonic() > give_up_s:
            raise AssertionError(f"timed out after {timeout_s} s waiting for {ready.__name__}"
                                 + (f": {said()}" if said else ""))
        await asyncio.sleep(POLL_S)
    return value


class Updates:
    """Every update of one table, heard on a SUB socket from a thread."""

    def __init__(self, pub_endpoint: str, table: str) -> None:
        self.sock = zmq.Context.instance().socket(zmq.SUB)
        self.sock.linger, self.sock.rcvtimeo = 0, 100
        self.sock.connect(pub_endpoint)
        self.sock.subscribe(topic(table))
        self.messages: list[dict[str, Any]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                _, body = self.sock.recv_multipart()
            except zmq.Again:
                continue
            self.messages.append(decode_message(body))

    def wait_live(self) -> None:
        """Heartbeats arrive on an idle table: once one is heard, the subscription is live."""
        until(lambda: self.messages)

    def events(self, kind: str) -> list[dict[str, Any]]:
        return [e for m in self.messages if m["type"] == "update" for e in m["events"]
                if e["type"] == kind]

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sock.close()


def read_store(data_dir: Path, sql: str, *params: Any) -> list[Any]:
    """The rows ``sql`` selects from a host's store, read on a read-only connection of its own
    beside the host's. Raises sqlite3.OperationalError where there is no store (yet)."""
    db = sqlite3.connect(f"file:{data_dir / DB_NAME}?mode=ro", uri=True, timeout=5)
    try:
        return db.execute(sql, params).fetchall()
    finally:
        db.close()


def sessions_of_moves(data_dir: Path, table: str) -> list[tuple[int, str]]:
    return read_store(data_dir, "SELECT seat, session FROM actions WHERE table_id = ? "
                      "ORDER BY version", table)


def seated_table(raw: Raw, players: int = 2, seed: int = 11) -> tuple[str, list[str]]:
    """A started table and the token of each seat."""
    table = raw("create", game="sagani", config={"players": players}, seed=seed)["table"]
    tokens = [raw("join", table=table, name=f"p{i}")["token"] for i in range(players)]
    return table, tokens


def play_first_legal(raw: Raw, table: str, tokens: list[str], moves: int | None = None) -> None:
    """The seat to move plays its first legal action (``legal``: any game), ``moves`` times
    or to the end, as fast as the host's rate limit lets it."""
    while moves is None or moves > 0:
        seat = raw.patient("sync", table=table)["turn"]
        if seat is None:
            return
        legal = raw.patient("legal", table=table, token=tokens[seat])
        reply = raw.patient("act", table=table, token=tokens[seat], seat=seat,
                            version=legal["version"], action=legal["actions"][0])
        assert reply["type"] == "accepted", reply
        moves = None if moves is None else moves - 1


def act(raw: Raw, table: str, tokens: list[str], rng: random.Random, **over: Any) -> dict:
    """One random legal action by the seat to move (fields in ``over`` replace the real ones)."""
    return raw("act", **{**act_fields(raw, table, tokens, rng), **over})


def act_fields(raw: Raw, table: str, tokens: list[str], rng: random.Random) -> dict[str, Any]:
    """An ``act``'s fields for one random legal action by the seat to move, read by a sync."""
    snap = raw("sync", table=table)
    seat = snap["turn"]
    return {"table": table, "seat": seat, "token": tokens[seat], "version": snap["version"],
            "action": choose(snap["view"], rng)}


def choose(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A random legal Sagani action read from a view alone, as a bot in any language would."""
    if view["phase"] == "place":
        frontier = view["seats"][view["turn"]]["frontier"]
        return {"type": "place", "cell": rng.choice(frontier), "rotation": rng.choice(ROTATIONS)}
    if view["mode"] != "multi":
        return {"type": "reveal"}
    if view["intermezzo"] is not None:
        options = [{"type": "pick", "index": i} for i in range(len(view["storage"]))]
        return rng.choice([*options, {"type": "pass"}])
    if not view["offer"]:
        return {"type": "pass"}
    return {"type": "take", "index": rng.randrange(len(view["offer"]))}


#: Refusals a player shrugs off: another seat moved first, or its copy was behind (the reply
#: resynced it).
RACE_CODES = ("stale_version", "not_your_turn")

Accepted = tuple[int, int, dict[str, Any]]


def play_to_end(
    client: Client,
    rng: random.Random,
    timeout_s: float = 60.0,
    on_accept: Callable[[Accepted], None] | None = None,
    on_update: Callable[[dict[str, Any]], None] | None = None,
    shrug: tuple[str, ...] = RACE_CODES,
    stop: threading.Event | None = None,
) -> None:
    """Act whenever it is this client's turn until the game is over (or ``stop`` is set);
    report each accepted action as (version it was made on, seat, action) and each change
    heard from the host."""
    while client.state.status != "over" and not (stop is not None and stop.is_set()):
        if client.my_turn:
            version, action = client.state.version, choose(client.state.view, rng)
            try:
                client.act(action)
            except HostError as exc:
                if exc.code not in shrug:
                    raise
                continue
            if on_accept is not None:
                on_accept((version, client.state.you, action))
        else:
            update = client.next_update(timeout_s)
            if update is not None and on_update is not None:
                on_update(update)


class Background(threading.Thread):
    """``call(*args, **kwargs)`` on its own thread; :meth:`finish` re-raises what went wrong
    there, so a failure in a player shows as itself and not as a wrong result later."""

    def __init__(self, call: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        super().__init__(daemon=True)
        self.call, self.args, self.kwargs = call, args, kwargs
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.call(*self.args, **self.kwargs)
        except BaseException as exc:  # handed to the test thread by finish()
            self.error = exc

    def finish(self, timeout_s: float = 120.0) -> None:
        self.join(timeout_s)
        assert not self.is_alive(), f"{self.call.__name__} did not finish"
        if self.error is not None:
            raise self.error


class PlayerThread(Background):
    """:func:`play_to_end` on its own thread."""

    def __init__(self, client: Client, rng: random.Random, **options: Any) -> None:
        self.stop = threading.Event()
        super().__init__(play_to_end, client, rng, timeout_s=0.5, stop=self.stop, **options)
        self.client = client

    def close(self) -> None:
        """Stop the player (a test that failed early leaves it running) and close its client.

        A client left open would be closed by the garbage collector later, in another test,
        where closing its context can block."""
        self.stop.set()
        if self.is_alive():
            self.join(WAIT_S)
        if not self.is_alive():  # closing it under a thread still on it would crash that
            self.client.close()


def play_together(clients: Sequence[Client], timeout_s: float = 60.0, **options: Any) -> None:
    """Every client plays (seat i from ``random.Random(i)``), each on its own thread, until
    the game is over; a player's failure is raised here."""
    threads = [PlayerThread(c, random.Random(i), **options) for i, c in enumerate(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.finish(timeout_s)


def start_host_process(data_dir: Path, *args: str) -> tuple[subprocess.Popen[str], str, str]:
    """``sagani host`` in a subprocess; returns it with its request and broadcast endpoints.
    Its clients choose their tables' seeds (``--client-seeds``), as with :func:`running_host`."""
    proc = subprocess.Popen(
        [*RUN_SAGANI, "host", "--quiet", "--client-seeds",
         "--data-dir", str(data_dir), *args],
        cwd=ROOT, stdout=subprocess.PIPE, text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    found = re.search(r"requests (\S+) broadcasts (\S+)", line)
    assert found, f"host did not start: {line!r}"
    return proc, found[1], found[2]


def port_of(endpoint: str) -> str:
    return endpoint.rsplit(":", 1)[1]


def player_main(address: str, table: str, seed: int) -> None:
    client = Client(address)
    try:
        client.join(table, name=f"player-{seed}")
        play_to_end(client, random.Random(seed))
        state = client.state
        json.dump({"seat": state.you, "seq": state.seq, "version": state.version,
                   "view": state.view}, sys.stdout)
    finally:
        client.close()


if __name__ == "__main__":
    player_main(sys.argv[1], sys.argv[2], int(sys.argv[3]))


class Slow:
    """Greedy, but a little slow, so that a host restart falls in the middle of the game."""

    name = "slow-greedy"

    def __init__(self) -> None:
        self.inner = make_policy("greedy")

    def choose(self, state: State, rng: random.Random) -> Action:
        time.sleep(0.01)  # slowness is what it is for: a restart lands mid-game, not after it
        return self.inner.choose(state, rng)
