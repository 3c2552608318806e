"""Bots written from protocol/games/*.md alone play whole games through a real host.

Each bot here reads only what a client in another language has: the view, its private data and
the static data, over a bare REQ socket. It imports nothing of the engines, so every action it
computes from a page's rules (Sagrada's placement rules 1-4, Sugi's sides, ghost and pushes) and
the host accepts shows that the page says enough to play legally.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_net_support import Raw, running_host

Data = dict[str, Any]
Bot = Callable[[Data, Data, Data, random.Random], Data]

# -- Sagrada (protocol/games/sagrada.md) --------------------------------------------------------


def sagrada_action(view: Data, private: Data, static: Data, rng: random.Random) -> Data:
    """Choose a random pattern; then draft a random die into a cell that obeys placement rules
    1-4, or pass."""
    if view["phase"] == "choose":
        return {"type": "choose", "pattern": rng.randrange(len(private["patterns"]))}
    me = view["turn"]
    if view["step"] is not None or view["drafted"]:
        return {"type": "pass"}
    grid = static["patterns"][view["seats"][me]["pattern"]]["grid"]
    rows, columns = static["rows"], static["columns"]
    window = view["seats"][me]["window"]

    def at(r: int, c: int) -> str:
        return window[r * columns + c] if 0 <= r < rows and 0 <= c < columns else ""

    first = not any(window)
    drafts = []
    for i, die in enumerate(view["pool"]):
        for r in range(rows):
            for c in range(columns):
                near = [at(r + dr, c + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)]
                orthogonal = [at(r - 1, c), at(r + 1, c), at(r, c - 1), at(r, c + 1)]
                if (at(r, c)
                        or (first and r not in (0, rows - 1) and c not in (0, columns - 1))
                        or (not first and not any(near))
                        or grid[r][c] not in ("", die[0], die[1])
                        or any(d and (d[0] == die[0] or d[1] == die[1]) for d in orthogonal)):
                    continue
                drafts.append({"type": "draft", "die": i, "cell": [r, c]})
    return rng.choice(drafts) if drafts else {"type": "pass"}


# -- Sugi (protocol/games/sugi.md) ----------------------------------------------------------------

DIRECTIONS = "NESW"
STEP = {"N": (1, 0), "E": (0, 1), "S": (-1, 0), "W": (0, -1)}  # [column, lane]


def open_sides(view: Data, static: Data, column: int, lane: int) -> str:
    """The sides of a space known to be open: a face-down tile counts as open."""
    for c, lane_, tile, rotation in view["forest"]:
        if (c, lane_) == (column, lane) and tile is not None:
            return "".join(DIRECTIONS[(DIRECTIONS.index(d) + rotation // 90) % 4]
                           for d in static["tiles"][tile]["open"])
    return DIRECTIONS  # the Start, the Temple, a face-down tile


def step(view: Data, static: Data, space: tuple[int, int], d: str) -> tuple[int, int] | None:
    """The space one step towards ``d``, if it is on the board and no known side blocks it."""
    to = (space[0] + STEP[d][0], space[1] + STEP[d][1])
    if not (0 <= to[0] < static["columns"] and 0 <= to[1] < static["lanes"]):
        return None
    back = DIRECTIONS[(DIRECTIONS.index(d) + 2) % 4]
    if d in open_sides(view, static, *space) and back in open_sides(view, static, *to):
        return to
    return None


def ghost_targets(view: Data, static: Data) -> list[list[int]]:
    """Straight on from the ghost, never onto the Temple, stopping at the first samurai."""
    temple = static["columns"] - 1
    if view["ghost"] is None:
        starts = [((temple, lane), "S") for lane in range(static["lanes"])]
    else:
        starts = [(tuple(view["ghost"]), d) for d in DIRECTIONS]
    samurai = {tuple(s) for s in view["samurai"] if s is not None}
    targets = []
    for at, d in starts:
        while (to := step(view, static, at, d)) is not None and to[0] != temple:
            targets.append(list(to))
            if to in samurai:
                break
            at = to
    return targets


def sugi_action(view: Data, private: Data, static: Data, rng: random.Random) -> Data:
    """Discard at random in maintenance; push aside from the ghost's line; in planning, send
    the ghost half the time when a ghost card can, else put a random card in the timeline."""
    if view["phase"] == "maintenance":
        return {"type": "discard", "cards": [c for c in private["hand"] if rng.random() < 0.3]}
    if view["phase"] == "push":
        push = view["push"]
        at = tuple(view["samurai"][static["colours"].index(push["samurai"])])
        aside = "EW" if push["ghost_direction"] in "NS" else "NS"
        return {"type": "push", "direction": rng.choice(
            [d for d in aside if step(view, static, at, d) is not None])}
    ghosts = [c for c in private["hand"] if static["cards"][c]["action"] == "ghost"]
    targets = ghost_targets(view, static)
    if ghosts and targets and rng.random() < 0.5:
        return {"type": "ghost", "card": ghosts[0], "space": rng.choice(targets)}
    return {"type": "timeline", "card": rng.choice(private["hand"]),
            "rotation": rng.choice((0, 90, 180, 270))}


# -- playing through a host ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "config", "bot"),
    [("sagrada", {"players": 3}, sagrada_action), ("sagrada", {"players": 1}, sagrada_action),
     ("sugi", {"players": 3}, sugi_action)],
    ids=["sagrada-3", "sagrada-solo", "sugi-3"],
)
def test_a_bot_written_from_the_page_plays_a_whole_game_with_every_action_accepted(
    tmp_path: Path, game: str, config: Data, bot: Bot
) -> None:
    with running_host(tmp_path) as host:
        raw = Raw(host.endpoint)
        try:
            table = raw.patient("create", game=game, config=config, seed=3)["table"]
            static = raw.patient("static", table=table)["static"]
            tokens = [raw.patient("join", table=table)["token"] for _ in range(config["players"])]
            rng = random.Random(3)
            kinds = set()
            turn = raw.patient("sync", table=table)["turn"]
            while turn is not None:
                snap = raw.patient("sync", table=table, token=tokens[turn])
                action = bot(snap["view"], snap["private"], static, rng)
                reply = raw.patient("act", table=table, seat=turn, token=tokens[turn],
                            version=snap["version"], action=action)
                assert reply["type"] == "accepted", (action, reply)
                kinds.add(action["type"])
                turn = reply["turn"]
            assert raw.patient("sync", table=table)["status"] == "over"
            assert "result" in raw.patient("record", table=table)["record"]
        finally:
            raw.close()
    # The page's harder parts were really used: placements, and the ghost with its pushes.
    assert {"sagrada": {"choose", "draft"}, "sugi": {"ghost", "push"}}[game] <= kinds, kinds
