"""The copy-bandwidth floor: how fast this device moves bytes with a plain buffer copy.

Benchmarks report each strategy as a fraction of it: a mip chain reads level 0 and writes the
rest at least once, so (bytes of all levels) / time cannot beat a copy's GB/s for long (except
where the chain fits in cache). Two copies are timed, vkCmdCopyBuffer and a compute-shader copy
(mipview/gpu/measure/buffer_copy.comp): on NVIDIA the transfer copy may run on a copy engine well below what
compute reaches, so the floor is the faster of the two.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mipview.core.results import TimingStats
from mipview.gpu.shaders.shipped import BUFFER_COPY
from mipview.gpu.vulkan.context import GpuContext
from mipview.gpu.vulkan.pipelines import DescriptorSets, get_pipeline
from mipview.gpu.vulkan.resources import Buffer
from mipview.gpu.vulkan.sync import memory_barrier
from mipview.gpu.vulkan.timing import TimestampPool
from mipview.gpu.vulkan.vkapi import flag, vk

_GROUP = 256
_MAX_GROUPS = 65535


@dataclass(frozen=True)
class CopyBandwidth:
    """GB/s (bytes read + bytes written, 1e9/s) of each copy, medians of back-to-back runs."""

    transfer_gbps: float
    compute_gbps: float
    size_bytes: int

    @property
    def floor_gbps(self) -> float:
        return max(self.transfer_gbps, self.compute_gbps)

    def as_dict(self) -> dict[str, float | int]:
        return {"floor_gbps": self.floor_gbps, "transfer_copy_gbps": self.transfer_gbps,
                "compute_copy_gbps": self.compute_gbps, "copy_bytes": self.size_bytes}


def _time_copies(ctx: GpuContext, repeats: int, record: Callable[[Any], None],
                 barrier: tuple[str, str]) -> TimingStats:
    """Median-ready samples of ``record`` run back to back in one submit, after one warm-up."""
    pool = TimestampPool(ctx, 2 * repeats)
    try:
        stage, acc = barrier
        with ctx.one_shot() as cmd:
            pool.reset(cmd)
            record(cmd)  # warm-up
            for i in range(repeats):
                memory_barrier(cmd, stage, acc, stage, acc)
                pool.write(cmd, 2 * i)
                record(cmd)
                pool.write(cmd, 2 * i + 1)
        ticks = pool.read(2 * repeats)
        return TimingStats(tuple(pool.elapsed_ns(ticks, 2 * i, 2 * i + 1) / 1000.0
                                 for i in range(repeats)))
    finally:
        pool.destroy()


def copy_bandwidth(ctx: GpuContext, size: int | None = None,
                   repeats: int | None = None) -> CopyBandwidth:
    """Both copies of ``size`` bytes (past the caches), ``repeats`` times each. A CPU device
    (lavapipe) runs the compute copy of 64 MB in about 0.2 s: 5 runs give a steady median there
    in about 1.5 s a bench, where the 20 a GPU takes in milliseconds took 5 s."""
    cpu = ctx.caps.device_type == "cpu"
    if size is None:
        size = (64 << 20) if cpu else (512 << 20)
    if repeats is None:
        repeats = 5 if cpu else 20
    usage = (flag("VK_BUFFER_USAGE_TRANSFER_SRC_BIT") | flag("VK_BUFFER_USAGE_TRANSFER_DST_BIT")
             | flag("VK_BUFFER_USAGE_STORAGE_BUFFER_BIT"))
    src = Buffer(ctx, size, usage)
    dst = Buffer(ctx, size, usage)
    sets = None
    try:
        with ctx.one_shot() as cmd:
            vk.vkCmdFillBuffer(cmd, src.handle, 0, size, 0x3F800000)
            vk.vkCmdFillBuffer(cmd, dst.handle, 0, size, 0)
            memory_barrier(cmd, "TRANSFER", "TRANSFER_WRITE", "ALL_COMMANDS",
                           "MEMORY_READ|MEMORY_WRITE")
        region = vk.VkBufferCopy(srcOffset=0, dstOffset=0, size=size)
        transfer = _time_copies(
            ctx, repeats,
            lambda cmd: vk.vkCmdCopyBuffer(cmd, src.handle, dst.handle, 1, [region]),
            ("TRANSFER", "TRANSFER_WRITE|TRANSFER_READ"))

        pipeline = get_pipeline(ctx, BUFFER_COPY, ("storage_buffer", "storage_buffer"))
        sets = DescriptorSets(pipeline, 1)
        sets.write(0, [(src.handle, 0, size), (dst.handle, 0, size)])
        count = size // 16
        groups = min(_MAX_GROUPS, (count + _GROUP - 1) // _GROUP)

        def compute_copy(cmd: Any) -> None:
            pipeline.bind(cmd, sets.sets[0])
            pipeline.push(cmd, BUFFER_COPY.pack(count=count))
            vk.vkCmdDispatch(cmd, groups, 1, 1)

        compute = _time_copies(ctx, repeats, compute_copy,
                               ("COMPUTE_SHADER", "SHADER_READ|SHADER_WRITE"))
        gbps = [2 * size / (t.median * 1e3) for t in (transfer, compute)]
        return CopyBandwidth(gbps[0], gbps[1], size)
    finally:
        ctx.wait_idle()
        if sets is not None:
            sets.destroy()
        src.destroy()
        dst.destroy()
