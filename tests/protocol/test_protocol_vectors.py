"""Golden vectors: msgpack frames in ``protocol/vectors/`` beside their meaning, both ways.

``python tests/protocol/test_protocol_vectors.py --write`` records the example session of
PROTOCOL.md from a real host and rewrites the vectors (tokens, table id and ports made fixed).
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "protocol" / "vectors"
for _path in (ROOT, ROOT / "tests"):  # when run as a script: the checkout and the shared kits
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from sagani_net.protocol import ERROR_CODES, REQUESTS, check_request, decode_message, encode  # noqa: E402

REPLY_TYPES = {"welcome", "tables", "created", "joined", "snapshot", "accepted", "left",
               "record", "private", "static", "history", "legal", "here", "stand_in",
               "error"}
BROADCAST_TYPES = {"update", "heartbeat"}


def load_vectors() -> list[tuple[str, dict[str, Any], bytes]]:
    return [
        (path.stem, json.loads(path.read_text()), path.with_suffix(".msgpack").read_bytes())
        for path in sorted(VECTORS.glob("*.json"))
    ]


VECTOR_CASES = load_vectors()


@pytest.mark.parametrize(
    ("name", "meaning", "frame"), VECTOR_CASES, ids=[v[0] for v in VECTOR_CASES]
)
def test_vector_encodes_to_its_bytes_and_decodes_to_its_meaning(
    name: str, meaning: dict[str, Any], frame: bytes
) -> None:
    assert encode(meaning["message"]) == frame
    assert decode_message(frame) == meaning["message"]
    assert bytes.fromhex(meaning["hex"]) == frame


def test_vectors_cover_every_message_type() -> None:
    kinds: dict[str, set[str]] = {"request": set(), "reply": set(), "broadcast": set()}
    for _, meaning, _ in VECTOR_CASES:
        if "type" in meaning["message"]:
            kinds[meaning["direction"]].add(meaning["message"]["type"])
    assert kinds == {"request": set(REQUESTS), "reply": REPLY_TYPES, "broadcast": BROADCAST_TYPES}


def test_a_broadcast_vector_names_its_topic_frame() -> None:
    # A broadcast is two frames, [topic, body] (PROTOCOL.md, section 1): the vectors give both.
    broadcasts = [m for _, m, _ in VECTOR_CASES if m["direction"] == "broadcast"]
    assert broadcasts
    for meaning in broadcasts:
        assert meaning["topic"] == f"table.{meaning['message']['table']}."


def test_the_example_session_tells_each_updates_private_list_as_the_vector_has_it() -> None:
    """PROTOCOL.md said 31-update-sugi-broadcast "names both seats in `private`" after the host
    came to name only the seats whose data changed: its vector says `[0]`, and a bot author
    reading the page and the vector could not tell which to believe."""
    spec = " ".join((ROOT / "protocol" / "PROTOCOL.md").read_text().split())
    session = spec[spec.index("## 10. Example session"):spec.index("## 11.")]
    told = 0
    for name, meaning, _ in VECTOR_CASES:
        message = meaning["message"]
        if message.get("type") != "update":
            continue
        # What the session says of it: up to the next vector it names.
        rest = session[session.index(f"`{name}`") + len(name) + 2:]
        said = rest[:min([i for other, _, _ in VECTOR_CASES
                          if other != name and (i := rest.find(f"`{other}`")) >= 0]
                         + [len(rest)])]
        if "private" not in said:
            continue
        told += 1
        listed = message["private"]
        shown = "an empty list" if not listed else f"`{json.dumps(listed)}`"
        assert f"`private` {shown}" in said, (name, said, listed)
    assert told >= 3


def test_request_vectors_are_valid_and_error_vectors_use_known_codes() -> None:
    for name, meaning, _ in VECTOR_CASES:
        message = meaning["message"]
        if meaning["direction"] == "request" and not meaning.get("refused"):
            check_request(message)
        if message.get("type") == "error":
            assert message["code"] in ERROR_CODES, name


# -- writing the vectors ------------------------------------------------------------------


def write_vectors() -> None:
    import zmq
    from test_net_support import Raw, choose, running_host, until

    from sagani_net.protocol import VERSION, topic

    frames: list[tuple[str, str, dict[str, Any], str]] = []
    #: The topic frame of each broadcast vector, by its label (a broadcast is [topic, body]).
    topics: dict[str, bytes] = {}
    with tempfile.TemporaryDirectory() as tmp, running_host(Path(tmp), heartbeat_s=0.3) as host:
        raw = Raw(host.endpoint)
        sub = zmq.Context.instance().socket(zmq.SUB)
        sub.linger = 0
        sub.connect(host.pub_endpoint)

        def ask(label: str, note: str, kind: str, **fields: Any) -> dict[str, Any]:
            message = {"v": VERSION, "type": kind, "id": raw.next_id + 1, **fields}
            frames.append((label, "request", message, note))
            answer = raw(kind, **fields)
            frames.append((label.replace("request", "reply"), "reply", answer, note))
            return answer

        def heard(label: str, note: str, kind: str, seq: int, on: str | None = None) -> None:
            while True:
                heard_topic, body = sub.recv_multipart()
                message = decode_message(body)
                if (message["type"] == kind and message["seq"] == seq
                        and message["table"] == (on or table)):
                    frames.append((label, "broadcast", message, note))
                    topics[label] = heard_topic
                    return

        ask("01-hello-request", "say hello; learn where to subscribe", "hello", client="doc")
        table = ask("02-create-request", "create a 2-player table, seat 1 for a bot", "create",
                    game="sagani", config={"players": 2}, seed=2026, bots=[1])["table"]
        sub.subscribe(topic(table))
        a = ask("03-join-request", "take a seat as a player", "join", table=table, name="ann")
        b = ask("04-join-bot-request", "a bot takes the bot seat", "join", table=table,
                role="bot", name="greedy")
        heard("05-update-broadcast", "the seat taken and the game started", "update", 2)
        tokens = [a["token"], b["token"]]
        snap = ask("06-sync-request", "a snapshot for seat 0", "sync", table=table,
                   token=tokens[0])
        action = choose(snap["view"], random.Random(1))
        ask("07-act-request", "seat 0 takes a tile", "act", table=table, seat=0,
            token=tokens[0], version=0, action=action)
        heard("08-update-broadcast", "everyone hears the action", "update", 3)
        ask("09-act-stale-request", "a retry made on version 0 with a new id: refused", "act",
            table=table, seat=0, token=tokens[0], version=0, action=action)
        heard("10-heartbeat-broadcast", "the table is idle", "heartbeat", 3)
        frames.append(("11-bad-version-request", "request", {"v": 2, "type": "hello", "id": 99},
                       "a version this host does not speak"))
        raw.next_id = 99
        frames.append(("11-bad-version-reply", "reply", raw.send_bytes(encode(frames[-1][2])),
                       "a version this host does not speak"))
        ask("12-tables-request", "list the tables", "tables")
        ask("13-record-request", "the record is secret until the game is over", "record",
            table=table)
        rng = random.Random(2)
        while (snap := raw("sync", table=table))["status"] != "over":
            raw("act", table=table, seat=snap["turn"], token=tokens[snap["turn"]],
                version=snap["version"], action=choose(snap["view"], rng))
        ask("14-record-request", "the record of the finished game", "record", table=table)
        ask("15-leave-request", "the bot leaves its seat", "leave", table=table, token=tokens[1])
        ask("16-private-request", "seat 0's private data (Sagani gives a seat none: nil)",
            "private", table=table, token=tokens[0])
        ask("17-static-request", "the static data of the table's game (Sagani's 72 tiles)",
            "static", table=table)
        no_type = {"v": VERSION, "id": 18}
        frames.append(("18-no-type-request", "request", no_type, "a request without a type"))
        raw.next_id = 18
        frames.append(("18-no-type-reply", "reply", raw.send_bytes(encode(no_type)),
                       "a request without a type"))
        ask("19-static-sugi-request", "another game's static data, by name, without a table "
            "(Sugi's tiles, cards and family trees)", "static", game="sugi")
        solo = ask("20-create-sagrada-request", "a solo Sagrada table", "create",
                   game="sagrada", config={"players": 1}, seed=7)["table"]
        mine = raw("join", table=solo, name="ann")["token"]  # not recorded: a join as in 03
        ask("21-private-sagrada-request", "the solo seat's Sagrada private data: two private "
            "objectives, the four patterns dealt, none chosen yet", "private", table=solo,
            token=mine)
        end = raw("sync", table=table)["version"]
        ask("22-history-request", "the events of the game's last three moves", "history",
            table=table, since=end - 3)
        # Sagrada's and Sugi's frames: the host's list of legal actions, an action taken from
        # it, its update, a refusal with the game's own rule, private data.
        ask("23-legal-sagrada-request", "the solo seat's legal actions: the four pattern "
            "choices", "legal", table=solo, token=mine, version=0)
        sub.subscribe(topic(solo))
        chosen = ask("24-act-sagrada-request", "the solo seat chooses its first pattern", "act",
                     table=solo, seat=0, token=mine, version=0,
                     action={"type": "choose", "pattern": 0})
        heard("25-update-sagrada-broadcast", "the choice, the patterns revealed, the first "
              "round's pool; the seat's private data changed", "update", chosen["seq"],
              solo)
        ask("26-act-sagrada-illegal-request", "a first die off the window's edge: refused with "
            "the rule", "act", table=solo, seat=0, token=mine, version=1,
            action={"type": "draft", "die": 0, "cell": [1, 1]})
        sugi = ask("27-create-sugi-request", "a 2-player Sugi table", "create", game="sugi",
                   config={"players": 2}, seed=11)["table"]
        sub.subscribe(topic(sugi))
        hands = [raw("join", table=sugi, name=name)["token"] for name in ("ann", "bob")]
        start = raw("sync", table=sugi)
        first, second = hands[start["turn"]], hands[1 - start["turn"]]
        ask("28-legal-sugi-request", "the first page of the legal actions of the seat to "
            "plan first", "legal", table=sugi, token=first, version=0, page=0)
        ask("29-legal-sugi-wait-request", "the other seat asks: not its turn", "legal",
            table=sugi, token=second)
        hand = raw("private", table=sugi, token=first)["private"]["hand"]
        placed = ask("30-act-sugi-request", "the seat puts its lowest card in the timeline, "
                     "turned 90", "act", table=sugi, seat=start["turn"], token=first, version=0,
                     action={"type": "timeline", "card": hand[0], "rotation": 90})
        heard("31-update-sugi-broadcast", "everyone hears a card was placed; the seat that "
              "placed it fetches its private data", "update", placed["seq"], sugi)
        ask("32-private-sugi-request", "the seat's new private data: its hand, family tree and "
            "face-down timeline card", "private", table=sugi, token=first)
        other_hand = raw("private", table=sugi, token=second)["private"]["hand"]
        ask("33-act-sugi-illegal-request", "a card the seat does not hold: refused with the "
            "rule", "act", table=sugi, seat=1 - start["turn"], token=second, version=1,
            action={"type": "timeline", "card": next(c for c in range(50)
                                                     if c not in other_hand),
                    "rotation": 0})
        duo = raw("create", game="sagani", config={"players": 2}, seed=8)["table"]
        present = raw("join", table=duo, name="ann")["token"]
        raw("join", table=duo, name="bob")  # and bob says nothing more: away, soon
        until(lambda: raw("here", table=duo, token=present)["away"])
        raw.next_id = 60  # however many polls that took, the vectors' ids stay the same
        ask("34-here-request", "ann's console says she is there; bob said nothing for 3 "
            "presence periods: away", "here", table=duo, token=present)
        ask("35-stand-in-request", "ann asks the host to play bob's seat until he is back",
            "stand_in", table=duo, token=present, seat=1)
        # The largest id a client may choose: the reply echoes it as a uint64, which no
        # other frame holds (the host's own seeds are 63-bit too, once a game is over).
        raw.next_id = 2**63 - 2
        ask("36-history-largest-id-request", "the largest id (2^63-1), echoed as a msgpack "
            "uint64; no moves after the game's last", "history", table=table, since=end)
        # A score below -128, an int16 (common in play: a cacophony disc costs 2 points): the
        # last move of a basic solo Sagani game played at random.
        raw.next_id = 100  # after the largest id, the unrecorded requests count from here
        alone = raw("create", game="sagani", config={"players": 1}, seed=5)["table"]
        lone = raw("join", table=alone, name="ann")["token"]
        rng = random.Random(3)
        while (snap := raw.patient("sync", table=alone))["status"] != "over":
            raw.patient("act", table=alone, seat=0, token=lone, version=snap["version"],
                        action=choose(snap["view"], rng))
        raw.next_id = 999  # however many moves the game took
        ask("37-history-solo-request", "the last move of a solo Sagani game played at random: "
            "negative scores below -128 (msgpack int16)", "history", table=alone,
            since=snap["version"] - 1)
        raw.close()
        sub.close()
        pub = host.pub_endpoint
    # Random parts made fixed, so the vectors read like the spec's example session.
    fixed = {
        tokens[0]: "Jq3v0lGmUK2bRpt5yXo8i4aMWcN7eHsD",
        tokens[1]: "8Zb1dTqfL0rVxCk3mYs9uPw2EaNj6HgR",
        table: "5a6e7f01",
        mine: "Wc5kR2xPq8nT0bYv4sLm7jHa1dFg9eZu",
        solo: "5a6e7f02",
        sugi: "5a6e7f03",
        hands[0]: "Tn4eB7yKq1sXw9dLm2cVr5hJa8gPz0uF",
        hands[1]: "Gd6wM3pZs0kQx8vNb1tYe4jRc7hLa2fU",
        duo: "5a6e7f04",
        alone: "5a6e7f05",
        present: "Qm8sV3nKd1rB6tXw0pLc5yHe9aJf2gUz",
        pub: "tcp://127.0.0.1:47411",
    }
    for old in VECTORS.glob("*.*"):
        old.unlink()
    VECTORS.mkdir(exist_ok=True)
    for name, direction, message, note in frames:
        text = json.dumps(message)
        for old_text, new_text in fixed.items():
            text = text.replace(old_text, new_text)
        message = json.loads(text)
        if message.get("type") == "welcome":
            message["pub_port"] = 47411
        frame = encode(message)
        meaning = {"direction": direction, "note": note, "message": message, "hex": frame.hex()}
        if name in topics:
            meaning["topic"] = topics[name].decode()
            for old_text, new_text in fixed.items():
                meaning["topic"] = meaning["topic"].replace(old_text, new_text)
        if direction == "request" and name.startswith(("11-", "18-")):
            meaning["refused"] = True
        # One key per line, the message itself on one line: small files, readable diffs.
        lines = ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in meaning.items())
        (VECTORS / f"{name}.json").write_text("{\n" + lines + "\n}\n")
        (VECTORS / f"{name}.msgpack").write_bytes(frame)


if __name__ == "__main__" and "--write" in sys.argv:
    write_vectors()
