"""A SteadyLabel's text changes do not lay out the widgets above it again, where a QLabel's
climb every layout up to the window (measured: the whole Heatmaps tab painted again 3-4 times
a comparison)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from mipview.ui.panels.steady_label import SteadyLabel
from tests.ui.conftest import EventCount


@pytest.mark.parametrize("kind", [SteadyLabel, QLabel])
def test_text_changes_lay_out_nothing_above(qtbot, kind):
    outer = QWidget()
    qtbot.addWidget(outer)
    inner = QWidget()
    row = QHBoxLayout(inner)
    row.addWidget(QLabel("runs:"))
    text = kind("")
    row.addWidget(text, 1)
    QVBoxLayout(outer).addWidget(inner)
    outer.resize(600, 100)
    outer.show()
    qtbot.waitExposed(outer)
    qtbot.wait(20)
    requests = [EventCount(w, QEvent.Type.LayoutRequest) for w in (outer, inner)]
    for i in range(5):
        text.setText(f"  {i * 997} runs per strategy (live, {i * 1.7:.1f} s)")
        qtbot.wait(5)
    assert text.text().startswith("  3988 runs")
    if kind is SteadyLabel:
        assert [r.count for r in requests] == [0, 0]
        assert text.label.geometry() == text.rect() and text.width() > 300  # it stretches
    else:  # what the views had
        assert requests[1].count > 0
