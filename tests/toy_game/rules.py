"""Hands, a tiny card game with a secret hand per seat: the test double of a game with private
data (Sagani has none), so that the network tests drive the private-data path for real, and
the proof that a new game is its rules, its words, its UI, its page and one registry line.

Tests register it for themselves (``toy_registered`` in conftest.py puts it in
``sagani_net.games.PACKAGES`` as "toy"). It implements the seam of :mod:`sagani_net.game`
with the seam's own base classes (:class:`~sagani_net.game.Engine`,
:class:`~sagani_net.game.Rules`); RULES.md beside it says how it is played.

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
from typing import Any, NamedTuple

from sagani_net import game as seam
from sagani_net.game import OVER, Data, Engine, Option, Result, RuleError, Rules
from toy_game import words

CARDS = tuple(range(1, 17))
HAND = 3
GIVES = 1
KINDS = ("play", "give")
PLAY = "play"


class Action(NamedTuple):
    """A card played face up or given to the next seat: ``play 3``, ``give 3``."""

    type: str
    card: int

    def to_dict(self) -> Data:
        return {"type": self.type, "card": self.card}

    @classmethod
    def from_dict(cls, data: Any) -> Action:
        if not isinstance(data, dict) or set(data) != {"type", "card"} or data[
                "type"] not in KINDS:
            raise RuleError("bad_action", 'an action is {"type": "play"|"give", "card": int}')
        if not seam.is_int(data["card"]):
            raise RuleError("bad_action", "card must be an integer")
        return cls(data["type"], data["card"])

    @classmethod
    def parse(cls, text: str) -> Action:
        words = text.split()
        if len(words) != 2 or words[0] not in KINDS or not words[1].isdigit():
            raise RuleError("bad_action", "type play N or give N")
        return cls(words[0], int(words[1]))

    def __str__(self) -> str:
        return f"{self.type} {self.card}"


class State(Engine):
    """A game of Hands in progress."""

    action_type = Action

    def __init__(self, players: int, seed: int | None, deck: list[int]) -> None:
        self.players = players
        self.seed = seed
        self.deck = tuple(deck)
        self.hands = [sorted(deck[s * HAND : (s + 1) * HAND]) for s in range(players)]
        self.pile = list(deck[players * HAND :])  # top first
        self.played: list[list[int]] = []  # [seat, card], in order
        self.gives_left = [GIVES] * players
        self.points = [0] * players
        self.phase = PLAY
        self.seat = 0
        self.history: list[tuple[int, Data]] = []
        self.origin = 0

    def legal_actions(self) -> list[Action]:
        if self.phase == OVER:
            return []
        hand = self.hands[self.seat]
        gives = [Action("give", c) for c in hand] if self.gives_left[self.seat] else []
        return [Action("play", c) for c in hand] + gives

    def default_action(self) -> Action:
        return self.legal_actions()[0]  # the lowest card, played

    # An action is any (kind, card) pair: the tests' own tuples play as well as an Action.
    def _check(self, action: Action) -> None:
        if self.phase == OVER:
            raise RuleError("game_over", "the game is over")
        kind, card = action
        if card not in self.hands[self.seat]:
            raise RuleError("not_in_hand", f"card {card} is not in your hand")
        if kind == "give" and not self.gives_left[self.seat]:
            raise RuleError("no_gives_left", "you gave a card already")

    def _do(self, action: Action, events: list[Data] | None) -> None:
        seat, (kind, card) = self.seat, action
        hand = self.hands[seat]
        hand.remove(card)
        said: list[Data] = []
        if kind == "give":
            to = (seat + 1) % self.players
            self.hands[to] = sorted([*self.hands[to], card])
            self.gives_left[seat] -= 1
            said.append({"type": "gave", "seat": seat, "to": to})
        else:
            self.played.append([seat, card])
            self.points[seat] += card
            said.append({"type": "played", "seat": seat, "card": card})
            if self.pile:
                self.hands[seat] = sorted([*hand, self.pile.pop(0)])
                said.append({"type": "drew", "seat": seat})
        self.history.append((seat, Action(kind, card).to_dict()))
        after = [s % self.players for s in range(seat + 1, seat + 1 + self.players)]
        following = next((s for s in after if self.hands[s]), None)
        if following is None:
            self.phase = OVER
            said.append({"type": "game_over", **self._result().to_data()})
        else:
            self.seat = following
        if events is not None:
            events.extend(said)

    def view(self, seat: int | None = None, shared: bool = False) -> Data:
        data: Data = {"game": "toy", "players": self.players, "version": self.version,
                      "turn": self.current_seat, "hand_sizes": [len(h) for h in self.hands],
                      "pile": len(self.pile), "played": [p[:] for p in self.played],
                      "gives_left": self.gives_left[:], "scores": self.points[:]}
        if self.is_over():
            data.update(result=self._result().to_data(), seed=self.seed, deck=list(self.deck))
        if seat is not None:
            data["you"] = seat
        return data

    def private(self, seat: int) -> Data | None:
        return {"hand": self.hands[seat][:]}

    def private_seats(self, events: list[Data]) -> list[int]:
        seats = {e["seat"] for e in events if e["type"] in ("played", "gave")}
        seats |= {e["to"] for e in events if e["type"] == "gave"}
        return sorted(seats)

    def scores(self) -> list[int]:
        return self.points[:]

    def result(self) -> Result | None:
        return self._result() if self.is_over() else None

    def _result(self) -> Result:
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


class Hands(Rules):
    """Hands behind the :class:`sagani_net.game.Game` seam."""

    name = "toy"
    title = "Hands (test game)"
    options = (Option("players", 2, (2, 3), "how many play"),)
    action_type = Action
    words = words

    def new_state(self, config: Data, seed: int) -> State:
        deck = list(CARDS)
        random.Random(seed).shuffle(deck)
        return State(config["players"], seed, deck)

    def replay(self, record: Data) -> tuple[State, list[Data]]:
        # The record's deck is what was dealt; its seed only says where it came from.
        seam.check_record(record, "toy", lists=("deck", "actions"), needs=("config",))
        if sorted(record["deck"]) != list(CARDS):
            raise RuleError("bad_record", "the deck is not the 16 cards, each once")
        state = State(self.parse_config(record["config"])["players"], record.get("seed"),
                      record["deck"])
        events = seam.replay_actions(state, record["actions"])
        result = state.result()
        seam.check_result(record, None if result is None else result.to_data())
        return state, events

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
        if view["turn"] is None:
            state.phase = OVER
        else:
            state.seat = view["turn"]
        state.origin = view["version"]
        return state

    def static_data(self, config: Data) -> Data:
        return {"cards": list(CARDS), "hand": HAND, "gives": GIVES}


GAME = Hands()
