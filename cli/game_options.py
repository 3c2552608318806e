"""``--game NAME`` and the table options of a game on the command line, for every front end.

The options a game offers (:attr:`sagani_net.game.Game.options`) are given as ``--players N``
and ``--mode M`` (the common ones) or ``--option NAME=VALUE``; the game's ``parse_config``
checks them and fills in its defaults, so no command reads a mode or a player count itself.
"""

from __future__ import annotations

import argparse
from typing import Any

from cli import args as check
from cli.args import UsageError
from sagani_net.game import Data, Option, RuleError
from sagani_net.games import DEFAULT_GAME, game_names, get_game


def add_game_arguments(p: argparse.ArgumentParser, *, what: str = "the game") -> None:
    """Add ``--game``, ``--players``, ``--mode`` and ``--option`` to ``p``."""
    p.add_argument("--game", type=check.game_name, default=DEFAULT_GAME, metavar="NAME",
                   help=f"{what}: one of {', '.join(game_names())} (default {DEFAULT_GAME})")
    p.add_argument("--players", type=check.players, default=None,
                   help="how many play (the game's default if not given)")
    modes = "; ".join(f"{name}: {', '.join(map(str, o.choices))}" for name in game_names()
                      for o in get_game(name).options if o.name == "mode")  # fmt: skip
    p.add_argument("--mode", default=None, help=f"the game's mode, if it has modes ({modes})")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="any other table option of the game (repeat for more)")  # fmt: skip


def game_config(args: argparse.Namespace) -> tuple[str, Data]:
    """The game's name and its checked, completed config from the parsed arguments; raises
    UsageError with a sentence for an unknown game or an option it refuses."""
    try:
        game = get_game(args.game)
        given: dict[str, Any] = {}
        for name in ("players", "mode"):
            if getattr(args, name, None) is not None:
                given[name] = getattr(args, name)
        options = {o.name: o for o in game.options}
        for text in args.option:
            name, sep, value = text.partition("=")
            if not sep or name not in options:
                known = ", ".join(options)
                raise RuleError("bad_config", f"--option is NAME=VALUE with NAME one of {known}")
            given[name] = _typed(options[name], value)
        return game.name, game.parse_config(given)
    except RuleError as exc:
        raise UsageError(exc.message) from None


def _typed(option: Option, text: str) -> Any:
    """``text`` as a value of the option's type (the default's)."""
    kind = type(option.default)
    if kind is bool:
        if text.lower() not in ("true", "false", "yes", "no", "1", "0"):
            raise RuleError("bad_config", f"{option.name} is true or false, not {text!r}")
        return text.lower() in ("true", "yes", "1")
    if kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            what = "a whole number" if kind is int else "a number"
            raise RuleError("bad_config", f"{option.name} is {what}, not {text!r}") from None
    return text
