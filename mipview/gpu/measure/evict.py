"""Cache eviction before cold-cache timed runs (``mipview bench --cold``).

``clean`` (default) reads a buffer larger than any L2 with a compute shader
(mipview/gpu/measure/cache_evict.comp): the timed run then finds none of its data cached and no dirty lines
to write back. ``dirty`` fills the buffer with vkCmdFillBuffer instead: the cache is just as cold
but full of dirty lines, so the timed run also pays for writing back the fill (on an H200 that
charged a 4096^2 chain several microseconds: a measure of the fill more than of the strategy).
"""

from __future__ import annotations

from typing import Any

from mipview.gpu.shaders.shipped import CACHE_EVICT
from mipview.gpu.vulkan.context import GpuContext
from mipview.gpu.vulkan.pipelines import DescriptorSets, get_pipeline
from mipview.gpu.vulkan.resources import Buffer
from mipview.gpu.vulkan.sync import memory_barrier
from mipview.gpu.vulkan.vkapi import flag, vk

EVICT_BYTES_GPU = 256 << 20  # bigger than any L2 we know of (H100/H200: 50 MB)
EVICT_BYTES_CPU = 32 << 20
MODES = ("clean", "dirty")
_GROUP = 256
_GROUPS = 4096


class CacheEvictor:
    def __init__(self, ctx: GpuContext, mode: str = "clean") -> None:
        if mode not in MODES:
            raise ValueError(f"cache eviction must be one of {', '.join(MODES)} (got {mode!r})")
        self.ctx = ctx
        self.mode = mode
        size = EVICT_BYTES_CPU if ctx.caps.device_type == "cpu" else EVICT_BYTES_GPU
        usage = (flag("VK_BUFFER_USAGE_STORAGE_BUFFER_BIT")
                 | flag("VK_BUFFER_USAGE_TRANSFER_DST_BIT"))
        self.buffer = Buffer(ctx, size, usage)
        self.sink = Buffer(ctx, 16, usage)
        self.sets: DescriptorSets | None = None
        with ctx.one_shot() as cmd:
            vk.vkCmdFillBuffer(cmd, self.buffer.handle, 0, size, 0)
            memory_barrier(cmd, "TRANSFER", "TRANSFER_WRITE", "COMPUTE_SHADER", "SHADER_READ")
        if mode == "clean":
            self.pipeline = get_pipeline(ctx, CACHE_EVICT, ("storage_buffer", "storage_buffer"))
            self.sets = DescriptorSets(self.pipeline, 1)
            self.sets.write(0, [(self.buffer.handle, 0, size), (self.sink.handle, 0, 16)])

    def record(self, cmd: Any, i: int) -> None:
        """Untimed commands that leave the cache cold, ordered after everything before them."""
        if self.sets is None:
            memory_barrier(cmd, "ALL_COMMANDS", "MEMORY_READ|MEMORY_WRITE", "TRANSFER",
                           "TRANSFER_WRITE")
            vk.vkCmdFillBuffer(cmd, self.buffer.handle, 0, self.buffer.size, i)
            return
        memory_barrier(cmd, "ALL_COMMANDS", "MEMORY_READ|MEMORY_WRITE", "COMPUTE_SHADER",
                       "SHADER_READ|SHADER_WRITE")
        self.pipeline.bind(cmd, self.sets.sets[0])
        self.pipeline.push(cmd, CACHE_EVICT.pack(count=self.buffer.size // 16, never=1))
        vk.vkCmdDispatch(cmd, _GROUPS, 1, 1)

    def destroy(self) -> None:
        if self.sets is not None:
            self.sets.destroy()
            self.sets = None
        for buf in (self.buffer, self.sink):
            buf.destroy()
