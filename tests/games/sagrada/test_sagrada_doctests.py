"""The examples in the docstrings of Sagrada's modules run as written."""

import doctest

import pytest

from sagani_net.games.sagrada import bots, components, patterns, rules, words

MODULES = [components, patterns, rules, words, bots]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_docstring_examples_run(module) -> None:
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
