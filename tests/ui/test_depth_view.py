"""The viewer on one- and two-channel levels (issue "Depth pyramids and render-target formats"):
a colormap over a range, depth linearisation, readouts in the format's own channels and units,
and the Hi-Z overlay of min/max results. No GPU but the last test: the pyramid view draws the
arrays it is given."""

from __future__ import annotations

import threading

import numpy as np
import pyqtgraph as pg
import pytest

from mipview.check.reference import reference_pyramid
from mipview.core.formats import Format
from mipview.core.specs import StrategySpec
from mipview.ui.display import HIZ_MARKS, DisplaySettings, linear_depth, to_display
from mipview.ui.views.pyramid_view import PyramidView
from tests.ui.test_main_window import open_and_wait, run_and_wait

WAIT_MS = 20_000


def host(values: np.ndarray, fmt: Format) -> np.ndarray:
    """(H, W, C) of the image's own channels -> host texels, as a level is held."""
    return fmt.unpack(np.asarray(values, fmt.dtype))


def depth_level0(w: int = 21, h: int = 13, seed: int = 0) -> np.ndarray:
    """An r32f depth buffer in [0.2, 0.9], odd sides (3-texel footprints)."""
    rng = np.random.default_rng(seed)
    return host(rng.uniform(0.2, 0.9, (h, w, 1)), Format.R32F)


def min_pyramid(level0: np.ndarray, reduction: str = "min") -> tuple[np.ndarray, ...]:
    """The exact min (max) pyramid as a strategy stores it: float32 host texels."""
    return tuple(lv.astype(np.float32) for lv in reference_pyramid(level0, Format.R32F,
                                                                   reduction))


def shown(view: PyramidView, key: str = "a", level: int = 0) -> np.ndarray:
    img = view.displayed(key, level)
    assert img is not None
    return img


def cmap_bytes(name: str, t: np.ndarray) -> np.ndarray:
    """pyqtgraph's colours of normalised values ``t`` (its 256-entry table), at the 8-bit step
    the view shows."""
    lut = pg.colormap.get(name).getLookupTable(0.0, 1.0, 256, alpha=False)
    return lut[np.rint(np.clip(t, 0, 1) * 255).astype(int)]


def test_r32f_level_through_a_colormap_over_an_auto_range(view):
    level0 = depth_level0()
    v = level0[..., 0]
    view.set_pyramids([("a", "A", (level0,), Format.R32F)])
    # the range starts at level 0's finite extent, not [0, 1]
    s = view.settings
    assert (s.black, s.white) == (float(v.min()), float(v.max()))
    assert view.controls.channel_combo.currentText() == "R"
    model = view.controls.channel_combo.model()
    assert [model.item(i).isEnabled() for i in range(6)] == [True, True, False, False, False,
                                                            False]
    t = (v - np.float32(s.black)) * np.float32(1 / (s.white - s.black))
    grey = shown(view)
    assert np.array_equal(grey[..., 0], np.rint(np.clip(t, 0, 1) * 255))  # not red on black
    assert np.array_equal(grey[..., 0], grey[..., 1]) and np.array_equal(grey[..., 0],
                                                                         grey[..., 2])
    assert grey[..., 0].min() == 0 and grey[..., 0].max() == 255 and (grey[..., 3] == 255).all()
    for name in ("viridis", "turbo"):
        view.controls.colormap_combo.setCurrentIndex(view.controls.colormap_combo.findData(name))
        assert np.array_equal(shown(view)[..., :3], cmap_bytes(name, t)), name
    view.histogram.set_range(0.5, 0.75)  # the user's range
    t = (v - np.float32(0.5)) * np.float32(1 / 0.25)
    assert np.array_equal(shown(view)[..., :3], cmap_bytes("turbo", t))
    view.auto_range()  # Auto: back to the extent
    assert (view.settings.black, view.settings.white) == (float(v.min()), float(v.max()))
    nan = level0.copy()  # a NaN is left out of the extent
    nan[0, 0, 0] = np.nan
    view.set_pyramids([("a", "A", (nan,), Format.R32F)])
    assert view.settings.black == float(np.nanmin(nan[..., 0]))


def test_rg16f_shows_r_and_g_together_or_one_through_the_colormap(view):
    rng = np.random.default_rng(1)
    rg = rng.uniform(0.1, 0.6, (8, 10, 2)).astype(np.float16)
    level0 = host(rg, Format.RG16F)
    view.set_pyramids([("a", "A", (level0,), Format.RG16F)])
    assert view.controls.channel_combo.currentText() == "RG"
    s = view.settings
    assert (s.black, s.white) == (float(rg.min()), float(rg.max()))  # of R and G, not blue's 0
    img = shown(view)
    t = (rg.astype(np.float32) - np.float32(s.black)) * np.float32(1 / (s.white - s.black))
    assert np.array_equal(img[..., :2], np.rint(np.clip(t, 0, 1) * 255))
    assert (img[..., 2] == 0).all() and (img[..., 3] == 255).all()
    view.controls.colormap_combo.setCurrentIndex(view.controls.colormap_combo.findData("viridis"))
    view.controls.set_channel("g")
    assert np.array_equal(shown(view)[..., :3], cmap_bytes("viridis", t[..., 1]))


def test_depth_is_shown_linear_with_near_far_and_reversed_z(view):
    assert linear_depth(np.float32(0.0), 0.5, 100.0) == np.float32(0.5)
    assert linear_depth(np.float32(1.0), 0.5, 100.0) == np.float32(100.0)
    assert linear_depth(np.float32(1.0), 0.5, 100.0, reversed_z=True) == np.float32(0.5)
    assert linear_depth(np.float32(0.0), 0.5, 100.0, reversed_z=True) == np.float32(100.0)
    assert abs(float(linear_depth(np.float32(0.5), 1.0, 3.0)) - 1.5) < 1e-6  # 2nf / (f + n)
    level0 = depth_level0(seed=2)
    view.set_pyramids([("a", "A", (level0,), Format.R32F)])
    for reversed_z in (False, True):
        view.controls.set_depth(True, near=0.5, far=100.0, reversed_z=reversed_z)
        lin = linear_depth(level0[..., 0], 0.5, 100.0, reversed_z)
        s = view.settings
        assert s.depth and (s.black, s.white) == (float(lin.min()), float(lin.max()))
        t = (lin - np.float32(s.black)) * np.float32(1 / (s.white - s.black))
        assert np.array_equal(shown(view)[..., 0], np.rint(np.clip(t, 0, 1) * 255))
        text = view.readout_text(view.panels[0], 0, 3, 2)
        assert f"linear depth {float(lin[2, 3]):.6g}" in text
    view.controls.depth_check.setChecked(False)  # raw depth again, its own range
    assert view.settings.white == float(level0[..., 0].max())


def test_readout_and_lock_table_in_the_formats_channels_and_units(view):
    r = np.zeros((4, 4, 1), np.float32)
    r[1, 2, 0] = 0.4375
    view.set_pyramids([("a", "A", (host(r, Format.R32F),), Format.R32F)])
    text = view.readout_text(view.panels[0], 0, 2, 1)
    assert text.endswith("| R 0.4375") and "0.0000" not in text and "8-bit" not in text
    view.lock_texel(0, 2, 1)
    assert view.readout.lock_table.item(0, 0).text() == "0.4375"
    rg = np.zeros((4, 4, 2), np.float16)
    rg[3, 0] = (0.5, 0.25)
    view.set_pyramids([("b", "rg16f", (host(rg, Format.RG16F),), Format.RG16F)])
    text = view.readout_text(view.panels[0], 0, 0, 3)
    assert text.endswith("| R 0.5  G 0.25") and "B " not in text and "A " not in text
    r8 = np.full((2, 2, 1), 128, np.uint8)
    view.set_pyramids([("c", "C", (host(r8, Format.R8),), Format.R8)])
    assert view.readout_text(view.panels[0], 0, 1, 1).endswith("R 128 (0.5020)")
    r16 = np.full((2, 2, 1), 32768, np.uint16)  # 16-bit codes, normalised by 65535
    view.set_pyramids([("d", "D", (host(r16, Format.R16),), Format.R16)])
    assert view.readout_text(view.panels[0], 0, 1, 1).endswith("R 32768 (0.5000)")


def test_hiz_overlay_marks_exactly_the_altered_texel(view, qtbot):
    level0 = depth_level0(seed=3)
    exact = min_pyramid(level0)
    view.set_pyramids([("a", "A", exact, Format.R32F)], reductions={"a": "min"})
    assert view.hiz_counts("a") == {k: {} for k in range(1, len(exact))}
    assert all(view.marks_shown("a", k) is None for k in range(len(exact)))
    assert "Hi-Z: 0 non-conservative, 0 inexact" in view.panels[0].label.text
    # one texel of level 2 made greater than its footprint's min (non-conservative), and one
    # that is not the min of its own parent's footprint, so level 3 stays exact
    bad = [lv.copy() for lv in exact]
    parent = exact[3]
    y, x = next((y, x) for y in range(bad[2].shape[0]) for x in range(bad[2].shape[1])
                if bad[2][y, x, 0] > parent[min(y // 2, parent.shape[0] - 1),
                                            min(x // 2, parent.shape[1] - 1), 0])
    bad[2][y, x, 0] += np.float32(0.25)
    view.set_pyramids([("a", "A", tuple(bad), Format.R32F)], reductions={"a": "min"})
    counts = view.hiz_counts("a")
    assert counts == {1: {}, 2: {"non-conservative": 1}, **{k: {} for k in range(3, len(bad))}}
    marks = view.marks_shown("a", 2)
    assert marks[y, x].tolist() == [*HIZ_MARKS["non-conservative"], 255]
    assert np.count_nonzero(marks[..., 3]) == 1  # the rest transparent
    assert "footprint min" in view.readout_text(view.panels[0], 2, x, y)
    assert view.readout_text(view.panels[0], 2, x, y).endswith(": non-conservative")
    assert view.readout_text(view.panels[0], 2, 0 if x else 1, y).endswith(": exact")
    assert "Hi-Z: 1 non-conservative" in view.panels[0].label.text
    # lower than the min: on the safe side, but not exact
    last = [lv.copy() for lv in exact]
    last[-1][0, 0, 0] -= np.float32(0.125)
    view.set_pyramids([("a", "A", tuple(last), Format.R32F)], reductions={"a": "min"})
    assert view.hiz_counts("a")[len(last) - 1] == {"inexact": 1}
    view.controls.hiz_check.setChecked(False)  # off: nothing drawn, the images stay
    assert view.marks_shown("a", len(last) - 1) is None and "Hi-Z" not in view.panels[0].label.text
    # a max result of the same data: exact; the mean reduction gets no overlay
    view.controls.hiz_check.setChecked(True)
    view.set_pyramids([("a", "A", min_pyramid(level0, "max"), Format.R32F),
                       ("b", "B", exact, Format.R32F)], reductions={"a": "max", "b": "mean"})
    assert view.hiz_counts("a") == {k: {} for k in range(1, len(exact))}
    assert view.hiz_counts("b") == {}


def test_conversion_and_masks_run_off_the_ui_thread(view, qtbot, monkeypatch):
    threads = []

    def recording(fn):
        def run(*args, **kwargs):
            threads.append(threading.get_ident())
            return fn(*args, **kwargs)
        return run

    import mipview.ui.views.hiz_overlay_view as hiz
    import mipview.ui.views.level_display as shown

    for module, name in ((shown, "to_display"), (hiz, "hiz_overlay"), (shown, "_extent")):
        monkeypatch.setattr(module, name, recording(getattr(module, name)))
    view.pool.sync_texels = 0  # every level counts as large
    bad = [lv.copy() for lv in min_pyramid(depth_level0(seed=4))]
    bad[1][0, 0, 0] = np.float32(2.0)
    with qtbot.waitSignal(view.pool.sigIdle, timeout=WAIT_MS):
        view.set_pyramids([("a", "A", tuple(bad), Format.R32F)], reductions={"a": "min"})
    qtbot.waitUntil(lambda: view.displayed("a", 1) is not None and not view.pool.busy(),
                    timeout=WAIT_MS)
    assert len(threads) >= 2 * len(bad) and threading.get_ident() not in threads
    assert np.array_equal(view.displayed("a", 1),
                          to_display(bad[1], Format.R32F, 0, view.settings))
    assert view.hiz_counts("a")[1] == {"non-conservative": 1}


def test_settings_reject_an_unknown_colormap_and_equal_planes():
    with pytest.raises(ValueError):
        DisplaySettings(colormap="rainbow")
    with pytest.raises(ValueError):
        DisplaySettings(depth=True, near=1.0, far=1.0)


def test_a_min_run_on_a_depth_buffer_in_the_window(qtbot, make_window, tmp_path):
    """End to end on lavapipe: an r32f depth .npy through per-level:reduction=min is shown
    through the colormap's range, exact (no Hi-Z mark), with R-only signed maps."""
    path = tmp_path / "depth.npy"
    rng = np.random.default_rng(5)
    np.save(path, rng.uniform(0.3, 0.7, (19, 23)).astype(np.float32))
    w = make_window(fmt="r32f")
    open_and_wait(qtbot, w, path)
    spec = StrategySpec.parse("per-level:reduction=min")
    got = run_and_wait(qtbot, w, [spec], repeat=0)
    res = got["output"].mip.results[0]
    assert got["output"].mip.fmt is Format.R32F and res.reduction == "min"
    view = w.pyramid
    qtbot.waitUntil(lambda: not view.pool.busy(), timeout=WAIT_MS)
    level0 = np.asarray(res.levels[0])[..., 0]
    assert (view.settings.black, view.settings.white) == (float(level0.min()),
                                                         float(level0.max()))
    assert view.hiz_counts(str(spec)) == {k: {} for k in range(1, len(res.levels))}
    heat = w.heatmap
    assert [heat.map_combo.itemText(i) for i in range(heat.map_combo.count())] == [
        "max |error|", "signed R"]
