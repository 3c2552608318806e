"""Error codes of the wire protocol: every refusal is a code plus a sentence.

The codes are part of the protocol (see PROTOCOL.md, "Error codes"); clients branch on the
code, people read the sentence.
"""

from __future__ import annotations

from typing import Any

#: Every code the host may send, with what it means. The keys are the wire values.
ERROR_CODES: dict[str, str] = {
    # the frame itself
    "bad_frame": "not a single msgpack map (not msgpack, trailing bytes, wrong framing)",
    "too_big": "the frame, or a string, list or map in it, is over a limit",
    "too_deep": "lists and maps nested deeper than the limit",
    "bad_version": "the protocol version is missing or not spoken by this host",
    "unknown_type": "no request of that type",
    "missing_field": "a required field is absent",
    "extra_field": "a field this request does not have",
    "bad_field": "a field has the wrong type or value",
    # tables and seats
    "unknown_game": "the host has no game of that name",
    "bad_config": "the game refuses the table config",
    "no_table": "no table with that id",
    "table_full": "no free seat of the asked kind",
    "seat_taken": "the asked seat is held by another session",
    "bad_seat": "no such seat at this table",
    "bot_seat": "the asked seat is kept for bots; only a bot may take it",
    "bad_token": "the token is unknown or not for that table and seat",
    "not_a_player": "a spectator's token cannot act and has no private data",
    "not_away": "a stand-in is only for the seat of a player who is away",
    # playing
    "not_started": "the table is still waiting for players",
    "game_over": "the game has ended",
    "not_over": "the record of a running game is secret",
    "record_removed": "the host keeps only its newest finished games; this one's was removed",
    "stale_version": "the action was made on an older state; a fresh snapshot is attached",
    "not_your_turn": "another seat is to decide; a fresh snapshot is attached",
    "bad_action": "the action is not well formed for this game",
    "illegal_action": "the rules refuse the action; a fresh snapshot is attached",
    "already_accepted": "an old act retried: it was played long ago; a fresh snapshot is attached",
    # limits (host capacity; see Limits in sagani_net.host)
    "too_many_tables": "the host holds as many tables as it allows",
    "too_many_sessions": "the host holds as many sessions as it allows",
    "too_many_spectators": "the table has as many spectators as it allows",
    "rate_limited": "too many requests from this peer; slow down",
    # the host's own fault
    "internal": "the host failed on this request; it keeps serving",
    "storage_failed": "the host cannot write its data dir (full or read-only); nothing changed",
    # a pair of hosts (issue 14)
    "not_active": "this host is the standby and still hears the active one; ask that one",
}


class ProtocolError(Exception):
    """A request the host refuses: a code from :data:`ERROR_CODES`, a sentence, and any extra
    reply fields (``snapshot`` for refused actions, ``rule`` for the game's own reason)."""

    def __init__(self, code: str, message: str, **fields: Any) -> None:
        assert code in ERROR_CODES, code
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.fields = fields


def logged(code: str, message: str, rule: object = None) -> str:
    """A refusal as a log line says it. A refused action's sentence is for its seat alone (it
    may name a card of the hand: "card 17 shows ghost, not rotate"), and a log may be read by
    anyone (the host's screen at a party, where house bots log too): with the game's ``rule``
    the code and the rule alone.

    >>> logged("illegal_action", "card 17 shows ghost, not rotate", "wrong_icon")
    'illegal_action (wrong_icon)'
    >>> logged("seat_taken", "seat 1 is taken")
    'seat_taken: seat 1 is taken'
    """
    return f"{code} ({rule})" if isinstance(rule, str) else f"{code}: {message}"
