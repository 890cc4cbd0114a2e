"""Qt fixtures: settings in a temp folder, windows that shut their worker down, and a check that
no test leaves a QThread running."""

from __future__ import annotations

import gc

import numpy as np
import pytest
from PIL import Image

# without the test extra a developer's run skips the window; CI must fail, not pass untested
__import__("pytestqt") if __import__("os").environ.get("CI") else pytest.importorskip("pytestqt")
from PySide6.QtCore import QEvent, QObject, QSettings, QThread  # noqa: E402
from PySide6.QtWidgets import QApplication, QMessageBox  # noqa: E402

WAIT_MS = 60_000


@pytest.fixture(autouse=True)
def temp_settings(tmp_path, monkeypatch):
    """Point QSettings (INI, user scope) at a temp folder so tests never touch ~."""
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "cfg"))
    yield tmp_path / "cfg"


@pytest.fixture(autouse=True)
def collect_in_the_ui_thread(qapp):
    """Free the test's windows and widgets here, in the UI thread. A closed window can be held
    in reference cycles; left to Python's cyclic collector, it may be freed in whichever thread
    allocates next (an analysis thread), and a Qt object destroyed there deadlocks against the
    UI thread (seen once: the UI thread deleting a menu while an analysis thread destroyed a
    QObject, each waiting on the other's lock)."""
    yield
    gc.collect()


@pytest.fixture(autouse=True)
def no_threads_left(qapp):
    """Fail a test that leaves a QThread running (under any top-level widget)."""
    yield
    running = [t.objectName() or repr(t) for w in QApplication.topLevelWidgets()
               for t in w.findChildren(QThread) if t.isRunning()]
    assert not running, f"QThread(s) still running after the test: {running}"


@pytest.fixture
def dialogs(monkeypatch):
    """Error dialogs the window showed, as (title, text), without a modal box."""
    shown = []
    monkeypatch.setattr(QMessageBox, "critical", staticmethod(
        lambda parent, title, text, *a, **k: shown.append((title, text))))
    return shown


@pytest.fixture
def make_window(qtbot):
    """Factory: a MainWindow on the test device whose worker has listed devices."""
    from mipview.ui.app import ensure_app
    from mipview.ui.main_window import MainWindow

    ensure_app()
    windows = []

    def make(run_on_open: bool = False, **kwargs):
        w = MainWindow(**kwargs)
        qtbot.addWidget(w)
        windows.append(w)
        w.panel.run_on_open.setChecked(run_on_open)
        qtbot.waitUntil(lambda: w.caps is not None, timeout=WAIT_MS)
        return w

    yield make
    for w in windows:
        w.shutdown()
        w.close()


@pytest.fixture
def view(qtbot):
    """A pyramid view on its own, shown at 900x700."""
    from mipview.ui.app import ensure_app
    from mipview.ui.views.pyramid_view import PyramidView

    ensure_app()
    v = PyramidView()
    qtbot.addWidget(v)
    v.resize(900, 700)
    v.show()
    yield v
    v.shutdown()


def stamp_image(width: int = 64, height: int = 48) -> np.ndarray:
    """An asymmetric RGBA image: gradients plus a bright block near the top-left corner, so a
    flip or a transpose changes it."""
    y, x = np.mgrid[0:height, 0:width]
    rgba = np.empty((height, width, 4), np.uint8)
    rgba[..., 0] = (x * 255 // max(1, width - 1)).astype(np.uint8)
    rgba[..., 1] = (y * 255 // max(1, height - 1)).astype(np.uint8)
    rgba[..., 2] = ((x * 7 + y * 13) % 256).astype(np.uint8)
    rgba[..., 3] = 255
    rgba[2:10, 3:20] = (255, 255, 255, 255)
    return rgba


@pytest.fixture
def small_png(tmp_path):
    path = tmp_path / "stamp_64x48.png"
    Image.fromarray(stamp_image()).save(path)
    return path


class EventCount(QObject):
    """How many events of ``kind`` ``widget`` has received since this was made."""

    def __init__(self, widget, kind: QEvent.Type) -> None:
        super().__init__()
        self.kind, self.count = kind, 0
        widget.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802
        if event.type() == self.kind:
            self.count += 1
        return False
