"""The ``sagani`` command: one subcommand per module, each adding its own parser."""

from __future__ import annotations

import argparse
import importlib
import sys

#: Modules that each define ``add_parsers(subparsers)``; every parser sets ``func(args) -> int``.
COMMAND_MODULES = ("cli.play_cmd", "cli.host_cmd", "cli.bot_cmd", "cli.selfplay")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sagani",
        description="Sagani over a LAN: host, console, bots and tools.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).add_parsers(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
