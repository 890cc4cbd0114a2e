"""The Hi-Z occlusion test of one screen rectangle against a min/max pyramid (numpy, no Qt).

The standard test (niagara, Unreal) takes an object's screen-space bounding rectangle of
``w x h`` texels of level 0 and reads level ``k = ceil(log2(max(w, h)))``, where the rectangle
spans at most one texel per axis, so at most 2x2 texels of level k cover it. Which of them it
reads (:data:`TAPS`):

- ``quad``: niagara's one fetch through a min/max-reduction sampler at the rectangle's centre
  (``textureLod(pyramid, centre, k)``, clamp to edge): the bilinear 2x2 quad around that point,
  less a texel of weight 0 (the centre on a texel centre) or clamped away at an edge;
- ``cover``: the texels of level k the rectangle overlaps (Unreal's four corner samples): one
  when it lies inside one texel, else 2 or 4.

Coordinates map between levels as a sampler maps them, through normalised coordinates
(``x * w_k / w_0``), so odd sizes map as the GPU maps them. The test's depth is the result's
reduction of the texels read (``min``, ``max``; ``minmax``: R's min and G's max), and the test is
**conservative** when it bounds every level-0 value under the rectangle on its side: for min no
greater than their exact min, for max no less than their exact max (:func:`cull_probe`). A
pyramid whose odd sides reduce 2 texels of 3 (a previous-power-of-two chain) fails that for a
rectangle over a dropped texel; mipview's 3-tap levels do not.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mipview.core.array_layers import layer_of
from mipview.core.reductions import EXTREMES

TAPS = ("quad", "cover")
TAP_LABELS = {"quad": "2x2 at its centre (sampler)", "cover": "texels under it"}
#: what :attr:`CullProbe.verdict` can say
VERDICTS = ("exact", "conservative", "non-conservative", "nan")


def cull_level(w: int, h: int) -> int:
    """``ceil(log2(max(w, h)))`` of a rectangle of ``w x h`` level-0 texels (0 for one texel)."""
    return (max(1, w, h) - 1).bit_length()


def _read_axis(a0: int, a1: int, n0: int, nk: int, taps: str) -> tuple[int, ...]:
    """Texels of an axis of level k (``nk`` texels; level 0 has ``n0``) that the test reads for
    the span [a0, a1) of level-0 texels; exact integer arithmetic."""
    if taps == "cover":
        first = (a0 * nk) // n0
        last = -((-a1 * nk) // n0) - 1  # ceil(a1 * nk / n0) - 1
        idx = range(first, last + 1)
    elif taps == "quad":
        # the sample point in texels of level k less half a texel: ((a0 + a1) nk - n0) / (2 n0)
        num, den = (a0 + a1) * nk - n0, 2 * n0
        i0 = num // den
        idx = (i0,) if num % den == 0 else (i0, i0 + 1)  # weight 0: not read
    else:
        raise ValueError(f"taps {taps!r} is not one of {TAPS}")
    return tuple(sorted({min(max(0, i), nk - 1) for i in idx}))


def texels_read(rect: tuple[int, int, int, int], size0: tuple[int, int],
                size_k: tuple[int, int], taps: str = "quad") -> tuple[tuple[int, ...],
                                                                      tuple[int, ...]]:
    """(columns, rows) of level k (``size_k`` = (w, h)) the test reads for ``rect`` (x0, y0, x1,
    y1) of level 0 (``size0``), end exclusive; every pair of them is a texel read."""
    x0, y0, x1, y1 = rect
    return (_read_axis(x0, x1, size0[0], size_k[0], taps),
            _read_axis(y0, y1, size0[1], size_k[1], taps))


@dataclass(frozen=True)
class CullProbe:
    """One rectangle's test: the level read (``wanted`` before clamping to the last level), the
    texels read (``xs`` x ``ys``), the depth it returns and the exact extent of level 0 under
    the rectangle, in the image's own channels and the levels' own dtype."""

    rect: tuple[int, int, int, int]
    reduction: str
    taps: str
    level: int
    wanted: int
    xs: tuple[int, ...]
    ys: tuple[int, ...]
    #: the reduction of the texels read, per own channel (``minmax``: R's min, G's max)
    returned: np.ndarray
    #: exact min and max of level 0 under the rectangle, per own channel
    lo: np.ndarray
    hi: np.ndarray
    verdict: str

    @property
    def texels(self) -> list[tuple[int, int]]:
        return [(x, y) for y in self.ys for x in self.xs]

    @property
    def size(self) -> tuple[int, int]:
        x0, y0, x1, y1 = self.rect
        return x1 - x0, y1 - y0

    def sides(self) -> list[tuple[str, int, str]]:
        """(what the returned value is, its channel, which bound it must keep): ``("min", 0,
        "lo")`` reads: channel 0's returned min must be <= ``lo[0]``."""
        n = self.lo.shape[0]
        if self.reduction == "minmax":
            return [("min", 0, "lo"), ("max", min(1, n - 1), "hi")]
        side = "lo" if self.reduction == "min" else "hi"
        return [(self.reduction, c, side) for c in range(n)]


def cull_probe(levels: tuple[np.ndarray, ...] | list[np.ndarray], channels: int,
               reduction: str, rect: tuple[int, int, int, int], layer: int = 0,
               taps: str = "quad") -> CullProbe:
    """The Hi-Z test (module docstring) of ``rect`` (x0, y0, x1, y1, end exclusive, level-0
    texels, clamped to level 0) on ``levels`` (host texels, (H, W, 4) or (L, H, W, 4)) of a
    ``reduction`` in :data:`EXTREMES` whose image has ``channels`` channels."""
    if reduction not in EXTREMES:
        raise ValueError(f"a cull test needs a min, max or minmax result, not {reduction!r}")
    level0 = layer_of(levels[0], layer)
    h0, w0 = level0.shape[:2]
    x0, y0, x1, y1 = rect
    x0, y0 = min(max(0, x0), w0 - 1), min(max(0, y0), h0 - 1)
    x1, y1 = min(max(x0 + 1, x1), w0), min(max(y0 + 1, y1), h0)
    rect = (x0, y0, x1, y1)
    wanted = cull_level(x1 - x0, y1 - y0)
    k = min(wanted, len(levels) - 1)
    lk = layer_of(levels[k], layer)
    xs, ys = texels_read(rect, (w0, h0), (lk.shape[1], lk.shape[0]), taps)
    n = max(1, min(channels, 4))
    read = lk[np.ix_(ys, xs)][..., :n].reshape(-1, n)
    under = level0[y0:y1, x0:x1, :n].reshape(-1, n)
    lo, hi = under.min(axis=0), under.max(axis=0)
    if reduction == "minmax":
        returned = np.array([read[:, 0].min(), read[:, min(1, n - 1)].max()], read.dtype)
    else:
        returned = read.min(axis=0) if reduction == "min" else read.max(axis=0)
    probe = CullProbe(rect, reduction, taps, k, wanted, xs, ys, returned, lo, hi, "")
    bounds = {"lo": lo, "hi": hi}
    got = [(float(returned[i]), float(bounds[side][c]), side) for i, (_, c, side)
           in enumerate(probe.sides())]
    if any(np.isnan(g) or np.isnan(b) for g, b, _ in got):
        verdict = "nan"
    elif any((g > b) if side == "lo" else (g < b) for g, b, side in got):
        verdict = "non-conservative"
    elif all(g == b for g, b, _ in got):
        verdict = "exact"
    else:
        verdict = "conservative"
    return CullProbe(rect, reduction, taps, k, wanted, xs, ys, returned, lo, hi, verdict)
