"""A cube map in a run (docs/cube-maps.md, "Running a cube map"): its faces run as array layers
through every strategy, and each chain, the exact references' too, gets the seam metric of
:mod:`mipview.check.seams` per level.

A strategy's promise for a cube is its array promise: the faces are filtered independently, each
layer as a 2D image (the reference is the array reference, layer by layer). A filter with
``edge=cube`` (per-level, filter-pairs) promises the seamless chain instead, checked against the
seamless reference. The box is the same chain under both conventions.

Shared by ``mipview run`` and ``mipview bench`` (report.json, bench's JSON, their text) and
:mod:`mipview.api`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mipview.check.seams import SeamFigures, pyramid_seams, seam_metric
from mipview.check.verdict import ReferenceCache
from mipview.core.cube import FACES
from mipview.core.filters.resample import CUBE
from mipview.core.filters.spec import parse_filter
from mipview.core.formats import Format
from mipview.core.results import RunResult
from mipview.core.specs import StrategySpec

INDEPENDENT = "independent faces"
SEAMLESS = "seamless"
#: what every strategy promises for a cube map (the report's note)
NOTE = "cube map: faces filtered independently, as array layers (docs/cube-maps.md)"
#: what a strategy with edge=cube promises instead
SEAMLESS_NOTE = "edge=cube: seamless, a footprint across a face edge reads the neighbouring face"


def convention(reduction: str) -> str:
    """:data:`SEAMLESS` for a filter with ``edge=cube`` (a result's ``reduction``), else
    :data:`INDEPENDENT` (the box, min and max, and every per-axis edge)."""
    try:
        spec = parse_filter(reduction)
    except ValueError:  # min, max, minmax, an emulation
        return INDEPENDENT
    return SEAMLESS if spec.edge == CUBE else INDEPENDENT


def cube_spec_reason(spec: StrategySpec, is_cube: bool) -> str | None:
    """Why ``spec`` cannot serve the image, or None: the seamless chain (``edge=cube`` on a
    filter other than the box) needs a cube map, and is not made of a 2D image or array (even
    one of 6 square layers, which the GPU cannot tell from a cube)."""
    if is_cube or spec.option_dict.get("edge") != CUBE:
        return None
    from mipview.gpu.strategies import resolve

    cls, options = resolve(spec)
    if convention(cls.reduction(options)) != SEAMLESS:
        return None  # the box: its footprint never leaves a face
    return ("edge=cube needs a cube map (a cube KTX2 or DDS, six face images sky_px.png ..., or "
            "--synthetic cube); this image is not one: use edge=clamp, wrap or mirror")


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal shape, type and bits."""
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(
        np.ascontiguousarray(a).view(np.uint8), np.ascontiguousarray(b).view(np.uint8))


@dataclass(frozen=True)
class CubeSeams:
    """The seam figures of a cube map run: each result's chain and each exact reference's, level
    by level (:func:`mipview.check.seams.pyramid_seams`)."""

    cubes: int
    side: int
    fmt: Format
    #: by the result's spec text, in the order of the run's results
    results: dict[str, tuple[SeamFigures, ...]]
    #: each result's convention (:func:`convention`), by spec text
    conventions: dict[str, str]
    #: by reference name (the results' reductions; empty when not checked)
    references: dict[str, tuple[SeamFigures, ...]]

    def headline(self) -> str:
        """The run's note on the cube: its shape and what the strategies promise."""
        what = "1 cube" if self.cubes == 1 else f"an array of {self.cubes} cubes"
        seamless = ", edge=cube results seamless" if SEAMLESS in self.conventions.values() \
            else ""
        return (f"cube map: {what} of 6 faces {self.side}x{self.side}, run as "
                f"{FACES * self.cubes} array layers; faces filtered independently{seamless} "
                f"(docs/cube-maps.md)")

    def _line(self, figures: Sequence[SeamFigures]) -> str:
        ratios = [f"{f.mean_ratio:.3g}" for f in figures if f.mean_ratio is not None]
        ratios += [f"({f.size}x{f.size}: step {f.mean_step:.3g})" for f in figures
                   if f.mean_ratio is None]
        worst = worst_level(figures)
        f = figures[worst]
        top = f.max_ratio if f.max_ratio is not None else f.max_step
        what = "ratio" if f.max_ratio is not None else "step"
        cube, face, edge = f.worst
        where = f"{face} {edge}" if self.cubes == 1 else f"cube {cube} {face} {edge}"
        return (f"seams: mean ratio per level {' '.join(ratios)}; max {what} {top:.3g} "
                f"(level {worst}, {where})")

    def result_line(self, spec: str) -> str:
        """One result's seam figures, with its convention."""
        return f"{self._line(self.results[spec])}  [{self.conventions[spec]}]"

    def reference_lines(self, width: int) -> list[str]:
        """A line per exact reference, its name padded to ``width``."""
        return [f"{'reference ' + name:<{width}} {self._line(figures)}"
                for name, figures in self.references.items()]


def worst_level(figures: Sequence[SeamFigures]) -> int:
    """The level with the largest seam ratio (the largest step where no level has ratios:
    faces of 1 texel); the first of equals."""
    ratios = [f.max_ratio for f in figures]
    if any(r is not None for r in ratios):
        return int(np.argmax([-np.inf if r is None else r for r in ratios]))
    return int(np.argmax([f.max_step for f in figures]))


def _num(v: float | None) -> float | str | None:
    """A figure for JSON: non-finite ones (a float chain holding NaN) as text, as the report's."""
    return v if v is None or math.isfinite(v) else str(v)


def figures_dict(figures: Sequence[SeamFigures]) -> dict[str, Any]:
    """A chain's seam figures for JSON: a list per figure, level 0 first (ratios None where the
    faces are 1 texel), and the largest ratio (the largest step where no level has ratios)
    with where it is."""
    level = worst_level(figures)
    f = figures[level]
    cube, face, edge = f.worst
    return {
        "size": [s.size for s in figures],
        "mean_ratio": [_num(s.mean_ratio) for s in figures],
        "max_ratio": [_num(s.max_ratio) for s in figures],
        "mean_step": [_num(s.mean_step) for s in figures],
        "max_step": [_num(s.max_step) for s in figures],
        "max": _num(f.max_ratio if f.max_ratio is not None else f.max_step),
        "worst": {"level": level, "cube": cube, "face": face, "edge": edge},
    }


def run_seams(mip: RunResult, level0: np.ndarray, refs: ReferenceCache | None) -> CubeSeams:
    """The seam figures of every result of a cube map run on ``level0`` (6 n, N, N, 4), and of
    the exact reference of each result's reduction from ``refs`` (the run's cache, which holds
    them once the results are judged; None: no references, as with ``--no-check``)."""
    fmt = mip.fmt
    # level 0 is every result's (bit for bit), and the largest level to decode: once
    first = seam_metric(level0, fmt)

    def chain(levels: Sequence[np.ndarray]) -> tuple[SeamFigures, ...]:
        if levels and _same(levels[0], level0):
            return (first, *pyramid_seams(levels[1:], fmt))
        return tuple(pyramid_seams(levels, fmt))

    results = {str(r.spec): chain(r.levels) for r in mip.results}
    conventions = {str(r.spec): convention(r.reduction) for r in mip.results}
    references: dict[str, tuple[SeamFigures, ...]] = {}
    if refs is not None:
        for name in dict.fromkeys(r.reduction for r in mip.results):
            references[name] = tuple(pyramid_seams(refs.get(level0, fmt, name), fmt))
    return CubeSeams(level0.shape[0] // FACES, level0.shape[1], fmt, results, conventions,
                     references)


def cube_dict(seams: CubeSeams) -> dict[str, Any]:
    """report.json's ``cube`` entry: the cube's shape, the note, and the references' seams."""
    seamless = SEAMLESS in seams.conventions.values()
    return {"cubes": seams.cubes, "faces": FACES, "side": seams.side,
            "note": f"{NOTE}; {SEAMLESS_NOTE}" if seamless else NOTE,
            "reference_seams": {name: figures_dict(f) for name, f in seams.references.items()}}


def strategy_cube_dict(seams: CubeSeams, spec: str) -> dict[str, Any]:
    """A strategy entry's cube fields: its convention and its chain's seams."""
    return {"cube": seams.conventions[spec], "seams": figures_dict(seams.results[spec])}
