"""A pair of ``sagani host`` processes on 127.0.0.1 and bots in processes of their own, for
killing the active host (kill -9) in the middle of games: used by tests/failover/ and
bench/failover.py (which reports take-over times)."""

from __future__ import annotations

import os
import random
import signal
import socket
import sqlite3
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from test_net_support import RUN_SAGANI, read_store, until

from sagani_net.cli.standby_process import end_process
from sagani_net.client import Client
from sagani_net.games import get_game
from sagani_net.security import host_keys, join_code

ROOT = Path(__file__).resolve().parent.parent
#: Bound on every wait for something the processes do by themselves.
WAIT_S = 60.0


def free_ports(count: int) -> list[int]:
    """Ports free on 127.0.0.1 just now, below the system's ephemeral range: every bind to port
    0 (the other tests, running beside) draws from that range, so none takes one of these
    between this probe and a host's bind, or while a killed host is down."""
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    rng = random.SystemRandom()
    ports: list[int] = []
    while len(ports) < count:
        port = rng.randrange(10_000, low)
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
        if port not in ports:
            ports.append(port)
    return ports


def _read(data_dir: Path, sql: str, *params: Any) -> int:
    """One number from a host's store, read beside the host; -1 if there is no store yet."""
    try:
        return int(read_store(data_dir, sql, *params)[0][0])
    except sqlite3.OperationalError:  # no store, or its tables not made yet
        return -1


def cursor(data_dir: Path) -> int:
    """How many writes a host's store holds (its cursor)."""
    return _read(data_dir, "SELECT cursor FROM journal_head")


def stored_version(data_dir: Path, table: str) -> int:
    """The version of ``table`` after the last action a host's store holds."""
    return _read(data_dir, "SELECT coalesce(max(version) + 1, 0) FROM actions WHERE table_id = ?",
                 table)


class PortTaken(RuntimeError):
    """A port :func:`free_ports` found free was taken before the host bound it (by another
    test's probe that drew the same one, running beside)."""


@dataclass
class HostProcess:
    """One ``sagani host`` of the pair: its data dir and its three ports, kept across restarts
    (clients come back to the same address)."""

    name: str
    data_dir: Path
    ports: list[int]
    heartbeat_s: float
    #: Secure mode: the pair's CURVE public key (both serve the same key pair).
    server_key: bytes | None = None
    proc: subprocess.Popen[str] | None = None
    #: The standby code it printed when it last started as the active host.
    code: str = ""
    #: What it said it follows when it last started as a standby.
    following: str = ""
    #: More options of its command, when it is not started with --standby (e.g. --bots).
    args: tuple[str, ...] = ()

    @property
    def endpoint(self) -> str:
        return f"tcp://127.0.0.1:{self.ports[0]}"

    @property
    def address(self) -> str:
        """What a client is given to reach it: its join code in secure mode."""
        if self.server_key is None:
            return self.endpoint
        return join_code("127.0.0.1", self.ports[0], self.server_key)

    def start(self, standby_of: HostProcess | None = None) -> None:
        # --client-seeds: the tests' games are dealt by the seeds they choose.
        argv = [*RUN_SAGANI, "host", "--quiet", "--client-seeds", "--data-dir",
                str(self.data_dir), "--port", str(self.ports[0]), "--pub-port",
                str(self.ports[1]), "--link-port", str(self.ports[2]), "--heartbeat-s",
                str(self.heartbeat_s)]
        if standby_of is not None:
            argv += ["--standby", "-"]  # the code on stdin, as `sagani join --standby` gives it
        else:
            argv += self.args
            if self.server_key is not None:
                argv += ["--secure"]  # (a standby is secure by its active host's code)
        # Warnings (takeovers, standbys left behind) go to NAME.log beside the data dir.
        log_path = self.data_dir.parent / f"{self.name}.log"
        before = log_path.stat().st_size if log_path.exists() else 0
        with open(log_path, "a") as log:
            self.proc = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=log, text=True)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.code = ""
        self.proc.stdin.write(f"{standby_of.code if standby_of else ''}\n")
        self.proc.stdin.close()
        for line in self.proc.stdout:  # the host prints its addresses once it listens
            if line.startswith("sagani host: standby of "):
                self.following = line.removeprefix("sagani host: standby of ").split(";")[0]
                return
            if line.startswith("sagani host: standby code "):
                self.code = line.split()[-1]
                return
        code = self.proc.wait()
        with open(log_path, "rb") as log:
            log.seek(before)
            said = log.read().decode(errors="replace").strip()
        if "Address already in use" in said:
            raise PortTaken(said)
        raise RuntimeError(f"host {self.name} did not start (exit {code}): {said[-500:]}")

    def kill(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None:
            end_process(self.proc)
            self.proc = None


@dataclass
class Pair:
    """The active host and its standby; :meth:`fail_over` kills the active one."""

    active: HostProcess
    standby: HostProcess
    #: Seconds from each kill -9 to the first move a watcher saw after it.
    takeovers_s: list[float] = field(default_factory=list)
    #: The name of each host killed, in order.
    killed: list[str] = field(default_factory=list)

    @classmethod
    def start(cls, tmp: Path, heartbeat_s: float, secure: bool = False,
              active_args: tuple[str, ...] = ()) -> Pair:
        """Host A active, B its standby; ``secure``: A's key pair made beforehand, to know it;
        ``active_args``: more options of A's command (kept when it is started again)."""
        key = host_keys(tmp / "a").public if secure else None
        for tries in range(3, 0, -1):
            ports = free_ports(6)
            pair = cls(HostProcess("A", tmp / "a", ports[:3], heartbeat_s, key,
                                   args=active_args),
                       HostProcess("B", tmp / "b", ports[3:], heartbeat_s, key))
            try:
                pair.active.start()
                pair.standby.start(standby_of=pair.active)
                pair.wait_in_sync()
                return pair
            except PortTaken:  # a probe is a guess: another draw (a suite's run saw one)
                pair.stop()
                if tries == 1:
                    raise
            except BaseException:
                pair.stop()  # no host outlives a test that failed
                raise
        raise AssertionError("not reached")

    def wait_in_sync(self) -> None:
        """Until the standby follows and has every entry of the active host."""
        def caught_up() -> bool:
            return cursor(self.standby.data_dir) == cursor(self.active.data_dir) and self._named()

        until(caught_up, WAIT_S, said=lambda: (
            f"the standby {self.standby.name} is at entry {cursor(self.standby.data_dir)} of "
            f"{cursor(self.active.data_dir)}, named {self._named()}"))

    def _named(self) -> bool:
        client = Client(self.active.address, timeout_s=1.0, retries=0)
        try:
            return client.connect().get("standby") == self.standby.endpoint
        except Exception:  # not serving yet
            return False
        finally:
            client.close()

    def fail_over(self) -> HostProcess:
        """kill -9 the active host; the standby is the active one from now on. Returns the
        killed host (restart it with :meth:`rejoin`)."""
        killed = self.active
        killed.kill()
        self.killed.append(killed.name)
        self.active, self.standby = self.standby, killed
        return killed

    def rejoin(self) -> None:
        """Restart the killed host as a plain host: it finds that its former standby took over
        and comes back as that one's standby by itself."""
        self.standby.start()

    def stop(self) -> None:
        for host in (self.active, self.standby):
            host.stop()


def start_bots(address: str, table: str, seats: int, seed: int) -> list[subprocess.Popen[str]]:
    """One ``sagani bot`` process per seat (random strategy: the game, not the bots, is tested)."""
    return [
        subprocess.Popen([*RUN_SAGANI, "bot", address, "--table", table,
                          "--strategy", "random", "--seed", str(seed + seat), "--quiet"],
                         cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
        for seat in range(seats)
    ]


def kill_all(procs: list[subprocess.Popen[str]]) -> None:
    """Kill whichever of ``procs`` still run (a test that failed half-way leaves no orphans)."""
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def moves_of(bot: subprocess.Popen[str]) -> int:
    """The accepted moves a finished bot process reports."""
    return finished(bot)[0]


def finished(bot: subprocess.Popen[str]) -> tuple[int, str]:
    """The accepted moves a finished bot process reports, and what it said on stderr."""
    out, err = bot.communicate(timeout=WAIT_S)
    assert bot.returncode == 0, err
    return int(out.rsplit("; ", 1)[1].split(" moves")[0]), err


def play_with_kills(pair: Pair, kills: int, rng: random.Random, seed: int) -> dict[str, Any]:
    """One 4-player Sagani game played by bot processes, the active host killed ``kills`` times
    at random moments (the killed host rejoins as the standby each time). Returns the record,
    the moves the bots say were accepted, what each bot said on stderr, and a replay of the
    record from its seed."""
    watcher = Client(pair.active.address)
    table = watcher.create({"players": 4}, seed=seed, bots=[0, 1, 2, 3])
    replica = watcher.join(table, role="spectator")
    bots = start_bots(pair.active.address, table, 4, seed)
    try:
        for _ in range(kills):
            target = replica.version + rng.randint(1, 12)
            while replica.version < target and replica.status != "over":
                watcher.next_update(WAIT_S)
            if replica.status == "over":
                break
            pair.wait_in_sync()  # a standby still copying would lose what it has not got
            killed_s = time.monotonic()
            killed = pair.fail_over()
            # Play goes on: a move made after the last one the killed host had stored.
            last = stored_version(killed.data_dir, table)
            give_up_s = killed_s + WAIT_S
            while replica.version <= last and replica.status != "over":
                if time.monotonic() > give_up_s:
                    raise TimeoutError("play did not go on after the kill")
                watcher.next_update(WAIT_S)
            if replica.version > last:
                pair.takeovers_s.append(time.monotonic() - killed_s)
            else:  # the killed host's last move ended the game: no bot comes to the standby
                watcher.connect()  # a client does (Binary Star: no client, no take-over)
            pair.rejoin()
        ended = [finished(bot) for bot in bots]
    finally:
        kill_all(bots)
    record = watcher.record(table)
    watcher.close()
    replayed = get_game("sagani").from_record(record)
    return {"record": record, "moves": sum(moves for moves, _ in ended),
            "said": [said for _, said in ended], "replayed": replayed}
