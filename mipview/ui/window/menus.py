"""The window's menu bar: File (open, recent files, samples, exports), Run, View, the viewer's
Display and Texel menus, Profile and Help. Each action calls the window's method or the part
that does the work; Help > Keyboard shortcuts lists them by walking the window's actions."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu

from mipview.ui.dialogs.shortcuts_dialog import ShortcutsDialog
from mipview.ui.views.timing_chart import DISTRIBUTION_VIEW, HISTORY_VIEW
from mipview.ui.views.viewer_actions import build_viewer_menus
from mipview.ui.window import encoding, exporting, opening, profiling


@dataclass(frozen=True)
class Menus:
    """The actions and menus the window changes after it is built."""
    recent: QMenu
    export: QAction
    distributions: QAction
    viewer: dict[str, QAction]


def _add(window: QMainWindow, menu: QMenu, text: str, fn: Callable[[], object],
         key: str | QKeySequence.StandardKey | None = None) -> QAction:
    a = QAction(text, window)
    if key is not None:
        a.setShortcut(QKeySequence(key))
    a.triggered.connect(lambda _=False: fn())
    menu.addAction(a)
    return a


def build(window: QMainWindow) -> Menus:
    """Every menu of ``window``, in the menu bar's order."""
    bar = window.menuBar()
    m = bar.addMenu("&File")
    _add(window, m, "&Open...", lambda: opening.open_dialog(window),
         QKeySequence.StandardKey.Open)
    recent = m.addMenu("Open &Recent")
    samples = m.addMenu("Open &Sample")
    try:
        from mipview.io import samples as sample_mod

        for name in sample_mod.SAMPLES:
            _add(window, samples, name,
                 lambda n=name: window.open_image(str(sample_mod.sample_path(n))))
    except ImportError:
        samples.setEnabled(False)
    m.addSeparator()
    export = _add(window, m, "&Export chain...", lambda: exporting.export_dialog(window))
    export.setToolTip("Write the chain of the result shown as KTX2, DDS or EXR")
    export.setEnabled(False)
    for text, fn in (("Export timings as &CSV...", exporting.export_csv),
                     ("Export chart as &PNG...", exporting.export_png),
                     ("Save &window screenshot...", exporting.save_screenshot)):
        _add(window, m, text, lambda f=fn: f(window))
    m.addSeparator()
    _add(window, m, "&Quit", window.close, QKeySequence.StandardKey.Quit)
    r = bar.addMenu("&Run")
    for text, key, fn in (("&Run", "Ctrl+R", lambda: window.run(False)),
                          ("Profile &live", "Ctrl+L", lambda: window.run(True)),
                          ("&Stop", "Escape", window.stop)):
        _add(window, r, text, fn, key)
    encode = _add(window, r, "&Encode result", lambda: encoding.encode_chosen(window), "Ctrl+E")
    encode.setToolTip("Block-compress the result the Heatmaps tab shows, as its Encode control "
                      "says, and show the codec's and the total error per level")
    v = bar.addMenu("&View")
    for dock in (window.panel_dock, window.chart_dock, window.shader_dock):
        v.addAction(dock.toggleViewAction())
    _add(window, v, "&Fit", window.pyramid.fit, "F")
    _add(window, v, "&1:1", window.pyramid.one_to_one, "1")
    viewer = build_viewer_menus(window)
    distributions = _build_profile_menu(window)
    h = bar.addMenu("&Help")
    _add(window, h, "&Keyboard shortcuts...", lambda: ShortcutsDialog(window).exec(), "F1")
    return Menus(recent, export, distributions, viewer)


def _build_profile_menu(window: QMainWindow) -> QAction:
    """The Profile menu; returns its Distributions action (the chart's view switches it)."""
    p = window.menuBar().addMenu("&Profile")
    for text, key, fn in (
            ("&Open saved run...", "Ctrl+Shift+O", lambda: profiling.open_saved_dialog(window)),
            ("Load &baseline...", "Ctrl+B", lambda: profiling.baseline_dialog(window)),
            ("&Use the shown run as baseline", "Ctrl+Shift+B", window.use_run_as_baseline),
            ("&Clear baseline", "Ctrl+Alt+B", lambda: window.set_baseline(None))):
        _add(window, p, text, fn, key)
    p.addSeparator()
    chart = window.chart
    distributions = QAction("&Distributions beside the bars", window, checkable=True,
                            shortcut=QKeySequence("Ctrl+D"))
    distributions.toggled.connect(lambda on: chart.set_view(
        DISTRIBUTION_VIEW if on else HISTORY_VIEW))
    chart.view_combo.currentTextChanged.connect(
        lambda view: distributions.setChecked(view == DISTRIBUTION_VIEW))
    p.addAction(distributions)
    p.addSeparator()
    dock = window.preview_dock.toggleViewAction()
    dock.setText("Sampled &preview")
    dock.setShortcut(QKeySequence("Ctrl+Shift+P"))
    p.addAction(dock)
    p.addAction(window.preview.tint_action)
    return distributions
