"""The status bar's busy bar: a few paints a second while a job runs, where Qt's own busy
animation repaints it (and the window behind it) about 60 times a second."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QProgressBar

from mipview.ui.panels.busy_bar import STEP_MS, BusyBar
from tests.ui.conftest import EventCount


def paints_in(qtbot, bar, ms: int) -> int:
    paints = EventCount(bar, QEvent.Type.Paint)
    qtbot.wait(ms)
    bar.removeEventFilter(paints)
    return paints.count


@pytest.mark.parametrize("kind", ["busy bar", "qt's busy bar"])
def test_a_busy_bar_paints_a_few_times_a_second(qtbot, kind):
    if kind == "busy bar":
        bar = BusyBar()
    else:  # what the window had: shows the count below can tell the two apart
        bar = QProgressBar()
        bar.setRange(0, 0)
    qtbot.addWidget(bar)
    bar.show()
    qtbot.waitExposed(bar)
    paints = paints_in(qtbot, bar, 1000)
    if kind == "busy bar":
        assert 2 <= paints <= 1000 // STEP_MS + 2  # it moves, slowly
    else:
        assert paints > 20


def test_progress_stops_the_sweep_and_busy_starts_it_again(qtbot):
    bar = BusyBar()
    qtbot.addWidget(bar)
    bar.show()
    qtbot.waitExposed(bar)
    assert bar.sweeping()
    bar.show_progress(3, 5)
    qtbot.wait(50)  # its paint of the new value
    assert not bar.sweeping()
    assert (bar.value(), bar.maximum()) == (3, 5)
    assert paints_in(qtbot, bar, 3 * STEP_MS) == 0
    bar.busy()
    assert bar.sweeping()
    bar.hide()
    assert not bar.sweeping()
    bar.show()
    assert bar.sweeping()
