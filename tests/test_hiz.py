"""Hi-Z pyramids: min and max reductions over each texel's whole footprint (2 or 3 source
texels per axis), bit-exact against the reference and so conservative at every size, in the
one- and two-channel formats depth and render targets use as in RGBA."""

from __future__ import annotations

import numpy as np
import pytest

from mipview.check.reference import reference_pyramid
from mipview.check.verdict import judge, judge_result
from mipview.core.formats import Format, level_size, mip_count
from mipview.core.specs import StrategySpec
from mipview.gpu.session import run_once
from mipview.gpu.strategies.sampler_minmax import SamplerMinmax

#: 64x40: even sides, so the tile strategies read level 0 by gather (gather_mode)
SIZES = [(1, 1), (3, 3), (37, 1), (64, 40), (4097, 3), (1921, 1079)]
STRATEGIES = ("per-level", "single-pass", "sampler-minmax", "npot-exact", "subgroup",
              "register-chain")
#: formats Vulkan requires min/max filtering of where samplerFilterMinmax is supported
MINMAX_REQUIRED = (Format.R32F,)


def _level0(w: int, h: int, fmt: Format, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if fmt.is_float:  # depth-like values, negative and large too
        values = (rng.random((h, w, 4)) * 8.0 - 2.0).astype(fmt.dtype)
    else:
        values = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
    return fmt.unpack(fmt.pack(values))


#: (reduction, format) cases: min everywhere; max is min's code with the other operator
#: (mipExtreme), so a per-level and a multi-level strategy in the depth format carry it, and sRGB
#: (stored bytes, never decoded) goes with min. Each (pipeline, format) is a compile on lavapipe.
CASES = [("min", Format.R32F, STRATEGIES), ("max", Format.R32F, ("per-level", "single-pass",
                                                                  "sampler-minmax")),
         ("min", Format.SRGB, ("per-level", "single-pass", "npot-exact", "subgroup"))]


@pytest.mark.parametrize(("reduction", "fmt", "names"), CASES,
                         ids=[f"{r}-{f.label}" for r, f, _ in CASES])
def test_min_and_max_are_bit_exact_at_every_size(gpu, fmt, reduction, names):
    specs = [StrategySpec.parse(f"{s}:reduction={reduction}") for s in names]
    if fmt not in MINMAX_REQUIRED:  # a device may not min/max-filter it: then it says so
        why = SamplerMinmax.unsupported_reason(gpu.caps, fmt, 8, 8)
        specs = [s for s in specs if s.name != "sampler-minmax"] if why else specs
        assert why is None or "cannot be min/max filtered" in why
    for i, (w, h) in enumerate(SIZES):
        if w * h > 1 << 16 and fmt is not Format.R32F:
            continue  # the render-target size in the depth format; small odd ones in both
        level0 = _level0(w, h, fmt, i)
        mip = run_once(gpu, level0, fmt, specs)
        assert not mip.skipped and not mip.validation_messages
        ref = reference_pyramid(level0, fmt, reduction)
        for res in mip.results:
            assert res.reduction == reduction
            for k, (got, want) in enumerate(zip(res.levels, ref, strict=True)):
                assert np.array_equal(got, want.astype(fmt.dtype)), (str(res.spec), w, h, k)
            assert judge_result(res, level0, fmt).within_tolerance


def _two_taps(level0: np.ndarray, op) -> list[np.ndarray]:
    """A min/max chain that takes 2 texels per axis even on odd sides (a previous-power-of-two
    sampler chain does): it drops the third texel, so it is not conservative."""
    out = [level0]
    h, w = level0.shape[:2]
    for k in range(1, mip_count(w, h)):
        below = out[-1]
        dw, dh = level_size(w, h, k)
        xs = np.minimum(np.arange(dw) * 2, below.shape[1] - 1)
        ys = np.minimum(np.arange(dh) * 2, below.shape[0] - 1)
        x1 = np.minimum(xs + 1, below.shape[1] - 1)
        y1 = np.minimum(ys + 1, below.shape[0] - 1)
        quad = [below[np.ix_(yy, xx)] for yy in (ys, y1) for xx in (xs, x1)]
        out.append(op.reduce(np.stack(quad), axis=0))
    return out


@pytest.mark.parametrize("reduction", ["min", "max"])
def test_a_chain_that_drops_the_third_texel_is_caught(reduction):
    fmt = Format.R32F
    level0 = _level0(37, 23, fmt, 7)
    op = np.minimum if reduction == "min" else np.maximum
    exact = reference_pyramid(level0, fmt, reduction)
    assert judge([lv.astype(fmt.dtype) for lv in exact], level0, fmt, reduction).within_tolerance
    verdict = judge(_two_taps(level0, op), level0, fmt, reduction)
    assert not verdict.within_tolerance and verdict.failing_levels[0] == 1


def test_min_max_options_say_why_not_with_filters_and_bilinear(gpu):
    from mipview.gpu.strategies.per_level import PerLevel

    why = PerLevel.unsupported_reason(gpu.caps, Format.R32F, 64, 64, 1,
                                      {"reduction": "min", "load": "bilinear"})
    assert why is not None and "reduction=mean" in why
    why = PerLevel.unsupported_reason(gpu.caps, Format.F32, 64, 64, 1,
                                      {"reduction": "max", "filter": "lanczos3"})
    assert why is not None and "no filter options" in why


def test_a_nan_tap_is_dropped_and_a_nan_footprint_stays(gpu):
    """min and max drop a NaN tap (minNum/maxNum: the reference's fmin and SPIR-V's NMin, which
    tools/build_shaders.py makes of GLSL's min and max, whose NaN is undefined and on lavapipe
    depended on the operands' order); a footprint of NaN alone stays NaN. sampler-minmax
    reduces in the sampler, which Vulkan leaves NaN to (lavapipe's is off where a 2x2 quad holds
    NaN): its verdict says so."""
    fmt = Format.R32F
    level0 = _level0(37, 19, fmt, 9)
    level0[5, 7, 0] = level0[18, 36, 0] = level0[0, 3, 0] = np.nan  # lone NaN taps
    level0[2:5, 10:13, 0] = np.nan  # level 1's (5, 1) sees NaN alone (3x3: odd sides)
    specs = [StrategySpec.parse(f"{s}:reduction={r}") for s in STRATEGIES
             for r in ("min", "max") if r == "min" or s in CASES[1][2]]
    mip = run_once(gpu, level0, fmt, specs)
    assert not mip.skipped and not mip.validation_messages
    for res in mip.results:
        ref = reference_pyramid(level0, fmt, res.reduction)
        assert np.isnan(ref[1][..., 0]).sum() == 1 and np.isnan(ref[1][1, 5, 0])
        same = all(np.array_equal(got, want.astype(fmt.dtype), equal_nan=True)
                   for got, want in zip(res.levels, ref, strict=True))
        verdict = judge_result(res, level0, fmt).within_tolerance
        if res.spec.name == "sampler-minmax":  # the device's sampler: the verdict tells
            assert same == verdict, str(res.spec)
        else:
            assert same and verdict, str(res.spec)
    ref = [lv.astype(fmt.dtype) for lv in reference_pyramid(level0, fmt, "min")]
    kept = [lv.copy() for lv in ref]  # a lone NaN tap kept (IEEE 754-2019 minimum)
    kept[1][3, 4, 0] = np.nan
    lost = [lv.copy() for lv in ref]  # the NaN footprint given a value
    lost[1][1, 5, 0] = 0.5
    for chain in (kept, lost):
        assert not judge(chain, level0, fmt, "min").within_tolerance


MINMAX_SIZES = [(1, 1), (3, 3), (37, 1), (64, 40), (1921, 1079)]


def test_minmax_is_min_in_r_and_max_in_g_bit_exact(gpu):
    """rg32f min+max pyramids: R the footprint's min, G its max, at every size; a depth opened
    in rg32f holds its value in both channels, as the last level shows (min <= max)."""
    fmt = Format.RG32F
    # register-chain's minmax is its min with mipExtreme's third code (test above)
    names = ["per-level", "single-pass", "npot-exact", "subgroup", "sampler-minmax"]
    if SamplerMinmax.unsupported_reason(gpu.caps, fmt, 8, 8, 1, {"reduction": "minmax"}):
        names.pop()  # Vulkan does not require min/max filtering of rg32f (lavapipe lacks it)
    specs = [StrategySpec.parse(f"{s}:reduction=minmax") for s in names]
    for i, (w, h) in enumerate(MINMAX_SIZES):
        depth = _level0(w, h, fmt, 20 + i)
        depth[..., 1] = depth[..., 0]
        mip = run_once(gpu, depth, fmt, specs)
        assert not mip.skipped and not mip.validation_messages
        ref = reference_pyramid(depth, fmt, "minmax")
        lo = reference_pyramid(depth, fmt, "min")
        hi = reference_pyramid(depth, fmt, "max")
        for k in range(len(ref)):  # the two-channel chain is the min chain and the max chain
            assert np.array_equal(ref[k][..., 0], lo[k][..., 0])
            assert np.array_equal(ref[k][..., 1], hi[k][..., 1])
        for res in mip.results:
            assert res.reduction == "minmax"
            for k, (got, want) in enumerate(zip(res.levels, ref, strict=True)):
                assert np.array_equal(got, want.astype(fmt.dtype)), (str(res.spec), w, h, k)
            assert judge_result(res, depth, fmt).within_tolerance
    # a chain that swapped the channels' roles is caught
    swapped = [lv[..., [1, 0, 2, 3]].astype(fmt.dtype) for lv in ref]
    assert not judge(swapped, depth, fmt, "minmax").within_tolerance


def test_minmax_says_it_takes_two_channels(gpu):
    from mipview.gpu.strategies.npot_exact import NpotExact
    from mipview.gpu.strategies.per_level import PerLevel
    from mipview.gpu.strategies.register_chain import RegisterChain
    from mipview.gpu.strategies.single_pass import SinglePass
    from mipview.gpu.strategies.subgroup import Subgroup

    for cls in (PerLevel, SinglePass, SamplerMinmax, NpotExact, Subgroup, RegisterChain):
        why = cls.unsupported_reason(gpu.caps, Format.R32F, 64, 64, 1, {"reduction": "minmax"})
        assert why is not None and "two-channel format (rg32f, rg16f, rg8, d32-rg32f)" in why, cls.name


def test_depth_names_follow_the_depth_convention():
    from mipview.gpu.strategies.specs import expand_specs

    for reversed_z, nearest, farthest in ((False, "min", "max"), (True, "max", "min")):
        specs = expand_specs("per-level:reduction=nearest,single-pass:reduction=farthest",
                             reversed_z)
        assert [s.option_dict["reduction"] for s in specs] == [nearest, farthest]
