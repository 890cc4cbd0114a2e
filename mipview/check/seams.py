"""How visible a cube map's seams are, level by level (docs/cube-maps.md).

For each of the 12 edges of each cube, with a and b the edge rows of the two faces that meet there
(N texels each, paired as they face each other across the edge: mipview.core.cube.ADJACENCY),
and a', b' the rows next inside (depth 1), all decoded to linear float, all channels:

    step   = mean |a - b|                                  (over the N pairs and the channels)
    inside = mean of |a - a'| and |b - b'|                 (over both faces' 2 N pairs)
    ratio  = step / max(inside, floor)

On content continuous in direction the step across an edge is about one texel's change, as the
step from the edge row to the next one is: the ratio is near 1. A seam (faces filtered apart, a
face misplaced) makes the step larger than the variation on either side. The floor keeps a flat
edge's ratio finite: there a step of one floor counts as 1. Faces of 1 texel have no row inside:
their inside variation is undefined, and only the steps are reported (ratios None).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mipview.core import cube
from mipview.core.formats import Format, decode, texels

#: inside variation below this (linear units: 1/16 of an 8-bit step) counts as this much
FLOOR = 2.0**-12


@dataclass(frozen=True)
class SeamFigures:
    """The seam figures of one level (module docstring), over the 12 edges of every cube."""

    size: int
    max_step: float
    mean_step: float
    #: None for faces of 1 texel (no row inside)
    max_ratio: float | None
    mean_ratio: float | None
    #: the edge with the largest ratio (the largest step for 1-texel faces):
    #: (cube, face name, edge name), the edge seen from that face
    worst: tuple[int, str, str]


def edge_figures(lin: np.ndarray,
                 floor: float = FLOOR) -> tuple[np.ndarray, np.ndarray | None]:
    """Per cube and edge (n, 12, in :data:`mipview.core.cube.CUBE_EDGES`' order): the steps,
    and the ratios (None for faces of 1 texel), of linear values (6 n, N, N, C)."""
    n = cube.face_side(lin.shape)
    steps, insides = [], []
    for (f, e), (g, e2) in cube.CUBE_EDGES:
        # rows 0 and 1 inside the edge on both faces, b's turned to face a's texel by texel
        a = [cube.edge_run(lin, f, e, d) for d in range(min(n, 2))]
        b = [cube.edge_run(lin, g, e2, d) for d in range(min(n, 2))]
        if cube.ADJACENCY[(f, e)][2]:
            b = [run[:, ::-1] for run in b]
        steps.append(np.abs(a[0] - b[0]).mean(axis=(1, 2)))
        if n > 1:
            insides.append((np.abs(a[0] - a[1]).mean(axis=(1, 2))
                            + np.abs(b[0] - b[1]).mean(axis=(1, 2))) / 2)
    step = np.stack(steps, axis=1)
    if n == 1:
        return step, None
    return step, step / np.maximum(np.stack(insides, axis=1), floor)


def seam_metric(level: np.ndarray, fmt: Format | None = None,
                floor: float = FLOOR) -> SeamFigures:
    """The seam figures of one cube map level (6 n, N, N, C): storage values of ``fmt``
    (decoded to linear light first; float64 storage units as the references give them), or
    with ``fmt`` None values already linear."""
    lin = np.asarray(level, np.float64) if fmt is None else decode(texels(level), fmt)
    step, ratio = edge_figures(lin, floor)
    worst_of = step if ratio is None else ratio
    c, k = np.unravel_index(int(np.argmax(worst_of)), worst_of.shape)
    f, e = cube.CUBE_EDGES[k][0]
    return SeamFigures(
        size=lin.shape[1], max_step=float(step.max()), mean_step=float(step.mean()),
        max_ratio=None if ratio is None else float(ratio.max()),
        mean_ratio=None if ratio is None else float(ratio.mean()),
        worst=(int(c), cube.FACE_NAMES[f], e))


def pyramid_seams(levels: Sequence[np.ndarray], fmt: Format | None = None,
                  floor: float = FLOOR) -> list[SeamFigures]:
    """:func:`seam_metric` of every level of a cube map pyramid."""
    return [seam_metric(level, fmt, floor) for level in levels]
