"""``blit``: the classic vkCmdBlitImage chain with a linear filter, one barrier per level.

The filter is implementation-defined: on NPOT sides it samples bilinearly at destination texel
centres and drops source texels, so it is checked against ``reference.blit_reference`` and the
heatmap against the exact reference shows what it loses. Needs a graphics-capable queue.
"""

from __future__ import annotations

from typing import Any

from mipview.core.formats import Format
from mipview.core.results import DispatchStep
from mipview.gpu.strategies.base import Strategy, level_sizes
from mipview.gpu.vulkan.context import DeviceCaps
from mipview.gpu.vulkan.resources import MipImage
from mipview.gpu.vulkan.sync import image_barrier
from mipview.gpu.vulkan.timing import Marks
from mipview.gpu.vulkan.vkapi import flag, vk

_BLIT_FEATURES = ("BLIT_SRC", "BLIT_DST", "SAMPLED_IMAGE_FILTER_LINEAR")


class Blit(Strategy):
    name = "blit"
    title = "Blit chain"
    description = "vkCmdBlitImage level to level with VK_FILTER_LINEAR (drops texels on NPOT)."
    promise = "emulated"
    own_reference = "blit"

    @classmethod
    def unsupported_reason(cls, caps: DeviceCaps, fmt: Format, width: int, height: int,
                           layers: int = 1, options: dict[str, str] | None = None) -> str | None:
        if not caps.has_graphics:
            return "vkCmdBlitImage needs a graphics queue; this device's queue is compute-only"
        if fmt.depth_source:
            return (f"vkCmdBlitImage cannot blit a depth image ({fmt.label}) into a colour "
                    f"level; the compute strategies read it through a sampled depth view")
        for feature in _BLIT_FEATURES:
            if not caps.supports(fmt, flag(f"VK_FORMAT_FEATURE_{feature}_BIT")):
                return f"{fmt.label} images lack {feature} on this device"
        return None

    npot = False

    def notes(self) -> list[str]:
        if self.npot:
            return ["NPOT: the linear blit drops source texels; compare with the blit reference"]
        return []

    def prepare(self, image: MipImage) -> None:
        w, h = image.width, image.height
        self.npot = bool(w & (w - 1) or h & (h - 1))
        # blits, not dispatches: the steps carry the plan only
        self.steps = tuple(DispatchStep(f"level {i}", (i,)) for i in range(1, image.levels))

    def record(self, cmd: Any, image: MipImage, marks: Marks) -> None:
        n, layers = image.levels, image.layers
        if not self.steps:
            return
        sizes = level_sizes(image)
        image_barrier(cmd, image.image, "GENERAL", "TRANSFER_SRC_OPTIMAL", "ALL_COMMANDS",
                      "MEMORY_WRITE", "TRANSFER", "TRANSFER_READ", 0, 1, layers)
        image_barrier(cmd, image.image, "GENERAL", "TRANSFER_DST_OPTIMAL", "ALL_COMMANDS",
                      "MEMORY_READ|MEMORY_WRITE", "TRANSFER", "TRANSFER_WRITE", 1, n - 1, layers)
        color = flag("VK_IMAGE_ASPECT_COLOR_BIT")
        for step in self.steps:
            (level,) = step.levels
            (sw, sh), (dw, dh) = sizes[level - 1], sizes[level]
            src_sub = vk.VkImageSubresourceLayers(aspectMask=color, mipLevel=level - 1,
                                                  baseArrayLayer=0, layerCount=layers)
            dst_sub = vk.VkImageSubresourceLayers(aspectMask=color, mipLevel=level,
                                                  baseArrayLayer=0, layerCount=layers)
            src_offsets = [vk.VkOffset3D(x=0, y=0, z=0), vk.VkOffset3D(x=sw, y=sh, z=1)]
            dst_offsets = [vk.VkOffset3D(x=0, y=0, z=0), vk.VkOffset3D(x=dw, y=dh, z=1)]
            region = vk.VkImageBlit(srcSubresource=src_sub, srcOffsets=src_offsets,
                                    dstSubresource=dst_sub, dstOffsets=dst_offsets)
            vk.vkCmdBlitImage(cmd, image.image, flag("VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL"),
                              image.image, flag("VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL"), 1,
                              [region], flag("VK_FILTER_LINEAR"))
            # the level just written becomes the next blit's source
            image_barrier(cmd, image.image, "TRANSFER_DST_OPTIMAL", "TRANSFER_SRC_OPTIMAL",
                          "TRANSFER", "TRANSFER_WRITE", "TRANSFER", "TRANSFER_READ", level, 1,
                          layers)
            marks.mark(cmd, step.label)
        image_barrier(cmd, image.image, "TRANSFER_SRC_OPTIMAL", "GENERAL", "TRANSFER",
                      "TRANSFER_WRITE", "ALL_COMMANDS", "MEMORY_READ|MEMORY_WRITE", 0, n, layers)
