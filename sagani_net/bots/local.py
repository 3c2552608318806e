"""One game between policies in this process: what self-play and a tournament's workers play.

Every seat decides from what it knows alone (:class:`sagani_net.bots.base.LocalSeat`: the
engine's uniform draw for a random seat, else a state resampled from the truth), so a game
played here is the one the same seats would play over the network.

This module is on the path of ``sagani selfplay``, whose 100 random games take less than a
tenth of a second: it imports no more than a game needs (no dataclasses, whose import alone
costs more than a tenth of those games; the tournament's tables are in
:mod:`sagani_net.bots.tournament`).

>>> result = play_local(GameSpec(0, "sagani", {"players": 2, "mode": "multi"}, 7,
...                              ("random", "random")))
>>> result.record["seed"], len(result.scores)
(7, 2)
"""

from __future__ import annotations

import time
from typing import Any, NamedTuple

from sagani_net.bots import Policy, make_policy, seat_name
from sagani_net.bots.base import LocalSeat
from sagani_net.game import Data, GameState
from sagani_net.games import get_game


class GameSpec(NamedTuple):
    """One game of a tournament: the game and its config, the deal's seed and the strategy of
    every seat (``options``: a strategy's policy options, by name; read, never changed)."""

    index: int  # type: ignore[assignment]  # shadows tuple.index: the game's number
    game: str
    config: Data
    seed: int
    strategies: tuple[str, ...]
    options: dict[str, dict[str, Any]] = {}

    def policies(self) -> list[Policy]:
        return [make_policy(name, game=self.game, **self.options.get(name, {}))
                for name in self.strategies]

    def seat_seed(self, seat: int) -> str:
        """The seed of a seat's randomness (see :func:`sagani_net.bots.base.seat_rngs`)."""
        return f"{self.seed}:{self.index}:{seat}"


class GameResult:
    """How one game ended, with its record; ``figures`` are the game's own (``won``...),
    ``actions`` how many were played.

    The record of a game played in-process is made when first asked for (or when the result
    is pickled, to come back from a worker): self-play that writes no records never pays
    for one."""

    def __init__(self, index: int, strategies: tuple[str, ...], scores: tuple[int, ...],
                 ranking: tuple[int, ...], seconds: float, actions: int,
                 figures: Data | None = None, made: Data | None = None,
                 state: GameState | None = None) -> None:
        self.index, self.strategies = index, strategies
        self.scores, self.ranking = scores, ranking
        self.seconds, self.actions = seconds, actions
        self.figures: Data = {} if figures is None else figures
        self.made, self.state = made, state

    def __repr__(self) -> str:
        return (f"GameResult(index={self.index}, strategies={self.strategies}, "
                f"scores={self.scores}, ranking={self.ranking}, actions={self.actions})")

    @property
    def record(self) -> Data:
        if self.made is None:
            assert self.state is not None, "a result holds its record or its final state"
            # The strategies are the seats' names, as they would be at a host's table. Imported
            # here: self-play that writes no record never loads the protocol (start-up).
            from sagani_net.protocol.messages import seat_names

            names = seat_names([seat_name(name) for name in self.strategies])
            self.made, self.state = {**self.state.to_record(), "names": names}, None
        return self.made

    def without_record(self) -> GameResult:
        """This result without its record or final state (its ``record`` is empty): what a
        table of many games keeps of each."""
        return GameResult(self.index, self.strategies, self.scores, self.ranking, self.seconds,
                          self.actions, self.figures, made={})

    def __getstate__(self) -> dict[str, Any]:
        self.record  # noqa: B018 (made now: the state stays in this process)
        return dict(self.__dict__)


def play_local(game: GameSpec) -> GameResult:
    """One game in this process."""
    started = time.perf_counter()
    rules = get_game(game.game)
    state = rules.new_state(game.config, game.seed)
    seats = [LocalSeat(policy, rules, state, seat, game.seat_seed(seat))
             for seat, policy in enumerate(game.policies())]
    if all(seat.uniform for seat in seats) and hasattr(state, "playout_seats"):
        state.playout_seats([seat.rng for seat in seats])  # uniform seats: the same draws
    else:
        plays = [seat.play for seat in seats]
        while (turn := state.current_seat) is not None:  # None: the game is over
            plays[turn]()
    outcome = state.result()
    assert outcome is not None
    return GameResult(game.index, game.strategies, outcome.scores, outcome.ranking,
                      time.perf_counter() - started, state.version, dict(outcome.figures),
                      state=state)


def result_of(game: GameSpec, record: Data, seconds: float) -> GameResult:
    """The result of a game from its record (a game played over the network)."""
    result = dict(record["result"])
    scores, ranking = tuple(result.pop("scores")), tuple(result.pop("ranking"))
    return GameResult(game.index, game.strategies, scores, ranking, seconds,
                      len(record["actions"]), result, made=record)
