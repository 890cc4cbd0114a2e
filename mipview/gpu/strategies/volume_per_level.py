"""``volume-per-level``: one dispatch per level of a volume, one texel per invocation
(volume_per_level.comp beside this file): the exact 2x2x2 box (3 taps with the exact weights on
an odd axis), or min / max / minmax over the same taps. Every level is the correctly rounded
reduction of the stored level below: the ``stored`` promise, as 2D per-level's."""

from __future__ import annotations

from mipview.core import reductions
from mipview.core.results import DispatchStep
from mipview.gpu.shaders.interface import ShaderInterface
from mipview.gpu.shaders.shipped import MIP_COMMON, mip_constants
from mipview.gpu.strategies.base import group_count
from mipview.gpu.strategies.volume_base import VolumeStrategy
from mipview.gpu.vulkan.pipelines import DescriptorSets, get_pipeline, get_sampler
from mipview.gpu.vulkan.volume_image import VolumeImage

VOLUME_PER_LEVEL = ShaderInterface(
    "volume_per_level", spec=(("REDUCTION", 0, "int"), *MIP_COMMON),
    push=(("srcSize", "ivec3"), ("dstSize", "ivec3")))
GROUP = 4  # local size per axis (4x4x4 invocations)


class VolumePerLevel(VolumeStrategy):
    name = "volume-per-level"
    title = "Per level (3D)"

    def prepare(self, image: VolumeImage) -> None:
        pipeline = get_pipeline(self.ctx, VOLUME_PER_LEVEL, ("sampled", "storage_image"),
                                constants={"REDUCTION": reductions.CODES[self.reduction],
                                           **mip_constants(image.fmt)})
        self.pipelines = [pipeline]
        n = image.levels - 1
        self.sets = DescriptorSets(pipeline, max(n, 1))
        sampler = get_sampler(self.ctx)
        steps = []
        for level in range(1, image.levels):
            self.sets.write(level - 1, [(image.sampled_views[level - 1], sampler),
                                        image.storage_views[level]])
            dst = image.level_size(level)
            steps.append(DispatchStep(
                f"level {level}", (level,), f"{dst[0]}x{dst[1]}x{dst[2]}",
                descriptor_set=level - 1,
                push=VOLUME_PER_LEVEL.pack(srcSize=image.level_size(level - 1), dstSize=dst),
                groups=tuple(group_count(s, GROUP) for s in dst)))  # type: ignore[arg-type]
        self.steps = tuple(steps)
