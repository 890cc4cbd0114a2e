"""Per-context caches (pipelines, samplers): made once per key, freed once when the context
closes."""

from __future__ import annotations

from types import SimpleNamespace

from mipview.gpu.vulkan.pipelines import closing_cache, get_sampler


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
