"""The registry: every game the house serves, by name.

Each game is a package here with the same parts, found by convention:

- ``rules``: the engine behind :mod:`sagani_net.game` (a state on :class:`~sagani_net.game.
  Engine`, an adapter on :class:`~sagani_net.game.Rules`); the package exports ``GAME``,
  imported on first use (:func:`rules_on_demand`).
- ``about``: its name, title and table options (:class:`~sagani_net.game.About`), which the
  rules take from there; the registry reads them without the engine (:func:`about`).
- ``words``: its events in sentences, ``event_text(event, names)`` (the adapter's ``words``).
- ``bots``: its evaluation and its search hooks (imports its rules and the seam, whose
  rewards the search scores with).
- ``ui``: its part of the console, a :class:`sagani_net.gameui.GameUI` (imports its rules and
  :mod:`sagani_net.gameui`, never the network nor the console shell, which finds it here).
- ``RULES.md``: the rules as we play them.

The framework reaches a game only through :func:`get_game`, :func:`about` and
:func:`game_part`.

>>> get_game("sagani").title
'Sagani'
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from itertools import product
from types import ModuleType

# typing, pathlib and the seam are not imported to run: `sagani --help` reads the names alone
# (type checkers read this name as True).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from sagani_net.game import About, Data, Game

#: Name -> package, in the order menus list them. The first is the default.
PACKAGES: dict[str, str] = {
    "sagani": "sagani_net.games.sagani",
    "sagrada": "sagani_net.games.sagrada",
    "sugi": "sagani_net.games.sugi",
}
DEFAULT_GAME = "sagani"


def game_names() -> list[str]:
    return list(PACKAGES)


def get_game(name: str) -> Game:
    """The game called ``name``; raises RuleError("unknown_game", ...)."""
    game: Game = import_module(_package(name)).GAME
    return game


def about(name: str) -> About | Game:
    """What is said of the game called ``name`` before it is played (its name, title and
    options), without importing its engine: its package's ``about.py``; a package without one
    (a game of the tests) is read from its rules. Raises RuleError("unknown_game", ...).

    >>> [o.name for o in about("sugi").options]
    ['players', 'edition']
    """
    package = _package(name)
    try:
        found: About = import_module(f"{package}.about").ABOUT
    except ModuleNotFoundError as exc:
        if exc.name != f"{package}.about":
            raise
        return get_game(name)
    return found


def rules_on_demand(module: str, attribute: str) -> Callable[[str], Any]:
    """A game package's ``__getattr__`` (PEP 562) that gives ``GAME``, the ``attribute`` of its
    rules ``module``, when first asked for: importing the package for its ``about`` leaves
    the engine unimported."""

    def __getattr__(name: str) -> Any:
        if name == "GAME":
            return getattr(import_module(module), attribute)
        raise AttributeError(f"module {module.rpartition('.')[0]!r} has no attribute {name!r}")

    return __getattr__


def game_part(name: str, part: str) -> ModuleType:
    """One part of a game's package (``"bots"``, ``"ui"``), imported on first use."""
    return import_module(f"{_package(name)}.{part}")


def rules_file(name: str) -> Path:
    """The game's ``RULES.md`` where it is installed (it ships in the package).

    >>> rules_file("sugi").name
    'RULES.md'
    """
    from pathlib import Path

    return Path(import_module(_package(name)).__file__ or "").with_name("RULES.md")


def configs(name: str) -> list[Data]:
    """Every distinct config the game accepts from combinations of its options' choices (an
    option without choices keeps its default), in the order of the choices.

    >>> [(c["players"], c["mode"]) for c in configs("sagani")]
    [(1, 'solo'), (1, 'solo-advanced'), (2, 'multi'), (3, 'multi'), (4, 'multi')]
    """
    from sagani_net.game import RuleError

    game = get_game(name)
    names = [o.name for o in game.options]
    found: list[Data] = []
    for values in product(*[o.choices or (o.default,) for o in game.options]):
        try:
            config = game.parse_config(dict(zip(names, values, strict=True)))
        except RuleError:
            continue
        if config not in found:
            found.append(config)
    return found


def _package(name: str) -> str:
    try:
        return PACKAGES[name]
    except (KeyError, TypeError):
        from sagani_net.game import RuleError

        known = ", ".join(PACKAGES)
        raise RuleError("unknown_game", f"no game called {name!r}; known: {known}") from None
