"""The ``legal`` request (PROTOCOL.md, section 4): the host tells the seat to move its legal
actions in wire form, a bounded page at a time, so that a bot needs no rules code. Real hosts on
127.0.0.1, raw protocol frames."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from test_net_support import Raw, running_host

from sagani_net.host import LEGAL_PAGE_ACTIONS, Limits
from sagani_net.limits import REPLY_COST_BYTES
from sagani_net.protocol import ProtocolError, check_request, encode

SPEC = (Path(__file__).parents[2] / "protocol" / "PROTOCOL.md").read_text()
SAGANI_PAGE = (Path(__file__).parents[2] / "protocol" / "games" / "sagani.md").read_text()
#: A game of each kind, with the player count that gives the most actions to list.
GAMES = [("sagani", {"players": 2}), ("sagrada", {"players": 4}), ("sugi", {"players": 4})]
#: Whole games with a few requests a move go faster than the default rate allows.
FAST = Limits(rate_per_s=1e6, rate_burst=10**6)


def seated(raw: Raw, game: str, config: dict[str, Any], seed: int = 3) -> tuple[str, list[str]]:
    """A running table of ``game`` with every seat taken by ``raw``: its id and the tokens."""
    created = raw("create", game=game, config=config, seed=seed)
    tokens = [raw("join", table=created["table"])["token"] for _ in range(created["seats"])]
    return created["table"], tokens


def all_pages(raw: Raw, table: str, token: str, version: int) -> list[dict[str, Any]]:
    """Every legal action, page after page, checking each page's bounds on the way."""
    actions: list[dict[str, Any]] = []
    page: int | None = 0
    while page is not None:
        answer = raw("legal", table=table, token=token, version=version, page=page)
        assert answer["type"] == "legal", answer
        assert answer["version"] == version and answer["page"] == page
        assert 1 <= len(answer["actions"]) <= LEGAL_PAGE_ACTIONS
        assert len(encode(answer)) < REPLY_COST_BYTES  # the documented bound: under 8 KiB
        actions += answer["actions"]
        page = answer["next"]
        assert (page is None) == (answer["page"] == answer["pages"] - 1)
    assert len(actions) == answer["count"]
    return actions


@pytest.mark.timeout(300)
@pytest.mark.parametrize(("game", "config"), GAMES, ids=[g for g, _ in GAMES])
def test_a_game_played_from_the_hosts_legal_lists_alone_is_never_refused(
    tmp_path: Path, game: str, config: dict[str, Any]
) -> None:
    rng = random.Random(5)
    with running_host(tmp_path, limits=FAST) as host:
        raw = Raw(host.endpoint)
        table, tokens = seated(raw, game, config)
        paged = False
        while (snap := raw("sync", table=table))["status"] != "over":
            seat, version = snap["turn"], snap["version"]
            actions = all_pages(raw, table, tokens[seat], version)
            state = host.tables[table].state
            assert actions == [state.action_data(a) for a in state.legal_actions()]
            paged = paged or len(actions) > LEGAL_PAGE_ACTIONS
            answer = raw("act", table=table, seat=seat, token=tokens[seat], version=version,
                         action=rng.choice(actions))
            assert answer["type"] == "accepted", answer
        raw.close()
    assert paged  # the game had a decision of more than one page


def test_a_solo_display_laid_in_a_line_lists_as_many_placements_as_the_pages_say(
    tmp_path: Path,
) -> None:
    """The pages said "about 200 at most: 4 pages of 64" for Sagani; a display of n tiles in a
    line has 2n + 2 frontier cells, and a solo game places 72 tiles: a bot that trusted the
    page's count stopped short."""
    with running_host(tmp_path, limits=FAST) as host:
        raw = Raw(host.endpoint)
        table, (token,) = seated(raw, "sagani", {"mode": "solo"})
        most = 0
        while (snap := raw("sync", table=table))["status"] != "over":
            actions = all_pages(raw, table, token, snap["version"])
            most = max(most, len(actions))
            # Reveal, then the cell furthest east: the display grows in a line.
            action = max(actions, key=lambda a: a.get("cell", [0, 0])[0])
            assert raw("act", table=table, seat=0, token=token, version=snap["version"],
                       action=action)["type"] == "accepted"
        raw.close()
    pages = -(-most // LEGAL_PAGE_ACTIONS)
    said = f"up to {most}, {pages} pages"
    assert (most, pages) == (576, 9)
    assert said in " ".join(SPEC.split())
    assert f"up to {most} ({pages} pages of 64" in " ".join(SAGANI_PAGE.split())


def test_refusals_say_why_and_carry_a_snapshot(tmp_path: Path) -> None:
    with running_host(tmp_path) as host:
        raw = Raw(host.endpoint)
        created = raw("create", game="sugi", config={"players": 2}, seed=1)
        table = created["table"]
        first = raw("join", table=table)["token"]
        answer = raw("legal", table=table, token=first)
        assert answer["code"] == "not_started" and answer["snapshot"]["status"] == "open"
        second = raw("join", table=table)["token"]
        watcher = raw("join", table=table, role="spectator")["token"]
        assert raw("legal", table=table, token=watcher)["code"] == "not_a_player"
        assert raw("legal", table=table, token="nobody's")["code"] == "bad_token"
        snap = raw("sync", table=table)
        tokens = {0: first, 1: second}
        mover, waiter = tokens[snap["turn"]], tokens[1 - snap["turn"]]
        answer = raw("legal", table=table, token=waiter)
        assert answer["code"] == "not_your_turn" and answer["snapshot"]["you"] == 1 - snap["turn"]
        for version in (snap["version"] + 1, snap["version"] + 100):  # above the current one
            answer = raw("legal", table=table, token=mover, version=version)
            assert answer["code"] == "stale_version" and answer["snapshot"]["version"] == 0
        pages = raw("legal", table=table, token=mover)["pages"]
        answer = raw("legal", table=table, token=mover, page=pages)
        assert answer["code"] == "bad_field" and f"0..{pages - 1}" in answer["message"]
        raw.close()


def test_a_finished_game_has_no_legal_actions(tmp_path: Path) -> None:
    with running_host(tmp_path, limits=FAST) as host:
        raw = Raw(host.endpoint)
        table, tokens = seated(raw, "sagani", {"mode": "solo"})
        while (snap := raw("sync", table=table))["status"] != "over":
            action = raw("legal", table=table, token=tokens[0])["actions"][0]
            raw("act", table=table, seat=0, token=tokens[0], version=snap["version"],
                action=action)
        answer = raw("legal", table=table, token=tokens[0])
        assert answer["code"] == "game_over" and answer["snapshot"]["status"] == "over"
        raw.close()


def test_the_legal_actions_are_worked_out_once_per_version_whoever_asks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with running_host(tmp_path) as host:
        raw = Raw(host.endpoint)
        table, tokens = seated(raw, "sugi", {"players": 4})
        kind = type(host.tables[table].state)
        calls = []
        listed = kind.legal_actions
        monkeypatch.setattr(kind, "legal_actions", lambda self: calls.append(1) or listed(self))
        seat = raw("sync", table=table)["turn"]
        pages = raw("legal", table=table, token=tokens[seat])["pages"]
        for _ in range(3):
            for page in range(pages):
                assert raw("legal", table=table, token=tokens[seat], page=page)["type"] == "legal"
        assert len(calls) == 1
        raw.close()


@pytest.mark.parametrize(
    ("fields", "code"),
    [({"page": -1}, "bad_field"), ({"version": "3"}, "bad_field"), ({"page": True}, "bad_field"),
     ({"seat": 0}, "extra_field"), ({}, None), ({"version": None, "page": 2}, None)],
)
def test_the_request_is_checked_like_any_other(fields: dict[str, Any], code: str | None) -> None:
    message = {"v": 1, "type": "legal", "id": 1, "table": "t", "token": "k", **fields}
    if code is None:
        checked = check_request(message)
        assert checked["page"] == fields.get("page", 0) and checked["version"] is None
    else:
        with pytest.raises(ProtocolError) as refused:
            check_request(message)
        assert refused.value.code == code


@pytest.mark.parametrize(
    ("game", "config"),
    [*GAMES, ("sagani", {"mode": "solo-advanced"}), ("sagrada", {"players": 1}),
     ("sugi", {"players": 5})],
)
def test_every_action_encodes_in_under_64_bytes_so_a_page_is_under_8_kib(
    game: str, config: dict[str, Any]
) -> None:
    from sagani_net.games import get_game

    engine = get_game(game)
    for seed in range(3):
        state, rng = engine.new_state(engine.parse_config(config), seed), random.Random(seed)
        while not state.is_over():
            actions = state.legal_actions()
            assert all(len(encode(state.action_data(a))) < 64 for a in actions)
            state.apply(rng.choice(actions))
    assert LEGAL_PAGE_ACTIONS * 64 + 1024 < REPLY_COST_BYTES
