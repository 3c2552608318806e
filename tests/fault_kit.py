"""Tools for the fault, fuzz and security tests: a TCP proxy that can cut a link or listen in.

Everything listens and connects on 127.0.0.1 only.
"""

from __future__ import annotations

import select
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

CHUNK = 65536
TICK_S = 0.02


class Proxy:
    """Forwards TCP connections from a free 127.0.0.1 port to ``127.0.0.1:target_port``.

    ``cut()`` black-holes the link like a dropped Wi-Fi: connections stay open but no byte
    moves either way (they wait in the kernel) until ``restore()``. ``heard`` keeps every byte
    that went through, both ways, for tests that look for plaintext on the wire.
    """

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.heard = bytearray()
        self._open = threading.Event()
        self._open.set()
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def endpoint(self) -> str:
        return f"tcp://127.0.0.1:{self.port}"

    def cut(self) -> None:
        self._open.clear()

    def restore(self) -> None:
        self._open.set()

    def close(self) -> None:
        self._closed.set()
        self.listener.close()
        with self._lock:
            for sock in self._sockets:
                sock.close()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self.listener.accept()
                upstream = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                return
            with self._lock:
                self._sockets += [client, upstream]
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        peers = {a: b, b: a}
        try:
            while not self._closed.is_set():
                if not self._open.wait(TICK_S):
                    continue
                ready, _, _ = select.select(list(peers), [], [], TICK_S)
                for sock in ready:
                    data = sock.recv(CHUNK)
                    if not data:
                        return
                    with self._lock:
                        self.heard += data
                    peers[sock].sendall(data)
        except OSError:
            pass
        finally:
            a.close()
            b.close()


@contextmanager
def proxied(target_port: int) -> Iterator[Proxy]:
    proxy = Proxy(target_port)
    try:
        yield proxy
    finally:
        proxy.close()


def port_number(endpoint: str) -> int:
    return int(endpoint.rsplit(":", 1)[1])
