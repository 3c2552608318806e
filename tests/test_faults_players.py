"""Hostile players and creators on 127.0.0.1 (issue 18, points 5-9, 12 and 13; issue 20,
point 3): what a seated player, a table's creator or a name can do to the others, on a real
host with real sockets.

Each attack is bounded: a few hundred requests at most, a few seconds of the host's time.
"""

from __future__ import annotations

from test_net_support import Raw


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
