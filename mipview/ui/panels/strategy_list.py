"""The Setup panel's strategy list: one compact row per strategy (its checkbox, then a one-line
summary of its options that differ from the defaults, else its title), and a current row whose
options the detail pane below shows (:mod:`mipview.ui.panels.option_pane`).

Rows stay one line whatever is checked, so every strategy fits at once; the list is as tall as
its rows (it scrolls only past ``MAX_ROWS``, custom shaders included).

Signals
-------
sigCurrent(str)   the current row's strategy name (a click on its row, its checkbox focused, the
                  arrow keys; Space checks the current row)
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QWidget,
)

#: past this many rows the list scrolls rather than take the whole panel
MAX_ROWS = 14
_NAME_ROLE = Qt.ItemDataRole.UserRole


class ElidedLabel(QLabel):
    """One line that ends in "..." where it does not fit (its tooltip has all of it), so a long
    summary never widens the panel."""

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(0, super().minimumSizeHint().height())

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(0, super().sizeHint().height())

    def paintEvent(self, event) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        text = self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight,
                                             self.width())
        painter.drawText(self.rect(), int(Qt.AlignmentFlag.AlignVCenter), text)


class StrategyList(QListWidget):
    sigCurrent = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setToolTip("Check the strategies to run; select one to edit its options below")
        # the row's checkbox and text stay readable on the current row: a tint, not a fill
        pal = self.palette()
        tint = QColor(pal.color(QPalette.ColorRole.Highlight))
        tint.setAlpha(70)
        for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
            pal.setColor(group, QPalette.ColorRole.Highlight, tint)
            pal.setColor(group, QPalette.ColorRole.HighlightedText,
                         pal.color(QPalette.ColorRole.Text))
        self.setPalette(pal)
        self.currentItemChanged.connect(self._current_changed)
        self._checks: dict[QObject, str] = {}
        #: the rows of :meth:`set_fixed_rows`, first in the list
        self._fixed: list[QListWidgetItem] = []

    def clear_rows(self) -> None:
        self._checks.clear()
        self._fixed = []
        self.blockSignals(True)  # the current row is put back by the caller
        self.clear()
        self.blockSignals(False)

    def add_row(self, name: str, check: QCheckBox, summary: QLabel) -> None:
        """A row of ``check`` and ``summary`` for strategy ``name``."""
        row, item = _row(name, check, summary)
        self.addItem(item)
        self.setItemWidget(item, row)
        # focusing a checkbox (a click, Tab) makes its row current; a click on a disabled one
        # reaches the list itself, so an unsupported strategy's options can still be changed
        check.installEventFilter(self)
        self._checks[check] = name
        self._fit()

    def set_fixed_rows(self, rows: list[tuple[str, str, str]]) -> None:
        """Rows of (name, summary, tooltip) that stand for what the other rows make, first in
        the list, checked and not editable, the other rows hidden meanwhile (a volume's Run is
        its own strategies'); [] shows the other rows again."""
        for item in self._fixed:
            self.takeItem(self.row(item))
        self._fixed = []
        for i, (name, text, tip) in enumerate(rows):
            check = QCheckBox(name)
            check.setChecked(True)
            check.setEnabled(False)
            row, item = _row(name, check, ElidedLabel(text))
            row.setToolTip(tip)
            item.setFlags(Qt.ItemFlag.NoItemFlags)
            self.insertItem(i, item)
            self.setItemWidget(item, row)
            self._fixed.append(item)
        for i in range(len(self._fixed), self.count()):
            self.setRowHidden(i, bool(rows))
        self._fit()

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.FocusIn and obj in self._checks:
            self.select(self._checks[obj])
        return False

    def keyPressEvent(self, event) -> None:  # noqa: N802
        """Space checks or unchecks the current row, as it would its focused checkbox."""
        item = self.currentItem()
        check = None if item is None else next(
            (c for c, n in self._checks.items() if n == item.data(_NAME_ROLE)), None)
        if event.key() == Qt.Key.Key_Space and isinstance(check, QCheckBox) \
                and check.isEnabled():
            check.toggle()
            return
        super().keyPressEvent(event)

    def select(self, name: str) -> None:
        for i in range(self.count()):
            if self.item(i).data(_NAME_ROLE) == name:
                self.setCurrentRow(i)
                return

    def current(self) -> str | None:
        item = self.currentItem()
        return None if item is None else str(item.data(_NAME_ROLE))

    def names(self) -> list[str]:
        return [str(self.item(i).data(_NAME_ROLE)) for i in range(self.count())]

    def _current_changed(self, item: QListWidgetItem | None, _previous) -> None:
        if item is not None:
            self.sigCurrent.emit(str(item.data(_NAME_ROLE)))

    def _fit(self) -> None:
        """As tall as its rows, up to MAX_ROWS: the layout may not squeeze it into a scroll."""
        rows = [self.sizeHintForRow(i) for i in range(self.count()) if not self.isRowHidden(i)]
        height = sum(rows[:MAX_ROWS]) + 2 * self.frameWidth()
        self.setFixedHeight(max(height, 2 * self.frameWidth() + 1))


def _row(name: str, check: QCheckBox, summary: QLabel) -> tuple[QWidget, QListWidgetItem]:
    """The widget of a strategy's row (its checkbox, then its summary) and the list item that
    holds it, named ``name``."""
    row = QWidget()
    lay = QHBoxLayout(row)
    lay.setContentsMargins(4, 1, 4, 1)
    lay.setSpacing(10)
    lay.addWidget(check)
    lay.addWidget(summary, 1)
    item = QListWidgetItem()
    item.setData(_NAME_ROLE, name)
    item.setSizeHint(QSize(0, row.sizeHint().height()))
    return row, item
