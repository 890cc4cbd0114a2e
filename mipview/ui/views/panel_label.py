"""A pyramid panel's title (:class:`PanelLabel`): a label that never widens its grid column.

The pyramid view's panels are boxes of locked aspect whose ranges are linked to the first
one's; pyqtgraph keeps a linked box's range by scaling it to its own aspect, so boxes of
different widths push each other's ranges further out on every resize, until a cube's cross
is a dot. A ``pg.LabelItem`` asks for its text's width as its minimum, so one long title (a
cube's seam metric, the Hi-Z counts) made its column wider than the others: this label asks
for no width, clips its text to its box and keeps every column alike.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGraphicsItem


class PanelLabel(pg.LabelItem):
    """A ``pg.LabelItem`` of a fixed line height and no minimum width, its text clipped."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemClipsChildrenToShape, True)

    def updateMin(self) -> None:  # noqa: N802 - pyqtgraph override
        super().updateMin()
        height = self.itemRect().height()
        self.setMinimumWidth(0)
        for hint in (Qt.SizeHint.MinimumSize, Qt.SizeHint.PreferredSize):
            self._sizeHint[hint] = (0, height)
        self.updateGeometry()
