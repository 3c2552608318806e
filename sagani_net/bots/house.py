"""House bots: ``sagani host --bots STRATEGY`` fills the seats kept for bots with bots of its own.

They are ordinary network clients of the host (the same :class:`BotRunner` that ``sagani bot``
and ``sagani play`` use), each on a thread of one process beside the host's (:func:`running`):
a search holds Python's GIL for its whole thinking time, and in the host's process that would
slow every table's socket loop. Their tokens are kept in the data dir, so that after a restart
every house bot comes back to its seat.
"""

from __future__ import annotations

import contextlib
import json
import logging
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sagani_net.bots.runner import BotRunner
from sagani_net.client import Client, HostError, HostTimeout

log = logging.getLogger(__name__)

#: How often the host's tables are looked at for empty bot seats.
POLL_S = 0.5
TOKENS_FILE = "house-bots.json"
#: How long the host waits for its house bots to stop before it kills them.
STOP_WAIT_S = 5.0


class HouseBots:
    """Watches a host's tables and seats a bot in every free seat kept for bots."""

    def __init__(self, address: str, strategy: str, data_dir: Path, **options: Any) -> None:
        self.address = address
        self.strategy = strategy
        self.options = options
        self.path = Path(data_dir) / TOKENS_FILE
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._seated: dict[str, dict[str, str]] = self._load()  # table -> seat -> token
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._watch, name="house-bots", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _load(self) -> dict[str, dict[str, str]]:
        try:
            return json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}

    def _save(self) -> None:
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self._seated))
        tmp.replace(self.path)  # atomic: a crash leaves the old file or the new one

    def _watch(self) -> None:
        for table, seats in list(self._seated.items()):
            for seat, token in list(seats.items()):
                if token:
                    self._spawn(table, int(seat), token)
                else:  # the host stopped while this bot was still joining: look again
                    self._remember(table, int(seat), None)
        client = Client(self.address)
        try:
            while not self._stop.wait(POLL_S):
                try:
                    tables = client.tables()
                except (HostError, HostTimeout):
                    continue
                for info in tables:
                    if info["status"] == "over":
                        continue
                    for seat in info["seats"]:
                        if seat["kind"] == "bot" and not seat["taken"]:
                            self._spawn(info["table"], seat["seat"], None)
        finally:
            client.close()

    def _spawn(self, table: str, seat: int, token: str | None) -> None:
        with self._lock:
            seats = self._seated.setdefault(table, {})
            if token is None:
                if str(seat) in seats:
                    return  # one of ours is already taking it
                seats[str(seat)] = ""  # taking it: the next look must not send a second bot
        threading.Thread(
            target=self._play, args=(table, seat, token), name=f"house-{table}-{seat}",
            daemon=True,
        ).start()  # fmt: skip

    def _play(self, table: str, seat: int, token: str | None) -> None:
        runner = BotRunner(self.address, self.strategy, name=f"house {self.strategy}",
                           **self.options)  # fmt: skip
        done = True  # forget the seat unless the bot is only stopping with the host
        try:
            if token is None:
                runner.join(table, seat)
                self._remember(table, seat, runner.token or "")
            else:
                runner.resume(table, token)
            log.info("house bot %s plays seat %d of table %s", self.strategy, seat, table)
            done = runner.play(self._stop).status == "over"
        except (HostError, HostTimeout) as exc:
            log.warning("house bot for table %s seat %d: %s", table, seat, exc)
        finally:
            runner.close()
            if done:
                self._remember(table, seat, None)

    def _remember(self, table: str, seat: int, token: str | None) -> None:
        """Keep (or, with None, forget) a house bot's token, on disk at once."""
        with self._lock:
            seats = self._seated.setdefault(table, {})
            if token is None:
                seats.pop(str(seat), None)
            else:
                seats[str(seat)] = token
            if not seats:
                del self._seated[table]
            self._save()


@contextlib.contextmanager
def running(address: str, strategy: str, data_dir: Path, quiet: bool = False) -> Iterator[None]:
    """House bots in a child process for as long as the block runs.

    The child stops when its stdin closes: when the block ends, and also when the host is
    killed (the kernel closes the pipe), so a host started again never finds the old bots
    still playing beside the new ones for long.
    """
    command = [sys.executable, "-m", "sagani_net.bots.house", address, strategy, str(data_dir)]
    child = subprocess.Popen([*command, *(["--quiet"] if quiet else [])], stdin=subprocess.PIPE)
    try:
        yield
    finally:
        assert child.stdin is not None
        child.stdin.close()
        try:
            child.wait(STOP_WAIT_S)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def main(argv: list[str] | None = None) -> None:
    """The child process of :func:`running`: ``ADDRESS STRATEGY DATA_DIR [--quiet]``."""
    args = sys.argv[1:] if argv is None else argv
    address, strategy, data_dir = args[:3]
    logging.basicConfig(level=logging.WARNING if "--quiet" in args else logging.INFO,
                        format="%(asctime)s %(message)s", stream=sys.stderr)  # fmt: skip
    bots = HouseBots(address, strategy, Path(data_dir))
    bots.start()
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl+C reaches the whole process group
        sys.stdin.buffer.read()  # until the host closes the pipe, or dies
    bots.stop()


if __name__ == "__main__":
    main()
