"""The engine against a second, slow reading of the rules (SAGRADA.md, then RULES.md's rulings
where the page is silent), written here from the pages and not from ``rules.py``: at every
decision of many random and greedy games the engine offers exactly what this reading allows,
``apply`` takes exactly what is offered, a refusal names a rule that the action breaks, and the
game keeps the page's invariants (90 dice, windows that obey rules 3 and 4, the snake, one die
and one tool a turn, the costs of tools, the final score and ranking, what each seat sees).

Half the games give every seat 40 favour tokens once the patterns are chosen, so that the
tools (whose use is otherwise rare) are used often; those games are not replayed.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable

import pytest

from sagani_net.bots import make_policy
from sagani_net.game import RuleError
from sagani_net.games.sagrada.rules import SAGRADA, Action, State, replay

COLOURS = "RYGBP"
#: SAGRADA.md, Tool cards: the colour that pays in the solo game; the drafted-die tools.
TOOL_COLOUR = {1: "P", 2: "B", 3: "R", 4: "Y", 5: "G", 6: "P", 7: "B", 8: "R", 9: "Y",
               10: "G", 11: "P", 12: "B"}
ON_DRAFTED = {1, 5, 6, 9, 10, 11}
POINTS = {1: 6, 2: 5, 3: 5, 4: 4, 5: 2, 6: 2, 7: 2, 8: 5, 9: 4, 10: 1}
RICH = 40


# -- the page's reading, slowly ---------------------------------------------------------------


def colour(die: int) -> int:
    return (die - 1) // 6


def value(die: int) -> int:
    return (die - 1) % 6 + 1


def around(cell: int, diagonal: bool) -> list[int]:
    r, c = divmod(cell, 5)
    steps = [(-1, 0), (1, 0), (0, -1), (0, 1)]
    if diagonal:
        steps += [(-1, -1), (-1, 1), (1, -1), (1, 1)]
    return [(r + dr) * 5 + c + dc for dr, dc in steps if 0 <= r + dr < 4 and 0 <= c + dc < 5]


def broken(window: list[int], cells: tuple[str, ...], die: int, cell: int, *,
           loose: bool = False, any_colour: bool = False, any_value: bool = False) -> set[str]:
    """The placement rules ``die`` at ``cell`` breaks, by their refusal codes (none: legal)."""
    codes = set()
    if window[cell]:
        codes.add("cell_taken")
    next_to = any(window[j] for j in around(cell, True))
    r, c = divmod(cell, 5)
    if loose and next_to:
        codes.add("not_alone")
    if not loose and not any(window) and not (r in (0, 3) or c in (0, 4)):
        codes.add("not_edge")
    if not loose and any(window) and not next_to:
        codes.add("not_adjacent")
    want = cells[cell]
    if want in COLOURS and want and not any_colour and COLOURS.index(want) != colour(die):
        codes.add("wrong_colour")
    if want.isdigit() and not any_value and int(want) != value(die):
        codes.add("wrong_value")
    for j in around(cell, False):
        if window[j] and colour(window[j]) == colour(die):
            codes.add("same_colour")
        if window[j] and value(window[j]) == value(die):
            codes.add("same_value")
    return codes


def cells(state: State) -> tuple[str, ...]:
    return state.patterns[state.chosen[state.seat]].cells


def places(state: State, die: int, loose: bool = False) -> list[int]:
    window = state.windows[state.seat]
    return [i for i in range(20) if not broken(window, cells(state), die, i, loose=loose)]


def moves(state: State, tool: int, window: list[int] | None = None, skip: int = -1,
          only: int = -1) -> list[tuple[int, int]]:
    """Tools 2, 3, 4, 12: each die lifted, then placed by the rules the tool keeps."""
    window = list(state.windows[state.seat]) if window is None else window
    on_track = {colour(d) for dice in state.track for d in dice}
    found = []
    for a, die in enumerate(window):
        if not die or a == skip or tool == 12 and (
                colour(die) != only if only >= 0 else colour(die) not in on_track):
            continue
        lifted = [0 if i == a else d for i, d in enumerate(window)]
        found += [(a, b) for b in range(20) if b != a and not broken(
            lifted, cells(state), die, b, any_colour=tool == 2, any_value=tool == 3)]
    return found


def lathekin_firsts(state: State) -> list[tuple[int, int]]:
    found = []
    for a, b in moves(state, 4):
        window = list(state.windows[state.seat])
        window[a], window[b] = 0, window[a]
        if moves(state, 4, window, skip=b):
            found.append((a, b))
    return found


def payments(state: State, slot: int, pool: list[int]) -> list[int]:
    """Favour tokens (-1), 1 then 2; solo: any pool die of the tool's colour, once a game."""
    if not state.solo:
        return [-1] if state.tokens[state.seat] >= (2 if state.uses[slot] else 1) else []
    wanted = COLOURS.index(TOOL_COLOUR[state.tools[slot]])
    return [] if state.uses[slot] else [i for i, d in enumerate(pool) if colour(d) == wanted]


def fits(state: State, die: int) -> bool:
    return bool(places(state, die))


def carried_through(state: State, tool: int, die: int) -> bool:
    """RULES.md: a drafted-die tool only when the die it leaves fits (Flux Brush and Flux
    Remover excepted: they may return it)."""
    if tool == 1:
        return any(fits(state, colour(die) * 6 + v) for v in (value(die) - 1, value(die) + 1)
                   if 1 <= v <= 6)
    if tool == 5:
        return any(fits(state, d) for dice in state.track for d in dice)
    if tool == 9:
        return bool(places(state, die, loose=True))
    if tool == 10:
        return fits(state, colour(die) * 6 + 7 - value(die))
    return True


def drafted_die_tools(state: State, die: int, pool: list[int]) -> set[Action]:
    if state.tool_done:
        return set()
    return {Action.tool(tool, pay) for slot, tool in enumerate(state.tools)
            if tool in ON_DRAFTED and carried_through(state, tool, die)
            for pay in payments(state, slot, pool)}


def turn_tools(state: State) -> set[Action]:
    if state.tool_done:
        return set()
    first = state.turn < state.players
    found = set()
    for slot, tool in enumerate(state.tools):
        pays = payments(state, slot, state.pool)
        if tool in ON_DRAFTED or tool in (2, 3, 12) and not moves(state, tool) or (
                tool == 4 and not lathekin_firsts(state)):
            continue
        if tool == 7:  # the second turn, before drafting; solo: a die left to re-roll
            pays = [] if first or state.drafted else [p for p in pays if len(state.pool) > 1
                                                      or p < 0]
        if tool == 8:  # the first turn, after drafting, with another die that fits
            pays = [] if not first or not state.drafted else [
                p for p in pays if any(fits(state, d) for i, d in enumerate(state.pool)
                                       if i != p)]
        found |= {Action.tool(tool, pay) for pay in pays}
    return found


def drafts(state: State) -> set[Action]:
    return {Action.draft(i, c) for i, d in enumerate(state.pool) for c in places(state, d)}


def allowed(state: State) -> set[Action]:
    """Every decision the pages allow the seat to move now."""
    if state.phase != "play":
        return {Action.choose(i) for i in range(4)} if state.phase == "choose" else set()
    step, held, tool = state.step, state.held, state.step_tool
    if step is None:
        found = turn_tools(state) | {Action("pass")}
        if not state.drafted:
            found |= drafts(state)
            found |= {Action.draft(i) for i, d in enumerate(state.pool)
                      if drafted_die_tools(state, d, state.pool[:i] + state.pool[i + 1:])}
        return found
    if step == "held":
        return {Action.place(c) for c in places(state, held)} | drafted_die_tools(
            state, held, state.pool)
    if step == "place":
        return {Action.place(c) for c in places(state, held, loose=tool == 9)} | (
            {Action("return")} if tool == 11 else set())
    if step == "value":
        faces = (value(held) - 1, value(held) + 1) if tool == 1 else range(1, 7)
        return {Action("value", number=v) for v in faces
                if 1 <= v <= 6 and (tool == 11 or fits(state, colour(held) * 6 + v))}
    if step == "swap":
        return {Action("swap", i, number=r) for r, dice in enumerate(state.track)
                for i, d in enumerate(dice) if fits(state, d)}
    if step == "move":
        pairs = lathekin_firsts(state) if tool == 4 and state.moves_left == 2 else moves(
            state, tool, skip=state.moved, only=state.move_colour)
        return {Action.move(a, b) for a, b in pairs} | (
            {Action("stop")} if tool == 12 and state.moved >= 0 else set())
    assert step == "draft_again"
    return drafts(state)


def tried(state: State) -> list[Action]:
    """Every action worth trying now, legal or not."""
    dice = range(-1, len(state.pool) + 1)
    found = [Action("pass"), Action("stop"), Action("return"),
             *(Action.choose(i) for i in range(-1, 5)),
             *(Action.draft(i, c) for i in dice for c in range(-1, 20)),
             *(Action.place(c) for c in range(20)),
             *(Action.tool(t, p) for t in range(14) for p in dice),
             *(Action.move(a, b) for a in range(20) for b in range(20)),
             *(Action("value", number=v) for v in range(8)),
             *(Action("swap", i, number=r) for r in range(10)
               for i in range(len(state.track[r]) + 1))]
    return found


# -- what a game keeps ------------------------------------------------------------------------


def objective(number: int, window: list[int]) -> int:
    if number <= 4:
        lines = [range(r * 5, r * 5 + 5) for r in range(4)] if number in (1, 3) else [
            range(c, 20, 5) for c in range(5)]
        of = colour if number in (1, 2) else value
        return sum(all(window[i] for i in line) and len({of(window[i]) for i in line}) ==
                   len(line) for line in lines)
    values = Counter(value(d) for d in window if d)
    if number in (5, 6, 7):
        return min(values[2 * number - 9], values[2 * number - 8])
    if number == 8:
        return min(values[v] for v in range(1, 7))
    if number == 9:
        colours = Counter(colour(d) for d in window if d)
        return min(colours[c] for c in range(5))
    return sum(1 for i, d in enumerate(window) if d and any(
        window[j] and colour(window[j]) == colour(d) for j in set(around(i, True)) -
        set(around(i, False))))


class Game:
    """One game watched: what each action changed, checked against the page."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.paid: Counter[int] = Counter()  # solo: dice that paid for a tool left the game
        self.lifted: list[set[int]] = [set() for _ in range(state.players)]  # tools 2, 3
        self.used: set[int] = set()
        self.turns: list[tuple[int, int, int]] = []  # (round, position in the snake, seat)
        self.this_turn: Counter[str] = Counter()

    def play(self, action: Action) -> None:
        state = self.state
        turn = (state.round, state.turn, state.seat)
        if state.phase == "play" and (not self.turns or self.turns[-1] != turn):
            self.turns.append(turn)
            self.this_turn = Counter()
        tool = state.step_tool
        events = state.apply(action)
        for event in events:
            self.saw(event, state.step_tool or tool)
        self.check()

    def saw(self, event: dict, tool: int) -> None:
        kind, turn = event["type"], self.this_turn
        if kind == "tool_used":
            turn["tools"] += 1
            if "paid" in event:
                assert event["paid"][0] == TOOL_COLOUR[event["tool"]]
                self.paid[COLOURS.index(event["paid"][0])] += 1
            else:
                assert event["tokens"] == (2 if event["tool"] in self.used else 1)
            self.used.add(event["tool"])
        turn["dice"] += kind == "die_placed"
        turn["pliers"] += kind == "second_turn_skipped"
        assert turn["tools"] <= 1 and turn["dice"] <= 1 + turn["pliers"], turn
        if kind in ("die_placed", "die_moved"):
            to = event["cell" if kind == "die_placed" else "to"]
            lifted = self.lifted[event["seat"]]
            if kind == "die_moved":
                lifted.discard(event["from"][0] * 5 + event["from"][1])
            cell = to[0] * 5 + to[1]
            (lifted.add if kind == "die_moved" and tool in (2, 3) else lifted.discard)(cell)

    def check(self) -> None:
        state = self.state
        if state.phase == "choose":
            return
        seen = Counter(colour(d) for d in [*state.pool, *(d for dice in state.track
                                                          for d in dice),
                                           *(d for w in state.windows for d in w if d),
                                           *([state.held] if state.held else [])])
        assert all(seen[c] + state.bag[c] + self.paid[c] == 18 for c in range(5)), seen
        for seat, window in enumerate(state.windows):
            wants = state.patterns[state.chosen[seat]].cells
            for i, die in enumerate(window):
                if die:
                    rest = [0 if j == i else d for j, d in enumerate(window)]
                    codes = broken(rest, wants, die, i) - {"not_adjacent", "not_edge"}
                    if i in self.lifted[seat]:  # Eglomise Brush, Copper Foil Burnisher
                        codes -= {"wrong_colour", "wrong_value"}
                    assert not codes, (seat, i, codes, window)
        assert min(state.tokens) >= 0 and (not state.solo or state.tokens == [0])

    def check_end(self) -> None:
        state, result = self.state, self.state.outcome
        assert result is not None
        players = state.players
        for r in range(10):  # the snake, with only second turns ever skipped (tool 8)
            start = r % players
            snake = [(start + i) % players for i in range(players)]
            snake += snake[::-1]
            taken = [(pos, seat) for rnd, pos, seat in self.turns if rnd == r]
            assert all(snake[pos] == seat for pos, seat in taken)
            assert {pos for pos, _ in taken} >= set(range(players))
        last_first = {seat: pos for rnd, pos, seat in self.turns if rnd == 9 and pos < players}
        keys = []
        for seat in range(players):
            window = state.windows[seat]
            public = [POINTS[n] * objective(n, window) for n in state.objectives]
            private = max(sum(value(d) for d in window if d and colour(d) == c)
                          for c in state.privates[seat])
            total = sum(public) + private + state.tokens[seat] - (
                3 if state.solo else 1) * window.count(0)
            sheet = result.figures["sheets"][seat]
            assert (sheet["objectives"], sheet["private"], sheet["total"]) == (
                public, private, total)
            keys.append((-total, -private, -state.tokens[seat], -last_first[seat]))
        assert list(result.scores) == [-k[0] for k in keys]
        if state.solo:
            target = sum(value(d) for dice in state.track for d in dice)
            assert (result.figures["target"], result.figures["won"]) == (
                target, result.scores[0] > target)
        else:
            assert list(result.ranking) == sorted(range(players), key=keys.__getitem__)


def secrets_kept(state: State) -> None:
    """A seat's view holds no private objective, no seed and, before all have chosen, no
    pattern; its private data is its own."""
    for seat in range(state.players):
        view = state.view(seat)
        if state.phase != "over":
            assert "privates" not in view and "seed" not in view
        if state.phase == "choose":
            assert all(s["pattern"] is None for s in view["seats"])
        assert state.private(seat)["objectives"] == [COLOURS[c] for c in state.privates[seat]]
        assert {k: v for k, v in view.items() if k != "you"} == state.view()


def new_game(players: int, seed: int) -> Game:
    rng = random.Random(seed * 10 + players)
    config = {"players": players} | ({"difficulty": 1 + seed % 5} if players == 1 else {})
    state = SAGRADA.new_state(SAGRADA.parse_config(config), seed)
    state.tools = tuple(rng.sample(range(1, 13), len(state.tools)))  # every tool, in time
    state.uses = [0] * len(state.tools)
    return Game(state)


def played(players: int, seed: int, choose: Callable[[State, list[Action], random.Random],
                                                     Action], rich: bool, every: int = 0) -> None:
    """A game to its end, ``choose`` deciding; the page's list compared at every decision, and
    at every ``every``-th one all actions tried."""
    game, rng = new_game(players, seed), random.Random(seed)
    state = game.state
    decisions = 0
    while not state.is_over():
        if rich and state.phase == "play" and not state.solo and state.version == state.players:
            state.tokens = [RICH] * state.players
        legal = state.legal_actions()
        assert len(set(legal)) == len(legal)
        assert set(legal) == allowed(state), (
            state.version, state.step, sorted(map(str, set(legal) ^ allowed(state))))
        if every and decisions % every == 0:
            offered_is_taken(state, set(legal))
        game.play(choose(state, legal, rng))
        if decisions % 16 == 0:
            secrets_kept(state)
        decisions += 1
    game.check_end()
    secrets_kept(state)
    if not rich:
        again, _ = replay(json.loads(json.dumps(state.to_record())))
        assert again.outcome is not None and state.outcome is not None
        assert again.outcome.to_data() == state.outcome.to_data()


def offered_is_taken(state: State, offered: set[Action]) -> None:
    """``apply`` takes every action offered and refuses every other, naming a rule it breaks
    (placements) or a reason that holds (tools)."""
    for action in tried(state):
        try:
            state._check(action)
        except RuleError as e:
            assert action not in offered, action
            if state.phase == "play":
                why_true(state, action, e.code)
            continue
        assert action in offered, action
        state.clone().apply(action)


def why_true(state: State, action: Action, code: str) -> None:
    """A refusal's code is one of the reasons the pages give for it."""
    kind, step, seat = action.kind, state.step, state.seat
    window = state.windows[seat]
    if kind == "draft" and step is None and not state.drafted and 0 <= action.die < len(
            state.pool) and action.cell >= 0:
        assert code in broken(window, cells(state), state.pool[action.die], action.cell), code
    if kind == "place" and step in ("held", "place"):
        loose = step == "place" and state.step_tool == 9
        assert code in broken(window, cells(state), state.held, action.cell, loose=loose), code
    if kind == "tool" and step in (None, "held") and action.number in state.tools:
        slot = state.tools.index(action.number)
        first = state.turn < state.players
        if code == "tool_used":
            assert state.tool_done
        if code == "cannot_pay":
            assert not payments(state, slot, state.pool)
        if code == "bad_payment":
            assert action.die >= 0 if not state.solo else action.die not in payments(
                state, slot, state.pool)
        if code == "wrong_timing":
            assert (action.number in ON_DRAFTED) != (step == "held") or (
                action.number == 7 and (first or state.drafted)) or (
                action.number == 8 and (not first or not state.drafted)), action


def at_random(state: State, legal: list[Action], rng: random.Random) -> Action:
    """Uniform, but a tool, or a die drafted for one, two times in three when there is one."""
    tools = [a for a in legal if a.kind == "tool" or a.kind == "draft" and a.cell < 0]
    return rng.choice(tools if tools and rng.random() < 0.66 else legal)


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_random_games_offer_what_the_page_allows_and_keep_its_invariants(players: int) -> None:
    for seed in range(8):
        played(players, seed, at_random, seed % 2 == 1)


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_apply_takes_what_is_offered_and_refusals_name_a_rule_broken(players: int) -> None:
    for seed in range(100, 102):
        played(players, seed, at_random, True, every=3)


@pytest.mark.parametrize("players", [1, 2, 4])
def test_greedy_games_offer_what_the_page_allows(players: int) -> None:
    greedy = make_policy("greedy", game="sagrada")
    for seed in range(200, 203):
        played(players, seed, lambda state, legal, rng: greedy.choose(state, rng), seed % 2 == 1)
