"""The viewer's keyboard actions: the Display and Texel menus of the window, each
action with its shortcut (Help > Keyboard shortcuts lists them by walking the window's actions).

They act on the pyramid view (display settings, lock, flip) or on the tab shown (auto-range),
and the overlay toggle on both views, so the keys work wherever the focus is.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu

from mipview.ui.panels.display_controls import CHANNEL_LABELS


def _action(window: QMainWindow, menu: QMenu, name: str, text: str, keys: str,
            fn: Callable[[], None]) -> QAction:
    action = QAction(text, window, shortcut=QKeySequence(keys))
    action.setObjectName(name)
    action.triggered.connect(lambda _=False: fn())
    menu.addAction(action)
    return action


def build_viewer_menus(window) -> dict[str, QAction]:
    """Add the Display and Texel menus to ``window`` (a MainWindow: ``pyramid``, ``heatmap``,
    ``tabs``); returns the actions by object name."""
    pyramid, heatmap = window.pyramid, window.heatmap
    controls = pyramid.controls
    bar = window.menuBar()
    actions: dict[str, QAction] = {}

    def add(menu: QMenu, name: str, text: str, keys: str, fn: Callable[[], None]) -> None:
        actions[name] = _action(window, menu, name, text, keys, fn)

    d = bar.addMenu("&Display")
    for name, key in (("exposure", "E"), ("offset", "O"), ("gamma", "G")):
        add(d, f"{name}_up", f"{name.capitalize()} up", key,
            lambda n=name: controls.step(n, 1))
        add(d, f"{name}_down", f"{name.capitalize()} down", f"Shift+{key}",
            lambda n=name: controls.step(n, -1))
    add(d, "display_reset", "Reset exposure, offset, gamma and range", "Ctrl+0", controls.reset)
    d.addSeparator()
    channels = d.addMenu("&Channel")
    for i, (channel, label) in enumerate(CHANNEL_LABELS.items(), start=1):
        add(channels, f"channel_{channel}", label, f"Ctrl+{i}",
            lambda c=channel: controls.set_channel(c))
    d.addSeparator()

    def toggle_overlay() -> None:
        on = not controls.overlay_check.isChecked()
        controls.overlay_check.setChecked(on)
        heatmap.overlay_check.setChecked(on)

    add(d, "overlay", "NaN / Inf / negative overlay on or off", "N", toggle_overlay)
    add(d, "false_colour", "Out-of-range false colour on or off", "U",
        controls.false_check.toggle)
    add(d, "checker", "Alpha checkerboard on or off", "K", controls.checker_check.toggle)
    add(d, "hiz", "Non-conservative (Hi-Z min/max) overlay on or off", "C",
        controls.hiz_check.toggle)
    def histogram():  # of the tab shown: the heatmap's, else the pyramid's
        return (heatmap if window.tabs.currentWidget() is heatmap else pyramid).histogram

    add(d, "auto_range", "Auto range (histogram)", "Shift+A", lambda: histogram().auto_range())
    for edge, key in (("black", "B"), ("white", "W")):
        add(d, f"{edge}_up", f"{edge.capitalize()} point up", key,
            lambda e=edge: histogram().nudge(e, 1))
        add(d, f"{edge}_down", f"{edge.capitalize()} point down", f"Shift+{key}",
            lambda e=edge: histogram().nudge(e, -1))
    add(d, "histogram", "Histogram shown or hidden", "H",
        lambda: [h.setVisible(not h.isVisible())
                 for h in (pyramid.histogram, heatmap.histogram)])
    add(d, "signed_map", "Heatmap: next map (max |error|, signed R, G, B, A)", "M",
        heatmap.cycle_map)

    t = bar.addMenu("&Texel")
    add(t, "go_to", "Go to texel...", "Ctrl+G", pyramid.go_to_dialog)
    add(t, "unlock", "Unlock texel", "Ctrl+Shift+G", pyramid.unlock)
    add(t, "flip", "A/B flip", "T", pyramid.flip)
    add(t, "cull_test", "Hi-Z cull test: drag a rectangle on level 0", "Z",
        pyramid.cull_button.toggle)
    return actions
