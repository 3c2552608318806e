"""Every command-line mistake: one line on stderr saying what is wrong, exit code 2, no
traceback. Each case runs the real ``sagani`` command (``python -m sagani_net.cli.main``), but
those its parser refuses, where nothing of the command runs: the parser ``sagani`` reads them
with reads them in the test's process (a process each cost the suite about 0.2 s of CPU)."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from failover_kit import free_ports
from test_net_support import RUN_SAGANI, start_host_process

from sagani_net.bots.tournament import GameSpec, play_local
from sagani_net.cli.args import MAX_ERROR_CHARS, PROBE_ENV, UsageError
from sagani_net.cli.main import parser_for
from sagani_net.cli.play_cmd import hold_lock
from sagani_net.client import REQUEST_RETRIES, REQUEST_TIMEOUT_S, Client
from sagani_net.games.sagani.rules import State
from sagani_net.host import Host
from sagani_net.standby import NOT_HEARD, ActiveLink, Standby, new_key
from sagani_net.store import Store

#: Far above what any case needs; a hang fails the test instead of the suite.
RUN_TIMEOUT_S = 30
#: An address of TEST-NET-1 (RFC 5737): on no machine, so binding it fails.
NOT_HERE = "192.0.2.1"


@pytest.fixture(scope="module")
def busy_port() -> Iterator[int]:
    """A port something else listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Damaged records: 100,000-deep JSON, a tile id "a" or 12.0, an unknown game."""
    folder = tmp_path_factory.mktemp("records")
    (folder / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    good = State.new(2, seed=1).to_record()
    for name, change in {"tile-a": {"tiles": ["a", *good["tiles"][1:]]},
                         "tile-float": {"tiles": [12.0, *good["tiles"][1:]]},
                         "chess": {"game": "chess"}, "list": None}.items():
        record = [good] if change is None else {**good, **change}
        (folder / f"{name}.json").write_text(json.dumps(record))
    (folder / "a-file").write_text("not a directory")
    return folder


#: Where nothing listens: the connection is refused, so the command waits out its probe for a
#: host's first answer. The cases that aim there shorten the probe (the answer they wait for
#: never comes, however long they wait); the others keep the default, for a loaded machine.
NOWHERE = "127.0.0.1:1"
QUICK_PROBE = {**os.environ, PROBE_ENV: "0.2"}
#: The cases that are a mistake in the environment rather than on the command line.
ENV = {f"{PROBE_ENV}=soon": {PROBE_ENV: "soon"}, f"{PROBE_ENV}=0": {PROBE_ENV: "0"}}

#: A well-formed standby code (nothing listens there).
STANDBY_CODE = "sagani-standby://127.0.0.1:1?link=3&secret=" + "A" * 43

BAD = {
    "no such subcommand": ["frobnicate"],
    "host --port 70000": ["host", "--port", "70000"],
    "host --port 65535 (no pub port)": ["host", "--port", "65535", "--data-dir", "{tmp}/h"],
    "host --salvage, no database": ["host", "--salvage", "--port", "0", "--data-dir",
                                    "{tmp}/nodb"],
    "host --pub-port = --port": ["host", "--port", "47999", "--pub-port", "47999"],
    "host --pub-port = link port": ["host", "--port", "47999", "--pub-port", "48001"],
    "host --link-port = --port": ["host", "--port", "47999", "--link-port", "47999",
                                  "--pub-port", "0", "--data-dir", "{tmp}/h"],
    "host --link-port = --pub-port": ["host", "--port", "0", "--pub-port", "47999",
                                      "--link-port", "47999", "--data-dir", "{tmp}/h"],
    # The broadcast port's default (--port + 1) was not compared: the host bound both ports
    # and logged that it served, then stopped on the link port (two lines).
    "host --link-port = default --pub-port": ["host", "--port", "47999", "--link-port",
                                              "48000", "--data-dir", "{tmp}/h"],
    "host --bind not this machine": ["host", "--bind", NOT_HERE, "--port", "0",
                                     "--data-dir", "{tmp}/h"],
    "host port in use": ["host", "--port", "{busy}", "--pub-port", "0", "--data-dir", "{tmp}/h"],
    "bot unreachable host": ["bot", NOWHERE, "--table", "t"],
    "bot unknown --table": ["bot", "{host}", "--table", "nosuchtable"],
    "bot --create 9": ["bot", "{host}", "--create", "9"],
    "bot --seat 9": ["bot", "{host}", "--create", "2", "--seat", "9"],
    "join --players 9": ["join", "{host}", "--players", "9"],
    "join unreachable host": ["join", NOWHERE],
    "tables unreachable host": ["tables", NOWHERE],
    "join --standby - nothing": ["join", "--standby", "-"],
    "join --standby --lan": ["join", "--lan", "--standby", STANDBY_CODE],
    f"{PROBE_ENV}=soon": ["tables", "{host}"],
    f"{PROBE_ENV}=0": ["join", "{host}"],
    "play --players 5": ["play", "--players", "5", "--data-dir", "{tmp}/p"],
    "play --seat 3 of 2": ["play", "--seat", "3", "--data-dir", "{tmp}/p"],
    "play --port in use": ["play", "--port", "{busy}", "--new", "--data-dir", "{tmp}/p"],
    "selfplay --players 5": ["selfplay", "--players", "5"],
    "selfplay --players 1 --mode multi": ["selfplay", "--players", "1", "--mode", "multi"],
    "selfplay --policy foo": ["selfplay", "--policy", "foo"],
    "tournament --strategies foo": ["tournament", "--strategies", "foo"],
    "tournament --players 9": ["tournament", "--players", "9", "--games", "1"],
    # Said before the games: their progress bar would be more lines on stderr.
    "selfplay --records under a file": ["selfplay", "--records", "{records}/a-file/r"],
    "tournament --records under a file": ["tournament", "--records", "{records}/a-file/r"],
    "tournament --json in no folder": ["tournament", "--games", "400",
                                       "--json", "{tmp}/nothing/table.json"],
    "replay 100,000-deep JSON": ["replay", "{records}/deep.json"],
    "replay tile id a": ["replay", "{records}/tile-a.json"],
    "replay tile id 12.0": ["replay", "{records}/tile-float.json"],
    "replay unknown game": ["replay", "{records}/chess.json"],
    "replay not a map": ["replay", "{records}/list.json"],
    "replay /dev/zero": ["replay", "/dev/zero"],
    "replay no such file": ["replay", "{records}/nothing.json"],
    "record export --data-dir FILE": ["record", "export", "t", "--data-dir", "{records}/a-file"],
    "record export unknown table": ["record", "export", "t", "--data-dir", "{tmp}/empty"],
    "record export --host unreachable": ["record", "export", "t", "--host", NOWHERE],
    "record export --host unknown table": ["record", "export", "t", "--host", "{host}"],
    "record export --host --data-dir": ["record", "export", "t", "--host", "{host}",
                                        "--data-dir", "{tmp}/empty"],
}

#: Mistakes the parser refuses (a checked type, a choice): nothing of the command runs, so
#: these are read by the parser `sagani` reads them with, in the test's process.
REFUSED = {
    "host --port 65536": ["host", "--port", "65536"],
    "host --port -1": ["host", "--port", "-1"],
    "host --bind 999.1.1.1": ["host", "--bind", "999.1.1.1"],
    "host --bind ''": ["host", "--bind", ""],
    "host --heartbeat-s 0": ["host", "--heartbeat-s", "0"],
    "host --heartbeat-s -1": ["host", "--heartbeat-s", "-1"],
    "host --heartbeat-s 1e-9": ["host", "--heartbeat-s", "1e-9"],
    "host --heartbeat-s nan": ["host", "--heartbeat-s", "nan"],
    "host --data-dir ''": ["host", "--data-dir", ""],
    "host --bot-deadline 0": ["host", "--bot-deadline", "0"],
    "host --turn-timer 0": ["host", "--turn-timer", "0"],
    "host --keep-games 0": ["host", "--keep-games", "0"],
    "join --turn-timer soon": ["join", "{host}", "--turn-timer", "soon"],
    "bot host:notaport": ["bot", "127.0.0.1:notaport", "--table", "t"],
    "bot udp://": ["bot", "udp://127.0.0.1:5000", "--table", "t"],
    "bot damaged join code": ["bot", "sagani://127.0.0.1:47410?key=abc", "--table", "t"],
    "bot --create 0": ["bot", "{host}", "--create", "0"],
    "bot --iterations -5": ["bot", "{host}", "--table", "t", "--iterations", "-5"],
    "bot --think -1": ["bot", "{host}", "--table", "t", "--think", "-1"],
    "bot --deadline -1": ["bot", "{host}", "--table", "t", "--deadline", "-1"],
    "join damaged join code": ["join", "sagani://127.0.0.1:47410?key=abc"],
    "join http://": ["join", "http://127.0.0.1"],
    "join host:notaport": ["join", "127.0.0.1:notaport"],
    # libzmq refuses these names with a traceback of its own
    "join a name with a space": ["join", "my host:47410"],
    "join a path": ["join", "a/b:47410"],
    "bot a name not in ASCII": ["bot", "h\u00f4te:47410", "--table", "t"],
    "join --players 0": ["join", "{host}", "--players", "0"],
    "tables bad address": ["tables", "127.0.0.1:notaport"],
    "join --game chess": ["join", "{host}", "--game", "chess"],
    "join --standby not a code": ["join", "--standby", "127.0.0.1:47410"],
    "host --standby not a code": ["host", "--standby", "sagani://127.0.0.1:47410?key=abc"],
    "play --seed -1": ["play", "--seed", "-1"],
    "play --seed 2**70": ["play", "--seed", str(2**70)],
    "play --bots foo": ["play", "--bots", "foo"],
    "play --game chess": ["play", "--game", "chess"],
    "selfplay --games 0": ["selfplay", "--games", "0"],
    # A seat fewer played without a word ('greedy,,random'), or 'unknown strategy ""'.
    "tournament --strategies empty name": ["tournament", "--strategies", "random,,greedy",
                                           "--games", "1"],
    "selfplay --policy empty name": ["selfplay", "--policy", "random,,greedy", "--games", "1"],
    "play --bots empty name": ["play", "--players", "3", "--bots", "greedy,,random"],
    "tournament --games -1": ["tournament", "--games", "-1"],
}


@pytest.mark.parametrize("case", BAD, ids=list(BAD))
def test_a_bad_argument_is_one_line_and_exit_2(
    case: str, host: Host, busy_port: int, records: Path, tmp_path: Path
) -> None:
    (tmp_path / "empty").mkdir()
    fill = {"host": host.endpoint.removeprefix("tcp://"), "busy": str(busy_port),
            "records": str(records), "tmp": str(tmp_path)}
    argv = [arg.format(**fill) for arg in BAD[case]]
    env = {**(QUICK_PROBE if NOWHERE in argv else os.environ), **ENV.get(case, {})}
    done = subprocess.run([*RUN_SAGANI, *argv], capture_output=True, env=env,
                          text=True, stdin=subprocess.DEVNULL, timeout=RUN_TIMEOUT_S)
    lines = done.stderr.splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and lines[0].startswith("sagani"), done.stderr
    assert "Traceback" not in done.stdout + done.stderr


@pytest.mark.parametrize("case", REFUSED, ids=list(REFUSED))
def test_a_mistake_the_parser_refuses_is_one_line_and_exit_2(
        case: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [arg.format(host=NOWHERE) for arg in REFUSED[case]]
    # The parse alone: were the mistake let through, the command would run in this process.
    with pytest.raises(SystemExit) as refused:
        parser_for(argv).parse_args(argv)
    said = capsys.readouterr()
    lines = said.err.splitlines()
    assert refused.value.code == 2, said.err
    assert len(lines) == 1 and lines[0].startswith(f"sagani {argv[0]}: "), said.err
    assert "Traceback" not in said.out + said.err


@pytest.mark.parametrize(("argv", "start", "advice"), [
    (["selfplay", "--policy", "x" * 100_000], "sagani selfplay: --policy: unknown xxx",
     "or one of your own as MODULE:NAME or FILE.py:NAME"),
    (["frob" + "y" * 100_000], "sagani: argument COMMAND: invalid choice: 'frobyyy",
     "(see sagani --help)"),
])
def test_an_error_that_quotes_a_huge_argument_keeps_its_start_and_its_advice(
        argv: list[str], start: str, advice: str) -> None:
    """A 100,000-character argument was quoted whole: one line of 100,000 characters, what
    to do instead at its end, screens away."""
    done = subprocess.run([*RUN_SAGANI, *argv], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=RUN_TIMEOUT_S)
    line = done.stderr.removesuffix("\n")
    assert done.returncode == 2 and "\n" not in line
    assert len(line) <= MAX_ERROR_CHARS and " … " in line, len(line)
    assert line.startswith(start) and line.endswith(advice), line


def test_host_bind_to_an_ipv6_address_is_refused_before_anything_is_made(tmp_path: Path) -> None:
    """`sagani host --bind ::1`: the flag took it (its check read any IP address), then libzmq,
    without the IPv6 option on any socket, refused the bind: 'No such device ... (a port in
    use, or an address that is not this machine's)', of this machine's own loopback, after the
    data dir was made. It is refused as the flag's mistake, saying why."""
    done = subprocess.run([*RUN_SAGANI, "host", "--bind", "::1", "--port", "0", "--data-dir",
                           str(tmp_path / "h")], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=RUN_TIMEOUT_S)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert "IPv6, which the host does not serve" in done.stderr, done.stderr
    assert not (tmp_path / "h").exists()


def test_play_with_open_seats_takes_no_seed(tmp_path: Path) -> None:
    """`sagani play --open 2 --seed 7`: the person at the open seat (on this machine, where the
    host listens) would play a deal the creator knows, and could read the seed off the
    creator's command line with `ps`; refused before anything starts, as the host refuses a
    chosen seed at a table where others play. Before, the game started on that seed."""
    for argv in (["--open", "2", "--seed", "7"],
                 ["--game", "sugi", "--players", "3", "--open", "3", "--seed", "7"]):
        done = subprocess.run([*RUN_SAGANI, "play", *argv, "--data-dir", str(tmp_path / "p")],
                              capture_output=True, text=True, stdin=subprocess.DEVNULL,
                              timeout=RUN_TIMEOUT_S)
        assert (done.returncode, done.stderr) == (2, "sagani play: --seed deals a game you "
                                                  "would know in advance: not at a table with "
                                                  "--open seats (the host draws their table's "
                                                  "seed)\n")
    assert not (tmp_path / "p").exists()  # no host was started, no game kept
    # Without --open the seed is the player's own business: a game dealt again.
    done = subprocess.run([*RUN_SAGANI, "play", "--seed", "7", "--autoplay", "random",
                           "--data-dir", str(tmp_path / "q")], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=RUN_TIMEOUT_S)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(("argv", "said"), [
    (["replay", "r.json", "--speed", "2"], "sagani replay: unrecognized arguments: --speed 2 "
                                          "(see sagani replay --help)"),
    (["record", "export", "t", "--to", "x"], "sagani record export: unrecognized arguments: "
                                            "--to x (see sagani record export --help)"),
    (["--frob"], "sagani: unrecognized arguments: --frob (see sagani --help)"),
])
def test_an_unknown_argument_is_blamed_on_the_subcommand_it_was_given_to(
        argv: list[str], said: str) -> None:
    """Its help is the one that lists what it takes: ``sagani --help`` does not."""
    done = subprocess.run([*RUN_SAGANI, *argv], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=RUN_TIMEOUT_S)
    assert (done.returncode, done.stderr) == (2, said + "\n")


@pytest.mark.parametrize(("argv", "instead"), [
    (["play", "--data-dir", "{tmp}/p"], "sagani play --autoplay KIND plays a game without one"),
    (["join", "{host}"], "sagani bot plays at a host without one"),
    (["replay", "{record}"], "sagani replay --print shows the end of the game without one"),
])
def test_a_console_command_without_a_terminal_says_so_in_one_line(
        argv: list[str], instead: str, host: Host, tmp_path: Path) -> None:
    """Standard input not a terminal (a pipe, /dev/null): the console cannot read keys; it
    was a traceback from prompt_toolkit (after a table was made, for play and join)."""
    record = tmp_path / "r.json"
    record.write_text(json.dumps(State.new(2, seed=1).to_record()))
    fill = {"tmp": str(tmp_path), "host": host.endpoint.removeprefix("tcp://"),
            "record": str(record)}
    done = subprocess.run([*RUN_SAGANI, *(a.format(**fill) for a in argv)],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          timeout=RUN_TIMEOUT_S)
    assert (done.returncode, done.stderr) == (2, f"sagani {argv[0]}: the console needs a "
                                              f"terminal, and standard input is not one "
                                              f"({instead})\n")
    assert "Traceback" not in done.stdout
    if argv[0] == "join":
        assert host.tables == {}  # no table made for a console that could not start


def test_record_export_checks_where_it_writes_before_it_reads(tmp_path: Path) -> None:
    """-o into a folder that is not there: one line saying so (it was a traceback once the
    record had been read), before the table is even looked for."""
    out = tmp_path / "nothing" / "r.json"
    done = subprocess.run([*RUN_SAGANI, "record", "export", "t", "--data-dir", str(tmp_path),
                           "-o", str(out)], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=RUN_TIMEOUT_S)
    assert (done.returncode, done.stderr) == (
        2, f"sagani record: cannot write {out}: no such folder\n")


def test_a_record_that_cannot_be_written_ends_the_run_in_one_line(tmp_path: Path) -> None:
    """The records dir was fine at the start, but one record cannot be written (here a folder
    has its name; a full disk is the same): the tournament stops with one line and exit 2,
    not a traceback."""
    (tmp_path / "game-00002.json").mkdir()
    done = subprocess.run([*RUN_SAGANI, "tournament", "--games", "40", "--workers", "2",
                           "--records", str(tmp_path)], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=RUN_TIMEOUT_S)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1] == (f"sagani tournament: cannot write "
                                            f"{tmp_path / 'game-00002.json'}: Is a directory")
    assert done.stdout == ""  # no result table of a run cut short


def test_a_failed_join_shows_progress_and_lists_the_likely_causes() -> None:
    done = subprocess.run([*RUN_SAGANI, "join", NOWHERE], env=QUICK_PROBE,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          timeout=RUN_TIMEOUT_S)
    assert done.stdout.startswith(f"asking {NOWHERE} ...")
    for cause in ("address or port is wrong", "not running", "join code", "firewall"):
        assert cause in done.stderr


def test_a_second_host_on_a_data_dir_in_use_is_one_line_and_the_first_plays_on(
        tmp_path: Path) -> None:
    """Two hosts on one data dir: the second used to start, and its writes made the first take
    its WAL for damaged (storage_failed for every act from then on, --salvage at the next
    start); with --salvage it would move the first one's live database aside."""
    first, endpoint, _ = start_host_process(tmp_path, "--port", "0")
    try:
        for extra in ([], ["--salvage"]):
            done = subprocess.run([*RUN_SAGANI, "host", "--port", "0", "--data-dir",
                                   str(tmp_path), *extra], capture_output=True, text=True,
                                  stdin=subprocess.DEVNULL, timeout=RUN_TIMEOUT_S)
            assert (done.returncode, done.stdout, done.stderr) == (
                2, "", f"sagani host: sagani host (pid {first.pid}) already serves the data dir "
                f"{tmp_path}; stop it first, or give this host a --data-dir of its own\n")
        assert not list(tmp_path.glob("*.damaged*"))
        client = Client(endpoint)
        try:
            table = client.create({"players": 1}, game="sagrada")
            client.join(table)
            client.act(client.legal()[0])  # committed: the store is still the first host's
        finally:
            client.close()
    finally:
        first.terminate()
        first.wait(RUN_TIMEOUT_S)
    # Stopped, it lets the data dir go.
    again, _, _ = start_host_process(tmp_path, "--port", "0")
    again.terminate()
    again.wait(RUN_TIMEOUT_S)


def test_a_standby_that_never_reached_its_host_is_not_called_no_host(tmp_path: Path) -> None:
    """It answers every request ``not_active`` and names no active host; the commands used to
    say "no host answers ...: the host is not running", of a host that was running."""
    (dead_link,) = free_ports(1)
    host = Host(Store(tmp_path), port=0)
    pair = Standby(host, ActiveLink(host, new_key(tmp_path), bind="127.0.0.1", port=0),
                   f"tcp://127.0.0.1:{dead_link}")
    thread = pair.serve_in_thread()
    shown = host.endpoint.removeprefix("tcp://")
    try:
        for argv in (["tables", shown], ["record", "export", "t", "--host", shown]):
            done = subprocess.run([*RUN_SAGANI, *argv], capture_output=True, env=QUICK_PROBE,
                                  text=True, stdin=subprocess.DEVNULL, timeout=RUN_TIMEOUT_S)
            assert (done.returncode, done.stderr) == (
                2, f"sagani {argv[0]}: {shown} answers as a standby: {NOT_HEARD}\n")
    finally:
        pair.stop()
        thread.join(RUN_TIMEOUT_S)


def test_sagani_host_and_sagani_play_never_share_a_data_dir(tmp_path: Path) -> None:
    """``sagani host --data-dir`` on the folder of a running ``sagani play`` used to start and
    make both take each other's WAL for damaged; the other way round is refused too."""
    with hold_lock(tmp_path):  # as sagani play holds it
        done = subprocess.run([*RUN_SAGANI, "host", "--port", "0", "--data-dir", str(tmp_path)],
                              capture_output=True, text=True, stdin=subprocess.DEVNULL,
                              timeout=RUN_TIMEOUT_S)
        assert (done.returncode, done.stdout) == (2, "")
        assert done.stderr == (f"sagani host: sagani play (pid {os.getpid()}) already serves "
                               f"the data dir {tmp_path}; stop it first, or give this host a "
                               "--data-dir of its own\n")
    host, _, _ = start_host_process(tmp_path, "--port", "0")
    try:
        with pytest.raises(UsageError, match=rf"^sagani host \(pid {host.pid}\) already uses "):
            hold_lock(tmp_path)
    finally:
        host.terminate()
        host.wait(RUN_TIMEOUT_S)


#: What a terminal whose locale is C (or Latin-1) sends for 'éric': bytes that are not UTF-8.
NOT_UTF8_NAME = b"\xe9ric"
C_LOCALE = {**os.environ, "LANG": "C", "LC_ALL": "C"}


@pytest.mark.parametrize("command", [["play", "--data-dir", "{tmp}/p"], ["join", "{host}"]])
def test_a_name_in_bytes_that_are_not_utf8_is_refused_in_one_line(
        command: list[str], host: Host, tmp_path: Path) -> None:
    """Python takes such an argument as lone surrogates; the game crashed in a msgpack
    UnicodeEncodeError once the console had started."""
    fill = {"tmp": str(tmp_path), "host": host.endpoint.removeprefix("tcp://")}
    argv = [*(a.format(**fill) for a in command), "--name", NOT_UTF8_NAME]
    done = subprocess.run([*RUN_SAGANI, *argv], capture_output=True, env=C_LOCALE,
                          stdin=subprocess.DEVNULL, timeout=RUN_TIMEOUT_S)
    said = done.stderr.decode(errors="replace")
    assert done.returncode == 2, said
    assert said.count("\n") == 1 and "is the terminal's locale UTF-8?" in said, said
    assert host.tables == {}


def test_a_login_name_in_bytes_that_are_not_utf8_is_not_taken_as_the_name(
        tmp_path: Path) -> None:
    """Not a name the player gave, so not a mistake to blame on --name: play goes on as 'you'
    (here to the terminal it lacks)."""
    env = {**C_LOCALE, "LOGNAME": os.fsdecode(NOT_UTF8_NAME)}
    done = subprocess.run([*RUN_SAGANI, "play", "--data-dir", str(tmp_path / "p")],
                          capture_output=True, env=env, text=True, stdin=subprocess.DEVNULL,
                          timeout=RUN_TIMEOUT_S)
    assert (done.returncode, done.stderr) == (2, "sagani play: the console needs a terminal, "
                                              "and standard input is not one (sagani play "
                                              "--autoplay KIND plays a game without one)\n")


def test_a_bot_whose_host_stays_away_past_its_reconnect_time_says_so_in_one_line(
    tmp_path: Path,
) -> None:
    """The host killed and not started again: `sagani bot` tried to get back for --reconnect
    seconds, then ended in HostTimeout's traceback (exit 1). Its --reconnect counts from when
    the host was last heard: the client's own 4 tries of 2.5 s are part of it (with
    --reconnect 1, 4 more tries came after them, and it gave up after 20 s)."""
    host, endpoint, _ = start_host_process(tmp_path, "--port", "0", "--heartbeat-s", "0.2")
    bot = subprocess.Popen([*RUN_SAGANI, "bot", endpoint, "--create", "2", "--strategy",
                            "random", "--reconnect", "1", "--quiet"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert bot.stdout is not None
        assert bot.stdout.readline().startswith("sagani bot: created table ")
        table = bot.stdout.readline().split()[5]  # seated: "... at table T (sagani), seat 1"
        host.kill()
        host.wait()
        _, err = bot.communicate(timeout=60)
    finally:
        for proc in (bot, host):
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert bot.returncode == 2
    assert "Traceback" not in err
    # (after its warning that the host is silent)
    said = re.fullmatch(
        f"sagani bot: the host has been silent for (\\d+) s, past --reconnect 1 s: no reply "
        f"from {endpoint} to \\w+ after \\d+ tries; the bot stopped playing table {table}",
        err.splitlines()[-1])
    assert said, err
    # The client's own tries (REQUEST_RETRIES + 1 of REQUEST_TIMEOUT_S), then at most a try
    # or two within what is left: never a second round of them.
    own_s = (REQUEST_RETRIES + 1) * REQUEST_TIMEOUT_S
    assert own_s <= int(said[1]) < own_s + 5, err


def _files_of_4_kib() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))  # past it a write fails (EFBIG)


#: For a process under :func:`_files_of_4_kib`: Python would leave the first 4 KiB of a module's
#: bytecode in its __pycache__ (tests/conftest.py lets the tests' processes write it), and every
#: later import of it fail.
NO_BYTECODE = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}


def test_a_write_that_fails_leaves_no_half_a_file_and_keeps_the_old_one(tmp_path: Path) -> None:
    """A full disk (here a 4 KiB limit on a file) left the first 4 KiB of a record under its
    name in the records dir, and `--json FILE` over an older analysis left neither."""
    records = tmp_path / "records"
    done = subprocess.run([*RUN_SAGANI, "selfplay", "--games", "2", "--records", str(records)],
                          capture_output=True, text=True, preexec_fn=_files_of_4_kib,
                          env=NO_BYTECODE, timeout=60)
    assert done.returncode == 2 and "File too large" in done.stderr, done.stderr
    assert list(records.iterdir()) == []
    played = subprocess.run([*RUN_SAGANI, "selfplay", "--games", "1", "--records", str(records)],
                            capture_output=True, text=True, timeout=60)
    assert played.returncode == 0, played.stderr
    record = tmp_path / "game.json"
    next(records.iterdir()).rename(record)  # an analysis of its 40-odd moves: some 30 KiB
    older = tmp_path / "analysis.json"
    older.write_text('{"older": true}\n')
    done = subprocess.run([*RUN_SAGANI, "analyze", str(record), "--iterations", "2", "--quiet",
                           "--workers", "1", "--json", str(older)],
                          capture_output=True, text=True, preexec_fn=_files_of_4_kib,
                          env=NO_BYTECODE, timeout=60)
    assert done.returncode == 2 and "File too large" in done.stderr, done.stderr
    assert older.read_text() == '{"older": true}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["analysis.json", "game.json",
                                                           "records"]


@pytest.mark.parametrize("command", [
    ["selfplay", "--games", "1"],
    ["analyze", "tests/records/sagani-before-config.json", "--iterations", "2", "--quiet",
     "--workers", "1"],
    ["analyze", "tests/records/sagani-before-config.json", "--iterations", "2", "--quiet",
     "--workers", "1", "--json"],
])
def test_output_into_a_pipe_nobody_reads_ends_quietly(command: list[str]) -> None:
    """'sagani analyze game.json | head' printed a BrokenPipeError traceback (head had read
    its lines and gone): the command now ends without a word, as cat does, status 141."""
    reader, writer = os.pipe()
    os.close(reader)  # the reader has gone before the first line is written
    try:
        done = subprocess.run([*RUN_SAGANI, *command], stdout=writer, stderr=subprocess.PIPE,
                              text=True, timeout=60, cwd=Path(__file__).parents[2])
    finally:
        os.close(writer)
    assert done.returncode == 141 and done.stderr == "", done.stderr


@pytest.mark.parametrize(("argv", "error"), [
    (["--analyze"], "the console needs a terminal, and standard input is not one (sagani "
                    "replay --print shows the end of the game without one)"),
    (["--analyze", "--print"], "--print shows the last position, not the verdicts: give "
                               "--print or --analyze (sagani analyze RECORD writes them all)"),
])
def test_replay_analyze_says_what_it_cannot_do_before_it_analyses(
        argv: list[str], error: str, tmp_path: Path) -> None:
    """'sagani replay game.json --analyze' without a terminal searched every decision of the
    game (its progress bar ran to the end, 14 s for a 2-player Sagani game) before it said
    the console needs one; with --print it searched them all and printed none."""
    record = tmp_path / "game.json"
    record.write_text(json.dumps(
        play_local(GameSpec(0, "sugi", {"players": 2}, 5, ("greedy", "random"))).record))
    done = subprocess.run([*RUN_SAGANI, "replay", str(record), *argv], capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=RUN_TIMEOUT_S)
    assert (done.returncode, done.stderr) == (2, f"sagani replay: {error}\n")


@pytest.mark.parametrize(("command", "said"), [
    ("analyze", "cannot analyze"), ("replay", "cannot replay")])
def test_a_record_that_cannot_be_read_is_said_in_words_not_errno(
        command: str, said: str, tmp_path: Path) -> None:
    """'sagani analyze /tmp' said "cannot analyze /tmp: [Errno 21] Is a directory: '/tmp'":
    the path twice and Python's errno, where --analysis FILE says 'Is a directory'."""
    for path, why in ((tmp_path, "Is a directory"),
                      (tmp_path / "none.json", "No such file or directory")):
        done = subprocess.run([*RUN_SAGANI, command, str(path)], capture_output=True,
                              text=True, stdin=subprocess.DEVNULL, timeout=RUN_TIMEOUT_S)
        assert (done.returncode, done.stderr) == (2, f"sagani {command}: {said} {path}: "
                                                  f"{why}\n")


def test_a_command_run_with_standard_output_closed_says_nothing_of_it() -> None:
    """'sagani --version >&-': Python has no sys.stdout then, and the flush that meets a
    reader gone (above) raised AttributeError, a traceback where there had been none."""
    done = subprocess.run([*RUN_SAGANI, "--version"], stderr=subprocess.PIPE, text=True,
                          preexec_fn=lambda: os.close(1), timeout=RUN_TIMEOUT_S)
    assert (done.returncode, done.stderr) == (0, "")


@pytest.mark.parametrize("argv", [
    ["host", "--standby", "-", "--port", "0", "--data-dir", "{tmp}/standby"],
    ["join", "-", "--name", "ann"],
    ["bot", "-", "--table", "t"],
], ids=["host --standby -", "join -", "bot -"])
def test_a_secret_read_from_standard_input_is_read_as_one_line_of_bounded_length(
        argv: list[str], tmp_path: Path) -> None:
    """`-` reads a code from standard input's first line, and read it whole however long it
    was: `sagani host --standby - < /dev/zero` held 1.5 GB after 4 s and went on growing. A
    code is a few hundred characters: no more than MAX_SECRET_LINE_CHARS is read, and what
    was read is no code. (Run under a 2 GiB address space, so that a failure is a
    MemoryError, not a machine out of memory.)"""
    import resource

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, 2 * 2**30))

    with open("/dev/zero", "rb") as zeros:
        done = subprocess.run([*RUN_SAGANI, *(a.format(tmp=tmp_path) for a in argv)],
                              capture_output=True, text=True, stdin=zeros,
                              preexec_fn=limited, timeout=RUN_TIMEOUT_S)
    assert done.returncode == 2, done.stderr[-2000:]
    assert len(done.stderr.splitlines()) == 1 and "\0" not in done.stderr, done.stderr[:300]
