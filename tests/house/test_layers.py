"""The house's shape: layers point one way, and the wheel installs one top-level name.

The library (``sagani_net`` outside ``sagani_net.cli``) never imports the command line. Read
from the source (no module is imported), so that an import inside a function, or one only a
rarely used path reaches, counts as much as one at the top of a file.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

import sagani_net

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "sagani_net"


def cli_imports(source: str, filename: str = "<source>") -> list[str]:
    """Each import of the command line (``sagani_net.cli``, or the old top-level ``cli``) in
    ``source``, as ``line: module``."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module]
        else:
            continue
        found += [f"{node.lineno}: {m}" for m in modules
                  if m.split(".")[0] == "cli" or m.split(".")[:2] == ["sagani_net", "cli"]]
    return found


def test_the_check_sees_every_form_of_importing_the_command_line() -> None:
    source = (
        "import cli\n"
        "import os, sagani_net.cli.console.app as app\n"
        "from sagani_net.cli.console.model import ConsoleModel\n"
        "def later():\n"
        "    from sagani_net.cli import main\n"
        "import client, clipboard, sagani_net.client_words\n"
        "from sagani_net.client import Client\n"
        "from . import cli_words\n"
    )
    assert cli_imports(source) == ["1: cli", "2: sagani_net.cli.console.app",
                                   "3: sagani_net.cli.console.model", "5: sagani_net.cli"]


def test_no_library_module_imports_the_command_line() -> None:
    modules = sorted(LIBRARY.rglob("*.py")) + sorted((ROOT / "protocol").rglob("*.py"))
    # The walk reaches the games' console parts, the ones that imported cli before.
    assert LIBRARY / "games" / "sugi" / "ui.py" in modules
    found = {
        str(path.relative_to(ROOT)): hits
        for path in modules
        if (hits := cli_imports(path.read_text(encoding="utf-8"), str(path)))
    }
    assert found == {}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    # Built from a copy: pip builds in the source tree, and parallel runs would share its build/.
    source, out = tmp_path_factory.mktemp("source"), tmp_path_factory.mktemp("wheel")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for folder in ("sagani_net", "protocol", "cli"):
        shutil.copytree(ROOT / folder, source / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))
    # Without build isolation (setuptools comes with the test extra): an isolated build
    # installs setuptools afresh each time, most of this test's time.
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(out), str(source)], check=True, capture_output=True,
                   timeout=300)
    (built,) = out.glob("sagani_net-*.whl")
    return zipfile.ZipFile(built)


def test_the_wheel_installs_one_top_level_name(wheel: zipfile.ZipFile) -> None:
    names = wheel.namelist()
    top = {name.split("/")[0] for name in names if ".dist-info/" not in name}
    assert top == {"sagani_net"}
    (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    assert "sagani = sagani_net.cli.main:main" in wheel.read(entry_points).decode()
    # The version is written once, in the package (`sagani --version` reads it there).
    (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
    assert f"\nVersion: {sagani_net.__version__}\n" in wheel.read(metadata).decode()


def test_the_wheel_holds_every_package_and_the_protocol_documents(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    # Every folder of code in the three source folders is a package of the wheel, under its name.
    for folder, installed in (("sagani_net", "sagani_net"), ("protocol", "sagani_net/protocol"),
                              ("cli", "sagani_net/cli")):
        for init in (ROOT / folder).rglob("__init__.py"):
            inside = init.relative_to(ROOT / folder).as_posix()
            assert f"{installed}/{inside}" in names, f"{folder}/{inside} is not installed"
    for document in ("PROTOCOL.md", "RECORD.md", "games/sugi.md", "vectors/01-hello-reply.json"):
        assert f"sagani_net/protocol/{document}" in names
    assert "sagani_net/games/sagrada/data/patterns.json" in names


def test_mypy_checks_every_source_folder_under_its_installed_name() -> None:
    # mypy maps no folders to package names: [tool.mypy] reaches a folder installed under
    # another name (protocol/ as sagani_net.protocol) through a link in .ci/mypy, so that its
    # modules are checked, and imported, by the names the wheel gives them.
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    files = set(config["tool"]["mypy"]["files"])
    mypy_path = ROOT / config["tool"]["mypy"]["mypy_path"]
    for name, folder in config["tool"]["setuptools"]["package-dir"].items():
        if name == folder:
            assert folder in files
            continue
        link = mypy_path / name.replace(".", "/")
        assert link.relative_to(ROOT).as_posix() in files, f"mypy does not check {folder}/"
        assert link.is_symlink() and link.resolve() == ROOT / folder, f"{link} is not {folder}/"
