"""The counters of SPD's atomic hand-off (mipview/gpu/shaders/include/handoff.glsl): one uint per layer,
zeroed once here; the last workgroup of every run resets its layer's counter itself."""

from __future__ import annotations

from mipview.gpu.vulkan.context import DeviceCaps, GpuContext
from mipview.gpu.vulkan.resources import Buffer
from mipview.gpu.vulkan.sync import memory_barrier
from mipview.gpu.vulkan.vkapi import flag, vk


def group_reason(caps: DeviceCaps, shared_bytes: int, threads: int) -> str | None:
    """Why work groups of ``threads`` invocations holding ``shared_bytes`` of shared memory,
    whose last one takes over after the hand-off, cannot run on ``caps``; None if they can."""
    if caps.max_shared_memory < shared_bytes:
        return f"needs {shared_bytes} B of shared memory, device has {caps.max_shared_memory}"
    if caps.max_workgroup_invocations < threads:
        return f"needs {threads}-invocation work groups"
    if not caps.vulkan_memory_model:
        return "device lacks vulkanMemoryModel (needed for the hand-off to the last group)"
    return None


def counters(ctx: GpuContext, layers: int) -> Buffer:
    """A storage buffer of ``layers`` zeroed counters, ready for compute shaders."""
    buf = Buffer(ctx, 4 * layers, flag("VK_BUFFER_USAGE_STORAGE_BUFFER_BIT")
                 | flag("VK_BUFFER_USAGE_TRANSFER_DST_BIT"))
    with ctx.one_shot() as cmd:
        vk.vkCmdFillBuffer(cmd, buf.handle, 0, buf.size, 0)
        memory_barrier(cmd, "TRANSFER", "TRANSFER_WRITE", "COMPUTE_SHADER",
                       "SHADER_READ|SHADER_WRITE")
    return buf
