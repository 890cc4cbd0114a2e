"""Storage conversion, no GPU."""

import numpy as np
import pytest

from mipview.core import packed
from mipview.core.formats import Format, to_storage


@pytest.mark.parametrize("fmt", list(Format))
def test_to_storage_fast_path_equals_float64_path(fmt, rng):
    k = np.arange(256, dtype=np.float64)
    k16 = rng.integers(0, 65535, 256).astype(np.float64)  # 16-bit half-way points too
    values = np.concatenate([
        rng.random(4000), k / 255.0, k / 65535.0 * 257, (k + 0.5) / 255.0,
        (k + 0.5) / 255.0 + 1e-7, (k + 0.5) / 255.0 - 1e-7, (k16 + 0.5) / 65535.0,
        (k16 + 0.5) / 65535.0 + 1e-9, (k16 + 0.5) / 65535.0 - 1e-9, [-0.5, 0.0, 1.0, 1.5, 3.0]])
    pixels = np.resize(values.astype(np.float32), (20, 300, 4))
    # the original float64 path, written out, so to_storage's float32 fast path is checked
    # bit for bit against it (not against itself)
    p64 = pixels.astype(np.float64)
    want = p64.astype(fmt.dtype) if fmt.is_float else \
        np.clip(np.rint(p64 * fmt.scale), 0, fmt.scale).astype(fmt.dtype)
    if fmt.packing == "float11":  # b10g11r11's own grid (tested against a search below)
        want = packed.round_float11(p64).astype(fmt.dtype)
    want = fmt.held(want)  # the channels an R or RG image lacks: 0, 0, 1
    for got in (to_storage(pixels, fmt), to_storage(pixels[None].repeat(2, axis=0), fmt)[1]):
        assert got.dtype == want.dtype and got.shape == want.shape
        assert np.array_equal(got.view(np.uint8), want.view(np.uint8))
    assert np.array_equal(to_storage(p64, fmt).view(np.uint8), want.view(np.uint8))


def test_16bit_codes_come_back_from_their_float32_values():
    """A 16-bit file's codes as float32 pixels (code * (1 / 65535), imageio._rgba) round back to
    every code in r16, and 8-bit codes widen to code * 257."""
    codes = np.arange(65536, dtype=np.uint16)
    pixels = np.zeros((1, 65536, 4), np.float32)
    pixels[0, :, 0] = codes.astype(np.float32) * np.float32(1.0 / 65535.0)
    got = to_storage(pixels, Format.R16)
    assert got.dtype == np.uint16 and np.array_equal(got[0, :, 0], codes)
    assert np.array_equal(got[0, :, 3], np.full(65536, 65535))  # alpha an R image lacks: 1.0
    eight = np.arange(256, dtype=np.float32)[None, :, None].repeat(4, -1) * np.float32(1 / 255)
    assert np.array_equal(to_storage(eight, Format.RGBA16)[0, :, 0], np.arange(256) * 257)
