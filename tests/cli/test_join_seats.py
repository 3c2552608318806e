"""Issue 20 point 2: consoles that share one HOME (one join.json) each get a seat of their own.
A saved seat is taken back only by a console of its name (any, without ``--name``), and only
while no other console plays it (a lock per saved seat); ``--name`` is always honoured. The
real ``sagani join`` on pseudo-terminals, a real host on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
from pathlib import Path

from cli_kit import RUN_TIMEOUT_S, Terminal, a_terminal, terminals
from test_net_support import RUN_SAGANI, until

from sagani_net.cli.tables_cmd import table_lines
from sagani_net.client import AsyncClient, Client
from sagani_net.host import Host


def names_at(host: Host, table: str) -> list[str | None]:
    return [seat["name"] for seat in host.room.seats(host.tables[table])]


def test_two_consoles_of_one_home_take_two_seats_and_a_name_in_use_is_refused(
    host: Host, tmp_path: Path
) -> None:
    home = {"XDG_DATA_HOME": str(tmp_path)}
    address = host.endpoint.removeprefix("tcp://")
    with terminals() as consoles:
        ann = Terminal("join", address, "--players", "2", "--name", "ann", env=home)
        consoles.append(ann)
        ann.wait_for("waiting for players (1/2 seated)")
        found = re.search(r"table ([0-9a-f]{8})", ann.screen.text())
        assert found is not None
        table = found.group(1)
        bob = Terminal("join", address, "--name", "bob", env=home)  # same HOME, same join.json
        consoles.append(bob)
        bob.wait_for("you: bob")
        assert names_at(host, table) == ["ann", "bob"]
        assert host.tables[table].status == "running"  # the game started
        ann.wait_for("you: ann")
        # A third console asking for ann's seat while ann plays it: one line, exit 2.
        again = Terminal("join", address, "--name", "ann", env=home)
        consoles.append(again)
        again.wait_for("played by another console")
        assert again.close() == 2
        (line,) = [ln for ln in again.screen.text().splitlines() if "another console" in ln]
        # (cut at the terminal's 80 columns: the console that holds it, "sagani join (pid N)",
        # comes next)
        assert line.startswith(f"sagani join: ann's seat at table {table} is played by another "
                               "console (sagani j")
        ann.send("q")
        ann.wait_for("--name ann` takes it back")
        assert ann.close() == 0
        saved = json.loads((tmp_path / "sagani" / "join.json").read_text())
        assert sorted(v["name"] for v in saved.values()) == ["ann", "bob"]
        # With ann's console gone, a console without a name takes back the free seat: ann's.
        back = Terminal("join", address, env=home)
        consoles.append(back)
        back.wait_for("you: ann")
        assert names_at(host, table) == ["ann", "bob"]


def test_the_lobby_wraps_a_tables_seats_under_the_first_at_the_terminals_width() -> None:
    """A seat past the width goes on the next line, under the first seat, whole; short rows
    stay one line."""
    long = "Bartholomew the Exceedingly Long-Named"
    tables = [{"table": "c12bc3f6", "game": "sugi", "status": "open",
               "seats": [{"name": long, "taken": True}, {"taken": False, "kind": "bot"},
                         {"taken": False}, {"taken": False}, {"taken": False}]},
              {"table": "657ff791", "game": "sagani", "status": "running",
               "seats": [{"name": "ann", "taken": True}, {"name": "bo", "taken": True}]}]
    lines = table_lines(tables, 80).splitlines()
    assert lines == [
        f"c12bc3f6  sugi     open     1:{long},",
        "                            2:free (bot), 3:free, 4:free, 5:free",
        "657ff791  sagani   running  1:ann, 2:bo",
    ]


def test_a_spectators_console_gives_its_place_up_when_it_ends(host: Host, tmp_path: Path) -> None:
    """A console that watched and quit held its place until the table was gone: a machine that
    started watching a table 16 times (its address's share of the 64 places) was refused the
    next time."""
    home = {"XDG_DATA_HOME": str(tmp_path)}
    address = host.endpoint.removeprefix("tcp://")
    client = Client(host.endpoint)
    try:
        table = client.create({"players": 2})
    finally:
        client.close()
    watcher = Terminal("join", address, "--spectate", "--table", table, env=home)
    try:
        watcher.wait_for("watching")
        assert len(host.tables[table].spectators) == 1
        watcher.send("q")
        assert watcher.close() == 0
        assert not host.tables[table].spectators
    finally:
        if watcher.proc.poll() is None:
            watcher.proc.kill()
            watcher.proc.wait()


def test_a_spectator_who_comes_early_watches_the_lobby_then_the_game(
    host: Host, tmp_path: Path
) -> None:
    """``sagani join --spectate`` while the only table waits for its players: it watches that
    table (it said "no game to watch at this host"), and sees the game start."""
    address = host.endpoint.removeprefix("tcp://")
    with terminals() as consoles:
        ann = Terminal("join", address, "--players", "2", "--name", "ann",
                       env={"XDG_DATA_HOME": str(tmp_path / "ann")})
        consoles.append(ann)
        ann.wait_for("waiting for players (1/2 seated)")
        eve = Terminal("join", address, "--spectate", env={"XDG_DATA_HOME": str(tmp_path / "eve")})
        consoles.append(eve)
        eve.wait_for("watching · waiting for players (1/2 seated)")
        bob = Terminal("join", address, "--name", "bob",
                       env={"XDG_DATA_HOME": str(tmp_path / "bob")})
        consoles.append(bob)
        eve.wait_for("watching · ann's turn")
        for console in consoles:
            console.send("q")
            assert console.close() == 0


def test_a_bare_join_sits_down_under_the_login_name_not_as_player(
    host: Host, tmp_path: Path
) -> None:
    """Friends who type `sagani join HOST`, as the README's LAN party says, were "player",
    "player 2", ... at the table; each is their login name, as in `sagani play`."""
    address = host.endpoint.removeprefix("tcp://")
    with terminals() as consoles:
        for login, options in (("ann", ["--players", "2"]), ("bob", [])):
            env = {"XDG_DATA_HOME": str(tmp_path / login), "LOGNAME": login, "USER": login}
            consoles.append(Terminal("join", address, *options, env=env))
            consoles[-1].wait_for(f"you: {login}")
        table = re.search(r"table ([0-9a-f]{8})", consoles[0].screen.text())
        assert table is not None
        assert names_at(host, table.group(1)) == ["ann", "bob"]


def join_as_robert(
    address: str, home: dict[str, str], *options: str
) -> subprocess.CompletedProcess[str]:
    """`sagani join ADDRESS --name robert` for its words alone (on a terminal, as it needs)."""
    with a_terminal() as keyboard:
        return subprocess.run(
            [*RUN_SAGANI, "join", address, "--name", "robert", *options], stdin=keyboard,
            capture_output=True, text=True, timeout=RUN_TIMEOUT_S, env={**os.environ, **home},
        )


def test_coming_back_under_another_name_is_told_the_seat_not_given_a_new_table(
    host: Host, tmp_path: Path
) -> None:
    """bob's terminal closed mid-game; he comes back with `--name robert`: no seat of that
    name, no free seat, so join made a new Sagani table for robert and left bob's seat away
    (and with the table's id, said only that it had no free seat). It says how to take the
    seat back instead, and a bare join does."""
    address = host.endpoint.removeprefix("tcp://")
    bob_home = {"XDG_DATA_HOME": str(tmp_path / "bob"), "LOGNAME": "bob", "USER": "bob"}
    with terminals() as consoles:
        consoles.append(Terminal("join", address, "--players", "2", "--name", "ann",
                                 env={"XDG_DATA_HOME": str(tmp_path / "ann")}))
        consoles[-1].wait_for("waiting for players (1/2 seated)")
        bob = Terminal("join", address, env=bob_home)
        consoles.append(bob)
        bob.wait_for("you: bob")
        bob.proc.kill()  # the terminal closed
        bob.proc.wait()
        robert = join_as_robert(address, bob_home)
        assert robert.returncode == 2, robert.stderr
        assert robert.stderr.endswith(f"`sagani join {address} --name bob` takes it back "
                                      "(--players N makes a new table)\n"), robert.stderr
        (table,) = host.tables
        # At the table on his screen, by its id: "no free seat for a player at this table".
        robert = join_as_robert(address, bob_home, "--table", table)
        assert robert.returncode == 2, robert.stderr
        assert robert.stderr.endswith(f"`sagani join {address} --name bob` takes it back\n"), \
            robert.stderr
        assert len(host.tables) == 1  # no table made for robert
        back = Terminal("join", address, env=bob_home)
        consoles.append(back)
        back.wait_for("you: bob")


def test_join_players_4_sits_at_a_table_of_four_past_an_open_table_of_two(
    host: Host, tmp_path: Path
) -> None:
    """An open two-seat table is left from earlier, cat's seat at it saved; ann asks for a
    game of four: she was sat at the table of two (and its game started), as if --players were
    not said; and cat, asking for it too, was given her seat at the table of two back."""
    address = host.endpoint.removeprefix("tcp://")
    cat_home = {"XDG_DATA_HOME": str(tmp_path / "cat")}
    with terminals() as consoles:
        consoles.append(Terminal("join", address, "--name", "cat", env=cat_home))
        consoles[-1].wait_for("waiting for players (1/2 seated)")
        consoles[-1].proc.kill()  # cat's terminal closed; her seat is kept
        consoles[-1].proc.wait()
        consoles.append(Terminal("join", address, "--players", "4", "--name", "ann",
                                 env={"XDG_DATA_HOME": str(tmp_path / "ann")}))
        consoles[-1].wait_for("waiting for players (1/4 seated)")
        assert sorted(len(t.holders) for t in host.tables.values()) == [2, 4]
        consoles.append(Terminal("join", address, "--players", "4", "--name", "cat",
                                 env=cat_home))
        consoles[-1].wait_for("waiting for players (2/4 seated)")


def test_a_spectator_watches_the_game_people_play_not_one_everyone_left(
    host: Host, tmp_path: Path
) -> None:
    """Two games run: an older one whose players all went away, and the evening's. `sagani
    join --spectate` watched the first one listed: two away seats that never move."""

    async def left_behind() -> str:
        ann, bob = AsyncClient(host.endpoint), AsyncClient(host.endpoint)
        await ann.connect()
        table = await ann.create({"players": 2})
        await ann.join(table, name="ann")
        await bob.join(table, name="bob")
        ann.close()  # gone without a word: away within a few presence periods
        bob.close()
        return table

    old = asyncio.run(left_behind())
    address = host.endpoint.removeprefix("tcp://")
    with terminals() as consoles:
        for name, options in (("cat", ["--players", "2"]), ("dan", [])):
            consoles.append(Terminal("join", address, "--name", name, *options,
                                     env={"XDG_DATA_HOME": str(tmp_path / name)}))
            consoles[-1].wait_for(f"you: {name}")
        (evening,) = [t for t in host.tables if t != old]

        def everyone_away() -> bool:
            return all(seat["away"] for seat in host.room.seats(host.tables[old]))

        until(everyone_away)
        consoles.append(Terminal("join", address, "--spectate",
                                 env={"XDG_DATA_HOME": str(tmp_path / "eve")}))
        consoles[-1].wait_for(f"table {evening} · watching")
