"""``per-level``: one compute dispatch per level, a barrier between levels.

The exact reference's weights (2 taps per even side, 3 area-weighted taps per odd side), so it
is exact at every size. Each invocation writes one texel from up to 9 fetches of the level below
(4 where the source sides are even: that case has its own pipeline, with fewer registers).
``load=bilinear`` makes level 1 from one linearly filtered sample per texel (even sides of level
0), as single-pass and subgroup do: the cheapest read of level 0 through the texture unit. Only
level 0, because filtering precision is the device's choice (lavapipe's 8-bit filter re-rounds,
and re-rounding at every level took the chain past 2 LSB).
Shader: shaders/per_level.comp.
"""

from __future__ import annotations

from typing import Any

from mipview.formats import Format
from mipview.gpu.context import DeviceCaps
from mipview.gpu.pipelines import DescriptorSets, get_pipeline, get_sampler
from mipview.gpu.resources import MipImage
from mipview.gpu.strategies.base import (
    OptionSpec,
    Strategy,
    bilinear_reason,
    compute_reason,
    group_count,
    level_sizes,
    push_ivec,
)
from mipview.gpu.sync import memory_barrier
from mipview.gpu.timing import Marks
from mipview.gpu.vkapi import vk
from mipview.results import LevelSource

GROUP = 8  # 8x8 invocations: 64 lanes covers a warp/wave of 32 or 64 and lavapipe's 8


class PerLevel(Strategy):
    name = "per-level"
    title = "Per-level compute"
    description = "One dispatch per level (exact NPOT weights), a memory barrier between levels."
    options = (
        OptionSpec("load", ("texel", "bilinear"), "texel",
                   "level 1: 4 texel loads per 2x2, or one bilinear sample (even sides)"),
    )

    @classmethod
    def unsupported_reason(cls, caps: DeviceCaps, fmt: Format, width: int, height: int,
                           layers: int = 1, options: dict[str, str] | None = None) -> str | None:
        opts = cls.check_options(options or {})
        if opts["load"] == "bilinear":
            reason = bilinear_reason(caps, fmt)
            if reason:
                return reason
        return compute_reason(caps, fmt)

    def prepare(self, image: MipImage) -> None:
        bilinear = self.opts["load"] == "bilinear"
        sizes = level_sizes(image)
        self.pipelines = []
        for level in range(1, image.levels):
            w, h = sizes[level - 1]
            even = w % 2 == 0 and h % 2 == 0
            self.pipelines.append(get_pipeline(
                self.ctx, "per_level", ("sampled", "storage_image"), push_size=16,
                constants={0: GROUP, 1: GROUP, 2: even, 3: even and bilinear and level == 1,
                           10: image.fmt.is_srgb}))
        self.sets = None
        if not self.pipelines:
            return
        self.sets = DescriptorSets(self.pipelines[0], image.levels - 1)
        sampler = get_sampler(self.ctx, linear=bilinear)
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
            pipeline = self.pipelines[level - 1]
            pipeline.bind(cmd, self.sets.sets[level - 1])
            pipeline.push(cmd, push_ivec(sw, sh, dw, dh))
            vk.vkCmdDispatch(cmd, group_count(dw, GROUP), group_count(dh, GROUP), image.layers)
            marks.mark(cmd, f"level {level}")

    def release(self) -> None:
        if getattr(self, "sets", None) is not None:
            self.sets.destroy()
            self.sets = None

    def level_sources(self, width: int, height: int, layers: int = 1) -> list[LevelSource]:
        # as prepare(): one bilinear sample per texel of level 1 where level 0's sides are even
        out = super().level_sources(width, height, layers)
        if out and self.opts["load"] == "bilinear" and width % 2 == 0 and height % 2 == 0:
            out[0] = LevelSource(bilinear=True)
        return out
