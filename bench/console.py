"""What the console's own work costs per key, against what it has to do: stepping through a
replay, and drawing the screen.

Run: ``python bench/console.py [--seed N] [--players 5]``. One process, no terminal: the
console's model and its drawing (``render.screen`` at 80x24), as the app calls them; CPU time
of this process (``time.process_time``), ratios taken within the run.

- **replay**: a long game (random Sugi, ``--players`` seats: some 200-500 moves) stepped through
  from its first frame to its last, as ``→`` does, then ``End`` and ``Home``. Each step shows
  the log up to its frame. Printed: the mean step at the end against one at the start (flat
  when a step costs the same wherever it is; the log told again from the first frame at every
  step, as until 2026-12-07, made it grow with the move number), and the whole walk against
  the same walk the old way (every event put in words again at each step, reproduced here),
  and against the screen's drawing at each step (what a key costs anyway).
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

from sagani_net.bots.local import GameSpec, play_local
from sagani_net.cli.console import render
from sagani_net.cli.console.app import Replay, replay_frames
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--players", type=int, default=5)
    args = parser.parse_args()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    replay_steps(args.seed, args.players)


if __name__ == "__main__":
    main()
