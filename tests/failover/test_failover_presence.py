"""Presence through a takeover (PROTOCOL.md, Presence): kill -9 the active host of a real pair
of ``sagani host`` processes while two players' clients do as a console does (follow the
broadcasts, say ``here`` once a presence period), a spectator's follows the broadcasts (and
comes to the standby first: it has no ``here`` waiting on the killed host), and a third
player's console is closed.
Neither live seat may ever be shown away by the host that took over (the others would be
offered a stand-in for a player who is only reconnecting); the closed seat goes away, once."""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path
from typing import Any

import zmq
import zmq.asyncio
from failover_kit import Pair
from test_net_support import until_async

from sagani_net.client import AsyncClient, HostError, HostTimeout
from sagani_net.protocol import decode_message, topic

#: Short, so that the takeover and the grace after it take a second or two.
HEARTBEAT_S = 0.25


async def follow(client: AsyncClient) -> None:
    """Follow the broadcasts: its recovery from the host's silence goes to the standby."""
    while True:
        with contextlib.suppress(HostTimeout, HostError):
            await client.next_update()


async def console(client: AsyncClient) -> None:
    """What a console's client does while its player thinks: follow the broadcasts (its
    recovery from the host's silence goes to the standby) and say ``here`` once a presence
    period, each on a task of its own (cli/console/app.py)."""
    async def present() -> None:
        while True:
            await asyncio.sleep(client.presence_s or HEARTBEAT_S)
            with contextlib.suppress(HostTimeout, HostError):
                await client.here()

    await asyncio.gather(follow(client), present())


async def broadcasts(sub: zmq.asyncio.Socket, seen: list[tuple[float, set[int]]]) -> None:
    """The seats away in every heartbeat and update of a host, with when it came."""
    while True:
        _, body = await sub.recv_multipart()
        message: dict[str, Any] = decode_message(body)
        if message.get("type") == "heartbeat":
            away = set(message["away"])
        elif message.get("type") == "update":
            away = {i for i, seat in enumerate(message["seats"]) if seat.get("away")}
        else:
            continue
        seen.append((time.monotonic(), away))


async def play_through_a_takeover(pair: Pair) -> dict[str, Any]:
    address = pair.active.address
    clients = [AsyncClient(address) for _ in range(4)]
    tasks: list[asyncio.Task[None]] = []
    ctx = zmq.asyncio.Context.instance()
    sub = ctx.socket(zmq.SUB)
    sub.linger = 0
    try:
        for client in clients:
            await client.connect()
        table = await clients[0].create({"players": 3}, seed=1)
        for client, name in zip(clients, ("ann", "bob", "carl"), strict=False):
            await client.join(table, name=name)
        await clients[3].join(table, role="spectator")
        clients[2].close()  # carl's console is closed: his seat is away on this host...
        tasks = [asyncio.create_task(console(client)) for client in clients[:2]]
        tasks.append(asyncio.create_task(follow(clients[3])))
        await until_async(lambda: clients[0].state.seats[2].get("away"),
                          said=lambda: f"seats {clients[0].state.seats}")
        # ...while ann's and bob's stay present through the takeover.
        sub.connect(f"tcp://127.0.0.1:{pair.standby.ports[1]}")
        sub.subscribe(topic(table))
        seen: list[tuple[float, set[int]]] = []
        tasks.append(asyncio.create_task(broadcasts(sub, seen)))
        # The active host beats to its standby, with the seats away, in the turn of its loop
        # after the one that marked carl away: before it answers wait_in_sync's request.
        await asyncio.to_thread(pair.wait_in_sync)
        await asyncio.to_thread(pair.fail_over)
        new = pair.active.endpoint
        # Done once both live clients were answered there and carl's seat is away there.
        await until_async(lambda: all(c.address == new and c.host_moves for c in clients[:2])
                          and any(2 in away for _, away in seen),
                          said=lambda: f"moves {[c.host_moves for c in clients]}, seen {seen}")
        # A here of each, answered after both came: nobody is away but carl.
        replies = [await client.here() for client in clients[:2]]
        return {"seen": seen, "replies": replies}
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        sub.close()
        for client in clients:
            client.close()


def test_no_seat_whose_client_reconnects_is_shown_away_after_a_takeover_and_a_gone_one_is_once(
        tmp_path: Path) -> None:
    """A client whose ``here`` was waiting on the killed host went back there after its
    broadcasts' follower had moved it to the standby, for one more whole try, and came after
    the 3 presence periods the host that took over waited: ann and bob away, then back (a
    stand-in offered meanwhile). Carl, away at the killed host, was shown back at the one that
    took over (it knew nothing of him) until its grace ran out, then away again."""
    pair = Pair.start(tmp_path, HEARTBEAT_S)
    try:
        run = asyncio.run(play_through_a_takeover(pair))
    finally:
        pair.stop()
    seen = run["seen"]
    assert seen and not [away for _, away in seen if away & {0, 1}], seen
    # Away at the killed host, away at the one that took over from its first word: it was
    # shown back for the grace, then away again.
    assert all(2 in away for _, away in seen), seen
    assert [reply["away"] for reply in run["replies"]] == [[2], [2]]
