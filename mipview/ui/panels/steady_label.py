"""A one-line text whose changes never re-lay out the window.

A QLabel in a layout asks for a new layout whenever its text changes (``updateGeometry``), and
the request climbs every layout above it: the view's, the tab's, the dock's, the window's. With
an event filter on lavapipe, the heatmap's summary line changing per comparison made the whole
Heatmaps tab lay out and paint again 3-4 times a comparison; the chart's line of run counts did
it to the dock and the window at every live update. Here the label sits in a box of fixed height
that has no layout, and the box places it by hand: the request stops at the box.
"""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget


class SteadyLabel(QWidget):
    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel(text, self)
        self._height = self.label.sizeHint().height()
        self.setFixedHeight(self._height)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def setText(self, text: str) -> None:  # noqa: N802 (QLabel's name)
        self.label.setText(text)

    def text(self) -> str:
        return self.label.text()

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(self.label.sizeHint().width(), self._height)

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(0, self._height)

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self.label.setGeometry(self.rect())
