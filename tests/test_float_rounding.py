"""Float stores that promise round-to-nearest keep it, bit for bit.

npot-exact (its general path), register-chain and volume-tiles round each float16 value to the
nearest half, ties to even (mip_common.glsl, mipRoundToHalf), before the store, because
lavapipe's own float -> half conversion truncates. The verdict's float bounds allow a store one
ulp toward zero per level (mipview.check.tolerances.ULP_RELATIVE: what Vulkan allows a device's
conversion), so they cannot tell the two apart; these tests can. Each stored level is compared
with numpy's ``astype(np.float16)`` (round to nearest, ties to even, as the shader) of the exact
float64 reduction of the inputs the GPU used: the level below as stored where the strategy
re-reads it (``LevelSource.reread``), else the exact values carried from there.

The one exception is a value within 2^-20 (relative) of a midpoint between two halves but not
on it: the shaders reduce in float32, whose ulps of error (2^-24 each: up to 27 taps, a few
levels carried) can put such a value on either side, and either half is then the nearest of
what the shader held. On lavapipe none of these inputs needs it (all pass with 2^-30). Exact midpoints (every mean of an even side is exact in float32) must go to even.
Inputs stay in the normal range (|v| >= 1/16), where mipRoundToHalf is exact.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pytest

from mipview.check.reference import reduce_level
from mipview.check.volume_reference import reduce_volume
from mipview.core.formats import Format
from mipview.core.results import LevelSource
from mipview.core.specs import StrategySpec
from mipview.gpu.session import run_once
from mipview.gpu.volume_session import run_volume

#: how close to a midpoint a float32 computation may land a value on the other side of it
NEAR_MIDPOINT = 2.0**-20
#: the share of values the exception may cover before the check means nothing (expected:
#: 2 * 2^-20 / 2^-10.5, about 0.3%)
NEAR_MIDPOINT_SHARE = 0.02


def halves(shape: tuple[int, ...], seed: int, sign: float = 1.0) -> np.ndarray:
    """Random float16 values of magnitude in [1/16, 1), every mantissa bit used."""
    v = np.random.default_rng(seed).uniform(1 / 16, 1, shape)
    return (sign * v).astype(np.float16)


def exact_levels(levels: Sequence[np.ndarray], sources: Sequence[LevelSource],
                 reduce: Callable[[np.ndarray], np.ndarray]) -> list[np.ndarray]:
    """Level k's exact float64 value from what the GPU reduced it from: level k-1 as stored
    where the strategy re-read it, else level k-1's own exact value (carried unrounded)."""
    out = [np.asarray(levels[0], np.float64)]
    for k in range(1, len(levels)):
        reread = not sources or sources[k - 1].reread
        below = np.asarray(levels[k - 1], np.float64) if reread else out[k - 1]
        out.append(reduce(below))
    return out


def nearest_problem(stored: np.ndarray, exact: np.ndarray) -> str | None:
    """Why float16 ``stored`` is not ``exact`` rounded to nearest, ties to even, or None."""
    want = exact.astype(np.float16)
    above = want.astype(np.float64) > exact
    other = np.nextafter(want, np.where(above, -np.inf, np.inf).astype(np.float16))
    mid = (want.astype(np.float64) + other.astype(np.float64)) / 2
    gap = np.abs(exact - mid)
    near = (gap > 0) & (gap <= NEAR_MIDPOINT * np.abs(exact))
    bad = (stored != want) & ~(near & (stored == other))
    if near.sum() > max(2, NEAR_MIDPOINT_SHARE * near.size):
        return f"{near.mean():.1%} of the values lie near a midpoint: the check is blind"
    if not bad.any():
        return None
    at = tuple(int(i) for i in np.argwhere(bad)[0])
    return (f"{int(bad.sum())} of {bad.size} values not rounded to nearest; first at {at}: "
            f"stored {float(stored[at])!r}, exact {float(exact[at])!r}, "
            f"nearest {float(want[at])!r}")


def pyramid_problem(levels: Sequence[np.ndarray], sources: Sequence[LevelSource],
                    reduce: Callable[[np.ndarray], np.ndarray]) -> str | None:
    exact = exact_levels(levels, sources, reduce)
    for k in range(1, len(levels)):
        assert levels[k].dtype == np.float16
        if problem := nearest_problem(levels[k], exact[k]):
            return f"level {k}: {problem}"
    return None


# --- the check itself -------------------------------------------------------------------------

def test_check_catches_truncation_and_ties_away_from_even() -> None:
    exact = reduce_level(halves((2, 24, 36, 4), 1).astype(np.float64))
    nearest = exact.astype(np.float16)
    assert nearest_problem(nearest, exact) is None
    # toward zero: what lavapipe's conversion does without mipRoundToHalf
    truncated = np.where(np.abs(nearest.astype(np.float64)) > np.abs(exact),
                         np.nextafter(nearest, np.float16(0)), nearest)
    assert "not rounded to nearest" in nearest_problem(truncated, exact)
    # a 2x2 mean of 1 and 1 + 2^-10 lies exactly between two halves: even is 1, not 1 + 2^-10
    block = np.empty((2, 2, 4))
    block[:, 0], block[:, 1] = 1.0, 1.0 + 2**-10
    tied = reduce_level(block)
    assert tied.shape == (1, 1, 4) and np.all(tied == 1.0 + 2**-11)
    assert nearest_problem(np.ones_like(tied, np.float16), tied) is None
    away = np.full_like(tied, 1.0 + 2**-10, dtype=np.float16)
    assert "not rounded to nearest" in nearest_problem(away, tied)


# --- the strategies -----------------------------------------------------------------------------

def _layers(w: int, h: int, seed: int) -> np.ndarray:
    # one positive layer, one negative: the shader's rounding works on the magnitude's bits
    return np.stack([halves((h, w, 4), seed), halves((h, w, 4), seed + 1, -1.0)])


@pytest.mark.parametrize(("spec", "size"), [
    ("npot-exact:path=general", (37, 23)),   # odd sides: 3-tap levels, carried in shared memory
    ("npot-exact:path=general", (64, 32)),   # even sides: exact midpoints, ties to even
    ("register-chain", (37, 23)),            # every level re-read as stored
    ("register-chain", (64, 32)),            # levels 1-3 in registers, each from its store
], ids=["npot-odd", "npot-even", "chain-odd", "chain-even"])
def test_f16_stores_round_to_nearest(gpu, spec, size):
    level0 = _layers(*size, seed=size[0])
    res = run_once(gpu, level0, Format.F16, [StrategySpec.parse(spec)]).results[0]
    assert np.array_equal(res.levels[0], level0)
    problem = pyramid_problem(res.levels, res.sources, reduce_level)
    assert problem is None, f"{spec} {size}: {problem}"


@pytest.mark.parametrize("size", [(5, 7, 9), (8, 8, 8)], ids=["5x7x9", "8x8x8"])
def test_volume_f16_stores_round_to_nearest(gpu, size):
    w, h, d = size
    level0 = halves((d, h, w, 4), seed=w * h * d)
    run = run_volume(gpu, level0, Format.F16, ["volume-tiles"])
    assert not run.skipped and not run.validation_messages
    res = run.results[0]
    assert np.array_equal(res.levels[0], level0)
    problem = pyramid_problem(res.levels, res.sources, reduce_volume)
    assert problem is None, f"volume-tiles {size}: {problem}"
