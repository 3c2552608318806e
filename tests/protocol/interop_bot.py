#!/usr/bin/env python3
"""A bot that speaks the protocol with nothing of Python's ZeroMQ or msgpack stacks: ZMTP 3.x
(NULL mechanism, rfc.zeromq.org/spec/23 and /37) over a plain TCP socket, and MessagePack
encoded and decoded here by its spec, strictly, as a typed client in another language would
(a str is not a bin, ints are signed 64-bit, a map key is a str and never twice, a float is
not an int). It stands for the bot authors PROTOCOL.md promises a host to: if the host sends
something such a client cannot read, or needs something the pages do not say, it fails here.

It imports nothing from this project, from pyzmq or from msgpack: only the standard library.

    python interop_bot.py 127.0.0.1:47410 --game sugi    # creates a table, plays both seats

Exit code 0: the game ended and everything the host sent was as the pages describe.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import select
import socket
import struct
import sys
import time
from typing import Any

V = 1
WAIT_S = 30.0            # what a request may take before the host counts as unreachable here
ACK_WAIT_S = 0.5         # after `accepted`, wait this long for its update, then `sync`
BACK_OFF_S = 0.2         # rate_limited, storage_failed: wait, then the same bytes again
INT64 = (-(2**63), 2**63 - 1)


class Mismatch(Exception):
    """The host sent or did something PROTOCOL.md does not allow."""


# -- MessagePack, by its spec (github.com/msgpack/msgpack/blob/master/spec.md) --------------

class Bin(bytes):
    """A msgpack bin value, kept apart from str as a typed decoder keeps it."""


class Encoder:
    """Minimal: each value in its shortest form, as most encoders write it. Wide: every int as
    int64, every str as str32, every container as map32/array32, every float as float32: as
    valid as the minimal form, and what a typed encoder that never compacts writes."""

    def __init__(self, wide: bool = False) -> None:
        self.wide = wide

    def __call__(self, value: Any) -> bytes:
        out = bytearray()
        self._put(out, value)
        return bytes(out)

    def _put(self, out: bytearray, value: Any) -> None:
        if value is None:
            out.append(0xC0)
        elif value is True or value is False:
            out.append(0xC3 if value else 0xC2)
        elif type(value) is int:
            self._int(out, value)
        elif type(value) is float:
            if self.wide and struct.unpack(">f", struct.pack(">f", value))[0] == value:
                out += b"\xca" + struct.pack(">f", value)
            else:
                out += b"\xcb" + struct.pack(">d", value)
        elif type(value) is str:
            data = value.encode("utf-8")
            n = len(data)
            if self.wide:
                out += b"\xdb" + struct.pack(">I", n)
            elif n < 32:
                out.append(0xA0 | n)
            elif n < 2**8:
                out += b"\xd9" + struct.pack(">B", n)
            elif n < 2**16:
                out += b"\xda" + struct.pack(">H", n)
            else:
                out += b"\xdb" + struct.pack(">I", n)
            out += data
        elif type(value) is list:
            self._head(out, len(value), 0x90, 0xDC, 0xDD)
            for item in value:
                self._put(out, item)
        elif type(value) is dict:
            self._head(out, len(value), 0x80, 0xDE, 0xDF)
            for key, item in value.items():
                assert type(key) is str, key
                self._put(out, key)
                self._put(out, item)
        else:
            raise TypeError(f"no msgpack form for {type(value).__name__}")

    def _int(self, out: bytearray, n: int) -> None:
        if not INT64[0] <= n <= INT64[1]:
            raise ValueError(f"{n} is not a signed 64-bit integer")
        if self.wide:
            out += b"\xd3" + struct.pack(">q", n)
        elif 0 <= n < 128:
            out.append(n)
        elif -32 <= n < 0:
            out += struct.pack(">b", n)
        elif n >= 0:
            for code, fmt in ((0xCC, ">B"), (0xCD, ">H"), (0xCE, ">I"), (0xCF, ">Q")):
                if n < 2 ** (8 * struct.calcsize(fmt)):
                    out += bytes([code]) + struct.pack(fmt, n)
                    return
        else:
            for code, fmt in ((0xD0, ">b"), (0xD1, ">h"), (0xD2, ">i"), (0xD3, ">q")):
                if n >= -(2 ** (8 * struct.calcsize(fmt) - 1)):
                    out += bytes([code]) + struct.pack(fmt, n)
                    return

    def _head(self, out: bytearray, n: int, fix: int, c16: int, c32: int) -> None:
        if self.wide:
            out += bytes([c32]) + struct.pack(">I", n)
        elif n < 16:
            out.append(fix | n)
        elif n < 2**16:
            out += bytes([c16]) + struct.pack(">H", n)
        else:
            out += bytes([c32]) + struct.pack(">I", n)


def decode(data: bytes, formats: set[str] | None = None) -> Any:
    """One msgpack object that is the whole of ``data``, read strictly: a bin comes back as
    :class:`Bin`; ext types, NaN and infinities, ints beyond signed 64 bits, a map key that is
    not a str or comes twice, invalid UTF-8 and trailing bytes are a :class:`Mismatch`. The
    names of the formats met (``"uint64"``, ``"fixstr"``...) are added to ``formats``."""
    value, end = _read(data, 0, set() if formats is None else formats)
    if end != len(data):
        raise Mismatch(f"{len(data) - end} bytes after the msgpack object")
    return value


def _take(data: bytes, at: int, n: int) -> tuple[bytes, int]:
    if at + n > len(data):
        raise Mismatch("the frame ends inside a msgpack object")
    return data[at:at + n], at + n


def _num(data: bytes, at: int, fmt: str) -> tuple[Any, int]:
    raw, at = _take(data, at, struct.calcsize(fmt))
    return struct.unpack(fmt, raw)[0], at


#: The formats with a one-byte code of their own, by code (the fix- ones are ranges).
FORMATS = {0xC0: "nil", 0xC1: "never used", 0xC2: "false", 0xC3: "true", 0xC4: "bin8",
           0xC5: "bin16", 0xC6: "bin32", 0xC7: "ext8", 0xC8: "ext16", 0xC9: "ext32",
           0xCA: "float32", 0xCB: "float64", 0xCC: "uint8", 0xCD: "uint16", 0xCE: "uint32",
           0xCF: "uint64", 0xD0: "int8", 0xD1: "int16", 0xD2: "int32", 0xD3: "int64",
           0xD4: "fixext1", 0xD5: "fixext2", 0xD6: "fixext4", 0xD7: "fixext8",
           0xD8: "fixext16", 0xD9: "str8", 0xDA: "str16", 0xDB: "str32", 0xDC: "array16",
           0xDD: "array32", 0xDE: "map16", 0xDF: "map32"}
_INTS = {0xCC: ">B", 0xCD: ">H", 0xCE: ">I", 0xCF: ">Q", 0xD0: ">b", 0xD1: ">h", 0xD2: ">i",
         0xD3: ">q"}
_LENGTHS = {0xC4: ">B", 0xC5: ">H", 0xC6: ">I", 0xD9: ">B", 0xDA: ">H", 0xDB: ">I",
            0xDC: ">H", 0xDD: ">I", 0xDE: ">H", 0xDF: ">I"}


def format_name(code: int) -> str:
    if code <= 0x7F:
        return "positive fixint"
    if code >= 0xE0:
        return "negative fixint"
    if code <= 0x8F:
        return "fixmap"
    if code <= 0x9F:
        return "fixarray"
    if code <= 0xBF:
        return "fixstr"
    return FORMATS[code]


def _read(data: bytes, at: int, seen: set[str]) -> tuple[Any, int]:
    code, at = _num(data, at, ">B")
    name = format_name(code)
    seen.add(name)
    if code <= 0x7F:
        return code, at
    if code >= 0xE0:
        return code - 0x100, at
    if code in _LENGTHS:
        n, at = _num(data, at, _LENGTHS[code])
    else:
        n = code & (0x1F if name == "fixstr" else 0x0F)
    if "map" in name:
        return _map(data, at, n, seen)
    if "array" in name:
        return _array(data, at, n, seen)
    if "str" in name:
        return _str(data, at, n)
    if name.startswith("bin"):
        raw, at = _take(data, at, n)
        return Bin(raw), at
    if code == 0xC0:
        return None, at
    if code in (0xC2, 0xC3):
        return code == 0xC3, at
    if code in (0xCA, 0xCB):
        f, at = _num(data, at, ">f" if code == 0xCA else ">d")
        if not math.isfinite(f):
            raise Mismatch(f"a float that is not a number: {f}")
        return f, at
    if code in _INTS:
        i, at = _num(data, at, _INTS[code])
        if i > INT64[1]:
            raise Mismatch(f"{i} does not fit a signed 64-bit integer")
        return i, at
    raise Mismatch(f"{name} (0x{code:02x}): the protocol has none")


def _str(data: bytes, at: int, n: int) -> tuple[str, int]:
    raw, at = _take(data, at, n)
    try:
        return raw.decode("utf-8"), at  # strict: no surrogates, no overlong forms
    except UnicodeDecodeError as exc:
        raise Mismatch(f"a str that is not UTF-8: {exc}") from None


def _array(data: bytes, at: int, n: int, seen: set[str]) -> tuple[list[Any], int]:
    items = []
    for _ in range(n):
        item, at = _read(data, at, seen)
        items.append(item)
    return items, at


def _map(data: bytes, at: int, n: int, seen: set[str]) -> tuple[dict[str, Any], int]:
    result: dict[str, Any] = {}
    for _ in range(n):
        key, at = _read(data, at, seen)
        if type(key) is not str:
            raise Mismatch(f"a map key that is not a str: {key!r}")
        if key in result:
            raise Mismatch(f"the key {key!r} twice in one map")
        result[key], at = _read(data, at, seen)
    return result, at


# -- What PROTOCOL.md says each message holds -----------------------------------------------

#: Types as the pages write them: "int", "str", "bool", "float", "map", "list", "[int]",
#: "[map]", a name of a shape below, and "?" for nil allowed.
SEAT_INFO = {"seat": "int", "kind": "str", "taken": "bool", "role": "str?", "name": "str?",
             "away": "bool", "stand_in": "bool"}
SNAPSHOT = {"table": "str", "game": "str", "config": "map", "status": "str", "seq": "int",
            "version": "int", "turn": "int?", "seats": "[seat_info]", "you": "int?",
            "view": "map", "private": "map?", "deadline_s": "float?", "turn_timer_s": "float?",
            "turn_left_s": "float?"}
ENVELOPE = {"v": "int", "type": "str", "id": "int"}
SHAPES: dict[str, dict[str, str]] = {
    "seat_info": SEAT_INFO,
    "snapshot_fields": SNAPSHOT,
    "game_info": {"name": "str", "title": "str", "options": "[option]"},
    "option": {"name": "str", "default": "any", "choices": "list", "help": "str"},
    "event": {"type": "str", "*": "any"},
    "move": {"version": "int", "seat": "int", "events": "[event]"},
    "listing": {"table": "str", "game": "str", "config": "map", "status": "str", "seq": "int",
                "version": "int", "seats": "[seat_info]", "spectators": "int",
                "deadline_s": "float?", "turn_timer_s": "float?"},
    "record": {"game": "str", "config": "map", "seed": "int?", "actions": "[map]",
               "result": "map", "names": "[str]", "*": "any"},
    # Replies (section 4) and broadcasts (section 5).
    "welcome": {**ENVELOPE, "version": "int", "versions": "[int]", "games": "[game_info]",
                "pub": "str", "pub_port": "int", "heartbeat_s": "float", "presence_s": "float",
                "max_request_bytes": "int", "standby": "str?"},
    "created": {**ENVELOPE, "table": "str", "game": "str", "config": "map", "seats": "int",
                "bots": "[int]", "deadline_s": "float?", "turn_timer_s": "float?"},
    "joined": {**ENVELOPE, "table": "str", "seat": "int?", "role": "str", "token": "str",
               "standby": "str?", "snapshot": "snapshot_fields"},
    "snapshot": {**ENVELOPE, **SNAPSHOT},
    "accepted": {**ENVELOPE, "table": "str", "seat": "int", "seq": "int", "version": "int",
                 "status": "str", "turn": "int?", "events": "[event]", "private": "map?"},
    "private": {**ENVELOPE, "table": "str", "seat": "int", "seq": "int", "version": "int",
                "private": "map?"},
    "legal": {**ENVELOPE, "table": "str", "seat": "int", "seq": "int", "version": "int",
              "count": "int", "page": "int", "pages": "int", "next": "int?",
              "actions": "[map]"},
    "static": {**ENVELOPE, "game": "str", "config": "map", "static": "map"},
    "left": {**ENVELOPE, "table": "str", "seat": "int?"},
    "record_reply": {**ENVELOPE, "table": "str", "record": "record"},
    "history": {**ENVELOPE, "table": "str", "version": "int", "moves": "[move]",
                "more": "bool"},
    "tables": {**ENVELOPE, "tables": "[listing]", "next": "str?"},
    "here": {**ENVELOPE, "table": "str", "seat": "int?", "away": "[int]"},
    "stand_in": {**ENVELOPE, "table": "str", "seat": "int"},
    "error": {"v": "int", "type": "str", "id": "int?", "code": "str", "message": "str",
              "snapshot?": "snapshot_fields", "rule?": "str", "version?": "int", "seq?": "int",
              "active?": "str?"},
    "update": {"v": "int", "type": "str", "table": "str", "seq": "int", "version": "int",
               "status": "str", "turn": "int?", "events": "[event]", "seats": "[seat_info]",
               "private": "[int]", "view": "map"},
    "heartbeat": {"v": "int", "type": "str", "table": "str", "seq": "int", "version": "int",
                  "standby": "str?", "away": "[int]"},
}
#: The fields the pages type as floats (`float` or `float|nil`), at any depth: nowhere else may
#: a float appear ("no floats except where a field says so").
FLOAT_FIELDS = frozenset(("heartbeat_s", "presence_s", "deadline_s", "turn_timer_s",
                          "turn_left_s"))


def check_shape(value: Any, kind: str, where: str) -> None:
    """``value`` is of the type ``kind`` the pages give; raises :class:`Mismatch`."""
    if kind.endswith("?"):
        if value is None:
            return
        kind = kind[:-1]
    if kind == "any":
        return
    if kind.startswith("["):
        if type(value) is not list:
            raise Mismatch(f"{where}: a list, not {value!r:.80}")
        for i, item in enumerate(value):
            check_shape(item, kind[1:-1], f"{where}[{i}]")
        return
    simple = {"int": int, "str": str, "bool": bool, "float": float, "map": dict, "list": list}
    if kind in simple:
        if type(value) is not simple[kind]:
            raise Mismatch(f"{where}: {kind}, not {type(value).__name__} {value!r:.80}")
        return
    shape = SHAPES[kind]
    if type(value) is not dict:
        raise Mismatch(f"{where}: a map ({kind}), not {value!r:.80}")
    for name, field in shape.items():
        if name == "*":
            continue
        optional = name.endswith("?")
        name = name.rstrip("?")
        if name in value:
            check_shape(value[name], field, f"{where}.{name}")
        elif not optional:
            raise Mismatch(f"{where}: no {name} ({kind})")
    if "*" not in shape:
        extra = set(value) - {name.rstrip("?") for name in shape}
        if extra:
            raise Mismatch(f"{where}: fields the pages do not list ({kind}): {sorted(extra)}")


def check_scalars(value: Any, where: str) -> None:
    """Nothing the pages forbid anywhere in a message: no bin, and floats only in the fields
    that say so (a typed client reads a view's number into an integer)."""
    stack = [(where, value)]
    while stack:
        path, item = stack.pop()
        if type(item) is Bin:
            raise Mismatch(f"{path}: a bin value; the protocol sends text as str")
        if type(item) is float and path.rsplit(".", 1)[-1] not in FLOAT_FIELDS:
            raise Mismatch(f"{path}: a float ({item}) where the pages say nothing of floats")
        if type(item) is dict:
            stack.extend((f"{path}.{k}", v) for k, v in item.items())
        elif type(item) is list:
            stack.extend((f"{path}[]", v) for v in item)


def check_message(message: Any, shape: str | None = None) -> dict[str, Any]:
    """A decoded body as section 4 or 5 describes it (its ``type`` picks the shape)."""
    if type(message) is not dict:
        raise Mismatch(f"a body is one map, not {message!r:.80}")
    check_scalars(message, message.get("type", "?"))
    if message.get("v") != V or type(message.get("v")) is not int:
        raise Mismatch(f"v is not {V}: {message!r:.200}")
    kind = shape or {"record": "record_reply"}.get(message["type"], message["type"])
    if kind not in SHAPES:
        raise Mismatch(f"a message of a type the pages do not list: {message['type']!r}")
    check_shape(message, kind, message["type"])
    return message


# -- ZMTP 3.x, NULL mechanism -----------------------------------------------------------------

MORE, LONG, COMMAND = 0x01, 0x02, 0x04


class Zmtp:
    """One ZMTP connection over TCP: a DEALER, REQ or SUB peer of the host's ROUTER or PUB.
    ``minor`` is the ZMTP 3 revision announced (0: 3.0, where a subscription is a message whose
    first byte is 1; 1: 3.1, where it is a SUBSCRIBE command)."""

    def __init__(self, host: str, port: int, socket_type: str, *, minor: int = 1,
                 identity: bytes = b"") -> None:
        self.minor = minor
        self.sock = socket.create_connection((host, port), timeout=WAIT_S)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = bytearray()
        # Greeting (64 bytes): signature, version, mechanism, as-server, filler.
        self.sock.sendall(b"\xff" + bytes(8) + b"\x7f" + bytes([3, minor])
                          + b"NULL".ljust(20, b"\0") + b"\0" + bytes(31))
        peer = self._exactly(64)
        if peer[0] != 0xFF or peer[9] != 0x7F or peer[10] != 3:
            raise Mismatch(f"not a ZMTP 3 greeting: {peer!r}")
        if peer[12:32].rstrip(b"\0") != b"NULL":
            raise Mismatch(f"the host wants the {peer[12:32].rstrip(bytes(1))!r} mechanism")
        props = self._property(b"Socket-Type", socket_type.encode())
        if identity:
            props += self._property(b"Identity", identity)
        self._send(b"\x05READY" + props, COMMAND)
        ready = self._frame()
        if not ready[0] & COMMAND or not ready[1].startswith(b"\x05READY"):
            raise Mismatch(f"no READY from the host: {ready!r}")
        self.peer_properties = self._properties(ready[1][6:])

    @staticmethod
    def _property(name: bytes, value: bytes) -> bytes:
        return bytes([len(name)]) + name + struct.pack(">I", len(value)) + value

    @staticmethod
    def _properties(data: bytes) -> dict[bytes, bytes]:
        found, at = {}, 0
        while at < len(data):
            n = data[at]
            name = data[at + 1:at + 1 + n]
            (size,) = struct.unpack(">I", data[at + 1 + n:at + 5 + n])
            found[name] = data[at + 5 + n:at + 5 + n + size]
            at += 5 + n + size
        return found

    def _exactly(self, n: int) -> bytes:
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise Mismatch("the host closed the connection")
            self.buf += chunk
        data = bytes(self.buf[:n])
        del self.buf[:n]
        return data

    def _send(self, body: bytes, flags: int = 0, long: bool = False) -> None:
        self.sock.sendall(self._framed(body, flags, long))

    @staticmethod
    def _framed(body: bytes, flags: int, long: bool) -> bytes:
        if long or len(body) > 255:
            return bytes([flags | LONG]) + struct.pack(">Q", len(body)) + body
        return bytes([flags, len(body)]) + body

    def _frame(self) -> tuple[int, bytes]:
        (flags,) = self._exactly(1)
        if flags & LONG:
            (size,) = struct.unpack(">Q", self._exactly(8))
        else:
            (size,) = self._exactly(1)
        return flags, self._exactly(size)

    def send(self, frames: list[bytes], long: bool = False) -> None:
        # One write for the whole message: frames written one by one meet Nagle's algorithm
        # and the peer's delayed ACK (40 ms a request; libzmq sets TCP_NODELAY, as here).
        self.sock.sendall(b"".join(self._framed(frame, MORE if i < len(frames) - 1 else 0, long)
                                   for i, frame in enumerate(frames)))

    def subscribe(self, topic: bytes) -> None:
        if self.minor >= 1:
            self._send(b"\x09SUBSCRIBE" + topic, COMMAND)
        else:
            self._send(b"\x01" + topic)

    def _complete(self) -> bool:
        """Whether the buffer holds a whole message (commands included)."""
        at = 0
        while True:
            if len(self.buf) < at + 2:
                return False
            flags = self.buf[at]
            if flags & LONG:
                if len(self.buf) < at + 9:
                    return False
                (size,) = struct.unpack(">Q", self.buf[at + 1:at + 9])
                at += 9 + size
            else:
                at += 2 + self.buf[at + 1]
            if len(self.buf) < at:
                return False
            if not flags & MORE or flags & COMMAND:
                return True

    def ready(self, timeout_s: float) -> bool:
        """Wait up to ``timeout_s`` for a whole message; True if there is one."""
        end = time.monotonic() + timeout_s
        while not self._complete():
            left = max(0.0, end - time.monotonic())
            if not select.select([self.sock], [], [], left)[0]:
                return False
            chunk = self.sock.recv(65536)
            if not chunk:
                raise Mismatch("the host closed the connection")
            self.buf += chunk
        return True

    def recv(self) -> list[bytes]:
        """The next message's frames; answers a PING on the way (ZMTP 3.1 heartbeats)."""
        frames: list[bytes] = []
        while True:
            flags, body = self._frame()
            if flags & COMMAND:
                if body.startswith(b"\x04PING"):
                    self._send(b"\x04PONG" + body[7:], COMMAND)  # the ping's context back
                    continue
                raise Mismatch(f"a command the host should not send here: {body!r:.80}")
            frames.append(body)
            if not flags & MORE:
                return frames

    def close(self) -> None:
        self.sock.close()


# -- The bot ---------------------------------------------------------------------------------

class Seat:
    """One seat's connections and state (a replica, the Clone pattern of section 3)."""

    def __init__(self, host: str, port: int, *, style: str, rng: random.Random,
                 played: list[dict[str, Any]], formats: set[str]) -> None:
        # "req": a REQ peer that adds the empty delimiter itself, ZMTP 3.1, minimal msgpack.
        # "dealer": a DEALER that sends the body alone, ZMTP 3.0, the widest msgpack forms.
        self.style = style
        self.host = host
        self.encode = Encoder(wide=style == "dealer")
        self.req = Zmtp(host, port, "REQ" if style == "req" else "DEALER",
                        minor=1 if style == "req" else 0,
                        identity=b"ib-" + os.urandom(6).hex().encode())
        self.rng = rng
        self.next_id = rng.getrandbits(40)
        self.sub: Zmtp | None = None
        self.table = ""
        self.token = ""
        self.seat = -1
        self.state: dict[str, Any] = {}
        self.private_seq = -1
        self.awaiting: tuple[int, float] | None = None
        self.played = played  # every seat's accepted actions, in the order accepted
        self.formats = formats  # the msgpack formats of everything the host sent
        self.heard_s = time.monotonic()
        self.heartbeat_s = 1.0
        self.requests = 0

    def request(self, type_: str, shape: str | None = None, **fields: Any) -> dict[str, Any]:
        self.next_id += 1
        if type_ in ("create", "join"):
            fields["nonce"] = os.urandom(16).hex()
        body = self.encode({"v": V, "type": type_, "id": self.next_id, **fields})
        frames = [b"", body] if self.style == "req" else [body]
        while True:
            self.requests += 1
            self.req.send(frames, long=self.style == "dealer")
            if not self.req.ready(WAIT_S):
                raise Mismatch(f"no reply to {type_} in {WAIT_S} s")
            got = self.req.recv()
            if got[:-1] != frames[:-1]:
                raise Mismatch(f"the reply's envelope {got[:-1]!r} is not the request's")
            reply = check_message(decode(got[-1], self.formats), shape)
            if reply.get("code") in ("rate_limited", "storage_failed"):
                time.sleep(BACK_OFF_S)  # the protocol's own back-off (section 2)
                continue
            if reply["id"] != self.next_id:
                raise Mismatch(f"reply id {reply['id']} to request id {self.next_id}")
            return reply

    def hello(self) -> dict[str, Any]:
        welcome = self.request("hello", client=f"interop-{self.style}")
        if welcome["type"] != "welcome":
            raise Mismatch(f"hello: {welcome}")
        self.heartbeat_s = welcome["heartbeat_s"]
        self.sub = Zmtp(self.host, welcome["pub_port"], "SUB", minor=self.req.minor)
        return welcome

    def follow(self, table: str) -> None:
        assert self.sub is not None
        self.table = table
        self.sub.subscribe(f"table.{table}.".encode())  # first: then the snapshot

    def load(self, snapshot: dict[str, Any]) -> None:
        self.state = dict(snapshot)
        if snapshot["seq"] >= self.private_seq:
            self.private_seq = snapshot["seq"]
        self.awaiting = None

    def sync(self) -> None:
        r = self.request("sync", table=self.table, token=self.token)
        if r["type"] != "snapshot":
            raise Mismatch(f"sync: {r}")
        self.load(r)

    def my_turn(self) -> bool:
        return (self.state.get("status") == "running" and self.state["turn"] == self.seat
                and self.awaiting is None)

    def move(self) -> None:
        actions: list[dict[str, Any]] = []
        page: int | None = 0
        version = self.state["version"]
        while page is not None:
            r = self.request("legal", table=self.table, token=self.token, version=version,
                             page=page)
            if r["type"] != "legal":
                self._refused(r)
                return
            if r["page"] != page or r["version"] != version or len(r["actions"]) > 64:
                raise Mismatch(f"legal page {page} of version {version}: {r}")
            actions += r["actions"]
            page = r["next"]
        if len(actions) != r["count"]:
            raise Mismatch(f"legal: {len(actions)} actions, count {r['count']}")
        action = self.rng.choice(actions)
        r = self.request("act", table=self.table, seat=self.seat, token=self.token,
                         version=version, action=action)
        if r["type"] != "accepted":
            self._refused(r)
            return
        self.played.append({"seat": self.seat, **action})
        if r["seq"] >= self.private_seq:
            self.state["private"], self.private_seq = r["private"], r["seq"]
        self.awaiting = (r["seq"], time.monotonic() + ACK_WAIT_S)

    def _refused(self, r: dict[str, Any]) -> None:
        # Another seat (ours too) may have moved the table on: a refusal with a snapshot.
        if r["code"] not in ("stale_version", "not_your_turn") or "snapshot" not in r:
            raise Mismatch(f"refused: {r}")
        self.load(r["snapshot"])

    def broadcasts(self) -> None:
        """Take in every broadcast that has come."""
        assert self.sub is not None
        while self.sub.ready(0):
            frames = self.sub.recv()
            if len(frames) != 2:
                raise Mismatch(f"a broadcast of {len(frames)} frames")
            topic, body = frames
            msg = check_message(decode(body, self.formats))
            self.heard_s = time.monotonic()
            if topic != f"table.{self.table}.".encode() or msg["table"] != self.table:
                raise Mismatch(f"a broadcast of another topic: {topic!r}")
            if msg["type"] == "update":
                if msg["seq"] == self.state["seq"] + 1:
                    for key in ("seq", "version", "status", "turn", "seats", "view"):
                        self.state[key] = msg[key]
                    if self.seat in msg["private"]:
                        r = self.request("private", table=self.table, token=self.token)
                        if r["type"] != "private":
                            raise Mismatch(f"private: {r}")
                        if r["seq"] >= self.private_seq:
                            self.state["private"], self.private_seq = r["private"], r["seq"]
                elif msg["seq"] > self.state["seq"]:
                    self.sync()  # a gap (an update before the subscription took)
            elif msg["type"] == "heartbeat":
                if msg["seq"] > self.state["seq"]:
                    self.sync()
            else:
                raise Mismatch(f"a broadcast of type {msg['type']!r}")
        if self.awaiting is not None:
            seq, until_s = self.awaiting
            if self.state["seq"] >= seq:
                self.awaiting = None
            elif time.monotonic() > until_s:
                self.sync()
        if time.monotonic() - self.heard_s > 3 * self.heartbeat_s + WAIT_S:
            raise Mismatch("the host said nothing for far longer than its heartbeat")

    def close(self) -> None:
        self.req.close()
        if self.sub is not None:
            self.sub.close()


def play(address: str, game: str, seed: int = 0, players: int = 2,
         table_seed: int | None = None) -> dict[str, Any]:
    """Create a table of ``game``, take every seat (seat 0 as a player over REQ, the others as
    bots over DEALER), play random legal actions to the end; returns what was learned.
    ``table_seed`` deals the game (a host that lets its clients choose: ``--client-seeds``)."""
    host, _, port = address.removeprefix("tcp://").rpartition(":")
    rng = random.Random(seed)
    played: list[dict[str, Any]] = []
    formats: set[str] = set()
    seats = [Seat(host, int(port), style="req" if i == 0 else "dealer",
                  rng=random.Random(rng.random()), played=played, formats=formats)
             for i in range(players)]
    try:
        first = seats[0]
        welcome = first.hello()
        for seat in seats[1:]:
            seat.hello()
        if game not in [g["name"] for g in welcome["games"]]:
            raise Mismatch(f"the host serves no {game}")
        created = first.request("create", game=game, config={"players": players},
                                bots=list(range(1, players)), deadline_s=30,
                                seed=table_seed)
        if created["type"] != "created" or created["deadline_s"] != 30:
            raise Mismatch(f"create: {created}")
        table = created["table"]
        static = first.request("static", table=table)
        if static["type"] != "static" or static["game"] != game:
            raise Mismatch(f"static: {static}")
        for i, seat in enumerate(seats):
            seat.follow(table)
            joined = seat.request("join", table=table, role="player" if i == 0 else "bot",
                                  name=f"interop {i}")
            if joined["type"] != "joined" or joined["seat"] != i:
                raise Mismatch(f"join: {joined}")
            seat.seat, seat.token = joined["seat"], joined["token"]
            seat.load(joined["snapshot"])
        while not all(s.state["status"] == "over" for s in seats):
            for seat in seats:
                if seat.my_turn():
                    seat.move()
            waiting = [s.sub.sock for s in seats if s.sub is not None and not s.sub.buf]
            if len(waiting) == len(seats):  # nothing buffered: wait for the wire
                select.select(waiting, [], [], 0.05)
            for seat in seats:
                seat.broadcasts()
        record = first.request("record", table=table)
        history = first.request("history", table=table, since=0)
        listing = first.request("tables")
        if record["type"] != "record":
            raise Mismatch(f"record: {record}")
        return {"table": table, "record": record["record"], "history": history,
                "tables": listing, "played": played,
                "moves": len(played), "formats": formats,
                "requests": sum(s.requests for s in seats),
                "view": first.state["view"], "welcome": welcome}
    finally:
        for seat in seats:
            seat.close()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("address", help="HOST:PORT of the host's request socket")
    p.add_argument("--game", default="sagani")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--players", type=int, default=2)
    args = p.parse_args(argv)
    try:
        found = play(args.address, args.game, args.seed, args.players)
    except Mismatch as exc:
        print(f"mismatch: {exc}", file=sys.stderr)
        return 1
    result = found["record"]["result"]
    print(f"result scores={result['scores']} ranking={result['ranking']} "
          f"moves={found['moves']} requests={found['requests']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
