"""Volumes on the GPU: volume-per-level and volume-tiles make every level of odd and
even volumes, judged texel by texel against the float64 3D reference (docs/volumes.md) on
lavapipe with validation; min and max bit-exact."""

from __future__ import annotations

import os

import numpy as np
import pytest

from mipview.check.volume_reference import volume_pyramid
from mipview.check.volume_verdict import judge_volume
from mipview.core.errors import MipviewError
from mipview.core.formats import Format, to_storage
from mipview.core.results import LevelSource
from mipview.gpu.strategies.sampler_minmax import minmax_filterable
from mipview.gpu.strategies.volume_per_level import VolumePerLevel
from mipview.gpu.strategies.volume_tiles import plan_steps
from mipview.gpu.volume_session import VOLUME_STRATEGIES, run_volume, volume_strategy

BOTH = list(VOLUME_STRATEGIES)
#: odd volumes, and two of even sides (no overlap between tiles; 32^3: four
#: levels in many groups, then one group)
SIZES = [(3, 3, 3), (5, 7, 9), (33, 33, 33), (16, 8, 4), (32, 32, 32)]


def _volume(size: tuple[int, int, int], fmt: Format, seed: int) -> np.ndarray:
    w, h, d = size
    values = np.random.default_rng(seed).random((d, h, w, 4), dtype=np.float32)
    return to_storage(values * 4 - 1 if fmt.is_float else values, fmt)


def _judged(gpu, level0: np.ndarray, fmt: Format, reduction: str):
    run = run_volume(gpu, level0, fmt, BOTH, reduction)
    assert not run.skipped and not run.validation_messages
    assert [r.strategy for r in run.results] == BOTH
    for res in run.results:
        verdict = judge_volume(res.levels, level0, fmt, reduction, res.sources)
        assert verdict.within_tolerance, (res.strategy, verdict.breaches)
    return run


@pytest.mark.parametrize("size", SIZES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("fmt", [Format.UNORM, Format.F32], ids=lambda f: f.label)
def test_the_mean_of_every_level_is_within_its_promise(gpu, fmt, size):
    level0 = _volume(size, fmt, sum(size))
    run = _judged(gpu, level0, fmt, "mean")
    for res in run.results:
        assert np.array_equal(res.levels[0], level0)  # level 0 read back as uploaded
        assert len(res.levels) == len(volume_pyramid(level0, fmt))


def test_a_large_odd_level_is_made_one_a_dispatch(gpu):
    fmt = Format.UNORM
    run = _judged(gpu, _volume((65, 65, 65), fmt, 4), fmt, "mean")
    tiles = next(r for r in run.results if r.strategy == "volume-tiles")
    assert tiles.plan[0].levels == (1,) and len(tiles.plan[1].levels) > 1


@pytest.mark.parametrize("fmt", [Format.SRGB, Format.F16], ids=lambda f: f.label)
def test_the_mean_in_srgb_and_half(gpu, fmt):
    _judged(gpu, _volume((5, 7, 9), fmt, 3), fmt, "mean")


@pytest.mark.parametrize("reduction", ["min", "max"])
@pytest.mark.parametrize("size", [(5, 7, 9), (33, 33, 33), (32, 32, 32)],
                         ids=["5x7x9", "33x33x33", "32x32x32"])
def test_min_and_max_are_bit_exact(gpu, size, reduction):
    fmt = Format.R32F
    level0 = _volume(size, fmt, 11)
    run = _judged(gpu, level0, fmt, reduction)
    ref = volume_pyramid(level0, fmt, reduction)
    for res in run.results:
        for k, (got, want) in enumerate(zip(res.levels, ref, strict=True)):
            assert np.array_equal(got, want.astype(fmt.dtype)), (res.strategy, k)


#: each reduction with a format lavapipe min/max-filters and one it does not (max is min's
#: code with the other operator, and each (pipeline, format) is a compile on lavapipe)
EVEN_CASES = [(Format.R8, "min"), (Format.R16F, "max"), (Format.UNORM, "max"),
              (Format.SRGB, "min")]


@pytest.mark.parametrize("fmt,reduction", EVEN_CASES,
                         ids=[f"{f.label}-{r}" for f, r in EVEN_CASES])
def test_min_and_max_of_even_volumes_sample_level_0_exactly(gpu, fmt, reduction):
    # volume-tiles reads an even level 0 by one reduction-sampler fetch per 2x2x2 block
    # where the device can min/max filter the format (lavapipe: r8 and r16f, not RGBA8),
    # else by texel loads; either way the extremes are bit-exact, a side of 1 further up too
    sampled = minmax_filterable(gpu.caps, fmt)
    assert sampled == (fmt in (Format.R8, Format.R16F)) or gpu.caps.device_type != "cpu"
    for size in [(16, 32, 8), (64, 4, 32)]:
        level0 = _volume(size, fmt, 7)
        run = run_volume(gpu, level0, fmt, ["volume-tiles"], reduction)
        (res,) = run.results
        said = f"level 1 from {reduction} samples of 2x2x2 blocks" in res.plan[0].detail
        assert said == sampled
        ref = volume_pyramid(level0, fmt, reduction)
        for k, (got, want) in enumerate(zip(res.levels, ref, strict=True)):
            assert np.array_equal(got, want.astype(fmt.dtype)), (size, k)


def test_minmax_takes_the_min_in_r_and_the_max_in_g(gpu):
    fmt = Format.RG32F
    level0 = _volume((5, 7, 9), fmt, 5)
    level0[..., 1] = level0[..., 0]
    run = _judged(gpu, level0, fmt, "minmax")
    ref = volume_pyramid(level0, fmt, "minmax")
    assert (ref[1][..., 1] > ref[1][..., 0]).any()
    for res in run.results:
        assert all(np.array_equal(g, w.astype(fmt.dtype)) for g, w in zip(res.levels, ref,
                                                                            strict=True))


def test_the_verdict_catches_a_wrong_texel_and_a_dropped_tap(gpu):
    fmt = Format.UNORM
    level0 = _volume((5, 7, 9), fmt, 9)
    good = run_volume(gpu, level0, fmt, ["volume-per-level"]).results[0]
    assert judge_volume(good.levels, level0, fmt, "mean", good.sources).within_tolerance
    wrong = [lv.copy() for lv in good.levels]
    wrong[1][1, 2, 0, 0] = (int(wrong[1][1, 2, 0, 0]) + 2) % 256  # 2 LSB off
    verdict = judge_volume(wrong, level0, fmt, "mean", good.sources)
    assert not verdict.within_tolerance and "level 1" in verdict.breaches[0]
    # a min chain that takes two texels per axis on odd sides is not conservative
    ref = volume_pyramid(level0, fmt, "min")
    two = [ref[0].astype(fmt.dtype)]
    for k in range(1, len(ref)):
        below = two[-1]
        d, h, w = ref[k].shape[:3]
        quad = [below[np.ix_(np.minimum(2 * np.arange(d) + dz, below.shape[0] - 1),
                             np.minimum(2 * np.arange(h) + dy, below.shape[1] - 1),
                             np.minimum(2 * np.arange(w) + dx, below.shape[2] - 1))]
                for dz in (0, 1) for dy in (0, 1) for dx in (0, 1)]
        two.append(np.min(quad, axis=0))
    assert not judge_volume(two, level0, fmt, "min").within_tolerance


def test_tiles_make_several_levels_per_dispatch():
    # four levels in many groups while the sides are even, the rest by one group: the last
    # group of the dispatch before where the level it starts from is small (8^3), else its own
    assert [(s.src, s.levels, s.tail, s.groups) for s in plan_steps(256, 256, 256)] \
        == [(0, 4, 0, (16, 16, 16)), (4, 4, 0, (1, 1, 1))]
    assert [(s.src, s.levels, s.tail) for s in plan_steps(128, 128, 128)] == [(0, 4, 3)]
    # odd sides: two levels in overlapping tiles, the rest by the last group; a large odd
    # level one a dispatch (the overlap would recompute 1.4 times its texels)
    assert [(s.src, s.levels, s.tail, s.even) for s in plan_steps(33, 33, 33)] \
        == [(0, 2, 3, False)]
    assert [(s.src, s.levels, s.tail) for s in plan_steps(255, 255, 255)] \
        == [(0, 1, 0), (1, 1, 0), (2, 2, 0), (4, 3, 0)]
    # every plan fits shared memory (plan_steps asserts it) and covers every level once
    rng = np.random.default_rng(0)
    for w, h, d in rng.integers(1, 70, (60, 3)):
        steps = plan_steps(int(w), int(h), int(d))
        made = [level for s in steps for level in s.outputs]
        assert all(s.levels + s.tail <= 8 for s in steps)
        assert made == list(range(1, len(made) + 1))


def test_what_cannot_run_says_why(gpu):
    assert "depth images are 2D" in VolumePerLevel.unsupported_reason(gpu.caps, Format.D32)
    assert "two-channel" in VolumePerLevel.unsupported_reason(gpu.caps, Format.R32F, "minmax")
    with pytest.raises(MipviewError, match="volume strategies: volume-per-level"):
        volume_strategy("per-level")
    big = gpu.caps.max_image_dimension_3d + 1
    with pytest.raises(MipviewError, match="exceeds the device limit"):
        run_volume(gpu, np.zeros((1, 1, big, 4), np.uint8), Format.UNORM, BOTH)


def test_a_level_source_of_three_axes_allows_the_third_axis_arithmetic():
    from mipview.check import bounds

    two = bounds.step_bounds([LevelSource()], Format.F32, 2)[1]
    three = bounds.step_bounds([LevelSource(axes=3)], Format.F32, 2)[1]
    assert two < three < 2 * two


def test_the_api_runs_and_times_a_volume():
    import mipview
    from mipview.io import synthetic

    device = os.environ["MIPVIEW_DEVICE"]  # the tests' device (conftest.py)
    done = mipview.run_volume(synthetic.volume_image(9, 7, 5),
                              "volume-per-level,volume-tiles:reduction=max", repeat=3,
                              device=device)
    assert done.ok and list(done.results) == ["volume-per-level", "volume-tiles:reduction=max"]
    assert done.results["volume-per-level"].timing.total.samples_us
    assert done.verdicts["volume-tiles:reduction=max"].step[0].max_error == 0.0
    with pytest.raises(MipviewError, match="not a volume"):
        mipview.run_volume(synthetic.image(8, 8), device=device)


@pytest.mark.parametrize("fmt", [Format.R8, Format.UNORM, Format.F16], ids=lambda f: f.label)
def test_the_trilinear_mean_is_within_its_own_bound(gpu, fmt):
    # load=trilinear: level 1 of an even first dispatch from one linear sample per 2x2x2
    # block; each of the filter's three stages may round to the format, which its level
    # source says, so the bound of level 1 is three store roundings wider
    level0 = _volume((16, 32, 8), fmt, 5)
    run = run_volume(gpu, level0, fmt, ["volume-tiles"], "mean", "trilinear")
    (res,) = run.results
    assert res.load == "trilinear" and "trilinear samples" in res.plan[0].detail
    assert res.sources[0].bilinear and not any(s.bilinear for s in res.sources[1:])
    verdict = judge_volume(res.levels, level0, fmt, "mean", res.sources)
    assert verdict.within_tolerance, verdict.breaches
    # the same levels judged as if read by texel loads: lavapipe's 8-bit filter rounds at each
    # stage, past the texel loads' bound (float formats it does not)
    texel = judge_volume(res.levels, level0, fmt, "mean",
                         [LevelSource(reread=s.reread, axes=3) for s in res.sources])
    assert texel.within_tolerance == fmt.is_float or gpu.caps.device_type != "cpu"


def test_what_trilinear_loads_cannot_serve_says_why(gpu):
    from mipview.runs.volume import parse_volume_specs

    level0 = _volume((8, 8, 8), Format.SRGB, 1)
    run = run_volume(gpu, level0, Format.SRGB, ["volume-tiles"], "mean", "trilinear")
    assert not run.results and "average the codes" in run.skipped[0][1]
    run = run_volume(gpu, _volume((8, 8, 8), Format.R8, 1), Format.R8, ["volume-tiles"], "min",
                     "trilinear")
    assert not run.results and "only serves reduction=mean" in run.skipped[0][1]
    with pytest.raises(MipviewError, match="volume-per-level takes load=texel, not"):
        parse_volume_specs("volume-per-level:load=trilinear")
    assert parse_volume_specs("volume-tiles:load=trilinear,volume-tiles:reduction=max") == [
        ("volume-tiles", "mean", "trilinear"), ("volume-tiles", "max", "texel")]
