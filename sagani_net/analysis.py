"""After the game: the search bot's verdict on every decision of a record.

A record is replayed decision by decision. Each decision is judged on what its seat knew then
and nothing more: the search (:class:`sagani_net.bots.mcts.MctsPolicy`, with the game's own
hooks from its ``bots.py``) runs on states determinized from that seat's view and private data
at that moment (:meth:`Game.determinize`), never on the record's deal, future rolls or the
other seats' hands. The decision played is always among the moves searched at the root, first,
so it gets a value of its own however poor it is.

**The measure.** A move's value is the search's mean reward for the seat that moved: in a game
of several seats its estimated chance to finish ahead of each other seat (the win chance, 0..1,
shown in per cent), in a solo game the game's solo reward (0..1, see the game's RULES.md). A
decision's moves are grouped by the action played now (a Sagani take is worth the best
placement searched after it); the best is the search's robust choice (its most visited move),
and ``loss = max(0, value_best - value_played)``. A loss that would be marked is measured
again (:func:`judge`): the move played and the :data:`CHECKED` best are searched anew, paired
(:meth:`MctsPolicy.search_paired`), and their values, best and loss replace the first search's,
whose values of a move left after a few samples carry the luck of those samples (and its best's,
the luck that made it the best). A loss of :data:`MISTAKE` or more marks a
``"mistake"``, :data:`BLUNDER` or more a ``"blunder"`` (a game's ``bots.py`` may set its own
``ANALYSIS_MARKS``; each game's RULES.md says what it uses). A forced decision (one legal
action) is not searched, nor a move the host played for its seat (the record's
``host_played``: its default move past the seat's clock, or its bot standing in for an away
player), which is not the seat's to answer for.

**Deterministic.** With an iteration budget (and no time budget) a verdict depends only on
what the seat knew (view and private data), the decision's number and the effort: each search
is seeded from them, never from the record's seed, so changing a future draw in a record changes
no verdict on an earlier decision.

The decisions are judged in parallel, one per task, on every core (:func:`analyse`).

>>> from sagani_net.bots.tournament import GameSpec, play_local
>>> record = play_local(GameSpec(0, "sugi", {"players": 2}, 5, ("greedy", "random"))).record
>>> short = {**record, "actions": record["actions"][:3]}
>>> del short["result"]  # the game's first three decisions only
>>> result = analyse(short, Effort(iterations=20), workers=1)
>>> [v.index for v in result.verdicts], result.summary[0].seat
([0, 1, 2], 0)
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
import time
from collections.abc import Callable, Hashable
from concurrent.futures import as_completed
from dataclasses import dataclass, field
from multiprocessing.context import BaseContext
from typing import Any, TextIO

from sagani_net.bots.base import game_bots
from sagani_net.bots.mcts import MctsPolicy, Move, Node, PlainSearch, SearchHooks, frozen
from sagani_net.bots.tournament import Progress
from sagani_net.game import (
    HOST_PLAYED_REASONS,
    Data,
    Game,
    GameState,
    host_played,
    plural,
    without_seat,
)
from sagani_net.games import get_game
from sagani_net.gameui import columns, cut, pad
from sagani_net.protocol.messages import printable
from sagani_net.workers import count as worker_count
from sagani_net.workers import pool as worker_pool
from sagani_net.workers import stop as stop_workers

#: Iterations per decision by default: a 2-player Sagani game in under a minute on 2 cores
#: (bench/analysis.py), with verdicts that mostly agree with a search four times as long.
DEFAULT_ITERATIONS = 300
#: UCB1's constant for the analysis: wider than the bot's (0.35), so that the moves that are
#: not the best still get visits enough for a value of their own.
EXPLORATION = 0.6
#: Loss (in reward, 0..1) from which a decision is a mistake, and a blunder.
MISTAKE = 0.05
BLUNDER = 0.15
#: How many of the search's best moves a marked decision's move is measured again against
#: (:func:`judge`), each on 1/CHECK_SHARE of the search's iterations.
CHECKED = 2
CHECK_SHARE = 2
#: How many of a seat's costliest decisions its summary names.
COSTLIEST = 3


@dataclass(frozen=True)
class Effort:
    """How hard each decision is searched: an iteration budget (deterministic), a time budget
    in seconds, or both (whichever ends first; not deterministic)."""

    iterations: int | None = DEFAULT_ITERATIONS
    think_s: float | None = None

    def __post_init__(self) -> None:
        if self.iterations is None and self.think_s is None:
            raise ValueError("give the analysis an iteration budget, a time budget, or both")

    def to_data(self) -> Data:
        return {"iterations": self.iterations, "think_s": self.think_s}


@dataclass(frozen=True)
class Decision:
    """One decision of a record, as its seat saw it: ``index`` is the record's action number,
    ``turn`` the game's turn (from 1: a run of one seat's decisions, or as its bots module's
    ``TURN_KEY`` tells turns apart)."""

    game: str
    index: int
    seat: int
    turn: int
    view: Data
    private: Data | None
    played: Data
    #: Why the host played it for the seat (the record's ``host_played``), or None.
    host: str | None = None


@dataclass(frozen=True)
class Verdict:
    """The search's verdict on one decision (values for the seat that moved; see the module
    docstring). ``best_line``: the decisions the best move stands for (a Sagani turn: the
    take and its placement). ``host``: why the host played the move for the seat (then it
    is not searched), or None."""

    index: int
    seat: int
    turn: int
    played: str
    best: str
    value_played: float | None
    value_best: float | None
    loss: float
    mark: str | None
    forced: bool = False
    best_line: tuple[str, ...] = ()
    moves: int = 0
    iterations: int = 0
    seconds: float = 0.0
    host: str | None = None

    @property
    def searched(self) -> bool:
        """Judged by a search: the seat's own choice among several legal moves."""
        return not self.forced and self.host is None

    def to_data(self) -> Data:
        return {"index": self.index, "seat": self.seat, "turn": self.turn,
                "played": self.played, "best": self.best,
                "value_played": _rounded(self.value_played),
                "value_best": _rounded(self.value_best), "loss": round(self.loss, 4),
                "mark": self.mark, "forced": self.forced, "best_line": list(self.best_line),
                "moves": self.moves, "iterations": self.iterations,
                "seconds": round(self.seconds, 3), "host_played": self.host}

    @classmethod
    def from_data(cls, data: Data) -> Verdict:
        """A verdict read back from :meth:`to_data` (``sagani replay --analysis``); raises
        KeyError, TypeError or ValueError for data that is not one (values and loss outside
        0..1 too: the replay would show them as they are)."""
        return cls(
            int(data["index"]), int(data["seat"]), int(data.get("turn", 0)),
            str(data["played"]), str(data["best"]), _value(data["value_played"]),
            _value(data["value_best"]), _share(data["loss"], "a loss"),
            _mark(data["mark"]), bool(data.get("forced", False)),
            tuple(map(str, data.get("best_line", ()))), int(data.get("moves", 0)),
            int(data.get("iterations", 0)), float(data.get("seconds", 0.0)),
            _host(data.get("host_played")))


@dataclass(frozen=True)
class SeatSummary:
    """A seat's decisions in figures: judged (searched) decisions, mean loss over them, its
    marks and its :data:`COSTLIEST` costliest decisions (those that lost anything)."""

    seat: int
    decisions: int
    mean_loss: float
    mistakes: int
    blunders: int
    costliest: tuple[Verdict, ...]

    def to_data(self) -> Data:
        return {"seat": self.seat, "decisions": self.decisions,
                "mean_loss": round(self.mean_loss, 4), "mistakes": self.mistakes,
                "blunders": self.blunders,
                "costliest": [{"index": v.index, "turn": v.turn, "loss": round(v.loss, 4),
                               "played": v.played, "best": v.best} for v in self.costliest]}


@dataclass
class Analysis:
    """Every decision's verdict, in record order, and a summary per seat; ``over``: the
    record's moves end the game (else its summary is of the game so far)."""

    game: str
    measure: str
    effort: Effort
    verdicts: list[Verdict]
    seconds: float = 0.0
    workers: int = 1
    summary: list[SeatSummary] = field(default_factory=list)
    over: bool = True

    def to_data(self) -> Data:
        return {"game": self.game, "over": self.over, "measure": self.measure,
                "effort": self.effort.to_data(),
                "marks": dict(zip(("mistake", "blunder"), marks(self.game), strict=True)),
                "decisions": [v.to_data() for v in self.verdicts],
                "summary": [s.to_data() for s in self.summary],
                "seconds": round(self.seconds, 3), "workers": self.workers,
                "seconds_per_decision": round(self.seconds_per_decision, 4)}

    @property
    def seconds_per_decision(self) -> float:
        """Search time per judged decision (one core's)."""
        judged = [v.seconds for v in self.verdicts if v.searched]
        return sum(judged) / len(judged) if judged else 0.0


def marks(game: str) -> tuple[float, float]:
    """The losses from which a decision of ``game`` is a mistake, and a blunder."""
    mistake, blunder = getattr(game_bots(game), "ANALYSIS_MARKS", (MISTAKE, BLUNDER))
    return float(mistake), float(blunder)


def shown(game: str, text: str) -> str:
    """A move of ``game`` in its text form (``played``, ``best``), as the analysis's text and
    the replay show it: as the game's console types it, where that differs (a bots module's
    ``TYPED_TEXT``: Sagani's offer tiles count from 1 on screen, from 0 in its text form).
    Raises RuleError for a text that is not one of the game's moves."""
    typed: Callable[[Data], str] | None = getattr(game_bots(game), "TYPED_TEXT", None)
    return text if typed is None else typed(get_game(game).parse_text(text))


def measure(game: str, seats: int) -> str:
    """What the values of a game with ``seats`` seats measure (see the module docstring)."""
    return "win_chance" if seats > 1 else "solo_reward"


def decisions(record: Data) -> list[Decision]:
    """Every decision of ``record``, each as its seat saw it before it moved.

    The whole record is checked first (``Game.from_record`` raises RuleError for a damaged
    one); the positions then come from the record without its actions, which keeps its random
    outcomes for the actions to meet, as ``sagani replay`` steps.
    """
    name = record.get("game", "sagani") if isinstance(record, dict) else None
    rules = get_game(name)
    rules.from_record(record)
    assert isinstance(name, str)
    by_host = host_played(record)
    state = _start(rules, record)
    found: list[Decision] = []
    turn, last = 0, None
    # A game's own (its bots module's TURN_KEY) where a seat's run of decisions is not one
    # turn: a solo game's, Sagrada's last seat, who plays twice in a row.
    turn_key = getattr(game_bots(name), "TURN_KEY", None) or (lambda s: s.current_seat)
    actions = record["actions"]
    seat = state.current_seat
    # What the seat to move knows, taken before its action is played (positions plays it).
    known = (state.view(seat), state.private(seat)) if seat is not None else None
    key = turn_key(state)
    for index, (moved, _) in enumerate(rules.positions(state, actions)):
        assert known is not None and moved == seat
        if key != last:
            turn, last = turn + 1, key
        found.append(Decision(name, index, seat, turn, *known, without_seat(actions[index]),
                              by_host.get(index)))
        seat, key = state.current_seat, turn_key(state)
        known = (state.view(seat), state.private(seat)) if seat is not None else None
    return found


def _start(rules: Game, record: Data) -> GameState:
    """The position before the record's first action: the record without its actions, which
    keeps its random outcomes for the actions to meet."""
    start = {k: v for k, v in record.items() if k not in ("actions", "result")}
    return rules.from_record({**start, "actions": []})


def decision_seed(decision: Decision) -> int:
    """The seed of a decision's search: from what its seat knew and its number only."""
    known = json.dumps([decision.game, decision.index, decision.seat, decision.view,
                        decision.private], sort_keys=True, separators=(",", ":"))
    return int.from_bytes(hashlib.sha256(known.encode()).digest()[:8], "big")


class _Judged:
    """The game's search hooks with the decision played among the root's moves, first, so
    that it is searched however low the game's own candidates rank it."""

    def __init__(self, hooks: SearchHooks, played: Any, key: Hashable) -> None:
        self.hooks = hooks
        self.played = played
        self.key = key

    def __getattr__(self, name: str) -> Any:
        return getattr(self.hooks, name)

    def candidates(self, state: GameState, root: bool) -> list[Hashable]:
        moves = self.hooks.candidates(state, root)
        if not root:
            return moves
        mine = [m for m in moves if first_key(state, self.hooks, m) == self.key]
        if not mine:
            mine = [move_for(self.hooks, state, self.played)]
        return mine + [m for m in moves if first_key(state, self.hooks, m) != self.key]


def first_key(state: GameState, hooks: SearchHooks, move: Any) -> Hashable:
    """The wire form, hashable, of the first decision ``move`` stands for."""
    return frozen(state.action_data(hooks.decisions(move)[0]))


def move_for(hooks: SearchHooks, state: GameState, action: Any) -> Hashable:
    """The search's move that starts with ``action``: the game's ``move_for`` hook (a Sagani
    turn is a take and its placement), else the action as the plain search keys it, else the
    action itself (games whose moves are single actions)."""
    own: Callable[[GameState, Any], Hashable] | None = getattr(hooks, "move_for", None)
    if own is not None:
        return own(state, action)
    if isinstance(hooks, PlainSearch):
        return Move(frozen(state.action_data(action)), action)
    return action


def judge(decision: Decision, effort: Effort) -> Verdict:
    """The search's verdict on one decision, from what its seat knew (module-level: it runs in
    worker processes)."""
    started = time.perf_counter()
    rules = get_game(decision.game)
    rng = random.Random(decision_seed(decision))
    played_text = rules.action_text(decision.played)
    if decision.host is not None:
        return Verdict(decision.index, decision.seat, decision.turn, played_text, played_text,
                       None, None, 0.0, None, best_line=(played_text,), host=decision.host)
    base = rules.determinize(decision.view, decision.private, decision.seat, rng)
    played = base.parse_action(decision.played)
    if len(base.legal_actions()) <= 1:
        return Verdict(decision.index, decision.seat, decision.turn, played_text, played_text,
                       None, None, 0.0, None, forced=True, best_line=(played_text,))
    key = frozen(base.action_data(played))
    policy = MctsPolicy(decision.game, think_s=effort.think_s, iterations=effort.iterations,
                        exploration=EXPLORATION)
    holder: list[SearchHooks] = []

    def wrap(hooks: SearchHooks) -> SearchHooks:
        holder.append(hooks)
        return _Judged(hooks, played, key)

    root = policy.search_root(decision.view, decision.private, decision.seat, rng, wrap)
    hooks = holder[0]
    # Per action played now, its most visited move (ties to the better mean).
    groups: dict[Hashable, tuple[Any, int, float]] = {}
    for move, node in root.children.items():
        if not node.visits:
            continue
        group = first_key(base, hooks, move)
        mean = node.total / node.visits
        if group not in groups or (node.visits, mean) > groups[group][1:]:
            groups[group] = (move, node.visits, mean)
    best_key = max(groups, key=lambda g: groups[g][1:])
    best_move, _, value_best = groups[best_key]
    value_played = groups[key][2] if key in groups else None
    loss = 0.0 if best_key == key or value_played is None else max(0.0, value_best - value_played)
    mistake, blunder = marks(decision.game)
    iterations = policy.last_iterations
    if loss >= mistake and value_played is not None:
        # The search's value of a move it left after a few unlucky samples is low by that
        # luck, and its best's high by the same (it is the best because its samples went
        # well): a loss of 30 points on a Sugi first move fell to 1 at ten times the
        # iterations. A mark stands only on a second measure, fresh and paired, of the move
        # played against the search's CHECKED best moves.
        ranked = sorted((g for g in groups if g != key), key=lambda g: groups[g][1:],
                        reverse=True)[:CHECKED]
        check = MctsPolicy(decision.game, think_s=effort.think_s,
                           iterations=None if effort.iterations is None
                           else max(1, effort.iterations // CHECK_SHARE) * (len(ranked) + 1),
                           exploration=EXPLORATION)
        roots = check.search_paired(
            decision.view, decision.private, decision.seat, rng,
            [functools.partial(_Kept, played=played, key=g, move=groups[g][0],
                               first=hooks.decisions(groups[g][0])[0]) for g in [key, *ranked]])
        value_played, *values = (_mean(r) for r in roots)
        if value_played >= max(values):  # measured again, the move played is the best
            best_move, value_best, loss = groups[key][0], value_played, 0.0
        else:
            value_best = max(values)
            best_move = groups[ranked[values.index(value_best)]][0]
            loss = value_best - value_played
        iterations += check.last_iterations
    mark = "blunder" if loss >= blunder else "mistake" if loss >= mistake else None
    line = tuple(rules.action_text(base.action_data(a)) for a in hooks.decisions(best_move))
    return Verdict(decision.index, decision.seat, decision.turn, played_text, line[0],
                   value_played, value_best, loss, mark, best_line=line,
                   moves=len(root.children), iterations=iterations,
                   seconds=time.perf_counter() - started)


class _Kept(_Judged):
    """The game's search hooks with one root move kept: ``move`` where the sample has it
    among the root's moves, else the others that start with the same action (``key``), else
    the move the game makes of that action (``first``)."""

    def __init__(self, hooks: SearchHooks, played: Any, key: Hashable, move: Hashable,
                 first: Any) -> None:
        super().__init__(hooks, played, key)
        self.move = move
        self.first = first

    def candidates(self, state: GameState, root: bool) -> list[Hashable]:
        moves = super().candidates(state, root)
        if not root:
            return moves
        if self.move in moves:
            return [self.move]
        same = [m for m in moves if first_key(state, self.hooks, m) == self.key]
        return same or [move_for(self.hooks, state, self.first)]


def _mean(root: Node) -> float:
    """The mean reward of a root's iterations, for the seat to move there."""
    visits = sum(c.visits for c in root.children.values())
    return sum(c.total for c in root.children.values()) / visits if visits else 0.0


def summarize(verdicts: list[Verdict], seats: int) -> list[SeatSummary]:
    """A summary per seat (see :class:`SeatSummary`)."""
    rows = []
    for seat in range(seats):
        mine = [v for v in verdicts if v.seat == seat and v.searched]
        costly = sorted((v for v in mine if v.loss > 0), key=lambda v: (-v.loss, v.index))
        rows.append(SeatSummary(
            seat, len(mine), sum(v.loss for v in mine) / len(mine) if mine else 0.0,
            sum(v.mark == "mistake" for v in mine), sum(v.mark == "blunder" for v in mine),
            tuple(costly[:COSTLIEST])))
    return rows


def analyse(
    record: Data,
    effort: Effort | None = None,
    *,
    workers: int | None = None,
    progress: TextIO | None = None,
    on_verdict: Callable[[int, int], None] | None = None,
    only: Callable[[Decision], bool] | None = None,
    context: BaseContext | None = None,
) -> Analysis:
    """The verdict on every decision of ``record`` (those ``only`` keeps, if given), judged on
    ``workers`` processes (default: every core; never more than the cores or the decisions),
    with a progress bar on ``progress`` and ``on_verdict(done, total)`` after each verdict (an
    exception it raises ends the analysis there: no other decision is searched, the workers
    are stopped); ``context``: the workers' multiprocessing context (spawn in a process with
    threads of its own). Raises RuleError for a damaged record."""
    effort = effort or Effort()
    started = time.perf_counter()
    points = [d for d in decisions(record) if only is None or only(d)]
    name = str(record.get("game", "sagani"))
    rules = get_game(name)
    # From the moves, not from a result: a record may leave its result out (RECORD.md).
    over = rules.from_record(record).is_over()
    # The config as the record replays it: a first-format Sagani record names its players and
    # mode without a config, and read as the default config a 3-player game had 2 seats
    # (the third left out of the summary) and a solo game a win chance.
    seats = rules.seats(_start(rules, record).to_record()["config"])
    workers = worker_count(workers, len(points))
    bar = Progress(len(points), progress, unit="decisions")
    found: dict[int, Verdict] = {}

    def done(verdict: Verdict) -> None:
        found[verdict.index] = verdict
        bar.tick()
        if on_verdict is not None:
            on_verdict(len(found), len(points))

    if workers == 1:
        for point in points:
            done(judge(point, effort))
    else:
        with worker_pool(workers, context) as pool:
            futures = [pool.submit(judge, p, effort) for p in points]
            try:
                for future in as_completed(futures):
                    done(future.result())
            except BaseException:
                # Ctrl-C, a worker's error or on_verdict's own (a console closing): the
                # decisions not started are dropped, those being searched stopped.
                stop_workers(pool)
                raise
    verdicts = [found[p.index] for p in points]
    return Analysis(name, measure(name, seats), effort, verdicts,
                    time.perf_counter() - started, workers, summarize(verdicts, seats), over)


#: The width the text of an analysis keeps to (a terminal's 80 columns).
TEXT_WIDTH = 80
#: The columns of a seat's name in the summary ("seat 1 (SugiRoundAhead)", a strategy's name
#: as the tools name seats, whole).
WHO_WIDTH = 30


def format_analysis(analysis: Analysis, names: list[str] | None = None,
                    every: bool = False) -> str:
    """The analysis as text, at most :data:`TEXT_WIDTH` columns: the marked decisions
    (``every``: all), each by its move number as ``sagani replay`` steps to it (the record's
    action number plus 1: 'move 15/96' shows the verdict on action 14), the summary per seat
    and the time it took. Moves are written whole, as
    the console types them (:func:`shown`): a
    game whose moves are too long for two columns side by side (Sugi's) gets the best move
    under the one played. A record that stops before the game's end gets a line under the
    first that says so: its summary is of the game so far."""
    def who(seat: int) -> str:
        name = names[seat] if names and seat < len(names) and names[seat] else ""
        # In columns, not characters: a name in Chinese takes two a character. Escaped: a
        # record is a file anyone may have edited, and an ESC in a name painted the terminal.
        # The name is cut, not the whole: "seat 1 (SugiRoundAhead" lost its parenthesis.
        seat_text = f"seat {seat + 1}"
        if not name:
            return seat_text
        return f"{seat_text} ({cut(printable(name), WHO_WIDTH - len(seat_text) - 3).rstrip()})"

    unit = "win chance" if analysis.measure == "win_chance" else "solo reward"
    forced = sum(v.forced for v in analysis.verdicts)
    hosts = sum(v.host is not None for v in analysis.verdicts)
    # Counted apart: the seat summary and the closing line count searched ones.
    apart = [*([f"{forced} forced: one legal move, not searched"] if forced else []),
             *([f"{hosts} played by the host for the seat, not searched"] if hosts else [])]
    count = f"{len(analysis.verdicts)} decisions" + (f" ({'; '.join(apart)})" if apart else "")
    mistake, blunder = marks(analysis.game)
    lines = [f"{get_game(analysis.game).title}: {count}",
             f"values are the {unit} of the seat that moved, in %",
             f"loss: points of % below the best move; a mistake from {mistake * 100:g}, a "
             f"blunder from {blunder * 100:g}"]
    if not analysis.over:
        lines.insert(1, "the record stops before the game's end: this is the game so far")
    listed = [v for v in analysis.verdicts if every or v.mark]
    moves = {t: shown(analysis.game, t) for v in listed for t in (v.played, v.best)}
    move = max([len("played"), *map(len, moves.values())])
    # '#', turn, seat, the moves, value, best, loss and mark: 44 columns besides the moves.
    side_by_side = 44 + 2 * move <= TEXT_WIDTH
    if listed:
        head = (f"{'played':<{move}} {'best':<{move}}" if side_by_side
                else f"{'played, then best':<{move}}")
        lines.append(f"{'move':>4} {'turn':>4} {'seat':>4}  {head} "
                     f"{'value':>5} {'best':>5} {'loss':>5}  mark")
    for v in listed:
        # The host's move was not searched: no best and no loss to show (its verdict's are
        # the move itself and 0, which read as the search's choice).
        played, best = moves[v.played], "-" if v.host else moves[v.best]
        loss = "-" if v.host else f"{v.loss * 100:.1f}"
        row = f"{played:<{move}} {best:<{move}}" if side_by_side else f"{played:<{move}}"
        lines.append(f"{v.index + 1:>4} {v.turn:>4} {v.seat + 1:>4}  {row} "
                     f"{_pct(v.value_played):>5} {_pct(v.value_best):>5} "
                     f"{loss:>5}  {v.mark or _unsearched(v)}")
        if not side_by_side and not v.host:
            lines.append(f"{'':>16}best {best}")
    lines.append("")
    lines.append(f"{'seat':<{WHO_WIDTH}} {'decisions':>9} {'mean loss':>9} {'mistakes':>8} "
                 f"{'blunders':>8}")
    for s in analysis.summary:
        # A seat none of whose decisions was judged (the host played them all) lost nothing
        # that was measured: a mean of 0.00 read as flawless play.
        mean = f"{s.mean_loss * 100:.2f}" if s.decisions else "-"
        lines.append(f"{pad(who(s.seat), WHO_WIDTH)} {s.decisions:>9} {mean:>9} "
                     f"{s.mistakes:>8} {s.blunders:>8}")
    for s in analysis.summary:
        # By move as well as turn: a turn of two decisions (a Sagani take, then its placement)
        # would otherwise be named twice alike.
        costly = [f"move {v.index + 1} (turn {v.turn}) -{v.loss * 100:.1f}"
                  for v in s.costliest]
        head = f"{who(s.seat)} costliest:"
        line = head
        for n, entry in enumerate(costly or ["none"]):
            entry += "," if n < len(costly) - 1 else ""
            if columns(line) + 1 + len(entry) > TEXT_WIDTH:  # an entry is never cut in two
                lines.append(line)
                line = " " * columns(head)
            line += " " + entry
        lines.append(line)
    judged = sum(v.searched for v in analysis.verdicts)
    wall = analysis.seconds / judged if judged else 0.0
    lines.append("")
    lines.append(f"{analysis.seconds:.1f} s for the game on "
                 f"{plural(analysis.workers, 'worker')}, {wall:.2f} s a decision")
    lines.append(f"({judged} decisions searched, {analysis.seconds_per_decision:.2f} s of one "
                 f"core each; {_effort_text(analysis.effort)})")
    return "\n".join(lines)


def _unsearched(v: Verdict) -> str:
    """The mark column of a decision not searched: why, in a mark's width (7 columns) at most
    (the host's moves: its default past the seat's clock, or its bot's for an away player)."""
    if v.host is not None:
        return "timeout" if v.host == "deadline" else "away"
    return "forced" if v.forced else ""


def _effort_text(effort: Effort) -> str:
    parts = []
    if effort.iterations is not None:
        parts.append(f"{effort.iterations} iterations")
    if effort.think_s is not None:
        parts.append(f"{effort.think_s:g} s")
    return ", at most ".join(parts)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.0f}"


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _share(value: Any, what: str = "a value") -> float:
    """A value or a loss read back: a number from 0 to 1 (a NaN is not one)."""
    number = float(value)
    if not 0 <= number <= 1:
        raise ValueError(f"{what} is from 0 to 1, not {value!r}")
    return number


def _value(value: Any) -> float | None:
    return None if value is None else _share(value)


def _host(value: Any) -> str | None:
    if value is not None and value not in HOST_PLAYED_REASONS:
        raise ValueError(f"host_played is null or one of {', '.join(HOST_PLAYED_REASONS)}")
    return value


def _mark(value: Any) -> str | None:
    if value not in (None, "mistake", "blunder"):
        raise ValueError(f"a mark is mistake, blunder or null, not {value!r}")
    return value
