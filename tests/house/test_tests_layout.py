"""The tests' own shape: every folder runs alone (``pytest tests/console``), because a test
module imports helpers only from the shared kits in tests/ or from its own folder.

pytest puts tests/ (beside conftest.py) and the folder of each collected module on
``sys.path``; a helper imported from another folder is found only when that folder happened
to be collected first, so a run of one folder would fail to import it.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def local_imports(path: Path) -> set[str]:
    """The names of tests/ modules that ``path`` imports (anywhere in it)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_every_test_module_imports_only_the_shared_kits_or_its_own_folder() -> None:
    modules = {path.stem: path.parent for path in TESTS.rglob("*.py")}
    assert len(modules) == len(list(TESTS.rglob("*.py"))), "two test modules share a name"
    strays = {
        str(path.relative_to(TESTS)): sorted(
            name for name in local_imports(path)
            if name in modules and modules[name] not in (TESTS, path.parent))
        for path in TESTS.rglob("*.py")
    }
    assert {path: names for path, names in strays.items() if names} == {}


def test_the_check_sees_a_helper_of_another_folder(tmp_path: Path) -> None:
    module = tmp_path / "test_x.py"
    module.write_text("import os\nfrom test_console import until\n"
                      "def later():\n    import rules_kit\n", encoding="utf-8")
    assert local_imports(module) == {"os", "test_console", "rules_kit"}
