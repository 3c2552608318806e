"""The message catalogue: every request with its fields, and the checks run on each.

A request is a map ``{"v": VERSION, "type": <request type>, "id": <client message id>, ...}``.
:func:`check_request` validates one completely (presence, absence, types, ranges) before the host
looks at it, and fills optional fields with their defaults.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sagani_net.protocol.errors import ProtocolError
from sagani_net.protocol.wire import MAX_MAP_LEN, SUPPORTED_VERSIONS, VERSION, kind_of

MAX_ID = 2**63 - 1
MAX_NAME_LEN = 64
MAX_TABLE_ID_LEN = 32
MAX_TOKEN_LEN = 64
#: A `tables` page's `next` (the host's own text, handed back as `after`).
MAX_CURSOR_LEN = 64
MAX_SEATS = 16
#: A nonce names a request unguessably: at least 96 bits as text.
MIN_NONCE_LEN = 16
ROLES = ("player", "bot", "spectator")
#: Range of a table's per-move deadline for bot seats, seconds: long enough for a network round
#: trip, short enough that a forgotten table cannot hold a timer for days.
MIN_DEADLINE_S = 0.1
MAX_DEADLINE_S = 3600.0
#: Time a bot seat gets beyond its table's deadline before the host plays for it: the update
#: announcing the turn and the bot's act both cross the network.
DEADLINE_GRACE_S = 0.25
#: The clock of a bot seat at a table that sets no ``deadline_s``: anyone may join as a bot,
#: and a "bot" that never moves must not hold the game for ever (issue 18, point 9). Here, with
#: the wire's other numbers, since a console counts down to it too (and imports no host).
BOT_FALLBACK_S = 60.0
#: Lazy Pirate, as the client library does it: how long one try of a request waits for its
#: reply, and the heartbeat periods of silence after which a client takes its host for gone
#: (with a standby to go to, no try waits longer than that either). A standby that still
#: hears its active host refuses a client (``not_active``), which waits NOT_ACTIVE_PAUSE_SHARE
#: of a try and goes back there. Here with the wire's other numbers, since a host that begins
#: to serve gives its seats the time these take (:func:`rejoin_s`).
REQUEST_TIMEOUT_S = 2.5
SILENCE_HEARTBEATS = 3.0
NOT_ACTIVE_PAUSE_SHARE = 0.1


def try_s(heartbeat_s: float, standby: bool, timeout_s: float = REQUEST_TIMEOUT_S) -> float:
    """How long a client's try waits for a reply from a host beating every ``heartbeat_s``:
    ``timeout_s``, or no longer than that host may be silent when a ``standby`` is there to go
    to."""
    return min(timeout_s, SILENCE_HEARTBEATS * heartbeat_s) if standby else timeout_s


def rejoin_s(heartbeat_s: float, presence_s: float, takeover: bool) -> float:
    """The longest a client that was there when its host went down takes to come to the host
    that serves next, counted from when that one begins to serve (PROTOCOL.md, Presence).

    After a restart, the rest of a try sent to the host gone (a client that knows no standby
    waits a whole REQUEST_TIMEOUT_S). After a takeover, a client knows the standby, and its tries
    are shorter; but one that came to the standby just before it gave up on its active host was
    sent back there: the pause, and one more try at the host gone. Then a presence period more,
    as a margin for a busy machine (the seats are looked at once a heartbeat anyway).

    >>> rejoin_s(1.0, 1.0, takeover=True), rejoin_s(1.0, 1.0, takeover=False)
    (3.75, 3.5)
    >>> rejoin_s(0.25, 0.25, takeover=True)
    1.25
    """
    if takeover:
        gone_s = REQUEST_TIMEOUT_S * NOT_ACTIVE_PAUSE_SHARE + try_s(heartbeat_s, standby=True)
    else:
        gone_s = try_s(heartbeat_s, standby=False)
    return gone_s + presence_s

#: Characters no string in a request may hold, since names and other strings end up on other
#: people's screens and in logs: C0 and C1 controls (ESC starts a terminal's escape sequences;
#: CR and LF fake lines), DEL, the line and paragraph separators, and the bidirectional
#: overrides, embeddings, isolates and marks (which reorder what is shown after them).
UNSAFE_TEXT = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f"
                         "\u202a-\u202e\u2066-\u2069]")

Check = Callable[[str, Any], Any]


#: A request may hold format characters (Unicode's Cf), but they are invisible: "ann" + U+200B
#: passes for "ann". So they are shown escaped, all but these, which letters of some scripts
#: and emoji are made of: the joiners (U+200C, U+200D) and tags (U+E0020..U+E007F).
_KEPT_FORMAT = re.compile("[\u200c\u200d\U000e0020-\U000e007f]")


def _escaped(char: str) -> str:
    return repr(char)[1:-1]


def printable(text: str) -> str:
    r"""``text`` safe to show on a terminal or in a log: each unsafe character (see
    :data:`UNSAFE_TEXT`), and each invisible format character but a joiner, written as its
    escape. For strings that may predate the check (old stores, records, another host's
    replies), and for names, which may hold format characters.

    >>> printable("ann\x1b[2J\r\nfake"), printable("ann\u200b")
    ('ann\\x1b[2J\\r\\nfake', 'ann\\u200b')
    """
    text = UNSAFE_TEXT.sub(lambda found: _escaped(found[0]), text)
    if text.isascii():
        return text
    return "".join(_escaped(c) if unicodedata.category(c) == "Cf"
                   and not _KEPT_FORMAT.match(c) else c for c in text)


def numbered_name(name: str, held: set[str]) -> str:
    """``name``, numbered if another seat is called that already ("greedy", "greedy 2", ...):
    scores, logs, records and replays tell the seats apart by name.

    >>> numbered_name("greedy", {"greedy", "greedy 2"})
    'greedy 3'
    """
    number, unique = 1, name
    while unique in held:
        number += 1
        suffix = f" {number}"
        unique = name[: MAX_NAME_LEN - len(suffix)] + suffix
    return unique


def seat_names(names: list[str] | tuple[str, ...]) -> list[str]:
    """Each seat's name, in seat order, numbered as :func:`numbered_name` numbers a table's."""
    held: list[str] = []
    for name in names:
        held.append(numbered_name(name, set(held)))
    return held


@dataclass(frozen=True)
class Field:
    check: Check
    required: bool = True
    default: Any = None


def _int(low: int, high: int) -> Check:
    def check(name: str, value: Any) -> int:
        # bool is an int in Python but not on the wire.
        if type(value) is not int:
            raise ProtocolError("bad_field", f"{name} must be an integer")
        if not low <= value <= high:
            raise ProtocolError("bad_field", f"{name} must be in {low}..{high}, not {value}")
        return value

    return check


def _str(max_len: int, choices: tuple[str, ...] = ()) -> Callable[[str, Any], str]:
    def check(name: str, value: Any) -> str:
        if not isinstance(value, str):
            raise ProtocolError("bad_field", f"{name} must be a string")
        if not 0 < len(value) <= max_len:
            raise ProtocolError("bad_field", f"{name} must be 1..{max_len} characters long")
        if choices and value not in choices:
            raise ProtocolError("bad_field", f"{name} must be one of {', '.join(choices)}")
        return value

    return check


def _seat_name(name: str, value: Any) -> str:
    """A seat's name as others see it: without spaces around it (``"ann "`` would pass for
    ``"ann"``, and a name of spaces for none), so those are taken off; nothing left is an
    empty name."""
    text = _str(MAX_NAME_LEN)(name, value).strip()
    if not text:
        raise ProtocolError("bad_field", f"{name} must hold more than spaces")
    return text


def _seconds(low: float, high: float) -> Check:
    def check(name: str, value: Any) -> float:
        # An int or a float on the wire (msgpack writes 2.0 as a float, many languages write 2 as
        # an int); bool is neither; NaN fails the range test.
        if type(value) not in (int, float):
            raise ProtocolError("bad_field", f"{name} must be a number of seconds")
        if not low <= value <= high:
            raise ProtocolError("bad_field", f"{name} must be in {low}..{high}, not {value}")
        return float(value)

    return check


def _nullable(inner: Check) -> Check:
    def check(name: str, value: Any) -> Any:
        return None if value is None else inner(name, value)

    return check


def _map(name: str, value: Any) -> dict[str, Any]:
    # Contents are the game's business (parse_config / parse_action validate them).
    if not isinstance(value, dict):
        raise ProtocolError("bad_field", f"{name} must be a map")
    return value


def _seat_list(name: str, value: Any) -> list[int]:
    if not isinstance(value, list) or len(value) > MAX_SEATS:
        raise ProtocolError("bad_field", f"{name} must be a list of at most {MAX_SEATS} seats")
    seats = [_int(0, MAX_SEATS - 1)(f"{name}[]", seat) for seat in value]
    if len(set(seats)) != len(seats):
        raise ProtocolError("bad_field", f"{name} lists a seat twice")
    return seats


def _nonce(name: str, value: Any) -> str:
    text = _str(MAX_TOKEN_LEN)(name, value)
    if len(text) < MIN_NONCE_LEN:
        raise ProtocolError("bad_field", f"{name} must be at least {MIN_NONCE_LEN} characters")
    return text


_TABLE = Field(_str(MAX_TABLE_ID_LEN))
#: A client's unguessable name for one create or join request, sent again with its retries:
#: the host gives the remembered reply (and its token) only to a request that carries it.
_NONCE = Field(_nullable(_nonce), required=False)
_TOKEN = Field(_str(MAX_TOKEN_LEN))
_SEAT = Field(_int(0, MAX_SEATS - 1))

#: Request type -> its fields beyond the envelope (v, type, id).
REQUESTS: dict[str, dict[str, Field]] = {
    "hello": {"client": Field(_str(MAX_NAME_LEN), required=False)},
    "tables": {"after": Field(_nullable(_str(MAX_CURSOR_LEN)), required=False)},
    "create": {
        "game": Field(_str(MAX_NAME_LEN)),
        "config": Field(_map),
        "seed": Field(_nullable(_int(0, MAX_ID)), required=False),
        "bots": Field(_seat_list, required=False, default=[]),
        "deadline_s": Field(_nullable(_seconds(MIN_DEADLINE_S, MAX_DEADLINE_S)), required=False),
        # A turn timer for the seats people hold (off when absent: among friends, none).
        "turn_timer_s": Field(_nullable(_seconds(MIN_DEADLINE_S, MAX_DEADLINE_S)),
                              required=False),
        "nonce": _NONCE,
    },
    "join": {
        "table": _TABLE,
        "role": Field(_str(16, ROLES), required=False, default="player"),
        "seat": Field(_nullable(_int(0, MAX_SEATS - 1)), required=False),
        # Absent: the host names the session after its role.
        "name": Field(_seat_name, required=False),
        "token": Field(_nullable(_str(MAX_TOKEN_LEN)), required=False),
        "nonce": _NONCE,
    },
    "sync": {"table": _TABLE, "token": Field(_nullable(_str(MAX_TOKEN_LEN)), required=False)},
    "act": {
        "table": _TABLE,
        "seat": _SEAT,
        "token": _TOKEN,
        "version": Field(_int(0, MAX_ID)),
        "action": Field(_map),
    },
    "private": {"table": _TABLE, "token": _TOKEN},
    # A seated player's client says it is still there (PROTOCOL.md, Presence).
    "here": {"table": _TABLE, "token": _TOKEN},
    # A seated player asks the host to play an away player's seat until that one is back.
    "stand_in": {"table": _TABLE, "token": _TOKEN, "seat": _SEAT},
    # The legal actions of the token's seat, which must be the seat to move, a page at a time;
    # ``version`` (nil: the current one) makes sure every page is of the same state.
    "legal": {
        "table": _TABLE,
        "token": _TOKEN,
        "version": Field(_nullable(_int(0, MAX_ID)), required=False),
        "page": Field(_int(0, MAX_ID), required=False, default=0),
    },
    "leave": {"table": _TABLE, "token": _TOKEN},
    "record": {"table": _TABLE},
    # The events of the moves after version ``since`` (0: from the start), a page at a time.
    "history": {"table": _TABLE, "since": Field(_int(0, MAX_ID))},
    # One of table (its game and config) or game (with config, else the game's defaults).
    "static": {
        "table": Field(_nullable(_str(MAX_TABLE_ID_LEN)), required=False),
        "game": Field(_nullable(_str(MAX_NAME_LEN)), required=False),
        "config": Field(_nullable(_map), required=False),
    },
}

ENVELOPE = ("v", "type", "id")
_check_id = _int(0, MAX_ID)


def topic(table_id: str) -> bytes:
    """The PUB topic of a table; the trailing dot keeps "t1" from matching "t12"."""
    return f"table.{table_id}.".encode()


def request_id(message: dict[str, Any]) -> int | None:
    """The client message id of a (maybe bad) request, if it has a usable one."""
    value = message.get("id")
    return value if type(value) is int and 0 <= value <= MAX_ID else None


def _bad_version(message: dict[str, Any]) -> str:
    """Why ``v`` is refused, in msgpack's words (nil, true), not Python's (None, True): the
    client reading it may be written in any language."""
    if "v" not in message:
        return f"v, the protocol version, is missing; use {VERSION}"
    version = message["v"]
    if type(version) is int:
        return f"protocol version {version} is not spoken here; use {VERSION}"
    return f"v, the protocol version, must be an integer, not {kind_of(version)}; use {VERSION}"


def check_request(message: dict[str, Any]) -> dict[str, Any]:
    """Validate a decoded request; return it with defaults filled. Raises ProtocolError.

    >>> check_request({"v": 1, "type": "sync", "id": 7, "table": "t1"})["token"] is None
    True
    """
    version = message.get("v")
    if type(version) is not int or version not in SUPPORTED_VERSIONS:
        raise ProtocolError("bad_version", _bad_version(message))
    if "type" not in message:
        raise ProtocolError("missing_field", "type is required")
    kind = message.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("unknown_type",
                            f"type must be a string naming a request, not {kind_of(kind)}")
    if kind not in REQUESTS:
        raise ProtocolError("unknown_type", f"no request of type {kind!r}")
    fields = REQUESTS[kind]
    if "id" not in message:
        raise ProtocolError("missing_field", "id is required")
    _check_id("id", message["id"])
    if not message.keys() <= _ALLOWED[kind]:
        # A key may be bytes (msgpack's bin): sorted as text, so that str and bytes compare.
        extra = sorted(message.keys() - _ALLOWED[kind], key=repr)
        raise ProtocolError("extra_field", f"{kind} has no field {extra[0]!r}")
    checked = {"v": version, "type": kind, "id": message["id"]}
    for name, field in fields.items():
        # An optional field sent as nil is one left out: typed encoders write an unset optional
        # field so (serde's None, Go's nil pointer or slice, Java's null) unless told not to.
        if name in message and (field.required or message[name] is not None):
            checked[name] = field.check(name, message[name])
        elif field.required:
            raise ProtocolError("missing_field", f"{kind} needs {name}")
        else:
            checked[name] = field.default
    _check_text(message)
    return checked


def _check_text(message: dict[str, Any]) -> None:
    """Refuse a request with an unsafe character (:data:`UNSAFE_TEXT`) in any string of it, a
    key or a value, however deep: what a client names may be shown to everyone."""
    # Every string at once first: isprintable() is False for every character UNSAFE_TEXT
    # matches, and a request is mostly short strings, so one call clears nearly all of them.
    texts: list[Any] = []
    items: list[Any] = [message]
    while items:
        item = items.pop()
        if type(item) is dict:
            texts.extend(item)
            item = item.values()
        for value in item:
            kind = type(value)
            if kind is str:
                texts.append(value)
            elif kind is dict or kind is list:
                items.append(value)
    try:
        if "".join(texts).isprintable():
            return
    except TypeError:  # a bytes key: the walk below looks at each string alone
        pass
    _find_unsafe_text(message)


def _find_unsafe_text(message: dict[str, Any]) -> None:
    """Raise ``bad_field`` naming the field of the first unsafe character, if any."""
    stack: list[tuple[Any, Any]] = [("the request", message)]
    while stack:
        field, item = stack.pop()
        for key, value in item.items() if type(item) is dict else enumerate(item):
            if item is message:
                field = key  # made printable only for the refusal
            for text in (key, value):
                # isprintable() is False for every character UNSAFE_TEXT matches (and others):
                # the expression is asked only about a string it may find something in.
                if (type(text) is str and not text.isprintable()
                        and (found := UNSAFE_TEXT.search(text))):
                    field = printable(str(field))
                    raise ProtocolError("bad_field", f"{field} holds the control character "
                                        f"U+{ord(found[0]):04X}; no string of a request may "
                                        "hold control or bidi characters")
            if type(value) in (dict, list):
                stack.append((field, value))


def reply(kind: str, msg_id: int | None, **fields: Any) -> dict[str, Any]:
    """A reply or broadcast map with the envelope filled in."""
    return {"v": VERSION, "type": kind, "id": msg_id, **fields}


def error(msg_id: int | None, code: str, message: str, **fields: Any) -> dict[str, Any]:
    """An error reply: ``code`` from ERROR_CODES and a sentence."""
    return reply("error", msg_id, code=code, message=message, **fields)


assert all(len(fields) + len(ENVELOPE) <= MAX_MAP_LEN for fields in REQUESTS.values())
#: The keys each request type may hold.
_ALLOWED = {kind: frozenset(fields).union(ENVELOPE) for kind, fields in REQUESTS.items()}
