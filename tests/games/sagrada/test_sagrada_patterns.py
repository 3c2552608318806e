"""Window patterns as data: the published 24, and the checks on a user's pattern file."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from sagani_net.game import RuleError
from sagani_net.games.sagrada import patterns
from sagani_net.games.sagrada.components import CLASH, ORTH
from sagani_net.games.sagrada.patterns import (
    MAX_PATTERNS,
    PUBLISHED,
    RESTRICTIONS,
    Pattern,
    completion,
    parse_patterns,
    published_data,
    read_patterns,
)

#: The grid of issue 18's attack: a backtracking search took about a second to complete it.
COSTLY = [["", "", "", "", ""], ["R", "1", "Y", "", "R"], ["", "Y", "2", "R", ""],
          ["", "", "Y", "3", "1"]]


def good(**changes: Any) -> dict[str, Any]:
    pattern: dict[str, Any] = {"name": "Mine", "difficulty": 4,
                               "grid": [["R", "", "3", "", "G"]] + [[""] * 5 for _ in range(3)]}
    pattern.update(changes)
    return pattern


def problems(data: Any) -> list[str]:
    with pytest.raises(RuleError) as info:
        parse_patterns(data)
    assert info.value.code == "bad_patterns"
    return info.value.message.split("\n")


def test_the_24_published_patterns_ship_with_the_game() -> None:
    assert len(PUBLISHED) == 24 and len({p.name for p in PUBLISHED}) == 24
    pairs = [p.pair for p in PUBLISHED]
    assert sorted(set(pairs)) == list(range(1, 13)) and all(pairs.count(n) == 2 for n in pairs)
    assert {p.difficulty for p in PUBLISHED} == {3, 4, 5, 6}
    assert PUBLISHED[0].cells[:5] == ("1", "P", "Y", "", "4")


def test_a_good_pattern_loads() -> None:
    (pattern,) = parse_patterns([good()])
    assert pattern.name == "Mine" and pattern.cells[0] == "R" and pattern.pair is None


@pytest.mark.parametrize(("data", "says"), [
    (["Mine"], "pattern 1: a pattern is a map"),
    ([good(colour="R")], "unknown fields ['colour']"),
    ([good(name="")], "name must be a text"),
    ([good(difficulty=2)], "difficulty must be 3, 4, 5 or 6, not 2"),
    ([good(difficulty="5")], 'difficulty must be 3, 4, 5 or 6, not "5"'),
    ([{k: v for k, v in good().items() if k != "difficulty"}],
     "difficulty must be 3, 4, 5 or 6, not missing"),
    ([good(difficulty=None)], "difficulty must be 3, 4, 5 or 6, not null"),
    ([good(difficulty=True)], "difficulty must be"),
    ([good(pair="1")], "pair must be a whole number"),
    ([good(grid=[[""] * 5] * 3)], "grid must be 4 rows of 5 cells"),
    ([good(grid=[[""] * 4] * 4)], "grid must be 4 rows of 5 cells"),
    ([good(grid=[["X", "", "", "", ""]] + [[""] * 5] * 3)], 'cell 1,1 is "X"'),
    ([good(grid=[["7", "", "", "", ""]] + [[""] * 5] * 3)], 'cell 1,1 is "7"'),
    ([good(grid=[[3, "", "", "", ""]] + [[""] * 5] * 3)], "cell 1,1 is 3"),
    ([good(), good()], "two patterns are called 'Mine'"),
    ([good(name="A", pair=1), good(name="B", pair=1), good(name="C", pair=1)],
     "pair 1 is on 3 patterns"),
    ([good(grid=[["R", "R", "", "", ""]] + [[""] * 5] * 3)],
     "no dice can complete it: cells 1,1 and 1,2 both want R"),
    ([good(grid=[["", "", "", "", "5"], ["", "", "", "", "5"]] + [[""] * 5] * 2)],
     "no dice can complete it: cells 1,5 and 2,5 both want 5"),
])
def test_each_problem_is_named(data: Any, says: str) -> None:
    found = problems(data)
    assert any(says in line for line in found), found


@pytest.mark.parametrize("data", [{"name": "Mine"}, [], None])
def test_patterns_are_a_non_empty_list(data: Any) -> None:
    """Said as the config's field, which a client's create names: a bot author sends no file."""
    assert problems(data) == ["patterns must be a non-empty list of patterns"]


def test_every_problem_is_reported_one_per_line() -> None:
    found = problems([good(difficulty=9), good(name="Two", grid=[["R", "R", "", "", ""]] +
                                               [[""] * 5] * 3), "x"])
    assert len(found) == 3
    assert found[0].startswith("pattern 1 (Mine): difficulty")
    assert found[1].startswith("pattern 2 (Two): no dice can complete it")
    assert found[2].startswith("pattern 3: a pattern is a map")


def test_read_patterns_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    path.write_text(json.dumps([good(), good(name="Other", pair=3)]), encoding="utf-8")
    data = read_patterns(path)
    assert [p["name"] for p in data] == ["Mine", "Other"] and data[1]["pair"] == 3


@pytest.mark.parametrize(("content", "says"), [
    (None, "cannot read"),
    ("{not json", "is not JSON"),
    (json.dumps([good(difficulty=1)]), "difficulty must be"),
])
def test_a_bad_pattern_file_is_refused_with_a_clear_error(
    tmp_path: Path, content: str | None, says: str
) -> None:
    path = tmp_path / "mine.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(RuleError) as info:
        read_patterns(path)
    assert info.value.code == "bad_patterns" and says in info.value.message


def test_the_published_patterns_pass_the_check_a_users_file_gets() -> None:
    """The game trusts its own file at start (no check there): this is the check."""
    assert parse_patterns(published_data()) == PUBLISHED


def test_a_pattern_completes_exactly_when_no_two_touching_cells_want_the_same() -> None:
    """completion is the proof of the check: random grids, dense with restrictions (most of
    them touching), each either refused for two touching cells alike, or filled with dice that
    obey every restriction and rule 4."""
    rng = random.Random(18)
    grids = [list(COSTLY[0] + COSTLY[1] + COSTLY[2] + COSTLY[3]), [""] * 20]
    for _ in range(3000):
        density = rng.random()
        grids.append([rng.choice(RESTRICTIONS[1:]) if rng.random() < density else ""
                      for _ in range(20)])
    completed = 0
    for cells in grids:
        clash = any(cells[i] and cells[i] == cells[j] for i in range(20) for j in ORTH[i])
        filled = completion(cells)
        assert (filled is None) == clash, cells
        if filled is not None:
            completed += 1
            allow = Pattern("", 3, tuple(cells)).allow
            for i, die in enumerate(filled):
                assert allow[i] >> die & 1, (cells, i)
                assert all(not CLASH[die] >> filled[j] & 1 for j in ORTH[i]), (cells, i)
    assert 500 < completed < len(grids) - 500  # both kinds were tried


def test_the_costly_grid_of_issue_18_is_checked_without_a_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The check is linear: no completion search runs, whatever the grid (48 renamed copies
    of the grid that took a backtracking search a second each)."""
    calls: list[object] = []
    monkeypatch.setattr(patterns, "completion", lambda cells: calls.append(cells))
    found = parse_patterns([good(name=f"Copy {i}", grid=COSTLY) for i in range(MAX_PATTERNS)])
    assert len(found) == MAX_PATTERNS and calls == []
    assert completion(tuple(cell for row in COSTLY for cell in row)) is not None


def test_more_patterns_than_a_table_takes_are_refused_before_any_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read: list[int] = []
    real = patterns._problems
    monkeypatch.setattr(patterns, "_problems", lambda n, item: read.append(n) or real(n, item))
    assert problems([good(name=f"Copy {i}", grid=COSTLY) for i in range(600)]) == [
        f"a table takes at most {MAX_PATTERNS} patterns of your own, not 600"]
    assert read == []
    parse_patterns([good(name=f"Copy {i}") for i in range(MAX_PATTERNS)])
    assert len(read) == MAX_PATTERNS


def test_duplicate_names_are_found_whatever_the_names_are() -> None:
    """Names that are not text (a list is not hashable) are a problem, not a crash."""
    found = problems([good(name=["x"]), good(name=["x"]), good(), good()])
    assert "two patterns are called 'Mine'" in found
    assert sum("name must be a text" in line for line in found) == 2
