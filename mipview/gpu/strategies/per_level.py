"""``per-level``: one compute dispatch per level, a barrier between levels.

The exact reference's weights (2 taps per even side, 3 area-weighted taps per odd side), so it
is exact at every size. Each invocation writes one texel from up to 9 fetches of the level below.
Shader: shaders/per_level.comp.
"""

from __future__ import annotations

from typing import Any

from mipview.formats import Format
from mipview.gpu.context import DeviceCaps
from mipview.gpu.pipelines import DescriptorSets, get_pipeline, get_sampler
from mipview.gpu.resources import MipImage
from mipview.gpu.strategies.base import (
    Strategy,
    compute_reason,
    group_count,
    level_sizes,
    push_ivec,
)
from mipview.gpu.sync import memory_barrier
from mipview.gpu.timing import Marks
from mipview.gpu.vkapi import vk

GROUP = 8  # 8x8 invocations: 64 lanes covers a warp/wave of 32 or 64 and lavapipe's 8


class PerLevel(Strategy):
    name = "per-level"
    title = "Per-level compute"
    description = "One dispatch per level (exact NPOT weights), a memory barrier between levels."

    @classmethod
    def unsupported_reason(cls, caps: DeviceCaps, fmt: Format, width: int, height: int,
                           layers: int = 1, options: dict[str, str] | None = None) -> str | None:
        return compute_reason(caps, fmt)

    def prepare(self, image: MipImage) -> None:
        self.pipeline = get_pipeline(
            self.ctx, "per_level", ("sampled", "storage_image"), push_size=16,
            constants={0: GROUP, 1: GROUP, 10: image.fmt.is_srgb})
        self.sets = DescriptorSets(self.pipeline, max(1, image.levels - 1))
        sampler = get_sampler(self.ctx)
        for level in range(1, image.levels):
            self.sets.write(level - 1, [(image.sampled_views[level - 1], sampler),
                                        image.storage_views[level]])

    def record(self, cmd: Any, image: MipImage, marks: Marks) -> None:
        sizes = level_sizes(image)
        for level in range(1, image.levels):
            if level > 1:
                memory_barrier(cmd, "COMPUTE_SHADER", "SHADER_WRITE", "COMPUTE_SHADER",
                               "SHADER_READ|SHADER_WRITE")
            (sw, sh), (dw, dh) = sizes[level - 1], sizes[level]
            self.pipeline.bind(cmd, self.sets.sets[level - 1])
            self.pipeline.push(cmd, push_ivec(sw, sh, dw, dh))
            vk.vkCmdDispatch(cmd, group_count(dw, GROUP), group_count(dh, GROUP), image.layers)
            marks.mark(cmd, f"level {level}")

    def release(self) -> None:
        if getattr(self, "sets", None) is not None:
            self.sets.destroy()
            self.sets = None
