"""``mipview gui``: create the application and the window, and the automation path
(``--run STRATEGIES --screenshot OUT.png --quit``)."""

from __future__ import annotations

import argparse
import gc
import os
import sys
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QTimer, Slot
from PySide6.QtWidgets import QApplication, QWidget

from mipview.core.errors import MipviewError

if TYPE_CHECKING:
    from mipview.ui.main_window import MainWindow


def ensure_app() -> QApplication:
    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
        app.setOrganizationName("mipview")
        app.setApplicationName("mipview")
        app.setStyle("Fusion")
    import pyqtgraph as pg

    pg.setConfigOptions(antialias=True, imageAxisOrder="row-major")
    return app  # type: ignore[return-value]


def default_image() -> str | None:
    try:
        from mipview.io.samples import sample_path

        return str(sample_path())
    except (ImportError, MipviewError):
        return None


class Automation:
    """Open, optionally run, then screenshot and/or quit: driven by the window's signals.

    Nobody is there to close a dialog: an error (an image that cannot be opened, a run that
    fails) is one line on stderr and ends the app with status 2, as the CLI does."""

    def __init__(self, window, specs, screenshot: str | None, quit_after: bool) -> None:
        window.error_dialogs = False
        self.window = window
        self.specs = specs
        self.screenshot = screenshot
        self.quit_after = quit_after
        self.run_job: int | None = None
        self.status = 0
        window.sigImageOpened.connect(self._opened)
        window.sigJobFinished.connect(self._finished)
        window.sigErrorShown.connect(self._error)
        window.sigRunShown.connect(self._shown)

    def _shown(self, out) -> None:
        if out.mip.validation_messages:  # --validate runs fail loudly, as the CLI's do
            self.status = 1
            for m in out.mip.validation_messages:
                print(f"validation: {m}", file=sys.stderr)

    def _opened(self, _opened) -> None:
        if self.specs:
            self.run_job = self.window.run(False, self.specs)
            if self.run_job is None:
                self.status = 1
                self._done()
        else:
            self._done()

    def _finished(self, job: int) -> None:
        if self.run_job is not None and job == self.run_job:
            self._done()

    def _error(self, err) -> None:
        message = " ".join(str(err.message).split())  # one line, whatever the exception said
        print(f"error: {err.title}: {message}", file=sys.stderr)
        self.status = 2
        self.window.shutdown()
        self.window.hide()
        QApplication.instance().exit(self.status)

    def _done(self) -> None:
        # let the views lay out and paint once before grabbing
        QTimer.singleShot(300, self._finish)

    def _finish(self) -> None:
        if not self.window.profiler_idle():  # a baseline comparison or a preview to come
            QTimer.singleShot(100, self._finish)
            return
        if self.screenshot:
            if not self.window.screenshot(self.screenshot):
                self.status = 1
            print(f"wrote {self.screenshot}")
        if self.quit_after:
            self.window.shutdown()
            self.window.hide()
            QApplication.instance().exit(self.status)


class SampleInstead(QObject):
    """The bundled sample in place of a start image the window cannot open: the user reads the
    error over a window that shows something, and can open another file from there. Opened as
    soon as the worker fails, so the sample is behind the error dialog, not after it."""

    def __init__(self, window: MainWindow, job: int, sample: str) -> None:
        super().__init__(window)
        self.window, self.job, self.sample = window, job, sample
        window.worker.sigError.connect(self._failed)

    @Slot(object)
    def _failed(self, err) -> None:
        if err.job == self.job and self.window.opened is None:
            self.window.open_image(self.sample)


def reserve_ui_core() -> None:
    """Leave one CPU core to the UI thread when the device is lavapipe, and let it paint
    without waiting for other threads.

    lavapipe runs shaders on as many threads as there are cores; during live profiling they
    starve the event loop on small machines (measured on 2 cores: 58 ms longest stall with two
    rasteriser threads, 43 ms with one). A user's own LP_NUM_THREADS wins; GPU timings come from
    timestamps, so only lavapipe's throughput changes.

    Qt 6 splits a large fill of the raster engine (the chart's bars and whiskers) over a thread
    pool and has the UI thread wait for it; on a busy machine those threads wait for a core
    (measured on 2 cores: 30-40 ms stalls, the UI thread idle meanwhile). QT_NO_GUI_THREADPOOL
    makes the UI thread fill by itself. Must run before the Vulkan device and the QApplication
    exist.
    """
    cores = os.cpu_count() or 1
    if cores > 1:
        os.environ.setdefault("LP_NUM_THREADS", str(cores - 1))
    os.environ.setdefault("QT_NO_GUI_THREADPOOL", "1")


def freeze_startup_objects() -> None:
    """Keep the objects made at start-up (modules, the window and its widgets: ~80k) out of
    the garbage collector's full collections from now on. A full collection walks all of them,
    50-350 ms on a 2-core machine, holding the GIL in whichever thread triggers it: the longest
    stalls of live profiling. Call once the window exists (the app's, not a test's: what is
    frozen is never collected)."""
    gc.collect()  # what is garbage now is freed, not frozen
    gc.freeze()


def release_window(window: QWidget) -> None:
    """Destroy the window and its widgets now, on the UI thread, with the interpreter and the
    QApplication whole; call once ``window.shutdown()`` has joined every thread that could
    touch them.

    Left alive, the window is destroyed by PySide's own exit handler after the atexit
    functions, while the interpreter tears itself down: its widgets' destructors (pyqtgraph's
    items, Python slots on ``destroyed``) then run Python in an order that changes from run to
    run (hash seeds, addresses). What ``freeze_startup_objects`` froze is collected here too, in
    this thread: a cycle holding a Qt object must not be freed in whichever thread allocates
    next."""
    window.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.unfreeze()
    gc.collect()


def build_gui(args: argparse.Namespace) -> tuple[MainWindow, Automation | None]:
    """The window of ``mipview gui`` shown, its image being opened, and the automation that
    drives it when the command line asks for one (``--run``, ``--screenshot``, ``--quit``),
    else None: a user's window keeps its error dialogs and never exits by itself."""
    from mipview.gpu.strategies.specs import expand_specs
    from mipview.runs.baseline import load_run
    from mipview.ui.main_window import MainWindow

    specs = expand_specs(args.run) if getattr(args, "run", None) else None
    # checked before the window exists: a bad file is one line and exit 2, not a dialog
    baseline = load_run(args.baseline) if getattr(args, "baseline", None) else None
    ensure_app()
    sample = default_image()
    image = getattr(args, "image", None) or sample
    automated = bool(specs or getattr(args, "screenshot", None) or getattr(args, "quit", False))
    window = MainWindow(device=getattr(args, "device", None),
                        validate=True if getattr(args, "validate", False) else None,
                        fmt=getattr(args, "format", None), restore=not automated)
    auto = None
    if automated:  # reproducible screenshots: a fixed size, not the user's saved layout
        window.resize(1600, 1000)
        window.panel.run_on_open.setChecked(False)
        if specs:
            window.panel.set_specs(specs)
        auto = Automation(window, specs, getattr(args, "screenshot", None),
                          bool(getattr(args, "quit", False)))
    if baseline is not None:
        window.set_baseline(baseline)
    window.distributions_action.setChecked(bool(getattr(args, "distributions", False)))
    if getattr(args, "preview", None):
        kind, _, how = args.preview.partition("-")
        window.show_preview(kind, tint=how == "tinted", error=how == "error")
    window.show()
    if image:
        job = window.open_image(image)
        if auto is None and sample and image != sample:
            SampleInstead(window, job, sample)
    elif automated:
        raise MipviewError("no image given and no bundled sample found")
    return window, auto


def run_gui(args: argparse.Namespace) -> int:
    """Entry point of ``mipview gui``; returns the exit status."""
    reserve_ui_core()
    window, auto = build_gui(args)
    freeze_startup_objects()
    status = QApplication.instance().exec()
    window.shutdown()
    release_window(window)
    return auto.status if auto is not None else status
