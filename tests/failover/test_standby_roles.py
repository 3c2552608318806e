"""The roles of a pair's hosts as one transition table (sagani_net.standby, after the ZeroMQ
Guide's Binary Star): the table, rule by rule, and a standby on real sockets on
127.0.0.1 that moves through it (unheard, passive, lost, active)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from test_net_support import Raw, until
from test_standby import PATIENT_HEARTBEAT_S, active_host, standby_host

from sagani_net.standby import (
    NOT_ACTIVE,
    NOT_HEARD,
    TRANSITIONS,
    Event,
    Machine,
    Role,
    new_key,
)


def moves(event: Event) -> dict[Role, Role]:
    """Where ``event`` takes each state that takes it at all (the rest refuse it)."""
    return {state: after for (state, on), after in TRANSITIONS.items() if on is event}


# The rules of Binary Star as the module docstring tells them, one test each: the table read by
# event, not copied (a copy would check the table against itself).


def test_a_host_that_starts_elects_and_then_serves() -> None:
    assert moves(Event.PROBE) == {Role.ACTIVE: Role.STARTING}
    assert moves(Event.ELECTED) == {Role.STARTING: Role.ACTIVE}


def test_hearing_the_active_host_makes_any_standby_passive() -> None:
    assert moves(Event.HEARD) == {state: Role.PASSIVE
                                  for state in (Role.UNHEARD, Role.PASSIVE, Role.LOST)}


def test_only_a_passive_standby_loses_its_active_host_to_silence() -> None:
    """One never heard has nothing to lose: it stays unheard, and never takes over."""
    assert moves(Event.SILENT) == {Role.PASSIVE: Role.LOST}


def test_any_host_but_an_electing_one_can_be_stopped_and_stopped_is_the_end() -> None:
    stoppable = set(Role) - {Role.STARTING, Role.STOPPED}
    assert moves(Event.STOP) == {state: Role.STOPPED for state in stoppable}
    assert not any(state is Role.STOPPED for state, _ in TRANSITIONS)


@pytest.mark.parametrize(("state", "event"), list(itertools.product(Role, Event)))
def test_the_machine_moves_by_the_table_and_an_event_it_refuses_changes_nothing(
    state: Role, event: Event
) -> None:
    machine = Machine(state)
    after = TRANSITIONS.get((state, event))
    assert machine.apply(event) is (after is not None)
    assert machine.state is (after or state)


def test_a_client_makes_only_a_standby_that_lost_its_active_host_active() -> None:
    """Refused while the active host is heard, or was never heard (the standby holds nothing
    worth serving): then the host answers ``not_active``."""
    assert moves(Event.CLIENT) == {Role.LOST: Role.ACTIVE}


def test_a_standby_is_unheard_then_passive_then_lost_then_active(tmp_path: Path) -> None:
    # At the patient pace (the standby takes its active host's): at 0.1 s a heartbeat, a
    # loaded machine held the standby's thread past its own patience in a full suite, and it
    # rightly refused the client (it may have been lost) instead of taking over.
    with active_host(tmp_path / "a", heartbeat_s=PATIENT_HEARTBEAT_S) as host:
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
            assert pair.host.heartbeat_s == PATIENT_HEARTBEAT_S
            raw.close()


def test_a_standby_that_never_heard_its_active_host_says_so_when_it_refuses(
        tmp_path: Path) -> None:
    """Its active host may be down or its code wrong: "the active host is alive" would be a
    claim it cannot make. Once it hears the active host, the refusal says it is alive."""
    with active_host(tmp_path / "a") as host:
        assert host.link is not None
        key = new_key(tmp_path / "a")
        with standby_host(tmp_path / "b", key, "tcp://127.0.0.1:1") as lonely:
            raw = Raw(lonely.host.endpoint)
            refused = raw("hello")
            assert (refused["code"], refused["message"]) == ("not_active", NOT_HEARD)
            assert lonely.role.state is Role.UNHEARD
            raw.close()
        with standby_host(tmp_path / "c", key, host.link.endpoint) as pair:
            until(lambda: pair.role.state is Role.PASSIVE)
            raw = Raw(pair.host.endpoint)
            assert raw("hello")["message"] == NOT_ACTIVE
            raw.close()
