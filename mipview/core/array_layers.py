"""Array layers of level arrays: (L, H, W, C) for layered images and cube maps, (H, W, C) or
(H, W) for one layer. The window, the Hi-Z culling test and the checks index them alike."""

from __future__ import annotations

import numpy as np


def layer_count(a: np.ndarray) -> int:
    """Array layers of an (L, H, W, C) array; 1 for (H, W, C) and (H, W)."""
    return int(a.shape[0]) if a.ndim == 4 else 1


def layer_of(a: np.ndarray, layer: int) -> np.ndarray:
    """(H, W, C) view of ``layer`` of an (L, H, W, C) array (clamped to the last layer);
    (H, W, C) and (H, W) unchanged, so single-layer arrays ignore the layer."""
    return a[min(max(0, layer), a.shape[0] - 1)] if a.ndim == 4 else a
