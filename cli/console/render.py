"""Pure text rendering of the console's shell: the status line, the log, the message and hint
lines, the help pages, and the whole screen around the game's own part (``model.ui``).

Everything returns prompt_toolkit fragments ``(style, text)``; styles are ``class:`` names
mapped to colours in :func:`style` (the shell's, then the game's).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from prompt_toolkit.styles import Style

from sagani_net.cli.console.model import FINAL, GAME, HELP, ConsoleModel
from sagani_net.gameui import Line, box, columns, cut, fit, line_text, wrap

BASE_STYLE = {
    "status": "reverse",
    "status.online": "reverse fg:ansigreen",
    "status.offline": "reverse fg:ansired",
    "you": "bold",
    "turn": "bold",
    "title": "bold underline",
    "dim": "fg:ansibrightblack",
    "message": "bold",
    "error": "fg:ansired bold",
    "hint": "fg:ansibrightblack",
    "log.new": "bold",
}


def style(model: ConsoleModel) -> Style:
    """The shell's styles with the game's on top."""
    return Style.from_dict({**BASE_STYLE, **model.ui.styles})


#: Each glyph the console draws, as the ASCII character that stands for it on a terminal that
#: cannot show it: one column for one, so that every board keeps its shape (a Sagani arrow
#: still stands where it points, so '/' and '\\' say which diagonal).
ASCII = str.maketrans({
    **dict.fromkeys("─━═", "-"), **dict.fromkeys("│┃", "|"),
    **dict.fromkeys("┌┐└┘╭╮╰╯┬┴┼├┤╔╗╚╝", "+"),
    "·": ".", "░": ":", "●": "o", "◌": "o", "✗": "x", "✓": "+", "…": "~", "°": "'",
    "→": ">", "←": "<", "↑": "^", "↓": "v", "↗": "/", "↙": "/", "↖": "\\", "↘": "\\",
    "▸": ">", "▶": ">", "◂": "<", "◀": "<", "▴": "^", "▾": "v", "»": ">", "«": "<",
})
#: Terminals whose fonts lack most of those glyphs whatever the locale (the Linux console has
#: no diagonal arrows; a VT100 and a dumb terminal no box drawing).
_ASCII_TERMS = {"dumb", "vt100", "vt102", "vt220", "linux"}


def ascii_terminal(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether the terminal can show only ASCII: its locale's character set is not UTF-8
    (``LANG=C``, ``LC_ALL=C``, a Latin-1 locale) or ``TERM`` names one of :data:`_ASCII_TERMS`.
    """
    if environ.get("TERM", "") in _ASCII_TERMS:
        return True
    value = ""
    for name in ("LC_ALL", "LC_CTYPE", "LANG"):
        value = environ.get(name, "")
        if (name == "LC_CTYPE" and value == "C.UTF-8" and sys.flags.utf8_mode
                and "PYTHONUTF8" not in environ):
            continue  # Python's coercion of a C locale (PEP 538), not the terminal's
        if value:
            break
    charset = value.partition(".")[2].partition("@")[0]
    return charset.lower().replace("-", "") != "utf8"


_CONN_GLYPH = {"online": "●", "local": "●", "connecting": "◌", "reconnecting": "◌", "offline": "✗"}


def status_line(model: ConsoleModel, width: int) -> Line:
    """Game, table, you, whose turn, connection. Where they do not all fit, the connection
    is its glyph, then the table id goes (``sagani tables`` lists it), then your name (your
    seat is on the board), then the turn's words are cut with ``…``: whose turn, who is away
    and the connection are what a player looks up here in play, and a turn timer with a
    game's note ("YOUR TURN (tool or pass; 30 s a turn) · away: bob") took the line past 80
    columns, cutting off who was away and the connection."""
    you = (f"· you: {model.name(model.you)} " if model.you is not None
           else "" if model.replay_step else "· watching ")
    turn = "· " + turn_text(model) + " "
    right = (
        f" {model.replay_step} "
        if model.replay_step
        else f" {_CONN_GLYPH.get(model.connection, '?')} {model.connection} "
    )
    table = (f"· table {model.table} " if model.table
             else f"· file {model.record_file} " if model.record_file else "")
    left = f" {model.game} " + table + you + turn
    if columns(left) + columns(right) > width and not model.replay_step:
        right = f" {_CONN_GLYPH.get(model.connection, '?')} "  # the glyph alone says it
    if columns(left) + columns(right) > width:
        left = f" {model.game} " + you + turn
    if columns(left) + columns(right) > width and model.you is not None:
        left = f" {model.game} " + turn
    room = max(0, width - columns(right))
    if columns(left) > room:
        left = cut(left, max(0, room - 2)) + "… "
    conn_style = (
        "class:status.online" if model.connection in ("online", "local") else "class:status.offline"
    )
    pad = max(0, width - columns(left) - columns(right))
    return fit([("class:status", left + " " * pad), (conn_style, right)], width)


def turn_text(model: ConsoleModel) -> str:
    if model.view is None or model.status == "open":
        taken = sum(1 for seat in model.seats if seat.get("taken"))
        return (
            f"waiting for players ({taken}/{len(model.seats)} seated)" if model.seats else "waiting"
        )
    seat = model.turn
    if model.status == "over" or seat is None:
        return "game over"
    who = "YOUR TURN" if model.my_turn else f"{model.name(seat)}'s turn"
    state = ""
    if model.stood_in(seat):
        state = "away: a bot plays"
    elif model.away(seat):
        state = "away"
    elif model.turn_timer_s is not None and not model.bot_seat(seat):
        # The host plays a default move when it is up: everyone at the table sees it coming.
        left = model.time_left_s
        state = f"{model.turn_timer_s:g} s a turn" if left is None else f"{left} s left"
    elif (left := model.bot_left_s) is not None:
        state = f"host moves for it in {left} s"
    # One bracket: what the turn asks for, then the seat's state. Two in a row ("carl's turn
    # (away) (tool or pass)") read as two remarks of unclear reference.
    said = "; ".join(part for part in (model.ui.turn_note(), state) if part)
    who = f"{who} ({said})" if said else who
    # Away players whose turn it is not: seen on every screen, not only in the log.
    gone = [model.name(s) for s in range(len(model.seats))
            if s not in (seat, model.you) and model.away(s)]
    return f"{who} · away: {', '.join(gone)}" if gone else who


def log_lines(model: ConsoleModel, height: int, width: int) -> list[Line]:
    """The last events, newest at the bottom (or, scrolled back, older ones); a long one
    wraps, so that what fits of the log is whole."""
    return _log_view(model, height, width)[0]


def _log_view(model: ConsoleModel, height: int, width: int) -> tuple[list[Line], int]:
    """:func:`log_lines`, and how many of the log's entries they show."""
    end = max(0, len(model.log) - model.log_back)
    room = height - 1 if model.log_back else height  # scrolled back: a line says so
    lines: list[Line] = []
    shown = 0
    for i in range(end - 1, -1, -1):
        # Since your last turn: bold, and a different bullet for NO_COLOR.
        new = i >= model.log_mark and not model.replay_step
        bullet = ("class:log.new", "▸ ") if new else ("class:dim", "· ")
        style = "class:log.new" if new else ""
        rows = wrap(model.log[i], width - 2)  # the lines after the first under its first word
        if len(lines) + len(rows) > room:
            if not lines and room > 0:  # the newest alone is taller than the log: its start
                rows = rows[:room]
                rows[-1] = rows[-1][: width - 3] + "…"
            else:
                break
        lines[:0] = [[bullet, (style, rows[0])], *[[("", "  "), (style, r)] for r in rows[1:]]]
        shown += 1
    if model.log_back and height > 0:
        lines.append([("class:hint", f"-- {model.log_back} newer lines below (PgDn) --")])
    lines = [[("", "")]] * (height - len(lines)) + lines
    return [fit(line, width) for line in lines], shown


#: The message line grows to this many lines for a long sentence (a refusal is said whole).
MESSAGE_LINES = 4


def message_lines(model: ConsoleModel, width: int) -> list[Line]:
    """The shell's sentence (a refusal, a warning), else who is away for ``B``, else the game's
    note on the move in hand, else who is seated and how others take the open seats; wrapped,
    never cut. The note is asked for only when it shows: it is worked out on every redraw."""
    style, text, seated = "class:message", "", ""
    # Covered: a move's note or refusal speaks of your hand ("free needs a second card in your
    # hand"); the connection's news, a stand-in and the invitation do not.
    said = model.message if not model.curtain or model.lasting else ""
    if said:
        style, text = "class:error", said
    elif model.analysis_note:
        text = model.analysis_note
    elif model.verdict:
        text = model.verdict
    elif (absent := model.may_stand_in) is not None:
        # Which bot, said: for a bot's seat "B seats a bot for greedy-bot" read as if the away
        # bot were to get a bot of its own (the host's greedy plays the seat till it is back).
        name = model.name(absent)
        text = (f"{name} (a bot) is away: B has the host's greedy bot play till it is back"
                if model.bot_seat(absent) else
                f"{name} is away: B has the host's greedy bot play for them till they are back")
    elif not (text := "" if model.curtain else model.ui.note()):
        # Each kind of open seat with the line that fills it, on a line of its own: a seat
        # kept for a `sagani bot` said nothing, and the table waited for it unexplained.
        for seats, what, line in ((model.open_seats(), "open: others join with ", model.invite),
                                  (model.open_seats(bots=True), "kept for a bot:",
                                   model.bot_invite)):
            if seats and line:
                numbers = ", ".join(str(seat + 1) for seat in seats)
                text += ("\n" if text else "") + f"seat {numbers} {what} {line}"
        if text:
            # Who waits with you (the log names only those seated after you), on a line of its
            # own: the line to type stays whole on one.
            seated = ", ".join(f"{seat + 1} {model.sentence_name(seat)}" for seat, data
                               in enumerate(model.seats) if data.get("taken"))
    rows = [row for paragraph in text.split("\n") for row in wrap(paragraph, width, "  ")]
    if seated:
        rows = [*wrap(f"seated: {seated}", width, "  "), *rows]
    rows = rows[:MESSAGE_LINES]
    return [fit([(style, row)], width) for row in rows]


def hint_line(model: ConsoleModel, width: int) -> Line:
    """The keys that do something now."""
    # Tab on a board goes to the next player's: a solo game has only yours.
    tab = f"Tab {model.ui.board}s  " if model.players > 1 else ""
    if model.page == HELP:
        # Counted here only: the pages are made for it (a game's wraps its tools and cards).
        pages = len(help_pages(model))
        more = "Space/→ next page  " if model.help_page + 1 < pages else ""
        keys = f"page {model.help_page + 1}/{pages}  {more}any other key: back"
    elif model.page == FINAL:
        keys = f"Tab look at the {model.ui.board}s  f this screen  PgUp log  q quit"
        if model.analysable:
            keys = f"a analyse this game  Tab {model.ui.board}s  f this screen  PgUp log  q quit"
    elif model.replay_step:
        final = "f final  " if model.status == "over" else ""  # the end: the result is there
        keys = f"←/→ step  {final}Home/End first/last  {tab}? help  q quit"
        if model.has_verdicts:
            keys = f"←/→ step  {final}c costliest  Home/End  {tab}? help  q quit"
        elif model.analysable:
            keys = f"←/→ step  {final}a analyse  Home/End  {tab}? help  q quit"
    elif model.curtain:
        keys = f"h uncover  {'PgUp log  ' if model.log else ''}? help  q quit"
    elif model.status == "over":  # looking at the boards after the end: f brings it back
        keys = f"f the final screen  {tab}PgUp log  : command  ? help  q quit"
    else:
        keys = model.ui.hints()
        # Uncovered at a shared screen: how to cover it again, where the line has room and
        # there is something to cover (a Sagani seat has nothing of its own).
        if model.cover and model.may_cover and columns(f"h cover  {keys}") <= width:
            keys = f"h cover  {keys}"
    return fit([("class:hint", keys)], width)


#: Key lines on one help page: with its title, what an 80x24 screen shows of a page.
KEYS_PER_PAGE = 17


def keys_pages(model: ConsoleModel) -> list[list[str]]:
    """The first help pages: every key binding with its help line, as many pages as it takes
    for each to show whole at 80x24."""
    # h only where it does something: a Sagani game, a spectator and a replay have nothing
    # of their own to cover, and the page offered it to them.
    entries = [f" {label:<8} {text}" for label, text in model.key_help
               if label != "h" or model.may_cover]
    per_page = -(-len(entries) // -(-len(entries) // KEYS_PER_PAGE)) if entries else 1  # even
    chunks = [entries[i:i + per_page] for i in range(0, len(entries), per_page)] or [[]]
    # No count of its own beside the hint line's "page 1/5": two counts read as two books.
    return [["Keys" if n == 0 else "Keys, continued", *chunk] for n, chunk in enumerate(chunks)]


def help_pages(model: ConsoleModel) -> list[list[str]]:
    return [*keys_pages(model), *model.ui.help_pages()]


def help_lines(model: ConsoleModel, width: int, height: int) -> list[Line]:
    pages = help_pages(model)
    page = pages[min(model.help_page, len(pages) - 1)]
    lines: list[Line] = []
    for i, text in enumerate(page):  # a line too long for the terminal (a path) wraps
        indent = " " * min(len(text) - len(text.lstrip()) + 1, 8)
        lines += [[("class:title" if i == 0 else "", row)] for row in wrap(text, width, indent)]
    return box(lines, width, height)


def curtain_lines(model: ConsoleModel, width: int) -> list[Line]:
    """What a covered screen says instead of the game (:attr:`ConsoleModel.curtain`)."""
    name = model.name(model.you) if model.you is not None else "you"
    lines: list[Line] = [[("class:title", f"{name}: covered")], [("", "")]]
    text = ["What only your seat may see (a hand, a private objective) is hidden from whoever "
            "looks at this screen.", "h uncovers it, h covers it again."
            + (" It covers itself when the turn passes to another player." if model.cover else "")]
    if model.my_turn:
        text.insert(0, "Your turn: uncover when only you see this screen.")
    for paragraph in text:
        lines += [[("", row)] for row in wrap(paragraph, width - 2)] + [[("", "")]]
    return lines


def log_height(height: int) -> int:
    """Log lines under the main area: two on a small terminal, more when there is room."""
    return 2 if height < 29 else 2 + (height - 23) // 4


def log_page(model: ConsoleModel, width: int, height: int) -> int:
    """How many log entries :func:`screen` shows as it stands (at least 1): PgUp and PgDn go
    by as many. A step of 5 skipped 3 unseen entries a press where 80x24 shows 2 scrolled."""
    _, log_h, _ = _heights(model, width, height)
    return max(1, _log_view(model, log_h, width)[1])


def _heights(model: ConsoleModel, width: int, height: int) -> tuple[int, int, list[Line]]:
    """The rows of the body and of the log on a screen of ``height``, and the message's."""
    message = message_lines(model, width)
    body_h = height - 1 - log_height(height) - 2
    if model.page == GAME and model.view is not None:
        # The log gets the rows the game does not need (a small board early in a game).
        body_h = max(1, min(body_h, model.ui.body_height(width, body_h)))
    # A long message takes its lines from the log, then (one log line left) from the body.
    log_h = height - 1 - body_h - 1 - len(message)
    if log_h < 1:
        body_h = max(1, body_h - (1 - log_h))
        log_h = height - 1 - body_h - 1 - len(message)
    return body_h, log_h, message


def final_lines(model: ConsoleModel, width: int, height: int) -> list[Line]:
    """The game's final page, and under it which seats the host played for part of the game
    (:meth:`ConsoleModel.host_play`): "greedy-bot wins." alone hid that the host's bot had
    played the winner's seat since round 3."""
    notes = [[("class:dim", row)] for text in model.host_play() for row in wrap(text, width)]
    lines = model.ui.final(width, height)
    if not notes:
        return lines
    while lines and not line_text(lines[-1]).strip():
        lines.pop()
    if len(lines) + 1 + len(notes) > height:  # the game's page makes room, as it can
        lines = model.ui.final(width, max(1, height - 1 - len(notes)))
    return box([*lines, [("", "")], *notes], width, height)


def screen(model: ConsoleModel, width: int, height: int) -> list[Line]:
    """The screen above the command line: ``height`` lines of exactly ``width`` characters."""
    lines: list[Line] = [status_line(model, width)]
    body_h, log_h, message = _heights(model, width, height)
    if model.page == HELP:
        lines.extend(help_lines(model, width, body_h))
    elif model.view is None:
        text = {"connecting": "connecting to the host ..."}.get(model.connection, "waiting ...")
        lines.extend(box([[("", model.waiting or text)]], width, body_h))
    elif model.curtain:
        lines.extend(box(curtain_lines(model, width), width, body_h))
    elif model.page == FINAL:
        lines.extend(final_lines(model, width, body_h))
    else:
        lines.extend(model.ui.body(width, body_h))
    lines.extend(log_lines(model, log_h, width))
    lines.extend(message)
    lines.append(hint_line(model, width))
    return lines[:height]


def screen_text(model: ConsoleModel, width: int, height: int, command: str = "") -> str:
    """The whole screen as plain text, the command line included (tests, README)."""
    lines = [line_text(line).rstrip() for line in screen(model, width, height - 1)]
    lines.append(("> " + command).rstrip())
    return "\n".join(lines) + "\n"


def final_text(model: ConsoleModel, width: int, height: int) -> str:
    """A finished game for a terminal (``sagani replay --print``): the last position at the
    terminal's size, then the ranking; no key hints, no prompt. A record of a game not over
    (one stopped part-way, or set aside) ends with a line saying so, not a ranking: the
    game's final page would name a winner of the scores so far. Under the ranking, the
    seats the host played for (the record's ``host_played``), as the console's final page."""
    board = [status_line(model, width), *model.ui.body(width, max(8, height - 2))]
    if model.status != "over":
        note = f"Not over: the record ends here ({model.replay_step})."
        return "".join(line_text(line).rstrip() + "\n" for line in [*board, [], [("", note)]])
    ranking = final_lines(model, width, height)
    while ranking and not line_text(ranking[-1]).strip():
        ranking.pop()
    return "".join(line_text(line).rstrip() + "\n" for line in [*board, [], *ranking])
