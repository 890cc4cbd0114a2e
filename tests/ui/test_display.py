"""Display helpers and pyramid layout, no GPU."""

import numpy as np
import pytest

from mipview.formats import Format, to_storage
from mipview.ui.display import fast_storage, texel_text, to_display


@pytest.mark.parametrize("fmt", list(Format))
def test_fast_storage_equals_to_storage(fmt, rng):
    k = np.arange(256, dtype=np.float64)
    values = np.concatenate([
        rng.random(4000), k / 255.0, k / 65535.0 * 257, (k + 0.5) / 255.0,
        (k + 0.5) / 255.0 + 1e-7, (k + 0.5) / 255.0 - 1e-7, [-0.5, 0.0, 1.0, 1.5, 3.0]])
    pixels = np.resize(values.astype(np.float32), (20, 260, 4))
    # the original float64 path, written out, so to_storage's float32 fast path is checked
    # bit for bit against it (not against itself)
    p64 = pixels.astype(np.float64)
    want = p64.astype(fmt.dtype) if fmt.is_float else \
        np.clip(np.rint(p64 * 255.0), 0, 255).astype(np.uint8)
    for got in (to_storage(pixels, fmt), fast_storage(pixels, fmt),
                to_storage(pixels[None].repeat(2, axis=0), fmt)[1]):
        assert got.dtype == want.dtype and got.shape == want.shape
        assert np.array_equal(got.view(np.uint8), want.view(np.uint8))
    assert np.array_equal(to_storage(p64, fmt).view(np.uint8), want.view(np.uint8))


def test_to_display_and_texel_text():
    a = np.zeros((2, 3, 4), np.uint8)
    a[1, 2] = (255, 128, 0, 255)
    assert to_display(a, Format.UNORM) is a
    assert "(255, 128,   0, 255)" in texel_text(a, 2, 1, Format.UNORM)
    f = np.zeros((2, 3, 4), np.float32)
    f[0, 1] = (0.5, 2.0, -1.0, 1.0)
    assert to_display(f, Format.F32)[0, 1].tolist() == [128, 255, 0, 255]
    assert "0.5000, 2.0000, -1.0000" in texel_text(f, 1, 0, Format.F32)


def test_level_layout_stacks_levels_right_of_level0():
    from mipview.ui.pyramid_view import level_layout

    rects = level_layout([(64, 48), (32, 24), (16, 12), (8, 6)], gap=2)
    assert [(r.x(), r.y(), r.width(), r.height()) for r in rects] == [
        (0, 0, 64, 48), (66, 0, 32, 24), (66, 26, 16, 12), (66, 40, 8, 6)]
