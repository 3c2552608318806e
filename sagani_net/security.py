"""Secure mode: the host's CURVE key pair, join codes, and the socket options that use them.

A host started with ``--secure`` keeps one CURVE key pair in its data dir (``curve.key``, mode
0600) and sets both its sockets up as CURVE servers with it. Clients need the host's public key,
which travels in a *join code* together with the request address::

    sagani://192.168.1.20:47410?key=Xb3...   (key: the 32-byte public key, base64url)

Anything that takes a host address (:class:`sagani_net.client.AsyncClient`, so ``sagani join``
and ``sagani bot``) accepts a join code too; a plain ``tcp://`` address or ``HOST:PORT`` means an
unencrypted host. See SECURITY.md for what each mode protects against.

>>> code = join_code("127.0.0.1", 47410, b"k" * 32)
>>> parse_address(code).endpoint
'tcp://127.0.0.1:47410'
"""

from __future__ import annotations

import base64
import binascii
import json
import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import zmq
from zmq.utils import z85

from sagani_net.private_files import write_private

SCHEME = "sagani"
KEY_FILE = "curve.key"
KEY_BYTES = 32


class SecurityError(ValueError):
    """A join code or key file that cannot be used; the message says why."""


@dataclass(frozen=True)
class KeyPair:
    """A CURVE key pair, both halves as the Z85 text libzmq takes."""

    public: bytes
    secret: bytes


@dataclass(frozen=True)
class Address:
    """Where a host listens (a ZeroMQ endpoint) and, in secure mode, its public key (Z85)."""

    endpoint: str
    server_key: bytes | None = None


def curve_available() -> bool:
    return bool(zmq.has("curve"))


def _need_curve() -> None:
    if not curve_available():
        raise SecurityError("this libzmq was built without CURVE; secure mode is unavailable")


def host_keys(data_dir: Path | str) -> KeyPair:
    """The host's key pair from ``data_dir``, made (and saved, owner-only) on first use."""
    _need_curve()
    path = Path(data_dir) / KEY_FILE
    if path.exists():
        try:
            saved = json.loads(path.read_text())
            keys = KeyPair(saved["public"].encode(), saved["secret"].encode())
            if zmq.curve_public(keys.secret) != keys.public:
                raise ValueError("public key does not match the secret key")
        except (ValueError, KeyError, TypeError, AttributeError, zmq.ZMQError) as exc:
            raise SecurityError(
                f"{path} is not a usable key file ({exc}); move it away to make a new key "
                "pair (clients then need the new join code)"
            ) from None
        return keys
    keys = KeyPair(*zmq.curve_keypair())
    save_host_keys(data_dir, keys)
    return keys


def save_host_keys(data_dir: Path | str, keys: KeyPair) -> None:
    """Keep ``keys`` as the host key pair of ``data_dir`` (a standby keeps its active host's,
    to serve the same join code once active)."""
    text = json.dumps({"public": keys.public.decode(), "secret": keys.secret.decode()})
    write_private(Path(data_dir) / KEY_FILE, text)


def server_setup(keys: KeyPair) -> Callable[[zmq.Socket[Any]], None]:
    """A socket hook for :class:`sagani_net.host.Host` (``secure=``): CURVE server sockets."""
    _need_curve()

    def setup(sock: zmq.Socket[Any]) -> None:
        sock.curve_secretkey = keys.secret
        sock.curve_publickey = keys.public
        sock.curve_server = True

    return setup


def client_setup(sock: zmq.Socket[Any], server_key: bytes | None) -> None:
    """Make ``sock`` a CURVE client of the host with ``server_key`` (None: plain, no-op).

    Each socket gets a fresh key pair: the host authenticates itself, not its clients (seats
    are bound by tokens; see SECURITY.md).
    """
    if server_key is None:
        return
    _need_curve()
    public, secret = zmq.curve_keypair()
    sock.curve_secretkey = secret
    sock.curve_publickey = public
    sock.curve_serverkey = server_key


def join_code(host: str, port: int, public_key: bytes) -> str:
    """The code a player types to reach a secure host: address plus the host's public key.

    ``public_key`` is Z85 text (40 bytes) or the raw 32 bytes.
    """
    raw = _raw_key(public_key)
    key = base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
    return f"{SCHEME}://{host}:{port}?key={key}"


def host_join_code(endpoint: str, keys: KeyPair) -> str:
    """The join code of a host bound at ``endpoint`` (``tcp://ADDR:PORT``).

    A host bound to every interface (0.0.0.0) is named by this machine's host name; give
    players an address they can reach if that name does not resolve on the LAN.
    """
    return join_code(*public_name(endpoint), keys.public)


def public_name(endpoint: str) -> tuple[str, int]:
    """The host and port others reach a socket bound at ``endpoint`` by: a socket bound to
    every interface (0.0.0.0) by this machine's host name."""
    address, port = endpoint.removeprefix("tcp://").rsplit(":", 1)
    if address in ("0.0.0.0", "*", "[::]", "::"):
        address = socket.gethostname()
    return address.strip("[]"), int(port)


def parse_join_code(code: str) -> Address:
    """The endpoint and host key in a join code; raises SecurityError if it is not one."""
    parts = urlsplit(code.strip())
    if parts.scheme != SCHEME:
        raise SecurityError(f"a join code starts with {SCHEME}://, not {code[:12]!r}")
    try:
        port = parts.port
    except ValueError:
        port = None
    if not parts.hostname or port is None:
        raise SecurityError("a join code names the host and port: sagani://HOST:PORT?key=...")
    keys = parse_qs(parts.query).get("key", [])
    if len(keys) != 1:
        raise SecurityError("a join code carries the host's key: ...?key=...")
    try:
        raw = base64.urlsafe_b64decode(keys[0] + "=" * (-len(keys[0]) % 4))
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != KEY_BYTES:
        raise SecurityError("the key in this join code is damaged (check for a missing part)")
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return Address(f"tcp://{host}:{port}", z85.encode(raw))


def parse_address(address: str) -> Address:
    """A join code, a ``tcp://`` endpoint or ``HOST:PORT``, as an :class:`Address`.

    A join code that a front end wrapped as an endpoint (``tcp://sagani://...``) is still read
    as a join code.
    """
    code = address.strip().removeprefix("tcp://")
    if code.startswith(f"{SCHEME}:"):
        return parse_join_code(code)
    return Address(address if "://" in address else f"tcp://{address}")


def _raw_key(key: bytes) -> bytes:
    if len(key) == KEY_BYTES:
        return key
    if len(key) == 40:
        return z85.decode(key)
    raise SecurityError(f"a CURVE public key is 32 bytes or 40 Z85 characters, not {len(key)}")
