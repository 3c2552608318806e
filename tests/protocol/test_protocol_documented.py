"""What PROTOCOL.md says the host does where a client could guess wrong (issue 19, point 5),
checked against a real host on 127.0.0.1: retries and nonces, envelopes, one code per mistake,
and the behaviours the document used to leave unsaid."""

from __future__ import annotations

import random
from typing import Any

import pytest
import zmq
from test_net_support import WAIT_S, Raw

from sagani_net.games import game_names, get_game
from sagani_net.host import Host
from sagani_net.protocol import decode_message, encode

NONCE = "a-nonce-of-20-chars!"


def once(host: Host, message: dict[str, Any], routing_id: bytes | None = None) -> dict[str, Any]:
    """One request on a socket of its own (a Lazy Pirate retry opens a new one)."""
    sock = zmq.Context.instance().socket(zmq.REQ)
    sock.linger, sock.rcvtimeo = 0, int(WAIT_S * 1000)
    if routing_id is not None:
        sock.setsockopt(zmq.ROUTING_ID, routing_id)
    sock.connect(host.endpoint)
    try:
        sock.send(encode(message))
        return decode_message(sock.recv())
    finally:
        sock.close()


def join(table: str, msg_id: int, **fields: Any) -> dict[str, Any]:
    return {"v": 1, "type": "join", "id": msg_id, "table": table, **fields}


def test_a_join_retried_without_a_nonce_on_a_new_socket_takes_another_seat(
    host: Host, raw: Raw
) -> None:
    table = raw("create", game="sagani", config={"players": 3})["table"]
    first = once(host, join(table, 7), b"fixed")
    again = once(host, join(table, 7), b"fixed")  # the same bytes, the same routing id
    assert (first["seat"], again["seat"]) == (0, 1)


def test_a_join_retried_with_its_nonce_gets_the_first_answer_on_any_socket(
    host: Host, raw: Raw
) -> None:
    table = raw("create", game="sagani", config={"players": 3})["table"]
    first = once(host, join(table, 7, nonce=NONCE))
    again = once(host, join(table, 7, nonce=NONCE))
    assert again == first
    # A nonce used again (same type and table) gets that answer, whatever else the request
    # holds, its id included: a client makes a new nonce for each request.
    reused = once(host, join(table, 8, nonce=NONCE, name="zed"))
    assert reused == first and reused["id"] == 7


def test_an_id_used_again_for_another_create_or_join_on_one_socket_gets_its_own_answer(
    raw: Raw,
) -> None:
    """Only a retry (the same bytes) gets the remembered reply: a careless client that counts
    its ids from 1 again got the first answer, a Sagani table for its Sugi create."""
    sagani = raw("create", game="sagani", config={})
    raw.next_id -= 1
    sugi = raw("create", game="sugi", config={})
    assert (sugi["id"], sugi["game"]) == (sagani["id"], "sugi")
    assert sugi["table"] != sagani["table"]
    player = raw("join", table=sagani["table"])
    raw.next_id -= 1
    spectator = raw("join", table=sagani["table"], role="spectator")
    assert (player["role"], spectator["role"]) == ("player", "spectator")


def test_an_act_under_an_id_its_token_used_for_another_act_is_refused_not_accepted(
    raw: Raw,
) -> None:
    """The first act's reply would say an action never played was accepted."""
    table = raw("create", game="sagani", config={"mode": "solo"})["table"]
    token = raw("join", table=table)["token"]
    reveal = raw.frame("act", table=table, seat=0, token=token, version=0,
                       action={"type": "reveal"})
    accepted = raw.send_bytes(reveal)
    assert accepted["type"] == "accepted" and raw.send_bytes(reveal) == accepted  # a retry
    raw.next_id -= 1
    place = raw("act", table=table, seat=0, token=token, version=1,
                action={"type": "place", "cell": [0, 0], "rotation": 0})
    assert place["code"] == "bad_field" and "a new act a new id" in place["message"]
    assert raw("sync", table=table)["version"] == 1  # nothing more was played


def test_a_refused_join_says_what_would_be_taken_instead(raw: Raw) -> None:
    """The refusal is where a bot author learns the rule: "seat 1 is kept for a bot" and "no
    free seat for a player" told what was wrong, not what to send."""
    table = raw("create", game="sagani", config={"players": 2}, bots=[1])["table"]
    refused = raw("join", table=table, seat=1)
    assert refused["code"] == "bot_seat" and 'role "bot"' in refused["message"]
    raw("join", table=table, seat=0)
    refused = raw("join", table=table, seat=0, role="bot")
    assert refused["code"] == "seat_taken" and "leave seat out" in refused["message"]
    raw("join", table=table, role="bot")
    refused = raw("join", table=table)
    assert refused["code"] == "table_full" and 'role "spectator"' in refused["message"]


def test_a_nonce_under_16_characters_is_a_bad_field(host: Host, raw: Raw) -> None:
    table = raw("create", game="sagani", config={"players": 3})["table"]
    assert once(host, join(table, 7, nonce="x" * 15))["code"] == "bad_field"


def test_two_empty_frames_before_the_body_are_an_envelope_answered_along(host: Host) -> None:
    dealer = zmq.Context.instance().socket(zmq.DEALER)
    dealer.linger, dealer.rcvtimeo = 0, int(WAIT_S * 1000)
    dealer.connect(host.endpoint)
    dealer.send_multipart([b"", b"", encode({"v": 1, "type": "hello", "id": 4})])
    *head, body = dealer.recv_multipart()
    dealer.close()
    assert head == [b"", b""] and decode_message(body)["type"] == "welcome"


def test_a_seat_the_table_lacks_is_bad_seat_in_create_as_in_join(raw: Raw) -> None:
    made = raw("create", game="sagani", config={"players": 2}, bots=[5])
    assert made["code"] == "bad_seat" and "0..1" in made["message"]
    table = raw("create", game="sagani", config={"players": 2})["table"]
    assert raw("join", table=table, seat=5)["code"] == "bad_seat"


@pytest.mark.parametrize("version", ["1", 1.0, None, True])
def test_a_v_that_is_not_the_int_1_is_bad_version(host: Host, version: Any) -> None:
    assert once(host, {"v": version, "type": "hello", "id": 1})["code"] == "bad_version"


def test_what_the_document_used_to_leave_unsaid(host: Host, raw: Raw) -> None:
    table = raw("create", game="sagani", config={"players": 3})["table"]
    # A spectator naming a seat is refused; a spectator's join is not broadcast.
    assert raw("join", table=table, role="spectator", seat=0)["code"] == "bad_field"
    seq = raw("sync", table=table)["seq"]
    raw("join", table=table, role="spectator")
    assert raw("sync", table=table)["seq"] == seq
    assert raw("tables")["tables"][0]["spectators"] == 1
    tokens = [raw("join", table=table)["token"] for _ in range(3)]
    snap = raw("sync", table=table)
    # An act on a version above the current one is stale, like one below it.
    turn = snap["turn"]
    refused = raw("act", table=table, seat=turn, token=tokens[turn], version=9,
                  action={"type": "take", "index": 0})
    assert refused["code"] == "stale_version" and refused["snapshot"]["version"] == 0
    # history after a version the table has not reached: no moves, nothing more.
    told = raw("history", table=table, since=99)
    assert (told["version"], told["moves"], told["more"]) == (0, [], False)
    # The seat to move left: the table stays running, turn still names it, and waits for it.
    raw("leave", table=table, token=tokens[turn])
    snap = raw("sync", table=table)
    assert (snap["status"], snap["turn"], snap["seats"][turn]["taken"]) == ("running", turn, False)


def test_an_updates_view_has_no_you_and_a_snapshots_has(host: Host, raw: Raw) -> None:
    sub = zmq.Context.instance().socket(zmq.SUB)
    sub.linger, sub.rcvtimeo = 0, int(WAIT_S * 1000)
    sub.connect(host.pub_endpoint)
    table = raw("create", game="sagani", config={"mode": "solo"})["table"]
    sub.subscribe(f"table.{table}.".encode())
    while decode_message(sub.recv_multipart()[1])["type"] != "heartbeat":
        pass  # subscribed: the table's heartbeats come through
    joined = raw("join", table=table)
    update = decode_message(sub.recv_multipart()[1])
    while update["type"] != "update":
        update = decode_message(sub.recv_multipart()[1])
    sub.close()
    assert joined["snapshot"]["view"]["you"] == 0 and "you" not in update["view"]


@pytest.mark.parametrize("name", game_names())
def test_a_finished_games_view_names_no_turn(name: str) -> None:
    game = get_game(name)
    state, rng = game.new_state(game.parse_config({}), 2), random.Random(2)
    while not state.is_over():
        state.apply(rng.choice(state.legal_actions()))
    assert state.view(None)["turn"] is None


def test_sugis_hands_and_deck_are_counts_and_sagradas_order_is_empty_while_choosing() -> None:
    sugi = get_game("sugi")
    view = sugi.new_state(sugi.parse_config({"players": 3}), 1).view(None)
    assert view["hands"] == [4, 4, 4] and isinstance(view["deck"], int)
    sagrada = get_game("sagrada")
    state = sagrada.new_state(sagrada.parse_config({"players": 3}), 1)
    turns = []
    while state.view(None)["phase"] == "choose":
        assert state.view(None)["order"] == []
        turns.append(state.current_seat)
        state.apply(state.legal_actions()[0])
    assert turns == [0, 1, 2] and state.view(None)["order"]


@pytest.mark.parametrize("mode", ["multi", "solo-advanced"])
def test_sagani_cacophony_total_is_the_seats_disc_count_and_comes_during_play(mode: str) -> None:
    game = get_game("sagani")
    state, rng = game.new_state(game.parse_config({"mode": mode}), 4), random.Random(4)
    seen = 0
    while not state.is_over():
        before = state.view(None)["seats"]
        events = state.apply(rng.choice(state.legal_actions()))
        score = before[0]["score"] if mode != "multi" else None
        for event in events:
            if event["type"] == "cacophony_taken" and not state.is_over():
                seen += 1
                seat = state.view(None)["seats"][event["seat"]]
                assert event["total"] == seat["cacophony"]
                assert event["total"] == before[event["seat"]]["cacophony"] + event["count"]
                if score is not None:  # advanced solo: the discs cost nothing until the end
                    assert event["score"] == score
            elif "score" in event and score is not None:
                score = event["score"]
    assert seen


def test_the_ghost_may_be_sent_past_samurai() -> None:
    from sagani_net.games.sugi.rules import NEIGHBOUR, ON_TEMPLE

    game = get_game("sugi")
    state, rng = game.new_state(game.parse_config({"players": 2}), 6), random.Random(6)
    past = 0
    while not state.is_over():
        if state.ghost != ON_TEMPLE:
            for d in range(4):  # walk each line from the ghost: targets after samurai
                at, passed = state.ghost, False
                while (at := NEIGHBOUR[at][d]) >= 0:
                    if passed and at in state.ghost_targets():
                        past += 1
                    passed = passed or at in state.samurai
        state.apply(rng.choice(state.legal_actions()))
    assert past
