"""Sagrada's words: one sentence for each event, as the console's log shows it.

>>> event_text({"type": "die_placed", "seat": 1, "die": "R3", "cell": [1, 3]}, ["Ann", "Bo"])
'Bo places R3 at 2,4.'
>>> event_text({"type": "round_ended", "round": 0, "track": ["Y5"]}, ["Ann", "Bo"])
'Round 1 ends; Y5 goes to the round track.'

The table's own events (a seat away, a deadline missed) have the table's words
(``sagani_net.game.TABLE_EVENTS``), which come first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sagani_net.game import Data
from sagani_net.games.sagrada.components import COLOUR_NAMES, COLOURS, TOOLS


def _cell(cell: list[int]) -> str:
    return f"{cell[0] + 1},{cell[1] + 1}"


def _dice(dice: list[str]) -> str:
    return " ".join(dice) if dice else "no dice"


def _tokens(n: int) -> str:
    return f"{n} favour token" + ("" if n == 1 else "s")


def _tool_used(e: Data, who: str, names: Sequence[str]) -> str:
    paid = f"paying {_tokens(e['tokens'])}" if "tokens" in e else f"paying with {e['paid']}"
    return f"{who} uses {TOOLS[e['tool']].name}, {paid}."


def _revealed(e: Data, who: str, names: Sequence[str]) -> str:
    solo = len(e["names"]) == 1  # no favour tokens in the solo game
    plays = [f"{names[s]} plays {name}" + ("" if solo else f" ({_tokens(e['tokens'][s])})")
             for s, name in enumerate(e["names"])]
    return "Windows revealed: " + "; ".join(plays) + "."


def _round_started(e: Data, who: str, names: Sequence[str]) -> str:
    order = ", ".join(names[s] for s in e["order"])
    return f"Round {e['round'] + 1}: the pool is {_dice(e['pool'])}; turns: {order}."


def _game_over(e: Data, who: str, names: Sequence[str]) -> str:
    scores = ", ".join(f"{names[s]} {e['scores'][s]}" for s in e["ranking"])
    if "target" in e:
        verdict = "won" if e["won"] else "lost"
        return f"The game is over: {scores} against a target of {e['target']}: {verdict}."
    return f"The game is over: {scores}. {names[e['ranking'][0]]} wins."


SENTENCES: dict[str, Callable[[Data, str, Sequence[str]], str]] = {
    "pattern_chosen": lambda e, who, n: f"{who} has chosen a window pattern.",
    "patterns_revealed": _revealed,
    "round_started": _round_started,
    "die_drafted": lambda e, who, n: f"{who} drafts {e['die']}.",
    "die_placed": lambda e, who, n: f"{who} places {e['die']} at {_cell(e['cell'])}.",
    "tool_used": _tool_used,
    "die_set": lambda e, who, n: f"{who} sets the die to {e['die']}.",
    "die_swapped": lambda e, who, n: (f"{who} swaps it for {e['die']} from round "
                                      f"{e['round'] + 1} of the round track, leaving {e['left']}."),
    "die_rerolled": lambda e, who, n: f"{who} re-rolls the die: {e['die']}.",
    "die_turned": lambda e, who, n: f"{who} turns the die over: {e['die']}.",
    "die_redrawn": lambda e, who, n: (f"{who} puts {e['returned']} back in the bag and draws "
                                      f"a {COLOUR_NAMES[COLOURS.index(e['colour'])]} die."),
    "pool_rerolled": lambda e, who, n: f"{who} re-rolls the pool: {_dice(e['pool'])}.",
    "second_turn_skipped": lambda e, who, n: f"{who} will skip their second turn this round.",
    "die_returned": lambda e, who, n: f"{e['die']} goes back to the pool.",
    "die_moved": lambda e, who, n: (f"{who} moves {e['die']} from {_cell(e['from'])} to "
                                    f"{_cell(e['to'])}."),
    "turn_passed": lambda e, who, n: f"{who} ends the turn.",
    "round_ended": lambda e, who, n: (f"Round {e['round'] + 1} ends; {_dice(e['track'])} "
                                      f"{'goes' if len(e['track']) == 1 else 'go'} to the "
                                      "round track."),
    # The host's own event (PROTOCOL.md, deadlines): its default move follows.
    "game_over": _game_over,
}


def event_text(event: Data, names: Sequence[str]) -> str:
    """One sentence for one event; ``names[seat]`` is how to call a seat."""
    seat = event.get("seat")
    who = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "Someone"
    sentence = SENTENCES.get(event.get("type", ""))
    if sentence is None:
        details = ", ".join(f"{k} {v}" for k, v in event.items() if k not in ("type", "seat"))
        return f"{who}: {event.get('type')} {details}".strip()
    return sentence(event, who, names)
