"""The host's CPU per move (issue 21, point 3): what the host no longer does on every move, each
checked on real sockets (the figures themselves come from bench/net.py)."""

from __future__ import annotations

import itertools
import random
import struct
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq
from fault_kit import zmtp_dealer

from sagani_net import peers
from sagani_net.games import get_game
from sagani_net.peers import ConnectionGuard
from sagani_net.protocol import (
    VERSION,
    ProtocolError,
    check_request,
    decode_message,
    decode_request,
    encode,
)
from sagani_net.protocol.messages import UNSAFE_TEXT
from sagani_net.store import Store
from sagani_net.tables import Tables

WAIT_MS = 30_000


@pytest.fixture
def router() -> Iterator[zmq.Socket[bytes]]:
    sock = zmq.Context.instance().socket(zmq.ROUTER)
    sock.linger = 0
    sock.bind("tcp://127.0.0.1:*")
    yield sock
    sock.close()


def _receive(router: zmq.Socket[bytes]) -> int:
    """Read one message; the descriptor it came on."""
    assert router.poll(WAIT_MS), "nothing came"
    return int(router.recv_multipart(copy=False)[0].get(zmq.SRCFD))


def test_the_guard_measures_a_connection_without_a_socket_object_around_it(
    router: zmq.Socket[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    """It looks at every connection every GUARD_INTERVAL_S: a socket.socket made and detached
    around each descriptor was a sixth of the host's CPU under load (issue 21). It still
    cuts a connection streaming a message that never ends."""
    limit = 256 * 1024
    guard = ConnectionGuard(router, "requests", max_unread_bytes=limit)
    port = int(router.getsockopt_string(zmq.LAST_ENDPOINT).rsplit(":", 1)[1])
    sock = zmtp_dealer(port)

    made: list[int] = []
    real_socket = peers.socket.socket

    def counted(*args: Any, **kwargs: Any) -> Any:
        made.append(1)
        return real_socket(*args, **kwargs)

    try:
        guard.events()
        (fd,) = guard.connections
        monkeypatch.setattr(peers.socket, "socket", counted)
        assert peers.tcp_counts(fd) is not None
        frame = bytes(16 * 1024)
        header = b"\x03" + struct.pack(">Q", len(frame))  # a long frame, more to come
        sent = 0
        while guard.cuts == 0 and sent < 64 * limit:
            guard.check()
            try:
                sock.sendall(header + frame)
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += len(header) + len(frame)
        assert guard.cuts == 1, f"not cut after {sent} bytes"
        assert len(made) <= 1, "a socket object per look"  # (cut() shuts a duplicate with one)
    finally:
        sock.close()
        guard.close()


def test_a_sagrada_view_scores_only_the_windows_that_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every view shows every seat's score: worked out once per window, not per update."""
    from sagani_net.games.sagrada import rules

    game = get_game("sagrada")
    state = game.new_state(game.parse_config({"players": 4}), 3)
    rng = random.Random(3)
    while state.view()["phase"] == "choose" or not state.view()["drafted"]:
        state.apply(state.random_action(rng))  # into play, with a die drafted
    scored: list[int] = []
    real = rules.objective_points

    def counting(number: int, window: list[int]) -> int:
        scored.append(number)
        return real(number, window)

    monkeypatch.setattr(rules, "objective_points", counting)
    rules._objective_points.cache_clear()
    first = state.view(None, shared=True)
    assert len(scored) == 4 * len(state.objectives)  # every seat's window, once
    scored.clear()
    assert state.view(None, shared=True) == first
    assert scored == []


def tables_by_hand(tmp_path: Path) -> tuple[Tables, Callable[..., Any]]:
    """Tables on a real store, and a function that hands them a request as the wire has it."""
    tables = Tables(Store(tmp_path), client_seeds=True)
    ids = itertools.count(1)

    def handle(kind: str, **fields: Any) -> Any:
        body = encode({"v": VERSION, "type": kind, "id": next(ids), **fields})
        return tables.handle(check_request(decode_request(body)))

    return tables, handle


@pytest.mark.parametrize("name", ["sugi", "sagrada"])
def test_an_update_names_exactly_the_seats_whose_private_data_changed(
    name: str, tmp_path: Path
) -> None:
    """A seat named fetches its private data (a round trip each): an unchanged seat is not
    named (Sugi named about 3 seats a move where 1.4 changed), and every changed one is."""
    tables, handle = tables_by_hand(tmp_path)
    game = get_game(name)
    config = game.parse_config({"players": 4})
    named = needless = 0
    for seed in (1, 2):
        table = handle("create", game=name, config=config, seed=seed)["table"]
        tokens = [handle("join", table=table, role="bot")["token"] for _ in range(4)]
        tables.outbox.clear()
        mirror, rng = game.new_state(config, seed), random.Random(seed)
        while not mirror.is_over():
            seat = mirror.current_seat
            before = [encode(mirror.private(s)) for s in range(4)]
            action = mirror.random_action(rng)
            handle("act", table=table, seat=seat, token=tokens[seat], version=mirror.version,
                   action=mirror.action_data(action))
            events = mirror.apply(action)
            changed = {s for s in range(4) if encode(mirror.private(s)) != before[s]}
            ((_, body),) = tables.updates()
            told = decode_message(body)["private"]
            assert len(told) == len(set(told)) and set(told) == changed, (mirror.version, told)
            named += len(told)
            needless += len(set(mirror.private_seats(events)) - changed)
    assert named, "no private data changed: nothing was checked"
    if name == "sugi":
        assert needless, "the game names no more than what changed: nothing was checked"


def test_every_character_a_request_may_not_hold_is_one_isprintable_refuses() -> None:
    """The text check asks UNSAFE_TEXT only about strings str.isprintable() refuses."""
    unsafe = [chr(c) for c in range(0x110000) if UNSAFE_TEXT.search(chr(c))]
    assert unsafe and not any(("a" + c).isprintable() for c in unsafe)
    assert check_request({"v": VERSION, "type": "hello", "id": 1}) is not None
    with pytest.raises(ProtocolError, match="U\\+202E"):
        check_request({"v": VERSION, "type": "tables", "id": 1, "after": "x\u202ey"})


def test_past_its_every_look_share_the_guard_looks_in_turn_and_at_suspects_every_time(
    router: zmq.Socket[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hundreds of connections were each asked about every 20 ms (a tenth of the host's CPU
    under bench/net.py's load): past EVERY_LOOK, a share in turn, and a connection streaming
    a message that never ends is still looked at every check until it is cut."""
    monkeypatch.setattr(peers, "EVERY_LOOK", 4)
    limit = 256 * 1024
    guard = ConnectionGuard(router, "requests", max_unread_bytes=limit)
    asked: list[int] = []
    #: What each look found a connection held unread (received, less what the host read of
    #: it as requests: its greeting, under load a first frame), in order.
    received: dict[int, list[int]] = {}
    real = guard._counts

    def counting(fd: int) -> tuple[int, int] | None:
        asked.append(fd)
        counts = real(fd)
        if counts is not None:
            received.setdefault(fd, []).append(counts[0] - guard.connections[fd].read)
        return counts

    guard._counts = counting  # type: ignore[method-assign]
    endpoint = router.getsockopt_string(zmq.LAST_ENDPOINT)
    dealers: list[zmq.Socket[Any]] = []
    sock = None
    try:
        fds = set()
        for _ in range(20):
            dealer = zmq.Context.instance().socket(zmq.DEALER)
            dealer.linger = 0
            dealer.connect(endpoint)
            dealer.send(b"hi")
            dealers.append(dealer)
            fds.add(_receive(router))
        guard.check()  # all accepted since the last look: suspects, each looked at
        assert set(asked) == fds, (sorted(asked), sorted(fds))
        seen: set[int] = set()
        for _ in range(peers.SWEEP_LOOKS):
            asked.clear()
            guard.check()
            assert len(asked) == 4, asked  # max(EVERY_LOOK, 20 // SWEEP_LOOKS)
            seen.update(asked)
        assert seen == fds  # a sweep looked at every one
        port = int(endpoint.rsplit(":", 1)[1])
        sock = zmtp_dealer(port)
        frame = bytes(16 * 1024)
        header = b"\x03" + struct.pack(">Q", len(frame))  # a long frame, more to come
        sent, streaming = 0, None
        while guard.cuts == 0 and sent < 64 * limit:
            try:
                sock.sendall(header + frame)
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += len(header) + len(frame)
            asked.clear()
            guard.check()
            # A share of 21 (ceil(21 / SWEEP_LOOKS)), and the streaming connection:
            assert len(asked) <= 5 + 1, (asked, sorted(fds), guard._suspects)
            if streaming is None:  # (known to the guard once libzmq has told of it)
                streaming = next(iter(set(asked) - fds), None)
            elif guard.cuts == 0 and max(received[streaming]) > peers.SUSPECT_BYTES:
                assert streaming in asked, "a suspect was left out of a look"
        assert guard.cuts == 1, f"not cut after {sent} bytes"
        # A suspect once a look found it holding over SUSPECT_BYTES, it was looked at every
        # time after (above), and cut at the first look that found it over its limit (however
        # late the machine let the bytes arrive): every look before saw it within.
        assert streaming is not None
        *within, over = received[streaming]
        assert over > limit and all(count <= limit for count in within), received[streaming]
    finally:
        if sock is not None:
            sock.close()
        for dealer in dealers:
            dealer.close()
        guard.close()


@pytest.mark.parametrize("name", ["sagani", "sagrada", "sugi"])
def test_an_update_is_the_same_encoded_at_the_end_of_its_game_as_when_it_was_queued(
    name: str, tmp_path: Path
) -> None:
    """The host encodes a batch's updates while its standby writes the batch, after the whole
    batch is handled: no later action of the same table may change an update once queued (a
    view's shared parts are the engine's immutable data, the rest is fresh)."""
    tables, handle = tables_by_hand(tmp_path)
    game = get_game(name)
    config = game.parse_config({"players": 4})
    table = handle("create", game=name, config=config, seed=3)["table"]
    tokens = [handle("join", table=table, role="bot")["token"] for _ in range(4)]
    mirror, rng = game.new_state(config, 3), random.Random(3)
    at_once = [encode(update) for _, update in tables.outbox]
    while not mirror.is_over():
        seat = mirror.current_seat
        action = mirror.random_action(rng)
        handle("act", table=table, seat=seat, token=tokens[seat], version=mirror.version,
               action=mirror.action_data(action))
        mirror.apply(action)
        at_once.append(encode(tables.outbox[-1][1]))
    assert len(at_once) > 50
    assert [body for _, body in tables.updates()] == at_once
    assert tables.outbox == []
