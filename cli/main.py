"""The ``sagani`` command: one subcommand per module, each adding its own parser.

Every mistake on the command line is one line on stderr and exit code 2: the parsers read
each value with a checked type (:mod:`sagani_net.cli.args`), and a clash found later raises
:class:`sagani_net.cli.args.UsageError`.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import signal
import sys
from collections.abc import Sequence

from sagani_net.cli import args as check
from sagani_net.cli.args import OneLineParser

TYPE_CHECKING = False  # typing is not imported to run (sagani_net.cli.args says why)
if TYPE_CHECKING:
    from typing import Any


def version() -> str:
    # The package's own (pyproject.toml reads it there): importlib.metadata would cost more
    # than all the rest of `sagani --version`.
    from sagani_net import __version__

    return __version__


class VersionAction(argparse.Action):
    """``--version`` as argparse's own, with the version looked up only when it is asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 help: str = "show program's version number and exit") -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        print(f"{parser.prog} {version()}")
        parser.exit()


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``sagani`` parser. The module of ``command`` adds its parsers in full (each sets
    ``func(args) -> int``), and the other commands are left out: nothing of theirs is needed
    to run it (a parser each costs ``sagani selfplay`` a tenth of its games). Without a
    command (``--help``, ``--version``, a mistyped name) every command is its name and help
    line alone, so nothing heavy is imported for them."""
    from sagani_net.games import PACKAGES

    parser = OneLineParser(
        prog="sagani",
        description=f"Board games over a LAN ({', '.join(PACKAGES)}): host, console, bots "
        "and tools. Start with `sagani play`.",
    )
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    if command in check.COMMANDS:
        importlib.import_module(check.COMMANDS[command][0]).add_parsers(sub)
        return parser
    for name in check.COMMANDS:
        check.command_parser(sub, name)
    return parser


def parser_for(argv: Sequence[str]) -> argparse.ArgumentParser:
    """The parser that reads ``argv``: :func:`build_parser` for the command its first word that
    is not an option names."""
    command = next((word for word in argv if not word.startswith("-")), None)
    # No cycle collection while the command's modules load: all they make lives as long as the
    # process, so the collections (a tenth of the import time) would free nothing.
    gc.disable()
    try:
        return build_parser(command)
    finally:
        gc.enable()


def main(argv: list[str] | None = None) -> int:
    parser = parser_for(sys.argv[1:] if argv is None else argv)
    try:
        code = check.run(parser, argv)
        if sys.stdout is not None:  # None: run with standard output closed ('>&-')
            sys.stdout.flush()  # what is still buffered meets a reader gone here, not at exit
    except BrokenPipeError:
        # The reader has gone ('sagani analyze game.json | head' once head has its lines): end
        # as cat does, without a word or a traceback; standard output goes nowhere, so that the
        # interpreter's own last flush fails no more.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE
    return code


if __name__ == "__main__":
    sys.exit(main())
