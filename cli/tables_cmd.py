"""``sagani tables``: a host's lobby as text, one table a line. Apart from the console's
commands, whose module loads prompt_toolkit and the host: a listing needs only the client."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from sagani_net.cli import args as check
from sagani_net.client import AsyncClient, host_address
from sagani_net.gameui import columns
from sagani_net.protocol.messages import printable


def run_tables(args: argparse.Namespace) -> int:
    address = check.reach_host(args.address or host_address(None))
    print(table_lines(asyncio.run(_list_tables(address)), check.terminal_columns()), end="")
    return 0


async def _list_tables(address: str) -> list[dict[str, Any]]:
    client = AsyncClient(address)
    try:
        await client.connect()
        return await client.tables()
    finally:
        client.close()


def table_lines(tables: list[dict[str, Any]], width: int = 80) -> str:
    """The lobby as text: a table a line, its game first; seats that go past ``width`` go on
    under the first (a seat is never cut in two)."""
    if not tables:
        # Finished games are not listed: on a host that has played hundreds, "yet" was untrue.
        return "no table open or being played: sagani join creates one\n"
    lines = []
    for t in tables:
        seats = [f"{i + 1}:{s.get('name') or ('free' if not s.get('taken') else '?')}"
                 + _notes(s) for i, s in enumerate(t.get("seats", []))]
        # Names may come from an older host, or one of its stores, that let anything through.
        line = printable(f"{t['table']}  {t.get('game', '?'):<8} {t['status']:<8}")
        indent = len(line)
        for n, seat in enumerate(seats):
            seat = printable(seat) + ("," if n < len(seats) - 1 else "")
            if n and columns(line) + 1 + columns(seat) > width:  # a wide name: two a letter
                lines.append(line)
                line = " " * indent
            line += " " + seat
        lines.append(line)
    return "\n".join(lines) + "\n"


def _notes(seat: dict[str, Any]) -> str:
    """What the lobby says of a seat, in one pair of brackets: kept for a bot, away
    (PROTOCOL.md, Presence), and whether a bot stands in for it."""
    notes = ["bot"] if seat.get("kind") == "bot" else []
    if seat.get("stand_in"):
        notes.append("away, a bot stands in")
    elif seat.get("away"):
        notes.append("away")
    return f" ({', '.join(notes)})" if notes else ""
