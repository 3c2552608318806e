"""Hands' events in words: the sentences the console logs.

>>> event_text({"type": "gave", "seat": 0, "to": 1}, ["ann", "bo"])
'ann gave a card to bo'
>>> event_text({"type": "game_over", "scores": [9, 4], "ranking": [0, 1]}, ["ann", "bo"])
'game over: ann 9, bo 4'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sagani_net.game import Data

#: Event type -> its sentence, from the event and the seats' names.
SENTENCES: dict[str, Callable[[Data, Sequence[str]], str]] = {
    "played": lambda e, names: f"{names[e['seat']]} played {e['card']}",
    "gave": lambda e, names: f"{names[e['seat']]} gave a card to {names[e['to']]}",
    "drew": lambda e, names: f"{names[e['seat']]} drew a card",
    "game_over": lambda e, names: "game over: " + ", ".join(
        f"{names[s]} {e['scores'][s]}" for s in e["ranking"]),
}


def event_text(event: Data, names: Sequence[str]) -> str:
    """One sentence for one event; ``names[seat]`` is how to call a seat."""
    sentence = SENTENCES.get(event["type"])
    return sentence(event, names) if sentence else event["type"]
