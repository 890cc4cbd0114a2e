"""The sampled-read ceiling: how fast the texture unit reads level 0 of this very image.

``mipview bench`` reports it next to the copy floor. The copy floor is a buffer copy, and on
NVIDIA buffer loads and texture fetches take different paths: a strategy that samples level 0
cannot read it faster than this, whatever it does with the texels (mipview/gpu/measure/image_read.comp reads
every texel once, in 4x4 blocks per invocation, bilinear where the format filters, else a gather
per channel where it has one or two, else texel loads, and writes nothing). Timed like the strategies: same cache eviction, many runs per submit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mipview.core.formats import Format
from mipview.core.results import TimingStats
from mipview.gpu.measure.evict import CacheEvictor
from mipview.gpu.shaders.shipped import IMAGE_READ, gather_mode
from mipview.gpu.strategies.base import group_count
from mipview.gpu.vulkan.context import GpuContext
from mipview.gpu.vulkan.pipelines import DescriptorSets, get_pipeline, get_sampler
from mipview.gpu.vulkan.resources import Buffer, MipImage
from mipview.gpu.vulkan.timing import TimedBatch
from mipview.gpu.vulkan.vkapi import flag, vk

_GROUP = 16
_TEXELS = 4  # per invocation and side


@dataclass(frozen=True)
class ImageRead:
    bytes_read: int
    timing: TimingStats
    linear: bool  # bilinear samples
    gather: int = 0  # else gather_mode (0: texel loads)

    @property
    def gbps(self) -> float:
        return self.bytes_read / (self.timing.median * 1e3)

    def as_dict(self) -> dict[str, float | int | bool]:
        return {"gbps": self.gbps, "median_us": self.timing.median,
                "bytes": self.bytes_read, "bilinear": self.linear, "gather": self.gather}


def image_read(ctx: GpuContext, level0: np.ndarray, fmt: Format,
               evict: CacheEvictor | None = None, repeats: int = 20) -> ImageRead:
    """Time reading ``level0`` ((L,) H, W, 4) through a sampler, ``repeats`` runs."""
    data = level0 if level0.ndim == 4 else level0[None]
    layers, height, width = data.shape[:3]
    linear = fmt.element is not Format.F32 and ctx.caps.supports(
        fmt, flag("VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT"))
    gather = 0 if linear else gather_mode(fmt, 0)
    image = MipImage(ctx, fmt, width, height, layers, levels=1)
    sink = Buffer(ctx, 16, flag("VK_BUFFER_USAGE_STORAGE_BUFFER_BIT"))
    sets = batch = None
    try:
        image.upload(np.ascontiguousarray(data.astype(fmt.dtype, copy=False)))
        pipeline = get_pipeline(ctx, IMAGE_READ, ("sampled", "storage_buffer"),
                                constants={"LINEAR": linear,
                                           # channels gathered: a depth read as two (mode 3)
                                           # holds one
                                           "GATHER": (0, 1, 2, 1)[gather]})
        sets = DescriptorSets(pipeline, 1)
        sets.write(0, [(image.sampled_views[0], get_sampler(ctx, linear=linear)),
                       (sink.handle, 0, 16)])
        groups = (group_count(width, _GROUP * _TEXELS), group_count(height, _GROUP * _TEXELS))

        def record(cmd: object, marks: object) -> None:
            pipeline.bind(cmd, sets.sets[0])
            pipeline.push(cmd, IMAGE_READ.pack(size=(width, height), never=-1e30))
            vk.vkCmdDispatch(cmd, groups[0], groups[1], layers)

        batch = TimedBatch(ctx, repeats, record,
                           before_each=evict.record if evict is not None else None)
        batch.submit(timed=False)  # warm-up
        runs = batch.submit()
        return ImageRead(width * height * layers * fmt.bytes_per_texel,
                         TimingStats(tuple(r[0] for r in runs)), linear, gather)
    finally:
        ctx.wait_idle()
        if batch is not None:
            batch.destroy()
        if sets is not None:
            sets.destroy()
        sink.destroy()
        image.destroy()
