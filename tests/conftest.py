"""Fixtures shared by the network tests: a real host on 127.0.0.1, and a raw request socket."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from test_net_support import Raw, running_host

from sagani_net.host import Host


@pytest.fixture
def host(tmp_path: Path) -> Iterator[Host]:
    with running_host(tmp_path, heartbeat_s=0.2) as host:
        yield host


@pytest.fixture
def raw(host: Host) -> Iterator[Raw]:
    raw = Raw(host.endpoint)
    yield raw
    raw.close()
