"""The msgpack codec: one map per frame, decoded with limits, checked before use."""

from __future__ import annotations

import re
from typing import Any

import msgpack
import msgspec

from sagani_net.protocol.errors import ProtocolError

#: The protocol version this code speaks; every frame carries it as ``v``.
VERSION = 1
#: The host's request port when nobody names one (its broadcasts: the next port).
DEFAULT_PORT = 47410
#: The largest TCP port: a host, a standby or a command line naming more is wrong.
MAX_PORT = 65535
#: Versions a host accepts (negotiation: a client learns them from a ``bad_version`` error).
SUPPORTED_VERSIONS = (1,)

#: Limits on a request frame the host decodes (bytes and element counts).
MAX_REQUEST_BYTES = 64 * 1024
MAX_STR_LEN = 4096
MAX_BIN_LEN = 0
MAX_ARRAY_LEN = 1024
MAX_MAP_LEN = 64
MAX_DEPTH = 8

#: Looser limits for what a client decodes from its host (views and records are larger).
MAX_HOST_FRAME_BYTES = 16 * 1024 * 1024


def _refuse_ext(code: int, data: bytes) -> Any:
    raise ProtocolError("bad_frame", f"msgpack ext type {code} is not allowed")


#: msgspec's encoder writes the bytes msgpack's ``packb(use_bin_type=True)`` writes (the
#: smallest format for each value, floats as float64, str as str, bytes as bin) in a quarter
#: of its time: every update and reply of the host is encoded here. Decoding stays with msgpack,
#: whose limits on each string, list and map say why a request is refused.
_ENCODER = msgspec.msgpack.Encoder()


def encode(message: dict[str, Any]) -> bytes:
    """One message as msgpack bytes (str as str, no ext types).

    >>> encode({"v": 1, "ok": True}) == msgpack.packb({"v": 1, "ok": True}, use_bin_type=True)
    True
    """
    return _ENCODER.encode(message)


def decode_request(frame: bytes) -> dict[str, Any]:
    """Decode a frame a client sent; raises ProtocolError on anything but a sane map.

    >>> decode_request(encode({"v": 1, "type": "hello", "id": 1}))["type"]
    'hello'
    """
    if len(frame) > MAX_REQUEST_BYTES:
        limit = MAX_REQUEST_BYTES
        raise ProtocolError("too_big", f"frame of {len(frame)} bytes; the limit is {limit}")
    message = _unpack(frame, MAX_STR_LEN, MAX_BIN_LEN, MAX_ARRAY_LEN, MAX_MAP_LEN)
    _check_tree(message, MAX_DEPTH)
    return message


def decode_message(frame: bytes) -> dict[str, Any]:
    """Decode a frame from the host (a reply, update or heartbeat)."""
    if len(frame) > MAX_HOST_FRAME_BYTES:
        raise ProtocolError("too_big", f"frame of {len(frame)} bytes")
    return _unpack(frame, -1, -1, -1, -1)


def _unpack(frame: bytes, max_str: int, max_bin: int, max_array: int, max_map: int
            ) -> dict[str, Any]:
    try:
        message = msgpack.unpackb(
            frame,
            raw=False,
            strict_map_key=True,
            ext_hook=_refuse_ext,
            max_str_len=max_str,
            max_bin_len=max_bin,
            max_array_len=max_array,
            max_map_len=max_map,
        )
    except ProtocolError:
        raise
    except msgpack.StackError:
        raise ProtocolError("too_deep", "nesting beyond the decoder's stack") from None
    except msgpack.ExtraData:
        raise ProtocolError("bad_frame", "bytes after the first msgpack object") from None
    except Exception as exc:  # the unpacker raises several types for garbage input
        raise _unreadable(exc) from None
    if not isinstance(message, dict):
        raise ProtocolError("bad_frame", f"a frame is one map, not {kind_of(message)}")
    return message


#: What a decoded value is, in the protocol's words (PROTOCOL.md calls msgpack arrays lists),
#: for refusals: a client in another language knows nil, not Python's NoneType.
_KINDS = {type(None): "nil", bool: "a boolean", int: "an integer", float: "a float",
          str: "a string", list: "a list", dict: "a map"}


def kind_of(value: Any) -> str:
    """What ``value`` is, in msgpack's words.

    >>> kind_of(None), kind_of([1]), kind_of(True)
    ('nil', 'a list', 'a boolean')
    """
    return _KINDS.get(type(value), "an unknown kind")


#: msgpack's words for what is over a limit (``"5000 exceeds max_str_len(4096)"``), and ours: the
#: message goes to clients in any language, which know neither Python's msgpack nor its options.
_OVER_LIMIT = re.compile(r"(\d+) exceeds max_(str|bin|array|map)_len\((\d+)\)")
_OVER_WHAT = {"str": "a string of {} bytes of UTF-8; the limit is {}",
              "array": "a list of {} elements; the limit is {}",
              "map": "a map of {} pairs; the limit is {}"}


def _unreadable(exc: Exception) -> ProtocolError:
    """The refusal of a frame the unpacker could not read, told in the protocol's words."""
    detail = str(exc)
    over = _OVER_LIMIT.search(detail)
    if over is not None:
        size, kind, limit = over.groups()
        if kind == "bin":
            return ProtocolError("too_big", "bin values are not allowed: send text as msgpack str")
        return ProtocolError("too_big", _OVER_WHAT[kind].format(size, limit))
    if isinstance(exc, UnicodeDecodeError):  # Python's codec words name no msgpack str
        bad = exc.object[exc.start]
        return ProtocolError("bad_frame", f"a str that is not UTF-8 (its byte {exc.start} is "
                             f"0x{bad:02x}); send text as UTF-8")
    if "map key" in detail:
        return ProtocolError("bad_frame", "every map key must be a string")
    if isinstance(exc, msgpack.FormatError):
        return ProtocolError("bad_frame", "not msgpack: a byte that begins no msgpack object")
    if "incomplete" in detail:
        return ProtocolError("bad_frame", "not msgpack: the frame ends inside an object")
    return ProtocolError("bad_frame", f"not msgpack: {detail or type(exc).__name__}")


#: The types msgpack decodes plain values to (exact types: a decoded timestamp is none of them).
_SCALARS = frozenset((str, int, float, bool, type(None)))


def _check_tree(value: Any, max_depth: int) -> None:
    # Iterative, so a hostile frame cannot blow Python's recursion limit here; scalars are
    # checked where they stand and never stacked, since a request is mostly scalars.
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > max_depth:
            raise ProtocolError("too_deep", f"nested deeper than {max_depth}")
        for child in item.values() if type(item) is dict else item:
            kind = type(child)
            if kind is dict or kind is list:
                stack.append((child, depth + 1))
            elif kind not in _SCALARS:
                # msgpack decodes the timestamp ext (-1) without asking ext_hook.
                raise ProtocolError("bad_frame", f"{kind.__name__} values are not allowed")
