"""Display helpers and pyramid layout, no GPU."""

import numpy as np

from mipview.core.formats import Format
from mipview.ui.display import texel_text, to_display


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
    from mipview.ui.views.pyramid_view import level_layout

    rects = level_layout([(64, 48), (32, 24), (16, 12), (8, 6)], gap=2)
    assert [(r.x(), r.y(), r.width(), r.height()) for r in rects] == [
        (0, 0, 64, 48), (66, 0, 32, 24), (66, 26, 16, 12), (66, 40, 8, 6)]
