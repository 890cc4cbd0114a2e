"""GPU work expansion: the prefix-sum and po2-bucket schedulers of a batch.

Each image (source item) needs N tiles (destination items, one work group each) at a level, N from
0 to thousands. Both schedulers turn that into ONE indirect dispatch per level:

* pass 1 (one dispatch for every level at once: invocation = (image, level)) writes each image's
  tile count into the level's expansion lists and sizes the level's indirect dispatch:
  - ``prefix-sum`` (mipview/gpu/batch/batch_scan.comp): a 64-bit compare-exchange on a counter packing
    (count, running sum) gives each image with N > 0 a slot and the exclusive prefix sum of the
    tiles before it, in one atomic; needs 64-bit buffer atomics;
  - ``po2-buckets`` (mipview/gpu/batch/batch_buckets.comp): N is split by its set bits; bucket i gets a
    chunk of exactly 2^i tiles of the image;
* pass 2 (mipview/gpu/batch/batch_reduce.comp), per level: one vkCmdDispatchIndirect whose work groups find
  their image by binary search over the slots (prefix-sum) or by a shift into their bucket
  (po2-buckets).

Levels depend on each other, so pass 2 runs once per level with a barrier between: a batch whose
longest chain has L levels costs 1 + (L - 1) dispatches, whatever the number of images (``loop``:
one per image and level). The counters and arguments are zeroed by one vkCmdFillBuffer per run.

The indirect dispatch is ``(row, ceil(total / row), 1)``: groupCountY stays within the 65535 every
device allows; ``row`` is the smallest width that does (the host knows the worst level's total
from the sizes, and needs it anyway to size the lists).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mipview.gpu.batch.packing import BatchLayout
from mipview.gpu.shaders.shipped import BATCH_BUCKETS, BATCH_REDUCE, BATCH_SCAN
from mipview.gpu.vulkan.sync import memory_barrier
from mipview.gpu.vulkan.vkapi import vk

ARGS_STRIDE = 4        # uints per level: VkDispatchIndirectCommand + pad (batch_common.glsl)
COUNTER_STRIDE = 34    # uints per level (batch_common.glsl BATCH_COUNTER_STRIDE)
COUNT_GROUP = 64       # batch_scan / batch_buckets local_size_x
MAX_GROUPS_Y = 65535   # minimum maxComputeWorkGroupCount[1] of every Vulkan device
ALIGN = 256            # >= every device's minStorageBufferOffsetAlignment

EXPANSION_WAYS = ("prefix-sum", "po2-buckets")
SCHEDULE_ID = {"loop": 0, "prefix-sum": 1, "po2-buckets": 2}  # batch_reduce BATCH_SCHEDULE


def _align(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


@dataclass(frozen=True)
class ExpansionPlan:
    """Sizes and offsets of one scheduler's expansion buffer (bytes), and its dispatch shape."""

    way: str
    image_count: int
    #: destination levels (1 .. L-1)
    levels: int
    row: int
    bucket_bits: int
    #: tiles of every destination level (the work groups pass 2 does)
    totals: tuple[int, ...]
    args_offset: int
    counters_offset: int
    entries_offset: int
    size: int

    @property
    def reset_bytes(self) -> int:
        """Bytes the per-run fill zeroes: arguments and counters."""
        return self.entries_offset

    @property
    def dispatches(self) -> int:
        return 1 + self.levels

    @property
    def entries_per_level(self) -> int:
        """uint words of one level's lists: (image, start) slots or bucket_bits buckets."""
        if self.way == "prefix-sum":
            return 2 * self.image_count
        return self.bucket_bits * self.image_count


def plan_expansion(way: str, layout: BatchLayout, tile: int) -> ExpansionPlan:
    if way not in EXPANSION_WAYS:
        raise ValueError(f"unknown expansion {way!r}; choose one of {', '.join(EXPANSION_WAYS)}")
    levels = max(0, layout.max_levels - 1)
    counts = [layout.tile_counts(level, tile) for level in range(1, levels + 1)]
    totals = tuple(int(c.sum()) for c in counts)
    if max(totals, default=0) >= 1 << 32:
        raise ValueError("more than 2^32 tiles in one level")
    largest = max((int(c.max()) for c in counts), default=1)
    row = max(1, -(-max(totals, default=1) // MAX_GROUPS_Y))
    plan = ExpansionPlan(way, layout.count, levels, row, max(1, largest.bit_length()), totals,
                         0, 0, 0, 0)
    args_size = _align(max(1, levels) * ARGS_STRIDE * 4)
    counters_size = _align(max(1, levels) * COUNTER_STRIDE * 4)
    entries_size = _align(max(1, levels) * plan.entries_per_level * 4)
    return ExpansionPlan(way, layout.count, levels, row, plan.bucket_bits, totals,
                         0, args_size, args_size + counters_size,
                         args_size + counters_size + entries_size)


def expected_mapping(counts: np.ndarray) -> set[tuple[int, int]]:
    """Every (image, local tile) a level with these tile counts must produce, once each."""
    return {(i, t) for i, n in enumerate(np.asarray(counts).tolist()) for t in range(int(n))}


def bucket_chunks(n: int) -> list[tuple[int, int, int]]:
    """(bit, first local tile, tiles) of each chunk of an image with ``n`` tiles, as
    batch_buckets.comp and batch_reduce.comp split it (higher bits first in tile order)."""
    return [(i, n & ~((2 << i) - 1), 1 << i) for i in range(n.bit_length()) if n >> i & 1]


def record_expansion(cmd: Any, plan: ExpansionPlan, buffer: Any, count_pipeline: Any,
                     count_set: Any, reduce_pipeline: Any, reduce_set: Any, marks: Any) -> int:
    """Record one full run (zero, count every level, one indirect dispatch per level).

    The caller owes a barrier before (the runner's full barrier per run) and after. Returns the
    number of dispatches recorded.
    """
    vk.vkCmdFillBuffer(cmd, buffer, 0, plan.reset_bytes, 0)
    memory_barrier(cmd, "TRANSFER", "TRANSFER_WRITE", "COMPUTE_SHADER",
                   "SHADER_READ|SHADER_WRITE")
    count_pipeline.bind(cmd, count_set)
    if plan.way == "po2-buckets":
        push = BATCH_BUCKETS.pack(imageCount=plan.image_count, row=plan.row,
                                  bucketBits=plan.bucket_bits)
    else:
        push = BATCH_SCAN.pack(imageCount=plan.image_count, row=plan.row)
    count_pipeline.push(cmd, push)
    vk.vkCmdDispatch(cmd, -(-plan.image_count // COUNT_GROUP), plan.levels, 1)
    marks.mark(cmd, "count")
    memory_barrier(cmd, "COMPUTE_SHADER", "SHADER_WRITE", "DRAW_INDIRECT|COMPUTE_SHADER",
                   "INDIRECT_COMMAND_READ|SHADER_READ")
    reduce_pipeline.bind(cmd, reduce_set)
    for level in range(1, plan.levels + 1):
        if level > 1:
            memory_barrier(cmd, "COMPUTE_SHADER", "SHADER_WRITE", "COMPUTE_SHADER",
                           "SHADER_READ|SHADER_WRITE")
        reduce_pipeline.push(cmd, BATCH_REDUCE.pack(level=level, image=0,
                                                    imageCount=plan.image_count,
                                                    bucketBits=plan.bucket_bits))
        vk.vkCmdDispatchIndirect(cmd, buffer, plan.args_offset + (level - 1) * ARGS_STRIDE * 4)
    return plan.dispatches
