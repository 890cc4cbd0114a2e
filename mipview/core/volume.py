"""Volumes (3D textures) as mipview holds them: one 4D array of storage values, slices in z.

A volume of ``W x H x D`` texels is the array ``(D, H, W, C)`` (:data:`VOLUME`): ``values[z]``
is slice z, z = 0 first (the slice a 3D image's first depth layer holds, as KTX2 and DDS store
them), each slice an image as mipview holds every other one: row 0 at the top, column 0 at the
left. C is the channels, 4 for storage values of a :class:`mipview.core.formats.Format` (as
2D levels are).

Level k is ``max(1, W >> k) x max(1, H >> k) x max(1, D >> k)``; the chain ends when all three
are 1, so a volume has ``floor(log2(max(W, H, D))) + 1`` levels (docs/volumes.md).
"""

from __future__ import annotations

import numpy as np

#: the layout of a volume's array: depth (slices, z = 0 first), height (rows), width
#: (columns), channels
VOLUME = "(D, H, W, C)"


def _check_sides(w: int, h: int, d: int) -> None:
    if min(w, h, d) < 1:
        raise ValueError(f"a volume has at least one texel per side, got {w}x{h}x{d} (WxHxD)")


def volume_mip_count(w: int, h: int, d: int) -> int:
    """Levels of a ``w x h x d`` volume's full chain: ``floor(log2(max(w, h, d))) + 1``."""
    _check_sides(w, h, d)
    return max(w, h, d).bit_length()


def volume_level_size(w: int, h: int, d: int, k: int) -> tuple[int, int, int]:
    """``(w, h, d)`` of level ``k``: every side halved k times (rounded down), at least 1."""
    _check_sides(w, h, d)
    if k < 0:
        raise ValueError(f"a level is 0 or more, got {k}")
    return max(1, w >> k), max(1, h >> k), max(1, d >> k)


def volume_dims(values: np.ndarray) -> tuple[int, int, int]:
    """``(w, h, d)`` of a volume's array (:func:`volume_texels` checks it)."""
    d, h, w = volume_texels(values).shape[:3]
    return w, h, d


def volume_texels(values: np.ndarray, channels: int | None = None) -> np.ndarray:
    """``values`` as a volume's array ``(D, H, W, C)`` (``C == channels`` when given); a clear
    ValueError for any other shape (a 2D level, an empty side)."""
    a = np.asarray(values)
    if a.ndim != 4:
        raise ValueError(f"a volume is a {VOLUME} array, got {a.ndim} axes (shape {a.shape})")
    if channels is not None and a.shape[-1] != channels:
        raise ValueError(f"a volume of storage values is (D, H, W, {channels}), got shape "
                         f"{a.shape}")
    d, h, w, c = a.shape
    if min(d, h, w, c) < 1:
        raise ValueError(f"a volume has at least one texel per side and one channel, got shape "
                         f"{a.shape} {VOLUME}")
    return a
