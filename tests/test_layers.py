"""Layers point one way: the library (``sagani_net``) never imports the command line (``cli``).

Read from the source (no module is imported), so that an import inside a function, or one only
a rarely used path reaches, counts as much as one at the top of a file.
"""

from __future__ import annotations

import ast
from pathlib import Path

import sagani_net

LIBRARY = Path(sagani_net.__file__).parent


def cli_imports(source: str, filename: str = "<source>") -> list[str]:
    """Each ``import cli...`` / ``from cli... import`` in ``source``, as ``line: module``."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module]
        else:
            continue
        found += [f"{node.lineno}: {m}" for m in modules if m == "cli" or m.startswith("cli.")]
    return found


def test_the_check_sees_every_form_of_importing_cli() -> None:
    source = (
        "import cli\n"
        "import os, cli.console.app as app\n"
        "from cli.console.model import ConsoleModel\n"
        "def later():\n"
        "    from cli import main\n"
        "import client, clipboard\n"
        "from sagani_net.client import Client\n"
        "from . import cli_words\n"
    )
    assert cli_imports(source) == ["1: cli", "2: cli.console.app", "3: cli.console.model",
                                   "5: cli"]


def test_no_module_under_sagani_net_imports_cli() -> None:
    modules = sorted(LIBRARY.rglob("*.py"))
    # The walk reaches the games' console parts, the ones that imported cli before.
    assert LIBRARY / "games" / "sugi" / "ui.py" in modules
    found = {
        str(path.relative_to(LIBRARY.parent)): hits
        for path in modules
        if (hits := cli_imports(path.read_text(encoding="utf-8"), str(path)))
    }
    assert found == {}
