"""The pyramid view's Hi-Z cull test (a rectangle on level 0: the level and texels an occlusion
test reads, their depth against level 0's exact min and max under it), the source panel of a
one-channel image through the levels' display path, and the range reset on a new format. No
GPU but the window test: the view draws the arrays it is given."""

from __future__ import annotations

import math
import threading
from types import SimpleNamespace

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from mipview.check.culling import cull_level, cull_probe
from mipview.check.reference import reference_pyramid
from mipview.core.formats import Format
from mipview.core.specs import StrategySpec
from mipview.ui.display import DisplaySettings, to_display
from tests.ui.conftest import stamp_image
from tests.ui.test_main_window import open_and_wait, run_and_wait

WAIT_MS = 20_000


def depth(w: int, h: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return Format.R32F.unpack(rng.uniform(0.2, 0.9, (h, w, 1)).astype(np.float32))


def three_tap(level0: np.ndarray, reduction: str = "min") -> tuple[np.ndarray, ...]:
    """mipview's levels: each texel the extreme of its whole footprint (3 texels on an odd
    side), as a strategy stores them."""
    return tuple(lv.astype(np.float32) for lv in reference_pyramid(level0, Format.R32F,
                                                                   reduction))


def two_tap(level0: np.ndarray) -> tuple[np.ndarray, ...]:
    """A previous-power-of-two style min chain: floor-sized levels of texels 2i and 2i+1 per
    axis, so an odd side's last texel is dropped."""
    levels = [level0]
    while levels[-1].shape[:2] != (1, 1):
        a = levels[-1]
        h, w = a.shape[:2]
        hh, ww = max(1, h // 2), max(1, w // 2)
        ys = [np.minimum(2 * np.arange(hh) + d, h - 1) for d in (0, 1)]
        xs = [np.minimum(2 * np.arange(ww) + d, w - 1) for d in (0, 1)]
        quad = [a[y][:, x] for y in ys for x in xs]
        levels.append(np.minimum.reduce(quad))
    return tuple(levels)


def expected(levels, rect, taps):
    """The test in floats, as a shader computes it: (level, columns, rows, min read, level 0's
    min and max under the rectangle)."""
    x0, y0, x1, y1 = rect
    k = min(math.ceil(math.log2(max(x1 - x0, y1 - y0))), len(levels) - 1)
    h0, w0 = levels[0].shape[:2]
    hk, wk = levels[k].shape[:2]

    def axis(a0, a1, n0, nk):
        if taps == "cover":  # the texels the span overlaps
            idx = range(math.floor(a0 / n0 * nk), math.ceil(a1 / n0 * nk))
        else:  # the bilinear quad at the centre, less a texel of weight 0
            p = (a0 + a1) / 2 / n0 * nk - 0.5
            idx = [math.floor(p)] + ([math.floor(p) + 1] if p != math.floor(p) else [])
        return sorted({min(max(0, i), nk - 1) for i in idx})

    xs, ys = axis(x0, x1, w0, wk), axis(y0, y1, h0, hk)
    read = levels[k][np.ix_(ys, xs)][..., 0]
    under = levels[0][y0:y1, x0:x1, 0]
    return k, xs, ys, read.min(), under.min(), under.max()


RECTS = [(3, 4, 4, 5), (10, 2, 12, 5), (0, 0, 5, 3), (30, 15, 37, 23), (6, 9, 23, 13),
         (1, 1, 37, 23)]


@pytest.mark.parametrize("taps", ["quad", "cover"])
def test_level_and_texels_read_against_numpy(view, taps):
    level0 = depth(37, 23, seed=1)
    levels = three_tap(level0)
    assert [cull_level(w, w) for w in (1, 2, 3, 4, 5, 8, 9)] == [0, 1, 2, 2, 3, 3, 4]
    view.set_pyramids([("a", "min", levels, Format.R32F)], reductions={"a": "min"})
    view.set_cull_mode(True)
    view.set_taps(taps)
    panel = view.panels[0]
    for rect in RECTS:
        k, xs, ys, got, lo, hi = expected(levels, rect, taps)
        view.set_cull_rect(rect)
        probe = view.cull_probes["a"]
        assert (probe.level, list(probe.xs), list(probe.ys)) == (k, xs, ys), rect
        assert len(xs) <= 2 and len(ys) <= 2  # at most a 2x2 footprint
        assert (probe.returned[0], probe.lo[0], probe.hi[0]) == (got, lo, hi)
        assert probe.verdict in ("exact", "conservative") and got <= lo
        # outlined: the rectangle on level 0, each texel read on level k
        r0, rk = panel.rects[0], panel.rects[k]
        outlines = view.cull_outlines("a")
        x0, y0, x1, y1 = rect
        assert [(q.x(), q.y(), q.width(), q.height()) for q in outlines[("rect", 0)]] == [
            (r0.x() + x0, r0.y() + y0, x1 - x0, y1 - y0)]
        assert sorted((q.x() - rk.x(), q.y() - rk.y()) for q in outlines[("read", k)]) == \
            sorted((x, y) for x in xs for y in ys)
        text = view.cull.label.text()
        assert f"{x1 - x0}x{y1 - y0} texels -&gt; level {k}" in text and "conservative" in text
    assert not view.cull.label.isHidden()
    view.set_cull_mode(False)  # off: no rectangle, no outlines, no text
    assert view.cull_rect is None and view.cull_outlines("a") == {}
    assert view.cull.label.isHidden()


def test_odd_pyramid_two_taps_are_not_conservative_three_taps_are(view):
    """7x5: a 2-texel footprint drops level-0 column 6 and row 4; the depth's min sits in
    column 6, under a 2x2 rectangle that reads level 1."""
    level0 = depth(7, 5, seed=2)
    level0[2, 6, 0] = np.float32(0.05)
    mine, naive = three_tap(level0), two_tap(level0)
    assert [lv.shape[:2] for lv in mine] == [lv.shape[:2] for lv in naive] == [
        (5, 7), (2, 3), (1, 1)]
    view.set_pyramids([("3", "3-tap", mine, Format.R32F), ("2", "2-tap", naive, Format.R32F)],
                      reductions={"3": "min", "2": "min"})
    view.set_cull_mode(True)
    for taps in ("quad", "cover"):
        view.set_taps(taps)
        view.set_cull_rect((5, 1, 7, 3))
        good, bad = view.cull_probes["3"], view.cull_probes["2"]
        assert good.level == bad.level == 1 and good.xs == bad.xs == (2,)
        assert good.lo[0] == np.float32(0.05) and good.returned[0] == np.float32(0.05)
        assert good.verdict == "exact"
        assert bad.returned[0] > bad.lo[0] and bad.verdict == "non-conservative"
        lines = view.cull.label.text().split("<br>")
        assert "3-tap" in lines[0] and "conservative (exact)" in lines[0]
        assert "2-tap" in lines[1] and "NOT conservative" in lines[1]
    # every rectangle of every size: mipview's levels always bound level 0, the 2-tap chain not
    for taps in ("quad", "cover"):
        verdicts = {name: {cull_probe(levels, 1, "min", (x0, y0, x0 + w, y0 + h), 0,
                                      taps).verdict
                           for w in range(1, 8) for h in range(1, 6)
                           for x0 in range(8 - w) for y0 in range(6 - h)}
                    for name, levels in (("3", mine), ("2", naive))}
        assert "non-conservative" not in verdicts["3"]
        assert "non-conservative" in verdicts["2"]


def test_max_and_minmax_results_bound_their_own_side(view):
    level0 = depth(21, 13, seed=3)
    mx = three_tap(level0, "max")
    view.set_pyramids([("a", "max", mx, Format.R32F)], reductions={"a": "max"})
    view.set_cull_rect((4, 3, 11, 8))
    probe = view.cull_probes["a"]
    assert probe.returned[0] >= probe.hi[0] and probe.verdict in ("exact", "conservative")
    assert "max " in view.cull.label.text()
    # minmax: R the min and G the max of a two-channel level (depth in both at level 0)
    rg = np.stack([level0[..., 0], level0[..., 0]], axis=-1)
    host = Format.RG32F.unpack(rg)
    lo, hi = three_tap(level0, "min"), mx
    levels = tuple(np.concatenate([a[..., :1], b[..., :1], a[..., 2:]], axis=-1)
                   for a, b in zip(lo, hi, strict=True))
    levels = (host, *levels[1:])
    got = cull_probe(levels, 2, "minmax", (4, 3, 11, 8))
    assert got.returned.tolist() == [probe_min(lo, got), probe_max(mx, got)]
    assert got.verdict in ("exact", "conservative")
    broken = [lv.copy() for lv in levels]
    for x, y in got.texels:  # G of every texel read below the max
        broken[got.level][y, x, 1] = np.float32(0.0)
    assert cull_probe(broken, 2, "minmax", (4, 3, 11, 8)).verdict == "non-conservative"


def probe_min(levels, probe) -> float:
    return float(levels[probe.level][np.ix_(probe.ys, probe.xs)][..., 0].min())


def probe_max(levels, probe) -> float:
    return float(levels[probe.level][np.ix_(probe.ys, probe.xs)][..., 0].max())


def test_a_drag_on_level_zero_draws_the_rectangle(view):
    levels = three_tap(depth(37, 23, seed=4))
    view.set_pyramids([("a", "min", levels, Format.R32F)], reductions={"a": "min"})
    vb, rect0 = view.panels[0].view, view.panels[0].rects[0]

    def scene(x, y):
        return vb.mapViewToScene(QPointF(rect0.x() + x + 0.5, rect0.y() + y + 0.5))

    def drag(press, now, finish=True, start=True):
        ev = SimpleNamespace(button=lambda: Qt.MouseButton.LeftButton,
                             buttonDownScenePos=lambda: press, scenePos=lambda: now,
                             isStart=lambda: start, isFinish=lambda: finish,
                             accept=lambda: None,
                             pos=lambda: pg.Point(0, 0), lastPos=lambda: pg.Point(0, 0))
        vb.mouseDragEvent(ev)

    pans = []
    vb.translateBy = lambda *a, **k: pans.append(k)
    drag(scene(2, 3), scene(20, 6))  # off: pans, draws nothing
    assert view.cull_rect is None and len(pans) == 1
    assert view.cull_button.isEnabled()
    view.cull_button.click()
    assert vb.drawing and view.cull.taps_combo.isEnabled()
    assert view.cull.label.text().startswith("Cull test: drag")  # the hint, before a drag
    drag(scene(20, 6), scene(2, 3), finish=False)  # any direction, both texels included
    assert view.cull_rect == (2, 3, 21, 7)
    assert len(pans) == 1  # drawing does not pan
    drag(scene(20, 6), scene(500, -40), start=False)  # clamped to level 0
    assert view.cull_rect == (20, 0, 37, 7)
    k = cull_level(17, 7)
    assert view.cull_probes["a"].level == k and ("read", k) in view.cull_outlines("a")
    drag(scene(40, 3), scene(2, 3))  # from outside level 0 (level 1's column): nothing
    assert view.cull_rect == (20, 0, 37, 7)
    view.cull_button.click()
    assert not vb.drawing and view.cull_rect is None


def test_a_mouse_drag_through_the_scene(view, qtbot):
    """Mouse events as Qt delivers them: press, moves (pyqtgraph drops moves closer than its
    rate limit, hence the waits), release; the press's texel holds while the view rescales."""
    levels = three_tap(depth(45, 37, seed=8))
    view.set_pyramids([("a", "min", levels, Format.R32F)], reductions={"a": "min"})
    view.set_cull_mode(True)
    qtbot.wait(50)
    vb, gv = view.panels[0].view, view.graphics

    def send(kind, x, y, buttons):
        p = QPointF(gv.mapFromScene(vb.mapViewToScene(QPointF(x, y))))
        button = Qt.MouseButton.NoButton if kind == QEvent.Type.MouseMove \
            else Qt.MouseButton.LeftButton
        QApplication.sendEvent(gv.viewport(), QMouseEvent(
            kind, p, gv.viewport().mapToGlobal(p), button, buttons,
            Qt.KeyboardModifier.NoModifier))

    left = Qt.MouseButton.LeftButton
    send(QEvent.Type.MouseButtonPress, 5.5, 4.5, left)
    for t in np.linspace(0.1, 1, 6):
        qtbot.wait(40)
        send(QEvent.Type.MouseMove, 5.5 + 10 * t, 4.5 + 6 * t, left)
    qtbot.wait(40)
    send(QEvent.Type.MouseButtonRelease, 15.5, 10.5, Qt.MouseButton.NoButton)
    assert view.cull_rect == (5, 4, 16, 11)
    assert view.cull_probes["a"].level == cull_level(11, 7)


def test_the_test_runs_off_the_ui_thread(view, qtbot, monkeypatch):
    import mipview.ui.views.cull_probe_view as pv

    threads = []
    real = pv.cull_probe

    def recording(*args):
        threads.append(threading.get_ident())
        return real(*args)

    monkeypatch.setattr(pv, "cull_probe", recording)
    levels = three_tap(depth(37, 23, seed=5))
    view.set_pyramids([("a", "min", levels, Format.R32F)], reductions={"a": "min"})
    qtbot.waitUntil(lambda: not view.pool.busy(), timeout=WAIT_MS)
    view.pool.sync_texels = 0  # every rectangle counts as large
    view.set_cull_rect((0, 0, 30, 20))
    qtbot.waitUntil(lambda: "a" in view.cull_probes, timeout=WAIT_MS)
    assert threads and threading.get_ident() not in threads
    assert view.cull_probes["a"].rect == (0, 0, 30, 20)


def test_no_cull_test_without_a_min_or_max_result(view):
    levels = three_tap(depth(9, 7))
    view.set_pyramids([("a", "mean", levels, Format.R32F)], reductions={"a": "mean"})
    assert not view.cull_button.isEnabled()
    view.cull_button.toggle()  # Z: stays off
    assert not view.cull_button.isChecked() and not view.panels[0].view.drawing
    view.set_cull_rect((0, 0, 3, 3))
    assert view.cull_probes == {} and view.cull.label.isHidden()


def test_range_resets_when_the_format_or_channels_change(view):
    level0 = depth(21, 13, seed=6)
    v = level0[..., 0]
    view.set_pyramids([("d", "depth", three_tap(level0), Format.R32F)])
    assert (view.settings.black, view.settings.white) == (float(v.min()), float(v.max()))
    # the same level 0 again (its range already): the levels are still drawn
    view.set_pyramids([("d2", "depth again", three_tap(level0), Format.R32F)])
    assert view.displayed("d2", 0) is not None
    rgba = stamp_image(16, 12)
    view.set_pyramids([("c", "colour", (rgba,), Format.UNORM)])  # RGBA after depth: [0, 1]
    assert (view.settings.black, view.settings.white) == (0.0, 1.0)
    assert np.array_equal(view.displayed("c", 0), rgba)
    view.histogram.set_range(0.25, 0.75)  # the user's range stays for the same format
    view.set_pyramids([("c2", "colour", (rgba,), Format.UNORM)])
    assert (view.settings.black, view.settings.white) == (0.25, 0.75)
    f16 = (rgba / np.float16(255)).astype(np.float16)
    view.set_pyramids([("h", "hdr", (f16,), Format.F16)])  # another format: [0, 1] again
    assert (view.settings.black, view.settings.white) == (0.0, 1.0)
    assert np.array_equal(view.displayed("h", 0), to_display(f16, Format.F16, 0,
                                                             view.settings))


def test_source_panel_of_an_r32f_image_through_the_colormap(qtbot, make_window, tmp_path,
                                                            small_png):
    """An opened depth .npy shows through the colormap over its own range before a run, as
    its level 0 does after one; a PNG opened next starts from [0, 1]."""
    path = tmp_path / "depth.npy"
    rng = np.random.default_rng(7)
    z = rng.uniform(0.3, 0.7, (19, 23)).astype(np.float32)
    np.save(path, z)
    w = make_window(fmt="r32f")
    view = w.pyramid
    view.controls.colormap_combo.setCurrentIndex(view.controls.colormap_combo.findData("turbo"))
    opened = open_and_wait(qtbot, w, path)
    assert opened.fmt is Format.R32F and opened.level0.shape == (19, 23, 4)
    qtbot.waitUntil(lambda: view.displayed("source", 0) is not None, timeout=WAIT_MS)
    s = view.settings
    assert (s.black, s.white, s.colormap) == (float(z.min()), float(z.max()), "turbo")
    before = view.displayed("source", 0)
    assert np.array_equal(before, to_display(opened.level0, Format.R32F, 0, s))
    grey = to_display(opened.level0, Format.R32F, 0, DisplaySettings(
        black=s.black, white=s.white))
    assert not np.array_equal(before, grey)  # coloured, not grey
    assert "R 0." in view.readout_text(view.panels[0], 0, 1, 1)
    spec = StrategySpec.parse("per-level:reduction=min")
    got = run_and_wait(qtbot, w, [spec], repeat=0)
    qtbot.waitUntil(lambda: view.displayed(str(spec), 0) is not None, timeout=WAIT_MS)
    assert np.array_equal(view.displayed(str(spec), 0), before)  # the same before and after
    assert view.cull_button.isEnabled() and got["output"].mip.results[0].reduction == "min"
    w.panel.format_combo.setCurrentIndex(w.panel.format_combo.findData("unorm"))
    open_and_wait(qtbot, w, small_png)
    qtbot.waitUntil(lambda: view.displayed("source", 0) is not None, timeout=WAIT_MS)
    assert (view.settings.black, view.settings.white) == (0.0, 1.0)
    assert np.array_equal(view.displayed("source", 0), stamp_image())
    assert not view.cull_button.isEnabled()
