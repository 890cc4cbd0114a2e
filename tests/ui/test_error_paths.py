"""Every error a user can cause, caused the way a user does, in a window started as ``mipview gui``
starts it (``app.build_gui`` with no automation flags): File > Open, a drop and Open Recent of an
unreadable, a truncated, an unsupported and a missing file; a Run with a shader that does not
compile or a strategy that cannot run; a shader that stops compiling; an export into a read-only
folder or onto a full disk; a GPU timeout and a lost device. Each is a dialog or a status line
that says what happened and what to do; the window, the image open before and its results stay,
the event loop is never told to exit, and the next action works."""

from __future__ import annotations

import errno
import os
import struct
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest
import vulkan as vk
from PIL import Image
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QAction, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QFileDialog

from mipview.cli.main import build_parser
from mipview.core.formats import Format
from mipview.core.specs import StrategySpec
from mipview.gpu import strategies
from mipview.gpu.vulkan.context import GpuTimeout
from mipview.io import atomic
from mipview.io.containers import ktx2
from mipview.io.samples import sample_path
from mipview.ui import app
from mipview.ui.dialogs.export_dialog import ExportDialog
from mipview.ui.settings import make_settings
from mipview.ui.window import opening
from tests.shader_examples import needs_compilers
from tests.ui.test_custom_shaders import BOX, BROKEN, BROKEN_LINE
from tests.ui.test_main_window import ROOT, WAIT_MS

SPECS = [StrategySpec("blit"), StrategySpec("per-level")]


def bad_files(folder) -> dict[str, tuple[str, str]]:
    """kind -> (path, what its dialog must say besides the file's name)."""
    folder.mkdir(exist_ok=True)
    unreadable = folder / "unreadable.png"
    unreadable.write_bytes(b"\x89PNG\r\n\x1a\n not really")
    whole = folder / "whole.png"
    Image.fromarray(np.full((32, 32, 4), 90, np.uint8)).save(whole)
    truncated = folder / "truncated.png"
    truncated.write_bytes(whole.read_bytes()[:60])
    # a KTX2 file as mipview writes it, its vkFormat (the header's word 3) made PVRTC
    data = bytearray(ktx2.encode([np.zeros((4, 4, 4), np.uint8)], Format.UNORM, 1, False))
    struct.pack_into("<I", data, 12, 1000054000)
    unsupported = folder / "unsupported.ktx2"
    unsupported.write_bytes(bytes(data))
    return {"unreadable": (str(unreadable), "corrupt PNG data"),
            "truncated": (str(truncated), "truncated"),
            "unsupported": (str(unsupported), "PVRTC blocks: no decoder"),
            "missing": (str(folder / "missing.png"), "no such file")}


@pytest.fixture
def exits(monkeypatch):
    """The statuses the event loop was told to exit with (it is not told: the test goes on)."""
    asked: list[int] = []
    monkeypatch.setattr(QApplication, "exit", staticmethod(lambda status=0: asked.append(status)))
    return asked


@pytest.fixture
def start_gui(qtbot, exits):
    """Factory: the window of ``mipview gui ARGS...`` as ``run_gui`` builds it, with strategies
    that run quickly checked and no Run on open (each test runs by the Run button)."""
    windows = []

    def start(*argv, wait_image: bool = True):
        window, auto = app.build_gui(build_parser().parse_args(["gui", *map(str, argv)]))
        qtbot.addWidget(window)
        windows.append(window)
        window.panel.run_on_open.setChecked(False)  # before the image's reply comes
        window.panel.set_specs(SPECS)
        window.panel.repeat_spin.setValue(2)
        qtbot.waitUntil(lambda: window.caps is not None, timeout=WAIT_MS)
        if wait_image:
            qtbot.waitUntil(lambda: window.opened is not None and not window.is_busy(),
                            timeout=WAIT_MS)
        return window, auto

    yield start
    for w in windows:
        w.shutdown()
        w.close()


def click_run(qtbot, window):
    """The Run button; returns what the run showed once its job finished."""
    assert window.panel.run_button.isEnabled()
    shown = []
    window.sigRunShown.connect(shown.append)
    with qtbot.waitSignal(window.sigJobFinished, timeout=WAIT_MS,
                          check_params_cb=lambda job: job == window.latest_job("run")):
        qtbot.mouseClick(window.panel.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=WAIT_MS)
    return shown[-1] if shown else None


def still_there(window, exits, opened, output) -> None:
    """The window is up, with the image and the results it showed before the error."""
    assert window.isVisible() and exits == []
    assert window.opened is opened and window.output is output
    assert window.windowTitle() == f"mipview - {os.path.basename(opened.path)}"
    for result in output.mip.results:
        assert window.pyramid.panel_levels(str(result.spec)) == result.levels


def menu_action(window, text: str) -> QAction:
    (action,) = [a for a in window.findChildren(QAction) if a.text() == text]
    return action


def open_by_menu(qtbot, window, monkeypatch, path: str) -> None:
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        staticmethod(lambda *a, **k: (path, "")))
    menu_action(window, "&Open...").trigger()


def open_by_drop(qtbot, window, monkeypatch, path: str) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(path)])
    enter = QDragEnterEvent(QPoint(20, 20), Qt.DropAction.CopyAction, mime,
                            Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted()
    drop = QDropEvent(QPointF(20, 20), Qt.DropAction.CopyAction, mime,
                      Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, drop)
    assert drop.isAccepted()


def open_by_recent(qtbot, window, monkeypatch, path: str) -> None:
    (action,) = [a for a in window.recent_menu.actions() if a.text() == path]
    action.trigger()


OPEN_WAYS = {"menu": open_by_menu, "drop": open_by_drop, "recent": open_by_recent}


@pytest.mark.parametrize("way", list(OPEN_WAYS))
def test_a_bad_file_opened_any_way_is_a_dialog_and_the_image_stays(
        qtbot, start_gui, exits, dialogs, monkeypatch, small_png, tmp_path, way):
    bad = bad_files(tmp_path / "bad")
    # files that opened once and have changed since: Open Recent still lists them
    settings = make_settings()
    settings.setValue("recent", [path for path, _ in bad.values()])
    settings.sync()
    w, auto = start_gui(small_png)
    assert auto is None and w.error_dialogs
    output = click_run(qtbot, w)
    opened = w.opened
    assert output is not None and opened.path == str(small_png)
    open_by = OPEN_WAYS[way]
    for kind, (path, why) in bad.items():
        with qtbot.waitSignal(w.sigErrorShown, timeout=WAIT_MS) as shown:
            open_by(qtbot, w, monkeypatch, path)
        assert shown.args[0].title == "Cannot open image"
        title, text = dialogs[-1]
        assert title == "Cannot open image", kind
        assert os.path.basename(path) in text and why in text, text
        assert "stamp_64x48.png stays open; open another file" in text, text
        # the status bar says what failed, not the failed job's "loading ..." line
        assert w.statusBar().currentMessage().startswith("Cannot open image: "), kind
        qtbot.waitUntil(lambda: not w.is_busy(), timeout=WAIT_MS)
        still_there(w, exits, opened, output)
    assert len(dialogs) == len(bad)
    # the next actions work: another Run, then another file opened the same way
    again = click_run(qtbot, w)
    assert again is not None and again.job > output.job and w.output is again
    good = tmp_path / "good.png"
    good.write_bytes(small_png.read_bytes())
    if way == "recent":  # a file of the list that opens
        opening.add_recent(w, str(good))
    with qtbot.waitSignal(w.sigImageOpened, timeout=WAIT_MS) as opened_again:
        open_by(qtbot, w, monkeypatch, str(good))
    assert opened_again.args[0].path == str(good) and exits == []


def test_the_window_as_a_user_starts_it_shows_an_open_error_and_keeps_running(
        qtbot, exits, dialogs, monkeypatch, small_png, tmp_path):
    """``run_gui`` with a parsed ``gui`` command line and no automation flags; the event loop
    (``exec``) is where the user opens an unreadable file by File > Open."""
    monkeypatch.setattr(app, "reserve_ui_core", lambda: None)  # the test process's environment
    monkeypatch.setattr(app, "freeze_startup_objects", lambda: None)  # a test's objects go
    unreadable = bad_files(tmp_path / "bad")["unreadable"][0]
    seen = {}
    build = app.build_gui

    def build_and_keep(args):
        seen["window"], seen["automation"] = built = build(args)
        return built  # deleted when closed: not left to qtbot

    def event_loop(qapp) -> int:
        w = seen["window"]
        qtbot.waitUntil(lambda: w.opened is not None and w.caps is not None, timeout=WAIT_MS)
        with qtbot.waitSignal(w.sigErrorShown, timeout=WAIT_MS):
            open_by_menu(qtbot, w, monkeypatch, unreadable)
        qtbot.waitUntil(lambda: not w.is_busy(), timeout=WAIT_MS)
        seen["visible"], seen["dialogs"] = w.isVisible(), list(dialogs)
        seen["opened"] = w.opened.path
        w.close()  # the user closes the window: the loop ends with 0
        return 0

    monkeypatch.setattr(app, "build_gui", build_and_keep)
    monkeypatch.setattr(QApplication, "exec", event_loop)
    status = app.run_gui(build_parser().parse_args(["gui", str(small_png)]))
    assert status == 0 and exits == [] and seen["automation"] is None
    assert seen["visible"] and seen["opened"] == str(small_png)
    (title, text), = seen["dialogs"]
    assert title == "Cannot open image" and "unreadable.png" in text


def test_gui_with_a_bad_file_is_a_dialog_over_the_sample(
        qtbot, start_gui, exits, dialogs, tmp_path):
    path, why = bad_files(tmp_path / "bad")["unsupported"]
    w, auto = start_gui(path, wait_image=False)
    assert auto is None
    qtbot.waitUntil(lambda: w.opened is not None and bool(dialogs), timeout=WAIT_MS)
    (title, text), = dialogs
    assert title == "Cannot open image" and "unsupported.ktx2" in text and why in text
    assert w.opened.path == str(sample_path()) and w.isVisible() and exits == []
    assert len(w.pyramid.panel_levels("source")) == 1
    # and the window goes on: a Run of the sample
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=WAIT_MS)
    assert click_run(qtbot, w) is not None and len(dialogs) == 1


def test_gui_with_a_bad_file_and_quit_is_one_line_and_status_2(tmp_path):
    path, why = bad_files(tmp_path / "bad")["unsupported"]
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "cfg"), QT_QPA_PLATFORM="offscreen")
    res = subprocess.run([sys.executable, "-m", "mipview", "gui", path, "--quit"], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 2, res.stdout + res.stderr
    ours = [line for line in res.stderr.splitlines() if line.startswith("error:")]
    assert len(ours) == 1 and "unsupported.ktx2" in ours[0] and why in ours[0], res.stderr
    assert "Traceback" not in res.stderr


@needs_compilers
def test_a_run_of_what_cannot_run_says_so_and_the_next_run_works(
        qtbot, start_gui, exits, dialogs, monkeypatch, small_png, tmp_path):
    monkeypatch.setattr(strategies.REGISTRY["blit"], "unsupported_reason",
                        classmethod(lambda cls, *a, **k: "no blits on this test device"))
    w, _ = start_gui(small_png)
    w.panel.set_specs([StrategySpec("per-level")])
    output, opened = click_run(qtbot, w), w.opened
    # a shader with a GLSL error, dropped on the window: its error listed, no row to run
    shader = tmp_path / "mine.comp"
    shader.write_text(BROKEN)
    with qtbot.waitSignal(w.shaders.sigCompiled, timeout=WAIT_MS):
        open_by_drop(qtbot, w, monkeypatch, str(shader))
    line = w.statusBar().currentMessage()
    assert line.startswith("mine.comp does not compile (it runs once it compiles): ")
    assert f"{shader}:{BROKEN_LINE}: error: " in line
    # only what cannot run is checked (the unsupported blit): Run says what to do
    w.panel.set_specs([StrategySpec("blit")])
    assert w.panel.rows["blit"].check.isChecked() and not w.panel.rows["blit"].check.isEnabled()
    qtbot.mouseClick(w.panel.run_button, Qt.MouseButton.LeftButton)
    assert w.statusBar().currentMessage().startswith(
        "no runnable strategy is checked: check one in Setup")
    assert not w.is_busy() and dialogs == []
    still_there(w, exits, opened, output)
    # fixed: its row comes, and a Run of it works
    with qtbot.waitSignal(w.shaders.sigLoaded, timeout=WAIT_MS):
        shader.write_text(BOX)
    (name,) = w.shaders.watch.entries
    w.panel.set_specs([StrategySpec(name)])
    ran = click_run(qtbot, w)
    assert ran is not None and [str(r.spec) for r in ran.mip.results] == [name]
    assert dialogs == [] and exits == []


@needs_compilers
def test_a_shader_that_stops_compiling_is_a_status_line_and_the_last_good_runs(
        qtbot, start_gui, exits, dialogs, monkeypatch, small_png, tmp_path):
    w, _ = start_gui(small_png)
    shader = tmp_path / "mine.comp"
    shader.write_text(BOX)
    with qtbot.waitSignal(w.shaders.sigLoaded, timeout=WAIT_MS):
        open_by_drop(qtbot, w, monkeypatch, str(shader))
    (name,) = w.shaders.watch.entries
    w.panel.set_specs([StrategySpec(name)])
    output, opened = click_run(qtbot, w), w.opened
    with qtbot.waitSignal(w.shaders.sigCompiled, timeout=WAIT_MS):
        shader.write_text(BROKEN)
    line = w.statusBar().currentMessage()
    assert line.startswith("mine.comp does not compile (the last good version runs): "), line
    assert f"{shader}:{BROKEN_LINE}: error: " in line
    still_there(w, exits, opened, output)
    again = click_run(qtbot, w)
    for a, b in zip(again.mip.results[0].levels, output.mip.results[0].levels, strict=True):
        assert np.array_equal(a, b)
    assert dialogs == [] and exits == []


class _FullFile:
    """A file on a disk with no room left."""

    def __init__(self, f) -> None:
        self.f = f

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.f.close()

    def write(self, data) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def _refuse_folder(*args, **kwargs):
    raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), kwargs.get("dir"))


def test_an_export_that_cannot_write_is_a_dialog_and_the_next_export_works(
        qtbot, start_gui, exits, dialogs, monkeypatch, small_png, tmp_path):
    w, _ = start_gui(small_png)
    output, opened = click_run(qtbot, w), w.opened
    folder = {}

    def accept(dialog) -> int:  # the user types a folder and presses OK
        dialog.folder_edit.setText(str(folder["path"]))
        return ExportDialog.DialogCode.Accepted

    monkeypatch.setattr(ExportDialog, "exec", accept)
    read_only = tmp_path / "read-only"
    read_only.mkdir()
    read_only.chmod(0o555)
    full = tmp_path / "full"
    full.mkdir()
    real_os = atomic.os
    cases = ((read_only, "Permission denied"), (full, "No space left on device"))
    for where, why in cases:
        folder["path"] = where
        with monkeypatch.context() as m:
            if where is full:
                m.setattr(atomic, "os", SimpleNamespace(
                    fdopen=lambda fd, mode: _FullFile(real_os.fdopen(fd, mode)),
                    replace=real_os.replace, unlink=real_os.unlink))
            elif os.geteuid() == 0:  # root writes into a read-only folder: refused as it would be
                m.setattr(atomic, "tempfile", SimpleNamespace(mkstemp=_refuse_folder))
            with qtbot.waitSignal(w.sigErrorShown, timeout=WAIT_MS):
                menu_action(w, "&Export chain...").trigger()
        title, text = dialogs[-1]
        assert title == "Export failed" and str(where) in text and why in text, text
        assert "export again to a folder you can write to, with room for the files" in text
        assert "Traceback" not in text
        assert os.listdir(where) == []  # nothing half written, no temporary file left
        still_there(w, exits, opened, output)
    read_only.chmod(0o755)
    folder["path"] = tmp_path / "out"
    with qtbot.waitSignal(w.sigExported, timeout=WAIT_MS) as exported:
        menu_action(w, "&Export chain...").trigger()
    assert exported.args[0].files and all(os.path.exists(f) for f in exported.args[0].files)
    assert len(dialogs) == len(cases)


def _fail_next_submit(monkeypatch, ctx, exc: Exception) -> None:
    """The context's next submit raises ``exc`` (as the binding or the timeout would)."""
    def submit(*args, **kwargs):
        raise exc

    monkeypatch.setattr(ctx, "submit_and_wait", submit)


@pytest.mark.parametrize("failure", ["timeout", "device lost"])
def test_a_run_that_times_out_or_loses_the_device_is_a_dialog_and_runs_again(
        qtbot, start_gui, exits, dialogs, monkeypatch, small_png, failure):
    w, _ = start_gui(small_png)
    output, opened = click_run(qtbot, w), w.opened
    first = w.worker.ctx
    if failure == "timeout":
        exc = GpuTimeout(f"the GPU did not finish within {first.timeout_s:g} s: a shader that "
                         f"never ends? (MIPVIEW_GPU_TIMEOUT=SECONDS sets the limit)")
    else:
        exc = vk.VkErrorDeviceLost()
    _fail_next_submit(monkeypatch, first, exc)
    with qtbot.waitSignal(w.sigErrorShown, timeout=WAIT_MS) as shown:
        qtbot.mouseClick(w.panel.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=WAIT_MS)
    err = shown.args[0]
    title, text = dialogs[-1]
    if failure == "timeout":
        assert (err.title, err.message) == ("GPU timeout", f"The GPU work did not finish within "
                                            f"{first.timeout_s:g} s; the device was reset.")
        assert "MIPVIEW_GPU_TIMEOUT" in text
    else:
        assert (err.title, err.message) == ("GPU device lost", "The device was lost during the "
                                            "run; it was opened again: Run again (the image "
                                            "and its results shown stay).")
    assert title == err.title
    # a new context for the next Run; the old one is given up
    assert w.worker.ctx is not first and w.caps is not None
    assert w.isVisible() and exits == [] and w.opened is opened
    again = click_run(qtbot, w)
    assert again is not None and again.job > output.job and len(again.mip.results) == 2
    assert len(dialogs) == 1
