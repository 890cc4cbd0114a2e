"""The Custom shaders dock: the shaders added as strategies (Add shader..., or a .comp/.spv
file dropped on the window), each one's state, and the messages of its latest compile: compiler
errors as ``FILE:LINE: ...`` and interface or pragma problems, one line each; activating a line
opens its file. The list is kept in the settings and comes back at the next start; the shaders
themselves are watched and compiled by :class:`~mipview.ui.workers.shader_watch.ShaderWatch`.

An empty part takes no room: with no shader the panel is one line (Add shader..., or drop a file),
and the messages show only while there are some; the window fits the dock to what it holds on
``sigPartsChanged``.

Signals
-------
sigLoaded(type, bool)   a new good version of a shader (its strategy class); True for a reload
sigRemoved(str)         a shader's name, after Remove
sigCompiled(str)        a compile's result is shown (tests wait on it)
sigPartsChanged()       the shader list or the messages appeared or went away
sigError(WorkerError), sigProgress(str)   the compiler's
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from PySide6.QtCore import QSettings, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QPalette
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from mipview.ui.settings import string_list
from mipview.ui.workers.shader_watch import Problem, ShaderWatch, is_shader_file

SETTINGS_KEY = "shaders/paths"
FILE_FILTER = "Compute shaders (*.comp *.spv)"
#: QWIDGETSIZE_MAX: no maximum height, once the panel holds something
_NO_MAX = (1 << 24) - 1


class ShaderPanel(QWidget):
    sigLoaded = Signal(object, bool)
    sigRemoved = Signal(str)
    sigCompiled = Signal(str)
    sigError = Signal(object)
    sigProgress = Signal(str)
    sigPartsChanged = Signal()

    def __init__(self, settings: QSettings | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._settings = settings
        self.watch = ShaderWatch(self)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        self.list = QListWidget()
        self.list.setToolTip("Shaders run as strategies; saving one runs the last run again")
        # as tall as its lines (the window fits the dock to it), not a fixed blank box
        self.list.setSizeAdjustPolicy(QListWidget.SizeAdjustPolicy.AdjustToContents)
        lay.addWidget(self.list, 1)
        buttons = QHBoxLayout()
        self.add_button = QPushButton("Add shader...")
        self.add_button.setToolTip("A GLSL (.comp) or SPIR-V (.spv) compute shader as a "
                                   "strategy (docs/custom-strategies.md); or drop it on the window")
        self.add_button.clicked.connect(self._add_dialog)
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(self._remove_selected)
        self.hint = QLabel("or drop a .comp or .spv file")
        self.hint.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.hint, 1)
        buttons.addWidget(self.remove_button)
        lay.addLayout(buttons)
        self.messages_label = QLabel("Messages")
        lay.addWidget(self.messages_label)
        self.messages = QListWidget()
        self.messages.setWordWrap(True)
        self.messages.setSizeAdjustPolicy(QListWidget.SizeAdjustPolicy.AdjustToContents)
        # squeezed by a short window, a line of each still shows (and scrolls), without
        # making the window taller than the screen
        line = self.fontMetrics().lineSpacing() + 8
        self.list.setMinimumHeight(line + 2 * self.list.frameWidth())
        self.messages.setMinimumHeight(2 * line + 2 * self.messages.frameWidth())
        self.messages.setToolTip("Activate a line to open its file")
        self.messages.itemActivated.connect(self._activated)
        lay.addWidget(self.messages, 1)
        #: (has shaders, has messages) as last shown
        self._parts: tuple[bool, bool] | None = None
        self._show_parts()

        w = self.watch
        w.sigLoaded.connect(self.sigLoaded)
        w.sigState.connect(lambda _: self._refresh())
        w.sigCompiled.connect(self.sigCompiled)
        w.compiler.sigError.connect(self.sigError)
        w.compiler.sigProgress.connect(self.sigProgress)
        for path in self._saved():
            self.watch.add(path)

    # --- the list ----------------------------------------------------------------------------
    def add(self, path: str | os.PathLike[str]) -> str:
        """Add (or compile again) the shader ``path``; returns its strategy name. Its row among
        the strategies comes with the first good compile (sigLoaded)."""
        return self.watch.add(path)

    def add_files(self, files: Iterable[str]) -> list[str]:
        """Add those of ``files`` that are shaders (.comp, .spv); returns them."""
        shaders = [f for f in files if is_shader_file(f)]
        for f in shaders:
            self.add(f)
        return shaders

    def remove(self, name: str) -> None:
        self.watch.remove(name)
        self.sigRemoved.emit(name)

    def names(self) -> list[str]:
        return list(self.watch.entries)

    def problems(self) -> list[Problem]:
        """The lines the messages list shows."""
        return [p for e in self.watch.entries.values() for p in e.problems]

    def shutdown(self, wait: bool = True) -> None:
        self.watch.shutdown(wait)

    # --- persistence -------------------------------------------------------------------------
    def _saved(self) -> list[str]:
        return string_list(self._settings, SETTINGS_KEY) if self._settings is not None else []

    def save(self) -> None:
        """Write the shader list to the settings (the window calls it at close)."""
        if self._settings is not None:
            self._settings.setValue(SETTINGS_KEY,
                                    [str(e.path) for e in self.watch.entries.values()])

    # --- view ----------------------------------------------------------------------------------
    def _refresh(self) -> None:
        selected = {i.data(Qt.ItemDataRole.UserRole) for i in self.list.selectedItems()}
        self.list.clear()
        for name, e in self.watch.entries.items():
            if e.compiling:
                state = "compiling..."
            elif e.problems:
                state = "error: the last good version runs" if e.good else "error"
            elif e.good is not None:
                shader = e.good.shader
                state = f"{shader.kind}, {len(shader.options)} option(s)"
            else:
                state = ""
            item = QListWidgetItem(f"{e.path.name}   {state}")
            item.setData(Qt.ItemDataRole.UserRole, name)
            item.setToolTip(str(e.path))
            self.list.addItem(item)
            item.setSelected(name in selected)
        self.messages.clear()
        for p in self.problems():
            item = QListWidgetItem(p.text)
            item.setData(Qt.ItemDataRole.UserRole, (p.file, p.line))
            if p.file:
                item.setToolTip(f"open {p.file}" + (f" (line {p.line})" if p.line else ""))
            self.messages.addItem(item)
        self._show_parts()

    def _show_parts(self) -> None:
        """Show the list and the messages only when they hold something: an empty panel is a
        line of buttons, with no height to take from the Setup panel above it."""
        parts = (bool(self.watch.entries), self.messages.count() > 0)
        if parts == self._parts:
            return
        self._parts = shaders, messages = parts
        self.list.setVisible(shaders)
        self.remove_button.setVisible(shaders)
        self.hint.setVisible(not shaders)
        self.messages_label.setVisible(messages)
        self.messages.setVisible(messages)
        self.setMaximumHeight(_NO_MAX if shaders or messages else self.sizeHint().height())
        self.sigPartsChanged.emit()

    def _add_dialog(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(self, "Add shader", "", FILE_FILTER)
        self.add_files(files)

    def _remove_selected(self) -> None:
        for name in [i.data(Qt.ItemDataRole.UserRole) for i in self.list.selectedItems()]:
            self.remove(name)

    def _activated(self, item: QListWidgetItem) -> None:
        file, line = item.data(Qt.ItemDataRole.UserRole)
        if file:
            self.open_location(file, line)

    def open_location(self, file: str, line: int | None) -> None:
        """Open ``file`` with the desktop's editor for it (which cannot be told the line)."""
        QDesktopServices.openUrl(QUrl.fromLocalFile(file))
