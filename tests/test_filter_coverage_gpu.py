"""per-level's alpha=coverage on the GPU (mipview/gpu/strategies/filter_level.py, mipview/gpu/strategies/filter_coverage.comp)
and the verdict's rule for it (docs/filters.md): each level the exact filter of the stored level
below with its alpha times one scale of the level's own, and level 0's coverage kept within 1%."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from mipview.check import tolerances, verdict
from mipview.check.filter_reference import (
    coverage,
    coverage_scale,
    fit_scale,
    make_level,
    stored_chain,
)
from mipview.core.filters.spec import parse_filter
from mipview.core.formats import Format
from mipview.core.results import TimingSettings
from mipview.core.specs import StrategySpec
from mipview.gpu import strategies  # noqa: F401  (first: filter_level imports the registry)
from mipview.gpu.strategies.filter_level import alpha_test
from mipview.io.samples import sample_path
from tests.gpu_formats import GPU_FORMATS
from tools import build_shaders

#: the filters serve four-channel formats (the others are refused: test_filter_gpu.py)
#: of those, the GPU sweeps' four (tests/gpu_formats.py: every new format costs a compile)
RGBA_FORMATS = GPU_FORMATS


def _foliage(fmt: Format, x: int = 0, y: int = 0, w: int = 256, h: int = 256,
             layers: int = 1) -> np.ndarray:
    """A crop of the bundled cutout sample (layer i shifted by 40 i texels)."""
    img = np.asarray(Image.open(sample_path("foliage_256.png")).convert("RGBA"))
    crops = [np.roll(img, 40 * i, axis=1)[y:y + h, x:x + w] for i in range(layers)]
    out = np.stack(crops) if layers > 1 else crops[0].copy()
    return out if not fmt.is_float else (out / 255.0).astype(fmt.dtype)


def _run(gpu, level0: np.ndarray, fmt: Format, options: dict[str, str]):
    from mipview.gpu.session import Session

    spec = StrategySpec("per-level", tuple(sorted(options.items())))
    with Session(gpu, level0, fmt, [spec]) as s:
        s.generate()
        return s.result().results[0]


def _drift(levels, fmt: Format, cutoff: float) -> list[float]:
    """|coverage - level 0's| of every level the 1% promise covers."""
    c0 = coverage(levels[0], fmt, cutoff)
    return [abs(coverage(lv, fmt, cutoff) - c0) for lv in levels[1:]
            if np.asarray(lv)[..., 0].size >= tolerances.COVERAGE_MIN_TEXELS]


CASES = [({"filter": "tent"}, (96, 104, 64, 48)),
         ({"filter": "kaiser", "cutoff": "0.3"}, (100, 100, 37, 29)),
         ({"filter": "lanczos3", "edge": "wrap"}, (64, 64, 128, 96)),
         ({"filter": "box", "source": "level0"}, (100, 100, 37, 29))]


@pytest.mark.parametrize("fmt", RGBA_FORMATS)
@pytest.mark.parametrize(("options", "crop"), CASES,
                         ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items())
                         if isinstance(c, dict) else "x".join(map(str, c[2:])))
def test_gpu_coverage_keeps_its_promise(gpu, monkeypatch, fmt: Format, options: dict[str, str],
                                        crop: tuple[int, int, int, int]) -> None:
    from mipview.gpu.strategies import filter_level

    level0 = _foliage(fmt, *crop)
    res = _run(gpu, level0, fmt, {"alpha": "coverage", **options})
    assert "alpha=coverage" in res.reduction
    v = verdict.judge_result(res, level0, fmt)
    assert v.within_tolerance, v.summary()
    assert "coverage" in v.rule
    cutoff = float(options.get("cutoff", 0.5))
    assert max(_drift(res.levels, fmt, cutoff), default=0.0) <= tolerances.COVERAGE_BOUND
    # RGB as straight alpha makes it (the colour of a level does not depend on alpha)
    straight = _run(gpu, level0, fmt, options)
    for got, plain in zip(res.levels, straight.levels, strict=True):
        assert np.array_equal(got[..., :3], plain[..., :3])
    # a small level is one dispatch (the histogram's last workgroup stores it): the same bytes
    # as its two dispatches
    labels = [s.label for s in res.plan]
    assert labels[:4] == ["level 0 coverage", "level 1 x", "level 1 y", "level 1 histogram+store"]
    assert len(labels) == 1 + 3 * (len(res.levels) - 1)
    monkeypatch.setattr(filter_level, "FUSED_TEXELS", 0)
    apart = _run(gpu, level0, fmt, {"alpha": "coverage", **options})
    assert [s.label for s in apart.plan][3:5] == ["level 1 histogram", "level 1 store"]
    for got, two in zip(res.levels, apart.levels, strict=True):
        assert np.array_equal(got, two)


def test_gpu_coverage_in_16_bits(gpu) -> None:
    """rgba16 holds 16-bit codes: level 0's alpha test scales alpha by 65535 (mip_common.glsl
    mipUnormOne; by 255 nothing would pass), and the coverage promise holds in its LSB."""
    fmt = Format.RGBA16
    level0 = _foliage(Format.UNORM, 96, 104, 64, 48).astype(np.uint16) * np.uint16(257)
    res = _run(gpu, level0, fmt, {"alpha": "coverage", "filter": "tent"})
    v = verdict.judge_result(res, level0, fmt)
    assert v.within_tolerance and "coverage" in v.rule, v.summary()
    assert 0.1 < coverage(level0, fmt, 0.5) < 0.9
    assert max(_drift(res.levels, fmt, 0.5)) <= tolerances.COVERAGE_BOUND


def test_gpu_coverage_of_an_array_and_of_timed_runs(gpu) -> None:
    """One scale per level over every layer; the histogram and level 0's count are zeroed by
    the passes that read them, so runs recorded back to back (timing) make the same levels."""
    from mipview.gpu.session import Session

    fmt = Format.UNORM
    level0 = _foliage(fmt, 96, 104, 64, 48, layers=2)
    spec = StrategySpec("per-level", (("alpha", "coverage"), ("filter", "tent")))
    with Session(gpu, level0, fmt, [spec]) as s:
        s.generate()
        first = s.result().results[0]
        s.time_with(TimingSettings(repeat=3, warmup_ms=0.0, runs_per_batch=2))
        s.generate()
        again = s.result().results[0]
    v = verdict.judge_result(first, level0, fmt)
    assert v.within_tolerance, v.summary()
    assert max(_drift(first.levels, fmt, 0.5)) <= tolerances.COVERAGE_BOUND
    for a, b in zip(first.levels, again.levels, strict=True):
        assert np.array_equal(a, b)


def test_gpu_histogram_is_the_same_from_fewer_workgroups(gpu, monkeypatch) -> None:
    """The histogram's workgroups take its chunks of 4096 texels in turn (at most
    HISTOGRAM_GROUPS per layer, each merging its bins once): one workgroup per layer taking
    every chunk makes the same levels as one workgroup per chunk."""
    from mipview.gpu.strategies import filter_level

    fmt = Format.UNORM
    level0 = _foliage(fmt, layers=2)  # level 1: 128x128 texels per layer, 4 chunks
    options = {"filter": "tent", "alpha": "coverage"}
    each = _run(gpu, level0, fmt, options)
    monkeypatch.setattr(filter_level, "HISTOGRAM_GROUPS", 1)
    one = _run(gpu, level0, fmt, options)
    groups = [(a.groups, b.groups) for a, b in zip(each.plan, one.plan, strict=True)
              if a.label == "level 1 histogram"]
    assert groups == [((4, 1, 2), (1, 1, 2))]
    for a, b in zip(each.levels, one.levels, strict=True):
        assert np.array_equal(a, b)


def test_the_coverage_rule_fails_on_wrong_results(gpu) -> None:
    fmt = Format.UNORM
    level0 = _foliage(fmt)
    res = _run(gpu, level0, fmt, {"filter": "tent", "alpha": "coverage"})
    name = res.reduction
    assert verdict.judge(res.levels, level0, fmt, name).within_tolerance
    # level 1's alpha scaled by a wrong factor: still one scale of its exact filter, so its
    # step passes; its coverage does not (level 2, made from the right level 1, may fail too)
    raw = make_level(level0, fmt, parse_filter("tent"), res.levels[1].shape[1::-1], 0.0)[0]
    scale = fit_scale(raw[..., 3] / 255, res.levels[1][..., 3] / 255) * 1.15
    wrong = [lv.copy() for lv in res.levels]
    wrong[1][..., 3] = np.rint(np.clip(raw[..., 3] * scale, 0, 255))
    off = verdict.judge(wrong, level0, fmt, name)
    assert not off.within_tolerance
    assert [b.figure for b in off.breaches if b.error.level == 1] == ["coverage"]
    assert "coverage at level 1" in off.summary()
    # one texel's alpha off by 3 LSB: no one scale explains it
    texel = [lv.copy() for lv in res.levels]
    a = texel[2][..., 3]
    i = np.unravel_index(np.argmax((a > 40) & (a < 200)), a.shape)
    a[i] += 3
    bad = verdict.judge(texel, level0, fmt, name)
    assert not bad.within_tolerance and bad.breaches[0].figure == "step"
    # the filter without the scaling: its coverage drifts
    straight = _run(gpu, level0, fmt, {"filter": "tent"})
    assert max(_drift(straight.levels, fmt, 0.5)) > tolerances.COVERAGE_BOUND
    plain = verdict.judge(straight.levels, level0, fmt, name)
    assert not plain.within_tolerance
    assert "coverage" in {b.figure for b in plain.breaches}


def test_the_reference_chain_keeps_the_coverage_rule() -> None:
    for fmt in (Format.UNORM, Format.F16):
        level0 = _foliage(fmt, 64, 64, 128, 96)
        name = "kaiser,alpha=coverage,cutoff=0.3"
        good = [lv.astype(fmt.dtype) for lv in stored_chain(level0, fmt, name)]
        v = verdict.judge(good, level0, fmt, name)
        assert v.within_tolerance, v.summary()
        assert all(b == float("inf") for b in v.chain_bounds[1:])  # the chain is reported


def test_fit_scale_finds_the_scale_a_level_was_given() -> None:
    rng = np.random.default_rng(3)
    raw = rng.random(500) * 0.8
    for s in (0.7, 1.37, 3.0):
        stored = np.rint(np.clip(raw * s, 0, 1) * 255) / 255
        got = fit_scale(raw, stored)
        assert abs(got - s) <= 0.5 / 255 / raw.max() * 1.01
        assert np.abs(np.clip(raw * got, 0, 1) - stored).max() <= 0.5 / 255 + 1e-12
    assert fit_scale(np.zeros(4), np.ones(4)) == 1.0  # nothing depends on the scale


@pytest.mark.parametrize("fmt", [f for f in Format if f.channels == 4 and not f.packing],
                         ids=lambda f: f.label)  # the filters' formats
@pytest.mark.parametrize("cutoff", [0.5, 0.2, 0.3, 1 / 3])
def test_the_level0_alpha_test_is_the_references(fmt: Format, cutoff: float) -> None:
    """filter_coverage.comp counts level 0's passing texels with FC_ALPHA_TEST: the same texels
    as check.filter_reference.coverage, including alphas equal to the cutoff."""
    if fmt.is_float:
        c = np.float32(cutoff)
        alphas = np.array([np.nextafter(c, np.float32(0)), c, np.nextafter(c, np.float32(1)),
                           0.0, 1.0], np.float32).astype(fmt.dtype)
        decoded = alphas.astype(np.float32)
    else:  # every code, as the shader decodes and scales it (a[j] * mipUnormOne())
        alphas = np.arange(int(fmt.one) + 1).astype(fmt.dtype)
        one = np.float32(fmt.one)
        decoded = alphas.astype(np.float32) / one * one
    level = np.zeros((1, alphas.size, 4), fmt.dtype)
    level[..., 3] = alphas
    passing = decoded >= np.float32(alpha_test(fmt, cutoff))
    assert np.count_nonzero(passing) == round(coverage(level, fmt, cutoff) * alphas.size)
    edge = int(np.argmax(passing)) if passing.any() else alphas.size  # 16 bits: near the test
    keep = slice(max(0, edge - 300), edge + 300)
    for a, p in zip(alphas[keep], passing[keep], strict=True):
        texel = np.zeros((1, 1, 4), fmt.dtype)
        texel[..., 3] = a
        assert p == (coverage(texel, fmt, cutoff) == 1.0), a


@pytest.mark.parametrize("cutoff", [0.5, 0.3])
def test_gpu_scale_is_the_references_where_the_gap_is_clear(gpu, cutoff: float) -> None:
    """Level 0 of 2x2 blocks of a few alphas: the box's level 1 holds exactly those alphas, in
    level 0's proportions, so the target count falls in one wide gap; the GPU's threshold (to
    1/4096) and scale are then coverage_scale's, and level 1 the reference's within a rounding
    (1 LSB: 200 * 17/16 is a tie)."""
    rng = np.random.default_rng(9)
    codes = np.array([0, 60, 100, 140, 200, 255], np.uint8)
    blocks = codes[rng.integers(0, codes.size, (24, 32))]
    level0 = np.full((48, 64, 4), 90, np.uint8)
    level0[..., 3] = np.kron(blocks, np.ones((2, 2), np.uint8))
    res = _run(gpu, level0, Format.UNORM, {"filter": "box", "source": "level0",
                                          "alpha": "coverage", "cutoff": str(cutoff)})
    ref = list(stored_chain(level0, Format.UNORM, res.reduction))
    raw = blocks.astype(np.float64) / 255
    assert coverage_scale(raw, coverage(level0, Format.UNORM, cutoff), cutoff) != 1.0
    # another gap would move alpha by tens of LSB; the same one by a rounding at most
    assert np.abs(res.levels[1].astype(int) - ref[1].astype(int)).max() <= 1


def test_the_shaders_constants_are_the_hosts() -> None:
    """filter_coverage.comp's sizes are constants of the GLSL (array sizes); the host plans
    with the same ones (filter_level.py) and the scale pass with the reference's slack."""
    import re

    from mipview.gpu.strategies import filter_level

    text = build_shaders.source("filter_coverage").read_text()
    consts = dict(re.findall(r"const (?:int|float) (\w+) = ([\d.]+);", text))
    assert int(consts["COVERAGE_BINS"]) == filter_level.COVERAGE_BINS
    assert int(consts["HIST_STEPS"]) == filter_level.HISTOGRAM_STEPS
    assert int(consts["COUNT_STEPS"]) == filter_level.COUNT_STEPS
    assert int(consts["STORE_STEPS"]) == filter_level.STORE_STEPS
    assert int(consts["HIST_GROUP"]) == filter_level.COVERAGE_GROUP
    assert int(consts["SCAN_THREADS"]) == filter_level.COVERAGE_GROUP
    assert float(consts["COVERAGE_SLACK"]) == tolerances.COVERAGE_SLACK
    # the buffer: the bins, then one 4-byte word per scalar member
    block = text[text.index("buffer FilterCoverage {"):text.index("} cov;")]
    scalars = re.findall(r"^\s+(?:uint|float) \w+;", block, re.M)
    assert filter_level.COVERAGE_BYTES == 4 * (filter_level.COVERAGE_BINS + len(scalars))
