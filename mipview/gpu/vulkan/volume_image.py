"""A 3D image (a volume) with a full mip chain and one 3D view per level.

The volume counterpart of :class:`~mipview.gpu.vulkan.resources.MipImage`: level k is
``volume_level_size(w, h, d, k)`` (mipview/core/volume.py), host arrays are ``(D, H, W, 4)``
storage values, slice z = 0 first, as the volume's files hold them. sRGB volumes get UNORM storage
views as MipImage's levels do (no device stores to SRGB formats); depth formats have no 3D images.
Between runs the image rests in GENERAL layout.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mipview.core.errors import MipviewError
from mipview.core.formats import Format
from mipview.core.turns import give_turn
from mipview.core.volume import volume_level_size, volume_mip_count, volume_texels
from mipview.gpu.vulkan.context import GpuContext
from mipview.gpu.vulkan.resources import (
    EXTENDED_USAGE_BIT,
    Buffer,
    ImageLimitError,
    allocate,
    clear_to_sentinel,
    level_view,
    readback_buffer,
)
from mipview.gpu.vulkan.sync import image_barrier, memory_barrier
from mipview.gpu.vulkan.vkapi import flag, vk


class VolumeImage:
    def __init__(self, ctx: GpuContext, fmt: Format, width: int, height: int,
                 depth: int) -> None:
        if fmt.depth_source:
            raise MipviewError(f"{fmt.label} is a depth image's format, and depth images are "
                               "2D: open the volume as " + fmt.chain.label)
        limit = ctx.caps.max_image_dimension_3d
        if max(width, height, depth) > limit:
            raise ImageLimitError(f"volume {width}x{height}x{depth} exceeds the device limit "
                                  f"of {limit} per side ({ctx.caps.name})")
        self.ctx = ctx
        self.fmt = fmt
        self.width, self.height, self.depth = width, height, depth
        self.levels = volume_mip_count(width, height, depth)
        self.image = self.memory = None
        self.storage_views: list[Any] = []
        self.sampled_views: list[Any] = []
        try:
            self._create()
        except Exception:
            self.destroy()
            raise

    def level_size(self, level: int) -> tuple[int, int, int]:
        return volume_level_size(self.width, self.height, self.depth, level)

    def level_bytes(self, level: int) -> int:
        w, h, d = self.level_size(level)
        return w * h * d * self.fmt.bytes_per_texel

    @property
    def total_bytes(self) -> int:
        return sum(self.level_bytes(i) for i in range(self.levels))

    def _create(self) -> None:
        dev = self.ctx.device
        usage = (flag("VK_IMAGE_USAGE_STORAGE_BIT") | flag("VK_IMAGE_USAGE_SAMPLED_BIT")
                 | flag("VK_IMAGE_USAGE_TRANSFER_SRC_BIT") | flag("VK_IMAGE_USAGE_TRANSFER_DST_BIT"))
        create_flags = (flag("VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT") | EXTENDED_USAGE_BIT
                        if self.fmt.is_srgb else 0)
        self.image = vk.vkCreateImage(dev, vk.VkImageCreateInfo(
            flags=create_flags, imageType=flag("VK_IMAGE_TYPE_3D"), format=self.fmt.info.vk_format,
            extent=vk.VkExtent3D(width=self.width, height=self.height, depth=self.depth),
            mipLevels=self.levels, arrayLayers=1, samples=flag("VK_SAMPLE_COUNT_1_BIT"),
            tiling=flag("VK_IMAGE_TILING_OPTIMAL"), usage=usage,
            sharingMode=flag("VK_SHARING_MODE_EXCLUSIVE"),
            initialLayout=flag("VK_IMAGE_LAYOUT_UNDEFINED")), None)
        req = vk.vkGetImageMemoryRequirements(dev, self.image)
        self.memory = allocate(self.ctx, req, f"for a {self.width}x{self.height}x{self.depth} "
                                              f"{self.fmt.label} volume ({req.size >> 20} MiB)")
        vk.vkBindImageMemory(dev, self.image, self.memory, 0)
        for level in range(self.levels):
            give_turn()
            if self.fmt.is_srgb:  # texel loads decode in the shader (mipDecode), exactly
                self.storage_views.append(self._view(level, self.fmt.info.vk_storage_format,
                                                     flag("VK_IMAGE_USAGE_STORAGE_BIT")
                                                     | flag("VK_IMAGE_USAGE_SAMPLED_BIT")))
            else:
                self.storage_views.append(self._view(level, self.fmt.info.vk_format, 0))
            self.sampled_views.append(self.storage_views[-1])

    def _view(self, level: int, vk_format: int, usage: int) -> Any:
        return level_view(self.ctx, self.image, level, vk_format, usage, "3D")

    def _region(self, level: int, offset: int) -> Any:
        w, h, d = self.level_size(level)
        return vk.VkBufferImageCopy(
            bufferOffset=offset, bufferRowLength=0, bufferImageHeight=0,
            imageSubresource=vk.VkImageSubresourceLayers(
                aspectMask=flag("VK_IMAGE_ASPECT_COLOR_BIT"), mipLevel=level, baseArrayLayer=0,
                layerCount=1),
            imageOffset=vk.VkOffset3D(x=0, y=0, z=0),
            imageExtent=vk.VkExtent3D(width=w, height=h, depth=d))

    def upload(self, level0: np.ndarray) -> None:
        """Write level 0 ``(D, H, W, 4)``, fill levels 1.. with the sentinel
        (resources.clear_to_sentinel), leave all in GENERAL."""
        data = volume_texels(np.ascontiguousarray(level0, dtype=self.fmt.dtype), 4)
        if data.shape[:3] != (self.depth, self.height, self.width):
            raise ValueError(f"level 0 has shape {data.shape}, the volume wants "
                             f"{(self.depth, self.height, self.width, 4)}")
        packed = self.fmt.pack(data)
        staging = Buffer(self.ctx, packed.nbytes, flag("VK_BUFFER_USAGE_TRANSFER_SRC_BIT"), True)
        try:
            staging.write(packed)
            with self.ctx.one_shot() as cmd:
                image_barrier(cmd, self.image, "UNDEFINED", "TRANSFER_DST_OPTIMAL",
                              "TOP_OF_PIPE", "", "TRANSFER", "TRANSFER_WRITE", 0, self.levels)
                vk.vkCmdCopyBufferToImage(cmd, staging.handle, self.image,
                                          flag("VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL"), 1,
                                          [self._region(0, 0)])
                clear_to_sentinel(cmd, self.image, self.fmt, 1, self.levels, 1)
                image_barrier(cmd, self.image, "TRANSFER_DST_OPTIMAL", "GENERAL", "TRANSFER",
                              "TRANSFER_WRITE", "ALL_COMMANDS", "MEMORY_READ|MEMORY_WRITE", 0,
                              self.levels)
        finally:
            staging.destroy()

    def read_levels(self) -> list[np.ndarray]:
        """Every level as storage values ``(d, h, w, 4)`` (the channels a format lacks as a
        shader reads them: Format.unpack)."""
        sizes = [self.level_bytes(i) for i in range(self.levels)]
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int)
        with readback_buffer(self.ctx, sum(sizes)) as buf:
            with self.ctx.one_shot() as cmd:
                image_barrier(cmd, self.image, "GENERAL", "TRANSFER_SRC_OPTIMAL", "ALL_COMMANDS",
                              "MEMORY_WRITE", "TRANSFER", "TRANSFER_READ", 0, self.levels)
                regions = [self._region(k, int(offsets[k])) for k in range(self.levels)]
                vk.vkCmdCopyImageToBuffer(cmd, self.image,
                                          flag("VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL"),
                                          buf.handle, len(regions), regions)
                image_barrier(cmd, self.image, "TRANSFER_SRC_OPTIMAL", "GENERAL", "TRANSFER",
                              "TRANSFER_READ", "ALL_COMMANDS", "MEMORY_READ|MEMORY_WRITE", 0,
                              self.levels)
                memory_barrier(cmd, "TRANSFER", "TRANSFER_WRITE", "HOST", "HOST_READ")
            raw = buf.read(sum(sizes))
        out = []
        for k in range(self.levels):
            w, h, d = self.level_size(k)
            arr = raw[offsets[k]:offsets[k] + sizes[k]].view(self.fmt.texel_dtype)
            out.append(self.fmt.unpack(arr.reshape(d, h, w, self.fmt.texel_components)))
        return out

    def destroy(self) -> None:
        dev = self.ctx.device
        for view in self.storage_views:
            vk.vkDestroyImageView(dev, view, None)
        self.storage_views.clear()
        self.sampled_views.clear()
        if self.image is not None:
            vk.vkDestroyImage(dev, self.image, None)
        if self.memory is not None:
            vk.vkFreeMemory(dev, self.memory, None)
        self.image = self.memory = None
