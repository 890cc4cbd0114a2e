"""Array layers made from one image, so layered runs have distinct but comparable content."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mipview.core.errors import MipviewError


class LayerCountError(MipviewError):
    pass


_Transform = Callable[[np.ndarray], np.ndarray]

# Shape-preserving variants (90-degree turns would swap the sides of non-square images).
_TRANSFORMS: tuple[_Transform, ...] = (
    lambda p: p,
    lambda p: p[:, ::-1],                         # mirror
    lambda p: p[::-1, :],                         # flip
    lambda p: p[::-1, ::-1],                      # rotate 180
    lambda p: p[..., [1, 2, 0, 3]],               # channels GBR
    lambda p: p[..., [2, 0, 1, 3]],               # channels BRG
    lambda p: p[:, ::-1][..., [2, 1, 0, 3]],      # mirror + BGR
    lambda p: p[::-1, :][..., [1, 0, 2, 3]],      # flip + GRB
)


def make_layers(pixels: np.ndarray, n: int) -> np.ndarray:
    """``n`` different layers (L, H, W, C) from one (H, W, C) image: layer i is a mirror, flip,
    rotation by 180 degrees and/or channel swap of it; beyond 8 layers the variants repeat,
    rolled along x by a few texels per round."""
    if n < 1:
        raise LayerCountError(f"--layers must be at least 1 (got {n})")
    p = np.asarray(pixels)
    if p.ndim == 4:
        p = p[0]
    if p.ndim != 3:
        raise ValueError(f"make_layers wants (H, W, C) pixels, got shape {p.shape}")
    out = np.empty((n, *p.shape), p.dtype)
    for i in range(n):
        layer = _TRANSFORMS[i % len(_TRANSFORMS)](p)
        rounds = i // len(_TRANSFORMS)
        out[i] = np.roll(layer, 7 * rounds, axis=1) if rounds else layer
    return out
