"""The window's status bar and error dialogs: the device, image and last-run labels with the
busy bar, and what the window tells of the work it shows (a Run's verdicts, Vulkan validation
messages, an image's non-finite texels) or of a failure (a dialog, unless automation turned
them off)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QLabel, QMainWindow, QMessageBox, QStatusBar

from mipview.core.formats import Format
from mipview.io.imageio import SourceImage
from mipview.ui.messages import RunAnalysed, WorkerError
from mipview.ui.panels.busy_bar import BusyBar


def build(bar: QStatusBar) -> tuple[QLabel, QLabel, QLabel, BusyBar]:
    """The permanent widgets of ``bar``: the device, image and last-run labels, and the busy
    bar (hidden until a job runs)."""
    device, image, run = QLabel("device: starting..."), QLabel("no image"), QLabel("")
    progress = BusyBar()
    progress.setMaximumWidth(120)
    progress.setVisible(False)
    for w in (device, image, run):
        w.setStyleSheet("padding: 0 8px;")
        bar.addPermanentWidget(w)
    bar.addPermanentWidget(progress)
    return device, image, run, progress


def show_error(window: QMainWindow, err: WorkerError) -> None:
    """A failure: kept in ``window.errors``, shown as a dialog (``window.error_dialogs``); a
    failed open says which image stays open."""
    window.errors.append(err)
    box_text = err.message if not err.detail else f"{err.message}\n\n{err.detail[-1500:]}"
    if err.job == window.latest_job("open") and window.opened is not None:
        box_text += (f"\n\n{Path(window.opened.path).name} stays open; open another file "
                     f"with File > Open, or drop one on the window.")
    # the progress line of the failed job ("loading X") must not outlive it under the dialog
    first = str(err.message).strip().splitlines()[0] if str(err.message).strip() else ""
    window.statusBar().showMessage(f"{err.title}: {first}" if first else err.title, 20000)
    if window.error_dialogs:
        QMessageBox.critical(window, err.title, box_text)
    window.sigErrorShown.emit(err)


def show_validation(window: QMainWindow, messages: list[str] | tuple[str, ...]) -> None:
    if messages:
        window.statusBar().showMessage(
            f"{len(messages)} Vulkan validation message(s): {messages[0][:200]}", 20000)


def show_verdicts(window: QMainWindow, analysis: RunAnalysed) -> None:
    """Each result's verdict where the user looks: the status bar (out of tolerance first),
    and the title of its panel and the line of its Setup row when out of tolerance."""
    bad = {str(e.spec): e.verdict.summary() for e in analysis.errors
           if not e.within_tolerance}
    window.pyramid.set_verdicts(bad)
    window.panel.show_verdicts({e.spec.name: e.verdict.summary() for e in analysis.errors
                                if not e.within_tolerance})
    # a file's own chain is held to no bound: its fit (which filter made it) is its verdict
    ok = [f"{e.spec}: {e.verdict.summary()}" if e.verdict.fit is not None else str(e.spec)
          for e in analysis.errors if e.within_tolerance]
    lines = [f"{name}: {summary}" for name, summary in bad.items()]
    if ok:
        lines.append(("all ok: " if not bad else "ok: ") + ", ".join(ok))
    window.statusBar().showMessage("verdicts: " + "; ".join(lines), 0 if bad else 20000)


def tell_nonfinite(window: QMainWindow, src: SourceImage, fmt: Format | None) -> None:
    """Once per opened image: its NaN and +-Inf texels, in the status bar and a dialog
    that does not block (each run's analysis then shows how they propagated)."""
    note = src.nonfinite_note(fmt or src.suggested_format())
    if not note:
        return
    window.statusBar().showMessage(note, 20000)
    window.nonfinite_box = QMessageBox(QMessageBox.Icon.Information, "Non-finite texels",
                                       note, QMessageBox.StandardButton.Ok, window)
    window.nonfinite_box.open()
