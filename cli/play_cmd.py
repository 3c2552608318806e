"""``sagani play``, ``sagani join`` and ``sagani replay``: the console's three ways in.

``play`` starts everything on this machine (a host on 127.0.0.1 with free ports and its own data
dir, bots in the free seats) and ends it all when you quit; ``join`` connects to a host
somewhere else; ``replay`` steps through a game record.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import getpass
import json
import logging
import multiprocessing
import random
import sys
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

from cli.console.app import Console, Replay, run_console
from cli.console.model import LOCAL, ConsoleModel
from sagani_net.bots.runner import think
from sagani_net.client import AsyncClient, HostError, HostTimeout, host_address
from sagani_net.games.sagani.rules import Action, State, replay
from sagani_net.host import DEFAULT_PORT, Host
from sagani_net.store import Store

log = logging.getLogger("cli.play")

BOT_KINDS = ("greedy", "random", "mcts")
SESSION_FILE = "play.json"
JOIN_FILE = "join.json"
#: The time a bot in ``sagani play`` thinks per move with mcts.
MCTS_THINK_S = 1.0


def _user_name() -> str:
    try:
        return getpass.getuser()[:16] or "you"
    except Exception:  # no user name in this environment: any name will do
        return "you"


def user_dir() -> Path:
    return Path(platformdirs.user_data_dir("sagani"))


def add_parsers(sub: Any) -> None:
    """Add ``play``, ``join`` and ``replay`` to the ``sagani`` command."""
    p = sub.add_parser(
        "play",
        help="play on this machine against bots (no setup)",
        description="Start a host on 127.0.0.1, bots in the free seats, and you "
        "in the console. Quitting ends everything it started; starting again "
        "offers to resume an unfinished game.",
    )
    p.add_argument("--players", type=int, default=2, help="2-4 (default 2)")
    p.add_argument("--solo", action="store_true", help="the basic solo game (reach 75)")
    p.add_argument("--solo-advanced", action="store_true", help="the advanced solo game")
    p.add_argument("--seat", type=int, default=1, help="your seat, from 1 (default 1)")
    p.add_argument(
        "--bots",
        default="greedy",
        metavar="KIND[,KIND...]",
        help=f"bot kind for the other seats, or one per seat in order ({', '.join(BOT_KINDS)})",
    )
    p.add_argument(
        "--open",
        type=int,
        action="append",
        default=[],
        metavar="SEAT",
        help="leave SEAT (from 1) for a person who runs `sagani join` (repeatable)",
    )
    p.add_argument("--seed", type=int, default=None, help="shuffle seed (default: random)")
    p.add_argument(
        "--think",
        type=float,
        default=MCTS_THINK_S,
        metavar="S",
        help=f"seconds an mcts bot thinks per move (default {MCTS_THINK_S:g})",
    )
    p.add_argument("--name", default=_user_name(), help="your name at the table")
    p.add_argument("--port", type=int, default=0, help="request port (default: a free one)")
    p.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help=f"where games are kept (default {user_dir() / 'play'})",
    )
    resume = p.add_mutually_exclusive_group()
    resume.add_argument("--resume", action="store_true", help="resume the unfinished game")
    resume.add_argument("--new", action="store_true", help="start a new game, do not ask")
    p.add_argument(
        "--autoplay",
        choices=BOT_KINDS,
        default=None,
        help="no console: a bot plays your seat and the result is printed (scripts)",
    )
    p.set_defaults(func=run_play)

    j = sub.add_parser("join", help="join a host by address (or find one with --lan)")
    j.add_argument(
        "address",
        nargs="?",
        default=None,
        help=f"host[:port], tcp://host:port or a join code (default 127.0.0.1:{DEFAULT_PORT})",
    )
    j.add_argument("--spectate", action="store_true", help="watch instead of playing")
    j.add_argument("--lan", action="store_true", help="find hosts on the LAN with zeroconf")
    j.add_argument("--table", default=None, help="table id (default: one with a free seat)")
    j.add_argument(
        "--players",
        type=int,
        default=2,
        help="players of the table created when none has a free seat",
    )
    j.add_argument(
        "--bots",
        type=int,
        default=0,
        help="seats kept for bots on a table this creates (`sagani bot` fills them)",
    )
    j.add_argument("--name", default="", help="your name at the table")
    j.set_defaults(func=run_join)

    r = sub.add_parser("replay", help="step through a game record in the console")
    r.add_argument("record", type=Path, metavar="RECORD", help="a JSON game record")
    r.add_argument("--print", action="store_true", help="print the final screen and exit")
    r.set_defaults(func=run_replay)


# -- bots inside `sagani play` ----------------------------------------------------------------


async def bot_loop(
    client: AsyncClient,
    kind: str,
    seed: int,
    pool: Executor | None = None,
    think_s: float = MCTS_THINK_S,
) -> None:
    """Play a seat over the network, as any bot would, until the game is over.

    The policy thinks in ``pool`` (a worker process: a search holds the GIL for its whole
    thinking time, which the console and the host need) or, without one, in a thread.
    """
    seeds = random.Random(seed)
    loop = asyncio.get_running_loop()
    while True:
        try:
            replica = client.state
            if replica.status == "over":
                return
            if not replica.my_turn:
                await client.next_update(timeout_s=1.0)
                continue
            action = await loop.run_in_executor(pool, think, kind, replica.view,
                                                seeds.getrandbits(64), think_s)  # fmt: skip
            await client.act(action)
        except HostError as exc:  # stale after a resync: the refusal carried a fresh snapshot
            log.info("bot %s refused: %s", kind, exc)
        except HostTimeout:
            await asyncio.sleep(0.5)


def thinker(kinds: list[str]) -> ProcessPoolExecutor | None:
    """A worker process for the bots' thinking if a search bot is among ``kinds``; the others
    answer in a few milliseconds and think in a thread."""
    if "mcts" not in kinds:
        return None
    # spawn, not fork: this process already runs the host's and ZeroMQ's threads.
    return ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))


# -- sagani play ------------------------------------------------------------------------------


@dataclass
class PlayPlan:
    """Who sits where: ``you`` is your seat, ``bots`` maps seat -> kind, ``open`` seats wait
    for people who join."""

    config: dict[str, Any]
    you: int
    bots: dict[int, str]
    open: list[int]


def plan(args: argparse.Namespace) -> PlayPlan:
    """Read the play options into seats; raises SystemExit with a sentence when they clash."""
    if args.solo and args.solo_advanced:
        raise SystemExit("choose --solo or --solo-advanced, not both")
    mode = "solo" if args.solo else "solo-advanced" if args.solo_advanced else "multi"
    players = 1 if mode != "multi" else args.players
    if mode == "multi" and not 2 <= players <= 4:
        raise SystemExit("--players is 2, 3 or 4 (or use --solo)")
    you = args.seat - 1
    if not 0 <= you < players:
        raise SystemExit(f"--seat is 1..{players}")
    open_seats = [s - 1 for s in args.open]
    if any(not 0 <= s < players or s == you for s in open_seats):
        raise SystemExit("--open names other seats of this table")
    kinds = args.bots.split(",")
    if any(k not in BOT_KINDS for k in kinds):
        raise SystemExit(f"--bots kinds are {', '.join(BOT_KINDS)}")
    free = [s for s in range(players) if s != you and s not in open_seats]
    if len(kinds) == 1:
        kinds *= len(free)
    if len(kinds) != len(free):
        raise SystemExit(f"--bots names {len(kinds)} kinds for {len(free)} bot seats")
    return PlayPlan(
        {"players": players, "mode": mode}, you, dict(zip(free, kinds, strict=True)), open_seats
    )


def run_play(args: argparse.Namespace) -> int:
    plan_ = plan(args)
    data_dir = args.data_dir or user_dir() / "play"
    data_dir.mkdir(parents=True, exist_ok=True)
    logging.basicConfig(
        filename=data_dir / "play.log",
        level=logging.INFO,
        format="%(asctime)s %(name)s %(message)s",
    )
    host = Host(Store(data_dir), port=args.port)
    host.serve_in_thread()
    try:
        saved = _saved_game(data_dir, host)
        resume = saved is not None and _want_resume(args, saved)
        return asyncio.run(_play(args, plan_, host, data_dir, saved if resume else None))
    finally:
        host.stop()


def _saved_game(data_dir: Path, host: Host) -> dict[str, Any] | None:
    """The unfinished game of an earlier ``sagani play``, if its table is still running."""
    path = data_dir / SESSION_FILE
    try:
        saved = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    table = host.tables.get(saved.get("table", ""))
    if table is None or table.status == "over":
        return None
    saved["version"] = table.state.version
    return saved


def _want_resume(args: argparse.Namespace, saved: dict[str, Any]) -> bool:
    if args.resume or args.new:
        return bool(args.resume)
    if not sys.stdin.isatty():
        return False
    config = saved.get("config", {})
    answer = input(
        f"An unfinished game is saved ({config.get('players', '?')} players, "
        f"{saved['version']} moves played). Resume it? [Y/n] "
    )
    return answer.strip().lower() in ("", "y", "yes")


async def _play(
    args: argparse.Namespace,
    plan_: PlayPlan,
    host: Host,
    data_dir: Path,
    saved: dict[str, Any] | None,
) -> int:
    address = host.endpoint
    me = AsyncClient(address)
    bots: list[tuple[AsyncClient, str]] = []
    if saved is not None:
        table = saved["table"]
        await me.resume(table, saved["token"])
        for entry in saved["bots"]:
            client = AsyncClient(address)
            await client.resume(table, entry["token"])
            bots.append((client, entry["kind"]))
    else:
        await me.connect()
        table = await me.create(plan_.config, seed=args.seed, bots=sorted(plan_.bots))
        name = args.autoplay or args.name
        await me.join(table, seat=plan_.you, name=name)
        saved = {"table": table, "token": me.token, "config": plan_.config, "bots": []}
        for seat, kind in plan_.bots.items():
            client = AsyncClient(address)
            await client.join(table, role="bot", seat=seat, name=kind)
            bots.append((client, kind))
            saved["bots"].append({"seat": seat, "kind": kind, "token": client.token})
        (data_dir / SESSION_FILE).write_text(json.dumps(saved))
    pool = thinker([kind for _, kind in bots] + ([args.autoplay] if args.autoplay else []))
    tasks = [asyncio.create_task(bot_loop(c, kind, i, pool, args.think))
             for i, (c, kind) in enumerate(bots)]  # fmt: skip
    try:
        if args.autoplay:
            await bot_loop(me, args.autoplay, 99, pool, args.think)
            await me.sync()
            print_result(me)
            print(f"record: {await save_record(me, data_dir / 'records')}")
            return 0
        model = ConsoleModel()
        if plan_.open:
            seats = ", ".join(str(s + 1) for s in plan_.open)
            model.message = (
                f"seat(s) {seats} wait for: sagani join {address.removeprefix('tcp://')}"
            )
        status = await run_console(Console(model, me))
        if me.replica is not None and me.replica.status == "over":
            path = await save_record(me, data_dir / "records")
            print(f"the game's record: {path}\nwatch it again: sagani replay {path}")
        return status
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        for client, _ in bots:
            client.close()
        over = me.replica is not None and me.replica.status == "over"
        me.close()
        if over:
            with contextlib.suppress(OSError):
                (data_dir / SESSION_FILE).unlink()


async def save_record(client: AsyncClient, folder: Path) -> Path:
    """Write the finished game's record as JSON; returns its path."""
    table = client.state.table
    record = await client.record(table)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"sagani-{table}.json"
    path.write_text(json.dumps(record, indent=1) + "\n")
    return path


def print_result(client: AsyncClient) -> None:
    """The final ranking in plain text."""
    replica = client.state
    view = replica.view
    result = view.get("result") or {
        "ranking": view["ranking"],
        "scores": [s["score"] for s in view["seats"]],
    }
    print(f"table {replica.table}: {replica.status}")
    for rank, seat in enumerate(result["ranking"]):
        name = replica.seats[seat].get("name") if seat < len(replica.seats) else ""
        print(f"  {rank + 1}. seat {seat + 1} {name or '':<8} {result['scores'][seat]:>4} points")


# -- sagani join ------------------------------------------------------------------------------


def run_join(args: argparse.Namespace) -> int:
    address = host_address(args.address)
    if args.lan:
        from sagani_net.discovery import browse

        print("looking for hosts on the LAN ...", flush=True)
        found = browse()
        if not found:
            print("no host answered; give its address instead: sagani join HOST[:PORT]")
            return 1
        for i, f in enumerate(found):
            print(f"  {i + 1}. {f.name} at {f.endpoint}")
        choice = 0
        if len(found) > 1:
            choice = int(input("join which? ") or "1") - 1
        address = found[choice].endpoint
    return asyncio.run(_join(args, address))


async def _join(args: argparse.Namespace, address: str) -> int:
    client = AsyncClient(address)
    try:
        await client.connect()
        tables = await client.tables()
    except HostTimeout:
        print(f"no host answers at {address}", file=sys.stderr)
        client.close()
        return 1
    note = ""
    saved_path = user_dir() / JOIN_FILE
    saved = _read_json(saved_path)
    role = "spectator" if args.spectate else "player"
    table = args.table
    token = None
    if table is None:
        for t in tables:
            key = f"{address} {t['table']}"
            if t["status"] != "over" and key in saved and not args.spectate:
                table, token = t["table"], saved[key]
                break
    if table is None:
        table = _pick_table(tables, role)
    if table is None:
        if args.spectate:
            print("no game to watch at this host", file=sys.stderr)
            client.close()
            return 1
        bots = list(range(args.players - args.bots, args.players))
        table = await client.create({"players": args.players}, bots=bots)
        note = f"new table {table}: others join with  sagani join {address.removeprefix('tcp://')}"
        print(note)
    if token is None and not args.spectate:
        token = saved.get(f"{address} {table}")

    async def rejoin(c: AsyncClient) -> None:
        if c.token is not None:
            await c.resume(table, c.token)
        else:
            await c.sync()

    try:
        if token is not None:
            await client.resume(table, token)
        else:
            await client.join(table, role=role, name=args.name or role)
    except HostError as exc:
        print(f"cannot join table {table}: {exc.message}", file=sys.stderr)
        client.close()
        return 1
    if client.token is not None and not args.spectate:
        saved[f"{address} {table}"] = client.token
        saved_path.parent.mkdir(parents=True, exist_ok=True)
        saved_path.write_text(json.dumps(saved))
    model = ConsoleModel(message=note)
    return await run_console(Console(model, client, rejoin=rejoin))


def _pick_table(tables: list[dict[str, Any]], role: str) -> str | None:
    """A table to join: for a player one with a free seat for people; for a spectator a
    running one."""
    for t in tables:
        if role == "spectator" and t["status"] == "running":
            return t["table"]
        free = any(not s["taken"] and s["kind"] == "player" for s in t["seats"])
        if role == "player" and t["status"] != "over" and free:
            return t["table"]
    return None


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


# -- sagani replay ----------------------------------------------------------------------------


def replay_frames(record: dict[str, Any]) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Every position of a recorded game with the events that led to it (the first has none).

    The record is checked with :func:`sagani_net.games.sagani.rules.replay` first.
    """
    replay(record)  # raises RuleError on a damaged record
    state = State.new(record["players"], record["mode"], record.get("seed"), record["tiles"])
    frames = [(state.view(None), [])]
    for data in record["actions"]:
        events = state.apply(Action.from_dict({k: v for k, v in data.items() if k != "seat"}))
        frames.append((state.view(None), events))
    return frames


def run_replay(args: argparse.Namespace) -> int:
    from sagani_net.game import RuleError

    try:
        record = json.loads(args.record.read_text())
        frames = replay_frames(record)
    except (OSError, ValueError) as exc:
        message = exc.message if isinstance(exc, RuleError) else str(exc)
        print(f"sagani replay: cannot read {args.record}: {message}", file=sys.stderr)
        return 1
    names = [{"name": f"seat {i + 1}"} for i in range(record["players"])]
    model = ConsoleModel(connection=LOCAL, seats=names, table=args.record.stem)
    steps = Replay(frames)
    if args.print:
        from cli.console.render import screen_text

        steps.show(model, len(frames) - 1)
        print(screen_text(model, 80, 24), end="")
        return 0
    return asyncio.run(run_console(Console(model, replay=steps)))
