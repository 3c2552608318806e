"""The analysis (`sagani analyze`): a decision that throws away a lot is marked, in every game;
random play is marked more than greedy play; the same analysis on every run with an iteration
budget; and a change to a later draw or roll changes no verdict before it (the search sees what
the seat knew, nothing more). Searches are kept short: a few dozen to a few hundred iterations
on records of a few dozen decisions."""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import os
import random
import re
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
from test_net_support import RUN_SAGANI

from sagani_net import analysis as analysis_module
from sagani_net.analysis import (
    Analysis,
    Effort,
    Verdict,
    analyse,
    decisions,
    format_analysis,
    judge,
    shown,
    summarize,
)
from sagani_net.bots import make_policy
from sagani_net.bots.tournament import GameSpec, play_local
from sagani_net.cli.console.app import Replay, replay_frames
from sagani_net.cli.console.model import ConsoleModel
from sagani_net.cli.main import main
from sagani_net.game import Data, GameState, RuleError, without_seat
from sagani_net.games import get_game
from sagani_net.games.sagani import bots as sagani_bots
from sagani_net.games.sagrada import bots as sagrada_bots
from sagani_net.games.sagrada.rules import PASS
from sagani_net.games.sugi import bots as sugi_bots
from sagani_net.gameui import columns

#: A bad move at a position, and how much the game's own one-ply knowledge says it throws away
#: (None where there is no such choice).
Bad = Callable[[GameState], tuple[float, Any] | None]


def _after(state: GameState, action: Any, seat: int, evaluate: Callable[..., float]) -> float:
    after = state.clone()
    after.apply(action)
    return evaluate(after, seat)


def sagani_pass_in_intermezzo(state: Any) -> tuple[float, Any] | None:
    """Passing in an intermezzo, when the storage holds a tile worth placing: a free tile
    thrown away."""
    if state.phase != "choose" or state.intermezzo is None or not state.storage:
        return None
    worth = max(sagani_bots.best_placement(state, tile)[0] for tile in state.storage)
    return worth, next(a for a in state.legal_actions() if a.type == "pass")


def sagani_take_worthless_tile(state: Any) -> tuple[float, Any] | None:
    """Taking the offer's tile whose best placement is worth least to the seat, when another
    is worth more: a turn thrown away.

    One ply is a poor judge of a take later on (a tile that scores now can cost the flips to
    come), so the test takes it early: at seed 1's decision 10 (2.0 points of placement
    worth between the takes), greedy's own play to the end from there wins 80% of 40 sampled
    deals with a mean margin of +13.3 after greedy's take, 42.5% and -3.8 after this one."""
    if state.phase != "choose" or state.intermezzo is not None or len(state.offer) < 2:
        return None
    takes = sorted(((sagani_bots.best_placement(state, state.offer[a.index])[0], a)
                    for a in state.legal_actions() if a.type == "take"), key=lambda va: va[0])
    return takes[-1][0] - takes[0][0], takes[0][1]


def sagani_worst_placement(state: Any) -> tuple[float, Any] | None:
    """The placement greedy likes least of the tile in hand."""
    if state.phase != "place":
        return None
    ranked = sagani_bots.ranked_placements(state.seats[state.seat], state.held, True)
    return ranked[0][0] - ranked[-1][0], ranked[-1][1]


def sagrada_pass_with_a_good_die(state: Any) -> tuple[float, Any] | None:
    """Passing when a die could go in the window: a placement thrown away."""
    if (state.phase != "play" or state.drafted or state.step is not None
            or PASS not in state.legal_actions()):
        return None
    drafts = [a for a in state.legal_actions() if a.kind == "draft" and a.cell >= 0]
    if not drafts:
        return None
    best = max(_after(state, a, state.seat, sagrada_bots.evaluate) for a in drafts)
    return best - _after(state, PASS, state.seat, sagrada_bots.evaluate), PASS


def sugi_samurai_back(state: Any) -> tuple[float, Any] | None:
    """The card of the hand turned the way the seat's own one-ply evaluation likes least: its
    samurai sent back (by the evaluation, not the card's arrows alone, which would count a
    step off the board's edge, a step that never happens)."""
    if state.phase != "plan":
        return None
    moves = [a for a in state.legal_actions() if a.type == "timeline"]
    if not moves:
        return None
    values = sorted(((_after(state, a, state.seat, sugi_bots.evaluate), a) for a in moves),
                    key=lambda va: va[0])
    return values[-1][0] - values[0][0], values[0][1]


def greedy_game(game: str, seed: int, decisions_: int) -> list[GameState]:
    """The states before each of the first ``decisions_`` decisions of greedy against greedy."""
    rules = get_game(game)
    state = rules.new_state(rules.parse_config({}), seed)
    greedy = make_policy("greedy", game=game)
    rng = random.Random(seed)
    states = []
    while not state.is_over() and len(states) < decisions_:
        states.append(state.clone())
        state.apply(greedy.choose(state.clone(), rng))
    return states


def record_with(game: str, seed: int, bad: Bad, look: int) -> tuple[Data, Data, int]:
    """Greedy against greedy, but at the decision (of the first ``look``) where ``bad`` throws
    away the most by the game's one-ply knowledge, the bad move: the record up to it, the
    record of greedy's move there instead, and the decision's number."""
    states = greedy_game(game, seed, look)
    found = [(r[0], n) for n, s in enumerate(states) if (r := bad(s)) is not None]
    _, at = max(found)
    records = []
    for choice in (bad(states[at])[1], make_policy("greedy", game=game)  # type: ignore[index]
                   .choose(states[at].clone(), random.Random(seed))):
        state = states[at].clone()
        state.apply(choice)
        records.append(state.to_record())
    return records[0], records[1], at


def verdict_at(record: Data, index: int, iterations: int) -> Verdict:
    analysis = analyse(record, Effort(iterations), workers=1, only=lambda d: d.index == index)
    (verdict,) = analysis.verdicts
    return verdict


@pytest.mark.parametrize(("game", "seed", "bad", "look", "iterations"), [
    ("sagani", 1, sagani_take_worthless_tile, 11, 150),
    ("sagani", 1, sagani_pass_in_intermezzo, 100, 200),
    ("sagani", 1, sagani_worst_placement, 60, 150),
    ("sagrada", 1, sagrada_pass_with_a_good_die, 40, 100),
    # Sugi's moves are many and close in value: at 100 iterations this verdict's loss was 0.01
    # on one sample and 0.07 on another (the seat's view, edition and all, seeds the search);
    # measured again before it is marked (judge), 0.004 at 200, 0.058 at 300 (0.063-0.093 at
    # 3000 iterations on three samples).
    ("sugi", 1, sugi_samurai_back, 20, 300),
])
def test_a_decision_that_throws_away_a_lot_is_marked_and_greedy_there_is_not(
        game: str, seed: int, bad: Bad, look: int, iterations: int) -> None:
    bad_record, greedy_record, at = record_with(game, seed, bad, look)
    worse = verdict_at(bad_record, at, iterations)
    assert worse.mark in ("mistake", "blunder"), worse
    assert worse.best != worse.played and worse.value_best > worse.value_played  # type: ignore[operator]
    greedy = verdict_at(greedy_record, at, iterations)
    assert greedy.loss < worse.loss, greedy


@pytest.mark.parametrize(("game", "players", "turns"), [
    # A turn ends with its placement (after a take, a draw, a pick or a reveal), or a pass.
    ("sagani", 1, lambda record: sum(a["type"] in ("place", "pass") for a in record["actions"])),
    ("sagani", 3, lambda record: sum(a["type"] in ("place", "pass") for a in record["actions"])),
    ("sagrada", 3, lambda record: 3 + 10 * 6),  # a pattern each, then 2 turns a seat a round
    ("sagrada", 1, lambda record: 1 + 10 * 2),
])
def test_a_decisions_turn_counts_the_games_turns_even_when_one_seat_plays_on(
        game: str, players: int, turns: Callable[[Data], int]) -> None:
    """A solo player's every decision is theirs, and Sagrada's last seat plays twice in a row
    (the snake): each of those turns counts, where a run of one seat's decisions made one."""
    record = play_local(GameSpec(0, game, get_game(game).parse_config({"players": players}), 5,
                                 ("greedy",) * players)).record
    found = decisions(record)
    assert found[-1].turn == turns(record)
    assert [d.turn for d in found] == sorted(d.turn for d in found)


# 60 iterations a decision for Sagani and Sagrada: on these records the gap is wide at 60
# (Sagani seed 3, the first 30 decisions: greedy 0 marked, mean loss 0.009; random 7, 0.042) and
# no wider at 150 (1 against 6); the budget makes the analysis the same on every run. Sugi's
# many close moves need 120: at 60, greedy was marked as often as random on 3 of seeds 1-4
# (12 against 12 on seed 2), at 120 less often on all four (9 against 12 on seed 2). Sugi's
# first 20 decisions are enough since its marks are confirmed by a second search (greedy 1-3
# marked against random 3-5 on seeds 1-4), and that search doubles what each decision costs.
@pytest.mark.parametrize(("game", "seed", "iterations", "first"),
                         [("sagani", 3, 60, 30), ("sagrada", 2, 60, 30), ("sugi", 2, 120, 20)])
def test_random_play_is_marked_more_than_greedy_play(game: str, seed: int, iterations: int,
                                                     first: int) -> None:
    record = play_local(GameSpec(0, game, get_game(game).parse_config({}), seed,
                                 ("greedy", "random"))).record
    # One worker: a pool of two gives the same analysis (the test below), at a pool's start-up.
    analysis = analyse(record, Effort(iterations), workers=1, only=lambda d: d.index < first)
    greedy, random_ = analysis.summary
    assert greedy.decisions and random_.decisions
    assert greedy.mistakes + greedy.blunders < random_.mistakes + random_.blunders, (
        greedy, random_)
    assert greedy.mean_loss < random_.mean_loss


def _without_time(data: Data) -> Data:
    for verdict in data["decisions"]:
        del verdict["seconds"]
    for key in ("seconds", "workers", "seconds_per_decision"):
        del data[key]
    return data


@pytest.mark.parametrize("game", ["sagani", "sagrada", "sugi"])
def test_the_analysis_is_the_same_on_every_run_with_an_iteration_budget(game: str) -> None:
    record = play_local(GameSpec(0, game, get_game(game).parse_config({}), 4,
                                 ("greedy", "random"))).record
    short = {k: v for k, v in record.items() if k != "result"}
    short["actions"] = record["actions"][:10]
    one = analyse(short, Effort(40), workers=1).to_data()
    two = analyse(short, Effort(40), workers=2).to_data()
    assert one["decisions"][0]["value_best"] is not None
    assert _without_time(one) == _without_time(two)


def test_a_later_draw_changed_in_a_sagani_record_changes_no_earlier_verdict() -> None:
    record = play_local(GameSpec(0, "sagani", {"players": 2, "mode": "multi"}, 6,
                                 ("greedy", "greedy"))).record
    rules = get_game("sagani")
    # The decisions before the offer's last tile is taken: their searches (4 turns deep) reach
    # the refill, so a search that peeked at the record's pile would see the tiles changed.
    start = {k: v for k, v in record.items() if k not in ("actions", "result")}
    state = rules.from_record({**start, "actions": []})
    k = 0
    while not (state.phase == "choose" and len(state.offer) == 1):
        state.apply(state.parse_action(without_seat(record["actions"][k])))
        k += 1
    prefix = {**start, "actions": record["actions"][:k]}
    # The refill's hidden tiles (after the top, whose back is public) swapped for the pile's
    # last four: another refill, the same views.
    drawn = 72 - len(state.pile)
    tiles = list(prefix["tiles"])
    tiles[drawn + 1:drawn + 5], tiles[-4:] = tiles[-4:], tiles[drawn + 1:drawn + 5]
    changed = {**prefix, "tiles": tiles}
    refills = []
    for one in (prefix, changed):
        after = rules.from_record(one)
        for data in record["actions"][k:]:
            after.apply(after.parse_action(without_seat(data)))
            if after.offer:
                break
        refills.append(sorted(after.offer))
    assert refills[0] != refills[1]
    assert [d.view for d in decisions(changed)] == [d.view for d in decisions(prefix)]
    late = 6  # the last decisions before the refill; the earlier ones add nothing to the test
    same = analyse(prefix, Effort(40), workers=1, only=lambda d: d.index >= k - late).to_data()
    other = analyse(changed, Effort(40), workers=1, only=lambda d: d.index >= k - late).to_data()
    assert len(same["decisions"]) == late
    assert _without_time(same) == _without_time(other)


def test_a_later_roll_changed_in_a_sagrada_record_changes_no_earlier_verdict() -> None:
    record = play_local(GameSpec(0, "sagrada", get_game("sagrada").parse_config({}), 6,
                                 ("greedy", "greedy"))).record
    prefix = {**{k: v for k, v in record.items() if k != "result"},
              "actions": record["actions"][:8]}
    rolls = [list(r) for r in record["rolls"]]
    # The last round's pool, every die another number: a future the first round cannot see.
    rolls[-1] = [die[0] + str(int(die[1:]) % 6 + 1) for die in rolls[-1]]
    changed = {**prefix, "rolls": rolls}
    # The first round's decisions have not reached that roll.
    assert len(get_game("sagrada").from_record(changed).rolls) < len(rolls)
    assert changed["rolls"] != prefix["rolls"]
    same = analyse(prefix, Effort(40), workers=1).to_data()
    other = analyse(changed, Effort(40), workers=1).to_data()
    assert _without_time(same) == _without_time(other)


def test_a_solo_sagrada_pattern_choice_is_judged_on_what_the_patterns_promise() -> None:
    """Solo rewards are centred on what the position promised; before a pattern is chosen
    that was 0, some 40 points above the margin a window reaches, so each pattern got 0.2%
    and the choice went unjudged ('solo reward 0%, the search's choice too')."""
    record = play_local(GameSpec(0, "sagrada", get_game("sagrada").parse_config(
        {"players": 1}), 7, ("greedy",))).record
    choice = decisions(record)[0]
    assert choice.played["type"] == "choose"
    values = []
    for pattern in range(4):
        verdict = judge(dataclasses.replace(choice, played={"type": "choose",
                                                           "pattern": pattern}), Effort(100))
        assert verdict.value_played is not None and 0.1 < verdict.value_played < 0.9, verdict
        values.append(verdict.value_played)
    assert max(values) - min(values) > 0.05, values

def test_sagani_analyze_writes_the_json_of_record_md_and_mistakes_are_one_line(
        tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    record = play_local(GameSpec(0, "sugi", get_game("sugi").parse_config({}), 3,
                                 ("greedy", "random"))).record
    record["actions"] = record["actions"][:6]
    record.pop("result")
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    sagani = [*RUN_SAGANI, "analyze"]
    # From standard input, as `sagani record export T | sagani analyze -` gives it.
    done = subprocess.run([*sagani, "-", "--iterations", "20", "--json", "--workers", "1"],
                          input=path.read_text(), capture_output=True, text=True, check=True)
    data = json.loads(done.stdout)
    assert data["game"] == "sugi" and len(data["decisions"]) == 6
    for verdict in data["decisions"]:
        assert {"index", "seat", "played", "best", "value_played", "value_best", "loss",
                "mark"} <= set(verdict)
    assert [s["seat"] for s in data["summary"]] == [0, 1]
    timed = subprocess.run([*sagani, str(path), "--think", "0.01", "--json", "--workers", "1"],
                           capture_output=True, text=True, check=True)
    assert json.loads(timed.stdout)["effort"] == {"iterations": None, "think_s": 0.01}
    table = subprocess.run([*sagani, str(path), "--iterations", "20", "--quiet"],
                           capture_output=True, text=True, check=True).stdout
    assert "mean loss" in table and "decisions searched" in table
    # A record without its result is a game not over: the first line says the summary is of
    # part of a game, where it read as a whole game's.
    assert table.splitlines()[0].startswith("Sugi: 6 decisions"), table
    assert table.splitlines()[1] == UNFINISHED, table
    (tmp_path / "bad.json").write_text('{"game": "sugi", "actions": 3, "seed": 1}')
    for args in ([str(tmp_path / "bad.json")], [str(tmp_path / "none.json")], [],
                 [str(path), "--iterations", "0"], [str(path), "--table", "t1"],
                 # said at once, not after an analysis that would take hours
                 [str(path), "--iterations", "100000000", "--json",
                  str(tmp_path / "no" / "such.json")],
                 [str(path), "--iterations", "100000000", "--json", str(tmp_path)]):
        failed = subprocess.run([*sagani, *args], capture_output=True, text=True, timeout=60)
        assert failed.returncode == 2 and failed.stderr.count("\n") == 1, (args, failed.stderr)
        assert failed.stderr.startswith("sagani analyze: ")
    failed = subprocess.run([*sagani, "-"], input='{"game": "sugi"', capture_output=True,
                            text=True, timeout=60)
    assert failed.returncode == 2
    assert failed.stderr.startswith("sagani analyze: cannot analyze standard input: not JSON")
    # The console reads its keys there: a replay takes a record from it only to print.
    assert main(["replay", "-"]) == 2
    assert "give --print, or a file" in capsys.readouterr().err


def test_sagani_analyze_will_not_write_its_json_over_the_record(
        tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """'sagani analyze game.json --json game.json' wrote the analysis over the game: the
    record was gone ('the record has no tiles')."""
    record = play_local(GameSpec(0, "sugi", {"players": 2}, 5, ("greedy", "random"))).record
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    for target in (path, tmp_path / "." / "game.json"):
        code = main(["analyze", str(path), "--iterations", "5", "--json", str(target)])
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1, err
        assert err.startswith("sagani analyze: --json ") and "the record itself" in err, err
    assert json.loads(path.read_text()) == record

def test_a_later_draw_changed_in_a_sugi_record_changes_no_earlier_verdict() -> None:
    record = play_local(GameSpec(0, "sugi", get_game("sugi").parse_config({}), 5,
                                 ("greedy", "greedy"))).record
    prefix = {**{k: v for k, v in record.items() if k != "result"},
              "actions": record["actions"][:6]}
    deal = json.loads(json.dumps(record["deal"]))
    # The second and third cards to be drawn (the deck's top first): nobody has seen them.
    deal["deck"][1], deal["deck"][2] = deal["deck"][2], deal["deck"][1]
    changed = {**prefix, "deal": deal}
    assert get_game("sugi").from_record(changed).deck != get_game("sugi").from_record(prefix).deck
    assert [(d.view, d.private) for d in decisions(changed)] == \
        [(d.view, d.private) for d in decisions(prefix)]
    same = analyse(prefix, Effort(40), workers=1).to_data()
    other = analyse(changed, Effort(40), workers=1).to_data()
    assert _without_time(same) == _without_time(other)


def test_sagani_analyze_reads_a_finished_table_from_a_data_dir(tmp_path: Any) -> None:
    sagani = [sys.executable, "-m", "sagani_net.cli.main"]
    done = subprocess.run([*sagani, "play", "--game", "sugi", "--autoplay", "greedy", "--bots",
                           "random", "--seed", "4", "--new", "--data-dir", str(tmp_path)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    table = re.search(r"table (\w+): over", done.stdout)
    assert table is not None, done.stdout
    analysed = subprocess.run([*sagani, "analyze", "--table", table.group(1), "--data-dir",
                               str(tmp_path), "--iterations", "5", "--json"],
                              capture_output=True, text=True)
    assert analysed.returncode == 0, analysed.stderr
    data = json.loads(analysed.stdout)
    record = json.loads(next((tmp_path / "records").glob("*.json")).read_text())
    assert data["game"] == "sugi" and len(data["decisions"]) == len(record["actions"])
    missing = subprocess.run([*sagani, "analyze", "--table", "nope", "--data-dir",
                              str(tmp_path)], capture_output=True, text=True)
    assert missing.returncode == 2 and missing.stderr.startswith("sagani analyze: cannot "
                                                                 "analyze nope: ")


class _Enough(Exception):
    """What the test's on_verdict raises to end an analysis early."""


_SEARCHED: list[Any] = []  # where judge_noted writes (a path), set by the test


def judge_noted(decision: Any, effort: Effort) -> Verdict:
    """``judge`` that notes each decision it searches in a file (the workers are forked). The
    first decision is searched briefly, so that its verdict, which ends the analysis, comes
    while the others' long searches are still under way."""
    with open(_SEARCHED[0], "a") as noted:
        noted.write(f"{decision.index}\n")
    return judge(decision, Effort(20) if decision.index == 0 else effort)


@pytest.mark.parametrize("workers", [1, 2])
def test_an_exception_from_on_verdict_ends_the_analysis_without_searching_the_rest(
        workers: int, tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C or a console that closes stops an analysis at its next verdict: the decisions
    not yet started are not searched (a pool would otherwise search them all first), and the
    workers are stopped."""
    record = play_local(GameSpec(0, "sugi", get_game("sugi").parse_config({}), 3,
                                 ("greedy", "random"))).record
    total = len(record["actions"])
    _SEARCHED[:] = [tmp_path / "searched"]
    monkeypatch.setattr(analysis_module, "judge", judge_noted)

    def enough(done: int, total_: int) -> None:
        raise _Enough

    # Children of this process that were there before (another test's) are not this pool's.
    before = set(multiprocessing.active_children())
    with pytest.raises(_Enough):
        # Long enough searches that the workers are still at theirs when the first ends.
        analyse(record, Effort(4000), workers=workers, on_verdict=enough,
                context=multiprocessing.get_context("fork"))
    searched = (tmp_path / "searched").read_text().split()
    # The one judged, those the workers were searching, and those queued for them (one more
    # than the workers: ProcessPoolExecutor's call queue); none of the rest.
    assert total > 20 and len(searched) <= 1 + 2 * workers + 1, searched
    # The searches under way are stopped, not waited for.
    assert set(multiprocessing.active_children()) - before == set()


@pytest.mark.parametrize(("players", "mode", "measure"), [(3, "multi", "win_chance"),
                                                           (1, "solo", "solo_reward")])
def test_a_first_format_sagani_record_is_analysed_with_its_own_players_and_mode(
        players: int, mode: str, measure: str) -> None:
    """A record of the first format (players and mode, no config) replays, and its analysis
    read the default config: a 3-player game's summary had 2 seats, a solo game a win chance."""
    policies = ("greedy",) * players
    record = play_local(GameSpec(0, "sagani", {"players": players, "mode": mode}, 3,
                                 policies)).record
    first = {k: v for k, v in record.items() if k != "config"}
    first.update(players=players, mode=mode)
    result = analyse(first, Effort(5), workers=1, only=lambda d: d.index < 2 * players)
    assert result.measure == measure
    assert [s.seat for s in result.summary] == list(range(players))

#: What the text of a record without a result says under its first line.
UNFINISHED = "the record stops before the game's end: this is the game so far"


def test_an_analysis_starts_no_more_workers_than_it_has_decisions() -> None:
    """'--workers 1000' on a short record forked 1,000 processes for a few searches (8.7 s
    for 20 decisions a single worker judges in 0.2 s) and said 'on 1000 workers'."""
    record = play_local(GameSpec(0, "sugi", {"players": 2}, 5, ("greedy", "random"))).record
    short = {**{k: v for k, v in record.items() if k != "result"},
             "actions": record["actions"][:3]}
    before = set(multiprocessing.active_children())
    alive: list[int] = []
    result = analyse(short, Effort(5), workers=40,
                     on_verdict=lambda done, total: alive.append(
                         len(set(multiprocessing.active_children()) - before)),
                     context=multiprocessing.get_context("fork"))
    # On a machine of fewer cores, fewer still (the next test).
    most = min(3, os.cpu_count() or 1)
    assert result.workers == most and max(alive) <= most, (result.workers, alive)
    assert f"on {most} worker" in format_analysis(result)
    part, whole = format_analysis(result), format_analysis(dataclasses.replace(result, over=True))
    assert UNFINISHED not in whole
    lines = whole.splitlines()
    assert part.splitlines() == [lines[0], UNFINISHED, *lines[1:]], (whole, part)


def test_an_analysis_starts_no_more_workers_than_there_are_cores() -> None:
    """'sagani analyze --workers 1024' on a 5-seat Sugi game forked 482 processes on 2 cores:
    2.2 GB more in use where 2 workers take some 0.1, no sooner done, and each search's wall
    time under that crowd was reported as '31.17 s of one core each' (for 0.07)."""
    record = play_local(GameSpec(0, "sugi", {"players": 2}, 5, ("greedy", "random"))).record
    cores = os.cpu_count() or 1
    short = {**{k: v for k, v in record.items() if k != "result"},
             "actions": record["actions"][:cores + 2]}
    before = set(multiprocessing.active_children())
    alive: list[int] = []
    result = analyse(short, Effort(5), workers=cores + 2,
                     on_verdict=lambda done, total: alive.append(
                         len(set(multiprocessing.active_children()) - before)),
                     context=multiprocessing.get_context("fork"))
    assert result.workers == cores and max(alive) <= cores, (result.workers, alive)


def test_a_whole_game_without_its_result_is_analysed_as_a_whole_game(
        tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """A record may leave its result out (protocol/RECORD.md); one whose moves end the game is
    still a whole game (sagani replay --print names its winner), and sagani analyze said 'the
    record stops before the game's end', reading the missing result alone. The JSON says
    whether the game is over too: a program had only the text to tell."""
    record = play_local(GameSpec(0, "sugi", {"players": 2}, 5, ("greedy", "random"))).record
    cut = {**record, "actions": record["actions"][:3]}
    for name, game, over in (("whole", record, True), ("cut", cut, False)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps({k: v for k, v in game.items() if k != "result"}))
        assert main(["analyze", str(path), "--iterations", "2", "--workers", "1", "--quiet",
                     "--json", str(tmp_path / f"{name}-analysis.json")]) == 0
        text = capsys.readouterr().out
        assert (UNFINISHED in text) is not over, text
        assert json.loads((tmp_path / f"{name}-analysis.json").read_text())["over"] is over

@pytest.mark.parametrize(("game", "played", "best", "rows"), [
    ("sagani", "place -1,-2 270", "place -10,-12 180", 1),
    ("sugi", "action 14 free 20 t1 rot 180", "action 14 free 20 t3 rot 180", 2),
])
def test_the_analysis_text_keeps_to_80_columns_and_writes_every_move_whole(
        game: str, played: str, best: str, rows: int) -> None:
    """Two moves that differ only at their ends read apart: written whole, side by side when
    they fit, else the best under the one played (Sugi's long actions)."""
    verdicts = [Verdict(i, i % 2, i + 1, played, best, 0.2, 0.5, 0.3, "blunder")
                for i in range(3)]
    seats = [f"a player with a long name {n}" for n in (1, 2)]
    text = format_analysis(Analysis(game, "win_chance", Effort(), verdicts, 9.0, 2,
                                    summarize(verdicts, 2)), seats)
    lines = text.splitlines()
    assert all(len(line) <= 80 for line in lines), text
    marked = [n for n, line in enumerate(lines) if line.rstrip().endswith("blunder")]
    assert len(marked) == 3
    for n in marked:
        shown = " ".join(lines[n:n + rows])
        assert played in shown and best in shown, text
    # The name is cut inside its parentheses ("seat 1 (a player with" lost the closing one).
    assert ("seat 1 (a player with a long) costliest: move 1 (turn 1) -30.0, move 3 (turn 3) "
            "-30.0" in " ".join(text.split())), text


def test_the_analysis_text_keeps_to_80_columns_with_names_in_chinese() -> None:
    """A name's characters in Chinese take two columns each: cut by characters, the summary's
    columns went out of line and a costliest line ran to 93 columns."""
    verdicts = [Verdict(i, i % 2, i + 1, "place 0,1 0", "place 0,2 90", 0.2, 0.5, 0.3,
                        "blunder") for i in range(6)]
    text = format_analysis(Analysis("sagani", "win_chance", Effort(), verdicts, 9.0, 2,
                                    summarize(verdicts, 2)), ["汉字" * 9, "ann"])
    lines = text.splitlines()
    assert all(columns(line) <= 80 for line in lines), text
    rows = [line for line in lines if line.startswith("seat ") and "costliest" not in line]
    assert len({columns(row) for row in rows}) == 1, text

def test_a_name_in_the_analysis_text_cannot_write_to_the_terminal() -> None:
    """A record's names are a file's: 'ann\\x1b[2J' cleared the screen of whoever read the
    analysis, 'bob\\r...' wrote over its own row."""
    verdicts = [Verdict(i, i % 2, i + 1, "place 0,1 0", "place 0,2 90", 0.2, 0.5, 0.3,
                        "blunder") for i in range(4)]
    text = format_analysis(Analysis("sagani", "win_chance", Effort(), verdicts, 9.0, 2,
                                    summarize(verdicts, 2)), ["ann\x1b[2J", "bob\rseat 1"])
    assert "\x1b" not in text and "\r" not in text, repr(text)
    assert "seat 1 (ann\\x1b[2J)" in text, text

def test_the_costliest_decisions_are_told_apart_when_one_turn_has_two() -> None:
    """A Sagani turn is two decisions (take a tile, place it): both may be costly, and the
    summary names each by its move as the table does, never the same words twice; a long list
    wraps between entries, never inside one."""
    verdicts = [Verdict(i, 0, 7 + i // 2, f"place {i},0 0", "place 9,9 0", 0.2, 0.5, 0.3,
                        "blunder") for i in range(4)]
    seats = ["a player with a long name"]
    text = format_analysis(Analysis("sagani", "win_chance", Effort(), verdicts, 9.0, 2,
                                    summarize(verdicts, 1)), seats)
    lines = text.splitlines()
    start = next(n for n, line in enumerate(lines) if "costliest:" in line)
    said = " ".join(lines[start:]).split("costliest:")[1]
    entries = [e.strip() for e in said.split(",")][:3]
    assert (entries[0].startswith("move 1 (turn 7)")
            and entries[1].startswith("move 2 (turn 7)")), text
    assert len(set(entries)) == 3
    wrapped = lines[start + 1]
    assert all(len(line) <= 80 for line in lines), text
    assert re.fullmatch(r" +move \d+ \(turn \d+\) -\d+\.\d,?", wrapped), text



def test_the_analysis_text_numbers_sagani_offer_tiles_from_1_as_the_console_does() -> None:
    """The console shows the offer as [1]..[5] and takes tile 1 with 'take 1'; the text form
    (the JSON's) counts from 0. The text said 'take 0, best take 2': a player took the third
    tile for the best, which was the second."""
    verdicts = [Verdict(0, 0, 1, "take 0", "take 2", 0.4, 0.6, 0.2, "blunder",
                        best_line=("take 2", "place 0,1 90")),
                Verdict(1, 1, 2, "pick 1", "pass", 0.4, 0.5, 0.1, "mistake")]
    text = format_analysis(Analysis("sagani", "win_chance", Effort(), verdicts, 1.0, 1,
                                    summarize(verdicts, 2)))
    rows = [line.split() for line in text.splitlines() if line.endswith(("blunder", "mistake"))]
    assert [row[3:8] for row in rows] == [["take", "1", "take", "3", "40"],
                                          ["pick", "2", "pass", "40", "50"]], text
    assert Analysis("sagani", "win_chance", Effort(), verdicts).to_data()[
        "decisions"][0]["played"] == "take 0"  # the JSON keeps the text form

def test_the_analysis_text_counts_forced_decisions_apart_from_the_searched() -> None:
    """A solo Sagani game reveals a tile with one legal move before each placement: the head
    line said twice the decisions the seat summary and the closing line count."""
    verdicts = [Verdict(i, 0, 1 + i // 2, "reveal", "reveal", None, None, 0.0, None,
                        forced=True) if i % 2 == 0 else
                Verdict(i, 0, 1 + i // 2, "place 0,1 0", "place 0,1 90", 0.4, 0.5, 0.1, None)
                for i in range(6)]
    text = format_analysis(Analysis("sagani", "solo_reward", Effort(), verdicts, 1.0, 1,
                                    summarize(verdicts, 1)))
    lines = text.splitlines()
    assert lines[0] == "Sagani: 6 decisions (3 forced: one legal move, not searched)", text
    seat = next(line for line in lines if line.startswith("seat 1 "))
    assert seat.split()[2] == "3", text
    assert "(3 decisions searched" in text

def test_the_moves_the_host_played_are_shown_as_its_own_and_not_judged() -> None:
    """A record's ``host_played`` (RECORD.md): a replay showed the host's default move past a
    seat's clock, and its stand-in's moves, as the seat's own, and the analysis searched and
    marked them as the seat's. Now the replay says whose they were, as the live updates did,
    and the analysis leaves them out of the seat's figures."""
    record = play_local(GameSpec(0, "sagani", {"players": 2, "mode": "multi"}, 3,
                                 ("random", "random"))).record
    seat_of = [action["seat"] for action in record["actions"]]
    # Seat 1's first decision ran out of time; its next two the host's bot played (away).
    mine = [i for i, seat in enumerate(seat_of) if seat == 1]
    late, stood = mine[0], mine[1:3]
    back = mine[3]
    record["host_played"] = [{"index": late, "reason": "deadline"},
                             *({"index": i, "reason": "stand_in"} for i in stood)]
    frames = replay_frames(record)
    told = [[e["type"] for e in events if e.get("seat") == 1 and e["type"] in
             ("deadline_missed", "stand_in", "stand_in_left")] for _, events in frames]
    assert told[late + 1] == ["deadline_missed"]
    assert told[stood[0] + 1] == ["stand_in"] and told[stood[1] + 1] == []
    assert told[back + 1] == ["stand_in_left"]
    assert sum(map(bool, told)) == 3
    model = ConsoleModel(seats=[{"name": "ann"}, {"name": "bob"}], game="sagani")
    Replay(frames, record=record).show(model, len(frames) - 1)
    said = " ".join(model.host_play())
    assert "bob ran out of time once: the host played the default move." in said, said
    assert "The host's greedy bot played bob's seat" in said, said
    # Judged: the seat's own decisions only (the first four of the game, and the host's).
    wanted = {0, 1, 2, 3, late, *stood}
    result = analyse(record, Effort(iterations=20), workers=1,
                     only=lambda d: d.index in wanted)
    by_index = {v.index: v for v in result.verdicts}
    for index in (late, *stood):
        v = by_index[index]
        assert v.host == ("deadline" if index == late else "stand_in")
        assert (v.mark, v.value_played, v.iterations, v.searched) == (None, None, 0, False)
        assert Verdict.from_data(json.loads(json.dumps(v.to_data()))) == v
    searched = sum(v.searched for v in result.verdicts if v.seat == 1)
    assert result.summary[1].decisions == searched == len([i for i in wanted - {late, *stood}
                                                           if seat_of[i] == 1])
    text = format_analysis(result, every=True)
    assert "3 played by the host for the seat, not searched" in text.splitlines()[0], text
    rows = {int(line.split()[0]): line.split()[3:] for line in text.splitlines()
            if line[:4].strip().isdigit()}
    assert [rows[i + 1][-1] for i in (late, *stood)] == ["timeout", "away", "away"], text
    # Not searched: no best move and no loss (they read the move played, and 0.0, as if the
    # search had chosen it too).
    for i in (late, *stood):
        played = shown("sagani", by_index[i].played).split()
        assert rows[i + 1] == [*played, "-", "-", "-", "-", rows[i + 1][-1]], text
    assert max(map(columns, text.splitlines())) <= 80
    # A seat the host played throughout: no decision judged, no mean loss (0.00 read as
    # flawless play).
    whole = {**record, "host_played": [{"index": i, "reason": "stand_in"} for i in mine]}
    text = format_analysis(analyse(whole, Effort(iterations=20), workers=1,
                                   only=lambda d: d.index in wanted), ["ann", "bob"])
    bob = next(line for line in text.splitlines() if line.startswith("seat 2 (bob) "))
    assert bob.split()[3:5] == ["0", "-"], text
    with pytest.raises(RuleError, match="host_played"):
        decisions({**record, "host_played": [{"index": len(seat_of), "reason": "deadline"}]})


@pytest.mark.parametrize("game", ["sagani", "sagrada", "sugi"])
def test_sagani_analyze_with_iterations_writes_the_same_analysis_on_every_run(
        game: str, tmp_path: Any) -> None:
    """Runs of the command are separate processes, each with its own string hashing: the
    analysis must not depend on it (a set's order, say), only on the record and the effort."""
    record = play_local(GameSpec(0, game, get_game(game).parse_config({}), 7,
                                 ("greedy", "random"))).record
    record["actions"] = record["actions"][:8]
    record.pop("result")
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    runs = []
    for hash_seed in ("1", "2"):
        done = subprocess.run([*RUN_SAGANI, "analyze", str(path), "--iterations", "30",
                               "--json"], capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONHASHSEED": hash_seed})
        runs.append(_without_time(json.loads(done.stdout)))
    assert runs[0]["decisions"] and runs[0] == runs[1]


def test_the_analysis_text_says_what_its_loss_is_and_where_the_marks_begin() -> None:
    """The text listed 'loss 15.7 blunder' and 'mean loss 2.00' with no word of their unit
    or of the loss a mark begins at: a reader without RECORD.md could not tell a 4.9 that is
    no mistake from a 5.0 that is one. The line under the values' says it, from the game's
    marks."""
    verdicts = [Verdict(0, 0, 1, "take 0", "take 2", 0.4, 0.6, 0.2, "blunder")]
    text = format_analysis(Analysis("sagani", "win_chance", Effort(), verdicts, 1.0, 1,
                                    summarize(verdicts, 2)))
    mistake, blunder = analysis_module.marks("sagani")
    assert text.splitlines()[2] == (
        f"loss: points of % below the best move; a mistake from {mistake * 100:g}, a blunder "
        f"from {blunder * 100:g}"), text


def test_a_name_that_is_not_a_string_is_no_name_in_the_analysis_text(
        tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """A hand-edited record's names [null, 7] read 'seat 1 (None)' and 'seat 2 (7)', where the
    replay of the same record names neither (a name is a string, RECORD.md)."""
    record = play_local(GameSpec(0, "sugi", {"players": 2}, 5, ("greedy", "random"))).record
    path = tmp_path / "game.json"
    path.write_text(json.dumps({**record, "actions": record["actions"][:2], "result": None,
                                "names": [None, 7]}).replace(', "result": null', ""))
    assert main(["analyze", str(path), "--iterations", "2", "--workers", "1", "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "seat 1 costliest:" in text and "seat 2 costliest:" in text, text


def test_a_move_the_search_left_after_a_few_unlucky_samples_is_not_marked() -> None:
    """Sugi, seed 3, random's first move: at 100 iterations the search visited it 8 times,
    unluckily, and its best (49 visits, chosen for the luck of its own) by 27 points more,
    a blunder. Judged at 3000 iterations on three samples it loses 0.8-2.2 points, and 400
    paired playouts of both moves put it 1.4 +- 1.8 below: the mark stands only on a second,
    paired measure of the two (judge)."""
    record = play_local(GameSpec(0, "sugi", {"players": 2, "edition": 4}, 3,
                                 ("greedy", "random"))).record
    first = {**{k: v for k, v in record.items() if k != "result"},
             "actions": record["actions"][:1]}
    (verdict,) = analyse(first, Effort(100), workers=1).verdicts
    assert verdict.mark is None and verdict.loss < analysis_module.MISTAKE, verdict


def test_a_paired_search_values_one_move_alike_on_every_root() -> None:
    """Each iteration plays one sample out from every root with the same random numbers, so
    two roots kept to the same move get the same mean: what differs between two moves' roots
    is the moves, not the luck of their samples."""
    state = get_game("sagani").new_state({"players": 2, "mode": "multi"}, 3)
    decision = decisions({**state.to_record(), "actions": [
        state.action_data(state.legal_actions()[0])]})[0]
    base = get_game("sagani").determinize(decision.view, decision.private, 0,
                                          random.Random(1))
    played = base.parse_action(decision.played)
    key = analysis_module.first_key(base, sagani_bots.Search(), (played, None))
    policy = analysis_module.MctsPolicy("sagani", think_s=None, iterations=60)
    wraps = [lambda hooks: analysis_module._Kept(hooks, played, key, (played, None), played)
             for _ in range(2)]
    one, two = policy.search_paired(decision.view, decision.private, 0, random.Random(2), wraps)
    assert sum(c.visits for c in one.children.values()) == 30
    assert analysis_module._mean(one) == analysis_module._mean(two)
