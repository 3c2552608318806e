"""The examples in the docstrings of the rules and the codec run as written."""

import doctest

import pytest

import sagani_net.bots.house
import sagani_net.game
import sagani_net.games
import sagani_net.games.sagani.rules
import sagani_net.games.sagani.tiles
import sagani_net.gameui
import sagani_net.limits
import sagani_net.private_files
import sagani_net.protocol.wire
import sagani_net.quotas

MODULES = [
    sagani_net.game,
    sagani_net.gameui,
    sagani_net.games,
    sagani_net.games.sagani.tiles,
    sagani_net.games.sagani.rules,
    sagani_net.limits,
    sagani_net.protocol.wire,
    sagani_net.private_files,
    sagani_net.quotas,
    sagani_net.bots.house,
]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_docstring_examples_run(module) -> None:
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
