"""Policies: what a bot decides, given a state it may search. No sockets here.

Every game gets ``random``, ``greedy`` (one ply over the game's evaluation) and ``mcts``
(information-set search over the game's determinizer), each with the game's own hooks from its
``bots.py`` (:mod:`sagani_net.bots.base`); a game's ``bots.py`` may add strategies of its own
in a ``STRATEGIES`` map of name to factory (called with the policy's options). A bot never
sees a secret: over the network it decides on a state rebuilt from its seat's view and private
data (:meth:`sagani_net.game.Game.determinize`); in tournaments and self-play on the same state
made from the truth at once (:meth:`sagani_net.game.Game.resample`: its hidden parts sampled
afresh), or on the legal moves alone if that is all it looks at (``random``).

A strategy of one's own needs no change here: wherever a strategy is named (``sagani bot
--strategy``, ``sagani tournament --strategies``, ``sagani selfplay --policy``,
:func:`make_policy`), ``MODULE:NAME`` or ``FILE.py:NAME`` names the factory of a
:class:`~sagani_net.bots.base.Policy` (a class, usually), which is called with one keyword,
``game`` (the table's game's name). See :func:`load_strategy`.

>>> make_policy("greedy", game="sagani").name
'greedy'
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from typing import Any

from sagani_net.bots.base import Policy, game_bots, raised_where
from sagani_net.bots.simple import GreedyPolicy, RandomPolicy
from sagani_net.games import DEFAULT_GAME, game_names


def mcts_policy(**options: Any) -> Policy:
    """:class:`sagani_net.bots.mcts.MctsPolicy`, its module imported when first made: random
    and greedy self-play starts without the search (and its dataclasses)."""
    from sagani_net.bots.mcts import MctsPolicy

    return MctsPolicy(**options)


#: The policies every game has, by name.
POLICIES: dict[str, Callable[..., Policy]] = {
    "random": RandomPolicy,
    "greedy": GreedyPolicy,
    "mcts": mcts_policy,
}
STRATEGIES = tuple(POLICIES)


def _own_strategies(game: str) -> dict[str, Callable[..., Policy]]:
    return getattr(game_bots(game), "STRATEGIES", {})


def strategy_names(game: str | None = None) -> tuple[str, ...]:
    """The strategies of ``game``: every game's, then its own; None: of any game."""
    games = game_names() if game is None else [game]
    own = [name for g in games for name in _own_strategies(g) if name not in POLICIES]
    return STRATEGIES + tuple(dict.fromkeys(own))


def unknown_strategies(names: Iterable[str], game: str) -> list[str]:
    """Those of ``names`` that ``game`` has no strategy of, sorted. The game's own strategies
    (its ``bots.py``) are looked at only for a name that is not every game's; a strategy of
    one's own (``MODULE:NAME``) is never unknown here: :func:`load_strategy` checks it."""
    rest = {name for name in names if not is_loaded(name)} - set(POLICIES)
    return sorted(rest - set(_own_strategies(game))) if rest else []


def is_loaded(name: str) -> bool:
    """Whether ``name`` names a strategy of one's own, ``MODULE:NAME`` or ``FILE.py:NAME``."""
    return ":" in name


def seat_name(name: str) -> str:
    """How a seat played by the strategy ``name`` is called at a table and in a record: the
    name itself, or a loaded one's NAME alone (a path may be longer than a seat's name may).

    >>> seat_name("greedy"), seat_name("bots/mine.py:Careful")
    ('greedy', 'Careful')
    """
    return name.rpartition(":")[2] if is_loaded(name) else name


def load_strategy(name: str) -> Callable[..., Policy]:
    """The factory that ``name`` names: ``MODULE:NAME``, a module Python can import (on
    ``PYTHONPATH``, or installed), or ``FILE.py:NAME``, a file (its path absolute or from the
    working directory), and the name of a callable in it (a policy class, usually).

    A tournament's worker processes load it again by the same name, so it must be at the
    same place for them. Raises ValueError saying what is missing.

    >>> load_strategy("sagani_net.bots.simple:GreedyPolicy").__name__
    'GreedyPolicy'
    """
    where, _, attribute = name.rpartition(":")
    if not where or not attribute:
        raise ValueError(f"strategy {name!r}: a strategy of your own is MODULE:NAME or "
                         "FILE.py:NAME")
    try:
        module = _load_file(where, name) if where.endswith(".py") else _load_module(where, name)
    except (Exception, SystemExit) as exc:  # its own code's: a line, not a traceback
        if isinstance(exc, ValueError) and str(exc).startswith(f"strategy {name!r}"):
            raise
        raise ValueError(f"strategy {name!r}: importing {where} raised {_raised(exc)}") from exc
    factory = getattr(module, attribute, None)
    if not callable(factory):
        raise ValueError(f"strategy {name!r}: {where} has no callable {attribute!r}")
    return factory


def _load_module(module: str, name: str) -> Any:
    from importlib import import_module

    try:
        return import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is None or not (module == exc.name or module.startswith(f"{exc.name}.")):
            raise  # the module is there but imports something missing: its own error
        raise ValueError(f"strategy {name!r}: no module {module!r} on Python's path (a file "
                         "is FILE.py:NAME; a module in the working directory needs "
                         "PYTHONPATH=.)") from None


def _load_file(path: str, name: str) -> Any:
    """The module in the file at ``path``, loaded once per process: each game of a tournament
    makes its policies afresh, and a module executed twice would have two of each class."""
    import os
    from importlib.util import module_from_spec, spec_from_file_location

    full = os.path.abspath(path)
    key = f"sagani_strategy:{full}"
    if key in sys.modules:
        return sys.modules[key]
    if not os.path.isfile(full):
        raise ValueError(f"strategy {name!r}: no file {path}")
    spec = spec_from_file_location(key, full)
    assert spec is not None and spec.loader is not None
    module = module_from_spec(spec)
    sys.modules[key] = module  # before it runs, as an import does (dataclasses look it up)
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[key]
        raise
    return module


def _raised(exc: BaseException) -> str:
    """``exc`` in a line, with where it was raised (:func:`~sagani_net.bots.base.raised_where`).

    >>> _raised(SystemExit(0))
    'SystemExit: 0'
    """
    said = exc.msg if isinstance(exc, SyntaxError) else str(exc)  # its str names the place
    text = f"{type(exc).__name__}: {said}" if said else type(exc).__name__
    return " ".join(text.split()) + raised_where(exc)  # one line, whatever the message holds


def make_policy(name: str, game: str = DEFAULT_GAME, **options: object) -> Policy:
    """A policy by name (``random``, ``greedy``, ``mcts``, or one of the game's own: these
    three names always mean the policies every game has; or one of one's own,
    ``MODULE:NAME``, made by ``NAME(game=game, **options)``: :func:`load_strategy`) for the
    game called ``game``; raises ValueError for a name the game does not know, or an own
    strategy that cannot be loaded or makes no policy."""
    if name in POLICIES:
        return POLICIES[name](game=game, **options)
    if is_loaded(name):
        factory = load_strategy(name)
        try:
            policy = factory(game=game, **options)
        except TypeError as exc:  # most often a factory that takes no game: say what we called
            raise ValueError(f"strategy {name!r}: calling it with game={game!r} failed: "
                             f"{exc}") from exc
        except (Exception, SystemExit) as exc:  # its own code's: a line, not a traceback
            raise ValueError(f"strategy {name!r}: making it with game={game!r} raised "
                             f"{_raised(exc)}") from exc
        if not callable(getattr(policy, "choose", None)) or not hasattr(policy, "name"):
            raise ValueError(f"strategy {name!r} made {policy!r}, which is no policy: a policy "
                             "has a name and a choose(state, rng) method")
        return policy
    own = _own_strategies(game)
    if name in own:
        return own[name](**options)
    raise ValueError(f"unknown strategy {name!r}; known: {', '.join(strategy_names(game))}, "
                     "or one of your own as MODULE:NAME or FILE.py:NAME")


__all__ = ["POLICIES", "STRATEGIES", "Policy", "is_loaded", "make_policy", "load_strategy",
           "seat_name", "strategy_names", "unknown_strategies"]
