"""Sugi in the console: the real prompt_toolkit app on pipe input against a real host on
127.0.0.1 with a greedy bot, the screen against golden files, and the ``sagani`` command."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from cli_kit import Terminal, sagani
from console_kit import GAME_TIMEOUT_S, check_golden, in_console
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from test_net_support import until_async
from test_sugi_support import position

from sagani_net.bots import make_policy
from sagani_net.cli.console.app import Console
from sagani_net.cli.console.model import FINAL, GAME, ConsoleModel
from sagani_net.cli.console.render import help_pages, screen_text
from sagani_net.games.sugi.about import EDITIONS
from sagani_net.games.sugi.edition import COLOURS
from sagani_net.games.sugi.rules import COMPONENTS, Action, State, parse_space
from sagani_net.games.sugi.ui import card_fragments, card_text, walk
from sagani_net.gameui import CommandError, line_text
from sagani_net.host import Host

#: A 2-player deal where seat 0 (you) plans first, holding 14 free, 26 ghost, 43 remove and
#: 46 ghost.
SEED = 9
HAND = [14, 26, 43, 46]
NAMES = ("ann", "greedy")


def test_the_deal_is_the_one_the_tests_expect() -> None:
    state = State.new(2, SEED)
    assert state.current_seat == 0 and state.hands[0] == HAND


def first_move(host: Host, table: str) -> tuple[int, Action]:
    return host.tables[table].state.history[0]


def run(body, host: Host, timeout_s: float = GAME_TIMEOUT_S):  # type: ignore[no-untyped-def]
    """Run ``body(model, running, table)`` in the console of seat 0 against the bot."""

    async def with_table(model, running):  # type: ignore[no-untyped-def]
        await body(model, running, running.console.client.state.table)

    in_console(host, with_table, game="sugi", seed=SEED, timeout_s=timeout_s)


def test_a_card_goes_to_the_timeline_by_keys_turned_as_chosen(host: Host) -> None:
    async def body(model, running, table):  # type: ignore[no-untyped-def]
        running.keys.send_text("1")
        await until_async(lambda: model.ui.choice is not None)
        running.keys.send_text("r")  # a quarter turn clockwise
        await until_async(lambda: model.ui.choice.turn == 90)
        assert model.ui.note().startswith("timeline 14 rot 90: ")
        running.keys.send_text("\r")
        await until_async(lambda: any(
            line.startswith("ann puts a card face down in the timeline at t1")
            for line in model.log))
        assert first_move(host, table) == (0, Action.timeline(14, 90))
        assert model.ui.choice is None

    run(body, host)


def test_a_card_is_discarded_for_its_action_by_keys(host: Host) -> None:
    """2 a Enter: card 26 sends the ghost from the Temple to the first space it may reach."""
    async def body(model, running, table):  # type: ignore[no-untyped-def]
        running.keys.send_text("2a")
        await until_async(lambda: model.ui.choice is not None and model.ui.choice.mode == "ghost")
        target = model.ui.choice.space
        assert model.ui.note() == str(Action("ghost", 26, space=target))
        running.keys.send_text("\r")
        await until_async(lambda: "ann discards card 26 to ghost" in model.log)
        assert first_move(host, table) == (0, Action("ghost", 26, space=target))

    run(body, host)


def test_typed_commands_play_and_complete(host: Host) -> None:
    async def body(model, running, table):  # type: ignore[no-untyped-def]
        assert model.ui.complete("action 14 ") == ["free"]
        assert model.ui.complete("action 14 free ") == ["26", "43", "46"]
        assert model.ui.complete("t") == ["timeline"]
        running.keys.send_text(":action 14 free 46 t1 rot 270\r")
        await until_async(lambda: "ann discards card 14 to free" in model.log)
        assert first_move(host, table) == (0, Action("free", 14, 46, slot=0, turn=270))
        # Seat 0's own face-down card is shown to it, as it acts (turned 270).
        await until_async(lambda: model.private is not None and 46 not in model.private["hand"])
        if model.private["timeline"][:1] == [[0, 46, 270]]:  # unless the bot moved it already
            assert f" {card_text(46, 270)} " in screen_text(model, 80, 24)

    run(body, host)


def test_a_refused_command_sends_nothing_and_says_why(host: Host) -> None:
    async def body(model, running, table):  # type: ignore[no-untyped-def]
        running.keys.send_text(":action 14 ghost b2\r")  # card 14 shows free
        await until_async(lambda: "not sent" in model.message)
        assert "card 14 shows free, not ghost" in model.message
        running.keys.send_text(":timeline 99\r")  # not in the hand
        await until_async(lambda: "card 99 is not in your hand" in model.message)
        running.keys.send_text(":frobnicate\r")
        await until_async(lambda: "cannot read" in model.message)
        assert host.tables[table].state.version == 0 and model.my_turn
        running.keys.send_text("3a")  # remove, with nothing in the timeline to remove
        await until_async(lambda: "nothing to remove" in model.message)
        assert model.ui.choice is not None and model.ui.choice.mode == "card"

    run(body, host)


def test_the_card_drawn_after_a_free_action_is_logged_in_plain_words(host: Host) -> None:
    """The log said "ann draws 1 card(s)"."""
    async def body(model, running, table):  # type: ignore[no-untyped-def]
        running.keys.send_text(":action 14 free 46 t1 rot 0\r")
        await until_async(lambda: any(line.startswith("ann draws") for line in model.log))
        assert "ann draws 1 card" in model.log

    run(body, host)


def test_a_refused_slot_is_said_as_typed_not_as_the_wire_counts(host: Host) -> None:
    """A free card aimed past the timeline's end: the refusal names t1, as typed, without the
    wire's "slot 0 to 0" beside it."""
    async def body(model, running, table):  # type: ignore[no-untyped-def]
        running.keys.send_text(":action 14 free 46 t3 rot 0\r")  # the timeline is empty
        await until_async(lambda: "not sent" in model.message)
        assert model.message == "not sent: a free card goes in slot t1 to t1"

    run(body, host)


def test_maintenance_discards_the_marked_cards_by_keys(host: Host) -> None:
    """Cards to the timeline until the round is resolved, then 1 Enter discards the first."""
    async def body(model, running, table):  # type: ignore[no-untyped-def]
        while not (model.my_turn and model.ui.phase == "maintenance" and model.ui.hand):
            await until_async(lambda: model.my_turn and model.private is not None)
            # A key pressed while your last move is on its way is not for the new view: wait.
            await until_async(lambda: not running.console._sending)
            if model.ui.phase == "plan":
                version = model.view["version"]
                running.keys.send_text("1\r")
                await until_async(lambda v=version: model.view["version"] > v)
        await until_async(lambda: not running.console._sending)
        first = model.ui.hand[0]
        # The resolution step by step (its events follow the reply that showed the new view),
        # unless the client fell silent and resynced: then the log says moves were made while
        # the connection was down.

        def told(start: str | tuple[str, ...]) -> bool:
            return any(line.startswith(start) or "while the connection was down" in line
                       for line in model.log)

        await until_async(lambda: told("t1: card ") and told("maintenance"))
        assert told(("yellow", "red", "purple", "black", "blue"))
        running.keys.send_text("1")
        await until_async(lambda: first in model.ui.marked)
        assert model.ui.note() == f"discard {first}, then draw up to 4"
        running.keys.send_text("\r")
        await until_async(lambda: f"ann discards {first}" in model.log)

    run(body, host, 60)


# -- the screen ----------------------------------------------------------------------------------


def model_after(moves: int, seed: int = 3, players: int = 3) -> tuple[ConsoleModel, State]:
    """A console model for the seat to move after ``moves`` greedy moves of a fixed game."""
    state = State.new(players, seed)
    policy, rng = make_policy("greedy", game="sugi"), random.Random(seed)
    for _ in range(moves):
        if state.is_over():
            break
        state.apply(policy.choose(state, rng))
    seat = state.current_seat if state.current_seat is not None else 0
    model = ConsoleModel(game="sugi")
    model.load({"table": "5ad1", "you": seat, "status": "running", "turn": seat,
                "seats": [{"name": n} for n in ("ann", "bob", "cy")[:players]],
                "view": state.view(seat), "private": state.private(seat)})
    model.connection = "online"
    return model, state


def model_when(ready, seed: int = 3, players: int = 3) -> tuple[ConsoleModel, State]:  # type: ignore[no-untyped-def]
    """:func:`model_after` the fewest greedy moves after which ``ready(state)`` holds."""
    for moves in range(400):
        model, state = model_after(moves, seed, players)
        if not state.is_over() and ready(state):
            return model, state
    raise AssertionError("no such position in the first 400 greedy moves")


def press(model: ConsoleModel, keys: str) -> None:
    """Keys as the app would run them: the first binding of the key that acts now."""
    for key in keys:
        name = {"\r": "enter"}.get(key, key)
        binding = next(k for k in model.ui.key_bindings() if name in k.keys and k.when())
        assert binding.run() == []


def test_golden_planning_turn_80x24() -> None:
    model, state = model_after(14)
    assert state.phase == "plan" and state.timeline
    press(model, "3")
    text = screen_text(model, 80, 24)
    check_golden("sugi-plan-80x24.txt", text)
    assert all(len(line) <= 80 for line in text.splitlines()) and len(text.splitlines()) == 24


def test_golden_final_80x24() -> None:
    model, state = model_after(400)
    assert state.is_over()
    model.load({"view": state.view(model.you), "status": "over"})
    assert model.page == FINAL
    check_golden("sugi-final-80x24.txt", screen_text(model, 80, 24))


def test_the_screen_shows_what_the_seat_knows_and_no_more() -> None:
    model, state = model_after(14)
    text = screen_text(model, 80, 24)
    you = model.you
    for card in state.hands[you]:
        assert f"{card:>2}  {card_text(card)}" in text
    own = {slot for slot, _, _ in state.private(you)["timeline"]}
    others = len(state.timeline) - len(own)
    assert text.count("░░░░   ") >= others  # others' cards are backs
    # A spectator sees no hand, and no card of the timeline.
    model.load({"you": None, "view": state.view(None), "private": None})
    model.you, model.private = None, None
    watched = screen_text(model, 80, 24)
    assert "watching: hands and family trees are secret" in watched
    assert "Family tree" not in watched


def test_a_spectator_is_not_told_the_family_trees_are_secret_once_the_game_is_over() -> None:
    """At the end the result names every family tree (the final screen shows them): the
    boards, looked at after it (Tab, or a replay's last move), say where they are instead."""
    model, state = model_after(400)
    assert state.is_over()
    model.load({"you": None, "view": state.view(None), "private": None, "status": "over"})
    model.you, model.private = None, None
    model.page = GAME
    text = screen_text(model, 80, 24)
    assert "secret" not in text
    assert "game over: f shows every family tree" in text


def test_private_data_behind_the_view_keeps_the_console_playing() -> None:
    """Your private data comes in its own round trip: while it disagrees with the view (here
    a card it still places at the deck's bottom lies in the discards), the screen draws and
    moves are checked on what still holds (your hand and family tree); data that does not fit
    at all holds a move back with a sentence."""
    model, state = model_after(14)
    you = model.you
    other = (you + 1) % 3
    fresh = state.private(you)
    # Another's remove shifted your card out of a slot the timeline no longer has.
    gone = [len(state.timeline), state.hands[other][0], 0]
    model.load({"private": {**fresh, "timeline": [*fresh["timeline"], gone]}})
    local = model.ui.state()
    assert local is not None and local.hands[you] == state.hands[you]
    assert "Your hand" in screen_text(model, 80, 24)
    card = fresh["hand"][0]
    assert model.ui.command(f"timeline {card}") == [{"type": "timeline", "card": card,
                                                     "rotation": 0}]
    model.load({"private": {**fresh, "hand": [*fresh["hand"], state.deck[-1]]}})  # one too many
    assert model.ui.state() is None
    assert "Your hand" in screen_text(model, 80, 24)
    with pytest.raises(CommandError, match="on its way"):
        model.ui.command(f"timeline {card}")


def test_the_preview_walks_the_card_as_the_rules_would() -> None:
    """The preview of a card equals its resolution on the real state where it reveals
    nothing (every tile it enters is face up)."""
    checked = 0
    for seed in range(30):
        model, state = model_after(20, seed=seed, players=2)
        if state.phase != "plan":
            continue
        for card in state.hands[state.current_seat]:
            for rotation in (0, 90, 180, 270):
                steps = walk(model.ui.state(), card, rotation)
                if any(s.why == "?" for s in steps):
                    continue
                real = state.clone()
                real.timeline, real.limit = [], 1  # this card alone is resolved at once
                real.apply(Action.timeline(card, rotation))
                if real.is_over():
                    continue
                for step in steps:
                    colour = COLOURS.index(step.colour)
                    last = [s for s in steps if s.colour == step.colour][-1]
                    assert last.end == real.samurai[colour], (seed, card, rotation)
                    checked += 1
    assert checked > 50


def keys_play(model: ConsoleModel, keys: list[str]) -> list[dict]:
    """Keys (prompt_toolkit names) as the app runs them; what the last one sends."""
    sent: list[dict] = []
    for name in keys:
        binding = next(k for k in model.ui.key_bindings() if name in k.keys and k.when())
        sent = binding.run()
    return sent


#: For each action icon, the keys that aim it after ``a`` (then Enter plays it).
AIMING = {"rotate": ["t", "r"], "free": ["left", "r"], "ghost": ["down"], "remove": ["left"]}


def test_every_action_can_be_played_by_keys() -> None:
    """A card of each icon, discarded for its action by keys, sends a legal action of that
    kind; the rotation aims at the timeline (t), the others at their default targets moved."""
    seen = set()
    for seed in range(40):
        model, state = model_after(3, seed=seed, players=2)
        if state.phase != "plan" or not state.timeline:
            continue
        hand = state.hands[state.current_seat]
        for n, card in enumerate(hand):
            icon = COMPONENTS.icon[card]
            model.ui.cancel()
            model.ui.cancel()
            sent = keys_play(model, [str(n + 1), "a", *AIMING[icon], "enter"])
            if icon == "ghost" and not state.ghost_targets():
                continue
            (data,) = sent
            action = state.parse_action(data)
            assert action.type == icon and action.card == card
            assert action in state.legal_actions(), action
            if icon == "rotate":
                assert action.slot >= 0 and action.turn == 180  # the timeline, turned 180
            seen.add(icon)
        if len(seen) == 4:
            break
    assert seen == {"rotate", "free", "ghost", "remove"}


def test_help_pages_fit_80_by_24() -> None:
    """Every help page, the keys page made from the bindings included, whole at 80x24."""
    model, _ = model_after(3)
    with create_pipe_input() as keys:
        Console(model, None, input=keys, output=DummyOutput())  # binds the keys
    for edition in EDITIONS:
        model.view["edition"] = edition
        for page in help_pages(model):
            assert len(page) <= 24 - 6 and all(len(line) <= 80 for line in page), page


def test_the_short_rules_tell_the_temples_call_of_the_tables_edition() -> None:
    """The call and the summons move samurai that no card moved: the rules page of a table
    that plays them says so, and one of edition 1 says nothing of them."""
    model, _ = model_after(3)
    said = {}
    for edition in EDITIONS:
        model.view["edition"] = edition
        said[edition] = " ".join(line.strip() for line in model.ui.help_pages()[-1])
    assert "stepping north" not in said[1]
    assert "with two samurai home" in said[2] and "round 20" not in said[2]
    assert "from round 20" in said[3] and "round 30" not in said[3]
    assert "from round 30 every samurai not home steps north" in said[4]


def test_the_short_rules_tell_the_round_cap_where_a_game_can_reach_it() -> None:
    """S14: a game of editions 1-3 still running after round 60 ends there; the short rules
    did not say so, and such a game just stopped. Edition 4's summons ends every game first."""
    model, _ = model_after(3)
    for edition in EDITIONS:
        model.view["edition"] = edition
        said = " ".join(line.strip() for line in model.ui.help_pages()[-1])
        assert ("Round 60 ends a game" in said) == (edition < 4), edition


# -- the sagani command --------------------------------------------------------------------------

def test_sagani_play_autoplay_then_export_and_replay(tmp_path: Path) -> None:
    done = sagani("play", "--game", "sugi", "--players", "5", "--autoplay", "greedy",
                  "--seed", "4", "--new", "--data-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert ": over" in done.stdout
    assert len([line for line in done.stdout.splitlines() if "points" in line]) == 5
    table = done.stdout.split("table ")[1].split(":")[0]
    exported = sagani("record", "export", "--data-dir", str(tmp_path), table)
    assert exported.returncode == 0, exported.stderr
    record = json.loads(exported.stdout)
    assert record["game"] == "sugi" and record["config"] == {"players": 5, "edition": 4}
    path = tmp_path / "exported.json"
    path.write_text(exported.stdout)
    shown = sagani("replay", str(path), "--print")
    assert shown.returncode == 0, shown.stderr
    assert "Game over" in shown.stdout and "Pedestals" in shown.stdout


def test_sagani_play_sugi_in_a_terminal(tmp_path: Path) -> None:
    term = Terminal("play", "--game", "sugi", "--seed", str(SEED), "--new", "--name", "ann",
                    "--data-dir", str(tmp_path))
    term.wait_for("YOUR TURN (plan)")
    term.wait_for("Family tree")
    term.send("1")
    term.wait_for("r turn  Enter timeline")
    term.send("\r")
    term.wait_for("ann puts a card face down")
    term.send("q")
    assert term.close() == 0


def test_a_name_ending_in_a_number_is_not_read_as_its_hand_size() -> None:
    """Bots named "greedy" and "greedy 2": the players line keeps each name apart from the
    cards in hand, and the help says what the brackets hold."""
    model, state = model_when(lambda s: s.phase == "plan" and any(
        slot is not None and slot[2] == 2 for slot in s.timeline))  # a card of "greedy 2"
    model.load({"table": "5ad1", "you": model.you, "status": "running", "turn": model.you,
                "seats": [{"name": n} for n in ("ann", "greedy", "greedy 2")],
                "view": state.view(model.you), "private": state.private(model.you)})
    text = screen_text(model, 80, 24)
    hands = state.view(0)["hands"]
    assert f"greedy ({hands[1]})" in text and f"greedy 2 ({hands[2]})" in text
    owners = [model.name(seat, 6) for seat in state.view(0)["timeline"]]
    assert "gree 2" in owners  # under the timeline, cut but told apart from "greedy"
    assert any(" gree 2 " in f"{line} " for line in text.splitlines())  # a column of its own
    assert any("(3): cards in hand" in line for page in model.ui.help_pages() for line in page)


def test_the_maintenance_hint_is_whole_at_80_columns_marked_or_not() -> None:
    """When the seat to move discards and draws, its key hint fits 80 columns before a card
    is marked and after (with the undo key)."""
    model, state = model_when(
        lambda s: s.phase == "maintenance" and s.private(s.current_seat)["hand"])
    assert state.phase == "maintenance" and model.ui.hand
    for marked in (False, True):
        if marked:
            press(model, "1")
        hint = screen_text(model, 80, 24).splitlines()[-2]
        assert hint.rstrip().endswith("q quit") and ("u/Esc undo" in hint) == marked


def test_a_shared_win_ranks_every_winner_first() -> None:
    """S15: equal on points and on when each scoring samurai arrived, players share the win
    (family cards 0 and 1 both count yellow 7 and red 5): the final screen ranks both first,
    as its last line says they both win."""
    state = position(families=[0, 1], samurai={"yellow": None, "red": None, "blue": None})
    state._finish([])
    assert state.outcome.winners == (0, 1)
    model = ConsoleModel(game="sugi")
    model.load({"table": "5ad1", "you": 1, "status": "over", "turn": None,
                "seats": [{"name": n} for n in NAMES], "view": state.view(1),
                "private": state.private(1)})
    assert model.page == FINAL
    rows = screen_text(model, 80, 24).splitlines()
    assert [row.split()[:3] for row in rows if row.split()[1:2] in (["ann"], ["greedy"])] == [
        ["1", "ann", "12"], ["1", "greedy", "12"]]
    assert any(row.strip() == "ann and you win." for row in rows)


def test_the_boards_after_the_end_say_that_f_brings_the_final_screen_back() -> None:
    """Tab on the final screen shows the boards; their hint names f, not the play keys."""
    model, state = model_after(400)
    model.load({"view": state.view(model.you), "status": "over"})
    assert model.page == FINAL
    model.page = "game"  # Tab from the final screen: the boards
    hint = screen_text(model, 80, 24).splitlines()[-2]
    assert hint.startswith("f the final screen  Tab boards") and len(hint.rstrip()) <= 80


def test_a_remove_aimed_at_your_own_card_says_your_card() -> None:
    """The seat to move holds a remove card first in hand and a card of its own lies in the
    timeline: aimed there, the line says "your card", not "cy's card"."""

    def own_slot(s: State) -> int | None:
        seat = s.current_seat
        return next((n for n, slot in enumerate(s.timeline)
                     if slot is not None and slot[2] == seat), None)

    model, state = model_when(lambda s: s.phase == "plan" and own_slot(s) is not None
                              and COMPONENTS.icon[min(s.private(s.current_seat)["hand"])]
                              == "remove")
    mine = own_slot(state)
    assert mine is not None
    press(model, "1a")  # the remove card, discarded for its action
    assert model.ui.choice is not None and model.ui.choice.mode == "remove"
    while model.ui.choice.slot != mine:
        name = "right" if model.ui.choice.slot < mine else "left"
        key = next(k for k in model.ui.key_bindings() if name in k.keys and k.when())
        assert key.run() == []
    assert model.ui.note().endswith(f"remove t{mine + 1} (your card) to the bottom of the deck")


def test_the_last_resolution_wraps_whole_at_80x24() -> None:
    """While the timeline fills again, the last resolution's line names every card it
    turned, wrapped at the panel's edge rather than cut."""
    state = State.new(3, 12)
    policy, rng = make_policy("greedy", game="sugi"), random.Random(12)
    model = ConsoleModel(game="sugi")
    model.load({"table": "t", "you": 0, "status": "running", "turn": state.current_seat,
                "seats": [{"name": n} for n in ("root", "greedy", "greedy 2")],
                "view": state.view(0), "private": state.private(0)})
    model.connection = "online"
    seen = 0
    while not state.is_over() and seen < 3:
        events = state.apply(policy.choose(state, rng))
        model.receive({"turn": state.current_seat, "view": state.view(0),
                       "private": state.private(0), "events": events})
        text = screen_text(model, 80, 24)
        if state.timeline and len(model.ui.resolved) >= 5 and "Last resolved" in text:
            seen += 1
            block = text[text.index("Last resolved"):]
            for slot, card, rotation, _ in model.ui.resolved:
                face = line_text(card_fragments(card, rotation))
                assert f"t{slot + 1} {face}" in block, (slot, text)
    assert seen


def test_a_push_the_rules_forbid_names_the_ways_that_are_allowed() -> None:
    """The ghost goes west c2 -> b2 and red must go aside, N or S: the right arrow said
    'cannot push E: N S', two letters to puzzle out; it says which ways are allowed."""
    from test_sugi_support import card

    red_ghost, blue = card("red N", action="ghost"), card("blue N", action="free")
    state = position(hands=[[red_ghost, blue], [blue + 1]], ghost="c2", samurai={"red": "b2"})
    state.apply(Action.parse(f"action {red_ghost} ghost b2"))
    model = ConsoleModel(connection="online", game="sugi")
    model.load({"table": "t1", "you": 0, "status": "running",
                "seats": [{"name": "ann"}, {"name": "bob"}],
                "view": state.view(0), "private": state.private(0)})
    assert "arrows push" in screen_text(model, 80, 24)
    right = next(k for k in model.ui.key_bindings() if k.keys == ("right",))
    assert right.run() == []
    assert model.message == "cannot push E: only N or S are allowed"
    down = next(k for k in model.ui.key_bindings() if k.keys == ("down",))
    assert down.run() == [{"type": "push", "direction": "S"}]


def test_a_ghost_aimed_past_samurai_says_it_pushes_each_on_its_way() -> None:
    """The ghost on b4 aimed at b1 passes red on b3 and blue on b2 (SUGI.md G6): the line
    named only the samurai on b1 (none), as if it stopped at the first it met."""
    from test_sugi_support import card

    red_ghost, blue = card("red N", action="ghost"), card("blue N", action="free")
    tiles = {**OPEN, "c3": "NSW", "c2": "NSW"}
    state = position(hands=[[red_ghost, blue], [blue + 1]], ghost="b4", tiles=tiles,
                     samurai={"red": "b3", "blue": "b2"})
    assert ghost_note(state, "b1") == f"action {red_ghost} ghost b1: pushes red, blue"


#: Lane b's forest open on every side, real tiles as the console's sample of the view has
#: them (the stand-ins of position() are open only in the state it makes).
OPEN = {space: "NESW" for space in ("b4", "b3", "b2", "b1")}


def ghost_note(state: State, target: str) -> str:
    """The line under the board while the hand's ghost card is aimed at ``target``."""
    model = ConsoleModel(connection="online", game="sugi")
    model.load({"table": "t1", "you": 0, "status": "running",
                "seats": [{"name": "ann"}, {"name": "bob"}],
                "view": state.view(0), "private": state.private(0)})
    press(model, "1a")
    assert model.ui.choice is not None and model.ui.choice.mode == "ghost"
    model.ui.choice.space = parse_space(target)
    return model.ui.note()


def test_a_ghost_aimed_past_a_samurai_it_cannot_push_says_where_it_stops() -> None:
    """b1 is open N and S only: blue there cannot go aside, so the ghost sent from b4 to b0
    pushes red on b3, steps back to b2 and stops (S12). The line said 'pushes red, blue,
    yellow, purple, black', naming three on b0 it never reaches."""
    from test_sugi_support import card

    red_ghost, blue = card("red N", action="ghost"), card("blue N", action="free")
    tiles = {**OPEN, "b1": "NS", "c3": "NSW"}
    state = position(hands=[[red_ghost, blue], [blue + 1]], ghost="b4", tiles=tiles,
                     samurai={"red": "b3", "blue": "b1"})
    assert ghost_note(state, "b0") == (f"action {red_ghost} ghost b0: pushes red; blue cannot "
                                       "be pushed: the ghost ends on b2")
    state.apply(Action.parse(f"action {red_ghost} ghost b0"))
    state.apply(Action.parse("push E"))
    assert state.view(0)["ghost"] == [2, 1]


def test_a_ghost_aimed_through_a_face_down_tile_marks_whom_it_may_not_reach() -> None:
    """b2 lies face down: it may stop the ghost before blue on b1, as a card's preview marks a
    step a face-down tile decides (?)."""
    from test_sugi_support import card

    red_ghost, blue = card("red N", action="ghost"), card("blue N", action="free")
    tiles = {**OPEN, "c3": "NSW", "c1": "NSW"}
    state = position(hands=[[red_ghost, blue], [blue + 1]], ghost="b4", tiles=tiles,
                     hidden=("b2",), samurai={"red": "b3", "blue": "b1"})
    assert ghost_note(state, "b1") == f"action {red_ghost} ghost b1: pushes red, blue?"
