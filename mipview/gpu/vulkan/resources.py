"""GPU images with a full mip chain, host buffers, and staging upload / read-back."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from mipview.core.bands import for_rows
from mipview.core.errors import MipviewError
from mipview.core.formats import Format, level_size, mip_count
from mipview.core.turns import give_turn
from mipview.gpu.vulkan.context import DeviceCaps, GpuContext
from mipview.gpu.vulkan.pipelines import closing_cache
from mipview.gpu.vulkan.sync import image_barrier, memory_barrier
from mipview.gpu.vulkan.vkapi import flag, vk

EXTENDED_USAGE_BIT = 0x100  # VK_IMAGE_CREATE_EXTENDED_USAGE_BIT (the binding maps it to None)


def allocate(ctx: GpuContext, req: Any, what: str,
             kind: tuple[int, int] | None = None) -> Any:
    """Memory for requirements ``req`` of the first type with ``kind``'s (required, preferred)
    property flags (None: device-local preferred); MipviewError "out of GPU memory ``what``"
    when the device has none left."""
    required, preferred = kind or (0, flag("VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT"))
    mtype = ctx.memory_type(req.memoryTypeBits, required, preferred)
    try:
        return vk.vkAllocateMemory(ctx.device, vk.VkMemoryAllocateInfo(
            allocationSize=req.size, memoryTypeIndex=mtype), None)
    except vk.VkError as exc:
        raise MipviewError(f"out of GPU memory {what}") from exc


#: the bytes of one row of :meth:`Buffer.read`'s bands
_ROW = 1 << 16


class Buffer:
    """A VkBuffer with its own memory; host-visible buffers are coherent (no flushes)."""

    def __init__(self, ctx: GpuContext, size: int, usage: int, host_visible: bool = False) -> None:
        self.ctx = ctx
        self.size = int(size)
        self.host_visible = host_visible
        dev = ctx.device
        self.handle = vk.vkCreateBuffer(dev, vk.VkBufferCreateInfo(
            size=self.size, usage=usage,
            sharingMode=flag("VK_SHARING_MODE_EXCLUSIVE")), None)
        req = vk.vkGetBufferMemoryRequirements(dev, self.handle)
        kind = (flag("VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT")
                | flag("VK_MEMORY_PROPERTY_HOST_COHERENT_BIT"),
                flag("VK_MEMORY_PROPERTY_HOST_CACHED_BIT")) if host_visible else None
        try:
            self.memory = allocate(ctx, req, f"allocating {self.size} bytes", kind)
        except MipviewError:
            vk.vkDestroyBuffer(dev, self.handle, None)
            raise
        vk.vkBindBufferMemory(dev, self.handle, self.memory, 0)

    def write(self, data: bytes | np.ndarray, offset: int = 0) -> None:
        raw = np.ascontiguousarray(data).view(np.uint8).reshape(-1)
        mapped = vk.vkMapMemory(self.ctx.device, self.memory, offset, raw.nbytes, 0)
        try:
            np.frombuffer(mapped, np.uint8, count=raw.nbytes)[:] = raw
        finally:
            vk.vkUnmapMemory(self.ctx.device, self.memory)  # the view must not outlive this

    def read(self, size: int | None = None, offset: int = 0) -> np.ndarray:
        """A copy of ``size`` bytes (default: to the end) from ``offset``, made in bands on the
        analysis threads: most of a large copy is the first touch of the new array's pages
        (89 MB: 118 ms in one thread on a 2-core machine)."""
        n = self.size - offset if size is None else size
        mapped = vk.vkMapMemory(self.ctx.device, self.memory, offset, n, 0)
        try:
            src = np.frombuffer(mapped, np.uint8, count=n)
            out = np.empty(n, np.uint8)

            def band(start: int, stop: int) -> None:
                out[start * _ROW:stop * _ROW] = src[start * _ROW:stop * _ROW]

            for_rows(band, -(-n // _ROW), n)
            return out
        finally:
            vk.vkUnmapMemory(self.ctx.device, self.memory)

    def destroy(self) -> None:
        if self.handle is not None:
            vk.vkDestroyBuffer(self.ctx.device, self.handle, None)
            vk.vkFreeMemory(self.ctx.device, self.memory, None)
            self.handle = None


#: the largest read-back buffer a context keeps: an 8192^2 RGBA8 chain (358 MB) or a 4096^2
#: RGBA32F one fits; larger reads are rare enough to pay their allocation
KEEP_BYTES = 512 << 20


@contextlib.contextmanager
def readback_buffer(ctx: GpuContext, size: int) -> Iterator[Buffer]:
    """A host-visible buffer of at least ``size`` bytes to copy an image into and read, for the
    ``with`` body: the one the context keeps when it is free and large enough.

    Host-visible memory is pinned as it is allocated: on an H100 a 4096^2 RGBA8 chain's 89 MB
    took 20-30 ms, once per strategy of a Run, before its timing could start. A context keeps
    one buffer (up to :data:`KEEP_BYTES`), grown when a read needs more, freed on close."""
    kept = closing_cache(ctx, "readback", Buffer.destroy)
    # taken while in use: a read meanwhile (another thread) makes its own
    buf = kept.pop("buffer", None) if size <= KEEP_BYTES else None
    if buf is not None and buf.size < size:
        buf.destroy()
        buf = None
    if buf is None:
        buf = Buffer(ctx, size, flag("VK_BUFFER_USAGE_TRANSFER_DST_BIT"), True)
    try:
        yield buf
    finally:
        if buf.size > KEEP_BYTES:
            buf.destroy()
        else:
            other = kept.pop("buffer", None)  # one made meanwhile: the larger one stays
            if other is not None and other.size > buf.size:
                buf, other = other, buf
            if other is not None:
                other.destroy()
            kept["buffer"] = buf


def _subresource(level: int, layers: int, aspect: str = "COLOR") -> Any:
    return vk.VkImageSubresourceLayers(aspectMask=flag(f"VK_IMAGE_ASPECT_{aspect}_BIT"),
                                       mipLevel=level, baseArrayLayer=0, layerCount=layers)


def clear_to_sentinel(cmd: Any, image: Any, fmt: Format, first: int, levels: int,
                      layers: int) -> None:
    """Record a clear of levels ``first`` .. ``levels``-1 of ``image`` (in TRANSFER_DST_OPTIMAL)
    to the sentinel: NaN for float formats, magenta otherwise. A level a strategy never writes
    then fails every comparison instead of passing by luck."""
    if levels <= first:
        return
    colour = vk.VkClearColorValue(
        float32=[float("nan")] * 4 if fmt.is_float else [1.0, 0.0, 1.0, 1.0])
    rng = vk.VkImageSubresourceRange(aspectMask=flag("VK_IMAGE_ASPECT_COLOR_BIT"),
                                     baseMipLevel=first, levelCount=levels - first,
                                     baseArrayLayer=0, layerCount=layers)
    vk.vkCmdClearColorImage(cmd, image, flag("VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL"), colour, 1,
                            [rng])


def level_view(ctx: GpuContext, image: Any, level: int, vk_format: int, usage: int,
               view_type: str, layers: int = 1, aspect: str = "COLOR",
               green_is_red: bool = False) -> Any:
    """A view of one mip level of ``image`` (all ``layers``) as ``vk_format``, of
    VK_IMAGE_VIEW_TYPE_``view_type``; ``usage`` (0: the image's) narrows what it is used for
    (a storage alias of an sRGB image), ``green_is_red`` reads R in G too (a depth source under
    two-channel levels)."""
    rng = vk.VkImageSubresourceRange(aspectMask=flag(f"VK_IMAGE_ASPECT_{aspect}_BIT"),
                                     baseMipLevel=level, levelCount=1, baseArrayLayer=0,
                                     layerCount=layers)
    info = vk.VkImageViewCreateInfo(
        image=image, viewType=flag(f"VK_IMAGE_VIEW_TYPE_{view_type}"), format=vk_format,
        subresourceRange=rng,
        pNext=vk.VkImageViewUsageCreateInfo(usage=usage) if usage else None)
    if green_is_red:
        identity = flag("VK_COMPONENT_SWIZZLE_IDENTITY")
        info.components = vk.VkComponentMapping(
            r=identity, g=flag("VK_COMPONENT_SWIZZLE_R"), b=identity, a=identity)
    return vk.vkCreateImageView(ctx.device, info, None)


class DepthRangeError(MipviewError):
    """A depth level 0 with values a depth image cannot hold."""


class ImageLimitError(MipviewError):
    """An image larger than the device allows (sides or array layers)."""


def check_image_limits(caps: DeviceCaps, width: int, height: int, layers: int = 1) -> None:
    """Refuse, with one line, an image the device cannot hold: the one check of the device's
    image limits (the CLI calls it before any allocation, MipImage before creating one)."""
    limit = caps.max_image_dimension_2d
    if width > limit or height > limit:
        raise ImageLimitError(f"image {width}x{height} exceeds the device limit of "
                              f"{limit}x{limit} ({caps.name})")
    if layers > caps.max_image_array_layers:
        raise ImageLimitError(f"{layers} layers exceed the device limit of "
                              f"{caps.max_image_array_layers} ({caps.name})")


class MipImage:
    """A 2D (array) image with a full mip chain and one view per level.

    Every view is 2D_ARRAY (a plain image is an array of one layer), so shaders address texels as
    ``ivec3(x, y, layer)`` whatever the layer count. sRGB images are created with the SRGB format
    (so blits and samplers filter in linear light) and MUTABLE_FORMAT, and get UNORM storage views:
    no device offers storage on SRGB formats, so shaders encode before they store. Between runs
    the image rests in GENERAL layout.

    A depth-source format (``d32``, ``d16``) adds level 0's own depth image (``source_image``): depth
    images cannot be storage images, so every source view of level 0 is its sampled depth view,
    and the chain's level 0 holds the sentinel, which a strategy that reads it instead shows.
    """

    def __init__(self, ctx: GpuContext, fmt: Format, width: int, height: int,
                 layers: int = 1, levels: int | None = None) -> None:
        check_image_limits(ctx.caps, width, height, layers)
        self.ctx = ctx
        self.fmt = fmt
        self.width, self.height, self.layers = width, height, layers
        self.levels = levels or mip_count(width, height)
        self.image = None
        self.memory = None
        self.source_image = None
        self.source_memory = None
        self.storage_views: list[Any] = []
        self.sampled_views: list[Any] = []
        try:
            self._create()
        except Exception:
            self.destroy()
            raise

    def level_size(self, level: int) -> tuple[int, int]:
        return level_size(self.width, self.height, level)

    def level_bytes(self, level: int) -> int:
        w, h = self.level_size(level)
        return w * h * self.layers * self.fmt.bytes_per_texel

    @property
    def total_bytes(self) -> int:
        return sum(self.level_bytes(i) for i in range(self.levels))

    def _new_image(self, vk_format: int, levels: int, usage: int, flags: int,
                   what: str) -> tuple[Any, Any]:
        """A 2D array image of this one's size and layers, with its memory bound."""
        dev = self.ctx.device
        info = vk.VkImageCreateInfo(
            flags=flags, imageType=flag("VK_IMAGE_TYPE_2D"), format=vk_format,
            extent=vk.VkExtent3D(width=self.width, height=self.height, depth=1),
            mipLevels=levels, arrayLayers=self.layers,
            samples=flag("VK_SAMPLE_COUNT_1_BIT"), tiling=flag("VK_IMAGE_TILING_OPTIMAL"),
            usage=usage, sharingMode=flag("VK_SHARING_MODE_EXCLUSIVE"),
            initialLayout=flag("VK_IMAGE_LAYOUT_UNDEFINED"))
        image = vk.vkCreateImage(dev, info, None)
        req = vk.vkGetImageMemoryRequirements(dev, image)
        try:
            memory = allocate(self.ctx, req, f"for a {self.width}x{self.height} {what} "
                                             f"({req.size >> 20} MiB)")
        except Exception:
            vk.vkDestroyImage(dev, image, None)
            raise
        vk.vkBindImageMemory(dev, image, memory, 0)
        return image, memory

    def _create(self) -> None:
        transfer = flag("VK_IMAGE_USAGE_TRANSFER_SRC_BIT") | flag("VK_IMAGE_USAGE_TRANSFER_DST_BIT")
        usage = flag("VK_IMAGE_USAGE_STORAGE_BIT") | flag("VK_IMAGE_USAGE_SAMPLED_BIT") | transfer
        create_flags = 0
        if self.fmt.is_srgb:
            create_flags = flag("VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT") | EXTENDED_USAGE_BIT
        self.image, self.memory = self._new_image(self.fmt.info.vk_format, self.levels, usage,
                                                  create_flags, f"{self.fmt.label} image")
        for level in range(self.levels):
            give_turn()  # views are several calls each (mipview/core/turns.py)
            if self.fmt.is_srgb:
                # UNORM supports storage and sampling, so this one view also serves shaders
                # that read the encoded bytes and decode them exactly (``encoded_views``)
                self.storage_views.append(self._view(level, self.fmt.info.vk_storage_format,
                                                     flag("VK_IMAGE_USAGE_STORAGE_BIT")
                                                     | flag("VK_IMAGE_USAGE_SAMPLED_BIT")))
                self.sampled_views.append(self._view(level, self.fmt.info.vk_format,
                                                     flag("VK_IMAGE_USAGE_SAMPLED_BIT")))
            else:
                view = self._view(level, self.fmt.info.vk_format, 0)
                self.storage_views.append(view)
                self.sampled_views.append(view)
        if self.fmt.depth_source:
            self.source_image, self.source_memory = self._new_image(
                self.fmt.info.vk_source_format, 1, flag("VK_IMAGE_USAGE_SAMPLED_BIT") | transfer,
                0, "depth image")
            # d32-rg32f's levels have two channels: G=R makes its depth view read (d, d, 0, 1),
            # so a min+max shader takes both extremes of level 0 from it, as from rg32f
            self.sampled_views[0] = self._view(0, self.fmt.info.vk_source_format, 0,
                                               self.source_image, "DEPTH",
                                               green_is_red=self.fmt.channels > 1)

    @property
    def encoded_views(self) -> list[Any]:
        """Per-level views whose sampled reads give the stored values undecoded (the UNORM
        alias of an sRGB image; the plain view otherwise), for shaders that decode sRGB
        themselves rather than trust the sampler's decode (lavapipe's is 0.3 LSB off); level
        0's depth view for a depth source."""
        if self.fmt.depth_source:
            return self.sampled_views[:1] + self.storage_views[1:]
        return self.storage_views

    def source_views(self, filtered: bool) -> list[Any]:
        """Per-level views a shader reads its source level through: the encoded ones for texel
        loads (sRGB decoded in the shader with mipDecode, exactly), the sampled ones for a
        filtered (bilinear) sample, whose filter must average sRGB in linear light."""
        return self.sampled_views if filtered else self.encoded_views

    def _view(self, level: int, vk_format: int, usage: int, image: Any = None,
              aspect: str = "COLOR", green_is_red: bool = False) -> Any:
        return level_view(self.ctx, self.image if image is None else image, level, vk_format,
                          usage, "2D_ARRAY", self.layers, aspect, green_is_red)

    # --- transfers -----------------------------------------------------------------------
    def upload(self, level0: np.ndarray) -> None:
        """Write level 0 (all layers), fill levels 1.. with a sentinel, leave all in GENERAL.

        The sentinel (magenta for UNORM, NaN for floats) makes a level that a strategy never
        writes fail every comparison instead of passing by luck.
        """
        staging = self.staging(level0)
        try:
            self.upload_from(staging)
        finally:
            staging.destroy()

    def upload_from(self, staging: Buffer) -> None:
        """:meth:`upload` of what :meth:`staging` holds (of this image's format and size or one
        like it): images of one source share one staging buffer, and the host packs and copies
        level 0 once for all of them."""
        with self.ctx.one_shot() as cmd:
            self.record_upload(cmd, staging)

    def staging(self, level0: np.ndarray) -> Buffer:
        """A host-visible buffer holding level 0 as this image's level 0 holds it; the caller
        destroys it."""
        data = np.ascontiguousarray(level0, dtype=self.fmt.dtype)
        expected = (self.layers, self.height, self.width, 4)
        if data.reshape((-1, *data.shape[-3:])).shape != expected:
            raise ValueError(f"level 0 has shape {data.shape}, image wants {expected}")
        data = self.fmt.pack_source(data)  # host texels are RGBA; the image keeps its own
        if self.fmt.depth_source and self.fmt.is_float and data.size and not (
                (data >= 0).all() and (data <= 1).all()):  # d16's codes are [0, 1] by make
            raise DepthRangeError(
                f"a {self.fmt.label} depth image holds depth in [0, 1]; level 0 has values "
                f"from {np.nanmin(data):g} to {np.nanmax(data):g}"
                f"{' and NaN' if np.isnan(data).any() else ''} (open it as r32f)")
        staging = Buffer(self.ctx, data.nbytes, flag("VK_BUFFER_USAGE_TRANSFER_SRC_BIT"), True)
        try:
            staging.write(data)
        except Exception:
            staging.destroy()
            raise
        return staging

    def record_upload(self, cmd: Any, staging: Buffer, offset: int = 0) -> None:
        image_barrier(cmd, self.image, "UNDEFINED", "TRANSFER_DST_OPTIMAL", "TOP_OF_PIPE", "",
                      "TRANSFER", "TRANSFER_WRITE", 0, self.levels, self.layers)
        depth = self.fmt.depth_source
        target, aspect = (self.source_image, "DEPTH") if depth else (self.image, "COLOR")
        if depth:
            image_barrier(cmd, target, "UNDEFINED", "TRANSFER_DST_OPTIMAL", "TOP_OF_PIPE", "",
                          "TRANSFER", "TRANSFER_WRITE", 0, 1, self.layers, aspect)
        region = vk.VkBufferImageCopy(
            bufferOffset=offset, bufferRowLength=0, bufferImageHeight=0,
            imageSubresource=_subresource(0, self.layers, aspect),
            imageOffset=vk.VkOffset3D(x=0, y=0, z=0),
            imageExtent=vk.VkExtent3D(width=self.width, height=self.height, depth=1))
        vk.vkCmdCopyBufferToImage(cmd, staging.handle, target,
                                  flag("VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL"), 1, [region])
        if depth:
            image_barrier(cmd, target, "TRANSFER_DST_OPTIMAL", "GENERAL", "TRANSFER",
                          "TRANSFER_WRITE", "ALL_COMMANDS", "MEMORY_READ|MEMORY_WRITE",
                          0, 1, self.layers, aspect)
        # the chain's level 0 of a depth source is never read: it holds the sentinel too
        clear_to_sentinel(cmd, self.image, self.fmt, 0 if depth else 1, self.levels, self.layers)
        image_barrier(cmd, self.image, "TRANSFER_DST_OPTIMAL", "GENERAL", "TRANSFER",
                      "TRANSFER_WRITE", "ALL_COMMANDS", "MEMORY_READ|MEMORY_WRITE",
                      0, self.levels, self.layers)

    def read_levels(self) -> list[np.ndarray]:
        """Every level as storage values: (H, W, 4), or (layers, H, W, 4) for arrays (the
        channels a format lacks as a shader reads them: Format.unpack)."""
        sizes = [self.level_bytes(i) for i in range(self.levels)]
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int)
        with readback_buffer(self.ctx, sum(sizes)) as buf:
            with self.ctx.one_shot() as cmd:
                image_barrier(cmd, self.image, "GENERAL", "TRANSFER_SRC_OPTIMAL", "ALL_COMMANDS",
                              "MEMORY_WRITE", "TRANSFER", "TRANSFER_READ", 0, self.levels,
                              self.layers)
                regions = []
                for level in range(self.levels):
                    w, h = self.level_size(level)
                    regions.append(vk.VkBufferImageCopy(
                        bufferOffset=int(offsets[level]), bufferRowLength=0, bufferImageHeight=0,
                        imageSubresource=_subresource(level, self.layers),
                        imageOffset=vk.VkOffset3D(x=0, y=0, z=0),
                        imageExtent=vk.VkExtent3D(width=w, height=h, depth=1)))
                if self.fmt.depth_source:  # level 0 is the depth image's
                    self._copy_source(cmd, buf, regions.pop(0))
                vk.vkCmdCopyImageToBuffer(cmd, self.image,
                                          flag("VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL"),
                                          buf.handle, len(regions), regions)
                image_barrier(cmd, self.image, "TRANSFER_SRC_OPTIMAL", "GENERAL", "TRANSFER",
                              "TRANSFER_READ", "ALL_COMMANDS", "MEMORY_READ|MEMORY_WRITE",
                              0, self.levels, self.layers)
                memory_barrier(cmd, "TRANSFER", "TRANSFER_WRITE", "HOST", "HOST_READ")
            raw = buf.read(sum(sizes))
        out = []
        # views of ``raw``, our own copy of the mapped memory: a second copy per level would
        # cost another pass over the pyramid before the timing can start
        for level in range(self.levels):
            w, h = self.level_size(level)
            if level == 0 and self.fmt.depth_source:  # the depth image's one component
                size = sizes[0] // self.fmt.texel_components
                arr = raw[:size].view(self.fmt.texel_dtype)
                arr = self.fmt.unpack_source(arr.reshape(self.layers, h, w, 1))
            else:
                arr = raw[offsets[level]:offsets[level] + sizes[level]].view(self.fmt.texel_dtype)
                arr = self.fmt.unpack(arr.reshape(self.layers, h, w, self.fmt.texel_components))
            out.append(arr[0] if self.layers == 1 else arr)
        return out

    def _copy_source(self, cmd: Any, buf: Buffer, region: Any) -> None:
        region.imageSubresource = _subresource(0, self.layers, "DEPTH")
        image_barrier(cmd, self.source_image, "GENERAL", "TRANSFER_SRC_OPTIMAL", "ALL_COMMANDS",
                      "MEMORY_WRITE", "TRANSFER", "TRANSFER_READ", 0, 1, self.layers, "DEPTH")
        vk.vkCmdCopyImageToBuffer(cmd, self.source_image,
                                  flag("VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL"), buf.handle, 1,
                                  [region])
        image_barrier(cmd, self.source_image, "TRANSFER_SRC_OPTIMAL", "GENERAL", "TRANSFER",
                      "TRANSFER_READ", "ALL_COMMANDS", "MEMORY_READ|MEMORY_WRITE", 0, 1,
                      self.layers, "DEPTH")

    def destroy(self) -> None:
        dev = self.ctx.device
        seen = set()
        for view in self.storage_views + self.sampled_views:
            if id(view) not in seen:
                seen.add(id(view))
                vk.vkDestroyImageView(dev, view, None)
        self.storage_views.clear()
        self.sampled_views.clear()
        for image, memory in ((self.image, self.memory),
                              (self.source_image, self.source_memory)):
            if image is not None:
                vk.vkDestroyImage(dev, image, None)
            if memory is not None:
                vk.vkFreeMemory(dev, memory, None)
        self.image = self.memory = self.source_image = self.source_memory = None

