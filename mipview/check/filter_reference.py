"""The exact float64 filtered pyramids (docs/filters.md), and the one dispatch from a reference
name (a result's ``reduction``) to its pyramid, its step and its stored chain: ``mean``, ``min``
and ``max`` are mipview.check.reference's, any other name is a :class:`FilterSpec` (``lanczos3``,
``tent,edge=wrap,alpha=coverage``...).

One level is made from its source level (the stored level below, or level 0 for
``source=level0``) in linear light:

1. decode (sRGB colour channels to linear); a normal map's RGB to vectors ``2 v - 1``;
2. premultiplied alpha: colour times alpha;
3. filter: x then y, with the tap tables of :mod:`mipview.core.filters.resample` (the box from the
   level below is reference.reduce_level itself: today's exact weights, bit for bit); a cube
   map's seamless edge (``edge=cube``: :func:`cube_filter`) reads past each face's edges from
   its neighbours;
4. premultiplied: colour divided by alpha (0 where alpha is 0); normal map: the vector's length
   recorded, the vector renormalised ((0, 0, 1) if it vanished) and encoded ``n / 2 + 1/2``;
5. 8-bit formats: clamped to [0, 1] (negative lobes overshoot; float formats keep the value);
6. ``alpha=coverage``: alpha scaled so the fraction of texels with ``alpha >= cutoff`` is level
   0's (:func:`coverage_scale`), clamped to [0, 1]. The step of a stored level (:func:`step_of`)
   takes the scale that level was given instead (:func:`fit_scale`): any one scale per level is
   a correct answer when the level keeps level 0's coverage, which the verdict checks apart.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from mipview.check import reference as box
from mipview.check.tolerances import COVERAGE_SLACK, NORMAL_LENGTH_SLACK, RELATIVE_FLOOR
from mipview.core import cube, reductions
from mipview.core.filters.kernels import Kernel
from mipview.core.filters.resample import CUBE, Taps, apply_axis, axis_taps, cube_taps
from mipview.core.filters.spec import FilterSpec, parse_filter
from mipview.core.formats import Format, decode, encode, level_size, mip_count, texels

BOX_NAMES = reductions.NAMES


@dataclass(frozen=True)
class LevelStats:
    """Figures of one level as the reference made it."""

    #: fraction of texels with alpha >= the spec's cutoff, after any coverage scaling
    coverage: float
    #: normal maps: mean and least length of the filtered vectors before renormalising
    length_mean: float | None = None
    length_min: float | None = None
    #: premultiplied alpha: the least positive filtered alpha (colour is divided by it)
    alpha_min: float | None = None
    #: alpha=coverage: the factor alpha was scaled by
    scale: float | None = None


def coverage(values: np.ndarray, fmt: Format, cutoff: float) -> float:
    """Fraction of texels (storage values) whose alpha passes ``alpha >= cutoff``."""
    a = np.asarray(values, dtype=np.float64)[..., 3]
    if not fmt.is_float:
        a = a / np.broadcast_to(fmt.scale, 4)[3]  # alpha's code of 1.0 (rgb10a2: 3)
    return float(np.mean(a >= cutoff)) if a.size else 0.0


def coverage_scale(alpha: np.ndarray, target: float, cutoff: float) -> float:
    """The factor that makes ``target`` of ``alpha``'s texels pass ``alpha * f >= cutoff``: the
    threshold is put midway in the widest gap between sorted alphas within COVERAGE_SLACK of the
    target count (so a store rounding half an LSB moves no texel across it)."""
    a = np.sort(alpha.reshape(-1))[::-1]  # descending
    n = a.size
    if n == 0 or a[0] <= 0.0:
        return 1.0
    k = int(round(target * n))
    slack = int(COVERAGE_SLACK * n)
    padded = np.concatenate(([max(2.0 * a[0], 1.0)], a, [0.0]))  # a_(0) above all, a_(n+1) = 0
    lo, hi = max(0, k - slack), min(n, k + slack)
    ks = np.arange(lo, hi + 1)
    gaps = padded[ks] - padded[ks + 1]  # between the k-th and the (k+1)-th largest
    best = ks[np.flatnonzero(gaps == gaps.max())]
    kb = int(best[np.argmin(np.abs(best - k))])
    t = 0.5 * (padded[kb] + padded[kb + 1])
    return cutoff / t if t > 0.0 else 1.0


def fit_scale(raw: np.ndarray, stored: np.ndarray, floor: float | None = None) -> float:
    """The one factor s that brings ``clip(raw * s, 0, 1)`` closest to ``stored`` over a level's
    alphas (linear, [0, 1]): the least largest difference, absolute (``floor`` None, 8-bit
    formats) or relative to ``max(clip(raw * s), floor)`` (floats), as compare measures errors.
    Each texel's signed difference grows with s, so the largest excess above falls and the one
    below rises: bisected (in log s) where they meet. The difference also grows with raw, so of
    the texels stored alike only the largest and the least raw can be the largest excess (8-bit:
    at most 512 texels are bisected). Texels with ``raw <= 0`` do not depend on s: left out."""
    x = np.asarray(raw, dtype=np.float64).reshape(-1)
    y = np.asarray(stored, dtype=np.float64).reshape(-1)
    keep = x > 0.0
    x, y = x[keep], y[keep]
    if x.size == 0:
        return 1.0
    order = np.argsort(y)
    x, y = x[order], y[order]
    starts = np.flatnonzero(np.concatenate(([True], y[1:] != y[:-1])))
    x = np.concatenate((np.maximum.reduceat(x, starts), np.minimum.reduceat(x, starts)))
    y = np.concatenate((y[starts], y[starts]))

    def excess(s: float) -> tuple[float, float]:
        v = np.clip(x * s, 0.0, 1.0)
        d = v - y if floor is None else (v - y) / np.fmax(v, floor)
        return float(d.max()), float(-d.min())

    def worst(s: float) -> float:
        return max(excess(s))

    lo, hi = 2.0**-40, 2.0**40
    for _ in range(80):
        mid = float(np.sqrt(lo * hi))
        over, under = excess(mid)
        if over < under:
            lo = mid
        else:
            hi = mid
        if hi <= lo * (1.0 + 1e-12):
            break
    return lo if worst(lo) <= worst(hi) else hi


def cube_side(values: np.ndarray) -> int:
    """N of a cube map level (6 n, N, N, C); the ValueError an ``edge=cube`` spec gives for
    anything else."""
    try:
        return cube.face_side(np.shape(values))
    except ValueError:
        raise ValueError(f"edge=cube needs a cube map: 6 n square faces (got shape "
                         f"{np.shape(values)})") from None


def cube_filter(lin: np.ndarray, kern: Kernel, dst: int) -> np.ndarray:
    """The seamless filter of a cube map level (6 n, N, N, C, linear) to side ``dst``: each face
    padded by the taps' reach with its neighbours' texels (mipview.core.cube.pad_faces: the
    corner blocks the mean of the three texels at the cube corner), filtered separably with the
    unfolded tap tables shifted by the pad (they make only the face's own texels). A reach
    beyond N texels (small levels of long kernels: Lanczos-3 from N <= 5) is clamped to the
    pad's outer ring, N deep (docs/cube-maps.md)."""
    n = cube_side(lin)
    taps, r = cube_taps(n, dst, kern)
    shifted = Taps(taps.index + np.int32(r), taps.weight)  # into the padded face
    # x then y over the padded face: the y pass reads the x pass's border rows too, so a tap
    # past a corner meets the corner block; the tables only make the face's own texels
    x = apply_axis(cube.pad_faces(lin, r), -2, shifted)
    return apply_axis(x, -3, shifted)


def _filter(lin: np.ndarray, spec: FilterSpec, dst: tuple[int, int]) -> np.ndarray:
    w, h = lin.shape[-2], lin.shape[-3]
    if spec.edge == CUBE:  # never the box: FilterSpec makes its edge clamp
        return cube_filter(lin, spec.kernel, dst[0])
    if spec.filter == "box" and dst == level_size(w, h, 1):
        return box.reduce_level(lin)
    kern = spec.kernel
    x = apply_axis(lin, -2, axis_taps(w, dst[0], kern, spec.edge))
    return apply_axis(x, -3, axis_taps(h, dst[1], kern, spec.edge))


def make_level(source: np.ndarray, fmt: Format, spec: FilterSpec, dst: tuple[int, int],
               target_coverage: float,
               scaled: np.ndarray | None = None) -> tuple[np.ndarray, LevelStats]:
    """One level (``dst`` = (width, height)) from its source level's storage values: float64
    storage units, unquantised, and its figures. ``scaled`` (alpha=coverage): the level as
    stored, whose alpha scale (:func:`fit_scale`) replaces :func:`coverage_scale`'s."""
    fit = None
    if scaled is not None and spec.alpha == "coverage":
        fit = decode(texels(scaled), fmt)[..., 3]
    out, stats = _make_linear(decode(texels(source), fmt), fmt, spec, dst,
                              target_coverage, fit)
    return encode(out, fmt), stats


@np.errstate(invalid="ignore", over="ignore", divide="ignore")
def _make_linear(decoded: np.ndarray, fmt: Format, spec: FilterSpec, dst: tuple[int, int],
                 target_coverage: float,
                 fit: np.ndarray | None = None) -> tuple[np.ndarray, LevelStats]:
    """:func:`make_level` in linear light, in and out (the float64 chain carries these);
    ``fit``: the stored level's alpha to take the coverage scale from."""
    lin = np.array(decoded, dtype=np.float64)
    normal = spec.kind == "normal"
    if normal:
        lin[..., :3] = lin[..., :3] * 2.0 - 1.0
    if spec.alpha == "premultiplied":
        lin[..., :3] *= lin[..., 3:4]
    out = _filter(lin, spec, dst)
    alpha_min = None
    if spec.alpha == "premultiplied":
        a = out[..., 3:4]
        out[..., :3] = np.where(a > 0.0, out[..., :3] / a, 0.0)
        alpha_min = float(a[a > 0.0].min(initial=1.0))
    lengths = None
    if normal:
        lengths = np.sqrt(np.sum(out[..., :3] ** 2, axis=-1, keepdims=True))
        unit = np.where(lengths > 0.0, out[..., :3] / lengths, np.array([0.0, 0.0, 1.0]))
        out[..., :3] = unit * 0.5 + 0.5
    if not fmt.is_float:
        np.clip(out, 0.0, 1.0, out=out)
    scale = None
    if spec.alpha == "coverage":
        if fit is None:
            scale = coverage_scale(np.clip(out[..., 3], 0.0, 1.0), target_coverage, spec.cutoff)
        else:
            scale = fit_scale(out[..., 3], fit, RELATIVE_FLOOR if fmt.is_float else None)
        out[..., 3] = np.clip(out[..., 3] * scale, 0.0, 1.0)
    stats = LevelStats(float(np.mean(out[..., 3] >= spec.cutoff)),
                       None if lengths is None else float(lengths.mean()),
                       None if lengths is None else float(lengths.min()), alpha_min, scale)
    return out, stats


def _sizes(level0: np.ndarray) -> tuple[int, int]:
    return level0.shape[-2], level0.shape[-3]


def filtered_levels(level0: np.ndarray, fmt: Format, spec: FilterSpec,
                    store: Callable[[np.ndarray, int], np.ndarray] | None = None
                    ) -> Iterator[tuple[np.ndarray, LevelStats]]:
    """Levels 0 .. n-1 and their figures. ``store`` None: the float64 chain (each level from the
    unquantised one below); else each level stored as ``store(exact, k)`` says and the next made
    from that (the stored chain of a strategy keeping the ``stored`` promise)."""
    a = texels(level0)
    if spec.edge == CUBE:
        cube_side(a)  # levels of a cube stay square: N >> k
    w, h = _sizes(a)
    target = coverage(a, fmt, spec.cutoff)
    first = a.astype(np.float64)
    yield first, LevelStats(target)
    if store is None:  # the float64 chain carries linear values, as reference_pyramid does
        lin0 = decode(a, fmt)
        below = lin0
        for k in range(1, mip_count(w, h)):
            src = lin0 if spec.source == "level0" else below
            below, stats = _make_linear(src, fmt, spec, level_size(w, h, k), target)
            yield encode(below, fmt), stats
        return
    below = a
    for k in range(1, mip_count(w, h)):
        src = a if spec.source == "level0" else below
        exact, stats = make_level(src, fmt, spec, level_size(w, h, k), target)
        level = store(exact, k)
        below = level.astype(fmt.dtype)
        yield level, stats


def filtered_pyramid(level0: np.ndarray, fmt: Format, spec: FilterSpec) -> list[np.ndarray]:
    """The float64 chain of ``spec`` (storage units, level 0 as given)."""
    return [lv for lv, _ in filtered_levels(level0, fmt, spec)]


def level_stats(level0: np.ndarray, fmt: Format, spec: FilterSpec) -> list[LevelStats]:
    """Per level: coverage and (normal maps) vector lengths before renormalising."""
    return [st for _, st in filtered_levels(level0, fmt, spec)]


# --- one dispatch from a reference name --------------------------------------------------------
def named_reference(name: str, level0: np.ndarray, fmt: Format) -> list[np.ndarray]:
    """The chain reference a name stands for, the one way to get any: ``mean``, ``min`` or
    ``max`` (:func:`mipview.check.reference.reference_pyramid`), an emulation of
    :data:`mipview.check.reference.EMULATIONS` (``blit``), or a filter's."""
    if name in BOX_NAMES:
        return box.reference_pyramid(level0, fmt, name)  # type: ignore[arg-type]
    emulate = box.EMULATIONS.get(name)
    if emulate is not None:
        return emulate(level0, fmt)
    return filtered_pyramid(level0, fmt, parse_filter(name))


def step_of(levels: Sequence[np.ndarray], i: int, fmt: Format, name: str) -> np.ndarray:
    """Level ``i`` exactly as ``name`` makes it from the stored ``levels`` (its source: the level
    below, or level 0): float64 storage units, unquantised. alpha=coverage: with the alpha scale
    of the stored level ``i`` (:func:`fit_scale`) where ``levels`` holds it."""
    if name in BOX_NAMES:
        return box.step_level(levels[i - 1], fmt, name)  # type: ignore[arg-type]
    return _step(levels, i, fmt, parse_filter(name))[0]


def step_stats(levels: Sequence[np.ndarray], i: int, fmt: Format,
               spec: FilterSpec) -> LevelStats:
    """The figures of :func:`step_of`'s level (vector lengths, least alpha: what a GPU's
    renormalising or dividing amplifies its rounding by)."""
    return _step(levels, i, fmt, spec)[1]


def _step(levels: Sequence[np.ndarray], i: int, fmt: Format,
          spec: FilterSpec) -> tuple[np.ndarray, LevelStats]:
    src = levels[0] if spec.source == "level0" else levels[i - 1]
    target = coverage(levels[0], fmt, spec.cutoff) if spec.alpha == "coverage" else 0.0
    return make_level(src, fmt, spec, level_size(*_sizes(levels[0]), i), target,
                      levels[i] if i < len(levels) else None)


def scaled_by_result(name: str) -> bool:
    """Whether :func:`step_of` of ``name`` depends on the level it makes as stored (its alpha
    scale, alpha=coverage): that step is then not the chain reference's level."""
    return name not in BOX_NAMES and name not in box.EMULATIONS and \
        parse_filter(name).alpha == "coverage"


def stored_chain(level0: np.ndarray, fmt: Format, name: str,
                 store: Callable[[np.ndarray, int], np.ndarray] | None = None,
                 first: np.ndarray | None = None) -> Iterator[np.ndarray]:
    """reference.stored_chain for any name: each level stored (correctly rounded by default)
    and the next made from the stored ones. ``first``: the exact level 1 when the caller has it
    (the box only; a filter makes its own)."""
    if name in BOX_NAMES:
        yield from box.stored_chain(level0, fmt, name, store, first)  # type: ignore[arg-type]
        return
    keep = store if store is not None else (lambda exact, k: box._quantise(exact, fmt))
    for level, _ in filtered_levels(level0, fmt, parse_filter(name), keep):
        yield level


def normal_map_problem(level0: np.ndarray, fmt: Format) -> str | None:
    """Why ``level0`` does not look like a normal map (vectors ``2 v - 1`` far from unit
    length), or None."""
    lin = decode(texels(level0), fmt)[..., :3] * 2.0 - 1.0
    off = float(np.abs(np.sqrt(np.sum(lin**2, axis=-1)) - 1.0).mean()) if lin.size else 0.0
    if off > NORMAL_LENGTH_SLACK:
        return (f"kind=normal: this image's vectors (2 v - 1) are {off:.2f} off unit length on "
                "average: it does not look like a normal map")
    return None


def kind_warning(level0: np.ndarray, fmt: Format, reductions: Sequence[str]) -> str | None:
    """One warning for a run whose results treat ``level0`` as a normal map when it does not
    look like one (:func:`normal_map_problem`), however many results do; else None."""
    if any(name not in BOX_NAMES and parse_filter(name).kind == "normal" for name in reductions):
        return normal_map_problem(level0, fmt)
    return None


def result_figures(levels: Sequence[np.ndarray], fmt: Format, name: str) -> dict[str, object]:
    """Per-level figures of a filtered result for reports: the coverage of its stored levels
    (alpha >= the spec's cutoff), and for normal maps the mean and least length of each level's
    vectors before renormalising (from the exact step of the stored level below)."""
    spec = parse_filter(name)
    out: dict[str, object] = {"cutoff": spec.cutoff,
                              "coverage": [coverage(lv, fmt, spec.cutoff) for lv in levels]}
    if spec.kind == "normal":
        stats = [step_stats(levels, i, fmt, spec) for i in range(1, len(levels))]
        out["length_mean"] = [None, *(st.length_mean for st in stats)]
        out["length_min"] = [None, *(st.length_min for st in stats)]
    return out
