"""Storage conversion, no GPU."""

import numpy as np
import pytest

from mipview.core.formats import Format, to_storage


@pytest.mark.parametrize("fmt", list(Format))
def test_to_storage_fast_path_equals_float64_path(fmt, rng):
    k = np.arange(256, dtype=np.float64)
    values = np.concatenate([
        rng.random(4000), k / 255.0, k / 65535.0 * 257, (k + 0.5) / 255.0,
        (k + 0.5) / 255.0 + 1e-7, (k + 0.5) / 255.0 - 1e-7, [-0.5, 0.0, 1.0, 1.5, 3.0]])
    pixels = np.resize(values.astype(np.float32), (20, 260, 4))
    # the original float64 path, written out, so to_storage's float32 fast path is checked
    # bit for bit against it (not against itself)
    p64 = pixels.astype(np.float64)
    want = p64.astype(fmt.dtype) if fmt.is_float else \
        np.clip(np.rint(p64 * 255.0), 0, 255).astype(np.uint8)
    want = fmt.unpack(want[..., :fmt.channels])  # the channels an R or RG image lacks: 0, 0, 1
    for got in (to_storage(pixels, fmt), to_storage(pixels[None].repeat(2, axis=0), fmt)[1]):
        assert got.dtype == want.dtype and got.shape == want.shape
        assert np.array_equal(got.view(np.uint8), want.view(np.uint8))
    assert np.array_equal(to_storage(p64, fmt).view(np.uint8), want.view(np.uint8))
