"""``sagani host``: the headless host node (``sagani record``: :mod:`sagani_net.cli.record_cmd`)."""

from __future__ import annotations

import argparse
import contextlib
import gc
import logging
import os
import shlex
import signal
import sqlite3
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import zmq

from sagani_net import security, standby
from sagani_net.cli import args as check
from sagani_net.cli import record_cmd
from sagani_net.cli.args import UsageError
from sagani_net.cli.record_cmd import default_data_dir
from sagani_net.game import plural
from sagani_net.host import HEARTBEAT_S, BindError, Host, Limits
from sagani_net.limits import (
    CONNECTIONS_PER_ADDRESS,
    FINISHED_RECORDS,
    HOUSE_BOT_SEATS_PER_ADDRESS,
    MAX_HEARTBEAT_S,
    MIN_HEARTBEAT_S,
)
from sagani_net.private_files import private_dir, write_private
from sagani_net.protocol import DEFAULT_PORT
from sagani_net.protocol.messages import BOT_FALLBACK_S, DEADLINE_GRACE_S
from sagani_net.protocol.wire import MAX_PORT
from sagani_net.store import DB_NAME, StorageDamaged, Store, salvage
from sagani_net.tables import OVER

if TYPE_CHECKING:
    from sagani_net import discovery

# Imported where asked for, so that a plain `sagani host` answers sooner: the house bots
# (--bots: nacl, the bots, asyncio) and zeroconf's side (--lan).

#: Open files a host asks the system for (at most its hard limit).
DESCRIPTORS_WANTED = 65536
#: How often a standby beside a console looks whether the console is still there.
PARENT_CHECK_S = 0.5


def add_parsers(sub: Any) -> None:
    """Add ``host`` to the ``sagani`` command (cli/main.py)."""
    add_host_parser(sub)


def add_host_parser(sub: Any) -> argparse.ArgumentParser:
    parser = check.command_parser(
        sub, "host",
        description="Serve tables on a ROUTER (requests) and a PUB (broadcasts). "
        "Binds 127.0.0.1 only unless --bind says otherwise.",
    )
    parser.add_argument("--port", type=check.port, default=DEFAULT_PORT,
                        help=f"request port (default {DEFAULT_PORT}; 0 picks a free one)")
    parser.add_argument("--pub-port", type=check.port, default=None,
                        help="broadcast port (default: --port + 1, or a free one with --port 0)")
    parser.add_argument("--bind", type=check.bind_address, default=None, metavar="ADDR",
                        help="address to bind, e.g. 0.0.0.0 to serve the LAN (default 127.0.0.1; "
                        "a standby: this machine's address facing the active host)")
    parser.add_argument("--data-dir", type=check.directory, default=None,
                        help=f"where the games are kept (default {default_data_dir()})")
    parser.add_argument("--heartbeat-s", type=check.heartbeat_s, default=HEARTBEAT_S,
                        help="seconds of silence on a table before a heartbeat (default "
                        f"{HEARTBEAT_S:g}; {MIN_HEARTBEAT_S:g}..{MAX_HEARTBEAT_S:g})")
    parser.add_argument("--bot-deadline", type=check.bot_deadline, default=None, metavar="S",
                        help="per-move deadline for the bot seats of tables whose create request "
                        f"names none; past it (+{DEADLINE_GRACE_S:g} s) the host plays the game's "
                        f"default move (default: none, and a bot seat has {BOT_FALLBACK_S:g} s)")
    parser.add_argument("--turn-timer", type=check.turn_timer, default=None, metavar="S",
                        help="turn timer for the seats people hold, at tables whose create "
                        f"request names none; past it (+{DEADLINE_GRACE_S:g} s) the host plays "
                        "the game's default move (default: none)")
    parser.add_argument("--client-seeds", action="store_true",
                        help="let every create choose its table's seed, also where others play "
                        "(whoever chose a seed knows the deal: for a host whose clients are all "
                        "yours; otherwise only solo tables may)")
    parser.add_argument("--fsync", action="store_true",
                        help="fsync every commit (survives power cuts, slower)")
    parser.add_argument("--secure", action="store_true",
                        help="encrypt with CURVE (key pair kept in the data dir) and print a "
                        "join code for sagani join / sagani bot; see SECURITY.md")
    parser.add_argument("--lan", action="store_true",
                        help="advertise the host on the LAN with zeroconf (DNS-SD) so that "
                        "sagani join --lan finds it; needs --bind 0.0.0.0 or a LAN address")
    parser.add_argument("--bots", choices=("random", "greedy", "mcts"), default=None,
                        metavar="STRATEGY",
                        help="play the seats kept for bots with house bots of this strategy "
                        "(random, greedy or mcts), in a process beside the host's; they come back "
                        "after a restart (default: leave those seats to `sagani bot` clients)")
    parser.add_argument("--connections-per-address", type=check.int_in(1, 100_000,
                        "--connections-per-address"), default=CONNECTIONS_PER_ADDRESS,
                        metavar="N", help="connections one machine may hold to each socket "
                        f"(default {CONNECTIONS_PER_ADDRESS}; raise it for a machine of many "
                        "bots)")
    parser.add_argument("--keep-games", type=check.keep_games, default=FINISHED_RECORDS,
                        metavar="N", help="finished games whose records the data dir keeps; past "
                        "it the oldest are removed (default "
                        f"{FINISHED_RECORDS:,}: far more than a weekend of play; all: keep "
                        "every one, and let the data dir grow)")
    parser.add_argument("--quiet", action="store_true", help="log warnings only, not each event")
    parser.add_argument("--salvage", action="store_true",
                        help="move a damaged database aside, copy what is readable into a new "
                        "one, and serve it")
    parser.add_argument("--print-join-code", action="store_true",
                        help="with --secure: print the join code alone, quoted for a shell, "
                        "on the first line (for scripts and invitations)")
    pair = parser.add_argument_group("a pair of hosts (see PROTOCOL.md, Failover)")
    pair.add_argument("--standby", type=check.standby_code, default=None, metavar="CODE",
                      help="run as the standby of the active host whose standby code (printed "
                      "by it) is CODE: keep its games and take over when it is gone; - asks "
                      "for it at a terminal, without echoing it, or reads it from standard "
                      "input (out of the process list)")
    pair.add_argument("--link-port", type=check.port, default=None,
                      help="port a standby follows this host on (default: --port + 2, or a "
                      "free one with --port 0)")
    # For `sagani join --standby`: a standby that never took over goes with its console.
    pair.add_argument("--with-parent", action="store_true", help=argparse.SUPPRESS)
    parser.set_defaults(func=run_host)
    return parser


def check_ports(args: argparse.Namespace) -> None:
    """The clashes a single flag cannot see; raises UsageError."""
    if args.pub_port is None and args.port == MAX_PORT:
        raise UsageError(f"--port {args.port} leaves no port for broadcasts (--port + 1); "
                         "give --pub-port too")
    if args.pub_port is not None and args.pub_port == args.port and args.port != 0:
        raise UsageError("--pub-port must differ from --port")
    pub_port = args.port + 1 if args.pub_port is None and args.port else args.pub_port
    if args.link_port and args.link_port in (args.port, pub_port):
        raise UsageError("--link-port must differ from --port and --pub-port"
                         + (f" (--port + 1, {pub_port})" if args.pub_port is None else ""))
    if args.standby is not None and args.bots:
        raise UsageError("--bots runs on the active host only; start house bots there")
    if args.link_port is None and args.port and args.pub_port == args.port + 2:
        raise UsageError(f"--pub-port {args.pub_port} is the link port's default (--port + 2); "
                         "give --link-port too")
    if args.link_port is None and args.port and args.port + 2 > MAX_PORT:
        raise UsageError(f"--port {args.port} leaves no link port (--port + 2); give "
                         "--link-port too")


def _more_descriptors() -> None:
    """Raise the soft limit on open files to the hard one: every connection is a descriptor,
    and the per-address cap is meant to bind long before the system's limit does."""
    try:
        import resource
    except ImportError:  # not a POSIX system
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > DESCRIPTORS_WANTED:
        hard = DESCRIPTORS_WANTED
    if soft != resource.RLIM_INFINITY and soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def _standby_code(args: argparse.Namespace) -> standby.StandbyCode | None:
    """The code of ``--standby`` (read from standard input for ``-``); settles ``--secure``
    and ``--bind`` by it: a standby serves as its active host does, facing it."""
    code = check.given_standby(args.standby)
    if code is None:
        args.bind = args.bind or "127.0.0.1"
        return None
    try:
        args.bind = args.bind or standby.local_address(code.host)
    except standby.CodeError as exc:
        raise UsageError(f"--standby: {exc}") from None
    if args.secure and not code.secure:
        raise UsageError("--secure: the active host of this standby code is not secure; its "
                         "standby serves as it does (drop --secure)")
    args.secure = code.secure
    return code


def _salvaged(data_dir: Path, synchronous: str) -> Store:
    """``--salvage``: the store of ``data_dir``, salvaged first if it is damaged. A database
    that opens as it is is served as it is: moved aside, it would be called damaged, and a
    --salvage left in a start script would set a copy of every game aside at each start."""
    if not (Path(data_dir) / DB_NAME).exists():
        raise UsageError(f"--salvage: there is no database in {data_dir} to salvage")
    try:
        store = Store(data_dir, synchronous=synchronous)
    except StorageDamaged:
        print(f"sagani host: {salvage(data_dir)}", file=sys.stderr)
        return Store(data_dir, synchronous=synchronous)
    print(f"sagani host: --salvage: the database {store.path} is not damaged; it is served as "
          "it is", file=sys.stderr)
    return store


def run_host(args: argparse.Namespace) -> int:
    parent = os.getppid()  # now: it may be gone by the time this host is up (--with-parent)
    check_ports(args)
    code = _standby_code(args)
    if args.print_join_code and not args.secure:  # a standby is secure by its code
        raise UsageError("--print-join-code needs --secure (a plain host has no join code)")
    if args.lan:  # a mistake on the command line, told before anything listens or is written
        from sagani_net import discovery

        try:
            discovery.lan_reach(args.bind)
        except RuntimeError as exc:
            raise UsageError(f"--lan: {exc}") from None
    logging.basicConfig(
        level=logging.WARNING if args.quiet else logging.INFO,
        format="%(asctime)s %(message)s",
        stream=sys.stderr,
    )
    synchronous = "FULL" if args.fsync else "NORMAL"
    data_dir = args.data_dir or default_data_dir()
    try:
        # Held as long as this host runs (run_host returns only when it ends).
        held = check.hold_file(private_dir(data_dir) / check.DATA_DIR_LOCK, "sagani host")
        if isinstance(held, str):
            raise UsageError(f"{held} already serves the data dir {data_dir}; stop it first, or "
                             "give this host a --data-dir of its own")
        if args.salvage:
            store = _salvaged(data_dir, synchronous)
        else:
            store = Store(data_dir, synchronous=synchronous)
        if code is not None:
            standby.adopt(data_dir, code, store)  # its keys, served once this host is active
        keys = security.host_keys(data_dir) if args.secure else None
        key = standby.link_key(data_dir, keys)
        if args.bots:
            from sagani_net.bots import house

            house.load_tokens(data_dir)  # an unreadable key is told here, in one line
    except StorageDamaged as exc:
        print(f"sagani host: {exc}", file=sys.stderr)
        return 2
    except (OSError, sqlite3.Error, security.SecurityError) as exc:
        print(f"sagani host: cannot use the data dir {data_dir}: {exc} (it must be a "
              "writable directory with free space)", file=sys.stderr)
        return 2
    except ValueError as exc:  # a damaged standby.key or house key; another host's games
        store.close()
        raise UsageError(str(exc)) from None
    secure = security.server_setup(keys) if keys else None
    try:
        _more_descriptors()
        host = Host(store, bind=args.bind, port=args.port, pub_port=args.pub_port,
                    heartbeat_s=args.heartbeat_s, secure=secure, bot_deadline_s=args.bot_deadline,
                    turn_timer_s=args.turn_timer,
                    client_seeds=args.client_seeds,
                    limits=Limits(connections_per_address=args.connections_per_address,
                                  finished_records=args.keep_games,
                                  bot_seats_per_address=HOUSE_BOT_SEATS_PER_ADDRESS
                                  if args.bots else None))
    except BindError as exc:
        store.close()
        raise UsageError(f"{exc} (a port in use, or an address that is not this machine's)") \
            from None
    except (StorageDamaged, ValueError) as exc:  # games that cannot be read back; a bad bound
        store.close()
        raise UsageError(str(exc)) from None
    link_port = args.link_port if args.link_port is not None else (args.port and args.port + 2)
    try:
        link = standby.ActiveLink(host, key, bind=args.bind, port=link_port)
    except zmq.ZMQError as exc:
        host.close()
        raise UsageError(f"cannot listen for a standby on port {link_port}: {exc.strerror}") \
            from None
    # Binary Star: a host that lost the role while it was away comes back as the standby, and
    # of two started together the one whose store holds more writes serves.
    following = standby.elect(link, code.link if code else standby.former_standby(data_dir),
                              follow_silent=code is not None)
    if following is not None:
        pair = standby.Standby(host, link, following)
    else:
        host.link = link
    if args.print_join_code and keys:  # --secure, which run_host asked for
        print(shlex.quote(security.host_join_code(host.endpoint, keys)), flush=True)
    # The games restored from disk live as long as the host: keep them out of every cycle
    # collection, whose pauses would otherwise land on some player's act.
    gc.freeze()
    # One machine-readable line, so scripts and tests can find a host started on port 0.
    print(f"sagani host: requests {host.endpoint} broadcasts {host.pub_endpoint} link "
          f"{link.endpoint}", flush=True)
    if following is not None:
        # Named as its players know it (the code's address), the link beside it; started
        # plainly after losing the role, it knows only the other host's link so far.
        named = (f"{code.host}:{code.port} (link {following})"
                 if code is not None and following == code.link
                 else f"the host whose link is {following}")
        print(f"sagani host: standby of {named}; it takes over when that host is gone",
              flush=True)
        # A code of this host's last run as the active one names it as such: a standby
        # started with it now would follow a standby, which never answers. It is written
        # again if this host takes over.
        (Path(data_dir) / check.STANDBY_CODE_FILE).unlink(missing_ok=True)
        signal.signal(signal.SIGTERM, lambda *_: pair.stop())
        if args.with_parent:
            _stop_with_parent(pair, parent)
        # Beside a console too (--with-parent), for its code file: the console names it.
        _invite_when_active(pair, key, keys)
        adverts: list[discovery.Advert] = []
        if args.lan:  # multicast only when asked for on the command line, and only once active
            _advertise_when_active(pair, args.bind, adverts)
        bots = _ServedOnceActive()
        if args.bots:  # a host started again plainly, with its --bots, that lost the role
            bots.start(pair, lambda: _house_bots(pair.host, keys, args.bots, data_dir,
                                                 args.quiet))
        try:
            with contextlib.suppress(KeyboardInterrupt):
                pair.serve()
        finally:
            for advert in adverts:
                advert.close()
            bots.close()
        _say_stopped(pair.host, data_dir)
        return 0
    _invite(host, link, key, keys)
    signal.signal(signal.SIGTERM, lambda *_: host.stop())
    with contextlib.ExitStack() as stack:
        if args.bots:
            stack.enter_context(_house_bots(host, keys, args.bots, data_dir, args.quiet))
        if args.lan:  # multicast only when asked for on the command line
            from sagani_net import discovery

            try:
                stack.enter_context(discovery.advertise(
                    _port(host.endpoint), _port(host.pub_endpoint), bind=args.bind))
            except RuntimeError as exc:
                print(f"sagani host: --lan: {exc}", file=sys.stderr)
                return 2
            print("sagani host: advertised on the LAN (sagani join --lan finds it)", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            host.serve()
    _say_stopped(host, data_dir)
    return 0


def _say_stopped(host: Host, data_dir: Path) -> None:
    """Stopped (Ctrl-C, SIGTERM), the host went without a word: its operator could not tell
    a stop from a hang, nor whether the games in play were kept."""
    kept = sum(table.status != OVER for table in host.tables.values())
    print(f"sagani host: stopped; {plural(kept, 'game')} not over kept in {data_dir}, to go on "
          "when a host starts again on it", flush=True)


def _house_bots(host: Host, keys: security.KeyPair | None, strategy: str, data_dir: Path,
                quiet: bool) -> contextlib.AbstractContextManager[None]:
    """The house bots of ``--bots``, for as long as the block runs: clients like any other,
    they reach the host on loopback."""
    from sagani_net.bots import house

    address = host.endpoint.replace("0.0.0.0", "127.0.0.1").replace("*", "127.0.0.1")
    if keys:
        address = security.host_join_code(address, keys)
    return house.running(address, strategy, data_dir, quiet)


class _ServedOnceActive:
    """A context entered once a standby takes over, from a thread of its own, and left when
    the host stops (:meth:`close`), whichever comes first."""

    def __init__(self) -> None:
        self._stack = contextlib.ExitStack()
        self._lock = threading.Lock()
        self._closed = False

    def start(self, pair: standby.Standby,
              make: Callable[[], contextlib.AbstractContextManager[None]]) -> None:
        def watch() -> None:
            pair.took_over.wait()
            with self._lock:
                if not self._closed:
                    self._stack.enter_context(make())

        threading.Thread(target=watch, name="sagani-house-bots", daemon=True).start()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._stack.close()


def _invite(host: Host, link: standby.ActiveLink, key: bytes,
            keys: security.KeyPair | None) -> None:
    """Print what people need of an active host: the line players join with, and the code a
    standby of it is started with."""
    # The file first: a print to an output nobody reads any more fails (a broken pipe), and
    # the party's next standby needs the code all the same.
    pair_code = standby.host_code(host.endpoint, link.endpoint, key, keys).text()
    kept = host.store.data_dir / check.STANDBY_CODE_FILE
    write_private(kept, pair_code + "\n")
    join = security.host_join_code(host.endpoint, keys) if keys else ""
    if join:
        print(f"sagani host: join code {join}", flush=True)  # for scripts: the line stays
    else:
        join = "{}:{}".format(*security.public_name(host.endpoint))
    # For people: whole on a line of its own, quoted (zsh reads a join code's ``?`` as a glob).
    print(f"  players join with:\n  sagani join {shlex.quote(join)}", flush=True)
    if sys.stdout.isatty():
        # The host's screen, which anyone at the party may look at: the code opens every
        # game's hidden cards and seeds, so it stays in an owner-only file.
        print(f"sagani host: standby code in {kept} (owner-only)", flush=True)
        where = f"the line of {shlex.quote(str(kept))}"
    else:  # a script's pipe, or a log the owner keeps (SECURITY.md): the line stays
        print(f"sagani host: standby code {pair_code}", flush=True)
        where = "that code"
    # The command without the code: on a command line it would be in the process list (every
    # user of that machine) and the shell's history; `-` asks for it without echoing it.
    print("  a standby (only on a machine you trust with every game's secrets) runs\n"
          "  sagani host --standby -\n"
          f"  and is given {where} when it asks", flush=True)


def _invite_when_active(
    pair: standby.Standby, key: bytes, keys: security.KeyPair | None
) -> None:
    """Once ``pair`` takes over, :func:`_invite` for it: the code of the host it followed names
    that host, and the party needs a code of this one for its next standby."""

    def watch() -> None:
        pair.took_over.wait()
        with contextlib.suppress(OSError):  # standard output closed: nobody to tell
            _invite(pair.host, pair.link, key, keys)

    threading.Thread(target=watch, name="sagani-invite", daemon=True).start()


def _stop_with_parent(pair: standby.Standby, parent: int) -> None:
    """Stop ``pair`` if ``parent``, the process that started it, ends (a console killed, not
    quit) while it is still the standby; once it took over it is the party's host and goes on."""

    def watch() -> None:
        while not pair.took_over.wait(PARENT_CHECK_S):
            if os.getppid() != parent:  # orphaned: adopted by init or a subreaper
                pair.stop()
                return

    threading.Thread(target=watch, name="sagani-parent-watch", daemon=True).start()


def _advertise_when_active(
    pair: standby.Standby, bind: str, adverts: list[discovery.Advert]
) -> None:
    """Advertise ``pair`` on the LAN once it takes over (while it follows, the host it follows
    is the one to find): new players who look with ``sagani join --lan`` find it then."""

    from sagani_net import discovery

    def watch() -> None:
        pair.took_over.wait()
        host = pair.host
        try:
            adverts.append(discovery.advertise(_port(host.endpoint), _port(host.pub_endpoint),
                                               bind=bind))
            logging.getLogger("sagani_net.standby").warning("advertised on the LAN")
        except (RuntimeError, OSError) as exc:
            logging.getLogger("sagani_net.standby").warning("--lan: %s", exc)

    threading.Thread(target=watch, name="sagani-lan", daemon=True).start()


def _port(endpoint: str) -> int:
    return int(endpoint.rsplit(":", 1)[1])


def main(argv: list[str] | None = None) -> int:
    """Run ``host`` or ``record`` without the rest of the ``sagani`` command."""
    parser = check.OneLineParser(prog="sagani")
    sub = parser.add_subparsers(dest="command")
    add_parsers(sub)
    record_cmd.add_parsers(sub)
    return check.run(parser, argv)


if __name__ == "__main__":
    sys.exit(main())
