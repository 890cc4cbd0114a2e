"""The Custom shaders dock in the window: its height, a compiled shader's row among the
strategies (and the Run again after an edit), and a shader that stopped compiling told in one
status line."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMainWindow


def fit_dock(window: QMainWindow) -> None:
    """The Custom shaders dock as tall as what it holds: one line while empty (the room goes
    to the Setup panel above), its list and messages once it has some; the Setup panel's
    minimum height keeps every strategy in view either way."""
    dock, shaders, panel_dock = window.shader_dock, window.shaders, window.panel_dock
    want = shaders.sizeHint().height()
    if dock.isVisible():  # else the sizes are not laid out yet
        want += max(0, dock.height() - shaders.height())  # its title bar
        # the room comes from the Setup panel, down to its minimum, not from the chart
        # below: long messages scroll instead
        spare = panel_dock.height() - panel_dock.minimumSizeHint().height()
        want = min(want, dock.height() + max(0, spare))
    window.resizeDocks([dock], [want], Qt.Orientation.Vertical)


def on_loaded(window: QMainWindow, cls: type, reloaded: bool) -> None:
    """A custom shader compiled: its row among the strategies; after an edit, the latest
    run again (a live profile restarts) if it ran that shader and nothing else runs. The
    chart's history marks the reload when the new version's figures arrive (a changed
    shader digest: timing_chart.history_marks)."""
    window.panel.add_custom(cls)
    last = window._latest.get("run")
    if reloaded and last is not None and cls.name in {s.name for s in last.specs} \
            and window.opened is not None and last.source is window.opened.source \
            and not window._busy_jobs - {last.job}:
        window._send("run", lambda job: replace(last, job=job))


def tell_problems(window: QMainWindow, name: str) -> None:
    """A shader that stopped compiling is never a dialog (it is saved often, half done):
    one status line says so and what still runs; Custom shaders lists the errors."""
    entry = window.shaders.watch.entries.get(name)
    if entry is not None and entry.problems:
        runs = "the last good version runs" if entry.good else "it runs once it compiles"
        window.statusBar().showMessage(f"{entry.path.name} does not compile ({runs}): "
                                       f"{entry.problems[0].text}", 20000)
