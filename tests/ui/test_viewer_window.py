"""The viewer's controls in the window, end to end on lavapipe: signed error maps,
the locked texel against a run's arrays, the flip key, overlays and counts in the heatmap, and
Help > Keyboard shortcuts."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtTest import QTest

from mipview.check import compare
from mipview.core.formats import Format
from mipview.core.specs import StrategySpec
from mipview.ui import steps
from mipview.ui.dialogs.shortcuts_dialog import ShortcutsDialog, window_shortcuts
from mipview.ui.display import MARKS, normalised
from mipview.ui.views.heatmap_view import NEGATIVE_COLUMN, NONFINITE_COLUMN
from mipview.ui.views.pyramid_view import REFERENCE_KEY
from tests.ui.test_main_window import SPECS, WAIT_MS, open_and_wait, run_and_wait


def _rendered_colour(heat, x: int, y: int) -> tuple[int, int, int]:
    """The colour the heatmap's image item paints at texel (x, y), through its lookup table."""
    heat.image.render()
    c = heat.image.qimage.pixelColor(x, y)
    return c.red(), c.green(), c.blue()


def test_signed_map_lock_and_flip_against_the_arrays(qtbot, make_window, small_png):
    w = make_window()
    open_and_wait(qtbot, w, small_png)
    got = run_and_wait(qtbot, w, SPECS, repeat=0)
    mip = got["output"].mip
    fmt = mip.fmt
    blit, per_level = (r.levels for r in mip.results)
    heat = w.heatmap
    # an 8-bit run: no texel can hold NaN, Inf or a negative value, nothing to count
    assert heat.table.isColumnHidden(NONFINITE_COLUMN)
    assert heat.table.isColumnHidden(NEGATIVE_COLUMN)
    with qtbot.waitSignal(w.sigComparisonShown, timeout=WAIT_MS):
        heat.select("blit", "per-level")
    # a level and channel where the two strategies differ both ways
    level, channel = next((k, c) for k in range(len(blit)) for c in range(4)
                          if (d := compare.signed_error(blit[k], per_level[k], fmt, c)).min() < 0
                          < d.max())
    heat.table.selectRow(level)
    heat.map_combo.setCurrentIndex(heat.map_combo.findData(channel))
    qtbot.waitUntil(lambda: not heat.pool.busy() and not steps.pending(), timeout=WAIT_MS)
    signed = compare.signed_error(blit[level], per_level[level], fmt, channel)
    assert np.array_equal(heat.image.image, signed)
    lo, hi = heat.colorbar.levels()
    assert lo == -hi == -np.abs(signed).max()
    for sign in (1, -1):
        y, x = np.argwhere(signed * sign > 0)[0]
        r, _, b = _rendered_colour(heat, x, y)
        assert (r > b) == (sign > 0), (sign, r, b)  # red above, blue below
    heat.histogram.set_range(-0.5, 0.5)  # dragging the range sets the colour bar's
    assert heat.colorbar.levels() == (-0.5, 0.5)
    heat.histogram.auto_range()
    assert heat.colorbar.levels() == (float(signed.min()), float(signed.max()))

    # against the exact reference: the reference the pyramid view shows
    heat.select("blit")
    qtbot.waitUntil(lambda: heat.reference is not None and not heat.pool.busy()
                    and not steps.pending(), timeout=WAIT_MS)
    shown_level = heat.shown_level
    assert np.array_equal(heat.image.image, compare.signed_error(
        blit[shown_level], heat.reference[shown_level], fmt, channel))
    heat.map_combo.setCurrentIndex(0)  # max |error| again: the verdict's own map
    assert np.array_equal(heat.image.image, w.analysis.errors[0].maps[heat.worst_level])

    # the locked texel in every level, of both strategies and the reference
    view = w.pyramid
    view.lock_texel(2, 5, 3)
    texels = view.locked_texels()
    assert texels[2] == (5, 3) and texels[0] == (22, 14) and texels[3] == (2, 1)
    values = view.locked_values()
    ref = view.entries()[-1][2]
    for key, levels in (("blit", blit), ("per-level", per_level), (REFERENCE_KEY, ref)):
        for k, (x, y) in texels.items():
            assert values[(key, k)] == tuple(float(c) for c in normalised(levels[k][y, x], fmt))

    # the flip key swaps what the first panel shows, in place
    assert w.viewer_actions["flip"].shortcut() == QKeySequence("T")
    w.viewer_actions["flip"].trigger()
    assert np.array_equal(view.displayed("blit", 1), per_level[1])
    w.viewer_actions["flip"].trigger()
    assert np.array_equal(view.displayed("blit", 1), blit[1])


def test_heatmap_overlay_and_counts_of_non_finite_texels(qtbot, make_window, small_png):
    w = make_window(fmt="f32")
    open_and_wait(qtbot, w, small_png)
    got = run_and_wait(qtbot, w, [StrategySpec("per-level")], repeat=0)
    out = got["output"]
    assert out.mip.fmt is Format.F32
    res = out.mip.results[0]
    bad = res.levels[1].copy()
    bad[0, 0, 0], bad[0, 1, 3], bad[2, 2, 1], bad[3, 3, 2] = np.nan, np.inf, -np.inf, -0.5
    levels = (res.levels[0], bad, *res.levels[2:])
    mip = replace(out.mip, results=(replace(res, levels=levels),))
    heat = w.heatmap
    heat.set_run(replace(out, mip=mip))
    heat.add_errors(w.analysis.errors[0])
    # two columns that do not overlap: NaN / +-Inf texels, and finite negative ones
    table = heat.table
    assert not table.isColumnHidden(NONFINITE_COLUMN) and not table.isColumnHidden(NEGATIVE_COLUMN)
    assert "NaN" in table.horizontalHeaderItem(NONFINITE_COLUMN).toolTip()
    assert "finite negative" in table.horizontalHeaderItem(NEGATIVE_COLUMN).toolTip()
    cells = [(table.item(r, NONFINITE_COLUMN), table.item(r, NEGATIVE_COLUMN))
             for r in range(table.rowCount())]
    counts = [(a.data(Qt.ItemDataRole.UserRole), b.data(Qt.ItemDataRole.UserRole))
              for a, b in cells]
    assert counts[1] == (3, 1)  # the -Inf texel is not also a negative one
    assert cells[1][0].text() == "3 (1 NaN, 1 +Inf, 1 -Inf)" and cells[1][1].text() == "1"
    assert all(c == (0, 0) for k, c in enumerate(counts) if k != 1)
    heat.table.selectRow(1)
    overlay = heat.overlay.image
    for (y, x), kind in (((0, 0), "nan"), ((0, 1), "+inf"), ((2, 2), "-inf"),
                         ((3, 3), "negative")):
        assert overlay[y, x, :3].tolist() == list(MARKS[kind])
    assert overlay[1, 1, 3] == 0  # the rest transparent
    w.viewer_actions["overlay"].trigger()  # N: off in both views
    assert heat.overlay.image is None and not w.pyramid.controls.overlay_check.isChecked()


def test_shortcuts_dialog_lists_every_action_of_the_window(qtbot, make_window):
    w = make_window()
    rows = window_shortcuts(w)
    listed = {(action, keys) for _, action, keys in rows}
    with_keys = [a for a in w.findChildren(QAction) if not a.shortcut().isEmpty()]
    assert len(rows) == len(with_keys)  # each once
    assert ("Exposure up", "E") in listed and ("Go to texel", "Ctrl+G") in listed
    assert ("A/B flip", "T") in listed and ("Run", "Ctrl+R") in listed
    assert any(menu == "Display > Channel" and action == "Luminance" for menu, action, _ in rows)
    keys = [k for _, _, k in rows]
    assert len(keys) == len(set(keys)), "two actions share a shortcut"
    # an action another part of the window adds later (a profiler menu) is listed too
    menu = w.menuBar().addMenu("&Profiler")
    extra = QAction("Load &baseline...", w, shortcut=QKeySequence("Ctrl+B"))
    menu.addAction(extra)
    dialog = ShortcutsDialog(w)
    assert ("Profiler", "Load baseline", "Ctrl+B") in dialog.rows()
    dialog.close()
    # the keys work from the window
    w.show()
    w.activateWindow()
    qtbot.waitUntil(lambda: w.isActiveWindow(), timeout=WAIT_MS)
    QTest.keyClick(w, Qt.Key.Key_E)
    assert w.pyramid.settings.exposure == 0.5
    QTest.keyClick(w, Qt.Key.Key_E, Qt.KeyboardModifier.ShiftModifier)
    assert w.pyramid.settings.exposure == 0.0
    QTest.keyClick(w, Qt.Key.Key_3, Qt.KeyboardModifier.ControlModifier)
    assert w.pyramid.settings.channel == "g"
    QTest.keyClick(w, Qt.Key.Key_W)  # the white point, a twentieth of the range up
    QTest.keyClick(w, Qt.Key.Key_B, Qt.KeyboardModifier.ShiftModifier)
    assert (w.pyramid.settings.black, w.pyramid.settings.white) == pytest.approx((-0.0525, 1.05))
