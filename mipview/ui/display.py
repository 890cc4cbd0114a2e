"""Storage values -> 8-bit RGBA for the screen, and texel values -> readout text.

Storage bytes (unorm / srgb) are shown as they are: sRGB bytes are already display-encoded.
Float values are clipped to [0, 1] and rounded; float64 references in 8-bit storage units
(0..255) are rounded the same way.
"""

from __future__ import annotations

import numpy as np

from mipview.formats import Format


def first_layer(a: np.ndarray) -> np.ndarray:
    """(H, W, C) view of layer 0 of an (L, H, W, C) array; (H, W, C) and (H, W) unchanged."""
    return a[0] if a.ndim == 4 else a


def layer_count(a: np.ndarray) -> int:
    """Array layers of an (L, H, W, C) array; 1 for (H, W, C) and (H, W)."""
    return int(a.shape[0]) if a.ndim == 4 else 1


def layer_of(a: np.ndarray, layer: int) -> np.ndarray:
    """(H, W, C) view of ``layer`` of an (L, H, W, C) array (clamped to the last layer);
    (H, W, C) and (H, W) unchanged, so single-layer arrays ignore the layer."""
    return a[min(max(0, layer), a.shape[0] - 1)] if a.ndim == 4 else a


def display_layers(a: np.ndarray, fmt: Format | None) -> np.ndarray:
    """:func:`to_display` of every layer: uint8 (H, W, 4), or (L, H, W, 4) for layered input."""
    a = np.asarray(a)
    if a.ndim != 4:
        return to_display(a, fmt)
    return np.stack([to_display(a, fmt, i) for i in range(a.shape[0])])


def to_display(a: np.ndarray, fmt: Format | None, layer: int = 0) -> np.ndarray:
    """uint8 (H, W, 4) of ``layer``. ``fmt`` None means float pixels in [0, 1] (a source image);
    8-bit formats accept uint8 storage (returned as is) or float storage units (0..255)."""
    a = layer_of(np.asarray(a), layer)
    if a.dtype == np.uint8:
        return a
    if fmt is None or fmt.is_float:
        # NaN shows as 0, as 8-bit storage makes it (a cast of NaN warns and is undefined)
        v = np.nan_to_num(a.astype(np.float32) * 255.0, copy=False, nan=0.0)
        return np.clip(np.rint(v), 0, 255).astype(np.uint8)
    return np.clip(np.rint(a), 0, 255).astype(np.uint8)


def texel_text(a: np.ndarray, x: int, y: int, fmt: Format | None, layer: int = 0) -> str:
    """``(R, G, B, A)`` at (x, y) of ``layer``, as 8-bit and as float."""
    v = layer_of(a, layer)[y, x]
    if v.dtype == np.uint8:
        as8 = [int(c) for c in v]
        flt = [c / 255.0 for c in as8]
    elif fmt is not None and not fmt.is_float:  # float storage units (reference)
        flt = [float(c) / 255.0 for c in v]
        as8 = [int(np.clip(np.rint(c), 0, 255)) for c in v]
    else:
        flt = [float(c) for c in v]
        as8 = [int(np.clip(np.rint(c * 255.0), 0, 255)) for c in flt]
    eight = ", ".join(f"{c:3d}" for c in as8)
    floats = ", ".join(f"{c:.4f}" for c in flt)
    return f"8-bit ({eight})  float ({floats})"
