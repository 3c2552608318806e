"""What the console's own work costs per key, against what it has to do: stepping through a
replay, and drawing the screen.

Run: ``python bench/console.py [--seed N] [--players 5]``. One process, no terminal (the app
draws to a stream it throws away); CPU time of this process (``time.process_time``), ratios
taken within the run.

- **replay**: a long game (random Sugi, ``--players`` seats: some 200-500 moves) stepped through
  from its first frame to its last, as ``→`` does, then ``End`` and ``Home``. Each step shows
  the log up to its frame. Printed: the mean step at the end against one at the start (flat
  when a step costs the same wherever it is; the log told again from the first frame at every
  step, as until 2026-12-07, made it grow with the move number), and the whole walk against
  the same walk the old way (every event put in words again at each step, reproduced here),
  and against the screen's drawing at each step (what a key costs anyway).
- **keys**: for each game, a greedy 4-seat game replayed in the real console app (keys through
  a pipe, the screen drawn by prompt_toolkit to a VT100 stream at 80x24, thrown away), one
  ``→`` a frame: a key's CPU, and the share of it that is the console's own drawing
  (``render.screen``, timed inside the same keys); the rest is the step and prompt_toolkit's
  layout and output.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import time
from collections.abc import Callable

from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from sagani_net.bots.local import GameSpec, play_local
from sagani_net.cli.console import render
from sagani_net.cli.console.app import Console, Replay, replay_frames
from sagani_net.cli.console.model import ConsoleModel
from sagani_net.games import get_game

WIDTH, HEIGHT = 80, 23  # the screen above the command line of an 80x24 terminal


def cpu(call: Callable[[], object]) -> float:
    start = time.process_time()
    call()
    return time.process_time() - start


def told_from_start(replay: Replay, model: ConsoleModel, index: int) -> None:
    """The log at frame ``index`` as ``Replay.show`` wrote it until 2026-12-07: every event
    from the first frame on put in words again."""
    model.log = []
    for _, events in replay.frames[1 : index + 1]:
        for event in events:
            model.add_log(model.event_text(event))


def replay_steps(seed: int, players: int) -> None:
    rules = get_game("sugi")
    spec = GameSpec(0, "sugi", rules.parse_config({"players": players}), seed,
                    ("random",) * players)
    record = play_local(spec).record
    frames = replay_frames(record)
    seats = [{"name": f"player {i + 1}"} for i in range(players)]
    model = ConsoleModel(connection="local", seats=seats, game="sugi")
    replay = Replay(frames, record=record)
    last = len(frames) - 1
    walk = [*range(1, last + 1), 0, last]  # → to the end, Home, End
    steps = [cpu(lambda i=i: replay.show(model, i)) for i in walk]  # type: ignore[misc]
    draws = []
    for i in walk:
        replay.show(model, i)
        draws.append(cpu(lambda: render.screen(model, WIDTH, HEIGHT)))
    old_model = ConsoleModel(connection="local", seats=seats, game="sugi")
    old = [cpu(lambda i=i: told_from_start(replay, old_model, i)) for i in walk]  # type: ignore[misc]
    tenth = max(1, last // 10)
    start, end = sum(steps[:tenth]) / tenth, sum(steps[last - tenth : last]) / tenth
    old_start, old_end = sum(old[:tenth]) / tenth, sum(old[last - tenth : last]) / tenth
    print(f"replay of a {players}-player Sugi game, seed {seed}: {last} moves")
    print(f"  a step's log: {start * 1e3:.3f} ms at the start, {end * 1e3:.3f} ms at the end "
          f"(x{end / start:.1f}); told from the start: {old_start * 1e3:.3f} -> "
          f"{old_end * 1e3:.3f} ms (x{old_end / old_start:.1f})")
    print(f"  the whole walk ({len(walk)} steps): logs {sum(steps) * 1e3:.0f} ms, told from the "
          f"start {sum(old) * 1e3:.0f} ms (old/new x{sum(old) / sum(steps):.0f}); the screen "
          f"drawn at each step {sum(draws) * 1e3:.0f} ms (logs/drawing "
          f"{sum(steps) / sum(draws):.2f}, told from the start {sum(old) / sum(draws):.2f})")


class Terminal(io.StringIO):
    """What the console writes to: kept in memory, never shown."""

    def isatty(self) -> bool:
        return True


async def keys_in_console(game: str, seed: int) -> tuple[int, float, float]:
    """(keys, CPU seconds a key, of which the console's own drawing) for a greedy 4-seat game
    of ``game`` stepped through frame by frame in the real app."""
    rules = get_game(game)
    spec = GameSpec(0, game, rules.parse_config({"players": 4}), seed, ("greedy",) * 4)
    record = play_local(spec).record
    model = ConsoleModel(connection="local", game=game,
                         seats=[{"name": f"player {i + 1}"} for i in range(4)])
    replay = Replay(replay_frames(record), record=record)
    drawing = [0.0]
    draw = render.screen

    def timed(*args: object) -> object:
        start = time.process_time()
        try:
            return draw(*args)  # type: ignore[arg-type]
        finally:
            drawing[0] += time.process_time() - start

    output = Vt100_Output(Terminal(), lambda: Size(rows=HEIGHT + 1, columns=WIDTH), term="xterm")
    with create_pipe_input() as keys:
        console = Console(model, None, replay=replay, input=keys, output=output)
        drawn = asyncio.Event()
        console.app.after_render += lambda _: drawn.set()
        task = asyncio.create_task(console.run())
        await drawn.wait()
        render.screen = timed  # type: ignore[assignment]
        try:
            start = time.process_time()
            for index in range(1, len(replay.frames)):
                drawn.clear()
                keys.send_text("n")
                while not (drawn.is_set() and replay.index == index):
                    drawn.clear()
                    await drawn.wait()
            spent = time.process_time() - start
        finally:
            render.screen = draw
        keys.send_text("q")
        await task
    count = len(replay.frames) - 1
    return count, spent / count, drawing[0] / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--players", type=int, default=5)
    args = parser.parse_args()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    replay_steps(args.seed, args.players)
    print(f"keys in the console, {WIDTH}x{HEIGHT + 1}, one → a frame of a greedy 4-seat game:")
    for game in ("sagani", "sagrada", "sugi"):
        count, key, drawing = asyncio.run(keys_in_console(game, args.seed))
        print(f"  {game:8s} {count} keys: {key * 1e3:.2f} ms a key, the console's own drawing "
              f"{drawing * 1e3:.2f} ms of it ({drawing / key:.0%}; the rest: the step, "
              "prompt_toolkit's layout and output)")


if __name__ == "__main__":
    main()
