"""What the window shows of a run besides its timings: each strategy's verdict with a heatmap
per level, and the exact reference, computed in parallel off the thread that times.

The verdict is :func:`mipview.check.verdict.judge_result`, the one ``mipview run`` prints; the heatmaps
come out of the same texel errors as its chain figures (``maps=True``), not a second pass. The
reference pyramids live in a :class:`~mipview.check.verdict.ReferenceCache` the caller keeps, so each
is computed once per image and format, whatever the number of strategies and runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mipview.check.compare import LevelError
from mipview.check.filter_reference import BOX_NAMES, coverage, result_figures
from mipview.check.verdict import ReferenceCache, Verdict, judge_result
from mipview.core import bands
from mipview.core.formats import Format
from mipview.core.results import StrategyResult
from mipview.core.specs import StrategySpec


@dataclass(frozen=True)
class LevelFigures:
    """A filtered result's figures per level 0 .. n-1 (check.filter_reference.result_figures: the
    report's ``filter`` entry) beside the exact reference's coverage, for the window's plot."""

    cutoff: float
    #: fraction of the result's texels with alpha >= cutoff
    coverage: tuple[float, ...]
    #: the same of the exact (float64) reference pyramid of the result's reduction
    reference_coverage: tuple[float, ...]
    #: normal maps: mean vector length before renormalising (None at level 0), else None
    length_mean: tuple[float | None, ...] | None = None

    @property
    def worth_plotting(self) -> bool:
        """Something to see: level 0 has texels failing the alpha test, or vectors shorten
        (an opaque image's coverage is 1 at every level)."""
        return self.length_mean is not None or (bool(self.coverage) and self.coverage[0] < 1.0)


def level_figures(res: StrategyResult, level0: np.ndarray, fmt: Format,
                  refs: ReferenceCache) -> LevelFigures | None:
    """:class:`LevelFigures` of a filtered result; None for the box reductions (mean, min,
    max), which have no cutoff."""
    if res.reduction in BOX_NAMES or not res.levels:
        return None
    got = result_figures(res.levels, fmt, res.reduction)
    cutoff = float(got["cutoff"])  # type: ignore[arg-type]
    exact = refs.get(level0, fmt, res.reduction)
    lengths = got.get("length_mean")
    return LevelFigures(cutoff, tuple(got["coverage"]),  # type: ignore[arg-type]
                        tuple(coverage(lv, fmt, cutoff) for lv in exact),
                        None if lengths is None else tuple(lengths))  # type: ignore[arg-type]


@dataclass(frozen=True)
class StrategyAnalysis:
    """One strategy's verdict (mipview.check.verdict: the same as ``mipview run``'s) and its heatmap
    per level against the exact reference."""

    spec: StrategySpec
    verdict: Verdict
    maps: tuple[np.ndarray, ...]
    #: a filtered result's coverage (and normal maps' lengths) per level; None for the box
    figures: LevelFigures | None = None

    @property
    def levels(self) -> tuple[LevelError, ...]:
        """Chain errors per level against the exact reference (what the heatmap shows)."""
        return self.verdict.exact.chain

    @property
    def within_tolerance(self) -> bool:
        return self.verdict.within_tolerance


def analyse_strategy(res: StrategyResult, level0: np.ndarray, fmt: Format,
                     refs: ReferenceCache, maps: bool = True) -> StrategyAnalysis:
    """The verdict on ``res`` and, with ``maps``, its heatmaps (``compare.error_map`` per level
    against the exact reference of its reduction; the command line needs none). Any thread:
    numpy does the work, without the GIL."""
    verdict = judge_result(res, level0, fmt, refs, maps=maps)
    return StrategyAnalysis(res.spec, verdict, verdict.exact.maps,
                          level_figures(res, level0, fmt, refs))


def reference_levels(level0: np.ndarray, fmt: Format,
                     refs: ReferenceCache) -> tuple[np.ndarray, ...]:
    """The exact (mean) reference per level for the viewer: level 0 as uploaded, then float32
    storage units."""
    mean = refs.get(level0, fmt, "mean")
    return tuple([level0] + [r.astype(np.float32) for r in mean[1:]])


def references_needed(results: Sequence[StrategyResult]) -> list[str]:
    """The reference pyramids judging ``results`` reads: the mean first (the viewer shows it),
    then each other reduction and emulation, once."""
    names = ["mean"]
    for res in results:
        for name in (res.reduction, res.own_reference):
            if name is not None and name not in names:
                names.append(name)
    return names


def pool_size() -> int:
    """Threads for analyses: the cores this process may use (``bands.cores``), less one for the
    thread that shows the results (the UI's); at least one."""
    return max(1, bands.cores() - 1)
