"""The Setup panel's detail pane: the options of the current strategy only, one combo box per
option, below the strategy list. Every strategy has a page (its combo boxes live as long as its
row, whether shown or not); only the current one is shown, and the pane scrolls when it is
taller than the room left, so a strategy with many options never pushes the list away.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from mipview.gpu.strategies.base import Strategy

#: a combo box may shrink to this many characters in a narrow panel (its list still shows all)
MIN_COMBO_CHARS = 8
#: option rows the pane keeps in view however little room the docks below leave it
MIN_ROWS = 3


class OptionCombo(QComboBox):
    """A combo box that leaves the mouse wheel to the pane unless it has the focus: scrolling
    through a long list of options must not change the ones the pointer passes over."""

    def __init__(self, name: str, help_text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.label = QLabel(name)
        self._help = help_text
        self.setToolTip(help_text)

    def set_idle(self, needs: str | None) -> None:
        """Grey the option and its label out while it changes nothing (``needs``: the choice
        that would make it count, e.g. ``filter=kaiser``), so that the user sees which options
        of a strategy are in play; its value stays, for when they are again."""
        for widget in (self, self.label):
            widget.setEnabled(needs is None)
        self.setToolTip(self._help if needs is None else f"No effect here: only with {needs}."
                        f"\n{self._help}")

    def wheelEvent(self, event) -> None:  # noqa: N802 - Qt override
        if self.hasFocus():
            super().wheelEvent(event)
        else:
            event.ignore()


class OptionPane(QGroupBox):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Options", parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        self._pages_box = QWidget()
        self._pages = QVBoxLayout(self._pages_box)
        self._pages.setContentsMargins(0, 0, 0, 0)
        self._pages.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self._pages_box)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        lay.addWidget(scroll)
        self.scroll = scroll
        row = QComboBox().sizeHint().height() + 3  # a row: a combo box and the form's spacing
        scroll.setMinimumHeight(MIN_ROWS * row)
        self.page: dict[str, QWidget] = {}
        self._labels: dict[str, str] = {}
        self._shown: str | None = None

    def clear(self) -> None:
        for page in self.page.values():
            self._pages.removeWidget(page)
            page.deleteLater()
        self.page.clear()
        self._labels.clear()
        self._shown = None

    def add_page(self, name: str, cls: type[Strategy], label: str) -> dict[str, OptionCombo]:
        """The (hidden) page of strategy ``name`` (``label`` in titles): a combo box per option
        of ``cls``, each set to its default and named ``option:NAME:OPTION``; returns them by
        option name."""
        page = QWidget()
        page.hide()
        form = QFormLayout(page)
        form.setContentsMargins(4, 0, 0, 0)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setVerticalSpacing(3)
        combos: dict[str, OptionCombo] = {}
        for opt in cls.options:
            combo = OptionCombo(opt.name, f"{opt.help}\n(default {opt.default})" if opt.help
                                else f"default {opt.default}")
            combo.setObjectName(f"option:{name}:{opt.name}")
            combo.addItems(list(opt.choices))
            combo.setCurrentText(opt.default)
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(MIN_COMBO_CHARS)
            form.addRow(combo.label, combo)
            combos[opt.name] = combo
        if not cls.options:
            none = QLabel(f"{label} has no options")
            none.setForegroundRole(QPalette.ColorRole.PlaceholderText)
            form.addRow(none)
        self._pages.insertWidget(self._pages.count() - 1, page)  # above the stretch
        self.page[name] = page
        self._labels[name] = label
        return combos

    def show_page(self, name: str | None) -> None:
        """Show the options of ``name`` (None: of none)."""
        for key, page in self.page.items():
            page.setVisible(key == name)
        self._shown = name if name in self.page else None
        self.setTitle(f"Options of {self._labels[self._shown]}" if self._shown else "Options")
        self.scroll.verticalScrollBar().setValue(0)

    def shown(self) -> str | None:
        return self._shown
