"""GPU timestamps: a query pool, the marks strategies write between dispatches, statistics.

A timed region is bracketed by BOTTOM_OF_PIPE stamps: the opening stamp waits for every earlier
command, so set-up work (uploads, cache-evicting fills) stays outside, and TOP_OF_PIPE could fire
while earlier work is still running.
"""

from __future__ import annotations

from typing import Any

from mipview.gpu.context import GpuContext
from mipview.gpu.vkapi import ffi, flag, vk
from mipview.results import GpuTiming, TimingStats


class TimestampPool:
    def __init__(self, ctx: GpuContext, capacity: int) -> None:
        if ctx.caps.timestamp_bits == 0:
            raise RuntimeError(f"{ctx.caps.name}: queue has no timestamp support")
        self.ctx = ctx
        self.capacity = capacity
        self.handle = vk.vkCreateQueryPool(ctx.device, vk.VkQueryPoolCreateInfo(
            queryType=flag("VK_QUERY_TYPE_TIMESTAMP"), queryCount=capacity), None)
        self._out = ffi.new(f"uint64_t[{capacity}]")
        self._mask = (1 << min(64, ctx.caps.timestamp_bits)) - 1

    def reset(self, cmd: Any) -> None:
        """Recorded at the start of a command buffer, so it can be resubmitted unchanged."""
        vk.vkCmdResetQueryPool(cmd, self.handle, 0, self.capacity)

    def write(self, cmd: Any, index: int) -> None:
        if index >= self.capacity:
            raise RuntimeError("timestamp pool overflow")
        vk.vkCmdWriteTimestamp(cmd, flag("VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT"), self.handle,
                               index)

    def read(self, count: int) -> list[int]:
        """Raw ticks of stamps 0..count-1, after the submit's fence."""
        vk.vkGetQueryPoolResults(self.ctx.device, self.handle, 0, count, 8 * count, self._out, 8,
                                 flag("VK_QUERY_RESULT_64_BIT") | flag("VK_QUERY_RESULT_WAIT_BIT"))
        return [int(self._out[i]) for i in range(count)]

    def elapsed_ns(self, ticks: list[int], i: int, j: int) -> float:
        """Time from stamp i to stamp j, wrapping at the queue's valid bits."""
        return ((ticks[j] - ticks[i]) & self._mask) * self.ctx.caps.timestamp_period_ns

    def destroy(self) -> None:
        if self.handle is not None:
            vk.vkDestroyQueryPool(self.ctx.device, self.handle, None)
            self.handle = None


class Marks:
    """Timestamps of one run: ``begin``, the strategy's ``mark(cmd, label)`` after each dispatch
    (or group of dispatches), ``end``. Labels say what finished since the previous stamp."""

    def __init__(self, pool: TimestampPool | None, first: int = 0) -> None:
        self.pool = pool
        self.first = first
        self.next = first
        self.labels: list[str] = []

    def begin(self, cmd: Any) -> None:
        self._stamp(cmd)

    def mark(self, cmd: Any, label: str) -> None:
        """Called by strategies; a no-op when the run is not timed."""
        self.labels.append(label)
        self._stamp(cmd)

    def end(self, cmd: Any) -> None:
        self._stamp(cmd)

    def _stamp(self, cmd: Any) -> None:
        if self.pool is not None:
            self.pool.write(cmd, self.next)
        self.next += 1

    @property
    def count(self) -> int:
        return self.next - self.first

    def durations_us(self, stamps: list[int]) -> tuple[float, list[float]]:
        """(total, per-mark) in microseconds for this run, from the pool's stamps."""
        assert self.pool is not None
        s = self.first
        total = self.pool.elapsed_ns(stamps, s, self.next - 1) / 1000.0
        parts = [self.pool.elapsed_ns(stamps, s + i, s + i + 1) / 1000.0
                 for i in range(len(self.labels))]
        return total, parts


def timing_from_runs(runs: list[tuple[float, list[float]]], labels: list[str]) -> GpuTiming:
    """Fold per-run (total, per-mark) durations into statistics."""
    total = TimingStats(tuple(r[0] for r in runs))
    marks = tuple((label, TimingStats(tuple(r[1][i] for r in runs)))
                  for i, label in enumerate(labels))
    return GpuTiming(total, marks)
