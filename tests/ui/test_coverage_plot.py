"""The Heatmaps tab's coverage plot: a filtered run on a cutout texture plots the coverage per
level that the report writes (and the exact reference's); a box run hides it."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mipview.check import tolerances
from mipview.check.filter_reference import coverage, filtered_pyramid, result_figures
from mipview.core.filters.spec import parse_filter
from mipview.core.specs import StrategySpec
from mipview.runs.analysis import LevelFigures
from mipview.ui.views.coverage_plot import CoveragePlot
from tests.ui.test_main_window import open_and_wait, run_and_wait

ROOT = Path(__file__).resolve().parents[2]
FOLIAGE = ROOT / "resources" / "foliage_256.png"
FILTERED = StrategySpec.parse("per-level:filter=tent,alpha=premultiplied")
BOX = StrategySpec.parse("per-level")


def _curve(item) -> tuple[list[float], list[float]]:
    x, y = item.getData()
    return ([] if x is None else list(x)), ([] if y is None else list(y))


def test_filtered_cutout_run_plots_the_reports_coverage(qtbot, make_window):
    w = make_window()
    open_and_wait(qtbot, w, FOLIAGE)
    got = run_and_wait(qtbot, w, [FILTERED, BOX], repeat=1)
    mip = got["output"].mip
    res = {str(r.spec): r for r in mip.results}
    filtered = res[str(FILTERED)]
    view, plot = w.heatmap, w.heatmap.coverage

    view.select(str(FILTERED))
    report = result_figures(filtered.levels, mip.fmt, filtered.reduction)
    want = [float(v) for v in report["coverage"]]  # type: ignore[union-attr]
    assert want[0] < 1.0 and len(set(want)) > 1  # a cutout: the figures say something
    assert not plot.isHidden()
    x, y = _curve(plot.result)
    assert x == list(range(len(filtered.levels))) and y == want
    assert _curve(plot.level0)[1] == [want[0], want[0]]
    level0 = np.asarray(filtered.levels[0])
    spec = parse_filter(filtered.reduction)
    exact = [coverage(lv, mip.fmt, spec.cutoff)
             for lv in filtered_pyramid(level0, mip.fmt, spec)]
    assert _curve(plot.reference)[1] == exact
    assert _curve(plot.length)[0] == []  # not a normal map

    view.select(str(BOX))
    assert plot.isHidden() and _curve(plot.result)[1] == []
    view.select(str(FILTERED))  # back: shown again, same figures
    assert not plot.isHidden() and _curve(plot.result)[1] == want


def test_plot_hides_without_figures_and_draws_normal_map_lengths(qtbot):
    plot = CoveragePlot()
    qtbot.addWidget(plot)
    opaque = LevelFigures(0.5, (1.0, 1.0, 1.0), (1.0, 1.0, 1.0))
    plot.set_figures(opaque)
    assert plot.isHidden()  # nothing cut out: nothing to see
    normal = LevelFigures(0.5, (1.0, 1.0, 1.0), (1.0, 1.0, 1.0), (None, 0.93, 0.81))
    plot.set_figures(normal)
    assert not plot.isHidden()
    assert _curve(plot.length) == ([1, 2], [0.93, 0.81])
    plot.set_figures(None)
    assert plot.isHidden()



def test_coverage_is_a_choice_of_the_panel_and_its_plot_keeps_level0s(qtbot, make_window):
    """alpha=coverage runs on the GPU now: its row is enabled (the panel greys out what
    unsupported_reason says), and the plotted coverage stays within 1% of level 0's."""

    kept = StrategySpec.parse("per-level:filter=tent,alpha=coverage")
    w = make_window()
    open_and_wait(qtbot, w, FOLIAGE)
    w.panel.set_specs([kept])
    row = w.panel.rows["per-level"]
    assert row.combos["alpha"].currentText() == "coverage"
    assert row.check.isEnabled() and row.reason is None
    got = run_and_wait(qtbot, w, w.panel.specs(), repeat=1)
    res = got["output"].mip.results[0]
    w.heatmap.select(str(res.spec))
    y = _curve(w.heatmap.coverage.result)[1]
    big = [k for k, lv in enumerate(res.levels) if lv[..., 0].size >= tolerances.COVERAGE_MIN_TEXELS]
    assert len(big) > 3 and max(abs(y[k] - y[0]) for k in big) <= tolerances.COVERAGE_BOUND
