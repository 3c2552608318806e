"""Issue 20 point 4: the address of a host that moved (its standby took over, and it came back
as the standby) still works for every command: ``tables``, ``join`` and ``bot`` follow the
standby's ``not_active`` to the active host and say so in one line (PROTOCOL.md section 11).

One pair of hosts in this process for the module (real sockets on 127.0.0.1, real SQLite
files); the real ``sagani`` command in subprocesses talks to it through the standby's address.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_kit import Terminal, sagani
from test_net_support import RUN_SAGANI, Raw, until
from test_standby import active_host, standby_host

from sagani_net.host import Host
from sagani_net.standby import NOT_ACTIVE, new_key


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Host, str]]:
    """The active host, and the standby's address: where the host was before it moved."""
    tmp = tmp_path_factory.mktemp("pair")
    with active_host(tmp / "a") as host:
        assert host.link is not None
        with standby_host(tmp / "b", new_key(tmp / "a"), host.link.endpoint) as standby:
            old = standby.host.endpoint
            probe = Raw(old)
            # The standby names the active host once it has heard from it.
            until(lambda: probe("hello").get("active") == host.endpoint)
            probe.close()
            yield host, old


def shown(endpoint: str) -> str:
    return endpoint.removeprefix("tcp://")


def test_tables_at_the_old_address_lists_the_active_hosts_tables(pair: tuple[Host, str]) -> None:
    host, old = pair
    raw = Raw(host.endpoint)
    table = raw("create", game="sagani", config={"players": 2})["table"]
    raw.close()
    done = sagani("tables", old)
    assert done.returncode == 0, done.stderr
    assert f"{table}  sagani   open" in done.stdout
    assert done.stderr.splitlines() == [
        f"host moved to {shown(host.endpoint)} ({shown(old)} says: {NOT_ACTIVE})"]


def test_bots_given_the_old_address_play_to_the_end_and_its_record_comes_from_there(
    pair: tuple[Host, str],
) -> None:
    host, old = pair
    raw = Raw(host.endpoint)
    table = raw("create", game="sagani", config={"players": 2}, seed=4, bots=[0, 1])["table"]
    raw.close()
    bots = [subprocess.Popen([*RUN_SAGANI, "bot", old, "--table", table, "--strategy", "random",
                              "--seed", str(seat), "--quiet"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
            for seat in range(2)]
    try:
        for bot in bots:
            out, err = bot.communicate(timeout=120)
            assert bot.returncode == 0, err
            assert "game over" in out
            assert f"host moved to {shown(host.endpoint)}" in err
    finally:
        for bot in bots:
            if bot.poll() is None:
                bot.kill()
                bot.wait()
    assert host.tables[table].status == "over"
    exported = sagani("record", "export", table, "--host", old)
    assert exported.returncode == 0, exported.stderr
    assert json.loads(exported.stdout)["seed"] == 4
    assert f"host moved to {shown(host.endpoint)}" in exported.stderr
    raw = Raw(host.endpoint)
    unfinished = raw("create", game="sagani", config={"players": 2})["table"]
    raw.close()
    refused = sagani("record", "export", unfinished, "--host", old)
    assert refused.returncode == 2 and len(refused.stderr.splitlines()) == 2  # moved, refusal
    assert "once the game is over" in refused.stderr


def test_join_at_the_old_address_sits_at_the_active_host_and_says_it_moved(
    pair: tuple[Host, str], tmp_path: Path
) -> None:
    host, old = pair
    home = {"XDG_DATA_HOME": str(tmp_path)}
    person = Terminal("join", old, "--players", "2", "--name", "ann", env=home)
    try:
        person.wait_for(f"host moved to {shown(host.endpoint)}")
        person.wait_for("waiting for players (1/2 seated)")
        found = re.search(r"table ([0-9a-f]{8})", person.screen.text())
        assert found is not None
        table = found.group(1)
        assert [s["name"] for s in host.room.seats(host.tables[table])] == ["ann", None]
        person.send("q")
        assert person.close() == 0
    finally:
        if person.proc.poll() is None:
            person.proc.kill()
    # The seat is kept under the address that serves it, where the next join comes back.
    saved = json.loads((tmp_path / "sagani" / "join.json").read_text())
    assert any(key.startswith(f"{host.endpoint} {table}") for key in saved)
