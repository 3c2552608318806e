"""Whole games over the network in several processes, and a host killed with SIGKILL."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import test_net_support
from test_net_support import (
    ROOT,
    RUN_SAGANI,
    WAIT_S,
    PlayerThread,
    Raw,
    choose,
    port_of,
    running_host,
    start_host_process,
)

from sagani_net.client import Client
from sagani_net.games import get_game


def public(view: dict) -> dict:
    return {key: value for key, value in view.items() if key != "you"}


def test_four_players_in_four_processes_finish_the_same_game(tmp_path: Path) -> None:
    with running_host(tmp_path) as host:
        raw = Raw(host.endpoint)
        table = raw("create", game="sagani", config={"players": 4}, seed=31)["table"]
        players = [
            subprocess.Popen([sys.executable, test_net_support.__file__, host.endpoint, table,
                              str(seed)], stdout=subprocess.PIPE, text=True)
            for seed in range(4)
        ]
        finals = [json.loads(p.communicate(timeout=120)[0]) for p in players]
        record = raw("record", table=table)["record"]
        raw.close()
    assert sorted(final["seat"] for final in finals) == [0, 1, 2, 3]
    assert len({json.dumps(public(final["view"]), sort_keys=True) for final in finals}) == 1
    replayed = get_game("sagani").from_record(record)
    assert finals[0]["view"]["result"] == record["result"]
    assert replayed.ranking() == record["result"]["ranking"]
    assert {final["version"] for final in finals} == {len(record["actions"])}


def test_host_killed_mid_game_resumes_and_finishes_like_its_record(tmp_path: Path) -> None:
    proc, endpoint, pub_endpoint = start_host_process(tmp_path, "--port", "0",
                                                      "--heartbeat-s", "0.2")
    ports = ("--port", port_of(endpoint), "--pub-port", port_of(pub_endpoint), "--heartbeat-s",
             "0.2")
    options = {"timeout_s": 0.3, "retries": 60}
    a, b, watcher = (Client(endpoint, **options) for _ in range(3))
    try:
        table = a.create({"players": 2}, seed=32)
        a.join(table, name="a")
        b.join(table, name="b")
        watcher.join(table, role="spectator")

        # Quiet moment: the host dies between actions and comes back at the same place.
        rng = random.Random(1)
        for _ in range(12):
            b.wait_for(lambda r: r.seq >= a.state.seq, WAIT_S)
            a.wait_for(lambda r: r.seq >= b.state.seq, WAIT_S)
            player = a if a.my_turn else b
            player.act(choose(player.state.view, rng))
        before = watcher.sync()
        before_state = (before.version, before.seq, before.view)
        proc.kill()
        proc.wait()
        proc, _, _ = start_host_process(tmp_path, *ports)
        after = watcher.sync()
        assert (after.version, after.seq, after.view) == before_state == (12, before.seq,
                                                                           before.view)

        # Busy moment: the host dies while the players are acting as fast as they can.
        threads = [PlayerThread(client, random.Random(i)) for i, client in enumerate((a, b))]
        for thread in threads:
            thread.start()
        assert watcher.wait_for(lambda r: r.version >= 40, WAIT_S)
        proc.kill()
        proc.wait()
        proc, _, _ = start_host_process(tmp_path, *ports)
        for thread in threads:
            thread.finish()
        assert watcher.wait_for(lambda r: r.status == "over", WAIT_S)
        final = watcher.state
    finally:
        for client in (a, b, watcher):
            client.close()
        proc.terminate()
        proc.wait()

    exported = subprocess.run(
        [*RUN_SAGANI, "record", "export", table, "--data-dir",
         str(tmp_path)], cwd=ROOT, capture_output=True, text=True, check=True,
    )
    record = json.loads(exported.stdout)
    replayed = get_game("sagani").from_record(record)
    assert replayed.is_over() and replayed.version == final.version == len(record["actions"])
    assert final.view["result"] == record["result"]
    assert public(replayed.view(None)) == public(final.view)
