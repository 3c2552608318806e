"""Sagani's events and actions in words: the sentences the console logs.

>>> event_text({"type": "tile_placed", "seat": 1, "tile": 8, "cell": [1, -1], "rotation": 90},
...            ["ann", "bo"])
'bo placed fire 10 at 1,-1 rot 90'
>>> event_text({"type": "cacophony_taken", "seat": 0, "count": 1, "score": 7}, ["ann"])
'ann took 1 cacophony disc, score 7'
"""

from __future__ import annotations

from collections.abc import Sequence

from sagani_net.game import Data, plural
from sagani_net.games.sagani.tiles import TILES

SOURCES = {"offer": "the offer", "storage": "storage", "pile": "the draw pile"}


def tile_name(tile: int) -> str:
    """``fire 6`` for a tile id."""
    t = TILES[tile]
    return f"{t.element} {t.value}"


def event_text(event: Data, names: Sequence[str]) -> str:
    """One event in one sentence; ``names[seat]`` is how to call a seat."""
    kind = event.get("type", "?")
    seat = event.get("seat")
    who = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else ""
    if kind == "tile_taken":
        return f"{who} took {tile_name(event['tile'])} from {SOURCES.get(event['source'], '?')}"
    if kind == "tile_placed":
        x, y = event["cell"]
        return f"{who} placed {tile_name(event['tile'])} at {x},{y} rot {event['rotation']}"
    if kind == "arrow_covered":
        x, y = event["cell"]
        return f"{who}: arrow {event['arrow']} of {x},{y} covered"
    if kind == "tile_flipped":
        x, y = event["cell"]
        return f"{who}: tile at {x},{y} flipped, +{event['points']} -> {event['score']}"
    if kind == "cacophony_taken":
        discs = plural(event["count"], "cacophony disc")
        return f"{who} took {discs}, score {event['score']}"
    if kind == "tile_stored":
        return f"{who} moved {tile_name(event['tile'])} to storage"
    if kind == "player_passed":
        return f"{who} passed"
    if kind == "offer_refilled":
        return "offer refilled: " + ", ".join(tile_name(t) for t in event["tiles"])
    if kind == "intermezzo_started":
        order = ", ".join(names[s] for s in event["order"])
        return f"intermezzo! storage is full; choosing order: {order}"
    if kind == "intermezzo_ended":
        return f"intermezzo over, {plural(event['taken'], 'tile')} taken"
    if kind == "storage_cleared":
        return "nobody took a storage tile: all four leave the game"
    if kind == "end_triggered":
        return f"{who} reached {event['score']}: the game ends after this round"
    if kind == "last_round":
        return f"the draw pile is low ({event['pile']}): this round is the last"
    if kind == "bonus":
        return f"bonus +{event['points']} (total {event['total']})"
    if kind == "tile_set_aside":
        return f"a {event['element']} {event['value']} was set aside for the end"
    if kind == "game_over":
        ranking = ", ".join(f"{names[s]} {event['scores'][s]}" for s in event["ranking"])
        return f"game over: {ranking}"
    if kind == "seat_taken":
        return f"{event.get('name') or 'someone'} sat down at seat {event['seat'] + 1}"
    if kind == "seat_left":
        return f"{who} left the table"
    if kind == "game_started":
        return "the game starts"
    return " ".join(f"{k}={v}" for k, v in event.items())
