"""The pipeline cache on disk: saved when a context that made pipelines closes, handed to the
driver by the next context on the same device, and ignored (never handed over) when it is
corrupt, truncated or written for another device or driver; a cache folder that cannot be
written costs nothing but the cache."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from mipview.check.verdict import judge_result
from mipview.core.formats import Format, to_storage
from mipview.gpu.session import run_once
from mipview.gpu.strategies.specs import expand_specs
from mipview.gpu.vulkan.context import GpuContext
from mipview.gpu.vulkan.pipeline_cache import cache_path, read_cache, write_cache


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("MIPVIEW_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _run(level0: np.ndarray) -> GpuContext:
    """A context that makes per-level's pipeline and runs it (checked), then closes."""
    ctx = GpuContext(validate=True)
    try:
        mip = run_once(ctx, level0, Format.UNORM, expand_specs("per-level"))
        assert judge_result(mip.results[0], level0, Format.UNORM).within_tolerance
    finally:
        ctx.close()
    assert not ctx.messages, ctx.messages
    return ctx


@pytest.fixture
def level0(rng):
    return to_storage(rng.random((9, 13, 4)), Format.UNORM)


def test_a_saved_cache_is_handed_to_the_next_context_of_the_device(cache_dir, level0):
    first = _run(level0)
    assert first.pipeline_cache.ignored == "none saved yet" and first.pipeline_cache.loaded == 0
    path = cache_path(first.caps.identity)
    assert path.parent.parent == cache_dir
    data, why = read_cache(path, first.caps.identity)
    assert why is None and len(data) >= 32  # at least the driver's header
    second = _run(level0)
    assert second.pipeline_cache.ignored is None
    assert second.pipeline_cache.loaded == len(data)


@pytest.mark.parametrize("damage", ["flipped byte", "truncated", "not ours", "empty"])
def test_a_corrupt_cache_is_ignored_and_replaced(cache_dir, level0, damage):
    ctx = _run(level0)
    path = cache_path(ctx.caps.identity)
    blob = path.read_bytes()
    if damage == "flipped byte":
        blob = blob[:-1] + bytes([blob[-1] ^ 0xFF])
    elif damage == "truncated":
        blob = blob[:len(blob) // 2]
    elif damage == "not ours":
        blob = b"\x00" * 64
    else:
        blob = b""
    path.write_bytes(blob)
    after = _run(level0)
    assert after.pipeline_cache.ignored == "corrupt" and after.pipeline_cache.loaded == 0
    assert read_cache(path, ctx.caps.identity)[1] is None  # saved whole again on close


def test_a_cache_of_another_device_is_ignored(cache_dir, level0):
    ctx = _run(level0)
    path = cache_path(ctx.caps.identity)
    data, _ = read_cache(path, ctx.caps.identity)
    # another device's file is another file...
    other = dataclasses.replace(ctx.caps.identity, device_uuid="00" * 16)
    assert cache_path(other) != path
    # ...and a file whose driver header names another device or driver is not handed over
    foreign = bytearray(data)
    foreign[16:32] = bytes(range(16))  # pipelineCacheUUID
    write_cache(path, bytes(foreign))
    assert read_cache(path, ctx.caps.identity)[1] == "written for another device or driver"
    after = _run(level0)
    assert after.pipeline_cache.ignored == "written for another device or driver"
    assert after.pipeline_cache.loaded == 0


def test_an_unwritable_cache_folder_costs_only_the_cache(tmp_path, monkeypatch, level0):
    blocker = tmp_path / "a file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("MIPVIEW_CACHE_DIR", str(blocker))
    ctx = _run(level0)  # opened, ran, closed without a word
    assert ctx.pipeline_cache.loaded == 0
    assert not list(tmp_path.glob("**/*.tmp"))
