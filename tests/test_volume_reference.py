"""The exact float64 chain of a volume (mipview/check/volume_reference.py), checked against a
brute force that integrates each output texel's box over the texels below, texel by texel."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from mipview.check.reference import reduce_axis_mean, reduce_level, reference_pyramid
from mipview.check.volume_reference import (
    reduce_volume,
    reduce_volume_extreme,
    volume_pyramid,
    volume_step,
)
from mipview.core.formats import Format, decode
from mipview.core.volume import (
    volume_dims,
    volume_level_size,
    volume_mip_count,
    volume_texels,
)

#: (W, H, D)
SIZES = [(1, 1, 1), (3, 3, 3), (5, 7, 9), (9, 9, 9), (8, 4, 2), (1, 1, 7)]


def volume(w: int, h: int, d: int, seed: int = 0) -> np.ndarray:
    """Random 8-bit storage values (D, H, W, 4)."""
    return np.random.default_rng(seed).integers(0, 256, (d, h, w, 4), dtype=np.uint8)


# --- the brute force: the box's definition, nothing of the implementation ---------------------

def overlap(n: int, out: int) -> list[list[Fraction]]:
    """``[i][j]``: the part of output texel i's footprint that source texel j covers, exactly:
    ``|[j, j+1) ∩ [i s, (i+1) s)| / s`` with ``s = n / out``."""
    s = Fraction(n, out)
    rows = []
    for i in range(out):
        lo, hi = i * s, (i + 1) * s
        rows.append([max(Fraction(0), min(hi, j + 1) - max(lo, Fraction(j))) / s
                     for j in range(n)])
    return rows


def brute_step(src: np.ndarray) -> np.ndarray:
    """One box step, by explicit loops over every output texel and every source texel."""
    d, h, w, c = src.shape
    od, oh, ow = max(1, d // 2), max(1, h // 2), max(1, w // 2)
    wz, wy, wx = overlap(d, od), overlap(h, oh), overlap(w, ow)
    out = np.zeros((od, oh, ow, c))
    for k, i, j in itertools.product(range(od), range(oh), range(ow)):
        acc = np.zeros(c)
        for z, y, x in itertools.product(range(d), range(h), range(w)):
            weight = wz[k][z] * wy[i][y] * wx[j][x]
            if weight:
                acc += float(weight) * src[z, y, x]
        out[k, i, j] = acc
    return out


def brute_step_matrices(src: np.ndarray) -> np.ndarray:
    """The same box, for larger sizes: the exact overlaps per axis as matrices, one einsum."""
    d, h, w, _ = src.shape
    wz, wy, wx = (np.array(overlap(n, max(1, n // 2)), dtype=np.float64) for n in (d, h, w))
    return np.einsum("kz,iy,jx,zyxc->kijc", wz, wy, wx, src, optimize=True)


def brute_extreme(src: np.ndarray, fn: np.ufunc) -> np.ndarray:
    """Min or max over every source texel that the output's footprint covers any of."""
    d, h, w, c = src.shape
    od, oh, ow = max(1, d // 2), max(1, h // 2), max(1, w // 2)
    wz, wy, wx = overlap(d, od), overlap(h, oh), overlap(w, ow)
    out = np.empty((od, oh, ow, c), src.dtype)
    for k, i, j in itertools.product(range(od), range(oh), range(ow)):
        taps = [src[z, y, x] for z, y, x in itertools.product(range(d), range(h), range(w))
                if wz[k][z] and wy[i][y] and wx[j][x]]
        out[k, i, j] = fn.reduce(np.array(taps), axis=0)
    return out


# --- sizes -------------------------------------------------------------------------------------

@pytest.mark.parametrize(("w", "h", "d"), SIZES + [(33, 33, 33)])
def test_level_sizes(w: int, h: int, d: int) -> None:
    n = volume_mip_count(w, h, d)
    assert n == int(np.floor(np.log2(max(w, h, d)))) + 1
    sizes = [volume_level_size(w, h, d, k) for k in range(n)]
    assert sizes[0] == (w, h, d) and sizes[-1] == (1, 1, 1)
    assert all(s != (1, 1, 1) for s in sizes[:-1])  # the chain ends at the first 1x1x1
    for a, b in itertools.pairwise(sizes):
        assert b == tuple(max(1, side // 2) for side in a)
    shapes = [lv.shape for lv in volume_pyramid(np.zeros((d, h, w, 4), np.uint8), Format.UNORM)]
    assert shapes == [(sd, sh, sw, 4) for sw, sh, sd in sizes]


def test_sizes_by_hand() -> None:
    assert volume_mip_count(1, 1, 1) == 1
    assert volume_mip_count(1, 1, 7) == 3
    assert volume_mip_count(8, 4, 2) == 4
    assert [volume_level_size(8, 4, 2, k) for k in range(4)] == \
        [(8, 4, 2), (4, 2, 1), (2, 1, 1), (1, 1, 1)]
    assert [volume_level_size(5, 7, 9, k) for k in range(4)] == \
        [(5, 7, 9), (2, 3, 4), (1, 1, 2), (1, 1, 1)]
    assert volume_dims(np.zeros((9, 7, 5, 4))) == (5, 7, 9)


# --- the box against the brute force -----------------------------------------------------------

@pytest.mark.parametrize(("w", "h", "d"), SIZES)
def test_every_step_is_the_brute_force_box(w: int, h: int, d: int) -> None:
    src = decode(volume(w, h, d), Format.SRGB)
    cur = src
    for _ in range(1, volume_mip_count(w, h, d)):
        got, expected = reduce_volume(cur), brute_step(cur)
        assert got.shape == expected.shape and got.dtype == np.float64
        np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-15)
        cur = got


def test_33_cubed_is_the_brute_force_box() -> None:
    src = np.random.default_rng(3).random((33, 33, 33, 4))
    cur = src
    for _ in range(1, volume_mip_count(33, 33, 33)):
        got = reduce_volume(cur)
        np.testing.assert_allclose(got, brute_step_matrices(cur), rtol=1e-13, atol=1e-15)
        cur = got
    assert cur.shape == (1, 1, 1, 4)


def test_3x3x3_by_hand() -> None:
    # 3 = 2*1 + 1 -> 1: weights 1/3 each on every axis, so the plain mean of the 27
    src = np.random.default_rng(1).random((3, 3, 3, 4))
    np.testing.assert_allclose(reduce_volume(src)[0, 0, 0], src.mean(axis=(0, 1, 2)), rtol=1e-14)
    # a ramp in z (value = z) over 5 slices: 0*.4 + 1*.4 + 2*.2 = 0.8 and 2*.2 + 3*.4 + 4*.4
    ramp = np.broadcast_to(np.arange(5.0)[:, None, None, None], (5, 2, 2, 4))
    np.testing.assert_allclose(reduce_volume(ramp)[:, 0, 0, 0], [0.8, 3.2])


def test_depth_1_is_the_2d_reference_and_depth_is_one_more_axis() -> None:
    v = decode(volume(5, 7, 1, seed=2), Format.SRGB)
    assert np.array_equal(reduce_volume(v)[0], reduce_level(v[0]))  # the very bytes
    flat = volume(5, 7, 1, seed=2)
    chain, flat_chain = volume_pyramid(flat, Format.SRGB), reference_pyramid(flat[0], Format.SRGB)
    assert len(chain) == len(flat_chain)
    for a, b in zip(chain, flat_chain, strict=True):
        assert np.array_equal(a[0], b)
    # any depth: the 2D step on every slice (slices as layers), then the same rule along z
    v = decode(volume(5, 7, 9, seed=2), Format.SRGB)
    assert np.array_equal(reduce_volume(v), reduce_axis_mean(reduce_level(v), 0))


def test_varies_in_x_only_is_the_2d_reference_of_one_slice() -> None:
    row = np.random.default_rng(4).random(9)
    v = np.broadcast_to(row[None, None, :, None], (7, 5, 9, 4))
    levels = volume_pyramid(v, Format.F32)
    flat = reference_pyramid(v[0], Format.F32)
    for k, level in enumerate(levels):
        d = level.shape[0]
        ref = flat[min(k, len(flat) - 1)]
        # once the slice is 1x1 the 2D chain has ended; along z every slice is the same
        np.testing.assert_allclose(level, np.broadcast_to(ref, (d,) + ref.shape), rtol=1e-14)


@pytest.mark.parametrize(("w", "h", "d"), SIZES)
@pytest.mark.parametrize("fmt", [Format.UNORM, Format.F16])
def test_a_constant_volume_stays_constant(w: int, h: int, d: int, fmt: Format) -> None:
    value = np.array([0, 37, 200, 255], fmt.dtype)
    v = np.broadcast_to(value, (d, h, w, 4))
    const = value.astype(np.float64)
    for reduction in ("min", "max", "minmax"):  # picked values: bit-exact at every size
        for level in volume_pyramid(v, fmt, reduction):
            assert np.array_equal(level, np.broadcast_to(const, level.shape))
    all_even = all(side % 2 == 0 or side == 1 for side in (w, h, d))
    for level in volume_pyramid(v, fmt):
        if all_even:  # halves of equal values: bit-exact
            assert np.array_equal(level, np.broadcast_to(const, level.shape))
        # odd sides weigh by thirds, fifths, ... which float64 rounds: the 2D reference's own
        # few ulp (reference_pyramid gives the same), and the stored value back when rounded
        np.testing.assert_allclose(level, np.broadcast_to(const, level.shape), rtol=1e-14)
        assert np.array_equal(np.round(level), np.broadcast_to(const, level.shape))


@pytest.mark.parametrize(("w", "h", "d"), SIZES + [(33, 33, 33)])
def test_the_mean_is_kept_at_every_size(w: int, h: int, d: int) -> None:
    # every source texel of an odd side weighs m/n in total, so NPOT sizes keep it too
    src = volume(w, h, d, seed=5)
    mean = src.astype(np.float64).mean(axis=(0, 1, 2))
    for level in volume_pyramid(src, Format.UNORM):
        np.testing.assert_allclose(level.mean(axis=(0, 1, 2)), mean, rtol=1e-12)


def test_volume_step_is_one_level_of_the_chain() -> None:
    src = volume(5, 7, 9, seed=6)
    for fmt in (Format.UNORM, Format.SRGB):
        assert np.array_equal(volume_step(src, fmt), volume_pyramid(src, fmt)[1])
    for op in ("min", "max", "minmax"):
        assert np.array_equal(volume_step(src, Format.UNORM, op),
                              volume_pyramid(src, Format.UNORM, op)[1])
    # from a stored (rounded) level, not the float64 chain
    stored = np.round(volume_pyramid(src, Format.SRGB)[1]).astype(np.uint8)
    expected = volume_pyramid(stored, Format.SRGB)[1]
    assert np.array_equal(volume_step(stored, Format.SRGB), expected)


# --- min and max -------------------------------------------------------------------------------

@pytest.mark.parametrize(("w", "h", "d"), SIZES)
def test_min_max_are_bit_exact_footprint_extremes(w: int, h: int, d: int) -> None:
    src = np.random.default_rng(7).random((d, h, w, 4)).astype(np.float32)
    for op, fn in (("min", np.minimum), ("max", np.maximum)):
        cur = src
        for _ in range(1, volume_mip_count(w, h, d)):
            got = reduce_volume_extreme(cur, op)
            assert got.dtype == np.float32
            assert np.array_equal(got, brute_extreme(cur, fn))
            cur = got
    mm = reduce_volume_extreme(src, "minmax")
    assert np.array_equal(mm[..., :1], brute_extreme(src[..., :1], np.minimum))
    assert np.array_equal(mm[..., 1:], brute_extreme(src[..., 1:], np.maximum))


def _covered(n: int, out: int, i: int) -> range:
    """Level-0 texels of a side of n whose span meets output i's (of out) in the open."""
    return range(n) if out == 1 else range(
        (i * n) // out, min(n, -(-((i + 1) * n) // out)))


@pytest.mark.parametrize(("w", "h", "d"), [(5, 7, 9), (9, 9, 9), (1, 1, 7)])
def test_min_max_chains_are_conservative(w: int, h: int, d: int) -> None:
    src = volume(w, h, d, seed=8)
    lo, hi = volume_pyramid(src, Format.UNORM, "min"), volume_pyramid(src, Format.UNORM, "max")
    for k in range(1, len(lo)):
        od, oh, ow = lo[k].shape[:3]
        for z, y, x in itertools.product(range(od), range(oh), range(ow)):
            under = src[_covered(d, od, z)][:, _covered(h, oh, y)][:, :, _covered(w, ow, x)]
            under = under.reshape(-1, 4)
            assert (lo[k][z, y, x] <= under.min(axis=0)).all()
            assert (hi[k][z, y, x] >= under.max(axis=0)).all()
    # and the top level is the extreme of the whole volume
    assert np.array_equal(lo[-1][0, 0, 0], src.min(axis=(0, 1, 2)))
    assert np.array_equal(hi[-1][0, 0, 0], src.max(axis=(0, 1, 2)))


def test_a_nan_tap_is_dropped() -> None:
    v = np.ones((3, 3, 3, 4), np.float32)
    v[1, 1, 1] = np.nan
    v[0, 0, 0, 0] = 0.25
    assert np.array_equal(reduce_volume_extreme(v, "min")[0, 0, 0], [0.25, 1, 1, 1])
    assert np.isnan(reduce_volume(v)[0, 0, 0]).all()  # the mean propagates it


# --- wrong answers and wrong input ---------------------------------------------------------------

def two_tap_step(a: np.ndarray) -> np.ndarray:
    """A wrong box: 2 taps of 1/2 on every axis, the last texel of an odd side dropped (what a
    plain 2x2x2 average of texels 2i, 2i+1 does)."""
    for axis in (2, 1, 0):
        n = a.shape[axis]
        if n > 1:
            m = n // 2
            a = 0.5 * (np.take(a, range(0, 2 * m, 2), axis) + np.take(a, range(1, 2 * m, 2), axis))
    return a


def matches(levels: list[np.ndarray], reference: list[np.ndarray]) -> bool:
    """The check: same shapes, within float64 rounding of the reference."""
    return len(levels) == len(reference) and all(
        a.shape == b.shape and np.allclose(a, b, rtol=1e-12, atol=1e-9)
        for a, b in zip(levels, reference, strict=True))


@pytest.mark.parametrize(("w", "h", "d", "odd"), [(5, 7, 9, True), (8, 8, 9, True),
                                                  (8, 4, 2, False)])
def test_the_check_fails_on_a_wrong_box(w: int, h: int, d: int, odd: bool) -> None:
    src = volume(w, h, d, seed=9)
    reference = volume_pyramid(src, Format.UNORM)
    wrong = [src.astype(np.float64)]
    for _ in range(1, len(reference)):
        wrong.append(two_tap_step(wrong[-1]))
    assert matches(reference, reference)
    # on even sides the 2-tap box is the box; an odd side (here only z, for 8x8x9) breaks it
    assert matches(wrong, reference) is not odd


def test_a_wrong_input_says_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="volume is a"):
        reduce_volume(np.zeros((4, 4, 4)))  # a 2D level, not a volume
    with pytest.raises(ValueError, match="volume is a"):
        volume_pyramid(np.zeros((4, 4, 4), np.uint8), Format.UNORM)
    with pytest.raises(ValueError, match="at least one texel"):
        reduce_volume(np.zeros((0, 4, 4, 4)))  # depth 0
    with pytest.raises(ValueError, match="at least one texel"):
        volume_pyramid(np.zeros((0, 4, 4, 4), np.uint8), Format.UNORM)
    with pytest.raises(ValueError, match="at least one texel"):
        volume_mip_count(4, 4, 0)
    with pytest.raises(ValueError, match=r"\(D, H, W, 4\)"):
        volume_pyramid(np.zeros((2, 4, 4, 3), np.uint8), Format.UNORM)
    with pytest.raises(ValueError, match="unknown reduction"):
        volume_pyramid(np.zeros((2, 2, 2, 4), np.uint8), Format.UNORM, "median")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown reduction"):
        reduce_volume_extreme(np.zeros((2, 2, 2, 4)), "mean")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="level is 0 or more"):
        volume_level_size(4, 4, 4, -1)
    assert volume_texels(np.zeros((1, 1, 1, 1))).shape == (1, 1, 1, 1)


def test_the_input_is_left_as_it_was() -> None:
    v = np.random.default_rng(10).random((1, 1, 1, 4))
    for out in (reduce_volume(v), reduce_volume_extreme(v, "max")):
        assert not np.shares_memory(out, v)
