"""The GPU mean / log-mean (mipview.gpu.mean) against numpy's float64, to float32 rounding."""

from __future__ import annotations

import numpy as np
import pytest

from mipview.core.formats import Format, to_storage
from mipview.gpu.mean import MeanError, gpu_mean, mean_reference, plan_passes
from mipview.io import synthetic
from tests.gpu_formats import GPU_FORMATS

# float32 arithmetic over a tree of merges: a few ulps (2^-24 ~ 6e-8) relative
RTOL = 1e-6
SIZES = [(1920, 1080), (1, 1), (7, 3), (4097, 3), (3, 4097), (65, 64)]


def _rel(gpu: np.ndarray, ref: np.ndarray) -> float:
    return float(np.max(np.abs(gpu - ref) / np.maximum(np.abs(ref), 1e-12)))


def test_plan_passes():
    assert [p.grid for p in plan_passes(1920, 1080, 8)] == [(1920, 1080), (60, 34), (2, 2)]
    assert [p.span for p in plan_passes(1920, 1080, 8)] == [1, 32, 1024]
    assert [p.groups for p in plan_passes(1920, 1080, 16)] == [(30, 17), (1, 1)]
    assert len(plan_passes(1, 1, 8)) == 1  # the image is always read once


@pytest.mark.parametrize("fmt", GPU_FORMATS, ids=lambda f: f.label)
@pytest.mark.parametrize("kind", ["mean", "log-mean"])
def test_random_images(gpu, fmt, kind):
    for i, (w, h) in enumerate(SIZES):
        level0 = to_storage(synthetic.image(w, h, seed=i, kind="noise").pixels, fmt)
        ref = mean_reference(level0, fmt, kind)
        block = (8, 16)[i % 2]
        for method in ("weighted", "padded"):
            got = gpu_mean(gpu, level0, fmt, kind, block=block, method=method)
            assert got.shape == ref.shape
            assert _rel(got, ref) <= RTOL, (w, h, method, got, ref)


@pytest.mark.parametrize("block", [8, 16])
def test_zoneplate_log_mean_both_blocks(gpu, block):
    level0 = to_storage(synthetic.image(1920, 1080).pixels, Format.SRGB)
    for kind in ("mean", "log-mean"):
        got = gpu_mean(gpu, level0, Format.SRGB, kind, block=block)
        assert _rel(got, mean_reference(level0, Format.SRGB, kind)) <= RTOL


@pytest.mark.parametrize("fmt", [Format.UNORM, Format.F16, Format.F32], ids=lambda f: f.label)
def test_constant_image_gives_that_constant(gpu, fmt):
    """Weighted merges of equal means are exact: the constant comes back bit for bit, as the
    float32 the shader fetched (for 8-bit the device's k / 255, which lavapipe does not round
    correctly: so the 1x1 image, whose mean is its one texel, gives the expected value)."""
    texel = to_storage(np.full((1, 1, 4), [0.3, 0.7, 0.01, 1.0]), fmt)
    one = gpu_mean(gpu, texel, fmt, "mean")
    if fmt.is_float:
        np.testing.assert_array_equal(one, texel[0, 0].astype(np.float64))
    else:
        assert _rel(one, texel[0, 0].astype(np.float64)) <= RTOL
    for w, h in [(7, 3), (4097, 3), (1920, 1080)]:
        level0 = np.ascontiguousarray(np.broadcast_to(texel, (h, w, 4)))
        got = gpu_mean(gpu, level0, fmt, "mean", block=8 if w % 2 else 16)
        np.testing.assert_array_equal(got, one)


def test_black_image_log_mean_is_eps(gpu):
    level0 = np.zeros((3, 7, 4), np.uint8)
    got = gpu_mean(gpu, level0, Format.UNORM, "log-mean")
    assert np.isfinite(got)
    assert _rel(got, mean_reference(level0, Format.UNORM, "log-mean")) <= RTOL


def test_layers(gpu):
    level0 = np.random.default_rng(5).integers(0, 256, (3, 9, 70, 4), dtype=np.uint8)
    got = gpu_mean(gpu, level0, Format.SRGB, "mean")
    assert got.shape == (3, 4)
    assert _rel(got, mean_reference(level0, Format.SRGB)) <= RTOL


def test_bad_arguments(gpu):
    level0 = np.zeros((2, 2, 4), np.uint8)
    with pytest.raises(MeanError, match="block"):
        gpu_mean(gpu, level0, Format.UNORM, block=4)
    with pytest.raises(MeanError, match="kind"):
        gpu_mean(gpu, level0, Format.UNORM, kind="median")
