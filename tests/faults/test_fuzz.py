"""Fuzzing a real host on 127.0.0.1 with hypothesis-made frames.

Five kinds of frame: random bytes, random msgpack of any shape (ext types, bin, huge ints,
odd keys, deep nesting), valid requests with mutated fields, valid requests out of sequence
(real tokens used out of turn, on stale versions, for the wrong seat, after the game is over),
and a hostile player's (an action that names a seat, names that would paint a screen).
Every frame must get an error reply when it is bad (with the code the codec gives it locally),
the host must stay up, and the games on it must not change. At least 10,000 frames a run.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import msgpack
import pytest
import zmq
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_net_support import WAIT_S, Raw, choose

from sagani_net.game import RuleError
from sagani_net.games.sagrada import patterns as sagrada_patterns
from sagani_net.games.sagrada.patterns import MAX_PATTERNS, RESTRICTIONS
from sagani_net.games.sagrada.rules import SAGRADA
from sagani_net.host import Host, Limits
from sagani_net.limits import MAX_ENVELOPE_FRAME_BYTES, MAX_REQUEST_FRAMES
from sagani_net.protocol import ProtocolError, check_request, decode_message, decode_request, encode
from sagani_net.protocol.messages import MAX_ID, UNSAFE_TEXT, request_id

EXAMPLES = 240
#: Frames hypothesis draws per example; each single-part one also goes out in DERIVED
#: byte-level variants (flipped, cut short, spliced) made by a generator hypothesis seeds.
FRAMES_PER_EXAMPLE = (15, 25)
DERIVED = 3
MIN_FRAMES = 10_000
#: Ids the real sessions never used, so no fuzz frame hits a cached accepted reply.
FUZZ_IDS = st.integers(10**9, MAX_ID)
#: Issue 18's grid: a backtracking completion search took about a second on it.
COSTLY = [["", "", "", "", ""], ["R", "1", "Y", "", "R"], ["", "Y", "2", "R", ""],
          ["", "", "Y", "3", "1"]]


@dataclass
class Tables:
    """What the fuzzer aims at: a running table, a finished one, and tokens of every kind."""

    running: str
    finished: str
    tokens: list[str]
    spectator: str
    finished_tokens: list[str]
    left: str
    version: int
    turn: int


# No rate limit here: the fuzzer sends as fast as it can on purpose (rate limits have their own
# test in test_security.py).
pytestmark = pytest.mark.host(limits=Limits(rate_per_s=1e9, rate_burst=10**9))


def play(raw: Raw, table: str, tokens: list[str], rng: random.Random, until_over: bool,
         moves: int = 0) -> None:
    while True:
        snap = raw("sync", table=table)
        if snap["status"] == "over" or (not until_over and snap["version"] >= moves):
            return
        seat = snap["turn"]
        reply = raw("act", table=table, seat=seat, token=tokens[seat], version=snap["version"],
                    action=choose(snap["view"], rng))
        assert reply["type"] == "accepted", reply


@pytest.fixture
def tables(host: Host) -> Iterator[Tables]:
    raw = Raw(host.endpoint)
    rng = random.Random(5)
    running = raw("create", game="sagani", config={"players": 2}, seed=801)["table"]
    tokens = [raw("join", table=running)["token"] for _ in range(2)]
    spectator = raw("join", table=running, role="spectator")["token"]
    play(raw, running, tokens, rng, until_over=False, moves=7)
    finished = raw("create", game="sagani", config={"players": 2}, seed=802)["table"]
    finished_tokens = [raw("join", table=finished)["token"] for _ in range(2)]
    play(raw, finished, finished_tokens, rng, until_over=True)
    spare = raw("create", game="sagani", config={"players": 3})["table"]
    left = raw("join", table=spare)["token"]
    raw("leave", table=spare, token=left)
    snap = raw("sync", table=running)
    yield Tables(running, finished, tokens, spectator, finished_tokens, left, snap["version"],
                 snap["turn"])
    raw.close()


# -- strategies ---------------------------------------------------------------------------------

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**63), 2**64 - 1), st.floats(),
    st.text(max_size=24), st.binary(max_size=24),
)
exts = st.one_of(
    st.builds(msgpack.ExtType, st.integers(0, 127), st.binary(max_size=12)),
    st.builds(msgpack.Timestamp, st.integers(0, 2**32 - 1)),
)
keys = st.one_of(st.text(max_size=12), st.integers(-5, 5), st.binary(max_size=4), st.none())


def containers(kids: st.SearchStrategy[Any], size: int) -> st.SearchStrategy[Any]:
    return st.lists(kids, max_size=size) | st.dictionaries(keys, kids, max_size=size)


# Three levels of nesting, as st.recursive(max_leaves=8) made, but not by it: it redraws a
# value whenever it passes its leaf limit, and that took two thirds of this test's time
# (cProfile). Deeper nesting is `deep`'s.
values = st.one_of(st.sampled_from([None, True, [], {}]), scalars, exts)
for size in (6, 3, 2):
    values = st.one_of(values, containers(values, size))


def nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


deep = st.integers(1, 120).map(nested)
odd_values = st.sampled_from([0, -1, 1, 2**63, 2**64 - 1, "", "x" * 5000, True, None, [], {},
                              1.5, "sagani", "table.", b"\x00"])
fake_tokens = st.text(min_size=1, max_size=64)


def pack(value: Any) -> bytes:
    return msgpack.packb(value, use_bin_type=True)


random_bytes = st.binary(max_size=400).map(lambda b: [b])
random_msgpack = st.one_of(values, st.dictionaries(keys, values, max_size=10), deep).map(
    lambda value: [pack(value)]
)


# The strategies a frame draws from, made once: hypothesis works out each strategy's properties
# the first time it draws from it, so one made inside a draw costs that every frame.
SOME_ACTION = st.sampled_from([{"type": "take", "index": 0}, {"type": "pass"},
                               {"type": "place", "cell": [0, 1], "rotation": 90}])
ONE_TO_THREE = st.integers(1, 3)
HOW = st.sampled_from(["drop", "replace", "odd", "add", "action"])
NEW_KEY = st.text(min_size=1, max_size=8)
ANY_ACTION = st.dictionaries(st.text(max_size=8), values, max_size=4)
SEQ_ACTION = st.fixed_dictionaries(
    {"type": st.sampled_from(["take", "pass", "place", "draw", "pick"])},
    optional={"index": st.integers(0, 5), "rotation": st.sampled_from([0, 90]),
              "cell": st.lists(st.integers(-3, 3), min_size=2, max_size=2)},
)


@st.composite
def mutated(draw: st.DrawFn, t: Tables) -> list[bytes]:
    """A well-formed request (with a made-up token) with fields dropped, added or changed."""
    action = draw(SOME_ACTION)
    templates = [
        {"type": "hello", "client": "fuzz"},
        {"type": "tables"},
        {"type": "sync", "table": t.running, "token": draw(fake_tokens)},
        {"type": "record", "table": t.running},
        {"type": "act", "table": t.running, "seat": draw(st.integers(0, 3)),
         "token": draw(fake_tokens), "version": t.version, "action": action},
        {"type": "join", "table": t.running, "role": "player", "name": "fuzz",
         "token": draw(fake_tokens)},
        {"type": "leave", "table": t.running, "token": draw(fake_tokens)},
        {"type": "create", "game": "sagani", "config": {"players": 9}, "bots": []},
    ]
    message = {"v": 1, "id": draw(FUZZ_IDS), **draw(st.sampled_from(templates))}
    for _ in range(draw(ONE_TO_THREE)):
        field = draw(st.sampled_from(sorted(message)))
        how = draw(HOW)
        if how == "drop":
            message.pop(field)
        elif how == "replace":
            message[field] = draw(values)
        elif how == "odd":
            message[field] = draw(odd_values)
        elif how == "add":
            message[draw(NEW_KEY)] = draw(values)
        elif "action" in message:
            message["action"] = draw(ANY_ACTION)
    return [pack(message)]


@st.composite
def out_of_sequence(draw: st.DrawFn, t: Tables) -> list[bytes]:
    """A valid request with a real token that the game must refuse, and nothing else."""
    other = 1 - t.turn
    stale = draw(st.integers(0, MAX_ID).filter(lambda v: v != t.version))
    action = draw(SEQ_ACTION)
    act = {"type": "act", "table": t.running, "action": action}
    cases = [
        {**act, "seat": other, "token": t.tokens[other], "version": t.version},  # not your turn
        {**act, "seat": t.turn, "token": t.tokens[t.turn], "version": stale},  # stale version
        {**act, "seat": t.turn, "token": t.tokens[other], "version": t.version},  # wrong seat
        {**act, "seat": t.turn, "token": t.spectator, "version": t.version},  # a watcher
        {**act, "seat": t.turn, "token": t.left, "version": t.version},  # after leaving
        {**act, "table": t.finished, "seat": 0, "token": t.finished_tokens[0],
         "version": draw(st.integers(0, MAX_ID))},  # after the end
        {"type": "join", "table": t.running, "token": t.finished_tokens[1]},  # another table's
        {"type": "sync", "table": t.running, "token": t.finished_tokens[0]},
        {"type": "record", "table": t.running},  # before the end
        {"type": "leave", "table": t.finished, "token": t.tokens[0]},
    ]
    return [encode({"v": 1, "id": draw(FUZZ_IDS), **draw(st.sampled_from(cases))})]


#: Characters no string of a request may hold (PROTOCOL.md, section 4), one of each kind.
UNSAFE = ["\x1b", "\r", "\n", "\t", "\x00", "\x7f", "\x9b", "\u2028", "\u202e", "\u2066",
          "\u200f", "\u061c"]
painted = st.builds(lambda a, c, b: a + c + b, st.text(max_size=8), st.sampled_from(UNSAFE),
                    st.text(max_size=8))


@st.composite
def hostile(draw: st.DrawFn, t: Tables) -> list[bytes]:
    """What a hostile player sends (issue 18): an act of the seat to move, on the current
    version, whose action names a seat (it must be refused, whatever seat it names), and
    names with control or bidi characters (refused, even where the rest would be served)."""
    action = {"type": draw(st.sampled_from(["take", "pass", "draw"])), "seat": draw(
        st.integers(0, 3))}
    if action["type"] == "take":
        action["index"] = draw(st.integers(0, 4))
    cases = [
        {"type": "act", "table": t.running, "seat": t.turn, "token": t.tokens[t.turn],
         "version": t.version, "action": action},
        {"type": "join", "table": t.running, "role": "spectator", "name": draw(painted)},
        {"type": "hello", "client": draw(painted)},
        {"type": "create", "game": "sagani", "config": {draw(painted): 1}},
    ]
    return [encode({"v": 1, "id": draw(FUZZ_IDS), **draw(st.sampled_from(cases))})]


#: Multipart messages, past the framing too: more frames than a request may have, envelope
#: frames longer than a routing id (the host once echoed a whole envelope back).
multipart = st.lists(st.one_of(st.binary(max_size=40), st.just(b""), st.binary(max_size=400)),
                     min_size=2, max_size=MAX_REQUEST_FRAMES + 2)


def derived(parts: list[bytes], rng: random.Random) -> list[list[bytes]]:
    """Byte-level variants of a one-part frame: a few bytes flipped, cut short, spliced."""
    if len(parts) != 1 or not parts[0]:
        return []
    body = parts[0]
    flipped = bytearray(body)
    for _ in range(rng.randint(1, 3)):
        flipped[rng.randrange(len(body))] ^= 1 << rng.randrange(8)
    cut = body[: rng.randrange(len(body))]
    at = rng.randrange(len(body) + 1)
    spliced = body[:at] + rng.randbytes(rng.randint(1, 8)) + body[at:]
    return [[bytes(flipped)], [cut], [spliced]][:DERIVED]


def frames(t: Tables) -> st.SearchStrategy[list[bytes]]:
    return st.one_of(random_bytes, random_msgpack, mutated(t), mutated(t), out_of_sequence(t),
                     hostile(t), multipart)


# -- the oracle ---------------------------------------------------------------------------------

#: Replies a request that passes the codec may get besides an error: nothing in the fuzz
#: corpus may act, join, leave or end anything.
HARMLESS = {"hello": {"welcome"}, "tables": {"tables"}, "sync": {"snapshot"}, "record": set(),
            "create": {"created"}, "act": set(), "join": set(), "leave": set()}


def expect(parts: list[bytes]) -> tuple[str | None, set[str], int | None]:
    """(the error code the frame must get or None, the other reply types allowed, its id)."""
    if len(parts) + 1 > MAX_REQUEST_FRAMES:  # sent after an empty delimiter
        return "bad_frame", set(), None
    if len(parts) >= 2 and parts[-2] == b"":
        if any(len(part) > MAX_ENVELOPE_FRAME_BYTES for part in parts[:-1]):
            return "bad_frame", set(), None
        parts = parts[-1:]  # an envelope ending in a delimiter, as a proxy or REQ_CORRELATE sends
    if len(parts) != 1:
        return "bad_frame", set(), None
    try:
        message = decode_request(parts[0])
    except ProtocolError as exc:
        return exc.code, set(), None
    msg_id = request_id(message)
    try:
        request = check_request(message)
    except ProtocolError as exc:
        return exc.code, set(), msg_id
    if request["type"] == "join" and request["role"] == "spectator":
        # A byte flipped in a hostile name can make it a fair one: watching changes no game.
        return None, {"joined"}, msg_id
    return None, HARMLESS[request["type"]], msg_id


class Counter:
    frames = 0
    errors = 0


def snapshot(raw: Raw, table: str) -> tuple[int, int, str, dict[str, Any]]:
    snap = raw("sync", table=table)
    return snap["version"], snap["seq"], snap["status"], snap["view"]


def test_fuzzed_frames_get_errors_and_change_no_game(host: Host, tables: Tables) -> None:
    raw = Raw(host.endpoint)
    before = {table: snapshot(raw, table) for table in (tables.running, tables.finished)}

    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.lists(frames(tables), min_size=FRAMES_PER_EXAMPLE[0],
                    max_size=FRAMES_PER_EXAMPLE[1]), st.randoms(use_true_random=False))
    def fuzz(drawn: list[list[bytes]], rng: random.Random) -> None:
        batch = [*drawn, *(variant for parts in drawn for variant in derived(parts, rng))]
        # A socket per example: the replies an example that failed left unread are not read
        # as the next one's.
        sock = zmq.Context.instance().socket(zmq.DEALER)
        sock.linger, sock.rcvtimeo = 0, int(WAIT_S * 1000)
        sock.connect(host.endpoint)
        # Pipelined: every frame goes out before any reply is read; replies come in order.
        for parts in batch:
            sock.send_multipart([b"", *parts])
        for parts in batch:
            reply = decode_message(sock.recv_multipart()[-1])
            code, allowed, msg_id = expect(parts)
            Counter.frames += 1
            if code is not None:
                assert reply["type"] == "error", (parts, reply)
                assert reply["code"] == code and reply["message"], (parts, reply)
                assert reply["id"] == msg_id, (parts, reply)
                Counter.errors += 1
            else:
                assert reply["type"] == "error" or reply["type"] in allowed, (parts, reply)
                Counter.errors += reply["type"] == "error"
        sock.close()
        assert snapshot(raw, tables.running) == before[tables.running]

    fuzz()
    after = {table: snapshot(raw, table) for table in before}
    assert after == before
    assert Counter.frames >= MIN_FRAMES, Counter.frames
    print(f"fuzz: {Counter.frames} frames, {Counter.errors} error replies")
    # Still serving, and the game still plays.
    assert raw("hello")["type"] == "welcome"
    play(raw, tables.running, tables.tokens, random.Random(6), until_over=False,
         moves=tables.version + 4)
    raw.close()


# -- Sagrada's custom patterns (issue 18) -----------------------------------------------------

CELL = st.sampled_from(["", "", "", *RESTRICTIONS[1:], "x", 7])
GRIDS = st.one_of(st.just(COSTLY), st.lists(st.lists(CELL, min_size=5, max_size=5),
                                            min_size=4, max_size=4),
                  st.lists(st.lists(CELL, max_size=6), max_size=5))
PATTERN = st.fixed_dictionaries(
    {"name": st.one_of(st.sampled_from(["A", "B", "C"]), st.text(max_size=41)),
     "difficulty": st.sampled_from([3, 4, 5, 6, 2, "4"]), "grid": GRIDS},
    optional={"pair": st.one_of(st.integers(0, 3), st.text(max_size=2))},
)


def unsafe(item: Any) -> bool:
    """Whether a string anywhere in ``item`` holds a character no request may hold."""
    if isinstance(item, str):
        return UNSAFE_TEXT.search(item) is not None
    if isinstance(item, dict):
        return any(unsafe(k) or unsafe(v) for k, v in item.items())
    return isinstance(item, list) and any(unsafe(v) for v in item)


@st.composite
def pattern_request(draw: st.DrawFn) -> dict[str, Any]:
    """A `static` or `create` of Sagrada with a list of patterns, good or bad, of any count up
    to a few over the limit (a long list is the copies of one, for speed)."""
    count = draw(st.integers(1, MAX_PATTERNS + 3))
    drawn = draw(st.lists(PATTERN, min_size=1, max_size=6))
    patterns_ = [{**drawn[i % len(drawn)], "name": f"{drawn[i % len(drawn)]['name']}{i // 6}"}
                 if draw(st.booleans()) else drawn[i % len(drawn)] for i in range(count)]
    config = {"players": draw(st.integers(1, 4)), "patterns": patterns_,
              "pattern_set": draw(st.sampled_from(["all", "custom"]))}
    return {"type": draw(st.sampled_from(["static", "create"])), "game": "sagrada",
            "config": config}


def test_fuzzed_pattern_lists_are_checked_in_linear_work_or_refused(
    host: Host, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every custom pattern list gets the answer the rules give it locally (`bad_config` with
    the reasons, or the table), never `internal`; no completion search runs, and no list is
    read more than twice (as sent, and as the normalized config): the work per request is
    linear in a list of at most MAX_PATTERNS."""
    work = {"read": 0, "searches": 0, "counting": True}
    problems, completion = sagrada_patterns._problems, sagrada_patterns.completion

    def count(what: str, then: Any) -> Any:
        def counted(*args: Any) -> Any:
            work[what] += work["counting"]
            return then(*args)

        return counted

    monkeypatch.setattr(sagrada_patterns, "_problems", count("read", problems))
    monkeypatch.setattr(sagrada_patterns, "completion", count("searches", completion))
    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.linger, sock.rcvtimeo = 0, int(WAIT_S * 1000)
    sock.connect(host.endpoint)
    sent, sent_ids = [0], [0]

    @settings(max_examples=60, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.lists(pattern_request(), min_size=1, max_size=8))
    @example([{"type": "static", "game": "sagrada", "config": {  # a name no request may hold
        "players": 1, "pattern_set": "all",
        "patterns": [{"name": "\x1f", "difficulty": 3, "grid": COSTLY}]}}])
    def fuzz(requests: list[dict[str, Any]]) -> None:
        # Ids never repeat on the connection: a create with an id already answered on it is a
        # retry, and gets that answer again (PROTOCOL.md, section 2).
        for request in requests:
            sent_ids[0] += 1
            sock.send_multipart([b"", encode({"v": 1, "id": sent_ids[0], **request})])
        replies = [decode_message(sock.recv_multipart()[-1]) for _ in requests]
        work["counting"] = False  # the host is done with them; the oracle's work is not its
        for request, reply in zip(requests, replies, strict=True):
            try:
                SAGRADA.parse_config(request["config"])
                want = {"static": {"static"}, "create": {"created", "too_many_tables"}}
                wanted = want[request["type"]]
            except RuleError:
                wanted = {"bad_config"}
            if unsafe(request):
                wanted = {"bad_field"}  # a pattern named with a control: refused as any string
            assert reply.get("code", reply["type"]) in wanted, (request, reply)
            sent[0] += min(len(request["config"]["patterns"]), MAX_PATTERNS)
        work["counting"] = True

    fuzz()
    sock.close()
    assert work["searches"] == 0
    assert work["read"] <= 2 * sent[0]
    raw = Raw(host.endpoint)
    assert raw("tables")["type"] == "tables"
    raw.close()
