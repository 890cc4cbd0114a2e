"""The exact float64 mip pyramid: the definition of "correct" (docs/correctness.md).

Every function takes storage values shaped ``(H, W, 4)`` or ``(L, H, W, 4)`` (array layers) and
works on the last three axes only, so a leading layer axis rides along for free.

Reduction rule per axis (width and height independently):

- even side ``n``: 2:1 box;
- odd side ``n = 2m + 1 -> m``: output ``i`` takes source texels ``2i, 2i+1, 2i+2`` with weights
  ``(m-i)/n, m/n, (i+1)/n``, the exact area of its footprint (nvpro vk_compute_mipmaps);
- side 1 stays 1.

Every source texel of an odd side contributes ``m/n`` in total, so the plain mean of every level
equals the mean of level 0, NPOT or not.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Literal

import numpy as np

from mipview.core import bands
from mipview.core.cancel import checkpoint
from mipview.core.formats import (
    Format,
    decode,
    encode,
    level_size,
    mip_count,
    round_to_grid,
    texels,
)
from mipview.core.reductions import EXTREMES

Reduction = Literal["mean", "min", "max", "minmax"]

# Non-finite input (NaN, +-Inf from a float source) propagates by IEEE rules: that is what the
# reference makes of it. numpy would also warn on stderr at inf - inf, 0 * inf and float16
# overflow; the functions that can meet those are decorated with this quiet errstate. Counting
# non-finite texels is mipview.core.nonfinite's job.
_IEEE_QUIET = {"invalid": "ignore", "over": "ignore"}

_Y = -3
_X = -2


def _take(a: np.ndarray, axis: int, start: int, stop: int | None, step: int) -> np.ndarray:
    index = [slice(None)] * a.ndim
    index[axis] = slice(start, stop, step)
    return a[tuple(index)]


def _odd_weights(m: int, ndim: int, axis: int, first: int = 0,
                 count: int | None = None) -> tuple[np.ndarray, float, np.ndarray]:
    """The weights of outputs ``first .. first + count`` (default: all ``m``) of a side of
    ``2m + 1`` texels."""
    n = 2 * m + 1
    count = m if count is None else count
    i = np.arange(first, first + count, dtype=np.float64)
    shape = [1] * ndim
    shape[axis] = count
    return ((m - i) / n).reshape(shape), m / n, ((i + 1) / n).reshape(shape)


def reduce_axis_mean(a: np.ndarray, axis: int, first: int = 0, side: int | None = None,
                      out: np.ndarray | None = None) -> np.ndarray:
    """Reduce one axis of ``a`` (into ``out`` when given). ``a`` may be a band of a larger
    side: source rows ``2 * first ..`` of a side of ``side`` texels (the odd weights are the
    whole side's)."""
    n = a.shape[axis] if side is None else side
    if n == 1:
        if out is None:
            return a
        out[...] = a
        return out
    if n % 2 == 0:
        out = np.add(_take(a, axis, 0, None, 2), _take(a, axis, 1, None, 2), out=out)
        out *= 0.5
        return out
    count = (a.shape[axis] - 1) // 2
    w0, w1, w2 = _odd_weights(n // 2, a.ndim, axis, first, count)
    # taps 2i, 2i+1, 2i+2 for each output i: three strided views, no gather copies
    out = np.multiply(_take(a, axis, 0, 2 * count - 1, 2), w0, out=out)
    out += _take(a, axis, 1, 2 * count, 2) * w1
    out += _take(a, axis, 2, 2 * count + 1, 2) * w2
    return out


def reduce_axis_extreme(a: np.ndarray, axis: int, fn: np.ufunc) -> np.ndarray:
    """Reduce one axis of ``a`` to the extreme ``fn`` (np.fmin, np.fmax) of each texel's 2 or 3 taps
    (3 on an odd side): conservative, NaN taps dropped; any axis of any array (a volume's depth
    too: mipview/check/volume_reference.py)."""
    n = a.shape[axis]
    if n == 1:
        return a
    m = n // 2
    out = fn(_take(a, axis, 0, 2 * m, 2), _take(a, axis, 1, 2 * m, 2))
    if n % 2:
        fn(out, _take(a, axis, 2, 2 * m + 1, 2), out=out)
    return out


@np.errstate(**_IEEE_QUIET)
def reduce_level(values: np.ndarray) -> np.ndarray:
    """One exact reduction step.

    Parameters
    ----------
    values : (H, W, 4) or (L, H, W, 4) decoded values (linear light).

    Returns
    -------
    float64 array of size ``max(1, W >> 1) x max(1, H >> 1)``.
    """
    checkpoint()  # one per level of every pyramid: a stopped job ends here
    a = texels(values)
    h = a.shape[_Y]
    if h == 1:
        out = reduce_axis_mean(a.astype(np.float64, copy=False), _X)
        return out.copy() if out is a or out is values else out
    rows, odd = h // 2, h % 2
    w = a.shape[_X]
    out = np.empty(a.shape[:-3] + (rows, max(1, w // 2), 4), np.float64)

    def band(start: int, stop: int) -> None:
        # output rows start..stop read source rows 2 start .. 2 stop (+ 1 on an odd side);
        # every output is computed as from the whole level (x first: it shrinks the array
        # before the strided y pass), so the bands give the same bytes
        with np.errstate(**_IEEE_QUIET):
            src = a[..., 2 * start:2 * stop + odd, :, :].astype(np.float64, copy=False)
            reduce_axis_mean(reduce_axis_mean(src, _X), _Y, start, h,
                              out[..., start:stop, :, :])

    bands.for_rows(band, rows, a.size)
    return out


def reduce_level_minmax(values: np.ndarray,
                        op: Literal["min", "max", "minmax"]) -> np.ndarray:
    """One min or max reduction step over the same 2 or 3 taps per axis as :func:`reduce_level`
    (``minmax``: the min of R, the max of the other channels; mipview.core.reductions).

    Works on storage values directly (min/max commute with the monotonic sRGB curve), and keeps
    the input dtype. A NaN tap is dropped (``fmin``/``fmax``: IEEE 754-2008 minNum/maxNum,
    SPIR-V's NMin/NMax, which mipview's shaders are built with: tools/build_shaders.py), so a
    texel is NaN only where its whole footprint is.
    """
    if op not in EXTREMES:
        raise ValueError(f"unknown reduction op {op!r}; choose one of {', '.join(EXTREMES)}")
    checkpoint()
    a = texels(values)

    def reduce(c: np.ndarray, fn: np.ufunc) -> np.ndarray:
        return reduce_axis_extreme(reduce_axis_extreme(c, _X, fn), _Y, fn)
    if op == "minmax":
        out = np.concatenate([reduce(a[..., :1], np.fmin), reduce(a[..., 1:], np.fmax)],
                             axis=-1)
    else:
        out = reduce(a, np.fmin if op == "min" else np.fmax)
    return out.copy() if out is a or out is values else out


def _dims(a: np.ndarray) -> tuple[int, int]:
    return a.shape[_X], a.shape[_Y]


@np.errstate(**_IEEE_QUIET)
def reference_pyramid(level0: np.ndarray, fmt: Format,
                      reduction: Reduction = "mean") -> list[np.ndarray]:
    """The "chain" reference: every level from the float64 level below, never re-quantised.

    Returns ``mip_count(w, h)`` float64 arrays in storage units (0..255 for 8-bit formats,
    0..65535 for 16-bit UNORM, sRGB-encoded for SRGB, plain values for floats). Entry 0 is ``level0`` as float64.
    """
    a = texels(level0)
    w, h = _dims(a)
    out = [a.astype(np.float64)]
    if reduction == "mean":
        cur = decode(a, fmt)
        for _ in range(1, mip_count(w, h)):
            cur = reduce_level(cur)
            out.append(encode(cur, fmt))
    elif reduction in EXTREMES:
        cur = out[0]
        for _ in range(1, mip_count(w, h)):
            cur = reduce_level_minmax(cur, reduction)
            out.append(cur)
    else:
        raise ValueError(f"unknown reduction {reduction!r}; choose one of mean, "
                         f"{', '.join(EXTREMES)}")
    return out


@np.errstate(**_IEEE_QUIET)
def step_level(below: np.ndarray, fmt: Format, reduction: Reduction = "mean") -> np.ndarray:
    """The exact reduction of one level as stored: float64 storage units, unquantised."""
    b = texels(below)
    if reduction == "mean":
        return encode(reduce_level(decode(b, fmt)), fmt)
    if reduction in EXTREMES:
        return reduce_level_minmax(b.astype(np.float64), reduction)
    raise ValueError(f"unknown reduction {reduction!r}; choose 'mean' or one of "
                     f"{', '.join(EXTREMES)}")


def step_reference(gpu_levels: Sequence[np.ndarray], fmt: Format,
                   reduction: Reduction = "mean") -> list[np.ndarray]:
    """Each level as the exact reduction of the level below *as the GPU stored it*.

    Entry 0 is ``gpu_levels[0]`` as float64; entry ``i`` is
    ``encode(reduce_level(decode(gpu_levels[i - 1])))`` (float64 storage units, unquantised).
    """
    if not gpu_levels:
        return []
    out = [texels(gpu_levels[0]).astype(np.float64)]
    out += [step_level(below, fmt, reduction) for below in gpu_levels[:-1]]
    return out


def stored_chain(level0: np.ndarray, fmt: Format, reduction: Reduction = "mean",
                 store: Callable[[np.ndarray, int], np.ndarray] | None = None,
                 first: np.ndarray | None = None) -> Iterator[np.ndarray]:
    """The chain of a strategy that stores every level and reduces the stored level: reduce
    level 0, store, reduce the stored level 1, store, ... Yields level 0 .. n-1, levels 1..
    as float64 storage values, one at a time (the caller keeps what it needs).

    ``store(exact, k)`` makes level k's stored values from the exact reduction of the stored
    level below (float64 storage units); by default the correctly rounded store: round to
    nearest (ties to even), clamped to 0..``fmt.scale`` (255, 65535; rgb10a2 1023 and 3) for
    UNORM formats, on b10g11r11's 11/11/10-bit grid (mipview.core.formats.round_to_grid).

    ``first``: the exact reduction of level 0 (:func:`step_level`, e.g. the chain reference's
    level 1), when the caller has it: level 0 is the dearest level to reduce.
    """
    a = texels(level0)
    w, h = _dims(a)
    stored = a
    yield a  # as given: nothing is rounded at level 0
    for k in range(1, mip_count(w, h)):
        exact = first if k == 1 and first is not None else step_level(stored, fmt, reduction)
        level = _quantise(exact, fmt) if store is None else store(exact, k)
        stored = level.astype(fmt.dtype)  # exact: the values are on the format's grid
        yield level


def _quantise(storage: np.ndarray, fmt: Format) -> np.ndarray:
    """Round float64 storage units the way the image would store them; returns float64."""
    return round_to_grid(storage, fmt)


def _bilinear_axis(a: np.ndarray, axis: int, dst: int) -> np.ndarray:
    src = a.shape[axis]
    if src == dst:
        return a
    # texel centre (i + 0.5) of the destination lands on u = (i + 0.5) * src / dst; the filter
    # is centred on texel centres, hence the - 0.5; clamp-to-edge for the outer taps
    u = (np.arange(dst, dtype=np.float64) + 0.5) * (src / dst) - 0.5
    x0 = np.floor(u)
    f = u - x0
    i0 = np.clip(x0.astype(np.intp), 0, src - 1)
    i1 = np.clip(x0.astype(np.intp) + 1, 0, src - 1)
    shape = [1] * a.ndim
    shape[axis] = dst
    f = f.reshape(shape)
    t0 = _tap(a, axis, i0)
    out = _tap(a, axis, i1) - t0
    out *= f
    out += t0  # t0 + (t1 - t0) * f, without two more level-sized temporaries
    return out


def _tap(a: np.ndarray, axis: int, index: np.ndarray) -> np.ndarray:
    """``np.take(a, index, axis)``; a strided view when the indices step evenly (a halving side:
    0, 2, 4, ...), which gathers nothing: the same values, several times faster."""
    step = int(index[1] - index[0]) if index.size > 1 else 1
    if step > 0 and np.array_equal(index, index[0] + step * np.arange(index.size)):
        return _take(a, axis, int(index[0]), int(index[-1]) + 1, step)
    return np.take(a, index, axis=axis)


@np.errstate(**_IEEE_QUIET)
def blit_reference(level0: np.ndarray, fmt: Format) -> list[np.ndarray]:
    """Emulate a ``vkCmdBlitImage`` chain with ``VK_FILTER_LINEAR``.

    Each level is sampled bilinearly (texel-centre convention, clamp to edge, sRGB filtered in
    linear light) from the previous level *as stored*, i.e. after rounding to uint8 or casting to
    the float format. On NPOT sides this drops source texels, unlike :func:`reference_pyramid`.
    Returns float64 storage units of the quantised levels.
    """
    a = texels(level0)
    w, h = _dims(a)
    out = [a.astype(np.float64)]
    stored = a
    for level in range(1, mip_count(w, h)):
        checkpoint()
        dw, dh = level_size(w, h, level)
        lin = _bilinear_axis(_bilinear_axis(decode(stored, fmt), _X, dw), _Y, dh)
        out.append(_quantise(encode(lin, fmt), fmt))
        stored = out[-1].astype(fmt.dtype)
    return out


@np.errstate(**_IEEE_QUIET)
def exact_mean(level0: np.ndarray, fmt: Format) -> np.ndarray:
    """The exact average of level 0 in decoded space, encoded back to storage units.

    Returns float64 shaped ``(4,)``, or ``(L, 4)`` for layered input; not quantised.
    """
    a = texels(level0)
    return encode(decode(a, fmt).mean(axis=(_Y, _X)), fmt)


#: References that emulate a strategy which is not exact by design, by the name a strategy
#: gives as its ``own_reference`` (mipview/gpu/strategies/base.py).
EMULATIONS: dict[str, Callable[[np.ndarray, Format], list[np.ndarray]]] = {
    "blit": blit_reference,
}
