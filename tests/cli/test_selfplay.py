"""``sagani selfplay`` (issue 2 point 5): headless games, one record per game, a summary."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from sagani_net.cli.main import main
from sagani_net.cli.play_cmd import print_result
from sagani_net.client import Replica
from sagani_net.games.sagani.rules import replay


def selfplay(tmp_path, *args: str) -> list[dict]:
    out = tmp_path / "records"
    assert main(["selfplay", *args, "--records", str(out)]) == 0
    return [json.loads(p.read_text()) for p in sorted(out.glob("*.json"))]


@pytest.mark.parametrize(
    "args",
    [
        ("--players", "2", "--policy", "random"),
        ("--players", "3", "--policy", "greedy"),
        ("--players", "4", "--policy", "greedy,random,random,greedy"),
        ("--mode", "solo", "--policy", "greedy"),
        ("--mode", "solo-advanced", "--policy", "random"),
    ],
    ids=lambda a: " ".join(a),
)
def test_selfplay_writes_one_record_per_game_and_each_replays(tmp_path, args):
    records = selfplay(tmp_path, *args, "--games", "3", "--seed", "40")
    assert len(records) == 3
    assert sorted(r["seed"] for r in records) == [40, 41, 42]
    for record in records:
        state, _events = replay(record)  # refuses a result that differs from the replay
        assert state.is_over()
        assert record["result"] == state.to_record()["result"]
        assert {**state.to_record(), "names": record["names"]} == record


def test_selfplay_records_name_each_seat_by_its_policy_as_a_host_would(tmp_path):
    [same] = selfplay(tmp_path, "--players", "3", "--policy", "greedy", "--games", "1")
    assert same["names"] == ["greedy", "greedy 2", "greedy 3"]
    [mixed] = selfplay(tmp_path / "mixed", "--players", "3", "--policy", "random,greedy,random",
                       "--games", "1")
    assert mixed["names"] == ["random", "greedy", "random 2"]


def test_selfplay_prints_a_summary(tmp_path, capsys):
    selfplay(tmp_path, "--players", "2", "--games", "2", "--policy", "greedy,random")
    out = capsys.readouterr().out
    assert "2 games of Sagani (players 2, mode multi), 2 seats (greedy, random)" in out
    for words in ("seat 1", "seat 2", "mean score", "win share", "mean actions per seat",
                  "games/s"):
        assert words in out


def test_selfplay_is_reproducible_from_its_seed(tmp_path):
    first = selfplay(tmp_path / "a", "--players", "3", "--games", "2", "--seed", "7")
    again = selfplay(tmp_path / "b", "--players", "3", "--games", "2", "--seed", "7")
    assert first == again


def test_selfplay_greedy_games_reach_the_end(tmp_path):
    records = selfplay(tmp_path, "--players", "4", "--games", "3", "--policy", "greedy")
    for record in records:
        assert max(record["result"]["scores"]) >= 45


def test_selfplay_splits_a_shared_win_between_the_seats_that_share_it(tmp_path, capsys):
    # Seed 117's random 2-player Sugi game ends level on points and arrivals: shared (S15).
    [record] = selfplay(tmp_path, "--game", "sugi", "--players", "2", "--games", "1",
                        "--seed", "117", "--policy", "random")
    assert record["result"]["winners"] == [0, 1]
    out = capsys.readouterr().out
    assert out.count("win share  50.0%") == 2, out


def test_autoplay_ranks_every_seat_of_a_shared_win_first(tmp_path, capsys):
    """``sagani play --autoplay`` prints the result as its client holds it."""
    [record] = selfplay(tmp_path, "--game", "sugi", "--players", "2", "--games", "1",
                        "--seed", "117", "--policy", "random")
    capsys.readouterr()
    replica = Replica("t1", status="over", seats=[{"name": "ann"}, {"name": "bob"}],
                      view={"result": record["result"]})
    print_result(SimpleNamespace(state=replica))
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(".")[0].strip() for line in lines[1:3]] == ["1", "1"], lines

@pytest.mark.parametrize(("players", "policies", "said"), [
    ("3", "greedy,random", "2 policies for 3 seats"),
    ("1", "greedy,random", "2 policies for 1 seat"),  # was "for 1 seats"
])
def test_selfplay_refuses_a_policy_list_of_the_wrong_length(capsys, players, policies, said):
    assert main(["selfplay", "--players", players, "--games", "1", "--policy", policies]) == 2
    assert capsys.readouterr().err == f"sagani selfplay: --policy names {said}\n"


def test_selfplay_takes_the_game_and_its_options_by_name(tmp_path, capsys):
    records = selfplay(tmp_path, "--game", "sagani", "--option", "mode=solo-advanced",
                       "--option", "players=1", "--games", "1", "--policy", "random")
    assert [r["config"] for r in records] == [{"players": 1, "mode": "solo-advanced"}]
    out = capsys.readouterr().out
    assert "1 game of Sagani (players 1, mode solo-advanced), 1 seat (random)" in out


def test_selfplay_reports_the_goal_of_a_solo_game(tmp_path, capsys):
    selfplay(tmp_path, "--players", "1", "--games", "2", "--policy", "greedy")
    out = capsys.readouterr().out
    assert "reached the goal in 2 of 2 games; tiles: mean" in out


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--game", "chess"), "no game called 'chess'"),
        (("--option", "colour=red"), "--option is NAME=VALUE with NAME one of players, mode"),
        (("--option", "players=two"), "players is a whole number, not 'two'"),
        # Past int()'s 4,300 digits a whole number is still one (it said 'is a whole number').
        (("--option", "players=" + "9" * 5000),
         "players is one of 1, 2, 3, 4, not a number of 5000 digits"),
        (("--players", "5"), "sagani selfplay: Sagani: players is one of"),
        (("--game", "sugi", "--players", "1"), "sagani selfplay: Sugi: players is one of"),
        (("--players", "1", "--mode", "multi"), "multi is for 2-4 players"),
        (("--policy", "genius"), "unknown genius"),
    ],
)
def test_selfplay_refuses_a_game_or_options_the_game_refuses(args, says, capsys):
    assert main(["selfplay", *args, "--games", "1"]) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.splitlines()) == 1


def test_selfplay_gives_the_search_its_budget(tmp_path):
    """``--iterations`` alone makes an mcts seat deterministic (and quick): without it the seat
    would search for a second a move, on the clock, and two runs would part ways."""
    args = ("--game", "sugi", "--players", "2", "--policy", "mcts,random", "--iterations", "8",
            "--games", "1", "--seed", "5")
    first = selfplay(tmp_path / "a", *args)
    assert first == selfplay(tmp_path / "b", *args)
    assert first[0]["result"]


@pytest.mark.parametrize(("args", "says"), [(("--think", "0"), "--think"),
                                            (("--iterations", "x"), "--iterations")])
def test_selfplay_refuses_a_bad_search_budget(args, says, capsys):
    assert main(["selfplay", "--policy", "mcts", *args]) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.splitlines()) == 1


def test_a_long_selfplay_run_shows_its_progress_and_a_short_one_does_not(tmp_path, capsys,
                                                                          monkeypatch):
    from sagani_net.cli import selfplay as command

    selfplay(tmp_path / "short", "--games", "3", "--policy", "random")
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(command, "PROGRESS_AFTER_S", 0.0)  # every run is long now
    selfplay(tmp_path / "long", "--games", "3", "--policy", "random")
    lines = capsys.readouterr().err.splitlines()
    # Not a terminal: a line per tenth, from the game after the one that ran long.
    assert [line.split("]")[1].split("games")[0].strip() for line in lines] == ["1/3", "2/3",
                                                                                "3/3"]
