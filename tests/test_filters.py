"""Filters and texture kinds (mipview.core.filters): tap tables, the exact references,
cross-checks with Pillow, edge modes on hand-made images, kinds, and their verdict."""

from __future__ import annotations

from dataclasses import fields

import numpy as np
import pytest
from PIL import Image

from mipview.check import bounds, verdict
from mipview.check.compare import texel_errors
from mipview.check.filter_reference import (
    coverage,
    filtered_pyramid,
    level_stats,
    named_reference,
    normal_map_problem,
    stored_chain,
)
from mipview.check.reference import reduce_level, reference_pyramid
from mipview.core.filters.kernels import FILTER_NAMES, kernel
from mipview.core.filters.resample import EDGES, Taps, apply_axis, axis_taps
from mipview.core.filters.spec import FilterSpec, from_options, idle_options, parse_filter
from mipview.core.formats import Format, level_size
from mipview.gpu.strategies import REGISTRY

SIZES = [(1, 1), (2, 1), (3, 1), (8, 4), (9, 4), (13, 6), (64, 32), (63, 31), (64, 8), (27, 3)]


def partition_problem(taps: Taps, n: int) -> str | None:
    """Why a tap table is not a partition of unity over [0, n), or None."""
    if taps.index.min() < 0 or taps.index.max() >= n:
        return "index outside the source"
    worst = float(np.abs(taps.weight.sum(axis=1) - 1.0).max())
    return None if worst < 1e-12 else f"rows sum {worst:g} away from 1"


@pytest.mark.parametrize("name", FILTER_NAMES)
@pytest.mark.parametrize("edge", EDGES)
def test_every_tap_table_is_a_partition_of_unity(name: str, edge: str) -> None:
    for n, d in SIZES:
        assert partition_problem(axis_taps(n, d, kernel(name), edge), n) is None, (n, d)


def test_partition_check_catches_a_broken_table() -> None:
    good = axis_taps(9, 4, kernel("lanczos3"), "wrap")
    broken = Taps(good.index, good.weight * 1.001)
    assert "rows sum" in partition_problem(broken, 9)
    assert "outside" in partition_problem(Taps(good.index + 1, good.weight), 9)


@pytest.mark.parametrize("n", [2, 7, 8, 9, 31, 64, 65])
def test_box_taps_are_the_exact_odd_size_rule(n: int) -> None:
    rng = np.random.default_rng(n)
    a = rng.random((1, n, 4))  # one row: reduce_level reduces x only
    taps = axis_taps(n, max(1, n // 2), kernel("box"))
    np.testing.assert_allclose(apply_axis(a, -2, taps), reduce_level(a), rtol=0, atol=1e-14)


@pytest.mark.parametrize("fmt", list(Format))
def test_default_box_pyramid_is_todays_reference_bit_for_bit(fmt: Format) -> None:
    rng = np.random.default_rng(1)
    level0 = (rng.random((13, 22, 4)) * fmt.scale).astype(fmt.dtype) if not fmt.is_float else \
        rng.random((13, 22, 4)).astype(fmt.dtype)
    ours = filtered_pyramid(level0, fmt, FilterSpec())
    for a, b in zip(ours, reference_pyramid(level0, fmt), strict=True):
        assert np.array_equal(a, b)
    assert np.array_equal(named_reference("mean", level0, fmt)[-1], ours[-1])


def _pillow(img: np.ndarray, size: tuple[int, int], resample: Image.Resampling) -> np.ndarray:
    return np.asarray(Image.fromarray(img.astype(np.float32), "F").resize(size, resample),
                      dtype=np.float64)


def _ours(img: np.ndarray, size: tuple[int, int], name: str) -> np.ndarray:
    h, w = img.shape
    x = apply_axis(img[:, :, None], 1, axis_taps(w, size[0], kernel(name)))
    return apply_axis(x, 0, axis_taps(h, size[1], kernel(name)))[:, :, 0]


@pytest.mark.parametrize(("name", "resample"), [
    ("lanczos3", Image.Resampling.LANCZOS), ("catmull-rom", Image.Resampling.BICUBIC),
    ("tent", Image.Resampling.BILINEAR)])
@pytest.mark.parametrize(("src", "dst"), [((64, 48), (32, 24)), ((63, 47), (31, 23)),
                                          ((64, 64), (16, 16))])
def test_matches_pillow_away_from_borders(name: str, resample: Image.Resampling,
                                          src: tuple[int, int], dst: tuple[int, int]) -> None:
    img = np.random.default_rng(2).random((src[1], src[0]))
    margin = int(np.ceil(kernel(name).radius)) + 1
    inner = (slice(margin, -margin), slice(margin, -margin))
    ours, theirs = _ours(img, dst, name)[inner], _pillow(img, dst, resample)[inner]
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=2e-6)


def test_pillow_bicubic_is_catmull_rom_not_mitchell() -> None:
    img = np.random.default_rng(3).random((48, 64))
    theirs = _pillow(img, (32, 24), Image.Resampling.BICUBIC)[4:-4, 4:-4]
    assert np.abs(_ours(img, (32, 24), "mitchell")[4:-4, 4:-4] - theirs).max() > 1e-3


def _row(values: np.ndarray) -> np.ndarray:
    return values[:, None]


@pytest.mark.parametrize("name", ["tent", "lanczos3", "catmull-rom", "kaiser"])
@pytest.mark.parametrize("n", [16, 17, 9])
def test_wrap_is_the_filter_of_the_tiled_image(name: str, n: int) -> None:
    row = np.random.default_rng(n).random(n)
    d = n // 2
    wrapped = apply_axis(_row(row), 0, axis_taps(n, d, kernel(name), "wrap"))
    tiled = np.concatenate([row] * 5)
    middle = apply_axis(_row(tiled), 0, axis_taps(5 * n, 5 * d, kernel(name)))[2 * d:3 * d]
    np.testing.assert_allclose(wrapped, middle, atol=1e-13)
    clamped = apply_axis(_row(row), 0, axis_taps(n, d, kernel(name), "clamp"))
    assert np.abs(clamped - middle).max() > 1e-6  # the check tells the edges apart


@pytest.mark.parametrize("name", ["tent", "lanczos3", "catmull-rom"])
@pytest.mark.parametrize("n", [16, 17])
def test_mirror_is_the_filter_of_the_reflected_image(name: str, n: int) -> None:
    row = np.random.default_rng(n + 1).random(n)
    d = n // 2
    mirrored = apply_axis(_row(row), 0, axis_taps(n, d, kernel(name), "mirror"))
    period = np.concatenate([row, row[::-1]])
    long = np.concatenate([period] * 3)  # row starts at 2n: a whole period on either side
    middle = apply_axis(_row(long), 0, axis_taps(6 * n, 6 * d, kernel(name)))[2 * d:3 * d]
    np.testing.assert_allclose(mirrored, middle, atol=1e-13)


def test_hand_made_edges_of_a_tent() -> None:
    # 8 -> 4, tent: taps 1/8 3/8 3/8 1/8 around u = 2i + 1; a lone 1 at texel 7
    row = _row(np.eye(8)[7])
    get = {e: apply_axis(row, 0, axis_taps(8, 4, kernel("tent"), e))[:, 0] for e in EDGES}
    np.testing.assert_allclose(get["clamp"], [0, 0, 0, 0.5])
    np.testing.assert_allclose(get["mirror"], [0, 0, 0, 0.5])
    np.testing.assert_allclose(get["wrap"], [0.125, 0, 0, 0.375])


def test_level0_source_differs_from_the_chain_except_pot_box() -> None:
    level0 = (np.random.default_rng(4).random((32, 32, 4)) * 255).astype(np.uint8)
    for name in ("mean", "box,source=level0"):
        assert parse_filter(name).name == name
    chain = named_reference("mean", level0, Format.UNORM)
    slow = named_reference("box,source=level0", level0, Format.UNORM)
    np.testing.assert_allclose(slow[-1], chain[-1], atol=1e-9)
    fast = named_reference("lanczos3", level0, Format.UNORM)
    slow = named_reference("lanczos3,source=level0", level0, Format.UNORM)
    assert np.abs(fast[3] - slow[3]).max() > 0.5


def test_spec_names_round_trip_and_ranges_are_checked() -> None:
    spec = FilterSpec("kaiser", "mirror", "level0", "coverage", "colour", 4.0, 6.0, 0.3)
    assert parse_filter(spec.name) == spec
    assert from_options({"filter": "kaiser", "edge": "mirror", "source": "level0",
                         "alpha": "coverage", "kaiser-width": "4", "kaiser-alpha": "6",
                         "cutoff": "0.3"}) == spec
    with pytest.raises(ValueError, match=r"kaiser-width must be in \[1, 8\]"):
        FilterSpec("kaiser", kaiser_width=20.0)
    with pytest.raises(ValueError, match=r"cutoff must be in \(0, 1\)"):
        FilterSpec(alpha="coverage", cutoff=1.0)
    with pytest.raises(ValueError, match="edge must be one of clamp, wrap, mirror"):
        parse_filter("tent,edge=border")


def idle_mismatches(cls, idle_of) -> list[str]:
    """Where ``idle_of(options)`` (what the Setup panel greys out) is wrong for ``cls``: an
    option it names that changes the filter when set to another choice, or one it leaves out
    that does not. Every filter and alpha choice, the other options at their defaults."""
    spec_fields = {f.name.replace("_", "-") for f in fields(FilterSpec)}
    options = {o.name: o for o in cls.options}
    choices = {o.name: o.choices for o in cls.options}
    defaults = {o.name: o.default for o in cls.options}
    wrong = []
    for filt in choices["filter"]:
        for alpha in choices.get("alpha", (None,)):
            base = {**defaults, "filter": filt, **({"alpha": alpha} if alpha else {})}
            idle = idle_of(base)
            for name in spec_fields & set(choices):
                # a numeric option offers one choice (cutoff): try another value it accepts
                others = [v for v in (*choices[name], "0.3")
                          if v != base[name] and options[name].problem(v) is None]
                assert others, name
                changes = any(cls.filter_spec({**base, name: v}) != cls.filter_spec(base)
                              for v in others)
                if changes == (name in idle):
                    wrong.append(f"{name} with {base}: {'idle' if name in idle else 'in play'}")
    return wrong


@pytest.mark.parametrize("name", ["per-level", "filter-pairs"])
def test_an_option_is_idle_exactly_where_it_changes_nothing(name: str) -> None:
    cls = REGISTRY[name]
    assert idle_mismatches(cls, cls.idle_options) == []
    # the check itself: nothing said idle, or the source said idle, is caught
    assert any("kaiser-width" in m for m in idle_mismatches(cls, lambda o: {}))
    if name == "per-level":
        assert any(m.startswith("source") for m in idle_mismatches(
            cls, lambda o: {**cls.idle_options(o), "source": "never"}))


def test_idle_options_say_what_they_need() -> None:
    assert idle_options({"filter": "box", "edge": "wrap", "kaiser-width": "4",
                         "alpha": "straight", "cutoff": "0.3"}) == {
        "edge": "filter other than box", "kaiser-width": "filter=kaiser",
        "cutoff": "alpha=coverage"}
    assert idle_options({"filter": "kaiser", "edge": "wrap", "kaiser-width": "4",
                         "alpha": "coverage", "cutoff": "0.3"}) == {}


def test_negative_lobes_clamped_for_8_bit_only() -> None:
    step = np.zeros((16, 16, 4))
    step[:, 8:] = 1.0
    f16 = named_reference("lanczos3", step.astype(np.float16), Format.F16)[1]
    assert f16.min() < -1e-3 and f16.max() > 1.0 + 1e-3
    u8 = named_reference("lanczos3", (step * 255).astype(np.uint8), Format.UNORM)[1]
    assert u8.min() == 0.0 and u8.max() == 255.0


def test_premultiplied_alpha_keeps_transparent_colour_out() -> None:
    img = np.zeros((8, 8, 4), np.uint8)
    img[:, :4] = (255, 0, 0, 0)      # transparent red
    img[:, 4:] = (0, 255, 0, 255)    # opaque green
    straight = named_reference("tent", img, Format.UNORM)[1]
    pm = named_reference("tent,alpha=premultiplied", img, Format.UNORM)[1]
    mixed = (slice(None), 1)  # straddles the boundary
    assert straight[mixed][:, 0].min() > 10          # red bled into the edge texels
    assert pm[mixed][:, 0].max() == 0.0 and pm[mixed][:, 1].min() == 255.0


def _cutout(n: int = 128) -> np.ndarray:
    rng = np.random.default_rng(5)
    alpha = rng.random((n, n))
    for _ in range(3):  # blur into leaves-sized blobs
        alpha = (alpha + np.roll(alpha, 1, 0) + np.roll(alpha, 1, 1) + np.roll(alpha, -1, 0)
                 + np.roll(alpha, -1, 1)) / 5
    alpha = np.clip((alpha - alpha.mean()) * 12 + 0.4, 0, 1)
    img = np.empty((n, n, 4), np.uint8)
    img[..., :3] = 90
    img[..., 3] = np.rint(alpha * 255)
    return img


def coverage_drift(levels: list[np.ndarray], fmt: Format, cutoff: float,
                   min_texels: int = 256) -> float:
    """Largest |coverage - level 0's| over levels with at least ``min_texels`` texels (1% of a
    smaller level is less than one texel)."""
    c0 = coverage(levels[0], fmt, cutoff)
    return max((abs(coverage(lv, fmt, cutoff) - c0) for lv in levels[1:]
                if lv.shape[0] * lv.shape[1] >= min_texels), default=0.0)


@pytest.mark.parametrize("name", ["box", "tent", "lanczos3", "kaiser"])
def test_coverage_is_kept_within_one_percent_after_rounding(name: str) -> None:
    img = _cutout()
    kept = list(stored_chain(img, Format.UNORM, f"{name},alpha=coverage,cutoff=0.5"))
    assert coverage_drift(kept, Format.UNORM, 0.5) <= 0.01
    plain = list(stored_chain(img, Format.UNORM, "mean" if name == "box" else name))
    assert coverage_drift(plain, Format.UNORM, 0.5) > 0.01  # the check can fail
    stats = level_stats(img, Format.UNORM, parse_filter(f"{name},alpha=coverage"))
    assert abs(stats[1].coverage - stats[0].coverage) <= 0.01


def _normal_map(n: int = 32) -> np.ndarray:
    rng = np.random.default_rng(6)
    v = rng.normal(size=(n, n, 3)) * 0.5
    v[..., 2] = 1.0
    v /= np.linalg.norm(v, axis=-1, keepdims=True)
    img = np.full((n, n, 4), 255, np.uint8)
    img[..., :3] = np.rint((v * 0.5 + 0.5) * 255)
    return img


def test_normal_maps_are_renormalised_and_report_shortening() -> None:
    img = _normal_map()
    assert normal_map_problem(img, Format.UNORM) is None
    noise = (np.random.default_rng(7).random((32, 32, 4)) * 255).astype(np.uint8)
    assert "does not look like a normal map" in normal_map_problem(noise, Format.UNORM)
    spec = parse_filter("tent,kind=normal")
    levels = filtered_pyramid(img, Format.UNORM, spec)
    for lv in levels[1:]:
        n = lv[..., :3] / 255 * 2 - 1
        np.testing.assert_allclose(np.linalg.norm(n, axis=-1), 1.0, atol=1e-12)
    stats = level_stats(img, Format.UNORM, spec)
    assert all(s.length_min <= s.length_mean < 1.0 for s in stats[1:])
    plain = filtered_pyramid(img, Format.UNORM, parse_filter("tent"))[1][..., :3] / 255 * 2 - 1
    assert np.linalg.norm(plain, axis=-1).mean() < 0.99  # without renormalising: shorter


@pytest.mark.parametrize("fmt", [Format.UNORM, Format.SRGB, Format.F16])
@pytest.mark.parametrize("name", ["lanczos3,edge=wrap", "kaiser,source=level0", "tent,edge=mirror"])
def test_verdict_holds_a_filter_to_its_own_reference(fmt: Format, name: str) -> None:
    rng = np.random.default_rng(8)
    raw = rng.random((24, 20, 4))
    level0 = (raw * 255).astype(np.uint8) if not fmt.is_float else raw.astype(fmt.dtype)
    good = [lv.astype(fmt.dtype) for lv in stored_chain(level0, fmt, name)]
    v = verdict.judge(good, level0, fmt, reduction=name)
    assert v.within_tolerance, v.summary()
    assert max(v.step_bounds) < (1.0 if not fmt.is_float else 0.1)  # still meaningful
    bad = list(good)
    bad[2] = bad[2].copy()
    if fmt.is_float:
        bad[2][0, 0, 0] += np.float16(0.05)
    else:
        bad[2][0, 0, 0] = (int(bad[2][0, 0, 0]) + 2) % 256
    assert not verdict.judge(bad, level0, fmt, reduction=name).within_tolerance
    box = [lv.astype(fmt.dtype) for lv in stored_chain(level0, fmt, "mean")]
    assert not verdict.judge(box, level0, fmt, reduction=name).within_tolerance


def test_bundled_samples_of_each_kind() -> None:
    from mipview.io.samples import SAMPLES, sample_path

    for name in ("tiling_256.png", "foliage_256.png", "normal_256.png"):
        stored = np.asarray(Image.open(sample_path(name)).convert("RGBA"))
        assert np.array_equal(stored, np.asarray(SAMPLES[name]().convert("RGBA"))), name
    normal = np.asarray(Image.open(sample_path("normal_256.png")).convert("RGBA"))
    assert normal_map_problem(normal, Format.UNORM) is None
    foliage = np.asarray(Image.open(sample_path("foliage_256.png")).convert("RGBA"))
    kept = list(stored_chain(foliage, Format.UNORM, "tent,alpha=coverage"))
    assert coverage_drift(kept, Format.UNORM, 0.5) <= 0.01
    assert coverage_drift(list(stored_chain(foliage, Format.UNORM, "tent")), Format.UNORM,
                          0.5) > 0.01
    tiling = np.asarray(Image.open(sample_path("tiling_256.png")).convert("RGBA"))
    wrap = named_reference("lanczos3,edge=wrap", tiling, Format.UNORM)[1]
    shifted = named_reference("lanczos3,edge=wrap", np.roll(tiling, 64, axis=1),
                              Format.UNORM)[1]
    np.testing.assert_allclose(np.roll(wrap, 32, axis=1), shifted, atol=1e-9)  # seamless


def _tap_sum(a: np.ndarray, w: int, h: int, name: str, dtype: type) -> np.ndarray:
    """The filter as filter_level.comp sums it, in ``dtype`` arithmetic and weights."""
    kern = parse_filter(name).kernel
    tx, ty = axis_taps(a.shape[1], w, kern), axis_taps(a.shape[0], h, kern)
    low = [Taps(t.index, t.weight.astype(dtype)) for t in (tx, ty)]
    return apply_axis(apply_axis(a.astype(dtype), 1, low[0]), 0, low[1])


@pytest.mark.parametrize("name", ["lanczos3", "kaiser", "catmull-rom"])
def test_filter_arith_bounds_float32_tap_sums(name: str) -> None:
    from mipview.check.bounds import filter_arith

    a = np.random.default_rng(9).random((64, 96, 4))
    exact = _tap_sum(a, 48, 32, name, np.float64)
    budget = filter_arith(name, Format.UNORM, (96, 64), 1).abs / 255.0  # in linear units
    f32 = np.abs(_tap_sum(a, 48, 32, name, np.float32) - exact).max()
    assert 0 < f32 <= budget
    f16 = np.abs(_tap_sum(a, 48, 32, name, np.float16) - exact).max()
    assert f16 > budget  # a coarser arithmetic breaks it: the bound is not vacuous


def test_a_lobed_filters_chain_is_held_to_the_propagated_bound() -> None:
    """Negative lobes make a filter non-monotone, so the envelope of the highest and lowest
    stored chains bounds nothing (on the H200 a Kaiser chain left it by 0.24 LSB with every step
    within 0.5 LSB): the chain is held to e_k <= L1_k e_(k-1) + step_k instead."""
    rng = np.random.default_rng(7)
    fmt, name = Format.UNORM, "lanczos3"
    level0 = (rng.random((37, 53, 4)) * 255).round().astype(np.uint8)
    ref = named_reference(name, level0, fmt)
    n = len(ref)
    assert bounds.lobe_gains(name, (53, 37), n) is not None  # negative lobes: not monotone
    assert bounds.lobe_gains("tent", (53, 37), n) is None
    steps = [0.0] + [1.0] * (n - 1)
    allowed = bounds.stored_chain_bounds(level0, fmt, steps, ref, name)

    def errors(store) -> list[float]:
        chain = list(stored_chain(level0, fmt, name, store))
        return [float(texel_errors(c, r, fmt).max()) for c, r in zip(chain, ref, strict=True)]

    # every level within 1 LSB of the filter of the stored level below: floor or ceiling at random
    within = errors(lambda x, k: np.clip(np.where(rng.random(x.shape) < 0.5, np.floor(x),
                                                  np.ceil(x)), 0, 255))
    assert all(e <= b for e, b in zip(within, allowed, strict=True)), (within, allowed)
    # level 2 stored 5 LSB high: past what its step allows, and past the bound
    past = errors(lambda x, k: np.clip(np.floor(x) + (5 if k == 2 else 0), 0, 255))
    assert past[2] > allowed[2]


@pytest.mark.parametrize("name", ["lanczos3", "kaiser,edge=wrap", "lanczos3,source=level0",
                                  "tent", "mitchell"])
def test_lobe_gains_and_the_propagated_bound_agree_with_the_tap_tables(name: str) -> None:
    """lobe_gains builds each level's tap tables once for both answers (a negative weight
    anywhere, and each level's L1); both as computed from the tables level by level."""
    size, n, spec = (53, 37), 6, parse_filter(name)
    tables = []
    for k in range(1, n):
        src = size if spec.source == "level0" else level_size(*size, k - 1)
        dst = level_size(*size, k)
        tables.append([axis_taps(s, d, spec.kernel, spec.edge) for s, d in zip(src, dst, strict=True)])
    lobed = any((t.weight < 0).any() for pair in tables for t in pair)
    gains = bounds.lobe_gains(name, size, n)
    assert (gains is not None) == lobed
    assert lobed == (name != "tent")  # the filters' lobes, as their kernels have them
    if not lobed:
        return
    l1 = [float(np.prod([np.abs(t.weight).sum(axis=1).max() for t in pair])) for pair in tables]
    assert min(l1) > 1.0  # a negative lobe makes a row's sum of |w| exceed its sum, 1
    want_gains = [0.0] * (n - 1) if spec.source == "level0" else l1
    assert gains == pytest.approx(want_gains, rel=1e-15)
    steps = [0.0, 0.5, 0.75, 1.0, 0.5, 0.25]
    want, e = [0.0], 0.0
    for k in range(1, n):
        e = (0.0 if spec.source == "level0" else l1[k - 1] * e) + steps[k]
        want.append(e)
    assert bounds.propagated_chain_bounds(gains, steps) == pytest.approx(want, rel=1e-15)
