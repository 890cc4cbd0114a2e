"""Where commands write, checked before any work and written so that a reader never sees a mixed
or truncated result: ``mipview run``'s folder is written into a temporary folder beside it and
moved into place when complete; a ``--json`` file is written beside its target and renamed over
it. CLI only (tests/test_import_contracts.py).

A folder is only ever replaced when it is empty or holds an earlier mipview run (recognised by
its report.json): a user's other files are never deleted.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from mipview.core.errors import MipviewError
from mipview.runs.report import GENERATOR_KEY

REPORT = "report.json"

#: what this process has moved into place (for the message after Ctrl-C)
written: list[str] = []


class OutputError(MipviewError):
    pass


def _writable_home(path: Path, option: str) -> Path:
    """The folder that will hold ``path`` (created later if missing): its nearest existing
    ancestor must be a folder this process can create entries in."""
    parent = path.parent
    ancestor = parent
    while not ancestor.exists():
        if ancestor.parent == ancestor:
            break
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise OutputError(f"{option} {path}: {ancestor} is a file, not a folder")
    try:  # a real attempt: permission bits say nothing to root or about read-only mounts
        probe = tempfile.mkdtemp(prefix=".mipview-probe-", dir=ancestor)
    except OSError as exc:
        raise OutputError(f"{option} {path}: cannot write in {ancestor} "
                          f"({exc.strerror or exc})") from None
    os.rmdir(probe)
    return parent


def is_mipview_run(folder: Path) -> bool:
    """``folder`` holds a report.json that mipview wrote."""
    try:
        data = json.loads((folder / REPORT).read_text())
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and (GENERATOR_KEY in data
                                       or {"device", "image", "strategies"} <= data.keys())


class RunFolder:
    """``mipview run --out DIR``: checked when made (before any work); :meth:`writing` gives a
    temporary folder beside DIR and, when the block completes, puts it in DIR's place."""

    def __init__(self, text: str, option: str = "--out") -> None:
        if not text.strip():
            raise OutputError(f"{option}: empty path")
        self.path = Path(text)
        self.option = option
        resolved = self.path.resolve()
        if Path.cwd().resolve().is_relative_to(resolved):  # ".", "..", "/": it cannot move
            raise OutputError(f"{option} {text}: holds the current folder; choose a folder of "
                              "its own")
        if self.path.exists() or self.path.is_symlink():
            self._check_replaceable()
        self.parent = _writable_home(self.path, option)

    def _check_replaceable(self) -> None:
        p = self.path
        if not p.is_dir():
            raise OutputError(f"{self.option} {p}: is a file, not a folder")
        if any(p.iterdir()) and not is_mipview_run(p):
            raise OutputError(f"{self.option} {p}: holds files that are not a mipview run "
                              f"(no mipview {REPORT}); choose an empty or new folder")

    @contextlib.contextmanager
    def writing(self) -> Iterator[Path]:
        """A temporary folder to write into; moved into place if the block completes, removed
        (and the previous run left as it was) if it does not."""
        self.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{self.path.name}.", suffix=".part",
                                    dir=self.parent))
        tmp.chmod(0o777 & ~_umask())  # mkdtemp's 0700 would outlive the move
        try:
            with _told(self.path):
                yield tmp
                self._replace(tmp)
        except MipviewError as exc:  # a writer's message names the file where it will be
            shutil.rmtree(tmp, ignore_errors=True)
            raise OutputError(str(exc).replace(str(tmp), str(self.path))) from None
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise

    def _replace(self, tmp: Path) -> None:
        old = None
        if self.path.exists() or self.path.is_symlink():
            self._check_replaceable()  # still an earlier run, not something new
            old = Path(tempfile.mkdtemp(prefix=f".{self.path.name}.", suffix=".old",
                                        dir=self.parent))
            os.rmdir(old)
            os.rename(self.path, old)
        try:
            os.rename(tmp, self.path)
        except BaseException:
            if old is not None:
                os.rename(old, self.path)
            raise
        written.append(f"{self.path}/")
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


class JsonFile:
    """A ``--json FILE`` target: checked when made; :meth:`write` replaces it atomically.

    A path that is a device, a pipe or a socket (``/dev/stdout``, a FIFO) is written to as it is:
    renaming a file over it would replace the device with a plain file (as root, even
    ``/dev/full``), and a stream has no old content to keep. Other links are followed, so the
    file replaced is the one they name, and they stay links."""

    def __init__(self, text: str | None, option: str = "--json") -> None:
        self.path = None if text is None else Path(text)
        self.stream = False
        if self.path is None:
            return
        if not text or not text.strip():
            raise OutputError(f"{option}: empty path")
        if self.path.is_dir():
            raise OutputError(f"{option} {self.path}: is a folder, not a file")
        if self.path.exists():
            real = self.path.resolve()
            self.stream = not real.is_file()
            if not self.stream:
                self.path = real
        if self.stream:
            if not os.access(self.path, os.W_OK):
                raise OutputError(f"{option} {self.path}: not writable")
        else:
            self.parent = _writable_home(self.path, option)

    def write(self, data: object, indent: int | None = 2) -> bool:
        """Write ``data`` as JSON (nothing when no path was given); True if written.
        ``indent`` None: compact (a trace of many runs)."""
        if self.path is None:
            return False
        text = json.dumps(data, indent=indent)
        if not self.stream:
            write_text(self.path, text)
            return True
        with _told(self.path), open(self.path, "w") as f:
            f.write(text + "\n")
        written.append(str(self.path))
        return True


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_text(path: Path, text: str) -> None:
    """``path`` holds ``text`` or what it held before, never a part of ``text``
    (mipview.io.atomic), with the permissions a plain write would give it."""
    from mipview.io import atomic

    with _told(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic.write_atomic(path, text.encode())
        os.chmod(path, 0o666 & ~_umask())  # mkstemp's 0600 outlives the rename
    written.append(str(path))


@contextlib.contextmanager
def _told(path: Path) -> Iterator[None]:
    """A write to ``path`` that fails once the work is done (a full disk, a device that refuses
    it) as one line in mipview's words, not a traceback."""
    try:
        yield
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
