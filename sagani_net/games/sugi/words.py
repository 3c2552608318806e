"""Sugi's events in words: the sentences the console logs.

>>> event_text({"type": "card_placed", "seat": 1, "slot": 0}, ["ann", "bo"])
'bo puts a card face down in the timeline at t1'
>>> event_text({"type": "samurai_moved", "samurai": "red", "from": [1, 0], "to": [2, 0]}, [])
'red moves from a1 to a2'
>>> event_text({"type": "drew", "seat": 0, "count": 1}, ["ann"])
'ann draws 1 card'
"""

from __future__ import annotations

from collections.abc import Sequence

from sagani_net.game import Data
from sagani_net.games.sugi.edition import LANES, space_name

#: Event type -> sentence; ``{who}`` is the seat's name, other fields as in the event.
EVENT_TEXT = {
    "card_placed": "{who} puts a card face down in the timeline at t{slot1}",
    "action_played": "{who} discards card {card} to {action}",
    "tile_rotated": "{who} turns the tile on {space_name} by {by} degrees",
    "card_rotated": "{who} turns timeline card t{slot1} by {by} degrees",
    "card_removed": "{who} sends timeline card t{slot1} to the bottom of the deck",
    "drew": "{who} draws {count_cards}",
    "ghost_moved": "the ghost moves to {to_name}",
    "ghost_blocked": "the ghost is stopped by an obstacle towards {towards_name}",
    # Not "steps back": a ghost that came from the Temple stays where it is (S12).
    "ghost_stepped_back": "{samurai} cannot be pushed: the ghost ends its move on {to_name}",
    "samurai_pushed": "{who} pushes {samurai} from {from_name} to {to_name}",
    "samurai_moved": "{samurai} moves from {from_name} to {to_name}",
    "samurai_blocked": "{samurai} cannot go {direction} ({reason})",
    "samurai_arrived": "{samurai} reaches the Temple, pedestal {pedestal}",
    "tile_revealed": "the tile on {space_name} turns face up (tile {tile}, {rotation} degrees)",
    "resolution": "{who} resolves the timeline ({cards} cards)",
    "card_revealed": "t{slot1}: card {card} turned {rotation} degrees",
    "maintenance": "maintenance: discard and draw up to 4",
    "discarded": "{who} discards {cards_text}",
    "deck_reshuffled": "the discards are shuffled into a new deck of {cards}",
    "round_started": "round {round} begins with {who}",
    "temple_call": "the Temple calls: every samurai in columns 0-3 steps north",
    "temple_summons": "the Temple summons: every samurai steps north, past walls and the ghost",
    "game_over": "game over: {scores_text}",
}


def event_text(event: Data, names: Sequence[str]) -> str:
    """One sentence for one event."""
    fields = dict(event)
    seat = event.get("seat")
    fields["who"] = names[seat] if isinstance(seat, int) else "nobody"
    for key in ("space", "to", "from", "towards"):
        if key in event:
            value = event[key]
            fields[f"{key}_name"] = (
                "the Temple" if value is None else space_name(value[0] * LANES + value[1])
            )
    if "slot" in event:
        fields["slot1"] = event["slot"] + 1
    if isinstance(event.get("count"), int):
        fields["count_cards"] = f"{event['count']} card" + ("" if event["count"] == 1 else "s")
    if "cards" in event and isinstance(event["cards"], list):
        fields["cards_text"] = ", ".join(map(str, event["cards"])) or "nothing"
    if event["type"] == "game_over":
        fields["scores_text"] = ", ".join(f"{names[s]} {event['scores'][s]}"
                                          for s in event["ranking"])
    template = EVENT_TEXT.get(event["type"])
    if template is None:
        return " ".join(f"{k}={v}" for k, v in event.items())
    return template.format(**fields)
