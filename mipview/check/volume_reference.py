"""The exact float64 mip chain of a volume (3D texture): the 2D reference's rule on three axes.

Volumes are ``(D, H, W, C)`` arrays (mipview/core/volume.py). One step reduces x, then y, then
z, each axis by the rule of the 2D reference (mipview/check/reference.py, the same per-axis
functions): an even side 2:1 with 1/2 each; an odd side ``n = 2m + 1 -> m`` with taps ``2i,
2i+1, 2i+2`` weighted ``(m-i)/n, m/n, (i+1)/n``, the exact volume of each output texel's
footprint; a side of 1 stays 1. Min and max take the same 2 or 3 texels per axis (8 to 27 per
output texel), on stored values as they are. docs/volumes.md.

A volume of depth 1 gives the very bytes of the 2D reference of its one slice.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from mipview.check.reference import reduce_axis_extreme, reduce_axis_mean
from mipview.core import bands
from mipview.core.cancel import checkpoint
from mipview.core.formats import Format, decode, encode
from mipview.core.reductions import EXTREMES
from mipview.core.volume import volume_mip_count, volume_texels

Reduction = Literal["mean", "min", "max", "minmax"]

# as in reference.py: non-finite input propagates by IEEE rules, without warnings
_IEEE_QUIET = {"invalid": "ignore", "over": "ignore"}

_Z, _Y, _X = 0, 1, 2


def reduce_volume(values: np.ndarray) -> np.ndarray:
    """One exact 2x2x2 box step of a volume.

    Parameters
    ----------
    values : (D, H, W, C) decoded values (linear light), any C >= 1.

    Returns
    -------
    float64 array ``(max(1, D >> 1), max(1, H >> 1), max(1, W >> 1), C)``, a new array.
    """
    checkpoint()  # one per level of every chain: a stopped job ends here
    a = volume_texels(values)
    d, h, w, c = a.shape
    slabs, odd = max(1, d // 2), d % 2
    out = np.empty((slabs, max(1, h // 2), max(1, w // 2), c), np.float64)

    def band(start: int, stop: int) -> None:
        # output slices start..stop read source slices 2 start .. 2 stop (+ 1 on an odd depth;
        # all of a depth of 1); x and y first, which shrink the slab before the strided z pass,
        # and every output as from the whole volume, so the bands give the same bytes
        with np.errstate(**_IEEE_QUIET):
            src = a[2 * start:2 * stop + odd].astype(np.float64, copy=False)
            xy = reduce_axis_mean(reduce_axis_mean(src, _X), _Y)
            reduce_axis_mean(xy, _Z, start, d, out[start:stop])

    bands.for_rows(band, slabs, a.size)
    return out


def reduce_volume_extreme(values: np.ndarray, op: Reduction) -> np.ndarray:
    """One min or max step over the same 2 or 3 taps per axis as :func:`reduce_volume`
    (``minmax``: the min of R, the max of the other channels, mipview.core.reductions).

    Works on storage values as they are and keeps their dtype; a NaN tap is dropped
    (``fmin``/``fmax``), as in :func:`mipview.check.reference.reduce_level_minmax`. Returns a
    new array.
    """
    if op not in EXTREMES:
        raise ValueError(f"unknown reduction op {op!r}; choose one of {', '.join(EXTREMES)}")
    checkpoint()
    a = volume_texels(values)

    def reduce(v: np.ndarray, fn: np.ufunc) -> np.ndarray:
        for axis in (_X, _Y, _Z):
            v = reduce_axis_extreme(v, axis, fn)
        return v
    if op == "minmax":
        out = np.concatenate([reduce(a[..., :1], np.fmin), reduce(a[..., 1:], np.fmax)],
                             axis=-1)
    else:
        out = reduce(a, np.fmin if op == "min" else np.fmax)
    return out.copy() if np.may_share_memory(out, a) else out


def _reduction(reduction: str) -> None:
    if reduction != "mean" and reduction not in EXTREMES:
        raise ValueError(f"unknown reduction {reduction!r}; choose 'mean' or one of "
                         f"{', '.join(EXTREMES)}")


@np.errstate(**_IEEE_QUIET)
def volume_pyramid(level0: np.ndarray, fmt: Format,
                   reduction: Reduction = "mean") -> list[np.ndarray]:
    """The "chain" reference of a volume: every level from the float64 level below, never
    re-quantised (as :func:`mipview.check.reference.reference_pyramid` for 2D).

    ``level0``: storage values ``(D, H, W, 4)``. Returns ``volume_mip_count(w, h, d)`` float64
    arrays in storage units; entry 0 is ``level0`` as float64. ``mean`` decodes (linear light
    for sRGB), reduces and encodes; ``min``, ``max`` and ``minmax`` reduce the stored values.
    """
    _reduction(reduction)
    a = volume_texels(level0, channels=4)
    d, h, w, _ = a.shape
    out = [a.astype(np.float64)]
    if reduction == "mean":
        cur = decode(a, fmt)
        for _ in range(1, volume_mip_count(w, h, d)):
            cur = reduce_volume(cur)
            out.append(encode(cur, fmt))
    else:
        cur = out[0]
        for _ in range(1, volume_mip_count(w, h, d)):
            cur = reduce_volume_extreme(cur, reduction)
            out.append(cur)
    return out


@np.errstate(**_IEEE_QUIET)
def volume_step(below: np.ndarray, fmt: Format, reduction: Reduction = "mean") -> np.ndarray:
    """The exact reduction of one volume level as stored (``(D, H, W, 4)`` storage values):
    float64 storage units, unquantised. What a strategy's level k is held to, from its own
    level k - 1 (as :func:`mipview.check.reference.step_level` for 2D)."""
    _reduction(reduction)
    b = volume_texels(below, channels=4)
    if reduction == "mean":
        return encode(reduce_volume(decode(b, fmt)), fmt)
    return reduce_volume_extreme(b.astype(np.float64), reduction)
