"""House bots: ``sagani host --bots STRATEGY`` fills the seats kept for bots with bots of its own.

They are ordinary network clients of the host (the same :class:`BotRunner` that ``sagani bot``
and ``sagani play`` use), each on a thread of one process beside the host's (:func:`running`):
a search holds Python's GIL for its whole thinking time, and in the host's process that would
slow every table's socket loop. Their tokens are kept in the data dir, sealed (never raw), so
that after a restart every house bot comes back to its seat. The child learns the host's
address (a join code carries the host's key) on its stdin, not its command line, which any user
of the machine can read.

**The seal.** Each token is sealed with PyNaCl's :class:`~nacl.secret.SecretBox`
(XSalsa20-Poly1305: encrypted and authenticated, a fresh random nonce each time) under a key
kept owner-only beside the file (``house-bots.key``). It keeps the tokens from whoever gets the
tokens file alone (a backup, a bug report); whoever can read the data dir can read the key too,
as they can the database. A key that cannot be read is an error (:class:`HouseBotsError`), never
replaced: a new key would orphan every sealed token, and their seats would stay taken by bots
that can never come back. Files sealed by an older sagani (HMAC-SHA256 in counter mode, no
``box:`` prefix) are read once and sealed again with SecretBox (:func:`_unseal_old`).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import hmac
import json
import logging
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nacl.exceptions
import nacl.utils
from nacl.secret import SecretBox

from sagani_net.bots.runner import BotRunner
from sagani_net.client import Client, HostError, HostTimeout
from sagani_net.private_files import write_private

log = logging.getLogger(__name__)

#: How often the host's tables are looked at for empty bot seats.
POLL_S = 0.5
TOKENS_FILE = "house-bots.json"
#: The key that seals the tokens in TOKENS_FILE (owner-only, like the file).
KEY_FILE = "house-bots.key"
#: What starts a token sealed with SecretBox (older files hold HMAC-CTR text without it).
SEALED_PREFIX = "box:"
#: How long the host waits for its house bots to stop before it kills them.
STOP_WAIT_S = 5.0


class HouseBotsError(ValueError):
    """The house bots' key or tokens file cannot be used: ``code: message`` in one line (the
    host refuses to start; the files are left as they are)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code


class HouseBots:
    """Watches a host's tables and seats a bot in every free seat kept for bots."""

    def __init__(self, address: str, strategy: str, data_dir: Path, **options: Any) -> None:
        self.address = address
        self.strategy = strategy
        self.options = options
        self.path = Path(data_dir) / TOKENS_FILE
        self._stop = threading.Event()
        self._lock = threading.Lock()
        #: Each token sealed once, not again at every save (which made a save cost as much as
        #: every bot seated: each sealed anew).
        self._seals: dict[str, str] = {}
        #: Changes made to ``_seated`` and the last of them on disk, and the lock of the writer:
        #: a bot that joins or leaves waits until the file holds its change, and one write takes
        #: every change made while the one before it was written. Each bot wrote the file in
        #: turn, synced: with a guest's 64 bot seats, another's table waited 3 s for its bot to
        #: sit (0.9 s so).
        self._changes = 0
        self._written = 0
        self._write_lock = threading.Lock()
        self._seated: dict[str, dict[str, str]] = self._load()  # table -> seat -> token
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._watch, name="house-bots", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _load(self) -> dict[str, dict[str, str]]:
        self.key, seated, old = load_tokens(self.path.parent)
        if old:
            self._seated = seated
            self._save()  # sealed again, with SecretBox, at once
            log.info("the house bots' tokens in %s are sealed with SecretBox now", self.path)
        return seated

    def _save(self) -> None:
        write_private(self.path, self._sealed_text())

    def _sealed_text(self) -> str:
        """The tokens file's text for ``_seated`` as it is now (call with ``_lock`` held, or
        before the bots start)."""
        seals = {token: self._seals.get(token) or seal(self.key, token)
                 for seats in self._seated.values() for token in seats.values()}
        self._seals = seals
        return json.dumps({table: {seat: seals[token] for seat, token in seats.items()}
                           for table, seats in self._seated.items()})

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
        ).start()

    def _play(self, table: str, seat: int, token: str | None) -> None:
        # Named as sagani play's bots are, by strategy: "house greedy" was cut to "house gree"
        # in every ranking and side panel (the seat says it is a bot).
        runner = BotRunner(self.address, self.strategy, name=self.strategy, **self.options)
        done = True  # forget the seat unless the bot is only stopping with the host
        try:
            if token is None:
                runner.join(table, seat)
                self._remember(table, seat, runner.token or "")
            else:
                runner.resume(table, token)
            # Seats from 1 on the host's screen, as sagani tables lists them.
            log.info("house bot %s plays seat %d of table %s", self.strategy, seat + 1, table)
            done = runner.play(self._stop).status == "over"
        except (HostError, HostTimeout) as exc:
            if isinstance(exc, HostError) and exc.code == "seat_taken" and token is None:
                # A kept seat whose bot joined between the look and this join (the bot that
                # created the table, taking its own seat): nothing went wrong.
                log.info("house bot for table %s seat %d: another bot took it first", table,
                         seat + 1)
            else:
                log.warning("house bot for table %s seat %d: %s", table, seat + 1, exc)
        finally:
            runner.close()
            if done:
                self._remember(table, seat, None)

    def _remember(self, table: str, seat: int, token: str | None) -> None:
        """Keep (or, with None, forget) a house bot's token, on disk before it returns."""
        with self._lock:
            seats = self._seated.setdefault(table, {})
            if token is None:
                seats.pop(str(seat), None)
            else:
                seats[str(seat)] = token
            if not seats:
                del self._seated[table]
            self._changes += 1
            change = self._changes
        with self._write_lock:
            if self._written >= change:
                return  # written meanwhile, with others' changes
            with self._lock:
                text, upto = self._sealed_text(), self._changes
            write_private(self.path, text)
            self._written = upto


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
                        format="%(asctime)s %(message)s", stream=sys.stderr)
    try:
        bots = HouseBots(address, strategy, Path(data_dir))
    except HouseBotsError as exc:  # changed since the host looked (it checks before it starts)
        log.error("house bots: %s", exc)
        return
    bots.start()
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl+C reaches the whole process group
        sys.stdin.buffer.read()  # until the host closes the pipe, or dies
    bots.stop()


def load_tokens(data_dir: Path) -> tuple[bytes, dict[str, dict[str, str]], bool]:
    """The sealing key, the house bots' tokens (table -> seat -> token) and whether any was
    sealed the old way; raises HouseBotsError for a key or file that cannot be used. The host
    calls it before it starts (the error is then its own), the bots' process again."""
    path = Path(data_dir) / TOKENS_FILE
    try:
        sealed = json.loads(path.read_text())
    except FileNotFoundError:
        sealed = {}
    except (OSError, ValueError) as exc:
        why = getattr(exc, "strerror", None) or exc
        raise HouseBotsError("house_tokens_unreadable", f"cannot read {path} ({why}); fix it, "
                             "or move it away to give up the seats it kept") from None
    if not isinstance(sealed, dict) or not all(isinstance(seats, dict)
                                               for seats in sealed.values()):
        raise HouseBotsError("house_tokens_unreadable", f"{path} is not a house bots' tokens "
                             "file; move it away to give up the seats it kept")
    key = _key(Path(data_dir) / KEY_FILE, sealed)
    tokens: dict[str, dict[str, str]] = {}
    old = False
    for table, seats in sealed.items():
        for seat, text in seats.items():
            try:
                tokens.setdefault(table, {})[seat] = unseal(key, text)
            except ValueError:
                # Changed by someone without the key: that one bot cannot come back.
                log.warning("the house bot token of table %s seat %s in %s does not unseal "
                            "(changed on disk?); its seat is given up", table, seat, path)
            old = old or (isinstance(text, str) and bool(text)
                          and not text.startswith(SEALED_PREFIX))
    return key, {table: seats for table, seats in tokens.items() if seats}, old


def _key(path: Path, sealed: dict[str, Any]) -> bytes:
    """The sealing key in ``path``; made only while nothing is sealed (``sealed`` is what the
    tokens file holds): a new key would orphan every token sealed with the lost one."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        if any(any(seats.values()) for seats in sealed.values()):
            raise HouseBotsError("house_key_unreadable", f"{path} is gone and the tokens beside "
                                 "it cannot be unsealed without it: put it back, or move "
                                 f"{TOKENS_FILE} away to give up the seats it kept") from None
        key = nacl.utils.random(SecretBox.KEY_SIZE)
        write_private(path, key.hex())
        return key
    except OSError as exc:
        raise HouseBotsError("house_key_unreadable", f"cannot read {path} ({exc.strerror}); "
                             "it is never made anew while tokens are sealed with it") from None
    try:
        key = bytes.fromhex(text.strip())
    except ValueError:
        key = b""
    if len(key) != SecretBox.KEY_SIZE:
        raise HouseBotsError("house_key_unreadable", f"{path} does not hold a key "
                             f"({SecretBox.KEY_SIZE * 2} hex digits); put the right one back, or "
                             f"move it and {TOKENS_FILE} away to give up the seats it kept")
    return key


def seal(key: bytes, token: str) -> str:
    """``token`` encrypted and authenticated with ``key`` (SecretBox, a fresh nonce each
    time), as text; "" stays "" (a bot still joining).

    >>> key = bytes(32)
    >>> unseal(key, seal(key, "t0ken")) == "t0ken" != seal(key, "t0ken")
    True
    """
    if not token:
        return ""
    return SEALED_PREFIX + base64.urlsafe_b64encode(SecretBox(key).encrypt(token.encode())).decode()


def unseal(key: bytes, text: str) -> str:
    """The token :func:`seal` sealed; raises ValueError for text that is not one sealed with
    ``key`` (changed, or another key's)."""
    if not isinstance(text, str):
        raise ValueError("not a sealed token")
    if not text:
        return ""
    if not text.startswith(SEALED_PREFIX):
        return _unseal_old(key, text)
    try:
        raw = base64.urlsafe_b64decode(text.removeprefix(SEALED_PREFIX))
        return SecretBox(key).decrypt(raw).decode()
    except (binascii.Error, nacl.exceptions.CryptoError, UnicodeDecodeError) as exc:
        raise ValueError(f"not a token sealed with this key ({exc})") from None


def _unseal_old(key: bytes, text: str) -> str:
    """A token sealed by an older sagani (HMAC-SHA256 counter mode, 16-byte nonce): read once,
    to seal it again with SecretBox; nothing is sealed this way any more."""
    try:
        raw = base64.urlsafe_b64decode(text)
    except binascii.Error as exc:
        raise ValueError(f"not a sealed token ({exc})") from None
    nonce, sealed = raw[:16], raw[16:]
    pad = b"".join(hmac.new(key, nonce + bytes([i]), hashlib.sha256).digest()
                   for i in range((len(sealed) + 31) // 32))
    try:
        return bytes(a ^ b for a, b in zip(sealed, pad, strict=False)).decode()
    except UnicodeDecodeError:
        raise ValueError("not a token sealed with this key") from None


if __name__ == "__main__":
    main()
