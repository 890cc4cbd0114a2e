"""Luminance/chroma EXR images (channels ``Y``, ``RY``, ``BY`` and maybe ``A``) as RGBA, with
the arithmetic of OpenEXR's own RGBA interface (``RgbaInputFile``, ``ImfRgbaYca.cpp``), so a
file reads here as it does in every OpenEXR-based viewer.

The OpenEXR Python binding hands ``RY`` and ``BY`` over as stored: subsampled, one sample per
2x2 texels (x and y even). OpenEXR rebuilds them at full resolution with a 27-tap filter,
first along each even row (the odd texels between the samples), then down each column (the
odd rows between the even ones); it then turns each texel's luminance and chroma into R, G, B
with the luminance weights of the file's primaries (its ``chromaticities`` attribute, Rec. 709
when it has none), and lowers the saturation of a texel far more saturated than its
neighbours (``fixSaturation``: the chroma filters ring at sharp colour edges). Every stage is
stored as half, as OpenEXR's buffers of ``Rgba`` are, and computed in float32 in the same order
of operations, so the result is OpenEXR's within the rounding of its compiler.

Past the image's edges OpenEXR repeats the first and the last row and column of chroma
samples, as this does. (OpenEXR refuses a 2x2-sampled channel in an image of odd width or
height, so the last sample is always at the last even index.)

Checked against OpenEXR's own rendition of two of its test images (tests/data/exr): equal, bit
for bit.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: the chroma rebuilding filter's taps, for the samples at offsets -13, -11, ..., -1, +1, ...,
#: +13 of an odd texel (ImfRgbaYca.cpp, reconstructChromaHoriz / Vert)
_TAPS = np.array([0.002128, -0.007540, 0.019597, -0.043159, 0.087929, -0.186077, 0.627123,
                  0.627123, -0.186077, 0.087929, -0.043159, 0.019597, -0.007540, 0.002128],
                 np.float32)
_OFFSETS = (*range(-13, 0, 2), *range(1, 14, 2))
#: Rec. ITU-R BT.709 primaries and white point: OpenEXR's default ``chromaticities``
REC709 = (0.64, 0.33, 0.30, 0.60, 0.15, 0.06, 0.3127, 0.3290)

_F = np.float32
_H = np.float16


def luminance_weights(chromaticities: Sequence[float] | None = None) -> tuple[float, float, float]:
    """OpenEXR's ``computeYw``: the weights of R, G and B in luminance, the Y row of the
    RGB-to-XYZ matrix of ``chromaticities`` (red x y, green x y, blue x y, white x y; Rec. 709
    when None), normalised to sum 1; in float32 as OpenEXR computes them. ValueError for
    primaries that make no matrix."""
    rx, ry, gx, gy, bx, by, wx, wy = (_F(v) for v in (chromaticities or REC709))
    one = _F(1)
    with np.errstate(all="ignore"):
        big_x = wx * one / wy
        big_z = (one - wx - wy) * one / wy
        d = rx * (by - gy) + bx * (gy - ry) + gx * (ry - by)
        xz = big_x + big_z
        sr = (big_x * (by - gy) - gx * (one * (by - one) + by * xz)
              + bx * (one * (gy - one) + gy * xz))
        sg = (big_x * (ry - by) + rx * (one * (by - one) + by * xz)
              - bx * (one * (ry - one) + ry * xz))
        sb = (big_x * (gy - ry) - rx * (one * (gy - one) + gy * xz)
              + gx * (one * (ry - one) + ry * xz))
        column = np.array([sr / d * ry, sg / d * gy, sb / d * by], _F)
        weights = column / (column[0] + column[1] + column[2])
    if not np.isfinite(weights).all() or weights[1] == 0:
        raise ValueError(f"its chromaticities {tuple(float(v) for v in chromaticities or ())} "
                         f"make no RGB-to-XYZ matrix (collinear primaries or white y 0)")
    return float(weights[0]), float(weights[1]), float(weights[2])


def _rebuild(samples: np.ndarray, positions: np.ndarray, full: int) -> np.ndarray:
    """Chroma at ``positions`` along axis 0 of an image ``full`` long, from ``samples`` at its
    even indices: an even position takes its sample, an odd one the 14 nearest even ones
    filtered (positions past the ends clamped to the first, and the last even, index), summed
    in float32 in OpenEXR's order and stored as half. Positions may lie outside the image
    (the rows above and below that OpenEXR's saturation fix looks at)."""
    samples = samples.astype(_F)
    last = (full - 1) & ~1

    def sample(pos: np.ndarray) -> np.ndarray:
        return samples[np.clip(pos, 0, last) // 2]

    out = np.empty((positions.size, *samples.shape[1:]), _H)
    even = positions % 2 == 0
    out[even] = sample(positions[even]).astype(_H)
    odd = positions[~even]
    if odd.size:
        acc = np.zeros((odd.size, *samples.shape[1:]), _F)
        for tap, off in zip(_TAPS, _OFFSETS, strict=True):
            acc += sample(odd + off) * tap
        out[~even] = acc.astype(_H)
    return out


def _to_rgb(y: np.ndarray, ry: np.ndarray, by: np.ndarray,
            yw: tuple[np.float32, np.float32, np.float32]) -> np.ndarray:
    """OpenEXR's ``YCAtoRGBA`` on half planes: (..., 3) half R, G, B."""
    big_y = y.astype(_F)
    with np.errstate(all="ignore"):
        r = (ry.astype(_F) + _F(1)) * big_y
        b = (by.astype(_F) + _F(1)) * big_y
        g = (big_y - r * yw[0] - b * yw[2]) / yw[1]
    grey = (ry == 0) & (by == 0)  # no chroma: R = G = B = Y exactly
    rgb = np.stack([r, g, b], axis=-1).astype(_H)
    rgb[grey] = y[grey][..., None]
    return rgb


def _saturation(rgb: np.ndarray) -> np.ndarray:
    top = rgb.max(axis=-1).astype(_F)
    low = rgb.min(axis=-1).astype(_F)
    with np.errstate(all="ignore"):
        return np.where(top > 0, _F(1) - low / top, _F(0)).astype(_F)


def _fix_saturation(rgb: np.ndarray, yw: tuple[np.float32, np.float32, np.float32]) -> np.ndarray:
    """OpenEXR's ``fixSaturation``: ``rgb`` is (H + 2, W, 3), a row above and below the image
    included; a texel more saturated than the mean of its four diagonal neighbours, and than
    what that mean allows, is desaturated towards its brightest channel, its luminance kept."""
    sat = _saturation(rgb)
    w = rgb.shape[1]
    left = np.maximum(np.arange(w) - 1, 0)
    right = np.minimum(np.arange(w) + 1, w - 1)
    above, below = sat[:-2], sat[2:]
    mean = np.minimum(_F(1), _F(0.25) * (above[:, left] + above[:, right] + below[:, left]
                                         + below[:, right]))
    inner = rgb[1:-1]
    s = sat[1:-1]
    most = np.minimum(_F(1), _F(1) - (_F(1) - mean) * _F(0.25))
    over = (s > mean) & (s > most)
    out = inner.copy()
    if not over.any():
        return out
    px = inner[over].astype(_F)
    f = (most[over] / s[over])[:, None]
    top = px.max(axis=-1, keepdims=True)
    low = np.maximum(top - (top - px) * f, _F(0)).astype(_H).astype(_F)

    def luma(c: np.ndarray) -> np.ndarray:
        return c[:, 0] * yw[0] + c[:, 1] * yw[1] + c[:, 2] * yw[2]

    y_in, y_out = luma(px), luma(low)
    with np.errstate(all="ignore"):
        scaled = (low * (y_in / y_out)[:, None]).astype(_H)
    out[over] = np.where((y_out > 0)[:, None], scaled, low.astype(_H))
    return out


def to_rgba(y: np.ndarray, ry: np.ndarray | None, by: np.ndarray | None,
            alpha: np.ndarray | None,
            chromaticities: Sequence[float] | None = None) -> np.ndarray:
    """(H, W, 4) half RGBA of a luminance/chroma image as OpenEXR's RGBA interface reads it:
    ``y`` (H, W), ``ry`` and ``by`` subsampled ((H + 1) // 2, (W + 1) // 2) or None (then R =
    G = B = Y), ``alpha`` (H, W) or None (1). Every input is taken as half, as OpenEXR reads
    them. ValueError for chromaticities that make no matrix, or chroma of the wrong size."""
    y = np.asarray(y).astype(_H)
    height, width = y.shape
    a = np.ones_like(y) if alpha is None else np.asarray(alpha).astype(_H)
    if ry is None or by is None:
        return np.stack([y, y, y, a], axis=-1)
    want = ((height + 1) // 2, (width + 1) // 2)
    if np.shape(ry) != want or np.shape(by) != want:
        raise ValueError(f"RY and BY are {np.shape(ry)} and {np.shape(by)} samples; a "
                         f"{width}x{height} image subsampled 2x2 has {want[1]}x{want[0]}")
    yw = tuple(_F(v) for v in luminance_weights(chromaticities))
    # along x on the rows that hold samples, then down y for rows -1 .. H (the saturation fix
    # looks one row past each edge; row -1 is filtered as an odd row, as OpenEXR does)
    lines = np.arange(-1, height + 1)
    last = (height - 1) & ~1
    full = [_rebuild(_rebuild(np.asarray(c).astype(_H).T, np.arange(width), width).T,
                     lines, height) for c in (ry, by)]
    luma = y[np.where(lines > height - 1, last, np.clip(lines, 0, None))]
    rgb = _to_rgb(luma, full[0], full[1], yw)  # type: ignore[arg-type]
    return np.concatenate([_fix_saturation(rgb, yw), a[..., None]], axis=-1)
