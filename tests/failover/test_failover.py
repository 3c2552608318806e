"""kill -9 the active host in the middle of a 4-player game played by bot processes (issue 14):
the standby takes over without anyone's help, the killed host comes back as the standby, and a
second kill moves the game back to it. Real processes and sockets on 127.0.0.1."""

from __future__ import annotations

import os
import queue
import random
import signal
import threading
from pathlib import Path

from failover_kit import WAIT_S, HostProcess, Pair, free_ports, play_with_kills
from test_net_support import Raw, act, read_store, seated_table, until

from sagani_net.client import Client, HostError, HostTimeout
from sagani_net.standby import NOT_ACTIVE, STALLED, TOOK_OVER

HEARTBEAT_S = 0.2
#: Games are short with random bots; a kill that finds the game over waits for the next game.
MAX_GAMES = 4


def test_play_goes_on_through_two_kills_and_nothing_accepted_is_lost(tmp_path: Path) -> None:
    pair = Pair.start(tmp_path, HEARTBEAT_S)
    rng = random.Random(14)
    a, b = pair.active, pair.standby
    # Each names the other as its players reach it (the link beside it), not by its link alone.
    named_a = f"127.0.0.1:{a.ports[0]} (link tcp://127.0.0.1:{a.ports[2]})"
    assert b.following == named_a
    try:
        for game_no in range(MAX_GAMES):
            if len(pair.takeovers_s) >= 2:
                break
            takeovers = len(pair.takeovers_s)
            game = play_with_kills(pair, 2 - takeovers, rng, seed=game_no)
            record = game["record"]
            if len(pair.takeovers_s) > takeovers:
                # Each bot says where play went on, as a console does: its client went
                # there by itself, and the bot had said nothing of it.
                moved = f"host moved to {pair.active.endpoint.removeprefix('tcp://')}"
                assert all(moved in said for said in game["said"]), game["said"]
            # Every move a bot was told was accepted is in the record, once.
            assert game["moves"] == len(record["actions"])
            # The record is the game an uninterrupted replay of its seed and actions plays.
            assert game["replayed"].to_record()["actions"] == record["actions"]
            assert game["replayed"].result().to_data() == record["result"]
        assert len(pair.takeovers_s) == 2
        # The first kill moved the game to B; the second one back to A, which had come back
        # as B's standby by itself.
        assert pair.killed[:2] == ["A", "B"]
        took_over = f"the active host tcp://{named_a} is gone and clients came"
        assert took_over in (tmp_path / "B.log").read_text()
        pair.wait_in_sync()  # and the host killed last follows the other again
    finally:
        pair.stop()


def test_a_secure_pair_fails_over_with_the_join_code_players_hold(tmp_path: Path) -> None:
    """The standby got the key pair from the standby code: the clients' join code, with the
    host's public key in it, is good for it too."""
    pair = Pair.start(tmp_path, HEARTBEAT_S, secure=True)
    rng = random.Random(15)
    try:
        for game_no in range(MAX_GAMES):
            game = play_with_kills(pair, 1, rng, seed=game_no)
            assert game["moves"] == len(game["record"]["actions"])
            if pair.takeovers_s:
                break
        assert pair.killed == ["A"] and len(pair.takeovers_s) == 1
        keys = [(tmp_path / name / "curve.key").read_text() for name in ("a", "b")]
        assert keys[0] == keys[1]
        pair.wait_in_sync()
    finally:
        pair.stop()


def test_a_standby_started_again_plainly_follows_its_active_host_again(tmp_path: Path) -> None:
    """Its data dir holds a copy beside a live active host: it must not serve that copy."""
    pair = Pair.start(tmp_path, HEARTBEAT_S)
    try:
        pair.standby.stop()
        pair.standby.start()  # no --standby: it asks the host it followed, noted in its data dir
        assert pair.standby.code == ""  # it did not start as an active host (which prints one)
        pair.wait_in_sync()
    finally:
        pair.stop()


def serves(endpoint: str) -> bool:
    """A client that comes to ``endpoint`` is served (and makes a standby there take over)."""
    client = Client(endpoint, timeout_s=1.0, retries=0)
    try:
        client.connect()
        return True
    except (HostError, HostTimeout):
        return False
    finally:
        client.close()


def test_a_standby_that_took_over_prints_a_standby_code_of_its_own(tmp_path: Path) -> None:
    """The host it followed may be gone for good, and the code the party had names that one:
    the next standby needs one naming this host. It used to print none."""
    pair = Pair.start(tmp_path, HEARTBEAT_S)
    b = pair.standby
    assert b.proc is not None and b.proc.stdout is not None
    out, lines = b.proc.stdout, queue.Queue[str]()

    def read() -> None:
        for line in out:
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    third = HostProcess("C", tmp_path / "c", free_ports(3), HEARTBEAT_S)
    try:
        pair.fail_over()
        until(lambda: serves(b.endpoint))
        while not (line := lines.get(timeout=WAIT_S)).startswith("sagani host: standby code "):
            pass
        b.code = line.split()[-1]
        secret = pair.standby.code.split("&secret=")[1]  # A's: B serves with A's keys
        assert b.code == (f"sagani-standby://127.0.0.1:{b.ports[0]}?link={b.ports[2]}"
                          f"&secret={secret}")
        third.start(standby_of=b)

        def names_third() -> bool:
            client = Client(b.endpoint, timeout_s=1.0, retries=0)
            try:
                return client.connect().get("standby") == third.endpoint
            finally:
                client.close()

        until(names_third)
    finally:
        third.stop()
        pair.stop()


def test_a_standby_whose_standard_output_is_gone_still_keeps_its_code_when_it_takes_over(
        tmp_path: Path) -> None:
    """`sagani host --standby - | head -3`, or a service whose output nobody reads any more:
    as it took over, the standby printed the join line before it wrote standby.code, the
    print failed (a broken pipe) and the code was never written: the party had no code to
    start its next standby with. The code is kept first, then told."""
    pair = Pair.start(tmp_path, HEARTBEAT_S)
    try:
        b = pair.standby
        assert b.proc is not None and b.proc.stdout is not None
        b.proc.stdout.close()  # nobody reads what it prints from here on
        pair.fail_over()
        until(lambda: serves(b.endpoint))
        until(lambda: (b.data_dir / "standby.code").exists())
        assert f"?link={b.ports[2]}&" in (b.data_dir / "standby.code").read_text()
    finally:
        pair.stop()


def test_a_host_with_house_bots_back_as_the_standby_brings_them_when_it_takes_over(
        tmp_path: Path) -> None:
    """`sagani host --bots random` killed, its standby taking over, and the same command run
    again: it comes back as the standby, and when the role is its own again its house bots
    play the seats kept for bots, and its standby code is that of now. Before, the --bots of
    a host that came back as the standby was dropped without a word: after the second
    takeover a table of bot seats waited for ever, 'free (bot)' in `sagani tables`."""
    pair = Pair.start(tmp_path, HEARTBEAT_S, active_args=("--bots", "random"))
    try:
        a = pair.fail_over()
        until(lambda: serves(pair.active.endpoint))
        pair.rejoin()  # as the operator does: the command it had, --bots and all
        pair.wait_in_sync()
        # The code its last run wrote named it as the active host: a standby started with it
        # now would follow a standby and get no answer. Before, it stayed in the data dir.
        assert not (a.data_dir / "standby.code").exists()
        pair.fail_over()
        until(lambda: serves(a.endpoint))
        client = Client(a.address)
        table = client.create({"players": 2}, bots=[0, 1])
        client.close()
        until(lambda: read_store(a.data_dir, "SELECT status FROM tables WHERE id = ?",
                                 table) == [("over",)], WAIT_S)
        assert f"?link={a.ports[2]}&" in (a.data_dir / "standby.code").read_text()
    finally:
        pair.stop()


def test_an_active_host_back_after_its_standby_took_over_sends_clients_there(
        tmp_path: Path) -> None:
    """A lid closed past the takeover, then opened (here SIGSTOP, SIGCONT): the host woke up
    active, serving its own history beside the host that took over, to whoever came by the
    address players were given (`sagani tables` showed the game running there, at the version
    of the freeze, while it was over at the other)."""
    pair = Pair.start(tmp_path, HEARTBEAT_S)
    a, b = pair.active, pair.standby
    assert a.proc is not None
    try:
        raw = Raw(a.endpoint)
        table, _ = seated_table(raw, players=2)
        raw.close()
        pair.wait_in_sync()
        os.kill(a.proc.pid, signal.SIGSTOP)
        try:
            until(lambda: serves(b.endpoint))
        finally:
            os.kill(a.proc.pid, signal.SIGCONT)
        raw = Raw(a.endpoint)
        reply = until(lambda: (got := raw("tables")).get("code") == "not_active" and got)
        assert (reply["message"], reply["active"]) == (TOOK_OVER, b.endpoint)
        raw.close()
        # Started again, it follows the host that took over.
        pair.active, pair.standby = b, a
        a.stop()
        a.start()
        assert a.following.startswith("the host whose link is tcp://127.0.0.1:")
        pair.wait_in_sync()
    finally:
        pair.stop()


def test_a_standby_stopped_while_its_host_went_on_does_not_undo_the_moves_made_meanwhile(
        tmp_path: Path) -> None:
    """The standby's lid closed (SIGSTOP) until the active host served alone, a move made,
    the active host killed, the lid opened (SIGCONT): the standby took over at the version of
    its freeze, and the move every player had been told of was undone (a bot's next act was
    refused `stale_version`, its game a move back)."""
    pair = Pair.start(tmp_path, HEARTBEAT_S)
    a, b = pair.active, pair.standby
    assert a.proc is not None and b.proc is not None
    try:
        raw = Raw(a.endpoint)
        table, tokens = seated_table(raw, players=2)
        pair.wait_in_sync()
        os.kill(b.proc.pid, signal.SIGSTOP)
        try:
            until(lambda: raw("hello")["standby"] is None)  # A lost it: it serves alone
            version = act(raw, table, tokens, random.Random(3))["version"]
            assert raw("sync", table=table)["version"] == version
            a.kill()
        finally:
            os.kill(b.proc.pid, signal.SIGCONT)
        raw.close()
        raw = Raw(b.endpoint)
        reply = until(lambda: (got := raw("sync", table=table)).get("message") != NOT_ACTIVE
                      and got)
        assert (reply.get("code"), reply.get("message")) == ("not_active", STALLED), reply
        raw.close()
        # The active host started again: the standby follows it, gets the move, and the
        # players go on there.
        a.start()
        pair.wait_in_sync()
        raw = Raw(a.endpoint)
        assert raw("sync", table=table)["version"] == version
        raw.close()
    finally:
        pair.stop()


def test_a_join_retried_with_its_nonce_at_the_standby_that_took_over_keeps_its_seat(
    tmp_path: Path,
) -> None:
    """The join's reply was lost with the active host: its retry at the standby, which never
    saw that reply, gets the seat and token it took (before, a second seat)."""
    pair = Pair.start(tmp_path, HEARTBEAT_S)
    try:
        raw = Raw(pair.active.endpoint)
        table = raw("create", game="sagani", config={"players": 2})["table"]
        join = {"table": table, "name": "ann", "nonce": "n" * 22}
        first = raw("join", **join)
        raw.close()
        pair.wait_in_sync()
        pair.fail_over()
        until(lambda: serves(pair.active.endpoint))
        raw = Raw(pair.active.endpoint)
        again = raw("join", **join)
        assert (again["type"], again["seat"], again["token"]) == ("joined", 0, first["token"])
        assert raw("join", table=table, name="bob")["seat"] == 1
        raw.close()
    finally:
        pair.stop()


def test_a_create_retried_with_its_nonce_at_a_host_killed_and_started_again_gets_its_table(
    tmp_path: Path,
) -> None:
    """The create's reply was lost with the host (kill -9 after the commit): its retry, the
    same bytes, at the host started again on its data dir, which never saw that reply, gets
    that reply, not a second table that would sit empty for ever. A create that reuses the
    nonce with another config gets the first answer too, as the retry cache would give."""
    host = HostProcess("A", tmp_path / "a", free_ports(3), HEARTBEAT_S)
    host.start()
    try:
        raw = Raw(host.endpoint)
        create = raw.frame("create", game="sagani", config={"players": 2}, bots=[1],
                           deadline_s=30, nonce="c" * 22)
        first = raw.send_bytes(create)
        assert first["type"] == "created"
        raw.close()
        host.kill()
        host.start()
        raw = Raw(host.endpoint)
        assert raw.send_bytes(create) == first
        other = raw("create", game="sugi", config={"players": 3}, nonce="c" * 22)
        assert other == {**first, "id": other["id"]}
        assert [t["table"] for t in raw("tables")["tables"]] == [first["table"]]
        assert raw("create", game="sagani", config={}, nonce="d" * 22)["table"] != first["table"]
        raw.close()
    finally:
        host.stop()


def test_a_create_retried_with_its_nonce_at_the_standby_that_took_over_gets_its_table(
    tmp_path: Path,
) -> None:
    """The create's reply was lost with the active host: its retry at the standby, which
    never saw that reply, gets it (before, a second table)."""
    pair = Pair.start(tmp_path, HEARTBEAT_S)
    try:
        raw = Raw(pair.active.endpoint)
        create = raw.frame("create", game="sagani", config={"players": 2}, nonce="c" * 22)
        first = raw.send_bytes(create)
        assert first["type"] == "created"
        raw.close()
        pair.wait_in_sync()
        pair.fail_over()
        until(lambda: serves(pair.active.endpoint))
        raw = Raw(pair.active.endpoint)
        assert raw.send_bytes(create) == first
        assert [t["table"] for t in raw("tables")["tables"]] == [first["table"]]
        assert raw("join", table=first["table"], name="ann")["seat"] == 0
        raw.close()
    finally:
        pair.stop()
