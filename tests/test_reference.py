"""The exact reference pyramid, checked against hand-computed values."""

from __future__ import annotations

import os
import threading
import time

import numpy as np
import pytest

from mipview.check.reference import (
    blit_reference,
    exact_mean,
    reduce_level,
    reduce_level_minmax,
    reference_pyramid,
    step_reference,
)
from mipview.core.formats import Format, decode, level_size, mip_count


def rgba(grey: np.ndarray) -> np.ndarray:
    """(H, W) -> (H, W, 4) with every channel equal, float64."""
    g = np.asarray(grey, dtype=np.float64)
    return np.repeat(g[..., None], 4, axis=-1)


def random_levels(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    return rng.integers(0, 256, (h, w, 4), dtype=np.uint8)


# --- reduce_level ------------------------------------------------------------------------------

def test_3x3_is_plain_mean() -> None:
    src = np.random.default_rng(0).random((3, 3, 4))
    out = reduce_level(src)
    assert out.shape == (1, 1, 4)
    np.testing.assert_allclose(out[0, 0], src.mean(axis=(0, 1)), rtol=0, atol=1e-15)


def test_5x5_area_weights() -> None:
    # 5 = 2*2 + 1: output 0 weighs texels 0,1,2 by 2/5, 2/5, 1/5; output 1 texels 2,3,4 by 1/5,
    # 2/5, 2/5
    w = np.array([[2, 2, 1, 0, 0], [0, 0, 1, 2, 2]]) / 5
    src = np.arange(25, dtype=np.float64).reshape(5, 5) ** 1.5
    expected = w @ src @ w.T
    np.testing.assert_allclose(reduce_level(rgba(src)), rgba(expected), rtol=1e-14)

    # and fully by hand: a ramp in x (value = x) gives 0*.4 + 1*.4 + 2*.2 = 0.8 and
    # 2*.2 + 3*.4 + 4*.4 = 3.2 in every row
    ramp = np.tile(np.arange(5.0), (5, 1))
    np.testing.assert_allclose(reduce_level(rgba(ramp))[..., 0], [[0.8, 3.2], [0.8, 3.2]])
    # a single bright texel in the centre is shared by all four outputs with (1/5)^2
    spot = np.zeros((5, 5))
    spot[2, 2] = 25.0
    np.testing.assert_allclose(reduce_level(rgba(spot))[..., 0], np.full((2, 2), 1.0))


def test_7_wide_and_tall_strips() -> None:
    # 7 = 2*3 + 1: weights (3,3,1), (2,3,2), (1,3,3) / 7
    v = np.array([1.0, 5.0, 2.0, 8.0, 3.0, 9.0, 4.0])
    expected = np.array([(3 * 1 + 3 * 5 + 1 * 2) / 7,
                         (2 * 2 + 3 * 8 + 2 * 3) / 7,
                         (1 * 3 + 3 * 9 + 3 * 4) / 7])
    row = reduce_level(rgba(v[None, :]))  # 1 high, 7 wide
    assert row.shape == (1, 3, 4)
    np.testing.assert_allclose(row[0, :, 2], expected, rtol=1e-14)
    col = reduce_level(rgba(v[:, None]))  # 7 high, 1 wide
    assert col.shape == (3, 1, 4)
    np.testing.assert_allclose(col[:, 0, 1], expected, rtol=1e-14)


def test_1x1_stays() -> None:
    src = np.array([[[0.1, 0.2, 0.3, 0.4]]])
    out = reduce_level(src)
    assert out.shape == (1, 1, 4)
    np.testing.assert_array_equal(out, src)
    assert out is not src


def test_2x2_box() -> None:
    src = rgba([[0.0, 1.0], [2.0, 5.0]])
    np.testing.assert_array_equal(reduce_level(src), rgba([[2.0]]))


def test_even_by_odd() -> None:
    # 4 wide (box in x), 3 high (all three rows 1/3)
    src = rgba(np.arange(12, dtype=np.float64).reshape(3, 4))
    expected = [[np.mean([0, 1, 4, 5, 8, 9]), np.mean([2, 3, 6, 7, 10, 11])]]
    np.testing.assert_allclose(reduce_level(src)[..., 0], expected, rtol=1e-14)


@pytest.mark.parametrize("shape", [(23, 37), (37, 23), (1, 29), (31, 1), (45, 45), (64, 48)])
def test_mean_preserved_at_every_level(shape: tuple[int, int]) -> None:
    # every source texel of an odd side contributes m/(2m+1) in total, and there are m outputs,
    # so the plain mean survives each step exactly (up to float64 rounding)
    h, w = shape
    src = np.random.default_rng(h * 100 + w).random((2, h, w, 4))
    mean0 = src.mean(axis=(1, 2))
    cur = src
    for _ in range(1, mip_count(w, h)):
        cur = reduce_level(cur)
        np.testing.assert_allclose(cur.mean(axis=(1, 2)), mean0, rtol=1e-13)
    assert cur.shape == (2, 1, 1, 4)


def test_reduce_is_fast() -> None:
    # 2048^2 RGBA float64 (128 MiB); 4096^2 is four times this and must stay near a second
    src = np.random.default_rng(0).random((2048, 2048, 4))
    reduce_level(src[:64])  # warm up allocator paths
    t0 = time.perf_counter()
    reduce_level(src)
    assert time.perf_counter() - t0 < 1.0


# --- pyramids ----------------------------------------------------------------------------------

@pytest.mark.parametrize("w,h", [(1, 1), (1, 33), (33, 1), (3, 5), (5, 3), (16, 16), (100, 75)])
def test_level_shapes(w: int, h: int) -> None:
    src = np.zeros((h, w, 4), np.uint8)
    for pyramid in (reference_pyramid(src, Format.UNORM), blit_reference(src, Format.UNORM),
                    reference_pyramid(src, Format.UNORM, reduction="max")):
        assert len(pyramid) == mip_count(w, h)
        for i, level in enumerate(pyramid):
            lw, lh = level_size(w, h, i)
            assert level.shape == (lh, lw, 4)
            assert level.dtype == np.float64


def test_3x5_shapes_explicit() -> None:
    shapes = [lv.shape for lv in reference_pyramid(np.zeros((5, 3, 4), np.uint8), Format.SRGB)]
    assert shapes == [(5, 3, 4), (2, 1, 4), (1, 1, 4)]


def test_pyramid_level0_and_units() -> None:
    src = random_levels(np.random.default_rng(3), 6, 10)
    levels = reference_pyramid(src, Format.UNORM)
    np.testing.assert_array_equal(levels[0], src.astype(np.float64))
    np.testing.assert_allclose(levels[1], reduce_level(src.astype(np.float64)), rtol=1e-14)
    assert levels[1].max() <= 255.0


def test_srgb_averages_in_linear_light() -> None:
    src = np.array([[[0, 0, 0, 0], [255, 255, 255, 255]]], np.uint8)  # 2x1 black + white
    levels = reference_pyramid(src, Format.SRGB)
    colour, alpha = levels[1][0, 0, :3], levels[1][0, 0, 3]
    # linear 0.5 is sRGB 0.7354 -> 187.5, not 127.5; alpha is linear
    np.testing.assert_allclose(colour, 187.5, atol=0.1)
    assert alpha == pytest.approx(127.5)
    np.testing.assert_allclose(reference_pyramid(src, Format.UNORM)[1][0, 0], 127.5)


def test_float_chain_is_not_requantised() -> None:
    one_up = 1.0 + 2.0**-10  # the float16 right above 1
    src = np.array([[[1.0] * 4, [one_up] * 4]], np.float16)
    levels = reference_pyramid(src, Format.F16)
    # 1 + 2^-11 has no float16; the chain keeps it
    np.testing.assert_array_equal(levels[1], np.full((1, 1, 4), 1.0 + 2.0**-11))


def test_exact_mean_is_last_chain_level() -> None:
    src = random_levels(np.random.default_rng(5), 23, 37)
    for fmt in (Format.UNORM, Format.SRGB):
        mean = exact_mean(src, fmt)
        assert mean.shape == (4,)
        np.testing.assert_allclose(mean, reference_pyramid(src, fmt)[-1][0, 0], rtol=1e-12)
    np.testing.assert_allclose(exact_mean(src, Format.UNORM), src.mean(axis=(0, 1)), rtol=1e-12)
    bw = np.array([[[0, 0, 0, 0], [255, 255, 255, 255]]], np.uint8)
    np.testing.assert_allclose(exact_mean(bw, Format.SRGB)[:3], 187.5, atol=0.1)


def test_step_reference() -> None:
    rng = np.random.default_rng(9)
    src = random_levels(rng, 13, 9)
    gpu = [np.rint(lv).astype(np.uint8) for lv in reference_pyramid(src, Format.SRGB)]
    gpu[2] = np.clip(gpu[2].astype(int) + rng.integers(-3, 4, gpu[2].shape), 0, 255).astype(
        np.uint8)
    step = step_reference(gpu, Format.SRGB)
    assert len(step) == len(gpu)
    np.testing.assert_array_equal(step[0], gpu[0].astype(np.float64))
    for i in range(1, len(gpu)):
        expected = reference_pyramid(gpu[i - 1], Format.SRGB)[1]
        np.testing.assert_allclose(step[i], expected, rtol=1e-12)
    # a float pyramid that is its own chain is its own step reference
    chain = reference_pyramid(rng.random((12, 20, 4)).astype(np.float32), Format.F32)
    for a, b in zip(step_reference(chain, Format.F32), chain, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-14)
    assert step_reference([], Format.F32) == []


# --- blit emulation ----------------------------------------------------------------------------

def test_blit_equals_box_on_pot_unorm() -> None:
    src = random_levels(np.random.default_rng(11), 32, 64)
    blit = blit_reference(src, Format.UNORM)
    chain = reference_pyramid(src, Format.UNORM)
    step = step_reference([b.astype(np.uint8) for b in blit], Format.UNORM)
    for i in range(1, len(blit)):
        # each level is the rounded 2x2 box of the stored level below (ties may go either way)
        assert np.abs(blit[i] - step[i]).max() <= 0.5 + 1e-9
        assert np.all(blit[i] == np.rint(blit[i]))
        # and rounding carried up the chain stays within half an LSB per level
        assert np.abs(blit[i] - chain[i]).max() <= 0.5 * i + 1e-9


def test_blit_drops_texels_on_npot() -> None:
    # 3 -> 1 samples exactly at texel 1's centre: texels 0 and 2 vanish
    src = np.zeros((1, 3, 4), np.uint8)
    src[0, :, :] = np.array([30, 100, 200])[:, None]
    assert blit_reference(src, Format.UNORM)[1][0, 0, 0] == 100.0
    assert reference_pyramid(src, Format.UNORM)[1][0, 0, 0] == pytest.approx(110.0)
    # 5 -> 2: centres land on u = 0.75 and 3.25 (after the -0.5): texel 2 is never read
    src5 = np.zeros((1, 5, 4), np.uint8)
    src5[0, :, 0] = [0, 40, 255, 80, 120]
    out = blit_reference(src5, Format.UNORM)[1][0, :, 0]
    np.testing.assert_array_equal(out, [np.rint(0.25 * 0 + 0.75 * 40), np.rint(0.75 * 80 + 0.25 * 120)])
    # and on a noisy NPOT image the two references differ by far more than rounding
    noisy = random_levels(np.random.default_rng(12), 23, 37)
    diff = np.abs(blit_reference(noisy, Format.UNORM)[1] - reference_pyramid(noisy, Format.UNORM)[1])
    assert diff.max() > 20


def test_blit_srgb_filters_in_linear_light_and_f16_quantises() -> None:
    src = np.array([[[0, 0, 0, 255], [255, 255, 255, 255]]], np.uint8)
    assert blit_reference(src, Format.SRGB)[1][0, 0, 0] == 188.0
    one_up = 1.0 + 2.0**-10
    f16 = np.array([[[1.0] * 4, [one_up] * 4]], np.float16)
    v = blit_reference(f16, Format.F16)[1][0, 0, 0]
    assert v == float(np.float16(1.0 + 2.0**-11))  # stored as float16, not the exact mean


# --- min / max ---------------------------------------------------------------------------------

def test_minmax_footprints() -> None:
    src = np.random.default_rng(2).integers(0, 256, (5, 5, 4), dtype=np.uint8)
    mx = reduce_level_minmax(src, "max")
    mn = reduce_level_minmax(src, "min")
    assert mx.dtype == np.uint8 and mx.shape == (2, 2, 4)
    # 5 -> 2 reads texels 0..2 and 2..4 on each axis (texel 2 shared)
    for j, ys in enumerate((slice(0, 3), slice(2, 5))):
        for i, xs in enumerate((slice(0, 3), slice(2, 5))):
            np.testing.assert_array_equal(mx[j, i], src[ys, xs].max(axis=(0, 1)))
            np.testing.assert_array_equal(mn[j, i], src[ys, xs].min(axis=(0, 1)))
    np.testing.assert_array_equal(reduce_level_minmax(src[:3, :3], "min")[0, 0],
                                  src[:3, :3].min(axis=(0, 1)))
    with pytest.raises(ValueError):
        reduce_level_minmax(src, "median")  # type: ignore[arg-type]


def test_minmax_pyramid_reaches_global_extremes() -> None:
    src = np.random.default_rng(4).integers(0, 256, (23, 37, 4), dtype=np.uint8)
    for op, fn in (("max", np.max), ("min", np.min)):
        levels = reference_pyramid(src, Format.SRGB, reduction=op)
        np.testing.assert_array_equal(levels[-1][0, 0], fn(src, axis=(0, 1)))
        step = step_reference([lv.astype(np.uint8) for lv in levels], Format.SRGB, reduction=op)
        for a, b in zip(step, levels, strict=True):
            np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError):
        reference_pyramid(src, Format.UNORM, reduction="median")  # type: ignore[arg-type]


# --- layers ------------------------------------------------------------------------------------

def test_layer_axis() -> None:
    rng = np.random.default_rng(8)
    layers = np.stack([random_levels(rng, 11, 6) for _ in range(3)])
    for fmt in (Format.UNORM, Format.SRGB):
        stacked = {
            "chain": reference_pyramid(layers, fmt),
            "blit": blit_reference(layers, fmt),
            "max": reference_pyramid(layers, fmt, reduction="max"),
        }
        for i in range(3):
            single = {
                "chain": reference_pyramid(layers[i], fmt),
                "blit": blit_reference(layers[i], fmt),
                "max": reference_pyramid(layers[i], fmt, reduction="max"),
            }
            for key, pyramid in stacked.items():
                assert len(pyramid) == len(single[key]) == mip_count(6, 11)
                for a, b in zip(pyramid, single[key], strict=True):
                    np.testing.assert_allclose(a[i], b, rtol=1e-14)
        gpu = [np.rint(lv).astype(np.uint8) for lv in stacked["chain"]]
        step = step_reference(gpu, fmt)
        assert step[1].shape == (3, 5, 3, 4)
        means = exact_mean(layers, fmt)
        assert means.shape == (3, 4)
        np.testing.assert_allclose(means[2], exact_mean(layers[2], fmt), rtol=1e-14)


def test_bad_shape_rejected() -> None:
    with pytest.raises(ValueError):
        reduce_level(np.zeros((4, 4, 3)))
    with pytest.raises(ValueError):
        reference_pyramid(np.zeros((4, 4), np.uint8), Format.UNORM)


def test_decode_lookup_matches_decode() -> None:
    # the pyramid decodes 8-bit data through a table; it must equal formats.decode
    src = np.arange(256, dtype=np.uint8).reshape(8, 8, 4).repeat(2, axis=0)
    for fmt in (Format.UNORM, Format.SRGB):
        lin = decode(src, fmt)
        expected = lin.reshape(8, 2, 4, 2, 4).mean(axis=(1, 3))
        np.testing.assert_allclose(reduce_level(lin), expected, rtol=1e-13)
        chain = reference_pyramid(src, fmt)[1]
        np.testing.assert_allclose(decode(chain, fmt), expected, rtol=1e-9)


def _taps_reference(level0: np.ndarray, fmt: Format) -> list[np.ndarray]:
    """blit_reference as written before its strided taps: every tap a gather (np.take)."""
    from mipview.check.reference import _quantise
    from mipview.core.formats import encode

    def bilinear(a: np.ndarray, axis: int, dst: int) -> np.ndarray:
        src = a.shape[axis]
        if src == dst:
            return a
        u = (np.arange(dst, dtype=np.float64) + 0.5) * (src / dst) - 0.5
        x0 = np.floor(u)
        shape = [1] * a.ndim
        shape[axis] = dst
        f = (u - x0).reshape(shape)
        t0 = np.take(a, np.clip(x0.astype(np.intp), 0, src - 1), axis=axis)
        t1 = np.take(a, np.clip(x0.astype(np.intp) + 1, 0, src - 1), axis=axis)
        return t0 + (t1 - t0) * f

    out, stored = [level0.astype(np.float64)], level0
    h, w = level0.shape[-3:-1]
    for level in range(1, mip_count(w, h)):
        dw, dh = level_size(w, h, level)
        lin = bilinear(bilinear(decode(stored, fmt), -2, dw), -3, dh)
        out.append(_quantise(encode(lin, fmt), fmt))
        stored = out[-1].astype(fmt.dtype)
    return out


@pytest.mark.parametrize("fmt", list(Format), ids=lambda f: f.label)
@pytest.mark.parametrize("shape", [(16, 32, 4), (23, 37, 4), (3, 12, 10, 4), (1, 9, 4)])
def test_fast_decode_and_blit_taps_give_the_same_bits(fmt: Format, shape) -> None:
    """The table decode in bands (one lookup for all channels, sRGB alpha redone) and the
    strided taps of a halving side change no value: bit for bit the plain computation."""
    from mipview.core.formats import _decode_plain, to_storage

    level0 = to_storage(np.random.default_rng(3).random(shape) * 2.0, fmt)
    assert decode(level0, fmt).tobytes() == _decode_plain(level0, fmt).tobytes()
    got, want = blit_reference(level0, fmt), _taps_reference(level0, fmt)
    assert [a.tobytes() for a in got] == [b.tobytes() for b in want]


@pytest.mark.parametrize("fmt", list(Format), ids=lambda f: f.label)
@pytest.mark.parametrize("shape", [(23, 37, 4), (2, 21, 9, 4), (1, 17, 4), (17, 1, 4),
                                   (64, 48, 4)])
def test_levels_in_bands_are_the_same_bits(fmt: Format, shape, monkeypatch) -> None:
    """Decode, reduce and encode in bands of rows on every core (mipview.core.bands) give the bytes
    of the whole level in one piece: odd sides take their weights from the whole side."""
    from mipview.core import bands
    from mipview.core.formats import to_storage

    level0 = to_storage(np.random.default_rng(5).random(shape) * 1.5, fmt)
    monkeypatch.setattr(bands, "MIN_ELEMENTS", 1 << 40)  # one piece
    whole = [reference_pyramid(level0, fmt, r) for r in ("mean", "min", "max")]
    whole.append(blit_reference(level0, fmt))
    monkeypatch.setattr(bands, "MIN_ELEMENTS", 8)  # as many bands as cores, rows allow
    monkeypatch.setattr(bands, "cores", lambda: 5)
    banded = [reference_pyramid(level0, fmt, r) for r in ("mean", "min", "max")]
    banded.append(blit_reference(level0, fmt))
    for a, b in zip(whole, banded, strict=True):
        assert [x.tobytes() for x in a] == [y.tobytes() for y in b]
    # and the plain definition: reduce_level of the decoded level, one axis at a time
    plain = decode(level0, fmt)
    assert reduce_level(plain).tobytes() == _plain_reduce(plain).tobytes()


def _plain_reduce(a: np.ndarray) -> np.ndarray:
    """The reduction rule written out: per axis, 2:1 box on even sides, the area weights on odd."""
    for axis in (-2, -3):
        n = a.shape[axis]
        if n == 1:
            continue
        m = n // 2
        out = []
        for i in range(m):
            taps = [np.take(a, 2 * i + k, axis=axis) for k in range(2 + n % 2)]
            if n % 2 == 0:
                out.append((taps[0] + taps[1]) * 0.5)
            else:
                out.append(taps[0] * ((m - i) / n) + taps[1] * (m / n) + taps[2] * ((i + 1) / n))
        a = np.stack(out, axis=axis)
    return a


def test_a_failing_band_raises() -> None:
    from mipview.core import bands

    def band(start: int, stop: int) -> None:
        if stop == 64:  # the last band (the only one on one core)
            raise ValueError("band broke")

    with pytest.raises(ValueError, match="band broke"):
        bands.for_rows(band, 64, 1 << 30)


def test_bands_within_bands_run_in_place(monkeypatch) -> None:
    """A band that splits its work again (compare.max_error's bands call texel_errors, itself
    in bands) must not wait on the pool it runs in: with every pool thread inside a band,
    that wait would never end."""
    from mipview.core import bands

    monkeypatch.setattr(bands, "MIN_ELEMENTS", 1)
    seen = []

    def inner(start: int, stop: int) -> None:
        seen.append(stop - start)

    def outer(start: int, stop: int) -> None:
        bands.for_rows(inner, 8, 1 << 20)

    done = threading.Event()
    t = threading.Thread(target=lambda: (bands.for_rows(outer, 64, 1 << 20), done.set()),
                         daemon=True)
    t.start()
    assert done.wait(10), "bands within bands deadlocked"
    assert sum(seen) == 8 * min(64, bands.cores())


@pytest.mark.parametrize("fmt", list(Format), ids=lambda f: f.label)
def test_stored_chain_from_the_chain_references_level_one(fmt: Format) -> None:
    """The exact reduction of level 0 is the chain reference's level 1, bit for bit: a stored
    chain started from it is the chain started from level 0 (and a wrong ``first`` shows)."""
    from mipview.check.reference import stored_chain
    from mipview.core.formats import to_storage

    level0 = to_storage(np.random.default_rng(8).random((21, 34, 4)), fmt)
    ref = reference_pyramid(level0, fmt)
    plain = list(stored_chain(level0, fmt))
    given = list(stored_chain(level0, fmt, first=ref[1]))
    assert [a.tobytes() for a in plain] == [b.tobytes() for b in given]
    wrong = list(stored_chain(level0, fmt, first=ref[1] * 0.5))
    assert wrong[1].tobytes() != plain[1].tobytes()


def test_r16_is_held_in_16_bit_codes_and_judged_in_their_lsb() -> None:
    """r16 keeps 16-bit codes (LSB 1/65535): an 8-bit image widened to code * 257 has the 8-bit
    reference times 257; the correctly rounded chain keeps the stored promise, and one texel
    one LSB (of 16 bits) further from its exact value fails at that very level."""
    from mipview.check.reference import stored_chain
    from mipview.check.verdict import judge
    from mipview.core.formats import to_storage

    eight = to_storage(np.random.default_rng(9).random((19, 26, 4)), Format.R8)
    wide = (eight.astype(np.uint16) * 257).astype(np.uint16)
    assert np.array_equal(wide, to_storage(eight / 255.0, Format.R16))
    for a, b in zip(reference_pyramid(wide, Format.R16), reference_pyramid(eight, Format.R8),
                    strict=True):
        np.testing.assert_allclose(a, b * 257, rtol=1e-14, atol=1e-9)
    level0 = to_storage(np.random.default_rng(10).random((37, 45, 4)), Format.R16)
    chain = [lv.astype(np.uint16) for lv in stored_chain(level0, Format.R16)]
    good = judge(chain, level0, Format.R16)
    assert good.within_tolerance and good.exact.step[1].unit == "LSB"
    assert 0.5 < good.step_bounds[1] < 0.6  # 0.5 LSB of 16 bits and the float32 arithmetic
    k, at = 2, (3, 4, 0)
    exact = step_reference(chain, Format.R16)[k][at]
    bad = list(chain)
    bad[k] = chain[k].copy()
    bad[k][at] = int(chain[k][at]) + (1 if chain[k][at] >= exact else -1)  # 1 LSB further
    verdict = judge(bad, level0, Format.R16)
    assert verdict.failing_levels[0] == k
    worst = next(b for b in verdict.breaches if b.figure == "step").error
    assert worst.level == k and worst.worst == (0, *at) and 1.0 <= worst.max_error < 1.5


def test_rgb10a2_is_held_in_its_codes_and_judged_in_each_channels_lsb() -> None:
    """rgb10a2 keeps codes (colour 0..1023, alpha 0..3): its reference is in those units, and
    one texel's alpha one LSB (1/3) further from its exact value fails at that very level,
    as one colour LSB (1/1023) does."""
    from mipview.check.reference import stored_chain
    from mipview.check.verdict import judge
    from mipview.core.formats import to_storage

    fmt = Format.RGB10A2
    level0 = to_storage(np.random.default_rng(12).random((37, 45, 4)), fmt)
    assert level0.dtype == np.uint16 and level0[..., 3].max() == 3 and level0[..., :3].max() > 1000
    np.testing.assert_allclose(decode(level0, fmt)[..., 3], level0[..., 3] / 3.0)
    chain = [lv.astype(np.uint16) for lv in stored_chain(level0, fmt)]
    assert all(lv[..., 3].max() <= 3 for lv in chain)
    good = judge(chain, level0, fmt)
    assert good.within_tolerance and good.exact.step[1].unit == "LSB"
    k = 2
    for ch in (0, 3):
        inside = (chain[k][..., ch] > 0) & (chain[k][..., ch] < fmt.scale[ch])  # room both ways
        at = (*(int(i) for i in np.argwhere(inside)[0]), ch)
        exact = step_reference(chain, fmt)[k][at]
        bad = list(chain)
        bad[k] = chain[k].copy()
        away = 1 if chain[k][at] >= exact else -1
        bad[k][at] = int(chain[k][at]) + away  # one LSB of its channel further
        verdict = judge(bad, level0, fmt)
        assert verdict.failing_levels[0] == k
        worst = next(b for b in verdict.breaches if b.figure == "step").error
        assert worst.level == k and worst.worst == (0, *at) and 1.0 <= worst.max_error < 1.5


def test_b10g11r11_rounds_to_its_grid_to_nearest_even() -> None:
    """The 11/11/10-bit grid (6/6/5-bit mantissas, no sign): every value and every midpoint of
    the tables rounds as a search says (ties to the even mantissa), negatives store 0, past the
    largest finite value by half an ulp is +Inf; the words hold every code and come back."""
    from mipview.core import packed

    for c, mantissa in enumerate(packed.FLOAT11_MANTISSA):
        table = packed.float11_values(mantissa)
        assert table.size == 31 << mantissa and np.all(np.diff(table) > 0)
        assert table[-1] == (2 - 2.0 ** -mantissa) * 2.0 ** 15  # 65024, 64512
        mid = (table[:-1] + table[1:]) / 2
        n = table.size
        x = np.zeros((3 * n + 2, 4))
        x[:, c] = np.concatenate([table, mid, mid + 1e-9 * table[1:], [-1.0, -np.inf,
                                 table[-1] + 2.0 ** (14 - mantissa), np.nan]])
        got = packed.round_float11(x)[:, c]
        np.testing.assert_array_equal(got[:n], table)
        even = np.arange(n - 1) % 2 == 0  # a tie goes to the even code of its two
        np.testing.assert_array_equal(got[n:2 * n - 1], np.where(even, table[:-1], table[1:]))
        np.testing.assert_array_equal(got[2 * n - 1:3 * n - 2], table[1:])
        assert got[-4] == 0 and got[-3] == 0 and got[-2] == np.inf and np.isnan(got[-1])
        words = packed.pack_float11(packed.round_float11(x))
        back = packed.unpack_float11(words)[:, c].astype(np.float64)
        np.testing.assert_array_equal(back[:n], table)
        assert back[-2] == np.inf and np.isnan(back[-1])
    assert np.array_equal(packed.unpack_float11(np.array([[0xFFFFFFFF]], np.uint32))[0, 3], 1.0)
    codes = np.random.default_rng(3).integers(0, 1024, (50, 4)).astype(np.uint16)
    codes[:, 3] %= 4
    assert np.array_equal(packed.unpack_unorm10(packed.pack_unorm10(codes)), codes)
    assert packed.pack_unorm10(np.array([1023, 0, 0, 3]))[0] == 0xC00003FF  # R lowest, A top


def test_b10g11r11_is_judged_relative_to_its_coarse_mantissas() -> None:
    """b10g11r11's correctly rounded chain keeps the stored promise (half an ulp of B's 5-bit
    mantissa, 2^-6 relative, plus the arithmetic), and one texel moved one step of its grid
    away from its exact value fails at that very level."""
    from mipview.check.reference import stored_chain
    from mipview.check.verdict import judge
    from mipview.core.formats import grid_step, to_storage

    fmt = Format.B10G11R11
    level0 = to_storage(np.random.default_rng(13).random((37, 45, 4)) * 40.0, fmt)
    assert level0.dtype == np.float32 and (level0[..., 3] == 1).all()
    chain = [lv.astype(np.float32) for lv in stored_chain(level0, fmt)]
    good = judge(chain, level0, fmt)
    assert good.within_tolerance and good.exact.step[1].unit == "relative"
    assert 2.0**-6 < good.step_bounds[1] < 2.0**-6 + 2.0**-20 / 1e-3 + 1e-4  # + denormals
    k, at = 2, (3, 4, 2)  # blue: 5-bit mantissa
    exact = step_reference(chain, fmt)[k][at]
    bad = list(chain)
    bad[k] = chain[k].copy()
    step = grid_step(chain[k], fmt, 1 if chain[k][at] >= exact else -1)
    bad[k][at] = step[at]
    verdict = judge(bad, level0, fmt)
    assert verdict.failing_levels[0] == k
    worst = next(b for b in verdict.breaches if b.figure == "step").error
    assert worst.level == k and worst.worst == (0, *at) and worst.max_error > 2.0**-6


def test_mipview_threads_sets_the_analysis_threads(monkeypatch):
    from mipview.core import bands
    from mipview.runs import analysis

    monkeypatch.setenv("MIPVIEW_THREADS", "3")
    assert bands.cores() == 3 and analysis.pool_size() == 2
    monkeypatch.setenv("MIPVIEW_THREADS", "1")
    assert bands.cores() == 1 and analysis.pool_size() == 1  # at least one thread analyses
    for bad in ("0", "many", ""):  # not a count: the cores the process may use, at most 4
        monkeypatch.setenv("MIPVIEW_THREADS", bad)
        assert bands.cores() == min(len(os.sched_getaffinity(0)), bands.DEFAULT_THREADS)
