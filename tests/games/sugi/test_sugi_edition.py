"""Our edition's data files: what the design promises, and how a replacement is checked."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest

from sagani_net.games.sugi.edition import (
    COLOURS,
    EDITION,
    EditionError,
    load_edition,
    main,
)

DATA = Path(str(resources.files("sagani_net.games.sugi").joinpath("data")))


def test_our_edition_has_12_tiles_50_cards_and_10_family_trees():
    assert (len(EDITION.tiles), len(EDITION.cards), len(EDITION.families)) == (12, 50, 10)


def test_every_colour_is_worth_7_5_and_3_on_two_family_cards_each():
    held = Counter((colour, points) for f in EDITION.families for colour, points in f.points)
    assert held == {(c, p): 2 for c in COLOURS for p in (7, 5, 3)}


def test_every_colour_has_as_many_arrows_and_every_action_appears():
    arrows = Counter(colour for c in EDITION.cards for colour, _ in c.arrows)
    assert len(set(arrows.values())) == 1 and set(arrows) == set(COLOURS)
    assert set(Counter(c.action for c in EDITION.cards)) == {"rotate", "free", "ghost", "remove"}


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    for name in ("tiles.json", "cards.json", "families.json"):
        shutil.copy(DATA / name, tmp_path / name)
    return tmp_path


def edit(path: Path, name: str, change) -> None:
    data = json.loads((path / name).read_text())
    change(data)
    (path / name).write_text(json.dumps(data))


def test_a_faithful_copy_loads_the_same_edition(copy):
    assert load_edition(copy) == EDITION
    assert main([str(copy)]) == 0


@pytest.mark.parametrize(
    "name, change, words",
    [
        ("tiles.json", lambda d: d["tiles"].pop(), "expected 12 tiles, got 11"),
        ("tiles.json", lambda d: d["tiles"][3].update(open="SN"), "entry 3"),
        ("tiles.json", lambda d: d["tiles"][3].update(open=""), "open side"),
        ("cards.json", lambda d: d["cards"][7].update(arrows=[["green", "N"]]), "entry 7"),
        ("cards.json", lambda d: d["cards"][7].update(arrows=[]), "1 or 2"),
        ("cards.json", lambda d: d["cards"][9].update(action="fly"), "fly"),
        ("cards.json", lambda d: d["cards"][9].update(id=3), '"id": 9'),
        ("families.json", lambda d: d["families"][0].update(points={"red": 7}), "entry 0"),
        ("families.json", lambda d: d["families"][1].update(points=d["families"][0]["points"]),
         "trios"),
    ],
)
def test_a_damaged_replacement_is_refused_naming_file_and_entry(copy, name, change, words):
    edit(copy, name, change)
    with pytest.raises(EditionError) as e:
        load_edition(copy)
    assert str(e.value).startswith(name) and words in str(e.value)


def test_a_missing_or_unreadable_file_is_named(copy, capsys):
    (copy / "cards.json").unlink()
    with pytest.raises(EditionError, match="cards.json: cannot read"):
        load_edition(copy)
    (copy / "cards.json").write_text("{not json")
    with pytest.raises(EditionError, match="cards.json: not JSON"):
        load_edition(copy)
    assert main([str(copy)]) == 1 and "cards.json" in capsys.readouterr().err
    assert main([]) == 2
