"""The seam between a game's rules and everything that serves them.

The host, the protocol, the client library, the console shell, the bots and the tools reach a
game only through :class:`Game` and :class:`GameState`, found by name in the registry
(:mod:`sagani_net.games`). A game's rules import this module and the standard library, nothing
else; so a new game is one package under ``sagani_net/games/`` plus one line in the registry.

Actions are the game's own small values; their wire form (``action_data``/``parse_action``) and
their text form (``action_text``/``parse_text``) are plain data and strings. Views, private
data, events, static data and records are plain data (str, int, bool, None, lists, dicts with
str keys), so that they can go on the wire as they are.

Randomness: a game is fully reproduced by (config, seed, actions). Shuffles and rolls come from
the state's own generator seeded by ``seed``, drawn at the moment the rules say; what the state
has drawn is never in a view before the rules reveal it, and a determinized state
(:meth:`Game.determinize`) samples it afresh, so a bot cannot predict it.

>>> opts = (Option("players", 2, (2, 3, 4)), Option("mode", "multi", ("multi", "solo")))
>>> check_options(opts, {"players": 3})
{'players': 3, 'mode': 'multi'}
>>> check_options(opts, {"players": 5})
Traceback (most recent call last):
...
sagani_net.game.RuleError: bad_config: players is one of 2, 3, 4, not 5
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator, Sequence
from types import ModuleType
from typing import Any, ClassVar, NamedTuple, Protocol, TypeGuard

from sagani_net import MAX_SEED

Data = dict[str, Any]
#: The phase of every engine once its game is over.
OVER = "over"


def is_int(value: Any) -> TypeGuard[int]:
    """An integer of wire data: ``True`` is a bool there, not the number 1."""
    return isinstance(value, int) and not isinstance(value, bool)


#: The forms of a game's actions on the wire: each ``type`` with the fields it may have
#: besides ``type``, in the order its page gives them, one tuple a form (a Sagrada ``draft``
#: with its ``cell`` or without).
ActionForms = dict[str, tuple[tuple[str, ...], ...]]


def action_form(data: Any, forms: ActionForms) -> str:
    """The ``type`` of the wire action ``data``, once it is a map of one of ``forms`` with
    exactly the fields of one of its forms; else RuleError("bad_action", ...) saying what was
    sent and what the action takes, in the protocol's words: a bot author in any language
    reads it (Python's ``take takes fields ['index', 'type']`` or ``a type in ('take', ...)``
    told it little, and of a Sagrada ``draft`` only one of its two forms).

    >>> action_form({"type": "take", "index": 0, "seat": 0}, {"take": (("index",),)})
    Traceback (most recent call last):
    ...
    sagani_net.game.RuleError: bad_action: take takes {type, index}, not {type, index, seat}
    """
    kind = data.get("type") if isinstance(data, dict) else None
    if not isinstance(kind, str) or kind not in forms:
        said = f', not "{kind}"' if isinstance(kind, str) else ""
        raise RuleError("bad_action", f"an action is a map whose type is one of "
                        f"{', '.join(forms)}{said}")
    sent = set(data) - {"type"}
    if any(sent == set(form) for form in forms[kind]):
        return kind
    order = list(dict.fromkeys(f for form in forms[kind] for f in form))
    order += sorted(sent - set(order))

    def shown(fields: Sequence[str]) -> str:
        return "{" + ", ".join(["type", *fields]) + "}"

    takes = " or ".join(shown(form) for form in forms[kind])
    raise RuleError("bad_action", f"{kind} takes {takes}, not "
                    f"{shown(sorted(sent, key=order.index))}")


def grid_data(cell: int, columns: int) -> list[int]:
    """A cell of a grid numbered in reading order, as wire data: ``[row, column]``."""
    return [cell // columns, cell % columns]


def grid_cell(data: Any, rows: int, columns: int) -> int | None:
    """Wire data ``[row, column]`` as the cell of a ``rows`` x ``columns`` grid numbered in
    reading order; None when it is no cell of the grid.

    >>> grid_cell([1, 2], 4, 5), grid_cell([4, 0], 4, 5), grid_cell([True, 0], 4, 5)
    (7, None, None)
    """
    if (isinstance(data, list | tuple) and len(data) == 2 and all(map(is_int, data))
            and 0 <= data[0] < rows and 0 <= data[1] < columns):
        return int(data[0] * columns + data[1])
    return None


class RuleError(ValueError):
    """An action, config or record the rules refuse: a machine-readable ``code`` and a
    sentence."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


# Option, About and Result are named tuples, not dataclasses: immutable values all the same,
# and importing dataclasses (which imports inspect) would cost a short command such as
# ``sagani selfplay`` more than its games.
class Option(NamedTuple):
    """One table option a game offers (player count, mode, variant, difficulty...).

    ``choices`` lists every allowed value; an empty tuple allows any value of the default's
    type (a game's ``parse_config`` then checks it further).
    """

    name: str
    default: Any
    choices: tuple[Any, ...] = ()
    help: str = ""

    def to_data(self) -> Data:
        return {"name": self.name, "default": self.default, "choices": list(self.choices),
                "help": self.help}


class About(NamedTuple):
    """What is said of a game before it is played: its registry name, the title people read
    ("Sagani") and its table options. A game's package keeps it in ``about.py``, apart from
    its rules (which take it from there), so that menus, the command line and the host's
    ``welcome`` list the games without importing any engine."""

    name: str
    title: str
    options: tuple[Option, ...]


def plural(count: int, word: str, words: str | None = None) -> str:
    """``1 tile``, ``2 tiles``; ``words`` for an irregular plural."""
    return f"{count} {word if count == 1 else words or word + 's'}"


def config_words(config: Data, counted: str = "") -> list[str]:
    """A config in short words for labels and file names: each option's value, a structured
    one (a file's data) as its name and size (``patterns 2``; ``counted`` after the size, as
    the host's line has it: ``patterns 2 given``), None left out."""
    words = []
    for name, value in config.items():
        if isinstance(value, list | dict):
            words.append(f"{name} {len(value)}{counted and ' ' + counted}")
        elif value is not None:
            words.append(f"{name} {value}")
    return words


#: An option's kind in a refusal, in the protocol's words: a client in any language reads it
#: (Python's "must be a int" told a Go or JavaScript author little).
_OPTION_KINDS = {int: "an integer", str: "a string", bool: "true or false", float: "a number"}


def check_options(options: Sequence[Option], data: Any) -> Data:
    """A config with every option, defaults filled in; raises RuleError("bad_config", ...) for
    a field no option names, or a value of the wrong type or not among the choices."""
    if not isinstance(data, dict):
        raise RuleError("bad_config", "a config is a map")
    known = {o.name for o in options}
    extra = set(data) - known
    if extra:
        raise RuleError("bad_config", f"no option {', '.join(sorted(extra))} in this game's "
                        f"config; its options are {', '.join(o.name for o in options)}")
    config = {}
    for o in options:
        value = data.get(o.name, o.default)
        if type(value) is not type(o.default) and o.default is not None:
            kind = _OPTION_KINDS.get(type(o.default), "of its default's kind")
            raise RuleError("bad_config", f"{o.name} must be {kind}")
        if o.choices and value not in o.choices:
            allowed = ", ".join(map(str, o.choices))
            raise RuleError("bad_config", f"{o.name} is one of {allowed}, not {value}")
        config[o.name] = value
    return config


class Result(NamedTuple):
    """The end of a game: final scores, seats best first, and the game's own figures
    (for example ``tiles_used`` and ``won`` in a solo game). The figures are read, never
    changed: without them a result shares one empty map."""

    scores: tuple[int, ...]
    ranking: tuple[int, ...]
    figures: Data = {}

    def to_data(self) -> Data:
        return {"scores": list(self.scores), "ranking": list(self.ranking), **self.figures}


class GameState(Protocol):
    """One game in progress. Mutable; ``clone()`` gives an independent copy."""

    @property
    def version(self) -> int:
        """How many actions have been applied (the state version clients act on)."""

    @property
    def current_seat(self) -> int | None:
        """The seat whose decision it is, or None once the game is over."""

    def legal_actions(self) -> list[Any]:
        """Every legal decision for the seat to move, in a stable order."""

    def default_action(self) -> Any:
        """The move the host plays for a bot seat past its deadline: deterministic, so that a
        replay and a restarted host agree on it."""

    def action_data(self, action: Any) -> Data:
        """The wire and record form of ``action``: ``parse_action`` reads it back."""

    def parse_action(self, data: Data) -> Any:
        """Turn wire data into an action; raises RuleError("bad_action", ...)."""

    def apply(self, action: Any) -> list[Data]:
        """Validate and play ``action`` for the current seat; return the events it caused.

        Raises RuleError and changes nothing when the action is illegal. Events are public:
        one that concerns a secret names it without revealing it (``"drew a card"``).
        """

    def push(self, action: Any) -> None:
        """Play ``action``, one of ``legal_actions()``, without checking it again or making
        events: what a bot plays on its own copies (one ply, a search, a rollout)."""

    def view(self, seat: int | None = None, shared: bool = False) -> Data:
        """What everyone may see (None: a spectator), with ``"you": seat`` for a seat. Never
        holds a secret: the host broadcasts ``view(None)`` on PUB.

        ``shared=True``: parts may be the game's own immutable data, to be encoded at once.
        """

    def private(self, seat: int) -> Data | None:
        """What ``seat`` alone may see now (a hand, a private objective, its face-down cards);
        None when the game gives the seat nothing private."""

    def private_seats(self, events: list[Data]) -> list[int]:
        """The seats whose private data may have changed by the action that caused
        ``events`` (the host tells them to fetch it)."""

    def is_over(self) -> bool: ...

    def scores(self) -> list[int]:
        """Scores as they stand (public)."""

    def result(self) -> Result | None:
        """The final result once the game is over, else None."""

    def to_record(self) -> Data:
        """The game record: ``{"game": name, "config": ..., "seed": ..., "actions": [...],
        "result": ...}`` plus what the game needs to replay exactly (what was rolled)."""

    def clone(self) -> GameState: ...


class Engine:
    """What the three engines' states share, written once: a state with ``phase`` (``"over"``
    at the end), the ``seat`` to move, the ``history`` of actions played since ``origin`` (a
    state rebuilt from a view starts at its version), ``_check(action)`` raising RuleError
    for an illegal action and ``_do(action, events)`` playing one (``events`` None: no events
    are made, for search)."""

    __slots__ = ()
    #: The game's action type: a value with ``to_dict()`` whose class reads it back with
    #: ``from_dict(data)`` (raising RuleError("bad_action", ...)).
    action_type: ClassVar[Any]
    phase: str
    seat: int
    origin: int
    history: list[Any]

    @property
    def version(self) -> int:
        return self.origin + len(self.history)

    @property
    def current_seat(self) -> int | None:
        return None if self.phase == OVER else self.seat

    def is_over(self) -> bool:
        return self.phase == OVER

    def apply(self, action: Any) -> list[Data]:
        """Validate and play ``action`` for the seat to move; return the events it caused.

        :raises RuleError: with a reason code when the action is not legal; nothing changes.
        """
        self._check_type(action)
        self._check(action)
        events: list[Data] = []
        self._do(action, events)
        return events

    def push(self, action: Any) -> None:
        """Play a legal ``action`` without checking it or reporting events (search, playouts)."""
        self._do(action, None)

    def play(self, action: Any) -> None:
        """Validate and play ``action`` without reporting events (in-process self-play, where
        nobody reads them); raises RuleError and changes nothing when it is not legal."""
        self._check_type(action)
        self._check(action)
        self._do(action, None)

    def _check_type(self, action: Any) -> None:
        """Refuse what is no action of this game (a policy's wire data, text or None): each
        engine's ``_check`` reads its own action's fields, and failed on these with an
        AttributeError that said nothing of the answer."""
        if not isinstance(action, self.action_type):
            kind = self.action_type
            raise RuleError("bad_action", f"{action!r} is no {kind.__module__}.{kind.__qualname__}"
                            ": play one of legal_actions() (parse_action reads wire data)")

    def parse_action(self, data: Data) -> Any:
        """Turn wire data into an action; raises RuleError("bad_action", ...)."""
        return self.action_type.from_dict(data)

    def action_data(self, action: Any) -> Data:
        """The wire and record form of ``action``."""
        data: Data = action.to_dict()
        return data

    def legal_actions(self) -> list[Any]:
        raise NotImplementedError

    def random_action(self, rng: random.Random) -> Any:
        """A uniformly random legal action (an engine may count them rather than list them,
        as long as each is as likely)."""
        actions = self.legal_actions()
        return actions[int(rng.random() * len(actions))]

    def playout(self, rng: random.Random) -> None:
        """Play uniformly random legal actions until the game is over, unchecked and without
        events (the benchmark and the search's rollouts)."""
        do, draw = self._do, self.random_action  # looked up once, not at every action
        while self.phase != OVER:
            do(draw(rng), None)

    def playout_seats(self, rngs: Sequence[random.Random]) -> None:
        """:meth:`playout` where each seat draws from its own generator, ``rngs[seat]``: the
        game that uniform seats deciding in turn play (self-play), without a call per seat
        per move."""
        do, draw = self._do, self.random_action
        while self.phase != OVER:
            do(draw(rngs[self.seat]), None)

    def _check(self, action: Any) -> None:
        raise NotImplementedError

    def _do(self, action: Any, events: list[Data] | None) -> None:
        raise NotImplementedError


class Game(Protocol):
    """A kind of game: its options, how to start, replay and sample it, its words."""

    name: str
    #: The name people read ("Sagani").
    title: str
    options: tuple[Option, ...]

    def parse_config(self, data: Any) -> Data:
        """Validate a table config (wire, command line or record) and fill in defaults;
        raises RuleError("bad_config", ...)."""

    def seats(self, config: Data) -> int:
        """How many seats a table with ``config`` has."""

    def new_state(self, config: Data, seed: int) -> GameState: ...

    def resume(self, config: Data, seed: int, actions: Sequence[Data]) -> GameState:
        """A game a host stored (its config, seed and actions, each with its ``seat``) as it
        stands; raises RuleError at the first action that does not hold."""

    def positions(self, state: GameState, actions: Sequence[Data]
                  ) -> Iterator[tuple[int, list[Data]]]:
        """A game's ``actions`` played on ``state``, its start, one at a time, by the rule
        they were played by (:func:`positions`: the seat and events of each): a replay's
        frames, an analysis's decisions, a table's history."""

    def from_record(self, record: Data) -> GameState:
        """Replay a record; raises RuleError at the first action that does not hold."""

    def determinize(
        self, view: Data, private: Data | None, seat: int | None, rng: random.Random
    ) -> GameState:
        """A full state that agrees with what ``seat`` knows (its view and private data), every
        hidden part (draw order, other hands, future rolls) sampled from ``rng``. This is how
        search bots and previews get a state to play on without seeing a secret."""

    def resample(self, state: GameState, seat: int, rng: random.Random) -> GameState:
        """In-process, what ``determinize`` gives from ``seat``'s view and private data, made
        from the true ``state`` at once: a copy whose every hidden part is sampled afresh
        from ``rng`` (as OpenSpiel resamples from the information state), and which keeps
        no trace of the truth's secrets (no seed, no record). For the same ``rng`` it is the
        very state ``determinize(state.view(seat), state.private(seat), seat, rng)`` would
        be, so a tournament plays the same games in-process as over the network."""

    def action_text(self, data: Data) -> str:
        """The text form of an action's wire data (typed commands, logs): ``take 2``."""

    def parse_text(self, text: str) -> Data:
        """Read the text form into wire data; raises RuleError("bad_action", ...)."""

    def event_text(self, event: Data, names: Sequence[str]) -> str:
        """One sentence for one event; ``names[seat]`` is how to call a seat."""

    def static_data(self, config: Data) -> Data:
        """The game's components as plain data (tiles, cards, patterns in play), served by the
        host so that a client needs nothing but the protocol."""


class Rules:
    """What the games' adapters behind :class:`Game` share, written once: a game names its
    ``action_type`` (an action class with ``from_dict``, ``parse`` and ``to_dict``, whose
    ``str`` is its text form), its ``words`` module (``event_text(event, names)``) and its
    ``replay(record)``; a game whose config is more than its options, or whose seat count is
    not ``players``, says so by overriding :meth:`parse_config` or :meth:`seats`."""

    name: ClassVar[str]
    title: ClassVar[str]
    options: ClassVar[tuple[Option, ...]]
    action_type: ClassVar[Any]
    words: ModuleType

    def __init_subclass__(cls, about: About | None = None, **kwargs: Any) -> None:
        """``class Sugi(Rules, about=ABOUT)``: the name, title and options its about.py says."""
        super().__init_subclass__(**kwargs)
        if about is not None:
            cls.name, cls.title, cls.options = about.name, about.title, about.options

    def parse_config(self, data: Any) -> Data:
        """Validate a table config and fill in defaults; raises RuleError("bad_config", ...)."""
        return check_options(self.options, data)

    def seats(self, config: Data) -> int:
        """How many seats a table with ``config`` has: its ``players``."""
        return int(config["players"])

    def new_state(self, config: Data, seed: int) -> GameState:
        raise NotImplementedError

    def resume(self, config: Data, seed: int, actions: Sequence[Data]) -> GameState:
        state = self.new_state(config, seed)
        for _ in self.positions(state, actions):
            pass
        return state

    def positions(self, state: GameState, actions: Sequence[Data]
                  ) -> Iterator[tuple[int, list[Data]]]:
        return positions(state, actions)

    def replay(self, record: Data) -> tuple[GameState, list[Data]]:
        """Rebuild a game from its record: the state and every event, in order."""
        raise NotImplementedError

    def from_record(self, record: Data) -> GameState:
        """Replay a record; raises RuleError at the first action that does not hold."""
        return self.replay(record)[0]

    def determinize(
        self, view: Data, private: Data | None, seat: int | None, rng: random.Random
    ) -> GameState:
        raise NotImplementedError

    def resample(self, state: GameState, seat: int, rng: random.Random) -> GameState:
        """The state ``seat`` knows, hidden parts sampled from ``rng``: here the wire path
        itself (``determinize`` from the seat's view and private data), honest by
        construction; a game makes it fast by copying the truth and sampling its hidden
        parts the way its ``determinize`` does."""
        return self.determinize(state.view(seat), state.private(seat), seat, rng)

    def action_text(self, data: Data) -> str:
        """The text form of an action's wire data: its action's ``str``."""
        return str(self.action_type.from_dict(data))

    def parse_text(self, text: str) -> Data:
        """Read the text form into wire data; raises RuleError("bad_action", ...)."""
        data: Data = self.action_type.parse(text).to_dict()
        return data

    def event_text(self, event: Data, names: Sequence[str]) -> str:
        """One sentence for one event, from the game's ``words``."""
        return str(self.words.event_text(event, names))

    def static_data(self, config: Data) -> Data:
        raise NotImplementedError


#: The host's events about the table rather than the game (``sagani_net.tables``), the same for
#: every game, in words.
TABLE_EVENTS: dict[str, Callable[[Data, Sequence[str]], str]] = {
    "seat_taken": lambda e, names: f"{e.get('name') or 'someone'} sat down at seat "
                                   f"{e['seat'] + 1}",
    "seat_left": lambda e, names: f"{names[e['seat']]} left the table",
    "game_started": lambda e, names: "the game starts",
    # A replay's has no ``by``: a record does not say who asked.
    "stand_in": lambda e, names: f"a bot plays for {names[e['seat']]} until they are back"
                                 + (f" (asked by {names[e['by']]})" if "by" in e else ""),
    "stand_in_left": lambda e, names: f"{names[e['seat']]} is back and plays on; the bot "
                                      "leaves",
    # What it plays is the next line: each game has its own default move (pass, where a
    # game lets a seat pass; else its first legal action).
    "deadline_missed": lambda e, names: f"{names[e['seat']]} ran out of time: the host plays "
                                        "the game's default move for that seat",
}


def event_sentence(game: Game, event: Data, names: Sequence[str]) -> str:
    """One event of a table of ``game`` in words, the table's own (:data:`TABLE_EVENTS`) or
    the game's (``Game.event_text``), ``names[seat]`` naming a seat: the console's log and
    the host's. Never an exception: a line about an event must not take either down, so an
    event the words cannot read (an older host's, a damaged record's) reads as its fields."""
    try:
        table = TABLE_EVENTS.get(event.get("type", ""))
        if table is not None:
            return table(event, names)
        return game.event_text(event, names)
    except (KeyError, IndexError, TypeError, ValueError):
        return " ".join(f"{k}={v}" for k, v in event.items())


def random_action(state: GameState, rng: random.Random) -> Any:
    """A uniformly random legal action: the state's own (:meth:`Engine.random_action`, which
    an engine may make cheaper than a list), else one of ``legal_actions()``."""
    own = getattr(state, "random_action", None)
    if own is not None:
        return own(rng)
    actions = state.legal_actions()
    return actions[int(rng.random() * len(actions))]


def shuffle(items: list[Any], rng: random.Random) -> None:
    """Shuffle ``items`` in place: the very permutation ``rng.shuffle(items)`` makes (CPython's
    Fisher-Yates over ``getrandbits``, the same draws in the same order, so every seed deals
    what it always dealt), written out without the two method calls per item of ``random``:
    every deal and reshuffle of a game is one, and a random game is over in a millisecond.

    >>> a, b = list(range(10)), list(range(10))
    >>> shuffle(a, random.Random(5)); random.Random(5).shuffle(b); a == b
    True
    """
    bits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = bits(k)
        while j >= n:
            j = bits(k)
        items[i], items[j] = items[j], items[i]


def playout(state: GameState, rng: random.Random) -> None:
    """Uniformly random legal actions to the end of the game: the state's own
    (:meth:`Engine.playout`: unchecked, without events), else :func:`random_action` applied."""
    own = getattr(state, "playout", None)
    if own is not None:
        own(rng)
        return
    while not state.is_over():
        state.apply(random_action(state, rng))


# -- a search's rewards: how a rollout's end scores, in [0, 1] for every seat (the generic
# search's and the games' own search hooks', which may import only the seam) ------------------


def logistic(x: float) -> float:
    """``1 / (1 + e^-x)``, 0 far below (where ``e^-x`` would overflow)."""
    if x < -30:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))


def winners(ranking: Sequence[int], figures: Data) -> tuple[int, ...]:
    """The seats that share the win: a game where a tie can stand names them in its result's
    ``winners`` figure (Sugi: "then shared", S15); in the others the ranking's first wins.

    >>> winners((2, 0, 1), {"winners": [2, 0]}), winners((2, 0, 1), {})
    ((2, 0), (2,))
    """
    shared = figures.get("winners")
    return tuple(shared) if shared else tuple(ranking[:1])


def ranking_rewards(ranking: Sequence[int], shared: Sequence[int] = ()) -> list[float]:
    """A finished game's reward per seat: the share of the other seats it ranks above
    (``ranking``: every seat, best first); two of the seats that ``shared`` the win count
    half against each other, as a draw.

    >>> ranking_rewards((1, 0, 2))
    [0.5, 1.0, 0.0]
    >>> ranking_rewards((1, 0, 2), shared=(1, 0))
    [0.75, 0.75, 0.0]
    """
    seats = len(ranking)
    place = {seat: i for i, seat in enumerate(ranking)}
    tied = set(shared) if len(shared) > 1 else set()
    return [sum(0.5 if i in tied and j in tied else float(place[i] < place[j])
                for j in range(seats) if j != i) / (seats - 1)
            for i in range(seats)]


def margin_rewards(values: Sequence[float], scale: float) -> list[float]:
    """A reward per seat from its evaluation: the logistic of its margin over each other seat
    (a margin of ``scale`` makes a win about 73% likely), averaged.

    >>> [round(reward, 3) for reward in margin_rewards([10.0, 2.0], scale=8.0)]
    [0.731, 0.269]
    """
    return [sum(logistic((vi - vj) / scale) for j, vj in enumerate(values) if j != i)
            / (len(values) - 1) for i, vi in enumerate(values)]


def check_record(record: Any, game: str, lists: Sequence[str] = ("actions",),
                 needs: Sequence[str] = ("seed",)) -> Data:
    """The header of a record of ``game`` checked, and the record returned: a map naming the
    game, holding each field of ``needs`` and ``lists``, each of ``lists`` a list, its
    ``seed`` (if it needs one) an integer. Raises RuleError("bad_record", ...)."""
    if not isinstance(record, dict) or record.get("game") != game:
        raise RuleError("bad_record", f'a record is a map with "game": "{game}"')
    for name in [*needs, *lists]:
        if name not in record:
            raise RuleError("bad_record", f"the record has no {name!r}")
    if "seed" in needs and not is_int(record["seed"]):
        raise RuleError("bad_record", "seed must be an integer")
    # Read by no replay of a record that holds its outcomes, but what RECORD.md says it is: a
    # program in another language reads it too.
    seed = record.get("seed")
    if seed is not None and not (is_int(seed) and 0 <= seed <= MAX_SEED):
        raise RuleError("bad_record", f"seed must be an integer 0..{MAX_SEED}, or null")
    for name in lists:
        if not isinstance(record[name], list):
            raise RuleError("bad_record", f"{name} must be a list")
    return record


def replay_actions(state: GameState, actions: Sequence[Any]) -> list[Data]:
    """Apply a record's actions (wire form, each with the ``seat`` that played it) to ``state``
    in order; return every event. Raises RuleError at the first action that does not hold,
    its code kept and its number named (``action 3 (...): ...``)."""
    return [event for _, events in positions(state, actions) for event in events]


def positions(state: GameState, actions: Sequence[Any]) -> Iterator[tuple[int, list[Data]]]:
    """:func:`replay_actions` one action at a time: after each, ``state`` has moved on, and
    this yields the seat that played it and its events."""
    for n, data in enumerate(actions):
        try:
            action = state.parse_action(without_seat(data))
            if state.is_over():
                raise RuleError("game_over", "the game is over")
            seat = state.current_seat
            if data.get("seat", seat) != seat:
                raise RuleError("wrong_seat", f"it is seat {seat}'s decision")
            events = state.apply(action)
        except RuleError as e:
            raise RuleError(e.code, f"action {n} ({data!r}): {e.message}") from None
        assert seat is not None
        yield seat, events


def recorded_outcomes(record: Data, field: str) -> tuple[Any, ...]:
    """The random outcomes a record holds under ``field`` (a list, in the order the game met
    them; none in a record of an older shape), for a replay to take instead of rolling."""
    outcomes = record.get(field, [])
    if not isinstance(outcomes, list):
        raise RuleError("bad_record", f"{field} must be a list")
    return tuple(outcomes)


def check_replayed(state: GameState, record: Data, field: str, recorded: int, made: int,
                   result: Data | None) -> None:
    """After a record's actions were replayed on ``state``: a finished game made every one of
    the ``recorded`` outcomes in ``field`` (it ``made`` that many; a game not over keeps the
    rest for the actions still to come), every outcome the actions met was in the record (a
    record of an older shape, without ``field``, has them from its seed), and the record's
    result, if any, is ``result``, the replay's (None: none yet). Raises
    RuleError("bad_record", ...)."""
    # One short of its outcomes was replayed from the seed, which a program in another
    # language cannot do (RECORD.md): a record cut or damaged, refused as one with too many.
    if (state.is_over() and recorded > made) or (field in record and made > recorded):
        raise RuleError("bad_record", f"the record holds {recorded} {field}, its play made "
                        f"{made}")
    check_result(record, result)


def check_result(record: Data, result: Data | None) -> None:
    """The record's result, if any, is ``result``, the replay's (None: none yet). Raises
    RuleError("bad_record", ...)."""
    if "result" not in record or record["result"] == result:
        return
    if result is None:  # its moves stop short of the end it names
        raise RuleError("bad_record", "the record has a result, but its moves do not end the "
                        "game")
    raise RuleError("bad_record", "the recorded result differs from the replayed one")


#: Why the host played a recorded move for its seat (a record's ``host_played``, RECORD.md):
#: the seat's clock ran out and it got the game's default move, or its player was away and the
#: host's bot stood in at the others' request.
HOST_PLAYED_REASONS = ("deadline", "stand_in")


def host_played(record: Data) -> dict[int, str]:
    """The record's moves the host played for their seats, by action number, each with its
    reason (:data:`HOST_PLAYED_REASONS`); none if the record does not say (a tool's record, or
    an older host's). Raises RuleError("bad_record", ...) for a field that is not the one
    RECORD.md describes."""
    listed = record.get("host_played", [])
    actions = record.get("actions")
    count = len(actions) if isinstance(actions, list) else 0
    if not isinstance(listed, list):
        raise RuleError("bad_record", "host_played must be a list")
    played: dict[int, str] = {}
    for entry in listed:
        index = entry.get("index") if isinstance(entry, dict) else None
        reason = entry.get("reason") if isinstance(entry, dict) else None
        if not (is_int(index) and 0 <= index < count and reason in HOST_PLAYED_REASONS):
            raise RuleError("bad_record", "host_played holds maps {index, reason}: an action's "
                            f"number, 0..{count - 1}, and one of "
                            f"{', '.join(HOST_PLAYED_REASONS)}")
        played[index] = reason
    return played


def without_seat(data: Data) -> Data:
    """A record's action (which names the ``seat`` that played it) as ``parse_action`` reads
    it: an action on the wire has no seat field (the ``act`` request names the seat), and
    every game refuses one with ``bad_action``."""
    if not isinstance(data, dict):
        return data  # parse_action says why it is no action
    return {key: value for key, value in data.items() if key != "seat"}
