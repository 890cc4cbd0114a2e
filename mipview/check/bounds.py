"""How far a strategy's levels may be from the exact reference, derived per level from how each
level was made (:class:`mipview.core.results.LevelSource`), not from observation. README, "What
correct means", states the same model for users; :mod:`mipview.check.verdict` applies it.

Units are the format's error unit (:mod:`mipview.check.compare`): LSB for UNORM formats (1/255,
1/65535), relative error ``|v - x| / max(|x|, RELATIVE_FLOOR)`` for floats.

The model. The error of a value v that stands for x is kept as a :class:`Budget`
``|v - x| <= rel * |x| + abs`` (texels are colours: non-negative). Both parts survive the mean
of the next level, a convex combination, unchanged: the relative part because every input's
error scales with its own value and the weights are positive, the absolute part because a
convex combination cannot move further than its inputs. In sRGB the mean is taken in linear
light, yet an error of e LSB in the encoded inputs still moves the encoded mean by at most e (the
mean is a shifted power mean, 1-Lipschitz by Minkowski's inequality), and a relative error in
linear light is at most the same relative error once encoded (the encoding is concave through
0). Each rounding then adds its own part (:meth:`Budget.then`):

- a store (:data:`STORE`): UNORM formats are correctly rounded, <= 0.5 LSB (what every strategy
  promises; Vulkan only says a conversion to UNORM "should" round to nearest, so the shaders
  store code / 255 or code / 65535 with the code rounded by mipEncode, which every device
  converts back to that code);
  a float store may go to either neighbour (Vulkan leaves the rounding mode of conversions open:
  lavapipe truncates float16), < 1 ulp: 2^-10 relative for float16 normals, 2^-24 absolute for
  its subnormals, 2^-23 for float32;
- the float32 arithmetic of one reduction step (:data:`ARITH`): REDUCE_DEPTH roundings of 2^-24,
  in depth, from the stored texels to the value stored, and AXIS_DEPTH more per further axis
  (a volume's z);
- a bilinear sample (Vulkan leaves filtering precision to the device): each of the filter's two
  1-D stages may round to the format, lavapipe does for 8-bit (measured: up to 1.0 LSB off the
  mean of the 2x2 block), so two store roundings;
- a half-precision operation (single-pass fp16=on): 2^-11 relative (round to nearest),
  2^-25 absolute for subnormal halves, per rounding in depth.

A level read back from its stored form (``reread``) carries the stored level's error; a level
made from values carried in registers carries theirs. So a strategy that carries intermediates
pays one store rounding per stored level it re-reads on the way, plus its own; one that re-reads
every level pays one per level, which is why its chain is held to the envelope of chains that
keep its step promise instead (:mod:`mipview.check.verdict`). min and max pick one of the stored
inputs: nothing is rounded, every bound is 0.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from mipview.check.compare import max_error, signed_floats
from mipview.check.filter_reference import BOX_NAMES, LevelStats, scaled_by_result, stored_chain
from mipview.check.tolerances import RELATIVE_FLOOR
from mipview.core.filters.resample import Taps, axis_taps
from mipview.core.filters.spec import parse_filter
from mipview.core.formats import Format, grid_step, level_size, round_to_grid
from mipview.core.reductions import EXTREMES
from mipview.core.results import LevelSource

F32_UNIT = 2.0**-24   # float32 arithmetic, round to nearest
F16_UNIT = 2.0**-11   # half-precision arithmetic, round to nearest
#: float32 roundings in depth in one reduction step: the texel's conversion to float, the
#: weights (m - i) / n of both axes, the products, the sums of up to three taps per axis and the
#: scaling of a UNORM store: 11, rounded up
REDUCE_DEPTH = 12
#: what each further axis (a volume's z) adds: its weight, the product and two sums
AXIS_DEPTH = 4


@dataclass(frozen=True)
class Budget:
    """Error of a value that stands for x: ``|v - x| <= rel * |x| + abs`` (storage units)."""

    rel: float = 0.0
    abs: float = 0.0

    def then(self, rounding: Budget, times: int = 1) -> Budget:
        """This value after ``times`` more roundings of ``rounding``'s size each."""
        rel, abs_ = self.rel, self.abs
        for _ in range(times):
            rel, abs_ = (1 + rel) * (1 + rounding.rel) - 1, abs_ * (1 + rounding.rel) + rounding.abs
        return Budget(rel, abs_)

    def bound(self, fmt: Format) -> float:
        """The largest error this allows, in the format's unit (a UNORM value is <= ``fmt.one``
        LSB: 255, 65535)."""
        if fmt.is_float:
            return self.rel + self.abs / RELATIVE_FLOOR
        return self.rel * fmt.one + self.abs


EXACT = Budget()
#: one store to the format (see the module docstring)
STORE: dict[Format, Budget] = {f: {
    Format.UNORM: Budget(0.0, 0.5),
    Format.SRGB: Budget(0.0, 0.5),
    Format.RGBA16: Budget(0.0, 0.5),
    Format.F16: Budget(2.0**-10, 2.0**-24),
    Format.F32: Budget(2.0**-23, 2.0**-149),
    Format.RGB10A2: Budget(0.0, 0.5),  # LSB of each channel: 1/1023, alpha 1/3
    # correctly rounded by mipEncode to 6/6/5-bit mantissas: half an ulp of B's 5 bits, and
    # half B's denormal step (2^-19)
    Format.B10G11R11: Budget(2.0**-6, 2.0**-20),
}[f.element] for f in Format}
ARITH = EXACT.then(Budget(F32_UNIT), REDUCE_DEPTH)
HALF_OP = Budget(F16_UNIT, 2.0**-25)


def _sources(sources: Sequence[LevelSource], levels: int) -> list[LevelSource]:
    if not sources:
        return [LevelSource() for _ in range(1, levels)]
    if len(sources) != levels - 1:
        raise ValueError(f"{len(sources)} level sources for {levels} levels (want one per level "
                         "above 0)")
    return list(sources)


def _made(inp: Budget, src: LevelSource, fmt: Format) -> Budget:
    """The value of a level before its store, from inputs of budget ``inp``."""
    out = inp.then(ARITH).then(Budget(F32_UNIT), AXIS_DEPTH * (src.axes - 2))
    if src.bilinear:  # each 1-D stage of the filter, one per axis, may round to the format
        out = out.then(STORE[fmt], src.axes)
    return out.then(HALF_OP, src.half_ops)


def filter_arith(name: str, fmt: Format, size: tuple[int, int], level: int,
                 peak: float = 1.0, gain: float = 1.0) -> Budget:
    """The float32 arithmetic of one filtered level ``level`` of an image of ``size`` (level 0),
    summed tap by tap in x then y from float32 weights (mipview/gpu/strategies/filter_level.comp).

    Per axis, T taps cost T + 1 roundings in depth (the weight, the product, T - 1 sums), each
    relative to the sum of |w| |v| (first order); the y pass adds its own to the x pass's error
    carried through its weights. So the level is within ``(Tx + Ty + 2 + REDUCE_DEPTH) u L1 M``
    of the exact filter (REDUCE_DEPTH for the decode, encode and store scaling as in a box step),
    where L1 is the product of both axes' largest sum of |w| (1 without negative lobes) and M the
    largest magnitude of the source level: 1 for 8-bit formats (clamped), ``peak`` (level 0's
    largest finite magnitude) times L1 per level filtered since for floats, an absolute error
    (negative lobes cancel: it is not relative to the output). sRGB: times 12.92, the steepest
    slope of the encoding. ``gain``: how much the kind's last step amplifies that error
    (:func:`kind_gain`)."""
    spec = parse_filter(name)
    tx, ty = _level_taps(name, size, level)
    l1 = _l1(tx, ty)
    if fmt.is_float:
        magnitude = peak * l1 ** (1 if spec.source == "level0" else level - 1)
    else:
        magnitude = fmt.one * (12.92 if fmt.is_srgb else 1.0)
    depth = tx.count + ty.count + 2 + REDUCE_DEPTH
    return Budget(0.0, depth * F32_UNIT * l1 * magnitude * gain)


def _level_taps(name: str, size: tuple[int, int], level: int) -> tuple[Taps, Taps]:
    """The x and y tap tables that make ``level`` of filter ``name`` from its source level."""
    spec = parse_filter(name)
    w, h = size
    src = (w, h) if spec.source == "level0" else level_size(w, h, level - 1)
    dst = level_size(w, h, level)
    return (axis_taps(src[0], dst[0], spec.kernel, spec.edge),
            axis_taps(src[1], dst[1], spec.kernel, spec.edge))


def _l1(tx: Taps, ty: Taps) -> float:
    """The filter's largest sum of |w| over an output texel (its gain on an error of the input)."""
    return float(np.abs(tx.weight).sum(axis=1).max() * np.abs(ty.weight).sum(axis=1).max())


def lobe_gains(name: str, size: tuple[int, int], levels: int) -> tuple[float, ...] | None:
    """Per level 1 .. levels-1 of filter ``name``: how far it moves an error e of its stored
    source level, at most L1 * e (its largest sum of |w|; 0 for a level made from level 0, whose
    input is exact). None when no level's taps hold a negative weight (box, tent: the filter is
    monotone and the envelope of :func:`stored_chain_bounds` holds). Each level's tap tables are
    built once for both answers."""
    if name in BOX_NAMES:
        return None
    taps = [_level_taps(name, size, k) for k in range(1, levels)]
    if all(bool((t.weight >= 0).all()) for pair in taps for t in pair):
        return None
    level0 = parse_filter(name).source == "level0"
    return tuple(0.0 if level0 else _l1(tx, ty) for tx, ty in taps)


def propagated_chain_bounds(gains: Sequence[float], steps: Sequence[float]) -> list[float]:
    """Per level: how far a chain whose every level k is within ``steps[k]`` of the filter of its
    stored source can be from the float64 chain, for a filter with negative lobes
    (:func:`lobe_gains`). Such a filter is not monotone, so the envelope of
    :func:`stored_chain_bounds` does not hold; the filter moves an input error e by at most
    L1 * e, and a clamp to [0, 1] by no more: e_k <= L1_k e_(k-1) + steps[k]. In LSB: 8-bit
    formats but sRGB (a float's relative error has no such bound near the zeros a lobe makes;
    sRGB's encode is steeper than its decode where it is dark)."""
    out = [0.0]
    for gain, step in zip(gains, steps[1:len(gains) + 1], strict=True):
        out.append((gain * out[-1] if gain else 0.0) + step)
    return out


#: roundings of a kind's last step (a length: squares, sums, sqrt; a division), on top
KIND_DEPTH = 6


def kind_gain(stats: LevelStats) -> float:
    """How much a premultiplied, normal-map or alpha=coverage level's last step amplifies the
    filter's error e (first order). Premultiplied colour c = p / a: ``(e + |c| e) / a``, |c| <= 1
    once stored, so 2 / a_min over the level's positive alphas. A normal n / |n|:
    ``|d(n/|n|)| <= 2 e / |n|``, halved by the encoding n / 2 + 1/2, so 1 / |n|_min. Coverage:
    alpha times its scale s, so s. Plus KIND_DEPTH roundings of the result's own size."""
    gain = 1.0
    if stats.alpha_min is not None:
        gain = max(gain, 2.0 / stats.alpha_min)
    if stats.length_min is not None and stats.length_min > 0.0:
        gain = max(gain, 1.0 / stats.length_min)
    if stats.scale is not None:
        gain = max(gain, stats.scale)
    return gain + KIND_DEPTH




def step_bounds(sources: Sequence[LevelSource], fmt: Format, levels: int,
                reduction: str = "mean", size: tuple[int, int] | None = None,
                peak: float = 1.0, gains: Sequence[float] = ()) -> list[float]:
    """Per level 0 .. levels-1: how far it may be from the exact reduction of the stored level
    below. A level made from carried values starts one store rounding away from that level.
    A filter (any other ``reduction``) needs level 0's ``size`` and, for floats, ``peak``
    (:func:`filter_arith`), and per level 0 .. levels-1 its kind's ``gains`` (:func:`kind_gain`;
    1 when empty); each level is one store away from its exact filter."""
    if reduction in EXTREMES:
        return [0.0] * levels
    if reduction not in BOX_NAMES:
        if size is None:
            raise ValueError(f"the bounds of filter {reduction!r} need level 0's size")
        gain = list(gains) or [1.0] * levels
        return [0.0] + [filter_arith(reduction, fmt, size, k, peak, gain[k])
                        .then(STORE[fmt]).bound(fmt) for k in range(1, levels)]
    out = [0.0]
    for src in _sources(sources, levels):
        inp = EXACT if src.reread else STORE[fmt]
        out.append(_made(inp, src, fmt).then(STORE[fmt]).bound(fmt))
    return out


def carried_chain_bounds(sources: Sequence[LevelSource], fmt: Format, levels: int,
                         reduction: str = "mean") -> list[float]:
    """Per level 0 .. levels-1: how far it may be from the float64 chain, for a strategy whose
    levels are made as ``sources`` say (the error analysis of the module docstring)."""
    if reduction in EXTREMES:
        return [0.0] * levels
    if reduction not in BOX_NAMES:
        raise ValueError(f"carried chains are bounded for the box only, not {reduction!r}")
    stored, carried = [EXACT], [EXACT]
    for src in _sources(sources, levels):
        value = _made(stored[-1] if src.reread else carried[-1], src, fmt)
        stored.append(value.then(STORE[fmt]))
        carried.append(value)
    return [b.bound(fmt) for b in stored]


def _extreme_store(fmt: Format, side: int, bound: float) -> Callable[[np.ndarray], np.ndarray]:
    """The highest (``side`` +1) or lowest (-1) value a store within ``bound`` of the exact
    reduction x can hold: the format's grid point nearest x + side * bound on x's side."""
    def store(x: np.ndarray) -> np.ndarray:
        if not fmt.is_float:
            t = x + side * bound
            return np.clip(np.floor(t) if side > 0 else np.ceil(t), 0.0, fmt.scale)
        with np.errstate(over="ignore", invalid="ignore"):
            t = x + side * bound * np.maximum(np.abs(x), RELATIVE_FLOOR)
            y = round_to_grid(t, fmt)
            past = y > t if side > 0 else y < t
            if past.any():  # the grid point on x's side of t (b10g11r11: its own grid)
                y = np.where(past, grid_step(y, fmt, -side), y)
        return y.astype(np.float64)
    return store


def stored_chain_bounds(level0: np.ndarray, fmt: Format, steps: Sequence[float],
                        chain_reference: Sequence[np.ndarray],
                        reduction: str = "mean") -> list[float]:
    """Per level: the largest chain error any chain can reach whose every level k is within
    ``steps[k]`` of the exact reduction of its stored level below (what a strategy keeping the
    ``stored`` promise may store), from this ``level0``.

    The mean is monotone and so are the extreme stores, so every such chain lies between two
    chains computed like the correctly rounded one (reference.stored_chain): the one that stores
    the highest value each step allows, and the one that stores the lowest (for 8-bit formats:
    every tie rounded up, resp. down). The bound is the larger of their errors. A filter with
    negative lobes is not monotone: its chain is bounded by :func:`propagated_chain_bounds`
    (8-bit), or only reported (floats). A float level 0 with negative texels: errors are
    relative to the chain of |level 0|, in which the steps' bounds add up."""
    if reduction in EXTREMES:
        return [0.0] * len(chain_reference)
    if scaled_by_result(reduction):
        # alpha=coverage: each level's alpha scale is a rank statistic of that level, so a chain
        # follows its own earlier scales (a 1-ulp change can move one); its steps and coverage
        # are the promise, the chain is reported
        return [0.0] + [float("inf")] * (len(chain_reference) - 1)
    if signed_floats(level0, fmt, reduction):
        # errors relative to the chain of |level 0| (compare.texel_errors' ``mag``): the mean
        # moves an error e of every input by at most e in those units, so the chain's errors add
        return [float(b) for b in np.cumsum([0.0, *steps[1:len(chain_reference)]])]
    gains = lobe_gains(reduction, (level0.shape[1], level0.shape[0]), len(chain_reference))
    if gains is not None:
        if fmt.is_float or fmt.is_srgb:
            # the step bound is the promise; the chain is reported against no bound (in sRGB a
            # lobed filter of linear light can move an encoded error by more than L1: a dark
            # input's error is small in linear light, an output's encode steep; H200: a
            # Lanczos-2 chain 1.35 LSB past L1 e + step)
            return [0.0] + [float("inf")] * (len(chain_reference) - 1)
        return propagated_chain_bounds(gains, steps)
    # both chains start from the exact reduction of level 0: the chain reference's level 1
    first = chain_reference[1] if len(chain_reference) > 1 else None
    sides = [stored_chain(level0, fmt, reduction,
                          lambda x, k, s=side: _extreme_store(fmt, s, steps[k])(x), first)
             for side in (1, -1)]
    out = []
    for k, (u, d, ref) in enumerate(zip(*sides, chain_reference, strict=True)):
        out.append(0.0 if k == 0 else max(max_error(u, ref, fmt), max_error(d, ref, fmt)))
    return out
