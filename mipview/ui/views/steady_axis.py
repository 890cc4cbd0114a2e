"""Plot axes whose tick labels never re-lay out their plot.

A pyqtgraph axis learns how wide its tick labels are while it paints, and widens or narrows
itself when they change (``autoExpandTextSpace``): "60" became "4000" when the heatmap showed
another level, "900" became "1200" when a live median grew. The new width lays the plot out
again, so the turn that painted it paints it a second time: on lavapipe the heatmap's comparison
painted its view and histogram twice in one 41-50 ms turn, and live profiling re-laid out the
chart's plots. An axis here reserves the room of the widest label its plot will show instead,
set once from the font, the way :class:`~mipview.ui.panels.steady_label.SteadyLabel` keeps a
line of text from climbing the layouts.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtGui import QFontMetricsF


def reserve_tick_text(axis: pg.AxisItem, widest: str) -> None:
    """Give ``axis`` the room of tick label ``widest`` for good (its height, on a horizontal
    axis); a longer label still draws, over the plot's margin."""
    metrics = QFontMetricsF(axis.style["tickFont"] or axis.font())
    if axis.orientation in ("left", "right"):
        axis.setStyle(autoExpandTextSpace=False,
                      tickTextWidth=int(metrics.horizontalAdvance(widest)) + 1)
    else:
        axis.setStyle(autoExpandTextSpace=False, tickTextHeight=int(metrics.height()) + 1)
