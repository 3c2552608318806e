"""What ``sagani play``, ``join``, ``tables`` and ``replay`` take: their parsers, read before
anything they run is imported, so that a mistake or ``--help`` is answered at once. (The
console, the host and zmq take ``sagani play`` a quarter of a second to import; a mistyped
option needs none of them.) What they run is :mod:`sagani_net.cli.play_cmd`.
"""

from __future__ import annotations

import argparse
import getpass
from collections.abc import Callable
from pathlib import Path
from typing import Any

import platformdirs

from sagani_net.cli import args as check
from sagani_net.cli.game_options import add_file_arguments
from sagani_net.games import DEFAULT_GAME, PACKAGES
from sagani_net.protocol.wire import DEFAULT_PORT

BOT_KINDS = ("greedy", "random", "mcts")
#: The time a bot in ``sagani play`` thinks per move with mcts.
MCTS_THINK_S = 1.0


def user_name() -> str:
    """This machine's login name, as a player's name when none is given."""
    try:
        name = getpass.getuser()[:16]
    except Exception:  # no user name in this environment: any name will do
        return "you"
    # A login name in bytes that are not UTF-8 (LANG=C) is not one --name would take.
    return name if name.isprintable() and name.strip() else "you"


def user_dir() -> Path:
    return Path(platformdirs.user_data_dir("sagani"))


def add_parsers(sub: Any) -> None:
    """Add ``play``, ``join``, ``tables`` and ``replay`` to the ``sagani`` command."""
    p = check.command_parser(
        sub, "play",
        description="Start a host on 127.0.0.1, bots in the free seats, and you "
        "in the console. Quitting keeps the game; starting again "
        "offers to resume it.",
    )
    p.add_argument("--game", type=check.game_name, default=DEFAULT_GAME,
                   help=f"the game ({', '.join(PACKAGES)}; default {DEFAULT_GAME})")
    p.add_argument("--players", type=check.players, default=None,  # None: not asked for
                   help="how many play (default 2; 1: a game's solo, where it has one)")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="another table option of the game (repeat for more), e.g. "
                   "difficulty=5 for Sagrada's solo")
    add_file_arguments(p)
    p.add_argument("--solo", action="store_true",
                   help="the solo game (Sagani: the basic one, reach 75)")
    p.add_argument("--solo-advanced", action="store_true", help="Sagani's advanced solo game")
    p.add_argument("--seat", type=check.seat, default=1, help="your seat, from 1 (default 1)")
    p.add_argument(
        "--bots",
        type=check.strategies_in(lambda: list(BOT_KINDS)),
        default=None,  # None: not asked for (greedy, where there are other seats)
        metavar="KIND[,KIND...]",
        help=f"bot kind for the other seats, or one per seat in order ({', '.join(BOT_KINDS)}, "
        f"{check.OWN_STRATEGY})",
    )
    p.add_argument(
        "--open",
        type=check.seat,
        action="append",
        default=[],
        metavar="SEAT",
        help="leave SEAT (from 1) for a person who runs `sagani join` on this machine "
        "(repeatable; your screen is then covered, as --cover)",
    )
    p.add_argument("--cover", action="store_true",
                   help="keep what only your seat may see (a hand, a private objective) covered "
                   "but while you press h, and cover it again when the turn passes to another "
                   "seat: for a screen "
                   "others look at")
    p.add_argument("--seed", type=check.seed, default=None, help="shuffle seed (default: random)")
    p.add_argument(
        "--think",
        type=check.think_s,
        default=MCTS_THINK_S,
        metavar="S",
        help=f"seconds an mcts bot thinks per move (default {MCTS_THINK_S:g})",
    )
    p.add_argument("--name", type=check.name, default=user_name(),
                   help="your name at the table")
    p.add_argument("--port", type=check.port, default=0,
                   help="request port (default: a free one)")
    p.add_argument(
        "--data-dir",
        type=check.directory,
        default=None,
        help=f"where games are kept (default {user_dir() / 'play'})",
    )
    resume = p.add_mutually_exclusive_group()
    resume.add_argument("--resume", action="store_true", help="resume the unfinished game")
    resume.add_argument("--new", action="store_true",
                        help="start a new game; an unfinished one is set aside")
    p.add_argument(
        "--autoplay",
        type=check.strategy_in(lambda: list(BOT_KINDS)),
        default=None,
        metavar="KIND",
        help="no console: a bot plays your seat and the result is printed (scripts): "
        f"{', '.join(BOT_KINDS)}, {check.OWN_STRATEGY}",
    )
    p.set_defaults(func=_runs("run_play"))

    j = check.command_parser(sub, "join",
                             description="Take a seat (or watch) at a table of a host elsewhere; "
                             "with no table to join, create one.")
    j.add_argument(
        "address",
        nargs="?",
        type=check.host,
        default=None,
        help=f"host[:port], tcp://host:port or a join code (- asks for it, out of the process "
        f"list; default 127.0.0.1:{DEFAULT_PORT})",
    )
    j.add_argument("--spectate", action="store_true", help="watch instead of playing")
    j.add_argument("--lan", action="store_true", help="find hosts on the LAN with zeroconf")
    j.add_argument("--table", type=check.table_id, default=None,
                   help="table id (default: one with a free seat)")
    j.add_argument("--game", type=check.game_name, default=None,
                   help="join a table of this game; create one of it if none has a free seat "
                   f"(default: any game; creates {DEFAULT_GAME})")
    j.add_argument(
        "--players",
        type=check.players,
        default=None,
        help="join a table of this many players; create one of them if none has a free "
        "seat (default: any table; creates one of 2)",
    )
    j.add_argument(
        "--bots",
        type=check.int_in(0, 16, "a bot count"),
        default=0,
        help="seats kept for bots on a table this creates (`sagani bot` fills them)",
    )
    j.add_argument("--turn-timer", type=check.turn_timer, default=None, metavar="S",
                   help="a turn timer for the players of a table this creates: past it the "
                   "host plays the game's default move for the seat (default: none, or the "
                   "host's --turn-timer)")
    add_file_arguments(j)
    j.add_argument("--name", type=check.name, default=None,
                   help="your name at the table (default: your login name; coming back, "
                   "any seat of yours)")
    j.add_argument("--cover", action="store_true",
                   help="keep what only your seat may see (a hand, a private objective) covered "
                   "but while you press h, and cover it again when the turn passes to another "
                   "seat: for a screen "
                   "others look at (sagani play --open invites with it)")
    j.add_argument("--standby", type=check.standby_code, default=None, metavar="CODE",
                   help="also keep a standby host on this machine, so that the game goes on "
                   "here if the host goes away; CODE is the standby code the host printed "
                   "(it names the host too; - asks for it without echoing it, out of the "
                   "process list)")
    j.set_defaults(func=_runs("run_join"))

    t = check.command_parser(sub, "tables",
                             description="The lobby of a host: every table with its game, status "
                             "and who sits where (seats from 1), to pick one for sagani join "
                             "--table.")
    t.add_argument("address", nargs="?", type=check.host, default=None,
                   help=f"host[:port] or a join code (- reads it from standard input; default "
                   f"127.0.0.1:{DEFAULT_PORT})")
    t.set_defaults(func=_run_tables)

    r = check.command_parser(sub, "replay",
                             description="Step through a game record (from `sagani play`, "
                             "`sagani record export`, selfplay or a tournament) in the console; "
                             "the record names its game.")
    r.add_argument("record", type=Path, metavar="RECORD",
                   help="a JSON game record (with --print, - reads it from standard input)")
    r.add_argument("--print", action="store_true",
                   help="print the last position and the ranking at the terminal's width, "
                   "and exit")
    r.add_argument("--analysis", type=Path, default=None, metavar="FILE",
                   help="show beside each move the verdict of `sagani analyze RECORD --json "
                   "FILE` (c: the costliest decisions); without it, the key a analyses on demand")
    r.add_argument("--analyze", action="store_true",
                   help="analyse the game first (as `sagani analyze` does, progress on "
                   "stderr), then show the verdicts")
    r.set_defaults(func=_runs("run_replay"))


def _run_tables(args: argparse.Namespace) -> int:
    from sagani_net.cli.tables_cmd import run_tables

    return run_tables(args)


def _runs(name: str) -> Callable[[argparse.Namespace], int]:
    """The command ``name`` of :mod:`sagani_net.cli.play_cmd`, imported when it runs."""

    def run(args: argparse.Namespace) -> int:
        from sagani_net.cli import play_cmd

        command: Callable[[argparse.Namespace], int] = getattr(play_cmd, name)
        return command(args)

    return run
