"""An axis with reserve_tick_text keeps its width when its tick labels grow, so its plot is not
laid out (and painted) again; a plain pyqtgraph axis widens at its next paint."""

from __future__ import annotations

import pyqtgraph as pg
import pytest

from mipview.ui.views.steady_axis import reserve_tick_text


@pytest.mark.parametrize("reserved", [True, False])
def test_growing_tick_labels_keep_the_axis_width(qtbot, reserved):
    widget = pg.PlotWidget()
    qtbot.addWidget(widget)
    axis = widget.getPlotItem().getAxis("left")
    if reserved:
        reserve_tick_text(axis, "00000")
    widget.resize(400, 300)
    widget.show()
    qtbot.waitExposed(widget)
    widget.setYRange(0, 60, padding=0)
    widget.grab()  # an axis measures its labels while it paints
    qtbot.wait(10)
    narrow = axis.width()
    widget.setYRange(0, 16000, padding=0)
    widget.grab()
    qtbot.wait(10)
    if reserved:
        assert axis.width() == narrow
    else:  # what the heatmap and the chart had: "60" to "16000" widens the axis
        assert axis.width() > narrow
