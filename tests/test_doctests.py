"""The examples in the docstrings of the rules and the codec run as written."""

import doctest

import pytest

import protocol.wire
import sagani_net.engine
import sagani_net.tiles


@pytest.mark.parametrize("module", [sagani_net.tiles, sagani_net.engine, protocol.wire])
def test_docstring_examples_run(module) -> None:
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
