"""A volume's levels as slices, for the viewer (pure numpy, no Qt).

A volume level is held as ``(D, H, W, C)`` (docs/volumes.md). The viewer shows one slice of
each level across a chosen axis: ``z`` (the x-y plane, as the volume is stored), ``y`` (x
across, z down) or ``x`` (z across, y down). :func:`oriented` turns a level so that its first
axis is the one sliced; every tool of the viewer then sees an array of layers, as it does for
a 2D array texture, and reads the texel of the slice shown.

The slider picks a slice of level 0; every other level shows the slice whose footprint holds it
(:func:`slice_of`): slice j of a level of n slices covers level 0's slices
``[j * n0 / n, (j + 1) * n0 / n)``, as the exact reduction reads them (three slices on an odd
side), so ``floor(z0 * n / n0)``.
"""

from __future__ import annotations

import numpy as np

#: the axis a slice is taken across, as the viewer offers them
AXES = ("z", "y", "x")
#: (across, down) of a slice across each axis
PLANES = {"z": ("x", "y"), "y": ("x", "z"), "x": ("z", "y")}
#: the transpose of (D, H, W) that puts each axis first, rows then columns as PLANES says
_ORDER = {"z": (0, 1, 2), "y": (1, 0, 2), "x": (2, 1, 0)}


def oriented(level: np.ndarray, axis: str) -> np.ndarray:
    """``level`` ``(D, H, W[, C])`` as slices across ``axis``: ``(n, rows, cols[, C])``, a view
    (no copy)."""
    order = _ORDER[axis]
    return np.transpose(level, order + tuple(range(3, level.ndim)))


def slice_of(z0: int, n0: int, n: int) -> int:
    """The slice of a level of ``n`` slices whose footprint holds slice ``z0`` of level 0's
    ``n0`` (module docstring)."""
    return min(max(z0, 0) * n // n0, n - 1)


def volume_texel(axis: str, index: int, col: int, row: int) -> tuple[int, int, int]:
    """(x, y, z) in the volume of texel (col, row) of slice ``index`` across ``axis``."""
    if axis == "z":
        return col, row, index
    if axis == "y":
        return col, index, row
    return index, row, col
