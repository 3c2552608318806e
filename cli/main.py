"""The ``sagani`` command: one subcommand per module, each adding its own parser.

Every mistake on the command line is one line on stderr and exit code 2: the parsers read
each value with a checked type (:mod:`cli.args`), and a clash found later raises
:class:`cli.args.UsageError`.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from importlib import metadata

from cli import args as check
from cli.args import OneLineParser

#: Modules that each define ``add_parsers(subparsers)``; every parser sets ``func(args) -> int``.
COMMAND_MODULES = ("cli.play_cmd", "cli.host_cmd", "cli.bot_cmd", "cli.selfplay")


def version() -> str:
    try:
        return metadata.version("sagani-net")
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    from sagani_net.games import PACKAGES

    parser = OneLineParser(
        prog="sagani",
        description=f"Board games over a LAN ({', '.join(PACKAGES)}): host, console, bots "
        "and tools. Start with `sagani play`.",
    )
    parser.add_argument("--version", action="version", version=f"sagani {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).add_parsers(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    return check.run(build_parser(), argv)


if __name__ == "__main__":
    sys.exit(main())
