"""register-chain: the dispatch plan (no device) and the pyramid against the exact reference.

The plan may only chain a level in registers from a level whose sides are even or 1; 67x33 and
the thin strips have odd sides at the first level, 1x17 a side of 1 under a wider block.
"""

from __future__ import annotations

import numpy as np
import pytest

from mipview.check import compare, reference, tolerances
from mipview.core.formats import Format, level_size, mip_count, to_storage
from mipview.core.specs import StrategySpec
from mipview.gpu import strategies
from mipview.gpu.session import run_once
from mipview.gpu.strategies.register_chain import MAX_DEPTH, MAX_DEPTH_SRGB, max_depth, plan_chain
from mipview.io import synthetic

PLAN_SIZES = [(1, 1), (2, 1), (1, 17), (3, 3), (67, 33), (64, 64), (1024, 1024), (1920, 1080),
              (4097, 3), (4095, 4095), (16384, 16384)]


@pytest.mark.parametrize("depth", [1, MAX_DEPTH_SRGB, MAX_DEPTH])
@pytest.mark.parametrize("size", PLAN_SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_plan_makes_every_level_once_from_disjoint_blocks(size, depth):
    w, h = size
    steps = plan_chain(w, h, depth)
    assert [level for s in steps for level in s.outputs] == list(range(1, mip_count(w, h)))
    for s in steps:
        assert 1 <= s.depth <= depth
        # every level made in registers from the one above it: that one splits into 2x2 blocks
        for level in s.outputs[:-1]:
            assert all(n == 1 or n % 2 == 0 for n in level_size(w, h, level)), (s, level)
    for s in steps[:-1]:
        # a dispatch ends early only where going on would chain from an odd side
        if s.depth < depth:
            assert any(n > 1 and n % 2 for n in level_size(w, h, s.outputs[-1]))


def test_plan_on_render_target_sizes():
    assert [s.label for s in plan_chain(1024, 1024)] == ["levels 1-3", "levels 4-6",
                                                         "levels 7-9", "level 10"]
    # 1080 -> 540 -> 270 -> 135 (odd): level 4 is made from level 3's 3-tap footprints
    assert [s.label for s in plan_chain(1920, 1080)] == [
        "levels 1-3", "level 4", "level 5", "levels 6-7", "level 8", "level 9", "level 10"]
    # 33 is odd: level 1 alone; 1x17: a side of 1 all the way, 17 only at level 0
    assert [s.label for s in plan_chain(67, 33)] == ["level 1", "levels 2-4", "levels 5-6"]
    assert [s.label for s in plan_chain(1, 17)] == ["levels 1-3", "level 4"]
    # sRGB: 2 levels a dispatch at most
    assert max_depth(Format.SRGB) == 2 and max_depth(Format.F16) == max_depth(Format.UNORM) == 3
    assert [s.label for s in plan_chain(1024, 1024, max_depth(Format.SRGB))] == [
        "levels 1-2", "levels 3-4", "levels 5-6", "levels 7-8", "levels 9-10"]


def _check(gpu, w, h, fmt, layers=1, strip=False):
    src = synthetic.image(w, h, seed=w * 7 + h, kind="noise")
    level0 = to_storage(src.pixels, fmt)
    if layers > 1:
        level0 = np.stack([level0, level0[::-1, ::-1]] + [level0] * (layers - 2))
    mip = run_once(gpu, level0, fmt, [StrategySpec("register-chain")])
    assert not mip.skipped and not mip.validation_messages
    res = mip.results[0]
    assert [p.label for p in res.plan] == [s.label for s in plan_chain(w, h, max_depth(fmt))]
    levels = list(res.levels)
    report = compare.error_report(levels, fmt, reference.reference_pyramid(level0, fmt))
    if strip:  # as per-level's strips: 0.5 LSB per stored level, the provable bound
        assert report.max_step <= tolerances.TOLERANCE[fmt][0]
        for err in report.chain:
            assert err.max_error <= 0.5 * err.level + 1e-6, compare.format_worst(err)
    else:
        assert report.within_tolerance(fmt), (
            f"{w}x{h} {fmt.label}: step {report.max_step:.4g} chain {report.max_chain:.4g}; "
            + "; ".join(compare.format_worst(e) for e in report.chain if e.max_error > 0)[:600])
    return levels


SMALL = [(1, 1), (2, 1), (1, 17), (5, 7), (64, 64), (67, 33), (129, 66)]
# lavapipe compiles every pipeline with LLVM (~1.6 s each, sRGB's longer), so the other formats
# take fewer sizes: 67x33 makes one level from odd sides, then 3 from odd sides, then 2 from even
# ones; sRGB plans 2 at most, and 64x64 adds its 2 levels from even sides.
FEWER = {Format.SRGB: [(1, 17), (67, 33), (64, 64)], Format.F16: [(67, 33)],
         Format.F32: [(67, 33)]}


@pytest.mark.parametrize("fmt", [Format.UNORM, Format.SRGB, Format.F16, Format.F32],
                         ids=lambda f: f.label)
def test_small_sizes_are_exact(gpu, fmt):
    for w, h in FEWER.get(fmt, SMALL):
        _check(gpu, w, h, fmt)


def test_thin_strips(gpu):
    for w, h in [(1027, 3), (2, 515)]:
        _check(gpu, w, h, Format.UNORM, strip=True)


def test_same_bytes_as_per_level(gpu):
    # the same arithmetic on the same stored values: levels chained in registers are the stored
    # ones, so an 8-bit pyramid is per-level's byte for byte
    fmt = Format.SRGB
    level0 = to_storage(synthetic.image(129, 66, seed=5, kind="zoneplate").pixels, fmt)
    mip = run_once(gpu, level0, fmt, [StrategySpec("per-level"), StrategySpec("register-chain")])
    ours, theirs = mip.results[1].levels, mip.results[0].levels
    assert len(ours) == len(theirs) == mip_count(129, 66)
    for a, b in zip(ours, theirs, strict=True):
        assert np.array_equal(a, b)


def test_layers(gpu):
    levels = _check(gpu, 64, 32, Format.UNORM, layers=3)  # only pipelines compiled above
    assert levels[1].shape == (3, 16, 32, 4)
    assert not np.array_equal(levels[1][0], levels[1][1])  # each layer its own


def test_in_all_and_unsupported_nowhere_here(gpu):
    assert StrategySpec("register-chain") in strategies.default_specs()
    cls = strategies.strategy_class("register-chain")
    for fmt in Format:
        assert cls.unsupported_reason(gpu.caps, fmt, 67, 33) is None
