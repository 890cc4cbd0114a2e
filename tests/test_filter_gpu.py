"""per-level's filter options on the GPU (mipview/gpu/strategies/filter_level.py, mipview/gpu/strategies/filter_level.comp):
every filter, edge, source and kind checked against its own exact reference by the verdict."""

from __future__ import annotations

import numpy as np
import pytest

from mipview.check import verdict
from mipview.check.filter_reference import step_of
from mipview.core.formats import Format
from mipview.core.specs import StrategySpec
from mipview.gpu import strategies
from mipview.gpu.strategies.specs import BadSpec, expand_specs
from tests.gpu_formats import GPU_FORMATS
from tests.pairwise import pairs_params

#: the filters serve four-channel formats (the others are refused: test_filter_gpu.py)
#: of those, the GPU sweeps' four (tests/gpu_formats.py: every new format costs a compile)
RGBA_FORMATS = GPU_FORMATS

CASES = [
    {"filter": "lanczos3", "edge": "wrap"},
    {"filter": "kaiser", "source": "level0"},
    {"filter": "tent", "edge": "mirror"},
    {"filter": "mitchell"},
    {"filter": "catmull-rom", "edge": "wrap", "source": "level0"},
    {"filter": "lanczos2", "alpha": "premultiplied"},
    {"filter": "lanczos4", "kind": "normal"},
    {"filter": "box", "source": "level0"},
    {"filter": "kaiser", "kaiser-width": "2", "kaiser-alpha": "8", "edge": "mirror"},
]


def _level0(fmt: Format, kind: str, rng: np.random.Generator, w: int = 21,
            h: int = 34) -> np.ndarray:
    raw = rng.random((h, w, 4))
    if kind == "normal":
        v = rng.normal(size=(h, w, 3)) * 0.4
        v[..., 2] = 1.0
        raw[..., :3] = v / np.linalg.norm(v, axis=-1, keepdims=True) * 0.5 + 0.5
    return (raw * 255).astype(np.uint8) if not fmt.is_float else raw.astype(fmt.dtype)


def _run(gpu, level0: np.ndarray, fmt: Format, options: dict[str, str]):
    from mipview.gpu.session import Session

    spec = StrategySpec("per-level", tuple(sorted(options.items())))
    with Session(gpu, level0, fmt, [spec]) as s:
        s.generate()
        return s.result().results[0]


@pytest.mark.parametrize("fmt", RGBA_FORMATS)
@pytest.mark.parametrize("options", CASES, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_each_filter_keeps_its_promise(gpu, fmt: Format, options: dict[str, str]) -> None:
    level0 = _level0(fmt, options.get("kind", "colour"), np.random.default_rng(len(options)))
    if options.get("kind") == "normal" and fmt.is_srgb:
        # normal maps are linear: the run refuses the strategy, with the reason, and goes on
        from mipview.gpu.session import Session

        spec = StrategySpec("per-level", tuple(sorted(options.items())))
        with Session(gpu, level0, fmt, [spec]) as s:
            s.generate()
            mip = s.result()
        assert not mip.results
        assert list(mip.skipped) == [
            (spec, "kind=normal: a normal map is stored linearly, not as sRGB")]
        return
    res = _run(gpu, level0, fmt, options)
    assert res.reduction != "mean"
    v = verdict.judge_result(res, level0, fmt)
    assert v.within_tolerance, v.summary()
    if not fmt.is_float:  # correctly rounded: 0.5 LSB and the float32 sums' bound
        assert v.exact.max_step <= max(v.step_bounds)


def test_the_verdict_tells_filters_apart(gpu) -> None:
    fmt = Format.UNORM
    level0 = _level0(fmt, "colour", np.random.default_rng(1))
    res = _run(gpu, level0, fmt, {"filter": "lanczos3"})
    as_box = verdict.judge(res.levels, level0, fmt, "mean", promise="stored")
    assert not as_box.within_tolerance
    worse = [lv.copy() for lv in res.levels]
    worse[1][0, 0, 0] ^= 3
    assert not verdict.judge(worse, level0, fmt, res.reduction).within_tolerance


def test_default_box_keeps_its_shader_and_plan(gpu) -> None:
    level0 = _level0(Format.UNORM, "colour", np.random.default_rng(2), 16, 8)
    res = _run(gpu, level0, Format.UNORM, {})
    assert res.reduction == "mean"
    assert [s.label for s in res.plan] == [f"level {i}" for i in range(1, 5)]
    res = _run(gpu, level0, Format.UNORM, {"filter": "tent"})
    assert [s.label for s in res.plan][:2] == ["level 1 x", "level 1 y"]
    np.testing.assert_allclose(res.levels[1], np.rint(step_of(res.levels, 1, Format.UNORM,
                                                              "tent")), atol=1)


def test_bad_filter_options_are_one_line_with_the_valid_range() -> None:
    with pytest.raises(strategies.UnknownStrategy, match=r"kaiser-width must be in \[1, 8\]"):
        strategies.resolve(StrategySpec("per-level", (("filter", "kaiser"),
                                                      ("kaiser-width", "20"))))
    with pytest.raises(strategies.UnknownStrategy, match="edge must be one of clamp, wrap"):
        expand_specs("per-level:edge=border")
    with pytest.raises(strategies.UnknownStrategy, match=r"cutoff must be in \(0, 1\)"):
        expand_specs("per-level:filter=tent,alpha=coverage,cutoff=1.5")
    with pytest.raises(strategies.UnknownStrategy, match="load=bilinear"):
        expand_specs("per-level:filter=tent,load=bilinear")
    with pytest.raises((strategies.UnknownStrategy, BadSpec), match="no option 'filter'"):
        expand_specs("single-pass:filter=tent")


def test_all_expands_filters_and_edges() -> None:
    specs = expand_specs("per-level:filter=all,edge=all")
    names = [strategies.REGISTRY["per-level"].reduction(s.option_dict) for s in specs]
    # the box's edge does not matter: the box is timed once, by the name that says so
    assert len(specs) == len(set(names)) == 8 * 3 - 2 and "mean" in names
    assert "per-level:filter=box" in {str(s) for s in specs}
    kaiser = [str(s) for s in expand_specs("per-level:filter=all,kaiser-width=all")]
    assert len(kaiser) == 7 + 3 and "per-level:filter=tent" in kaiser
    assert "per-level:filter=kaiser,kaiser-width=4" in kaiser
    # given, not expanded: the spec stays as written
    assert [str(s) for s in expand_specs("per-level:filter=box,edge=wrap")] == [
        "per-level:edge=wrap,filter=box"]
    alphas = [s.option_dict["alpha"] for s in expand_specs("per-level:filter=tent,alpha=all")]
    assert alphas == ["straight", "premultiplied", "coverage"]
    assert len(expand_specs("per-level:filter=tent,alpha=coverage,edge=all")) == 3


def test_an_option_that_changes_nothing_is_warned_of(capsys) -> None:
    from mipview.cli.common import strategy_specs

    specs = strategy_specs("per-level:filter=box,kaiser-width=4,edge=wrap")
    assert [str(s) for s in specs] == ["per-level:edge=wrap,filter=box,kaiser-width=4"]
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        "warning: per-level:edge=wrap,filter=box,kaiser-width=4: edge=wrap changes nothing "
        "here (it counts only with filter other than box)",
        "warning: per-level:edge=wrap,filter=box,kaiser-width=4: kaiser-width=4 changes "
        "nothing here (it counts only with filter=kaiser)"]
    strategy_specs("per-level:filter=kaiser,kaiser-width=4,edge=wrap,blit")
    assert capsys.readouterr().err == ""  # each of them counts


def test_the_reason_a_choice_is_greyed_out(gpu) -> None:
    cls = strategies.REGISTRY["per-level"]
    caps = gpu.caps
    assert cls.unsupported_reason(caps, Format.UNORM, 64, 64, 1, {"filter": "lanczos3"}) is None
    assert cls.unsupported_reason(caps, Format.SRGB, 64, 64, 1,
                                  {"filter": "kaiser", "alpha": "coverage"}) is None
    assert "sRGB" in cls.unsupported_reason(caps, Format.SRGB, 64, 64, 1,
                                            {"filter": "tent", "kind": "normal"})


PAIR_CASES = [{}, {"edge": "wrap"}, {"filter": "lanczos2", "edge": "mirror"}, {"filter": "box"},
              {"filter": "kaiser", "kaiser-width": "1.5"}, {"filter": "catmull-rom"}]


@pytest.mark.parametrize("options,size,fmt",
                         pairs_params(PAIR_CASES, [(34, 21), (67, 45)], RGBA_FORMATS))
def test_filter_pairs_keeps_the_stored_promise(gpu, fmt: Format, size: tuple[int, int],
                                               options: dict[str, str]) -> None:
    from mipview.gpu.session import Session

    level0 = _level0(fmt, "colour", np.random.default_rng(size[0]), *size)
    spec = StrategySpec("filter-pairs", tuple(sorted(options.items())))
    with Session(gpu, level0, fmt, [spec]) as s:
        s.generate()
        res = s.result().results[0]
    v = verdict.judge_result(res, level0, fmt)
    assert v.within_tolerance, v.summary()
    per_level = _run(gpu, level0, fmt, {"filter": "tent", **options})
    assert per_level.reduction == res.reduction  # the same reference as per-level's
    _assert_same_levels(res, per_level)


def _assert_same_levels(res, per_level) -> None:
    """filter-pairs sums the taps in per-level's order (x per row, then the rows): the same
    bytes on a device that rounds each float32 operation alike in both shaders (lavapipe)."""
    assert len(res.levels) == len(per_level.levels)
    for k, (a, b) in enumerate(zip(res.levels, per_level.levels, strict=True)):
        assert np.array_equal(a, b), f"level {k}: {np.count_nonzero(a != b)} values differ"


def test_filter_pairs_in_bands_makes_the_same_levels(gpu, monkeypatch) -> None:
    """A shared-memory budget too small for one band: the window is made in several bands of
    rows, with the same bytes (and the plan says so)."""
    from mipview.gpu.session import Session
    from mipview.gpu.strategies import filter_pairs

    level0 = _level0(Format.UNORM, "colour", np.random.default_rng(5), 67, 45)
    options = {"filter": "kaiser", "kaiser-width": "2", "edge": "wrap"}
    spec = StrategySpec("filter-pairs", tuple(sorted(options.items())))
    monkeypatch.setattr(filter_pairs, "SHARED_BUDGET", 16384)
    with Session(gpu, level0, Format.UNORM, [spec]) as s:
        s.generate()
        res = s.result().results[0]
    assert "bands" in res.plan[0].detail
    _assert_same_levels(res, _run(gpu, level0, Format.UNORM, options))


def test_filter_pairs_plan_says_which_levels_how(gpu) -> None:
    from mipview.gpu.session import Session

    level0 = _level0(Format.UNORM, "colour", np.random.default_rng(3), 40, 24)  # 6 levels
    with Session(gpu, level0, Format.UNORM, [StrategySpec("filter-pairs")]) as s:
        s.generate()
        plan = s.result().results[0].plan
    assert [(p.label, p.levels) for p in plan] == [
        ("levels 1-2", (1, 2)), ("levels 3-4", (3, 4)), ("level 5", (5,))]
    assert "4x4 taps of level 0" in plan[0].detail and "from shared memory" in plan[0].detail


@pytest.mark.parametrize("fmt", [Format.SRGB, Format.F16])
def test_filter_pairs_lead_levels_are_per_levels_passes(gpu, monkeypatch, fmt: Format) -> None:
    """Where a source level is large (PAIR_WORK), per-level's two passes make the level and the
    pairs start below it: the plan says so, the verdict holds and the bytes are per-level's."""
    from mipview.core.filters.spec import from_options
    from mipview.gpu.session import Session
    from mipview.gpu.strategies import filter_pairs

    level0 = _level0(fmt, "colour", np.random.default_rng(8), 67, 45)  # levels 1-6
    options = {"filter": "kaiser", "kaiser-width": "2", "edge": "mirror"}
    # 9 taps per axis (odd sides) from 67x45 and 33x22 are over, 9 from 16x11 is not
    monkeypatch.setattr(filter_pairs, "PAIR_WORK", 9 * 16 * 11)
    assert filter_pairs.lead_levels(from_options(options), 67, 45) == 2
    spec = StrategySpec("filter-pairs", tuple(sorted(options.items())))
    with Session(gpu, level0, fmt, [spec]) as s:
        s.generate()
        res = s.result().results[0]
    labels = [p.label for p in res.plan]
    pairs = ["levels 3-4", "levels 5-6"] if fmt is Format.SRGB else [f"level {k}" for k in
                                                                     range(3, 7)]
    assert labels == ["level 1 x", "level 1 y", "level 2 x", "level 2 y", *pairs]
    assert "per-level's pass" in res.plan[0].detail
    v = verdict.judge_result(res, level0, fmt)
    assert v.within_tolerance, v.summary()
    if fmt is Format.SRGB:  # f16: a device may round the shared copy's stores either way
        _assert_same_levels(res, _run(gpu, level0, fmt, options))
    monkeypatch.setattr(filter_pairs, "PAIR_WORK", 0)  # every level per-level's: no pairs left
    with Session(gpu, level0, fmt, [spec]) as s:
        s.generate()
        assert [p.label for p in s.result().results[0].plan][-1] == "level 6 y"


def test_filter_pairs_refuses_what_it_cannot_do(gpu) -> None:
    cls = strategies.REGISTRY["filter-pairs"]
    with pytest.raises(strategies.UnknownStrategy, match=r"must be in \[1, 2\] for filter-pairs"):
        strategies.resolve(StrategySpec("filter-pairs", (("filter", "kaiser"),
                                                         ("kaiser-width", "3"))))
    with pytest.raises(strategies.UnknownStrategy, match="filter must be one of"):
        expand_specs("filter-pairs:filter=lanczos3")
    assert cls.unsupported_reason(gpu.caps, Format.UNORM, 64, 64) is None


def test_filter_pairs_refuses_a_halo_past_shared_memory(gpu, monkeypatch) -> None:
    from dataclasses import replace

    from mipview.gpu.strategies import filter_pairs

    cls = strategies.REGISTRY["filter-pairs"]
    assert cls.unsupported_reason(gpu.caps, Format.UNORM, 64, 64, 1, {"filter": "lanczos2"}) \
        is None
    small = replace(gpu.caps, max_shared_memory=4096)  # below one band of one row's
    assert "bytes of shared memory (the device has 4096)" in cls.unsupported_reason(
        small, Format.UNORM, 64, 64, 1, {"filter": "tent"})
    monkeypatch.setattr(filter_pairs, "MAX_SPAN", 16)  # lanczos-2's halo: 16 + 2 x 4 texels
    assert "do not fit shared memory" in cls.unsupported_reason(
        gpu.caps, Format.UNORM, 64, 64, 1, {"filter": "lanczos2"})


@pytest.mark.parametrize("edge", ["clamp", "wrap", "mirror"])
@pytest.mark.parametrize(("size", "band"), [((4096, 4096), 22), ((1021, 579), 5), ((67, 45), 24),
                                            ((34, 3), 1), ((5, 70), 7)])
def test_row_windows_hold_every_row_the_y_taps_reach(edge: str, size: tuple[int, int],
                                                     band: int) -> None:
    """Each band's x pass filters `length` source rows from `first` (modulo the side): every
    source row a texel of the band takes must be one of them, as the shader's slot says."""
    from mipview.core.filters.resample import fold
    from mipview.gpu.strategies.filter_pairs import _bases, plan_pairs, row_windows

    spec = strategies.REGISTRY["filter-pairs"].filter_spec({"filter": "kaiser", "edge": edge})
    for p in plan_pairs(spec, *size)[:3]:
        win = row_windows(p, edge, band)
        bases = _bases(p.mid[1], p.dst_taps[1] if p.dst_taps else None)
        n = p.src[1]
        assert win.shape[:2] == (bases.size, -(-p.span // band))
        for a, base in enumerate(bases):
            for b in range(win.shape[1]):
                first, length = win[a, b]
                assert 0 <= first < n and 1 <= length <= n
                w = np.arange(b * band, min(b * band + band, p.span))
                rows = fold(p.mid_taps[1].index[fold(base + w, p.mid[1], edge)], n, edge)
                assert np.all((rows - first) % n < length), (p.level, a, b)
                # as few as hold them: the first and the last slot are taken
                assert {0, length - 1} <= set(((rows - first) % n).ravel().tolist())


def test_filter_pairs_f16_runs_one_level_per_dispatch(gpu) -> None:
    from mipview.gpu.session import Session

    level0 = _level0(Format.F16, "colour", np.random.default_rng(4), 16, 16)
    with Session(gpu, level0, Format.F16, [StrategySpec("filter-pairs")]) as s:
        s.generate()
        res = s.result().results[0]
    assert [p.label for p in res.plan] == [f"level {k}" for k in range(1, 5)]
    assert any("one level per dispatch" in n for n in res.notes)


def test_filter_pairs_offers_every_edge_on_a_gpu(gpu) -> None:
    """wrap and mirror were refused on GPUs while an H200 folded negative taps wrongly (int % is
    undefined on negative operands in Vulkan: tests/test_shaders.py); the folds are unsigned now,
    and test_filter_pairs_keeps_the_stored_promise checks them against the reference."""
    from dataclasses import replace

    cls = strategies.REGISTRY["filter-pairs"]
    gpu_caps = replace(gpu.caps, device_type="discrete")
    for edge in ("clamp", "wrap", "mirror"):
        assert cls.unsupported_reason(gpu_caps, Format.UNORM, 64, 64, 1, {"edge": edge}) is None


@pytest.mark.parametrize("fmt", [f for f in Format if f.channels < 4], ids=lambda f: f.label)
def test_filters_say_why_not_in_one_and_two_channel_formats(gpu, fmt):
    from mipview.gpu.strategies.filter_pairs import FilterPairs
    from mipview.gpu.strategies.per_level import PerLevel

    for cls, options in ((PerLevel, {"filter": "lanczos3"}), (FilterPairs, {})):
        why = cls.unsupported_reason(gpu.caps, fmt, 37, 23, 1, options)
        assert why is not None and "four-channel formats" in why and fmt.label in why
    assert PerLevel.unsupported_reason(gpu.caps, fmt, 37, 23) is None  # the box serves them
