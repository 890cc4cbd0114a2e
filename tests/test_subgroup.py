"""The ``subgroup`` strategy: dispatch plan, invocation layouts, exactness on lavapipe.

Small sizes run all pairs of layout, tile, size and format (tests/pairwise.py); big ones once
per layout or once in all. Every GPU result is compared texel by texel with the float64
reference.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from mipview.check import compare, tolerances
from mipview.check.reference import reference_pyramid
from mipview.core.formats import Format, mip_count
from mipview.core.specs import StrategySpec
from mipview.gpu.session import run_once
from mipview.gpu.strategies.subgroup import (
    LAYOUTS,
    MODE_PER_LEVEL,
    MODE_TAIL,
    MODE_TILE,
    Subgroup,
    _tileable,
    layout_position,
    plan_steps,
    scratch_offsets,
    subgroup_levels,
)
from mipview.gpu.vulkan.resources import MipImage
from mipview.gpu.vulkan.timing import Marks
from tests.pairwise import pairs_params

FORMATS = (Format.UNORM, Format.SRGB, Format.F16)
# tolerances.REFERENCE_SLACK absorbs the reference's float64 noise on a tie-bound 1.0 LSB step
# error; the chain is held to the flat base tolerance here (stricter than within_tolerance's
# one-ulp-per-level allowance for floats), since this strategy keeps float intermediates.
REFERENCE_NOISE = tolerances.REFERENCE_SLACK
SMALL = ((1, 1), (2, 2), (3, 5), (16, 16), (31, 33), (32, 32), (64, 64), (1, 40), (70, 2))


def _level0(rng: np.random.Generator, w: int, h: int, fmt: Format, layers: int = 1) -> np.ndarray:
    shape = (layers, h, w, 4) if layers > 1 else (h, w, 4)
    if fmt.is_float:
        return (rng.random(shape) * 4.0).astype(np.float16)  # > 1 too: floats are not clamped
    return rng.integers(0, 256, shape, dtype=np.uint8)


def _check(ctx, level0: np.ndarray, fmt: Format, **options: str) -> compare.ErrorReport:
    spec = StrategySpec("subgroup", tuple(sorted(options.items())))
    mip = run_once(ctx, level0, fmt, [spec])
    assert not mip.validation_messages, mip.validation_messages[:5]
    assert not mip.skipped, mip.skipped
    result = mip.results[0]
    report = compare.error_report(result.levels, fmt, reference_pyramid(level0, fmt))
    worst = [compare.format_worst(e) for e in (*report.step, *report.chain)
             if e.max_error > 0.5 * tolerances.TOLERANCE[fmt][0]]
    step_tol, chain_tol = tolerances.TOLERANCE[fmt]
    within = (report.max_step <= step_tol + REFERENCE_NOISE
              and report.max_chain <= chain_tol + REFERENCE_NOISE)
    assert within, f"{spec} {fmt.label}: step {report.max_step:.3g}, " \
        f"chain {report.max_chain:.3g}; {worst[:4]}"
    planned = sorted(level for d in result.plan for level in d.levels)
    assert planned == list(range(1, len(result.levels)))
    return report


# --- plan and layouts (no device) -------------------------------------------------------------
@pytest.mark.parametrize("size", [(1, 1), (2, 2), (3, 5), (31, 33), (255, 129), (1920, 1080),
                                  (4096, 4096), (8192, 8192), (1, 16384), (4095, 4095)])
@pytest.mark.parametrize("tile_levels", [5, 6])
def test_plan_makes_every_level_once_and_tiles_only_even_sides(size, tile_levels):
    w, h = size
    steps = plan_steps(w, h, tile_levels)
    made = [level for s in steps for level in s.levels]
    assert made == list(range(1, mip_count(w, h)))
    for step in steps:
        src = step.src_level
        if step.mode == MODE_TILE:
            assert 1 <= step.count <= tile_levels
            assert all(_tileable(max(1, w >> lv), max(1, h >> lv))
                       for lv in range(src, src + step.count))
        elif step.mode == MODE_TAIL:
            assert step.src_size[0] * step.src_size[1] <= 1024 and max(step.src_size) <= 64
            assert step is steps[-1]
        else:
            assert step.mode == MODE_PER_LEVEL and step.count == 1
            assert not _tileable(*step.src_size)
    offsets, _ = scratch_offsets(steps, 1)
    for (src, dst), later in zip(offsets, offsets[1:], strict=False):
        assert src != dst or src < 0
        assert later[0] == dst  # the next dispatch reads what this one wrote


def test_plan_counts():
    assert [s.count for s in plan_steps(4096, 4096, 6)] == [6, 6]
    assert [s.count for s in plan_steps(4096, 4096, 5)] == [5, 5, 2]
    assert [(s.mode, s.count) for s in plan_steps(16, 16, 5)] == [(MODE_TILE, 4)]
    # 1920x1080: 3 tile levels to 240x135, exact levels for the odd 135/67/33, a tail from 30x16
    assert [(s.mode, s.levels) for s in plan_steps(1920, 1080, 6)] == [
        (MODE_TILE, (1, 2, 3)), (MODE_PER_LEVEL, (4,)), (MODE_PER_LEVEL, (5,)),
        (MODE_PER_LEVEL, (6,)), (MODE_TAIL, (7, 8, 9, 10))]


@pytest.mark.parametrize("size", [4, 8, 16, 32, 64, 128])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_layouts_are_permutations(layout, size):
    cells = {layout_position(layout, i, size) for i in range(256)}
    assert cells == {(x, y) for x in range(16) for y in range(16)}


def test_subgroup_levels_follow_layout_and_size():
    # row-major strips hold a 2x2 only from 32 lanes (16x2) on; square and morton floor(s/2)
    assert [subgroup_levels("row-major", s) for s in (4, 8, 16, 32, 64, 128)] == [0, 0, 0, 1, 2, 3]
    assert [subgroup_levels("morton", s) for s in (4, 8, 16, 32, 64, 128)] == [1, 1, 2, 2, 3, 3]
    assert [subgroup_levels("square", s) for s in (4, 8, 16, 32, 64, 128)] == [1, 1, 2, 2, 3, 3]
    # the seed's square swizzle: 32 lanes are an 8x4 block
    assert {layout_position("square", i, 32) for i in range(32)} == \
        {(x, y) for x in range(8) for y in range(4)}


# --- device ----------------------------------------------------------------------------------
@pytest.mark.parametrize("layout,tile,size,fmt",
                         pairs_params(LAYOUTS, ["32", "64"], SMALL, FORMATS))
def test_small_sizes_exact(gpu, rng, layout, tile, size, fmt):
    _check(gpu, _level0(rng, *size, fmt), fmt, layout=layout, tile=tile)


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.label)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_npot_255x129_exact(gpu, rng, layout, fmt):
    _check(gpu, _level0(rng, 255, 129, fmt), fmt, layout=layout)


@pytest.mark.parametrize("layout,fmt", [("row-major", Format.SRGB), ("square", Format.F16),
                                        ("morton", Format.UNORM)])
def test_1024_exact(gpu, rng, layout, fmt):
    _check(gpu, _level0(rng, 1024, 1024, fmt), fmt, layout=layout, tile="32")


def test_1920x1080_f16_chain_stays_within_half_ulp(gpu, rng):
    # f16 re-quantised at every dispatch boundary exceeds the chain tolerance here (per-level
    # does); the float scratch keeps the chain at one rounding.
    report = _check(gpu, _level0(rng, 1920, 1080, Format.F16), Format.F16)
    assert report.max_chain <= 1e-3


def test_layers(gpu, rng):
    _check(gpu, _level0(rng, 37, 20, Format.SRGB, layers=3), Format.SRGB, layout="square")


def test_required_subgroup_size(gpu, rng):
    size = gpu.caps.subgroup_size
    if gpu.caps.subgroup_size_range is None:
        pytest.skip("device has no subgroup size control")
    _check(gpu, _level0(rng, 40, 24, Format.UNORM), Format.UNORM, subgroup_size=str(size))


def test_unsupported_reasons(gpu):
    caps = gpu.caps
    assert Subgroup.unsupported_reason(caps, Format.UNORM, 64, 64) is None
    no_shuffle = dataclasses.replace(caps, subgroup_ops=("basic", "vote"))
    assert "shuffle" in Subgroup.unsupported_reason(no_shuffle, Format.UNORM, 64, 64)
    lo, hi = caps.subgroup_size_range or (caps.subgroup_size, caps.subgroup_size)
    outside = "128" if hi < 128 else "4"
    reason = Subgroup.unsupported_reason(caps, Format.UNORM, 64, 64, 1,
                                         {"subgroup_size": outside})
    if not lo <= int(outside) <= hi:
        assert reason and outside in reason


def _lane_map(ctx, layout: str) -> tuple[np.ndarray, np.ndarray, int]:
    """Level 1 of a 32x32 image in debug mode (tile 32: one invocation per level-1 texel):
    per cell the lane and the subgroup id that made it, and the subgroup size."""
    strategy = Subgroup(ctx, {"layout": layout, "tile": "32"}, debug_lanes=True)
    image = MipImage(ctx, Format.UNORM, 32, 32)
    try:
        image.upload(np.zeros((32, 32, 4), np.uint8))
        strategy.prepare(image)
        with ctx.one_shot() as cmd:
            strategy.record(cmd, image, Marks(None))
        level1 = image.read_levels()[1].astype(int)
    finally:
        strategy.release()
        image.destroy()
    sizes = np.unique(level1[..., 2])
    assert len(sizes) == 1 and np.all(level1[..., 3] == 255)
    return level1[..., 0], level1[..., 1], int(sizes[0])


def test_layouts_map_invocations_differently(gpu):
    maps = {layout: _lane_map(gpu, layout) for layout in LAYOUTS}
    for layout, (lane, sg, size) in maps.items():
        assert size == gpu.caps.subgroup_size
        # the shader placed invocation (sg, lane) exactly where the Python mirror says
        for y in range(16):
            for x in range(16):
                index = int(sg[y, x]) * size + int(lane[y, x])
                assert layout_position(layout, index, size) == (x, y), (layout, x, y)
    lanes = [maps[layout][0] for layout in LAYOUTS]
    for i in range(len(lanes)):
        for j in range(i + 1, len(lanes)):
            assert not np.array_equal(lanes[i], lanes[j]), (LAYOUTS[i], LAYOUTS[j])
    if maps["morton"][2] == 8:  # lavapipe: spell the shapes out
        lane, sg, _ = maps["morton"]
        assert lane[:2, :2].tolist() == [[0, 1], [2, 3]]       # lanes 0..3: a 2x2 quad
        assert np.all(sg[:2, :4] == 0)                          # a subgroup: 4x2 (two quads)
        lane, sg, _ = maps["row-major"]
        assert lane[0, :8].tolist() == list(range(8)) and np.all(sg[0, :8] == 0)  # 8x1 strip
        assert sg[1, 0] != 0
        lane, sg, _ = maps["square"]
        assert lane[:2, :4].tolist() == [[0, 1, 2, 3], [4, 5, 6, 7]]  # 4x2, row-major inside


# --- load=bilinear, tiles per workgroup, prefetch ---------------------------------------------------
@pytest.mark.parametrize("fmt", [Format.UNORM, Format.SRGB, Format.F16], ids=lambda f: f.label)
@pytest.mark.parametrize("options", [
    {"load": "bilinear"}, {"load": "bilinear", "tile": "32", "layout": "row-major"},
    {"tiles": "4", "prefetch": "on"}, {"tiles": "8", "load": "bilinear", "layout": "square"},
    {"tiles": "2", "tile": "32", "prefetch": "on"},
], ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_bilinear_and_tiles_exact(gpu, rng, options, fmt):
    # 320x260: several 64x64 (and 32x32) tiles per workgroup on lavapipe, a partial tile
    # column, and an odd level (65) that goes to the exact per-level mode
    _check(gpu, _level0(rng, 320, 260, fmt), fmt, **options)


def test_bilinear_refuses_f32(gpu):
    reason = Subgroup.unsupported_reason(gpu.caps, Format.F32, 64, 64, 1, {"load": "bilinear"})
    assert reason and "fp32" in reason
