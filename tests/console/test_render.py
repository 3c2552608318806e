"""Rendering: tiles and whole screens as text, checked against golden files in tests/golden/.

Run with ``SAGANI_UPDATE_GOLDEN=1`` to rewrite the golden files after a deliberate change, then
read the diff.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from console_kit import GOLDEN, check_golden
from prompt_toolkit.output import DummyOutput

from sagani_net.bots import make_policy
from sagani_net.cli.console.app import Console
from sagani_net.cli.console.model import FINAL, GAME, ConsoleModel
from sagani_net.cli.console.render import help_pages, screen, screen_text
from sagani_net.games.sagani.rules import Action, State
from sagani_net.games.sagani.tiles import ROTATIONS, TILES
from sagani_net.games.sagani.ui import TILE_H, TILE_W, Selection, display_rows, tile_rows
from sagani_net.gameui import columns, line_text


def tile_text(rows: list) -> str:
    return "\n".join(line_text(row) for row in rows)


EVENTS: dict[int, list[dict]] = {}


def played(moves: int, players: int = 2, seed: int = 3) -> State:
    """A game after ``moves`` greedy decisions (deterministic); its events in EVENTS."""
    state = State.new(players, seed=seed)
    policy, rng = make_policy("greedy"), random.Random(1)
    events: list[dict] = []
    for _ in range(moves):
        if state.is_over():
            break
        events.extend(state.apply(policy.choose(state, rng)))
    EVENTS[id(state)] = events
    return state


def model_for(state: State, you: int = 0) -> ConsoleModel:
    """The console's model after it heard the game's last events, as from a host."""
    model = ConsoleModel(connection="online")
    names = ["ann", "greedy", "bo", "cy"][: state.players]
    model.load({
        "table": "t1", "you": you, "status": "over" if state.is_over() else "running",
        "seats": [{"name": n} for n in names], "view": state.view(you),
    })
    model.receive({"events": EVENTS.get(id(state), [])[-8:], "view": state.view(you)})
    return model


# -- tiles ----------------------------------------------------------------------------------------


def test_tile_golden_every_rotation_covered_and_flipped() -> None:
    parts = []
    for tile in (8, 1, 40):  # four arrows, one arrow, and a mixed tile
        for rotation in ROTATIONS:
            parts.append(f"tile {tile} rot {rotation}\n" + tile_text(tile_rows(tile, rotation)))
        parts.append(f"tile {tile} covered N+E\n" + tile_text(tile_rows(tile, 90, 0b101)))
        parts.append(f"tile {tile} flipped\n" + tile_text(tile_rows(tile, 0, 0xFF, True)))
    check_golden("tiles.txt", "\n\n".join(parts) + "\n")


@pytest.mark.parametrize("tile", sorted(TILES))
def test_every_tile_is_8_by_3_in_every_rotation(tile: int) -> None:
    for rotation in ROTATIONS:
        rows = tile_rows(tile, rotation)
        assert len(rows) == TILE_H
        assert all(len(line_text(row)) == TILE_W for row in rows)


def test_arrow_stands_where_it_points_and_names_its_element() -> None:
    # Tile 8 upright: N fire, NE earth, E earth, NW fire.
    rows = [line_text(r) for r in tile_rows(8, 0)]
    assert rows[0] == "↖f ↑f ↗e"
    assert rows[1].endswith("→e")
    assert "F10" in rows[1]


def test_covered_arrow_holds_a_disc() -> None:
    covered_north = 1 << 0
    rows = [line_text(r) for r in tile_rows(8, 0, covered_north)]
    assert rows[0] == "↖f ↑● ↗e"


def test_flipped_tile_is_framed_with_its_value() -> None:
    rows = [line_text(r) for r in tile_rows(8, 0, 0xFF, True)]
    assert rows == ["╭──────╮", "│ F10  │", "╰──────╯"]


def test_elements_differ_in_glyphs_without_colour() -> None:
    letters = {line_text(tile_rows(t, 0)[1])[3] for t in TILES}
    assert letters == {"F", "W", "E", "A"}


def test_arrow_colour_is_its_wanted_element() -> None:
    north = tile_rows(8, 0)[0]
    styles = [style for style, text in north if "↑" in text]
    assert styles and "class:arrow.fire" in styles[0]


# -- displays -------------------------------------------------------------------------------------


def test_display_pans_to_keep_the_ghost_in_sight() -> None:
    display = [[x, 0, 8, 0, 0, False] for x in range(12)]
    rows = display_rows(display, 53, 13, ghost=(1, (12, 0), 0), legal=[(12, 0)])
    text = "\n".join(line_text(r) for r in rows)
    assert "+F1" in text  # the ghost (tile 1 is a fire 1) is on screen
    assert "◂" in text  # and the west side is cut off, marked


def test_display_fits_its_box() -> None:
    state = played(60)
    view = state.view(0)
    for width, height in ((53, 13), (30, 7), (120, 30)):
        rows = display_rows(view["seats"][0]["display"], width, height)
        assert len(rows) == height
        assert all(len(line_text(r)) == width for r in rows)


# -- whole screens --------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (160, 40)])
def test_screen_golden_while_placing(size: tuple[int, int]) -> None:
    state = played(32)
    model = model_for(state)
    assert model.my_turn
    model.ui.select(Action.take(1))
    model.ui.move(1, 0)
    model.ui.rotate()
    width, height = size
    check_golden(f"screen-placing-{width}x{height}.txt", screen_text(model, width, height))


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_screen_golden_final(size: tuple[int, int]) -> None:
    state = played(10_000)
    assert state.is_over()
    model = model_for(state)
    assert model.page == FINAL
    width, height = size
    check_golden(f"screen-final-{width}x{height}.txt", screen_text(model, width, height))


def test_screen_golden_intermezzo() -> None:
    state = played(0)
    policy, rng = make_policy("greedy"), random.Random(1)
    while state.intermezzo is None:
        state.apply(policy.choose(state, rng))
    model = model_for(state, you=state.current_seat)
    check_golden("screen-intermezzo-80x24.txt", screen_text(model, 80, 24))


@pytest.mark.parametrize("moves", [0, 1, 40, 120, 10_000])
@pytest.mark.parametrize("size", [(80, 24), (100, 30), (120, 40), (160, 48)])
def test_screen_is_exactly_the_terminal_size(moves: int, size: tuple[int, int]) -> None:
    width, height = size
    model = model_for(played(moves, players=3))
    lines = screen(model, width, height - 1)
    assert len(lines) == height - 1
    assert all(len(line_text(line)) == width for line in lines)


@pytest.mark.parametrize("moves", [20, 10_000])
def test_a_name_in_wide_characters_keeps_every_line_to_the_terminals_columns(
        moves: int) -> None:
    """A Chinese or Japanese character takes two columns: a name of ten of them was cut to ten
    characters, twenty columns, and pushed the score row's supply, the status line's "online"
    and the final table's figures off the screen."""
    state = played(moves, players=3)
    model = model_for(state)
    wide = "漢字漢字漢字漢字漢字漢字"
    model.seats[0]["name"] = wide
    for seat in model.seats[1:]:
        seat["name"] = "ann"
    lines = [line_text(line) for line in screen(model, 80, 23)]
    assert all(columns(line) == 80 for line in lines), lines
    assert columns(model.name(0)) <= 10 and wide.startswith(model.name(0))
    assert lines[0].rstrip().endswith("● online")
    if not state.is_over():
        panel = [line.split("│")[-1] for line in lines if "│" in line]
        row = next(p for p in panel if p.startswith((" 1 ", "▶1 ")))
        assert f"●{state.seats[0].supply}" in row  # the supply, after the score
    else:  # the final table: each row's score in the same column
        scores = state.result().scores
        rows = {seat: next(line for line in lines if line.startswith(f" {rank + 1}  "))
                for rank, seat in enumerate(state.result().ranking)}
        at = {columns(row[: row.index(f" {scores[seat]}  ")]) for seat, row in rows.items()}
        assert len(at) == 1, rows


def test_help_pages_are_made_from_the_key_bindings_and_fit_80_by_24() -> None:
    """Page 1 lists every key binding with its own help line; the next pages hold the
    commands and symbols, then the rules; each fits an 80x24 terminal whole."""
    model = model_for(played(0))
    Console(model, output=DummyOutput())  # binds the keys, which write the keys page
    model.page = "help"
    pages = []
    for page in range(len(help_pages(model))):
        model.help_page = page
        pages.append(screen_text(model, 80, 24))
    *key_pages, commands, rules = pages
    keys = "".join(key_pages)
    assert "Keys" in keys and "1-5" in keys and "take that offer tile" in keys
    assert "Tab" in keys and "show the next player's" in keys and "Esc" in keys
    assert "Commands" in commands and "missing disc)" in commands
    assert "Cacophony" in rules and "Intermezzo" in rules and "End:" in rules
    for text in pages:
        assert "page " in text and all(len(line) <= 80 for line in text.splitlines())
    assert "against you at the end)" in rules  # the last line is on screen, whole


def test_readme_shows_the_golden_screen() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    screen_80x24 = (GOLDEN / "screen-placing-80x24.txt").read_text(encoding="utf-8")
    assert screen_80x24.rstrip("\n") in readme, "paste tests/golden/screen-placing-80x24.txt"


def test_a_narrow_terminal_folds_the_panel_under_the_offer() -> None:
    state = played(32)
    model = model_for(state)
    text = screen_text(model, 60, 24)
    assert "Unseen" not in text and "ends at" not in text  # no side panel beside the display
    assert f"[{len(state.offer)}]" in text and "left" in text  # the whole offer, and the pile
    assert "ann 4" in text and "greedy 16" in text and "Storage 2/4" in text


def test_a_narrow_terminal_shows_every_players_score_whole() -> None:
    """Four players at 70 columns: the folded score line was cut after the last player's
    name, their score, discs and cacophony gone; an entry that does not fit takes a line."""
    state = played(40, players=4)
    model = model_for(state)
    model.seats = [{"name": n} for n in ("ann", "greedy", "random", "greedy 2")]
    for width in (70, 50):
        text = screen_text(model, width, 24)
        for seat in range(4):
            s = state.view(0)["seats"][seat]
            name = ("ann", "greedy", "random", "greedy 2")[seat]
            assert f"{seat + 1} {name} {s['score']} ●{s['supply']}" in text, (seat, text)
        assert all(len(line) <= width for line in text.splitlines())


def test_five_offer_tiles_and_the_pile_fit_80_columns() -> None:
    state = played(0)
    assert len(state.offer) == 5
    text = screen_text(model_for(state), 80, 24)
    assert "[5]" in text and f"{state.pile_size()} left" in text


def test_the_log_gets_the_rows_the_board_does_not_need_and_scrolls_back() -> None:
    state = played(6)
    model = model_for(state)
    for i in range(30):
        model.add_log(f"line {i}")
    text = screen_text(model, 120, 40)
    shown = [n for n in range(30) if f"line {n}\n" in text]
    assert len(shown) >= 12 and shown[-1] == 29  # more than the 6 a fixed share gave
    model.log_back = 10
    text = screen_text(model, 120, 40)
    assert "line 19\n" in text and "line 29" not in text and "newer lines below" in text


def test_a_log_line_names_a_seat_whole_where_the_boards_cut_it_to_fit() -> None:
    model = ConsoleModel()
    model.seats = [{"seat": 0, "name": "ann"}, {"seat": 1, "name": "house greedy 2"}]
    assert model.name(1) == "house gr 2"  # a board's or the score row's narrow column
    assert model.name(1, 8) == "house 2"  # cut at a space: one space before the number
    model.seats[0]["name"] = "Alexandra the Great"
    assert model.name(0) == "Alexandra"  # cut after a word: no space before "'s turn"
    missed = model.event_text({"type": "deadline_missed", "seat": 1})
    assert missed.startswith("house greedy 2 ran out of time")


def test_the_log_says_each_seats_score_at_game_over_as_the_other_games_do() -> None:
    """A replay's or a watcher's last log line is the result: the ranking alone ("game over:
    ann, bo") left out what each scored."""
    model = ConsoleModel()
    model.seats = [{"seat": 0, "name": "ann"}, {"seat": 1, "name": "bo"}]
    over = {"type": "game_over", "scores": [28, -4], "ranking": [0, 1]}
    assert model.event_text(over) == "game over: ann 28, bo -4"


def test_a_solo_win_that_cacophony_took_below_75_says_both_on_the_final_screen() -> None:
    """R7: reaching 75 wins, even if the turn's missing discs then cost points (seed 132's
    greedy game: 75, then 73); the screen must not read "Goal reached: 73 points"."""
    policy, rng = make_policy("greedy"), random.Random(132)
    state = State.new(1, "solo", seed=132)
    while not state.is_over():
        state.apply(policy.choose(state, rng))
    model = ConsoleModel(connection="local", seats=[{"name": "ann"}])
    model.load({"you": 0, "view": state.view(0), "status": "over"})
    assert model.page == FINAL
    text = screen_text(model, 80, 24)
    assert "Goal reached: 75 points, 73 after that turn's cacophony, with 29 tiles" in text


def test_the_final_screen_names_the_winner_whole_where_its_table_cuts_the_name() -> None:
    state = played(10_000)
    winner = state.result().ranking[0]
    model = model_for(state, you=1 - winner)  # the winner is someone else
    model.seats[winner]["name"] = "house greedy 2"
    text = screen_text(model, 80, 24)
    assert "house gr 2" in text  # its row in the table of scores
    assert "house greedy 2 wins." in text


def test_a_tied_winner_is_explained_by_the_stack_on_the_final_screen() -> None:
    """Seed 48's greedy game ends 77 to 77: the screen showed two equal scores and "ann
    wins." without a word of why; R4 puts ahead the marker that reached the score first."""
    state = played(10_000, seed=48)
    result = state.result()
    assert result.scores == (77, 77) and result.ranking[0] == 0
    model = model_for(state, you=1)
    text = screen_text(model, 80, 24)
    assert ("ann wins.\nTied on 77 points: ann's marker reached 77 first, under greedy's in the "
            "stack.\n") in text, text
    assert "Tied on" not in screen_text(model_for(played(10_000)), 80, 24)  # no tie, no word


def test_a_tie_of_three_names_every_marker_in_the_stack() -> None:
    """Of three tied, the line named the winner and the second: the third, tied as well, was
    left out, as if it had scored less."""
    state = played(10_000, players=3)
    model = model_for(state)
    ranking = state.result().ranking
    view = dict(model.view or {})
    view["result"] = {"scores": [50, 50, 50], "ranking": list(ranking)}
    model.view = view
    text = screen_text(model, 80, 24)
    names = ["ann", "greedy", "bo"]
    first, second, third = (names[seat] for seat in ranking)
    said = " ".join(text.split())  # wrapped at 80 columns
    assert (f"Tied on 50 points: {first}'s marker reached 50 first, under {second}'s and "
            f"{third}'s in the stack.") in said, text


def test_an_advanced_solo_screen_shows_the_final_score_it_stands_for_and_no_goal() -> None:
    """R7: advanced solo has no goal; the track is settled at the end (unflipped values and
    cacophony out, bonus in). The panel said "goal 75" with a bar to 75, and at the end a
    track of 335 beside a result of 192, and never the bonus nor the set-aside tiles."""
    policy, rng = make_policy("greedy"), random.Random(11)
    state = State.new(1, "solo-advanced", seed=11)
    for _ in range(16):
        state.apply(policy.choose(state, rng))
    p = state.seats[0]
    unflipped = sum(TILES[t].value for t in unflipped_tiles(state))
    assert p.cacophony and unflipped  # the settling counts here
    final = p.score - unflipped + p.bonus - 2 * p.cacophony
    backs = " ".join(f"{e[0].upper()}{v}" for e, v in state.view()["set_aside"])
    for size in ((80, 24), (60, 24)):
        text = screen_text(model_for(state), *size)
        assert "goal" not in text and " 75" not in text
        assert f"final now {final}  bonus +{p.bonus}" in text
        assert backs and f"et aside {backs}" in text
    while not state.is_over():
        state.apply(policy.choose(state, rng))
    model = model_for(state)
    model.page = GAME  # the board, not the final table
    text = screen_text(model, 80, 24)
    assert f"final {state.result().scores[0]}  bonus" in text
    assert state.result().scores[0] != state.seats[0].score


def unflipped_tiles(state: State) -> list[int]:
    return [tile for _x, _y, tile, _r, _c, flipped in state.view()["seats"][0]["display"]
            if not flipped]


def test_an_advanced_solo_preview_says_the_bonus_and_the_final_score_it_makes() -> None:
    """R7: from the fifth tile on, a turn that leaves at most two tiles unflipped earns +5, and
    an unflipped tile's value counts against the final score. Where the ghost stands decides
    both, and the preview said only the track's points and the arrows. Four tiles placed (F2
    and E19 unflipped), E35 revealed: at -1,-2 it completes at once."""
    aside = (3, 10, 12, 15, 18)  # 3-point tiles: set aside at once, to come last
    top = (*aside, 2, 19, 20, 1, 35)
    state = State.new(1, "solo-advanced", tiles=[*top, *(t for t in TILES if t not in top)])
    for cell in ((0, 0), (1, 0), (0, -1), (-1, -1)):
        state.apply(Action("reveal"))
        state.apply(Action.place(cell, 0))
    state.apply(Action("reveal"))
    model = model_for(state)
    earns = {}
    for place in state.legal_actions():
        after = state.clone()
        after.apply(place)
        model.ui.restore(Selection(None, 35, place.cell, place.rotation))
        note = model.ui.note()
        earns[place.cell, place.rotation] = "bonus +5" in note
        assert earns[place.cell, place.rotation] == (after.seats[0].bonus == 5)
        assert note.endswith(f", final {after.seats[0].final_score()}")  # as the panel will
    assert earns[(-1, -2), 0] and not all(earns.values())


def test_the_score_row_keeps_a_long_score_and_a_count_of_cacophony_discs_whole() -> None:
    """Basic solo, placed at random until past -100 with over 100 cacophony discs: the row
    said '-210  ●0  ✗11' at 80 columns for 111 discs (the panel cut the last digit)."""
    state, rng = State.new(1, "solo", seed=3), random.Random(3)
    p = state.seats[0]
    while not (p.score <= -100 and p.cacophony >= 100):
        state.apply(state.random_action(rng))
    text = screen_text(model_for(state), 80, 24)
    row = next(line for line in text.splitlines() if "▶1 ann" in line)
    assert row.endswith(f"{p.score}  ●{p.supply:<2} ✗{p.cacophony}"), row
