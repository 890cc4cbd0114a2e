"""The timing chart's ranges move only when the data leave them or fill less than half of them
(each move redraws the axes, the dearest part of a live repaint)."""

from __future__ import annotations

import pytest

from mipview.core.results import GpuTiming, TimingStats
from mipview.core.specs import StrategySpec
from mipview.ui import steps
from mipview.ui.messages import LiveStats
from mipview.ui.views.timing_chart import TimingChart, steady_range


def test_steady_range():
    assert steady_range((0.0, 100.0), 0.0, 80.0) is None  # inside, fills 80 %
    assert steady_range((0.0, 100.0), 0.0, 120.0) == (0.0, 150.0)  # left it: a quarter more
    assert steady_range((0.0, 100.0), 0.0, 40.0) == (0.0, 50.0)  # fills less than half
    assert steady_range((50.0, 60.0), 52.0, 58.0) is None
    assert steady_range((50.0, 60.0), 48.0, 58.0) == (45.5, 60.5)
    lo, hi = steady_range((0.0, 1.0), 2.0, 2.0)  # one value: a range around it, never < 0
    assert 0.0 <= lo < 2.0 < hi


def _stats(*medians: float) -> LiveStats:
    return LiveStats(1, "dev", tuple(
        (StrategySpec(f"s{i}"), GpuTiming(TimingStats((m * 0.98, m, m * 1.02))))
        for i, m in enumerate(medians)), 3, 0.1)


def _update(qtbot, chart: TimingChart, stats: LiveStats) -> None:
    """``update_stats`` and the history's step after it."""
    chart.update_stats(stats)
    qtbot.waitUntil(lambda: not steps.pending(), timeout=2000)


def test_chart_ranges_hold_while_the_data_stay_inside(qtbot):
    chart = TimingChart()
    qtbot.addWidget(chart)
    _update(qtbot, chart, _stats(100.0, 150.0))
    bars = chart.plot.viewRange()[1]
    assert bars[0] == 0.0 and bars[1] >= 150.0 * 1.02
    history = chart.history_plot.viewRange()
    _update(qtbot, chart, _stats(101.0, 149.0))
    assert chart.plot.viewRange()[1] == bars
    assert chart.history_plot.viewRange()[1] == history[1]
    assert chart.medians() == [101.0, 149.0]
    _update(qtbot, chart, _stats(300.0, 149.0))  # out of range: the ranges follow
    assert chart.plot.viewRange()[1][1] >= 300.0 * 1.02
    assert chart.history_plot.viewRange()[1][1] >= 300.0


@pytest.mark.usefixtures("qapp")
def test_a_mark_goes_between_the_latest_update_and_the_next():
    chart = TimingChart()
    chart.update_stats(_stats(100.0))
    chart.update_stats(_stats(110.0))
    chart.add_mark("reloaded x.comp")
    chart.update_stats(_stats(90.0))
    assert list(chart.marks) == [(2.5, "reloaded x.comp")]
    lines = [i for i in chart.history_plot.items if getattr(i, "label", None) is not None
             and i.label.format == "reloaded x.comp"]
    assert [line.value() for line in lines] == [2.5]
    for i in range(25):
        chart.add_mark(f"m{i}")
    assert len(chart.marks) == 20 and chart.marks[0][1] == "m5"
    assert len([i for i in chart.history_plot.items if hasattr(i, "label")]) == 20


def test_labels_and_curves_made_ahead_in_steps_are_the_ones_the_figures_use(qtbot):
    chart = TimingChart()
    qtbot.addWidget(chart)
    chart.prepare(["s0", "s1", "s2"])
    assert chart.value_labels == [] and chart.curves == {}  # nothing in the press of Run itself
    qtbot.waitUntil(lambda: len(chart.curves) == 3, timeout=2000)
    assert len(chart.value_labels) == len(chart.delta_labels) == 3
    made = list(chart.value_labels)
    curves = dict(chart.curves)
    assert not any(label.isVisible() for label in made)
    _update(qtbot, chart, _stats(10.0, 20.0, 30.0))
    assert chart.value_labels == made and all(label.isVisible() for label in made)
    assert [label.textItem.toPlainText() for label in made] == ["10.0 us", "20.0 us", "30.0 us"]
    # the update drew into the curves made ahead, each in its bar's colour
    assert chart.curves == curves
    assert [list(curves[f"s{i}"].getData()[1]) for i in range(3)] == [[10.0], [20.0], [30.0]]
    fresh = TimingChart()
    qtbot.addWidget(fresh)
    _update(qtbot, fresh, _stats(10.0, 20.0, 30.0))
    assert [fresh.curves[f"s{i}"].opts["pen"].color().name() for i in range(3)] == \
        [curves[f"s{i}"].opts["pen"].color().name() for i in range(3)]


def test_the_history_follows_the_bars_in_one_step_for_the_updates_meanwhile(qtbot):
    chart = TimingChart()
    qtbot.addWidget(chart)
    chart.update_stats(_stats(10.0, 20.0))
    chart.update_stats(_stats(11.0, 21.0))
    assert chart.medians() == [11.0, 21.0]  # the bars at once
    assert chart.curves == {} and steps.pending()  # the history in a step, not in this turn
    drawn = []
    original = chart._update_history
    chart._update_history = lambda: (drawn.append(1), original())
    qtbot.waitUntil(lambda: not steps.pending(), timeout=2000)
    assert drawn == [1]  # one step drew both updates
    assert [list(chart.curves[f"s{i}"].getData()[1]) for i in range(2)] == \
        [[10.0, 11.0], [20.0, 21.0]]


def test_a_history_of_one_point_shows_the_point_on_a_plain_axis(qtbot):
    chart = TimingChart()
    qtbot.addWidget(chart)
    _update(qtbot, chart, _stats(100.0))
    curve = chart.curves["s0"]
    assert curve.opts["symbol"] == "o"  # a line of one point draws nothing
    assert list(curve.getData()[0]) == [1.0] and list(curve.getData()[1]) == [100.0]
    (x0, x1), (y0, y1) = chart.history_plot.viewRange()
    assert x0 < 1.0 < x1 and x1 - x0 >= 1.0  # not 0.9998-1.0002, and the point not on an edge
    assert y0 <= 100.0 <= y1 and y1 - y0 >= 10.0
    _update(qtbot, chart, _stats(101.0))  # two points: a line again
    assert curve.opts["symbol"] is None


def test_steady_range_of_one_point_spans_what_it_is_given():
    lo, hi = steady_range((5.0, 6.0), 1.0, 1.0, 4.0)
    assert (lo, hi) == (0.0, 2.0)
    # inside a range narrower than it asks for (a new plot's 0..1): widened all the same
    assert steady_range((0.0, 1.0), 1.0, 1.0, 4.0) == (0.0, 2.0)
    assert steady_range((0.0, 2.0), 1.0, 1.0, 4.0) is None
    lo, hi = steady_range((5.0, 6.0), 1.0, 1.0)  # the least span: a range too narrow to read
    assert hi - lo < 0.01
