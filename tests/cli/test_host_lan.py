"""``sagani host --lan`` and ``sagani join --lan``: a host is advertised with zeroconf only where
the LAN can reach it, and a console finds it.

Multicast is sent only inside a network namespace the test makes itself (a veth pair on a
documentation subnet, nothing else in it); where namespaces cannot be made, that test skips.
"""

import contextlib
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_kit import a_terminal
from test_net_support import ROOT, RUN_SAGANI, until

from sagani_net.cli.args import PROBE_ENV, UsageError
from sagani_net.cli.play_cmd import chosen
from sagani_net.standby import PEER_FILE

#: TEST-NET-2 (RFC 5737): never a real LAN.
HOST_IP, PEER_IP = "198.51.100.1", "198.51.100.2"


def test_host_lan_on_loopback_is_refused_with_a_reason(tmp_path):
    """Refused before the host starts: it used to bind, make its data dir and print its
    addresses and standby code as if it served, then stop."""
    data_dir = tmp_path / "host"
    done = subprocess.run(
        [*RUN_SAGANI, "host", "--lan", "--port", "0",
         "--data-dir", str(data_dir)],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("sagani host: --lan: a host bound to 127.0.0.1 is out of the LAN's "
                           "reach; add --bind 0.0.0.0\n")
    assert not data_dir.exists()


#: ``sagani`` in a Python where zeroconf cannot be imported, as after a plain ``pip install .``
#: (zeroconf is the ``lan`` extra): no multicast can go out.
WITHOUT_ZEROCONF = [sys.executable, "-c", "import sys; sys.modules['zeroconf'] = None; "
                    "from sagani_net.cli.main import main; sys.exit(main())"]


@pytest.mark.parametrize("command", [["join", "--lan"], ["host", "--lan", "--port", "0"]])
def test_lan_without_zeroconf_is_one_line_saying_how_to_install_it(tmp_path, command):
    """``sagani join --lan`` was a traceback, and ``sagani host --lan`` said "--lan" twice;
    both named a package that is not on PyPI ('sagani-net[lan]')."""
    done = subprocess.run([*WITHOUT_ZEROCONF, *command, *(["--data-dir", str(tmp_path)]
                                                         if command[0] == "host" else [])],
                          capture_output=True, text=True, timeout=60, cwd=ROOT,
                          env={**os.environ, "XDG_DATA_HOME": str(tmp_path / "user")})
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (f"sagani {command[0]}: --lan: zeroconf is not installed: pip install "
                           "zeroconf (in the checkout: pip install '.[lan]')\n")


@contextlib.contextmanager
def private_lan() -> Iterator[list[str]]:
    """A network namespace of its own with two linked interfaces; yields the command prefix
    that runs a program inside it."""
    if not all(shutil.which(tool) for tool in ("unshare", "nsenter", "ip")):
        pytest.skip("needs unshare, nsenter and ip")
    holder = subprocess.Popen(["unshare", "--net", "sleep", "600"], stderr=subprocess.PIPE)
    try:
        # Popen returns before unshare has made the namespace: until then /proc/PID/ns/net is
        # still ours, and the setup would change this machine's own network.
        ours, theirs = Path("/proc/self/ns/net"), Path(f"/proc/{holder.pid}/ns/net")
        until(lambda: theirs.readlink() != ours.readlink() or holder.poll() is not None)
        if holder.poll() is not None:
            pytest.skip(f"cannot make a network namespace here: {holder.stderr.read()}")
        inside = ["nsenter", f"--net={theirs}"]
        setup = [["ip", "link", "set", "lo", "up"],
                 ["ip", "link", "add", "v0", "type", "veth", "peer", "name", "v1"],
                 ["ip", "addr", "add", f"{HOST_IP}/24", "dev", "v0"],
                 ["ip", "addr", "add", f"{PEER_IP}/24", "dev", "v1"],
                 ["ip", "link", "set", "v0", "up"],
                 ["ip", "link", "set", "v1", "up"]]
        for command in setup:
            done = subprocess.run([*inside, *command], capture_output=True, text=True)
            if done.returncode != 0:
                pytest.skip(f"cannot make a network namespace here: {done.stderr.strip()}")
        yield inside
    finally:
        holder.kill()
        holder.wait()


def test_join_lan_finds_a_host_advertised_on_the_lan(tmp_path):
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "user")}  # join keeps its seats there
    log = tmp_path / "host.log"
    with private_lan() as inside, log.open("w") as log_file:
        host = subprocess.Popen(
            [*inside, *RUN_SAGANI, "host", "--lan", "--bind", HOST_IP,
             "--port", "0", "--data-dir", str(tmp_path / "host")],
            stdout=subprocess.PIPE, stderr=log_file, text=True, cwd=ROOT, env=env,
        )
        try:
            assert host.stdout is not None
            found = re.search(r"requests (\S+)", host.stdout.readline())
            assert found and found[1].startswith(f"tcp://{HOST_IP}:")
            # After the standby code's lines (sagani host prints it when it serves).
            assert any("advertised on the LAN" in line for line in host.stdout)
            with a_terminal() as keyboard:
                done = subprocess.run(
                    [*inside, *RUN_SAGANI, "join", "--lan", "--spectate"], stdin=keyboard,
                    capture_output=True, text=True, timeout=60, cwd=ROOT, env=env,
                )
        finally:
            host.terminate()
            host.wait()
    assert re.search(rf"1\. .* at {re.escape(found[1])}$", done.stdout, re.MULTILINE), done.stdout
    # It reached the host it found: there is just no game to watch there yet.
    assert "no game to watch at this host" in done.stderr, log.read_text()


#: Browses with no window of its own: it finds a host only by listening on until one answers.
BROWSE_UNTIL_HEARD = """
import sys
from sagani_net.discovery import browse
print("browsing", flush=True)
print(*(f.endpoint for f in browse(timeout_s=0.0, max_s=60.0)))
"""


def test_browsing_listens_on_until_a_host_answers_after_its_window(tmp_path):
    """A host that answers only after the browse window (it starts later, here; on a busy LAN
    it answers late) is still found: browsing waits for a first answer."""
    with private_lan() as inside, (tmp_path / "host.log").open("w") as log_file:
        browser = subprocess.Popen([*inside, sys.executable, "-c", BROWSE_UNTIL_HEARD],
                                   stdout=subprocess.PIPE, text=True, cwd=ROOT)
        host = None
        try:
            assert browser.stdout is not None
            assert browser.stdout.readline() == "browsing\n"
            host = subprocess.Popen(
                [*inside, *RUN_SAGANI, "host", "--lan", "--bind", HOST_IP,
                 "--port", "0", "--data-dir", str(tmp_path / "host")],
                stdout=subprocess.PIPE, stderr=log_file, text=True, cwd=ROOT,
            )
            assert host.stdout is not None
            found = re.search(r"requests (\S+)", host.stdout.readline())
            assert found
            heard, _ = browser.communicate(timeout=90)
        finally:
            browser.kill()
            if host is not None:
                host.terminate()
                host.wait()
    assert heard.split() == [found[1]]


def test_a_standby_is_advertised_on_the_lan_once_it_took_over(tmp_path):
    """While it follows, only the active host is found; once the standby serves, new players
    looking with ``sagani join --lan`` find it."""
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "user")}
    host_cmd = [*RUN_SAGANI, "host", "--lan", "--port", "0",
                "--heartbeat-s", "0.2"]
    with private_lan() as inside, (tmp_path / "a.log").open("w") as a_log, \
            (tmp_path / "b.log").open("w") as b_log:
        active = subprocess.Popen(
            [*inside, *host_cmd, "--bind", HOST_IP, "--data-dir", str(tmp_path / "a")],
            stdout=subprocess.PIPE, stderr=a_log, text=True, cwd=ROOT, env=env,
        )
        standby = subprocess.Popen(
            [*inside, *host_cmd, "--bind", PEER_IP, "--standby", "-", "--data-dir",
             str(tmp_path / "b")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=b_log, text=True, cwd=ROOT,
            env=env,
        )
        try:
            code = next(line.split()[-1] for line in active.stdout
                        if line.startswith("sagani host: standby code "))
            standby.stdin.write(code + "\n")
            standby.stdin.close()
            endpoint = re.search(r"requests (\S+)", standby.stdout.readline())[1]
            assert standby.stdout.readline().startswith("sagani host: standby of ")
            # It follows (the active host says so in its log) before the active host goes, and
            # heard its answer (it notes whom it follows): a standby that never heard its active
            # host does not count it lost, and the kill could come between the two.
            until(lambda: any(said in (tmp_path / "a.log").read_text()
                              for said in ("follows from entry", "gets a snapshot")))
            until(lambda: (tmp_path / "b" / PEER_FILE).exists())
            active.kill()
            active.wait()

            def player_came() -> bool:
                """A player of the old host comes (a client is what makes a standby take over),
                and comes again until the standby has counted the active host lost."""
                # A short probe: until the standby serves, a try is a wait for nothing.
                came = subprocess.run([*inside, *RUN_SAGANI, "tables", endpoint],
                                      capture_output=True, text=True, timeout=60, cwd=ROOT,
                                      env={**env, PROBE_ENV: "0.5"})
                return came.returncode == 0

            until(player_came)
            with a_terminal() as keyboard:
                done = subprocess.run(
                    [*inside, *RUN_SAGANI, "join", "--lan", "--spectate"], stdin=keyboard,
                    capture_output=True, text=True, timeout=60, cwd=ROOT, env=env,
                )
        finally:
            for proc in (active, standby):
                proc.terminate()
                proc.wait()
    found = re.search(rf"1\. .* at {re.escape(endpoint)}$", done.stdout, re.MULTILINE)
    assert found, (done.stdout, (tmp_path / "b.log").read_text())


def test_a_host_is_chosen_by_its_number_and_a_wrong_answer_is_asked_again(capsys):
    """`sagani join --lan` with two hosts found: "x", "0" or "3" at 'join which?' ended the
    command in a traceback (or took the last host for "0"); Enter takes the first."""
    answers = iter(["x", "0", "3", " 2 "])
    assert chosen(2, lambda _: next(answers)) == 1
    assert capsys.readouterr().out.count("the number of a host, 1 to 2") == 3
    assert chosen(2, lambda _: "") == 0
    assert chosen(1, lambda _: pytest.fail("asked with one host found")) == 0

    def closed(_: str) -> str:
        raise EOFError

    with pytest.raises(UsageError, match="no host chosen"):
        chosen(3, closed)
