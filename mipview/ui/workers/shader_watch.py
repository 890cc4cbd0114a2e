"""Custom shaders the user added, watched for edits and compiled off the UI thread.

:class:`ShaderWatch` keeps each added file as a strategy ``shader:ABSOLUTE_PATH``. A
QFileSystemWatcher follows the file, the includes of its last good version and the file's
folder (editors that save by writing a new file and renaming it replace the watched one); a
short pause lets a save finish, then a :class:`ShaderCompiler`, a job worker
(:mod:`mipview.ui.workers.jobs`) in a thread of its own, compiles it (``custom_version``: glslc and
spirv-cross never run on the UI thread). Each good version is pinned
(:func:`mipview.gpu.strategies.custom.pin`): runs use it, and nothing else, until the next good
compile, so a save that does not compile leaves the last good version in use.

Signals
-------
sigLoaded(type, bool)   a new good version (its strategy class); True when it replaces an
                        earlier good one (a reload)
sigState(str)           a shader's state changed (added, compiling, compiled, removed)
sigCompiled(str)        a compile's result was applied (after sigLoaded and sigState)
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal, Slot

from mipview.core.errors import MipviewError
from mipview.core.specs import CUSTOM_PREFIX
from mipview.gpu.shaders.glslc import CompileError
from mipview.gpu.strategies.custom import CustomStrategy, custom_version, pin, unpin
from mipview.gpu.strategies.custom_shader import SUFFIXES, InterfaceError
from mipview.ui.workers.jobs import JobWorker, Stop, lower_priority, worker_thread

#: a save is often several writes (or a write and a rename): compile once they stop
SETTLE_MS = 200
#: "FILE:LINE: text", the form of DeclarationError's and glslc's lines
_LOCATED = re.compile(r"^(?P<file>.+?):(?P<line>\d+): (?P<text>.*)$")
#: InterfaceError problems about a pragma line start so
_PRAGMA_LINE = re.compile(r"^line (\d+):")


@dataclass(frozen=True)
class Problem:
    """One line of the messages panel, with the place in a file it is about when known."""

    text: str
    file: str | None = None
    line: int | None = None


@dataclass(frozen=True)
class CompileRequest:
    job: int
    name: str


@dataclass(frozen=True)
class CompileResult:
    """A good version (``strategy``), or why there is none (``problems``)."""

    job: int
    name: str
    strategy: type[CustomStrategy] | None
    problems: tuple[Problem, ...] = ()


def shader_name(path: str | os.PathLike[str]) -> str:
    """The strategy name of a shader file: ``shader:`` and its absolute path."""
    return CUSTOM_PREFIX + os.path.abspath(path)


def shader_path(name: str) -> Path:
    return Path(name[len(CUSTOM_PREFIX):])


def is_shader_file(path: str) -> bool:
    return Path(path).suffix in SUFFIXES


def problems_of(exc: MipviewError) -> tuple[Problem, ...]:
    """What a failed load says, one :class:`Problem` per compiler message or interface
    problem."""
    if isinstance(exc, CompileError) and exc.messages:
        return tuple(Problem(f"{m.file}:{m.line}: {m.severity}: {m.text}", m.file, m.line)
                     for m in exc.messages)
    if isinstance(exc, InterfaceError):
        out = []
        for text in exc.problems:
            line = _PRAGMA_LINE.match(text)
            out.append(Problem(f"{exc.path}: {text}", str(exc.path),
                               int(line[1]) if line else None))
        return tuple(out)
    located = _LOCATED.match(str(exc))
    if located:
        return (Problem(str(exc), located["file"], int(located["line"])),)
    return (Problem(str(exc)),)


class ShaderCompiler(JobWorker):
    """Compiles one shader per :class:`CompileRequest`; a shader that does not compile or does
    not match its interface is a result, not a failure (a bug of mipview's still is one): a
    :class:`CompileResult` by ``sigReply``."""

    def __init__(self) -> None:
        super().__init__()
        self.handle(CompileRequest, "Cannot load the shader", self._compile)

    @Slot()
    def start(self) -> None:
        lower_priority()

    def _compile(self, req: CompileRequest, stop: Stop) -> None:
        self.sigProgress.emit(f"compiling {shader_path(req.name).name}")
        try:
            cls = custom_version(req.name)
        except MipviewError as exc:
            self.sigReply.emit(CompileResult(req.job, req.name, None, problems_of(exc)))
        else:
            self.sigReply.emit(CompileResult(req.job, req.name, cls))


@dataclass
class _Entry:
    """One added shader, as the UI thread knows it (never crosses threads)."""

    path: Path
    #: the pinned version, None until a compile succeeds
    good: type[CustomStrategy] | None = None
    problems: tuple[Problem, ...] = ()
    #: the latest compile sent; older results are stale
    job: int = -1
    compiling: bool = False
    files: set[str] = field(default_factory=set)


class ShaderWatch(QObject):
    sigLoaded = Signal(object, bool)
    sigState = Signal(str)
    sigCompiled = Signal(str)
    _sigCompile = Signal(object)
    _sigShutdown = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.entries: dict[str, _Entry] = {}
        self._job = 0
        #: the compiler was told to end its thread (shutdown)
        self._closing = False
        self._dirty: set[str] = set()
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self._file_changed)
        self.watcher.directoryChanged.connect(self._folder_changed)
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(SETTLE_MS)
        self._settle.timeout.connect(self._compile_dirty)
        self.compiler = ShaderCompiler()
        self.thread_ = worker_thread(self.compiler, "mipview-shaders", self)
        self._sigCompile.connect(self.compiler.work)
        self._sigShutdown.connect(self.compiler.shutdown)
        self.compiler.sigReply.connect(self._on_compiled)
        self.thread_.started.connect(self.compiler.start)
        self.thread_.start()

    # --- the list ------------------------------------------------------------------------
    def add(self, path: str | os.PathLike[str]) -> str:
        """Watch and compile ``path`` (again, if it is there already); returns its name."""
        name = shader_name(path)
        if name not in self.entries:
            self.entries[name] = _Entry(shader_path(name))
        self._compile(name)
        self._sync_watch()
        return name

    def remove(self, name: str) -> None:
        if self.entries.pop(name, None) is not None:
            unpin(name)
            self._dirty.discard(name)
            self._sync_watch()
            self.sigState.emit(name)

    def shutdown(self, wait: bool = True) -> None:
        """End the compiler's thread (a compile under way finishes first); with ``wait``,
        return once it has ended."""
        self._settle.stop()
        if self.thread_.isRunning():
            if not self._closing:
                self._closing = True
                self._sigShutdown.emit()
            if wait and not self.thread_.wait(120_000):
                self.thread_.quit()
                self.thread_.wait()

    # --- compiling -------------------------------------------------------------------------
    def _compile(self, name: str) -> None:
        self._job += 1
        entry = self.entries[name]
        entry.job, entry.compiling = self._job, True
        self._sigCompile.emit(CompileRequest(self._job, name))
        self.sigState.emit(name)

    def _compile_dirty(self) -> None:
        dirty, self._dirty = self._dirty, set()
        for name in sorted(dirty & self.entries.keys()):
            self._compile(name)
        self._sync_watch()  # a file that was replaced is watched again

    def _on_compiled(self, res: CompileResult) -> None:
        entry = self.entries.get(res.name)
        if entry is None or res.job != entry.job:  # removed, or edited again since
            return
        entry.compiling = False
        entry.problems = res.problems
        cls = res.strategy
        if cls is not None and cls is not entry.good:  # the same class: the file was touched
            reloaded, entry.good = entry.good is not None, cls
            pin(cls)
            self._sync_watch()
            self.sigLoaded.emit(cls, reloaded)
        self.sigState.emit(res.name)
        self.sigCompiled.emit(res.name)

    # --- watching --------------------------------------------------------------------------
    def _sync_watch(self) -> None:
        """Watch what the entries need: each file, its folder, its good version's includes."""
        for entry in self.entries.values():
            deps = entry.good.shader.dependencies if entry.good is not None else ()
            entry.files = {os.path.abspath(p) for p in (entry.path, *deps)}
        files = set().union(*(e.files for e in self.entries.values()))
        folders = {str(e.path.parent) for e in self.entries.values()}
        watched = set(self.watcher.files()) | set(self.watcher.directories())
        stale = watched - files - folders
        if stale:
            self.watcher.removePaths(sorted(stale))
        new = [p for p in sorted((files | folders) - watched) if os.path.exists(p)]
        if new:
            self.watcher.addPaths(new)

    def _file_changed(self, path: str) -> None:
        self._touched(name for name, e in self.entries.items() if path in e.files)

    def _folder_changed(self, folder: str) -> None:
        # a shader file replaced (or re-created) there is no longer watched under its name
        watched = set(self.watcher.files())
        self._touched(name for name, e in self.entries.items()
                      if str(e.path.parent) == folder and str(e.path) not in watched
                      and e.path.exists())

    def _touched(self, names: Iterable[str]) -> None:
        names = set(names)
        if names:
            self._dirty |= names
            self._settle.start()
