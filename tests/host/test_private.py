"""Private per-seat data on the wire, on real sockets, with Hands (tests/toy_game/): it goes
only into replies to the seat's own token (join, sync, act, private, refusals); updates on PUB
only name the seats whose private data changed; the client fetches its own within one round
trip of such an update; the host's default move for a late bot announces its seats too."""

from __future__ import annotations

import doctest
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgpack
import pytest
import toy_game.rules
import toy_game.words
import zmq
from test_net_support import WAIT_S, Raw, running_host

import sagani_net.client
from sagani_net.client import Client, Replica
from sagani_net.games import get_game
from sagani_net.games.sugi.rules import COMPONENTS
from sagani_net.host import Host
from sagani_net.protocol import encode, topic

SEED = 7


def subscribed(host: Host, table: str) -> zmq.Socket:
    """A SUB socket on the table's topic that has heard something (so it is live)."""
    sub = zmq.Context.instance().socket(zmq.SUB)
    sub.linger, sub.rcvtimeo = 0, int(WAIT_S * 1000)
    sub.connect(host.pub_endpoint)
    sub.subscribe(topic(table))
    sub.recv_multipart()  # a heartbeat (the table is idle)
    return sub


def next_update(sub: zmq.Socket) -> dict[str, Any]:
    while (message := msgpack.unpackb(sub.recv_multipart()[1]))["type"] != "update":
        pass
    return message


@pytest.mark.parametrize("module", [toy_game.rules, toy_game.words, sagani_net.client],
                         ids=lambda m: m.__name__)
def test_the_examples_of_the_toy_game_and_the_replica_run(module: object) -> None:
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def test_private_data_goes_only_to_its_seat(toy_registered: str, host: Host, raw: Raw) -> None:
    created = raw("create", game=toy_registered, config={"players": 2}, seed=SEED)
    table = created["table"]
    mirror = get_game(toy_registered).new_state(created["config"], SEED)
    seated = [raw("join", table=table, name=f"p{seat}") for seat in (0, 1)]
    tokens = [joined["token"] for joined in seated]
    for seat, joined in enumerate(seated):
        assert joined["snapshot"]["private"] == mirror.private(seat) == {"hand": mirror.hands[seat]}
    watcher = raw("join", table=table, role="spectator")
    assert watcher["snapshot"]["private"] is None
    assert raw("sync", table=table)["private"] is None
    assert raw("sync", table=table, token=tokens[1])["private"] == mirror.private(1)
    assert raw("private", table=table, token=watcher["token"])["code"] == "not_a_player"
    assert raw("private", table=table, token=tokens[0] + "x")["code"] == "bad_token"

    sub = subscribed(host, table)
    # Seat 0 gives a card to seat 1: both hands change.
    card = mirror.hands[0][0]
    request = encode({"v": 1, "type": "act", "id": 100, "table": table, "seat": 0,
                      "token": tokens[0], "version": 0,
                      "action": {"type": "give", "card": card}})
    accepted = raw.send_bytes(request)
    mirror.apply(toy_game.rules.Action("give", card))
    assert accepted["type"] == "accepted" and accepted["private"] == mirror.private(0)
    update = next_update(sub)
    assert update["seq"] == accepted["seq"] and update["private"] == [0, 1]
    assert encode({"hand": mirror.hands[1]}) not in encode(update)
    assert "hand" not in update["view"] and "private" not in update["view"]
    fetched = raw("private", table=table, token=tokens[1])
    assert fetched == {**fetched, "type": "private", "table": table, "seat": 1,
                       "seq": update["seq"], "version": 1, "private": mirror.private(1)}
    # A retry gets the very same reply, private part included, and plays nothing twice.
    assert raw.send_bytes(request) == accepted
    assert raw("sync", table=table, token=tokens[0])["version"] == 1

    # A refusal's snapshot is the seat's own, with its private data.
    refused = raw("act", table=table, seat=1, token=tokens[1], version=1,
                  action={"type": "play", "card": 99})
    assert refused["code"] == "illegal_action" and refused["rule"] == "not_in_hand"
    assert refused["snapshot"]["private"] == mirror.private(1)
    sub.close()


def test_the_client_fetches_its_private_data_within_one_round_trip(
    toy_registered: str, host: Host, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[str] = []
    request = sagani_net.client.AsyncClient.request

    async def counting(self: sagani_net.client.AsyncClient, kind: str, **fields: Any) -> Any:
        sent.append(kind)
        return await request(self, kind, **fields)

    monkeypatch.setattr(sagani_net.client.AsyncClient, "request", counting)
    giver, taker = Client(host.endpoint), Client(host.endpoint)
    try:
        table = giver.create({"players": 2}, game=toy_registered, seed=SEED)
        giver.join(table, name="ann")
        taker.join(table, name="bob")
        assert giver.wait_for(lambda r: r.status == "running", WAIT_S)
        # Wait until the taker's subscription is live (it hears heartbeats), so that it gets
        # the update itself rather than resyncing after a gap.
        joined_s = taker.core._heard_s
        while taker.core._heard_s == joined_s:
            assert taker.next_update(0.2) is None
        mirror = get_game(toy_registered).new_state({"players": 2}, SEED)
        card = mirror.hands[0][-1]
        giver.act({"type": "give", "card": card})
        mirror.apply(toy_game.rules.Action("give", card))
        # The giver learnt its new hand from the accepted reply: no fetch for its own update.
        assert giver.state.private == mirror.private(0) and "private" not in sent
        assert giver.state.merged == {**giver.state.view, "hand": mirror.hands[0]}
        update = taker.next_update(WAIT_S)
        while update is not None and update["seq"] < giver.state.seq:
            update = taker.next_update(WAIT_S)
        assert update is not None and update["private"] == [0, 1]
        # By the time the update is handed out, the taker has asked once and knows.
        assert sent.count("private") == 1
        assert taker.state.private == mirror.private(1)
        assert taker.state.private_seq == update["seq"] and "hand" not in taker.state.view
    finally:
        giver.close()
        taker.close()


def test_the_default_move_for_a_late_bot_announces_its_private_change(
    toy_registered: str, tmp_path: Path
) -> None:
    with running_host(tmp_path, heartbeat_s=0.2) as host:
        player, bot = Client(host.endpoint), Client(host.endpoint)
        try:
            table = player.create({"players": 2}, game=toy_registered, seed=SEED, bots=[1],
                                  deadline_s=0.1)
            player.join(table, name="ann")
            bot.join(table, role="bot", name="sleepy")  # and it never acts
            assert player.wait_for(lambda r: r.status == "running", WAIT_S)
            mirror = get_game(toy_registered).new_state({"players": 2}, SEED)
            card = mirror.hands[0][0]
            player.act({"type": "play", "card": card})
            mirror.apply(toy_game.rules.Action("play", card))
            default = mirror.default_action()
            mirror.apply(default)
            assert bot.wait_for(lambda r: r.version == 2, WAIT_S)
            assert bot.state.private == mirror.private(1)
            assert bot.state.private_seq == bot.state.seq
            record = bot.state.view["played"]
            assert record == [[0, card], [1, default[1]]]
        finally:
            player.close()
            bot.close()


@contextmanager
def sugi_with_a_silent_bot(tmp_path: Path) -> Iterator[tuple[Client, Client]]:
    """A 2-player Sugi table: ann in seat 1, and in seat 0, which plans first, a bot that
    never acts, past a 0.1 s deadline each time."""
    with running_host(tmp_path, heartbeat_s=0.2) as host:
        ann, bot = Client(host.endpoint), Client(host.endpoint)
        try:
            table = ann.create({"players": 2}, game="sugi", seed=9, bots=[0], deadline_s=0.1)
            ann.join(table, seat=1, name="ann")
            bot.join(table, seat=0, role="bot", name="sleepy")
            yield ann, bot
        finally:
            ann.close()
            bot.close()


def test_a_default_move_names_no_card_in_the_hosts_log(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A Sugi bot seat past its deadline in phase "plan": the host puts a card of its hand
    face down in the timeline. Its log said 'the host played {'type': 'timeline', 'card':
    17, 'rotation': 0} for it', a warning (on the host's screen, --quiet or not) naming a card
    nobody else may see until the timeline is resolved."""
    caplog.set_level("INFO", logger="sagani_net.host")
    with sugi_with_a_silent_bot(tmp_path) as (ann, bot):
        hand = bot.state.private["hand"]
        assert ann.wait_for(lambda r: r.version >= 1, WAIT_S)
        played = [r.getMessage() for r in caplog.records if "deadline" in r.getMessage()]
        assert played and not any(f"'card': {card}" in line
                                  for card in hand for line in played), played


def test_a_default_move_tells_no_one_which_card_went_face_down(tmp_path: Path) -> None:
    """A Sugi bot seat past its deadline in phase "plan": the update says `deadline_missed`
    and `card_placed`, there for anyone subscribed. When the host put the lowest card of the
    hand face down, turned 0, as sugi.md said, everyone knew that card's turn and that the
    rest of the hand was higher, until the timeline was resolved. The card and its turn are
    now the host's secret pick (its seed's, so a restart picks the same)."""
    with sugi_with_a_silent_bot(tmp_path) as (ann, bot):
        told: dict[tuple[int, int], tuple[int, bool]] = {}  # (round, card): turn, lowest
        while len(told) < 8:
            assert ann.wait_for(lambda r: r.turn == 1, WAIT_S)
            private = bot.private()
            assert private is not None
            for _, card, turn in private["timeline"]:
                told.setdefault((ann.state.view["round"], card),
                                (turn, all(card < other for other in private["hand"])))
            ann.act(ann.legal()[0])  # the first card of the hand, turned 0; or no discard
        assert not all(turn == 0 and lowest for turn, lowest in told.values()), told


def test_replica_keeps_the_newer_private_part() -> None:
    replica = Replica("t1", you=1, view={"turn": 1, "hand_sizes": [3, 3]})
    replica.load({"seq": 4, "you": 1, "game": "toy", "config": {}, "version": 2,
                  "status": "running", "turn": 1, "seats": [], "view": {"turn": 1},
                  "private": {"hand": [1, 2]}})
    assert (replica.private, replica.private_seq) == ({"hand": [1, 2]}, 4)
    replica.take_private({"hand": [9]}, 3)  # an answer older than what we hold
    assert replica.private == {"hand": [1, 2]}
    assert replica.wants_private({"seq": 5, "private": [1]})
    assert not replica.wants_private({"seq": 5, "private": [0]})
    assert not replica.wants_private({"seq": 4, "private": [1]})
    replica.take_private({"hand": [2]}, 5)
    assert replica.merged == {"turn": 1, "hand": [2]} and replica.view == {"turn": 1}
    spectator = Replica("t1")
    assert not spectator.wants_private({"seq": 1, "private": [0]})
    assert spectator.merged is spectator.view


def test_a_refused_act_names_no_card_in_the_hosts_log(
        host: Host, caplog: pytest.LogCaptureFixture) -> None:
    """A Sugi act with a card of the hand and the wrong action for it: the refusal tells its
    seat which card (in the reply), the host's log only the rule it broke. Before, the log line
    'refused 3: illegal_action: card 17 shows ghost, not rotate' showed on the host's screen
    which card some player held."""
    caplog.set_level("INFO", logger="sagani_net.host")
    ann = Client(host.endpoint)
    try:
        ann.connect()
        table = ann.create({"players": 2}, game="sugi", seed=9)  # seat 0 plans first
        ann.join(table, seat=0, name="ann")
        bob = Client(host.endpoint)
        bob.join(table, seat=1, name="bob")
        bob.close()
        private = ann.sync().private
        assert private is not None
        card = next(c for c in private["hand"] if COMPONENTS.icon[c] != "remove")
        with pytest.raises(sagani_net.client.HostError) as refused:
            ann.act({"type": "remove", "card": card, "slot": 0})
        assert str(card) in refused.value.message  # the seat is told which card
        lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("refused")]
        assert lines and not any(str(card) in line.split(":", 1)[1] for line in lines), lines
        assert any("illegal_action (wrong_icon)" in line for line in lines), lines
    finally:
        ann.close()
