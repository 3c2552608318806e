"""Faults: a host killed at random moments, clients killed or cut off, duplicate, reordered and
replayed requests, one seat's token used twice at once. All on 127.0.0.1."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import fault_kit
import pytest
import zmq
from fault_kit import PATIENT, port_number, proxied
from test_net_support import (
    RACE_CODES,
    WAIT_S,
    Accepted,
    PlayerThread,
    Raw,
    choose,
    running_host,
    start_host_process,
)

from sagani_net.client import Client
from sagani_net.games import get_game
from sagani_net.games.sagani.rules import State
from sagani_net.protocol import VERSION, decode_message, encode


def public(view: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in view.items() if key != "you"}


def check_against_record(record: dict[str, Any], accepted: list[Accepted]) -> None:
    """Every action a client saw accepted is in the record at the version it was made on, no
    action is there twice, and replaying the record gives the record's result."""
    actions = record["actions"]
    for version, seat, action in accepted:
        assert actions[version] == {"seat": seat, **action}, version
    assert len({version for version, _, _ in accepted}) == len(accepted)
    replayed = get_game("sagani").from_record(record)
    assert replayed.is_over() and replayed.version == len(actions)
    assert replayed.ranking() == record["result"]["ranking"]
    assert replayed.scores() == record["result"]["scores"]


class HostProcess:
    """``sagani host`` in a subprocess that can be killed with SIGKILL and started again on the
    same ports and data dir."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.proc, self.endpoint, pub = start_host_process(data_dir, "--port", "0",
                                                           "--heartbeat-s", "0.2")
        # The standby link's port is whatever is free: by default it is --port + 2, which the
        # first start's free broadcast port may be.
        self.ports = ("--port", str(port_number(self.endpoint)), "--pub-port",
                      str(port_number(pub)), "--link-port", "0", "--heartbeat-s", "0.2")

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait()

    def restart(self) -> None:
        self.proc, _, _ = start_host_process(self.data_dir, *self.ports)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait()


@pytest.mark.parametrize("seed", [101, 202, 303, 404])
def test_host_killed_at_random_moments_loses_no_accepted_action(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    host = HostProcess(tmp_path)
    players = [Client(host.endpoint, **PATIENT) for _ in range(2)]
    watcher = Client(host.endpoint, **PATIENT)
    accepted: list[Accepted] = []
    threads = [PlayerThread(player, random.Random(seed + i), on_accept=accepted.append)
               for i, player in enumerate(players)]
    try:
        table = players[0].create({"players": 2}, seed=seed)
        for i, player in enumerate(players):
            player.join(table, name=f"p{i}")
        watcher.join(table, role="spectator")
        for thread in threads:
            thread.start()
        # Two kills at random versions, each at a random instant after that version was seen.
        for version in sorted(rng.sample(range(1, 110), 2)):
            assert watcher.wait_for(lambda r, v=version: r.version >= v, WAIT_S)
            time.sleep(rng.uniform(0.0, 0.02))  # the kill's random instant is the case
            host.kill()
            # Every action a client has heard accepted was committed before its reply.
            heard = 1 + max((v for v, _, _ in list(accepted)), default=-1)
            host.restart()
            raw = Raw(host.endpoint)
            assert raw("sync", table=table)["version"] >= heard
            raw.close()
        for thread in threads:
            thread.finish()
        assert watcher.wait_for(lambda r: r.status == "over", WAIT_S)
        record = watcher.record(table)
        final = watcher.state
    finally:
        for thread in threads:
            thread.close()
        watcher.close()
        host.stop()
    check_against_record(record, accepted)
    # The players' accepted actions are the whole game: none was lost, none doubled.
    assert sorted(version for version, _, _ in accepted) == list(range(len(record["actions"])))
    assert final.view["result"] == record["result"]
    assert public(get_game("sagani").from_record(record).view(None)) == public(final.view)


def start_player(endpoint: str, table: str, seed: int, token: str | None = None):
    proc = subprocess.Popen([sys.executable, fault_kit.__file__, endpoint, table, str(seed),
                             *([token] if token else [])],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    words = proc.stdout.readline().split()
    assert words[0] == "seat", words
    return proc, int(words[1]), words[3]


def read_accepted(proc: subprocess.Popen[str]) -> tuple[list[Accepted], bool]:
    assert proc.stdout is not None
    accepted, over = [], False
    for line in proc.stdout:
        if line.startswith("accepted "):
            accepted.append(tuple(json.loads(line.split(" ", 1)[1])))
        over = over or line.strip() == "over"
    return accepted, over


def test_client_killed_and_restarted_rejoins_its_seat_with_its_token(tmp_path: Path) -> None:
    with running_host(tmp_path, heartbeat_s=0.2) as host:
        other, watcher = Client(host.endpoint, **PATIENT), Client(host.endpoint, **PATIENT)
        accepted: list[Accepted] = []
        thread = PlayerThread(other, random.Random(2), on_accept=accepted.append)
        try:
            table = other.create({"players": 2}, seed=404)
            watcher.join(table, role="spectator")
            proc, seat, token = start_player(host.endpoint, table, 1)
            other.join(table, name="other")
            thread.start()
            assert watcher.wait_for(lambda r: r.version >= 30, WAIT_S)
            proc.kill()  # SIGKILL: no goodbye, no leave
            before, _ = read_accepted(proc)
            proc.wait()
            again, seat_again, token_again = start_player(host.endpoint, table, 3, token)
            assert (seat_again, token_again) == (seat, token)
            after, over = read_accepted(again)
            again.wait(60)
            thread.finish(60)
            assert over
            record = other.record(table)
        finally:
            thread.close()
            watcher.close()
    assert before and after
    check_against_record(record, accepted + before + after)
    assert {s for _, s, _ in before + after} == {seat}


def test_client_cut_off_longer_than_the_heartbeat_timeout_resyncs(tmp_path: Path) -> None:
    with running_host(tmp_path, heartbeat_s=0.2) as host, \
            proxied(port_number(host.endpoint)) as req_link, \
            proxied(port_number(host.pub_endpoint)) as pub_link:
        # The host tells clients to subscribe through the proxy, as a port forward would.
        host.pub_endpoint = pub_link.endpoint
        cut_off = Client(req_link.endpoint, timeout_s=0.3, retries=40)
        direct, watcher = Client(host.endpoint, **PATIENT), Client(host.endpoint, **PATIENT)
        accepted: list[Accepted] = []
        heard: list[str] = []
        threads = [
            PlayerThread(cut_off, random.Random(1), on_accept=accepted.append,
                         on_update=lambda u: heard.append(u["type"])),
            PlayerThread(direct, random.Random(2), on_accept=accepted.append),
        ]
        try:
            table = direct.create({"players": 2}, seed=505)
            watcher.join(table, role="spectator")
            cut_off.join(table, name="far")
            direct.join(table, name="near")
            for thread in threads:
                thread.start()
            near_seat = direct.state.you
            for version, drop in ((20, False), (60, True)):
                # Cut while the other seat is to move, so that the game goes on without it.
                assert watcher.wait_for(lambda r, v=version: r.version >= v
                                        and r.turn == near_seat, WAIT_S), (
                    version, watcher.state.version, cut_off.state.version, heard[-3:])
                req_link.cut(drop)
                pub_link.cut(drop)
                # The cut's length is the case: silence of 7 heartbeat periods (the client gives
                # up at 3), through a real proxy, so no clock to inject.
                time.sleep(1.5)
                req_link.restore()
                pub_link.restore()
            for thread in threads:
                thread.finish(60)
            record = direct.record(table)
            far, near = cut_off.state, direct.state
        finally:
            for thread in threads:
                thread.close()
            watcher.close()
    assert "snapshot" in heard  # it noticed the silence and resynced
    assert far.status == near.status == "over" and far.seq == near.seq
    assert public(far.view) == public(near.view)
    check_against_record(record, accepted)


# -- duplicate, reordered, replayed and concurrent requests -------------------------------------


class Table:
    """A started 2-player table spoken to raw, with a local engine kept in step (same seed), so
    that the test can build legal actions for versions the host has not reached yet."""

    def __init__(self, raw: Raw, seed: int) -> None:
        self.raw = raw
        self.id = raw("create", game="sagani", config={"players": 2}, seed=seed)["table"]
        self.tokens = [raw("join", table=self.id)["token"] for _ in range(2)]
        self.mirror = State.new(players=2, seed=seed)
        self.rng = random.Random(seed)

    def next_action(self, state: State | None = None) -> tuple[int, dict[str, Any]]:
        state = state or self.mirror
        return state.current_seat, choose(state.view(state.current_seat), self.rng)

    def frame(self, msg_id: int, version: int, seat: int, action: dict[str, Any],
              token: str | None = None) -> bytes:
        return encode({"v": VERSION, "type": "act", "id": msg_id, "table": self.id,
                       "seat": seat, "token": token or self.tokens[seat], "version": version,
                       "action": action})

    def play(self, seat: int, action: dict[str, Any], msg_id: int) -> dict[str, Any]:
        reply = self.raw.send_bytes(self.frame(msg_id, self.mirror.version, seat, action))
        assert reply["type"] == "accepted", reply
        self.mirror.apply(self.mirror.parse_action(action))
        return reply

    def host_version(self) -> int:
        return self.raw("sync", table=self.id)["version"]


def dealer(endpoint: str) -> zmq.Socket:
    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.linger, sock.rcvtimeo = 0, int(WAIT_S * 1000)
    sock.connect(endpoint)
    return sock


def pipelined(sock: zmq.Socket, frames: list[bytes]) -> list[dict[str, Any]]:
    """Send every frame before reading any reply; replies come back in order."""
    for frame in frames:
        sock.send_multipart([b"", frame])
    return [decode_message(sock.recv_multipart()[-1]) for _ in frames]


def test_duplicate_request_in_flight_is_applied_once(tmp_path: Path) -> None:
    with running_host(tmp_path) as host:
        game = Table(Raw(host.endpoint), seed=601)
        sock = dealer(host.endpoint)
        seat, action = game.next_action()
        frame = game.frame(1000, 0, seat, action)
        first, second, third = pipelined(sock, [frame, frame, frame])
        assert first["type"] == "accepted" and second == first and third == first
        assert game.host_version() == 1
        sock.close()


def test_reordered_requests_refuse_the_early_one_and_it_plays_when_resent(tmp_path: Path) -> None:
    with running_host(tmp_path) as host:
        game = Table(Raw(host.endpoint), seed=602)
        sock = dealer(host.endpoint)
        seat1, action1 = game.next_action()
        ahead = game.mirror.clone()
        ahead.apply(ahead.parse_action(action1))
        seat2, action2 = game.next_action(ahead)
        second = game.frame(2001, 1, seat2, action2)
        first = game.frame(2000, 0, seat1, action1)
        # The later action overtakes the earlier one on the way.
        early, on_time = pipelined(sock, [second, first])
        assert early["code"] == "stale_version" and on_time["type"] == "accepted"
        # A refused id is not used up: the same frame sent again now plays.
        (resent,) = pipelined(sock, [second])
        assert resent["type"] == "accepted" and resent["version"] == 2
        assert game.host_version() == 2
        sock.close()


def test_replayed_old_request_gets_its_old_reply_and_changes_nothing(tmp_path: Path) -> None:
    with running_host(tmp_path) as host:
        raw = Raw(host.endpoint)
        game = Table(raw, seed=603)
        seat, action = game.next_action()
        old_frame = game.frame(3000, 0, seat, action)
        old_reply = raw.send_bytes(old_frame)
        game.mirror.apply(game.mirror.parse_action(action))
        for msg_id in range(3001, 3011):
            game.play(*game.next_action(), msg_id)
        before = raw("sync", table=game.id)
        # The same bytes again, from this peer and from another one (a captured frame).
        assert raw.send_bytes(old_frame) == old_reply
        other = Raw(host.endpoint)
        assert other.send_bytes(old_frame) == old_reply
        after = raw("sync", table=game.id)
        assert (after["version"], after["seq"]) == (before["version"], before["seq"]) == (
            11, before["seq"])
        assert after["view"] == before["view"]
        other.close()
        raw.close()


def test_two_clients_with_one_seats_token_acting_at_once_exactly_one_succeeds(
    tmp_path: Path,
) -> None:
    with running_host(tmp_path) as host:
        game = Table(Raw(host.endpoint), seed=604)
        twins = [dealer(host.endpoint), dealer(host.endpoint)]
        msg_id = 4000
        for _ in range(20):
            seat, action = game.next_action()
            _, other_action = game.next_action()
            frames = [game.frame(msg_id, game.mirror.version, seat, action),
                      game.frame(msg_id + 1, game.mirror.version, seat, other_action)]
            msg_id += 2
            barrier = threading.Barrier(2)
            replies: list[dict[str, Any]] = [{}, {}]

            def send(i: int, barrier: threading.Barrier = barrier,
                     frames: list[bytes] = frames, replies: list = replies) -> None:
                barrier.wait()
                twins[i].send_multipart([b"", frames[i]])
                replies[i] = decode_message(twins[i].recv_multipart()[-1])

            threads = [threading.Thread(target=send, args=(i,)) for i in range(2)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(WAIT_S)
            kinds = sorted(reply["type"] for reply in replies)
            assert kinds == ["accepted", "error"], replies
            loser = next(reply for reply in replies if reply["type"] == "error")
            assert loser["code"] in ("stale_version", "not_your_turn")
            winner = replies.index(next(r for r in replies if r["type"] == "accepted"))
            played = action if winner == 0 else other_action
            game.mirror.apply(game.mirror.parse_action(played))
            assert game.host_version() == game.mirror.version
        for sock in twins:
            sock.close()


def test_two_library_clients_resumed_on_one_token_never_double_a_move(tmp_path: Path) -> None:
    with running_host(tmp_path, heartbeat_s=0.2) as host:
        owner, opponent = Client(host.endpoint), Client(host.endpoint)
        table = owner.create({"players": 2}, seed=605)
        owner.join(table, name="owner")
        opponent.join(table, name="opponent")
        twin = Client(host.endpoint)
        twin.resume(table, owner.session.token)
        accepted: list[Accepted] = []
        # The twin that loses the race for the last move hears "game_over".
        threads = [PlayerThread(c, random.Random(i), on_accept=accepted.append,
                                shrug=(*RACE_CODES, "game_over"))
                   for i, c in enumerate((owner, twin, opponent))]
        try:
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.finish(60)
            record = owner.record(table)
        finally:
            for thread in threads:
                thread.close()
    check_against_record(record, accepted)
    assert len(accepted) == len(record["actions"])
