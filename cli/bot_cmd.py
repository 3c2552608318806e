"""``sagani bot`` (a bot client at a network table) and ``sagani tournament``, for every game."""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import logging
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import IO, Any

from sagani_net.bots import STRATEGIES, is_loaded, strategy_names, unknown_strategies
from sagani_net.bots.tournament import (
    GameResult,
    Standings,
    TournamentSpec,
    format_table,
    play_local,
    run_games,
)
from sagani_net.cli import args as check
from sagani_net.cli.args import UsageError
from sagani_net.cli.game_options import add_game_arguments, game_config
from sagani_net.games import game_names, get_game


def add_parsers(sub: Any) -> None:
    """Add ``bot`` and ``tournament`` to the ``sagani`` command (cli/main.py)."""
    add_bot_parser(sub)
    add_tournament_parser(sub)


def add_bot_parser(sub: Any) -> argparse.ArgumentParser:
    p = check.command_parser(
        sub, "bot",
        description="Join a table (or create one) at a host and play until the game ends, "
        "coming back with the seat's token if the host restarts.",
    )
    p.add_argument(
        "address",
        type=check.host,
        metavar="ADDRESS",
        help="the host's request address: HOST[:PORT] (port 47410 by default), tcp://HOST:PORT "
        "or a secure host's join code (- reads it from standard input, out of the process "
        "list)",
    )
    p.add_argument("--strategy", type=check.strategy, default="mcts",
                   help="random, greedy, mcts (the default), a strategy of the table's game, "
                   "or a policy of your own: MODULE:NAME or FILE.py:NAME, made as "
                   "NAME(game=GAME) (see sagani_net.bots.base.Policy)")
    check.add_search_options(p)
    p.add_argument("--seed", type=check.seed, default=None, help="the bot's own randomness")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--table", type=check.table_id, metavar="T",
                       help="join this table (of any game)")
    where.add_argument(
        "--create",
        type=check.players,
        nargs="?",
        const=0,
        metavar="PLAYERS",
        help="create a table (for PLAYERS, or --players; --game, --mode, --option) and join it",
    )
    add_game_arguments(p, what="with --create: the table's game")
    p.add_argument(
        "--table-seed", type=check.seed, default=None,
        help="with --create: the table's shuffle seed (a host takes one for a solo table, "
        "or any table if it runs with --client-seeds)"
    )
    p.add_argument("--seat", type=check.seat, default=None,
                   help="the seat to take, from 1 (default: any)")
    p.add_argument("--name", type=check.name, default=None, help="the name shown at the table")
    p.add_argument(
        "--deadline",
        type=check.deadline_s,
        default=None,
        metavar="S",
        help="answer every move within S seconds (caps --think; default: the table's own "
        "deadline, if the host set one)",
    )
    p.add_argument(
        "--reconnect",
        type=check.reconnect_s,
        default=60.0,
        metavar="S",
        help="how long to keep trying to get back after the host went away (default %(default)g)",
    )
    p.add_argument("--quiet", action="store_true", help="log warnings only")
    p.set_defaults(func=run_bot_cmd)
    return p


def add_tournament_parser(sub: Any) -> argparse.ArgumentParser:
    p = check.command_parser(
        sub, "tournament",
        description="Play many games between strategies, seats rotated so that each deal is "
        "played from every seat, on worker processes; print games, wins, win share with a 95% "
        "confidence interval, mean score and Elo (a win shared by k seats, as Sugi's can be, "
        "counts 1/k to each, and as a draw between them).",
    )
    p.add_argument(
        "--strategies",
        type=check.names,
        default="greedy,random",
        metavar="A,B,...",
        help="one strategy per seat (a solo mode: strategies take turns on the deals): "
        f"{', '.join(STRATEGIES)}, one of the game's own, {check.OWN_STRATEGY} "
        "(default %(default)s)",
    )
    add_game_arguments(p, players_default="one per strategy named, or the game's")
    p.add_argument("--games", type=check.games, default=100,
                   help="how many games (default 100), seats rotated game by game")
    p.add_argument("--seed", type=check.seed, default=0,
                   help="decides every deal and every bot (default 0)")
    check.add_search_options(p)
    p.add_argument("--workers", type=check.workers, default=None,
                   help="processes (default, and at most: one per core; never more than the games)")
    p.add_argument(
        "--records",
        type=check.records_directory,
        default=None,
        metavar="DIR",
        help="write each game's JSON record (and index.json) here",
    )
    p.add_argument(
        "--json",
        type=Path,
        default=None,
        metavar="FILE",
        help="also write the result table as JSON",
    )
    p.add_argument(
        "--network",
        action="store_true",
        help="play through a real host on 127.0.0.1 (free ports, a temporary data dir)",
    )
    p.set_defaults(func=run_tournament_cmd)
    return p


def run_bot_cmd(args: argparse.Namespace) -> int:
    from sagani_net.bots.runner import BotRunner
    from sagani_net.client import HostError, HostTimeout

    if args.table is None:
        if args.create and args.players is None:
            args.players = args.create
        game, config = game_config(args)  # checked before anything is started
        check.made_strategies([args.strategy], game)
    args.address = check.reach_host(args.address)
    logging.basicConfig(level=logging.WARNING if args.quiet else logging.INFO,
                        format="%(asctime)s %(message)s", stream=sys.stderr)
    options = check.search_options(args)
    runner = BotRunner(args.address, args.strategy, seed=args.seed,
                       name=args.name, think_s=options["think_s"],
                       iterations=options["iterations"], move_deadline_s=args.deadline,
                       reconnect_s=args.reconnect)
    try:
        table = args.table
        try:
            if table is None:
                table = runner.create(config, game=game, seed=args.table_seed)
                print(f"sagani bot: created table {table}", flush=True)
            # People count seats from 1; the wire from 0.
            seat = runner.join(table, None if args.seat is None else args.seat - 1)
        except HostError as exc:
            raise UsageError(f"cannot take a seat at table {table}: {exc.message}") from None
        except ValueError as exc:  # a strategy the table's game has not, or makes no policy
            raise UsageError(f"table {table}: {exc}") from None
        print(f"sagani bot: {args.strategy} at table {table} ({runner.game}), seat {seat + 1} "
              f"(seat {seat} on the wire)", flush=True)
        try:
            runner.play()
            result = runner.client.record(table)["result"]  # the game's own, for any game
        except HostTimeout as exc:  # gone past --reconnect (the host, and its standby if any)
            raise UsageError(f"the host has been silent for {runner.silent_for_s:.0f} "
                             f"s, past --reconnect {args.reconnect:g} s: {exc}; the bot stopped "
                             f"playing table {table}") from None
    finally:
        runner.close()
    print(f"sagani bot: game over, scores {result['scores']}, ranking by seat (from 1) "
          f"{[s + 1 for s in result['ranking']]}; {runner.moves} moves, "
          f"{runner.late_moves} played by the host past the deadline, slowest "
          f"{runner.slowest_move_s:.2f} s, {runner.reconnects} reconnects, "
          f"{runner.host_moves} failovers", flush=True)
    return 0


def run_tournament_cmd(args: argparse.Namespace) -> int:
    lineup = tuple(args.strategies)
    if args.game in game_names():
        known, unknown = strategy_names(args.game), unknown_strategies(lineup, args.game)
    else:  # game_config says what is wrong with the game
        known = strategy_names()
        unknown = sorted({name for name in lineup if name not in known and not is_loaded(name)})
    if unknown:
        raise UsageError(f"unknown strategies {unknown}; known: {', '.join(known)}, "
                         f"{check.OWN_STRATEGY}")
    options = {o.name for o in get_game(args.game).options} if args.game in game_names() else ()
    if args.players is None and args.mode is None and len(lineup) > 1 and "players" in options:
        args.players = len(lineup)  # as many seats as strategies named
    game, config = game_config(args)
    check.made_strategies(lineup, game)
    seats = get_game(game).seats(config)
    if seats > 1 and len(lineup) == 1:
        lineup *= seats
    try:
        spec = TournamentSpec(lineup=lineup, games=args.games, seed=args.seed, game=game,
                              config=config, options={"mcts": check.search_options(args)})
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.records:
        check.make_directory(args.records)
    if args.json:
        check.writable(args.json)
    # Each game told to the table, and its record and its entry in index.json written, as it
    # ends: nothing is kept of it, so that millions of games run in bounded memory.
    standings = Standings(spec)
    started_s = time.monotonic()
    with (check.writing(args.records / "index.json") if args.records
          else contextlib.nullcontext()) as out:
        index = IndexWriter(out) if out is not None else None

        def on_result(result: GameResult) -> None:
            standings.add(result)
            if index is not None:
                _save_record(args.records, result)
                index.add({
                    "game": result.index, "seed": spec.game_spec(result.index).seed,
                    "strategies": list(result.strategies), "scores": list(result.scores),
                    "ranking": list(result.ranking), "file": _record_name(result)})

        if args.network:
            _run_networked(spec, args.workers, on_result)
        else:
            run_games(spec, workers=args.workers, play=play_local, progress=sys.stderr,
                      on_result=on_result, keep=False)
        if index is not None:
            index.close()
    rows = standings.rows()
    print(format_table(spec, rows, time.monotonic() - started_s))
    if args.json:
        check.write_text(args.json, json.dumps([row.to_dict() for row in rows], indent=1) + "\n")
    return 0


def _run_networked(spec: TournamentSpec, workers: int | None, on_result: Any) -> None:
    """The tournament through a host on 127.0.0.1, free ports, a throwaway data dir."""
    import multiprocessing

    from sagani_net.bots.runner import play_network
    from sagani_net.host import Host
    from sagani_net.store import Store

    with tempfile.TemporaryDirectory(prefix="sagani-tournament-") as data_dir:
        # Its own host, for its own bots only: the games are dealt by their seeds. No clock
        # for a bot seat: past the host's fallback (60 s) it played its default move for a
        # slow strategy, and the table counted the game as that strategy's.
        host = Host(Store(data_dir), bind="127.0.0.1", port=0, client_seeds=True,
                    bot_fallback_s=None)
        host.serve_in_thread()
        try:
            print(f"sagani tournament: host at {host.endpoint}", file=sys.stderr)
            run_games(spec, workers=workers, play=functools.partial(play_network, host.endpoint),
                      progress=sys.stderr, on_result=on_result, keep=False,
                      context=multiprocessing.get_context("spawn"))
        finally:
            host.stop()


class IndexWriter:
    """index.json's entries written to ``out`` as games end, in game order, as
    ``json.dumps(entries, indent=1)`` writes the whole list: an entry waits only for the games
    before it still under way (a few per worker), where the list of every game's entry was
    kept to the end (about 600 bytes a game)."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self.waiting: dict[int, dict[str, Any]] = {}
        self.written = 0

    def add(self, entry: dict[str, Any]) -> None:
        """Take a game's entry (its number is its ``game``)."""
        self.waiting[entry["game"]] = entry
        while self.written in self.waiting:
            text = json.dumps(self.waiting.pop(self.written), indent=1)
            self.out.write(("[\n" if self.written == 0 else ",\n")
                           + textwrap.indent(text, " "))
            self.written += 1

    def close(self) -> None:
        """End the list (every game is in)."""
        assert not self.waiting, sorted(self.waiting)
        self.out.write("\n]\n" if self.written else "[]\n")


def _record_name(result: GameResult) -> str:
    return f"game-{result.index:05d}.json"


def _save_record(directory: Path, result: GameResult) -> None:
    check.write_text(directory / _record_name(result), json.dumps(result.record, indent=1) + "\n")
