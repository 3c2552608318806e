"""LAN discovery with zeroconf (DNS-SD): a host advertises itself, a console finds hosts.

Nothing here runs unless a user asked for it on the command line (``sagani host --lan``,
``sagani join --lan``): advertising and browsing send multicast to the LAN. The plain address
always works without it. zeroconf is an optional dependency (``pip install '.[lan]'``).

>>> found_from_properties("t", "192.168.1.5", 47410, {b"pub_port": b"47411", b"v": b"1"})
Found(name='t', address='192.168.1.5', port=47410, pub_port=47411, version=1)
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any

#: The DNS-SD service type of a sagani host.
SERVICE_TYPE = "_sagani._tcp.local."
#: How long ``browse`` listens for answers by default.
BROWSE_S = 2.0
#: How long it keeps listening while no host has answered yet: on a busy LAN or machine the
#: first answer can come after the window, and a join that gives up then finds nothing.
BROWSE_MAX_S = 8.0
#: How long it waits for a host's address once it has heard its name (ms).
RESOLVE_MS = 3000


@dataclass(frozen=True)
class Found:
    """A host seen on the LAN; :attr:`endpoint` is what ``sagani join`` connects to."""

    name: str
    address: str
    port: int
    pub_port: int
    version: int

    @property
    def endpoint(self) -> str:
        return f"tcp://{self.address}:{self.port}"


def found_from_properties(
    name: str, address: str, port: int, properties: dict[bytes, bytes | None]
) -> Found:
    """Read an advertisement's TXT properties (``pub_port``, ``v``)."""

    def number(key: bytes, default: int) -> int:
        raw = properties.get(key)
        try:
            return int(raw.decode()) if raw else default
        except ValueError:
            return default

    return Found(name, address, port, number(b"pub_port", port + 1), number(b"v", 1))


def lan_addresses(bind: str) -> list[str]:
    """The IPv4 addresses to advertise for a host bound to ``bind`` (not loopback)."""
    if bind not in ("0.0.0.0", "*", ""):
        return [bind]
    from zeroconf import get_all_addresses

    return [a for a in get_all_addresses() if not ipaddress.ip_address(a).is_loopback]


class Advert:
    """A running advertisement; :meth:`close` withdraws it (also on ``with`` exit)."""

    def __init__(self, zc: Any, info: Any) -> None:
        self._zc = zc
        self._info = info

    def close(self) -> None:
        if self._zc is not None:
            self._zc.unregister_service(self._info)
            self._zc.close()
            self._zc = None

    def __enter__(self) -> Advert:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def need_zeroconf() -> None:
    """Raise RuntimeError, saying how to install it, when zeroconf (the ``lan`` extra, which
    ``pip install .`` leaves out) cannot be imported."""
    try:
        import zeroconf  # noqa: F401
    except ImportError:
        raise RuntimeError("zeroconf is not installed: pip install zeroconf "
                           "(in the checkout: pip install '.[lan]')") from None


def lan_reach(bind: str) -> list[str]:
    """The LAN addresses a host bound at ``bind`` is advertised on (sends nothing).

    :raises RuntimeError: when zeroconf is not installed or no LAN address is found.
    """
    need_zeroconf()
    if bind not in ("0.0.0.0", "*", "") and ipaddress.ip_address(bind).is_loopback:
        raise RuntimeError(f"a host bound to {bind} is out of the LAN's reach; add --bind 0.0.0.0")
    addresses = lan_addresses(bind)
    if not addresses:
        raise RuntimeError("no LAN address to advertise; bind the host with --bind 0.0.0.0")
    return addresses


def advertise(
    port: int, pub_port: int, *, bind: str = "0.0.0.0", name: str | None = None
) -> Advert:
    """Announce a host on the LAN (sends multicast: call only when the user asked for --lan).

    :raises RuntimeError: when zeroconf is not installed or no LAN address is found.
    """
    from zeroconf import ServiceInfo, Zeroconf

    addresses = lan_reach(bind)
    name = name or f"sagani on {socket.gethostname()}"
    info = ServiceInfo(
        SERVICE_TYPE,
        f"{name}.{SERVICE_TYPE}",
        addresses=[socket.inet_aton(a) for a in addresses],
        port=port,
        properties={"pub_port": str(pub_port), "v": "1"},
        server=f"{socket.gethostname()}.local.",
    )
    zc = Zeroconf()
    zc.register_service(info)
    return Advert(zc, info)


def browse(timeout_s: float = BROWSE_S, max_s: float = BROWSE_MAX_S) -> list[Found]:
    """Listen for hosts on the LAN for ``timeout_s`` (sends multicast queries), and on until
    the first one answers if none has by then, ``max_s`` in all at most.

    :raises RuntimeError: when zeroconf is not installed.
    """
    need_zeroconf()
    from zeroconf import ServiceBrowser, ServiceListener, Zeroconf

    names: list[str] = []
    heard = threading.Event()

    class Listener(ServiceListener):
        def add_service(self, zc: Any, type_: str, name: str) -> None:
            names.append(name)
            heard.set()

        def update_service(self, zc: Any, type_: str, name: str) -> None:
            pass

        def remove_service(self, zc: Any, type_: str, name: str) -> None:
            pass

    zc = Zeroconf()
    try:
        ServiceBrowser(zc, SERVICE_TYPE, Listener())
        time.sleep(timeout_s)  # every host that answers in the window, not just the first
        heard.wait(max(0.0, max_s - timeout_s))
        found = []
        for full in list(dict.fromkeys(names)):
            info = zc.get_service_info(SERVICE_TYPE, full, timeout=RESOLVE_MS)
            if info is None or info.port is None or not info.parsed_addresses():
                continue
            short = full.removesuffix("." + SERVICE_TYPE)
            found.append(
                found_from_properties(short, info.parsed_addresses()[0], info.port, info.properties)
            )
        return found
    finally:
        zc.close()
