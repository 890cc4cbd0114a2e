"""Display helpers and pyramid layout, no GPU."""

import numpy as np

from mipview.core.formats import Format
from mipview.ui import display
from mipview.ui.display import DisplaySettings, texel_text, to_display


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
    from mipview.ui.views.pyramid_panels import level_layout

    rects = level_layout([(64, 48), (32, 24), (16, 12), (8, 6)], gap=2)
    assert [(r.x(), r.y(), r.width(), r.height()) for r in rects] == [
        (0, 0, 64, 48), (66, 0, 32, 24), (66, 26, 16, 12), (66, 40, 8, 6)]


def test_a_large_level_is_shown_in_bands_as_in_one_piece(monkeypatch):
    rng = np.random.default_rng(3)
    fmt = Format.parse("f16")
    a = rng.normal(0.5, 0.6, (67, 45, 4)).astype(np.float32)  # out of range both ways
    a[5, 7, 0], a[40, 3, 2], a[66, 44, 3] = np.nan, np.inf, -1.0  # marks in three bands
    a[..., 3] = np.where(rng.random((67, 45)) < 0.5, a[..., 3], 0.25)  # checker shows through
    settings = [DisplaySettings(exposure=0.5, gamma=2.2, false_colour=True),
                DisplaySettings(channel="g", colormap="viridis", transfer="srgb"),
                DisplaySettings(offset=0.1, checker=True, overlay=True)]
    whole = [to_display(a, fmt, 0, s) for s in settings]
    monkeypatch.setattr(display, "BAND_TEXELS", 45 * 10)  # bands of 10 rows, 8 squares
    assert display.CHECKER != 10
    for s, expected in zip(settings, whole, strict=True):
        np.testing.assert_array_equal(to_display(a, fmt, 0, s), expected)
    # a band that forgot its rows' place in the checkerboard shows another pattern
    board = display.checkerboard
    monkeypatch.setattr(display, "checkerboard", lambda h, w, top=0: board(h, w))
    assert not np.array_equal(to_display(a, fmt, 0, settings[2]), whole[2])
