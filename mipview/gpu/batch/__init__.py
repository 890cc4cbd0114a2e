"""Batched mipmapping: many images of different sizes, scheduled by GPU work expansion.

Public API (no Qt; the UI's Batch tab and the CLI use only this)::

    from mipview.gpu.batch import BatchSession, run_batch, WAYS
    result = run_batch(ctx, [level0_a, level0_b, ...], Format.UNORM, repeat=20)
    result.way("prefix-sum").timing.total.median   # µs for the whole batch
    result.levels[i]                                # chain of image i

Modules: :mod:`.packing` (chains in storage buffers, and why), :mod:`.expansion` (prefix-sum and
po2-bucket schedulers), :mod:`.runner` (the three ways, timing, memory, dispatch counts),
:mod:`.synthetic` (seeded heavy-tailed batches).
"""

from mipview.gpu.batch.runner import (
    WAYS,
    BatchImageInfo,
    BatchResult,
    BatchSession,
    WayResult,
    parse_ways,
    run_batch,
    unsupported_reason,
)

__all__ = ["WAYS", "BatchImageInfo", "BatchResult", "BatchSession", "WayResult", "parse_ways",
           "run_batch", "unsupported_reason"]
