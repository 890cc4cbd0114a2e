"""Pipeline barriers, written once for every strategy."""

from __future__ import annotations

from typing import Any

from mipview.gpu.vulkan.vkapi import flag, vk


def memory_barrier(cmd: Any, src_stage: str, src_access: str, dst_stage: str,
                   dst_access: str) -> None:
    """Global memory barrier. Stages/accesses are names like ``"COMPUTE_SHADER"`` and
    ``"SHADER_WRITE|TRANSFER_WRITE"`` (expanded to VK_PIPELINE_STAGE_*_BIT / VK_ACCESS_*_BIT)."""
    barrier = vk.VkMemoryBarrier(srcAccessMask=access(src_access), dstAccessMask=access(dst_access))
    vk.vkCmdPipelineBarrier(cmd, stage(src_stage), stage(dst_stage), 0, 1, [barrier], 0, None,
                            0, None)


def image_barrier(cmd: Any, image: Any, old_layout: str, new_layout: str, src_stage: str,
                  src_access: str, dst_stage: str, dst_access: str, base_level: int = 0,
                  level_count: int = 1, layer_count: int = 1, aspect: str = "COLOR") -> None:
    """Layout transition (or plain dependency) on a range of mip levels, all layers."""
    rng = vk.VkImageSubresourceRange(aspectMask=flag(f"VK_IMAGE_ASPECT_{aspect}_BIT"),
                                     baseMipLevel=base_level, levelCount=level_count,
                                     baseArrayLayer=0, layerCount=layer_count)
    barrier = vk.VkImageMemoryBarrier(
        srcAccessMask=access(src_access), dstAccessMask=access(dst_access),
        oldLayout=layout(old_layout), newLayout=layout(new_layout),
        srcQueueFamilyIndex=vk.VK_QUEUE_FAMILY_IGNORED,
        dstQueueFamilyIndex=vk.VK_QUEUE_FAMILY_IGNORED, image=image, subresourceRange=rng)
    vk.vkCmdPipelineBarrier(cmd, stage(src_stage), stage(dst_stage), 0, 0, None, 0, None,
                            1, [barrier])


def stage(names: str) -> int:
    return _bits(names, "VK_PIPELINE_STAGE_{}_BIT")


def access(names: str) -> int:
    return _bits(names, "VK_ACCESS_{}_BIT") if names else 0


def layout(name: str) -> int:
    return flag(f"VK_IMAGE_LAYOUT_{name}")


def _bits(names: str, pattern: str) -> int:
    value = 0
    for n in names.split("|"):
        value |= flag(pattern.format(n.strip()))
    return value
