"""A bot at a network table: an ordinary client of the protocol that asks a policy for moves.

The runner joins (or creates) a table of any game through :class:`sagani_net.client.Client`,
follows the table's updates, and whenever it is its seat's turn rebuilds a state from its own
view and private data (:meth:`sagani_net.game.Game.determinize`: every secret is sampled, never
known), asks the policy, checks the answer against that state and acts
(:func:`sagani_net.bots.base.decide`). If the host goes away it keeps its token and comes back
with it (:meth:`Client.resume`) once the host is up again.

Deadlines: ``move_deadline_s`` is the time a move may take from the moment the bot sees its
turn to the moment its action is sent. The search's thinking time is capped below it with
:func:`think_cap_s` to spare, as is any policy's that has a ``think_s`` attribute (one's own:
:class:`sagani_net.bots.base.Policy`), and an answer that the local rules refuse is replaced
by a legal one, so a bot never sends an illegal action, and a house bot never runs over. The
deadline is the command line's (``--deadline``) or, when it gives none, the table's own
``deadline_s`` from the snapshot (the host plays a default move for a bot seat past it, and
the log says so); with both, the shorter.

>>> runner = BotRunner("tcp://127.0.0.1:47410", "greedy")   # doctest: +SKIP
>>> runner.join(runner.create({"players": 2}))              # doctest: +SKIP
>>> runner.play()                                           # doctest: +SKIP
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Awaitable, Callable, Container
from typing import Any

from sagani_net.bots import STRATEGIES, Policy, make_policy, seat_name
from sagani_net.bots.base import decide
from sagani_net.bots.tournament import GameResult, GameSpec, result_of, seat_rngs
from sagani_net.client import AsyncClient, Client, HostError, HostTimeout, Replica
from sagani_net.game import Data, RuleError
from sagani_net.games import DEFAULT_GAME, get_game
from sagani_net.protocol.errors import logged

log = logging.getLogger("sagani_net.bots.runner")

#: Time kept back from a move deadline for rebuilding the state and sending the action: a
#: third of the deadline, at least this (on a loaded machine the steps around the search slow
#: with it, so a fixed spare was too little for a longer deadline).
DEADLINE_MARGIN_S = 0.25


def think_cap_s(move_deadline_s: float) -> float:
    """The longest a search may think inside ``move_deadline_s``.

    >>> think_cap_s(0.5), think_cap_s(3.0)
    (0.25, 2.0)
    """
    return max(0.05, move_deadline_s - max(DEADLINE_MARGIN_S, move_deadline_s / 3))
#: How long a bot keeps trying to get back to its seat after the host went away.
RECONNECT_S = 60.0
RECONNECT_PAUSE_S = 0.5
#: The shortest wait for a reply to one try, near the end of --reconnect's time.
MIN_TRY_S = 0.2
#: Longest wait for one update before the loop looks again (the client resyncs on silence).
UPDATE_WAIT_S = 1.0
#: Refusals after which the state is simply fetched again and the turn retried.
RESYNC_CODES = ("stale_version", "not_your_turn", "not_started")


def policy_for(
    strategy: str,
    game: str = DEFAULT_GAME,
    *,
    think_s: float | None = 1.0,
    iterations: int | None = None,
    move_deadline_s: float | None = None,
) -> Policy:
    """A policy by name for ``game``, its thinking time kept inside ``move_deadline_s`` if
    there is one."""
    if strategy != "mcts":
        return make_policy(strategy, game=game)
    if move_deadline_s is not None:
        cap_s = think_cap_s(move_deadline_s)
        think_s = cap_s if think_s is None else min(think_s, cap_s)
    return make_policy("mcts", game=game, think_s=think_s, iterations=iterations)


#: Policies kept between moves by :func:`think`, by (game, strategy, think time, seat): a
#: search plans a whole move (a Sagani take with its placement) and plays it out on the next
#: decisions.
_KEPT: dict[tuple[str, str, float | None, int], Policy] = {}


def think(
    strategy: str,
    view: Data,
    seed: int,
    think_s: float | None = 1.0,
    game: str = DEFAULT_GAME,
    seat: int | None = None,
    private: Data | None = None,
) -> Data:
    """The move of a ``strategy`` bot for ``seat``, the seat to move, from its ``view`` and
    ``private`` data, as plain data, from plain data and a seed: what a worker process is given
    (``sagani play`` thinks there, apart from its console). Without ``seat``, the view's
    ``turn`` (every game's view has it) names it."""
    if seat is None:
        seat = view["turn"]
    key = (game, strategy, think_s, seat)
    if key not in _KEPT:
        _KEPT[key] = policy_for(strategy, game, think_s=think_s)
    rng = random.Random(seed)
    return decide(_KEPT[key], get_game(game), seat, view, private, rng,
                  random.Random(rng.getrandbits(64)))


async def play_seat(
    client: AsyncClient,
    move: Callable[[Replica], Awaitable[object]],
    stop: threading.Event | None = None,
) -> Replica:
    """The bot loop (every bot's, :class:`BotRunner`'s and ``sagani play``'s): until the game
    is over (or ``stop`` is set), ``move`` at each turn of the client's seat, else wait for
    the next update. HostTimeout is the caller's to handle (reconnect, or wait and go on)."""
    while stop is None or not stop.is_set():
        replica = client.state
        if replica.status == "over":
            return replica
        if replica.my_turn:
            await move(replica)
        else:
            await client.next_update(UPDATE_WAIT_S)
    return client.state


async def send_move(
    client: AsyncClient,
    replica: Replica,
    choose: Callable[[Replica], Awaitable[Data]],
    name: str,
    looks_again: Container[str] | None = RESYNC_CODES,
) -> bool:
    """One turn: the action ``choose`` makes of ``replica`` goes to the host; True if it took
    it. A view and private data that do not fit together (RuleError) are fetched afresh; a
    refusal whose code is in ``looks_again`` (None: any) is logged, its reply having brought a
    fresh snapshot; any other refusal is raised."""
    try:
        action = await choose(replica)
    except RuleError as exc:  # a view and private data that do not fit: take both afresh
        log.warning("%s: %s; looking again", name, exc)
        await client.sync()
        return False
    try:
        await client.act(action)
    except HostError as exc:
        if looks_again is None or exc.code in looks_again:
            log.info("%s: %s; looking again", name,
                     logged(exc.code, exc.message, exc.reply.get("rule")))
            return False
        raise
    return True


class BotRunner:
    """One bot seat over the network; see the module docstring. ``strategy`` is a name
    (:func:`sagani_net.bots.make_policy`'s: a house strategy, or one's own as ``FILE.py:NAME``)
    made into a policy for the table's game once seated, or a policy object to play as it is.

    >>> runner = BotRunner("tcp://127.0.0.1:47410", MyPolicy(game="sugi"))  # doctest: +SKIP
    >>> runner.join("3f2a91c0")                                             # doctest: +SKIP
    >>> runner.play()                                                       # doctest: +SKIP
    """

    def __init__(
        self,
        address: str,
        strategy: str | Policy,
        *,
        seed: int | str | None = None,
        name: str = "",
        think_s: float | None = 1.0,
        iterations: int | None = None,
        move_deadline_s: float | None = None,
        reconnect_s: float = RECONNECT_S,
        client_options: dict[str, Any] | None = None,
    ) -> None:
        self.address = address
        self.strategy = strategy
        self.think_s = think_s
        self.iterations = iterations
        #: The deadline asked for by the caller; the table's may shorten it (see :meth:`join`).
        self.move_deadline_s = move_deadline_s
        #: A named strategy becomes a policy once the seat, and so the game, is known.
        self.policy: Policy | None = None if isinstance(strategy, str) else strategy
        called = seat_name(strategy) if isinstance(strategy, str) else strategy.name
        self.name = name or f"{called}-bot"
        self.game = DEFAULT_GAME
        seed = random.SystemRandom().randrange(2**63) if seed is None else seed
        self.rng, self.view_rng = seat_rngs(seed)
        self.reconnect_s = reconnect_s
        self.client_options = client_options or {}
        self.client = Client(address, **self.client_options)
        self.table: str | None = None
        self.token: str | None = None
        self.moves = 0
        #: Turns of the seat that the host played (the default move) because the policy's
        #: decision came past the table's deadline.
        self.late_moves = 0
        self.reconnects = 0
        #: When the host was last heard, as the last reconnect began (None: none began).
        self.heard_s: float | None = None
        self._moves_before = 0  # host moves of the clients this runner closed
        self._told_move: str | None = None  # the host's last move said (:meth:`_tell_move`)
        #: Slowest decision so far, from seeing the turn to sending the action.
        self.slowest_move_s = 0.0

    # -- getting a seat ---------------------------------------------------------------------

    def create(
        self,
        config: dict[str, Any],
        *,
        game: str = DEFAULT_GAME,
        seed: int | None = None,
        bots: list[int] | None = None,
        deadline_s: float | None = None,
    ) -> str:
        """Create a table of ``game`` (its bot seats default to all seats); returns its id.

        :raises RuleError: for an unknown game or a config it refuses.
        """
        rules = get_game(game)
        seats = rules.seats(rules.parse_config(config))
        return self.client.create(config, game=game, seed=seed, deadline_s=deadline_s,
                                  bots=list(range(seats)) if bots is None else bots)

    def join(self, table: str, seat: int | None = None) -> int:
        """Take a seat as a bot; returns the seat.

        :raises ValueError: when the strategy makes no policy for the table's game (one of
            another game's, or one's own that refuses it); the seat is given up again, not
            left to a bot that will never play it.
        """
        replica = self.client.join(table, role="bot", seat=seat, name=self.name)
        self.table, self.token = table, self.client.session.token
        try:
            return self._seated(replica)
        except ValueError:
            self.client.leave()
            self.table = self.token = None
            raise

    def resume(self, table: str, token: str) -> int:
        """Come back to a seat this bot held, with its token; returns the seat."""
        replica = self.client.resume(table, token)
        self.table, self.token = table, token
        return self._seated(replica)

    def _seated(self, replica: Replica) -> int:
        """Get ready to play the table's game, thinking inside the table's deadline too (the
        host would play for us past it); returns the seat."""
        self.game = replica.game
        table_deadline_s = replica.deadline_s
        tables = table_deadline_s is not None and (
            self.move_deadline_s is None or table_deadline_s < self.move_deadline_s
        )
        if tables:
            self.move_deadline_s = table_deadline_s
        if isinstance(self.strategy, str):
            self.policy = policy_for(self.strategy, self.game, think_s=self.think_s,
                                     iterations=self.iterations,
                                     move_deadline_s=self.move_deadline_s)
        if self.move_deadline_s is not None:
            self._keep_inside(self.move_deadline_s, "the table's" if tables else "the")
        assert replica.you is not None
        return replica.you

    def _keep_inside(self, deadline_s: float, whose: str) -> None:
        """Keep the policy's thinking inside ``deadline_s``: the search was made so
        (:func:`policy_for`); any other policy with a ``think_s`` attribute (one's own) is
        told the cap there; one without is told nothing, and the log says what then happens."""
        cap_s = think_cap_s(deadline_s)
        policy: Any = self.policy
        if self.strategy != "mcts" and hasattr(policy, "think_s"):
            policy.think_s = cap_s if policy.think_s is None else min(policy.think_s, cap_s)
        if self.strategy == "mcts" or hasattr(policy, "think_s"):
            log.info("%s at table %s: %s deadline is %g s; thinking at most %.2f s a move",
                     self.name, self.table, whose, deadline_s, cap_s)
        elif self.strategy not in STRATEGIES:
            # Not for random or greedy, which decide at once: the line is for the author of a
            # policy of one's own, and house bots wrote it on the host's screen at every seat.
            log.info("%s at table %s: %s deadline is %g s; past it the host plays the default "
                     "move for this seat (a policy with a think_s attribute is told how long it "
                     "may think)", self.name, self.table, whose, deadline_s)

    # -- playing ----------------------------------------------------------------------------

    def play(self, stop: threading.Event | None = None) -> Replica:
        """Play until the game is over (or ``stop`` is set); returns the final replica."""
        if self.table is None:
            raise RuntimeError("join a table first")
        while True:
            try:
                replica = self.client._run(play_seat(self.client.core, self._turn, stop))
                self._tell_move()  # a move its last turns did not see (no turn came after)
                return replica
            except HostTimeout:
                self._reconnect()

    def _tell_move(self) -> None:
        """Say once for each move of the host (its standby took over) where play goes on, as
        the console says it: the client goes there by itself, and the bot said nothing of it
        (the operator read of a takeover in the consoles alone)."""
        moved_to = self.client.core.moved_to
        if moved_to is not None and moved_to != self._told_move:
            self._told_move = moved_to
            log.warning("%s: host moved to %s", self.name, moved_to.removeprefix("tcp://"))

    def _move(self, replica: Replica) -> None:
        """Play one turn of the seat (the bot loop's step, for a caller of its own)."""
        self.client._run(self._turn(replica))

    async def _turn(self, replica: Replica) -> None:
        started_s = time.monotonic()
        self._tell_move()

        async def choose(replica: Replica) -> Data:
            assert self.policy is not None and replica.you is not None
            action = decide(self.policy, get_game(self.game), replica.you, replica.view,
                            replica.private, self.rng, self.view_rng)
            self.slowest_move_s = max(self.slowest_move_s, time.monotonic() - started_s)
            return action

        if await send_move(self.client.core, replica, choose, self.name,
                           (*RESYNC_CODES, "game_over")):
            self.moves += 1
            return
        took_s = time.monotonic() - started_s
        if self.move_deadline_s is not None and took_s > self.move_deadline_s:
            self.late_moves += 1
            # Its refusal (stale_version) says only that the game moved on: say why.
            log.warning("%s: the move took %.2f s, past the %g s deadline: the host played the "
                        "default move for this seat", self.name, took_s, self.move_deadline_s)

    @property
    def host_moves(self) -> int:
        """How many times the bot went to the other host of a pair (a failover), which its
        client does by itself: no reconnect of the runner's."""
        return self._moves_before + self.client.core.host_moves

    def _reconnect(self) -> None:
        """Come back to the seat with the saved token, trying until ``reconnect_s`` after the
        host was last heard: the client's own tries, which end in the HostTimeout that brings
        the runner here, are part of that time, and no try goes past its end."""
        assert self.table is not None and self.token is not None
        self.heard_s = self.client.core.heard_s
        give_up_s = self.heard_s + self.reconnect_s
        log.warning("%s: host %s is silent; reconnecting (nothing heard for %.0f s)", self.name,
                    self.address, self.silent_for_s)
        while True:
            self._moves_before += self.client.core.host_moves
            self.client.close()
            # Back to whichever host of a pair answered last, knowing the other (issue 14).
            self.address, standby = self.client.core.address, self.client.core.standby
            self.client = Client(self.address, standby=standby, **self.client_options)
            core = self.client.core
            # One try at a time (a failed try goes to the other host of a pair), each within
            # what is left: --reconnect 1 gave up after two rounds of the client's 4 tries.
            timeout_s, retries = core.timeout_s, core.retries
            core.timeout_s = max(MIN_TRY_S, min(timeout_s, give_up_s - time.monotonic()))
            core.retries = 0
            try:
                self.client.resume(self.table, self.token)
                self.reconnects += 1
                log.warning("%s: back at table %s", self.name, self.table)
                return
            except HostTimeout:
                if time.monotonic() >= give_up_s:
                    raise
                time.sleep(RECONNECT_PAUSE_S)
            finally:
                core.timeout_s, core.retries = timeout_s, retries

    @property
    def silent_for_s(self) -> float:
        """Seconds since the host was last heard before the last reconnect (0 before any)."""
        return time.monotonic() - self.heard_s if self.heard_s is not None else 0.0

    def close(self) -> None:
        self.client.close()


def play_network(address: str, game: GameSpec) -> GameResult:
    """One tournament game through the host at ``address``: a bot thread per seat.

    Seats get the same randomness as in :func:`sagani_net.bots.tournament.play_local`, so a
    deterministic lineup plays the same game both ways.
    """
    started_s = time.perf_counter()
    seats = len(game.strategies)
    creator = Client(address)
    try:
        table = creator.create(game.config, game=game.game, seed=game.seed,
                               bots=list(range(seats)))
        runners = []
        for seat, policy in enumerate(game.policies()):
            # Named by strategy alone: the host numbers a second "greedy", as a game played
            # in-process names its seats, so the record is the same both ways.
            runner = BotRunner(address, policy, seed=game.seat_seed(seat),
                               name=seat_name(game.strategies[seat]))
            runner.join(table, seat)
            runners.append(runner)
        errors: list[BaseException] = []

        def play(runner: BotRunner) -> None:
            try:
                runner.play()
            except BaseException as exc:  # reported below, in the caller's thread
                errors.append(exc)
            finally:
                runner.close()

        threads = [threading.Thread(target=play, args=(r,), daemon=True) for r in runners]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if errors:
            raise errors[0]
        record = creator.record(table)
    finally:
        creator.close()
    return result_of(game, record, time.perf_counter() - started_s)
