"""Seamless cube map chains on the GPU: ``edge=cube`` of per-level
(mipview/gpu/strategies/filter_level.py and .comp) and of filter-pairs (two levels per dispatch)
against the float64 seamless reference (mipview.check.filter_reference.cube_filter), texel by
texel through the verdict, and filter-pairs against per-level byte for byte; the check catches
independent faces; anything but a cube map is refused.

One format (8-bit UNORM: correctly rounded, the tightest bound) and one Session per case with
every kernel, so lavapipe compiles the cube pipelines (per-level's x and y, filter-pairs' one per
layout) once per worker. Other formats and kinds: test_cube_filter_kinds."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from mipview.check import verdict
from mipview.check.filter_reference import cube_filter
from mipview.check.seams import pyramid_seams
from mipview.core import cube
from mipview.core.filters.resample import EDGES
from mipview.core.filters.spec import from_options
from mipview.core.formats import Format
from mipview.core.specs import StrategySpec
from mipview.gpu import strategies
from mipview.gpu.strategies import filter_level
from mipview.gpu.strategies.specs import expand_specs

FMT = Format.UNORM
#: per-level: the tent, Kaiser-3 (long: its reach passes N from N <= 5, clamped to the pad's
#: outer ring) and Lanczos-2; filter-pairs: the tent and Lanczos-2 (its short filters)
KERNELS = [{"filter": "tent"}, {"filter": "kaiser"}, {"filter": "lanczos2"}]
PAIR_KERNELS = [{"filter": "tent"}, {"filter": "lanczos2"}]


def _cube_level0(n: int, cubes: int = 1, seed: int = 0) -> np.ndarray:
    """(6 cubes, n, n, 4) 8-bit: a smooth function of direction plus noise, and a different
    offset per face, so independent faces and seamless ones differ at every edge."""
    rng = np.random.default_rng(seed + n)
    d = np.concatenate([cube.directions(n)] * cubes)
    v = 0.45 + 0.25 * d[..., 0] + 0.15 * d[..., 1] * d[..., 2]
    face = (np.arange(6 * cubes) % 6 * 0.05 + np.arange(6 * cubes) // 6 * 0.02)[:, None, None]
    raw = np.stack([v + face, 1 - v, v * v + 0.5 * face, 0.6 + 0.3 * d[..., 2]], -1)
    raw = raw + 0.06 * rng.random(raw.shape)
    return np.rint(np.clip(raw, 0, 1) * 255).astype(np.uint8)


def _run(gpu, level0: np.ndarray, specs: list[tuple[str, dict[str, str]]], fmt: Format = FMT):
    from mipview.gpu.session import Session

    with Session(gpu, level0, fmt, [StrategySpec(name, tuple(sorted(o.items())))
                                    for name, o in specs]) as s:
        assert not s.skipped, s.skipped
        s.generate()
        return s.result().results


# --- the host's side: the table and the taps the shader reads -----------------------------------
def _shader_fold(f: int, i: int, j: int, n: int) -> tuple[int, int, int]:
    """filter_level.comp's cubeFold, line by line, on adjacency_table()."""
    table = filter_level.adjacency_table()
    edge = 0 if i < 0 else 1 if i >= n else 2 if j < 0 else 3
    depth = (-1 - i, i - n, -1 - j, j - n)[edge]
    along = j if edge < 2 else i
    code = int(table[f * 4 + edge])
    if code & 32:
        along = n - 1 - along
    e2 = (code >> 3) & 3
    inside = depth if e2 & 1 == 0 else n - 1 - depth
    return (code & 7, *((inside, along) if e2 < 2 else (along, inside)))


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_the_shaders_fold_is_fold_cube(n: int) -> None:
    """Every texel past one edge, at every depth the pad reaches (< n), lands where
    mipview.core.cube.fold_cube (the reference's pad) says."""
    for f in range(6):
        for a in range(-n, 2 * n):
            for b in range(n):
                for i, j in ((a, b), (b, a)):
                    if 0 <= i < n and 0 <= j < n:
                        continue
                    want = tuple(int(v) for v in cube.fold_cube(f, i, j, n))
                    assert _shader_fold(f, i, j, n) == want, (f, i, j)


@pytest.mark.parametrize(("n", "d", "name"), [(8, 4, "tent"), (5, 2, "kaiser"),
                                              (3, 1, "lanczos3"), (64, 1, "lanczos3")])
def test_cube_taps_are_the_references_padded_table(n: int, d: int, name: str) -> None:
    """The x table in face coordinates and the y table in padded rows, both clamped to the
    pad (at most n deep), give cube_filter's result applied as the shader does."""
    spec = from_options({"filter": name, "edge": "cube"})
    x, y, r = filter_level.cube_taps(n, d, spec)
    assert 0 <= r <= n and np.array_equal(y.index, x.index + r)
    assert x.index.min() >= -r and x.index.max() < n + r
    lin = np.random.default_rng(n).random((6, n, n, 4))
    padded = cube.pad_faces(lin, r)
    # x: every padded row, columns read in face coordinates (+ r into the padded face)
    rows = np.stack([sum(x.weight[c, t] * padded[:, :, x.index[c, t] + r]
                         for t in range(x.count)) for c in range(d)], 2)
    out = np.stack([sum(y.weight[q, t] * rows[:, y.index[q, t]] for t in range(y.count))
                    for q in range(d)], 1)
    np.testing.assert_allclose(out, cube_filter(lin, spec.kernel, d), rtol=0, atol=1e-12)


# --- the GPU chain against the seamless reference -----------------------------------------------
def _same_levels(a, b) -> None:
    for k, (x, y) in enumerate(zip(a.levels, b.levels, strict=True)):
        assert np.array_equal(x, y), f"level {k}: {np.count_nonzero(x != y)} values differ"


@pytest.mark.parametrize(("n", "cubes"), [(1, 1), (2, 1), (5, 1), (8, 1), (5, 2), (37, 1)])
def test_seamless_chain_matches_the_reference(gpu, n: int, cubes: int) -> None:
    """Side 37: filter-pairs' level 1 has two workgroups per axis, so halos past a face edge
    and inner tile edges both occur."""
    level0 = _cube_level0(n, cubes)
    runs = [("per-level", {**k, "edge": "cube"}) for k in KERNELS] + \
        [("filter-pairs", {**k, "edge": "cube"}) for k in PAIR_KERNELS]
    results = _run(gpu, level0, runs)
    for (name, opts), res in zip(runs, results, strict=True):
        assert res.reduction == f"{opts['filter']},edge=cube"
        assert [lv.shape for lv in res.levels] == [(6 * cubes, max(1, n >> k), max(1, n >> k), 4)
                                                   for k in range(len(res.levels))]
        v = verdict.judge_result(res, level0, FMT)
        assert v.within_tolerance, f"{name}: {v.summary()}"
        assert v.exact.max_step <= max(v.step_bounds)  # correctly rounded: 0.5 LSB + arith
    # filter-pairs sums per-level's taps in per-level's order, halos past the edges too
    _same_levels(results[3], results[0])
    _same_levels(results[4], results[2])
    if n > 1:  # the plan says the x pass reads across the edges
        assert "across the face edges" in results[0].plan[0].detail
    if n >= 5:
        assert results[3].plan[0].label == "levels 1-2"


@pytest.mark.parametrize(("fmt", "n"), [(FMT, 130), (Format.F16, 100)])
def test_seamless_inner_tiles_beside_the_edges(gpu, fmt: Format, n: int) -> None:
    """Faces with tiles whose windows stay on their face: those run the plain pipeline (no
    cube loads), the tiles around them the cube one, in two dispatches without a barrier
    between them. Texel for texel per-level's chain, the tiles of both kinds and their seams."""
    u8 = _cube_level0(n, 1, seed=3)
    level0 = u8 if not fmt.is_float else (u8 / 255.0 * 3).astype(fmt.dtype)
    pairs, per_level = _run(gpu, level0, [("filter-pairs", {"filter": "tent", "edge": "cube"}),
                                          ("per-level", {"filter": "tent", "edge": "cube"})], fmt)
    details = [st.detail for st in pairs.plan]
    assert any("inner tiles of each face" in d for d in details), details
    assert any("tiles at the face edges, beside them" in d for d in details), details
    _same_levels(pairs, per_level)
    v = verdict.judge_result(pairs, level0, fmt)
    assert v.within_tolerance, v.summary()


def test_inner_tiles_keep_to_the_face() -> None:
    """inner_tiles: only tiles whose windows, x taps and rows lie on the face; the table holds
    every other tile once. A window one texel wider reaches the next face, and its tile leaves
    the block."""
    from mipview.gpu.strategies.filter_pairs import (
        TILE,
        inner_tiles,
        layout,
        outer_tiles,
        plan_pairs,
    )

    spec = from_options({"filter": "tent", "edge": "cube"})
    for n, paired in ((1024, True), (1024, False), (130, True), (100, False)):
        plans = plan_pairs(spec, n, n, paired=paired)
        _, windows = layout(plans, spec.edge, 32768)
        p, win = plans[0], windows[0]
        a, b = inner_tiles(p, win)
        tiles = -(-p.mid[0] // TILE)
        assert 0 < a < b < tiles
        from mipview.gpu.strategies.filter_pairs import _bases
        bases = _bases(p.mid[0], p.dst_taps[0] if p.dst_taps else None)
        for t in (a, b - 1):
            cols = p.mid_taps[0].index[bases[t]:bases[t] + p.span]
            assert bases[t] >= 0 and bases[t] + p.span <= p.mid[0]
            assert cols.min() >= 0 and cols.max() < p.src[0]
        for t in (a - 1, b):  # the next tile out reads past an edge
            lo, hi = bases[t], bases[t] + p.span
            cols = p.mid_taps[0].index[max(0, lo):min(hi, p.mid[0])]
            assert lo < 0 or hi > p.mid[0] or cols.min() < 0 or cols.max() >= p.src[0]
        outer = outer_tiles(tiles, (a, b))
        assert len(outer) == len(set(outer)) == tiles * tiles - (b - a) ** 2
        assert all(not (a <= (t & 0xffff) < b and a <= (t >> 16) < b) for t in outer)
        wider = replace(p, span=p.span + 1 + TILE * tiles)
        assert inner_tiles(wider, win) is None


@pytest.mark.parametrize(("fmt", "name", "options"), [
    (Format.SRGB, "per-level", {"filter": "lanczos3", "source": "level0",
                                "alpha": "premultiplied"}),
    (Format.F32, "per-level", {"filter": "mitchell", "kind": "normal"}),
    (Format.F16, "filter-pairs", {"filter": "catmull-rom"}),  # f16: one level per dispatch
], ids=["srgb-lanczos3-level0-premultiplied", "f32-mitchell-normal", "f16-pairs-catmull-rom"])
def test_cube_filter_kinds(gpu, fmt: Format, name: str, options: dict[str, str]) -> None:
    """The pad is of the values filtered (decoded, premultiplied, normal vectors): other formats
    and kinds, a reach past N (Lanczos-3 from level 0) and the float bounds."""
    u8 = _cube_level0(7, 2, seed=5)
    if options.get("kind") == "normal":
        v = u8[..., :3] / 127.5 - 1.0
        v[..., 2] = np.abs(v[..., 2]) + 1.0
        u8 = u8.astype(np.float64) / 255
        u8[..., :3] = v / np.linalg.norm(v, axis=-1, keepdims=True) * 0.5 + 0.5
        level0 = u8.astype(fmt.dtype)
    else:
        level0 = u8 if not fmt.is_float else (u8 / 255.0 * 3).astype(fmt.dtype)
    res, = _run(gpu, level0, [(name, {**options, "edge": "cube"})], fmt)
    assert "edge=cube" in res.reduction
    v = verdict.judge_result(res, level0, fmt)
    assert v.within_tolerance, v.summary()


def test_filter_pairs_cube_after_per_levels_lead(gpu, monkeypatch) -> None:
    """Where the source is large, per-level's passes lead (PAIR_WORK): with edge=cube too."""
    from mipview.gpu.strategies import filter_pairs

    monkeypatch.setattr(filter_pairs, "PAIR_WORK", 4 * 16 * 16)
    level0 = _cube_level0(32, seed=7)
    opts = {"filter": "tent", "edge": "cube"}
    pairs, per_level = _run(gpu, level0, [("filter-pairs", opts), ("per-level", opts)])
    assert [p.label for p in pairs.plan] == ["level 1 x", "level 1 y", "levels 2-3",
                                             "levels 4-5"]
    assert verdict.judge_result(pairs, level0, FMT).within_tolerance
    _same_levels(pairs, per_level)


def test_the_check_catches_independent_faces(gpu) -> None:
    """The same kernel with edge=clamp (each face alone) is no seamless chain: judged against the
    edge=cube reference it fails, at the edges; its seams are larger than the seamless chain's."""
    level0 = _cube_level0(8, seed=3)
    seamless, clamped = _run(gpu, level0, [("per-level", {"filter": "tent", "edge": "cube"}),
                                           ("per-level", {"filter": "tent", "edge": "clamp"})])
    assert verdict.judge_result(seamless, level0, FMT).within_tolerance
    wrong = verdict.judge(clamped.levels, level0, FMT, seamless.reduction, promise="stored")
    assert not wrong.within_tolerance
    # level 1 (4x4 faces): the interior 2x2 of every face agrees, the edge texels do not
    diff = np.abs(clamped.levels[1].astype(int) - seamless.levels[1].astype(int)).max(-1)
    assert diff[:, 1:3, 1:3].max() <= 1 and diff.max() > 4
    ratio = [s.mean_ratio for s in pyramid_seams(seamless.levels[1:3], FMT)]
    assert all(a < b for a, b in zip(ratio, [s.mean_ratio for s in pyramid_seams(
        clamped.levels[1:3], FMT)], strict=True))


@pytest.mark.parametrize(("n", "name", "band"), [(37, "tent", 18), (37, "lanczos2", 3),
                                                (9, "kaiser", 1), (64, "catmull-rom", 7)])
def test_cube_row_windows_hold_every_row_inside_the_face(n: int, name: str, band: int) -> None:
    """filter-pairs' row table under edge=cube: each band's rows are one range (no wrap) that
    holds every row its texels inside the face take, within the pad."""
    from mipview.gpu.strategies.filter_pairs import _bases, plan_pairs, row_windows

    opts = {"filter": name, "edge": "cube"} | ({"kaiser-width": "2"} if name == "kaiser" else {})
    spec = strategies.REGISTRY["filter-pairs"].filter_spec(opts)
    for p in plan_pairs(spec, n, n):
        win = row_windows(p, "cube", band)
        bases = _bases(p.mid[1], p.dst_taps[1] if p.dst_taps else None)
        taps = p.mid_taps[1]
        for a, base in enumerate(bases):
            for b in range(win.shape[1]):
                first, length = win[a, b]
                q = base + np.arange(b * band, min(b * band + band, p.span))
                rows = taps.index[q[(q >= 0) & (q < p.mid[1])]]
                if rows.size == 0:
                    assert length == 0
                    continue
                assert -p.src[1] <= first and first + length <= 2 * p.src[1]
                assert np.all((rows >= first) & (rows < first + length))
                assert {first, first + length - 1} <= set(rows.ravel().tolist())


# --- what is refused -----------------------------------------------------------------------------
def test_edge_cube_is_an_option_but_not_offered_by_all() -> None:
    spec, = expand_specs("per-level:filter=lanczos3,edge=cube")
    assert strategies.REGISTRY["per-level"].reduction(spec.option_dict) == "lanczos3,edge=cube"
    assert len(expand_specs("per-level:filter=tent,edge=all")) == len(EDGES)  # serve any image
    with pytest.raises(strategies.UnknownStrategy, match="clamp, wrap, mirror, cube"):
        expand_specs("per-level:edge=border")


NON_CUBES = [(8, 8, 1), (8, 4, 6), (8, 8, 7), (8, 8, 5)]


@pytest.mark.parametrize(("w", "h", "layers"), NON_CUBES)
def test_a_non_cube_is_refused_with_what_it_can_do(gpu, w: int, h: int, layers: int) -> None:
    spec = from_options({"filter": "tent", "edge": "cube"})
    why = filter_level.cube_reason(spec, w, h, layers)
    assert why is not None and "edge=cube needs a cube map" in why
    assert "6 n square faces" in why and "clamp, wrap or mirror" in why
    assert filter_level.cube_reason(spec, 8, 8, 12) is None
    assert filter_level.cube_reason(from_options({"filter": "tent"}), w, h, layers) is None
    cls = strategies.REGISTRY["filter-pairs"]
    assert cls.unsupported_reason(gpu.caps, FMT, w, h, layers, dict(spec_opts := {
        "filter": "tent", "edge": "cube"})) == why
    assert cls.unsupported_reason(gpu.caps, FMT, 8, 8, 12, spec_opts) is None


def test_a_session_skips_a_non_cube_with_the_reason(gpu) -> None:
    from mipview.gpu.session import Session

    level0 = np.zeros((2, 8, 8, 4), np.uint8)
    with Session(gpu, level0, FMT, [StrategySpec("filter-pairs", (("edge", "cube"),))]) as s:
        (_, why), = s.skipped
    assert "edge=cube needs a cube map" in why


@pytest.mark.parametrize(("w", "h", "layers"), NON_CUBES[:2])
def test_per_level_refuses_a_non_cube(gpu, w: int, h: int, layers: int) -> None:
    """per-level's unsupported_reason asks filter_level.cube_reason (mipview/gpu/strategies/
    per_level.py)."""
    opts = {"filter": "tent", "edge": "cube"}
    why = filter_level.cube_reason(from_options(opts), w, h, layers)
    cls = strategies.REGISTRY["per-level"]
    assert cls.unsupported_reason(gpu.caps, FMT, w, h, layers, opts) == why
    assert cls.unsupported_reason(gpu.caps, FMT, 8, 8, 6, opts) is None
