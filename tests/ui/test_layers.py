"""Layer selector: multi-page TIFFs open as layers, the Layers control builds N layers for a
run, and the pyramid and heatmap views show the chosen layer."""

from __future__ import annotations

import numpy as np
from PIL import Image

from mipview.check import compare
from mipview.check.reference import reference_pyramid
from mipview.core.specs import StrategySpec
from mipview.io.layers import make_layers
from tests.ui.conftest import stamp_image
from tests.ui.test_main_window import open_and_wait, run_and_wait

SPECS = [StrategySpec("blit"), StrategySpec("per-level")]


def _shown(view, key: str) -> list[np.ndarray]:
    return [item.image for item in view.panel(key).items]


def test_multipage_tiff_opens_with_layer_selector(qtbot, make_window, tmp_path):
    pages = [stamp_image(32, 24), stamp_image(32, 24)[::-1].copy()]
    pages[1][..., 3] = 255
    path = tmp_path / "two_pages.tiff"
    Image.fromarray(pages[0]).save(path, save_all=True, append_images=[Image.fromarray(pages[1])])
    w = make_window()
    opened = open_and_wait(qtbot, w, path)
    assert opened.source.layers == 2
    view = w.pyramid
    assert not view.layer_spin.isHidden() and view.layer_spin.maximum() == 1
    assert np.array_equal(_shown(view, "source")[0], pages[0])
    view.set_layer(1)
    assert np.array_equal(_shown(view, "source")[0], pages[1])
    assert w.run_layers() == 2

    got = run_and_wait(qtbot, w, SPECS, repeat=1)
    mip = got["output"].mip
    assert mip.layers == 2 and mip.validation_messages == ()
    assert view.layer() == 1  # the choice survives the new run
    for res in mip.results:
        for shown, level in zip(_shown(view, str(res.spec)), res.levels, strict=True):
            assert level.shape[0] == 2
            assert np.array_equal(shown, level[1])


def test_layers_control_builds_layers_for_the_run(qtbot, make_window, small_png):
    w = make_window()
    opened = open_and_wait(qtbot, w, small_png)
    assert opened.source.layers == 1 and w.pyramid.layer_spin.isHidden()
    w.panel.layers_spin.setValue(3)
    assert w.run_layers() == 3
    got = run_and_wait(qtbot, w, SPECS, repeat=1)
    out, analysis = got["output"], got["analysis"]
    assert out.mip.layers == 3 and out.mip.validation_messages == ()
    expected0 = make_layers(np.asarray(Image.open(small_png).convert("RGBA")), 3)
    assert np.array_equal(out.level0, expected0)
    # layers differ, so showing another layer shows other texels
    assert not np.array_equal(expected0[0], expected0[2])

    view = w.pyramid
    assert not view.layer_spin.isHidden() and view.layer_spin.maximum() == 2
    for layer in (0, 2):
        view.set_layer(layer)
        for res in out.mip.results:
            shown = _shown(view, str(res.spec))
            assert len(shown) == len(res.levels)
            for img, level in zip(shown, res.levels, strict=True):
                assert np.array_equal(img, level[layer])
    text = view.readout_text(view.panel("blit"), 1, 2, 1)
    assert "layer 2/3" in text and f"{int(out.mip.results[0].levels[1][2, 1, 2, 0]):3d}" in text

    # heatmap: the figures cover all layers, the map shows the chosen layer of compare's map
    heat = w.heatmap
    assert not heat.layer_spin.isHidden() and heat.layer_spin.maximum() == 2
    blit = out.mip.results[0]
    heat.select("blit")
    ref = reference_pyramid(out.level0, out.mip.fmt)
    expected = compare.level_errors(list(blit.levels), ref, out.mip.fmt)
    assert [e.max_error for e in heat.errors] == [e.max_error for e in expected]
    worst = expected[heat.worst_level]
    assert heat.layer_spin.value() == worst.worst[0]
    full = compare.error_map(blit.levels[heat.worst_level], ref[heat.worst_level], out.mip.fmt)
    for layer in range(3):
        heat.set_layer(layer)
        assert np.array_equal(heat.image.image, full[layer])
    assert any(e.spec.name == "per-level" and e.within_tolerance for e in analysis.errors)

    w.panel.layers_spin.setValue(1)  # off again: back to the image's single layer
    got = run_and_wait(qtbot, w, [StrategySpec("per-level")], repeat=0)
    assert got["output"].mip.layers == 1 and w.pyramid.layer_spin.isHidden()
