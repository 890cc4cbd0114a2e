"""The copy-bandwidth floor: how fast this device moves bytes with a plain buffer copy.

Benchmarks report each strategy as a fraction of it: a mip chain reads level 0 and writes the
rest at least once, so (bytes of all levels) / time cannot beat a copy's GB/s for long.
"""

from __future__ import annotations

from mipview.gpu.context import GpuContext
from mipview.gpu.resources import Buffer
from mipview.gpu.sync import memory_barrier
from mipview.gpu.timing import TimestampPool
from mipview.gpu.vkapi import flag, vk
from mipview.results import TimingStats


def copy_bandwidth(ctx: GpuContext, size: int | None = None, repeats: int = 20) -> tuple[float, TimingStats]:
    """GB/s (bytes read + bytes written per second, 1e9) of a device-local buffer copy, as the
    median of ``repeats`` copies recorded back to back in one submit (after one warm-up)."""
    if size is None:
        size = (64 << 20) if ctx.caps.device_type == "cpu" else (512 << 20)
    usage = flag("VK_BUFFER_USAGE_TRANSFER_SRC_BIT") | flag("VK_BUFFER_USAGE_TRANSFER_DST_BIT")
    src = Buffer(ctx, size, usage)
    dst = Buffer(ctx, size, usage)
    pool = TimestampPool(ctx, 2 * repeats)
    try:
        with ctx.one_shot() as cmd:
            vk.vkCmdFillBuffer(cmd, src.handle, 0, size, 0x3F800000)
            vk.vkCmdFillBuffer(cmd, dst.handle, 0, size, 0)
        region = vk.VkBufferCopy(srcOffset=0, dstOffset=0, size=size)
        with ctx.one_shot() as cmd:
            pool.reset(cmd)
            vk.vkCmdCopyBuffer(cmd, src.handle, dst.handle, 1, [region])  # warm-up
            for i in range(repeats):
                memory_barrier(cmd, "TRANSFER", "TRANSFER_WRITE|TRANSFER_READ", "TRANSFER",
                               "TRANSFER_WRITE|TRANSFER_READ")
                pool.write(cmd, 2 * i)
                vk.vkCmdCopyBuffer(cmd, src.handle, dst.handle, 1, [region])
                pool.write(cmd, 2 * i + 1)
        ticks = pool.read(2 * repeats)
        stats = TimingStats(tuple(pool.elapsed_ns(ticks, 2 * i, 2 * i + 1) / 1000.0
                                  for i in range(repeats)))
        return 2 * size / (stats.median * 1e3), stats
    finally:
        pool.destroy()
        src.destroy()
        dst.destroy()
