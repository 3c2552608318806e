"""The tournament runner: seats rotated, reproducible tables, the statistics it prints."""

from __future__ import annotations

import gc
import io
import json
import tracemalloc
from pathlib import Path

import pytest

from sagani_net.bots.local import GameResult, GameSpec, play_local
from sagani_net.bots.tournament import (
    Row,
    Standings,
    TournamentSpec,
    fit_elo,
    format_table,
    run_games,
    summarize,
    wilson,
)
from sagani_net.cli.bot_cmd import IndexWriter
from sagani_net.cli.main import main
from sagani_net.games import get_game

FAST_MCTS = {"think_s": None, "iterations": 3}


def test_seats_are_rotated_so_that_every_strategy_starts_equally_often() -> None:
    spec = TournamentSpec(lineup=("mcts", "greedy", "random"), config={"players": 3}, games=6,
                          seed=1)
    starters = [spec.game_spec(i).strategies[0] for i in range(6)]
    assert sorted(starters) == ["greedy", "greedy", "mcts", "mcts", "random", "random"]
    # Each deal is played once from every seat.
    assert len({spec.game_spec(i).seed for i in range(6)}) == 2


def test_a_small_tournament_reproduces_the_same_table_from_the_same_seed() -> None:
    spec = TournamentSpec(lineup=("mcts", "greedy"), games=2, seed=7, options={"mcts": FAST_MCTS})
    first = summarize(spec, run_games(spec, workers=2))
    second = summarize(spec, run_games(spec, workers=1))
    assert [row.to_dict() for row in first] == [row.to_dict() for row in second]
    assert sum(row.games for row in first) == 4


def test_on_workers_every_result_is_handed_on_once_and_kept_in_game_order() -> None:
    """Results reach ``on_result`` as their games end, each once; the list comes back in
    game order, as one worker plays it."""
    spec = TournamentSpec(lineup=("random", "random"), games=12, seed=5)
    seen: list[int] = []
    results = run_games(spec, workers=2, on_result=lambda r: seen.append(r.index))
    assert sorted(seen) == list(range(12))
    assert [r.index for r in results] == list(range(12))
    assert [r.scores for r in results] == [r.scores for r in run_games(spec, workers=1)]


@pytest.mark.parametrize("workers", [1, 2])
def test_each_record_goes_to_on_result_and_the_results_keep_none(workers: int) -> None:
    """A tournament kept every game's record (or final state) to its end, and the futures
    of every game at once: a run of random games grew by 40 MB a second."""
    spec = TournamentSpec(lineup=("random", "random"), games=6, seed=5)
    records: list[dict[str, object]] = []
    results = run_games(spec, workers=workers, on_result=lambda r: records.append(r.record))
    assert sorted(int(str(r["seed"])) for r in records) == sorted(
        spec.game_spec(i).seed for i in range(6))
    assert all(r["result"] for r in records)
    assert [r.record for r in results] == [{}] * 6
    assert [r.made for r in results] == [{}] * 6 and [r.state for r in results] == [None] * 6


def test_a_different_seed_deals_different_games() -> None:
    one = TournamentSpec(lineup=("greedy", "random"), games=2, seed=1)
    two = TournamentSpec(lineup=("greedy", "random"), games=2, seed=2)
    assert one.game_spec(0).seed != two.game_spec(0).seed


def test_solo_lineups_take_turns_on_the_same_deals() -> None:
    spec = TournamentSpec(lineup=("greedy", "random"), config={"mode": "solo"}, games=4, seed=3)
    games = [spec.game_spec(i) for i in range(4)]
    assert [g.strategies for g in games] == [("greedy",), ("random",)] * 2
    assert games[0].seed == games[1].seed != games[2].seed
    rows = summarize(spec, run_games(spec, workers=1))
    assert "mean tiles" in format_table(spec, rows, 1.0)


def test_wilson_interval_brackets_the_share() -> None:
    low, high = wilson(65, 100)
    assert low < 0.65 < high and high - low == pytest.approx(0.18, abs=0.01)
    assert wilson(0, 0) == (0.0, 1.0)


def test_elo_puts_the_stronger_strategy_ahead_and_stays_finite_on_a_sweep() -> None:
    ratings = fit_elo([("greedy", "random")] * 20 + [("mcts", "greedy")] * 15
                      + [("greedy", "mcts")] * 5, ["mcts", "greedy", "random"])
    assert ratings["mcts"] > ratings["greedy"] > ratings["random"]
    assert sum(ratings.values()) / 3 == pytest.approx(1500)


def test_elo_counts_a_shared_win_as_a_draw() -> None:
    level = fit_elo([("greedy", "random")] * 3 + [("random", "greedy")] * 3,
                    ["greedy", "random"], draws=[("greedy", "random")] * 4)
    assert level["greedy"] == pytest.approx(level["random"])
    ahead = fit_elo([("greedy", "random")] * 3, ["greedy", "random"],
                    draws=[("random", "greedy")] * 4)
    alone = fit_elo([("greedy", "random")] * 3, ["greedy", "random"])
    assert 1500 < ahead["greedy"] < alone["greedy"]  # draws pull the two together


def test_a_shared_win_counts_half_to_each_seat_that_shares_it() -> None:
    """Seed 7's random 2-player Sugi game ends level (S15: "then shared"), its ranking still
    puts one seat first: neither strategy won it alone."""
    spec = TournamentSpec(lineup=("greedy", "random"), game="sugi", games=1, seed=7)
    played = play_local(GameSpec(0, "sugi", {"players": 2}, 7, ("random", "random"), {}))
    assert played.figures["winners"] == [0, 1]
    result = GameResult(0, ("greedy", "random"), played.scores, played.ranking,
                        played.seconds, played.actions, played.figures)
    rows = summarize(spec, [result])
    assert [row.wins for row in rows] == [0.5, 0.5]
    assert [row.to_dict()["wins"] for row in rows] == [0.5, 0.5]
    assert rows[0].elo == pytest.approx(rows[1].elo)
    assert "   0.5   50.0%" in format_table(spec, rows, 1.0)

def test_the_table_is_told_game_by_game_in_any_order_and_keeps_no_game() -> None:
    """Every score and every pair for Elo were kept in lists to the end, and run_games kept
    each result: a tournament of a million games held some 400 MB. The standings keep counts,
    give the table summarize gives in game order whatever order games end in, and hold no
    more after 2,000 games than after 2."""
    spec = TournamentSpec(lineup=("greedy", "random"), game="sugi", games=20, seed=3)
    results = run_games(spec, workers=1)
    table = [row.to_dict() for row in summarize(spec, results)]
    standings = Standings(spec)
    for result in reversed(results):
        standings.add(result)
    assert [row.to_dict() for row in standings.rows()] == table
    assert run_games(spec, workers=1, keep=False) == []
    standings = Standings(spec)
    for result in results[:2]:
        standings.add(result)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(1_000):
            for result in results[:2]:
                standings.add(result)
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 4096, grown  # a list of scores alone grew 16 KB
    assert standings.rows()[0].games == 2_002


def test_the_tournament_command_prints_the_table_and_saves_every_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["tournament", "--strategies", "greedy,random", "--games", "4", "--seed", "2",
                 "--workers", "1", "--records", str(tmp_path), "--json",
                 str(tmp_path / "table.json")])
    assert code == 0
    out = capsys.readouterr().out
    assert "greedy" in out and "95% CI" in out and "Elo" in out
    index = json.loads((tmp_path / "index.json").read_text())
    assert len(index) == 4
    for entry in index:
        record = json.loads((tmp_path / entry["file"]).read_text())
        assert record["result"]["scores"] == entry["scores"]
        # Seats rotate game by game: the record itself says who sat where.
        assert record["names"] == entry["strategies"]
    table = json.loads((tmp_path / "table.json").read_text())
    assert {row["strategy"] for row in table} == {"greedy", "random"}


def test_index_json_is_written_as_games_end_in_game_order_and_keeps_no_game() -> None:
    """index.json kept every game's entry to the end (about 600 bytes a game: 6 GB at the
    10 million games the command allows). Its entries now go out as games end, the text the
    same as the whole list's, whatever order the games end in."""
    entries = [{"game": i, "seed": i * 7, "strategies": ["greedy", "random"],
                "scores": [i, -i], "ranking": [0, 1], "file": f"game-{i:05d}.json"}
               for i in range(6)]
    for order in (range(6), [1, 0, 3, 2, 5, 4], [5, 4, 3, 2, 1, 0]):
        out = io.StringIO()
        index = IndexWriter(out)
        for i in order:
            index.add(entries[i])
        index.close()
        assert out.getvalue() == json.dumps(entries, indent=1) + "\n", list(order)
    empty = io.StringIO()
    IndexWriter(empty).close()
    assert empty.getvalue() == "[]\n"

    class Sink(io.StringIO):
        def write(self, text: str) -> int:
            return len(text)  # a file on disk: what is written is not held

    index = IndexWriter(Sink())
    index.add(entries[0])
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(1, 2_001):
            index.add({**entries[i % 6], "game": i})
        gc.collect()  # json's indenting encoder leaves cycles behind each call, for the collector
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 4096, grown  # the list of entries grew some 1.2 MB


def test_a_one_seat_game_without_a_goal_shows_scores_only() -> None:
    spec = TournamentSpec(lineup=("random",), config={"mode": "solo-advanced", "players": 1},
                          games=1, seed=4)
    rows = summarize(spec, run_games(spec, workers=1))
    lines = format_table(spec, rows, 1.0).splitlines()
    head = lines[_head_at(lines)]
    assert "best" in head and "goal" not in head and "Elo" not in head
    assert rows[0].wins == 0 and rows[0].games == 1


def test_a_strategy_at_two_seats_is_said_to_be_counted_per_seat() -> None:
    """Its row holds two results a game, so the table says so beside its "games" (which
    would otherwise read as twice the games played); one at a single seat gets no note."""
    spec = TournamentSpec(lineup=("greedy", "random", "random"), config={"players": 3},
                          games=3, seed=2)
    rows = summarize(spec, run_games(spec, workers=1))
    assert [row.games for row in rows] == [3, 6]
    lines = format_table(spec, rows, 1.0).splitlines()
    notes = lines[_head_at(lines) + 1 + len(rows):]
    assert notes == ["random plays 2 seats of each game: its row is per seat "
                     "(6 seat-games in 3 games)"]


def _head_at(lines: list[str]) -> int:
    """Where the table's head is, under its title (which may take more than a line)."""
    return next(i for i, line in enumerate(lines) if line.startswith("strategy "))


def test_the_title_and_notes_of_a_lineup_of_four_keep_to_80_columns() -> None:
    """A 4-seat Sagrada lineup made a title of 119 columns, and its notes grow with the
    strategies' names: both are wrapped now, the later lines indented, no word lost."""
    lineup = ("random", "SugiRoundAhead", "random", "SugiRoundAhead")
    spec = TournamentSpec(lineup=lineup, game="sagrada", games=2,
                          config=get_game("sagrada").parse_config({"players": 4}))
    rows = [Row("random", goal=True, games=4), Row("SugiRoundAhead", goal=True, games=4)]
    lines = format_table(spec, rows, 1.0).splitlines()
    assert max(len(line) for line in lines) <= 80, lines
    title = " ".join(line.strip() for line in lines[:_head_at(lines)])
    assert title == ("2 games of Sagrada (players 4, difficulty 3, pattern_set all), 4 seats, "
                     f"lineup {','.join(lineup)}, seed 0, 1 s"), lines
    assert lines[1].startswith("  ")
    notes = lines[_head_at(lines) + 1 + len(rows):]
    assert " ".join(line.strip() for line in notes).split(" SugiRoundAhead plays")[0] == (
        "random plays 2 seats of each game: its row is per seat (4 seat-games in 2 games)")


def test_the_table_keeps_to_80_columns_with_a_strategy_named_by_its_path() -> None:
    """README names one's own strategy FILE.py:NAME; a path's name widened the name column
    (a row of 117 columns, its figures wrapped under the next row's name). Now a name too
    long for the column stands whole on its own line, its figures under it in the columns."""
    own = "/home/ann/bots/" + "deep/" * 6 + "one_ply.py:SugiRoundAhead"
    spec = TournamentSpec(lineup=(own, "greedy"), game="sugi", config={"players": 2}, games=1)
    rows = [Row(own, goal=True, games=1, wins=1), Row("greedy", goal=True, games=1)]
    for row, score in zip(rows, (12, 9), strict=True):
        row.scores.add(score)
    lines = format_table(spec, rows, 1.0).splitlines()
    table = lines[_head_at(lines):]
    assert max(len(line) for line in table) <= 80, lines
    assert table[1] == own
    head, figures, greedy = table[0], table[2], table[3]
    assert greedy.startswith("greedy ")
    for title in ("games", "wins", "mean score", "Elo"):  # each figure under its title
        at = head.index(title) + len(title)
        assert figures[at - 1] != " " and greedy[at - 1] != " ", title
        assert figures[at:at + 1] in ("", " "), title


def test_a_lineup_must_name_a_strategy_for_every_seat() -> None:
    with pytest.raises(ValueError, match="a 3-seat lineup names 3 strategies"):
        TournamentSpec(lineup=("greedy", "random"), config={"players": 3}, games=1)
