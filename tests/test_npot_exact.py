"""npot-exact: the dispatch plan (no device) and the pyramid against the exact reference.

Sizes are nvpro's hard cases (docs/test_images.txt there): 4095^2 is a 3-tap kernel on both
axes at every level, 4094^2 allows one even level then only odd ones, 2047^2 / 2052^2 mix odd and
even levels, 1x4097 is tall with an odd side, 3x3 is the smallest 3-tap case. The two biggest run
once, in one format; 1920x1080 and 1x4097 in unorm, srgb and f16; the small sizes each in one of
them in turn (a size tests the plan's index arithmetic, a format its rounding, and each
(pipeline, format) is a compile on lavapipe).
"""

from __future__ import annotations

import numpy as np
import pytest

from mipview.check import compare
from mipview.core.formats import Format, level_size, mip_count, to_storage
from mipview.core.specs import StrategySpec
from mipview.gpu.session import run_once
from mipview.gpu.strategies.npot_exact import (
    A_SIDE,
    B_SIDE,
    MAX_LEVELS,
    OUTPUTS,
    plan_steps,
    region_sides,
)
from mipview.io import synthetic

PLAN_SIZES = [(1, 1), (2, 1), (3, 3), (5, 7), (64, 64), (67, 33), (1, 4097), (1920, 1080),
              (2047, 2047), (2052, 2052), (4094, 4094), (4095, 4095), (4096, 4096),
              (16384, 3), (16384, 16384)]


@pytest.mark.parametrize("general_only", [False, True])
@pytest.mark.parametrize("size", PLAN_SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_plan_makes_every_level_once_and_fits(size, general_only):
    w, h = size
    steps = plan_steps(w, h, general_only)
    made = [level for s in steps for level in s.outputs]
    assert made == list(range(1, mip_count(w, h)))
    for s in steps:
        if s.tiles is not None:  # single-pass's tile phase: 32x32 texels of level src+1 a group
            assert not general_only and s.tiles.levels == s.outputs and s.tiles.base == s.src
            w1, h1 = level_size(w, h, s.src + 1)
            assert s.groups == (-(-w1 // 32), -(-h1 // 32))
            for j in range(1, s.tiles.tile_levels):  # tile steps 2.. are 2x2 boxes: even sides
                assert all(n % 2 == 0 for n in level_size(w, h, s.src + j))
            continue
        assert 1 <= s.levels - s.tail <= MAX_LEVELS and s.levels <= OUTPUTS
        assert not s.tail or s is steps[-1]  # only the chain's last dispatch hands off
        lw, lh = level_size(w, h, s.src + s.levels - s.tail)
        # the groups cover the last level they make, and no group starts past it
        assert (s.groups[0] - 1) * s.tile < lw <= s.groups[0] * s.tile
        assert (s.groups[1] - 1) * s.tile < lh <= s.groups[1] * s.tile
        regions = region_sides(w, h, s)
        for j, (rw, rh) in enumerate(regions[:-1], start=1):
            side = A_SIDE if j % 2 else B_SIDE
            assert rw <= side and rh <= side
        # the last level's region is stored, not kept, but bounds the shader's loop
        assert regions[-1][0] * regions[-1][1] <= A_SIDE * A_SIDE
        assert s.path == "general"


def test_plan_paths_on_hard_cases():
    # all odd: overlapping 2-level dispatches; the last group of the last one finishes the chain
    assert [(s.label, s.tail) for s in plan_steps(4095, 4095)] == [
        ("general 1-2", 0), ("general 3-4", 0), ("general 5-11", 5)]
    # the largest tile giving 128 groups or more (GENERAL_TILES): level 6 is 63x63, so 4
    assert plan_steps(4095, 4095)[-1].groups == (16, 16)
    # power of two: single-pass's tiles, the last group's tile phase finishing the chain
    assert [(s.path, s.levels) for s in plan_steps(4096, 4096)] == [("fast", 12)]
    assert [(s.path, s.levels) for s in plan_steps(8192, 8192)] == [("fast", 6), ("fast", 7)]
    # 1920 x 1080: fast while 1080 halves evenly (1080, 540, 270), then general: every group
    # makes levels 4-6 in 2x2 tiles of level 6 (30x16: 120 groups), its last group 7-10
    assert [(s.label, s.tail) for s in plan_steps(1920, 1080)] == [("fast 1-3", 0),
                                                                   ("general 4-10", 4)]
    assert plan_steps(1920, 1080)[-1].groups == (15, 8)
    # where the whole rest fits one group, that group is the dispatch (nothing to hand off)
    assert [(s.label, s.groups, s.tail) for s in plan_steps(67, 33)] == [("general 1-6", (1, 1),
                                                                          0)]


def _check(gpu, w: int, h: int, fmt: Format, kind: str = "noise",
           spec: str = "npot-exact") -> compare.ErrorReport:
    src = synthetic.image(w, h, seed=w * 7 + h, kind=kind)
    level0 = to_storage(src.pixels, fmt)
    mip = run_once(gpu, level0, fmt, [StrategySpec.parse(spec)])
    res = mip.results[0]
    general = StrategySpec.parse(spec).option_dict.get("path") == "general"
    assert [p.label for p in res.plan] == [s.label for s in plan_steps(w, h, general)]
    report = compare.error_report(list(res.levels), fmt)
    assert report.within_tolerance(fmt), (
        f"{w}x{h} {fmt.label}: step {report.max_step:.4g} chain {report.max_chain:.4g}; "
        + "; ".join(compare.format_worst(e) for e in report.chain if e.max_error > 0)[:600])
    return report


#: the formats of the sweeps below (the small sizes take them in turn)
FORMATS = [Format.UNORM, Format.SRGB, Format.F16]
SMALL = [(1, 1), (2, 1), (1, 2), (3, 3), (5, 7), (7, 3), (33, 17), (64, 64), (67, 33), (100, 3),
         (129, 255)]


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.label)
def test_small_sizes(gpu, fmt):
    for w, h in SMALL[FORMATS.index(fmt)::len(FORMATS)]:
        _check(gpu, w, h, fmt)


def test_small_f32_and_general_only(gpu):
    for w, h in [(67, 33), (64, 64), (255, 129)]:
        _check(gpu, w, h, Format.F32)
        _check(gpu, w, h, Format.UNORM, spec="npot-exact:path=general")


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.label)
def test_1920x1080_and_tall(gpu, fmt):
    report = _check(gpu, 1920, 1080, fmt, kind="zoneplate")
    _check(gpu, 1, 4097, fmt)
    if not fmt.is_float:  # float intermediates: the chain stays within one rounding
        assert report.max_chain <= 1.0


@pytest.mark.parametrize(("size", "fmt"), [((2047, 2047), Format.SRGB),
                                           ((2052, 2052), Format.F16),
                                           ((2047, 2047), Format.F16),
                                           ((2052, 2052), Format.UNORM)],
                         ids=["2047-srgb", "2052-f16", "2047-f16", "2052-unorm"])
def test_mixed_odd_even(gpu, size, fmt):
    _check(gpu, *size, fmt)


@pytest.mark.slow
@pytest.mark.parametrize("size", [(4095, 4095), (4094, 4094)], ids=["4095", "4094"])
def test_nvpro_big_cases_once(gpu, size):
    _check(gpu, *size, Format.UNORM)


def test_layers(gpu):
    rng = np.random.default_rng(3)
    level0 = rng.integers(0, 256, (3, 13, 21, 4), dtype=np.uint8)
    mip = run_once(gpu, level0, Format.SRGB, [StrategySpec("npot-exact")])
    report = compare.error_report(list(mip.results[0].levels), Format.SRGB)
    assert report.within_tolerance(Format.SRGB)


def test_bilinear_samples_level0_only(gpu):
    # 288x128: fast 1-5 samples level 0 (one bilinear sample per 2x2), then a fast pass from
    # level 5 (9x4, odd: exact 3-tap weights) must load texels, not the bilinear sample
    steps = plan_steps(288, 128)
    assert [s.path for s in steps] == ["fast", "fast"] and steps[1].src == 5
    _check(gpu, 288, 128, Format.UNORM, spec="npot-exact:load=bilinear")
