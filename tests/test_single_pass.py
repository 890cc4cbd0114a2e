"""single-pass (SPD class): exactness on POT/NPOT sizes, min/max, layers, repeat stability,
sub-rectangle updates, and the planner (which needs no device)."""

from __future__ import annotations

import numpy as np
import pytest

from mipview.check import compare, tolerances
from mipview.check.reference import reference_pyramid
from mipview.core.formats import Format, mip_count, to_storage
from mipview.core.results import StrategyResult
from mipview.core.specs import StrategySpec
from mipview.gpu.dirty import parse_rect, run_strategy, upload_rect
from mipview.gpu.session import run_once
from mipview.gpu.strategies.single_pass import (
    TAIL_CHOICES,
    TAIL_TEXELS,
    SinglePass,
    plan_passes,
)
from mipview.gpu.vulkan.resources import MipImage
from mipview.io.layers import make_layers
from tests.gpu_formats import GPU_FORMATS
from tests.pairwise import pairs_params

# the flat base chain tolerance (stricter than within_tolerance for floats), with the
# reference's float64 slack
SLACK = tolerances.REFERENCE_SLACK


def _spec(**opts: str) -> StrategySpec:
    return StrategySpec("single-pass", tuple(sorted(opts.items())))


def _image(rng: np.random.Generator, w: int, h: int, fmt: Format, layers: int = 1) -> np.ndarray:
    pixels = rng.random((h, w, 4))
    level0 = to_storage(pixels, fmt)
    return make_layers(level0, layers) if layers > 1 else level0


def _check(levels: list[np.ndarray], level0: np.ndarray, fmt: Format, reduction: str) -> None:
    ref = reference_pyramid(level0, fmt, reduction)
    assert len(levels) == len(ref)
    if reduction == "mean":
        rep = compare.error_report(levels, fmt, ref, reduction)
        step_tol, chain_tol = tolerances.TOLERANCE[fmt]
        worst = compare.format_worst(max(rep.chain + rep.step, key=lambda e: e.max_error))
        assert rep.max_step <= step_tol + SLACK and rep.max_chain <= chain_tol + SLACK, worst
    else:  # min/max pick source values: exactly equal
        for i, (a, r) in enumerate(zip(levels, ref, strict=True)):
            bad = np.argwhere(a.astype(np.float64) != r)
            assert bad.size == 0, f"level {i}: {len(bad)} texels differ, first at {bad[0]}"


def _result(gpu, level0: np.ndarray, fmt: Format, **opts: str) -> StrategyResult:
    mip = run_once(gpu, level0, fmt, [_spec(**opts)])
    assert not mip.skipped, mip.skipped
    return mip.results[0]


def _run(gpu, level0: np.ndarray, fmt: Format, **opts: str) -> list[np.ndarray]:
    return list(_result(gpu, level0, fmt, **opts).levels)


# --- planner (no device) -------------------------------------------------------------------------
@pytest.mark.parametrize("w,h,dispatches", [
    (1, 1, 0), (64, 64, 1), (63, 65, 1), (4096, 4096, 1), (2048, 256, 1), (5000, 3, 1),
    (1920, 1080, 2), (8192, 8192, 2), (16384, 16384, 2), (16384, 1, 1), (4095, 4095, 6),
])
def test_plan_covers_every_level_once(w: int, h: int, dispatches: int) -> None:
    passes, size = plan_passes(w, h, layers=3)
    assert len(passes) == dispatches
    levels = [lv for p in passes for lv in p.levels]
    assert levels == list(range(1, mip_count(w, h)))
    for p in passes:
        assert 1 <= p.tile_levels <= 6 and len(p.levels) <= 14
    assert size >= 1


def test_plan_tail_starts_small() -> None:
    passes, _ = plan_passes(4096, 4096)
    (p,) = passes
    assert (p.tile_levels, p.tail_levels) == (6, 6) and 64 * 64 <= TAIL_TEXELS


def test_plan_tiled_tail() -> None:
    # the last group reruns the tile phase when the tail is one 64x64 tile, even down to 1x1
    assert [p.tail_tiled for p in plan_passes(4096, 4096)[0]] == [True]
    assert [p.tail_tiled for p in plan_passes(8192, 8192)[0]] == [False, True]
    assert [p.tail_tiled for p in plan_passes(1920, 1080)[0]] == [False, False]
    assert [p.tail_tiled for p in plan_passes(2048, 256)[0]] == [False]  # 2x1 below: odd


# --- correctness ------------------------------------------------------------------------------------
SMALL = [(1, 1), (63, 65), (64, 64), (5000, 3)]


@pytest.mark.parametrize("size,reduction,fmt",
                         pairs_params(SMALL, ["mean", "min", "max"], GPU_FORMATS))
def test_small_sizes(gpu, rng, size: tuple[int, int], reduction: str, fmt: Format) -> None:
    w, h = size
    level0 = _image(rng, w, h, fmt)
    _check(_run(gpu, level0, fmt, reduction=reduction), level0, fmt, reduction)


@pytest.mark.parametrize("w,h,fmt,reduction", [
    (1920, 1080, Format.SRGB, "mean"),
    (2048, 256, Format.F16, "max"),
    (2048, 256, Format.UNORM, "mean"),
])
def test_larger_sizes(gpu, rng, w: int, h: int, fmt: Format, reduction: str) -> None:
    level0 = _image(rng, w, h, fmt)
    _check(_run(gpu, level0, fmt, reduction=reduction), level0, fmt, reduction)


def test_4096_once(gpu, rng) -> None:
    level0 = _image(rng, 4096, 4096, Format.UNORM)
    res = _result(gpu, level0, Format.UNORM)
    _check(list(res.levels), level0, Format.UNORM, "mean")
    # the pass ends at the counter, where 8 tiles share one arrival
    assert "(8 per workgroup)" in res.plan[0].detail


@pytest.mark.parametrize("w,layers,fmt,reduction", [
    (256, 2, Format.UNORM, "mean"), (512, 1, Format.F16, "max"), (256, 3, Format.SRGB, "min"),
])
def test_tiled_tail(gpu, rng, w: int, layers: int, fmt: Format, reduction: str) -> None:
    assert plan_passes(w, w, layers)[0][-1].tail_tiled
    level0 = _image(rng, w, w, fmt, layers=layers)
    _check(_run(gpu, level0, fmt, reduction=reduction), level0, fmt, reduction)


@pytest.mark.parametrize("reduction", ["mean", "min"])
def test_six_layers(gpu, rng, reduction: str) -> None:
    level0 = _image(rng, 96, 130, Format.F16, layers=6)
    assert not np.array_equal(level0[0], level0[1])
    levels = _run(gpu, level0, Format.F16, reduction=reduction)
    assert levels[1].shape == (6, 65, 48, 4)
    _check(levels, level0, Format.F16, reduction)


@pytest.mark.parametrize("opts,fmt", [
    ({"load": "bilinear"}, Format.SRGB),
    ({"fp16": "on"}, Format.UNORM),
    ({"fp16": "on"}, Format.F16),
    ({"fp16": "on", "reduction": "max"}, Format.SRGB),
])
def test_variants(gpu, rng, opts: dict[str, str], fmt: Format) -> None:
    level0 = _image(rng, 256, 128, fmt)
    _check(_run(gpu, level0, fmt, **opts), level0, fmt, opts.get("reduction", "mean"))


def test_unsupported_reasons(gpu) -> None:
    caps = gpu.caps
    assert SinglePass.unsupported_reason(caps, Format.UNORM, 63, 64, 1, {"load": "bilinear"})
    assert SinglePass.unsupported_reason(caps, Format.UNORM, 64, 64, 1,
                                         {"load": "bilinear", "reduction": "min"})
    assert SinglePass.unsupported_reason(caps, Format.F32, 64, 64, 1, {"fp16": "on"})
    assert SinglePass.unsupported_reason(caps, Format.UNORM, 64, 64, 1, {}) is None
    assert SinglePass.reduction({"reduction": "max"}) == "max"


def test_repeats_bit_identical(gpu, rng) -> None:
    """Runs after the first reuse the reset counters, and the layers' last groups run their
    tails concurrently (an early scratch-layout race showed up about once in 60 runs here)."""
    level0 = _image(rng, 300, 200, Format.F32, layers=6)
    image = MipImage(gpu, Format.F32, 300, 200, 6)
    strategy = SinglePass(gpu, {})
    try:
        image.upload(level0)
        strategy.prepare(image)
        run_strategy(gpu, strategy, image)
        first = image.read_levels()
        for run in range(25):
            run_strategy(gpu, strategy, image)
            for i, (a, b) in enumerate(zip(first, image.read_levels(), strict=True)):
                assert np.array_equal(a, b), f"run {run + 2}: level {i} changed"
    finally:
        gpu.wait_idle()
        strategy.release()
        image.destroy()
    _check(first, level0, Format.F32, "mean")


# --- sub-rectangle updates ---------------------------------------------------------------------------
@pytest.mark.parametrize("w,h,layers,rect", [
    (200, 150, 1, "64,32,64,64"),      # exactly one tile, at tile borders
    (200, 150, 1, "63,0,2,1"),         # straddles a tile border
    (200, 150, 6, "190,140,10,10"),    # the image corner
    (129, 67, 1, "0,60,129,7"),        # odd sides: 3-tap footprints cross tiles
    (300, 2, 1, "250,1,50,1"),         # height 2 -> 1 at level 1
    (600, 300, 1, "100,100,200,50"),   # two passes: the change travels through the hand-off
])
def test_rect_update_matches_full_run(gpu, rng, w: int, h: int, layers: int, rect: str) -> None:
    _check_rect_update(gpu, rng, w, h, layers, rect)


def _check_rect_update(gpu, rng, w: int, h: int, layers: int, rect: str, **opts: str) -> None:
    fmt = Format.UNORM
    r = parse_rect(rect, w, h)
    x, y, rw, rh = r
    before = _image(rng, w, h, fmt, layers)
    after = before.copy()
    after[..., y:y + rh, x:x + rw, :] = 255 - after[..., y:y + rh, x:x + rw, :]
    image = MipImage(gpu, fmt, w, h, layers)
    strategy = SinglePass(gpu, opts)
    try:
        image.upload(before)
        strategy.prepare(image)
        run_strategy(gpu, strategy, image)
        upload_rect(image, after, r)
        run_strategy(gpu, strategy, image, r)
        partial = image.read_levels()
    finally:
        gpu.wait_idle()
        strategy.release()
        image.destroy()
    full = _run(gpu, after, fmt, **opts)
    for i, (a, b) in enumerate(zip(partial, full, strict=True)):
        assert np.array_equal(a, b), f"level {i} differs from a full run"


# --- tiles per workgroup (tile_schedule.glsl) ------------------------------------------------------
@pytest.mark.parametrize("tiles,prefetch", [("2", "off"), ("8", "on"), ("auto", "on")])
@pytest.mark.parametrize("load,fmt", [("texel", Format.UNORM), ("bilinear", Format.SRGB),
                                      ("texel", Format.F16)])
def test_tiles_per_group_exact_and_identical(gpu, rng, tiles, prefetch, load, fmt):
    # 300x260: 5x5 tiles of 64x64, so a workgroup takes several of them on lavapipe
    level0 = _image(rng, 300, 260, fmt)
    base = _run(gpu, level0, fmt, load=load, tiles="1")
    levels = _run(gpu, level0, fmt, load=load, tiles=tiles, prefetch=prefetch)
    _check(levels, level0, fmt, "mean")
    # a tile's arithmetic does not depend on which workgroup takes it
    for i, (a, b) in enumerate(zip(levels, base, strict=True)):
        assert np.array_equal(a, b), f"level {i} differs from tiles=1"


def test_tiles_per_group_min_max_and_layers(gpu, rng):
    level0 = _image(rng, 320, 192, Format.UNORM, layers=3)
    for reduction in ("min", "max"):
        _check(_run(gpu, level0, Format.UNORM, reduction=reduction, tiles="4"), level0,
               Format.UNORM, reduction)


def test_tiles_per_group_rect_update_matches_full_run(gpu, rng):
    # 512x384: 8x6 tiles; the 3x4-tile rectangle runs with 3 workgroups of 4 tiles
    _check_rect_update(gpu, rng, 512, 384, 1, "200,100,70,90", tiles="4", prefetch="on")


def test_auto_tiles_and_prefetch_follow_the_pass(gpu, rng):
    # 1920x1080: pass 1 stops at level 3 (135 rows) and has no counter, so with bilinear samples
    # a workgroup takes 4 tiles and fetches the next early; texel loads keep 1 (test_4096_once:
    # a pass that ends at the counter takes 8)
    fmt = Format.UNORM
    level0 = _image(rng, 1920, 1080, fmt)
    bilinear = _result(gpu, level0, fmt, load="bilinear")
    assert "(4 per workgroup)" in bilinear.plan[0].detail
    assert "per workgroup" not in _result(gpu, level0, fmt).plan[0].detail
    auto = list(bilinear.levels)
    _check(auto, level0, fmt, "mean")
    base = _run(gpu, level0, fmt, load="bilinear", tiles="1", prefetch="off")
    for i, (a, b) in enumerate(zip(auto, base, strict=True)):
        assert np.array_equal(a, b), f"level {i} differs from tiles=1, prefetch=off"



# --- tail: where the last group takes over (fewer dispatches against a longer serial tail) ----
def test_plan_tail_option_trades_dispatches_for_a_longer_tail() -> None:
    counts = {t: len(plan_passes(1920, 1080, tail_texels=int(t))[0]) for t in TAIL_CHOICES}
    assert counts == {"512": 4, "2048": 3, "8192": 2, "32768": 1}
    (one,) = plan_passes(1920, 1080, tail_texels=32768)[0]
    assert (one.tile_levels, one.tail_levels) == (3, 7)
    # a tail that fits one tile phase is taken whatever the value: 4096^2 stays one dispatch
    assert [len(plan_passes(4096, 4096, tail_texels=int(t))[0]) for t in TAIL_CHOICES] == [1] * 4
    assert plan_passes(8192, 8192)[0] == plan_passes(8192, 8192, tail_texels=TAIL_TEXELS)[0]


_TAIL_SIZES = [(1920, 1080), (1921, 1079), (4097, 3), (1, 1500), (1500, 1),
               (300, 230), (256, 256)]


@pytest.mark.parametrize("tail", TAIL_CHOICES)
@pytest.mark.parametrize("w,h", _TAIL_SIZES, ids=lambda v: str(v))
def test_every_tail_choice_exact(gpu, rng, w, h, tail) -> None:
    """Texel by texel against the reference, every format in turn (min/max bit-equal); the
    plan's dispatches are the planner's for that choice."""
    k = _TAIL_SIZES.index((w, h)) + TAIL_CHOICES.index(tail)
    fmt = list(Format)[k % len(Format)]
    reduction = ("mean", "mean", "max", "min")[k % 4]
    layers = 2 if (w, h) == (300, 230) else 1
    level0 = _image(rng, w, h, fmt, layers=layers)
    res = _result(gpu, level0, fmt, reduction=reduction, tail=tail)
    assert len(res.plan) == len(plan_passes(w, h, layers, int(tail))[0])
    _check(list(res.levels), level0, fmt, reduction)


def test_tail_choice_2047x2049(gpu, rng) -> None:
    level0 = _image(rng, 2047, 2049, Format.F16)
    _check(_run(gpu, level0, Format.F16, tail="32768"), level0, Format.F16, "mean")
