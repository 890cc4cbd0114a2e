"""Per-context caches (pipelines, samplers): made once per key, freed once when the context
closes."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from mipview.core.formats import Format
from mipview.gpu.vulkan import resources
from mipview.gpu.vulkan.pipelines import closing_cache, get_sampler
from mipview.gpu.vulkan.resources import MipImage, readback_buffer


def test_closing_cache_frees_its_values_once_on_close() -> None:
    closing: list = []
    ctx = SimpleNamespace(caches={}, on_close=closing.append)
    freed: list = []
    cache = closing_cache(ctx, "things", freed.append)
    cache["a"], cache["b"] = 1, 2
    assert closing_cache(ctx, "things", freed.append) is cache
    assert len(closing) == 1  # one callback for the cache, however often it is asked for
    other = closing_cache(ctx, "others", freed.append)
    other["c"] = 3
    assert len(closing) == 2 and ctx.caches == {"things": cache, "others": other}
    closing[0]()
    assert freed == [1, 2] and cache == {} and other == {"c": 3}


def test_samplers_are_cached_per_context(gpu) -> None:
    linear, nearest = get_sampler(gpu, linear=True), get_sampler(gpu)
    assert get_sampler(gpu, linear=True) is linear and get_sampler(gpu) is nearest
    cache = gpu.caches["samplers"]  # keyed by (filtered, reduction mode)
    assert cache[(True, None)] is linear and cache[(False, None)] is nearest
    if gpu.caps.sampler_minmax:
        low = get_sampler(gpu, reduction="min")
        assert get_sampler(gpu, reduction="min") is low and low not in (linear, nearest)
        assert cache[(True, "min")] is low


def test_reads_back_through_one_kept_buffer(gpu, monkeypatch) -> None:
    # sizes above what the session's context keeps from earlier tests
    before = closing_cache(gpu, "readback", resources.Buffer.destroy).get("buffer")
    size = (before.size if before is not None else 0) + 4096
    with readback_buffer(gpu, size) as first:
        with readback_buffer(gpu, 64) as meanwhile:  # the kept one is taken: one of its own
            assert meanwhile is not first
        assert meanwhile.handle is not None  # kept until the larger one comes back
    assert meanwhile.handle is None and first.handle is not None
    assert before is None or before.handle is None  # too small: replaced
    with readback_buffer(gpu, size - 100) as again:
        assert again is first
    with readback_buffer(gpu, 2 * size) as grown:
        assert grown.size >= 2 * size and first.handle is None
    monkeypatch.setattr(resources, "KEEP_BYTES", 3 * size)
    with readback_buffer(gpu, 4 * size) as large:  # too large to keep
        pass
    assert large.handle is None and gpu.caches["readback"] == {"buffer": grown}


def test_levels_read_back_stay_when_the_kept_buffer_is_read_again(gpu) -> None:
    from mipview.io import synthetic

    fmt = Format.parse("unorm")
    images = [MipImage(gpu, fmt, 37, 19), MipImage(gpu, fmt, 37, 19)]
    level0 = synthetic.image(37, 19).storage(fmt)
    try:
        images[0].upload(level0)
        images[1].upload(255 - level0)
        first = images[0].read_levels()
        images[1].read_levels()  # through the same buffer
    finally:
        for image in images:
            image.destroy()
    assert gpu.caches["readback"]["buffer"].size >= sum(a.nbytes for a in first)
    np.testing.assert_array_equal(first[0], level0)
