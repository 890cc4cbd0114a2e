"""Opening files in the window: File > Open, the recent files, drag-and-drop (an image opens,
several files or a folder go to the Batch tab, a shader to Custom shaders), the image of a file
that holds several (``choose_image``, the Image list), and what the window shows once the
worker has read an image (``on_opened``, the route of ``OpenedImage``)."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtGui import QAction, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QFileDialog, QMainWindow

from mipview.io import containers
from mipview.io.containers import exr_choice
from mipview.runs import volume
from mipview.ui.messages import OpenedImage
from mipview.ui.window import status

IMAGE_FILTER = ("Images (*.png *.jpg *.jpeg *.tif *.tiff *.bmp *.gif *.tga *.webp "
                + " ".join(f"*{s}" for s in containers.SUFFIXES) + ");;All files (*)")
MAX_RECENT = 10


def open_dialog(window: QMainWindow) -> None:
    recent = window.recent_files()
    start = str(Path(recent[0]).parent) if recent else ""
    path, _ = QFileDialog.getOpenFileName(window, "Open image", start, IMAGE_FILTER)
    if path:
        window.open_image(path)


def choose_image(window: QMainWindow, suffix: str) -> None:
    """Reopen the open file as the image its ``#`` ``suffix`` names (an EXR's channel, layer
    or part; "" the one it gives without a choice), in the worker as File > Open does."""
    if window.opened is None:
        return
    # the file read, without the suffix it was read with (as its reader split it)
    path, _ = exr_choice.split(window.opened.path)
    window.open_image(exr_choice.with_choice(path, suffix or None))


def add_recent(window: QMainWindow, path: str) -> None:
    """``path`` first in File > Open Recent; kept in the window (written at close, with the
    other settings)."""
    path = os.path.abspath(path)
    window._recent = ([path] + [p for p in window._recent if p != path])[:MAX_RECENT]
    rebuild_recent(window)


def rebuild_recent(window: QMainWindow) -> None:
    menu = window.recent_menu
    menu.clear()
    for path in window.recent_files():
        a = QAction(path, window)
        a.triggered.connect(lambda _=False, p=path: window.open_image(p))
        menu.addAction(a)
    menu.setEnabled(bool(window.recent_files()))


def drag_enter(event: QDragEnterEvent) -> None:
    if any(u.isLocalFile() for u in event.mimeData().urls()):
        event.acceptProposedAction()
    else:
        event.ignore()


def drop(window: QMainWindow, event: QDropEvent) -> None:
    files = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
    if not files:
        return
    event.acceptProposedAction()
    files = [f for f in files if f not in window.shaders.add_files(files)]
    if not files:
        return
    if len(files) > 1 or os.path.isdir(files[0]):  # several files or a folder: a batch
        window.batch.set_sources(files)
        window.tabs.setCurrentWidget(window.batch)
    else:
        window.open_image(files[0])


def on_opened(window: QMainWindow, opened: OpenedImage) -> None:
    if not window._is_latest("open", opened.job):
        return
    window.opened = opened
    window.output = window.analysis = window.volume_ran = None
    window.export_action.setEnabled(False)
    src = opened.source
    add_recent(window, opened.path)
    window.setWindowTitle(f"mipview - {Path(opened.path).name}")
    window._update_support()
    window.panel.show_images(src.texture.images if src.texture else ())
    fmt = window.current_format()
    layers = f"x{src.layers} layers" if src.layers > 1 else ""
    if src.volume:
        layers = f"x{src.depth} volume"
    window.image_label.setText(f"{src.name}: {src.width}x{src.height}{layers} "
                               f"{fmt.label if fmt else ''} ({src.description})")
    # the levels' display path (colormap, range, Depth): an image looks the same before and
    # after a run
    window.pyramid.set_pyramids([("source", f"{src.name} (source)", (opened.level0,),
                                  opened.fmt)], faces=src.faces, volume=src.volume)
    status.tell_nonfinite(window, src, fmt)
    window.panel.show_volume([volume.spec_name(*v) for v in volume.window_specs(
        window.panel.specs())] if src.volume else None)
    if src.volume:  # the strategy list is 2D's: say what a Run of this does instead
        window.statusBar().showMessage(
            "a volume: Run makes its chain with " + ", ".join(
                n for n, _, _ in volume.window_specs([])) + " (with each reduction the "
            "checked strategies ask for); Slice picks the slice shown", 20000)
    window._drop_comparisons()
    window.heatmap.clear()
    window.chart.clear()
    window.preview.clear()
    window.sigImageOpened.emit(opened)
    if window.panel.run_on_open.isChecked() and window.caps is not None:
        window.run(False)
