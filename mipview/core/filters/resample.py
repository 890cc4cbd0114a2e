"""Per-axis tap tables: which source texels (index) each destination texel takes, with which
weights, for a kernel, a size change and an edge mode (docs/filters.md). The float64 references
apply them; the GPU strategies upload the same tables with float32 weights.

A destination texel ``i`` of a side ``n -> d`` has its centre at source coordinate
``u = (i + 0.5) * s`` with ``s = n / d`` (texel j covers [j, j + 1)). Its kernel is stretched to
the destination spacing: a point kernel weighs source texel j by ``k((j + 0.5 - u) / s)``; the
box weighs it by the overlap of [j, j + 1) with the footprint [i s, (i + 1) s), divided by s.
Point weights are normalised to sum to 1 over the unfolded taps, then each tap outside [0, n) is
folded back by the edge mode, so every row sums to 1 whatever the edge.

A cube map's seamless edge (``cube``, docs/cube-maps.md) is no fold of one axis: a tap past the
edge reads the neighbouring face. Its tables are the unfolded ones (as ``none``); the reference
reads them from faces padded with their neighbours (mipview.core.cube.pad_faces).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from mipview.core.filters.kernels import Kernel

#: the per-axis edge modes (what the GPU strategies fold with)
EDGES = ("clamp", "wrap", "mirror")
#: a cube map's seamless edge: taps past an edge read the neighbouring face
CUBE = "cube"


@dataclass(frozen=True)
class Taps:
    """(d, T) source indices (already folded into [0, n)) and float64 weights; rows sum to 1.
    Short rows are padded with weight 0 on index 0."""

    index: np.ndarray
    weight: np.ndarray

    @property
    def count(self) -> int:
        return self.index.shape[1]


def fold(j: np.ndarray, n: int, edge: str) -> np.ndarray:
    """Source indices outside [0, n) mapped back in: clamp to edge, repeat, or mirrored repeat
    (Vulkan's MIRRORED_REPEAT: ... 1 0 | 0 1 ... n-1 | n-1 n-2 ...); ``none`` leaves them (a
    shader that folds them itself)."""
    if edge == "none":
        return j
    if edge == "clamp":
        return np.clip(j, 0, n - 1)
    if edge == "wrap":
        return np.mod(j, n)
    if edge == "mirror":
        m = np.mod(j, 2 * n)
        return np.where(m >= n, 2 * n - 1 - m, m)
    raise ValueError(f"unknown edge mode {edge!r} (known: {', '.join(EDGES)})")


def _area_taps(n: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    s = n / d
    i = np.arange(d)[:, None]
    first = np.floor(i * s).astype(np.int64)
    count = math.ceil(s) + 1
    j = first + np.arange(count)[None, :]
    lo = np.maximum(j, i * s)
    hi = np.minimum(j + 1, (i + 1) * s)
    w = np.maximum(hi - lo, 0.0) / s
    return j, w


def _point_taps(n: int, d: int, kern: Kernel) -> tuple[np.ndarray, np.ndarray]:
    s = n / d
    reach = kern.radius * s
    u = (np.arange(d) + 0.5) * s
    first = np.ceil(u - reach - 0.5).astype(np.int64)
    count = int(math.floor(2 * reach)) + 2
    j = first[:, None] + np.arange(count)[None, :]
    w = np.where(_inside(j, n, d, kern.radius), kern.weight((j + 0.5 - u[:, None]) / s), 0.0)
    return j, w / w.sum(axis=1, keepdims=True)


def _inside(j: np.ndarray, n: int, d: int, radius: float) -> np.ndarray:
    """Which taps ``j`` (rows: destination texels) lie strictly inside the kernel's reach,
    decided exactly: ``|j + 0.5 - (i + 0.5) n / d| < radius n / d`` times ``2 d`` is
    ``|(2j + 1) d - (2i + 1) n| < 2 radius n``, integers against the radius as a fraction. In
    rounded float64 a source centre that lies exactly on the window's end (37 -> 18 at Kaiser
    width 2.5) fell inside or outside by the rounding of its offset."""
    i = np.arange(d)[:, None]
    k = np.abs((2 * j + 1) * d - (2 * i + 1) * n)
    r = Fraction(radius)
    # Python integers: the radius' denominator can be 2^52, past int64 once multiplied
    return (k.astype(object) * r.denominator < 2 * n * r.numerator).astype(bool)


@lru_cache(maxsize=256)
def axis_taps(n: int, d: int, kern: Kernel, edge: str = "clamp") -> Taps:
    """The tap table of one axis ``n -> d`` texels (cached: tables are small and reused every
    level and run). ``edge="none"`` or ``"cube"``: indices left unfolded, each row's taps
    consecutive (a zero weight keeps its index)."""
    if n < 1 or d < 1:
        raise ValueError(f"sides must be positive (got {n} -> {d})")
    j, w = _area_taps(n, d) if kern.area else _point_taps(n, d, kern)
    keep = np.flatnonzero(np.any(w != 0.0, axis=0))  # columns that are zero in every row
    j, w = j[:, keep], w[:, keep]
    unfolded = edge in ("none", CUBE)
    index = j if unfolded else np.where(w != 0.0, fold(j, n, edge), 0)
    taps = Taps(index.astype(np.int32), w.astype(np.float64))
    taps.index.setflags(write=False)
    taps.weight.setflags(write=False)
    return taps


def apply_axis(a: np.ndarray, axis: int, taps: Taps) -> np.ndarray:
    """``out[..., i, ...] = sum_t a[..., index[i, t], ...] * weight[i, t]`` along ``axis``."""
    shape = [1] * a.ndim
    shape[axis] = taps.index.shape[0]
    out = None
    for t in range(taps.count):
        term = np.take(a, taps.index[:, t], axis=axis)
        term *= taps.weight[:, t].reshape(shape)
        if out is None:
            out = term
        else:
            out += term
    assert out is not None
    return out


def cube_taps(n: int, d: int, kern: Kernel) -> tuple[Taps, int]:
    """A cube face's table ``n -> d`` for the seamless edge: unfolded, with its reach r (how far
    its indices leave [0, n)) capped at n, and the indices beyond that clamped to the pad's
    outer ring [-r, n + r) (docs/cube-maps.md). Returns (table, r)."""
    taps = axis_taps(n, d, kern, CUBE)
    r = min(n, max(0, -int(taps.index.min()), int(taps.index.max()) - (n - 1)))
    return Taps(np.clip(taps.index, -r, n - 1 + r).astype(np.int32), taps.weight), r
