"""protocol/examples/minimal_bot.py, the bot written from PROTOCOL.md alone, plays whole games of
every game against a real host (the tests' host on 127.0.0.1), choosing only among the actions
the host's `legal` answer lists: it holds no rules code."""

import importlib.util
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from failover_kit import Pair, free_ports, stored_version
from test_net_support import RUN_SAGANI, read_store, until

from sagani_net.host import Host

ROOT = Path(__file__).resolve().parents[2]
BOT = ROOT / "protocol" / "examples" / "minimal_bot.py"
GAMES = ("sagani", "sagrada", "sugi")


def spawn(args, **kw):
    return subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, **kw)


def read_until(proc, pattern):
    """Read stdout lines until one matches; the match, or a failure with what was read."""
    seen = []
    for line in proc.stdout:
        seen.append(line)
        m = re.search(pattern, line)
        if m:
            return m
    pytest.fail(f"no {pattern!r} in {''.join(seen)!r}; stderr {proc.stderr.read()!r}")


def finish(bot, others, timeout_s=60):
    """Wait for every process; the bot ended the game and no action of its was refused."""
    try:
        out, err = bot.communicate(timeout=timeout_s)
        assert bot.returncode == 0, err  # (before waiting for the others, who may wait for it)
        for p in others:
            p.communicate(timeout=timeout_s)
    finally:
        for p in (bot, *others):
            p.kill()
            p.wait()
    assert "refused" not in err, err
    assert re.search(r"^result scores=\[-?\d+, -?\d+\] ranking=\[\d, \d\] me=\d$", out, re.M), out
    for p in others:
        assert p.returncode == 0


def test_the_bot_holds_no_rules_code():
    # It names no action, phase or part of any game's view: the host's `legal` is its rules.
    source = BOT.read_text()
    for word in ("frontier", "phase", "offer", "pool", "hand", "timeline", '"take"', '"place"',
                 '"pass"', '"draft"', '"discard"', '"push"'):
        assert word not in source, word


@pytest.mark.timeout(150)
@pytest.mark.parametrize("game", GAMES)
def test_minimal_bots_play_a_whole_game_of_each_game_against_each_other(
    host: Host, game: str
) -> None:
    bot = spawn([sys.executable, str(BOT), host.endpoint, "--game", game, "--seed", "7"])
    table = read_until(bot, r"^table (\S+)$").group(1)
    other = spawn([sys.executable, str(BOT), host.endpoint, "--table", table, "--seed", "8"])
    finish(bot, [other], timeout_s=120)


@pytest.mark.timeout(60)
def test_minimal_bot_creates_a_table_and_plays_it_to_the_end_against_greedy(host: Host) -> None:
    bot = spawn([sys.executable, str(BOT), host.endpoint, "--seed", "7"])
    table = read_until(bot, r"^table (\S+)$").group(1)
    greedy = spawn([*RUN_SAGANI, "bot", host.endpoint, "--table", table, "--strategy", "greedy",
                    "--quiet"])
    finish(bot, [greedy])


@pytest.mark.timeout(60)
def test_minimal_bot_joins_a_table_given_with_table(host: Host) -> None:
    greedy = spawn([*RUN_SAGANI, "bot", host.endpoint, "--create", "2", "--strategy", "greedy"])
    table = read_until(greedy, r"at table (\w+)").group(1)
    bot = spawn([sys.executable, str(BOT), host.endpoint, "--table", table, "--seed", "8"])
    finish(bot, [greedy])


@pytest.mark.timeout(120)
def test_minimal_bot_plays_on_at_the_standby_when_its_host_is_killed(tmp_path: Path) -> None:
    """A pair of `sagani host` processes; the active one killed (-9) a few moves into the game:
    the bot goes to the standby the host named, with its token, and ends the game there (it
    used to give up: `unreachable`, exit 2). Its opponent, `sagani bot`, moves there too."""
    pair = Pair.start(tmp_path, heartbeat_s=0.2)
    try:
        bot = spawn([sys.executable, str(BOT), pair.active.endpoint, "--seed", "7"])
        table = read_until(bot, r"^table (\S+)$").group(1)
        # mcts with a short think: its turns take a moment, so that the kill finds the game on.
        mcts = spawn([*RUN_SAGANI, "bot", pair.active.endpoint, "--table", table, "--strategy",
                      "mcts", "--think", "0.1", "--quiet"])
        until(lambda: stored_version(pair.active.data_dir, table) >= 4)
        killed = pair.fail_over()
        assert read_store(killed.data_dir, "SELECT status FROM tables") == [("running",)]
        finish(bot, [mcts])
        assert read_store(pair.active.data_dir, "SELECT status FROM tables") == [("over",)]
        assert stored_version(pair.active.data_dir, table) > stored_version(killed.data_dir,
                                                                            table)
    finally:
        pair.stop()


def load_bot():
    spec = importlib.util.spec_from_file_location("minimal_bot", BOT)
    bot = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bot)
    return bot


@pytest.mark.timeout(90)
def test_the_state_a_copied_bot_chooses_from_holds_its_seats_private_data_as_the_host_has_it(
    host: Host, monkeypatch
) -> None:
    """The example is there to be copied and given a better `choose`: in Sugi that reads the
    seat's hand, which every card it plays changes. Each time it chooses, its state's private
    data is what the host answers `private` with then (it is our turn: nothing moves)."""
    bot = load_bot()
    client = bot.Client(host.endpoint)
    client.hello()
    table = client.request("create", game="sugi", config={"players": 2}, bots=[1])["table"]
    client.subscribe(table)
    joined = client.request("join", table=table, name="copied")
    greedy = spawn([*RUN_SAGANI, "bot", host.endpoint, "--table", table, "--strategy", "greedy",
                    "--quiet"])
    chosen, stale = [], []
    random_choice = bot.choose

    def checking(actions, state, rng):
        now = client.request("private", table=table, token=joined["token"])
        chosen.append(state["version"])
        if state["private"] != now["private"]:
            stale.append(state["version"])
        return random_choice(actions, state, rng)

    monkeypatch.setattr(bot, "choose", checking)
    try:
        final = bot.play(client, table, joined["seat"], joined["token"], joined["snapshot"],
                         random.Random(7))
    finally:
        greedy.kill()
        greedy.wait()
    assert final["status"] == "over" and len(chosen) > 5
    assert stale == []


def test_the_bot_sends_a_nonce_with_join_and_the_same_bytes_when_it_retries(monkeypatch):
    import threading

    import msgpack
    import zmq

    bot = load_bot()
    monkeypatch.setattr(bot, "REQUEST_TIMEOUT_S", 0.3)  # a quick Lazy Pirate retry
    router = zmq.Context.instance().socket(zmq.ROUTER)
    router.linger = 0
    router.rcvtimeo = 30_000
    port = router.bind_to_random_port("tcp://127.0.0.1")
    bodies = []

    def host():  # drops the first try, answers the retry
        for answer in (False, True):
            *envelope, body = router.recv_multipart()
            bodies.append(body)
            if answer:
                reply = msgpack.packb({"v": 1, "type": "joined", "id": 0})
                router.send_multipart([*envelope, reply])

    thread = threading.Thread(target=host)
    thread.start()
    client = bot.Client(f"127.0.0.1:{port}")
    try:
        assert client.request("join", table="t1")["type"] == "joined"
    finally:
        thread.join(30)
        client.req.close()
        router.close()
    assert len(bodies) == 2 and bodies[0] == bodies[1]
    nonce = msgpack.unpackb(bodies[0])["nonce"]
    assert isinstance(nonce, str) and 16 <= len(nonce) <= 64


@pytest.mark.timeout(60)
def test_a_bot_whose_requests_moved_to_the_other_host_follows_it_without_going_back(
    host: Host, monkeypatch
) -> None:
    """After a failover where a request timed out and its retry was answered by the host that
    serves now, the bot's SUB socket still listens to the host that died. It follows the host
    its requests reached at once (hello, resubscribe, sync). It used to wait out the dead host's
    silence and then switch back to it: one request timeout (2.5 s) there before it came back,
    and one of its retries spent."""
    import zmq

    bot = load_bot()
    client = bot.Client(host.endpoint)
    client.hello()
    table = client.request("create", game="sagrada", config={"players": 1})["table"]
    client.subscribe(table)
    joined = client.request("join", table=table, name="moved")
    # The state a timed-out request leaves: answered here, broadcasts heard from a dead host
    # (nothing listens on its ports), which is the other host of the pair now.
    dead_port = free_ports(1)[0]
    dead = f"tcp://127.0.0.1:{dead_port}"
    client.sub.close()
    client.sub = client.ctx.socket(zmq.SUB)
    client.sub.linger = 0
    client.sub.connect(f"tcp://127.0.0.1:{dead_port + 1}")
    client.heard_from, client.other = dead, dead
    switches = []
    real_switch = client.switch

    def switch():
        switches.append(client.endpoint)
        real_switch()

    monkeypatch.setattr(client, "switch", switch)
    try:
        final = bot.play(client, table, joined["seat"], joined["token"], joined["snapshot"],
                         random.Random(7))
    finally:
        client.req.close()
        client.sub.close()
    assert final["status"] == "over"
    assert switches == [] and client.endpoint == host.endpoint


def test_a_bot_that_moves_for_silence_says_hello_to_the_other_host_not_the_silent_one(
    host: Host, monkeypatch
) -> None:
    """The silence of a host (3 heartbeats) sends the bot to the other host of the pair: its
    hello goes there. It used to go down the REQ socket still connected to the silent host,
    time out, and switch back to that host for a second timeout before reaching the other."""
    import threading

    import msgpack
    import zmq

    bot = load_bot()
    monkeypatch.setattr(bot, "REQUEST_TIMEOUT_S", 0.3)
    router = zmq.Context.instance().socket(zmq.ROUTER)
    router.linger = 0
    router.rcvtimeo = 100
    port = router.bind_to_random_port("tcp://127.0.0.1")
    heard = []
    done = threading.Event()

    def silent_host():  # answers the first hello, naming its standby, then says nothing
        while not done.is_set():
            try:
                *envelope, body = router.recv_multipart()
            except zmq.Again:
                continue
            heard.append(msgpack.unpackb(body)["type"])
            if len(heard) == 1:
                router.send_multipart([*envelope, msgpack.packb({
                    "v": 1, "type": "welcome", "id": 0, "heartbeat_s": 0.2,
                    "pub_port": free_ports(1)[0], "standby": host.endpoint})])

    thread = threading.Thread(target=silent_host)
    thread.start()
    client = bot.Client(f"127.0.0.1:{port}")
    try:
        client.hello()
        client.switch()  # what play() does when the host is silent
        client.hello()
    finally:
        client.req.close()
        client.sub.close()
        done.set()
        thread.join(10)
        router.close()
    assert heard == ["hello"] and client.endpoint == host.endpoint
