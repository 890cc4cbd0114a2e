"""What a pyramid's levels are made with: the box ``mean``, or a Hi-Z extreme.

The extremes take each texel's whole footprint (2 source texels per even axis, 3 per odd one:
texels 2i, 2i+1 and 2i+2 of a side of 2m+1), so a level covers every level-0 texel under it at
every size (conservative), and pick stored values (no decode, no rounding):

- ``min`` and ``max``: channel by channel;
- ``minmax``: a min+max depth pyramid in a two-channel format, the min in R and the max in G
  (a one-channel source opened in a two-channel format holds its value in both; a D32 depth
  buffer as level 0 is ``d32-rg32f``, whose depth view reads the depth in both).

In depth terms, ``nearest`` and ``farthest`` name min or max after the depth convention:
standard Z (near plane 0) keeps the nearest depth with min, reversed Z (near plane 1) with max.
"""

from __future__ import annotations

from mipview.core.formats import Format

#: the reductions of a shader: their codes (REDUCTION / SP_REDUCTION specialization constants,
#: mip_common.glsl's mipExtreme)
CODES = {"mean": 0, "min": 1, "max": 2, "minmax": 3}
NAMES = tuple(CODES)
EXTREMES = ("min", "max", "minmax")
#: depth names -> (standard Z, reversed Z)
DEPTH_NAMES = {"nearest": ("min", "max"), "farthest": ("max", "min")}


def by_depth(name: str, reversed_z: bool) -> str:
    """``name`` with a depth name (``nearest``, ``farthest``) made ``min`` or ``max``."""
    pair = DEPTH_NAMES.get(name)
    return name if pair is None else pair[int(reversed_z)]


def load_reason(reduction: str, load: str) -> str | None:
    """Why a ``load`` option cannot serve ``reduction``, or None: a bilinear (a volume's
    trilinear) sample averages in the sampler, so it serves the mean only."""
    if reduction != "mean" and load in ("bilinear", "trilinear"):
        return (f"load={load} averages in the sampler: it only serves reduction=mean "
                f"(reduction={reduction} takes texel loads: load=texel)")
    return None


def format_reason(reduction: str, fmt: Format) -> str | None:
    """Why ``reduction`` cannot make a pyramid of ``fmt``, or None."""
    if reduction == "minmax" and fmt.channels != 2:
        depth = " (for a D32 depth buffer: d32-rg32f)" if fmt.depth_source else ""
        return (f"reduction=minmax writes the min in R and the max in G: it takes a two-channel "
                f"format (rg32f, rg16f, rg8, d32-rg32f), not {fmt.label}{depth}")
    return None
