"""The protocol without our Python stack: tests/protocol/interop_bot.py, a bot with its own ZMTP
and its own strict MessagePack (no pyzmq, no msgpack, nothing of ours), plays whole games of
every game against a real `sagani host` on 127.0.0.1, and everything the host sends it is read
as a typed client in another language reads it, against the types PROTOCOL.md gives."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import interop_bot as ib
import pytest
from test_net_support import port_of, start_host_process

from sagani_net.host import Host

PROTOCOL_DIR = Path(__file__).resolve().parents[2] / "protocol"
VECTORS = PROTOCOL_DIR / "vectors"
SPEC = (PROTOCOL_DIR / "PROTOCOL.md").read_text()


@pytest.fixture(scope="module")
def address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    proc, endpoint, _ = start_host_process(tmp_path_factory.mktemp("interop"), "--port", "0")
    try:
        yield f"127.0.0.1:{port_of(endpoint)}"
    finally:
        proc.terminate()
        proc.wait()


def test_the_bot_uses_nothing_but_the_standard_library() -> None:
    tree = ast.parse((Path(__file__).parent / "interop_bot.py").read_text())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree)
                if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module}
    assert imported <= {"__future__", "argparse", "math", "os", "random", "select", "socket",
                        "struct", "sys", "time", "typing"}, imported


def check_game(found: dict[str, Any], game: str, players: int) -> None:
    record = found["record"]
    assert record["game"] == game and len(record["names"]) == players
    # Every action accepted is in the record, once, in order: nothing played twice or lost.
    assert record["actions"] == found["played"]
    assert found["view"]["result"] == record["result"]
    assert found["history"]["version"] == len(record["actions"])


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("game", "players"), [("sagani", 2), ("sagrada", 2), ("sugi", 2),
                                                ("sagani", 1), ("sagrada", 1), ("sugi", 3)])
def test_a_bot_without_pyzmq_or_msgpack_plays_a_whole_game(
    address: str, game: str, players: int
) -> None:
    # Seat 0 is a REQ peer over ZMTP 3.1 writing the shortest msgpack forms; the other seats
    # DEALER peers over ZMTP 3.0 sending the body alone, in the widest forms (every int an
    # int64, every str a str32, long frame headers), which are msgpack and ZMTP all the same
    # (long headers cost a connection its life after some 600,000 frames: PROTOCOL.md, 8).
    found = ib.play(address, game, seed=7, players=players)
    check_game(found, game, players)


# -- the codec itself, and the vectors a decoder author tests against -------------------------

def vector_frames() -> list[tuple[str, bytes]]:
    return [(p.stem, p.read_bytes()) for p in sorted(VECTORS.glob("*.msgpack"))]


@pytest.mark.parametrize(("name", "frame"), vector_frames(), ids=lambda v: str(v)[:40])
def test_every_vector_reads_strictly_and_is_the_shortest_form(name: str, frame: bytes) -> None:
    message = ib.decode(frame)
    assert ib.Encoder()(message) == frame
    if "request" not in name:
        ib.check_message(message)


@pytest.mark.parametrize("wide", [False, True])
def test_the_codec_reads_back_what_it_writes(wide: bool) -> None:
    value = {"i": [0, 127, 128, 255, 256, 65535, 65536, 2**32, 2**63 - 1, -1, -32, -33, -128,
                   -129, -32768, -32769, -(2**31) - 1, -(2**63)],
             "s": ["", "a" * 31, "b" * 32, "c" * 256, "é" * 40000], "f": 0.5, "n": None,
             "b": [True, False], "m": {str(k): k for k in range(20)}, "l": list(range(70000))}
    assert ib.decode(ib.Encoder(wide)(value)) == value


@pytest.mark.parametrize(("frame", "why"), [
    (b"\x81\x01\x02", "map key that is not a str"),
    (b"\x82\xa1a\x01\xa1a\x02", "twice"),
    (b"\xcf\x80\x00\x00\x00\x00\x00\x00\x00", "signed 64-bit"),
    (b"\xcb\x7f\xf8\x00\x00\x00\x00\x00\x00", "not a number"),
    (b"\xd4\x01\x00", "fixext1"),
    (b"\xa2\xc3\x28", "UTF-8"),
    (b"\xc0\xc0", "after"),
])
def test_the_decoder_is_strict(frame: bytes, why: str) -> None:
    with pytest.raises(ib.Mismatch, match=why):
        ib.decode(frame)


class Asker:
    """One raw connection to a host's request socket, answering ``ask(id, **fields)`` with the
    reply read strictly and checked against the pages (section 4)."""

    def __init__(self, host: Host, socket_type: str = "DEALER", minor: int = 1) -> None:
        self.host_name, port = host.endpoint.removeprefix("tcp://").rsplit(":", 1)
        self.pub_port = int(host.pub_endpoint.rsplit(":", 1)[1])
        self.conn = ib.Zmtp(self.host_name, int(port), socket_type, minor=minor)
        self.delimiter = [b""] if socket_type == "REQ" else []

    def __call__(self, msg_id: int, **fields: Any) -> dict[str, Any]:
        self.conn.send([*self.delimiter, ib.Encoder()({"v": 1, "id": msg_id, **fields})])
        assert self.conn.ready(ib.WAIT_S)
        return ib.check_message(ib.decode(self.conn.recv()[-1]))


@pytest.fixture
def ask(host: Host) -> Iterator[Asker]:
    asker = Asker(host)
    yield asker
    asker.conn.close()


@pytest.mark.host(heartbeat_s=1)
def test_a_host_given_whole_seconds_still_says_them_as_floats(ask: Asker) -> None:
    # A program that embeds the host (sagani play, a test) may pass heartbeat_s=1: welcome
    # types heartbeat_s and presence_s as floats, and a typed client refuses an int there.
    welcome = ask(1, type="hello")
    assert welcome["heartbeat_s"] == welcome["presence_s"] == 1.0


@pytest.mark.timeout(120)
def test_the_vectors_hold_every_msgpack_format_the_host_sends_in_play(address: str) -> None:
    # A decoder author tests against the vectors first: a format only play brings (a uint64:
    # a client's 40-bit ids echoed, a 63-bit seed; an int16: a Sagani score below -128) would
    # meet an untested path. The games are dealt by fixed seeds (the host takes them:
    # --client-seeds), so that the formats they bring are the same at every run.
    in_vectors: set[str] = set()
    for _, frame in vector_frames():
        ib.decode(frame, in_vectors)
    sent: set[str] = set()
    for game, players in (("sagani", 2), ("sagrada", 2), ("sugi", 2), ("sagani", 1)):
        found = ib.play(address, game, seed=3, players=players, table_seed=2**62 + 3)
        sent |= found["formats"]
    assert {"uint64", "int16"} <= sent  # what the test is for: play brings them
    assert sent <= in_vectors


@pytest.mark.parametrize("minor", [0, 1])
def test_either_subscription_form_and_a_ping_are_answered_whatever_the_greeting(
    host: Host, minor: int
) -> None:
    # PROTOCOL.md, "Without a ZeroMQ library": libzmq takes a 3.0 subscription message and a
    # 3.1 SUBSCRIBE command from a peer of either version, and answers a PING with its context.
    ask = Asker(host, "REQ", minor)
    subs = []
    try:
        ask.conn._send(b"\x04PING\x00\x00ctx", ib.COMMAND)
        assert ask.conn.ready(ib.WAIT_S)
        assert ask.conn._frame() == (ib.COMMAND, b"\x04PONGctx")
        table = ask(1, type="create", game="sagani", config={})["table"]
        for form in (0, 1):
            sub = ib.Zmtp(ask.host_name, ask.pub_port, "SUB", minor=minor)
            sub.minor = form  # the form subscribe() writes
            sub.subscribe(f"table.{table}.".encode())
            subs.append(sub)
        for sub in subs:  # a heartbeat comes on an idle table within heartbeat_s
            assert sub.ready(ib.WAIT_S)
            topic, body = sub.recv()
            assert topic == f"table.{table}.".encode()
            assert ib.check_message(ib.decode(body))["type"] == "heartbeat"
    finally:
        for conn in (ask.conn, *subs):
            conn.close()


def test_a_spectators_left_names_no_seat_as_the_page_says(ask: Asker) -> None:
    # A typed client reads `left.seat` as the page types it: nil must be among its values.
    table = ask(1, type="create", game="sagani", config={})["table"]
    token = ask(2, type="join", table=table, role="spectator")["token"]
    left = ask(3, type="leave", table=table, token=token)
    assert left["seat"] is None
    assert "Reply `left`: `{v, type, id, table, seat:\nint|nil}`" in SPEC


def test_optional_fields_sent_as_nil_are_left_out(ask: Asker) -> None:
    # What a typed client writes for a request struct whose optional fields are unset: every
    # one of them, as nil (serde's Option, Go's nil slice, Java's null).
    assert ask(1, type="hello", client=None)["type"] == "welcome"
    assert ask(2, type="tables", after=None)["type"] == "tables"
    created = ask(3, type="create", game="sagani", config={}, seed=None, bots=None,
                  deadline_s=None, turn_timer_s=None, nonce=None)
    assert created["bots"] == []
    table = created["table"]
    joined = ask(4, type="join", table=table, role=None, seat=None, name=None, token=None,
                 nonce=None)
    assert (joined["role"], joined["seat"]) == ("player", 0)
    assert joined["snapshot"]["seats"][0]["name"] == "player"
    ask(5, type="join", table=table)
    legal = ask(6, type="legal", table=table, token=joined["token"], version=None, page=None)
    assert legal["page"] == 0
    assert ask(7, type="static", table=table, game=None, config=None)["game"] == "sagani"
    # A required field sent as nil is still wrong: nil is not a table.
    refused = ask(8, type="sync", table=None)
    assert (refused["type"], refused["code"]) == ("error", "bad_field")
