"""Pure text rendering of the console: tiles, displays, panels and whole screens.

Everything returns prompt_toolkit fragments ``(style, text)``; styles are ``class:`` names
mapped to colours in :data:`STYLE`. Glyphs alone keep the screen readable without colour
(``NO_COLOR``): the element letter F W E A sits in each tile, each arrow carries the lowercase
letter of the element it wants, and a covered arrow carries a disc ``●`` instead.

A tile is 8 characters by 3 lines; arrows stand where they point::

    ↖f ↑w ↗e      ╭──────╮
    ←a F10 →●     │  F6  │   (flipped: value shown)
    ↙f ↓w ↘e      ╰──────╯
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from prompt_toolkit.styles import Style

from sagani_net.games.sagani.tiles import ARROWS, DIRECTIONS, ELEMENTS, ROTATIONS, TILES

if TYPE_CHECKING:
    from cli.console.model import ConsoleModel

Fragment = tuple[str, str]
Line = list[Fragment]
Cell = tuple[int, int]

TILE_W, TILE_H = 8, 3
#: A display cell: the tile plus two blank columns, so neighbours stay apart without colour.
CELL_W, CELL_H = TILE_W + 2, TILE_H
#: The column of y labels left of a display.
GUTTER = 3
SIDE_W = 26

LETTER = {"fire": "F", "water": "W", "earth": "E", "air": "A"}
ARROW = "↑↗→↘↓↙←↖"
DISC = "●"
#: (row, column) of each direction's arrow inside a tile, indexed like DIRECTIONS.
ARROW_AT = ((0, 3), (0, 6), (1, 6), (2, 6), (2, 3), (2, 0), (1, 0), (0, 0))

STYLE = Style.from_dict(
    {
        "status": "reverse",
        "status.online": "reverse fg:ansigreen",
        "status.offline": "reverse fg:ansired",
        "you": "bold",
        "turn": "bold",
        "title": "bold underline",
        "dim": "fg:ansibrightblack",
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
        "message": "bold",
        "error": "fg:ansired bold",
        "hint": "fg:ansibrightblack",
        "log.new": "bold",
    }
)


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
    return [_merge(row) for row in grid]


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


def _merge(fragments: Iterable[Fragment]) -> Line:
    out: Line = []
    for style, text in fragments:
        if out and out[-1][0] == style:
            out[-1] = (style, out[-1][1] + text)
        else:
            out.append((style, text))
    return out


def line_text(line: Line) -> str:
    return "".join(text for _, text in line)


def fit(line: Line, width: int) -> Line:
    """Cut or pad a line to exactly ``width`` characters."""
    out: Line = []
    left = width
    for style, text in line:
        if left <= 0:
            break
        out.append((style, text[:left]))
        left -= len(text[:left])
    if left > 0:
        out.append(("", " " * left))
    return out


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
    lines.append(_merge(ruler))
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
        lines.extend(_merge(r) for r in rows)
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


def status_line(model: ConsoleModel, width: int) -> Line:
    """Table, you, whose turn and phase, connection."""
    parts: Line = [("class:status", " sagani ")]
    if model.table:
        parts.append(("class:status", f"· table {model.table} "))
    if model.you is not None:
        parts.append(("class:status", f"· you: {model.name(model.you)} "))
    elif not model.replay_step:
        parts.append(("class:status", "· watching "))
    parts.append(("class:status", "· " + turn_text(model) + " "))
    right = (
        f" {model.replay_step} "
        if model.replay_step
        else f" {_CONN_GLYPH.get(model.connection, '?')} {model.connection} "
    )
    conn_style = (
        "class:status.online" if model.connection in ("online", "local") else "class:status.offline"
    )
    used = len(line_text(parts))
    pad = max(0, width - used - len(right))
    line = [*parts, ("class:status", " " * pad), (conn_style, right)]
    return fit(_merge(line), width)


_CONN_GLYPH = {"online": "●", "local": "●", "connecting": "◌", "reconnecting": "◌", "offline": "✗"}


def turn_text(model: ConsoleModel) -> str:
    view = model.view
    if view is None or model.status == "open":
        taken = sum(1 for seat in model.seats if seat.get("taken"))
        return (
            f"waiting for players ({taken}/{len(model.seats)} seated)" if model.seats else "waiting"
        )
    if model.status == "over":
        return "game over"
    seat = model.turn
    if seat is None:
        return "game over"
    who = "YOUR TURN" if model.my_turn else f"{model.name(seat)}'s turn"
    if view["intermezzo"] is not None:
        return f"{who} (intermezzo)"
    if view["phase"] == "place":
        return f"{who} (place)"
    return who


def score_lines(model: ConsoleModel, width: int) -> list[Line]:
    """The score track: seats best first (numbered by seat), with score, discs in supply and
    cacophony discs; a bar towards the threshold with each seat's number on it; ties show the
    stack order (↓ the marker below, which is ahead)."""
    view = model.view
    assert view is not None
    seats = view["seats"]
    goal = "ends at" if view["mode"] == "multi" else "goal"
    lines: list[Line] = [[("class:title", f"Score  ({goal} {view['threshold']})")]]
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
        before = model.scores_mark[seat] if seat < len(model.scores_mark) else s["score"]
        score_style = style + (" class:new" if s["score"] != before else "")
        line: Line = [
            (style, f"{mark}{seat + 1} {model.name(seat):<9.9} "),
            (score_style, f"{s['score']:>3}"),
            (style, f"{stack:1} ●{s['supply']:<2}"),
        ]
        if s["cacophony"]:
            line.append((style, f" ✗{s['cacophony']}"))
        lines.append(line)
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
    if view["end_triggered"]:
        flags.append("END TRIGGERED")
    if view["last_round"]:
        flags.append("LAST ROUND")
    if flags:
        lines.append([("class:error", " ".join(flags))])
    return lines


def pile_lines(model: ConsoleModel) -> list[Line]:
    view = model.view
    assert view is not None
    top = view["top"]
    back = f"top {LETTER[top[0]]}{top[1]} ({top[0]})" if top else "empty"
    lines: list[Line] = [[("", f"Pile {view['pile']:>2}  {back}")]]
    storage = view["storage"]
    if view["mode"] != "multi":
        return lines  # no offer, no storage in the solo games
    label = f"Storage {len(storage)}/4"
    lines.append([("class:title" if view["intermezzo"] else "", label)])
    for i, tile in enumerate(storage):
        lines.append([("", f" {i + 1} {tile_text(tile)}")])
    return lines


def unseen_lines(model: ConsoleModel) -> list[Line]:
    """Tiles not yet seen, counted by element and value."""
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


def unseen_short(model: ConsoleModel) -> Line:
    """Tiles not yet seen, in one line: ``Unseen 43 F12 W10 E11 A10``."""
    view = model.view
    assert view is not None
    line: Line = [("class:title", f"Unseen {len(view['unseen'])}")]
    for element in ELEMENTS:
        count = sum(TILES[t].element == element for t in view["unseen"])
        line.append((f"class:arrow.{element}", f" {LETTER[element]}{count}"))
    return line


def side_panel(model: ConsoleModel, width: int, height: int) -> list[Line]:
    """Score, pile and storage, unseen tiles: as many sections as fit, in that order."""
    lines: list[Line] = []
    unseen = unseen_lines(model)
    for section in (score_lines(model, width), pile_lines(model), unseen):
        if lines and len(lines) + 1 + len(section) > height:
            if section is unseen and len(lines) + 2 <= height:
                lines += [[], unseen_short(model)]  # no room for the table: counts by element
            break
        if lines:
            lines.append([])
        lines.extend(section)
    lines = lines[:height]
    return [fit(line, width) for line in lines] + [[("", " " * width)]] * (height - len(lines))


def choice_strip(model: ConsoleModel, width: int) -> list[Line]:
    """Four lines: numbers, then the tiles to choose from: the offer (numbered from 1) and the
    draw pile, or in an intermezzo the storage."""
    view = model.view
    assert view is not None
    intermezzo = view["intermezzo"] is not None
    source = view["storage"] if intermezzo else view["offer"]
    sel = model.selection
    chosen = (
        sel.source.index if sel and sel.source and sel.source.type in ("take", "pick") else None
    )
    head: Line = []
    blocks: list[list[Line]] = []
    for i, tile in enumerate(source):
        label = f"[{i + 1}]" + ("◀ held" if i == chosen else "")
        head.append(("class:title" if i == chosen else "", label.ljust(CELL_W)))
        blocks.append(tile_rows(tile, 0, extra="class:ghost" if i == chosen else ""))
    if intermezzo:
        you = model.my_turn and model.phase == "choose"
        head.append(("class:legal", "or [p]ass" if you else "intermezzo"))
    else:
        if view["can_draw"] and model.my_turn:
            head.append(("class:legal", "[d]raw"))
        elif view["mode"] != "multi" and model.my_turn and model.phase == "choose":
            head.append(("class:legal", "[r]eveal"))
        else:
            head.append(("class:dim", "pile"))
        if len(blocks) * CELL_W + TILE_W <= width:  # the side panel names the pile anyway
            blocks.append(back_rows(view["top"], view["pile"]))
        else:
            head.pop()
    lines: list[Line] = [head, [], [], []]
    for block in blocks:
        for r in range(TILE_H):
            lines[r + 1].extend(block[r])
            lines[r + 1].append(("", "  "))
    return [fit(_merge(line), width) for line in lines]


def log_lines(model: ConsoleModel, height: int, width: int) -> list[Line]:
    """The last events, newest at the bottom."""
    first = max(0, len(model.log) - height) if height > 0 else len(model.log)
    lines: list[Line] = []
    for i in range(first, len(model.log)):
        # Since your last turn: bold, and a different bullet for NO_COLOR.
        new = i >= model.log_mark and not model.replay_step
        bullet = ("class:log.new", "▸ ") if new else ("class:dim", "· ")
        lines.append([bullet, ("class:log.new" if new else "", model.log[i])])
    lines = [[("", "")]] * (height - len(lines)) + lines
    return [fit(line, width) for line in lines]


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
    if preview["discs_freed"]:
        parts.append(f"frees {preview['discs_freed']} discs")
    if preview["cacophony"]:
        parts.append(f"CACOPHONY x{preview['cacophony']} (-{2 * preview['cacophony']})")
    parts.append(f"open arrows left {len(preview['open'])}")
    return " ".join(parts[:1]) + " " + ", ".join(parts[1:])


def message_line(model: ConsoleModel, width: int) -> Line:
    if model.message:
        return fit([("class:error", model.message)], width)
    if model.preview is not None:
        return fit([("class:message", preview_text(model.preview))], width)
    return fit([], width)


def hint_line(model: ConsoleModel, width: int) -> Line:
    """The keys that do something now."""
    if model.page == HELP_PAGE:
        keys = "any key: back"
    elif model.page == FINAL_PAGE:
        keys = "Tab look at the displays  f this screen  q quit"
    elif model.replay_step:
        keys = "←/→ step  Home/End first/last  Tab displays  ? help  q quit"
    elif model.selection is not None:
        keys = "arrows move  r rotate  Enter place  Esc cancel  : type a command  ? help"
    elif model.my_turn and model.phase == "choose":
        choices = model.choices()
        numbers = [a for a in choices if a.type in ("take", "pick")]
        first = []
        if numbers:
            first.append(f"1-{len(numbers)} {numbers[0].type}" if len(numbers) > 1 else
                         f"1 {numbers[0].type}")  # fmt: skip
        first += [f"{a.type[0]} {a.type}" for a in choices if a.type in ("draw", "pass", "reveal")]
        keys = "  ".join(first) + "  Tab displays  : command  ? help  q quit"
    else:
        keys = "Tab displays  arrows pan  : command  ? help  q quit"
    return fit([("class:hint", keys)], width)


HELP_PAGE, FINAL_PAGE = "help", "final"

HELP_TEXT = """\
Keys                                      Commands (tiles numbered from 1)
 1-5    take that offer tile               take 2 at 1,-1 rot 90
        (intermezzo: pick from storage)    take 2        (then move the ghost)
 d      draw (last offer tile to storage)  draw at 0,1 rot 0
 p      pass                               pick 1 at 2,0 rot 180
 r      rotate the tile in hand (R back);  place 1,-1 90     rot 180
        solo: reveal the next tile         pass   reveal   show 2
 arrows move the ghost over the legal      help   quit
        cells (x,y); otherwise pan        Replays: n/b or arrows, Home, End;
 Enter  place the tile   Esc  cancel       next back first last step 12
 Tab    next player's display (S-Tab back)
 : /    type a command (Tab completes, Up/Down history)   q  quit
Tiles: F fire, W water, E earth, A air, with the value. Arrows point their way
with the letter of the element they want (↗w: a water tile up-right, any
distance); ● is a covered arrow (a disc on it). A framed tile has flipped.
* changed since your last turn; + the tile in hand. The preview line tells what
placing it covers, flips, scores and costs (cacophony: -2 per missing disc).
"""


def help_lines(width: int, height: int) -> list[Line]:
    lines = [[("", text)] for text in HELP_TEXT.splitlines()]
    return [fit(line, width) for line in lines[:height]] + [
        [("", " " * width)] for _ in range(height - min(height, len(lines)))
    ]


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


def final_lines(model: ConsoleModel, width: int, height: int) -> list[Line]:
    """The ranking and each player's breakdown."""
    view = model.view
    assert view is not None
    result = view.get("result") or {
        "scores": [s["score"] for s in view["seats"]],
        "ranking": view["ranking"],
    }
    lines: list[Line] = [[("class:title", "Game over")], []]
    if view["mode"] == "solo":
        won = result.get("won")
        lines.append(
            [
                (
                    "",
                    f"{'Goal reached' if won else 'Goal missed'}: {result['scores'][0]} "
                    f"points with {result.get('tiles_used', '?')} tiles",
                )
            ]
        )
        if won and result.get("tiles_used", 99) <= 25:
            lines.append([("class:title", "A magical symphony!")])
    head = " #  player      score  tiles flipped  points  cacophony  bonus  unflipped pts"
    lines.append([("class:dim", head)])
    for rank, seat in enumerate(result["ranking"]):
        b = breakdown(view, seat)
        style = "class:you" if seat == model.you else ""
        score = result["scores"][seat]
        cacophony = f"{b['cacophony']:>4} (-{2 * b['cacophony']:<2})"
        row = (
            f" {rank + 1}  {model.name(seat):<10.10}  {score:>5}  {b['tiles']:>5}"
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
        who = "You win!" if winner == model.you else f"{model.name(winner)} wins."
        lines.append([("class:message", who)])
    return [fit(line, width) for line in lines[:height]] + [
        [("", " " * width)] for _ in range(height - min(height, len(lines)))
    ]


# -- the whole screen ---------------------------------------------------------------------------


def log_height(height: int) -> int:
    """Log lines under the main area: two on a small terminal, more when there is room."""
    return 2 if height < 29 else 2 + (height - 23) // 4


def screen(model: ConsoleModel, width: int, height: int) -> list[Line]:
    """The screen above the command line: ``height`` lines of exactly ``width`` characters."""
    lines: list[Line] = [status_line(model, width)]
    log_h = log_height(height)
    body_h = height - 1 - log_h - 2
    if model.view is None:
        text = {"connecting": "connecting to the host ..."}.get(model.connection, "waiting ...")
        body = [[("", text)]] + [[] for _ in range(body_h - 1)]
        lines.extend(fit(line, width) for line in body)
    elif model.page == HELP_PAGE:
        lines.extend(help_lines(width, body_h))
    elif model.page == FINAL_PAGE:
        lines.extend(final_lines(model, width, body_h))
    else:
        lines.extend(game_body(model, width, body_h))
    lines.extend(log_lines(model, log_h, width))
    lines.append(message_line(model, width))
    lines.append(hint_line(model, width))
    return lines[:height]


#: From this width on, a second display stands beside yours (Tab picks which).
WIDE_W = 150


def game_body(model: ConsoleModel, width: int, height: int) -> list[Line]:
    """The display on the left with the offer under it; the side panel on the right. On a wide
    terminal another player's display stands beside yours."""
    view = model.view
    assert view is not None
    side_w = SIDE_W if width < 110 else SIDE_W + 6
    left_w = width - side_w - 1
    strip = choice_strip(model, left_w)
    seat = model.shown
    beside: list[Line] = []
    if width >= WIDE_W and view["players"] > 1:
        # Yours (or, watching, the one Tab chose) on the left; Tab picks the one beside it.
        main = model.you if model.you is not None else seat
        other = seat if seat != main else (main + 1) % view["players"]
        other_w = left_w * 2 // 5
        left_w -= other_w + 1
        strip = choice_strip(model, left_w)
        beside = display_block(model, other, other_w, height)
        seat = main
    left = display_block(model, seat, left_w, height - len(strip), title_note="Tab: next")
    left += strip
    side = side_panel(model, side_w, height)
    if beside:
        left = [[*left[i], ("class:dim", "│"), *beside[i]] for i in range(height)]
    return [[*left[i], ("class:dim", "│"), *side[i]] for i in range(height)]


def display_block(
    model: ConsoleModel, seat: int, width: int, height: int, title_note: str = ""
) -> list[Line]:
    """A titled display of ``seat``, with the ghost if it is yours and you hold a tile."""
    view = model.view
    assert view is not None
    data = view["seats"][seat]
    title = "Your display" if seat == model.you else f"{model.name(seat)}'s display"
    note = f"; {title_note}" if title_note else ""
    title += f"  ({len(data['display'])} tiles, seat {seat + 1}/{view['players']}{note})"
    sel = model.selection if seat == model.you else None
    grid = display_rows(
        data["display"],
        width,
        height - 1,
        legal=model.legal_cells() if sel else (),
        ghost=(sel.tile, sel.cell, sel.rotation) if sel else None,
        preview=model.preview if sel else None,
        new=model.changed.get(seat, ()),
        pan=(model.pan[0], model.pan[1]) if seat == model.shown else (0, 0),
    )
    return [fit([("class:title", title)], width), *grid]


def screen_text(model: ConsoleModel, width: int, height: int, command: str = "") -> str:
    """The whole screen as plain text, the command line included (tests, README)."""
    lines = [line_text(line).rstrip() for line in screen(model, width, height - 1)]
    lines.append(("> " + command).rstrip())
    return "\n".join(lines) + "\n"
