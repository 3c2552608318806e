"""Conformance over the network, for every registered game and for Hands (tests/toy_game/,
the test game with a secret hand per seat): a whole game played by bots through a real host on
real sockets, and a hidden-information audit of every byte its participants received.

The bots know only the protocol and the seam: each decision is a random legal action of a state
that ``Game.determinize`` sampled from the seat's view and private data (so a determinizer that
disagrees with the host shows as a refused action); the odd seats check that the host's
``legal`` list is the sample's and play from it, so its replies are audited too. Seat 0 joins
as a player and also sends requests that are refused with snapshots; the other seats join as
bots; a spectator watches; an eavesdropper without a seat subscribes to every topic of the PUB
socket.

**The audit** (generic: nothing in it is about one game). The finished game is replayed from
its record, which gives, at every version, the public view and each seat's private data. What
the view *shows* at a version is what it holds and what the views of states determinized from
it (everything hidden sampled afresh) hold too: so a secret a view leaks is not taken for
public. What a participant *knows* at version v is what the views showed up to v, and its own
private data up to v. Every frame it received before the game was over is judged at the
version it carries (or the last one it heard, if it carries none) and must hold none of:

1. another seat's private data, up to that version: the msgpack bytes of its private map, and
   of every list or map of two or more items inside it;
2. the seed: as msgpack, decimal text, or 8 raw bytes either way round;
3. the secret order: every run of RUN consecutive items (ints or strings) of a list in the
   record (not under ``actions``, ``config``, ``result`` or ``names``: Sagani's ``tiles``,
   Hands' ``deck``, rolls), looked for as a run in any list of the frame and as the run's
   msgpack bytes in a row; and every run of RUN distinct items a view shows at any version
   (a tile dealt, a card played), looked for as a run in any list of the frame: what the
   game reveals later must not be heard before;

except what the participant knows by then (found there by the same search, so a public sorted
list or an offer dealt in draw order is no leak). A game with a secret that fits none of 1-3
(a lone hidden value, never in a list) adds it to :class:`Truth`. The audit proves it has teeth
for each game: what the end reveals (Sagani's seed and pile) is found in the closing frames,
and each seat's own frames hold its private data. (This folds in the former
Sagani-only ``test_hidden_info.py``; a view made to leak the next tiles of the pile, or a view
for one seat made to show the next seat's hand, fails it.)
"""

from __future__ import annotations

import contextlib
import functools
import random
import threading
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
import pytest
import zmq
from conftest import TOY
from test_net_support import RACE_CODES, WAIT_S, Background, running_host

import sagani_net.client
from sagani_net.client import Client, HostError
from sagani_net.game import Game
from sagani_net.games import game_names, get_game
from sagani_net.protocol import decode_message, encode

SEED = 0x5A6A_71C3_9E4D_2B17
RUN = 5
EAVESDROPPER = "eavesdropper"
#: Record fields that are no secret order (or are checked otherwise).
NOT_ORDER = ("actions", "config", "result", "names")
#: Determinized samples per version that tell what a view shows from what it leaks.
SAMPLES = 2


# -- what the participants received -----------------------------------------------------------


@pytest.fixture
def captured(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[bytes]]:
    """Every frame the client library decodes, by the name of the thread that received it."""
    frames: dict[str, list[bytes]] = defaultdict(list)
    lock = threading.Lock()

    def recording_decode(frame: bytes) -> dict[str, Any]:
        with lock:
            frames[threading.current_thread().name].append(bytes(frame))
        return decode_message(frame)

    monkeypatch.setattr(sagani_net.client, "decode_message", recording_decode)
    return frames


def bot(client: Client, table: str, seat: int, seed: int) -> None:
    """Join ``seat`` and play random legal actions of determinized samples to the end."""
    game = get_game(client.join(table, seat=seat, role="player" if seat == 0 else "bot",
                                name=f"name{seat}").game)
    rng = random.Random(seed)
    if seat == 0:  # refusals carry snapshots, and other requests: all part of the audit
        client.tables()
        client.static()
        for bad in ({"type": "no such action"}, {}):
            with contextlib.suppress(HostError):
                client.act(bad)
        with contextlib.suppress(HostError):
            client.record(table)
    while client.state.status != "over":
        replica = client.state
        if not client.my_turn:
            client.next_update(WAIT_S)
            continue
        sample = game.determinize(replica.view, replica.private, replica.you, rng)
        assert sample.version == replica.version and sample.current_seat == replica.you
        try:
            actions = [sample.action_data(a) for a in sample.legal_actions()]
            if seat % 2:  # odd seats play from the host's list (and audit its replies)
                listed = client.legal()
                assert sorted(map(encode, listed)) == sorted(map(encode, actions))
                actions = listed
            client.act(rng.choice(actions))
        except HostError as exc:
            if exc.code not in RACE_CODES:
                raise


def watch(client: Client, table: str) -> None:
    client.join(table, role="spectator")
    assert client.wait_for(lambda r: r.status == "over", WAIT_S * 4)
    assert client.state.private is None
    with pytest.raises(HostError, match="not_a_player"):
        client.private()


class Eavesdropper(Background):
    """A bare SUB socket on every topic of the host's PUB, from before the table exists."""

    def __init__(self, pub_endpoint: str) -> None:
        self.frames: list[bytes] = []
        self.stop = threading.Event()
        self.sub = zmq.Context.instance().socket(zmq.SUB)
        self.sub.linger = 0
        self.sub.connect(pub_endpoint)
        self.sub.subscribe(b"")
        super().__init__(self._listen)
        self.name = EAVESDROPPER

    def _listen(self) -> None:
        while not self.stop.is_set():
            if self.sub.poll(100, zmq.POLLIN):
                self.frames.append(self.sub.recv_multipart()[1])
        self.sub.close()


@dataclass
class Played:
    """A finished game: its config, record and what each participant received before the end
    (and after, for the checks of the audit itself)."""

    game: Game
    config: dict[str, Any]
    record: dict[str, Any]
    frames: dict[str, list[bytes]]
    results: dict[str, Any] = field(default_factory=dict)

    @functools.cached_property
    def truth(self) -> Truth:
        """The game replayed (worked out once: the tests of a game share it)."""
        return Truth(self)


def play(name: str, data_dir: Path, captured: dict[str, list[bytes]]) -> Played:
    game = get_game(name)
    with running_host(data_dir, heartbeat_s=0.05) as host:
        eavesdropper = Eavesdropper(host.pub_endpoint)
        eavesdropper.start()
        creator = Client(host.endpoint)
        seats = game.seats(game.parse_config({}))
        clients = [Client(host.endpoint) for _ in range(seats + 1)]
        try:
            table = creator.create({}, game=name, seed=SEED, bots=list(range(1, seats)))
            threads = [Background(bot, clients[seat], table, seat, seat) for seat in range(seats)]
            threads.append(Background(watch, clients[seats], table))
            for n, thread in enumerate(threads):
                thread.name = f"seat {n}" if n < seats else "spectator"  # the capture's key
                thread.start()
            for thread in threads:
                thread.finish(WAIT_S * 4)
            record = creator.record(table)
            results = {t.name: c.state.view.get("result")
                       for t, c in zip(threads, clients, strict=True)}
        finally:
            eavesdropper.stop.set()
            eavesdropper.finish(WAIT_S)
            creator.close()
            for client in clients:
                client.close()
    frames = {who: captured[who] for who in results}
    frames[EAVESDROPPER] = eavesdropper.frames
    config = game.parse_config({})
    return Played(game, config, record, frames, results)


# -- the audit ---------------------------------------------------------------------------------


def item_lists(value: Any) -> Iterator[list[int | str]]:
    """Every list of RUN or more ints and strings (only those) anywhere in ``value``: piles,
    decks, hands, rolls, offers."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            if len(item) >= RUN and all(type(x) in (int, str) for x in item):
                yield item
            stack.extend(item)


def runs_in(value: Any) -> Iterator[tuple[int | str, ...]]:
    for items in item_lists(value):
        yield from (tuple(items[i : i + RUN]) for i in range(len(items) - RUN + 1))


@dataclass(frozen=True)
class Run:
    """RUN items in a row, as a secret: found as a run in a list of a frame, and (``raw``) as
    their msgpack bytes in a row anywhere in it."""

    items: tuple[int | str, ...]
    raw: bool

    @functools.cached_property
    def packed(self) -> bytes:
        return b"".join(msgpack.packb(x) for x in self.items)


Secret = bytes | Run
NEVER = 1 << 62


class Holdings:
    """What one frame (or one participant's knowledge) holds, for the searches of the audit."""

    def __init__(self) -> None:
        self.raw: list[bytes] = []
        self.runs: set[tuple[int | str, ...]] = set()

    def add(self, raw: bytes, value: Any) -> Holdings:
        self.raw.append(raw)
        self.runs.update(runs_in(value))
        return self

    def holds(self, secret: Secret) -> bool:
        if isinstance(secret, Run):
            if secret.items in self.runs:
                return True
            if not secret.raw:
                return False
            secret = secret.packed
        return any(secret in raw for raw in self.raw)


class Public:
    """What every one of several views (the real one and resampled ones) holds."""

    def __init__(self, views: list[Holdings]) -> None:
        self.views = views
        #: The runs every view holds as runs: a run searched as a run alone is held exactly
        #: when it is in here.
        self.runs = set.intersection(*(view.runs for view in views))

    def holds(self, secret: Secret) -> bool:
        return all(view.holds(secret) for view in self.views)


def first(holdings: list[Holdings] | list[Public], secret: Secret) -> int:
    """The first version whose holdings hold ``secret`` (NEVER: none)."""
    return next((v for v, held in enumerate(holdings) if held.holds(secret)), NEVER)


def first_runs(holdings: list[Holdings] | list[Public]) -> dict[tuple[int | str, ...], int]:
    """The first version whose holdings hold each run as a run: :func:`first` of every Run
    searched as a run alone (not ``raw``), in one pass."""
    found: dict[tuple[int | str, ...], int] = {}
    for version, held in enumerate(holdings):
        for run in held.runs:
            found.setdefault(run, version)
    return found


def fragments(private: Any) -> list[bytes]:
    """The msgpack bytes of a private part and of every list or map of 2+ items in it."""
    found, stack = [], [private]
    while stack:
        item = stack.pop()
        if isinstance(item, dict | list):
            if item is private or len(item) >= 2:
                found.append(msgpack.packb(item))
            stack.extend(item.values() if isinstance(item, dict) else item)
    return found


def frame_version(message: dict[str, Any]) -> int | None:
    """The game version a frame speaks of (the largest it names), if it names one."""
    found, stack = [], [message]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if type(item.get("version")) is int:
                found.append(item["version"])
            stack.extend(v for v in item.values() if isinstance(v, dict | list))
        elif isinstance(item, list):
            stack.extend(v for v in item if isinstance(v, dict | list))
    return max(found, default=None)


class Truth:
    """The game replayed from its record; its secrets; for every secret the first version at
    which the views showed it, and at which each seat held it in its own private data."""

    def __init__(self, played: Played) -> None:
        game, record = played.game, played.record
        state = game.new_state(played.config, record["seed"])
        self.seats = game.seats(played.config)
        self.final = len(record["actions"])
        shown: list[Public] = []
        self.privates: list[list[Any]] = []
        rng = random.Random(1)
        future: set[tuple[int | str, ...]] = set()
        for version in range(self.final + 1):
            views = [state.view(None)]
            if version < self.final:  # once the game is over, nothing is hidden any more
                views += [game.determinize(views[0], None, None, rng).view(None)
                          for _ in range(SAMPLES)]
            shown.append(Public([Holdings().add(encode(v), v) for v in views]))
            future.update(runs_in(views[0]))
            self.privates.append([state.private(seat) for seat in range(self.seats)])
            if version < self.final:
                action = {k: v for k, v in record["actions"][version].items() if k != "seat"}
                state.apply(state.parse_action(action))
        self.result = state.result()
        seed = record["seed"]
        self.seed_encodings = [msgpack.packb(seed), str(seed).encode(), seed.to_bytes(8, "big"),
                               seed.to_bytes(8, "little")]
        # The secret order: what the record keeps to replay (a pile, rolls) in full, and what
        # the views show only later (a card dealt, a die rolled), as runs of distinct items in
        # lists (repeats, like a row of zeros, are too common to mean anything).
        kept = {r for key, v in record.items() if key not in NOT_ORDER for r in runs_in(v)}
        self.runs = [Run(items, True) for items in sorted(kept, key=repr)]
        self.runs += [Run(items, False) for items in sorted(future - kept, key=repr)
                      if len(set(items)) == RUN]
        #: Per seat: each fragment of its private data -> the first version it held it.
        self.fragments: list[dict[bytes, int]] = [{} for _ in range(self.seats)]
        for version, privates in enumerate(self.privates):
            for seat, private in enumerate(privates):
                for fragment in fragments(private) if private is not None else ():
                    self.fragments[seat].setdefault(fragment, version)
        everything: list[Secret] = [*self.seed_encodings, *self.runs]
        everything += [f for by_seat in self.fragments for f in by_seat]
        self.public_since = since(shown, everything)
        own = [[Holdings().add(msgpack.packb(p), p) if p is not None else Holdings()
                for p in (privates[seat] for privates in self.privates)]
               for seat in range(self.seats)]
        self.own_since = [since(own[seat], everything) for seat in range(self.seats)]

    def hidden(self, seat: int | None, version: int) -> list[Secret]:
        """What ``seat`` (None: no seat) must not receive at ``version``: the seed, the order
        and the other seats' private data so far, less what it knows by then."""
        candidates: list[Secret] = [*self.seed_encodings, *self.runs]
        candidates += [f for other, by_seat in enumerate(self.fragments) if other != seat
                       for f, since in by_seat.items() if since <= version]
        return [s for s in candidates if self.public_since[s] > version
                and (seat is None or self.own_since[seat][s] > version)]


def since(holdings: list[Holdings] | list[Public], secrets: list[Secret]) -> dict[Secret, int]:
    """:func:`first` of each secret; the runs searched as runs alone by :func:`first_runs`."""
    runs = first_runs(holdings)
    return {s: runs.get(s.items, NEVER) if isinstance(s, Run) and not s.raw
            else first(holdings, s) for s in secrets}


def leaks(truth: Truth, who: str, frames: list[bytes]) -> tuple[int, list[Any]]:
    """How many of ``who``'s frames were audited (those before the end), and what leaked."""
    seat = int(who.split()[1]) if who.startswith("seat ") else None
    audited, found, version = 0, [], 0
    hidden: dict[int, tuple[set[tuple[int | str, ...]], list[Secret]]] = {}
    for raw in frames:
        message = decode_message(raw)
        named = frame_version(message)
        version = version if named is None else named
        if version >= truth.final:
            break  # the game is over: the seed and the order are public now
        if version not in hidden:
            secrets = truth.hidden(seat, version)
            # Runs are found in a set at once; bytes are searched for one by one.
            hidden[version] = ({s.items for s in secrets if isinstance(s, Run)},
                               [s for s in secrets if not isinstance(s, Run) or s.raw])
        runs, searched = hidden[version]
        frame = Holdings().add(raw, message)
        found += [(who, version, run) for run in frame.runs & runs]
        found += [(who, version, s) for s in searched if frame.holds(s)]
        audited += 1
    return audited, found


#: Each game as played, once per test process: the tests below all read the same game (their
#: xdist group keeps a game's tests on one worker), which is the costliest part of each.
PLAYED: dict[str, Played] = {}


@pytest.fixture(params=[pytest.param(name, marks=pytest.mark.xdist_group(f"played-{name}"))
                        for name in [*game_names(), TOY]])
def played(
    request: pytest.FixtureRequest, toy_registered: str,
    tmp_path_factory: pytest.TempPathFactory, captured: dict[str, list[bytes]],
) -> Played:
    """One whole game of each game, played by bots through a real host (module docstring)."""
    name = request.param
    if name not in PLAYED:
        PLAYED[name] = play(name, tmp_path_factory.mktemp(f"played-{name}"), captured)
    return PLAYED[name]


def test_bots_play_a_whole_game_through_a_real_host(played: Played) -> None:
    truth = played.truth
    assert truth.final > 0
    assert played.record["game"] == played.game.name
    assert played.game.from_record(played.record).result() == truth.result
    assert all(result == truth.result.to_data() for result in played.results.values())
    assert played.record["names"] == [f"name{seat}" for seat in range(truth.seats)]


def test_nobody_receives_a_secret_before_the_game_is_over(played: Played) -> None:
    truth = played.truth
    for who, frames in played.frames.items():
        audited, found = leaks(truth, who, frames)
        assert not found, found[:5]
        # Something to audit: about a frame per action for everyone, more for the seats.
        assert audited >= truth.final // 2, (who, audited, truth.final)
    # The audit has teeth for this game: secrets the end reveals are found in the closing
    # frames, and each seat's own frames hold its private data (which no other seat's do).
    revealed = [s for s, since in truth.public_since.items() if since == truth.final]
    closing = Holdings()
    for raw in played.frames["spectator"]:
        if frame_version(decode_message(raw)) == truth.final:
            closing.add(raw, decode_message(raw))
    assert all(closing.holds(s) for s in revealed)
    private_seats = 0
    for seat in range(truth.seats):
        own = set(truth.fragments[seat])
        if own:
            received = Holdings()
            for raw in played.frames[f"seat {seat}"]:
                received.add(raw, None)
            assert any(received.holds(f) for f in own), seat
            private_seats += 1
    assert revealed or private_seats, "nothing secret in this game to audit"
