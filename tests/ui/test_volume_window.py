"""A volume in the window: it opens a slice at a time, every level shows the slice
whose footprint holds level 0's slice chosen, across the axis chosen, and its Run shows every
volume strategy's chain, its error against the exact reference and the reference, sliced
alike, with the verdicts in the status bar."""

from __future__ import annotations

import numpy as np
import pytest

from mipview.check.volume_reference import volume_pyramid
from mipview.core.formats import Format
from mipview.core.specs import StrategySpec
from mipview.core.volume import volume_level_size
from mipview.runs.volume import result_name
from mipview.ui.volume_slices import AXES, oriented, slice_of, volume_texel
from tests.ui.conftest import WAIT_MS
from tests.ui.test_main_window import open_and_wait


def _footprint(z0: int, sides: list[int], level: int) -> tuple[int, int]:
    """Slices of level ``level`` whose exact footprints hold slice z0 of level 0, as the
    reduction reads them: slice j of a level covers 2j, 2j+1 and, on an odd side, 2j+2."""
    lo = hi = z0
    for k in range(1, level + 1):
        below, n = sides[k - 1], sides[k]
        odd = below % 2 == 1 and below > 1
        # j covers [2j, 2j + 1 + odd]: z is covered by every j with 2j <= z <= 2j + 1 + odd
        lo = max(0, (lo - 1 - odd + 1) // 2)
        hi = min(n - 1, hi // 2)
    return lo, hi


def _sides(n: int) -> list[int]:
    out = [n]
    while out[-1] > 1:
        out.append(max(out[-1] // 2, 1))
    return out


def test_each_level_shows_a_slice_whose_footprint_holds_the_chosen_one():
    for n0 in range(1, 34):
        sides = _sides(n0)
        for z0 in range(n0):
            for k, n in enumerate(sides):
                lo, hi = _footprint(z0, sides, k)
                assert lo <= slice_of(z0, n0, n) <= hi, (n0, z0, k)


def test_the_footprint_rule_fails_a_clamped_slice():
    # the layer rule of a 2D array (the same index, clamped) shows slices that do not hold
    # level 0's: at 33 slices, slice 20 of level 0 is in slice 10 of level 1, not 16
    sides = _sides(33)
    lo, hi = _footprint(20, sides, 1)
    assert lo <= 10 <= hi
    assert not lo <= min(20, sides[1] - 1) <= hi


def test_slices_across_each_axis_name_their_texels():
    vol = np.arange(5 * 7 * 9).reshape(5, 7, 9)  # (D, H, W): the value is its own address
    for axis in AXES:
        o = oriented(vol, axis)
        for index in range(o.shape[0]):
            for row in range(o.shape[1]):
                for col in range(o.shape[2]):
                    x, y, z = volume_texel(axis, index, col, row)
                    assert o[index, row, col] == vol[z, y, x]
    assert oriented(vol, "y").shape == (7, 5, 9) and oriented(vol, "x").shape == (9, 7, 5)


@pytest.fixture
def volume_file(tmp_path):
    rng = np.random.default_rng(29)
    vol = rng.integers(0, 256, (5, 7, 9, 4), dtype=np.uint8)  # (D, H, W, 4): odd on every side
    vol[..., 3] = 255
    path = tmp_path / "fog.volume.npy"
    np.save(path, vol)
    return path, vol


def _shown(view, key):
    return [item.image for item in view.panel(key).items]


def test_a_volume_opens_as_slices_across_an_axis(qtbot, make_window, volume_file):
    path, vol = volume_file
    w = make_window()
    opened = open_and_wait(qtbot, w, path)
    assert opened.source.volume and opened.level0.shape == (5, 7, 9, 4)
    assert "9x7x5 volume" in w.image_label.text()
    assert "Run makes its chain with volume-per-level, volume-tiles" in \
        w.statusBar().currentMessage()
    view = w.pyramid
    assert view.is_volume() and not view.layer_spin.isHidden()
    assert view.layer_spin.maximum() == 4
    view.set_layer(3)
    assert np.array_equal(_shown(view, "source")[0], vol[3])
    view.set_slice_axis("x")
    assert view.layer_spin.maximum() == 8
    view.set_layer(6)
    assert np.array_equal(_shown(view, "source")[0], vol[:, :, 6].transpose(1, 0, 2))
    panel = view.panel("source")
    assert "x 6 y 2 z 4" in view.readout_text(panel, 0, 4, 2)


def test_a_volume_run_shows_chains_errors_and_reference_sliced_alike(qtbot, make_window,
                                                                    volume_file):
    path, vol = volume_file
    w = make_window()
    open_and_wait(qtbot, w, path)
    w.panel.repeat_spin.setValue(2)
    got = {}
    w.sigVolumeShown.connect(lambda ran: got.setdefault("ran", ran))
    w.sigStatsShown.connect(lambda s: got.setdefault("stats", s))
    with qtbot.waitSignal(w.sigJobFinished, timeout=WAIT_MS,
                          check_params_cb=lambda j: j == w.latest_job("run")):
        w.run(False, [StrategySpec("per-level"), StrategySpec.parse("per-level:reduction=min")])
    assert w.errors == []
    ran = got["ran"]
    names = [f"{s}{r}" for r in ("", ":reduction=min")
             for s in ("volume-per-level", "volume-tiles")]
    assert sorted(ran.done.verdicts) == sorted(names)
    assert all(v.within_tolerance for v in ran.done.verdicts.values())
    assert "volume-tiles:reduction=min: ok" in w.statusBar().currentMessage()
    assert sorted(s for s, _ in ((str(spec), t) for spec, t in got["stats"].timings)) \
        == sorted(names)
    view = w.pyramid
    view.reference_check.setChecked(True)
    view.set_slice_axis("y")
    view.set_layer(5)
    ref = volume_pyramid(vol, Format.UNORM, "min")
    for res in ran.done.results:
        name = result_name(res)
        panel_levels = view.panel(name).levels
        assert [a.shape for a in panel_levels] == [oriented(a, "y").shape for a in res.levels]
        for k, (shown, level) in enumerate(zip(_shown(view, name), res.levels, strict=True)):
            h = volume_level_size(9, 7, 5, k)[1]
            assert np.array_equal(shown, oriented(level, "y")[slice_of(5, 7, h)]), (name, k)
        errors = view.panel(f"error {name}").levels
        if res.reduction == "min":  # bit-exact: every error is 0, and the reference agrees
            assert all(not e[..., 0].any() for e in errors)
            assert all(np.array_equal(a, r) for a, r in zip(res.levels, ref, strict=True))
    ref_levels = view.panel("reference").levels
    assert len(ref_levels) == len(ran.done.results[0].levels)
    assert np.array_equal(ref_levels[0], oriented(vol, "y"))


def test_a_volume_in_a_depth_format_is_refused_in_a_dialog(qtbot, make_window, volume_file,
                                                            dialogs):
    path, _ = volume_file
    w = make_window()
    open_and_wait(qtbot, w, path)
    w.panel.format_combo.setCurrentIndex(w.panel.format_combo.findData("d32"))
    with qtbot.waitSignal(w.sigErrorShown, timeout=WAIT_MS):
        w.run(False, [StrategySpec("per-level")])
    assert "a depth image is 2D; a volume of depths is r32f" in w.errors[-1].message
    assert dialogs and "a depth image is 2D" in dialogs[-1][1]
    # the window goes on: the volume runs again in its own format
    w.panel.format_combo.setCurrentIndex(w.panel.format_combo.findData("unorm"))
    with qtbot.waitSignal(w.sigVolumeShown, timeout=WAIT_MS):
        w.run(False, [StrategySpec("per-level")])


def test_the_preview_samples_the_slice_the_pyramid_view_shows(qtbot, make_window, volume_file):
    from dataclasses import replace

    from mipview.runs import preview

    path, vol = volume_file
    w = make_window()
    open_and_wait(qtbot, w, path)
    w.panel.repeat_spin.setValue(0)
    with qtbot.waitSignal(w.sigVolumeShown, timeout=WAIT_MS) as blocker:
        w.run(False, [StrategySpec("per-level")])
    ran = blocker.args[0]
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=WAIT_MS)
    w.show()
    w.pyramid.set_slice_axis("y")
    w.pyramid.set_layer(4)
    with qtbot.waitSignal(w.sigPreviewShown, timeout=WAIT_MS) as shown:
        w.preview_dock.toggleViewAction().trigger()
    out = shown.args[0]
    res = next(r for r in ran.done.results if result_name(r) == out.name)
    want = preview.render([oriented(a, "y") for a in res.levels], Format.UNORM,
                          replace(w.preview.settings(), depth=4.5 / 7))
    assert np.array_equal(out.image.rgba, want.rgba)
    with qtbot.waitSignal(w.sigPreviewShown, timeout=WAIT_MS) as shown:
        w.pyramid.set_layer(0)  # another slice: drawn again
    assert not np.array_equal(shown.args[0].image.rgba, out.image.rgba)


def test_a_volume_result_exports_as_3d_ktx2_and_dds(qtbot, make_window, volume_file, tmp_path):
    from mipview.io import imageio
    from mipview.runs import volume
    from mipview.ui.dialogs.export_dialog import ExportDialog

    path, _ = volume_file
    w = make_window()
    open_and_wait(qtbot, w, path)
    assert not w.export_action.isEnabled()
    w.panel.repeat_spin.setValue(0)
    with qtbot.waitSignal(w.sigVolumeShown, timeout=WAIT_MS) as blocker:
        w.run(False, [StrategySpec("per-level")])
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=WAIT_MS)
    assert w.export_action.isEnabled()
    res = {volume.result_name(r): r for r in blocker.args[0].done.results}["volume-tiles"]
    with qtbot.waitSignal(w.sigExported, timeout=WAIT_MS) as exported:
        w.export_chain(str(tmp_path / "out"), ["ktx2", "dds"], "volume-tiles")
    files = exported.args[0].files
    assert [f.rsplit("/", 1)[1] for f in files] == ["volume-tiles.ktx2", "volume-tiles.dds"]
    for f in files:
        back = imageio.load(f, volumes=True)
        assert back.volume and back.depth == 5
        for mine, theirs in zip(back.texture.levels, res.levels, strict=True):
            assert np.array_equal(mine, theirs)
    with pytest.raises(ValueError, match="exr cannot hold a volume"):
        w.export_chain(str(tmp_path / "out"), ["exr"], "volume-tiles")
    # the dialog offers KTX2 and DDS only
    dialog = ExportDialog([StrategySpec.parse("volume-tiles")], "volume-tiles",
                          offered=volume.VOLUME_EXPORT_KINDS)
    qtbot.addWidget(dialog)
    assert dialog.kinds() == ("ktx2", "dds") and not dialog.kind_checks["exr"].isEnabled()
