"""The roles of a pair's hosts as one transition table (sagani_net.standby, after the ZeroMQ
Guide's Binary Star): the table itself, pair by pair, and a standby on real sockets on
127.0.0.1 that moves through it (unheard, passive, lost, active)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from test_net_support import Raw, until
from test_standby import HEARTBEAT_S, active_host, standby_host

from sagani_net.standby import TRANSITIONS, Event, Machine, Role, new_key

#: What each pair does, as the module docstring and Binary Star tell it; None: refused.
EXPECTED: dict[tuple[Role, Event], Role | None] = {
    (Role.ACTIVE, Event.PROBE): Role.STARTING,
    (Role.STARTING, Event.ELECTED): Role.ACTIVE,
    (Role.UNHEARD, Event.HEARD): Role.PASSIVE,
    (Role.PASSIVE, Event.HEARD): Role.PASSIVE,
    (Role.LOST, Event.HEARD): Role.PASSIVE,
    (Role.PASSIVE, Event.SILENT): Role.LOST,
    (Role.LOST, Event.CLIENT): Role.ACTIVE,
    (Role.UNHEARD, Event.STOP): Role.STOPPED,
    (Role.PASSIVE, Event.STOP): Role.STOPPED,
    (Role.LOST, Event.STOP): Role.STOPPED,
    (Role.ACTIVE, Event.STOP): Role.STOPPED,
}


@pytest.mark.parametrize(("state", "event"), list(itertools.product(Role, Event)))
def test_every_state_and_event_is_a_transition_of_the_table_or_refused(
    state: Role, event: Event
) -> None:
    machine = Machine(state)
    after = EXPECTED.get((state, event))
    assert TRANSITIONS.get((state, event)) is after
    assert machine.apply(event) is (after is not None)
    assert machine.state is (after or state)  # a refused event leaves the state as it was


def test_a_client_makes_only_a_standby_that_lost_its_active_host_active() -> None:
    """Refused while the active host is heard, or was never heard (the standby holds nothing
    worth serving): then the host answers ``not_active``."""
    comes_active = {state for state in Role if TRANSITIONS.get((state, Event.CLIENT))}
    assert comes_active == {Role.LOST}
    assert {after for after in TRANSITIONS.values()} >= set(Role) - {Role.UNHEARD}
    assert not any(state is Role.STOPPED for state, _ in TRANSITIONS)  # stopped is the end


def test_a_standby_is_unheard_then_passive_then_lost_then_active(tmp_path: Path) -> None:
    with active_host(tmp_path / "a") as host:
        assert host.link is not None
        key = new_key(tmp_path / "a")
        with standby_host(tmp_path / "b", key, host.link.endpoint) as pair:
            assert pair.role.state in (Role.UNHEARD, Role.PASSIVE)
            until(lambda: pair.role.state is Role.PASSIVE)
            raw = Raw(pair.host.endpoint)
            assert raw("hello")["code"] == "not_active"  # refused: the client event too
            assert pair.role.state is Role.PASSIVE
            host.stop()
            until(lambda: pair.role.state is Role.LOST)
            assert not pair.took_over.is_set()
            assert raw("hello")["type"] == "welcome"  # the client that makes it active
            assert pair.role.state is Role.ACTIVE and pair.took_over.is_set()
            assert pair.host.heartbeat_s == HEARTBEAT_S
            raw.close()
