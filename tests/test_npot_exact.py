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
from mipview.check.reference import reference_pyramid
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
from mipview.gpu.strategies.single_pass import STRIP_TEXELS, STRIP_VEC4
from mipview.io import synthetic

PLAN_SIZES = [(1, 1), (2, 1), (3, 3), (5, 7), (64, 48), (64, 64), (67, 33), (320, 2),
              (1, 4097), (1280, 720), (1920, 1080), (2560, 1440), (3840, 2160), (2047, 2047),
              (2052, 2052), (4094, 4094), (4095, 4095), (4096, 4096), (16384, 3),
              (16384, 16384)]


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
            if s.tiles.strip_levels:
                _check_strips(w, h, s.tiles)
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


def _check_strips(w: int, h: int, p) -> None:
    """A strip pass's columns stay even down to their last level (no footprint leaves its
    strip), tile the hand-off level exactly, a tile at least each, and fit the shader."""
    top = p.base + p.tile_levels  # the hand-off level the strips start from
    width = 1 << p.strip_levels
    assert p.strips * width == level_size(w, h, top)[0] >= width >= 64 >> p.tile_levels
    assert all(level_size(w, h, top + k)[0] % 2 == 0 for k in range(p.strip_levels))
    assert sum(p.strip_regions) <= STRIP_VEC4
    for k in range(1, p.strip_levels + 1):
        assert max(1, width >> k) * level_size(w, h, top + k)[1] <= STRIP_TEXELS
    for level in range(top + p.strip_levels + 1, top + p.strip_levels + p.tail_levels + 1):
        assert level_size(w, h, level)[0] * level_size(w, h, level)[1] <= STRIP_TEXELS
    assert p.levels[-1] == mip_count(w, h) - 1


def test_plan_strips_at_render_target_sizes():
    # 1920x1080: tiles make levels 1-3 (240x135, odd in y, but 240 = 15 x 16), 15 strips of 16
    # columns levels 4-7 (15x8), the last strip 8-10: one dispatch where there were two
    for size, tiles, strips, tail in [((1920, 1080), 3, 15, 3), ((3840, 2160), 4, 15, 3),
                                      ((2560, 1440), 5, 5, 2), ((1280, 720), 4, 5, 2)]:
        steps = plan_steps(*size, strips=True)
        assert [s.path for s in steps] == ["fast"], size
        p = steps[0].tiles
        assert (p.tile_levels, p.strip_levels, p.strips, p.tail_levels) == (tiles, 4, strips,
                                                                           tail)
        _check_strips(*size, p)
    # x odd below the tiles: no strips (4095^2), or nothing left after them (4096^2)
    assert all(s.tiles is None or not s.tiles.strip_levels
               for size in [(4095, 4095), (4096, 4096), (2052, 2052)]
               for s in plan_steps(*size, strips=True))
    # off by default (slower on an H100, docs/bench/speed-vs-spd): two dispatches at 1080p
    assert [s.label for s in plan_steps(1920, 1080)] == ["fast 1-3", "general 4-10"]


def test_plan_paths_on_hard_cases():
    # all odd: overlapping 2-level dispatches; the last group of the last one finishes the chain
    assert [(s.label, s.tail) for s in plan_steps(4095, 4095)] == [
        ("general 1-2", 0), ("general 3-4", 0), ("general 5-11", 5)]
    # the largest tile giving 128 groups or more (GENERAL_TILES): level 6 is 63x63, so 4
    assert plan_steps(4095, 4095)[-1].groups == (16, 16)
    # power of two: single-pass's tiles, the last group's tile phase finishing the chain
    assert [(s.path, s.levels) for s in plan_steps(4096, 4096)] == [("fast", 12)]
    assert [(s.path, s.levels) for s in plan_steps(8192, 8192)] == [("fast", 6), ("fast", 7)]
    # 1920 x 1080 without strips: fast while 1080 halves evenly (1080, 540, 270), then general:
    # every group makes levels 4-6 in 2x2 tiles of level 6 (30x16: 120 groups), its last 7-10
    assert [(s.label, s.tail) for s in plan_steps(1920, 1080)] == [("fast 1-3", 0),
                                                                   ("general 4-10", 4)]
    assert plan_steps(1920, 1080)[-1].groups == (15, 8)
    # where the whole rest fits one group, that group is the dispatch (nothing to hand off)
    assert [(s.label, s.groups, s.tail) for s in plan_steps(67, 33)] == [("general 1-6", (1, 1),
                                                                          0)]


def _report(levels, level0: np.ndarray, fmt: Format) -> compare.ErrorReport:
    """Errors against the exact pyramid of level 0 as uploaded (not as read back, which would
    compare a corrupted upload with itself), level 0 read back bit for bit."""
    assert np.array_equal(levels[0], level0), "level 0 not read back as uploaded"
    return compare.error_report(list(levels), fmt, reference_pyramid(level0, fmt))


def _check(gpu, w: int, h: int, fmt: Format, kind: str = "noise",
           spec: str = "npot-exact") -> compare.ErrorReport:
    src = synthetic.image(w, h, seed=w * 7 + h, kind=kind)
    level0 = to_storage(src.pixels, fmt)
    mip = run_once(gpu, level0, fmt, [StrategySpec.parse(spec)])
    res = mip.results[0]
    options = StrategySpec.parse(spec).option_dict
    planned = plan_steps(w, h, options.get("path") == "general",
                         strips=options.get("strips") == "on")
    assert [p.label for p in res.plan] == [s.label for s in planned]
    report = _report(res.levels, level0, fmt)
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


@pytest.mark.parametrize(("size", "fmt", "spec"), [
    ((640, 360), Format.UNORM, "npot-exact:strips=on"),  # 5 strips of levels 4-7, then 8-9
    ((1280, 320), Format.SRGB, "npot-exact:strips=on"),  # tiles 1-6, strips 7-8, then 9-10
    ((320, 2), Format.F32, "npot-exact:strips=on"),      # one tile level, strips 2-6, then 7-8
    ((64, 48), Format.F16, "npot-exact:strips=on"),      # one strip, nothing after it
    ((640, 360), Format.SRGB, "npot-exact:strips=on,reduction=min"),
    ((1280, 320), Format.F32, "npot-exact:strips=on,reduction=max"),
], ids=["640x360-unorm", "1280x320-srgb", "320x2-f32", "64x48-f16", "640x360-min",
        "1280x320-max"])
def test_strips(gpu, size, fmt, spec):
    steps = plan_steps(*size, strips=True)
    assert len(steps) == 1 and steps[0].tiles.strip_levels  # the strips are what is tested
    if "reduction" not in spec:
        _check(gpu, *size, fmt, spec=spec)
        return
    # min/max pick stored values: every level bit-equal to the exact extreme
    reduction = spec.split("reduction=")[1]
    src = synthetic.image(*size, seed=size[0] * 7 + size[1], kind="noise")
    level0 = to_storage(src.pixels, fmt)
    res = run_once(gpu, level0, fmt, [StrategySpec.parse(spec)]).results[0]
    assert [p.label for p in res.plan] == [s.label for s in steps]
    want = reference_pyramid(level0, fmt, reduction)
    for level, (a, b) in enumerate(zip(res.levels, want, strict=True)):
        assert np.array_equal(a, b.astype(fmt.dtype)), f"level {level}"


@pytest.mark.parametrize("tiles", ["2", "8"])
def test_tiles_per_group(gpu, tiles):
    # the tile phase with several tiles per workgroup (a wave fit, measured slower: docs/bench/hiz-gather):
    # the same bytes as one tile each; 640x360 has 60 tiles, so tiles=8 leaves 8 workgroups
    src = synthetic.image(640, 360, seed=11, kind="noise")
    level0 = to_storage(src.pixels, Format.SRGB)
    one, many = (run_once(gpu, level0, Format.SRGB, [StrategySpec.parse(spec)]).results[0]
                 for spec in ("npot-exact:tiles=1", f"npot-exact:tiles={tiles}"))
    assert f"({tiles} per workgroup)" in many.plan[0].detail
    assert "per workgroup" not in one.plan[0].detail
    for level, (a, b) in enumerate(zip(one.levels, many.levels, strict=True)):
        assert np.array_equal(a, b), f"level {level}"
    _check(gpu, 640, 360, Format.SRGB, spec=f"npot-exact:tiles={tiles}")


def test_strips_of_every_layer(gpu):
    # each layer counts its own strips and tiles (counters per layer, strips + 1 each)
    rng = np.random.default_rng(5)
    level0 = rng.integers(0, 256, (3, 360, 640, 4), dtype=np.uint8)
    mip = run_once(gpu, level0, Format.SRGB, [StrategySpec.parse("npot-exact:strips=on")])
    assert [p.label for p in mip.results[0].plan] == ["fast 1-9"]
    report = _report(mip.results[0].levels, level0, Format.SRGB)
    assert report.within_tolerance(Format.SRGB)


def test_layers(gpu):
    rng = np.random.default_rng(3)
    level0 = rng.integers(0, 256, (3, 13, 21, 4), dtype=np.uint8)
    mip = run_once(gpu, level0, Format.SRGB, [StrategySpec("npot-exact")])
    report = _report(mip.results[0].levels, level0, Format.SRGB)
    assert report.within_tolerance(Format.SRGB)


def test_bilinear_samples_level0_only(gpu):
    # 288x128: fast 1-5 samples level 0 (one bilinear sample per 2x2), then a fast pass from
    # level 5 (9x4, odd: exact 3-tap weights) must load texels, not the bilinear sample
    steps = plan_steps(288, 128)
    assert [s.path for s in steps] == ["fast", "fast"] and steps[1].src == 5
    _check(gpu, 288, 128, Format.UNORM, spec="npot-exact:load=bilinear")
