"""Hostile players and creators on 127.0.0.1 (issue 18, points 5-9, 12 and 13; issue 20,
point 3): what a seated player, a table's creator or a name can do to the others, on a real
host with real sockets.

Each attack is bounded: a few hundred requests at most, a few seconds of the host's time.
"""

from __future__ import annotations

from pathlib import Path

from test_net_support import Raw, running_host


def started_sagani(raw: Raw, players: int = 2) -> tuple[str, list[str]]:
    table = raw("create", game="sagani", config={"players": players})["table"]
    return table, [raw("join", table=table, name=f"p{i}")["token"] for i in range(players)]


# -- point 13: an action has exactly its fields ---------------------------------------------


def test_an_action_naming_a_seat_is_bad_action_and_nothing_is_played(raw: Raw) -> None:
    table, tokens = started_sagani(raw)
    snap = raw("sync", table=table)
    seat = snap["turn"]
    for action in ({"type": "take", "index": 0, "seat": 1 - seat},
                   {"type": "take", "index": 0, "seat": seat},
                   {"type": "pass", "seat": seat}):  # fmt: skip
        refused = raw("act", table=table, seat=seat, token=tokens[seat], version=0,
                      action=action)  # fmt: skip
        assert (refused["code"], refused["rule"]) == ("bad_action", "bad_action"), action
    assert raw("sync", table=table)["version"] == 0


# -- point 7: nobody knows the secrets by choosing the seed ---------------------------------


def test_a_seed_is_chosen_only_where_no_other_seat_can_lose_by_it(tmp_path: Path) -> None:
    with running_host(tmp_path, client_seeds=False) as host:
        raw = Raw(host.endpoint)
        # A twin of a table others will sit at: refused, whatever the game.
        for game, config in (("sagrada", {"players": 2}), ("sagani", {"players": 3}),
                             ("sugi", {"players": 3})):  # fmt: skip
            refused = raw("create", game=game, config=config, seed=7, bots=[1])
            assert refused["code"] == "bad_field" and "seed" in refused["message"], game
        assert not host.tables
        # Left out, the host draws it: two tables do not share a deal.
        drawn = [raw("create", game="sagrada", config={"players": 2})["table"] for _ in range(2)]
        assert host.tables[drawn[0]].seed != host.tables[drawn[1]].seed
        # A solo table and a table of bots only keep the seed they were given.
        solo = raw("create", game="sagrada", config={"players": 1}, seed=7)["table"]
        bots = raw("create", game="sugi", config={"players": 3}, seed=8, bots=[0, 1, 2])["table"]
        assert (host.tables[solo].seed, host.tables[bots].seed) == (7, 8)
        raw.close()


# -- point 9: seats cannot be squatted ------------------------------------------------------


def test_a_seat_kept_for_a_bot_takes_bots_only(raw: Raw) -> None:
    table = raw("create", game="sagani", config={"players": 2}, bots=[1])["table"]
    squat = raw("join", table=table, seat=1, name="squatter")
    assert squat["code"] == "bot_seat"
    watch = raw("join", table=table, seat=1, role="spectator")
    assert watch["code"] == "bad_field"  # a spectator takes no seat at all
    bot = raw("join", table=table, seat=1, role="bot", name="greedy")
    assert (bot["type"], bot["seat"]) == ("joined", 1)
    # The player seat is still free for a person, by number or not.
    assert raw("join", table=table, name="ann")["seat"] == 0
