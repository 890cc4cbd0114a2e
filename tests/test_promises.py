"""What each kind of strategy promises (mipview/check/bounds.py, mipview/check/verdict.py, README "What
correct means"), checked from outside:

- the analysis: the bounds follow from the rounding model (the test derives the expected ones
  from the plans on its own), a correctly rounded stored chain and every chain keeping the step
  promise stay inside the stored chain bound, and the facts the analysis leans on hold;
- every exact strategy and batch way, in every format, on a real photo (crop), on 4097x3
  and 1x4097 noise (all pairs of strip, format and strategy: STRIPS), and on the sizes kept for
  one thing (PLAN_IMAGES): the verdict's bounds are the derived ones, lavapipe's result meets
  them, and the same result one texel just over a bound fails.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from mipview.check import bounds
from mipview.check.compare import texel_errors
from mipview.check.reference import reference_pyramid, step_level, stored_chain
from mipview.check.tolerances import RELATIVE_FLOOR
from mipview.check.verdict import ReferenceCache, judge, judge_result
from mipview.core.formats import Format, decode, encode, mip_count
from mipview.core.results import LevelSource
from mipview.core.specs import StrategySpec
from mipview.gpu.batch import WAYS, BatchSession
from mipview.gpu.batch.packing import TEXEL_WORDS
from mipview.gpu.session import Session
from mipview.io import imageio, synthetic
from tests.gpu_formats import FEW_CHANNEL_FORMATS, GPU_FORMATS
from tests.pairwise import missing_pairs

ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent
TEXEL = [LevelSource()]


# --- the analysis --------------------------------------------------------------------------------
def test_step_bounds_of_the_two_kinds():
    """8-bit: a correctly rounded store is 0.5 LSB plus the float32 arithmetic; a level made from
    carried values starts one store away from the stored level below; a bilinear level adds the
    filter's two roundings; floats: one rounding of the format is < 1 ulp."""
    eps8 = ((1 + 2.0**-24) ** bounds.REDUCE_DEPTH - 1) * 255
    assert 1e-4 < eps8 < 2e-4
    stored, carried, bilinear = LevelSource(), LevelSource(reread=False), LevelSource(bilinear=True)
    steps = bounds.step_bounds([stored, carried, bilinear], Format.UNORM, 4)
    assert steps[0] == 0.0
    assert steps[1] == pytest.approx(0.5 + eps8, abs=1e-9)
    assert steps[2] == pytest.approx(1.0 + eps8, abs=1e-6)
    assert steps[3] == pytest.approx(1.5 + eps8, abs=1e-6)
    f16 = bounds.step_bounds([stored], Format.F16, 2)[1]
    assert 2.0**-10 < f16 < 2.0**-10 + 2.0**-24 / RELATIVE_FLOOR + 1e-6
    assert bounds.step_bounds([stored], Format.F32, 2)[1] < 1e-6
    assert bounds.step_bounds([carried, carried], Format.UNORM, 3, "max") == [0.0] * 3


def test_carried_chain_pays_one_rounding_per_stored_level_it_rereads():
    """Chain of a carried strategy: its own store (0.5 LSB) plus 0.5 LSB for every stored level
    re-read on the way, plus a tiny epsilon; fp16 arithmetic adds 2^-11 per half rounding."""
    chain = bounds.carried_chain_bounds(
        [LevelSource(), LevelSource(reread=False), LevelSource(), LevelSource(reread=False)],
        Format.UNORM, 5)
    assert [round(b, 2) for b in chain] == [0.0, 0.5, 0.5, 1.0, 1.0]
    assert all(b - round(b, 2) < 0.003 for b in chain)
    half = bounds.carried_chain_bounds([LevelSource(half_ops=3)], Format.F16, 2)[1]
    no_half = bounds.carried_chain_bounds([LevelSource()], Format.F16, 2)[1]
    # 2^-11 relative per half rounding, and 2^-25 absolute for subnormal halves (over the floor)
    assert half - no_half == pytest.approx(3 * (2.0**-11 + 2.0**-25 / RELATIVE_FLOOR), rel=0.01)


def _noise(w: int, h: int, fmt: Format, seed: int = 3) -> np.ndarray:
    level0 = synthetic.image(w, h, seed=seed, kind="noise").storage(fmt)
    level0.setflags(write=False)
    return level0


@pytest.mark.parametrize("fmt", list(Format), ids=lambda f: f.label)
def test_any_chain_keeping_the_step_stays_in_the_stored_bound(fmt):
    """The envelope is an upper bound of every chain whose steps keep the stored promise: the
    correctly rounded chain, and chains that break ties / pick float neighbours at random."""
    level0 = _noise(44, 37, fmt)  # even sides: exact ties (x.5 LSB) at level 1
    exact = reference_pyramid(level0, fmt)
    steps = bounds.step_bounds((), fmt, len(exact))
    limit = bounds.stored_chain_bounds(level0, fmt, steps, exact)
    rng = np.random.default_rng(1)

    def random_store(x: np.ndarray, k: int) -> np.ndarray:
        lo, hi = np.floor(x), np.ceil(x)
        if fmt.is_float:
            hi = x.astype(fmt.dtype).astype(np.float64)
            lo = hi.copy()
            up, down = hi < x, hi > x
            hi[up] = np.nextafter(x[up].astype(fmt.dtype), fmt.dtype.type(np.inf))
            lo[down] = np.nextafter(x[down].astype(fmt.dtype), fmt.dtype.type(-np.inf))
            return np.where(rng.random(x.shape) < 0.5, lo, hi).astype(np.float64)
        near_tie = np.abs(x - lo - 0.5) < 1e-4  # within the arithmetic's epsilon of a tie
        rounded = np.rint(x)
        return np.where(near_tie, np.where(rng.random(x.shape) < 0.5, lo, hi), rounded)

    for chain in (list(stored_chain(level0, fmt)), list(stored_chain(level0, fmt, "mean",
                                                                     random_store))):
        for k in range(1, len(exact)):
            assert float(texel_errors(chain[k], exact[k], fmt).max()) <= limit[k] + 1e-12, k
            below = chain[k - 1].astype(fmt.dtype)
            assert float(texel_errors(chain[k], step_level(below, fmt), fmt).max()) <= steps[k]
    # and the bound is reached: it is no looser than the chains that keep the step
    assert max(limit) > 0


def test_the_rounded_chain_rounds_each_level_from_the_stored_one():
    level0 = _noise(9, 7, Format.UNORM)
    chain = list(stored_chain(level0, Format.UNORM))
    assert chain[0] is level0
    for k in range(1, len(chain)):
        expected = np.clip(np.rint(step_level(chain[k - 1].astype(np.uint8), Format.UNORM)), 0, 255)
        np.testing.assert_array_equal(chain[k], expected)


def test_mean_in_linear_light_moves_no_further_than_its_srgb_inputs():
    """What the analysis leans on for sRGB: moving the encoded inputs by at most e moves the
    encoded mean (taken in linear light) by at most e."""
    rng = np.random.default_rng(5)
    a = rng.random((20000, 4, 3)) * 255
    e = rng.random((20000, 1, 1)) * 2
    b = np.clip(a + rng.uniform(-1, 1, a.shape) * e, 0, 255)

    def mean(v: np.ndarray) -> np.ndarray:
        rgba = np.concatenate([v, np.zeros(v.shape[:-1] + (1,))], axis=-1)
        return encode(decode(rgba, Format.SRGB).mean(axis=1), Format.SRGB)[..., :3]

    moved = np.abs(mean(a) - mean(b)).max(axis=-1)
    assert np.all(moved <= e[:, 0, 0] + 1e-9)
    assert moved.max() > 0.5  # not vacuous


# --- every strategy, format and image on lavapipe -----------------------------------------------
def _photo() -> np.ndarray:
    """An even-sided crop of the bundled photo (bilinear loads need even sides of level 0)."""
    return imageio.load(ROOT / "resources" / "photo_npot_1000x750.png").rgba8[211:449, 301:619]


IMAGES = {"photo": None, "4097x3": (4097, 3), "1x4097": (1, 4097), "1921x1079": (1921, 1079),
          "2047x2049": (2047, 2049)}
SPECS = ["per-level", "per-level:load=bilinear", "subgroup", "subgroup:tile=32",
         "subgroup:load=bilinear", "single-pass", "single-pass:load=bilinear",
         "single-pass:fp16=on", "single-pass:fp16=on,load=bilinear", "npot-exact",
         "npot-exact:path=general"]


def _level0(image: str, fmt: Format) -> np.ndarray:
    if image == "photo":
        from mipview.core.formats import to_storage

        level0 = to_storage(_photo().astype(np.float32) / np.float32(255), fmt)
        level0.setflags(write=False)
        return level0
    return _noise(*IMAGES[image], fmt)


def _supported(spec: str, fmt: Format, image: str) -> bool:
    bilinear = "bilinear" in spec
    even = image == "photo"
    return not (fmt.element is Format.F32 and (bilinear or "fp16" in spec)) and (even or not bilinear)


#: the one- and two-channel formats share their element format's arithmetic: two odd images
#: check their channels end to end (tests/gpu_formats.py; test_hiz.py takes r32f further)
FEW_CHANNEL_IMAGES = ("4097x3", "1x4097")
#: r32f (depth) with every strategy's defaults, the others with one per-level and one
#: multi-level strategy (the options' variants are format-independent)
FEW_CHANNEL_SPECS = {Format.R32F: ("per-level", "subgroup", "single-pass", "npot-exact"),
                     Format.RG16F: ("per-level", "single-pass"),
                     Format.R8: ("per-level", "single-pass"),
                     Format.R16: ("per-level", "single-pass"),
                     Format.RGB10A2: ("per-level", "single-pass"),
                     Format.B10G11R11: ("per-level", "single-pass")}
#: the 16-bit and packed formats meet the strips once: their own arithmetic is in the store,
#: which the first strip's every level already checks (each strip is a compile per pipeline)
ONE_STRIP = (Format.R16, Format.RGB10A2, Format.B10G11R11)
#: the sizes kept for one thing, in the formats that thing needs (each (pipeline, format) is a
#: compile on lavapipe): 2047x2049 for the plans (a side just past 2048: tails, tiles,
#: hand-offs), which do not depend on the format, so in UNORM; 1921x1079 for the floats'
#: rounding over a long chain, so in the float formats. The 8-bit formats' rounding is checked on
#: the photo and the strips, which every format takes.
PLAN_IMAGES = {"2047x2049": (Format.UNORM,), "1921x1079": (Format.F16, Format.F32)}
#: the strips in the four formats: each strategy meets each format on one strip, taking turns
#: (strategy i in format f on strip (i + f) % 2), so every pair of strip, format and strategy
#: meets in some case (all pairs, as tests/pairwise.py makes them for larger sweeps) in half
#: the cases and compiles; the photo still runs every strategy in every format
STRIPS = ("4097x3", "1x4097")


def _strip_turn(image: str, fmt: Format, spec: str) -> bool:
    if image not in STRIPS or fmt not in GPU_FORMATS:
        return True
    return (SPECS.index(spec) + GPU_FORMATS.index(fmt)) % 2 == STRIPS.index(image)


CASE_VALUES = [(image, fmt, spec) for image in IMAGES for fmt in Format for spec in SPECS
               if _supported(spec, fmt, image) and _strip_turn(image, fmt, spec)
               and fmt in PLAN_IMAGES.get(image, (fmt,))
               and (fmt in GPU_FORMATS or (fmt in FEW_CHANNEL_FORMATS
                                           and image in FEW_CHANNEL_IMAGES
                                           and spec in FEW_CHANNEL_SPECS[fmt]
                                           and (fmt not in ONE_STRIP or image == "4097x3")))]
CASES = [pytest.param(*case, id=f"{case[0]}-{case[1].label}-{case[2]}") for case in CASE_VALUES]

_RUNS: dict[tuple[str, Format], tuple[np.ndarray, dict, ReferenceCache]] = {}


def _run(gpu, image: str, fmt: Format):
    """One session per image and format, every strategy in it (the slow part, done once)."""
    key = (image, fmt)
    if key not in _RUNS:
        _RUNS.clear()  # one image's references at a time
        level0 = _level0(image, fmt)
        specs = [StrategySpec.parse(s) for i, f, s in CASE_VALUES if (i, f) == key]
        with Session(gpu, level0, fmt, specs) as session:
            session.generate()
            mip = session.result()
        assert not mip.skipped and not mip.validation_messages
        _RUNS[key] = (level0, {str(r.spec): r for r in mip.results}, ReferenceCache())
    return _RUNS[key]


def _rereads(spec: StrategySpec, res) -> list[int]:
    """Per level, stored levels above 0 re-read on the way to it, from the plan alone: every
    npot-exact dispatch samples its source level; subgroup's dispatches read the float scratch
    (none of these sizes has a boundary level over its cap), single-pass's the hand-off."""
    out = [0] * len(res.levels)
    if spec.name != "npot-exact":
        return out
    for step in res.plan:
        first = step.levels[0]
        for level in step.levels:
            out[level] = out[first - 1] + (first > 1)
    return out


def _expected_carried(spec: StrategySpec, res, fmt: Format) -> list[float]:
    """The carried chain bound of texel-load, fp32 configurations from the plan: a store per
    stored level re-read plus its own, and the arithmetic of every level."""
    q = _rereads(spec, res)
    out = [0.0]
    for k in range(1, len(res.levels)):
        b = bounds.EXACT.then(bounds.STORE[fmt], 1 + q[k]).then(bounds.ARITH, k)
        out.append(b.bound(fmt))
    return out


#: one store of each element format, (relative, absolute) in storage units: UNORM correctly
#: rounded (half an LSB), floats to either neighbour (one ulp; the smallest subnormal step), the
#: packed float correctly rounded by the shader (half an ulp of its 5-bit mantissa)
_STORE = {Format.UNORM: (0.0, 0.5), Format.SRGB: (0.0, 0.5), Format.RGBA16: (0.0, 0.5),
          Format.RGB10A2: (0.0, 0.5), Format.F16: (2.0**-10, 2.0**-24),
          Format.F32: (2.0**-23, 2.0**-149), Format.B10G11R11: (2.0**-6, 2.0**-20)}


def _expected_steps(sources, fmt: Format, n: int) -> list[float]:
    """Per level, each rounding in turn taking a value v to v (1 + r) + a: its input's store
    unless re-read, 12 float32 roundings in depth (4 more per further axis), a bilinear sample's
    store per axis, a half operation's 2^-11 each, and its own store; relative errors count
    from RELATIVE_FLOOR, UNORM ones in LSB."""
    store = _STORE[fmt.element]
    out = [0.0]
    for src in list(sources) or [LevelSource()] * (n - 1):
        steps = ([] if src.reread else [store]) + [(2.0**-24, 0.0)] * (12 + 4 * (src.axes - 2))
        steps += [store] * (src.axes if src.bilinear else 0)
        steps += [(2.0**-11, 2.0**-25)] * src.half_ops + [store]
        rel = abs_ = 0.0
        for r, a in steps:
            rel, abs_ = (1 + rel) * (1 + r) - 1, abs_ * (1 + r) + a
        out.append(rel + abs_ / RELATIVE_FLOOR if fmt.is_float else rel * fmt.one + abs_)
    return out


def test_expected_steps_tell_the_sources_apart():
    """The test's own sum of the model matches bounds.step_bounds on every kind of level, and
    differs where the verdict would have been given other sources."""
    kinds = [LevelSource(), LevelSource(reread=False), LevelSource(bilinear=True),
             LevelSource(half_ops=3), LevelSource(reread=False, axes=3)]
    for fmt in (Format.UNORM, Format.F16, Format.F32, Format.B10G11R11):
        derived = bounds.step_bounds(kinds, fmt, len(kinds) + 1)
        assert derived == pytest.approx(_expected_steps(kinds, fmt, len(kinds) + 1), rel=1e-12)
        flipped = [replace(k, reread=not k.reread) for k in kinds]
        assert derived != pytest.approx(_expected_steps(flipped, fmt, len(kinds) + 1), rel=1e-12)
    # one float32 rounding less in depth is seen too
    assert bounds.step_bounds(kinds[:1], Format.UNORM, 2)[1] != pytest.approx(
        _expected_steps(kinds[:1], Format.UNORM, 2)[1] - 255 * 2.0**-24, rel=1e-12)


def _just_over(level: np.ndarray, ref: np.ndarray, bound: float, fmt: Format,
               at: tuple[int, ...]) -> np.ndarray:
    """``level`` with the texel ``at`` moved to the nearest stored value more than ``bound`` from
    ``ref`` there."""
    out = level.copy()
    x = float(ref[at])
    if fmt.is_float:
        v = fmt.dtype.type(x + bound * max(abs(x), RELATIVE_FLOOR))
        while abs(float(v) - x) / max(abs(x), RELATIVE_FLOOR) <= bound:
            v = np.nextafter(v, fmt.dtype.type(np.inf))
    else:
        v = math.floor(x + bound) + 1 if x + bound < fmt.one - 1 else math.ceil(x - bound) - 1
    out[at] = v
    return out


def test_the_strips_meet_every_pair_of_strip_format_and_strategy():
    cases = {c for c in CASE_VALUES if c[0] in STRIPS and c[1] in GPU_FORMATS}
    every = [(i, f, s) for i in STRIPS for f in GPU_FORMATS for s in SPECS if _supported(s, f, i)]
    assert missing_pairs(cases, every) == set()
    assert len(cases) < len(every)


@pytest.mark.parametrize("image, fmt, spec_text", CASES)
def test_each_strategy_keeps_its_derived_promise(gpu, image, fmt, spec_text):
    level0, results, refs = _run(gpu, image, fmt)
    res = results[spec_text]
    spec = res.spec
    v = judge_result(res, level0, fmt, refs)
    n = len(res.levels)
    assert len(v.step_bounds) == len(v.chain_bounds) == n == mip_count(level0.shape[1],
                                                                       level0.shape[0])

    # the bounds are the derived ones: the rounding model, summed here to first order from the
    # sources the result declares (test_a_result_carries_sources_that_match_its_plan)
    assert v.step_bounds == pytest.approx(_expected_steps(res.sources, fmt, n), rel=1e-12)
    if res.promise == "stored":
        assert spec.name == "per-level"
        assert all(s.reread for s in res.sources)
        exact = refs.get(level0, fmt, "mean")
        rounded = list(stored_chain(level0, fmt))
        for k in range(1, n):  # at least what a correctly rounded chain reaches
            assert v.chain_bounds[k] >= float(texel_errors(rounded[k], exact[k], fmt).max())
    else:
        assert res.promise == "carried"
        if "bilinear" not in spec_text and "fp16" not in spec_text:
            expected = _expected_carried(spec, res, fmt)
            assert v.chain_bounds == pytest.approx(expected, rel=1e-4, abs=1e-12)
        if "fp16" in spec_text:  # half arithmetic on top of what the fp32 pipeline gets
            fp32 = judge_result(results[spec_text.replace("fp16=on,", "").replace(
                ":fp16=on", "")], level0, fmt, refs)
            assert all(a >= b for a, b in zip(v.chain_bounds, fp32.chain_bounds, strict=True))
    if "bilinear" in spec_text:  # the filter's two roundings at level 1
        assert res.sources[0].bilinear
        assert v.step_bounds[1] > bounds.step_bounds(TEXEL, fmt, 2)[1] + 1.5 * (
            bounds.STORE[fmt].bound(fmt))

    # lavapipe's result keeps it
    assert v.within_tolerance, v.summary()

    # and one texel just over a bound breaks it
    k = n // 2
    at = (0, 0, 0)
    exact = refs.get(level0, fmt, "mean")
    levels = list(res.levels)
    levels[k] = _just_over(levels[k], exact[k], v.chain_bounds[k], fmt, at)
    bad = judge(levels, level0, fmt, res.reduction, None, refs, res.promise, res.sources)
    assert any(b.error.level == k and b.figure == "chain" for b in bad.breaches), bad.summary()
    levels = list(res.levels)
    below = step_level(levels[k - 1], fmt)
    levels[k] = _just_over(levels[k], below, v.step_bounds[k], fmt, at)
    bad = judge(levels, level0, fmt, res.reduction, None, refs, res.promise, res.sources)
    assert any(b.error.level == k and b.figure == "step" for b in bad.breaches), bad.summary()


@pytest.mark.parametrize("fmt", list(TEXEL_WORDS), ids=lambda f: f.label)  # batches: RGBA
def test_batch_ways_keep_the_stored_promise(gpu, fmt):
    """The batch ways re-read every stored level (batch_reduce.comp decodes in the shader, so
    sRGB keeps it too): held to the stored promise on the same images, and broken one texel
    over its chain bound."""
    level0 = [_level0(name, fmt) for name in ("photo", "4097x3", "1x4097", "1921x1079")]
    with BatchSession(gpu, level0, fmt, WAYS) as session:
        session.generate()
        result = session.result()
    assert all(w.identical for w in result.ways) and not result.skipped
    for chain, src in zip(result.levels, level0, strict=True):
        v = judge(chain, src, fmt, promise="stored")
        assert v.within_tolerance, v.summary()
        assert v.step_bounds == tuple(bounds.step_bounds((), fmt, len(chain)))
    chain, src = list(result.levels[0]), level0[0]
    k = len(chain) // 2
    limit = judge(chain, src, fmt).chain_bounds[k]
    chain[k] = _just_over(chain[k], reference_pyramid(src, fmt)[k], limit, fmt, (0, 0, 0))
    bad = judge(chain, src, fmt)
    assert any(b.error.level == k and b.figure == "chain" for b in bad.breaches), bad.summary()


def test_a_result_carries_sources_that_match_its_plan(gpu):
    """Every level has a source, and a dispatch's first level is the only one that can re-read
    a stored level."""
    level0 = _noise(300, 130, Format.UNORM)
    specs = [StrategySpec.parse(s) for s in ("per-level", "subgroup", "single-pass",
                                             "npot-exact", "single-pass:fp16=on")]
    with Session(gpu, level0, Format.UNORM, specs) as session:
        session.generate()
        mip = session.result()
    for res in mip.results:
        assert len(res.sources) == len(res.levels) - 1, res.spec
        firsts = {step.levels[0] for step in res.plan}
        assert all(level in firsts for level, s in enumerate(res.sources, start=1) if s.reread)
    fp16 = next(r for r in mip.results if str(r.spec) == "single-pass:fp16=on")
    assert any(s.half_ops for s in fp16.sources)
    assert not any(s.half_ops for r in mip.results if r is not fp16 for s in r.sources)
    # the verdict refuses sources that do not fit the levels
    with pytest.raises(ValueError, match="level sources"):
        judge(fp16.levels, level0, Format.UNORM, promise="carried", sources=fp16.sources[1:])
    assert replace(fp16, sources=()).sources == ()


@pytest.mark.parametrize("fmt", [Format.F32, Format.F16], ids=lambda f: f.label)
def test_signed_float_texels_are_judged_relative_to_what_their_sums_round(gpu, fmt):
    """Negative texels cancel in a sum, whose rounding is relative to the sum of |texels|: a
    result may be far off relative to its own small value and still correct. Errors are taken
    relative to the mean of |texels| (compare.magnitude_below, the chain of |level 0|), where
    the bounds hold; a texel just over that bound still fails."""
    from mipview.check.compare import magnitude_below

    rng = np.random.default_rng(11)
    level0 = (rng.random((45, 61, 4)) * 2.0 - 0.5).astype(fmt.dtype)  # [-0.5, 1.5)
    specs = [StrategySpec("per-level"), StrategySpec("subgroup"), StrategySpec("single-pass"),
             StrategySpec("npot-exact")]
    refs = ReferenceCache()
    with Session(gpu, level0, fmt, specs) as session:
        session.generate()
        mip = session.result()
    for res in mip.results:
        v = judge_result(res, level0, fmt, refs)
        assert v.within_tolerance, f"{res.spec}: {v.summary()}"
    res = mip.results[0]
    v = judge_result(res, level0, fmt, refs)
    k = 2
    levels = list(res.levels)
    below = step_level(levels[k - 1], fmt)
    mag = magnitude_below(levels[k - 1], fmt, "mean")
    assert mag is not None and (mag >= np.abs(below) - 1e-12).all() and (mag > np.abs(below)).any()
    # the texel where cancellation is largest, pushed just past the bound in those units
    at = np.unravel_index(int(np.argmax(mag / np.fmax(np.abs(below), RELATIVE_FLOOR))),
                          below.shape)
    x, m = float(below[at]), max(float(mag[at]), RELATIVE_FLOOR)
    bad = levels[k].copy()
    bad[at] = fmt.dtype.type(x + 2.0 * v.step_bounds[k] * m + np.spacing(fmt.dtype.type(x)))
    verdict = judge([*levels[:k], bad, *levels[k + 1:]], level0, fmt, "mean", None, refs,
                    res.promise, res.sources)
    assert any(b.error.level == k and b.figure == "step" for b in verdict.breaches)
