"""Checked command-line values: every ``sagani`` flag is read by one of these types, so that a
mistake is one line saying what is wrong, exit code 2, before anything starts.

>>> port("70000")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: a port is 0..65535, not 70000
>>> seed("-1")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: a seed is 0..9223372036854775807, not -1
>>> seed("9" * 5000)  # past int()'s limit: its message named sys.set_int_max_str_digits
Traceback (most recent call last):
...
argparse.ArgumentTypeError: a seed is 0..9223372036854775807, not a number of 5000 digits
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from collections.abc import Callable

from sagani_net import MAX_SEED

# Imported where they are used: a command such as `sagani selfplay` starts with none of them
# (pathlib, json and ipaddress, and the protocol's codec for its limits, cost it more than its
# games; tests/cli/test_startup_imports.py). typing too: `sagani --help` would spend a tenth
# of its time importing it. Type checkers read this name as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import IO, Any, NoReturn

    from sagani_net.client import AsyncClient
    from sagani_net.standby import StandbyCode

#: Held (flock) by the one process that serves a data dir, `sagani host` or `sagani play`: a
#: second one on it would take the first one's WAL for damaged, and --salvage would move its
#: live database aside.
DATA_DIR_LOCK = "sagani.lock"
#: The file in the data dir that holds the host's standby code (owner-only): a host whose
#: standard output is a terminal does not print it there.
STANDBY_CODE_FILE = "standby.code"
#: A record larger than this is not one of ours (a long game's record is about 20 KB).
MAX_RECORD_BYTES = 4 * 2**20


class UsageError(Exception):
    """A command-line mistake found after parsing (options that clash, a host that is not
    there): ``sagani`` prints it in one line and exits with 2."""


def terminal_columns() -> int:
    """The terminal's width as ``shutil.get_terminal_size()`` gives it (``COLUMNS``, else the
    terminal of stdout, else 80), without importing shutil (and, through it, bz2 and lzma),
    which argparse's own formatter does at every argument a parser adds."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, measuring the terminal with :func:`terminal_columns`."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position,
                         terminal_columns() - 2 if width is None else width)


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (``sagani play: --seed: ...``), exit 2."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        said = message.splitlines()[0] if message else "bad arguments"
        self.exit(2, shortened(f"{self.prog}: {said} (see {self.prog} --help)") + "\n")

    def parse_args(self, args: Any = None, namespace: Any = None) -> Any:
        """As argparse's, but an argument no parser knows is blamed on the subcommand it was
        given to (``sagani replay: unrecognized arguments: --speed``), whose help lists what
        it takes, rather than on ``sagani``."""
        parsed, extra = self.parse_known_args(args, namespace)
        if extra:
            _named(self, parsed).error(f"unrecognized arguments: {' '.join(extra)}")
        return parsed


def _named(parser: argparse.ArgumentParser, parsed: Any) -> argparse.ArgumentParser:
    """The innermost subcommand's parser that ``parsed`` went through."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            name = getattr(parsed, action.dest, None)
            if name in action.choices:
                return _named(action.choices[name], parsed)
    return parser


def _bad(message: str) -> NoReturn:
    raise argparse.ArgumentTypeError(message)


def too_long_number(text: str, what: str, within: str) -> str | None:
    """The refusal of ``text`` if it is a whole number past int()'s 4,300 digits (``what`` is
    ``within``, not a number of N digits), else None: it is a whole number all the same, out
    of range, and "not a whole number" would be untrue."""
    if isinstance(text, str) and re.fullmatch(r"\s*[+-]?[0-9]+\s*", text):
        return f"{what} is {within}, not a number of {len(text.strip().lstrip('+-'))} digits"
    return None


def _int(text: str, what: str, within: str = "a smaller number") -> int:
    try:
        return int(text.strip(), 10)
    except (ValueError, AttributeError):
        _bad(too_long_number(text, what, within) or f"{what} is a whole number, not {text!r}")


def _float(text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        _bad(f"{what} is a number, not {text!r}")
    if not math.isfinite(value):
        _bad(f"{what} is a finite number, not {text!r}")
    return value


def int_in(low: int, high: int, what: str) -> Callable[[str], int]:
    """A whole number in ``low..high``."""

    def read(text: str) -> int:
        value = _int(text, what, f"{low}..{high}")
        if not low <= value <= high:
            _bad(f"{what} is {low}..{high}, not {value}")
        return value

    read.__name__ = what  # argparse names the type in its own messages
    return read


def keep_games(text: str) -> int | None:
    """``--keep-games``: a number of games, 1..10^9, or ``all`` (None: keep every one).

    >>> keep_games("all"), keep_games("500")
    (None, 500)
    """
    if isinstance(text, str) and text.strip().lower() == "all":
        return None
    return int_in(1, 10**9, "--keep-games")(text)


def seconds_in(
    low: float, high: float, what: str, low_open: bool = False
) -> Callable[[str], float]:
    """A duration in seconds in ``low..high`` (``low_open``: more than ``low``)."""

    def read(text: str) -> float:
        value = _float(text, what)
        if value < low or (low_open and value == low) or value > high:
            bound = f"more than {low:g}" if low_open else f"at least {low:g}"
            _bad(f"{what} is {bound} and at most {high:g} seconds, not {text}")
        return value

    read.__name__ = what
    return read


def wire_limit(name: str) -> Any:
    """One of the wire's limits (``MAX_PORT``, ``MAX_NAME_LEN``...): the command line checks
    the same as the protocol. Looked up when a flag it bounds is read."""
    from sagani_net.protocol import messages, wire

    return getattr(messages, name) if hasattr(messages, name) else getattr(wire, name)


def port(text: str) -> int:
    return int_in(0, wire_limit("MAX_PORT"), "a port")(text)


def turn_timer(text: str) -> float:
    """A host's turn timer for people, in the range a create request may ask for."""
    low, high = wire_limit("MIN_DEADLINE_S"), wire_limit("MAX_DEADLINE_S")
    return seconds_in(low, high, "a turn timer")(text)


#: A seed is an id on the wire, whose ids are signed 64-bit (the protocol's ``MAX_ID``;
#: tests/cli/test_startup_imports.py holds the two equal): written here so that reading a seed
#: needs no codec.
seed = int_in(0, MAX_SEED, "a seed")
#: A table's most seats (the protocol's ``MAX_SEATS``, held equal by the same test).
MAX_SEATS = 16
#: A seat as people count it, from 1 (the wire counts from 0).
seat = int_in(1, MAX_SEATS, "a seat (from 1)")
players = int_in(1, MAX_SEATS, "a player count")
games = int_in(1, 10**7, "a game count")
iterations = int_in(1, 10**8, "an iteration count")
workers = int_in(1, 1024, "a worker count")
think_s = seconds_in(0.0, 3600.0, "thinking time", low_open=True)
reconnect_s = seconds_in(0.0, 86400.0, "a reconnect time")


def deadline_s(text: str) -> float:
    """A bot's own deadline per move: no longer than any table's may be."""
    return seconds_in(0.0, wire_limit("MAX_DEADLINE_S"), "a deadline", low_open=True)(text)


def bot_deadline(text: str) -> float:
    """A host's deadline for bots, in the range a create request may ask for."""
    low, high = wire_limit("MIN_DEADLINE_S"), wire_limit("MAX_DEADLINE_S")
    return seconds_in(low, high, "a bot deadline")(text)


def heartbeat_s(text: str) -> float:
    """The range the host takes (below 10 ms a heartbeat is a busy loop)."""
    from sagani_net.limits import MAX_HEARTBEAT_S, MIN_HEARTBEAT_S

    return seconds_in(MIN_HEARTBEAT_S, MAX_HEARTBEAT_S, "a heartbeat")(text)


def bind_address(text: str) -> str:
    """An IPv4 address to bind (``0.0.0.0``, ``127.0.0.1``...) or ``*``. No socket of the
    host or its clients has libzmq's IPv6 option, so an IPv6 address is refused here, not
    at the bind (where libzmq says 'No such device', and the data dir is made already)."""
    import ipaddress

    if text == "*":
        return text
    try:
        address = ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        _bad(f"--bind takes an IP address of this machine (e.g. 0.0.0.0 or 127.0.0.1), "
             f"not {text!r}")
    if address.version != 4:
        _bad(f"--bind takes an IPv4 address (e.g. 0.0.0.0 or 127.0.0.1); {text} is IPv6, "
             "which the host does not serve")
    return str(address)


#: What libzmq connects to: a name of letters, digits, '.', '-', '_' (and '%' for an IPv6
#: zone), or an IPv6 address in brackets.
_HOST_NAME = re.compile(r"[A-Za-z0-9._%-]+|\[[0-9A-Fa-f:.%A-Za-z]+\]")


def host(text: str) -> str:
    """A host to reach: ``HOST``, ``HOST:PORT``, ``tcp://HOST:PORT`` or a join code
    (``sagani://HOST:PORT?key=...``), or ``-`` for one read by :func:`secret_line`; returned as
    the address a client takes."""
    from sagani_net.client import host_address
    from sagani_net.security import SecurityError, parse_address

    text = text.strip()
    if text == "-":  # a join code kept out of the process list, as the house bots get theirs
        text = secret_line("join code").strip()
    if not text:
        _bad("the host address is empty; give HOST[:PORT] or a join code")
    scheme = text.split("://", 1)[0] if "://" in text else ""
    if scheme not in ("", "tcp", "sagani"):
        _bad(f"{scheme}:// is not a host address; give HOST[:PORT], tcp://HOST:PORT or a "
             "join code (sagani://...)")
    address = host_address(text)
    try:
        where = parse_address(address)
    except SecurityError as exc:
        _bad(f"{exc}")
    name, _, port_text = where.endpoint.removeprefix("tcp://").rpartition(":")
    if not name.strip("[]"):
        _bad(f"no host name in {text!r}")
    if not _HOST_NAME.fullmatch(name):
        # libzmq refuses it (ZMQError: Invalid argument, a traceback): a code pasted with a
        # space in it, a path, a name not in ASCII
        _bad(f"{name!r} is no host name or IP address; give HOST[:PORT] as letters, digits, "
             "'.', '-' and '_', an IP address, or the join code as the host printed it")
    if not port_text.isdigit():
        _bad(f"the port in {text!r} is not a number; give HOST:PORT, e.g. 127.0.0.1:47410")
    port(port_text)
    return address


def standby_code(text: str) -> StandbyCode | str:
    """A standby code (``sagani-standby://...``, printed by the active host), or ``-``, kept as
    it is, to read it from standard input (:func:`given_standby`). Errors never echo the code:
    it holds the secret."""
    from sagani_net.standby import CodeError, StandbyCode

    if text.strip() == "-":
        return "-"
    try:
        return StandbyCode.parse(text)
    except CodeError as exc:
        _bad(str(exc))


def given_standby(value: StandbyCode | str | None) -> StandbyCode | None:
    """The code a ``--standby`` option gave (:func:`standby_code`), read from standard input for
    ``-``; raises UsageError."""
    from sagani_net.standby import CodeError, StandbyCode

    if not isinstance(value, str):
        return value
    try:
        return StandbyCode.parse(secret_line("standby code"))
    except CodeError as exc:
        raise UsageError(f"--standby: {exc}") from None


#: The most of a line :func:`secret_line` reads: a join or standby code is a few hundred
#: characters, and a line read whole could be endless (``< /dev/zero``).
MAX_SECRET_LINE_CHARS = 4096


def secret_line(what: str) -> str:
    """A secret given as ``-`` on the command line (out of the process list, which every user
    of the machine reads): the first line of standard input, at most MAX_SECRET_LINE_CHARS of
    it (more is no code, and its reader says so); at a terminal, asked for and not echoed,
    since an echoed secret stays on the screen and in its scrollback for whoever looks at
    it."""
    if not sys.stdin.isatty():
        return sys.stdin.readline(MAX_SECRET_LINE_CHARS)
    return _unechoed_line(f"{what} (not shown as you paste it): ")


def _unechoed_line(prompt: str) -> str:
    """A line typed or pasted at the terminal of standard input, asked for with ``prompt`` (on
    standard error) and not echoed. Standard input's own terminal, as getpass would not be
    when the process has another controlling one."""
    import termios

    fd = sys.stdin.fileno()
    before = termios.tcgetattr(fd)
    quiet = termios.tcgetattr(fd)
    quiet[3] &= ~termios.ECHO  # the local modes
    termios.tcsetattr(fd, termios.TCSADRAIN, quiet)  # before the prompt: pasted after it
    try:
        print(prompt, end="", file=sys.stderr, flush=True)
        return sys.stdin.readline(MAX_SECRET_LINE_CHARS)
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, before)
        print(file=sys.stderr, flush=True)  # the Enter that was not echoed


def name(text: str) -> str:
    """A name at the table: 1 to 64 characters."""
    longest = wire_limit("MAX_NAME_LEN")
    if not text.strip() or len(text) > longest:
        _bad(f"a name is 1..{longest} characters")
    if not text.isprintable():
        # Bytes that are not UTF-8 (a name typed where LANG is C or Latin-1) come in as lone
        # surrogates, which the wire cannot encode: the game crashed once it began.
        _bad(f"a name is printable UTF-8 text, not {text!r} (is the terminal's locale UTF-8?)")
    return text


def table_id(text: str) -> str:
    longest = wire_limit("MAX_TABLE_ID_LEN")
    if not text.strip() or len(text) > longest or not text.isprintable():
        _bad(f"a table id is 1..{longest} printable characters, not {text!r}")
    return text


def directory(text: str) -> Path:
    """A data directory: may not exist yet, but may not be a file."""
    return _directory(text, "the data dir")


def records_directory(text: str) -> Path:
    """Where a run writes its records: as :func:`directory`; :func:`make_directory` makes it
    before the run."""
    return _directory(text, "the records dir")


def _directory(text: str, what: str) -> Path:
    from pathlib import Path

    if not text.strip():
        _bad("the directory is empty; give a path")
    path = Path(text).expanduser()
    if path.exists() and not path.is_dir():
        _bad(f"cannot use {what} {text}: it is a file, not a directory")
    return path


def make_directory(path: Path) -> None:
    """Make ``path`` (and its parents) and check it can be written in, before a run rather
    than at its first record."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot make {path}: {exc.strerror or exc}") from None
    if not os.access(path, os.W_OK):
        raise UsageError(f"cannot write in {path}: not allowed")


def writable(path: Path) -> None:
    """Raise UsageError unless the file ``path`` can be written: said before a long run, not
    after it."""
    folder = path.parent
    if path.is_dir() or not folder.is_dir() or not os.access(folder, os.W_OK) or (
            path.exists() and not os.access(path, os.W_OK)):
        raise UsageError(f"cannot write {path}: "
                         + ("a folder" if path.is_dir() else "no such folder"
                            if not folder.is_dir() else "not allowed"))


def hold_file(path: Path, label: str) -> IO[str] | str:
    """The file at ``path`` opened and locked for this process (the lock goes with the file:
    at close, or when the process ends however it ends), with ``label`` and the pid in it; or,
    when another process holds it, what that one wrote ("sagani join (pid 123)")."""
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    f = open(path, "a+")  # noqa: SIM115 - held open while the lock is, closed by its holder
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.seek(0)
        holder = f.read().strip() or "another process"
        f.close()
        return holder
    f.seek(0)
    f.truncate()
    f.write(f"{label} (pid {os.getpid()})")
    f.flush()
    return f


def need_terminal(instead: str) -> None:
    """Raise UsageError unless standard input is a terminal, which the console reads its keys
    from (prompt_toolkit would end in a traceback); ``instead`` names the way to do without
    one."""
    if not sys.stdin.isatty():
        raise UsageError(f"the console needs a terminal, and standard input is not one "
                         f"({instead})")


def write_text(path: Path, text: str) -> None:
    """``path.write_text(text)``, whole or not at all (:func:`writing`)."""
    with writing(path) as out:
        out.write(text)


class writing:  # noqa: N801 (a context manager, used as a function is)
    """``with writing(path) as out``: a file whose text becomes ``path``'s once the block ends
    without an error; a failure (a full disk, a folder gone: an OSError in the block) is a
    UsageError. The text goes to a file beside it, renamed over it once written (its mode
    kept), so that a failure or Ctrl-C leaves neither the first part of a record under its
    name nor the old file gone; a path that is no regular file (/dev/stdout, a pipe) is
    written to. (A class, not contextlib's decorator: the command line starts without
    contextlib.)"""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.part: Path | None = None
        self.out: IO[str] | None = None

    def __enter__(self) -> IO[str]:
        try:
            if self.path.exists() and not self.path.is_file():
                self.out = open(self.path, "w")  # noqa: SIM115 (closed in __exit__)
                return self.out
            self.target = self.path.resolve()  # a link's file, not the link, is replaced
            self.part = self.target.with_name(f".{self.target.name}.{os.getpid()}.part")
            self.out = open(self.part, "x")  # noqa: SIM115 (closed in __exit__)
            if self.target.exists():
                os.chmod(self.part, self.target.stat().st_mode & 0o7777)
            return self.out
        except OSError as exc:
            self._forget()
            raise self._failed(exc) from None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 traceback: object) -> None:
        try:
            if self.out is not None:
                self.out.close()
            if exc is None and self.part is not None:
                os.replace(self.part, self.target)
                self.part = None
        except OSError as failed:
            exc = exc or failed
        finally:
            self._forget()
        if isinstance(exc, OSError):
            raise self._failed(exc) from None

    def _forget(self) -> None:
        if self.out is not None:
            self.out.close()
        if self.part is not None:
            self.part.unlink(missing_ok=True)

    def _failed(self, exc: OSError) -> UsageError:
        return UsageError(f"cannot write {self.path}: {exc.strerror or exc}")


def game_name(text: str) -> str:
    from sagani_net.games import game_names

    name = text.strip().lower()  # "Sagrada" as the box spells it
    if name not in game_names():
        _bad(f"no game called {text!r}; known: {', '.join(game_names())}")
    return name


#: Said wherever a strategy is named: one's own needs no change of ours.
OWN_STRATEGY = "or one of your own as MODULE:NAME or FILE.py:NAME"


def strategy(text: str) -> str:
    """A strategy of some game, or one of one's own, its module loaded to check it (the game
    is known only once seated: :func:`made_strategies` checks it makes a policy)."""
    from sagani_net.bots import strategy_names

    return strategy_in(lambda: list(strategy_names()))(text)


def strategy_in(known: Callable[[], list[str]]) -> Callable[[str], str]:
    """One of ``known()``, or a strategy of one's own, its module loaded to check it."""

    def read(text: str) -> str:
        if text in known():
            return text  # without importing the bots (sagani play's first screen comes first)
        from sagani_net.bots import is_loaded, load_strategy

        if not is_loaded(text):
            _bad(f"unknown strategy {text!r}; known: {', '.join(known())}, {OWN_STRATEGY}")
        try:
            load_strategy(text)
        except ValueError as exc:
            _bad(str(exc))
        return text

    read.__name__ = "strategy"
    return read


def names(text: str) -> list[str]:
    """A comma-separated list of names, one per seat (``greedy,random``), each stripped; an
    empty one is a mistake: 'greedy,,random' played a seat fewer, or read as a strategy ''."""
    found = [name.strip() for name in text.split(",")]
    if "" in found:
        _bad(f"{text!r} has an empty name: one name per seat, joined by commas")
    return found


def strategies_in(known: Callable[[], list[str]]) -> Callable[[str], list[str]]:
    """:func:`strategy_in` for each of a comma-separated list: ``greedy,mine.py:Mine``."""

    def read(text: str) -> list[str]:
        return [strategy_in(known)(name) for name in names(text)]

    read.__name__ = "strategies"
    return read


def made_strategies(names: list[str] | tuple[str, ...], game: str) -> None:
    """Each strategy of one's own among ``names`` made once for ``game``: one that cannot be
    loaded, or makes no policy, is one line before any game starts (in a tournament's worker
    it would be a traceback per game). Raises UsageError."""
    from sagani_net.bots import is_loaded, make_policy

    for name in dict.fromkeys(names):
        if is_loaded(name):
            try:
                make_policy(name, game=game)
            except ValueError as exc:
                raise UsageError(str(exc)) from None


#: A file argument that means standard input (``sagani record export T | sagani analyze -``).
STDIN = "-"


def piped(path: Path) -> bool:
    """Whether a file argument is :data:`STDIN`."""
    return str(path) == STDIN


def file_named(path: Path) -> str:
    """A file argument as an error names it."""
    return "standard input" if piped(path) else str(path)


def read_json(path: Path, what: str = "a game record") -> Any:
    """A JSON file (``-``: standard input), bounded in size and depth; raises ValueError with
    a sentence (OSError for a file that cannot be read)."""
    import json

    if piped(path):
        data = sys.stdin.buffer.read(MAX_RECORD_BYTES + 1)
    else:
        with open(path, "rb") as f:
            data = f.read(MAX_RECORD_BYTES + 1)
    if len(data) > MAX_RECORD_BYTES:
        raise ValueError(f"larger than {MAX_RECORD_BYTES // 2**20} MiB: not {what}")
    try:
        return json.loads(data)
    except RecursionError:
        raise ValueError(f"JSON nested too deep: not {what}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not JSON ({exc})") from None


def read_record(path: Path) -> dict[str, Any]:
    """A game record from a JSON file (see :func:`read_json`)."""
    record = read_json(path)
    if not isinstance(record, dict):
        raise ValueError("a game record is a JSON object")
    return record


def json_file(text: str) -> Any:
    """The contents of a JSON file: a game option given as a file (``--patterns FILE``)."""
    from pathlib import Path

    try:
        return read_json(Path(text).expanduser(), "a file of game data")
    except OSError as exc:
        _bad(f"cannot read {text}: {exc.strerror or exc}")
    except ValueError as exc:
        _bad(f"{text}: {exc}")


#: Every subcommand of ``sagani``: the module that adds its parser (``add_parsers``) and its
#: line of help. ``sagani --help`` lists them from here without importing the modules (the
#: console, the host, zmq: most of a second), and a command builds only its own module's parsers.
COMMANDS = {
    "play": ("sagani_net.cli.play_args", "play on this machine against bots (no setup)"),
    "join": ("sagani_net.cli.play_args", "join a host by address (or find one with --lan)"),
    "tables": ("sagani_net.cli.play_args", "list a host's tables: game, status, seats"),
    "replay": ("sagani_net.cli.play_args", "step through a game record in the console"),
    "host": ("sagani_net.cli.host_cmd", "run a headless host node"),
    "record": ("sagani_net.cli.record_cmd", "game records kept by a host"),
    "bot": ("sagani_net.cli.bot_cmd", "play a table as a bot client"),
    "tournament": ("sagani_net.cli.bot_cmd", "many games between strategies, with a result table"),
    "analyze": ("sagani_net.cli.analyze_cmd",
                "the search bot's verdict on every move of a finished game"),
    "selfplay": ("sagani_net.cli.selfplay",
                 "play headless games between policies and save records"),
}


def add_search_options(parser: argparse.ArgumentParser) -> None:
    """The search bot's budget (``--think``, ``--iterations``), for every command that plays
    an ``mcts`` seat: :func:`search_options` reads them."""
    parser.add_argument("--think", type=think_s, default=None, metavar="S",
                        help="mcts: seconds of search per turn (default 1, or none with "
                        "--iterations)")
    parser.add_argument("--iterations", type=iterations, default=None, metavar="N",
                        help="mcts: iterations per turn; alone it makes the search deterministic")


def search_options(args: argparse.Namespace) -> dict[str, Any]:
    """The ``mcts`` policy's options from :func:`add_search_options`' arguments."""
    think = args.think if args.think is not None else (None if args.iterations else 1.0)
    return {"think_s": think, "iterations": args.iterations}


def command_parser(sub: Any, name: str, description: str | None = None) -> OneLineParser:
    """The parser of the subcommand ``name`` in ``sub`` (the ``sagani`` command's
    subparsers), with its help line from :data:`COMMANDS`."""
    parser: OneLineParser = sub.add_parser(name, help=COMMANDS[name][1], description=description)
    return parser


#: How long the command line waits for a host's first answer before it says none answers.
PROBE_S = 1.5
#: The environment variable that sets another wait (seconds), for scripts and tests that know
#: nothing listens and need not wait out the default.
PROBE_ENV = "SAGANI_PROBE_S"
#: What to check when no host answers.
NO_HOST_CAUSES = ("the address or port is wrong; the host is not running; the host runs "
                  "--secure and needs its join code (sagani://...); or a firewall blocks the "
                  "port")


def reach_host(address: str) -> str:
    """Make sure a host answers at ``address`` within two tries of :data:`PROBE_S`; returns the
    address to use from now on. A standby (``not_active``) names the active host: the probe
    goes there and says so in one line on stderr (PROTOCOL.md section 11), so every command
    follows a host that moved. Raises UsageError naming the likely causes when none answers
    (a player should not wait out every retry to learn that)."""
    from sagani_net.client import Client, HostTimeout

    # Two tries: a busy host (a game starting, a loaded laptop) may miss one short wait.
    client = Client(address, timeout_s=probe_s(), retries=1)
    asked = client.core.address
    shown = shown_address(address)
    try:
        try:
            client.connect()
        except HostTimeout:
            if client.core.address == asked and client.core.not_active is not None:
                # A standby that names no active host: it has not reached one yet.
                raise UsageError(f"{shown} answers as a standby: "
                                 f"{client.core.not_active}") from None
            if client.core.address == asked:  # no answer at all
                raise UsageError(f"no host answers at {shown}: {NO_HOST_CAUSES}") from None
            # The client moved its address to the one the standby named: one more try there.
            try:
                client.connect()
            except HostTimeout:
                moved = shown_address(address_now(client.core))
                raise UsageError(f"{shown} is a standby; the active host it names, {moved}, "
                                 "does not answer") from None
        if client.core.address == asked:
            return address
        active = address_now(client.core)
        moved = shown_address(active)
        # In its own words: a standby, or a host that was away and stepped aside.
        print(f"host moved to {moved} ({shown} says: {client.core.not_active})",
              file=sys.stderr, flush=True)
        return active
    finally:
        client.close()


def probe_s() -> float:
    """The wait for a host's first answer: :data:`PROBE_ENV` if set, else :data:`PROBE_S`."""
    said = os.environ.get(PROBE_ENV)
    if said is None:
        return PROBE_S
    try:
        value = float(said)
    except ValueError:
        value = math.nan
    if not 0 < value < math.inf:
        raise UsageError(f"{PROBE_ENV}={said!r}: seconds above 0, such as 0.5")
    return value


def shown_address(address: str) -> str:
    """An address as people read it: no scheme, no key.

    >>> shown_address("tcp://127.0.0.1:47410?key=abc")
    '127.0.0.1:47410'
    """
    return address.removeprefix("tcp://").split("?")[0]


def address_now(client: AsyncClient) -> str:
    """Where ``client`` reaches its host now, as a command takes it (a join code for a secure
    host: the pair serves one key pair)."""
    from sagani_net.client import host_address
    from sagani_net.security import join_code, public_name

    host, port = public_name(client.address)
    if client.server_key is not None:
        return join_code(host, port, client.server_key)
    return host_address(f"{host}:{port}")


def run(parser: argparse.ArgumentParser, argv: list[str] | None = None) -> int:
    """Parse ``argv`` and run the subcommand it names (``func``); no subcommand prints the
    help. A :class:`UsageError` is one line and exit status 2."""
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a bad flag already said in one line
        return exc.code if isinstance(exc.code, int) else 2
    except KeyboardInterrupt:  # Ctrl-C where a code given as '-' was asked for
        return 130
    if getattr(args, "command", None) is None:
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except UsageError as exc:
        return fail(args.command, str(exc))
    except KeyboardInterrupt:
        return 130


def fail(command: str, message: str) -> int:
    """Print a command's one-line error; returns the exit status 2."""
    print(shortened(f"sagani {command}: {message}"), file=sys.stderr)
    return 2


#: An error line longer than this loses its middle: most lines quote what was given, and a
#: 100,000-character argument made one of 100,000 characters, the advice at its end off screen.
MAX_ERROR_CHARS = 400


def shortened(line: str) -> str:
    """``line``, its middle cut to `` … `` past :data:`MAX_ERROR_CHARS`: its start (the
    command and what is wrong) and its end (what to do instead) stay.

    >>> shortened("sagani x: unknown " + "y" * 1000 + "; known: a, b")[-40:]
    'yyyyyyyyyyyyyyyyyyyyyyyyyyy; known: a, b'
    >>> len(shortened("z" * 1000))
    400
    """
    if len(line) <= MAX_ERROR_CHARS:
        return line
    tail = MAX_ERROR_CHARS * 3 // 5
    return line[: MAX_ERROR_CHARS - tail - 3] + " … " + line[-tail:]
