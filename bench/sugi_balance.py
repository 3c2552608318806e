"""Sugi's balance by bot self-play (issue 13 point 3): game length, wins by seat and by family
tree card, greedy against random. (The engine's speed: ``python bench/engine.py --game sugi``.)

Run: ``python bench/sugi_balance.py --players 4 --games 1000`` (equal greedy bots), or
``--versus random`` for greedy in seat 0 (then in seat 1) against random bots. The greedy bot
plays honestly: at each decision it rebuilds a state from its own view and private data
(``GAME.determinize``), so it never sees a hidden card or tile; it then takes the legal action
whose resulting state :func:`sagani_net.games.sugi.bots.evaluate` likes best.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import Counter

from sagani_net.games.sugi.bots import distinct_actions, evaluate
from sagani_net.games.sugi.rules import ROUND_CAP, SUGI, Action, State


def greedy(state: State, rng: random.Random) -> Action:
    """The one-ply greedy on a determinized copy of what the seat to move knows."""
    seat = state.current_seat
    assert seat is not None
    known = SUGI.determinize(state.view(seat), state.private(seat), seat, rng)
    best, best_value = None, float("-inf")
    for action in distinct_actions(known):
        after = known.clone()
        after.push(action)
        value = evaluate(after, seat) + rng.random() * 1e-6  # ties broken at random
        if value > best_value:
            best, best_value = action, value
    assert best is not None
    return best


def random_bot(state: State, rng: random.Random) -> Action:
    return state.random_action(rng)


BOTS = {"greedy": greedy, "random": random_bot}


def play(players: int, seed: int, bots: list, rng: random.Random) -> State:
    state = State.new(players, seed)
    while not state.is_over():
        state.push(bots[state.seat](state, rng))
    return state


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4, 5))
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--bot", default="greedy", choices=sorted(BOTS))
    parser.add_argument(
        "--versus",
        default=None,
        choices=sorted(BOTS),
        help="the others play this bot; seat 0 plays --bot (seat 1 in odd games)",
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rounds, seat_wins, family_wins, family_games = [], Counter(), Counter(), Counter()
    hero_wins = capped = 0
    started = time.process_time()
    for g in range(args.games):
        bots = [BOTS[args.bot]] * args.players
        hero = g % 2
        if args.versus:
            bots = [BOTS[args.versus]] * args.players
            bots[hero] = BOTS[args.bot]
        state = play(args.players, args.seed * 1_000_003 + g, bots, rng)
        outcome = state.outcome
        assert outcome is not None
        rounds.append(outcome.rounds)
        capped += len(outcome.pedestals) < 3
        share = 1 / len(outcome.winners)  # a shared win counts shared
        for s in outcome.winners:
            seat_wins[s] += share
            family_wins[outcome.families[s]] += share
        for f in outcome.families:
            family_games[f] += 1
        hero_wins += share if hero in outcome.winners else 0
    n = args.games
    print(
        f"{n} games, {args.players} players, {args.bot}"
        + (f" vs {args.versus}" if args.versus else "")
        + f", {time.process_time() - started:.0f} s CPU"
    )
    print(
        f"rounds: mean {statistics.mean(rounds):.2f}, min {min(rounds)}, max {max(rounds)}; "
        f"stopped by the round cap ({ROUND_CAP}): {capped}"
    )
    if args.versus:
        print(f"{args.bot} wins {hero_wins / n:.1%} against {args.versus}")
        return
    fair = 1 / args.players
    print(
        "seat win share / fair: "
        + ", ".join(f"{s + 1}: {seat_wins[s] / n / fair:.2f}" for s in range(args.players))
    )
    # A family card's fair share: of the games it was dealt in, 1/players.
    ratios = {f: family_wins[f] / family_games[f] / fair for f in sorted(family_games)}
    print("family card win share / fair: " + ", ".join(f"{f}: {r:.2f}" for f, r in ratios.items()))
    print(
        f"worst: seat {max(seat_wins[s] / n / fair for s in range(args.players)):.2f}, "
        f"family card {max(ratios.values()):.2f}"
    )


if __name__ == "__main__":
    main()
