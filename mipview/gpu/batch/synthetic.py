"""Seeded synthetic batches: heavy-tailed image sizes from 1x1 to 2048x2048.

The longer side is 2^x with x exponential (mean :data:`LOG2_SCALE`) capped at 11, so most images
are small (median longer side ~ 4) and a few are huge, as in a texture-streaming frame; the aspect
ratio is 2^u with u uniform in [-2, 2]. Sides are not rounded to powers of two (NPOT on purpose).
"""

from __future__ import annotations

import numpy as np

from mipview.core.formats import Format

LOG2_SCALE = 2.0
MAX_SIDE = 2048


def synthetic_sizes(count: int, seed: int = 0, max_side: int = MAX_SIDE) -> list[tuple[int, int]]:
    """``count`` (width, height) pairs; the first k of a seed are the same for every count."""
    rng = np.random.default_rng(seed)
    top = np.log2(max_side)
    # one row of draws per image, so the first k images of a seed never depend on ``count``
    r = rng.random((count, 2))
    x = np.minimum(-LOG2_SCALE * np.log1p(-r[:, 0]), top)
    u = 4.0 * r[:, 1] - 2.0
    big = np.clip(np.rint(2.0 ** x), 1, max_side).astype(int)
    small = np.clip(np.rint(2.0 ** (x - np.abs(u))), 1, max_side).astype(int)
    return [(int(b), int(s)) if ui >= 0 else (int(s), int(b))
            for b, s, ui in zip(big, small, u, strict=True)]


def synthetic_batch(sizes: list[tuple[int, int]], fmt: Format, seed: int = 0) -> list[np.ndarray]:
    """Random storage values (uniform noise in [0, 1]) for each size."""
    rng = np.random.default_rng(seed + 1)
    out = []
    for w, h in sizes:
        if fmt.is_float:
            out.append(rng.random((h, w, 4), dtype=np.float32).astype(fmt.dtype))
        else:
            out.append(rng.integers(0, 256, (h, w, 4), dtype=np.uint8))
    return out
