"""``sagani record export TABLE``: a finished game's record from a host's data dir (read-only)
or from a running host.

Apart from :mod:`sagani_net.cli.host_cmd`, which imports the whole host side (the host, its
tables, the standby, ZeroMQ) to run one: reading a stored record needs the store alone, and
with them the command took three times as long as ``sagani --version``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import platformdirs

from sagani_net.cli import args as check
from sagani_net.cli.args import UsageError
from sagani_net.store import DB_NAME, StorageDamaged, Store


def default_data_dir() -> Path:
    """A host's data dir when none is given (``sagani play`` keeps its own under it)."""
    return Path(platformdirs.user_data_dir("sagani"))


def add_parsers(sub: Any) -> None:
    """Add ``record`` to the ``sagani`` command (cli/main.py)."""
    parser = check.command_parser(sub, "record")
    actions = parser.add_subparsers(dest="record_command", metavar="ACTION", required=True)
    export = actions.add_parser("export", help="write a finished game's JSON record")
    export.add_argument("table", type=check.table_id, metavar="TABLE", help="the table id")
    export.add_argument("--data-dir", type=check.directory, default=None,
                        help=f"the host's data directory (default: {default_data_dir()}, "
                        f"then the one of sagani play, {default_data_dir() / 'play'})")
    export.add_argument("--host", type=check.host, default=None, metavar="ADDRESS",
                        help="ask the host at ADDRESS (host[:port] or a join code; - reads it "
                        "from standard input) for the record instead of reading a data dir")
    export.add_argument("-o", "--output", type=Path, default=None,
                        help="file to write (default: standard output)")
    export.set_defaults(func=run_record_export)


def run_record_export(args: argparse.Namespace) -> int:
    if args.output is not None:
        check.writable(args.output)
    if args.host is not None:
        if args.data_dir is not None:
            raise UsageError("give --host or --data-dir, not both")
        record = record_from_host(args.host, args.table)
    else:
        record = record_from_disk(args)
    text = json.dumps(record, indent=1) + "\n"
    if args.output is None:
        sys.stdout.write(text)
    else:
        check.write_text(args.output, text)
    return 0


def record_from_host(address: str, table: str) -> dict[str, Any]:
    """A finished game's record as the host serves it (``record`` request); raises UsageError."""
    from sagani_net.client import Client, HostError, HostTimeout

    client = Client(check.reach_host(address))
    try:
        return client.record(table)
    except HostError as exc:
        raise UsageError(f"cannot export {table}: {exc.message}") from None
    except HostTimeout:
        raise UsageError(f"cannot export {table}: the host stopped answering") from None
    finally:
        client.close()


def record_from_disk(args: argparse.Namespace) -> dict[str, Any]:
    """The finished record of ``args.table`` in ``args.data_dir`` (without one: the host's data
    dir, then the one ``sagani play`` keeps its games in); raises UsageError."""
    dirs = [args.data_dir] if args.data_dir else [default_data_dir(), default_data_dir() / "play"]
    why = ""
    record = None
    for data_dir in dirs:
        if not (data_dir / DB_NAME).is_file():
            continue  # never create a database just to look in it
        try:
            # Read-only: a host may be serving this data dir right now.
            store = Store.reader(data_dir)
        except StorageDamaged as exc:
            raise UsageError(f"cannot export {args.table}: {exc}") from None
        try:
            record = store.record(args.table)
            if record is None and args.table in store.table_ids():
                why = f"its game is not over (in {data_dir})"
        finally:
            store.close()
        if record is not None or why:
            break
    if record is None:
        where = " or ".join(str(d) for d in dirs)
        why = why or (f"no such table in {where} (a host keeps the records of its newest "
                      "finished games: sagani host --keep-games)")
        raise UsageError(f"cannot export {args.table}: {why}")
    return record
