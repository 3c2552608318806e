"""Hands, a tiny card game with a secret hand per seat: the test double of a game with private
data (Sagani has none), so that the network tests drive the private-data path for real.

Tests register it for themselves (``toy_registered`` in conftest.py puts it in
``sagani_net.games.PACKAGES`` as "toy"). It implements the seam of :mod:`sagani_net.game`:

- 16 cards, 1 to 16, shuffled by the seed; each seat is dealt 3 (its hand, private); the rest
  is the pile, face down.
- On a turn a seat either plays a card from its hand face up (and draws the pile's top card,
  if any), or, once a game, gives a card to the next seat (both hands change: two seats'
  private data from one action).
- Seats without cards are skipped; the game ends when every hand is empty. A seat scores the
  cards it played; more points rank first, then the lower seat.

>>> state = GAME.new_state({"players": 2}, seed=1)
>>> state.private(0)
{'hand': [1, 3, 11]}
>>> events = state.apply(state.parse_action({"type": "give", "card": 3}))
>>> events
[{'type': 'gave', 'seat': 0, 'to': 1}]
>>> state.private_seats(events), state.private(1)
([0, 1], {'hand': [3, 6, 7, 15]})
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from sagani_net.game import Data, Option, Result, RuleError, check_options, without_seat

CARDS = tuple(range(1, 17))
HAND = 3
GIVES = 1
#: A played or given card, as the game's own value: (kind, card).
Action = tuple[str, int]


class State:
    """A game of Hands in progress."""

    def __init__(self, players: int, seed: int | None, deck: list[int]) -> None:
        self.players = players
        self.seed = seed
        self.deck = tuple(deck)
        self.hands = [sorted(deck[s * HAND : (s + 1) * HAND]) for s in range(players)]
        self.pile = list(deck[players * HAND :])  # top first
        self.played: list[list[int]] = []  # [seat, card], in order
        self.gives_left = [GIVES] * players
        self.points = [0] * players
        self.seat: int | None = 0
        self.history: list[tuple[int, Data]] = []
        self.origin = 0

    @property
    def version(self) -> int:
        return self.origin + len(self.history)

    @property
    def current_seat(self) -> int | None:
        return self.seat

    def legal_actions(self) -> list[Action]:
        if self.seat is None:
            return []
        hand = self.hands[self.seat]
        gives = [("give", c) for c in hand] if self.gives_left[self.seat] else []
        return [("play", c) for c in hand] + gives

    def default_action(self) -> Action:
        return self.legal_actions()[0]  # the lowest card, played

    def action_data(self, action: Action) -> Data:
        return {"type": action[0], "card": action[1]}

    def parse_action(self, data: Data) -> Action:
        if set(data) != {"type", "card"} or data["type"] not in ("play", "give"):
            raise RuleError("bad_action", 'an action is {"type": "play"|"give", "card": int}')
        if type(data["card"]) is not int:
            raise RuleError("bad_action", "card must be an integer")
        return (data["type"], data["card"])

    def apply(self, action: Action) -> list[Data]:
        seat = self.seat
        if seat is None:
            raise RuleError("game_over", "the game is over")
        kind, card = action
        hand = self.hands[seat]
        if card not in hand:
            raise RuleError("not_in_hand", f"card {card} is not in your hand")
        if kind == "give" and not self.gives_left[seat]:
            raise RuleError("no_gives_left", "you gave a card already")
        hand.remove(card)
        events: list[Data]
        if kind == "give":
            to = (seat + 1) % self.players
            self.hands[to] = sorted([*self.hands[to], card])
            self.gives_left[seat] -= 1
            events = [{"type": "gave", "seat": seat, "to": to}]
        else:
            self.played.append([seat, card])
            self.points[seat] += card
            events = [{"type": "played", "seat": seat, "card": card}]
            if self.pile:
                self.hands[seat] = sorted([*hand, self.pile.pop(0)])
                events.append({"type": "drew", "seat": seat})
        self.history.append((seat, self.action_data(action)))
        self.seat = next((s % self.players for s in range(seat + 1, seat + 1 + self.players)
                          if self.hands[s % self.players]), None)
        if self.seat is None:
            result = self.result()
            assert result is not None
            events.append({"type": "game_over", **result.to_data()})
        return events

    def view(self, seat: int | None = None, shared: bool = False) -> Data:
        data: Data = {"game": "toy", "players": self.players, "version": self.version,
                      "turn": self.seat, "hand_sizes": [len(h) for h in self.hands],
                      "pile": len(self.pile), "played": [p[:] for p in self.played],
                      "gives_left": self.gives_left[:], "scores": self.points[:]}
        if self.is_over():
            result = self.result()
            assert result is not None
            data.update(result=result.to_data(), seed=self.seed, deck=list(self.deck))
        if seat is not None:
            data["you"] = seat
        return data

    def private(self, seat: int) -> Data | None:
        return {"hand": self.hands[seat][:]}

    def private_seats(self, events: list[Data]) -> list[int]:
        seats = {e["seat"] for e in events if e["type"] in ("played", "gave")}
        seats |= {e["to"] for e in events if e["type"] == "gave"}
        return sorted(seats)

    def is_over(self) -> bool:
        return self.seat is None

    def scores(self) -> list[int]:
        return self.points[:]

    def result(self) -> Result | None:
        if not self.is_over():
            return None
        ranking = sorted(range(self.players), key=lambda s: (-self.points[s], s))
        return Result(tuple(self.points), tuple(ranking))

    def to_record(self) -> Data:
        record: Data = {"game": "toy", "config": {"players": self.players}, "seed": self.seed,
                        "deck": list(self.deck),
                        "actions": [{"seat": s, **a} for s, a in self.history]}
        result = self.result()
        if result is not None:
            record["result"] = result.to_data()
        return record

    def clone(self) -> State:
        c = State.__new__(State)
        c.__dict__.update(self.__dict__)
        c.hands = [h[:] for h in self.hands]
        c.pile, c.played = self.pile[:], [p[:] for p in self.played]
        c.gives_left, c.points, c.history = self.gives_left[:], self.points[:], self.history[:]
        return c


class Hands:
    """Hands behind the :class:`sagani_net.game.Game` seam."""

    name = "toy"
    title = "Hands (test game)"
    options = (Option("players", 2, (2, 3), "how many play"),)

    def parse_config(self, data: Any) -> Data:
        return check_options(self.options, data)

    def seats(self, config: Data) -> int:
        return int(config["players"])

    def new_state(self, config: Data, seed: int) -> State:
        deck = list(CARDS)
        random.Random(seed).shuffle(deck)
        return State(config["players"], seed, deck)

    def from_record(self, record: Data) -> State:
        # The record's deck is what was dealt; its seed only says where it came from.
        if sorted(record["deck"]) != list(CARDS):
            raise RuleError("bad_record", "the deck is not the 16 cards, each once")
        state = State(self.parse_config(record["config"])["players"], record["seed"],
                      record["deck"])
        for n, data in enumerate(record["actions"]):
            if data["seat"] != state.current_seat:
                raise RuleError("wrong_seat", f"action {n}: not seat {data['seat']}'s turn")
            state.apply(state.parse_action(without_seat(data)))
        return state

    def determinize(
        self, view: Data, private: Data | None, seat: int | None, rng: random.Random
    ) -> State:
        known = {card for _, card in view["played"]} | set(private["hand"] if private else ())
        unknown = [c for c in CARDS if c not in known]
        rng.shuffle(unknown)
        state = State(view["players"], None, [])
        for s, size in enumerate(view["hand_sizes"]):
            if private is not None and s == seat:
                state.hands[s] = list(private["hand"])
            else:
                state.hands[s], unknown = sorted(unknown[:size]), unknown[size:]
        state.pile = unknown
        state.played = [p[:] for p in view["played"]]
        state.gives_left, state.points = view["gives_left"][:], view["scores"][:]
        state.seat, state.origin = view["turn"], view["version"]
        return state

    def action_text(self, data: Data) -> str:
        return f"{data['type']} {data['card']}"

    def parse_text(self, text: str) -> Data:
        words = text.split()
        if len(words) != 2 or words[0] not in ("play", "give") or not words[1].isdigit():
            raise RuleError("bad_action", "type play N or give N")
        return {"type": words[0], "card": int(words[1])}

    def event_text(self, event: Data, names: Sequence[str]) -> str:
        who = names[event["seat"]] if "seat" in event else ""
        if event["type"] == "played":
            return f"{who} played {event['card']}"
        if event["type"] == "gave":
            return f"{who} gave a card to {names[event['to']]}"
        if event["type"] == "drew":
            return f"{who} drew a card"
        return f"{who} {event['type']}".strip()

    def static_data(self, config: Data) -> Data:
        return {"cards": list(CARDS), "hand": HAND, "gives": GIVES}


GAME = Hands()
