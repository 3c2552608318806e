"""The codec and the message catalogue, without sockets."""

from __future__ import annotations

from pathlib import Path

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import (
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
from sagani_net.games import game_names, get_game

PROTOCOL_DIR = Path(__file__).resolve().parent.parent / "protocol"
SPEC = (PROTOCOL_DIR / "PROTOCOL.md").read_text()


def test_request_round_trips_through_the_codec() -> None:
    action = {"type": "place", "cell": [0, -1], "rotation": 90}
    message = {"v": 1, "type": "act", "id": 4, "table": "t", "seat": 1, "token": "k",
               "version": 3, "action": action}  # fmt: skip
    assert check_request(decode_request(encode(message))) == message


def test_optional_fields_get_their_defaults() -> None:
    join = check_request({"v": 1, "type": "join", "id": 1, "table": "t"})
    assert (join["role"], join["seat"], join["name"], join["token"]) == ("player", None, None, None)


@pytest.mark.parametrize(("kind", "field"), [("join", "name"), ("hello", "client")])
def test_a_name_is_absent_or_1_to_64_characters(kind: str, field: str) -> None:
    base = {"v": 1, "type": kind, "id": 1, "table": "t"} if kind == "join" else {
        "v": 1, "type": kind, "id": 1}  # fmt: skip
    assert check_request({**base, field: "é" * 64})[field] == "é" * 64  # characters, not bytes
    for bad in ("", "x" * 65):
        with pytest.raises(ProtocolError, match="bad_field"):
            check_request({**base, field: bad})


def test_the_string_limit_counts_bytes_of_utf8() -> None:
    fits = "é" * (wire.MAX_STR_LEN // 2)  # 2 bytes each: exactly the limit in bytes
    assert decode_request(encode({"v": 1, "pad": fits}))["pad"] == fits
    with pytest.raises(ProtocolError, match="too_big"):
        decode_request(encode({"v": 1, "pad": fits + "é"}))  # far fewer characters than that


def test_a_request_without_type_is_missing_a_field() -> None:
    with pytest.raises(ProtocolError, match="missing_field"):
        check_request({"v": 1, "id": 1})


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
                                                                      len(near))})  # fmt: skip
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


#: Games of the registry and their pages under protocol/games/ (Sagani's must be there; a new
#: game's page, once its author writes it, is checked the same way).
PAGES = sorted({"sagani", *(p.stem for p in (PROTOCOL_DIR / "games").glob("*.md"))})


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
                     st.text(max_size=20))  # fmt: skip
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=8,
)  # fmt: skip


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.sampled_from(["v", "type", "id", "table", "seat", "token", "version",
                                        "action", "x"]), _values, max_size=8))  # fmt: skip
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
