"""Sagani's part of the console: its screen, its keys and its typed commands.

The shell (:mod:`sagani_net.cli.console`) draws the status line, the log and the message line and
runs the command line; this module draws the displays, the offer, the score track, the pile and
storage, the final ranking, and turns keys and commands into Sagani's actions (:class:`SaganiUI`).

A tile is 8 characters by 3 lines; arrows stand where they point::

    ↖f ↑w ↗e      ╭──────╮
    ←a F10 →●     │  F6  │   (flipped: value shown)
    ↙f ↓w ↘e      ╰──────╯

Glyphs alone keep the screen readable without colour (``NO_COLOR``): the element letter F W E
A sits in each tile, each arrow carries the lowercase letter of the element it wants, and a
covered arrow carries a disc ``●`` instead.

Typed commands count offer and storage tiles from 1, as on screen::

    take 2 at 1,-1 rot 90     take 2          (a ghost to move with the keys)
    draw at 0,1 rot 0         pick 1 at 2,0   reveal at 1,0 rot 270
    place 1,-1 90             at 1,-1 rot 90  rot 180      pass

>>> command = parse("take 2 at 1,-1 rot 90")
>>> str(command.choice), command.cell, command.rotation
('take 1', (1, -1), 90)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, NamedTuple

from sagani_net.game import Data, plural
from sagani_net.games import rules_file
from sagani_net.games.sagani.rules import Action, RuleError, State
from sagani_net.games.sagani.tiles import ARROWS, DIRECTIONS, ELEMENTS, ROTATIONS, TILES
from sagani_net.gameui import (
    CommandError,
    GameUI,
    Key,
    Line,
    box,
    columns,
    fit,
    line_text,
    merge,
    nearest,
    pad,
    wrap,
)

Cell = tuple[int, int]
Fragment = tuple[str, str]

TILE_W, TILE_H = 8, 3
#: A display cell: the tile plus two blank columns, so neighbours stay apart without colour.
CELL_W, CELL_H = TILE_W + 2, TILE_H
#: The column of y labels left of a display.
GUTTER = 3
SIDE_W = 26
#: Below this width the side panel folds under the display instead of beside it.
NARROW_W = 72

LETTER = {"fire": "F", "water": "W", "earth": "E", "air": "A"}
ARROW = "↑↗→↘↓↙←↖"
DISC = "●"
#: (row, column) of each direction's arrow inside a tile, indexed like DIRECTIONS.
ARROW_AT = ((0, 3), (0, 6), (1, 6), (2, 6), (2, 3), (2, 0), (1, 0), (0, 0))

STYLES = {
    "tile.fire": "bg:#5f1a00 fg:#ffd7af",
    "tile.water": "bg:#00235f fg:#afd7ff",
    "tile.earth": "bg:#1f3f00 fg:#d7ffaf",
    "tile.air": "bg:#4f4f4f fg:#ffffd7",
    "arrow.fire": "fg:#ff5f5f bold",
    "arrow.water": "fg:#5fafff bold",
    "arrow.earth": "fg:#87d75f bold",
    "arrow.air": "fg:#ffff87 bold",
    "covered": "fg:#ffffff",
    "slot": "fg:ansibrightblack",
    "flipped": "bold",
    "new": "underline",
    "ghost": "reverse",
    "will-cover": "reverse blink",
    "will-flip": "bold reverse",
    "legal": "fg:ansiyellow bold",
    "back": "fg:ansibrightblack",
    "centre": "bold",
}


# -- tiles --------------------------------------------------------------------------------------


def tile_rows(
    tile: int,
    rotation: int,
    covered: int = 0,
    flipped: bool = False,
    *,
    new: bool = False,
    extra: str = "",
    will_cover: Iterable[int] = (),
    mark: str = "",
) -> list[Line]:
    """A tile as 3 lines of 8 characters. ``covered`` is the bitmask over rotated directions
    (bit 0 = N); ``will_cover`` the directions a preview would cover; ``extra`` more style;
    ``mark`` a character before the value (``*`` new since your last turn, ``+`` the ghost)."""
    t = TILES[tile]
    base = f"class:tile.{t.element} {extra}".strip()
    if new:
        base += " class:new"
    if flipped:
        label = f"{LETTER[t.element]}{t.value}".center(6)
        return [
            [(base + " class:flipped", "╭──────╮")],
            [(base + " class:flipped", "│" + label + "│")],
            [(base + " class:flipped", "╰──────╯")],
        ]
    grid: list[list[Fragment]] = [[(base, " ") for _ in range(TILE_W)] for _ in range(TILE_H)]
    centre = (mark or ("*" if new else " ")) + f"{LETTER[t.element]}{t.value}".ljust(3)
    for i, ch in enumerate(centre):
        grid[1][2 + i] = (base + " class:centre", ch)
    for row, col in ARROW_AT:
        grid[row][col] = (base + " class:slot", "·")  # slots without an arrow show the shape
    hint = set(will_cover)
    for d, e in ARROWS[tile, ROTATIONS.index(rotation)]:
        row, col = ARROW_AT[d]
        style = f"{base} class:arrow.{ELEMENTS[e]}"
        if d in hint:
            style += " class:will-cover"
        grid[row][col] = (style, ARROW[d])
        if covered >> d & 1:
            grid[row][col + 1] = (style + " class:covered", DISC)
        else:
            grid[row][col + 1] = (style, LETTER[ELEMENTS[e]].lower())
    return [merge(row) for row in grid]


def back_rows(back: list[Any] | None, count: int) -> list[Line]:
    """The draw pile: the back of its top tile (element and value) and how many are left."""
    if back is None:
        return [
            [("class:back", "░" * TILE_W)],
            [("class:back", " empty  ")],
            [("class:back", "░" * TILE_W)],
        ]
    element, value = back
    style = f"class:tile.{element}"
    shade = style + " class:back"
    label = f"{LETTER[element]}{value}".center(4)
    return [
        [(shade, "░░░░░░░░")],
        [(shade, "░░"), (style + " class:centre", label), (shade, "░░")],
        [(style, f"{count:>3} left"[:TILE_W].ljust(TILE_W))],
    ]


def tile_text(tile: int, rotation: int = 0) -> str:
    """A tile in one short line: ``F6 ↑w ↗e →f`` (for storage lists and screen readers)."""
    t = TILES[tile]
    arrows = " ".join(
        ARROW[d] + LETTER[ELEMENTS[e]].lower() for d, e in ARROWS[tile, ROTATIONS.index(rotation)]
    )
    return f"{LETTER[t.element]}{t.value} {arrows}"


# -- displays -----------------------------------------------------------------------------------


def display_rows(
    display: list[list[Any]],
    width: int,
    height: int,
    *,
    legal: Iterable[Cell] = (),
    ghost: tuple[int, Cell, int] | None = None,
    preview: dict[str, Any] | None = None,
    new: Iterable[Cell] = (),
    pan: tuple[int, int] = (0, 0),
) -> list[Line]:
    """A display as a grid, ``width`` x ``height`` characters: a ruler of x above, y at the
    left, north up. It pans (``pan`` in cells) when the display is larger than the space, and
    always keeps the ghost in sight; ◂ ▸ ▴ ▾ mark the sides with more beyond."""
    tiles = {(t[0], t[1]): t for t in display}
    legal = set(legal)
    cells = set(tiles) | legal | ({ghost[1]} if ghost else set())
    if not cells:
        cells = {(0, 0)}
    ncols = max(1, (width - GUTTER) // CELL_W)
    nrows = max(1, (height - 1) // CELL_H)
    minx, maxx = min(c[0] for c in cells), max(c[0] for c in cells)
    miny, maxy = min(c[1] for c in cells), max(c[1] for c in cells)
    x0 = _window(minx, maxx, ncols, pan[0], ghost[1][0] if ghost else None)
    top = -_window(-maxy, -miny, nrows, pan[1], -ghost[1][1] if ghost else None)
    covers: dict[Cell, set[int]] = {}
    flips: set[Cell] = set()
    if preview:
        for x, y, d in preview["covers"]:
            covers.setdefault((x, y), set()).add(DIRECTIONS.index(d))
        flips = {(c[0], c[1]) for c in preview["flips"]}
    new = set(new)
    lines: list[Line] = []
    ruler: Line = [("class:dim", "▴  " if top < maxy else "   ")]
    for i in range(ncols):
        x = x0 + i
        label = "◂" if i == 0 and x0 > minx else " "
        label += str(x).center(TILE_W - 1)
        label += "▸ " if i == ncols - 1 and x < maxx else "  "
        ruler.append(("class:dim", label))
    lines.append(merge(ruler))
    for j in range(nrows):
        y = top - j
        rows: list[Line] = [[], [], []]
        for r in range(TILE_H):
            gutter = f"{y:>2} " if r == 1 else "   "
            if r == 2 and j == nrows - 1 and y > miny:
                gutter = "▾  "
            rows[r].append(("class:dim", gutter))
        for i in range(ncols):
            cell = (x0 + i, y)
            block = _cell_rows(cell, tiles, legal, ghost, covers, flips, new)
            for r in range(TILE_H):
                rows[r].extend(block[r])
                rows[r].append(("", "  "))
        lines.extend(merge(r) for r in rows)
    return [fit(line, width) for line in lines[:height]] + [
        [("", " " * width)] for _ in range(height - len(lines))
    ]


def _window(low: int, high: int, size: int, pan: int, focus: int | None) -> int:
    """The first visible index of a window of ``size`` over ``low..high``."""
    if high - low + 1 <= size:
        start = low - (size - (high - low + 1)) // 2  # centred
    else:
        start = min(max(low + pan, low), high - size + 1)
    if focus is not None:
        if focus < start:
            start = focus
        elif focus >= start + size:
            start = focus - size + 1
    return start


def _cell_rows(
    cell: Cell,
    tiles: dict[Cell, list[Any]],
    legal: set[Cell],
    ghost: tuple[int, Cell, int] | None,
    covers: dict[Cell, set[int]],
    flips: set[Cell],
    new: set[Cell],
) -> list[Line]:
    if ghost is not None and ghost[1] == cell:
        will_flip = cell in flips
        extra = "class:ghost" + (" class:will-flip" if will_flip else "")
        return tile_rows(ghost[0], ghost[2], extra=extra, mark="+")
    if cell in tiles:
        _, _, tile, rotation, covered, flipped = tiles[cell]
        extra = "class:will-flip" if cell in flips else ""
        return tile_rows(
            tile,
            rotation,
            covered,
            flipped,
            new=cell in new,
            extra=extra,
            will_cover=covers.get(cell, ()),
        )
    if cell in legal:
        label = f"{cell[0]},{cell[1]}".center(TILE_W)
        return [
            [("class:legal", "┌      ┐")],
            [("class:legal", label)],
            [("class:legal", "└      ┘")],
        ]
    return [[("", " " * TILE_W)] for _ in range(TILE_H)]


# -- panels -------------------------------------------------------------------------------------


def score_lines(ui: SaganiUI, width: int) -> list[Line]:
    """The score track: seats best first (numbered by seat), with score, discs in supply and
    cacophony discs; a bar towards the threshold with each seat's number on it; ties show the
    stack order (↓ the marker below, which is ahead)."""
    model = ui.model
    view = model.view
    assert view is not None
    seats = view["seats"]
    # Advanced solo has no goal: all 72 tiles are played, then the track is settled (R7).
    advanced = view["mode"] == "solo-advanced"
    goal = "ends at" if view["mode"] == "multi" else "goal"
    title = "Score  (all 72 tiles)" if advanced else f"Score  ({goal} {view['threshold']})"
    lines: list[Line] = [[("class:title", title)]]
    ranking = view["ranking"]
    # Best first; the numbers are seats, as on the track below and in the display titles.
    for seat in ranking:
        s = seats[seat]
        mark = "▶" if seat == model.turn else " "
        style = "class:you" if seat == model.you else ""
        stack = ""
        same = [o for o in ranking if seats[o]["score"] == s["score"]]
        if len(same) > 1:
            stack = "↓" if same.index(seat) == 0 else "↑"  # lower in the stack is ahead
        before = ui.scores_mark[seat] if seat < len(ui.scores_mark) else s["score"]
        score_style = style + (" class:new" if s["score"] != before else "")
        tail: Line = [
            (score_style, f"{s['score']:>3}"),
            (style, f"{stack:1} ●{s['supply']:<2}" + (f" ✗{s['cacophony']}" if s["cacophony"]
                                                      else "")),
        ]
        # A long score beside many cacophony discs (-210 ✗111) takes from the name, not the
        # count: the panel would cut the count's last digit.
        name_w = max(3, min(9, width - 4 - len(line_text(tail))))
        lines.append([(style, f"{mark}{seat + 1} {pad(model.name(seat, name_w), name_w)} "),
                      *tail])
    if advanced:
        return lines + [advanced_final_line(ui)]
    bar_w = max(4, width - 6)
    track = ["·"] * bar_w
    for seat in reversed(ranking):
        pos = min(
            bar_w - 1, max(0, seats[seat]["score"] * (bar_w - 1) // max(1, view["threshold"]))
        )
        track[pos] = str(seat + 1)
    lines.append(
        [("class:dim", "0 "), ("", "".join(track)), ("class:dim", f" {view['threshold']}")]
    )
    flags = []
    if view["end_triggered"] and view["mode"] == "multi":  # solo: the turn that ends it
        flags.append("END TRIGGERED")
    if view["last_round"]:
        flags.append("LAST ROUND")
    if flags:
        lines.append([("class:error", " ".join(flags))])
    return lines


def advanced_final_line(ui: SaganiUI) -> Line:
    """Advanced solo: the final score the track stands for (bonus in, unflipped values and
    cacophony out), now or at the end."""
    view = ui.model.view
    assert view is not None
    bonus = f"  bonus +{view['seats'][0]['bonus']}"
    if view.get("result"):
        return [("class:title", f"final {view['result']['scores'][0]}"), ("", bonus)]
    state = ui.state()
    if state is None:
        return []
    return [("", f"final now {state.seats[0].final_score()}{bonus}")]


def set_aside_text(view: Data) -> str:
    """Advanced solo: the backs of the set-aside tiles, face down, in the order they come."""
    return " ".join(f"{LETTER[e]}{v}" for e, v in view["set_aside"])


def pile_lines(ui: SaganiUI) -> list[Line]:
    model = ui.model
    view = model.view
    assert view is not None
    top = view["top"]
    back = f"top {LETTER[top[0]]}{top[1]} ({top[0]})" if top else "empty"
    lines: list[Line] = [[("", f"Pile {view['pile']:>2}  {back}")]]
    storage = view["storage"]
    if view["set_aside"]:
        lines.append([("", f"Set aside {set_aside_text(view)}")])
    if view["mode"] != "multi":
        return lines  # no offer, no storage in the solo games
    label = f"Storage {len(storage)}/4"
    lines.append([("class:title" if view["intermezzo"] else "", label)])
    for i, tile in enumerate(storage):
        lines.append([("", f" {i + 1} {tile_text(tile)}")])
    return lines


def unseen_lines(ui: SaganiUI) -> list[Line]:
    """Tiles not yet seen, counted by element and value."""
    model = ui.model
    view = model.view
    assert view is not None
    counts: dict[tuple[str, int], int] = {}
    for tile in view["unseen"]:
        t = TILES[tile]
        counts[t.element, t.value] = counts.get((t.element, t.value), 0) + 1
    lines: list[Line] = [
        [("class:title", f"Unseen {len(view['unseen'])}"), ("class:dim", "  1  3  6 10")]
    ]
    for element in ELEMENTS:
        row = "".join(f"{counts.get((element, v), 0):>3}" for v in (1, 3, 6, 10))
        lines.append([(f"class:arrow.{element}", f"  {element:<7}"), ("", row)])
    return lines


def unseen_short(ui: SaganiUI) -> Line:
    """Tiles not yet seen, in one line: ``Unseen 43 F12 W10 E11 A10``."""
    model = ui.model
    view = model.view
    assert view is not None
    line: Line = [("class:title", f"Unseen {len(view['unseen'])}")]
    for element in ELEMENTS:
        count = sum(TILES[t].element == element for t in view["unseen"])
        line.append((f"class:arrow.{element}", f" {LETTER[element]}{count}"))
    return line


def side_panel(ui: SaganiUI, width: int, height: int) -> list[Line]:
    """Score, pile and storage, unseen tiles: as many sections as fit, in that order."""
    lines: list[Line] = []
    unseen = unseen_lines(ui)
    for section in (score_lines(ui, width), pile_lines(ui), unseen):
        if lines and len(lines) + 1 + len(section) > height:
            if section is unseen and len(lines) + 2 <= height:
                lines += [[], unseen_short(ui)]  # no room for the table: counts by element
            break
        if lines:
            lines.append([])
        lines.extend(section)
    lines = lines[:height]
    return [fit(line, width) for line in lines] + [[("", " " * width)]] * (height - len(lines))


def choice_strip(ui: SaganiUI, width: int) -> list[Line]:
    """Four lines: numbers, then the tiles to choose from: the offer (numbered from 1) and the
    draw pile, or in an intermezzo the storage."""
    model = ui.model
    view = model.view
    assert view is not None
    intermezzo = view["intermezzo"] is not None
    source = view["storage"] if intermezzo else view["offer"]
    sel = ui.selection
    chosen = (
        sel.source.index if sel and sel.source and sel.source.type in ("take", "pick") else None
    )
    # Two blank columns between tiles; one when that is what lets the pile fit beside them.
    gap = 2 if len(source) * CELL_W + TILE_W <= width or intermezzo else 1
    step = TILE_W + gap
    head: Line = []
    blocks: list[list[Line]] = []
    for i, tile in enumerate(source):
        label = f"[{i + 1}]" + (("◀ held" if gap == 2 else "◀held") if i == chosen else "")
        head.append(("class:title" if i == chosen else "", label.ljust(step)))
        blocks.append(tile_rows(tile, 0, extra="class:ghost" if i == chosen else ""))
    if intermezzo:
        you = model.my_turn and ui.phase == "choose"
        head.append(("class:legal", "or [p]ass" if you else "intermezzo"))
    else:
        if view["can_draw"] and model.my_turn:
            head.append(("class:legal", "[d]raw"))
        elif view["mode"] != "multi" and model.my_turn and ui.phase == "choose":
            head.append(("class:legal", "[r]eveal"))
        else:
            head.append(("class:dim", "pile"))
        if len(blocks) * step + TILE_W <= width:  # the side panel names the pile anyway
            blocks.append(back_rows(view["top"], view["pile"]))
        else:
            head.pop()
    lines: list[Line] = [head, [], [], []]
    for block in blocks:
        for r in range(TILE_H):
            lines[r + 1].extend(block[r])
            lines[r + 1].append(("", " " * gap))
    return [fit(merge(line), width) for line in lines]


def preview_text(preview: dict[str, Any]) -> str:
    """A placement preview in words."""
    x, y = preview["cell"]
    parts = [f"{x},{y} rot {preview['rotation']}:"]
    covers = [f"{x},{y}{ARROW[DIRECTIONS.index(d)]}" for x, y, d in preview["covers"]]
    own = len(preview["covered"])
    if covers:
        shown = " ".join(covers[:3]) + (" ..." if len(covers) > 3 else "")
        parts.append(f"covers {len(covers)} ({shown})")
    parts.append(f"{own} own covered" if own else "none of its own covered")
    flips = len(preview["flips"])
    if flips:
        parts.append(f"flips {flips}")
    parts.append(f"+{preview['points']}")
    if preview.get("bonus"):
        parts.append(f"bonus +{preview['bonus']}")
    if preview["discs_freed"]:
        parts.append(f"frees {plural(preview['discs_freed'], 'disc')}")
    if preview["cacophony"]:
        need = len(preview["covered"]) + len(preview["open"])
        have = preview.get("supply", 0) + preview["discs_freed"]
        parts.append(f"CACOPHONY x{preview['cacophony']} (-{2 * preview['cacophony']}: "
                     f"{plural(need, 'arrow')} need discs, you have {have})")
    parts.append(f"open arrows left {len(preview['open'])}")
    if "final" in preview:  # advanced solo: all of the above, settled
        parts.append(f"final {preview['final']}")
    return " ".join(parts[:1]) + " " + ", ".join(parts[1:])


def breakdown(view: dict[str, Any], seat: int) -> dict[str, int]:
    """Where a seat's points come from: flipped tiles, cacophony, bonus, unflipped tiles."""
    s = view["seats"][seat]
    flipped = [t for t in s["display"] if t[5]]
    unflipped = [t for t in s["display"] if not t[5]]
    return {
        "tiles": len(s["display"]),
        "flipped": len(flipped),
        "flipped_points": sum(TILES[t[2]].value for t in flipped),
        "unflipped_points": sum(TILES[t[2]].value for t in unflipped),
        "cacophony": s["cacophony"],
        "bonus": s["bonus"],
    }


def final_lines(ui: SaganiUI, width: int, height: int) -> list[Line]:
    """The ranking and each player's breakdown."""
    model = ui.model
    view = model.view
    assert view is not None
    result = view.get("result") or {
        "scores": [s["score"] for s in view["seats"]],
        "ranking": view["ranking"],
    }
    lines: list[Line] = [[("class:title", "Game over")], []]
    if view["mode"] == "solo":
        won, score = result.get("won"), result["scores"][0]
        said = f"{'Goal reached' if won else 'Goal missed'}: {score} points"
        if won and score < view["threshold"]:  # reached in the turn, then cacophony (R7)
            said = f"Goal reached: {view['threshold']} points, {score} after that turn's cacophony,"
        lines.append([("", f"{said} with {result.get('tiles_used', '?')} tiles")])
        if won and result.get("tiles_used", 99) <= 25:
            lines.append([("class:title", "A magical symphony!")])
    head = " #  player      score  tiles flipped  points  cacophony  bonus  unflipped pts"
    lines.append([("class:dim", head)])
    for rank, seat in enumerate(result["ranking"]):
        b = breakdown(view, seat)
        style = "class:you" if seat == model.you else ""
        score = result["scores"][seat]
        lost = f"(-{2 * b['cacophony']})" if b["cacophony"] else ""
        cacophony = f"{b['cacophony']:>4} {lost:<5}"
        row = (
            f" {rank + 1}  {pad(model.name(seat), 10)}  {score:>5}  {b['tiles']:>5}"
            f" {b['flipped']:>7}  {b['flipped_points']:>6}  {cacophony}"
            f"  {b['bonus']:>5}  {b['unflipped_points']:>9}"
        )
        lines.append([(style, row)])
    formula = {
        "multi": "score = points of flipped tiles - 2 per cacophony disc",
        "solo": "score = points of flipped tiles - 2 per cacophony disc",
        "solo-advanced": "score = flipped - unflipped + bonus - 2 per cacophony disc",
    }[view["mode"]]
    lines.append([("class:dim", formula)])
    lines.append([])
    winner = result["ranking"][0]
    if view["mode"] == "multi":
        who = "You win!" if winner == model.you else f"{model.sentence_name(winner)} wins."
        lines.append([("class:message", who)])
        # Equal scores and a winner: the rules' tie-break (R4) says why, as Sagrada's and
        # Sugi's final screens do; every seat of the tie, top of the stack last.
        tied = result["scores"][winner]
        under = [f"{model.sentence_name(seat)}'s" for seat in result["ranking"][1:]
                 if result["scores"][seat] == tied]
        if under:
            others = under[0] if len(under) == 1 else f"{', '.join(under[:-1])} and {under[-1]}"
            why = (f"Tied on {tied} points: {model.sentence_name(winner)}'s marker reached "
                   f"{tied} first, under {others} in the stack.")
            lines += [[("", row)] for row in wrap(why, width)]
    return box(lines, width, height)


#: From this width on, a second display stands beside yours (Tab picks which).
WIDE_W = 150


def game_body(ui: SaganiUI, width: int, height: int) -> list[Line]:
    """The display on the left with the offer under it; the side panel on the right. On a wide
    terminal another player's display stands beside yours; on a narrow one the panel folds
    to a few lines under the offer."""
    model = ui.model
    view = model.view
    assert view is not None
    if width < NARROW_W:
        folded = folded_panel(ui, width)
        strip = choice_strip(ui, width)
        rest = height - len(strip) - len(folded)
        left = display_block(ui, model.shown, width, rest, title_note="Tab: next")
        return box([*left, *strip, *folded], width, height)
    side_w = SIDE_W if width < 110 else SIDE_W + 6
    left_w = width - side_w - 1
    strip = choice_strip(ui, left_w)
    seat = model.shown
    beside: list[Line] = []
    if width >= WIDE_W and view["players"] > 1:
        # Yours (or, watching, the one Tab chose) on the left; Tab picks the one beside it.
        main = model.you if model.you is not None else seat
        other = seat if seat != main else (main + 1) % view["players"]
        other_w = left_w * 2 // 5
        left_w -= other_w + 1
        strip = choice_strip(ui, left_w)
        beside = display_block(ui, other, other_w, height)
        seat = main
    left = display_block(ui, seat, left_w, height - len(strip), title_note="Tab: next")
    left += strip
    side = side_panel(ui, side_w, height)
    if beside:
        left = [[*left[i], ("class:dim", "│"), *beside[i]] for i in range(height)]
    return [[*left[i], ("class:dim", "│"), *side[i]] for i in range(height)]


def folded_panel(ui: SaganiUI, width: int) -> list[Line]:
    """The side panel in a few full-width lines (narrow terminals): scores, pile, storage."""
    model = ui.model
    view = model.view
    assert view is not None
    seats = view["seats"]
    advanced = view["mode"] == "solo-advanced"
    title = "Score" if advanced else f"Score ({view['threshold']})"
    # A player's entry is never cut: one that does not fit goes on a line of its own (four
    # players at 70 columns lost the last one's score, disc supply and cacophony).
    score_rows: list[Line] = [[("class:title", title)]]
    for seat in view["ranking"]:
        mark = "▶" if seat == model.turn else " "
        style = "class:you" if seat == model.you else ""
        s = seats[seat]
        caco = f" ✗{s['cacophony']}" if s["cacophony"] else ""
        entry = f" {mark}{seat + 1} {model.name(seat, 8)} {s['score']} ●{s['supply']}{caco}"
        if columns(line_text(score_rows[-1]) + entry) > width:
            score_rows.append([("", " " * len(title))])
        score_rows[-1].append((style, entry))
    scores = score_rows[-1]
    if advanced:
        scores += [("", "  "), *advanced_final_line(ui)]
    top = view["top"]
    pile = f"Pile {view['pile']} top {LETTER[top[0]]}{top[1]}" if top else "Pile empty"
    if view["set_aside"]:
        pile += f"  set aside {set_aside_text(view)}"
    lines = [*score_rows, [("", pile)]]
    if view["mode"] == "multi":
        stored = " ".join(f"{i + 1}:{LETTER[TILES[t].element]}{TILES[t].value}"
                          for i, t in enumerate(view["storage"]))
        lines[-1].append(("class:title" if view["intermezzo"] else "",
                         f"  Storage {len(view['storage'])}/4 {stored}"))
    return [fit(merge(line), width) for line in lines]


def display_block(
    ui: SaganiUI, seat: int, width: int, height: int, title_note: str = ""
) -> list[Line]:
    """A titled display of ``seat``, with the ghost if it is yours and you hold a tile."""
    model = ui.model
    view = model.view
    assert view is not None
    data = view["seats"][seat]
    title = "Your display" if seat == model.you else f"{model.name(seat)}'s display"
    note = f"; {title_note}" if title_note and view["players"] > 1 else ""  # solo: one display
    title += f"  ({plural(len(data['display']), 'tile')}, seat {seat + 1}/{view['players']}{note})"
    sel = ui.selection if seat == model.you else None
    grid = display_rows(
        data["display"],
        width,
        height - 1,
        legal=ui.legal_cells() if sel else (),
        ghost=(sel.tile, sel.cell, sel.rotation) if sel else None,
        preview=ui.preview if sel else None,
        new=ui.changed.get(seat, ()),
        pan=(ui.pan[0], ui.pan[1]) if seat == model.shown else (0, 0),
    )
    return [fit([("class:title", title)], width), *grid]




# -- typed commands -----------------------------------------------------------------------------

VERBS = ("take", "pick", "draw", "reveal", "pass", "place", "at", "rot")
CHOICE_VERBS = ("take", "pick", "draw", "reveal", "pass")


class Command(NamedTuple):
    """A parsed Sagani command: ``play`` (a ``choice``, then a placement if ``cell`` is
    given), ``place`` (the tile in hand at ``cell``) or ``rotate``."""

    kind: str
    choice: Action | None = None
    cell: Cell | None = None
    rotation: int | None = None


def parse(text: str) -> Command:
    """Read one command; raises CommandError with a hint."""
    words = text.replace(";", " ").split()
    if not words:
        raise CommandError("type a command, or help")
    verb, rest = words[0].lower(), words[1:]
    if verb in ("take", "pick"):
        if not rest:
            raise CommandError(f"{verb} which tile? e.g. {verb} 2")
        number = _int(rest[0], f"{verb} needs a tile number, e.g. {verb} 2")
        if number < 1:
            raise CommandError("tiles are numbered from 1")
        cell, rotation = _placement(rest[1:])
        return Command("play", Action(verb, number - 1), cell, rotation)
    if verb in ("draw", "reveal", "pass"):
        cell, rotation = _placement(rest)
        if verb == "pass" and cell is not None:
            raise CommandError("pass takes nothing after it")
        return Command("play", Action(verb), cell, rotation)
    if verb in ("place", "at"):
        if not rest:
            raise CommandError(f"{verb} where? e.g. {verb} 1,-1 90")
        cell, rotation = _placement(["at", *rest])
        return Command("place", None, cell, rotation)
    if verb in ("rot", "rotate"):
        if not rest:
            return Command("rotate")
        return Command("rotate", rotation=_rotation(rest[0]))
    raise CommandError(f"cannot read {text.strip()!r}; try help")


def _placement(words: list[str]) -> tuple[Cell | None, int | None]:
    """``[at] X,Y [[rot] R]`` -> (cell, rotation); nothing -> (None, None)."""
    if not words:
        return None, None
    if words[0].lower() == "at":
        words = words[1:]
    if not words:
        raise CommandError("at where? e.g. at 1,-1")
    cell = _cell(words[0])
    words = words[1:]
    if words and words[0].lower() in ("rot", "rotate"):
        words = words[1:]
        if not words:
            raise CommandError("rot needs 0, 90, 180 or 270")
    if len(words) > 1:
        raise CommandError(f"unexpected {' '.join(words[1:])!r}")
    return cell, (_rotation(words[0]) if words else 0)


def _cell(word: str) -> Cell:
    parts = word.strip("()").split(",")
    hint = f"a cell is x,y like 1,-1, not {word!r}"
    if len(parts) != 2:
        raise CommandError(hint)
    return _int(parts[0], hint), _int(parts[1], hint)


def _rotation(word: str) -> int:
    value = _int(word, f"rotation is 0, 90, 180 or 270, not {word!r}")
    if value not in ROTATIONS:
        raise CommandError(f"rotation is 0, 90, 180 or 270, not {value}")
    return value


def _int(word: str, hint: str) -> int:
    try:
        return int(word)
    except ValueError:
        raise CommandError(hint) from None


def complete(text: str, choices: Iterable[Action] = (), cells: Iterable[Cell] = ()) -> list[str]:
    """Sagani's words that could come next after ``text`` (for the last, partly typed word):
    ``choices`` are the actions open now, ``cells`` the legal cells."""
    words = text.split()
    partial = "" if text.endswith(" ") or not words else words.pop()
    choices = list(choices)
    if not words:
        open_now = {a.type for a in choices}
        options = [v for v in VERBS if v in open_now or v not in CHOICE_VERBS]
    else:
        verb, last = words[0].lower(), words[-1].lower()
        if verb in ("take", "pick") and len(words) == 1:
            options = [str((a.index or 0) + 1) for a in choices if a.type == verb]
        elif last in ("at", "place"):
            options = [f"{x},{y}" for x, y in cells]
        elif last in ("rot", "rotate"):
            options = [str(r) for r in ROTATIONS]
        elif "," in last and any(c.isdigit() for c in last):
            options = ["rot"]
        elif verb in ("take", "pick", "draw", "reveal") and "at" not in words:
            options = ["at"]
        else:
            options = []
    return [o for o in options if o.startswith(partial.lower())]


# -- help ---------------------------------------------------------------------------------------

COMMANDS_PAGE = """\
Commands (tiles numbered from 1; Tab completes, Up/Down history)
 take 2 at 1,-1 rot 90    take a tile from the offer and place it
 take 2                   take it; then move the ghost with the arrows
 draw at 0,1 rot 0        store the last offer tile, place the pile's top
 pick 1 at 2,0 rot 180    intermezzo: a storage tile
 place 1,-1 90   rot 180  place or turn the tile in hand
 pass   reveal   show 2   help   rules   quit
 Replays: next back first last step 12

Tiles: F fire, W water, E earth, A air, with the value. Arrows point their way
with the letter of the element they want (↗w: a water tile up-right, any
distance); ● is a covered arrow (a disc on it). A framed tile has flipped.
* changed since your last turn; + the tile in hand. The preview line tells what
placing it covers, flips, scores and costs (cacophony: -2 per missing disc)."""

RULES_PAGE = """\
Rules in short
Turn: take an offer tile (or draw: the last offer tile goes to storage and you
 take the pile's top), place it next to your tiles, and put on it one disc from
 your supply per arrow.
Arrows: an arrow is covered when a tile of its element lies anywhere in its
 direction. A tile whose arrows are all covered flips: you score its value and
 get its discs back.
Cacophony: when your supply has no disc for an arrow, you take a cacophony disc
 instead: -2 points each. Keep discs free by flipping tiles.
Intermezzo: when storage holds 4 tiles and the offer is empty, each player,
 furthest behind first, may pick one storage tile and place it, or pass.
End: reaching the goal (75/60/45 for 2/3/4 players) ends the game after the
 round; a low pile makes the round the last. Most points wins; on equal points,
 the marker that got there first.
Solo: reveal and place; reach 75 (advanced: play all 72, bonus for few
 unflipped tiles; unflipped values and cacophony count against you at the end).
The full rules, as installed:
 {path}"""


# -- the console part ---------------------------------------------------------------------------


@dataclass
class Selection:
    """A tile in hand, not yet placed: where it comes from, and where its ghost stands.

    ``source`` is the choice still to be sent (``take 2``) or None when the host already
    knows it (a drawn or revealed tile, or a take sent before a reconnect).
    """

    source: Action | None
    tile: int
    cell: Cell
    rotation: int = 0


class SaganiUI(GameUI[State]):
    """Sagani in the console: the tile in hand (a ghost to move, turn and place), the
    preview, what changed since your last turn, and the screen."""

    styles = STYLES
    board = "display"

    def __init__(self, game: Any, model: Any) -> None:
        super().__init__(game, model)
        self.selection: Selection | None = None
        self.preview: Data | None = None
        self.pan = [0, 0]
        #: seat -> cells that are new or changed since your last turn ended.
        self.changed: dict[int, set[Cell]] = {}
        #: These scores are what stood when your last turn ended.
        self.scores_mark: list[int] = []
        self._mark: dict[int, dict[Cell, tuple[Any, ...]]] = {}

    # -- questions --------------------------------------------------------------------------

    @property
    def phase(self) -> str:
        return self.view["phase"] if self.view else "open"

    def legal_cells(self) -> list[Cell]:
        """Where the tile in hand may go: empty cells next to your display, or (0, 0)."""
        if self.view is None or self.model.you is None:
            return []
        frontier = self.view["seats"][self.model.you]["frontier"]
        return [(c[0], c[1]) for c in frontier]

    def choices(self) -> list[Action]:
        """The choose-phase actions open to you now (take, draw, pick, pass, reveal)."""
        state = self.state()
        if state is None or not self.model.my_turn or self.phase != "choose":
            return []
        return state.legal_actions()

    # -- the screen -------------------------------------------------------------------------

    def body(self, width: int, height: int) -> list[Line]:
        return game_body(self, width, height)

    def body_height(self, width: int, height: int) -> int:
        """The rows the shown display (with room for every legal cell), the offer and the side
        panel's score and pile need; at least the shell's small-terminal share."""
        view = self.view
        assert view is not None
        seats = [self.model.shown]
        if width >= WIDE_W and view["players"] > 1:
            seats.append((self.model.shown + 1) % view["players"])
        rows = 0
        for seat in seats:
            data = view["seats"][seat]
            ys = {t[1] for t in data["display"]} | {c[1] for c in data["frontier"]}
            rows = max(rows, max(ys) - min(ys) + 1)
        left = 2 + CELL_H * rows + 4  # title, ruler, cells, then the offer strip
        if width < NARROW_W:
            return min(height, left + len(folded_panel(self, width)))
        side = len(score_lines(self, SIDE_W)) + 1 + len(pile_lines(self)) + 2
        return min(height, max(left, side))

    def final(self, width: int, height: int) -> list[Line]:
        return final_lines(self, width, height)

    def turn_note(self) -> str:
        if self.view is None:
            return ""
        if self.view["intermezzo"] is not None:
            return "intermezzo"
        return "place" if self.phase == "place" else ""

    def note(self) -> str:
        return preview_text(self.preview) if self.preview is not None else ""

    def hints(self) -> str:
        if self.selection is not None:
            # A tile the host holds (revealed, drawn) is not taken back: undo is offered for a
            # take not yet sent, or a step (a move, a turn) made since.
            local = self.selection.source is not None or self.model.steps
            undo = "  u/Esc undo" if local else ""
            return f"arrows move  r rotate  Enter place{undo}  : type a command  ? help"
        # Tab goes to the next player's display: a solo game has only yours.
        tab = "Tab displays  " if self.view is not None and self.view["players"] > 1 else ""
        if self.model.my_turn and self.phase == "choose":
            choices = self.choices()
            numbers = [a for a in choices if a.type in ("take", "pick")]
            first = []
            if numbers:
                first.append(f"1-{len(numbers)} {numbers[0].type}" if len(numbers) > 1 else
                             f"1 {numbers[0].type}")
            first += [f"{a.type[0]} {a.type}" for a in choices
                      if a.type in ("draw", "pass", "reveal")]
            return "  ".join(first) + f"  {tab}: command  ? help  q quit"
        return f"{tab}arrows pan  : command  ? help  q quit"

    def help_pages(self) -> list[list[str]]:
        rules = RULES_PAGE.format(path=rules_file(self.game.name))
        return [COMMANDS_PAGE.splitlines(), rules.splitlines()]

    # -- keys and commands ------------------------------------------------------------------

    def key_bindings(self) -> list[Key]:
        def sent(actions: list[Action]) -> list[Data]:
            return [a.to_dict() for a in actions]

        def number(n: int) -> list[Data]:
            kind = "pick" if self.view and self.view["intermezzo"] is not None else "take"
            return sent(self.select(Action(kind, n - 1)))

        def placing() -> bool:
            return self.selection is not None

        def rotating(steps: int) -> list[Data]:
            self.rotate(steps)
            return []

        def moving(dx: int, dy: int) -> list[Data]:
            self.move(dx, dy)
            return []

        take = "take that offer tile (intermezzo: pick from storage)"
        keys = [Key((str(n),), take if n == 1 else "", partial(number, n), label="1-5")
                for n in range(1, 6)]
        keys += [
            Key(("d",), "draw: store the last offer tile, take the pile's top",
                lambda: sent(self.select(Action("draw")))),
            Key(("p",), "pass", lambda: sent(self.select(Action("pass")))),
            Key(("r",), "rotate the tile in hand clockwise (R back)",
                partial(rotating, 1), when=placing),
            Key(("R",), "", partial(rotating, -1), when=placing),
            Key(("r",), "solo: reveal the next tile", lambda: sent(self.select(Action("reveal"))),
                when=lambda: not placing()),
            Key(("enter",), "place the tile where the ghost stands",
                lambda: sent(self.confirm()), when=placing, label="Enter"),
            # Without a tile in hand Enter did nothing at all, as if the key were dead.
            Key(("enter",), "", self.nothing_to_place, when=lambda: not placing()),
        ]
        for key, (dx, dy) in {"up": (0, 1), "down": (0, -1), "left": (-1, 0),
                              "right": (1, 0)}.items():
            keys.append(Key((key,), "move the ghost over the legal cells; otherwise pan"
                            if key == "up" else "", partial(moving, dx, dy),
                            label="arrows"))
        return keys

    def command(self, text: str) -> list[Data]:
        """A typed move, checked whole on a copy of the game before anything is sent."""
        command = parse(text)
        model = self.model
        if command.kind == "rotate":
            if self.selection is None:
                raise CommandError("no tile in hand to rotate")
            if command.rotation is None:
                self.rotate()
            else:
                self.place_at(self.selection.cell, command.rotation)
            return []
        if command.kind == "place":
            if self.selection is None:
                raise CommandError("take a tile first (take N, draw, pick N)")
            assert command.cell is not None
            self._check_place(command.cell, command.rotation or 0, self.selection.source)
            self.place_at(command.cell, command.rotation or 0)
            return [a.to_dict() for a in self.confirm()]
        choice = command.choice
        assert choice is not None
        if command.cell is None:
            return [a.to_dict() for a in self.select(choice)]
        if choice not in self.choices():
            raise CommandError(self.why_not(choice))
        place = Action.place(command.cell, command.rotation or 0)
        if choice.type in ("draw", "reveal"):
            # The tile is unknown until drawn; the cell is checked now, the rest by the host.
            if command.cell not in self.legal_cells():
                raise CommandError(f"{command.cell[0]},{command.cell[1]} is not next to your "
                                   "display")
            self.selection = None
            return [choice.to_dict(), place.to_dict()]
        self._check_place(command.cell, command.rotation or 0, choice)
        model.message = ""
        self.select(choice)
        self.place_at(command.cell, command.rotation or 0)
        return [a.to_dict() for a in self.confirm()]

    def _check_place(self, cell: Cell, rotation: int, source: Action | None) -> None:
        """Raise CommandError unless ``source`` (if unsent) then the place are both legal."""
        state = self.state()
        if state is None or not self.model.my_turn:
            raise CommandError(self.not_your_turn())
        state = state.clone()
        try:
            if source is not None:
                state.apply(source)
            state.apply(Action.place(cell, rotation))
        except RuleError as exc:
            raise CommandError(f"not sent: {exc.message}") from None

    def complete(self, text: str) -> list[str]:
        cells = self.legal_cells() if self.model.my_turn else []
        return complete(text, self.choices(), cells)

    def pan_reset(self) -> None:
        self.pan = [0, 0]

    def cancel(self) -> bool:
        """Drop a tile chosen but not yet sent (a held tile stays: it must be placed)."""
        if self.selection is not None and self.selection.source is not None:
            self.selection = None
            self.preview = None
        return False

    def step_state(self) -> Selection | None:
        """The tile in hand, where its ghost stands and how it is turned (undo)."""
        return None if self.selection is None else replace(self.selection)

    def restore(self, state: Selection | None) -> None:
        self.selection = None if state is None else replace(state)
        if self.selection is not None and self.model.you is not None:
            self.model.shown = self.model.you
        self.update_preview()

    # -- updates ----------------------------------------------------------------------------

    def updating(self, events: list[Data]) -> None:
        placed = [e["seat"] for e in events if e.get("type") == "tile_placed"]
        if self.model.you is None and placed:
            # A spectator has no turns: highlight the latest move, on the display it changed.
            self.model.remember()
            self.model.shown = placed[-1]

    def updated(self, events: list[Data]) -> None:
        you = self.model.you
        ended = you is not None and any(
            e.get("seat") == you and e.get("type") in ("tile_placed", "player_passed")
            for e in events
        )
        self._keep_selection()
        self._find_changes()
        if ended:
            self.model.remember()  # your turn ended: changes count from here (solo games too)

    def remember(self) -> None:
        """Note every display as it is now; later differences are highlighted."""
        if self.view is None:
            return
        self._mark = {
            seat: {(t[0], t[1]): tuple(t[2:]) for t in data["display"]}
            for seat, data in enumerate(self.view["seats"])
        }
        self.scores_mark = [data["score"] for data in self.view["seats"]]
        self.changed = {}

    def _find_changes(self) -> None:
        if self.view is None:
            return
        self.changed = {}
        for seat, data in enumerate(self.view["seats"]):
            before = self._mark.get(seat, {})
            cells = {
                (t[0], t[1]) for t in data["display"] if before.get((t[0], t[1])) != tuple(t[2:])
            }
            if cells:
                self.changed[seat] = cells

    def _keep_selection(self) -> None:
        """Keep the ghost across updates while it still makes sense; start one if a tile is
        already held (a draw, a reveal, or a take sent before a reconnect)."""
        if not self.model.my_turn:
            self.selection = None
            self.preview = None
            return
        if self.phase == "place":
            held = self.view["held"] if self.view else None
            sel = self.selection
            if held is None:
                self.selection = None
            elif sel is None or sel.tile != held:
                self.selection = Selection(None, held, self._start_cell())
            else:
                sel.source = None  # the host holds the choice now; keep the ghost where it is
            self.update_preview()
        elif self.selection is not None:
            # A ghost for a choice no longer open (or for a tile already placed) goes.
            if self.selection.source is None or self.selection.source not in self.choices():
                self.selection = None
            self.update_preview()

    # -- choosing and placing ---------------------------------------------------------------

    def select(self, action: Action) -> list[Action]:
        """Choose where your tile comes from. ``take``/``pick`` start a ghost locally (nothing is
        sent until you confirm); ``draw``, ``reveal`` and ``pass`` are returned to send now."""
        model = self.model
        if action not in self.choices():
            model.say(self.why_not(action))
            return []
        model.say("")
        if action.type in ("take", "pick"):
            assert self.view is not None and action.index is not None
            source = self.view["offer"] if action.type == "take" else self.view["storage"]
            tile = source[action.index]
            sel = self.selection
            keep = sel is not None and sel.source is not None
            cell = sel.cell if keep and sel is not None else self._start_cell()
            rotation = sel.rotation if keep and sel is not None else 0
            self.selection = Selection(action, tile, cell, rotation)
            model.shown = model.you if model.you is not None else model.shown
            self.update_preview()
            return []
        self.selection = None
        return [action]

    def why_not(self, action: Action) -> str:
        """Why ``action`` (not among :meth:`choices`) cannot be chosen now, in words."""
        view, what = self.view, action.typed()
        if view is None or not self.model.my_turn:
            return f"{what}: {self.not_your_turn()}"
        if self.phase != "choose":
            return f"{what}: place the tile in hand first (Enter, or :place x,y)"
        if view["mode"] != "multi":
            return f"{what}: in a solo game you reveal the next tile (r)"
        if action.type == "reveal":
            return "r turns the tile in hand, and you hold none: take one first (1-5 or d); " \
                "revealing is for the solo games"
        if view["intermezzo"] is not None:
            if action.type == "pick":
                return f"{what}: storage holds {plural(len(view['storage']), 'tile')}"
            return f"{what}: in an intermezzo you pick a storage tile (1-4) or pass (p)"
        if action.type == "take":
            return f"{what}: the offer holds {plural(len(view['offer']), 'tile')}"
        if action.type == "draw":
            if len(view["offer"]) > 1:
                return "draw: only when the offer is down to its last tile"
            if len(view["storage"]) >= 4:
                return "draw: storage is full"
            return "draw: the draw pile is empty"
        if action.type == "pick":
            return f"{what}: storage tiles are picked only in an intermezzo"
        return f"{what}: passing is for an intermezzo, or when nothing else is open"

    def nothing_to_place(self) -> list[Data]:
        """Enter with no tile in hand: say what to do first (nothing is sent)."""
        view = self.view
        if view is None or not self.model.my_turn:
            self.model.say(f"Enter places a tile: {self.not_your_turn()}")
        elif view["intermezzo"] is not None:
            self.model.say("Enter places the tile in hand, and you hold none: pick a storage "
                           "tile first (1-4), or pass (p)")
        elif view["mode"] != "multi":
            self.model.say("Enter places the tile in hand, and you hold none: reveal the next "
                           "tile first (r)")
        else:
            self.model.say("Enter places the tile in hand, and you hold none: take one first "
                           "(1-5, or d to draw)")
        return []

    def _start_cell(self) -> Cell:
        cells = self.legal_cells()
        if not cells:
            return (0, 0)
        return min(cells, key=lambda c: (abs(c[0]) + abs(c[1]), -c[1], c[0]))

    def move(self, dx: int, dy: int) -> None:
        """Move the ghost to the nearest legal cell in direction (dx, dy), or pan."""
        sel = self.selection
        if sel is None:
            self.pan_by(dx, dy)
            return
        cell = nearest(sel.cell, (dx, dy), self.legal_cells())
        if cell is not None:
            sel.cell = cell
            self.update_preview()

    def pan_by(self, dx: int, dy: int) -> None:
        """Offsets from the display's west and north edges, kept within the display."""
        view = self.view
        cells = [(t[0], t[1]) for t in view["seats"][self.model.shown]["display"]] if view else []
        xs, ys = [c[0] for c in cells] or [0], [c[1] for c in cells] or [0]
        self.pan[0] = min(max(0, self.pan[0] + dx), max(xs) - min(xs))
        self.pan[1] = min(max(0, self.pan[1] - dy), max(ys) - min(ys))

    def rotate(self, steps: int = 1) -> None:
        if self.selection is not None:
            i = ROTATIONS.index(self.selection.rotation)
            self.selection.rotation = ROTATIONS[(i + steps) % 4]
            self.update_preview()

    def place_at(self, cell: Cell, rotation: int) -> None:
        if self.selection is not None:
            self.selection.cell = cell
            self.selection.rotation = rotation
            self.update_preview()

    def update_preview(self) -> None:
        """What placing the ghost would do, computed locally with the engine."""
        sel = self.selection
        state = self.state()
        self.preview = None
        if sel is None or state is None:
            return
        try:
            if sel.source is not None:
                state = state.clone()
                state.apply(sel.source)
            place = Action.place(sel.cell, sel.rotation)
            self.preview = state.preview(place).summary()
            seat = state.current_seat
            self.preview["supply"] = state.seats[seat].supply if seat is not None else 0
            if state.mode == "solo-advanced":  # the +5 for few unflipped tiles is the rules' call
                after = state.clone()
                after.apply(place)
                self.preview["bonus"] = after.seats[0].bonus - state.seats[0].bonus
                # What the panel's "final now" would be: the tile's value counts against it
                # while it stays unflipped, which the points (the track's) do not say.
                self.preview["final"] = after.seats[0].final_score()
        except RuleError as exc:
            self.model.say(exc.message)

    def confirm(self) -> list[Action]:
        """The actions that play the ghost as it stands: the choice (if unsent) and the place."""
        sel = self.selection
        if sel is None or not self.model.my_turn:
            return []
        actions = [sel.source] if sel.source is not None else []
        # The ghost is spent: keys pressed before the host answers must not act on it again.
        self.selection = None
        self.preview = None
        return [*actions, Action.place(sel.cell, sel.rotation)]


UI = SaganiUI
