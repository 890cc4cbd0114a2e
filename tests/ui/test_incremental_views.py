"""The views set a graphics item only when what it shows changed (the window never
stutters): pyqtgraph redraws an item, its axis or its plot's layout on every set, even of the
same data, and a Run shows its figures, maps and levels again and again, mostly unchanged."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from mipview.check.verdict import ReferenceCache
from mipview.core.formats import Format, mip_count
from mipview.core.results import DeviceSummary, RunResult, StrategyResult
from mipview.core.specs import StrategySpec
from mipview.runs.analysis import analyse_strategy
from mipview.ui.messages import LevelsReady
from tests.ui.conftest import stamp_image
from tests.ui.test_timing_chart import _stats

DEVICE = DeviceSummary("gpu", "discrete", "d", "1.3", 32)


def _count(calls: Counter, monkeypatch, **methods: tuple[object, str]) -> None:
    """Count calls of each (object, method) under its name in ``calls``; they still run."""
    for name, (obj, method) in methods.items():
        real = getattr(obj, method)

        def counted(*args, _real=real, _name=name, **kwargs):
            calls[_name] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(obj, method, counted)


@pytest.mark.usefixtures("qapp")
def test_the_chart_sets_only_what_changed(monkeypatch):
    from mipview.ui.views.timing_chart import TimingChart

    chart = TimingChart()
    chart.update_stats(_stats(100.0, 150.0))
    calls: Counter = Counter()
    _count(calls, monkeypatch, bars=(chart.bars, "setOpts"),
           whiskers=(chart.whiskers, "setData"),
           label=(chart.value_labels[0], "setText"),
           ticks=(chart.plot.getAxis("bottom"), "setTicks"),
           x=(chart.plot, "setXRange"), y=(chart.plot, "setYRange"),
           baseline=(chart.baseline_ticks, "setData"),
           title=(chart.plot, "setTitle"))
    # the same figures again (a Run's final ones after its last live ones), then the baseline's
    # verdict of them: nothing on the bar chart is set again
    chart.update_stats(_stats(100.0, 150.0))
    chart.set_baseline(None)
    assert calls == Counter()

    # a Run warms up (the chart empties) and brings the same strategies at the same scale:
    # their slots and range stay, only the bars come back
    chart.clear()
    chart.update_stats(_stats(101.0, 149.0))
    assert calls["ticks"] == calls["x"] == calls["y"] == calls["title"] == 0
    assert calls["bars"] == 2 and calls["label"] == 1
    assert chart.value_labels[0].toPlainText() == "101.0 us"
    assert chart.medians() == [101.0, 149.0]

    # another median and another strategy: the text, the slots and the range follow
    chart.update_stats(_stats(300.0, 149.0, 20.0))
    assert chart.value_labels[0].toPlainText() == "300.0 us"
    assert chart.value_labels[2].toPlainText() == "20.0 us"
    assert calls["ticks"] == calls["x"] == calls["y"] == 1
    assert [t for _, t in chart.plot.getAxis("bottom")._tickLevels[0]] == ["s0", "s1", "s2"]
    assert chart.plot.viewRange()[1][1] >= 300.0 * 1.02


def _levels_ready(job: int) -> LevelsReady:
    """A Run of one strategy on the 64x48 stamp, made on the CPU: level 0 and flat levels."""
    level0 = stamp_image()
    levels = (level0, *(np.full((max(1, 48 >> i), max(1, 64 >> i), 4), 30 * i, np.uint8)
                        for i in range(1, mip_count(64, 48))))
    res = StrategyResult(StrategySpec("per-level"), levels)
    mip = RunResult(Format.UNORM, 64, 48, 1, DEVICE, (res,))
    return LevelsReady(job, mip, level0)


def test_the_heatmap_sets_its_title_colours_and_range_only_when_they_change(qtbot,
                                                                             monkeypatch):
    from mipview.ui.views.heatmap_view import HeatmapView

    heat = HeatmapView()
    qtbot.addWidget(heat)
    heat.resize(700, 600)
    heat.show()
    refs = ReferenceCache()
    first = _levels_ready(1)
    analysis = analyse_strategy(first.mip.results[0], first.level0, Format.UNORM, refs)
    heat.set_run(first)
    heat.add_errors(analysis)
    title = heat.plot.titleLabel.text
    levels = heat.colorbar.levels()
    assert title.startswith(f"level {heat.worst_level}:") and levels[1] > 0
    shown = heat.plot.viewRange()
    calls: Counter = Counter()
    _count(calls, monkeypatch, cmap=(heat.colorbar, "setColorMap"),
           levels=(heat.colorbar, "setLevels"), title=(heat.plot, "setTitle"),
           fit=(heat.plot, "autoRange"), label=(heat.colorbar.axis, "setLabel"))

    # a later Run, the same figures: its map is shown at the scale, colours and range shown
    heat.set_run(_levels_ready(2))
    heat.add_errors(analysis)
    assert np.array_equal(heat.image.image, heat.maps[heat.worst_level])
    assert calls["cmap"] == calls["levels"] == calls["fit"] == calls["label"] == 0
    assert heat.plot.titleLabel.text == title and heat.colorbar.levels() == levels
    assert heat.plot.viewRange() == shown

    heat.cmap_combo.setCurrentText("viridis")  # another colour map is set, and once
    assert calls["cmap"] == 1
    heat.table.selectRow(0)  # another level: its scale, title and range
    assert heat.plot.titleLabel.text.startswith("level 0: 64x48")
    assert calls["fit"] == 1 and heat.plot.viewRange() != shown
    heat.shutdown()


def test_a_later_run_of_the_same_image_is_not_fitted_again(view, monkeypatch):
    fmt = Format.UNORM
    pyramid = _levels_ready(1).mip.results[0].levels
    view.set_pyramids([("a", "A", pyramid, fmt), ("b", "B", pyramid, fmt)])
    fitted = view.panels[0].view.viewRange()
    calls: Counter = Counter()
    _count(calls, monkeypatch, range=(view.panels[0].view, "setRange"))
    view.prepare([("a", "A"), ("b", "B")], 64, 48)
    view.set_pyramids([("a", "A", pyramid, fmt), ("b", "B", pyramid, fmt)])
    assert calls["range"] == 0 and view.panels[0].view.viewRange() == fitted

    view.panels[0].view.setRange(xRange=(3, 13), yRange=(2, 12), padding=0)
    view.fit()  # zoomed in: fitted again, to the range it had
    assert calls["range"] == 2 and np.allclose(view.panels[0].view.viewRange(), fitted)


def test_a_maps_colours_are_made_in_the_pool_as_its_image_item_makes_them(qtbot, monkeypatch):
    import pyqtgraph as pg

    from mipview.ui.views.heatmap_view import HeatmapView

    heat = HeatmapView()
    qtbot.addWidget(heat)
    heat.pool.sync_texels = 0  # every map in the pool's thread, as a large one
    first = _levels_ready(1)
    heat.set_run(first)
    heat.add_errors(analyse_strategy(first.mip.results[0], first.level0, Format.UNORM,
                                     ReferenceCache()))
    qtbot.waitUntil(lambda: heat.image.image is not None and not heat.pool.busy())
    plain = pg.ImageItem(axisOrder="row-major")
    plain.setImage(heat.image.image, levels=heat.colorbar.levels())
    plain.setColorMap(heat.colorbar.colorMap())
    plain.render()
    made = Counter()
    real = pg.ImageItem.render
    monkeypatch.setattr(pg.ImageItem, "render",
                        lambda item: (made.update([item]), real(item))[1])
    heat.image.render()  # the pool's colours: the same as the item would make
    assert not made and heat.image.qimage == plain.qimage
    heat.histogram.set_range(0.0, heat.colorbar.levels()[1] / 2)  # dragged: it makes its own
    heat.image.render()
    assert made[heat.image] == 1
    heat.shutdown()
