"""Two chains of one image compared texel by texel (``mipview diff``): how far apart
they are per level, and how many texels are further apart than both sides' promises allow.

If each side keeps its chain bound against the exact reference R (|A - R| <= bA, |B - R| <= bB),
then |A - B| <= bA + bB: a texel further apart than that shows that one side broke its promise,
whichever it was. A side with no bound (a texture file, a run saved with ``--no-check``)
promises nothing, so there any difference counts as beyond.

Differences are :func:`mipview.check.compare.texel_errors`, the verdict's own measure: LSB for
UNORM formats, relative error for floats; NaN against NaN (and an infinity against itself) is
no difference, NaN against a number an infinite one.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from mipview.check.compare import json_float, texel_errors
from mipview.check.tolerances import REFERENCE_SLACK
from mipview.core.formats import Format

IDENTICAL = "identical"
WITHIN = "differs within the promises"
BEYOND = "differs beyond them"
#: verdicts from best to worst: a strategy's is its worst level's, the overall one the worst
VERDICTS = (IDENTICAL, WITHIN, BEYOND)


@dataclass(frozen=True)
class LevelDiff:
    """One level of A against B: differences in the format's unit (largest over channels)."""

    level: int
    width: int
    height: int
    layers: int
    max_diff: float
    mean_diff: float
    #: (layer, y, x, channel) of ``max_diff``
    worst: tuple[int, int, int, int]
    #: bA + bB for this level; None: a side promises nothing (any difference is beyond)
    bound: float | None
    #: texels (any channel) further apart than ``bound``
    beyond: int

    @property
    def verdict(self) -> str:
        if self.max_diff == 0.0:
            return IDENTICAL
        return BEYOND if self.beyond else WITHIN

    def as_dict(self) -> dict[str, object]:
        return {"level": self.level, "width": self.width, "height": self.height,
                "layers": self.layers, "max_diff": json_float(self.max_diff),
                "mean_diff": json_float(self.mean_diff),
                "worst": dict(zip(("layer", "y", "x", "channel"), self.worst, strict=True)),
                "bound": None if self.bound is None else json_float(self.bound),
                "beyond": self.beyond, "verdict": self.verdict}


@dataclass(frozen=True)
class ChainDiff:
    """Every level of one chain (a strategy's, or a texture file's) of A against B."""

    name: str
    levels: tuple[LevelDiff, ...]

    @property
    def verdict(self) -> str:
        return worst_verdict(lv.verdict for lv in self.levels)

    @property
    def beyond(self) -> int:
        return sum(lv.beyond for lv in self.levels)

    def as_dict(self) -> dict[str, object]:
        return {"strategy": self.name, "verdict": self.verdict, "beyond": self.beyond,
                "levels": [lv.as_dict() for lv in self.levels]}


def worst_verdict(verdicts: Iterable[str]) -> str:
    """The worst of ``verdicts`` (each one of :data:`VERDICTS`); ``identical`` if none."""
    return max(verdicts, key=VERDICTS.index, default=IDENTICAL)


def summed_bounds(a: Sequence[float] | None, b: Sequence[float] | None) -> list[float] | None:
    """bA + bB per level, or None when either side has no bounds."""
    if a is None or b is None:
        return None
    return [x + y for x, y in zip(a, b, strict=True)]


def diff_level(a: np.ndarray, b: np.ndarray, fmt: Format, level: int,
               bound: float | None) -> LevelDiff:
    """Level ``level`` of A against B (same shape: (H, W, 4) or (L, H, W, 4) storage values)."""
    a4 = a[None] if a.ndim == 3 else a
    b4 = b[None] if b.ndim == 3 else b
    if a4.shape != b4.shape:
        raise ValueError(f"level {level}: shape {a.shape} against {b.shape}")
    # floats: relative to the larger side, so A against B reads as B against A, and for
    # bounds << 1 the larger side is at least about |R|, what each bound is relative to
    mag = np.abs(a4) if fmt.is_float else None
    err = texel_errors(a4, b4, fmt, mag)
    flat = int(np.argmax(err))
    layer, y, x, ch = (int(i) for i in np.unravel_index(flat, err.shape))
    texel = err.max(axis=-1)
    if bound is None:
        beyond = int(np.count_nonzero(texel))
    else:
        # the slack the verdict allows each bound (the float64 reference's own rounding)
        beyond = int(np.count_nonzero(~(texel <= bound + 2 * REFERENCE_SLACK)))
    layers, height, width = err.shape[:3]
    return LevelDiff(level, width, height, layers, float(err.flat[flat]), float(err.mean()),
                     (layer, y, x, ch), bound, beyond)


def diff_chain(name: str, a_levels: Sequence[np.ndarray], b_levels: Sequence[np.ndarray],
               fmt: Format, bounds: Sequence[float] | None) -> ChainDiff:
    """Every level of A against B; ``bounds``: bA + bB per level (:func:`summed_bounds`), or
    None where a side promises nothing."""
    if len(a_levels) != len(b_levels):
        raise ValueError(f"{name}: {len(a_levels)} levels against {len(b_levels)}")
    if bounds is not None and len(bounds) != len(a_levels):
        raise ValueError(f"{name}: {len(bounds)} bounds for {len(a_levels)} levels")
    return ChainDiff(name, tuple(
        diff_level(a, b, fmt, i, None if bounds is None else float(bounds[i]))
        for i, (a, b) in enumerate(zip(a_levels, b_levels, strict=True))))


def is_unbounded(bound: float | None) -> bool:
    """A level the promises set no bound on (blit's: not exact by design)."""
    return bound is not None and math.isinf(bound)
