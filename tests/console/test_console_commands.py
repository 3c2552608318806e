"""Typed commands, the console model (ghost, preview, changes) and LAN discovery's parsing."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from sagani_net import discovery
from sagani_net.bots import make_policy
from sagani_net.cli.args import UsageError
from sagani_net.cli.console.app import Replay
from sagani_net.cli.console.model import ConsoleModel
from sagani_net.cli.console.render import screen_text
from sagani_net.cli.play_cmd import hold_lock, plan, replay_frames
from sagani_net.client import host_address
from sagani_net.games.sagani.rules import Action, State
from sagani_net.games.sagani.ui import CommandError, complete, parse, preview_text
from sagani_net.games.sagani.words import event_text
from sagani_net.gameui import GameUI

# -- commands -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "choice", "cell", "rotation"),
    [
        ("take 2 at 1,-1 rot 90", "take 1", (1, -1), 90),
        ("take 2", "take 1", None, None),
        ("draw at 0,1 rot 0", "draw", (0, 1), 0),
        ("pick 1 at 2,0", "pick 0", (2, 0), 0),
        ("reveal at 0,0 270", "reveal", (0, 0), 270),
        ("pass", "pass", None, None),
    ],
)
def test_play_commands_read_choice_and_placement(
    text: str, choice: str, cell: tuple[int, int] | None, rotation: int | None
) -> None:
    command = parse(text)
    assert command.kind == "play"
    assert str(command.choice) == choice
    assert (command.cell, command.rotation) == (cell, rotation)


def test_place_reads_cell_and_rotation() -> None:
    assert parse("place 1,-1 90")[2:4] == ((1, -1), 90)
    assert parse("at -2,3 rot 180")[2:4] == ((-2, 3), 180)


@pytest.mark.parametrize(
    "text", ["", "take", "take x", "take 0", "place", "place 1 90", "take 1 at 1,1 rot 45", "fly"]
)
def test_bad_commands_say_what_was_expected(text: str) -> None:
    with pytest.raises(CommandError):
        parse(text)


def test_completion_offers_what_is_open_now() -> None:
    choices = [Action.take(0), Action.take(1), Action("draw")]
    assert complete("ta", choices) == ["take"]
    assert complete("take ", choices) == ["1", "2"]
    assert complete("take 1 ", choices) == ["at"]
    assert complete("take 1 at ", choices, [(0, 1), (-1, 0)]) == ["0,1", "-1,0"]
    assert complete("take 1 at 0,1 ", choices) == ["rot"]
    assert complete("take 1 at 0,1 rot ", choices) == ["0", "90", "180", "270"]
    assert "pick" not in complete("", choices)


# -- the model ------------------------------------------------------------------------------------


def model_at(moves: int, seed: int = 3) -> tuple[ConsoleModel, State]:
    state = State.new(2, seed=seed)
    policy, rng = make_policy("greedy"), random.Random(1)
    for _ in range(moves):
        state.apply(policy.choose(state, rng))
    return model_of(state), state


def model_of(state: State) -> ConsoleModel:
    model = ConsoleModel(connection="online")
    seat = state.current_seat
    model.load({"table": "t", "you": seat, "status": "running", "view": state.view(seat),
                "seats": [{"name": "ann"}, {"name": "bo"}]})
    return model


def test_take_starts_a_ghost_and_sends_nothing_until_confirmed() -> None:
    model, state = model_at(32)
    assert model.ui.select(Action.take(0)) == []
    assert model.ui.selection is not None and model.ui.selection.tile == state.offer[0]
    assert model.ui.preview is not None
    actions = model.ui.confirm()
    assert [a.type for a in actions] == ["take", "place"]
    state.apply(actions[0])
    state.apply(actions[1])  # what the console sends is legal


def test_ghost_moves_only_over_legal_cells_and_rotates() -> None:
    model, _ = model_at(32)
    model.ui.select(Action.take(0))
    legal = set(model.ui.legal_cells())
    for dx, dy in ((1, 0), (0, 1), (-1, 0), (0, -1), (1, 0)):
        model.ui.move(dx, dy)
        assert model.ui.selection is not None and model.ui.selection.cell in legal
    model.ui.rotate()
    model.ui.rotate()
    assert model.ui.selection is not None and model.ui.selection.rotation == 180
    assert model.ui.preview is not None and model.ui.preview["rotation"] == 180


def test_escape_drops_an_unsent_choice() -> None:
    model, _ = model_at(32)
    model.ui.select(Action.take(0))
    model.ui.cancel()
    assert model.ui.selection is None and model.ui.confirm() == []


def test_draw_is_sent_at_once() -> None:
    _, state = model_at(0)
    policy, rng = make_policy("greedy"), random.Random(0)
    while not (state.phase == "choose" and state.can_draw()):
        state.apply(policy.choose(state, rng))
    model = model_of(state)
    assert model.ui.select(Action("draw")) == [Action("draw")]
    assert model.ui.selection is None


def test_a_move_not_open_now_is_refused_with_a_message() -> None:
    model, _ = model_at(32)
    assert model.ui.select(Action.pick(0)) == []
    assert model.message == "pick 1: storage tiles are picked only in an intermezzo"


def test_changes_since_your_last_turn_are_marked() -> None:
    model, state = model_at(32)
    you = model.you
    assert you is not None
    model.remember()
    policy, rng = make_policy("greedy"), random.Random(2)
    state.apply(policy.choose(state, rng))
    state.apply(policy.choose(state, rng))  # you played
    assert state.current_seat != you
    other = state.current_seat
    state.apply(policy.choose(state, rng))
    state.apply(policy.choose(state, rng))  # the other seat played
    model.receive({"status": "running", "view": state.view(you), "events": []})
    assert other in model.ui.changed


def test_events_read_as_words() -> None:
    model, _ = model_at(0)
    text = event_text({"type": "tile_placed", "seat": 1, "tile": 8, "cell": [1, -1],
                       "rotation": 90}, model.names())
    assert text == "bo placed fire 10 at 1,-1 rot 90"


# -- play, join, replay ---------------------------------------------------------------------------


class Args:
    def __init__(self, **kw: object) -> None:
        # As the parser leaves what is not asked for.
        defaults = dict(game="sagani", solo=False, solo_advanced=False, players=None, seat=1,
                        open=[], bots=None, seed=None, autoplay=None)
        self.__dict__.update(defaults | kw)


def test_play_seats_bots_in_the_free_seats() -> None:
    p = plan(Args(players=4, seat=2, bots=["greedy", "mcts", "random"]))
    assert p.you == 1 and p.bots == {0: "greedy", 2: "mcts", 3: "random"}
    p = plan(Args(players=3, open=[3]))
    assert p.bots == {1: "greedy"} and p.open == [2]
    assert plan(Args(solo=True)).config == {"players": 1, "mode": "solo"}


def test_play_refuses_clashing_options() -> None:
    with pytest.raises(UsageError):
        plan(Args(players=5))
    with pytest.raises(UsageError):
        plan(Args(players=3, bots=["greedy", "greedy", "greedy"]))


@pytest.mark.parametrize(("given", "said"), [
    (dict(solo=True, players=2), "--solo is one player, not --players 2"),
    (dict(solo_advanced=True, players=3), "--solo-advanced is one player, not --players 3"),
    (dict(solo=True, bots=["mcts"]), "--bots: this table has no seat for a bot (a solo game "
                                     "is you alone)"),
    (dict(game="sagrada", players=1, bots=["greedy"]),
     "--bots: this table has no seat for a bot (a solo game is you alone)"),
    (dict(players=2, open=[2], bots=["mcts"]), "--bots: this table has no seat for a bot"),
])
def test_play_refuses_options_a_solo_game_would_drop(given: dict, said: str) -> None:
    """A solo game with --players 2 or --bots mcts played alone, saying nothing of either."""
    with pytest.raises(UsageError) as refused:
        plan(Args(**given))
    assert str(refused.value) == said
    assert plan(Args(solo=True, players=1)).bots == {}


@pytest.mark.parametrize(("game", "flag", "said"), [
    ("sugi", "solo", "Sugi has no solo game: 2-5 play"),
    ("sugi", "solo_advanced", "Sugi has no solo game: 2-5 play"),
    ("sagrada", "solo_advanced", "Sagrada has one solo game: --solo (or --players 1)"),
])
def test_play_says_which_solo_games_a_game_has(game: str, flag: str, said: str) -> None:
    with pytest.raises(UsageError) as refused:
        plan(Args(game=game, **{flag: True}))
    assert str(refused.value) == said


def test_addresses_become_endpoints() -> None:
    assert host_address(None) == "tcp://127.0.0.1:47410"
    assert host_address("192.0.2.2:5000") == "tcp://192.0.2.2:5000"
    assert host_address("tcp://h:1") == "tcp://h:1"


def test_replay_frames_step_through_every_action() -> None:
    state = State.new(2, seed=1)
    policy, rng = make_policy("greedy"), random.Random(1)
    while not state.is_over():
        state.apply(policy.choose(state, rng))
    record = state.to_record()
    frames = replay_frames(record)
    assert len(frames) == len(record["actions"]) + 1
    assert frames[-1][0]["phase"] == "over"


def greedy_replay(seed: int) -> tuple[Replay, ConsoleModel]:
    """A finished 2-player Sagani game between greedy bots, to step through, and its model."""
    state = State.new(2, seed=seed)
    policy, rng = make_policy("greedy"), random.Random(seed)
    while not state.is_over():
        state.apply(policy.choose(state, rng))
    model = ConsoleModel(connection="local", seats=[{"name": "ann"}, {"name": "bo"}])
    return Replay(replay_frames(state.to_record())), model


def told_afresh(replay: Replay, model: ConsoleModel, index: int) -> list[str]:
    """The log at frame ``index`` told from the first frame, as a console that had just
    joined would write it."""
    fresh = ConsoleModel(connection="local", seats=model.seats)
    for _, events in replay.frames[1 : index + 1]:
        for event in events:
            fresh.add_log(fresh.event_text(event))
    return fresh.log


def test_stepping_through_a_replay_tells_each_event_once() -> None:
    """Each step shows the log up to its frame; every frame's events are put in words once,
    however the replay is stepped (a replay that told them all again at every step took 15 ms
    a step at the end of a long game)."""
    replay, model = greedy_replay(3)
    told = []
    text = model.event_text
    model.event_text = lambda event: told.append(event) or text(event)  # type: ignore[method-assign]
    last = len(replay.frames) - 1
    for index in [*range(last + 1), 0, last, 5, last - 1]:
        replay.show(model, index)
        assert model.log == told_afresh(replay, model, index)
    assert len(told) == sum(len(events) for _, events in replay.frames)


def test_a_replay_log_follows_a_change_of_names() -> None:
    """The log's lines kept between steps are worded with the names they were told with: once
    the names change, the log is told again with the new ones."""
    replay, model = greedy_replay(4)
    last = len(replay.frames) - 1
    replay.show(model, last)
    assert any("ann" in line for line in model.log)
    model.seats = [{"name": "cy"}, {"name": "bo"}]
    replay.show(model, last - 1)
    assert not any("ann" in line for line in model.log)
    assert model.log == told_afresh(replay, model, last - 1)


# -- discovery, parsing only (tests/cli/test_host_lan.py finds a real advert) ---------------------


def test_advertisement_properties_are_read_safely() -> None:
    found = discovery.found_from_properties("x", "192.0.2.2", 5000, {b"pub_port": b"nope"})
    assert found.pub_port == 5001 and found.endpoint == "tcp://192.0.2.2:5000"


def test_advertising_a_host_bound_to_loopback_is_refused() -> None:
    with pytest.raises(RuntimeError, match="--bind 0.0.0.0"):
        discovery.advertise(47410, 47411, bind="127.0.0.1")


def test_a_message_about_a_move_goes_once_the_position_moves_on() -> None:
    """A refusal or a "not sent" speaks of the position it was said at: the next version on
    screen drops it; news of the connection stays."""
    model, state = model_at(32)
    you = model.you
    model.say("not sent: P0 cannot go at 1,1")
    model.receive({"status": "running", "view": state.view(you), "events": []})
    assert model.message.startswith("not sent")  # the same position: still true
    policy, rng = make_policy("greedy"), random.Random(2)
    state.apply(policy.choose(state, rng))
    model.receive({"status": "running", "view": state.view(you), "events": []})
    assert model.message == ""
    model.say("host moved to 127.0.0.1:5000", lasting=True)
    state.apply(policy.choose(state, rng))
    model.receive({"status": "running", "view": state.view(you), "events": []})
    assert model.message == "host moved to 127.0.0.1:5000"


def test_a_cacophony_in_the_preview_says_why() -> None:
    preview = {"cell": [0, 1], "rotation": 0, "covers": [], "covered": [],
               "open": ["N", "E", "S"], "flips": [], "points": 0, "discs_freed": 0,
               "cacophony": 2, "supply": 1}
    assert "CACOPHONY x2 (-4: 3 arrows need discs, you have 1)" in preview_text(preview)


def test_a_second_play_on_one_data_dir_is_refused_naming_the_first(tmp_path: Path) -> None:
    with hold_lock(tmp_path), pytest.raises(UsageError, match=r"sagani play \(pid \d+\) already"):
        hold_lock(tmp_path)
    with hold_lock(tmp_path):  # released with the first
        pass


def test_a_bare_game_ui_draws_a_readable_screen() -> None:
    """What a new game gets before it draws anything: the shell around GameUI's defaults."""
    state = State.new(2, seed=1)
    model = ConsoleModel(connection="online")
    model.ui = GameUI(model.ui.game, model)
    model.load({"table": "t", "you": 0, "status": "running", "view": state.view(0),
                "seats": [{"name": "ann"}, {"name": "bo"}]})
    text = screen_text(model, 80, 24)
    assert "YOUR TURN" in text and "offer:" in text
    assert model.ui.command("take 2") == [{"type": "take", "index": 2}]  # Game.parse_text
    with pytest.raises(CommandError):
        model.ui.command("fly")


def test_moves_missed_while_the_connection_was_down_are_logged_once_from_the_history() -> None:
    model, state = model_at(0)
    view = state.view(model.you)
    model.catch_up([], 0, away=False)
    model.receive({"type": "update", "version": 1, "view": view, "events": [{"type": "x"}]})
    model.receive({"view": view, "events": []})  # our own act: its update is still to come
    moves = [{"version": v, "seat": 0, "events": [{"type": f"m{v}"}]} for v in range(1, 6)]
    model.catch_up(moves, 4, away=True)  # move 1 is logged, move 5 comes as an update
    assert model.log == ["type=x", "(while you were away)", "type=m2", "type=m3", "type=m4"]
    model.catch_up(moves, 4, away=True)  # a second resync at the same version adds nothing
    assert model.log[-1] == "type=m4" and model.logged_version == 4


def test_a_host_behind_the_log_says_the_moves_past_it_were_undone() -> None:
    """A standby that took over behind what players saw (its active host went on alone after
    the link between them was cut): the log kept the undone moves as if played, and skipped
    the moves made again from the earlier version, its count being past them."""
    model, _ = model_at(0)
    moves = [{"version": v, "seat": 0, "events": [{"type": f"m{v}"}]} for v in range(1, 7)]
    model.catch_up(moves, 6, away=False)
    model.catch_up(None, 4, away=True)  # the host that answers now has the game at 4
    assert model.log[-1] == ("the host has the game as it was 2 moves ago: the last 2 moves "
                             "in this log were undone, and play goes on from before them")
    assert model.logged_version == 4
    again = [{"version": 5, "seat": 0, "events": [{"type": "again5"}]}]
    model.catch_up(again, 5, away=True)  # the move made again at version 5 is told
    assert model.log[-1] == "type=again5"


def test_without_a_history_the_log_counts_the_missed_moves() -> None:
    """An older host has no history request: the log says how many moves it misses."""
    model, _ = model_at(0)
    model.catch_up(None, 0, away=False)
    model.catch_up(None, 3, away=True)
    assert model.log == ["3 moves made while the connection was down: the board shows them"]


def test_a_history_shorter_than_the_game_says_what_is_left_out() -> None:
    model, _ = model_at(0)
    model.catch_up([{"version": 9, "seat": 1, "events": [{"type": "x"}]}], 9, away=False)
    assert model.log == ["(8 moves before these are not in the log)", "type=x"]


def test_a_game_without_a_ui_yet_gets_the_bare_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sagani_net import games

    package = tmp_path / "plain"  # a game package with rules only, no ui.py yet
    package.mkdir()
    (package / "__init__.py").write_text("from sagani_net.games.sagani import GAME\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(games.PACKAGES, "plain", "plain")
    model = ConsoleModel()
    model.set_game("plain")
    assert type(model.ui) is GameUI
