"""Run a batch of images with each scheduling way: generate, read back, time, count, measure.

Ways (:data:`WAYS`):

* ``loop``: one dispatch per image and level (image after image, a barrier between the levels of
  an image): the baseline that pays a dispatch for every small image;
* ``prefix-sum`` and ``po2-buckets``: GPU work expansion (:mod:`mipview.gpu.batch.expansion`).

All ways run the same reduction shader (mipview/gpu/batch/batch_reduce.comp) on the same packed chains
(:mod:`mipview.gpu.batch.packing`), so their outputs must be bit-identical; :class:`BatchSession`
checks that and reports it per way. Every generate run starts from level 0 plus a sentinel in
every other level, so a way that skips a texel cannot inherit it from an earlier way.

Timing is the strategies' loop (mipview.gpu.vulkan.timing.time_interleaved): runs recorded many to a
command buffer, a full barrier and BOTTOM_OF_PIPE stamps around each, warm-up first, ways
interleaved batch by batch. A timed run includes the expansion ways' per-run fill and count pass:
they are part of the work.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mipview.core.errors import MipviewError
from mipview.core.formats import Format
from mipview.core.results import ClockState, DeviceSummary, GpuTiming, TimingSettings
from mipview.gpu.batch import expansion
from mipview.gpu.batch.packing import MAX_PAGES, TEXEL_WORDS, BatchLayout, plan_layout
from mipview.gpu.measure.clocks import ClockLog
from mipview.gpu.shaders.shipped import BATCH_BUCKETS, BATCH_REDUCE, BATCH_SCAN, mip_constants
from mipview.gpu.vulkan.context import DeviceCaps, GpuContext
from mipview.gpu.vulkan.pipelines import ComputePipeline, DescriptorSets, get_pipeline
from mipview.gpu.vulkan.resources import Buffer
from mipview.gpu.vulkan.sync import memory_barrier
from mipview.gpu.vulkan.timing import Marks, TimedWork, time_interleaved
from mipview.gpu.vulkan.vkapi import flag, vk

WAYS = ("loop", "prefix-sum", "po2-buckets")
TILE = 8            # 8x8 texels per work group: 64 lanes (a warp/wave of 32 or 64, lavapipe's 8)
BINDINGS = ("storage_buffer",) * 9  # batch_common.glsl: pages 0-3, table, args, counters, entries, debug
ALIGN_DUMMY = 256   # bytes of the placeholder buffers behind unused bindings


class BatchError(MipviewError):
    pass


def unsupported_reason(caps: DeviceCaps, way: str) -> str | None:
    """Why ``way`` cannot run on this device, or None."""
    if way not in WAYS:
        raise BatchError(f"unknown batch way {way!r}; choose from {', '.join(WAYS)}")
    if way == "prefix-sum" and not (caps.shader_int64 and caps.int64_buffer_atomics):
        return "prefix-sum needs shaderInt64 and shaderBufferInt64Atomics (64-bit buffer atomics)"
    return None


def parse_ways(text: str) -> list[str]:
    ways = [w.strip() for w in text.split(",") if w.strip()]
    for w in ways:
        if w not in WAYS:
            raise BatchError(f"unknown batch way {w!r}; choose from {', '.join(WAYS)}")
    if not ways:
        raise BatchError("no batch way given")
    return ways


@dataclass(frozen=True)
class BatchImageInfo:
    name: str
    width: int
    height: int
    levels: int


@dataclass(frozen=True)
class WayResult:
    """One way's figures. ``timing`` is the whole batch per run (µs); ``identical`` whether its
    chains are bit-identical to the batch's reference chains (the first way generated)."""

    way: str
    dispatches: int
    dispatch_detail: str
    #: bytes of the expansion buffers (arguments, counters, lists); 0 for loop
    expansion_bytes: int
    timing: GpuTiming | None = None
    identical: bool | None = None

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"way": self.way, "dispatches": self.dispatches,
                             "dispatch_detail": self.dispatch_detail,
                             "expansion_bytes": self.expansion_bytes, "identical": self.identical}
        if self.timing is not None:
            d["gpu_time"] = self.timing.total.as_dict()
            d["marks"] = {label: s.as_dict() for label, s in self.timing.marks}
        return d


@dataclass(frozen=True)
class BatchResult:
    """Everything one batch run produced; crosses threads (frozen, numpy inside).

    ``levels[i]`` is the chain of image i (storage values, (H, W, 4) per level) as the first
    generated way made it; every way's :attr:`WayResult.identical` says whether it matched.
    """

    fmt: Format
    images: tuple[BatchImageInfo, ...]
    levels: tuple[tuple[np.ndarray, ...], ...]
    ways: tuple[WayResult, ...]
    skipped: tuple[tuple[str, str], ...]
    device: DeviceSummary
    #: bytes of the packed chains (all pages)
    packed_bytes: int
    pages: int
    tile: int
    validation_messages: tuple[str, ...] = ()
    #: the GPU clocks seen while timing (mipview.gpu.measure.clocks); None: not timed or not readable
    clock: ClockState | None = None

    def way(self, name: str) -> WayResult:
        for w in self.ways:
            if w.way == name:
                return w
        raise KeyError(name)

    def as_dict(self) -> dict[str, Any]:
        texels = sum(i.width * i.height for i in self.images)
        return {
            "device": {"name": self.device.name, "driver": self.device.driver,
                       "subgroup_size": self.device.subgroup_size},
            "format": self.fmt.label, "images": len(self.images), "level0_texels": texels,
            "max_levels": max((i.levels for i in self.images), default=0),
            "packed_bytes": self.packed_bytes, "pages": self.pages, "tile": self.tile,
            "ways": [w.as_dict() for w in self.ways],
            "skipped": [{"way": w, "reason": r} for w, r in self.skipped],
            "validation_messages": list(self.validation_messages),
            "clock": self.clock.as_dict() if self.clock is not None else None,
        }


@dataclass
class _Way:
    name: str
    reduce: ComputePipeline
    sets: list[DescriptorSets]
    count: ComputePipeline | None = None
    plan: expansion.ExpansionPlan | None = None
    buffer: Buffer | None = None
    dispatches: int = 0
    chains: list[list[np.ndarray]] | None = None
    #: timed runs of this way (set by BatchSession._add)
    work: TimedWork = field(init=False)


def _storage_range(ctx: GpuContext) -> int:
    props = vk.vkGetPhysicalDeviceProperties(ctx.physical_device)
    return int(props.limits.maxStorageBufferRange)


class BatchSession:
    """A batch packed on the GPU, and the ways prepared on it.

    Parameters
    ----------
    ctx : the context (its thread only).
    level0 : storage values of every image, (H, W, 4) each, dtype of ``fmt``.
    fmt : the batch's format (one for all images).
    ways : names from :data:`WAYS`; unsupported ones land in ``skipped`` with the reason.
    names : labels of the images (default ``#i``).
    debug_level : make the expansion ways write the (image, local tile) of every work group of
        this level into a buffer (:meth:`debug_mapping`); 0 = off.
    page_bytes : cap on a page (default the device's maxStorageBufferRange); tests use it to
        force several pages.
    """

    def __init__(self, ctx: GpuContext, level0: Sequence[np.ndarray], fmt: Format,
                 ways: Sequence[str] = WAYS, names: Sequence[str] | None = None,
                 debug_level: int = 0, page_bytes: int | None = None) -> None:
        if fmt not in TEXEL_WORDS:  # the batch buffers pack whole RGBA texels into words
            raise BatchError(f"batches hold the 8-bit and float RGBA formats "
                             f"({', '.join(f.label for f in TEXEL_WORDS)}); "
                             f"{fmt.label} is not one of them")
        self.ctx = ctx
        self.fmt = fmt
        self.level0 = [np.ascontiguousarray(a, dtype=fmt.dtype) for a in level0]
        for i, a in enumerate(self.level0):
            if a.ndim != 3 or a.shape[-1] != 4:
                raise BatchError(f"image {i}: want (H, W, 4) texels, got shape {a.shape}")
        sizes = [(a.shape[1], a.shape[0]) for a in self.level0]
        self.names = list(names) if names is not None else [f"#{i}" for i in range(len(sizes))]
        self.layout: BatchLayout = plan_layout(sizes, fmt, page_bytes or _storage_range(ctx))
        self.debug_level = debug_level
        self.pages: list[Buffer] = []
        self.ways: list[_Way] = []
        self.skipped: list[tuple[str, str]] = []
        self._small: list[Buffer] = []
        self._staging: Buffer | None = None
        self.clock: ClockState | None = None
        try:
            self._create_buffers()
            for way in ways:
                reason = unsupported_reason(ctx.caps, way)
                if reason:
                    self.skipped.append((way, reason))
                else:
                    self._prepare(way)
        except Exception:
            self.close()
            raise

    # --- set-up --------------------------------------------------------------------------------
    def _device_buffer(self, size: int, usage: int) -> Buffer:
        return Buffer(self.ctx, max(4, size), usage | flag("VK_BUFFER_USAGE_STORAGE_BUFFER_BIT")
                      | flag("VK_BUFFER_USAGE_TRANSFER_DST_BIT"))

    def _create_buffers(self) -> None:
        src = flag("VK_BUFFER_USAGE_TRANSFER_SRC_BIT")
        for page in range(len(self.layout.page_texels)):
            self.pages.append(self._device_buffer(self.layout.page_bytes(page), src))
        staging_size = max(max(b.size for b in self.pages), self.layout.table().nbytes)
        self._staging = Buffer(self.ctx, staging_size, src | flag("VK_BUFFER_USAGE_TRANSFER_DST_BIT"),
                               host_visible=True)
        self.table = self._device_buffer(self.layout.table().nbytes, 0)
        self._upload(self.table, self.layout.table())
        # Two placeholders for unused bindings: one behind bindings the shaders may write, one
        # behind read-only ones, so sync validation never sees a write feeding a read through them.
        self.dummy = self._device_buffer(ALIGN_DUMMY, 0)
        self.dummy_ro = self._device_buffer(ALIGN_DUMMY, 0)
        self._small += [self.table, self.dummy, self.dummy_ro]
        if self.debug_level:
            groups = 0
            for way in expansion.EXPANSION_WAYS:
                plan = expansion.plan_expansion(way, self.layout, TILE)
                if self.debug_level <= plan.levels:
                    total = plan.totals[self.debug_level - 1]
                    groups = max(groups, -(-total // plan.row) * plan.row)
            self.debug = self._device_buffer(8 * max(1, groups), src)
            self._small.append(self.debug)
        else:
            self.debug = self.dummy

    def _upload(self, dst: Buffer, data: np.ndarray) -> None:
        assert self._staging is not None
        self._staging.write(data)
        with self.ctx.one_shot() as cmd:
            vk.vkCmdCopyBuffer(cmd, self._staging.handle, dst.handle, 1,
                               [vk.VkBufferCopy(srcOffset=0, dstOffset=0, size=data.nbytes)])
            memory_barrier(cmd, "TRANSFER", "TRANSFER_WRITE", "ALL_COMMANDS",
                           "MEMORY_READ|MEMORY_WRITE")

    def _download(self, src: Buffer) -> np.ndarray:
        assert self._staging is not None
        with self.ctx.one_shot() as cmd:
            memory_barrier(cmd, "ALL_COMMANDS", "MEMORY_WRITE", "TRANSFER", "TRANSFER_READ")
            vk.vkCmdCopyBuffer(cmd, src.handle, self._staging.handle, 1,
                               [vk.VkBufferCopy(srcOffset=0, dstOffset=0, size=src.size)])
            memory_barrier(cmd, "TRANSFER", "TRANSFER_WRITE", "HOST", "HOST_READ")
        return self._staging.read(src.size)

    def _reduce_pipeline(self, way: str) -> ComputePipeline:
        return get_pipeline(self.ctx, BATCH_REDUCE, BINDINGS, constants={
            "local_size_x_id": TILE, "local_size_y_id": TILE,
            "BATCH_WORDS": TEXEL_WORDS[self.fmt], "BATCH_SCHEDULE": expansion.SCHEDULE_ID[way],
            "BATCH_DEBUG_LEVEL": self.debug_level, "BATCH_TILE": TILE,
            **mip_constants(self.fmt)})

    def _bind(self, pipeline: ComputePipeline, exp: Buffer | None,
              plan: expansion.ExpansionPlan | None) -> DescriptorSets:
        sets = DescriptorSets(pipeline, 1)
        pages = [(b.handle, 0, b.size) for b in self.pages]
        pages += [(self.dummy.handle, 0, self.dummy.size)] * (MAX_PAGES - len(pages))
        if exp is not None and plan is not None:
            regions = [(exp.handle, plan.args_offset, plan.counters_offset - plan.args_offset),
                       (exp.handle, plan.counters_offset,
                        plan.entries_offset - plan.counters_offset),
                       (exp.handle, plan.entries_offset, plan.size - plan.entries_offset)]
        else:
            regions = [(self.dummy_ro.handle, 0, self.dummy_ro.size)] * 3
        sets.write(0, [*pages, (self.table.handle, 0, self.table.size), *regions,
                       (self.debug.handle, 0, self.debug.size)])
        return sets

    def _prepare(self, way: str) -> None:
        reduce = self._reduce_pipeline(way)
        if way == "loop":
            w = _Way(way, reduce, [])
            self._add(w)
            w.sets.append(self._bind(reduce, None, None))
            w.dispatches = sum(max(0, self.layout.levels(i) - 1) for i in range(self.layout.count))
            return
        plan = expansion.plan_expansion(way, self.layout, TILE)
        shader = BATCH_SCAN if way == "prefix-sum" else BATCH_BUCKETS
        count = get_pipeline(self.ctx, shader, BINDINGS, constants={"BATCH_TILE": TILE})
        w = _Way(way, reduce, [], count=count, plan=plan, dispatches=plan.dispatches)
        self._add(w)
        w.buffer = Buffer(self.ctx, plan.size, flag("VK_BUFFER_USAGE_STORAGE_BUFFER_BIT")
                          | flag("VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT")
                          | flag("VK_BUFFER_USAGE_TRANSFER_DST_BIT"))
        w.sets += [self._bind(count, w.buffer, plan), self._bind(reduce, w.buffer, plan)]

    def _add(self, w: _Way) -> None:
        w.work = TimedWork(self.ctx, lambda cmd, marks: self._record(cmd, w, marks),
                           stamps_per_run=3)
        self.ways.append(w)

    # --- recording ----------------------------------------------------------------------------
    def _record(self, cmd: Any, w: _Way, marks: Marks) -> None:
        if w.plan is not None:
            assert w.count is not None and w.buffer is not None
            expansion.record_expansion(cmd, w.plan, w.buffer.handle, w.count, w.sets[0].sets[0],
                                       w.reduce, w.sets[1].sets[0], marks)
            return
        w.reduce.bind(cmd, w.sets[0].sets[0])
        n = self.layout.count
        for i, (width, height) in enumerate(self.layout.sizes):
            for level in range(1, self.layout.levels(i)):
                if level > 1:
                    memory_barrier(cmd, "COMPUTE_SHADER", "SHADER_WRITE", "COMPUTE_SHADER",
                                   "SHADER_READ|SHADER_WRITE")
                lw, lh = max(1, width >> level), max(1, height >> level)
                w.reduce.push(cmd, BATCH_REDUCE.pack(level=level, image=i, imageCount=n,
                                                     bucketBits=0))
                vk.vkCmdDispatch(cmd, -(-lw // TILE), -(-lh // TILE), 1)

    # --- public -------------------------------------------------------------------------------
    def reset_pages(self) -> None:
        """Level 0 of every image, the sentinel in every other level."""
        for page, buf in enumerate(self.pages):
            self._upload(buf, self.layout.pack_page(page, self.level0))

    def read_chains(self) -> list[list[np.ndarray]]:
        return self.layout.unpack([self._download(b).view(np.uint32) for b in self.pages])

    def generate(self) -> None:
        """One run of every way from a fresh upload, then read back every chain."""
        for w in self.ways:
            self.reset_pages()
            w.work.submit(1, keep=False)
            w.chains = self.read_chains()

    def chains(self, way: str) -> list[list[np.ndarray]]:
        for w in self.ways:
            if w.name == way:
                if w.chains is None:
                    raise BatchError(f"{way} has not been generated")
                return w.chains
        raise BatchError(f"{way} is not prepared here")

    def debug_mapping(self, way: str) -> np.ndarray:
        """(groups, 2) uint32 (image, local tile) per work group of level ``debug_level``, as the
        last run of ``way`` wrote them (0xFFFFFFFF where no group wrote). Runs ``way`` once."""
        if not self.debug_level:
            raise BatchError("the session was made without debug_level")
        w = next(w for w in self.ways if w.name == way)
        with self.ctx.one_shot() as cmd:
            vk.vkCmdFillBuffer(cmd, self.debug.handle, 0, self.debug.size, 0xFFFFFFFF)
        w.work.submit(1, keep=False)
        return self._download(self.debug).view(np.uint32).reshape(-1, 2)

    def time_with(self, settings: TimingSettings,
                  should_stop: Callable[[], bool] | None = None) -> bool:
        """Warm up, then ``settings.repeat`` timed runs per way, interleaved batch by batch
        (:func:`time_interleaved`), the clock sampled after each round. Batches are timed with
        warm caches (``settings.cold`` has no cache eviction to run here)."""
        log = ClockLog(self.ctx)
        try:
            return time_interleaved([w.work for w in self.ways], settings, should_stop,
                                    log.sample, log.warm)
        finally:
            self.clock = log.state

    def result(self) -> BatchResult:
        ref = next((w.chains for w in self.ways if w.chains is not None), None)
        ways = []
        for w in self.ways:
            identical = None
            if ref is not None and w.chains is not None:
                identical = all(np.array_equal(a.view(np.uint8), b.view(np.uint8))
                                for ca, cb in zip(w.chains, ref, strict=True)
                                for a, b in zip(ca, cb, strict=True))
            if w.plan is not None:
                detail = f"1 count pass + {w.plan.levels} indirect (one per level), 1 fill"
                exp_bytes = w.plan.size
            else:
                detail = f"one per image and level ({self.layout.count} images)"
                exp_bytes = 0
            ways.append(WayResult(w.name, w.dispatches, detail, exp_bytes, w.work.timing(),
                                  identical))
        images = tuple(BatchImageInfo(n, w, h, self.layout.levels(i))
                       for i, (n, (w, h)) in enumerate(zip(self.names, self.layout.sizes,
                                                           strict=True)))
        return BatchResult(
            fmt=self.fmt, images=images,
            levels=tuple(tuple(c) for c in ref) if ref is not None else (),
            ways=tuple(ways), skipped=tuple(self.skipped), device=self.ctx.caps.summary(),
            packed_bytes=self.layout.total_bytes, pages=len(self.pages), tile=TILE,
            validation_messages=tuple(self.ctx.take_messages()), clock=self.clock)

    def close(self) -> None:
        self.ctx.wait_idle()
        for w in self.ways:
            w.work.destroy()
            for s in w.sets:
                s.destroy()
            if w.buffer is not None:
                w.buffer.destroy()
        self.ways.clear()
        for b in self.pages + self._small:
            b.destroy()
        self.pages.clear()
        self._small.clear()
        if self._staging is not None:
            self._staging.destroy()
            self._staging = None

    def __enter__(self) -> BatchSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()



def run_batch(ctx: GpuContext, level0: Sequence[np.ndarray], fmt: Format,
              ways: Sequence[str] = WAYS, repeat: int = 0, warmup_ms: float = 0.0,
              names: Sequence[str] | None = None) -> BatchResult:
    """Generate with every way (and time ``repeat`` runs each when > 0)."""
    with BatchSession(ctx, level0, fmt, ways, names) as session:
        session.generate()
        if repeat > 0:
            session.time_with(TimingSettings(repeat, warmup_ms, runs_per_batch=5))
        return session.result()
