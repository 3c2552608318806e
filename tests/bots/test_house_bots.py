"""``sagani host --bots STRATEGY``: the host's own bots play the seats kept for bots, and come
back to them after the host is killed and started again."""

from __future__ import annotations

import json
import logging
import stat
import threading
from pathlib import Path

import pytest
from test_net_support import WAIT_S, Raw, Slow, port_of, running_host, start_host_process, until

from sagani_net.bots import house
from sagani_net.bots.house import TOKENS_FILE
from sagani_net.bots.runner import BotRunner
from sagani_net.client import Client


def house_processes(data_dir: Path) -> list[int]:
    """Pids of the house-bot processes serving ``data_dir`` (read from /proc)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            words = cmdline.read_bytes().split(b"\0")
        except OSError:  # gone while we looked
            continue
        if b"sagani_net.bots.house" in words and str(data_dir).encode() in words:
            found.append(int(cmdline.parent.name))
    return found


def wait_gone(data_dir: Path) -> None:
    until(lambda: not house_processes(data_dir))  # else the house bots outlived their host


def test_house_bots_play_the_kept_seat_and_come_back_after_a_restart(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="sagani_net.bots.runner")
    options = ("--heartbeat-s", "0.2", "--bots", "greedy")
    proc, endpoint, pub_endpoint = start_host_process(tmp_path, "--port", "0", *options)
    ports = ("--port", port_of(endpoint), "--pub-port", port_of(pub_endpoint))
    creator = Client(endpoint)
    table = creator.create({"players": 2}, seed=7, bots=[1])
    assert creator.join(table).you == 0  # a player takes the seat not kept for bots
    token = creator.session.token
    creator.close()
    me = BotRunner(endpoint, Slow(), seed=1, client_options={"timeout_s": 0.3, "retries": 1},
                   reconnect_s=30.0)
    me.resume(table, token)
    watcher = Client(endpoint, timeout_s=0.3, retries=60)
    finals = []
    try:
        watcher.join(table, role="spectator")
        thread = threading.Thread(target=lambda: finals.append(me.play()))
        thread.start()
        # The game only moves if the house bot plays seat 1.
        assert watcher.wait_for(lambda r: r.version >= 20, WAIT_S)
        # Named as sagani play's bots are: "house greedy" was cut in rankings and panels.
        assert watcher.state.seats[1]["name"] == "greedy"
        assert table in json.loads((tmp_path / TOKENS_FILE).read_text())
        assert len(house_processes(tmp_path)) == 1  # the bots think beside the host, not in it
        proc.kill()
        proc.wait()
        wait_gone(tmp_path)  # a killed host takes its house bots with it
        killed_at = watcher.state.version
        # Down until the player's bot has noticed (it gives up on the old connection).
        until(lambda: any("is silent; reconnecting" in r.getMessage() for r in caplog.records))
        proc, _, _ = start_host_process(tmp_path, *ports, *options)
        thread.join(90)
        assert not thread.is_alive() and finals[0].status == "over"
        record = watcher.record(table)
        after = [a["seat"] for a in record["actions"][killed_at + 2 :]]
        assert 1 in after, "the house bot played on after the restart"
        until(lambda: table not in json.loads((tmp_path / TOKENS_FILE).read_text()))
    finally:
        me.close()
        watcher.close()
        proc.terminate()
        proc.wait()
    wait_gone(tmp_path)


def test_house_bots_keep_no_raw_token_on_disk_and_no_secret_in_a_command_line(
    tmp_path: Path,
) -> None:
    """Issue 10: ``ps`` showed the join code with its key; house-bots.json held raw tokens."""
    proc, endpoint, _ = start_host_process(tmp_path, "--port", "0", "--secure", "--bots",
                                           "random")
    try:
        assert proc.stdout is not None
        code = proc.stdout.readline().split("join code ")[1].strip()
        key = code.split("key=")[1]
        watcher = Client(code)
        try:
            table = watcher.create({"players": 2}, bots=[0, 1])
            watcher.join(table, role="spectator")
            assert watcher.wait_for(lambda r: r.version >= 2, WAIT_S)  # the house bots play
            path = tmp_path / TOKENS_FILE
            # A bot saves its token just after its join's reply: the other may play first.
            sealed = until(lambda: (s := json.loads(path.read_text()).get(table)) and all(
                s.values()) and s)
            assert stat.S_IMODE(path.stat().st_mode) == 0o600
            house_key = bytes.fromhex((tmp_path / house.KEY_FILE).read_text())
            for seat, text in sealed.items():
                token = house.unseal(house_key, text)
                assert token and token not in path.read_text()
                # What is sealed is the seat's real token: the host takes it.
                assert watcher.request("sync", table=table, token=token)["you"] == int(seat)
        finally:
            watcher.close()
        children = house_processes(tmp_path)
        assert children
        for pid in [proc.pid, *children]:
            assert key.encode() not in Path(f"/proc/{pid}/cmdline").read_bytes()
    finally:
        proc.terminate()
        proc.wait()
    wait_gone(tmp_path)


def test_a_host_with_house_bots_plays_at_most_64_bot_seats_for_one_address(
    tmp_path: Path,
) -> None:
    """The house bots think for whoever keeps seats for bots: one guest's 150 tables of five
    bot seats made another's table wait 41 s for its bot to sit. Seat 0 is left to a player
    who never comes, so that no table ends and frees its seats while the test counts."""
    proc, endpoint, _ = start_host_process(tmp_path, "--port", "0", "--bots", "random")
    guest = Raw(endpoint)
    try:
        made = [guest("create", game="sugi", config={"players": 5}, bots=[1, 2, 3, 4])
                for _ in range(17)]
        assert [m["type"] for m in made[:16]] == ["created"] * 16
        assert made[16]["code"] == "too_many_tables"
        assert "64 seats for bots" in made[16]["message"]
    finally:
        guest.close()
        proc.terminate()
        proc.wait()
    wait_gone(tmp_path)


def test_bots_seated_together_share_the_writes_of_the_tokens_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each bot that sat wrote and synced the whole file in turn, sealing every token anew:
    with a guest's 64 bot seats, another table's bot waited 3 s to sit."""
    writes: list[str] = []
    seals: list[str] = []
    real_write, real_seal = house.write_private, house.seal

    def write(path: Path, text: str) -> None:
        writes.append(text)
        real_write(path, text)

    def counted_seal(key: bytes, token: str) -> str:
        seals.append(token)
        return real_seal(key, token)

    monkeypatch.setattr(house, "write_private", write)
    monkeypatch.setattr(house, "seal", counted_seal)
    bots = house.HouseBots("tcp://127.0.0.1:1", "random", tmp_path)
    seats = [(f"t{n}", seat) for n in range(16) for seat in range(4)]
    start = threading.Barrier(8)

    def sit(mine: list[tuple[str, int]]) -> None:
        start.wait()
        for table, seat in mine:
            bots._remember(table, seat, f"token-{table}-{seat}")

    threads = [threading.Thread(target=sit, args=(seats[k::8],)) for k in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(writes) < len(seats)
    assert sorted(seals) == sorted(f"token-{t}-{s}" for t, s in seats)  # each sealed once
    # Whoever returned had its token on disk: the last write holds every one.
    key = bytes.fromhex((tmp_path / house.KEY_FILE).read_text())
    on_disk = json.loads((tmp_path / TOKENS_FILE).read_text())
    assert {(t, int(s)) for t, held in on_disk.items() for s in held} == set(seats)
    assert all(house.unseal(key, text) == f"token-{t}-{s}"
               for t, held in on_disk.items() for s, text in held.items())


def test_a_house_bot_beaten_to_its_seat_by_another_bot_is_no_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """`sagani bot --create` keeps every seat for bots and takes one: a house bot that saw
    the seat free before it sat put 'house bot for table ... seat 1: seat_taken: seat 0 is
    taken; leave seat out for the first free one' among the host's warnings (--quiet too)."""
    with running_host(tmp_path) as host:
        raw = Raw(host.endpoint)
        table = raw("create", game="sagani", config={"players": 2}, bots=[0, 1])["table"]
        raw("join", table=table, role="bot", seat=0, name="b1")
        raw.close()
        with caplog.at_level(logging.INFO, logger=house.log.name):
            house.HouseBots(host.endpoint, "random", tmp_path)._play(table, 0, None)
    said = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == house.log.name]
    assert said == [(logging.INFO, f"house bot for table {table} seat 1: another bot took it "
                                   "first")], said
