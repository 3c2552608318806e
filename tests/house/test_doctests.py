"""The examples in the docstrings run as written: every module of the package that has any,
found by walking it (a module left off a list would let its examples go stale)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from types import ModuleType

import pytest

import sagani_net
import sagani_net.cli
import sagani_net.protocol


def modules_with_examples() -> list[str]:
    """Every module of sagani_net, its protocol and its command line, that holds an example."""
    names = []
    for package in (sagani_net, sagani_net.protocol, sagani_net.cli):
        names.append(package.__name__)
        names += [m.name for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")]
    finder = doctest.DocTestFinder()

    def has_examples(name: str) -> bool:
        module = importlib.import_module(name)
        return any(not example.options.get(doctest.SKIP)  # shown, not run: a live host
                   for test in finder.find(module, module=module) for example in test.examples)

    return sorted(name for name in set(names) if has_examples(name))


MODULES = modules_with_examples()


def test_the_walk_finds_the_modules_with_examples() -> None:
    for name in ("sagani_net.game", "sagani_net.protocol.wire", "sagani_net.bots.tournament",
                 "sagani_net.games.sugi.rules", "sagani_net.analysis"):
        assert name in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    module: ModuleType = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
