"""Records per game through the host: every registered game (and Hands, the test game) ends
with a record that names its game and players, is served by ``record``, replays to its result,
and survives a host restart; a Sagani record stored before records had ``config`` and ``names``
is still served and its table still loads."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import TOY
from test_net_support import TESTS, Raw, running_host

from sagani_net.games import game_names, get_game
from sagani_net.store import Store, TableRow

OLD_RECORD = TESTS / "records" / "sagani-before-config.json"


def play_out(raw: Raw, table: str, tokens: list[str], rng: random.Random) -> None:
    """Random legal moves, each chosen on a determinized state from what the seat to move
    knows (its snapshot: view and private data), until the game is over."""
    game = get_game(raw.patient("sync", table=table)["game"])
    seat = raw.patient("sync", table=table)["turn"]
    while seat is not None:
        snap = raw.patient("sync", table=table, token=tokens[seat])
        sample = game.determinize(snap["view"], snap["private"], seat, rng)
        action = sample.action_data(rng.choice(sample.legal_actions()))
        accepted = raw.patient("act", table=table, seat=seat, token=tokens[seat],
                       version=snap["version"], action=action)
        assert accepted["type"] == "accepted", accepted
        seat = accepted["turn"]


@pytest.mark.parametrize("name", [*game_names(), TOY])
def test_every_game_is_recorded_with_its_game_and_names(
    name: str, toy_registered: str, tmp_path: Path
) -> None:
    game = get_game(name)
    with running_host(tmp_path) as host:
        raw = Raw(host.endpoint)
        created = raw("create", game=name, config={}, seed=99)
        table, seats = created["table"], created["seats"]
        names = [f"player {seat}" for seat in range(seats)]
        tokens = [raw("join", table=table, name=n)["token"] for n in names]
        assert raw("record", table=table)["code"] == "not_over"
        play_out(raw, table, tokens, random.Random(3))
        record = raw.patient("record", table=table)["record"]
        raw.close()
    assert record["game"] == name and record["names"] == names
    assert game.from_record(record).result().to_data() == record["result"]
    # After a restart the finished table comes back from disk, for its record and a snapshot.
    with running_host(tmp_path) as host:
        raw = Raw(host.endpoint)
        assert raw.patient("record", table=table)["record"] == record
        snap = raw("sync", table=table, token=tokens[0])
        assert (snap["status"], snap["game"], snap["you"]) == ("over", name, 0)
        assert snap["view"]["result"] == record["result"]
        raw.close()


def test_a_sagani_record_from_before_config_and_names_still_loads(tmp_path: Path) -> None:
    old: dict[str, Any] = json.loads(OLD_RECORD.read_text())
    assert "config" not in old and "names" not in old  # the shape this test is about
    store = Store(tmp_path)
    store.add_table(TableRow("0ld7ab1e", "sagani", {"players": 2, "mode": "multi"}, old["seed"],
                             [], "open", 0, 0.0))
    store.finish_table("0ld7ab1e", len(old["actions"]) + 2, old)
    store.commit()
    store.close()
    with running_host(tmp_path) as host:
        raw = Raw(host.endpoint)
        assert raw("record", table="0ld7ab1e")["record"] == old
        snap = raw("sync", table="0ld7ab1e")
        assert snap["status"] == "over" and snap["version"] == len(old["actions"])
        assert snap["view"]["result"] == old["result"]
        assert [t["table"] for t in raw("tables")["tables"]] == ["0ld7ab1e"]
        raw.close()
    replayed = get_game("sagani").from_record(old)
    assert replayed.result().to_data() == old["result"]


def test_a_seat_nobody_holds_at_the_end_is_named_by_its_number(
    toy_registered: str, tmp_path: Path
) -> None:
    with running_host(tmp_path) as host:
        raw = Raw(host.endpoint)
        table = raw("create", game=toy_registered, config={}, seed=5, bots=[1],
                    deadline_s=0.1)["table"]
        ann = raw("join", table=table, name="ann")["token"]
        gone = raw("join", table=table, role="bot", name="gone")["token"]
        assert raw("leave", table=table, token=gone)["seat"] == 1
        # The host plays the empty bot seat's moves (its default move, after the deadline).
        while (snap := raw("sync", table=table, token=ann))["status"] != "over":
            if snap["turn"] == 0:
                card = snap["private"]["hand"][-1]
                raw("act", table=table, seat=0, token=ann, version=snap["version"],
                    action={"type": "play", "card": card})
            else:
                time.sleep(0.05)  # the host's per-peer rate limit: do not ask in a tight loop
        record = raw.patient("record", table=table)["record"]
        raw.close()
    assert record["names"] == ["ann", "seat 2"]
    assert get_game(toy_registered).from_record(record).result().to_data() == record["result"]
