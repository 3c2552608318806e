"""Tournaments between strategies, for every game: many games, seats rotated, on every core,
with a result table.

Game ``i`` deals from ``deal_seed(seed, i // L)`` and seats the lineup rotated by ``i % L``
(``L`` is the lineup's length), so each deal is played once from every seat and no strategy
always starts. In a one-seat game the lineup's strategies take turns on the same deals. Every
seat decides from what it knows alone: in-process from the engine's uniform draw (a random
seat) or a state resampled from the truth (:class:`sagani_net.bots.base.LocalSeat`, through
:func:`sagani_net.bots.local.play_local`), over the network from a state
rebuilt from its view and private data (:func:`sagani_net.bots.base.decide`), which samples
the same; so no strategy can peek at a secret and both paths give the same games.

>>> spec = TournamentSpec(lineup=("greedy", "random"), games=4, seed=1)
>>> spec.game_spec(1).strategies
('random', 'greedy')
"""

from __future__ import annotations

import itertools
import math
import random
import textwrap
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, TextIO

from sagani_net.bots.base import game_bots, seat_rngs
from sagani_net.bots.local import GameResult, GameSpec, play_local, result_of
from sagani_net.game import Data, config_words, plural, winners
from sagani_net.games import DEFAULT_GAME, get_game
from sagani_net.workers import count as worker_count
from sagani_net.workers import pool as worker_pool
from sagani_net.workers import stop as stop_workers

if TYPE_CHECKING:
    from concurrent.futures import Future
    from multiprocessing.context import BaseContext

# A tournament's single games are played by sagani_net.bots.local (self-play's too); their
# names stay importable from here.
__all__ = ["GameResult", "GameSpec", "TournamentSpec", "play_local", "result_of", "run_games",
           "seat_rngs"]

#: z for a two-sided 95% interval.
Z95 = 1.959964
ELO_BASE = 1500.0


@dataclass(frozen=True)
class TournamentSpec:
    """What to play. ``config`` is the tables' (checked and completed by the game);
    ``options`` maps a strategy name to its policy options."""

    lineup: tuple[str, ...]
    games: int
    seed: int = 0
    game: str = DEFAULT_GAME
    config: Data = field(default_factory=dict)
    options: dict[str, dict[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Raises RuleError for an unknown game or a bad config.
        object.__setattr__(self, "config", get_game(self.game).parse_config(self.config))
        if self.seats > 1 and len(self.lineup) != self.seats:
            raise ValueError(f"a {self.seats}-seat lineup names {self.seats} strategies")
        if not self.lineup:
            raise ValueError("name at least one strategy")

    @property
    def seats(self) -> int:
        return get_game(self.game).seats(self.config)

    def game_spec(self, index: int) -> GameSpec:
        rotations = len(self.lineup)
        turn = index % rotations
        if self.seats > 1:
            strategies = self.lineup[turn:] + self.lineup[:turn]
        else:
            strategies = (self.lineup[turn],)
        return GameSpec(index, self.game, self.config, deal_seed(self.seed, index // rotations),
                        strategies, self.options)


def deal_seed(seed: int, deal: int) -> int:
    """The table's seed for deal number ``deal`` of a tournament seeded with ``seed``."""
    return random.Random(f"sagani-tournament:{seed}:{deal}").getrandbits(63)


def run_games(
    spec: TournamentSpec,
    *,
    workers: int | None = None,
    play: Callable[[GameSpec], GameResult] = play_local,
    progress: TextIO | None = None,
    on_result: Callable[[GameResult], None] | None = None,
    context: BaseContext | None = None,
    keep: bool = True,
) -> list[GameResult]:
    """Play every game of ``spec`` on ``workers`` processes (default: every core; never more
    than the cores or the games).

    Results come back in game order whatever order the workers finish in, so the table
    depends only on the spec. ``play`` must be a module-level function (it is pickled). Each
    result's record goes to ``on_result`` and is not kept (``GameResult.without_record``): a
    run of many games held every record to its end, and a tournament of random games grew by
    40 MB a second. ``keep`` False keeps no result at all (``on_result`` has each, as
    :class:`Standings` takes them), and returns [].
    """
    workers = worker_count(workers, spec.games)
    games = (spec.game_spec(i) for i in range(spec.games))
    bar = Progress(spec.games, progress)
    results: list[GameResult] = []

    def finished(result: GameResult) -> None:
        bar.tick(result)
        if on_result:
            on_result(result)
        if keep:
            results.append(result.without_record())

    if workers == 1:
        for game in games:
            finished(play(game))
        return results
    # Imported here: a process pool costs self-play's start-up more than its games.
    from concurrent.futures import FIRST_COMPLETED, wait

    with worker_pool(workers, context) as pool:
        pending: set[Future[GameResult]] = set()
        try:
            # A few games queued per worker, not every game at once: a future done is let
            # go with its result, and each wait looks through a few futures, not thousands.
            while True:
                for game in itertools.islice(games, 2 * workers - len(pending)):
                    pending.add(pool.submit(play, game))
                if not pending:
                    break
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    finished(future.result())
        except BaseException:
            # A failed game or record, or Ctrl-C, ends the run now: the games not yet started
            # are dropped and those under way stopped, not played out while the error waits.
            stop_workers(pool)
            raise
    results.sort(key=lambda result: result.index)
    return results


class Progress:
    """A one-line text progress bar on ``out`` (stderr); redrawn in place on a terminal."""

    WIDTH = 30

    def __init__(self, total: int, out: TextIO | None, unit: str = "games", *, done: int = 0,
                 started_s: float | None = None) -> None:
        """``done`` of them done since ``started_s`` (time.monotonic()) already: a bar that
        starts part of the way through (now, by default, with none done)."""
        self.total = total
        self.unit = unit
        self.out = out
        self.done = done
        self.started_s = time.monotonic() if started_s is None else started_s
        self.tty = bool(out and out.isatty())
        self._shown = -1

    def tick(self, result: object = None) -> None:
        self.done += 1
        if self.out is None:
            return
        tenth = self.done * 10 // max(1, self.total)
        if not self.tty and tenth == self._shown and self.done != self.total:
            return  # not a terminal: a line per tenth is enough
        self._shown = tenth
        elapsed_s = time.monotonic() - self.started_s
        eta_s = elapsed_s / self.done * (self.total - self.done)
        filled = self.done * self.WIDTH // max(1, self.total)
        line = (f"[{'#' * filled}{'.' * (self.WIDTH - filled)}] {self.done}/{self.total} "
                f"{self.unit}  {elapsed_s:6.0f} s  eta {eta_s:5.0f} s")
        end = "\n" if not self.tty or self.done == self.total else ""
        self.out.write(("\r" if self.tty else "") + line + end)
        self.out.flush()


# -- the table -------------------------------------------------------------------------------


@dataclass
class Counted:
    """Values seen, without keeping them: a tournament of millions of games holds a few
    numbers a strategy, not a list that grows by a game's."""

    count: int = 0
    total: int = 0
    least: int | None = None
    most: int | None = None

    def add(self, value: int) -> None:
        self.count += 1
        self.total += value
        self.least = value if self.least is None else min(self.least, value)
        self.most = value if self.most is None else max(self.most, value)

    @property
    def mean(self) -> float:
        return self.total / self.count if self.count else 0.0


@dataclass
class Row:
    """One strategy's line in the result table (counts are per seat played).

    ``figures``: per figure the game's bots name in ``SOLO_FIGURES``, its values in the
    one-seat games this strategy won (fewer is better, as in tiles to the goal)."""

    strategy: str
    #: One seat: whether the game has a goal to reach (else the table shows scores only).
    goal: bool = False
    games: int = 0
    #: A win shared by k seats counts 1/k to each (Sugi's ties can stand).
    wins: float = 0
    scores: Counted = field(default_factory=Counted)
    figures: dict[str, Counted] = field(default_factory=dict)
    elo: float = ELO_BASE

    @property
    def share(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def ci(self) -> tuple[float, float]:
        return wilson(self.wins, self.games)

    @property
    def mean_score(self) -> float:
        return self.scores.mean

    def to_dict(self) -> Data:
        low, high = self.ci
        data: Data = {"strategy": self.strategy, "games": self.games, "wins": _whole(self.wins),
                      "share": round(self.share, 4), "ci95": [round(low, 4), round(high, 4)],
                      "mean_score": round(self.mean_score, 2),
                      "elo": round(self.elo, 1)}
        if self.scores.count:
            data["best_score"] = self.scores.most
        for title, values in self.figures.items():
            if values.count:
                data[f"mean_{title}"] = round(values.mean, 2)
                data[f"best_{title}"] = values.least
        return data


def wilson(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for ``wins`` out of ``n``.

    >>> [round(v, 3) for v in wilson(95, 100)]
    [0.888, 0.978]
    """
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def fit_elo(pairs: Iterable[tuple[str, str]], names: Sequence[str],
            draws: Iterable[tuple[str, str]] = ()) -> dict[str, float]:
    """Elo ratings fit (Bradley-Terry, by minorization-maximization) to ``(winner, loser)`` pairs
    and to ``draws`` (two strategies that shared a win: half a win each).

    Each pair of strategies that met also gets one virtual draw, so that a clean sweep gives a
    large but finite gap. The ratings average :data:`ELO_BASE`.
    """
    index = {name: i for i, name in enumerate(names)}
    n = len(names)
    wins = [[0.0] * n for _ in range(n)]
    for winner, loser in pairs:
        if winner != loser:
            wins[index[winner]][index[loser]] += 1
    for a, b in draws:
        if a != b:
            wins[index[a]][index[b]] += 0.5
            wins[index[b]][index[a]] += 0.5
    for i in range(n):
        for j in range(i + 1, n):
            if wins[i][j] + wins[j][i]:
                wins[i][j] += 0.5
                wins[j][i] += 0.5
    gamma = [1.0] * n
    for _ in range(500):
        new = []
        for i in range(n):
            total_wins = sum(wins[i])
            denom = sum((wins[i][j] + wins[j][i]) / (gamma[i] + gamma[j])
                        for j in range(n) if j != i)
            new.append(total_wins / denom if denom and total_wins else gamma[i])
        mean_log = sum(math.log(g) for g in new) / n
        gamma = [g / math.exp(mean_log) for g in new]
    return {name: ELO_BASE + 400 * math.log10(gamma[index[name]]) for name in names}


class Standings:
    """The result table, told one game at a time (:meth:`add`), in any order: what it keeps
    does not grow with the games (counts a strategy, and a count a pair of them for Elo).

    A game with several seats is won by the first of its ranking, or shared by the seats its
    result names (:func:`sagani_net.game.winners`); a one-seat game by reaching its goal (the
    result's ``won``), if it has one.
    """

    def __init__(self, spec: TournamentSpec) -> None:
        self.spec = spec
        self.names = list(dict.fromkeys(spec.lineup))
        self._solo = _solo_figures(spec)
        self._rows = {name: Row(name, figures={title: Counted() for title in self._solo.values()})
                      for name in self.names}
        #: Wins in whole shares (Fraction): the same sums whatever order the games end in.
        self._wins = {name: Fraction(0) for name in self.names}
        self._pairs: Counter[tuple[str, str]] = Counter()
        self._draws: Counter[tuple[str, str]] = Counter()
        self._goal = False

    def add(self, result: GameResult) -> None:
        rows = self._rows
        for seat, name in enumerate(result.strategies):
            rows[name].games += 1
            rows[name].scores.add(result.scores[seat])
        if self.spec.seats > 1:
            shared = winners(result.ranking, result.figures)
            for seat in shared:
                self._wins[result.strategies[seat]] += Fraction(1, len(shared))
            for i, a in enumerate(result.ranking):
                for b in result.ranking[i + 1 :]:
                    pair = (result.strategies[a], result.strategies[b])
                    (self._draws if a in shared and b in shared else self._pairs)[pair] += 1
            return
        self._goal = self._goal or "won" in result.figures
        if result.figures.get("won"):
            name = result.strategies[0]
            self._wins[name] += 1
            for figure, title in self._solo.items():
                if figure in result.figures:
                    rows[name].figures[title].add(result.figures[figure])

    def rows(self) -> list[Row]:
        """One row per strategy, in lineup order."""
        for name, row in self._rows.items():
            row.wins = float(self._wins[name])
            row.goal = self._goal
            if not self._goal:
                row.figures = {}
        if len(self.names) > 1 and (self._pairs or self._draws):
            elo = fit_elo(self._pairs.elements(), self.names, self._draws.elements())
            for name, rating in elo.items():
                self._rows[name].elo = rating
        return [self._rows[name] for name in self.names]


def summarize(spec: TournamentSpec, results: Iterable[GameResult]) -> list[Row]:
    """The result table of ``results`` (:class:`Standings`), one row per strategy in lineup
    order."""
    standings = Standings(spec)
    for result in results:
        standings.add(result)
    return standings.rows()


def _whole(wins: float) -> float:
    """Wins as counted, an int unless some were shared (then to a tenth)."""
    return int(wins) if wins == int(wins) else round(wins, 1)


def _solo_figures(spec: TournamentSpec) -> dict[str, str]:
    """Result figure -> column title, for the one-seat games of a game that names some."""
    return getattr(game_bots(spec.game), "SOLO_FIGURES", {}) if spec.seats == 1 else {}


#: The width the table keeps to (a terminal's 80 columns), a name too long for it aside.
TABLE_WIDTH = 80


def format_table(spec: TournamentSpec, rows: Sequence[Row], seconds: float) -> str:
    """The table as text for a terminal.

    Several seats: wins and Elo. One seat with a goal: how often it was reached, and the
    game's figures of the won games (fewer is better). One seat without a goal: final scores
    only.
    """
    game = get_game(spec.game)
    config = ", ".join(config_words(spec.config))
    lines = _wrapped(f"{plural(spec.games, 'game')} of {game.title} ({config}), "
                     f"{plural(spec.seats, 'seat')}, lineup {','.join(spec.lineup)}, "
                     f"seed {spec.seed}, {seconds:.0f} s")
    several = spec.seats > 1
    goal = several or any(row.goal for row in rows)
    # As wide as the longest name, as far as the figures leave room in a terminal's 80
    # columns: one's own strategy is named by its module or file (a path), and a row that
    # wrapped put its figures under the next row's name.
    head = f" {'games':>6}"
    if goal:
        head += f" {'wins' if several else 'goal':>6} {'share':>7} {'95% CI':>15}"
    head += f" {'mean score':>11}"
    titles = list(rows[0].figures) if rows else []
    if several:
        head += f" {'Elo':>7}"
    elif titles:
        head += "".join(f" {'mean ' + t:>11} {'best':>5}" for t in titles)
    else:
        head += f" {'best':>5}"
    width = max(10, min(max((len(row.strategy) for row in rows), default=0),
                        TABLE_WIDTH - len(head)))
    lines.append(f"{'strategy':<{width}}{head}")
    for row in rows:
        if len(row.strategy) > width:  # whole on a line of its own, its figures under it
            lines.append(row.strategy)
        line = f"{row.strategy if len(row.strategy) <= width else '':<{width}} {row.games:>6}"
        if goal:
            low, high = row.ci
            line += f" {_whole(row.wins):>6} {row.share:>7.1%} {f'{low:.1%}-{high:.1%}':>15}"
        line += f" {row.mean_score:>11.2f}"
        if several:
            line += f" {row.elo:>7.0f}"
        elif titles:
            for values in row.figures.values():
                mean = f"{values.mean:.2f}" if values.count else "-"
                line += f" {mean:>11} {values.least if values.count else '-':>5}"
        else:
            line += f" {row.scores.most if row.scores.count else '-':>5}"
        lines.append(line)
    if several:
        # A strategy at two seats has two results a game: its row is per seat, which the
        # table's "games" alone would not say (16 games in a tournament of 8).
        for row in rows:
            held = Counter(spec.lineup)[row.strategy]
            if held > 1:
                lines += _wrapped(f"{row.strategy} plays {held} seats of each game: its row is "
                                  f"per seat ({row.games} seat-games in "
                                  f"{plural(spec.games, 'game')})")
    return "\n".join(lines)


def _wrapped(sentence: str) -> list[str]:
    """``sentence`` in lines of the table's width, the later ones indented: a lineup of four,
    or of strategies named by their paths, took the title past a terminal's 80 columns. A
    name longer than that stays whole."""
    return textwrap.wrap(sentence, TABLE_WIDTH, subsequent_indent="  ",
                         break_long_words=False, break_on_hyphens=False)
