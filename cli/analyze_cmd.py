"""``sagani analyze``: the search bot's verdict on every decision of a finished game.

The record is a file (as ``sagani replay`` reads it), or a finished table of a host
(``--table T --host ADDRESS``) or of a data dir (``--table T [--data-dir DIR]``), found as
``sagani record export`` finds it. The analysis itself is :mod:`sagani_net.analysis`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from sagani_net.analysis import DEFAULT_ITERATIONS, Effort, analyse, format_analysis
from sagani_net.cli import args as check
from sagani_net.cli.args import UsageError, read_record
from sagani_net.game import Data, RuleError


def add_parsers(sub: Any) -> None:
    p = sub.add_parser(
        "analyze", help=check.COMMANDS["analyze"][1],
        description="Rate every decision of a finished game with the search bot, each on what "
        "its seat knew then: the value of the move played and of the best move found (win "
        "chance, or a solo game's reward), the loss, and a mark for a mistake or a blunder; "
        "then a summary per seat. Decisions are searched in parallel on every core.")
    p.add_argument("record", type=Path, nargs="?", default=None, metavar="RECORD",
                   help="a JSON game record, - for standard input (sagani record export T "
                   "| sagani analyze -), or give --table")
    p.add_argument("--table", type=check.table_id, default=None, metavar="TABLE",
                   help="a finished table instead of a file: at --host, or in --data-dir "
                   "(default: the host's data dir, then sagani play's)")
    p.add_argument("--host", type=check.host, default=None, metavar="ADDRESS",
                   help="the host that played --table")
    p.add_argument("--data-dir", type=check.directory, default=None,
                   help="the data dir that holds --table")
    p.add_argument("--iterations", type=check.iterations, default=None,
                   help=f"search iterations per decision (default {DEFAULT_ITERATIONS}; the "
                   "analysis is then the same on every run)")
    p.add_argument("--think", type=check.think_s, default=None, metavar="S",
                   help="seconds of search per decision instead (with --iterations: whichever "
                   "ends first); not the same on every run")
    p.add_argument("--workers", type=check.workers, default=None,
                   help="processes to search on (default and at most: one per core)")
    p.add_argument("--json", nargs="?", const="-", default=None, metavar="FILE",
                   help="write the whole analysis as JSON (protocol/RECORD.md, Analysis) to "
                   "FILE, or without FILE to standard output instead of the table")
    p.add_argument("--all", action="store_true",
                   help="list every decision, not only the marked ones")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run_analyze)


def load_record(args: argparse.Namespace) -> Data:
    """The record ``args`` name (a file, or ``--table`` at a host or in a data dir); raises
    UsageError."""
    if args.table is not None:
        if args.record is not None:
            raise UsageError("give a RECORD file or --table, not both")
        # The export command's own loading: the same tables, the same errors.
        from sagani_net.cli import record_cmd

        if args.host is not None and args.data_dir is not None:
            raise UsageError("give --host or --data-dir, not both")
        try:
            if args.host is not None:
                return record_cmd.record_from_host(args.host, args.table)
            return record_cmd.record_from_disk(args)
        except UsageError as exc:
            raise UsageError(str(exc).replace("cannot export", "cannot analyze", 1)) from None
    if args.host is not None or args.data_dir is not None:
        raise UsageError("--host and --data-dir name where --table is; give --table")
    if args.record is None:
        raise UsageError("give a RECORD file, or --table")
    try:
        return read_record(args.record)
    except OSError as exc:
        raise UsageError(f"cannot analyze {_named(args)}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise UsageError(f"cannot analyze {_named(args)}: {exc}") from None


def _named(args: argparse.Namespace) -> str:
    """The record as an error names it."""
    if args.record is None:
        return f"table {args.table}"
    return check.file_named(args.record)


def run_analyze(args: argparse.Namespace) -> int:
    record = load_record(args)
    if args.json not in (None, "-"):
        # The analysis written over the record it analyses would lose the game.
        if (args.record is not None and not check.piped(args.record)
                and Path(args.json).resolve() == args.record.resolve()):
            raise UsageError(f"--json {args.json} is the record itself: give another file")
        check.writable(Path(args.json))
    where = _named(args)
    # An iteration budget unless only a time budget is given.
    iterations = DEFAULT_ITERATIONS if args.think is None else args.iterations
    effort = Effort(args.iterations or iterations, args.think)
    try:
        analysis = analyse(record, effort, workers=args.workers,
                           progress=None if args.quiet else sys.stderr)
    except RuleError as exc:
        raise UsageError(f"cannot analyze {where}: {exc.message}") from None
    except (TypeError, KeyError, IndexError, AttributeError) as exc:
        # A field of the wrong kind that the game's own record check let through: the file
        # is untrusted input, so it gets a sentence, not a traceback.
        raise UsageError(f"cannot analyze {where}: a damaged record ({exc!r})") from None
    # A name is a string (RECORD.md); anything else in a hand-edited record is no name, as
    # the replay takes it, not 'seat 1 (None)'.
    names = ([n if isinstance(n, str) else "" for n in record["names"]]
             if isinstance(record.get("names"), list) else None)
    if args.json is not None:
        text = json.dumps(analysis.to_data(), indent=1) + "\n"
        if args.json == "-":
            sys.stdout.write(text)
            return 0
        check.write_text(Path(args.json), text)
    print(format_analysis(analysis, names, args.all))
    return 0
