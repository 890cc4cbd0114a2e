"""The verdict on a volume's chain (docs/volumes.md): every level against the exact reduction of
the stored level below (the step) and against the float64 chain of level 0 (the chain), texel by
texel, held to the bounds of :mod:`mipview.check.bounds` for how each level was made (a
volume's reduction sums along three axes: ``LevelSource.axes``). Min and max are bit-exact.
The figures are :func:`mipview.check.compare.level_error`'s, a volume's slices standing where
a 2D array's layers do."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mipview.check import bounds
from mipview.check.compare import LevelError, format_error, level_error, signed_floats
from mipview.check.volume_reference import volume_pyramid, volume_step
from mipview.core.formats import Format
from mipview.core.results import LevelSource


@dataclass(frozen=True)
class VolumeVerdict:
    reduction: str
    #: level 1 .. n-1 against the exact reduction of its stored level below
    step: tuple[LevelError, ...]
    #: level 0 .. n-1 against the float64 chain
    chain: tuple[LevelError, ...]
    step_bounds: tuple[float, ...]
    chain_bounds: tuple[float, ...]
    #: one line per level out of its bound
    breaches: tuple[str, ...]

    @property
    def within_tolerance(self) -> bool:
        return not self.breaches


def judge_volume(levels: Sequence[np.ndarray], level0: np.ndarray, fmt: Format,
                 reduction: str = "mean",
                 sources: Sequence[LevelSource] = ()) -> VolumeVerdict:
    """Judge the chain ``levels`` ``(d, h, w, 4)`` (level 0 as read back first) made from the
    uploaded ``level0``; ``sources`` say how levels 1.. were made (empty: each from the stored
    level below, along three axes)."""
    levels = list(levels)
    n = len(levels)
    made = list(sources) or [LevelSource(axes=3)] * (n - 1)
    ref = volume_pyramid(level0, fmt, reduction)  # type: ignore[arg-type]
    if len(ref) != n:
        raise ValueError(f"{n} levels, the volume's chain has {len(ref)}")
    # signed floats: the sums cancel, so their rounding is relative to the sums of |texels|
    # (compare.magnitude_below), the same rule as 2D
    mags = volume_pyramid(np.abs(level0), fmt, "mean") if signed_floats(level0, fmt, reduction) \
        else [None] * n
    chain = tuple(level_error(a, r, fmt, k, m)
                  for k, (a, r, m) in enumerate(zip(levels, ref, mags, strict=True)))

    def step_of(k: int) -> LevelError:
        below = levels[k - 1]
        mag = volume_step(np.abs(below), fmt, "mean") if signed_floats(below, fmt, reduction) \
            else None
        return level_error(levels[k], volume_step(below, fmt, reduction), fmt, k,  # type: ignore[arg-type]
                           mag)

    step = tuple(step_of(k) for k in range(1, n))
    steps = bounds.step_bounds(made, fmt, n, reduction)
    chains = bounds.carried_chain_bounds(made, fmt, n, reduction)
    breaches = []
    for err in step:
        if not err.max_error <= steps[err.level]:  # NaN breaches too
            breaches.append(f"step error at level {err.level}: "
                            f"{format_error(err.max_error, err.unit)} > "
                            f"{format_error(steps[err.level], err.unit)}")
    for err in chain:
        if not err.max_error <= chains[err.level]:
            breaches.append(f"chain error at level {err.level}: "
                            f"{format_error(err.max_error, err.unit)} > "
                            f"{format_error(chains[err.level], err.unit)}")
    return VolumeVerdict(reduction, step, chain, tuple(steps), tuple(chains), tuple(breaches))
