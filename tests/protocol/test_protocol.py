"""The codec and the message catalogue, without sockets."""

from __future__ import annotations

import functools
import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sagani_net.game import RuleError
from sagani_net.games import configs, game_names, game_part, get_game
from sagani_net.host import SUBSCRIPTION_BYTES
from sagani_net.limits import MAX_SUBSCRIBER_BYTES
from sagani_net.protocol import (
    ERROR_CODES,
    REQUESTS,
    ProtocolError,
    check_request,
    decode_request,
    encode,
    request_id,
    topic,
    wire,
)

PROTOCOL_DIR = Path(__file__).resolve().parents[2] / "protocol"
SPEC = (PROTOCOL_DIR / "PROTOCOL.md").read_text()


def test_request_round_trips_through_the_codec() -> None:
    action = {"type": "place", "cell": [0, -1], "rotation": 90}
    message = {"v": 1, "type": "act", "id": 4, "table": "t", "seat": 1, "token": "k",
               "version": 3, "action": action}
    assert check_request(decode_request(encode(message))) == message


def test_optional_fields_get_their_defaults() -> None:
    join = check_request({"v": 1, "type": "join", "id": 1, "table": "t"})
    assert (join["role"], join["seat"], join["name"], join["token"]) == ("player", None, None, None)


@pytest.mark.parametrize(("kind", "field"), [("join", "name"), ("hello", "client")])
def test_a_name_is_absent_or_1_to_64_characters(kind: str, field: str) -> None:
    base = {"v": 1, "type": kind, "id": 1, "table": "t"} if kind == "join" else {
        "v": 1, "type": kind, "id": 1}
    assert check_request({**base, field: "é" * 64})[field] == "é" * 64  # characters, not bytes
    for bad in ("", "x" * 65):
        with pytest.raises(ProtocolError, match="bad_field"):
            check_request({**base, field: bad})


def test_the_string_limit_counts_bytes_of_utf8() -> None:
    fits = "é" * (wire.MAX_STR_LEN // 2)  # 2 bytes each: exactly the limit in bytes
    assert decode_request(encode({"v": 1, "pad": fits}))["pad"] == fits
    with pytest.raises(ProtocolError, match="too_big"):
        decode_request(encode({"v": 1, "pad": fits + "é"}))  # far fewer characters than that


@pytest.mark.parametrize(("frame", "code", "message"), [
    (msgpack.packb({"v": 1, "client": b"x"}), "too_big",
     "bin values are not allowed: send text as msgpack str"),
    (msgpack.packb({"v": 1, "client": "x" * 5000}), "too_big",
     "a string of 5000 bytes of UTF-8; the limit is 4096"),
    (msgpack.packb({"v": 1, "pad": [0] * 2000}), "too_big",
     "a list of 2000 elements; the limit is 1024"),
    (msgpack.packb({"v": 1, "pad": {str(i): 0 for i in range(100)}}), "too_big",
     "a map of 100 pairs; the limit is 64"),
    (msgpack.packb({1: 2}), "bad_frame", "every map key must be a string"),
    # A frame that is not a map, named as msgpack does, not as Python's NoneType and list.
    (msgpack.packb(None), "bad_frame", "a frame is one map, not nil"),
    (msgpack.packb([1]), "bad_frame", "a frame is one map, not a list"),
    (msgpack.packb("hello"), "bad_frame", "a frame is one map, not a string"),
    (b"\xc1\x00", "bad_frame", "not msgpack: a byte that begins no msgpack object"),
    (b"\x81\xa1v", "bad_frame", "not msgpack: the frame ends inside an object"),
    # A surrogate written as UTF-8 (as a UTF-16 string converted byte by byte would be), and
    # a broken sequence: not Python's codec words.
    (b"\x81\xa1v\xa3\xed\xa0\x80", "bad_frame",
     "a str that is not UTF-8 (its byte 0 is 0xed); send text as UTF-8"),
    (b"\x81\xa1v\xa2\xc3\x28", "bad_frame",
     "a str that is not UTF-8 (its byte 0 is 0xc3); send text as UTF-8"),
])
def test_an_unreadable_frame_is_told_in_the_protocols_words(frame: bytes, code: str,
                                                              message: str) -> None:
    """The message goes to a client in any language: Python msgpack's own words
    (``max_bin_len(0)``, ``strict_map_key=True``, an empty FormatError) would not tell it what
    to change."""
    with pytest.raises(ProtocolError) as refused:
        decode_request(frame)
    assert (refused.value.code, refused.value.message) == (code, message)


@pytest.mark.parametrize(("fields", "message"), [
    ({}, "v, the protocol version, is missing; use 1"),
    ({"v": None}, "v, the protocol version, must be an integer, not nil; use 1"),
    ({"v": True}, "v, the protocol version, must be an integer, not a boolean; use 1"),
    ({"v": "1"}, "v, the protocol version, must be an integer, not a string; use 1"),
    ({"v": 1.0}, "v, the protocol version, must be an integer, not a float; use 1"),
    ({"v": 2}, "protocol version 2 is not spoken here; use 1"),
])
def test_a_bad_version_is_told_in_msgpacks_words(fields: dict[str, Any], message: str) -> None:
    """Not Python's: "protocol version None" meant nothing to a client in another language."""
    with pytest.raises(ProtocolError) as refused:
        check_request({**fields, "type": "hello", "id": 1})
    assert (refused.value.code, refused.value.message) == ("bad_version", message)


@pytest.mark.parametrize(("kind", "message"), [
    (None, "type must be a string naming a request, not nil"),
    (3, "type must be a string naming a request, not an integer"),
    ("teleport", "no request of type 'teleport'"),
])
def test_an_unknown_type_is_told_in_msgpacks_words(kind: Any, message: str) -> None:
    """A nil type said "no request of type None" (a Node bot met it), as the version did."""
    with pytest.raises(ProtocolError) as refused:
        check_request({"v": 1, "type": kind, "id": 1})
    assert (refused.value.code, refused.value.message) == ("unknown_type", message)


@pytest.mark.parametrize(("game", "config", "message"), [
    ("sagani", {"players": "2"}, "players must be an integer"),
    ("sugi", {"edition": 4.0}, "edition must be an integer"),
    ("sagani", {"mode": 1}, "mode must be a string"),
    ("sagani", {"colour": 2, "size": 1},
     "no option colour, size in this game's config; its options are players, mode"),
])
def test_a_config_value_of_the_wrong_kind_is_told_in_the_protocols_words(
    game: str, config: dict[str, Any], message: str
) -> None:
    """Not Python's type names: "players must be a int" told a client in Go or JavaScript
    little."""
    with pytest.raises(RuleError) as refused:
        get_game(game).parse_config(config)
    assert (refused.value.code, refused.value.message) == ("bad_config", message)


@pytest.mark.parametrize(("game", "action", "message"), [
    ("sagani", {"type": "take", "index": 0, "seat": 0},
     "take takes {type, index}, not {type, index, seat}"),
    ("sagani", {"type": "frob"},
     'an action is a map whose type is one of take, draw, pick, pass, reveal, place, '
     'not "frob"'),
    ("sagrada", {"type": "draft", "cell": [0, 0]},
     "draft takes {type, die, cell} or {type, die}, not {type, cell}"),
    ("sugi", {"type": "rotate", "card": 1, "space": [1, 0], "slot": 0, "by": 90},
     "rotate takes {type, card, space, by} or {type, card, slot, by}, "
     "not {type, card, space, by, slot}"),
])
def test_an_action_of_the_wrong_shape_is_told_every_form_it_may_take(
    game: str, action: dict[str, Any], message: str
) -> None:
    """Each game once said it in Python (``['index', 'type']``, ``('take', ...)``), Sagrada
    named a draft's cell as if it were always needed, and Sugi a rotate's space or its slot,
    whichever the action sent, as if the other did not exist."""
    engine = get_game(game)
    state = engine.new_state(engine.parse_config({}), 1)
    with pytest.raises(RuleError) as refused:
        state.parse_action(action)
    assert (refused.value.code, refused.value.message) == ("bad_action", message)


def test_a_request_without_type_is_missing_a_field() -> None:
    with pytest.raises(ProtocolError, match="missing_field"):
        check_request({"v": 1, "id": 1})


def test_an_unknown_field_beside_a_bytes_key_is_an_extra_field() -> None:
    """msgpack map keys may be bin (bytes): the refusal names a field, it does not fail."""
    message = decode_request(encode({b"": 1, "zz": 2, "v": 1, "type": "hello", "id": 1}))
    with pytest.raises(ProtocolError, match="extra_field"):
        check_request(message)


@pytest.mark.parametrize("where", ["value", "key", "deep", "beside_bytes"])
def test_an_unsafe_character_is_found_wherever_it_is(where: str) -> None:
    bad = "x\u202ey"
    action = {
        "value": {"type": "place", "cell": [0, 1], "note": bad},
        "key": {"type": "place", bad: 1},
        "deep": {"type": "place", "cell": [[0, {"a": ["ok", bad]}]]},
        "beside_bytes": {b"": 1, "type": bad},
    }[where]
    message = decode_request(encode({"v": 1, "type": "act", "id": 4, "table": "t", "seat": 1,
                                     "token": "k", "version": 3, "action": action}))
    with pytest.raises(ProtocolError, match="bad_field: action holds the control character "
                                           "U\\+202E"):
        check_request(message)


@pytest.mark.parametrize("value", [True, 1.0, "1", None, -1, 2**63])
def test_ids_are_plain_non_negative_integers(value: object) -> None:
    with pytest.raises(ProtocolError):
        check_request({"v": 1, "type": "hello", "id": value})
    assert request_id({"id": value}) is None


def test_topic_of_one_table_is_not_a_prefix_of_another() -> None:
    assert not topic("ab1").startswith(topic("ab")) and topic("ab") == b"table.ab."


def test_frame_near_the_size_limit_is_read_and_one_over_it_is_not() -> None:
    near = encode({"v": 1, "pad": ["x" * 4000] * 16})
    assert wire.MAX_REQUEST_BYTES - 2000 < len(near) <= wire.MAX_REQUEST_BYTES
    assert decode_request(near)["v"] == 1
    over = encode({"v": 1, "pad": ["x" * 4000] * 16, "more": "y" * (wire.MAX_REQUEST_BYTES -
                                                                      len(near))})
    assert len(over) > wire.MAX_REQUEST_BYTES
    with pytest.raises(ProtocolError, match="too_big"):
        decode_request(over)


def test_every_error_code_and_request_is_in_the_spec() -> None:
    for code in ERROR_CODES:
        assert f"`{code}`" in SPEC, code
    for kind in REQUESTS:
        assert f'type: "{kind}"' in SPEC, kind
    for limit in (wire.MAX_STR_LEN, wire.MAX_ARRAY_LEN, wire.MAX_MAP_LEN, wire.MAX_REQUEST_BYTES):
        assert f"{limit:,}" in SPEC, limit
    # What a subscriber may send: its subscriptions, and ZMTP PINGs if it beats (a client in
    # another language may well turn ZMQ_HEARTBEAT_IVL on), cut past the limit.
    row = next(line for line in SPEC.splitlines()
               if line.startswith("| what a connection sends the broadcast socket |"))
    assert f"{MAX_SUBSCRIBER_BYTES:,} bytes" in row and f"{SUBSCRIPTION_BYTES:,} bytes" in row
    assert "ZMQ_HEARTBEAT_IVL" in row


#: Every game of the registry, and every page under protocol/games/: a bot author plays each
#: game from its page, so a registered game without one fails, and so does a page for no game.
PAGES = sorted({*game_names(), *(p.stem for p in (PROTOCOL_DIR / "games").glob("*.md"))})


@pytest.mark.parametrize("name", PAGES)
def test_a_games_page_is_complete_and_listed_in_the_spec_and_the_record_format(name: str) -> None:
    assert name in game_names(), f"protocol/games/{name}.md is for no registered game"
    page = PROTOCOL_DIR / "games" / f"{name}.md"
    assert page.is_file(), f"protocol/games/{name}.md is missing"
    link = f"[`games/{name}.md`](games/{name}.md"
    assert link in SPEC and link in (PROTOCOL_DIR / "RECORD.md").read_text()
    text = page.read_text()
    for section in ("## Options", "## Actions", "## View", "## Private data", "## Events",
                    "## Rule codes", "## Default move", "## Static data", "## Record"):
        assert section in text, (name, section)
    for option in get_game(name).options:
        assert f"`{option.name}`" in text, (name, option.name)


_scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**64), 2**64), st.floats(),
                     st.text(max_size=20))
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=8,
)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.sampled_from(["v", "type", "id", "table", "seat", "token", "version",
                                        "action", "x"]), _values, max_size=8))
def test_any_map_is_accepted_or_refused_with_a_code(message: dict) -> None:
    try:
        frame = msgpack.packb(message)
    except (OverflowError, ValueError):
        return
    try:
        check_request(decode_request(frame))
    except ProtocolError as exc:
        assert exc.code in ERROR_CODES


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes_are_read_or_refused_with_a_code(frame: bytes) -> None:
    try:
        decode_request(frame)
    except ProtocolError as exc:
        assert exc.code in ERROR_CODES


# -- a game's page against its engine ------------------------------------------------------
#
# A page documents its actions, events and rule codes in tables (see protocol/games/sagani.md):
# an action row's first cell holds the wire form (`{"type": "take", ...}`) and its second the
# text forms; an event row's first cell the event type and its second the fields; rule codes
# are the backquoted words of their section. These tests read the page that way and hold it
# against what the engine really does over random games.

_SPAN = re.compile(r"`([^`]*)`")
_WORD = re.compile(r"^[a-z][a-z0-9_]*$")


def page_section(name: str, title: str) -> str:
    """The text of section ``## title`` of the game's page, up to the next section."""
    text = (PROTOCOL_DIR / "games" / f"{name}.md").read_text()
    start = text.index(f"\n## {title}")
    end = text.find("\n## ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def table_rows(section: str) -> list[list[str]]:
    """The body rows of the section's tables, cells stripped (``\\|`` stays inside a cell)."""
    rows = []
    for line in section.splitlines():
        if not line.startswith("|") or set(line) <= set("|-: "):
            continue
        rows.append([c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]])
    return [r for r in rows if not (r and r[0] in ("action", "type", "code"))]


def documented_actions(name: str) -> dict[str, list[str]]:
    """Action type -> the text forms its rows give."""
    found: dict[str, list[str]] = {}
    for row in table_rows(page_section(name, "Actions")):
        kind = re.search(r'"type": "([a-z_]+)"', row[0])
        if kind:
            found.setdefault(kind.group(1), []).extend(_SPAN.findall(row[1]))
    return found


def documented_events(name: str) -> dict[str, set[str]]:
    """Event type -> the fields its row names (besides ``type``)."""
    found = {}
    for row in table_rows(page_section(name, "Events")):
        kind = _SPAN.fullmatch(row[0])
        if kind:
            spans = _SPAN.findall(row[1])
            found[kind.group(1)] = {f.strip() for s in spans for f in s.split(",") if f.strip()}
    return found


def documented_rule_codes(name: str) -> set[str]:
    return {w.strip('"') for w in _SPAN.findall(page_section(name, "Rule codes"))
            if _WORD.match(w.strip('"'))}


@dataclass
class Observed:
    """What random games of one game showed: action types, events with their fields, the
    rule codes its refusals carried, and the keys of views, private data and records."""

    actions: set[str] = field(default_factory=set)
    events: dict[str, set[str]] = field(default_factory=dict)
    rules: set[str] = field(default_factory=set)
    view: set[str] = field(default_factory=set)
    seat_view: set[str] = field(default_factory=set)  # the keys of a view's per-seat maps
    private: set[str] = field(default_factory=set)
    record: set[str] = field(default_factory=set)
    result: set[str] = field(default_factory=set)
    static: set[str] = field(default_factory=set)


def _variants(data: dict[str, Any], rng: random.Random) -> list[dict[str, Any]]:
    """Wire actions near a legal one: each int (or int in a list) moved a little or far."""
    out = []
    for key, value in data.items():
        if isinstance(value, int) and not isinstance(value, bool):
            out += [{**data, key: value + d} for d in (-1, 1, 5, -value - 1)]
        elif isinstance(value, list) and value and all(isinstance(v, int) for v in value):
            i = rng.randrange(len(value))
            out += [{**data, key: [v + d if j == i else v for j, v in enumerate(value)]}
                    for d in (-1, 1, 3)]
    return out


#: The pages checked against observed(): a game's tests run on one xdist worker, so that its
#: games are played once (Sugi's take about 4 s).
OBSERVED_PAGES = [pytest.param(name, marks=pytest.mark.xdist_group(f"observed-{name}"))
                  for name in PAGES]


@functools.cache
def observed(name: str) -> Observed:
    """Two random games of every config; at every fourth position a few actions that were
    legal elsewhere, or near a legal one, are tried on a clone to collect the rule codes."""
    game, seen = get_game(name), Observed()
    for config in configs(name):
        seen.static |= set(game.static_data(config))
        for seed in range(2):
            rng = random.Random(seed)
            state = game.new_state(config, seed)
            played: list[dict[str, Any]] = []
            while not state.is_over():
                view = state.view(None)
                seen.view |= set(view)
                seen.seat_view |= {k for s in view.get("seats", []) if isinstance(s, dict)
                                   for k in s}
                seen.private |= set(state.private(state.current_seat) or {})
                legal = [state.action_data(a) for a in state.legal_actions()]
                seen.actions |= {d["type"] for d in legal}
                if state.version % 4 == 0:
                    tries = rng.sample(played, min(3, len(played)))
                    tries += _variants(rng.choice(legal), rng)
                    for data in tries:
                        try:
                            trial = state.clone()
                            trial.apply(trial.parse_action(data))
                        except RuleError as exc:
                            seen.rules.add(exc.code)
                action = rng.choice(state.legal_actions())
                played.append(state.action_data(action))
                for event in state.apply(action):
                    seen.events.setdefault(event["type"], set()).update(set(event) - {"type"})
            seen.view |= set(state.view(None))
            seen.record |= set(state.to_record())
            seen.result |= set(state.result().to_data())
    return seen


@pytest.mark.parametrize("name", OBSERVED_PAGES)
def test_every_action_type_the_engine_offers_is_on_the_page_and_the_pages_text_forms_parse(
    name: str,
) -> None:
    game = get_game(name)
    documented = documented_actions(name)
    assert observed(name).actions <= set(documented), name
    state = game.new_state(game.parse_config({}), 1)
    for kind, texts in documented.items():
        assert texts, f"{name}: no text form for {kind}"
        for text in texts:
            data = game.parse_text(text)
            assert data["type"] == kind, (name, text)
            state.parse_action(data)  # well formed, or this raises bad_action
            assert game.parse_text(game.action_text(data)) == data, (name, text)


@pytest.mark.parametrize("name", OBSERVED_PAGES)
def test_every_event_the_engine_produces_is_on_the_page_with_its_fields(name: str) -> None:
    documented = documented_events(name)
    for kind, fields in observed(name).events.items():
        assert kind in documented, f"{name}: event {kind} is not on the page"
        assert fields <= documented[kind], (name, kind, fields - documented[kind])
    package = Path(game_part(name, "rules").__file__).parent
    source = "".join(p.read_text() for p in package.glob("*.py"))
    for kind in documented:  # none that the game never makes
        assert f'"{kind}"' in source, f"{name}: the page's event {kind} is not in its code"


@pytest.mark.parametrize("name", OBSERVED_PAGES)
def test_every_rule_code_the_engine_refuses_with_is_on_the_page(name: str) -> None:
    seen = observed(name).rules
    assert len(seen) >= 3, (name, seen)  # the refusals were really tried
    assert seen <= documented_rule_codes(name), (name, seen - documented_rule_codes(name))


@pytest.mark.parametrize("name", OBSERVED_PAGES)
def test_the_page_names_every_key_of_the_view_private_data_static_data_and_record(
    name: str,
) -> None:
    seen = observed(name)
    envelope = {"game", "config", "seed", "actions", "result", "names"}
    for title, keys in (("View", seen.view), ("Private data", seen.private),
                        ("Static data", seen.static), ("Record", seen.record - envelope),
                        ("Record", seen.result)):
        text = page_section(name, title)
        missing = {k for k in keys if not re.search(rf"\b{re.escape(k)}\b", text)}
        assert not missing, (name, title, missing)


@pytest.mark.parametrize("name", OBSERVED_PAGES)
def test_the_page_gives_every_key_of_the_view_an_entry_of_its_own(name: str) -> None:
    """Each key of the view (and of its per-seat maps) is named on its own, where its meaning
    is said: Sagani's page once listed them in one run of code (`..., removed, pile (size),
    ...`), and a bot author learnt nothing of `removed`, `supply` or `turns` but their names."""
    seen = observed(name)
    text = page_section(name, "View")
    spans = set(_SPAN.findall(text))
    alone = {k for k in seen.view if k not in spans}
    assert not alone, (name, alone)
    seats = {k for k in seen.seat_view
             if k not in spans and not re.search(rf"\b{re.escape(k)}: ", text)}
    assert not seats, (name, seats)
