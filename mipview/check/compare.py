"""Per-level errors of a GPU pyramid against the references of :mod:`mipview.check.reference`.

Units: UNORM formats in LSB (storage units, 1/255 or 1/65535); float formats in relative error. Two figures
per level (docs/correctness.md): *step* error, against the exact reduction of the level below as the GPU
stored it, and *chain* error, against the float64 chain from level 0.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from mipview.check.filter_reference import named_reference, scaled_by_result, step_of
from mipview.check.tolerances import REFERENCE_SLACK, RELATIVE_FLOOR, TOLERANCE, chain_tolerance
from mipview.core import bands
from mipview.core.cancel import checkpoint
from mipview.core.formats import Format


def _as_4d(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a)
    if a.ndim == 3:
        return a[None]
    if a.ndim == 4:
        return a
    raise ValueError(f"expected (H, W, 4) or (L, H, W, 4) texels, got shape {a.shape}")


def _abs_diff(a: np.ndarray, ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``|a - ref|`` as a float64 array of our own, and ``ref`` as float64.

    Matching non-finite values (inf against inf, NaN against NaN) count 0; any other non-finite
    difference counts ``inf``, so a NaN never hides from a maximum.
    """
    a = np.asarray(a)
    r64 = np.asarray(ref, dtype=np.float64)
    if a.shape != r64.shape:
        raise ValueError(f"shape mismatch: {a.shape} vs reference {r64.shape}")
    diff = np.empty(a.shape, np.float64)

    def rows(a: np.ndarray, r64: np.ndarray, diff: np.ndarray) -> None:
        with np.errstate(invalid="ignore"):
            np.subtract(a, r64, out=diff)  # a cast to float64 first: exact
        np.abs(diff, out=diff)
        if not np.isfinite(diff).all():  # rare: only then pay for the masks
            a64 = a.astype(np.float64)
            diff[(a64 == r64) | (np.isnan(a64) & np.isnan(r64))] = 0.0
            diff[np.isnan(diff)] = np.inf
    bands.by_rows(rows, a, r64, diff)
    return diff, r64


def _to_error(abs_diff: np.ndarray, r64: np.ndarray, fmt: Format,
              mag: np.ndarray | None = None) -> np.ndarray:
    if not fmt.is_float:
        return abs_diff
    scale = np.abs(r64) if mag is None else np.fmax(np.abs(r64), mag)
    with np.errstate(invalid="ignore"):
        # fmax: a NaN reference divides by the floor (its NaN match is already 0)
        err = abs_diff / np.fmax(scale, RELATIVE_FLOOR)
    err[np.isnan(err)] = np.inf  # inf / inf
    return err


def texel_errors(a: np.ndarray, ref: np.ndarray, fmt: Format,
                 mag: np.ndarray | None = None) -> np.ndarray:
    """Per-channel error of ``a`` against ``ref`` (same shape), float64.

    8-bit: ``|a - r|`` in LSB; floats: ``|a - r| / max(|r|, 1e-3)``, or relative to ``mag``
    where given and larger (:func:`magnitude_below`: what a sum of signed texels is rounded
    relative to). Equal values (infinities included, and NaN against NaN) count 0; any other
    non-finite difference counts ``inf``.
    """
    return _to_error(*_abs_diff(a, ref), fmt, mag)


def error_map(a: np.ndarray, ref: np.ndarray, fmt: Format) -> np.ndarray:
    """Max over channels of :func:`texel_errors`: ``(H, W)`` or ``(L, H, W)`` float32 (the heatmap)."""
    return _channel_max(texel_errors(a, ref, fmt))


def signed_error(a: np.ndarray, ref: np.ndarray, fmt: Format, channel: int) -> np.ndarray:
    """Signed error of one ``channel`` of ``a`` against ``ref``: ``a - r`` in LSB for 8-bit
    formats, ``(a - r) / max(|r|, 1e-3)`` for floats (the sign of :func:`texel_errors`'s
    figures, so a bias shows); float32 ``(H, W)`` or ``(L, H, W)``. Equal values count 0
    (infinities, and NaN against NaN); a NaN against a number stays NaN (it has no sign)."""
    a64 = np.asarray(a)[..., channel].astype(np.float64)
    r64 = np.asarray(ref)[..., channel].astype(np.float64)
    if a64.shape != r64.shape:
        raise ValueError(f"shape mismatch: {a64.shape} vs reference {r64.shape}")
    with np.errstate(invalid="ignore"):
        d = a64 - r64
        if fmt.is_float:
            d /= np.fmax(np.abs(r64), RELATIVE_FLOOR)
    if not np.isfinite(d).all():
        d[(a64 == r64) | (np.isnan(a64) & np.isnan(r64))] = 0.0
    return d.astype(np.float32)


def _channel_max(err: np.ndarray) -> np.ndarray:
    """``err.max(axis=-1).astype(float32)``, the same values four times faster: rounding to
    float32 is monotonic, so it commutes with the maximum and can come first (a quarter of the
    bytes), and three elementwise maxima beat numpy's reduction over a 4-long axis."""
    out = np.empty(err.shape[:-1], np.float32)

    def rows(err: np.ndarray, out1: np.ndarray) -> None:
        e, o = err.astype(np.float32), out1[..., 0]
        np.maximum(e[..., 0], e[..., 1], out=o)
        np.maximum(o, e[..., 2], out=o)
        np.maximum(o, e[..., 3], out=o)
    bands.by_rows(rows, err, out[..., None])  # a channel axis of 1: the bands line up
    return out


def difference_map(a: np.ndarray, b: np.ndarray, fmt: Format) -> np.ndarray:
    """Heatmap of ``a`` against a baseline ``b`` (e.g. strategy A vs strategy B); ``b`` plays the
    reference's role for relative errors."""
    return error_map(a, b, fmt)


def error_maps(levels: Sequence[np.ndarray], ref_levels: Sequence[np.ndarray],
               fmt: Format) -> list[np.ndarray]:
    """:func:`error_map` per level."""
    _check_lengths(levels, ref_levels)
    return [error_map(a, r, fmt) for a, r in zip(levels, ref_levels, strict=True)]


@dataclass(frozen=True)
class LevelError:
    """Error figures of one level. ``worst`` is (layer, y, x, channel) of ``max_error``."""

    level: int
    width: int
    height: int
    max_error: float
    mean_error: float
    psnr: float
    worst: tuple[int, int, int, int]
    unit: str = "LSB"
    layers: int = 1

    def as_dict(self) -> dict[str, object]:
        d = asdict(self)
        for key in ("max_error", "mean_error", "psnr"):
            d[key] = json_float(d[key])
        d["worst"] = dict(zip(("layer", "y", "x", "channel"), self.worst, strict=True))
        return d


def json_float(v: float) -> float | str:
    """Strict JSON has no inf/NaN: those become the strings "inf", "-inf", "nan" (``float()``
    reads them back)."""
    return float(v) if math.isfinite(v) else str(float(v))


def _psnr(abs_diff: np.ndarray, r64: np.ndarray, fmt: Format) -> float:
    flat = abs_diff.ravel()
    mse = float(np.dot(flat, flat)) / max(1, flat.size)
    if not math.isfinite(mse):
        return -math.inf
    if mse == 0.0:
        return math.inf
    if fmt.is_float:
        top = float(np.abs(r64).max(initial=0.0))
        if not math.isfinite(top):  # rare: only then pay for the mask
            finite = np.abs(r64[np.isfinite(r64)])
            top = float(finite.max()) if finite.size else 1.0
        peak = max(1.0, top)
    else:
        peak = fmt.one
    return 10.0 * math.log10(peak * peak / mse)


def _exact(a: np.ndarray, fmt: Format, level: int) -> LevelError:
    """A level compared with itself: no need to touch its texels."""
    a4 = _as_4d(a)
    return LevelError(level, a4.shape[2], a4.shape[1], 0.0, 0.0, math.inf, (0, 0, 0, 0),
                      fmt.error_unit, a4.shape[0])


def level_error(a: np.ndarray, ref: np.ndarray, fmt: Format, level: int,
                mag: np.ndarray | None = None) -> LevelError:
    """Figures of one level of ``a`` against ``ref`` (``mag``: :func:`texel_errors`)."""
    return _level_error(a, ref, fmt, level, with_map=False, mag=mag)[0]


def level_error_map(a: np.ndarray, ref: np.ndarray, fmt: Format, level: int,
                    mag: np.ndarray | None = None) -> tuple[LevelError, np.ndarray]:
    """:func:`level_error` and :func:`error_map` of one level, from one computation of the
    texel errors (what a heatmap next to its figures needs)."""
    err, emap = _level_error(a, ref, fmt, level, with_map=True, mag=mag)
    assert emap is not None
    return err, emap.reshape(np.shape(a)[:-1])


def _level_error(a: np.ndarray, ref: np.ndarray, fmt: Format, level: int,
                 with_map: bool, mag: np.ndarray | None = None
                 ) -> tuple[LevelError, np.ndarray | None]:
    checkpoint()  # one per level compared: a stopped job ends here (mipview.core.cancel)
    a4, r4 = _as_4d(a), _as_4d(ref)
    if a4.shape == r4.shape and _equal(a4, r4):
        # every texel error is 0 (the figures below come out as these): one comparison
        # instead of six passes; level 0 as uploaded is such a level, and the largest
        return _exact(a, fmt, level), (np.zeros(a4.shape[:-1], np.float32) if with_map else None)
    abs_diff, r64 = _abs_diff(a4, r4)
    err = _to_error(abs_diff, r64, fmt, None if mag is None else _as_4d(mag))
    flat = int(np.argmax(err))
    layer, y, x, ch = (int(i) for i in np.unravel_index(flat, err.shape))
    figures = LevelError(
        level=level, width=err.shape[2], height=err.shape[1],
        max_error=float(err.flat[flat]), mean_error=float(err.mean()),
        psnr=_psnr(abs_diff, r64, fmt), worst=(layer, y, x, ch),
        unit=fmt.error_unit, layers=err.shape[0])
    return figures, (_channel_max(err) if with_map else None)


def _equal(a4: np.ndarray, r4: np.ndarray) -> bool:
    """``np.array_equal`` of two (L, H, W, 4) arrays of one shape, in bands of rows on every
    core: level 0 (uint8) against its float64 chain entry is 512 MiB of casts in one piece."""
    same = [True]

    def band(start: int, stop: int) -> None:
        if same[0] and not np.array_equal(a4[:, start:stop], r4[:, start:stop]):
            same[0] = False

    bands.for_rows(band, a4.shape[1], a4.size)
    return same[0]


def max_error(a: np.ndarray, ref: np.ndarray, fmt: Format,
              mag: np.ndarray | None = None) -> float:
    """``texel_errors(a, ref, fmt, mag).max(initial=0.0)``, in bands of rows on the analysis threads (a
    maximum does not depend on how the texels are split)."""
    a4, r4 = _as_4d(a), _as_4d(ref)
    if a4.shape != r4.shape:
        raise ValueError(f"shape mismatch: {a4.shape} vs reference {r4.shape}")
    m4 = None if mag is None else _as_4d(mag)
    worst: list[float] = []

    def band(start: int, stop: int) -> None:
        m = None if m4 is None else m4[:, start:stop]
        worst.append(float(texel_errors(a4[:, start:stop], r4[:, start:stop], fmt, m)
                           .max(initial=0.0)))

    bands.for_rows(band, a4.shape[1], a4.size)
    return max(worst, default=0.0)


#: ``memo(key, make)``: ``make()``'s value, or the one kept for ``key`` (verdict.ReferenceCache)
Memo = Callable[[Hashable, Callable[[], Any]], Any]


def digest(a: np.ndarray) -> tuple[object, ...]:
    """What identifies a level's values: shape, dtype and a hash of its bytes."""
    data = np.ascontiguousarray(a)
    return a.shape, a.dtype.str, hashlib.blake2b(data.data, digest_size=16).digest()


def _check_lengths(levels: Sequence[np.ndarray], ref_levels: Sequence[np.ndarray]) -> None:
    if len(levels) != len(ref_levels):
        raise ValueError(f"{len(levels)} levels but the reference has {len(ref_levels)}")


def level_errors(gpu_levels: Sequence[np.ndarray], ref_levels: Sequence[np.ndarray],
                 fmt: Format, memo: Memo | None = None,
                 reference: str = "") -> list[LevelError]:
    """:class:`LevelError` per level; both sequences hold level 0 .. n-1. ``memo``: as
    :func:`error_report`'s, ``ref_levels`` being the pyramid named ``reference``."""
    _check_lengths(gpu_levels, ref_levels)

    def one(i: int) -> LevelError:
        return level_error(gpu_levels[i], ref_levels[i], fmt, i)
    return [one(i) if memo is None or i == 0 else
            memo(("levels", reference, i, digest(gpu_levels[i])), lambda i=i: one(i))
            for i in range(len(gpu_levels))]


def step_errors(gpu_levels: Sequence[np.ndarray], fmt: Format,
                reduction: str = "mean",
                first: np.ndarray | None = None) -> list[LevelError]:
    """Each level against the exact reduction of the level below as the GPU stored it (level 0
    is its own reference: 0). ``first``: that reduction of level 0, when the caller has it."""
    if not gpu_levels:
        return []

    def below(i: int) -> np.ndarray:
        if i == 1 and first is not None:
            return first
        return step_of(gpu_levels, i, fmt, reduction)

    # one reference level alive at a time: at 4096^2 the float64 copies are what costs
    return [_exact(gpu_levels[0], fmt, 0)] + [
        level_error(gpu_levels[i], below(i), fmt, i,
                    magnitude_below(gpu_levels[i - 1], fmt, reduction))
        for i in range(1, len(gpu_levels))]


def signed_floats(level: np.ndarray, fmt: Format, reduction: str) -> bool:
    """A float level with negative texels under the mean: its sums cancel, so their rounding is
    relative to the sum of |texels|, not to the result (:func:`magnitude_below`)."""
    if not fmt.is_float or reduction != "mean":
        return False
    with np.errstate(invalid="ignore"):
        return bool(np.any(np.asarray(level) < 0))


def magnitude_below(level: np.ndarray, fmt: Format, reduction: str) -> np.ndarray | None:
    """What the rounding errors of the level made from ``level`` are relative to, where that is
    not the result: the mean of |texels| over each footprint (>= |mean|; equal without negative
    texels, where None is returned and nothing is computed)."""
    if not signed_floats(level, fmt, reduction):
        return None
    return step_of([np.abs(np.asarray(level))], 1, fmt, reduction)


def chain_errors(gpu_levels: Sequence[np.ndarray], fmt: Format,
                 reduction: str = "mean") -> list[LevelError]:
    """Each level against the float64 chain from the GPU's level 0 (level 0 itself: 0)."""
    if not gpu_levels:
        return []
    ref = named_reference(reduction, gpu_levels[0], fmt)
    _check_lengths(gpu_levels, ref)
    return [_exact(gpu_levels[0], fmt, 0)] + [
        level_error(gpu_levels[i], ref[i], fmt, i) for i in range(1, len(gpu_levels))]


@dataclass(frozen=True)
class Breach:
    """One level over its bound: which figure (``step`` or ``chain``), its errors, the bound."""

    figure: str
    error: LevelError
    bound: float
    #: the breach in words where the figure is not a texel error (coverage)
    text: str = ""

    def __str__(self) -> str:
        return self.text or (f"{self.figure} error at {format_worst(self.error)} > "
                             f"{format_error(self.bound, self.error.unit)}")


@dataclass(frozen=True)
class ErrorReport:
    """Step and chain errors of one pyramid (level 0 included: it catches a bad upload)."""

    step: tuple[LevelError, ...]
    chain: tuple[LevelError, ...]
    #: the heatmap of each chain level (:func:`error_map`), when asked for; not a figure
    maps: tuple[np.ndarray, ...] = field(default=(), compare=False, repr=False)

    @property
    def max_step(self) -> float:
        return max((e.max_error for e in self.step), default=0.0)

    @property
    def max_chain(self) -> float:
        return max((e.max_error for e in self.chain), default=0.0)

    def breaches(self, step_bounds: Sequence[float],
                 chain_bounds: Sequence[float]) -> tuple[Breach, ...]:
        """The levels whose step or chain error exceeds its bound (per level, plus
        :data:`REFERENCE_SLACK`), in level order."""
        over = [Breach("step", e, step_bounds[e.level]) for e in self.step
                if not e.max_error <= step_bounds[e.level] + REFERENCE_SLACK]
        over += [Breach("chain", e, chain_bounds[e.level]) for e in self.chain
                 if not e.max_error <= chain_bounds[e.level] + REFERENCE_SLACK]
        return tuple(sorted(over, key=lambda b: b.error.level))

    def exact_breaches(self, fmt: Format) -> tuple[Breach, ...]:
        """:meth:`breaches` of the flat figures (docs/correctness.md): :data:`TOLERANCE` and
        :func:`chain_tolerance`."""
        n = max(len(self.step), len(self.chain))
        return self.breaches([TOLERANCE[fmt][0]] * n, [chain_tolerance(fmt, k) for k in range(n)])

    def within_tolerance(self, fmt: Format) -> bool:
        return not self.exact_breaches(fmt)

    def as_dict(self, fmt: Format | None = None) -> dict[str, object]:
        """JSON-ready; with ``fmt``, also the tolerances and the verdict."""
        d: dict[str, object] = {
            "max_step": json_float(self.max_step),
            "max_chain": json_float(self.max_chain),
            "step": [e.as_dict() for e in self.step],
            "chain": [e.as_dict() for e in self.chain],
        }
        if fmt is not None:
            levels = [e.level for e in self.chain] or [0]
            d.update(unit=fmt.error_unit, step_tolerance=TOLERANCE[fmt][0],
                     chain_tolerance=[chain_tolerance(fmt, k) for k in levels],
                     within_tolerance=self.within_tolerance(fmt))
        return d


def error_report(gpu_levels: Sequence[np.ndarray], fmt: Format,
                 chain_reference: Sequence[np.ndarray] | None = None,
                 reduction: str = "mean", maps: bool = False,
                 memo: Memo | None = None,
                 chain_magnitude: Sequence[np.ndarray] | None = None) -> ErrorReport:
    """Step and chain errors of ``gpu_levels``; with ``maps``, also the heatmap of each chain
    level (``ErrorReport.maps``), from the same texel errors.

    ``chain_reference`` (the ``reduction`` chain of the uploaded level 0, e.g.
    ``reference_pyramid(source, fmt)``, computed once and shared by every strategy) defaults to
    the chain from the GPU's own level 0.

    ``memo`` (with a ``chain_reference``; keys name it by ``reduction`` only, so one memo serves
    one level 0 and format): the figures of a level depend on nothing but its values, the
    values of the level below and the reference, so a level another strategy (or an earlier
    run) stored byte for byte alike reuses that one's figures and heatmap (:func:`digest`)
    instead of computing them again. Strategies that store every level correctly rounded
    agree on most of them, level 1 (the largest compared) included.

    ``chain_magnitude``: the chain of |level 0| (float images with negative texels: what the
    chain's rounding errors are relative to, :func:`texel_errors`).
    """
    if memo is not None and chain_reference is not None:
        return _memo_report(list(gpu_levels), fmt, chain_reference, reduction, maps, memo,
                            chain_magnitude)
    levels = list(gpu_levels)
    emaps: list[np.ndarray] = []
    if chain_reference is None and not maps:
        chain = chain_errors(levels, fmt, reduction)
    else:
        ref = chain_reference if chain_reference is not None else \
            named_reference(reduction, levels[0], fmt) if levels else []
        _check_lengths(levels, ref)
        mags = list(chain_magnitude) if chain_magnitude is not None else [None] * len(levels)
        pairs = [level_error_map(a, r, fmt, i, m) if maps else
                 (level_error(a, r, fmt, i, m), None)
                 for i, (a, r, m) in enumerate(zip(levels, ref, mags, strict=True))]
        chain = [e for e, _ in pairs]
        emaps = [m for _, m in pairs if m is not None]
    first = None
    if chain_reference is not None and len(levels) > 1 and chain[0].max_error == 0.0 \
            and not scaled_by_result(reduction):
        # level 0 came back as uploaded, so the exact reduction of level 0 as stored is the
        # chain's level 1: the dearest step reference (4096^2 decoded) is already there
        first = chain_reference[1]
    return ErrorReport(step=tuple(step_errors(levels, fmt, reduction, first)), chain=tuple(chain),
                       maps=tuple(emaps))


def _memo_report(levels: list[np.ndarray], fmt: Format, ref: Sequence[np.ndarray],
                 reduction: str, maps: bool, memo: Memo,
                 chain_magnitude: Sequence[np.ndarray] | None = None) -> ErrorReport:
    """:func:`error_report` with a chain reference, each level's figures through ``memo``."""
    _check_lengths(levels, ref)
    if not levels:
        return ErrorReport((), ())
    # level 0 is compared with a shortcut cheaper than its hash (it usually is the upload)
    keys: list[Hashable] = [None] + [digest(a) for a in levels[1:]]

    mags = list(chain_magnitude) if chain_magnitude is not None else [None] * len(levels)

    def chain(i: int) -> tuple[LevelError, np.ndarray | None]:
        if maps:
            return level_error_map(levels[i], ref[i], fmt, i, mags[i])
        return level_error(levels[i], ref[i], fmt, i, mags[i]), None

    pairs = [chain(0)] + [memo(("chain", reduction, maps, i, keys[i]), lambda i=i: chain(i))
                          for i in range(1, len(levels))]
    first = ref[1] if len(levels) > 1 and pairs[0][0].max_error == 0.0 \
        and not scaled_by_result(reduction) else None

    def step(i: int) -> LevelError:
        # the exact reduction of level 0 as stored is the chain's level 1 when level 0 came
        # back as uploaded (the dearest step reference, 4096^2 decoded, is already there)
        below = first if i == 1 and first is not None else \
            step_of(levels, i, fmt, reduction)
        return level_error(levels[i], below, fmt, i,
                           magnitude_below(levels[i - 1], fmt, reduction))

    steps = [_exact(levels[0], fmt, 0)]
    for i in range(1, len(levels)):
        below = keys[i - 1] if i > 1 else ("level 0", first is not None)
        key = ("step", reduction, i, below, keys[i])
        steps.append(step(i) if i == 1 and first is None else memo(key, lambda i=i: step(i)))
    for _, m in pairs:
        if m is not None:
            m.setflags(write=False)  # shared by every strategy that stored this level
    return ErrorReport(step=tuple(steps), chain=tuple(e for e, _ in pairs),
                       maps=tuple(m for _, m in pairs if m is not None))


def format_error(value: float, unit: str) -> str:
    """``1.8 LSB`` / ``2.4e-04 relative``."""
    if unit == "LSB":
        return f"{value:.3g} LSB"
    return f"{value:.2e} {unit}"


def format_worst(err: LevelError) -> str:
    """Where and how large the worst error of a level is, e.g.
    ``level 3 (x=5, y=2, ch 1): 1.8 LSB``."""
    layer, y, x, ch = err.worst
    where = f"layer {layer}, " if err.layers > 1 else ""
    return f"level {err.level} ({where}x={x}, y={y}, ch {ch}): {format_error(err.max_error, err.unit)}"
