"""Hostile configs on 127.0.0.1 (issue 18, points 2-4): what a peer's table options can make
the host spend, keep or send, on a real host with real sockets.

Sagrada's custom window patterns are the config a client fills: each must be checked (can dice
complete it?), kept, and shown. The host serves on a thread of the test's process, so that
the tests can count the work it does (how many patterns it read, how many completion
searches it ran): counts, not clocks, which a loaded machine cannot flake. The latency figures
come from bench/patterns.py.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

import pytest
import zmq
from test_net_support import WAIT_S, Raw, running_host

from sagani_net import host as host_module
from sagani_net import tables as tables_module
from sagani_net.client import Client
from sagani_net.games.sagrada import patterns, rules
from sagani_net.games.sagrada.patterns import MAX_PATTERNS
from sagani_net.host import Limits
from sagani_net.limits import MAX_REPLY_BYTES, RATE_BURST, REQUEST_COST_S
from sagani_net.protocol import VERSION, decode_message, encode
from sagani_net.store import Store, TableRow

#: The grid of issue 18's attack: a backtracking completion search took about a second on it,
#: and renaming the pattern defeated the cache of checked lists.
COSTLY = [["", "", "", "", ""], ["R", "1", "Y", "", "R"], ["", "Y", "2", "R", ""],
          ["", "", "Y", "3", "1"]]
#: A rate no test here reaches: these tests count work, not requests.
UNLIMITED = Limits(rate_per_s=1e6, rate_burst=10**6, tables_per_address=1000)


def own(count: int, tag: str, long: bool = False) -> list[dict[str, Any]]:
    """``count`` patterns of the costly grid, each named anew (``tag`` makes the list new);
    ``long``: names of the longest length, 40 characters."""
    return [{"name": f"{tag} {i}".ljust(40 if long else 0, "x"), "difficulty": 4,
             "grid": COSTLY} for i in range(count)]


def custom(count: int, tag: str, players: int = 2, long: bool = False) -> dict[str, Any]:
    return {"players": players, "pattern_set": "custom", "patterns": own(count, tag, long)}


class Work:
    """Counts what the host's pattern check does: patterns read, completion searches run."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.read = 0
        self.searches = 0
        problems, completion = patterns._problems, patterns.completion

        def counted_problems(n: int, item: Any) -> list[str]:
            self.read += 1
            return problems(n, item)

        def counted_completion(cells: Any) -> Any:
            self.searches += 1
            return completion(cells)

        monkeypatch.setattr(patterns, "_problems", counted_problems)
        monkeypatch.setattr(patterns, "completion", counted_completion)
        # What earlier tests checked must be checked again here.
        monkeypatch.setattr(rules, "_CHECKED", type(rules._CHECKED)(max_entries=64))
        monkeypatch.setattr(rules, "_PATTERN_SETS", type(rules._PATTERN_SETS)(max_entries=32))


def dealer(endpoint: str) -> zmq.Socket:
    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.linger, sock.rcvtimeo = 0, int(WAIT_S * 1000)
    sock.connect(endpoint)
    return sock


def body(kind: str, msg_id: int, **fields: Any) -> bytes:
    return encode({"v": VERSION, "type": kind, "id": msg_id, **fields})


# -- point 2: one request's work is bounded ----------------------------------------------------


def test_costly_pattern_configs_are_refused_cheaply_while_an_honest_player_plays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 18's frames, pipelined round after round with new names: the 261-byte `static`
    (3 copies of the costly grid; 2 players need 8), a frame of 600 copies, a `create` of one
    pattern over the limit, and a whole list of 48 that is good. Before: about a second of
    search per pattern read, all 600 read. Now no search runs, a list over the limit is
    refused before any pattern of it is read, and the honest player is answered every round."""
    work = Work(monkeypatch)
    with running_host(tmp_path, limits=UNLIMITED) as host:
        honest = Raw(host.endpoint)
        table = honest("create", game="sagrada", config={"players": 2})["table"]
        honest("join", table=table)
        attacker = dealer(host.endpoint)
        small = len(body("static", 1, game="sagrada", config=custom(3, "r0")))
        read_at_most = 0
        for rnd in range(12):
            frames = [
                body("static", 1, game="sagrada", config=custom(3, f"a{rnd}")),
                body("static", 2, game="sagrada", config=custom(600, f"b{rnd}")),
                body("create", 3, game="sagrada", config=custom(MAX_PATTERNS + 1, f"c{rnd}")),
                body("static", 4, game="sagrada", config=custom(MAX_PATTERNS, f"d{rnd}", 4)),
            ]
            for frame in frames:
                attacker.send_multipart([b"", frame])
            # Each good-shaped list is read twice: as sent, and as the normalized config.
            read_at_most += 2 * (3 + MAX_PATTERNS)
            assert honest("sync", table=table)["type"] == "snapshot"
            replies = {m["id"]: m for m in
                       (decode_message(attacker.recv_multipart()[-1]) for _ in frames)}
            assert replies[1]["code"] == "bad_config"
            assert "2 players need 8 patterns to deal, not 3" in replies[1]["message"]
            for refused in (replies[2], replies[3]):
                assert refused["code"] == "bad_config"
                assert f"a table takes at most {MAX_PATTERNS} patterns" in refused["message"]
            assert replies[4]["type"] == "static"
            assert len(replies[4]["static"]["patterns"]) == MAX_PATTERNS
        attacker.close()
        honest.close()
    assert small < 300  # the frame: 261 bytes with its own names
    assert work.searches == 0
    assert 0 < work.read <= read_at_most  # 600-pattern and over-limit lists: none read


def test_a_request_that_takes_the_hosts_time_costs_its_peer_its_rate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A request that keeps the host busy is charged a token per REQUEST_COST_S of the host's
    processor time: a second of it is 1,000 requests, more than a burst, so the peer waits
    while the others are served. (Here a config check made slow on purpose stands for any
    costly request there may still be.)"""
    real = tables_module._game_config

    def slow_config(name: str, data: dict[str, Any]) -> Any:
        if data.get("slow"):
            started_s = time.thread_time()
            while time.thread_time() - started_s < 1.0:
                pass
            data = {}
        return real(name, data)

    monkeypatch.setattr(tables_module, "_game_config", slow_config)
    assert 1.0 / REQUEST_COST_S > RATE_BURST
    with running_host(tmp_path) as host:
        costly, other = Raw(host.endpoint), Raw(host.endpoint)
        assert costly("static", game="sagrada", config={})["type"] == "static"
        assert costly("static", game="sagrada", config={"slow": True})["type"] == "static"
        assert costly("hello")["code"] == "rate_limited"
        assert other("hello")["type"] == "welcome"
        assert other("static", game="sagrada", config={})["type"] == "static"
        costly.close()
        other.close()


# -- point 3: caches keyed by client data are bounded --------------------------------------------


def test_distinct_pattern_lists_do_not_grow_the_host(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 18: 40 `static` requests with new long lists added 36 MiB that never came back.
    Now the pattern caches keep their most recent entries only, whatever the requests."""
    Work(monkeypatch)
    with running_host(tmp_path, limits=UNLIMITED) as host:
        peer = dealer(host.endpoint)
        for batch in range(3):
            for i in range(40):
                config = custom(MAX_PATTERNS, f"n{batch}-{i}", players=4)
                peer.send_multipart([b"", body("static", i, game="sagrada", config=config)])
            got = [decode_message(peer.recv_multipart()[-1]) for _ in range(40)]
            assert all(m["type"] == "static" for m in got)
        peer.close()
    print(f"after 120 distinct lists: {len(rules._CHECKED)} checked lists, "
          f"{len(rules._PATTERN_SETS)} pattern sets kept")
    assert len(rules._CHECKED) == rules._CHECKED.max_entries
    assert len(rules._PATTERN_SETS) == rules._PATTERN_SETS.max_entries


def test_remembered_create_replies_are_bounded_in_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The replies kept for retries (by nonce) hold configs and snapshots: they are bounded by
    their bytes, not only by their number; the newest retry is still answered from memory."""
    monkeypatch.setattr(host_module, "RECENT_BYTES", 64 * 1024)
    with running_host(tmp_path, limits=UNLIMITED) as host:
        raw = Raw(host.endpoint)
        sizes = []
        for i in range(40):
            request = {"game": "sagrada", "config": custom(MAX_PATTERNS, f"r{i}", 4, long=True),
                       "nonce": f"nonce-{i:04d}-0123456789"}
            created = raw("create", **request)
            sizes.append(len(encode(created)))
        again = raw("create", **request)
        recent = host._recent
        raw.close()
    assert again["table"] == created["table"]
    assert sum(sizes) > 2 * 64 * 1024  # more than the bound was asked for
    assert recent.weight <= 64 * 1024 and len(recent) < 40


# -- point 4: the lobby answers whatever the configs hold ------------------------------------


def test_the_listing_sums_up_big_configs_and_answers_with_a_full_table_cap(
    tmp_path: Path,
) -> None:
    """Issue 18: 28-30 tables of 560 custom patterns pushed `tables` past 1 MiB, and every
    listing failed for 15 minutes. Here 250 tables (one address's cap) of 48 long-named
    patterns, 1.2 MB of patterns in all: `tables` lists each table's patterns as their count
    and digest, and the full config stays in `created`, snapshots and `static`."""
    with running_host(tmp_path, limits=UNLIMITED) as host:
        peer = dealer(host.endpoint)
        configs = [custom(MAX_PATTERNS, f"t{i}", players=4, long=True) for i in range(250)]
        for i, config in enumerate(configs):
            peer.send_multipart([b"", body("create", i, game="sagrada", config=config)])
        created = [decode_message(peer.recv_multipart()[-1]) for _ in configs]
        peer.close()
        assert all(c["type"] == "created" for c in created)
        raw = Raw(host.endpoint)
        raw.sock.send(body("tables", 1))
        listing_bytes = raw.sock.recv()
        listing = decode_message(listing_bytes)
        snapshot = raw("join", table=created[0]["table"], role="spectator")["snapshot"]
        raw.close()
    full = sum(len(encode(c["config"])) for c in created)
    print(f"tables: {len(listing_bytes)} bytes for 250 tables holding {full} bytes of configs")
    assert full > 1.1 * MAX_REPLY_BYTES
    assert listing["type"] == "tables" and len(listing["tables"]) == 250
    assert len(listing_bytes) < full / 10
    by_id = {t["table"]: t for t in listing["tables"]}
    for c in created:
        listed = by_id[c["table"]]["config"]
        text = json.dumps(c["config"]["patterns"], sort_keys=True, separators=(",", ":"),
                          ensure_ascii=False)
        assert listed == {**c["config"], "patterns": {
            "count": MAX_PATTERNS, "digest": hashlib.sha256(text.encode()).hexdigest()[:16]}}
    assert snapshot["config"] == created[0]["config"]


def test_a_listing_too_long_for_one_reply_comes_in_pages(tmp_path: Path) -> None:
    """Long names fill a listing too (64 characters of 4 bytes each, on every seat): past
    Limits.tables_page_bytes the rest comes in further pages, each table on exactly one, and
    the client library reads them all."""
    page_bytes = 4096
    with running_host(tmp_path, limits=Limits(tables_page_bytes=page_bytes)) as host:
        raw = Raw(host.endpoint)
        made = []
        for i in range(24):
            made.append(raw("create", game="sugi", config={"players": 5})["table"])
            for seat in range(i % 3):
                raw("join", table=made[-1], name="\U0001d11e" * 63 + str(seat))
        pages, after = [], None
        while True:
            raw.sock.send(body("tables", 1, **({} if after is None else {"after": after})))
            frame = raw.sock.recv()
            page = decode_message(frame)
            assert page["type"] == "tables" and page["tables"], page
            assert len(frame) < page_bytes + 2048  # the budget, and one table over it
            pages.append([t["table"] for t in page["tables"]])
            after = page["next"]
            if after is None:
                break
        for after in ("x y", "nan", "inf", "-inf 1"):
            assert raw("tables", after=after)["code"] == "bad_field", after
        raw.close()
        client = Client(host.endpoint)
        every = [t["table"] for t in client.tables()]
        client.close()
    assert len(pages) >= 3
    assert [table for page in pages for table in page] == made  # oldest first, each once
    assert every == made


def test_a_stored_table_of_more_patterns_than_the_limit_still_resumes(tmp_path: Path) -> None:
    """A table accepted before the limit (60 patterns) is in the data dir: the host starts,
    and the table plays on; only new configs are held to MAX_PATTERNS."""
    config = custom(60, "old", players=2)
    store = Store(tmp_path)
    store.add_table(TableRow("01d7ab1e", "sagrada", {**config, "difficulty": 3}, 7, [], "open",
                             0, time.time()))
    store.commit()
    store.close()
    with running_host(tmp_path) as host:
        raw = Raw(host.endpoint)
        joined = raw("join", table="01d7ab1e")
        assert joined["type"] == "joined", joined
        listed = raw("tables")["tables"][0]["config"]["patterns"]
        refused = raw("create", game="sagrada", config=config)
        raw.close()
    assert listed["count"] == 60
    assert refused["code"] == "bad_config"
