"""Per-level error figures."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from mipview.check.compare import (
    ErrorReport,
    chain_errors,
    difference_map,
    error_map,
    error_report,
    format_worst,
    level_errors,
    step_errors,
    texel_errors,
)
from mipview.check.reference import blit_reference, reference_pyramid
from mipview.check.tolerances import TOLERANCE, chain_tolerance
from mipview.core.formats import Format


def rounded_chain(src: np.ndarray, fmt: Format) -> list[np.ndarray]:
    """What a good 8-bit GPU strategy stores: the exact chain, rounded once per level."""
    return [np.rint(lv).astype(np.uint8) for lv in reference_pyramid(src, fmt)]


@pytest.fixture
def src() -> np.ndarray:
    return np.random.default_rng(21).integers(0, 256, (19, 26, 4), dtype=np.uint8)


def test_tolerance_table() -> None:
    assert TOLERANCE[Format.UNORM] == (1.0, 2.0)
    assert TOLERANCE[Format.SRGB] == (1.0, 2.0)
    assert TOLERANCE[Format.F16] == (1e-3, 2e-3)
    assert TOLERANCE[Format.F32] == (1e-5, 1e-5)
    assert set(TOLERANCE) == set(Format)


def test_planted_error_found(src: np.ndarray) -> None:
    gpu = rounded_chain(src, Format.UNORM)
    ref = [lv.astype(np.float64) for lv in gpu]
    level, y, x, ch = 2, 2, 5, 1
    gpu[level][y, x, ch] = 7 if gpu[level][y, x, ch] < 128 else gpu[level][y, x, ch] - 7
    planted = abs(float(gpu[level][y, x, ch]) - ref[level][y, x, ch])
    errs = level_errors(gpu, ref, Format.UNORM)
    assert [e.level for e in errs] == list(range(len(gpu)))
    assert [e.max_error for e in errs if e.level != level] == [0.0] * (len(gpu) - 1)
    e = errs[level]
    assert (e.width, e.height) == (6, 4)
    assert e.worst == (0, y, x, ch)
    assert e.max_error == planted
    assert e.mean_error == pytest.approx(planted / (6 * 4 * 4))
    assert e.psnr == pytest.approx(10 * math.log10(255.0**2 / (planted**2 / (6 * 4 * 4))))
    assert format_worst(e) == f"level 2 (x=5, y=2, ch 1): {planted:.3g} LSB"
    heat = error_map(gpu[level], ref[level], Format.UNORM)
    assert heat.dtype == np.float32 and heat.shape == (4, 6)
    assert heat[y, x] == planted and np.count_nonzero(heat) == 1


def test_planted_error_in_a_layer() -> None:
    rng = np.random.default_rng(3)
    layers = rng.integers(0, 256, (3, 8, 12, 4), dtype=np.uint8)
    gpu = rounded_chain(layers, Format.SRGB)
    ref = [lv.astype(np.float64) for lv in gpu]
    gpu[1][2, 3, 1, 3] ^= 0x10  # layer 2, y=3, x=1, alpha: off by 16
    errs = level_errors(gpu, ref, Format.SRGB)
    assert errs[1].worst == (2, 3, 1, 3)
    assert errs[1].max_error == 16.0
    assert errs[1].layers == 3
    assert format_worst(errs[1]) == "level 1 (layer 2, x=1, y=3, ch 3): 16 LSB"
    assert error_map(gpu[1], ref[1], Format.SRGB).shape == (3, 4, 6)


def test_identical_levels(src: np.ndarray) -> None:
    gpu = rounded_chain(src, Format.UNORM)
    errs = level_errors(gpu, gpu, Format.UNORM)
    for e in errs:
        assert e.max_error == 0.0 and e.mean_error == 0.0
        assert e.psnr == math.inf
    d = errs[0].as_dict()
    assert d["psnr"] == "inf"
    assert json.loads(json.dumps(d, allow_nan=False))["worst"] == {
        "layer": 0, "y": 0, "x": 0, "channel": 0}


def test_psnr_of_one_lsb_everywhere() -> None:
    a = np.full((4, 4, 4), 100, np.uint8)
    e = level_errors([a], [np.full((4, 4, 4), 101.0)], Format.UNORM)[0]
    assert e.max_error == e.mean_error == 1.0
    assert e.psnr == pytest.approx(20 * math.log10(255.0))


def test_relative_error_for_floats() -> None:
    ref = np.array([[[1.0, 1e-3, 0.0, -2.0]]])
    a = np.array([[[1.001, 2e-3, 1e-6, -2.002]]], np.float32)
    err = texel_errors(a, ref, Format.F32)[0, 0]
    # |a-r| / max(|r|, 1e-3): the floor keeps r = 0 from dividing by zero
    np.testing.assert_allclose(err, [1e-3, 1.0, 1e-3, 1e-3], rtol=1e-4)
    e = level_errors([a], [ref], Format.F32)[0]
    assert e.worst == (0, 0, 0, 1)
    assert e.unit == "relative"
    assert format_worst(e).endswith("1.00e+00 relative")
    # PSNR for floats uses absolute differences and a peak of max(1, max|ref|) = 2
    mse = np.mean((a.astype(np.float64) - ref) ** 2)
    assert e.psnr == pytest.approx(10 * math.log10(4.0 / mse))
    # the same absolute difference is a large LSB error only in 8-bit units
    assert texel_errors(np.array([[[3, 3, 3, 3]]], np.uint8), np.full((1, 1, 4), 2.5),
                        Format.UNORM).max() == 0.5


def test_non_finite_values() -> None:
    ref = np.array([[[np.inf, np.nan, 1.0, 2.0]]])
    a = np.array([[[np.inf, np.nan, np.nan, np.inf]]], np.float16)
    err = texel_errors(a, ref, Format.F16)[0, 0]
    assert list(err) == [0.0, 0.0, math.inf, math.inf]


def test_good_pyramids_pass(src: np.ndarray) -> None:
    for fmt in (Format.UNORM, Format.SRGB):
        report = error_report(rounded_chain(src, fmt), fmt)
        assert report.max_step <= 1.0 and report.max_chain <= 0.5 + 1e-9
        assert report.within_tolerance(fmt)
    f = np.random.default_rng(2).random((19, 26, 4)).astype(np.float32)
    for fmt in (Format.F16, Format.F32):
        levels = [lv.astype(fmt.dtype) for lv in reference_pyramid(f.astype(fmt.dtype), fmt)]
        report = error_report(levels, fmt)
        assert report.within_tolerance(fmt), (report.max_step, report.max_chain)


def test_null_pyramid_fails(src: np.ndarray) -> None:
    gpu = rounded_chain(src, Format.UNORM)
    null = [gpu[0]] + [np.full_like(lv, 255) for lv in gpu[1:]]
    report = error_report(null, Format.UNORM)
    assert not report.within_tolerance(Format.UNORM)
    assert report.max_chain > 100

    f = src.astype(np.float16) / np.float16(255)
    nan = [f] + [np.full(lv.shape, np.nan, np.float16) for lv in reference_pyramid(f, Format.F16)[1:]]
    report = error_report(nan, Format.F16)
    assert not report.within_tolerance(Format.F16)
    assert report.max_step == math.inf and report.max_chain == math.inf
    assert report.chain[1].psnr == -math.inf
    json.dumps(report.as_dict(Format.F16), allow_nan=False)


def test_blit_on_npot_fails_chain_but_passes_pot(src: np.ndarray) -> None:
    blit = [lv.astype(np.uint8) for lv in blit_reference(src, Format.UNORM)]
    assert not error_report(blit, Format.UNORM).within_tolerance(Format.UNORM)
    pot = src[:16, :16]
    blit = [lv.astype(np.uint8) for lv in blit_reference(pot, Format.UNORM)]
    report = error_report(blit, Format.UNORM)
    assert report.max_step <= 0.5 + 1e-9
    assert report.within_tolerance(Format.UNORM)


def test_step_and_chain_differ(src: np.ndarray) -> None:
    # corrupting level 1 shows up in level 1's step and chain error, but level 2's step error
    # only measures level 2's own arithmetic: it stays small
    gpu = rounded_chain(src, Format.UNORM)
    gpu[1] = np.clip(gpu[1].astype(int) + 9, 0, 255).astype(np.uint8)
    gpu[2] = np.rint(reference_pyramid(gpu[1], Format.UNORM)[1]).astype(np.uint8)
    step = step_errors(gpu, Format.UNORM)
    chain = chain_errors(gpu, Format.UNORM)
    assert step[1].max_error >= 8 and chain[1].max_error >= 8
    assert step[2].max_error <= 0.5 + 1e-9
    assert chain[2].max_error >= 5


def test_shared_chain_reference_catches_bad_level0(src: np.ndarray) -> None:
    chain_ref = reference_pyramid(src, Format.UNORM)
    gpu = rounded_chain(src, Format.UNORM)
    gpu[0] = gpu[0].copy()
    gpu[0][0, 0, 0] ^= 0x80  # a broken upload
    report = error_report(gpu, Format.UNORM, chain_reference=chain_ref)
    assert report.chain[0].max_error == 128.0
    assert report.step[0].max_error == 0.0  # step takes the GPU's level 0 as given


def test_report_dict(src: np.ndarray) -> None:
    report = error_report(rounded_chain(src, Format.UNORM), Format.UNORM)
    assert isinstance(report, ErrorReport)
    d = json.loads(json.dumps(report.as_dict(Format.UNORM), allow_nan=False))
    assert d["within_tolerance"] is True
    assert d["unit"] == "LSB" and d["step_tolerance"] == 1.0 and d["chain_tolerance"] == [2.0] * 5
    assert len(d["step"]) == len(d["chain"]) == 5
    assert set(d["step"][1]) >= {"level", "width", "height", "max_error", "mean_error", "psnr",
                                 "worst"}
    assert "within_tolerance" not in report.as_dict()


def test_float_chain_tolerance_grows_one_ulp_per_stored_level() -> None:
    assert chain_tolerance(Format.UNORM, 12) == 2.0
    assert chain_tolerance(Format.F16, 1) == 2e-3
    assert chain_tolerance(Format.F16, 10) == pytest.approx(10 * 2.0**-10)
    chain = [np.full((2 >> k or 1, 2 >> k or 1, 4), 1.0) for k in range(2)]
    bad = [chain[0], chain[1] * (1 + 3e-3)]
    assert not error_report(bad, Format.F16).within_tolerance(Format.F16)


def test_difference_map_between_strategies(src: np.ndarray) -> None:
    a = rounded_chain(src, Format.UNORM)[1]
    b = a.copy()
    b[1, 2] = np.clip(b[1, 2].astype(int) + [0, 3, -5, 0], 0, 255)
    d = difference_map(a, b, Format.UNORM)
    assert d.shape == a.shape[:2] and d.dtype == np.float32
    assert d[1, 2] == np.abs(a[1, 2].astype(int) - b[1, 2].astype(int)).max()
    assert np.count_nonzero(d) == 1


def test_mismatches_raise(src: np.ndarray) -> None:
    gpu = rounded_chain(src, Format.UNORM)
    with pytest.raises(ValueError, match="levels"):
        level_errors(gpu, gpu[:-1], Format.UNORM)
    with pytest.raises(ValueError, match="shape"):
        error_map(gpu[1], gpu[2], Format.UNORM)


def _plain_level_error(a: np.ndarray, ref: np.ndarray, fmt: Format, level: int):
    """Figures and map of one level straight from texel_errors (no short cut)."""
    err = texel_errors(a, ref, fmt)
    e4 = err if err.ndim == 4 else err[None]
    flat = int(np.argmax(e4))
    return (float(e4.flat[flat]), float(e4.mean()),
            tuple(int(i) for i in np.unravel_index(flat, e4.shape)),
            err.max(axis=-1).astype(np.float32))


@pytest.mark.parametrize("fmt", list(Format), ids=lambda f: f.label)
@pytest.mark.parametrize("equal", [False, True], ids=["differs", "equal"])
def test_level_error_map_is_level_error_and_error_map(src: np.ndarray, fmt: Format,
                                                      equal: bool) -> None:
    from mipview.check.compare import level_error, level_error_map

    rng = np.random.default_rng(4)
    a = src.astype(fmt.dtype) if fmt.is_float else src
    layered = np.stack([a, a[::-1]])
    for level in (a, layered):
        ref = level.astype(np.float64) if equal else \
            level.astype(np.float64) + rng.normal(0, 0.7, level.shape)
        figures, emap = level_error_map(level, ref, fmt, 2)
        assert figures == level_error(level, ref, fmt, 2)
        assert np.array_equal(emap, error_map(level, ref, fmt)) and emap.dtype == np.float32
        mx, mean, worst, plain_map = _plain_level_error(level, ref, fmt, 2)
        assert (figures.max_error, figures.worst) == (mx, worst)
        assert figures.mean_error == mean
        assert np.array_equal(emap, plain_map) and emap.shape == level.shape[:-1]
        assert (figures.max_error == 0.0) == equal


def test_report_with_maps_reuses_level_one_only_when_level_zero_came_back(src) -> None:
    fmt = Format.SRGB
    chain = reference_pyramid(src, fmt)
    gpu = rounded_chain(src, fmt)
    with_maps = error_report(gpu, fmt, chain, maps=True)
    assert with_maps == error_report(gpu, fmt, chain)  # the same figures
    assert with_maps.step == error_report(gpu, fmt).step  # and the step from the GPU's levels
    assert [m.tobytes() for m in with_maps.maps] == \
        [m.tobytes() for m in error_maps_of(gpu, chain, fmt)]
    assert error_report(gpu, fmt, chain).maps == ()

    # level 0 came back changed: level 1's step reference is the reduction of the changed level
    bad = list(gpu)
    bad[0] = gpu[0].copy()
    bad[0][:4, :4] = 255 - bad[0][:4, :4]
    report = error_report(bad, fmt, chain, maps=True)
    assert report.chain[0].max_error > 0
    assert report.step == tuple(step_errors(bad, fmt))
    assert report.step[1].max_error != with_maps.step[1].max_error


def error_maps_of(levels, ref, fmt):
    return [error_map(a, r, fmt) for a, r in zip(levels, ref, strict=True)]


def test_signed_error_keeps_the_sign_per_channel() -> None:
    from mipview.check.compare import signed_error

    a = np.zeros((2, 3, 4), np.uint8)
    ref = np.zeros((2, 3, 4), np.float64)
    a[0, 0] = (10, 20, 30, 40)
    ref[0, 0] = (12.5, 20, 29, 40)
    got = [signed_error(a, ref, Format.UNORM, c)[0, 0] for c in range(4)]
    assert got == [-2.5, 0.0, 1.0, 0.0]  # LSB, signed
    assert signed_error(a, ref, Format.UNORM, 0).shape == (2, 3)
    # floats: relative to the reference, with the floor; equal non-finite values count 0
    f = np.array([[[0.5, np.inf, np.nan, 2e-4]]], np.float32)
    r = np.array([[[0.4, np.inf, np.nan, 0.0]]], np.float64)
    got = [float(signed_error(f, r, Format.F32, c)[0, 0]) for c in range(4)]
    assert got[0] == pytest.approx(0.25, rel=1e-6) and got[1:3] == [0.0, 0.0]
    assert got[3] == pytest.approx(0.2, rel=1e-5)
    nan_vs_number = signed_error(f, np.zeros_like(r), Format.F32, 2)
    assert np.isnan(nan_vs_number[0, 0])


def test_memo_reuses_a_level_stored_alike_and_nothing_else(src) -> None:
    """error_report's memo: figures and heatmaps of a level whose bytes (and the bytes below)
    another pyramid had are that one's, computed once; a changed level, or a changed level
    below (its step), is computed again; every figure equals the report without a memo."""
    from mipview.check.compare import digest

    fmt = Format.UNORM
    chain = reference_pyramid(src, fmt)
    a = rounded_chain(src, fmt)
    b = list(a)
    b[2] = a[2].copy()
    b[2][0, 0, 0] ^= 1  # one LSB off at level 2: levels 2 (chain, step) and 3 (step) differ
    kept: dict = {}
    made: list = []

    def memo(key, make):
        if key not in kept:
            made.append(key)
            kept[key] = make()
        return kept[key]

    for levels in (a, b):
        got = error_report(levels, fmt, chain, maps=True, memo=memo)
        want = error_report(levels, fmt, chain, maps=True)
        assert got == want
        assert [m.tobytes() for m in got.maps] == [m.tobytes() for m in want.maps]
        assert not any(m.flags.writeable for m in got.maps)  # shared: read-only
    n = len(a)
    assert len(made) > 2 * (n - 1)  # a: every level above 0, chain and step; then b
    again = made[2 * (n - 1):]
    assert sorted((k[0], k[2] if k[0] == "step" else k[3]) for k in again) == \
        [("chain", 2), ("step", 2), ("step", 3)]
    assert digest(b[2]) != digest(a[2]) and digest(a[1]) == digest(a[1].copy())
    # the own-reference figures (a blit's) through the same memo
    blit = blit_reference(src, fmt)
    assert level_errors(a, blit, fmt, memo, "blit") == level_errors(a, blit, fmt)
    assert ("levels", "blit", 1, digest(a[1])) in kept


def test_max_error_in_bands_is_the_maximum(src, monkeypatch) -> None:
    from mipview.check.compare import max_error
    from mipview.core import bands

    monkeypatch.setattr(bands, "MIN_ELEMENTS", 16)  # bands even on a small level
    fmt = Format.F16
    ref = reference_pyramid(src.astype(np.float16), fmt)[1]
    level = ref.astype(np.float16)
    level[-1, -1, 2] = np.nan  # in the last band
    assert max_error(level, ref, fmt) == texel_errors(level, ref, fmt).max() == np.inf
    level[-1, -1, 2] = 0.0
    assert max_error(level, ref, fmt) == texel_errors(level, ref, fmt).max(initial=0.0)
