"""A float image with NaN and +-Inf in the window: told once on opening (status bar and a
dialog that does not block), and each strategy's propagation in the levels table."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from PIL import Image
from PySide6.QtCore import Qt

from mipview.core.specs import StrategySpec
from mipview.ui.views.heatmap_view import NONFINITE_COLUMN
from tests.ui.test_main_window import open_and_wait, run_and_wait


def test_nonfinite_texels_are_told_and_their_propagation_shown(qtbot, make_window, small_png,
                                                               tmp_path):
    g = np.linspace(0.0, 1.0, 16 * 8, dtype=np.float32).reshape(8, 16)
    g[0, 0], g[5, 9] = np.nan, np.inf
    Image.fromarray(g).save(tmp_path / "nf.tif")
    w = make_window(fmt="f32")
    open_and_wait(qtbot, w, small_png)  # an 8-bit image: nothing to tell
    assert not hasattr(w, "nonfinite_box") and w.heatmap.table.isColumnHidden(NONFINITE_COLUMN)
    open_and_wait(qtbot, w, tmp_path / "nf.tif")
    note = "nf.tif: level 0 has 2 non-finite texels (1 NaN, 1 +Inf); each result reports how " \
           "it propagated them"
    assert w.statusBar().currentMessage() == note
    assert w.nonfinite_box.text() == note and w.nonfinite_box.isVisible()
    w.nonfinite_box.accept()  # it never blocked the event loop: the run below goes on
    run_and_wait(qtbot, w, [StrategySpec("per-level")])
    qtbot.waitUntil(lambda: w.heatmap.table.rowCount() == 5, timeout=60_000)
    assert not w.heatmap.table.isColumnHidden(NONFINITE_COLUMN)
    counts = [w.heatmap.table.item(r, NONFINITE_COLUMN).data(Qt.ItemDataRole.UserRole)
              for r in range(5)]
    assert counts == [2, 2, 2, 2, 1]
    assert w.heatmap.table.item(0, NONFINITE_COLUMN).text() == "2 (1 NaN, 1 +Inf)"
    assert "as the exact reduction" in w.heatmap.summary.text()

    # a result with one NaN more at level 1: its count, then the exact reduction's
    out = w.heatmap.output
    res = out.mip.results[0]
    bad = res.levels[1].copy()
    bad[3, 7, 2] = np.nan
    mip = replace(out.mip, results=(replace(res, levels=(res.levels[0], bad, *res.levels[2:])),))
    w.heatmap.set_run(replace(out, mip=mip))
    w.heatmap.add_errors(w.analysis.errors[0])
    assert w.heatmap.table.item(1, NONFINITE_COLUMN).text() == \
        "3 (2 NaN, 1 +Inf) (exact: 2 (1 NaN, 1 +Inf))"
    assert w.heatmap.table.item(2, NONFINITE_COLUMN).text() == "2 (1 NaN, 1 +Inf)"
