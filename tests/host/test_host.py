"""The host on real sockets (127.0.0.1, free ports), spoken to frame by frame."""

from __future__ import annotations

import logging
import random
from pathlib import Path
from typing import Any

import msgpack
import pytest
import zmq
from test_net_support import Raw, act, choose, running_host, seated_table, until

from sagani_net.games import get_game
from sagani_net.host import Host, Limits
from sagani_net.protocol import ERROR_CODES, VERSION, encode, topic


def test_hello_names_the_broadcast_address_and_version(raw: Raw, host: Host) -> None:
    welcome = raw("hello", client="test")
    assert welcome["type"] == "welcome" and welcome["version"] == VERSION
    assert welcome["pub"] == host.pub_endpoint
    sagani = next(game for game in welcome["games"] if game["name"] == "sagani")
    assert sagani["title"] == "Sagani"
    assert [o["name"] for o in sagani["options"]] == [o.name for o in get_game("sagani").options]
    assert {"name", "default", "choices", "help"} <= set(sagani["options"][0])


def test_static_data_is_served_by_table_and_by_game(raw: Raw) -> None:
    table = raw("create", game="sagani", config={"players": 3})["table"]
    by_table = raw("static", table=table)
    assert (by_table["type"], by_table["game"]) == ("static", "sagani")
    assert by_table["config"] == {"players": 3, "mode": "multi"}
    tiles = by_table["static"]["tiles"]
    assert len(tiles) == 72 and {"id", "element", "value", "arrows"} <= set(tiles[0])
    by_game = raw("static", game="sagani")
    assert by_game["static"] == by_table["static"] and by_game["config"]["players"] == 2
    assert raw("static", game="sagani", config={"players": 9})["code"] == "bad_config"
    assert raw("static", game="chess")["code"] == "unknown_game"
    assert raw("static", game="sagani", table=table)["code"] == "bad_field"
    assert raw("static")["code"] == "bad_field"
    assert raw("static", table=table, config={})["code"] == "bad_field"
    assert raw("static", table="nope")["code"] == "no_table"


def test_table_starts_when_every_seat_is_taken(raw: Raw) -> None:
    table = raw("create", game="sagani", config={"players": 2}, bots=[1])["table"]
    first = raw("join", table=table, name="ann")
    assert first["seat"] == 0 and first["snapshot"]["status"] == "open"
    # Nobody may act at an open table: turn is nil there (PROTOCOL.md, snapshot).
    assert first["snapshot"]["turn"] is None
    bot = raw("join", table=table, role="bot", name="bot")
    assert bot["seat"] == 1 and bot["snapshot"]["status"] == "running"
    assert bot["snapshot"]["turn"] == bot["snapshot"]["view"]["turn"] == 0
    # A name is 1..64 characters; without one, the session is called by its role.
    assert [s["name"] for s in bot["snapshot"]["seats"]] == ["ann", "bot"]
    nameless = raw("create", game="sagani", config={"players": 2}, bots=[1])["table"]
    assert raw("join", table=nameless, name="")["code"] == "bad_field"
    raw("join", table=nameless)
    seats = raw("join", table=nameless, role="bot")["snapshot"]["seats"]
    assert [s["name"] for s in seats] == ["player", "bot"]
    assert raw("join", table=table)["code"] == "table_full"
    listing = raw("tables")["tables"]
    assert [t["status"] for t in listing if t["table"] == table] == ["running"]


def subscriber(host: Host, table: str) -> zmq.Socket:
    sub = zmq.Context.instance().socket(zmq.SUB)
    sub.linger, sub.rcvtimeo = 0, 5000
    sub.connect(host.pub_endpoint)
    sub.subscribe(topic(table))
    return sub


def test_accepted_action_is_broadcast_with_the_next_sequence_number(host: Host, raw: Raw) -> None:
    table, tokens = seated_table(raw)
    sub = subscriber(host, table)
    before = raw("sync", table=table)
    while True:  # wait until the subscription is live: heartbeats arrive when idle
        _, body = sub.recv_multipart()
        if msgpack.unpackb(body)["type"] == "heartbeat":
            break
    accepted = act(raw, table, tokens, random.Random(1))
    assert accepted["type"] == "accepted" and accepted["version"] == before["version"] + 1
    update = msgpack.unpackb(sub.recv_multipart()[1])
    assert update["type"] == "update" and update["seq"] == before["seq"] + 1
    assert update["events"] == accepted["events"] and update["view"]["version"] == 1
    sub.close()


def test_idle_table_gets_heartbeats(host: Host, raw: Raw) -> None:
    table, _ = seated_table(raw)
    sub = subscriber(host, table)
    beat = msgpack.unpackb(sub.recv_multipart()[1])
    assert beat == {"v": VERSION, "type": "heartbeat", "table": table, "seq": 2, "version": 0,
                    "standby": None, "away": []}
    sub.close()


def test_lost_reply_retried_is_applied_once(raw: Raw) -> None:
    table, tokens = seated_table(raw)
    snap = raw("sync", table=table)
    action = choose(snap["view"], random.Random(2))
    request = {"v": VERSION, "type": "act", "id": 77, "table": table, "seat": snap["turn"],
               "token": tokens[snap["turn"]], "version": snap["version"], "action": action}
    first = raw.send_bytes(encode(request))
    again = raw.send_bytes(encode(request))
    assert first["type"] == "accepted" and again == first
    assert raw("sync", table=table)["version"] == snap["version"] + 1


def test_stale_version_is_refused_with_a_fresh_snapshot(raw: Raw) -> None:
    table, tokens = seated_table(raw)
    rng = random.Random(3)
    act(raw, table, tokens, rng)
    refused = act(raw, table, tokens, rng, version=0)
    assert refused["code"] == "stale_version" and refused["message"]
    assert refused["snapshot"]["version"] == 1


def test_illegal_action_is_refused_with_the_rule_and_a_snapshot(raw: Raw) -> None:
    table, tokens = seated_table(raw)
    refused = act(raw, table, tokens, random.Random(4), action={"type": "take", "index": 9})
    assert refused["code"] == "illegal_action" and refused["rule"]
    assert refused["snapshot"]["version"] == 0
    malformed = act(raw, table, tokens, random.Random(4), action={"type": "fly"})
    assert malformed["code"] == "bad_action"
    # A rotation Sagani does not have is malformed, not illegal (games/sagani.md, rule codes).
    act(raw, table, tokens, random.Random(4), action={"type": "take", "index": 0})
    turned = act(raw, table, tokens, random.Random(4),
                 action={"type": "place", "cell": [0, 0], "rotation": 45})
    assert (turned["code"], turned["rule"]) == ("bad_action", "bad_action")


def test_token_used_for_another_seat_is_refused(raw: Raw) -> None:
    table, tokens = seated_table(raw)
    snap = raw("sync", table=table)
    other = 1 - snap["turn"]
    refused = act(raw, table, tokens, random.Random(5), token=tokens[other])
    assert refused["code"] == "bad_token"
    not_yours = act(raw, table, tokens, random.Random(5), seat=other, token=tokens[other])
    assert not_yours["code"] == "not_your_turn"
    assert raw("sync", table=table)["version"] == 0


def test_spectator_cannot_act(raw: Raw) -> None:
    table, tokens = seated_table(raw)
    watcher = raw("join", table=table, role="spectator")
    assert watcher["seat"] is None
    refused = act(raw, table, tokens, random.Random(6), token=watcher["token"])
    assert refused["code"] == "not_a_player"


def test_retried_join_gets_the_same_seat(raw: Raw) -> None:
    table = raw("create", game="sagani", config={"players": 3})["table"]
    request = encode({"v": VERSION, "type": "join", "id": 5, "table": table, "name": "ann"})
    assert raw.send_bytes(request) == raw.send_bytes(request)
    assert raw("join", table=table)["seat"] == 1


def test_seat_left_can_be_taken_by_a_bot_and_game_goes_on(raw: Raw) -> None:
    table, tokens = seated_table(raw)
    assert raw("leave", table=table, token=tokens[1])["type"] == "left"
    assert raw("sync", table=table, token=tokens[1])["code"] == "bad_token"
    bot = raw("join", table=table, role="bot", seat=1)
    assert bot["seat"] == 1
    tokens[1] = bot["token"]
    rng = random.Random(7)
    for _ in range(6):
        assert act(raw, table, tokens, rng)["type"] == "accepted"


def test_record_is_secret_until_the_game_is_over(raw: Raw) -> None:
    table, tokens = seated_table(raw, seed=12)
    assert raw("record", table=table)["code"] == "not_over"
    rng = random.Random(8)
    while raw("sync", table=table)["status"] != "over":
        assert act(raw, table, tokens, rng)["type"] == "accepted"
    record = raw("record", table=table)["record"]
    assert record["seed"] == 12 and "result" in record
    late = raw("act", table=table, seat=0, token=tokens[0], version=0, action={"type": "pass"})
    assert late["code"] == "game_over"


def test_a_finished_games_seat_left_by_its_player_is_no_one_elses(raw: Raw) -> None:
    """Before, a stranger took it: the finished table's seat, in listings and snapshots (after
    a restart too), named them where the player who played it had been."""
    table = raw("create", game="sagrada", config={"players": 1, "difficulty": 5})["table"]
    token = raw("join", table=table, name="ann")["token"]
    while (snap := raw("sync", table=table))["status"] == "running":  # choose, then pass
        action = raw("legal", table=table, token=token)["actions"][-1]
        assert raw("act", table=table, seat=0, token=token, version=snap["version"],
                   action=action)["type"] == "accepted"
    assert raw("leave", table=table, token=token)["type"] == "left"
    for role in ("player", "bot"):
        assert raw("join", table=table, role=role, name="mallory")["code"] == "game_over"
    assert raw("join", table=table, role="spectator")["type"] == "joined"
    assert [seat["name"] for seat in raw("sync", table=table)["seats"]] == [None]


def test_solo_game_is_played_by_one_seat(raw: Raw) -> None:
    table = raw("create", game="sagani", config={"players": 1, "mode": "solo"}, seed=3)["table"]
    token = raw("join", table=table)["token"]
    rng = random.Random(9)
    for _ in range(10):
        assert act(raw, table, [token], rng)["type"] == "accepted"


def test_bad_configs_and_unknown_games_are_refused(raw: Raw) -> None:
    assert raw("create", game="chess", config={})["code"] == "unknown_game"
    assert raw("create", game="sagani", config={"players": 9})["code"] == "bad_config"
    assert raw("create", game="sagani", config={"players": 2}, bots=[5])["code"] == "bad_seat"


def test_table_cap_is_an_error_code(tmp_path: Path) -> None:
    with running_host(tmp_path, limits=Limits(max_tables=1, max_spectators=1)) as host:
        raw = Raw(host.endpoint)
        table = raw("create", game="sagani", config={"players": 2})["table"]
        assert raw("create", game="sagani", config={"players": 2})["code"] == "too_many_tables"
        raw("join", table=table, role="spectator")
        assert raw("join", table=table, role="spectator")["code"] == "too_many_spectators"
        raw.close()


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def _act_frame(**fields: Any) -> dict[str, Any]:
    return {"v": VERSION, "type": "act", "id": 1, "table": "t", "seat": 0, "token": "x",
            "version": 0, "action": {"type": "pass"}, **fields}


#: Every kind of bad frame, with the error code it must get.
BAD_FRAMES: dict[str, tuple[bytes, str]] = {
    "not msgpack": (b"\xc1\x00garbage", "bad_frame"),
    "empty": (b"", "bad_frame"),
    "not a map": (msgpack.packb([1, 2, 3]), "bad_frame"),
    "trailing bytes": (encode({"v": 1, "type": "hello", "id": 1}) + b"\x00", "bad_frame"),
    "integer map key": (msgpack.packb({1: 2}), "bad_frame"),
    "bytes value": (msgpack.packb({"v": 1, "type": "hello", "id": 1, "client": b"x"}),
                    "too_big"),
    "ext type": (msgpack.packb({"v": 1, "type": "hello", "id": msgpack.ExtType(5, b"x")}),
                 "bad_frame"),
    "timestamp ext": (msgpack.packb({"v": 1, "type": "hello", "id": msgpack.Timestamp(1)}),
                      "bad_frame"),
    "huge frame": (encode({"v": 1, "type": "hello", "id": 1, "client": "x" * 100_000}),
                   "too_big"),
    "huge string": (encode({"v": 1, "type": "hello", "id": 1, "client": "x" * 5000}),
                    "too_big"),
    "long list": (encode(_act_frame(action={"type": "pass", "cell": list(range(5000))})),
                  "too_big"),
    "deeply nested": (encode(_act_frame(action={"type": "pass", "cell": _nested(50)})),
                      "too_deep"),
    "nested past the decoder": (b"\x91" * 5000 + b"\x01", "too_deep"),
    "no version": (encode({"type": "hello", "id": 1}), "bad_version"),
    "wrong version": (encode({"v": 99, "type": "hello", "id": 1}), "bad_version"),
    "version as text": (encode({"v": "1", "type": "hello", "id": 1}), "bad_version"),
    "unknown type": (encode({"v": 1, "type": "teleport", "id": 1}), "unknown_type"),
    "no type": (encode({"v": 1, "id": 1}), "missing_field"),
    "type as int": (encode({"v": 1, "type": 3, "id": 1}), "unknown_type"),
    "no id": (encode({"v": 1, "type": "hello"}), "missing_field"),
    "id as text": (encode({"v": 1, "type": "hello", "id": "1"}), "bad_field"),
    "negative id": (encode({"v": 1, "type": "hello", "id": -1}), "bad_field"),
    "missing field": (encode({"v": 1, "type": "sync", "id": 1}), "missing_field"),
    "extra field": (encode({"v": 1, "type": "hello", "id": 1, "admin": True}), "extra_field"),
    "seat as bool": (encode(_act_frame(seat=True)), "bad_field"),
    "seat out of range": (encode(_act_frame(seat=99)), "bad_field"),
    "version as float": (encode(_act_frame(version=1.0)), "bad_field"),
    "table as int": (encode({"v": 1, "type": "sync", "id": 1, "table": 5}), "bad_field"),
    "action not a map": (encode(_act_frame(action="pass")), "bad_field"),
    "empty table id": (encode({"v": 1, "type": "sync", "id": 1, "table": ""}), "bad_field"),
    "role unknown": (encode({"v": 1, "type": "join", "id": 1, "table": "t", "role": "god"}),
                     "bad_field"),
}


def test_every_bad_frame_gets_an_error_and_the_game_goes_on(raw: Raw) -> None:
    table, tokens = seated_table(raw)
    rng = random.Random(10)
    for name, (frame, code) in BAD_FRAMES.items():
        reply = raw.send_bytes(frame)
        assert reply["type"] == "error", name
        assert (reply["code"], name) == (code, name)
        assert reply["code"] in ERROR_CODES and reply["message"]
        assert act(raw, table, tokens, rng)["type"] == "accepted", name


def test_multipart_request_gets_an_error(host: Host, raw: Raw) -> None:
    dealer = zmq.Context.instance().socket(zmq.DEALER)
    dealer.linger, dealer.rcvtimeo = 0, 5000
    dealer.connect(host.endpoint)
    dealer.send_multipart([b"", b"one", b"two"])
    frames = dealer.recv_multipart()
    assert msgpack.unpackb(frames[-1])["code"] == "bad_frame"
    # A DEALER without the empty delimiter is served too.
    dealer.send(encode({"v": 1, "type": "hello", "id": 3}))
    assert msgpack.unpackb(dealer.recv())["type"] == "welcome"
    dealer.close()
    assert raw("hello")["type"] == "welcome"


def test_retry_after_a_restart_is_answered_from_disk(tmp_path: Path) -> None:
    with running_host(tmp_path) as host:
        raw = Raw(host.endpoint)
        table, tokens = seated_table(raw)
        snap = raw("sync", table=table)
        request = encode({"v": VERSION, "type": "act", "id": 9, "table": table,
                          "seat": snap["turn"], "token": tokens[snap["turn"]], "version": 0,
                          "action": choose(snap["view"], random.Random(11))})
        first = raw.send_bytes(request)
        raw.close()
    with running_host(tmp_path) as host:
        raw = Raw(host.endpoint)
        assert raw.send_bytes(request) == first
        again = raw("sync", table=table, token=tokens[0])
        assert (again["version"], again["seq"], again["you"]) == (1, first["seq"], 0)
        raw.close()


def test_a_stored_game_is_resumed_by_the_rule_it_was_played_by_or_left_out(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Stored games meet a host whose rules changed since. A basic solo game played past a
    turn that reached 75 and ended at 73 (R7 was read "75 at a turn's end" then) comes back at
    its version, as its record would; a game whose actions this host's rules refuse (here a
    placement on a cell no tile touches) stays in the store, and the others come back."""
    from sagani_net.bots import make_policy
    from sagani_net.games.sagani.rules import State
    from sagani_net.store import Store, TableRow

    policy, rng = make_policy("greedy"), random.Random(132)
    solo = State.new(1, "solo", seed=132)
    solo.old_solo_end = True
    while solo.seats[0].placed < 31:  # tile 29: 75, then 73; and on
        solo.apply(policy.choose(solo, rng))
    assert not solo.is_over()
    store = Store(tmp_path)
    stored = {"0a1b2c3d": ({"players": 1, "mode": "solo"}, 132,
                           [(seat, a.to_dict()) for seat, a in solo.history]),
              "4e5f6a7b": ({"players": 2, "mode": "multi"}, 5,
                           [(0, {"type": "take", "index": 0}),
                            (0, {"type": "place", "cell": [5, 5], "rotation": 0})])}
    for table_id, (config, seed, actions) in stored.items():
        store.add_table(TableRow(table_id, "sagani", config, seed, [], "running", 0, 1.0))
        for version, (seat, action) in enumerate(actions):
            store.add_action(table_id, version, seat, action, "h" * 64, version, version + 1)
    store.commit()
    store.close()
    with running_host(tmp_path) as host:
        raw = Raw(host.endpoint)
        snap = raw("sync", table="0a1b2c3d")
        assert (snap["version"], snap["status"]) == (solo.version, "running"), snap
        assert raw("sync", table="4e5f6a7b")["code"] == "no_table"
        raw.close()
    assert "table 4e5f6a7b: its stored actions do not replay" in caplog.text


def test_finished_table_is_forgotten_after_a_while_and_read_back_when_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sagani_net.tables.FINISHED_KEEP_S", 0.0)
    with running_host(tmp_path, heartbeat_s=0.05) as host:
        raw = Raw(host.endpoint)
        table, tokens = seated_table(raw, seed=13)
        rng = random.Random(12)
        while raw("sync", table=table)["status"] != "over":
            act(raw, table, tokens, rng)
        final = raw("sync", table=table, token=tokens[1])
        # Asked ten times a second: a hundred listings a second would meet the rate limit.
        until(lambda: table not in {t["table"] for t in raw("tables")["tables"]}, poll_s=0.1)
        assert not host.sessions
        again = raw("sync", table=table, token=tokens[1])
        assert {**again, "id": 0} == {**final, "id": 0}
        record = raw("record", table=table)
        assert record["type"] == "record" and record["record"]["seed"] == 13, record
        raw.close()


def test_retry_of_the_game_ending_action_after_a_restart_is_answered_from_disk(
    tmp_path: Path,
) -> None:
    # The host stored the last action and died before its reply went out: the retry must get
    # that reply, not "game_over".
    with running_host(tmp_path) as host:
        raw = Raw(host.endpoint)
        table, tokens = seated_table(raw, seed=17)
        rng = random.Random(5)
        snap = raw("sync", table=table)
        while snap["status"] != "over":
            seat = snap["turn"]
            request = encode({"v": VERSION, "type": "act", "id": 1000 + snap["version"],
                              "table": table, "seat": seat, "token": tokens[seat],
                              "version": snap["version"],
                              "action": choose(snap["view"], rng)})
            last = raw.send_bytes(request)
            assert last["type"] == "accepted"
            snap = raw("sync", table=table)
        raw.close()
    with running_host(tmp_path) as host:
        raw = Raw(host.endpoint)
        assert raw.send_bytes(request) == last
        assert raw("sync", table=table)["version"] == snap["version"]
        raw.close()


@pytest.mark.host(limits=Limits(rate_per_s=0.5, rate_burst=2))
def test_a_flooding_client_is_told_of_on_the_hosts_screen_once_a_window(
    raw: Raw, caplog: pytest.LogCaptureFixture
) -> None:
    """Only the flooding client heard of it (rate_limited); the operator's screen had no line."""
    with caplog.at_level(logging.INFO, logger="sagani_net.host"):
        codes = [raw("tables").get("code") for _ in range(6)]
    assert codes.count("rate_limited") >= 3, codes
    said = [line for line in caplog.messages if "rate_limited" in line]
    assert said == ["a client at 127.0.0.1 sends requests faster than a connection may "
                    "(0.5 a second, 2 at once): its requests are refused as rate_limited"]


def test_a_refused_request_is_named_on_the_hosts_screen_by_type_table_and_address(
    raw: Raw, caplog: pytest.LogCaptureFixture
) -> None:
    """The line named it by its client message id alone, 'refused 5: ...' or, for a frame
    that did not decode, 'refused None: ...': nothing an operator can look for."""
    with caplog.at_level(logging.INFO, logger="sagani_net.host"):
        raw("act", table="abc123", version=0)
        raw.send_bytes(b"\x91\x01\xc1")  # not a map, and a byte msgpack never uses
        raw("join", table="x" * 40, name="ann")  # not a table id a host makes: not echoed
    said = [line for line in caplog.messages if line.startswith("refused")]
    assert [line.split(": ")[0] for line in said] == [
        "refused act of table abc123 from 127.0.0.1", "refused request from 127.0.0.1",
        "refused join from 127.0.0.1"], said
