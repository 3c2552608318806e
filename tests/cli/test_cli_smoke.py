"""The installed ``sagani`` command, end to end, in subprocesses (a pseudo-terminal for the
console). Everything stays on 127.0.0.1 and in a temporary data dir."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import random
import re
import select
import shlex
import socket
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest
from cli_kit import Screen, Terminal, lan_party, sagani, terminals
from failover_kit import free_ports
from fault_kit import Game
from test_net_support import RUN_SAGANI, Raw, running_host, start_host_process

from sagani_net.games import get_game
from sagani_net.store import Store


def test_replay_print_in_a_c_locale_prints_the_final_screen_in_ascii(tmp_path: Path) -> None:
    """Piped to less or a file read in that locale, the UTF-8 of the boards was '?' or
    '<E2><94><80>'."""
    rules = get_game("sagani")
    state = rules.new_state(rules.parse_config({"players": 2}), seed=1)
    state.playout(random.Random(1))
    record = tmp_path / "sagani.json"
    record.write_text(json.dumps(state.to_record()))
    shown = subprocess.run([*RUN_SAGANI, "replay", str(record), "--print"], capture_output=True,
                           env={**os.environ, "LANG": "C", "LC_ALL": "C"}, timeout=60)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.isascii() and b"Game over" in shown.stdout, shown.stdout


def test_selfplay_then_replay_prints_the_final_screen(tmp_path: Path) -> None:
    done = sagani("selfplay", "--games", "1", "--seed", "4", "--records", str(tmp_path))
    assert done.returncode == 0, done.stderr
    (record,) = tmp_path.glob("*.json")
    shown = sagani("replay", str(record), "--print")
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    # At the terminal's width (none here: 120 columns), no key hints, the ranking last.
    assert all(len(line) <= 120 for line in lines)
    assert "game over" in lines[0] and "Game over" in shown.stdout
    assert "q quit" not in shown.stdout and not lines[-1].startswith(">")
    assert lines[-1].endswith("wins.")
    wide = subprocess.run([*RUN_SAGANI, "replay", str(record), "--print"], capture_output=True,
                          text=True, env={**os.environ, "COLUMNS": "80", "LINES": "24"})
    assert all(len(line) <= 80 for line in wide.stdout.splitlines())



@pytest.mark.parametrize("game", ["sagani", "sagrada", "sugi"])
def test_replay_print_shows_no_key_hints_for_any_game(game: str, tmp_path: Path) -> None:
    """Printed, no key does anything: Sagrada's final box ended with 'Tab: look at the
    windows' (the boards' titles still name Tab, as the console shows them)."""
    done = sagani("selfplay", "--game", game, "--games", "1", "--seed", "4", "--records",
                  str(tmp_path))
    assert done.returncode == 0, done.stderr
    (record,) = tmp_path.glob("*.json")
    shown = sagani("replay", str(record), "--print")
    assert shown.returncode == 0, shown.stderr
    final = shown.stdout.split("Game over", 1)[1]  # the ranking, under the last position
    assert "Tab" not in final, final

def test_play_autoplay_runs_host_and_bots_to_the_end(tmp_path: Path) -> None:
    # mcts thinks in a worker process; a short --think keeps the game quick.
    done = sagani("play", "--autoplay", "greedy", "--players", "3", "--bots", "mcts,random",
                  "--think", "0.02", "--seed", "8", "--new",
                  "--data-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert ": over" in done.stdout
    assert len([line for line in done.stdout.splitlines() if "points" in line]) == 3
    assert not (tmp_path / "play.json").exists()  # a finished game leaves nothing to resume
    path = done.stdout.split("record: ")[1].strip()
    record = json.loads(Path(path).read_text())
    assert record["game"] == "sagani" and len(record["names"]) == 3  # who played



def test_play_writes_the_record_of_a_game_that_ended_unsaved(tmp_path: Path) -> None:
    """A console closed at the final screen (the terminal window shut, not q) left the
    finished game without its record and its seats saved; the next `sagani play` started
    another game without a word. It writes the record then, and says where."""
    done = sagani("play", "--autoplay", "greedy", "--seed", "8", "--new",
                  "--data-dir", str(tmp_path))
    path = Path(done.stdout.split("record: ")[1].strip())
    first = json.loads(path.read_text())
    # What that console leaves: its seats saved, the game over in the database, no record.
    path.unlink()
    table = path.stem.split("-", 1)[1]
    (tmp_path / "play.json").write_text(json.dumps({"table": table, "token": "t" * 43,
                                                    "config": {"players": 2}, "bots": []}))
    done = sagani("play", "--autoplay", "greedy", "--seed", "9", "--data-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert f"your last game ended; its record: {path}\n" in done.stdout
    assert json.loads(path.read_text()) == first  # names and all
    assert not (tmp_path / "play.json").exists()

def test_play_in_a_terminal_quits_cleanly_and_resumes(tmp_path: Path) -> None:
    term = Terminal("play", "--seed", "3", "--new", "--name", "ann", "--data-dir", str(tmp_path))
    term.wait_for("YOUR TURN")
    term.send("1")
    term.wait_for("Enter place")
    term.send("\r")
    term.wait_for("(1 tile,")
    term.send("q")
    term.wait_for("`sagani play` resumes it")  # quitting says how to come back
    assert term.close() == 0
    term = Terminal("play", "--data-dir", str(tmp_path))
    term.wait_for("An unfinished game of Sagani is saved (2 players, 1 turn played).\n"
                  "Resume it? [Y/n]")  # each whole on its line of 80 columns
    term.send("\x04")  # Ctrl-D: the answer Enter gives (it was an EOFError's traceback)
    term.wait_for("(1 tile,")
    term.wait_for("ann placed")  # the log starts with the game so far
    term.send("q")
    assert term.close() == 0
    # --new sets the unfinished game aside, where no host loads it at every start.
    done = sagani("play", "--new", "--autoplay", "greedy", "--data-dir", str(tmp_path))
    assert done.returncode == 0 and "the unfinished game is set aside in" in done.stdout
    (aside,) = (tmp_path / "abandoned").iterdir()
    assert Store(aside).unfinished() and not Store(tmp_path).unfinished()


def open_seat_game(consoles: list[Terminal], tmp_path: Path, *options: str
                   ) -> tuple[Terminal, Terminal, str]:
    """`sagani play --open 2` of Sugi by ann (``options`` added), and bob joining it --cover
    from the invitation on her message line; both consoles in ``consoles``, and the address."""
    creator = Terminal("play", "--game", "sugi", "--open", "2", "--new", "--name", "ann",
                       *options, "--data-dir", str(tmp_path / "play"),
                       env={"XDG_DATA_HOME": str(tmp_path / "ann")})
    consoles.append(creator)
    creator.wait_for(" --cover")  # the invitation, on the message line
    address = re.search(r"sagani join (\S+) --cover", creator.screen.text())
    assert address is not None
    joiner = Terminal("join", address.group(1), "--cover", "--name", "bob",
                      env={"XDG_DATA_HOME": str(tmp_path / "bob")})
    consoles.append(joiner)
    return creator, joiner, address.group(1)


def test_play_with_an_open_seat_covers_both_hands_on_the_shared_machine(tmp_path: Path) -> None:
    """`sagani play --open 2` of Sugi: the person at the open seat sits at this machine (the
    host listens on 127.0.0.1), maybe at this very screen. Both consoles start covered, the
    invitation tells the joiner --cover, and a hand shows only once its player presses h.
    Before, each console drew its hand and family tree from the first screen on."""
    with terminals() as consoles:
        creator, joiner, address = open_seat_game(consoles, tmp_path)
        joiner.wait_for("bob: covered")
        creator.wait_for("the game starts")
        for console in (creator, joiner):
            assert "Your hand" not in console.screen.text()
            assert "Family tree" not in console.screen.text()
        creator.send("h")
        creator.wait_for("Your hand")
        # The joiner leaves, and comes back without --cover: its seat is covered again.
        joiner.send("q")
        assert joiner.close() == 0
        back = Terminal("join", address, "--name", "bob",
                        env={"XDG_DATA_HOME": str(tmp_path / "bob")})
        consoles.append(back)
        back.wait_for("bob: covered")
        back.send("q")
        creator.send("q")
        assert back.close() == 0 and creator.close() == 0
        # Resumed without --open, the table still has a person's seat: covered as before.
        again = Terminal("play", "--resume", "--data-dir", str(tmp_path / "play"),
                         env={"XDG_DATA_HOME": str(tmp_path / "ann")})
        consoles.append(again)
        again.wait_for("ann: covered")
        assert "Your hand" not in again.screen.text()
        again.send("q")
        assert again.close() == 0


def _free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def test_a_resumed_play_serves_on_its_port_and_the_joiner_comes_back_by_itself(
    tmp_path: Path,
) -> None:
    """`sagani play --open 2` quit and resumed while the person at the open seat keeps their
    console: the host serves on the port it had, so that console reconnects to the game.
    Before, the resumed host took a free port: the joiner's console said 'reconnecting' for
    ever, and no screen said where the game now was."""
    # Ports below the ephemeral range (and the broadcasts' next to them): a test beside this
    # one binding port 0 while the game is down could take one drawn from that range, and the
    # resumed game would rightly go to a free port.
    port = next(p for p in free_ports(16) if _free(p + 1))
    with terminals() as consoles:
        creator, joiner, _ = open_seat_game(consoles, tmp_path, "--port", str(port))
        joiner.wait_for("● online")
        creator.wait_for("the game starts")
        creator.send("q")
        assert creator.close() == 0
        joiner.wait_for("reconnecting")
        again = Terminal("play", "--resume", "--data-dir", str(tmp_path / "play"),
                         env={"XDG_DATA_HOME": str(tmp_path / "ann")})
        consoles.append(again)
        again.wait_for("ann: covered")
        joiner.wait_for("● online", timeout_s=40)  # back at the same address, by itself
        again.send("q")
        joiner.send("q")
        assert again.close() == 0 and joiner.close() == 0


def test_unknown_bot_kind_is_refused_with_a_sentence(tmp_path: Path) -> None:
    done = sagani("play", "--bots", "clever", "--data-dir", str(tmp_path))
    assert done.returncode == 2
    assert ("unknown strategy 'clever'; known: greedy, random, mcts, or one of your own as "
            "MODULE:NAME or FILE.py:NAME") in done.stderr


def test_help_lists_the_console_commands() -> None:
    done = subprocess.run([*RUN_SAGANI, "--help"], capture_output=True,
                          text=True, check=True)
    for command in ("play", "join", "replay"):
        assert command in done.stdout


@pytest.mark.parametrize("columns", [50, 120])
def test_help_fills_the_terminal_width_it_is_given(columns: int) -> None:
    """The command measures the terminal itself (argparse's way, without shutil): COLUMNS."""
    done = subprocess.run([*RUN_SAGANI, "play", "--help"], capture_output=True, text=True,
                          check=True, env={**os.environ, "COLUMNS": str(columns)})
    # The options' help is wrapped to the width (a usage line may run over: argparse keeps an
    # option with its value).
    options = done.stdout.split("\noptions:\n")[1].splitlines()
    widest = max(len(line) for line in options)
    assert columns - 12 <= widest <= columns - 2, (widest, done.stdout)


def test_sagani_alone_prints_the_help_and_there_is_a_version() -> None:
    alone = sagani()
    assert alone.returncode == 0 and "play" in alone.stdout and not alone.stderr
    version = sagani("--version")
    assert version.returncode == 0 and version.stdout.startswith("sagani ")


@pytest.mark.parametrize("command", ["play", "join", "replay", "host", "bot", "tournament",
                                     "selfplay"])
def test_every_subcommand_has_a_description(command: str) -> None:
    done = sagani(command, "--help")
    assert done.returncode == 0
    usage, description = done.stdout.split("\n\n")[:2]
    assert not description.lstrip().startswith(("positional", "options")), done.stdout
    assert "%%" not in done.stdout


def test_selfplay_help_names_every_policy_and_counts_seats_from_1(tmp_path: Path) -> None:
    assert "mcts" in sagani("selfplay", "--help").stdout
    done = sagani("selfplay", "--games", "1", "--policy", "greedy,random")
    assert "seat 1 " in done.stdout and "seat 2 " in done.stdout and " seat 0" not in done.stdout


def test_host_join_and_bot_play_over_the_network(tmp_path: Path) -> None:
    """Three commands, as at a LAN party but on 127.0.0.1: a host, a person, a bot."""
    with lan_party(tmp_path / "host") as (host, bots):
        assert host.stdout is not None
        line = host.stdout.readline()  # "sagani host: requests tcp://127.0.0.1:PORT ..."
        address = line.split()[3]
        # The console keeps its seat tokens in the user data dir: keep them in tmp_path.
        home = {"XDG_DATA_HOME": str(tmp_path / "data")}
        person = Terminal("join", address, "--players", "2", "--bots", "1", "--name", "ann",
                          env=home)
        person.wait_for("waiting for players (1/2 seated)")
        table = re.search(r"table ([0-9a-f]+)", person.screen.text())
        assert table is not None
        lobby = sagani("tables", address)  # the lobby names each table's game
        assert lobby.returncode == 0
        assert f"{table.group(1)}  sagani   open" in lobby.stdout and "1:ann" in lobby.stdout
        bots.append(subprocess.Popen([*RUN_SAGANI, "bot", address, "--table", table.group(1),
                                      "--quiet"]))
        person.wait_for("YOUR TURN")
        person.send("1")
        person.wait_for("Enter place")
        person.send("\r")
        person.wait_for("ann placed")
        person.wait_for("YOUR TURN")  # the bot answered over the network
        person.send("q")
        assert person.close() == 0
        assert (tmp_path / "data" / "sagani" / "join.json").exists()


def test_a_secure_host_prints_its_join_code_whole_and_quoted(tmp_path: Path) -> None:
    host = subprocess.Popen([*RUN_SAGANI, "host", "--secure", "--print-join-code", "--port", "0",
                             "--data-dir", str(tmp_path), "--quiet"],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert host.stdout is not None
        first = host.stdout.readline().strip()
        assert first.startswith("'sagani://") and first.endswith("'") and "?key=" in first
    finally:
        host.terminate()
        host.wait(timeout=10)


#: What `sagani tables` prints for a host with no table open or being played.
NO_TABLES = "no table open or being played: sagani join creates one\n"


def test_tables_of_a_host_whose_games_are_all_over_does_not_say_none_yet(
        tmp_path: Path) -> None:
    """Finished games leave the lobby (ten minutes after their end, or at a restart): on a
    host that had played a party's games `sagani tables` said 'no tables yet', as if it had
    never held one."""
    with running_host(tmp_path) as host:
        game = Game(Raw(host.endpoint), seed=730)
        game.finish()
        game.raw.close()
    with running_host(tmp_path) as host:
        lobby = sagani("tables", host.endpoint)
    assert (lobby.returncode, lobby.stdout) == (0, NO_TABLES)


def test_a_join_code_given_as_dash_stays_out_of_the_process_list(tmp_path: Path) -> None:
    """`sagani bot - ...` reads a secure host's join code from standard input, `sagani join -`
    asks for it at the terminal without echoing it: before, the code (the party's only key to
    the host) had to be on the command line, where `ps` shows it to every user of the machine
    for the whole game; the house bots already got theirs on standard input."""
    with lan_party(tmp_path / "host", "--secure", "--print-join-code") as (host, bots):
        assert host.stdout is not None
        code = shlex.split(host.stdout.readline())[0]
        key = code.rsplit("key=", 1)[1]
        lobby = subprocess.run([*RUN_SAGANI, "tables", "-"], input=code + "\n",
                               capture_output=True, text=True, timeout=60)
        assert (lobby.returncode, lobby.stdout) == (0, NO_TABLES)
        bot = subprocess.Popen([*RUN_SAGANI, "bot", "-", "--create", "1", "--strategy", "random"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        bots.append(bot)
        assert bot.stdin is not None and bot.stdout is not None
        bot.stdin.write(code + "\n")
        bot.stdin.close()
        assert bot.stdout.readline().startswith("sagani bot: created table")  # it got in
        assert key not in Path(f"/proc/{bot.pid}/cmdline").read_text()
        # A table that is not there: the command ends on its answer, the screen as it left it.
        person = Terminal("join", "-", "--table", "abcdef12",
                          env={"XDG_DATA_HOME": str(tmp_path / "data")})
        person.wait_for("join code (not shown")  # echo is off from here on
        person.send(code + "\n")
        person.wait_for("cannot join table abcdef12")  # the host answered: the code was read
        assert person.close() == 2
        assert key not in person.screen.text()


def test_record_export_says_where_it_looked(tmp_path: Path) -> None:
    done = subprocess.run([*RUN_SAGANI, "record", "export", "nosuch"], capture_output=True,
                          text=True, env={**os.environ, "XDG_DATA_HOME": str(tmp_path)})
    assert done.returncode == 2
    assert str(tmp_path / "sagani") in done.stderr and str(tmp_path / "sagani" / "play") in (
        done.stderr)


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["plya"]])
def test_the_command_line_answers_without_importing_the_console_the_host_or_zmq(
    argv: list[str],
) -> None:
    """Issue 21 point 1: ``sagani --version`` took half a second building every subcommand's
    parser (the console, the host, zmq, prompt_toolkit). Only the command named is built."""
    probe = ("import sys\nfrom sagani_net.cli.main import main\ncode = main(sys.argv[1:])\n"
             "heavy = [m for m in ('zmq', 'prompt_toolkit', 'sqlite3', 'sagani_net.host', "
             "'sagani_net.cli.console.app') if m in sys.modules]\n"
             "print('HEAVY', heavy, file=sys.stderr)\nsys.exit(code)")
    done = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True,
                          timeout=60)
    assert "HEAVY []" in done.stderr, done.stderr
    assert done.returncode == (2 if argv == ["plya"] else 0)


@pytest.mark.parametrize("game", ["sagani", "sagrada", "sugi"])
@pytest.mark.parametrize("terminal", [{"LANG": "C", "LC_ALL": "C"}, {"TERM": "linux"},
                                      {"TERM": "vt100"}], ids=["LC_ALL=C", "linux", "vt100"])
def test_a_terminal_that_shows_only_ascii_gets_the_boards_in_ascii(
        game: str, terminal: dict[str, str], tmp_path: Path) -> None:
    """A C locale's terminal shows the UTF-8 of a box or an arrow as '?' or as three bytes of
    mojibake, the Linux console and a VT100 lack the glyphs: the boards were unreadable."""
    rules = get_game(game)
    state = rules.new_state(rules.parse_config({"players": 2}), seed=1)
    state.playout(random.Random(1))
    record = tmp_path / f"{game}.json"
    record.write_text(json.dumps(state.to_record()))
    term = Terminal("replay", str(record), env=terminal)
    term.wait_for("q quit")
    term.send("\x1b[F")  # End: the last position, every board at its fullest
    term.wait_for("game over")
    term.send("q")
    assert term.close() == 0
    shown = term.screen.text()
    assert shown.isascii(), shown
    assert "+--" in shown or "|" in shown, shown  # the boards' frames, in ASCII



class OutputInAFile:
    """A command on an 80x24 pseudo-terminal for its keys and standard error, its standard
    output sent to ``out``."""

    def __init__(self, out: Path, *args: str) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        with out.open("w") as file:
            self.proc = subprocess.Popen([*RUN_SAGANI, *args], stdin=slave, stdout=file,
                                         stderr=slave, env={**os.environ, "TERM": "xterm"})
        os.close(slave)
        self.screen = Screen()

    def wait_for(self, text: str) -> None:
        while text not in self.screen.text():
            ready, _, _ = select.select([self.master], [], [], 20)
            assert ready, f"{text!r} never showed on the terminal:\n{self.screen.text()}"
            self.screen.feed(os.read(self.master, 65536).decode("utf-8", "replace"))

    def close(self) -> int:
        try:
            return self.proc.wait(timeout=15)
        finally:
            self.proc.kill()
            os.close(self.master)


def test_the_console_with_standard_output_in_a_file_is_drawn_on_the_terminal(
        tmp_path: Path) -> None:
    """`sagani replay REC > out.txt`: the console went into the file and the terminal stayed
    blank while it read keys."""
    rules = get_game("sagani")
    record = tmp_path / "sagani.json"
    record.write_text(json.dumps(rules.new_state(rules.parse_config({"players": 2}),
                                                 seed=1).to_record()))
    term = OutputInAFile(tmp_path / "out.txt", "replay", str(record))
    term.wait_for("q quit")
    os.write(term.master, b"q")
    assert term.close() == 0


def test_play_with_standard_output_in_a_file_asks_whether_to_resume_on_the_terminal(
        tmp_path: Path) -> None:
    """The question went into the file; play waited for an answer to a question not seen."""
    term = Terminal("play", "--seed", "3", "--new", "--data-dir", str(tmp_path))
    term.wait_for("YOUR TURN")
    term.send("q")
    assert term.close() == 0
    again = OutputInAFile(tmp_path / "out.txt", "play", "--data-dir", str(tmp_path))
    again.wait_for("Resume it? [Y/n]")
    os.write(again.master, b"y\r")
    again.wait_for("YOUR TURN")
    os.write(again.master, b"q")
    assert again.close() == 0


@pytest.mark.parametrize("game", ["sagani", "sagrada", "sugi"])
def test_replay_print_of_a_game_not_over_names_no_winner(game: str, tmp_path: Path) -> None:
    """A record cut part-way (its result left out, as RECORD.md says to keep part of a game)
    printed 'Game over' and 'greedy wins.' over the scores so far."""
    done = sagani("selfplay", "--game", game, "--games", "1", "--seed", "4", "--records",
                  str(tmp_path))
    assert done.returncode == 0, done.stderr
    (path,) = tmp_path.glob("*.json")
    record = json.loads(path.read_text())
    del record["result"]
    record["actions"] = record["actions"][:20]
    part = tmp_path / "part.json"
    part.write_text(json.dumps(record))
    shown = sagani("replay", str(part), "--print")
    assert shown.returncode == 0, shown.stderr
    assert "Game over" not in shown.stdout and "wins" not in shown.stdout, shown.stdout
    assert shown.stdout.splitlines()[-1] == "Not over: the record ends here (move 20/20)."


def test_replay_print_reads_one_name_a_seat_each_as_long_as_a_host_allows(tmp_path: Path) -> None:
    """A record's names are by seat: one of 500,000 names, or with a name of 3 MB (both under
    the 4 MiB a record may be), kept the replay drawing them for 45 s and 27 s; 0.4 s now."""
    done = sagani("selfplay", "--games", "1", "--seed", "4", "--records", str(tmp_path))
    assert done.returncode == 0, done.stderr
    (path,) = tmp_path.glob("*.json")
    record = json.loads(path.read_text())
    for names in (["ann", "bob", *["n"] * 500_000], ["x" * 3_000_000, "bob"]):
        path.write_text(json.dumps({**record, "names": names}))
        shown = subprocess.run([*RUN_SAGANI, "replay", str(path), "--print"],
                               capture_output=True, text=True, timeout=15)
        assert shown.returncode == 0, shown.stderr
        assert "bob" in shown.stdout and names[0][:8] in shown.stdout


def test_a_stopped_host_says_so_and_that_the_games_in_play_are_kept(tmp_path: Path) -> None:
    """SIGTERM (or Ctrl-C) ended the host without a word: a headless host's log could not
    tell a stop from a hang, nor whether the game in play would go on."""
    host, endpoint, _ = start_host_process(tmp_path, "--port", "0")
    try:
        raw = Raw(endpoint)
        table = raw("create", game="sagani", config={"players": 2})["table"]
        raw("join", table=table, name="ann")
        raw.close()
    finally:
        host.terminate()
        out, _ = host.communicate(timeout=10)
    assert host.returncode == 0
    assert out.splitlines()[-1] == (f"sagani host: stopped; 1 game not over kept in {tmp_path}, "
                                    "to go on when a host starts again on it")
