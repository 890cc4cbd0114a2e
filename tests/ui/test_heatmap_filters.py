"""The Heatmaps tab compares any two results of a Run, here two made with
different filters: the box (per-level's default) against Lanczos-3. The map shown is the texel
difference of their levels, whose ringing around the stamp's edges differs from the box."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt

from mipview.core.specs import StrategySpec
from tests.ui.test_main_window import WAIT_MS, open_and_wait, run_and_wait

BOX = StrategySpec.parse("per-level")
LANCZOS = StrategySpec.parse("per-level:filter=lanczos3")


def _difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Max over channels of |a - b| in LSB (8-bit codes), computed here from the levels."""
    return np.abs(a.astype(np.float64) - b.astype(np.float64)).max(axis=-1).astype(np.float32)


def test_box_against_lanczos3_shows_their_texel_difference(qtbot, make_window, small_png):
    w = make_window()
    open_and_wait(qtbot, w, small_png)
    mip = run_and_wait(qtbot, w, [BOX, LANCZOS], repeat=0)["output"].mip
    assert not mip.fmt.is_float
    res = {str(r.spec): r for r in mip.results}
    box, lanczos = res[str(BOX)].levels, res[str(LANCZOS)].levels
    heat = w.heatmap
    qtbot.waitUntil(lambda: len(heat.exact) == 2, timeout=WAIT_MS)  # both analysed
    # the combo offers the other result by its data
    assert heat.against_combo.findData(str(BOX)) >= 0
    with qtbot.waitSignal(w.sigComparisonShown, timeout=WAIT_MS) as shown:
        heat.select(str(LANCZOS), str(BOX))
    assert (shown.args[0].strategy, shown.args[0].against) == (str(LANCZOS), str(BOX))
    assert heat.against_combo.currentData() == str(BOX)
    assert f"vs {BOX}" in heat.summary.text()
    assert heat.table.rowCount() == len(lanczos) == len(box)
    own = heat.exact[str(LANCZOS)].maps  # Lanczos-3 against its exact reference
    differs = []
    for k in range(1, len(lanczos)):
        want = _difference(lanczos[k], box[k])
        heat.table.selectRow(k)
        assert heat.shown_level == k
        assert np.array_equal(heat.image.image, want), k
        assert heat.table.item(k, 2).data(Qt.ItemDataRole.UserRole) == float(want.max())  # the max column
        differs.append(not np.array_equal(want, own[k]))
    # ringing: the filters differ by LSBs at the stamp's edges, well past a rounding
    assert _difference(lanczos[1], box[1]).max() >= 4
    # not the map against the exact reference (which is within the verdict's bound)
    assert all(differs)
    assert max(float(m.max()) for m in own[1:]) < 2
