"""GPU timestamps: a query pool, the marks strategies write between dispatches, statistics, and
the one timing loop (:func:`time_interleaved` over :class:`TimedWork`).

A timed region is bracketed by BOTTOM_OF_PIPE stamps: the opening stamp waits for every earlier
command, so set-up work (uploads, cache-evicting fills) stays outside, and TOP_OF_PIPE could fire
while earlier work is still running.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from mipview.core.results import GpuTiming, TimingSettings, TimingStats
from mipview.core.turns import give_turn
from mipview.gpu.vulkan.context import GpuContext
from mipview.gpu.vulkan.vkapi import ffi, flag, vk


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

    def stamp_us(self, ticks: list[int], i: int) -> float:
        """Stamp i in microseconds on the device's clock, counted from the first stamp this
        context read this way: the raw count (ns since 1970 on NVIDIA, ~1.7e18) would leave a
        float64 a resolution of 0.25 us, the difference keeps the tick's."""
        tick = ticks[i] & self._mask
        origin = self.ctx.caches.setdefault("timestamp_origin", tick)
        return (tick - origin) * self.ctx.caps.timestamp_period_ns / 1000.0

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


def timing_from_runs(runs: list[tuple[float, list[float]]], labels: list[str],
                     starts_us: Sequence[float] = ()) -> GpuTiming:
    """Fold per-run (total, per-mark) durations, and where known each run's GPU start time,
    into statistics."""
    total = TimingStats(tuple(r[0] for r in runs))
    marks = tuple((label, TimingStats(tuple(r[1][i] for r in runs)))
                  for i, label in enumerate(labels))
    return GpuTiming(total, marks, tuple(starts_us))


class TimedBatch:
    """``runs`` timed runs recorded into one command buffer, resubmitted as often as wanted.

    Each run starts with a full memory barrier (so runs never overlap and the opening stamp
    excludes earlier work), then ``record(cmd, marks)`` between a begin and an end stamp.
    ``before_each(cmd, i)`` records untimed set-up (e.g. a cache-evicting fill) ahead of the
    barrier. Many runs per submit keep the GPU fed: no CPU gap lets its clock drop between
    samples (mipview/gpu/measure/clocks.py).
    """

    def __init__(self, ctx: GpuContext, runs: int, record: Callable[[Any, Marks], None],
                 before_each: Callable[[Any, int], None] | None = None,
                 stamps_per_run: int = 64) -> None:
        from mipview.gpu.vulkan.sync import memory_barrier

        self.ctx = ctx
        self.pool = TimestampPool(ctx, runs * stamps_per_run)
        self.cmd = ctx.allocate_command_buffer()
        self.marks: list[Marks] = []
        #: each run's opening stamp (µs, device clock) in the last timed submit
        self.starts_us: list[float] = []
        vk.vkBeginCommandBuffer(self.cmd, vk.VkCommandBufferBeginInfo())
        self.pool.reset(self.cmd)
        for i in range(runs):
            give_turn()  # a batch is thousands of calls, each handing the lock over (turns.py)
            if before_each is not None:
                before_each(self.cmd, i)
            memory_barrier(self.cmd, "ALL_COMMANDS", "MEMORY_READ|MEMORY_WRITE", "ALL_COMMANDS",
                           "MEMORY_READ|MEMORY_WRITE")
            # stamps are packed run after run: a read-back must not touch unwritten queries
            marks = Marks(self.pool, self.marks[-1].next if self.marks else 0)
            marks.begin(self.cmd)
            record(self.cmd, marks)
            marks.end(self.cmd)
            if marks.count > stamps_per_run:
                raise RuntimeError(f"more than {stamps_per_run} timestamps per run")
            self.marks.append(marks)
        memory_barrier(self.cmd, "ALL_COMMANDS", "MEMORY_WRITE", "ALL_COMMANDS",
                       "MEMORY_READ|MEMORY_WRITE")
        vk.vkEndCommandBuffer(self.cmd)

    @property
    def labels(self) -> list[str]:
        return list(self.marks[0].labels) if self.marks else []

    def submit(self, timed: bool = True) -> list[tuple[float, list[float]]]:
        """Run the batch and wait; (total, per-mark) microseconds of each run when ``timed``."""
        self.ctx.submit_and_wait(self.cmd)
        if not timed:
            return []
        ticks = self.pool.read(self.marks[-1].next)
        self.starts_us = [self.pool.stamp_us(ticks, m.first) for m in self.marks]
        return [m.durations_us(ticks) for m in self.marks]

    def destroy(self) -> None:
        if self.cmd is not None:
            self.ctx.wait_idle()
            self.ctx.free_command_buffer(self.cmd)
            self.cmd = None
            self.pool.destroy()


class TimedWork:
    """One thing timed again and again (a strategy on its image, a batch way, a reduction):
    ``record(cmd, marks)`` per run, ``before_each(cmd, i)`` untimed ahead of each run. Keeps one
    :class:`TimedBatch` per batch size (recorded once, resubmitted) and the kept runs' samples."""

    def __init__(self, ctx: GpuContext, record: Callable[[Any, Marks], None],
                 before_each: Callable[[Any, int], None] | None = None,
                 stamps_per_run: int = 64) -> None:
        self.ctx = ctx
        self.record = record
        self.before_each = before_each
        self.stamps_per_run = stamps_per_run
        #: (total, per-mark) microseconds of every kept run, and the marks' labels
        self.runs: list[tuple[float, list[float]]] = []
        #: where each kept run began on the GPU (µs, device clock), beside ``runs``
        self.starts_us: list[float] = []
        self.labels: list[str] = []
        self._batches: dict[int, TimedBatch] = {}

    def batch(self, runs: int) -> TimedBatch:
        if runs not in self._batches:
            self._batches[runs] = TimedBatch(self.ctx, runs, self.record, self.before_each,
                                             self.stamps_per_run)
        return self._batches[runs]

    def submit(self, runs: int, keep: bool) -> None:
        """``runs`` runs in one command buffer; their samples are kept when ``keep``."""
        batch = self.batch(runs)
        samples = batch.submit(timed=keep)
        if keep:
            self.runs += samples
            self.starts_us += batch.starts_us
            self.labels = batch.labels

    def clear(self) -> None:
        """Forget the kept runs (warm-up, an earlier generate)."""
        self.runs.clear()
        self.starts_us.clear()

    def timing(self) -> GpuTiming | None:
        return timing_from_runs(self.runs, self.labels, self.starts_us) if self.runs else None

    def set_before_each(self, before_each: Callable[[Any, int], None] | None) -> None:
        """New untimed set-up: the recorded batches are dropped (they hold the old one)."""
        self.destroy()
        self.before_each = before_each

    def destroy(self) -> None:
        for batch in self._batches.values():
            batch.destroy()
        self._batches.clear()


def time_interleaved(works: Sequence[TimedWork], settings: TimingSettings,
                     should_stop: Callable[[], bool] | None = None,
                     on_batch: Callable[[], None] | None = None,
                     warm: Callable[[], bool] | None = None) -> bool:
    """Warm up for ``settings.warmup_ms`` of wall time, drop every sample so far, then
    ``settings.repeat`` timed runs per work, interleaved batch by batch (A B C A B C ...) so
    clock drift hits all alike, ``settings.runs_per_batch`` runs per command buffer.
    ``on_batch`` is called after each round; returns False if ``should_stop`` said so.
    ``warm()``, asked after each warm-up round, ends the warm-up sooner when it says the device
    is warm (clocks.ClockLog.warm: the clock has stayed at its maximum)."""
    stop = should_stop or (lambda: False)
    repeat = settings.repeat
    batch = max(1, min(settings.runs_per_batch, repeat))
    end = time.perf_counter() + settings.warmup_ms / 1000.0
    while time.perf_counter() < end and works:
        for work in works:
            work.submit(batch, keep=False)
        if stop():
            return False
        if warm is not None and warm():
            break
    for work in works:  # earlier runs (a generate) are not warm samples
        work.clear()
    done = 0
    while done < repeat:
        n = min(batch, repeat - done)
        for work in works:
            work.submit(n, keep=True)
        done += n
        if on_batch is not None:
            on_batch()
        if stop():
            return False
    return True
