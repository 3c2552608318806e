"""The seam between a game's rules and everything that serves them.

The host, the protocol, the client library and the bots reach the rules only through
:class:`Game` and :class:`GameState`. Sagani is the first implementation
(:mod:`sagani_net.engine`); another game plugs in by providing the same two shapes and
registering itself in :data:`GAMES`.

Actions, views, events and records are plain data (str, int, bool, None, lists, dicts with
str keys) so that they can go on the wire as they are.
"""

from __future__ import annotations

from typing import Any, Protocol

Data = dict[str, Any]


class RuleError(ValueError):
    """An action or a record the rules refuse: a machine-readable ``code`` and a sentence."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class GameState(Protocol):
    """One game in progress. Mutable; ``clone()`` gives an independent copy."""

    @property
    def version(self) -> int:
        """How many actions have been applied (the state version clients act on)."""

    @property
    def current_seat(self) -> int | None:
        """The seat whose decision it is, or None once the game is over."""

    def legal_actions(self) -> list[Any]:
        """Every legal decision for the seat to move, in a stable order (the host's default
        move for a bot that missed its deadline is the first)."""

    def action_data(self, action: Any) -> Data:
        """The wire and record form of ``action``: ``parse_action`` reads it back."""

    def parse_action(self, data: Data) -> Any:
        """Turn wire data into an action; raises RuleError("bad_action", ...)."""

    def apply(self, action: Any) -> list[Data]:
        """Validate and play ``action`` for the current seat; return the events it caused.

        Raises RuleError and changes nothing when the action is illegal.
        """

    def view(self, seat: int | None = None, shared: bool = False) -> Data:
        """What ``seat`` may see (None: a spectator). Never holds hidden information.

        ``shared=True``: parts may be the game's own immutable data, to be encoded at once.
        """

    def is_over(self) -> bool: ...

    def ranking(self) -> list[int]:
        """Seats, best first."""

    def scores(self) -> list[int]: ...

    def to_record(self) -> Data:
        """The game record: config, seed, pile, actions so far, and the result once over."""

    def clone(self) -> GameState: ...


class Game(Protocol):
    """A kind of game: makes states from a config and replays records."""

    name: str

    def parse_config(self, data: Data) -> Data:
        """Validate a table config from the wire (raises RuleError("bad_config", ...))."""

    def new_state(self, config: Data, seed: int) -> GameState: ...

    def seats(self, config: Data) -> int:
        """How many seats a table with ``config`` has."""

    def from_record(self, record: Data) -> GameState:
        """Replay a record; raises RuleError at the first action that does not hold."""


GAMES: dict[str, Game] = {}


def register(game: Game) -> Game:
    GAMES[game.name] = game
    return game


def get_game(name: str) -> Game:
    # Imported here so that registering Sagani does not make this module depend on the engine.
    from sagani_net import engine  # noqa: F401

    try:
        return GAMES[name]
    except KeyError:
        raise RuleError(
            "unknown_game", f"no game called {name!r}; known: {sorted(GAMES)}"
        ) from None
