"""Files only their owner may read: every secret this package keeps on disk (seat tokens, the
house bots' sealed tokens and their key, the standby key, the CURVE key pair) is written by
:func:`write_private`, 0600 in a 0700 folder.

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp()) / "secrets"
>>> write_private(folder / "token", "s3cret")
>>> oct(folder.stat().st_mode & 0o777), oct((folder / "token").stat().st_mode & 0o777)
('0o700', '0o600')
"""

from __future__ import annotations

import os
from pathlib import Path

DIR_MODE = 0o700
FILE_MODE = 0o600


def private_dir(path: Path | str) -> Path:
    """``path`` as a folder only its owner may enter (made if missing, its mode set if not)."""
    path = Path(path)
    path.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    os.chmod(path, DIR_MODE)
    return path


def write_private(path: Path | str, text: str) -> None:
    """Write ``text`` to ``path`` owner-only, in an owner-only folder: created 0600 (never
    readable by others, not even for a moment), written whole and synced, then renamed over
    the old file, so that a crash leaves the old file or the new one, never half of one."""
    path = Path(path)
    private_dir(path.parent)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    os.fchmod(fd, FILE_MODE)  # a left-over temporary file keeps its old mode otherwise
    with os.fdopen(fd, "w") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)
