"""Every game's own random mover (``random_action``, which counts the legal actions rather than
listing them) picks what ``legal_actions()`` lists at the drawn index: the same action as the
seam's plain mover, so seeded games and their records do not depend on which one played."""

from __future__ import annotations

import random

import pytest

from sagani_net.games import configs, game_names, get_game


class Draws:
    """A generator that hands out the draws of a real one and remembers them."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.drawn: list[float] = []

    def random(self) -> float:
        self.drawn.append(self.rng.random())
        return self.drawn[-1]


@pytest.mark.parametrize("name", game_names())
def test_random_action_is_the_listed_action_at_the_drawn_index(name):
    game = get_game(name)
    checked = 0
    for config in configs(name):
        for seed in range(3):
            state = game.new_state(config, seed)
            draws = Draws(seed)
            while not state.is_over():
                draws.drawn.clear()
                action = state.random_action(draws)
                legal = state.legal_actions()
                if name == "sugi" and state.phase == "maintenance":
                    # A coin per card in hand picks the discards (each subset is one action).
                    assert action in legal
                elif not draws.drawn:  # nothing to choose (a Sagani solo turn's reveal)
                    assert legal == [action]
                else:  # one draw picks among all of them
                    assert len(draws.drawn) == 1
                    assert action == legal[int(draws.drawn[0] * len(legal))]
                    checked += 1
                state.apply(action)
    assert checked > 100
