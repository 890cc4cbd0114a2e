"""Help > Keyboard shortcuts: every shortcut of the window, found by walking its actions.

Nothing is listed by hand: each QAction of the window (its menus', and those added to the window
itself) with a shortcut is a row, under the menu path that holds it, so an action added anywhere
later shows up without touching this module.
"""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QMainWindow,
    QMenu,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)


def _clean(text: str) -> str:
    """Menu text without its mnemonic marks and trailing dots."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").rstrip(".").strip()


def _walk(menu: QMenu, path: str, seen: set[int], rows: list[tuple[str, str, str]]) -> None:
    for action in menu.actions():
        sub = action.menu()
        if sub is not None:
            _walk(sub, f"{path} > {_clean(action.text())}", seen, rows)
        elif not action.isSeparator():
            _add(action, path, seen, rows)


def _add(action: QAction, where: str, seen: set[int], rows: list[tuple[str, str, str]]) -> None:
    if id(action) in seen:
        return
    seen.add(id(action))
    keys = [k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts()]
    keys = [k for k in keys if k]
    if keys:
        rows.append((where, _clean(action.text()), ", ".join(keys)))


def window_shortcuts(window: QMainWindow) -> list[tuple[str, str, str]]:
    """(menu path, action, keys) of every action of ``window`` that has a shortcut: its menus'
    first, in menu order, then any other action of the window or its widgets."""
    rows: list[tuple[str, str, str]] = []
    seen: set[int] = set()
    for action in window.menuBar().actions():
        if action.menu() is not None:
            _walk(action.menu(), _clean(action.text()), seen, rows)
    for action in window.findChildren(QAction):
        _add(action, "Window", seen, rows)
    return rows


class ShortcutsDialog(QDialog):
    def __init__(self, window: QMainWindow, parent: QWidget | None = None) -> None:
        super().__init__(parent if parent is not None else window)
        self.setWindowTitle("Keyboard shortcuts")
        lay = QVBoxLayout(self)
        rows = window_shortcuts(window)
        self.table = QTableWidget(len(rows), 3)
        self.table.setHorizontalHeaderLabels(["Menu", "Action", "Keys"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setDefaultSectionSize(22)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                self.table.setItem(r, c, QTableWidgetItem(text))
        lay.addWidget(self.table)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        self.resize(620, 760)

    def rows(self) -> list[tuple[str, str, str]]:
        return [tuple(self.table.item(r, c).text() for c in range(3))  # type: ignore[misc]
                for r in range(self.table.rowCount())]
