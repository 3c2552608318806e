"""House bots: ``sagani host --bots STRATEGY`` fills the seats kept for bots with bots of its own.

They are ordinary network clients of the host (the same :class:`BotRunner` that ``sagani bot``
and ``sagani play`` use), each on a thread of one process beside the host's (:func:`running`):
a search holds Python's GIL for its whole thinking time, and in the host's process that would
slow every table's socket loop. Their tokens are kept in the data dir, sealed (never raw), so
that after a restart every house bot comes back to its seat. The child learns the host's
address (a join code carries the host's key) on its stdin, not its command line, which any user
of the machine can read.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import json
import logging
import os
import secrets
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
#: The key that seals the tokens in TOKENS_FILE (owner-only, like the file).
KEY_FILE = "house-bots.key"
NONCE_BYTES = 16
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
        self.key = _key(self.path.with_name(KEY_FILE))
        try:
            sealed = json.loads(self.path.read_text())
            return {table: {seat: unseal(self.key, token) for seat, token in seats.items()}
                    for table, seats in sealed.items()}  # fmt: skip
        except (OSError, ValueError, AttributeError):
            return {}

    def _save(self) -> None:
        sealed = {table: {seat: seal(self.key, token) for seat, token in seats.items()}
                  for table, seats in self._seated.items()}  # fmt: skip
        _write_private(self.path, json.dumps(sealed))

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
    command = [sys.executable, "-m", "sagani_net.bots.house", strategy, str(data_dir)]
    child = subprocess.Popen([*command, *(["--quiet"] if quiet else [])], stdin=subprocess.PIPE)
    assert child.stdin is not None
    child.stdin.write(address.encode() + b"\n")
    child.stdin.flush()
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
    """The child process of :func:`running`: ``STRATEGY DATA_DIR [--quiet]``, the host's
    address as the first line of stdin."""
    args = sys.argv[1:] if argv is None else argv
    strategy, data_dir = args[:2]
    address = sys.stdin.buffer.readline().decode().strip()
    logging.basicConfig(level=logging.WARNING if "--quiet" in args else logging.INFO,
                        format="%(asctime)s %(message)s", stream=sys.stderr)  # fmt: skip
    bots = HouseBots(address, strategy, Path(data_dir))
    bots.start()
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl+C reaches the whole process group
        sys.stdin.buffer.read()  # until the host closes the pipe, or dies
    bots.stop()


def seal(key: bytes, token: str) -> str:
    """``token`` encrypted with ``key`` (a fresh nonce each time), as text.

    >>> key = bytes(32)
    >>> unseal(key, seal(key, "t0ken")) == "t0ken" != seal(key, "t0ken")
    True
    """
    nonce = secrets.token_bytes(NONCE_BYTES)
    plain = token.encode()
    return base64.urlsafe_b64encode(nonce + _xor(plain, _pad(key, nonce, len(plain)))).decode()


def unseal(key: bytes, text: str) -> str:
    """The token :func:`seal` sealed; "" stays "" (a bot still joining)."""
    if not text:
        return ""
    raw = base64.urlsafe_b64decode(text)
    nonce, sealed = raw[:NONCE_BYTES], raw[NONCE_BYTES:]
    return _xor(sealed, _pad(key, nonce, len(sealed))).decode()


def _pad(key: bytes, nonce: bytes, size: int) -> bytes:
    # HMAC-SHA256 in counter mode: a key stream no one without the key can compute.
    blocks = (size + 31) // 32
    return b"".join(hmac.new(key, nonce + bytes([i]), hashlib.sha256).digest()
                    for i in range(blocks))[:size]  # fmt: skip


def _xor(data: bytes, pad: bytes) -> bytes:
    return bytes(a ^ b for a, b in zip(data, pad, strict=True))


def _key(path: Path) -> bytes:
    """The sealing key in ``path``, made on first use."""
    try:
        return bytes.fromhex(path.read_text())
    except (OSError, ValueError):
        key = secrets.token_bytes(32)
        _write_private(path, key.hex())
        return key


def _write_private(path: Path, text: str) -> None:
    """Write ``text`` owner-only, whole, then rename: a crash leaves the old file or the new."""
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text)
    os.replace(tmp, path)


if __name__ == "__main__":
    main()
