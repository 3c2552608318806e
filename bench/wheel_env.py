"""This checkout as people get it: its wheel installed in a virtual environment of its own.

Start-up and self-play are timed there, not in the development environment, whose editable
install puts an import finder (pathlib, urllib, re...) into every start of Python (``python -c
pass`` included, so that every ratio to it looks better than it is) and whose project modules
may have no bytecode.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def installed(venv: Path) -> Path:
    """The ``sagani`` command of ``venv``, with this checkout's wheel installed there (made
    first if ``venv`` holds no environment): as ``pip install .`` in a fresh environment gives
    it to people (pip compiles the bytecode at install). Making the environment takes a few
    seconds (pip fetches the dependencies); a kept one gets the wheel again."""
    with tempfile.TemporaryDirectory(prefix="sagani-wheel-") as scratch:
        # Built from a copy: pip builds in the source tree (its build/ folder).
        source, out = Path(scratch, "source"), Path(scratch, "wheel")
        source.mkdir()
        for name in ("pyproject.toml", "README.md"):
            shutil.copy(ROOT / name, source / name)
        for folder in ("sagani_net", "protocol", "cli"):
            shutil.copytree(ROOT / folder, source / folder,
                            ignore=shutil.ignore_patterns("__pycache__"))
        pip(sys.executable, "wheel", "--no-deps", "-w", str(out), str(source))
        (wheel,) = out.glob("sagani_net-*.whl")
        python = venv / "bin" / "python"
        if python.exists():  # kept from an earlier run: the wheel again, and any new dependency
            pip(python, "install", "--no-deps", "--force-reinstall", str(wheel))
            pip(python, "install", str(wheel))
        else:
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            pip(python, "install", str(wheel))
    return venv / "bin" / "sagani"


def pip(python: str | Path, *words: str) -> None:
    """``python -m pip WORDS``, quiet unless it fails."""
    done = subprocess.run([str(python), "-m", "pip", *words, "-q"], capture_output=True,
                          text=True)
    if done.returncode:
        raise SystemExit(f"pip {' '.join(words)} failed:\n{done.stdout}{done.stderr}")
