"""``sagani play``, ``sagani join`` and ``sagani replay``: the console's three ways in.

``play`` starts everything on this machine (a host on 127.0.0.1 with free ports and its own data
dir, bots in the free seats) and ends it all when you quit; ``join`` connects to a host
somewhere else; ``replay`` steps through a game record. What each takes is
:mod:`sagani_net.cli.play_args`, read before this module is imported.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import logging
import random
import shlex
import shutil
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import zmq

from sagani_net.cli import args as check
from sagani_net.cli.args import UsageError, read_record
from sagani_net.cli.console.app import Console, Replay, replay_frames, run_console
from sagani_net.cli.console.model import LOCAL, ConsoleModel
from sagani_net.cli.console.render import ASCII, ascii_terminal, final_text
from sagani_net.cli.game_options import (
    checked_config,
    given_files,
    given_options,
)
from sagani_net.cli.play_args import BOT_KINDS, MCTS_THINK_S, user_dir, user_name
from sagani_net.cli.standby_process import StandbyProcess
from sagani_net.client import AsyncClient, HostError, HostTimeout, Replica, host_address
from sagani_net.game import Data, RuleError, plural, winners, without_seat
from sagani_net.games import DEFAULT_GAME, get_game
from sagani_net.private_files import write_private
from sagani_net.protocol.messages import MAX_NAME_LEN, printable
from sagani_net.store import DB_NAME, Store

if TYPE_CHECKING:
    from concurrent.futures import Executor, ProcessPoolExecutor

    from sagani_net.host import Host
    from sagani_net.standby import StandbyCode

# Not imported here, so that the first screen of `sagani play` does not wait for them: the
# bots (sagani_net.bots.*, imported once the screen is drawn), the standby (only `join
# --standby` runs one) and the worker processes of a search bot (multiprocessing); nor the
# host, which only `play` starts (`join` and `replay` came 40 ms later for it).

log = logging.getLogger("sagani_net.cli.play")

SESSION_FILE = "play.json"
JOIN_FILE = "join.json"


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
    from sagani_net.bots.runner import RECONNECT_PAUSE_S, play_seat, send_move, think

    seeds = random.Random(seed)
    loop = asyncio.get_running_loop()

    async def choose(replica: Replica) -> Data:
        # The table's game, and the seat's private data (a private objective) to think on.
        action: Data = await loop.run_in_executor(
            pool, think, kind, replica.view, seeds.getrandbits(64), think_s,
            replica.game or DEFAULT_GAME, replica.you, replica.private)
        return action

    async def move(replica: Replica) -> None:
        # Any refusal: the reply carried a fresh snapshot; the bot looks again.
        await send_move(client, replica, choose, f"bot {kind}", looks_again=None)

    while True:
        try:
            await play_seat(client, move)
            return
        except HostTimeout:
            await asyncio.sleep(RECONNECT_PAUSE_S)


def _seat_name(kind: str) -> str:
    """A bot's name at the table: its kind, or one of one's own by its NAME (FILE.py:NAME).
    The bots' package is imported for one's own alone: the first screen comes first."""
    if kind in BOT_KINDS:
        return kind
    from sagani_net.bots import seat_name

    return seat_name(kind)


def thinker(kinds: list[str]) -> ProcessPoolExecutor | None:
    """A worker process for the bots' thinking if a search bot or one of one's own (which may
    think as long) is among ``kinds``; the others answer in a few milliseconds and think in a
    thread."""
    if all(kind in BOT_KINDS and kind != "mcts" for kind in kinds):
        return None
    import multiprocessing

    from sagani_net.workers import pool

    # spawn, not fork: this process already runs the host's and ZeroMQ's threads.
    return pool(1, multiprocessing.get_context("spawn"))


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
    """Read the play options into seats; raises UsageError with a sentence when they clash.
    The game checks its own config (``Game.parse_config``)."""
    game = get_game(args.game)
    if args.solo and args.solo_advanced:
        raise UsageError("choose --solo or --solo-advanced, not both")
    # Not given: the game's own default fills it in (parse_config).
    data: dict[str, Any] = {} if args.players is None else {"players": args.players}
    if args.solo or args.solo_advanced:
        if args.players not in (None, 1):
            flag = "--solo" if args.solo else "--solo-advanced"
            raise UsageError(f"{flag} is one player, not --players {args.players}")
        data = {"players": 1}
        counts = next((o.choices for o in game.options if o.name == "players"), ())
        if 1 not in counts:
            raise UsageError(f"{game.title} has no solo game: {min(counts)}-{max(counts)} play")
        if any(o.name == "mode" for o in game.options):  # Sagani: a solo mode of its own
            data["mode"] = "solo" if args.solo else "solo-advanced"
        elif args.solo_advanced:
            raise UsageError(f"{game.title} has one solo game: --solo (or --players 1)")
    try:
        data.update(given_options(args, game))
        config = checked_config(game, {**data, **given_files(args, game)})
    except RuleError as exc:
        raise UsageError(f"{game.title}: {exc.message}") from None
    except UsageError as exc:
        raise UsageError(f"{game.title}: {exc}") from None
    players = game.seats(config)
    you = args.seat - 1
    if not 0 <= you < players:
        raise UsageError(f"--seat is 1..{players}")
    open_seats = [s - 1 for s in args.open]
    if any(not 0 <= s < players or s == you for s in open_seats):
        raise UsageError("--open names other seats of this table")
    if open_seats and args.seed is not None:
        # Whoever chose the seed knows the deal (the other hands, the pile, every roll), and
        # so does whoever reads this command line in the process list of this machine, where
        # the --open player sits: as a host does, the seed of a table where a person other
        # than its creator plays is drawn, never chosen (DESIGN: rules engine).
        raise UsageError("--seed deals a game you would know in advance: not at a table with "
                         "--open seats (the host draws their table's seed)")
    free = [s for s in range(players) if s != you and s not in open_seats]
    if args.bots is not None and not free:
        raise UsageError("--bots: this table has no seat for a bot" +
                         (" (a solo game is you alone)" if players == 1 else ""))
    kinds = list(args.bots or ["greedy"])
    if len(kinds) == 1:
        kinds *= len(free)
    if len(kinds) != len(free):
        raise UsageError(f"--bots names {plural(len(kinds), 'kind')} for "
                         f"{plural(len(free), 'bot seat')}")
    # Policies of one's own (the house's are known to play): loaded before the first screen.
    own = [k for k in [*kinds, args.autoplay] if k is not None and k not in BOT_KINDS]
    if own:
        check.made_strategies(own, game.name)
    return PlayPlan(config, you, dict(zip(free, kinds, strict=True)), open_seats)


def run_play(args: argparse.Namespace) -> int:
    plan_ = plan(args)
    data_dir = args.data_dir or user_dir() / "play"
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        lock = hold_lock(data_dir)
    except OSError as exc:
        raise UsageError(f"cannot use the data dir {data_dir}: {exc.strerror or exc}") from None
    logging.basicConfig(
        filename=data_dir / "play.log",
        level=logging.INFO,
        format="%(asctime)s %(name)s %(message)s",
    )
    with lock:
        # The port the game here had (a joiner waiting there comes back); a free one if taken.
        host = _start_host(data_dir, args.port or _saved_port(data_dir), or_free=not args.port)
        try:
            if not args.autoplay:
                check.need_terminal("sagani play --autoplay KIND plays a game without one")
            _keep_finished_record(data_dir, host)
            saved = _saved_game(data_dir, host)
            resume = saved is not None and _want_resume(args, saved)
            if saved is not None and not resume:
                # The host would load the old game at every start from now on: set it aside.
                host.stop()
                print(f"the unfinished game is set aside in {set_aside(data_dir)}", flush=True)
                host = _start_host(data_dir, args.port)
            return asyncio.run(_play(args, plan_, host, data_dir, saved if resume else None))
        finally:
            host.stop()


def _start_host(data_dir: Path, port: int, or_free: bool = False) -> Host:
    """The player's own host on ``port`` (0: a free one), or, ``or_free``, on a free one if
    ``port`` is taken."""
    from sagani_net.host import Host

    try:
        # The player's own host, on 127.0.0.1: --seed deals a game again.
        host = Host(Store(data_dir), port=port, client_seeds=True)
    except zmq.ZMQError as exc:
        if port and or_free:
            return _start_host(data_dir, 0)
        raise UsageError(f"cannot serve on 127.0.0.1:{port}: {exc}") from None
    host.serve_in_thread()
    return host


def _saved_port(data_dir: Path) -> int:
    """The port the unfinished game of the last ``sagani play`` here was served on, else 0 (a
    free one): a person who took an open seat (``sagani join 127.0.0.1:PORT``) and whose
    console waits, reconnecting, comes back to the resumed game by itself. On a new port it
    tried the old one for ever, and nothing on either screen said the new one."""
    try:
        port = json.loads((data_dir / SESSION_FILE).read_text()).get("port")
    except (OSError, ValueError, AttributeError):
        return 0
    return port if isinstance(port, int) and 0 < port <= 65535 else 0


def set_aside(data_dir: Path) -> Path:
    """Move the games database (and the saved seats) of ``data_dir`` to a folder of its own
    under ``abandoned/``, where no host loads them; returns that folder. Finished games keep
    their JSON records in ``records/``."""
    folder = data_dir / "abandoned" / time.strftime("%Y%m%d-%H%M%S")
    folder.mkdir(parents=True, exist_ok=True)
    for path in [*data_dir.glob(f"{DB_NAME}*"), data_dir / SESSION_FILE]:
        if path.exists():
            path.rename(folder / path.name)
    return folder


def hold_lock(data_dir: Path) -> contextlib.AbstractContextManager[None]:
    """Hold the data dir for this process (released at exit); raises UsageError naming the
    process that holds it, so that two ``sagani play`` never share one database."""
    held = check.hold_file(data_dir / check.DATA_DIR_LOCK, "sagani play")
    if isinstance(held, str):
        raise UsageError(f"{held} already uses {data_dir}; finish it there, or give this one "
                         "its own --data-dir") from None

    @contextlib.contextmanager
    def hold() -> Iterator[None]:
        try:
            yield
        finally:
            held.close()

    return hold()


def _keep_finished_record(data_dir: Path, host: Host) -> None:
    """An earlier ``sagani play`` whose game ended but that was closed before it wrote the
    record (the terminal closed at the final screen): write it now, and say where."""
    path = data_dir / SESSION_FILE
    try:
        table = json.loads(path.read_text()).get("table")
    except (OSError, ValueError, AttributeError):
        return
    finished = host.store.finished(table) if isinstance(table, str) else None
    if finished is None:
        return
    row, record = finished
    names = [""] * len(record.get("result", {}).get("scores", []))
    for session in row.sessions:
        if session.seat is not None and session.seat < len(names):
            names[session.seat] = session.name
    written = write_record(record, table, names, data_dir / "records")
    with contextlib.suppress(OSError):
        path.unlink()
    print(f"your last game ended; its record: {written}", flush=True)


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
    # Turns, not actions, where the view counts them (a Sagani turn is two actions); else
    # the moves made.
    seats = [s for s in table.state.view(None).get("seats", []) if isinstance(s, dict)]
    counted = [s["turns"] for s in seats if "turns" in s]
    saved["played"] = plural(max(counted), "turn") if counted else \
        plural(table.state.version, "move")
    saved["title"] = get_game(table.game_name).title
    return saved


def _want_resume(args: argparse.Namespace, saved: dict[str, Any]) -> bool:
    if args.resume or args.new:
        return bool(args.resume)
    if not sys.stdin.isatty():
        return False
    players = saved.get("config", {}).get("players")
    question = (
        f"An unfinished game of {saved['title']} is saved "
        f"({plural(players, 'player') if isinstance(players, int) else '? players'}, "
        f"{saved['played']} played).\nResume it? [Y/n] "  # one line was 83 columns and wrapped
    )
    if sys.stdout.isatty() or not sys.stderr.isatty():
        try:
            answer = input(question)
        except EOFError:  # Ctrl-D: as the file's end below, the answer Enter gives
            answer = ""
    else:
        # Standard output in a file: asked on the terminal the console is drawn on, not
        # written unseen into the file while the command waits for the answer.
        print(question, end="", file=sys.stderr, flush=True)
        answer = sys.stdin.readline()
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
        table = await me.create(plan_.config, game=args.game, seed=args.seed,
                                bots=sorted(plan_.bots))
        name = _seat_name(args.autoplay) if args.autoplay else args.name
        await me.join(table, seat=plan_.you, name=name)
        saved = {"table": table, "token": me.token, "config": plan_.config, "bots": [],
                 "open": plan_.open}
        for seat, kind in plan_.bots.items():
            client = AsyncClient(address)
            await client.join(table, role="bot", seat=seat, name=_seat_name(kind))
            bots.append((client, kind))
            saved["bots"].append({"seat": seat, "kind": kind, "token": client.token})
    port = int(address.rpartition(":")[2])
    if saved.get("port") != port:
        saved["port"] = port
        write_private(data_dir / SESSION_FILE, json.dumps(saved))  # seat tokens
    # The table's open seats, also when it is resumed without --open: the person who takes
    # one sits at this machine, maybe at this screen.
    open_seats = saved.get("open") or []
    console = None
    if not args.autoplay:
        console = Console(ConsoleModel(game=me.state.game or args.game,
                                       cover=args.cover or bool(open_seats)), me,
                          record=lambda: me.record(table))
        # The game so far goes in the log before the bots move again: their quick moves would
        # otherwise come in with it and push it off a small screen at once.
        await console.catch_up(me.state.version, away=False)
    pool = thinker([kind for _, kind in bots] + ([args.autoplay] if args.autoplay else []))

    async def bot(client: AsyncClient, kind: str, number: int) -> None:
        if console is not None:
            await console.drawn.wait()  # the first screen first, then the bots' imports
        await bot_loop(client, kind, number, pool, args.think)

    tasks = [asyncio.create_task(bot(c, kind, i)) for i, (c, kind) in enumerate(bots)]
    try:
        if console is None:
            await bot_loop(me, args.autoplay, 99, pool, args.think)
            await me.sync()
            print_result(me)
            print(f"record: {await save_record(me, data_dir / 'records')}")
            return 0
        if open_seats:  # shown while seats are open (the message line names them)
            console.model.invite = f"sagani join {address.removeprefix('tcp://')} --cover"
        status = await run_console(console)
        if me.replica is not None and me.replica.status == "over":
            path = await save_record(me, data_dir / "records")
            print(f"the game's record: {path}\nwatch it again: sagani replay {path}")
        else:
            print("the game is saved; `sagani play` resumes it")
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
    names = [seat.get("name") or "" for seat in client.state.seats]
    return write_record(await client.record(table), table, names, folder)


def write_record(record: dict[str, Any], table: str, names: list[str], folder: Path) -> Path:
    """Write the finished record of ``table`` in ``folder`` as JSON, with who played: the
    host's record has seats only, a replay names the players with ``names``. Returns its
    path."""
    record = {**record, "names": names}
    check.make_directory(folder)
    path = folder / f"{record.get('game', 'game')}-{table}.json"
    check.write_text(path, json.dumps(record, indent=1) + "\n")
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
    shared = winners(result["ranking"], result)
    for rank, seat in enumerate(result["ranking"]):
        name = replica.seats[seat].get("name") if seat < len(replica.seats) else ""
        rank = 0 if seat in shared else rank  # all who share the win are first
        print(f"  {rank + 1}. seat {seat + 1} {printable(name or ''):<8} "
              f"{result['scores'][seat]:>4} points")
    # A game's own figures that are one word or number (a solo game's goal and whether it was
    # reached).
    figures = [f"{k} {v}" for k, v in result.items()
               if k not in ("scores", "ranking") and isinstance(v, int | str)]
    if figures:
        print(f"  {', '.join(figures)}")


# -- sagani join ------------------------------------------------------------------------------


def run_join(args: argparse.Namespace) -> int:
    if args.standby is not None and args.lan:
        raise UsageError("--standby names the host already; drop --lan")
    code = args.standby = check.given_standby(args.standby)
    address = args.address or (code.address if code else host_address(None))
    config = None
    if args.game is not None and given_files(args, get_game(args.game)):
        config = _new_table_config(args)  # a bad file is told before any host is asked
    if args.lan:
        from sagani_net.discovery import browse, need_zeroconf

        try:
            need_zeroconf()
        except RuntimeError as exc:
            raise UsageError(f"--lan: {exc}") from None
        print("looking for hosts on the LAN ...", flush=True)
        found = browse()
        if not found:
            raise UsageError("no host answered on the LAN; give its address instead: "
                             "sagani join HOST[:PORT]")
        for i, f in enumerate(found):
            print(f"  {i + 1}. {f.name} at {f.endpoint}")
        address = found[chosen(len(found))].endpoint
    print(f"asking {check.shown_address(address)} ...", flush=True)
    reached = check.reach_host(address)
    # Before a table is made or a seat taken for a console that cannot start.
    check.need_terminal("sagani bot plays at a host without one")
    moved = "" if reached == address else f"host moved to {check.shown_address(reached)}"
    return asyncio.run(_join(args, reached, config, moved))


def chosen(count: int, ask: Callable[[str], str] = input) -> int:
    """The index of the host the user picks of ``count`` listed, by its number (Enter: the
    first), asked again until the answer is one of them: a letter or a number past the list
    ended `sagani join --lan` in a traceback. Standard input at its end picks none."""
    while count > 1:
        try:
            answer = ask(f"join which? (1-{count}, Enter: 1) ").strip() or "1"
        except EOFError:
            raise UsageError("--lan: no host chosen") from None
        if answer.isdigit() and 1 <= int(answer) <= count:
            return int(answer) - 1
        print(f"  the number of a host, 1 to {count}")
    return 0


def _new_table_config(args: argparse.Namespace) -> dict[str, Any]:
    """The config of the table ``join`` creates when none has a free seat."""
    game = get_game(args.game or DEFAULT_GAME)
    try:
        # Not asked for: the game's own default fills it in (parse_config).
        players = {} if args.players is None else {"players": args.players}
        return checked_config(game, {**players, **given_files(args, game)})
    except UsageError as exc:
        raise UsageError(f"{game.title}: {exc}") from None


async def _join(
    args: argparse.Namespace, address: str, config: dict[str, Any] | None, moved: str = ""
) -> int:
    shown = address.removeprefix("tcp://")
    client = AsyncClient(address)
    try:
        await client.connect()
        tables = await client.tables()
    except HostTimeout:
        client.close()
        raise UsageError(f"the host at {check.shown_address(shown)} stopped answering") from None
    saved_path = user_dir() / JOIN_FILE
    saved = _read_json(saved_path)
    role = "spectator" if args.spectate else "player"
    table = args.table
    # --game and --players ask for a table of that game and size, also of a seat taken back:
    # not a leftover one of another size or game.
    wanted = [t for t in tables if args.game in (None, t.get("game"))
              and args.players in (None, len(t["seats"]))]
    # A saved seat is taken back only by a console of its name, and only while no other
    # console plays it (its lock): the same HOME may run several consoles.
    seat: SavedSeat | None = None
    if not args.spectate:
        unfinished = [t["table"] for t in wanted if t["status"] != "over"]
        try:
            seat = _free_saved_seat(saved, address, [table] if table else unfinished, args.name)
        except OSError as exc:
            client.close()
            raise UsageError(f"cannot keep seats in {user_dir()}: {exc.strerror or exc}") \
                from None
        except UsageError:
            client.close()
            raise
        table = table or (seat.table if seat else None)
    if table is None:
        table = _pick_table(wanted, role)
    if table is None:
        if args.spectate:
            client.close()
            raise UsageError("no game to watch at this host")
        if args.game is None and args.players is None and not args.bots:  # no new table asked
            try:
                _no_seat_left_behind(saved, address, shown, unfinished,
                                     " (--players N makes a new table)")
            except UsageError:
                client.close()
                raise
        game = get_game(args.game or DEFAULT_GAME)
        try:
            config = config or _new_table_config(args)
        except UsageError:
            client.close()
            raise
        seats = game.seats(config)
        if args.bots >= seats:
            client.close()
            raise UsageError(f"--bots is at most {seats - 1} at a table of {seats}")
        bots = list(range(seats - args.bots, seats))
        table = await client.create(config, game=game.name, bots=bots,
                                    turn_timer_s=args.turn_timer)
        invite = f"sagani join {shlex.quote(shown)}"
        print(f"new {game.title} table {table}; others join with\n  {invite}", flush=True)
    token = seat.token if seat is not None else None

    async def rejoin(c: AsyncClient) -> None:
        if c.token is not None:
            await c.resume(table, c.token)
        else:
            await c.sync()

    try:
        if token is not None:
            await client.resume(table, token)
        else:
            # Not the role: a LAN party of bare `sagani join`s sat "player", "player 2", ...
            name = args.name or (role if args.spectate else user_name())
            await client.join(table, role=role, name=name)
    except HostError as exc:
        client.close()
        if exc.code == "table_full" and not args.spectate:
            _no_seat_left_behind(saved, address, shown, [table])  # a seat of another name
        raise UsageError(f"cannot join table {table}: {exc.message}") from None
    if client.token is not None and not args.spectate:
        if seat is None:  # a new seat: held (by save) before others can find it in the file
            seat = SavedSeat("", table, client.token, "")
        seat.cover = seat.cover or args.cover  # once at a screen others see, always covered
        seat.save(saved, address, client)
        write_private(saved_path, json.dumps(saved))  # seat tokens: 0600 in a 0700 folder
    try:
        model = ConsoleModel(game=client.state.game or DEFAULT_GAME,
                             cover=args.cover or (seat is not None and seat.cover))
    except RuleError as exc:  # a host newer than this console
        client.close()
        raise UsageError(f"table {table}: {exc.message}; update sagani to play it") from None
    if moved:  # the address given was a standby's: reach_host followed its not_active
        model.add_log(moved)
    # Shown while seats are open (the message line names them), whoever made the table.
    model.invite = f"sagani join {shlex.quote(shown)}"
    model.bot_invite = f"sagani bot {shlex.quote(shown)} --table {table}"
    async with _standby_beside(args.standby, client) as pair:
        # The record, once the game is over: the final screen's a (analyse this game).
        console = Console(model, client, rejoin=rejoin, record=lambda: client.record(table))
        watch = None
        if pair is not None:
            model.say(f"a standby of this host runs here ({pair.endpoint}): if the host goes "
                      "away, the game goes on here")
            watch = asyncio.create_task(_tell_if_it_ends(pair, console))
        try:
            status = await run_console(console, leave=args.spectate)
        finally:
            if watch is not None:
                watch.cancel()
    if client.moved_to is not None:  # the host moved (its standby took over): come back there
        address = check.address_now(client)
        shown = address.removeprefix("tcp://")
        if seat is not None:
            seat.save(saved, address, client)
            write_private(saved_path, json.dumps(saved))
    if seat is not None and model.status != "over":
        again = shlex.join(["sagani", "join", shown, "--name", seat.name])
        print(f"your seat is kept; `{again}` takes it back")
    if seat is not None:
        seat.release()
    return status


@contextlib.asynccontextmanager
async def _standby_beside(
    code: StandbyCode | None, client: AsyncClient
) -> AsyncIterator[StandbyProcess | None]:
    """A standby host beside the console (``--standby``), stopped with it unless it has taken
    over: then it is the party's host and goes on."""
    if code is None:
        yield None
        return
    from sagani_net.standby import same_pair

    folder = user_dir() / "standby"
    if (folder / DB_NAME).exists() and not same_pair(folder, code):
        # Another party's copy (a host that may have moved here once): kept, not wiped.
        print(f"the standby copy of another host is set aside in {set_aside(folder)}")
    try:
        pair = StandbyProcess(code, folder)
    except UsageError:
        client.close()
        raise
    try:
        yield pair
    finally:
        if await pair.active():
            print(f"this machine hosts the tables now (the host moved here at {pair.endpoint}); "
                  f"it goes on serving after you quit: stop it with `kill {pair.pid}`")
            kept = folder / check.STANDBY_CODE_FILE  # written as it took over
            if kept.exists():
                # The party had no standby any more, and no code to start one with.
                print("  a standby of it (only on a machine you trust with every game's "
                      f"secrets) runs\n  sagani host --standby -\n  and is given the line of "
                      f"{shlex.quote(str(kept))} when it asks")
        else:
            pair.stop()


async def _tell_if_it_ends(pair: StandbyProcess, console: Console) -> None:
    """The console said the game goes on here if the host goes away: once the standby beside
    it has ended (killed, crashed), say that it no longer does."""
    how = await pair.ended()
    words = (f"the standby beside this console has stopped ({how}; its log: {pair.log_path}): "
             "if the host goes away now, the game waits for it")
    console.model.say(words, lasting=True)
    console.redraw()


def _pick_table(tables: list[dict[str, Any]], role: str) -> str | None:
    """A table to join: for a player one with a free seat for people; for a spectator a
    running one, else one still waiting for its players (the lobby, then the game); of those
    the one with the most players here (a table left with everyone away is no show)."""
    if role == "spectator":
        for status in ("running", "open"):
            shows = [t for t in tables if t["status"] == status]
            if shows:
                return max(shows, key=lambda t: sum(s["taken"] and not s.get("away")
                                                    for s in t["seats"]))["table"]
        return None
    for t in tables:
        free = any(not s["taken"] and s["kind"] == "player" for s in t["seats"])
        if t["status"] != "over" and free:
            return t["table"]
    return None


@dataclass
class SavedSeat:
    """A seat of ``sagani join`` kept in JOIN_FILE (key ``"ADDRESS TABLE SEAT"``, value
    ``{"token", "name", "cover"}``; a key without its seat and a bare token are from before
    names were kept), and the locks of it this console holds while it plays it (one per key it
    had)."""

    key: str
    table: str
    token: str
    #: Its player's name; "" for a seat saved before names were kept.
    name: str
    #: It was played with --cover: a screen others see, covered again when it comes back.
    cover: bool = False
    locks: list[IO[str]] = field(default_factory=list)

    def hold(self, key: str) -> str | None:
        """Lock ``key`` for this console; None, or who holds it already."""
        held = check.hold_file(_seat_lock_path(key), "sagani join")
        if isinstance(held, str):
            return held
        self.locks.append(held)
        return None

    def save(self, saved: dict[str, Any], address: str, client: AsyncClient) -> None:
        """Put this seat, as ``client`` holds it at ``address``, into ``saved`` (JOIN_FILE),
        under its key of now (held first: an older key, or the host moved)."""
        replica = client.state
        you = replica.you if replica.you is not None else 0
        if you < len(replica.seats) and replica.seats[you].get("name"):
            self.name = replica.seats[you]["name"]  # the host's word for it
        key = f"{address} {self.table} {you}"
        if key != self.key:
            held = self.hold(key)
            if held is not None:
                raise UsageError(f"the seat is played by another console ({held})")
            saved.pop(self.key, None)
            self.key = key
        saved[key] = {"token": client.token, "name": self.name, "cover": self.cover}

    def release(self) -> None:
        for lock in self.locks:
            lock.close()  # the kernel drops the flock with the file
        self.locks.clear()


def _saved_seats(saved: dict[str, Any], address: str, table: str) -> list[SavedSeat]:
    """The seats ``saved`` (JOIN_FILE) keeps for ``table`` at ``address``."""
    seats = []
    for key, value in saved.items():
        if key.split(" ")[:2] != [address, table]:
            continue
        if isinstance(value, str):  # a bare token: from before names were kept
            value = {"token": value, "name": ""}
        if isinstance(value, dict) and isinstance(value.get("token"), str):
            name = value.get("name")
            seats.append(SavedSeat(key, table, value["token"], name if isinstance(name, str)
                                   else "", value.get("cover") is True))
    return seats


def _free_saved_seat(
    saved: dict[str, Any], address: str, tables: list[str], name: str | None
) -> SavedSeat | None:
    """The first saved seat at one of ``tables`` that is ``name``'s (any, without a name) and
    that no other console plays, held for this console; None if there is none. Raises
    UsageError when the seat of ``name`` is played by another console: one name, one seat."""
    for table in tables:
        for seat in _saved_seats(saved, address, table):
            if name is not None and seat.name != name:
                continue
            held = seat.hold(seat.key)
            if held is not None:
                if name is not None:
                    raise UsageError(f"{name}'s seat at table {table} is played by another "
                                     f"console ({held}); quit that one first, or join with "
                                     "another --name")
                continue  # another console's seat: this one takes a seat of its own
            return seat
    return None


def _no_seat_left_behind(
    saved: dict[str, Any], address: str, shown: str, tables: list[str], otherwise: str = ""
) -> None:
    """Raise UsageError when a seat kept here at one of ``tables`` waits for its console under
    another name (a ``--name`` other than the seat's found no seat of its own): how to take it
    back, then ``otherwise``."""
    for table in tables:
        for seat in _saved_seats(saved, address, table):
            if seat.hold(seat.key) is not None:
                continue  # another console plays it
            seat.release()
            again = shlex.join(["sagani", "join", shown, "--name", seat.name]) if seat.name \
                else shlex.join(["sagani", "join", shown])
            raise UsageError(f"your seat at table {table} is not under that name: `{again}` "
                             f"takes it back{otherwise}")


def _seat_lock_path(key: str) -> Path:
    return user_dir() / "seats" / f"{hashlib.sha256(key.encode()).hexdigest()[:24]}.lock"


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


# -- sagani replay ----------------------------------------------------------------------------


def read_verdicts(path: Path, record: dict[str, Any]) -> dict[int, Any]:
    """The verdicts of an analysis file (``sagani analyze --json``) of ``record``, by action
    number; raises UsageError for a file that is not one, or is another game's."""
    from sagani_net.analysis import Verdict

    rules = get_game(record.get("game", "sagani"))
    actions = record["actions"]
    try:
        data = check.read_json(path, "an analysis")
        if not isinstance(data, dict) or not isinstance(data.get("decisions"), list):
            raise ValueError('an analysis is a JSON object with "decisions"')
        verdicts = {}
        for item in data["decisions"]:
            verdict = Verdict.from_data(item)
            # The seat too: a verdict is shown as its seat's, and counted in its summary.
            if not (0 <= verdict.index < len(actions) and data.get("game") == record.get("game")
                    and rules.action_text(without_seat(actions[verdict.index]))
                    == verdict.played and actions[verdict.index].get("seat") == verdict.seat):
                raise ValueError(f"it is not an analysis of this record (action "
                                 f"{verdict.index})")
            rules.parse_text(verdict.best)  # the replay shows it as the console types it
            verdicts[verdict.index] = verdict
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (ValueError, KeyError, TypeError, RuleError) as exc:
        raise UsageError(f"cannot use {path}: {exc}") from None
    return verdicts


def run_replay(args: argparse.Namespace) -> int:
    piped, named = check.piped(args.record), check.file_named(args.record)
    if piped and not args.print:
        raise UsageError("RECORD - reads the record from standard input, where the console "
                         "reads its keys: give --print, or a file")
    try:
        record = read_record(args.record)
        frames = replay_frames(record)
    except OSError as exc:
        raise UsageError(f"cannot replay {named}: {exc.strerror or exc}") from None
    except ValueError as exc:
        message = exc.message if isinstance(exc, RuleError) else str(exc)
        raise UsageError(f"cannot replay {named}: {message}") from None
    except (TypeError, KeyError, IndexError, AttributeError) as exc:
        # A field of the wrong kind that the game's own record check let through: the file
        # is untrusted input, so it gets a sentence, not a traceback.
        raise UsageError(f"cannot replay {named}: a damaged record ({exc!r})") from None
    names: list[Any] = record["names"] if isinstance(record.get("names"), list) else []
    rules = get_game(record.get("game", "sagani"))
    state = rules.from_record(record)
    # One name a seat, as long as a host lets one be: a record of 500,000 names, or of one
    # name of 3 MB, kept the replay drawing them for minutes.
    seats = [{"name": names[i][:MAX_NAME_LEN] if i < len(names) and isinstance(names[i], str)
              else ""} for i in range(rules.seats(state.to_record()["config"]))]
    model = ConsoleModel(connection=LOCAL, seats=seats,
                         record_file=named if piped else printable(args.record.name),
                         game=record.get("game", "sagani"))
    if args.analysis is not None and args.analyze:
        raise UsageError("give --analysis FILE or --analyze, not both")
    # Said before --analyze searches every decision (minutes), not after.
    if args.print and args.analyze:
        raise UsageError("--print shows the last position, not the verdicts: give --print or "
                         "--analyze (sagani analyze RECORD writes them all)")
    if not args.print:
        check.need_terminal("sagani replay --print shows the end of the game without one")
    verdicts = None
    if args.analysis is not None:
        verdicts = read_verdicts(args.analysis, record)
    elif args.analyze:
        from sagani_net.analysis import analyse

        verdicts = {v.index: v for v in analyse(record, progress=sys.stderr).verdicts}
    steps = Replay(frames, over=state.is_over(),
                   verdicts=verdicts, record=record)
    if args.print:
        steps.show(model, len(frames) - 1)
        width, height = shutil.get_terminal_size((120, 40))
        text = final_text(model, width, height)
        # Read where it is written (a pager, a file opened in the same locale), as the console.
        print(text.translate(ASCII) if ascii_terminal() else text, end="")
        return 0
    return asyncio.run(run_console(Console(model, replay=steps)))
