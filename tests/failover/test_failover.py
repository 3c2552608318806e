"""kill -9 the active host in the middle of a 4-player game played by bot processes (issue 14):
the standby takes over without anyone's help, the killed host comes back as the standby, and a
second kill moves the game back to it. Real processes and sockets on 127.0.0.1."""

from __future__ import annotations

import random
from pathlib import Path

from failover_kit import Pair, play_with_kills

HEARTBEAT_S = 0.2
#: Games are short with random bots; a kill that finds the game over waits for the next game.
MAX_GAMES = 4


def test_play_goes_on_through_two_kills_and_nothing_accepted_is_lost(tmp_path: Path) -> None:
    pair = Pair.start(tmp_path, HEARTBEAT_S)
    rng = random.Random(14)
    a, b = pair.active, pair.standby
    # Each names the other as its players reach it (the link beside it), not by its link alone.
    named_a = f"127.0.0.1:{a.ports[0]} (link tcp://127.0.0.1:{a.ports[2]})"
    assert b.following == named_a
    try:
        for game_no in range(MAX_GAMES):
            if len(pair.takeovers_s) >= 2:
                break
            game = play_with_kills(pair, 2 - len(pair.takeovers_s), rng, seed=game_no)
            record = game["record"]
            # Every move a bot was told was accepted is in the record, once.
            assert game["moves"] == len(record["actions"])
            # The record is the game an uninterrupted replay of its seed and actions plays.
            assert game["replayed"].to_record()["actions"] == record["actions"]
            assert game["replayed"].result().to_data() == record["result"]
        assert len(pair.takeovers_s) == 2
        # The first kill moved the game to B; the second one back to A, which had come back
        # as B's standby by itself.
        assert pair.killed[:2] == ["A", "B"]
        took_over = f"the active host tcp://{named_a} is gone and clients came"
        assert took_over in (tmp_path / "B.log").read_text()
        pair.wait_in_sync()  # and the host killed last follows the other again
    finally:
        pair.stop()


def test_a_secure_pair_fails_over_with_the_join_code_players_hold(tmp_path: Path) -> None:
    """The standby got the key pair from the standby code: the clients' join code, with the
    host's public key in it, is good for it too."""
    pair = Pair.start(tmp_path, HEARTBEAT_S, secure=True)
    rng = random.Random(15)
    try:
        for game_no in range(MAX_GAMES):
            game = play_with_kills(pair, 1, rng, seed=game_no)
            assert game["moves"] == len(game["record"]["actions"])
            if pair.takeovers_s:
                break
        assert pair.killed == ["A"] and len(pair.takeovers_s) == 1
        keys = [(tmp_path / name / "curve.key").read_text() for name in ("a", "b")]
        assert keys[0] == keys[1]
        pair.wait_in_sync()
    finally:
        pair.stop()


def test_a_standby_started_again_plainly_follows_its_active_host_again(tmp_path: Path) -> None:
    """Its data dir holds a copy beside a live active host: it must not serve that copy."""
    pair = Pair.start(tmp_path, HEARTBEAT_S)
    try:
        pair.standby.stop()
        pair.standby.start()  # no --standby: it asks the host it followed, noted in its data dir
        assert pair.standby.code == ""  # it did not start as an active host (which prints one)
        pair.wait_in_sync()
    finally:
        pair.stop()
