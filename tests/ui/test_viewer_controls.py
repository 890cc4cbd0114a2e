"""The viewer's controls on hand-made pyramids: each control changes what is shown as
expected. No GPU: the pyramid view draws arrays it is given."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QInputDialog

from mipview.core.formats import Format
from mipview.ui import display
from mipview.ui.display import MARKS, OVER, UNDER, DisplaySettings, to_display
from mipview.ui.views.pyramid_view import REFERENCE_KEY, PyramidView
from mipview.ui.views.texel_readout import footprint, parse_goto

WAIT_MS = 20_000


def float_pyramid(seed: int, w: int = 16, h: int = 12) -> tuple[np.ndarray, ...]:
    """Three float levels of values in [0.05, 0.45] (room for +1 stop), alpha 1."""
    rng = np.random.default_rng(seed)
    levels = []
    for k in range(3):
        a = rng.uniform(0.05, 0.45, (h >> k, w >> k, 4)).astype(np.float32)
        a[..., 3] = 1.0
        levels.append(a)
    return tuple(levels)


def shown(view: PyramidView, key: str = "a", level: int = 0) -> np.ndarray:
    img = view.displayed(key, level)
    assert img is not None
    return img.astype(np.int32)


def test_exposure_offset_gamma_follow_tev(view):
    levels = float_pyramid(1)
    view.set_pyramids([("a", "A", levels, Format.F32)])
    v = levels[0][..., :3]
    base = shown(view)[..., :3]
    assert np.abs(base - np.rint(v * 255)).max() == 0
    view.controls.step("exposure", 2)  # two presses of 0.5: +1 stop doubles linear values
    assert view.settings.exposure == 1.0
    doubled = shown(view)[..., :3]
    assert np.array_equal(doubled, np.rint(v * 2 * 255))
    assert np.abs(doubled - 2 * base).max() <= 1  # rounding only
    view.controls.reset()
    view.controls.step("offset", 2)  # +0.1
    assert np.array_equal(shown(view)[..., :3], np.rint((v + np.float32(0.1)) * 255))
    view.controls.reset()
    view.controls.spins["gamma"].setValue(2.0)
    assert np.array_equal(shown(view)[..., :3], np.rint(np.sqrt(v) * 255))
    view.controls.reset()
    assert np.array_equal(shown(view)[..., :3], base)


def test_out_of_range_is_false_coloured_not_clipped_silently(view):
    levels = float_pyramid(2)
    a = levels[0]
    a[0, 0, :3] = (1.5, 0.2, 0.2)  # above white
    a[0, 1, :3] = (0.2, 0.2, 0.2)
    view.set_pyramids([("a", "A", levels, Format.F32)])
    assert shown(view)[0, 0, :3].tolist() == [255, 51, 51]  # off: clipped, as before
    view.controls.false_check.setChecked(True)
    img = shown(view)
    assert img[0, 0, :3].tolist() == list(OVER) and img[0, 1, :3].tolist() == [51, 51, 51]
    view.controls.step("offset", -10)  # -0.5: every value below black now
    assert (shown(view)[..., :3] == UNDER).all(axis=-1).all()


def test_channels_solo_and_luminance(view):
    levels = float_pyramid(3)
    a = levels[0]
    view.set_pyramids([("a", "A", levels, Format.F32)])
    for channel, values in (("r", a[..., 0]), ("g", a[..., 1]), ("b", a[..., 2]),
                            ("a", a[..., 3]), ("luminance", a[..., :3] @ display.LUMA)):
        view.controls.set_channel(channel)
        img = shown(view)
        expected = np.rint(values * 255)
        for c in range(3):  # shown as grey
            assert np.array_equal(img[..., c], expected), channel
        assert (img[..., 3] == 255).all()


def test_alpha_over_a_checkerboard(view):
    levels = float_pyramid(4)
    a = levels[0]
    a[..., :3] = (1.0, 0.0, 0.0)
    a[0, 0, 3] = 0.0  # transparent: the checkerboard
    a[0, 9, 3] = 0.0  # the next square of it
    a[1, 1, 3] = 0.5
    view.set_pyramids([("a", "A", levels, Format.F32)])
    img = shown(view)
    light, dark = (np.rint(np.float32(g) * 255) for g in display._CHECKER_GREYS)
    assert img[0, 0, :3].tolist() == [light] * 3 and img[0, 9, :3].tolist() == [dark] * 3
    assert img[2, 2].tolist() == [255, 0, 0, 255]
    assert img[1, 1, 0] == np.rint((0.5 + 0.5 * display._CHECKER_GREYS[0]) * 255)
    view.controls.checker_check.setChecked(False)  # alpha to the view, as before
    assert shown(view)[0, 0].tolist() == [255, 0, 0, 0]


def test_nan_inf_negative_texels_get_their_overlay_colour(view):
    levels = float_pyramid(5)
    a = levels[1]
    a[0, 0, 0], a[0, 1, 1], a[0, 2, 2], a[1, 0, 0] = np.nan, np.inf, -np.inf, -0.25
    view.set_pyramids([("a", "A", levels, Format.F32)])
    img = shown(view, level=1)
    for (y, x), kind in (((0, 0), "nan"), ((0, 1), "+inf"), ((0, 2), "-inf"),
                         ((1, 0), "negative")):
        assert img[y, x, :3].tolist() == list(MARKS[kind]), kind
    assert len({MARKS[k] for k in MARKS} | {OVER, UNDER}) == 6  # all distinct
    plain = np.rint(np.clip(a[1, 1, :3], 0, 1) * 255)
    assert np.array_equal(img[1, 1, :3], plain)  # unmarked texels as they are
    view.controls.overlay_check.setChecked(False)
    assert shown(view, level=1)[0, 0, :3].tolist() != list(MARKS["nan"])


def test_histogram_range_and_auto_range(view):
    levels = float_pyramid(6)
    view.set_pyramids([("a", "A", levels, Format.F32)])
    hist = view.histogram.histogram
    rgb = levels[0][..., :3]
    assert hist is not None and hist.counts.sum() == rgb.size
    assert (hist.lo, hist.hi) == (float(rgb.min()), float(rgb.max()))
    view.histogram.set_range(0.0, 0.5)  # as a drag of the white edge does
    assert (view.settings.black, view.settings.white) == (0.0, 0.5)
    assert np.array_equal(shown(view)[..., :3],
                          np.rint(np.clip(rgb * np.float32(2.0), 0, 1) * 255))
    view.auto_range()
    assert (view.settings.black, view.settings.white) == (hist.lo, hist.hi)
    img = shown(view)[..., :3]
    assert img.min() == 0 and img.max() == 255  # the extent spans black to white
    view.lock_texel(2, 0, 0)  # the histogram follows the locked texel's level
    assert view.histogram.histogram.counts.sum() == levels[2][..., :3].size


def test_locked_texel_readout_across_levels_and_pyramids(view, qtbot):
    a, b, ref = float_pyramid(7), float_pyramid(8), float_pyramid(9)
    view.set_pyramids([("a", "A", a, Format.F32), ("b", "B", b, Format.F32)])
    view.set_reference(ref, Format.F32)
    assert view.readout.lock_table.isHidden()  # no blank box beside the histogram before a lock
    panel = view.panel("b")
    rect = panel.rects[1]
    point = panel.view.mapViewToScene(QPointF(rect.x() + 3.5, rect.y() + 2.5))
    with qtbot.waitSignal(view.sigLocked, timeout=WAIT_MS):
        QTest.mouseClick(view.graphics.viewport(), Qt.MouseButton.LeftButton,
                         pos=view.graphics.mapFromScene(point))
    assert view.lock == (1, 3, 2)
    # level 1 is 8x6 of level 0's 16x12: texel (3, 2) covers (6..7, 4..5), inside level 2's (1, 1)
    assert view.locked_texels() == {0: (7, 5), 1: (3, 2), 2: (1, 1)}
    values = view.locked_values()
    for key, levels in (("a", a), ("b", b), (REFERENCE_KEY, ref)):
        for k, (x, y) in view.locked_texels().items():
            assert values[(key, k)] == tuple(float(c) for c in levels[k][y, x]), (key, k)
    table = view.readout.lock_table
    assert not table.isHidden()
    assert table.rowCount() == 3 and table.columnCount() == 3
    assert table.item(2, 1).text() == ", ".join(f"{float(c):.5g}" for c in b[2][1, 1])
    assert table.item(0, 2).text() == ", ".join(f"{float(c):.5g}" for c in ref[0][5, 7])
    outlines = view.footprints("a")
    assert {k: (r.x(), r.y(), r.width(), r.height()) for k, r in outlines.items()} == {
        0: (6, 4, 2, 2),
        1: (panel.rects[1].x() + 3, panel.rects[1].y() + 2, 1, 1),
        2: (panel.rects[2].x() + 1, panel.rects[2].y() + 1, 1, 1)}
    view.unlock()
    assert view.locked_values() == {} and table.rowCount() == 0 and view.footprints("a") == {}
    assert table.isHidden()


def test_footprint_and_go_to(view, monkeypatch):
    sizes = [(10, 6), (5, 3), (2, 1)]  # odd sizes: floor chain
    assert footprint(sizes, 0, 9, 5, 1) == (4, 2, 5, 3)
    assert footprint(sizes, 2, 1, 0, 0) == (5, 0, 10, 6)
    assert parse_goto("5, 7") == (5, 7, 0) and parse_goto("x=5 y=7 level 1") == (5, 7, 1)
    with pytest.raises(ValueError):
        parse_goto("5")
    view.set_pyramids([("a", "A", float_pyramid(10), Format.F32)])
    monkeypatch.setattr(QInputDialog, "getText", staticmethod(lambda *a, **k: ("5, 4, 1", True)))
    view.go_to_dialog()
    assert view.lock == (1, 5, 4)
    (x0, x1), (y0, y1) = view.panels[0].view.viewRange()
    rect = view.panels[0].rects[1]
    assert abs((x0 + x1) / 2 - (rect.x() + 5.5)) < 1e-6
    assert abs((y0 + y1) / 2 - (rect.y() + 4.5)) < 1e-6
    view.go_to(999, -3, 7)  # clamped to the pyramid
    assert view.lock == (2, 3, 0)


def test_flip_swaps_the_first_panel_in_place(view):
    a, b = float_pyramid(11), float_pyramid(12)
    view.set_pyramids([("a", "A", a, Format.F32), ("b", "B", b, Format.F32)])
    view.set_reference(float_pyramid(13), Format.F32)
    assert [view.ab.flip_combo.itemData(i) for i in range(view.ab.flip_combo.count())] == [
        "b", REFERENCE_KEY]
    range_before = view.panels[0].view.viewRange()
    view.flip()
    assert view.flipped and [p.key for p in view.panels] == ["a", "b"]  # side by side stays
    for k in range(3):
        assert np.array_equal(view.displayed("a", k), to_display(b[k], Format.F32, 0,
                                                                  view.settings))
        assert np.array_equal(view.displayed("b", k), view.displayed("a", k))
    assert view.panels[0].view.viewRange() == range_before
    view.ab.flip_combo.setCurrentIndex(1)  # flip against the reference
    assert np.array_equal(view.displayed("a", 0), to_display(
        view.entries()[-1][2][0], Format.F32, 0, view.settings))
    view.flip()
    assert not view.flipped
    assert np.array_equal(view.displayed("a", 0), to_display(a[0], Format.F32, 0, view.settings))


def test_large_levels_render_off_the_ui_thread(view, qtbot, monkeypatch):
    threads = []

    def recording(*args, **kwargs):
        threads.append(threading.get_ident())
        return to_display(*args, **kwargs)

    monkeypatch.setattr("mipview.ui.views.level_display.to_display", recording)
    view.pool.sync_texels = 0  # every level counts as large
    levels = float_pyramid(14)
    with qtbot.waitSignal(view.pool.sigIdle, timeout=WAIT_MS):
        view.set_pyramids([("a", "A", levels, Format.F32)])
    assert threads and threading.get_ident() not in threads
    assert np.array_equal(view.displayed("a", 1), to_display(levels[1], Format.F32, 0,
                                                              view.settings))
    view.pool.sync_texels = 1 << 30
    view.controls.step("exposure", 2)
    assert threads[-1] == threading.get_ident()  # small: at once, on the caller's thread


def test_settings_reject_nonsense():
    with pytest.raises(ValueError):
        DisplaySettings(gamma=0.0)
    with pytest.raises(ValueError):
        DisplaySettings(channel="x")
    with pytest.raises(ValueError):
        DisplaySettings(black=1.0, white=1.0)
    s = DisplaySettings(transfer="srgb")
    v = np.full((1, 1, 4), 0.2, np.float32)
    v[..., 3] = 1.0
    assert to_display(v, Format.F32, 0, s)[0, 0, 0] == np.rint(
        display.linear_to_srgb(np.float32(0.2)) * 255)
