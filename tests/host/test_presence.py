"""Issue 20 point 9, on a real host on 127.0.0.1: an absent player.

A player seat whose token says nothing for AWAY_PERIODS presence periods is away (heartbeats,
snapshots and the lobby say so); the others may ask the host to stand in for it (``stand_in``),
and the host plays that seat with its bot until the player's token comes back, which gets the
seat back and plays on. A table may give the seats people hold a turn timer.
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest
from cli_kit import sagani
from test_net_support import Raw, Updates, choose, sessions_of_moves, until

from sagani_net.cli.tables_cmd import table_lines
from sagani_net.client import Client, HostError
from sagani_net.host import HOST_DEFAULT_SESSION, HOST_STAND_IN_SESSION, Host
from sagani_net.store import Store


def seated(host: Host, players: int = 2, **create: Any) -> tuple[str, list[Client]]:
    """A started Sagani table and one client per seat (ann, bob, ...)."""
    first = Client(host.endpoint, timeout_s=5.0)
    table = first.create({"players": players}, seed=9, **create)
    clients = [first, *(Client(host.endpoint, timeout_s=5.0) for _ in range(players - 1))]
    for client, name in zip(clients, ("ann", "bob", "cy", "di"), strict=False):
        client.join(table, name=name)
    return table, clients


def play_while(client: Client, rng: random.Random, done: Any) -> None:
    """Play ``client``'s turns, and say it is there, until ``done()`` (a few hundred rounds
    at most: a bound, never a timing)."""
    for _ in range(1000):
        if done():
            return
        client.here()
        if client.my_turn:
            try:
                client.act(choose(client.state.view, rng))
            except HostError as exc:
                assert exc.code in ("stale_version", "not_your_turn"), exc
        else:
            client.next_update(0.1)
    raise AssertionError("never done")


def test_a_silent_player_is_away_and_a_stand_in_plays_until_it_comes_back(
    host: Host, tmp_path: Path
) -> None:
    table, (ann, bob) = seated(host)
    rng = random.Random(4)
    try:
        assert ann.core.presence_s == host.presence_s
        # Bob's console is gone: only ann says she is there. Heartbeats tell her bob is away.
        play_while(ann, rng, lambda: ann.state.seats[1].get("away"))
        assert not ann.state.seats[0]["away"]
        assert "2:bob (away)" in table_lines(ann.tables())
        lobby = sagani("tables", host.endpoint)  # the real command says so too
        assert lobby.returncode == 0 and f"{table}  sagani   running  1:ann" in lobby.stdout
        assert "2:bob (away)" in lobby.stdout
        # Nobody may stand in for a seat whose player is there, nor a spectator for anyone.
        with pytest.raises(HostError) as refused:
            bob_twin = Client(host.endpoint)
            bob_twin.join(table, role="spectator")
            bob_twin.stand_in(1)
        assert refused.value.code == "not_a_player"
        bob_twin.close()
        with pytest.raises(HostError) as refused:
            ann.stand_in(0)
        assert refused.value.code == "not_away"
        # Ann seats a bot for bob: the host plays bob's turns; ann plays hers.
        assert ann.stand_in(1)["seat"] == 1
        stood = sessions_of_moves(tmp_path, table)

        def stand_in_moved() -> bool:
            moves = sessions_of_moves(tmp_path, table)[len(stood):]
            return any(session == HOST_STAND_IN_SESSION for _, session in moves)

        play_while(ann, rng, stand_in_moved)
        assert ann.state.seats[1]["stand_in"] and "2:bob (away, a bot stands in)" in table_lines(
            ann.tables())
        assert all(seat == 1 for seat, session in sessions_of_moves(tmp_path, table)
                   if session == HOST_STAND_IN_SESSION)
        # Bob comes back with his token: the stand-in leaves, bob plays on.
        events: list[dict[str, Any]] = []
        updates = Updates(host.pub_endpoint, table)
        try:
            updates.wait_live()
            bob.sync()
            assert not bob.state.seats[1]["stand_in"] and not bob.state.seats[1]["away"]
            until(lambda: updates.events("stand_in_left"))
            events = updates.events("stand_in_left")
        finally:
            updates.close()
        assert events == [{"type": "stand_in_left", "seat": 1}]
        back = len(sessions_of_moves(tmp_path, table))

        def bob_moved() -> bool:
            return any(seat == 1 for seat, _ in sessions_of_moves(tmp_path, table)[back:])

        while not bob_moved():  # the two of them play; the host no more
            for client in (ann, bob):
                client.here()
                if client.my_turn:
                    client.act(choose(client.state.view, rng))
                else:
                    client.next_update(0.05)
        assert all(session != HOST_STAND_IN_SESSION
                   for _, session in sessions_of_moves(tmp_path, table)[back:])
    finally:
        ann.close()
        bob.close()


def test_a_snapshot_tells_a_client_when_its_decision_runs_out(host: Host) -> None:
    """Over the wire: a client's replica knows, from a snapshot, when the pending decision's
    clock runs out on its own clock (a reconnecting console counts down from it)."""
    table, clients = seated(host, turn_timer_s=30.0)
    try:
        before_s = time.monotonic()
        replica = clients[1].sync()
        after_s = time.monotonic()
        assert replica.turn_due_s is not None
        # Announced as the join's batch ended, before the sync: no more than all of it is
        # left (the exact figures, on a clock the test moves: test_tables.py).
        assert before_s < replica.turn_due_s <= after_s + 30.0, replica.turn_due_s - before_s
    finally:
        for client in clients:
            client.close()
    untimed, others = seated(host)
    try:
        assert others[0].sync().turn_due_s is None
    finally:
        for client in others:
            client.close()


def test_a_turn_timer_plays_the_default_move_for_a_person_and_is_kept_by_the_store(
    host: Host, raw: Raw, tmp_path: Path
) -> None:
    table, clients = seated(host, turn_timer_s=0.3)
    try:
        assert clients[0].state.turn_timer_s == 0.3
        assert raw("tables")["tables"][0]["turn_timer_s"] == 0.3
        # Nobody moves: the host plays the seat to move's default move when its time is up.
        until(lambda: sessions_of_moves(tmp_path, table))
        assert sessions_of_moves(tmp_path, table)[0] == (0, HOST_DEFAULT_SESSION)
    finally:
        for client in clients:
            client.close()
    (row,) = [r for r in Store(tmp_path).unfinished() if r.id == table]
    assert row.turn_timer_s == 0.3
    # Off by default: a table without one never times a person out (the bots' deadline is
    # another clock: test_deadlines.py).
    assert raw("create", game="sagani", config={"players": 2})["turn_timer_s"] is None
