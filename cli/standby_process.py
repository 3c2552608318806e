"""A standby host beside a console (``sagani join --standby``), as a process of its own.

Apart from :mod:`sagani_net.cli.host_cmd`, which imports the whole host side (the standby, the
house bots, zeroconf), so that the console's commands start without them.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from sagani_net.cli.args import UsageError
from sagani_net.client import AsyncClient, HostError, HostTimeout
from sagani_net.private_files import private_dir

if TYPE_CHECKING:
    from sagani_net import standby

#: How often a console looks whether the standby beside it still runs.
WATCH_S = 1.0


class StandbyProcess:
    """A standby host in a process of its own beside a console (``sagani join --standby``).

    Its own session: a Ctrl-C at the console does not reach it, for once the standby has taken
    over it is the party's host, and it must outlive the console that started it."""

    def __init__(self, code: standby.StandbyCode, data_dir: Path) -> None:
        private_dir(data_dir)
        argv = [sys.executable, "-m", "sagani_net.cli.main", "host", "--standby", "-", "--data-dir",
                str(data_dir), "--port", "0", "--quiet", "--with-parent"]
        self.log_path = log_path = data_dir / "standby.log"
        with open(log_path, "a") as log:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=log, text=True, start_new_session=True)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(code.text() + "\n")  # the secret stays out of the process list
        self.proc.stdin.close()
        self.endpoint = ""
        for line in self.proc.stdout:
            if line.startswith("sagani host: requests "):
                self.endpoint = line.split()[3]
            # Following; or serving, when it held more than a host started with it (elect).
            elif line.startswith(("sagani host: standby of ", "sagani host: standby code ")):
                return
        self.proc.wait()
        lines = log_path.read_text().strip().splitlines() or ["no reason given"]
        raise UsageError(f"the standby did not start: {lines[-1].removeprefix('sagani: ')}")

    @property
    def pid(self) -> int:
        return self.proc.pid

    async def ended(self) -> str:
        """Wait until the process has ended, however it did; how it did, in words."""
        while (status := self.proc.poll()) is None:
            await asyncio.sleep(WATCH_S)
        return f"killed by signal {-status}" if status < 0 else f"exit status {status}"

    async def active(self) -> bool:
        """It has taken over: it serves the tables now."""
        if self.proc.poll() is not None:
            return False
        client = AsyncClient(self.endpoint, timeout_s=1.0, retries=0)
        try:
            await client.connect()
            return True
        except (HostError, HostTimeout):  # not_active: the host it follows is alive
            return False
        finally:
            client.close()

    def stop(self) -> None:
        end_process(self.proc)


def end_process(proc: subprocess.Popen[str], wait_s: float = 10.0) -> None:
    """Stop a host process as SIGTERM asks it to (it closes its store), or kill it if it does
    not within ``wait_s``."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(wait_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
