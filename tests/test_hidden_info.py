"""Hidden information audit: every frame a player, a bot, a spectator (and the table's creator)
receive in a whole game, replies and broadcasts alike, holds no trace of the seed or of the draw
order until the game is over.

What counts as a trace: the seed in any encoding (msgpack, decimal text, 8 raw bytes either
way round), a ``seed`` field or a view's ``tiles`` (the pile), or any 5 tiles still to come
appearing in their draw order in a list, or as their bytes in a row anywhere in the frame. Runs
that happen to be ascending are not looked for: the public ``unseen`` list is sorted, so it
tells nothing there.
"""

from __future__ import annotations

import contextlib
import random
import threading
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest
from test_net_support import WAIT_S, Background, play_to_end, running_host

import sagani_net.client
from protocol import decode_message
from sagani_net.client import Client, HostError
from sagani_net.games.sagani.rules import State

SEED = 0x5A6A_71C3_9E4D_2B17
RUN = 5
#: Smallest number of frames each participant must have received for the audit to mean much.
MIN_FRAMES = 100


def seed_encodings(seed: int) -> list[bytes]:
    return [msgpack.packb(seed), str(seed).encode(), seed.to_bytes(8, "big"),
            seed.to_bytes(8, "little")]  # fmt: skip


def int_lists(value: Any) -> Iterator[list[int]]:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            ints = [x for x in item if type(x) is int]
            if len(ints) == len(item):
                yield ints
            stack.extend(item)


def secret_fields(value: Any) -> set[str]:
    """``seed`` anywhere, and a game view's ``tiles`` (the whole pile; a seat's ``tiles`` are
    its display, which is public)."""
    found, stack = set(), [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found |= {"seed"} & set(item)
            if "unseen" in item and "tiles" in item:
                found.add("tiles")
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def versions(value: Any) -> list[int]:
    found, stack = [], [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if type(item.get("version")) is int:
                found.append(item["version"])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def order_runs(upcoming: list[int]) -> list[list[int]]:
    """Every run of RUN tiles still to come, in draw order, that is not simply ascending."""
    runs = [upcoming[i : i + RUN] for i in range(len(upcoming) - RUN + 1)]
    return [run for run in runs if run != sorted(run)]


def leaks(frame: bytes, upcoming: list[int], seed: int) -> list[str]:
    """What in ``frame`` gives away the seed or the order of ``upcoming`` (empty: nothing)."""
    found = [f"seed as {enc!r}" for enc in seed_encodings(seed) if enc in frame]
    message = decode_message(frame)
    found += [f"field {key!r}" for key in secret_fields(message)]
    runs = order_runs(upcoming)
    for ints in int_lists(message):
        found += [f"run {run} in a list" for run in runs
                  if any(ints[i : i + RUN] == run for i in range(len(ints) - RUN + 1))]  # fmt: skip
    found += [f"run {run} as bytes" for run in runs if bytes(run) in frame]
    return found


@pytest.fixture
def captured(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[bytes]]:
    """Every frame the client library decodes, by the name of the thread that received it."""
    frames: dict[str, list[bytes]] = defaultdict(list)
    lock = threading.Lock()

    def recording_decode(frame: bytes) -> dict[str, Any]:
        with lock:
            frames[threading.current_thread().name].append(bytes(frame))
        return decode_message(frame)

    monkeypatch.setattr(sagani_net.client, "decode_message", recording_decode)
    return frames


def player(client: Client, table: str, role: str, seed: int) -> None:
    client.join(table, role=role, name=role)
    if role == "player":
        # Refusals carry snapshots too; they are part of what is audited.
        client.tables()
        for bad in ({"type": "take", "index": 7}, {"type": "place", "cell": [9, 9]}):
            with contextlib.suppress(HostError):
                client.act(bad)
        with contextlib.suppress(HostError):
            client.record(table)
    play_to_end(client, random.Random(seed))


def watch(client: Client, table: str) -> None:
    client.join(table, role="spectator")
    assert client.wait_for(lambda r: r.status == "over", 60)


def test_no_trace_of_the_draw_order_or_the_seed_before_the_game_is_over(
    tmp_path: Path, captured: dict[str, list[bytes]]
) -> None:
    with running_host(tmp_path, heartbeat_s=0.05) as host:
        creator = Client(host.endpoint)
        clients = {name: Client(host.endpoint) for name in ("player", "bot", "spectator")}
        try:
            table = creator.create({"players": 2}, seed=SEED, bots=[1])
            threads = [Background(player, clients["player"], table, "player", 1),
                       Background(player, clients["bot"], table, "bot", 2),
                       Background(watch, clients["spectator"], table)]  # fmt: skip
            for thread, who in zip(threads, ("player", "bot", "spectator"), strict=True):
                thread.name = who  # what the capture files the frames under
                thread.start()
            for thread in threads:
                thread.finish(WAIT_S * 3)
            # Everyone has seen the end; what comes after this (the record) is public.
            before_end = {who: len(frames) for who, frames in captured.items()}
            record = creator.record(table)
        finally:
            creator.close()
            for client in clients.values():
                client.close()

    # The hidden order at each version: the tiles not yet seen, in the order they will come.
    final = len(record["actions"])
    state = State.new(players=2, seed=SEED)
    upcoming_at = []
    for version in range(final + 1):
        unseen = set(state.view(None)["unseen"])
        upcoming_at.append([tile for tile in record["tiles"] if tile in unseen])
        if version < final:
            state.apply(state.parse_action(
                {k: v for k, v in record["actions"][version].items() if k != "seat"}))  # fmt: skip
    assert len(order_runs(upcoming_at[0])) > 40

    audited: dict[str, int] = defaultdict(int)
    for who, frames in captured.items():
        version = 0  # frames come in order; one without a version is judged by the last seen
        for frame in frames[: before_end.get(who, 0)]:
            version = max([version, *versions(decode_message(frame))])
            if version >= final:
                break  # this participant has seen the end: the record is public now
            problems = leaks(frame, upcoming_at[version], SEED)
            assert not problems, (who, version, problems, decode_message(frame))
            audited[who] += 1
    for who in ("player", "bot", "spectator"):
        assert audited[who] >= MIN_FRAMES, audited
    # The detector does find what it looks for: the closing frames hold the seed and order.
    closing = [f for f in captured["spectator"] if final in versions(decode_message(f))]
    assert any(leaks(frame, upcoming_at[0], SEED) for frame in closing)
