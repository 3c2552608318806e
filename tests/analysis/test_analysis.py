"""The analysis (`sagani analyze`): a decision that throws away a lot is marked, in every game;
random play is marked more than greedy play; the same analysis on every run with an iteration
budget; and a change to a later draw or roll changes no verdict before it (the search sees what
the seat knew, nothing more). Searches are kept short: a few dozen to a few hundred iterations
on records of a few dozen decisions."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
from test_net_support import RUN_SAGANI

from sagani_net.analysis import Effort, Verdict, analyse, decisions
from sagani_net.bots import make_policy
from sagani_net.bots.tournament import GameSpec, play_local
from sagani_net.game import Data, GameState
from sagani_net.games import get_game
from sagani_net.games.sagani import bots as sagani_bots
from sagani_net.games.sagrada import bots as sagrada_bots
from sagani_net.games.sagrada.rules import PASS
from sagani_net.games.sugi import bots as sugi_bots

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
    ("sagani", 1, sagani_pass_in_intermezzo, 100, 200),
    ("sagani", 1, sagani_worst_placement, 60, 150),
    ("sagrada", 1, sagrada_pass_with_a_good_die, 40, 100),
    ("sugi", 1, sugi_samurai_back, 20, 100),
])
def test_a_decision_that_throws_away_a_lot_is_marked_and_greedy_there_is_not(
        game: str, seed: int, bad: Bad, look: int, iterations: int) -> None:
    bad_record, greedy_record, at = record_with(game, seed, bad, look)
    worse = verdict_at(bad_record, at, iterations)
    assert worse.mark in ("mistake", "blunder"), worse
    assert worse.best != worse.played and worse.value_best > worse.value_played  # type: ignore[operator]
    greedy = verdict_at(greedy_record, at, iterations)
    assert greedy.loss < worse.loss, greedy


# 60 iterations a decision in every game: on these records the gap is wide at 60 (Sagani seed
# 3, the first 30 decisions: greedy 0 marked, mean loss 0.009; random 7, 0.042) and no wider at
# 150 (1 against 6); the budget makes the analysis the same on every run.
@pytest.mark.parametrize(("game", "seed", "iterations"),
                         [("sagani", 3, 60), ("sagrada", 2, 60), ("sugi", 2, 60)])
def test_random_play_is_marked_more_than_greedy_play(game: str, seed: int,
                                                     iterations: int) -> None:
    record = play_local(GameSpec(0, game, get_game(game).parse_config({}), seed,
                                 ("greedy", "random"))).record
    # One worker: a pool of two gives the same analysis (the test below), at a pool's start-up.
    analysis = analyse(record, Effort(iterations), workers=1, only=lambda d: d.index < 30)
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
    k = 12
    prefix = {**{k_: v for k_, v in record.items() if k_ != "result"},
              "actions": record["actions"][:k]}
    state = get_game("sagani").from_record(prefix)
    drawn = 72 - len(state.pile)
    # The second and third tiles to come: hidden (only the top tile's back is public).
    tiles = list(prefix["tiles"])
    tiles[drawn + 1], tiles[drawn + 2] = tiles[drawn + 2], tiles[drawn + 1]
    changed = {**prefix, "tiles": tiles}
    assert get_game("sagani").from_record(changed).pile != state.pile
    assert [d.view for d in decisions(changed)] == [d.view for d in decisions(prefix)]
    same = analyse(prefix, Effort(40), workers=1).to_data()
    other = analyse(changed, Effort(40), workers=1).to_data()
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


def test_sagani_analyze_writes_the_json_of_record_md_and_mistakes_are_one_line(
        tmp_path: Any) -> None:
    record = play_local(GameSpec(0, "sugi", get_game("sugi").parse_config({}), 3,
                                 ("greedy", "random"))).record
    record["actions"] = record["actions"][:6]
    record.pop("result")
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    sagani = [*RUN_SAGANI, "analyze"]
    done = subprocess.run([*sagani, str(path), "--iterations", "20", "--json", "--workers", "1"],
                          capture_output=True, text=True, check=True)
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
    (tmp_path / "bad.json").write_text('{"game": "sugi", "actions": 3, "seed": 1}')
    for args in ([str(tmp_path / "bad.json")], [str(tmp_path / "none.json")], [],
                 [str(path), "--iterations", "0"], [str(path), "--table", "t1"]):
        failed = subprocess.run([*sagani, *args], capture_output=True, text=True)
        assert failed.returncode == 2 and failed.stderr.count("\n") == 1, (args, failed.stderr)
        assert failed.stderr.startswith("sagani analyze: ")


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
