"""Files written whole or not at all: what every writer of mipview uses (levels, reports, texture
files, the pipeline cache)."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_atomic(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to a temporary file in the same folder, then rename it to ``path``: an
    interrupted write (Ctrl-C, a kill, a full disk) never leaves a truncated file under the final
    name, only a hidden ``.name.*.tmp`` that is removed when Python gets the chance. No fsync:
    this guards against an interrupted process, not a power cut."""
    p = Path(path)
    fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, p)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return p
