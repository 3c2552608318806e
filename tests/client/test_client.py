"""The client library against a real host on 127.0.0.1: sync, resync, retries, resume."""

from __future__ import annotations

import asyncio
import inspect
import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import zmq
from test_net_support import WAIT_S, Background, PlayerThread, choose

from sagani_net.client import AsyncClient, Client, HostError, HostTimeout
from sagani_net.host import Host, Limits
from sagani_net.protocol import VERSION, decode_message, encode
from sagani_net.store import Store


@pytest.fixture
def clients(host: Host) -> Iterator[list[Client]]:
    made: list[Client] = []
    yield made
    for client in made:
        client.close()


def new_client(clients: list[Client], host: Host, **options: float) -> Client:
    client = Client(host.endpoint, **options)
    clients.append(client)
    return client


def seated_pair(host: Host, clients: list[Client], seed: int,
                game: str = "sagani") -> tuple[Client, Client]:
    """A two-seat table of ``game`` made by a third client, a client joined at each seat."""
    table = new_client(clients, host).create({"players": 2}, game=game, seed=seed)
    a, b = new_client(clients, host), new_client(clients, host)
    a.join(table)
    b.join(table)
    return a, b


def bots_in_threads(
    host: Host, clients: list[Client], table: str, seats: int
) -> list[PlayerThread]:
    """Seat ``seats`` random bots (joined now, playing on their own threads once started)."""
    bots = [new_client(clients, host) for _ in range(seats)]
    for i, bot in enumerate(bots):
        bot.join(table, role="bot", name=f"bot{i}")
    return [PlayerThread(bot, random.Random(i)) for i, bot in enumerate(bots)]


def mover(*players: Client) -> Client:
    """Bring every replica up to the newest sequence number; return the one whose turn it is."""
    newest = max(player.state.seq for player in players)
    for player in players:
        assert player.wait_for(lambda r: r.seq >= newest, WAIT_S)
    return next(player for player in players if player.my_turn)


def finish(threads: list[PlayerThread]) -> None:
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.finish(60)


def public(view: dict) -> dict:
    return {key: value for key, value in view.items() if key != "you"}


def test_two_clients_play_a_game_to_the_end(host: Host, clients: list[Client]) -> None:
    table = new_client(clients, host).create({"players": 2}, seed=21)
    finish(bots_in_threads(host, clients, table, 2))
    first, second = clients[1].state, clients[2].state
    assert first.status == second.status == "over"
    assert public(first.view) == public(second.view)
    assert clients[0].record(table)["result"] == first.view["result"]


def test_spectator_sees_every_update_in_order(host: Host, clients: list[Client]) -> None:
    table = new_client(clients, host).create({"players": 3}, seed=22)
    watcher = new_client(clients, host)
    seqs = [watcher.join(table, role="spectator").seq]
    threads = bots_in_threads(host, clients, table, 3)
    finish(threads)
    while watcher.state.status != "over" or watcher.state.seq < clients[1].state.seq:
        update = watcher.next_update(WAIT_S)
        assert update is not None and update["type"] == "update"
        seqs.append(update["seq"])
    assert seqs == list(range(seqs[0], seqs[-1] + 1))
    assert watcher.state.view == public(watcher.sync().view)


def test_late_joiner_syncs_and_follows(host: Host, clients: list[Client]) -> None:
    a, b = seated_pair(host, clients, seed=23)
    rng = random.Random(3)
    for _ in range(10):
        player = mover(a, b)
        player.act(choose(player.state.view, rng))
    player = mover(a, b)
    late = new_client(clients, host)
    replica = late.join(a.state.table, role="spectator")
    assert replica.version == 10 and replica.seq == a.state.seq
    assert public(replica.view) == public(a.state.view)
    player.act(choose(player.state.view, rng))
    assert late.wait_for(lambda r: r.version == 11, WAIT_S)


def test_subscriber_that_missed_updates_resyncs_to_the_same_state(
    host: Host, clients: list[Client]
) -> None:
    table = new_client(clients, host).create({"players": 2}, seed=24)
    watcher = new_client(clients, host)
    watcher.join(table, role="spectator")
    threads = bots_in_threads(host, clients, table, 2)
    # Cut the watcher off the broadcasts while the whole game is played.
    sub = watcher.core._sub
    assert sub is not None
    pub_address = sub.getsockopt_string(zmq.LAST_ENDPOINT)
    sub.disconnect(pub_address)
    finish(threads)
    sub.connect(pub_address)
    kinds = []
    while watcher.state.status != "over":
        update = watcher.next_update(WAIT_S)
        assert update is not None
        kinds.append(update["type"])
    assert "snapshot" in kinds
    assert watcher.state.seq == clients[1].state.seq
    assert watcher.state.view == public(clients[1].sync().view)


def test_refused_action_raises_and_resyncs_the_replica(host: Host, clients: list[Client]) -> None:
    a, b = seated_pair(host, clients, seed=25)
    player = mover(a, b)
    player.state.version = 5  # a copy that drifted
    with pytest.raises(HostError) as refused:
        player.act(choose(player.state.view, random.Random(1)))
    assert refused.value.code == "stale_version"
    assert player.state.version == 0
    with pytest.raises(HostError, match="illegal_action"):
        player.act({"type": "take", "index": 7})


def test_client_comes_back_to_its_seat_with_a_saved_token(
    host: Host, clients: list[Client]
) -> None:
    table = new_client(clients, host).create({"players": 2}, seed=26)
    a, b = new_client(clients, host), new_client(clients, host)
    a.join(table)
    b.join(table, role="bot")
    saved = a.session
    a.close()
    back = new_client(clients, host)
    replica = back.resume(saved.table, saved.token)
    assert replica.you == saved.seat == 0
    assert back.my_turn
    back.act(choose(replica.view, random.Random(2)))
    assert back.state.version == 1


def test_request_is_retried_until_a_restarted_host_answers(tmp_path: Path) -> None:
    first = Host(Store(tmp_path), port=0, client_seeds=True)
    address, pub_port = first.endpoint, int(first.pub_endpoint.rsplit(":", 1)[1])
    first.serve_in_thread()
    first.stop()
    client = Client(address, timeout_s=0.2, retries=20)
    later = threading.Timer(0.5, lambda: _serve_again(tmp_path, address, pub_port, holder))
    holder: list[Host] = []
    later.start()
    try:
        assert client.connect()["type"] == "welcome"
    finally:
        later.join()
        client.close()
        holder[0].stop()


def _serve_again(data_dir: Path, address: str, pub_port: int, holder: list[Host]) -> None:
    port = int(address.rsplit(":", 1)[1])
    holder.append(Host(Store(data_dir), port=port, pub_port=pub_port, client_seeds=True))
    holder[0].serve_in_thread()


def test_no_host_gives_a_timeout_after_bounded_retries(tmp_path: Path) -> None:
    host = Host(Store(tmp_path), port=0, client_seeds=True)
    address = host.endpoint
    host.serve_in_thread()
    host.stop()
    client = Client(address, timeout_s=0.05, retries=2)
    with pytest.raises(HostTimeout):
        client.connect()
    client.close()


def test_async_client_plays_and_streams_updates(host: Host) -> None:
    async def scenario() -> tuple[list[int], int]:
        a, b = AsyncClient(host.endpoint), AsyncClient(host.endpoint)
        table = await a.create({"players": 2}, seed=27)
        await a.join(table, name="a")
        await b.join(table, name="b")
        watcher = AsyncClient(host.endpoint)
        await watcher.join(table, role="spectator")
        seen: list[int] = []

        async def follow() -> None:
            async for update in watcher.updates():
                seen.append(update["seq"])
                if watcher.state.version == 6:
                    return

        follower = asyncio.create_task(follow())
        rng = random.Random(5)
        for _ in range(6):
            for player in (a, b):  # both replicas up to date, then whoever is to move acts
                while player.state.seq < max(a.state.seq, b.state.seq):
                    await player.next_update(WAIT_S)
            player = a if a.my_turn else b
            await player.act(choose(player.state.view, rng))
        await asyncio.wait_for(follower, WAIT_S)
        for client in (a, b, watcher):
            client.close()
        return seen, watcher.state.version

    seen, version = asyncio.run(scenario())
    assert version == 6 and seen == list(range(seen[0], seen[0] + len(seen)))


def test_request_cancelled_midway_leaves_the_client_usable(host: Host) -> None:
    async def scenario() -> str:
        client = AsyncClient(host.endpoint)
        await client.connect()
        asking = asyncio.ensure_future(client.request("tables"))
        await asyncio.sleep(0)  # one turn of the loop, no time: sent, not yet answered
        asking.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asking
        welcome = await client.connect()
        client.close()
        return welcome["type"]

    assert asyncio.run(scenario()) == "welcome"


def test_lost_reply_is_retried_with_the_same_id_and_applied_once(host: Host) -> None:
    """A proxy in front of the host swallows the first reply to an action."""
    ctx = zmq.Context.instance()
    front, back = ctx.socket(zmq.ROUTER), ctx.socket(zmq.DEALER)
    front.linger = back.linger = 0
    front.bind("tcp://127.0.0.1:*")
    back.connect(host.endpoint)
    stop = threading.Event()
    swallowed: list[bytes] = []

    def relay() -> None:
        poller = zmq.Poller()
        poller.register(front, zmq.POLLIN)
        poller.register(back, zmq.POLLIN)
        while not stop.is_set():
            ready = dict(poller.poll(50))
            if front in ready:
                back.send_multipart(front.recv_multipart())
            if back in ready:
                frames = back.recv_multipart()
                if b'\xa8accepted' in frames[-1] and not swallowed:
                    swallowed.append(frames[-1])
                    continue
                front.send_multipart(frames)

    relay_thread = threading.Thread(target=relay, daemon=True)
    relay_thread.start()
    client = Client(front.getsockopt_string(zmq.LAST_ENDPOINT), timeout_s=0.3, retries=5)
    other = Client(host.endpoint)
    try:
        table = other.create({"players": 2}, seed=28)
        client.join(table)
        other.join(table)
        assert client.wait_for(lambda r: r.my_turn, WAIT_S)
        events = client.act(choose(client.state.view, random.Random(3)))
        assert swallowed and events
        assert client.state.version == 1 == other.sync().version
    finally:
        stop.set()
        relay_thread.join()
        for c in (client, other):
            c.close()
        front.close()
        back.close()


def test_late_reply_to_an_abandoned_try_is_dropped_and_the_wait_goes_on() -> None:
    # A host that answers the first try only after the client has retried on a new socket:
    # that late reply reaches the new socket (same routing id) and must not break the request.
    router = zmq.Context.instance().socket(zmq.ROUTER)
    router.linger, router.rcvtimeo, router.router_handover = 0, int(WAIT_S * 1000), 1
    port = router.bind_to_random_port("tcp://127.0.0.1")
    client = Client(f"tcp://127.0.0.1:{port}", timeout_s=0.5, retries=3)
    replies: list[dict] = []
    asked = Background(lambda: replies.append(client.request("hello")))
    asked.start()
    try:
        first = router.recv_multipart()
        second = router.recv_multipart()  # the retry, on a new socket
        assert first[0] == second[0] and first[-1] == second[-1]  # same peer, same message
        msg_id = decode_message(first[-1])["id"]
        for frames, attempt in ((first, 1), (second, 2)):
            reply = {"v": VERSION, "type": "welcome", "id": msg_id, "try": attempt}
            router.send_multipart([*frames[:-1], encode(reply)])
            # Apart, so that the late reply wakes the client's poll alone (the case under
            # test); the result is the same either way if the client is right.
            time.sleep(0.1)
        asked.finish(WAIT_S)
        assert [reply["try"] for reply in replies] == [2]
    finally:
        client.close()
        router.close()


def test_a_game_played_from_legal_alone_is_never_refused(
    host: Host, clients: list[Client]
) -> None:
    players = seated_pair(host, clients, seed=26, game="sugi")
    rng = random.Random(2)
    while True:
        newest = max(player.state.seq for player in players)
        for player in players:
            assert player.wait_for(lambda r, newest=newest: r.seq >= newest, WAIT_S)
        if players[0].state.status == "over":
            break
        player = mover(*players)
        actions = player.legal()
        assert actions and all(action.keys() >= {"type"} for action in actions)
        player.act(rng.choice(actions))  # raises if the host refuses it
    with pytest.raises(HostError, match="game_over"):
        players[0].legal()


def test_legal_refused_loads_the_snapshot_it_carries(host: Host, clients: list[Client]) -> None:
    a, b = seated_pair(host, clients, seed=27)
    player = mover(a, b)
    other = b if player is a else a
    with pytest.raises(HostError, match="not_your_turn"):
        other.legal()
    player.state.version = 5  # a copy that drifted
    with pytest.raises(HostError, match="stale_version"):
        player.legal()
    assert player.state.version == 0
    assert {"type": "take", "index": 0} in player.legal()


@pytest.mark.host(limits=Limits(rate_per_s=5, rate_burst=4))
def test_a_rate_limited_request_is_waited_out_and_sent_again(host: Host) -> None:
    """PROTOCOL.md, section 2: `rate_limited` asks for a wait, not a give-up. A client past
    its peer's burst got a HostError from the reference client itself, which any bot built on
    it turned into a crash; it now waits and sends the same bytes again."""
    client = Client(host.endpoint, timeout_s=5.0)
    try:
        listings = [client.request("tables") for _ in range(12)]  # 8 past the burst of 4
        assert {reply["type"] for reply in listings} == {"tables"}
    finally:
        client.close()


def test_the_blocking_client_takes_what_the_async_one_takes_and_says_what_it_says() -> None:
    # A bot author's Client.create(config, gmae="sugi") went through **options unchecked, and
    # help(Client.create) said nothing.
    for name, method in vars(Client).items():
        if name.startswith("_"):
            continue
        assert method.__doc__, f"Client.{name} says nothing"
        twin = getattr(AsyncClient, name, None)
        if callable(twin) and callable(method):
            assert inspect.signature(method) == inspect.signature(twin), name
