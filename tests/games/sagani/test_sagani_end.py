"""R1, R4 and R6: thresholds, the end of the game, ranking.

The endgame situations come from game records in ``data/`` beside this file (see its README):
real games, replayed action by action, each chosen because it reaches one rare situation.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest
from rules_kit import load_record, of_type, pile, pile_at, quiet, scores, solo, turn, types

from sagani_net.game import without_seat
from sagani_net.games.sagani.rules import Action, State
from sagani_net.games.sagani.tiles import TILES


@dataclass
class Step:
    """One replayed action: who decided, in what context, what happened, and the aftermath."""

    seat: int
    in_intermezzo: bool
    after: int  # the seat whose regular turn the intermezzo interrupts (or is under way)
    events: list[dict]
    turns: list[int]
    scores: list[int]
    pile: int
    over: bool

    def has(self, kind: str) -> bool:
        return kind in types(self.events)

    @property
    def regular_turn_ended(self) -> bool:
        """A placement or pass that ended a regular turn (not an intermezzo decision)."""
        return not self.in_intermezzo and any(
            e["type"] in ("tile_placed", "player_passed") for e in self.events
        )


def replay_steps(name: str) -> tuple[dict, list[Step]]:
    record = load_record(f"{name}.json")
    state = State.new(record["players"], record["mode"], record["seed"], record["tiles"])
    steps = []
    for data in record["actions"]:
        seat, in_intermezzo, after = (
            state.current_seat,
            state.intermezzo is not None,
            state.turn_seat,
        )
        events = state.apply(Action.from_dict(without_seat(data)))
        steps.append(
            Step(
                seat, in_intermezzo, after, events, [p.turns for p in state.seats],
                [p.score for p in state.seats], state.pile_size(), state.is_over(),
            )
        )
    assert steps[-1].over
    return record, steps


def anywhere(_placement) -> bool:
    return True


def first(steps: list[Step], kind: str) -> int:
    return next(i for i, s in enumerate(steps) if s.has(kind))


def intermezzo_choosers(steps: list[Step]) -> list[int]:
    """The seats that took a storage tile or passed, in order."""
    return [s.seat for s in steps if s.has("tile_taken") or s.has("player_passed")]


def turn_seats(steps: list[Step]) -> list[int]:
    """The seats whose regular turns end in ``steps``, in order."""
    return [s.seat for s in steps if s.regular_turn_ended]


# -- R1 -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "threshold"), [(2, 75), (3, 60), (4, 45)])
def test_end_thresholds_are_75_60_45_for_2_3_4_players(players, threshold):
    state = State.new(players, tiles=pile_at({}))
    assert state.threshold == threshold
    assert state.view()["threshold"] == threshold


@pytest.mark.parametrize("name", ["end_mid_round_3p", "end_mid_round_4p", "end_by_last_seat_2p"])
def test_end_triggered_the_moment_a_player_reaches_the_threshold(name):
    record, steps = replay_steps(name)
    i = first(steps, "end_triggered")
    threshold = {2: 75, 3: 60, 4: 45}[record["players"]]
    assert max(steps[i - 1].scores) < threshold
    assert max(steps[i].scores) >= threshold
    events = steps[i].events
    trigger = events.index(of_type(events, "end_triggered")[0])
    flip = events[trigger - 1]  # right after the flip that reached it
    assert flip["type"] == "tile_flipped"
    assert flip["score"] >= threshold > flip["score"] - flip["points"]
    assert of_type(events, "end_triggered")[0]["seat"] == flip["seat"]


# -- R6: equal turns ------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["end_mid_round_3p", "end_mid_round_4p"])
def test_end_triggered_mid_round_gives_everyone_equal_turns(name):
    record, steps = replay_steps(name)
    players = record["players"]
    i = first(steps, "end_triggered")
    assert steps[i].seat == 0 and not steps[i].over  # the game goes on
    assert turn_seats(steps[i + 1 :]) == list(range(1, players))
    assert steps[-1].has("game_over")
    assert len(set(steps[-1].turns)) == 1


@pytest.mark.parametrize(
    "name", ["end_by_last_seat_2p", "end_by_last_seat_3p", "end_by_last_seat_4p"]
)
def test_end_triggered_by_the_last_seat_ends_the_game_after_its_turn(name):
    record, steps = replay_steps(name)
    i = first(steps, "end_triggered")
    assert steps[i].seat == record["players"] - 1
    assert steps[i].has("game_over")
    assert i == len(steps) - 1
    assert len(set(steps[-1].turns)) == 1


@pytest.mark.parametrize(
    "name",
    [
        "end_in_intermezzo_2p",
        "end_in_intermezzo_3p",
        "end_in_intermezzo_4p",
        "end_in_intermezzo_start_player_next_3p",
    ],
)
def test_end_triggered_in_intermezzo_finishes_it_then_the_round(name):
    # German FAQ: the intermezzo is finished, then the interrupted round.
    record, steps = replay_steps(name)
    players = record["players"]
    i = first(steps, "end_triggered")
    assert steps[i].in_intermezzo and not steps[i].over
    order = of_type([e for s in steps[:i] for e in s.events], "intermezzo_started")[-1]["order"]
    end = first(steps[i:], "intermezzo_ended") + i
    chooser = order.index(steps[i].seat)
    later = order[chooser + 1 :]
    assert later, "the record must trigger the end before the intermezzo's last chooser"
    assert intermezzo_choosers(steps[i + 1 : end + 1]) == later  # everyone after still chooses
    emptier = steps[i].after
    assert turn_seats(steps[end + 1 :]) == list(range(emptier + 1, players))
    assert len(set(steps[-1].turns)) == 1


@pytest.mark.parametrize(
    "name",
    ["end_before_intermezzo_start_player_next_2p", "end_before_intermezzo_start_player_next_3p"],
)
def test_end_triggered_just_before_intermezzo_ends_the_game_with_it_when_start_player_is_next(name):
    # German FAQ: if the start player would be next after the intermezzo, the game ends with it.
    record, steps = replay_steps(name)
    players = record["players"]
    i = first(steps, "end_triggered")
    assert steps[i].has("intermezzo_started") and steps[i].seat == players - 1
    order = of_type(steps[i].events, "intermezzo_started")[0]["order"]
    end = first(steps, "game_over")
    assert steps[end].has("intermezzo_ended") and end == len(steps) - 1
    # the whole intermezzo ran (fewer choosers than four tiles)
    assert intermezzo_choosers(steps[i + 1 :]) == order
    assert not any(s.has("offer_refilled") for s in steps[i:])
    assert len(set(steps[-1].turns)) == 1


@pytest.mark.parametrize(
    "name",
    [
        "end_before_intermezzo_mid_round_2p",
        "end_before_intermezzo_mid_round_3p",
        "end_before_intermezzo_mid_round_4p",
    ],
)
def test_end_triggered_just_before_intermezzo_mid_round_finishes_intermezzo_then_round(name):
    record, steps = replay_steps(name)
    players = record["players"]
    i = first(steps, "end_triggered")
    assert steps[i].has("intermezzo_started") and steps[i].seat < players - 1
    end = first(steps[i:], "intermezzo_ended") + i
    assert not steps[end].over
    assert steps[end].has("offer_refilled")
    assert turn_seats(steps[end + 1 :]) == list(range(steps[i].seat + 1, players))
    assert len(set(steps[-1].turns)) == 1


def test_end_stays_triggered_when_the_score_drops_again():
    # Seat 0 stands at 44 (of 45) with the disc column of test_rules_discs: F2 at the origin
    # waits for fire to its E, seven tiles above hold 21 discs, two are left. It lays F9 at
    # (1, 0): F2 flips (45: the end is triggered), then F9's four discs cost one cacophony disc
    # (43). The table is made from a public view with State.from_view, the public way to seat
    # a player at 44 points without playing a whole game.
    column = (5, 22, 23, 31, 32, 33, 36)
    board = solo((2, (0, 0), 90), *((t, (0, 1 + i), 90) for i, t in enumerate(column)))
    view = State.new(4, tiles=pile(9, 1, 3, 10, 12)).view()
    view["seats"][0] = {**board.view()["seats"][0], "score": 44}
    for seat in view["seats"]:
        seat["turns"] = 8
    laid = {t[2] for t in view["seats"][0]["display"]}
    view["unseen"] = [t for t in view["unseen"] if t not in laid]
    view["pile"] = len(view["unseen"])
    view["top"] = [TILES[view["unseen"][0]].element, TILES[view["unseen"][0]].value]
    state = State.from_view(view, random.Random(0))
    state.apply(Action.take(0))
    events = state.apply(Action.place((1, 0), 0))
    assert [(e["type"], e.get("score")) for e in events if "score" in e] == [
        ("tile_flipped", 45), ("end_triggered", 45), ("cacophony_taken", 43),
    ]
    assert state.view()["end_triggered"] is True
    for seat in (1, 2, 3):
        assert state.current_seat == seat and state.view()["end_triggered"] is True
        turn(state, None, anywhere)
    assert state.is_over()
    assert max(state.scores()) < 45
    assert state.ranking()[0] == 0


# -- R6: the pile runs low ---------------------------------------------------------------


@pytest.mark.parametrize("name", ["last_round_3p", "last_round_4p"])
def test_pile_of_four_or_fewer_after_a_refill_makes_the_round_the_last(name):
    record, steps = replay_steps(name)
    players = record["players"]
    i = first(steps, "last_round")
    events = steps[i].events
    assert types(events).index("last_round") == types(events).index("offer_refilled") + 1
    assert of_type(events, "last_round")[0]["pile"] == steps[i].pile <= 4
    assert all(s.pile > 4 for s in steps[:i] if s.has("offer_refilled"))  # the first such refill
    emptier = steps[i].after
    rest = list(range(emptier + 1, players)) if emptier < players - 1 else list(range(players))
    assert turn_seats(steps[i + 1 :]) == rest
    assert steps[-1].has("game_over")
    assert len(set(steps[-1].turns)) == 1


def test_pile_of_five_after_a_refill_is_not_the_last_round():
    # Refills of five leave 67, 62, ... 7, 2; two draws on the way make it 65, ... 10, 5.
    state = State.new(2, tiles=pile_at({}))
    events = []
    draws = 0
    while state.pile_size() > 5:
        assert not state.is_over()
        draw = draws < 2 and state.can_draw()
        draws += draw
        events += turn(state, "draw" if draw else None, anywhere)
    assert state.pile_size() == 5
    assert types(events)[-1] == "offer_refilled"  # the five are what a refill left
    assert "last_round" not in types(events)
    assert state.view()["last_round"] is False


def test_offer_gets_what_is_left_when_the_pile_cannot_refill_five():
    _, steps = replay_steps("short_refill_3p")
    refills = [e for s in steps for e in of_type(s.events, "offer_refilled")]
    short = [e for e in refills if len(e["tiles"]) < 5]
    assert len(short) == 1 and short[0]["tiles"]
    i = next(j for j, s in enumerate(steps) if short[0] in s.events)
    assert steps[i].pile == 0
    assert any(s.has("last_round") for s in steps[: i + 1])


# -- R4 and the result --------------------------------------------------------------------


def test_ranking_at_start_puts_start_player_ahead_then_turn_order():
    assert State.new(4, tiles=pile_at({})).ranking() == [0, 1, 2, 3]


def three_player_scores(wants: dict[int, int]) -> State:
    """Three players, seven quiet turns but those in ``wants`` (turn -> points to score).
    Seat 2 holds F3 from turn 2, seat 0 E21 from turn 0; F2 comes on turn 5, E19 on turn 6."""
    state = State.new(3, tiles=pile_at({0: 21, 2: 3, 5: 2, 6: 19}))
    for n in range(7):
        turn(state, None, scores(wants[n]) if n in wants else quiet)
    return state


def test_ranking_puts_more_points_first():
    state = three_player_scores({6: 1})  # seat 0 scores 1 on turn 6
    assert state.scores() == [1, 0, 0]
    assert state.ranking()[0] == 0


def test_ranking_ties_put_the_marker_that_landed_first_ahead():
    # Seat 2 reaches 1 on turn 5, seat 0 on turn 6: seat 2's marker is under seat 0's.
    state = three_player_scores({5: 1, 6: 1})
    assert state.scores() == [1, 0, 1]
    assert state.ranking() == [2, 0, 1]
    assert state.view()["ranking"] == [2, 0, 1]


@pytest.mark.parametrize(
    "name", ["end_mid_round_4p", "end_in_intermezzo_3p", "end_by_last_seat_2p"]
)
def test_game_over_reports_scores_and_the_full_ranking(name):
    record, steps = replay_steps(name)
    over = of_type(steps[-1].events, "game_over")[0]
    assert over["scores"] == steps[-1].scores
    assert sorted(over["ranking"]) == list(range(record["players"]))
    ranked = [over["scores"][seat] for seat in over["ranking"]]
    assert ranked == sorted(ranked, reverse=True)
    assert over["ranking"][0] == max(range(record["players"]), key=lambda s: over["scores"][s])
