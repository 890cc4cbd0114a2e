"""Batched mipmapping (mipview.gpu.batch): the three ways agree bit for bit, match single-image
runs and the exact reference, and the expansion maps every work group to the right tile."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from mipview.check.compare import error_report
from mipview.check.reference import reference_pyramid
from mipview.core.formats import Format, mip_count
from mipview.gpu.batch import WAYS, BatchSession, unsupported_reason
from mipview.gpu.batch.expansion import bucket_chunks, expected_mapping
from mipview.gpu.batch.packing import BatchTooLarge, plan_layout
from mipview.gpu.batch.runner import TILE
from mipview.io.synthetic import synthetic_batch, synthetic_sizes


def _sizes_50() -> list[tuple[int, int]]:
    """50 seeded sizes in 1x1..300x200: the corners and thin strips, then random (mostly NPOT)."""
    rng = np.random.default_rng(7)
    fixed = [(1, 1), (300, 200), (1, 200), (300, 1), (2, 2), (3, 3), (255, 129), (64, 64)]
    rest = [(int(w), int(h)) for w, h in zip(rng.integers(1, 301, 42), rng.integers(1, 201, 42),
                                             strict=True)]
    return fixed + rest


def _assert_same(a: list[list[np.ndarray]], b: list[list[np.ndarray]], what: str) -> None:
    assert len(a) == len(b)
    for i, (ca, cb) in enumerate(zip(a, b, strict=True)):
        assert len(ca) == len(cb), f"{what}: image {i} level count"
        for level, (x, y) in enumerate(zip(ca, cb, strict=True)):
            assert np.array_equal(x.view(np.uint8), y.view(np.uint8)), \
                f"{what}: image {i} level {level} differs"


def _assert_exact(chains: list[list[np.ndarray]], level0: list[np.ndarray], fmt: Format) -> None:
    for i, (chain, src) in enumerate(zip(chains, level0, strict=True)):
        assert len(chain) == mip_count(src.shape[1], src.shape[0])
        rep = error_report(chain, fmt, reference_pyramid(src, fmt))
        assert rep.within_tolerance(fmt), \
            f"image {i} {src.shape[1]}x{src.shape[0]}: step {rep.max_step} chain {rep.max_chain}"


def test_ways_bit_identical_and_equal_single_image_runs(gpu):
    fmt = Format.UNORM
    level0 = synthetic_batch(_sizes_50(), fmt, seed=3)
    with BatchSession(gpu, level0, fmt) as session:
        assert [w.name for w in session.ways] == list(WAYS), session.skipped
        session.generate()
        chains = {w: session.chains(w) for w in WAYS}
        result = session.result()
    for way in WAYS[1:]:
        _assert_same(chains[way], chains["loop"], way)
    assert all(w.identical for w in result.ways)
    _assert_exact(chains["loop"], level0, fmt)
    # every image alone through the same shader: no neighbour can leak into its chain
    for i, src in enumerate(level0):
        with BatchSession(gpu, [src], fmt, ["loop"]) as alone:
            alone.generate()
            _assert_same(alone.chains("loop"), [chains["loop"][i]], f"image {i} alone")
    # dispatch counts: loop pays per image and level, expansion per level
    assert result.way("loop").dispatches == sum(mip_count(w, h) - 1 for w, h in _sizes_50())
    assert result.way("prefix-sum").dispatches == mip_count(300, 200)
    assert result.way("po2-buckets").expansion_bytes > 0


@pytest.mark.parametrize("fmt", [Format.F16, Format.SRGB, Format.F32])
def test_other_formats_small_batch(gpu, fmt):
    level0 = synthetic_batch([(1, 1), (7, 5), (33, 17), (64, 3), (20, 40)], fmt, seed=5)
    with BatchSession(gpu, level0, fmt) as session:
        session.generate()
        for way in WAYS[1:]:
            _assert_same(session.chains(way), session.chains("loop"), f"{fmt.label} {way}")
        _assert_exact(session.chains("loop"), level0, fmt)


def test_several_pages_same_chains(gpu):
    """A small page cap spreads the batch over several storage buffers (batch_reduce's page
    switch); the chains must not change."""
    fmt = Format.UNORM
    sizes = [(40, 30), (17, 9), (64, 64), (3, 50), (33, 33)]
    level0 = synthetic_batch(sizes, fmt, seed=9)
    with BatchSession(gpu, level0, fmt) as one:
        one.generate()
        ref = one.chains("loop")
    with BatchSession(gpu, level0, fmt, page_bytes=24 << 10) as paged:
        assert len(paged.pages) >= 3
        paged.generate()
        for way in WAYS:
            _assert_same(paged.chains(way), ref, f"paged {way}")


def _images_for_tiles(counts: list[int]) -> list[np.ndarray]:
    """Images whose level 1 needs exactly ``counts[i]`` tiles: 0 -> 1x1 (no level 1),
    1024 -> a 32x32 tile grid, others a row of n tiles with a ragged last tile."""
    sizes = []
    for n in counts:
        if n == 0:
            sizes.append((1, 1))
        elif n == 1024:
            sizes.append((2 * 32 * TILE, 2 * 32 * TILE))
        else:
            sizes.append((2 * (TILE * n - 3) if n > 1 else 2, 2 * TILE - 2))
    return synthetic_batch(sizes, Format.UNORM, seed=11)


@pytest.mark.parametrize("counts", [[0], [1], [3], [11], [1024],
                                    [3, 0, 1, 11, 0, 1024, 2, 7, 64, 5, 0, 1]],
                         ids=["0", "1", "3", "11", "1024", "mixed"])
def test_expansion_maps_every_group(gpu, counts):
    level0 = _images_for_tiles(counts)
    with BatchSession(gpu, level0, Format.UNORM, ways=WAYS[1:], debug_level=1) as session:
        assert session.layout.tile_counts(1, TILE).tolist() == counts
        for way in WAYS[1:]:
            mapping = session.debug_mapping(way)
            total = sum(counts)
            used = mapping[:total]
            pairs = {(int(i), int(t)) for i, t in used}
            assert len(pairs) == total, f"{way}: a tile was made twice or a group missed"
            assert pairs == expected_mapping(np.array(counts)), way
            assert np.all(mapping[total:] == 0xFFFFFFFF), f"{way}: groups past the total worked"
            if way == "prefix-sum":  # an image's tiles are consecutive groups, in order
                for img in {i for i, _ in pairs}:
                    groups = np.flatnonzero(used[:, 0] == img)
                    assert np.array_equal(used[groups, 1], groups - groups[0])
        session.generate()
        _assert_exact(session.chains("prefix-sum"), level0, Format.UNORM)


def test_bucket_chunks_cover_each_count_once():
    for n in range(0, 2100):
        tiles = sorted(t for _, first, size in bucket_chunks(n) for t in range(first, first + size))
        assert tiles == list(range(n))


def test_prefix_sum_needs_int64_atomics(gpu):
    caps = dataclasses.replace(gpu.caps, int64_buffer_atomics=False)
    assert "64-bit" in unsupported_reason(caps, "prefix-sum")
    assert unsupported_reason(caps, "po2-buckets") is None


def test_layout_rejects_what_cannot_fit():
    with pytest.raises(BatchTooLarge, match="exceeds one storage-buffer binding"):
        plan_layout([(300, 300)], Format.UNORM, max_page_bytes=64 << 10)
    with pytest.raises(BatchTooLarge, match="split it"):
        plan_layout([(100, 100)] * 5, Format.UNORM, max_page_bytes=60 << 10)


def test_synthetic_sizes_are_seeded_and_heavy_tailed():
    a = synthetic_sizes(1000, seed=0)
    assert a == synthetic_sizes(1000, seed=0) and a[:10] == synthetic_sizes(10, seed=0)
    longest = np.array([max(s) for s in a])
    assert longest.min() >= 1 and longest.max() <= 2048
    assert np.median(longest) < 16 and (longest >= 512).sum() >= 5


def test_cli_bench_batch_dir(tmp_path, capsys):
    from PIL import Image

    from mipview.cli.main import main

    rng = np.random.default_rng(2)
    for i, (w, h) in enumerate([(5, 3), (40, 21), (1, 1)]):
        Image.fromarray(rng.integers(0, 256, (h, w, 4), dtype=np.uint8)).save(tmp_path / f"{i}.png")
    (tmp_path / "notes.txt").write_text("not an image")
    out = tmp_path / "b.json"
    code = main(["bench", "--batch", str(tmp_path), "--repeat", "2", "--warmup-ms", "0",
                 "--batch-sweep", "1,3", "--json", str(out), "--validate"])
    text = capsys.readouterr().out
    assert code == 0, text
    assert "skipped notes.txt" in text
    data = json.loads(out.read_text())
    assert data["images"] == 3 and not data["validation_messages"]
    assert [w["way"] for w in data["ways"]] == list(WAYS)
    assert all(w["identical"] and w["gpu_time"]["n"] == 2 for w in data["ways"])
    assert [row["images"] for row in data["sweep"]] == [1, 3]
