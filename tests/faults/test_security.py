"""Secure mode (CURVE, join codes) and the host's limits, on real sockets on 127.0.0.1."""

from __future__ import annotations

import base64
import json
import os
import re
import stat
import subprocess
import threading
import time
from pathlib import Path

import pytest
import zmq
from cli_kit import Terminal, lan_party
from fault_kit import port_number, proxied
from test_net_support import (
    ROOT,
    RUN_SAGANI,
    Raw,
    play_together,
    running_host,
    start_host_process,
)

from sagani_net import security
from sagani_net.client import Client, HostTimeout
from sagani_net.host import Limits
from sagani_net.protocol import VERSION, decode_message, encode

pytestmark = pytest.mark.skipif(not security.curve_available(), reason="libzmq without CURVE")


def secure_host(data_dir: Path, **options):
    keys = security.host_keys(data_dir)
    return running_host(data_dir, secure=security.server_setup(keys), **options), keys


def code_for(endpoint: str, public_key: bytes) -> str:
    return security.join_code("127.0.0.1", port_number(endpoint), public_key)


# -- join codes and keys ------------------------------------------------------------------------


def test_join_code_carries_the_address_and_the_host_key(tmp_path: Path) -> None:
    keys = security.host_keys(tmp_path)
    code = security.join_code("192.0.2.20", 47410, keys.public)
    assert code.startswith("sagani://192.0.2.20:47410?key=")
    assert security.parse_address(code) == security.Address("tcp://192.0.2.20:47410",
                                                            keys.public)


def test_join_code_wrapped_as_an_endpoint_is_still_a_join_code() -> None:
    code = security.join_code("127.0.0.1", 47410, b"k" * 32)
    assert security.parse_address("tcp://" + code) == security.parse_address(code)


def test_plain_addresses_mean_a_plain_host() -> None:
    assert security.parse_address("192.0.2.5:47410") == security.Address("tcp://192.0.2.5:47410")
    assert security.parse_address("tcp://h:1").server_key is None


@pytest.mark.parametrize(
    "code",
    [
        "sagani://127.0.0.1?key=abc",  # no port
        "sagani://127.0.0.1:47410",  # no key
        "sagani://127.0.0.1:47410?key=tooshort",
        "http://127.0.0.1:47410?key=" + "A" * 43,
    ],
)
def test_damaged_join_codes_are_refused_with_a_reason(code: str) -> None:
    with pytest.raises(security.SecurityError):
        security.parse_join_code(code)


def test_host_key_pair_is_kept_owner_only_in_the_data_dir(tmp_path: Path) -> None:
    first = security.host_keys(tmp_path)
    assert security.host_keys(tmp_path) == first
    mode = stat.S_IMODE(os.stat(tmp_path / security.KEY_FILE).st_mode)
    assert mode == 0o600


def test_damaged_key_file_is_an_error_not_a_new_key(tmp_path: Path) -> None:
    (tmp_path / security.KEY_FILE).write_text('{"public": "x", "secret": "y"}')
    with pytest.raises(security.SecurityError, match="not a usable key file"):
        security.host_keys(tmp_path)


# -- CURVE on the wire --------------------------------------------------------------------------


def test_client_with_the_join_code_plays_a_whole_secure_game(tmp_path: Path) -> None:
    hosting, keys = secure_host(tmp_path, heartbeat_s=0.2)
    with hosting as host:
        code = code_for(host.endpoint, keys.public)
        a, b = Client(code), Client(code)
        try:
            table = a.create({"players": 2}, seed=41)
            a.join(table, name="a")
            b.join(table, name="b")
            play_together((a, b))
            assert a.state.status == b.state.status == "over"
            assert a.record(table)["result"] == b.state.view["result"]
        finally:
            a.close()
            b.close()


def test_client_with_the_wrong_key_cannot_talk_to_the_host(tmp_path: Path) -> None:
    hosting, keys = secure_host(tmp_path)
    with hosting as host:
        impostor_key, _ = zmq.curve_keypair()
        for address in (code_for(host.endpoint, impostor_key), host.endpoint):
            client = Client(address, timeout_s=0.3, retries=1)
            try:
                with pytest.raises(HostTimeout):
                    client.connect()
            finally:
                client.close()
        # The right key still gets in.
        client = Client(code_for(host.endpoint, keys.public), timeout_s=2.0, retries=1)
        try:
            assert client.connect()["type"] == "welcome"
        finally:
            client.close()


def test_subscriber_with_the_wrong_key_hears_nothing(tmp_path: Path) -> None:
    hosting, keys = secure_host(tmp_path, heartbeat_s=0.05)
    with hosting as host:
        Client(code_for(host.endpoint, keys.public)).create({"players": 2})
        subs = {}
        for name, key in (("right", keys.public), ("wrong", zmq.curve_keypair()[0])):
            sub = subs[name] = zmq.Context.instance().socket(zmq.SUB)
            sub.linger, sub.rcvtimeo = 0, 1000
            security.client_setup(sub, key)
            sub.connect(host.pub_endpoint)
            sub.subscribe(b"")
        try:
            assert subs["right"].recv_multipart()[0].startswith(b"table.")  # a heartbeat
            with pytest.raises(zmq.Again):
                subs["wrong"].recv_multipart()
        finally:
            for sub in subs.values():
                sub.close()


def test_secure_traffic_shows_no_plaintext_on_the_wire(tmp_path: Path) -> None:
    hosting, keys = secure_host(tmp_path)
    with hosting as host, proxied(port_number(host.endpoint)) as proxy:
        client = Client(code_for(proxy.endpoint, keys.public))
        try:
            table = client.create({"players": 2})
            client.request("join", table=table, name="eavesdropped")
        finally:
            client.close()
        assert len(proxy.heard) > 500
        for word in (b"welcome", b"joined", b"token", b"eavesdropped", table.encode()):
            assert word not in proxy.heard, word


def start_secure_host_process(data_dir: Path) -> tuple[subprocess.Popen[str], str, str]:
    """``sagani host --secure`` in a subprocess; returns it with its request endpoint and the
    join code it prints."""
    proc, endpoint, _ = start_host_process(data_dir, "--secure", "--port", "0")
    assert proc.stdout is not None
    code = proc.stdout.readline().split("join code ")[1].strip()
    return proc, endpoint, code


def test_sagani_host_secure_prints_the_same_join_code_after_a_restart(tmp_path: Path) -> None:
    codes = []
    for _ in range(2):
        proc, endpoint, code = start_secure_host_process(tmp_path)
        try:
            client = Client(code)
            assert client.connect()["type"] == "welcome"
            client.close()
            codes.append(code.split("?")[1])
            assert security.parse_address(code).endpoint == endpoint
        finally:
            proc.terminate()
            proc.wait()
    assert codes[0] == codes[1]


# -- limits -------------------------------------------------------------------------------------


def test_a_peer_over_its_rate_gets_rate_limited_and_others_are_served(tmp_path: Path) -> None:
    with running_host(tmp_path, limits=Limits(rate_per_s=5, rate_burst=10)) as host:
        flooder, other = Raw(host.endpoint), Raw(host.endpoint)
        replies = [flooder("hello")["type"] for _ in range(12)]
        # Each hello takes a token of the burst of 10, or two if the host spent over
        # limits.REQUEST_COST_S on it (a loaded machine's cold caches can, on the first ones):
        # the burst serves 8 to 10, and every request after the first refusal is refused.
        served = replies.index("error") if "error" in replies else len(replies)
        assert 8 <= served <= 10 and replies[served:] == ["error"] * (12 - served), replies
        assert flooder("hello")["code"] == "rate_limited"
        assert other("hello")["type"] == "welcome"
        time.sleep(0.5)  # the refill under test: the bucket refills at 5 a second
        assert flooder("hello")["type"] == "welcome"
        flooder.close()
        other.close()


def test_costly_pattern_configs_over_curve_are_refused_and_the_lobby_stays_small(
    tmp_path: Path,
) -> None:
    """Issue 18's pattern frames from a peer holding the join code: the 261-byte `static`
    (3 copies of a grid a search took a second on) and a `create` of 600 copies, refused
    `bad_config`; a table of 48 is listed as the count and digest of its patterns, while a
    secure player's `sync` is answered."""
    grid = [["", "", "", "", ""], ["R", "1", "Y", "", "R"], ["", "Y", "2", "R", ""],
            ["", "", "Y", "3", "1"]]

    def custom(count: int) -> dict[str, object]:
        return {"pattern_set": "custom", "patterns": [
            {"name": f"p{i}", "difficulty": 4, "grid": grid} for i in range(count)]}

    hosting, keys = secure_host(tmp_path)
    with hosting as host:
        code = code_for(host.endpoint, keys.public)
        attacker = zmq.Context.instance().socket(zmq.DEALER)
        attacker.linger, attacker.rcvtimeo = 0, 30_000
        security.client_setup(attacker, keys.public)
        attacker.connect(host.endpoint)
        for n, (kind, config) in enumerate((("static", custom(3)), ("create", custom(600)),
                                            ("create", {**custom(48), "players": 4}))):
            attacker.send_multipart([b"", encode({"v": VERSION, "type": kind, "id": n,
                                                  "game": "sagrada", "config": config})])
        player = Client(code)
        try:
            table = player.create({"players": 2}, game="sagrada")
            player.join(table, name="ann")
            assert player.sync().version == 0
            replies = [decode_message(attacker.recv_multipart()[-1]) for _ in range(3)]
            listing = {t["table"]: t["config"] for t in player.tables()}
        finally:
            player.close()
            attacker.close()
    assert [r.get("code", r["type"]) for r in replies] == ["bad_config", "bad_config", "created"]
    assert listing[replies[2]["table"]]["patterns"]["count"] == 48


def test_session_cap_is_an_error_code(tmp_path: Path) -> None:
    with running_host(tmp_path, limits=Limits(max_sessions=2)) as host:
        raw = Raw(host.endpoint)
        table = raw("create", game="sagani", config={"players": 3})["table"]
        raw("join", table=table)
        raw("join", table=table, role="spectator")
        refused = raw("join", table=table)
        assert refused["code"] == "too_many_sessions" and refused["message"]
        raw.close()


def test_message_over_the_socket_limit_is_dropped_and_the_host_serves_on(tmp_path: Path) -> None:
    with running_host(tmp_path, limits=Limits(max_frame_bytes=128 * 1024)) as host:
        huge = zmq.Context.instance().socket(zmq.DEALER)
        huge.linger, huge.rcvtimeo = 0, 500
        huge.connect(host.endpoint)
        huge.send_multipart([b"", encode({"v": VERSION, "type": "hello", "id": 1,
                                          "client": "x" * 200_000})])
        with pytest.raises(zmq.Again):
            huge.recv_multipart()
        huge.close()
        raw = Raw(host.endpoint)
        assert raw("hello", client="x" * 60)["type"] == "welcome"
        over_decoder = encode({"v": VERSION, "type": "hello", "id": 2, "client": "x" * 70_000})
        assert raw.send_bytes(over_decoder)["code"] == "too_big"
        raw.close()


def test_stalled_subscriber_and_stalled_requester_do_not_slow_the_host(tmp_path: Path) -> None:
    limits = Limits(sndhwm=50, rate_per_s=1e6, rate_burst=10**6)
    with running_host(tmp_path, limits=limits, heartbeat_s=0.2) as host:
        ctx = zmq.Context.instance()
        # A subscriber to everything that never reads, with the smallest buffers it can ask for.
        stalled_sub = ctx.socket(zmq.SUB)
        stalled_sub.linger, stalled_sub.rcvhwm, stalled_sub.rcvbuf = 0, 1, 4096
        stalled_sub.connect(host.pub_endpoint)
        stalled_sub.subscribe(b"")
        # A requester that asks for big snapshots as fast as it can and never reads a reply.
        stalled_req = ctx.socket(zmq.DEALER)
        stalled_req.linger, stalled_req.rcvhwm, stalled_req.rcvbuf = 0, 1, 4096
        stalled_req.connect(host.endpoint)
        a, b = Client(host.endpoint), Client(host.endpoint)
        try:
            table = a.create({"players": 2}, seed=43)
            a.join(table, name="a")
            b.join(table, name="b")
            sync = encode({"v": VERSION, "type": "sync", "id": 1, "table": table})
            for _ in range(3000):
                stalled_req.send_multipart([b"", sync])
            started_s = time.monotonic()
            play_together((a, b))
            assert a.state.status == b.state.status == "over"
            assert {**a.state.view, "you": 0} == {**b.state.view, "you": 0}
            # Generous: an unstalled game takes well under a second here.
            assert time.monotonic() - started_s < 30
            assert Raw(host.endpoint)("hello")["type"] == "welcome"
        finally:
            for sock in (stalled_sub, stalled_req):
                sock.close()
            a.close()
            b.close()


def test_retried_join_from_another_peer_never_gets_the_first_token(tmp_path: Path) -> None:
    with running_host(tmp_path) as host:
        first, replayer = Raw(host.endpoint), Raw(host.endpoint)
        table = first("create", game="sagani", config={"players": 3})["table"]
        join = encode({"v": VERSION, "type": "join", "id": 5, "table": table, "name": "ann"})
        mine = first.send_bytes(join)
        assert first.send_bytes(join) == mine  # the same peer's retry: the same seat
        theirs = replayer.send_bytes(join)  # a replay by someone else: a seat of their own
        assert theirs["type"] == "joined" and theirs["token"] != mine["token"]
        assert theirs["seat"] != mine["seat"]
        first.close()
        replayer.close()


def test_client_retry_on_a_new_socket_keeps_its_seat(tmp_path: Path) -> None:
    """Lazy Pirate reopens its socket; the host still sees the same peer and the same join."""
    with running_host(tmp_path) as host, proxied(port_number(host.endpoint)) as proxy:
        client = Client(proxy.endpoint, timeout_s=0.3, retries=10)
        try:
            table = client.create({"players": 2})
            proxy.cut()
            threading.Timer(0.5, proxy.restore).start()
            # The first try is held in the cut link; retries go out on new sockets.
            replica = client.join(table, name="ann")
            raw = Raw(host.endpoint)
            listing = raw("tables")["tables"]
            seats = next(t["seats"] for t in listing if t["table"] == table)
            assert [s["taken"] for s in seats] == [True, False] and replica.you == 0
            raw.close()
        finally:
            client.close()


def test_sagani_bot_plays_a_solo_game_given_the_join_code(tmp_path: Path) -> None:
    proc, _, code = start_secure_host_process(tmp_path)
    try:
        done = subprocess.run(
            [*RUN_SAGANI, "bot", code, "--create", "1", "--strategy",
             "random", "--seed", "3", "--quiet"],
            cwd=ROOT, capture_output=True, text=True, timeout=60,
        )
        assert done.returncode == 0, done.stderr
        assert "game over" in done.stdout
    finally:
        proc.terminate()
        proc.wait()


def test_sagani_join_and_sagani_bot_play_a_secure_host_from_its_join_code(tmp_path: Path) -> None:
    """The LAN-party commands of test_cli_smoke.py, with ``--secure`` and the join code."""
    with lan_party(tmp_path / "host", "--secure") as (host, bots):
        assert host.stdout is not None
        host.stdout.readline()
        code = host.stdout.readline().split("join code ")[1].strip()
        person = Terminal("join", code, "--players", "2", "--bots", "1", "--name", "ann",
                          env={"XDG_DATA_HOME": str(tmp_path / "data")})
        person.wait_for("waiting for players (1/2 seated)")
        table = re.search(r"table ([0-9a-f]+)", person.screen.text())
        assert table is not None
        bots.append(subprocess.Popen([*RUN_SAGANI, "bot", code, "--table", table.group(1),
                                      "--quiet", "--strategy", "random"]))
        # The bot's seat_taken and game_started came over the encrypted PUB.
        person.wait_for("YOUR TURN")
        person.send("q")
        assert person.close() == 0


# -- secrets on disk (issue 18 point 10) --------------------------------------------------------


def test_sagani_join_keeps_its_seat_tokens_owner_only(tmp_path: Path) -> None:
    """join.json holds seat tokens: 0600 in a 0700 folder, even where an older sagani left a
    world-readable folder and file."""
    folder = tmp_path / "data" / "sagani"
    folder.mkdir(parents=True)
    os.chmod(folder, 0o755)
    (folder / "join.json").write_text("{}")
    os.chmod(folder / "join.json", 0o644)
    with lan_party(tmp_path / "host") as (host, _):
        assert host.stdout is not None
        address = host.stdout.readline().split()[3]
        person = Terminal("join", address, "--players", "2", "--name", "ann",
                          env={"XDG_DATA_HOME": str(tmp_path / "data")})
        person.wait_for("waiting for players (1/2 seated)")
        saved = folder / "join.json"
        assert any(key.startswith(address) for key in json.loads(saved.read_text()))
        assert stat.S_IMODE(saved.stat().st_mode) == 0o600
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        person.send("q")
        assert person.close() == 0


def test_private_files_are_owner_only_whatever_was_there(tmp_path: Path) -> None:
    from sagani_net.private_files import write_private

    path = tmp_path / "open" / "secret"
    path.parent.mkdir(mode=0o755)
    os.chmod(path.parent, 0o755)
    leftover = path.with_name(path.name + ".tmp")
    leftover.write_text("old")
    os.chmod(leftover, 0o644)  # a crash's left-over, of another mode
    write_private(path, "s3cret")
    assert path.read_text() == "s3cret" and not leftover.exists()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def run_host_with_bots(data_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*RUN_SAGANI, "host", "--quiet", "--port", "0", "--bots",
         "random", "--data-dir", str(data_dir)], cwd=ROOT, capture_output=True, text=True,
        timeout=60,
    )


def sealed_tokens_beside_their_key(data_dir: Path) -> tuple[Path, Path]:
    """A house bots' tokens file and its key, as a host leaves them."""
    from sagani_net.bots import house

    data_dir.mkdir()
    key, _, _ = house.load_tokens(data_dir)  # made on first use
    tokens = data_dir / house.TOKENS_FILE
    tokens.write_text(json.dumps({"t1": {"1": house.seal(key, "a-token")}}))
    return tokens, data_dir / house.KEY_FILE


@pytest.mark.parametrize("damage", ["garbage", "a directory", "gone"])
def test_a_house_key_that_cannot_be_read_is_one_line_never_a_new_key(
    tmp_path: Path, damage: str
) -> None:
    """Before: an unreadable house-bots.key was silently replaced, orphaning every sealed
    token (their seats stayed taken by bots that could never come back)."""
    tokens, key_file = sealed_tokens_beside_their_key(tmp_path / "d")
    sealed = tokens.read_text()
    key_file.unlink()
    if damage == "garbage":
        key_file.write_text("not a key\n")
    elif damage == "a directory":
        key_file.mkdir()  # unreadable even for root, whom no file mode stops
    done = run_host_with_bots(tmp_path / "d")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("sagani host: house_key_unreadable: ") and str(key_file) in line
    assert tokens.read_text() == sealed
    if damage == "gone":
        assert not key_file.exists()
    else:
        assert key_file.is_dir() == (damage == "a directory")
        assert key_file.is_dir() or key_file.read_text() == "not a key\n"


def test_house_tokens_are_sealed_with_secretbox_and_a_changed_one_is_refused(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from nacl.secret import SecretBox

    from sagani_net.bots import house

    tokens, key_file = sealed_tokens_beside_their_key(tmp_path / "d")
    key = bytes.fromhex(key_file.read_text())
    text = json.loads(tokens.read_text())["t1"]["1"]
    assert text.startswith(house.SEALED_PREFIX) and "a-token" not in text
    raw = base64.urlsafe_b64decode(text.removeprefix(house.SEALED_PREFIX))
    assert SecretBox(key).decrypt(raw) == b"a-token"  # the library's own format, whole
    changed = bytearray(raw)
    changed[-1] ^= 1  # one bit of the ciphertext: the old cipher handed back a wrong token
    tokens.write_text(json.dumps({"t1": {"1": house.SEALED_PREFIX
                                             + base64.urlsafe_b64encode(changed).decode()}}))
    with caplog.at_level("WARNING", logger="sagani_net.bots.house"):
        assert house.load_tokens(tmp_path / "d")[1] == {}
    assert "does not unseal" in caplog.text


def test_house_tokens_sealed_by_an_older_sagani_are_sealed_again_with_secretbox(
    tmp_path: Path,
) -> None:
    """The old HMAC-CTR seal (16-byte nonce) is read once and replaced: the bots come back."""
    import hashlib
    import hmac

    from sagani_net.bots import house

    data_dir = tmp_path / "d"
    data_dir.mkdir()
    key = bytes(range(32))
    (data_dir / house.KEY_FILE).write_text(key.hex())
    nonce, token = bytes(16), b"an-old-token-longer-than-thirty-two-bytes"
    pad = b"".join(hmac.new(key, nonce + bytes([i]), hashlib.sha256).digest() for i in range(2))
    stream = bytes(a ^ b for a, b in zip(token, pad[: len(token)], strict=True))
    old = base64.urlsafe_b64encode(nonce + stream).decode()
    (data_dir / house.TOKENS_FILE).write_text(json.dumps({"t1": {"0": old, "1": ""}}))
    bots = house.HouseBots("tcp://127.0.0.1:1", "random", data_dir)
    assert bots._seated == {"t1": {"0": token.decode(), "1": ""}}
    again = json.loads((data_dir / house.TOKENS_FILE).read_text())["t1"]
    assert again["0"].startswith(house.SEALED_PREFIX) and again["1"] == ""
    assert house.unseal(key, again["0"]) == token.decode()
