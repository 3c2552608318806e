"""``--game NAME`` and the table options of a game on the command line, for every front end.

The options a game offers (:attr:`sagani_net.game.Game.options`) are given as ``--players N``
and ``--mode M`` (the common ones) or ``--option NAME=VALUE``; the game's ``parse_config``
checks them and fills in its defaults, so no command reads a mode or a player count itself.

An option whose default is None takes structured data (Sagrada's ``patterns``): it is given
as a JSON file, ``--NAME FILE`` (``--patterns my.json``) or ``--option NAME=FILE``, and the
game checks what the file holds. Every command that creates a table offers these flags.
"""

from __future__ import annotations

import argparse
from typing import Any

from sagani_net.cli import args as check
from sagani_net.cli.args import UsageError
from sagani_net.game import Data, Option, RuleError
from sagani_net.games import DEFAULT_GAME, about, game_names, get_game


def file_options() -> dict[str, dict[str, Option]]:
    """The options given as a JSON file: name -> {game: its option of that name}."""
    found: dict[str, dict[str, Option]] = {}
    for game in game_names():
        for o in about(game).options:  # no engine imported: every command builds these flags
            if o.default is None:
                found.setdefault(o.name, {})[game] = o
    return found


def add_file_arguments(p: argparse.ArgumentParser) -> None:
    """Add ``--NAME FILE`` for every option given as a file (``--patterns FILE``)."""
    for name, by_game in file_options().items():
        first = next(iter(by_game.values()))
        p.add_argument(f"--{name.replace('_', '-')}", dest=f"file_{name}", type=check.json_file,
                       default=None, metavar="FILE",
                       help=f"{', '.join(by_game)}, a JSON file: {first.help or name}")


def given_files(args: argparse.Namespace, game: Any) -> Data:
    """The file options given on the command line, for ``game``; raises UsageError for one
    the game does not have."""
    given: Data = {}
    for name, by_game in file_options().items():
        value = getattr(args, f"file_{name}", None)
        if value is None:
            continue
        if game.name not in by_game:
            titles = ", ".join(about(g).title for g in by_game)
            raise UsageError(f"--{name.replace('_', '-')} is for {titles} only")
        given[name] = value
    return given


def checked_config(game: Any, given: Data) -> Data:
    """``game.parse_config(given)``; its refusal becomes a one-line UsageError (a game may
    name several problems, one per line: a pattern file's)."""
    try:
        return dict(game.parse_config(given))
    except RuleError as exc:
        raise UsageError("; ".join(exc.message.splitlines())) from None


def add_game_arguments(p: argparse.ArgumentParser, *, what: str = "the game",
                       players_default: str = "the game's") -> None:
    """Add ``--game``, ``--players``, ``--mode``, ``--option`` and the file options to
    ``p``; ``players_default`` says what a missing ``--players`` means."""
    p.add_argument("--game", type=check.game_name, default=DEFAULT_GAME, metavar="NAME",
                   help=f"{what}: one of {', '.join(game_names())} (default {DEFAULT_GAME})")
    p.add_argument("--players", type=check.players, default=None,
                   help=f"how many play (default: {players_default})")
    modes = "; ".join(f"{name}: {', '.join(map(str, o.choices))}" for name in game_names()
                      for o in about(name).options if o.name == "mode")
    p.add_argument("--mode", default=None, help=f"the game's mode, if it has modes ({modes})")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="any other table option of the game (repeat for more)")
    add_file_arguments(p)


def game_config(args: argparse.Namespace) -> tuple[str, Data]:
    """The game's name and its checked, completed config from the parsed arguments; raises
    UsageError with a sentence for an unknown game or an option it refuses."""
    try:
        game = get_game(args.game)
        given: dict[str, Any] = {}
        for name in ("players", "mode"):
            if getattr(args, name, None) is not None:
                given[name] = getattr(args, name)
        given.update(given_options(args, game))
    except RuleError as exc:
        raise UsageError(exc.message) from None
    given.update(given_files(args, game))
    try:
        return game.name, checked_config(game, given)
    except UsageError as exc:  # named by its game, as sagani play's are
        raise UsageError(f"{game.title}: {exc}") from None


def given_options(args: argparse.Namespace, game: Any) -> Data:
    """The ``--option NAME=VALUE`` values, each of its option's type; raises
    RuleError("bad_config", ...) for a name the game does not know or a value of the wrong
    kind."""
    options = {o.name: o for o in game.options}
    given: Data = {}
    for text in getattr(args, "option", None) or []:  # a command without --option: none
        name, sep, value = text.partition("=")
        if not sep or name not in options:
            known = ", ".join(options)
            raise RuleError("bad_config", f"--option is NAME=VALUE with NAME one of {known}")
        given[name] = _typed(options[name], value)
    return given


def _typed(option: Option, text: str) -> Any:
    """``text`` as a value of the option's type (the default's); a file's JSON for an option
    without a default."""
    if option.default is None:
        try:
            return check.json_file(text)
        except argparse.ArgumentTypeError as exc:
            raise RuleError("bad_config", f"{option.name}: {exc}") from None
    kind = type(option.default)
    if kind is bool:
        if text.lower() not in ("true", "false", "yes", "no", "1", "0"):
            raise RuleError("bad_config", f"{option.name} is true or false, not {text!r}")
        return text.lower() in ("true", "yes", "1")
    if kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            within = ("one of " + ", ".join(map(str, option.choices)) if option.choices
                      else "a smaller number")
            too_long = check.too_long_number(text, option.name, within) if kind is int else None
            if too_long is not None:
                raise RuleError("bad_config", too_long) from None
            what = "a whole number" if kind is int else "a number"
            raise RuleError("bad_config", f"{option.name} is {what}, not {text!r}") from None
    return text
