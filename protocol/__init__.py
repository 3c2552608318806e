"""The wire protocol of sagani_net: message catalogue, msgpack codec, version and errors.

The full specification, for people writing clients in any language, is ``PROTOCOL.md`` beside
this file (the game-agnostic core), with one page per game in ``games/`` and the record format
in ``RECORD.md``; ``vectors/`` holds golden msgpack frames with their meaning.
"""

from sagani_net.protocol.errors import ERROR_CODES, ProtocolError
from sagani_net.protocol.messages import REQUESTS, check_request, error, reply, request_id, topic
from sagani_net.protocol.wire import DEFAULT_PORT, VERSION, decode_message, decode_request, encode

__all__ = [
    "DEFAULT_PORT",
    "ERROR_CODES",
    "REQUESTS",
    "VERSION",
    "ProtocolError",
    "check_request",
    "decode_message",
    "decode_request",
    "encode",
    "error",
    "reply",
    "request_id",
    "topic",
]
