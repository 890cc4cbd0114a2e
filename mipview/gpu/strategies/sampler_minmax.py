"""``sampler-minmax``: a Hi-Z pyramid the way niagara builds its depth pyramid, one dispatch
per level and one min/max-reduction sampler fetch per 2x2 quad (samplerFilterMinmax, Vulkan
1.2), plus the texels a quad misses on odd sides, fetched exactly, so it stays conservative and
bit-exact at every size where niagara sidesteps odd sides with power-of-two levels.
Shader: sampler_minmax.comp beside this file."""

from __future__ import annotations

from mipview.core import reductions
from mipview.core.formats import Format
from mipview.gpu.shaders.interface import ShaderInterface
from mipview.gpu.shaders.shipped import LOCAL_XY, MIP_COMMON, mip_constants
from mipview.gpu.strategies.base import OptionSpec, Strategy, compute_reason
from mipview.gpu.strategies.per_level import GROUP, plan_levels
from mipview.gpu.vulkan.context import DeviceCaps
from mipview.gpu.vulkan.pipelines import DescriptorSets, get_pipeline, get_sampler
from mipview.gpu.vulkan.resources import MipImage
from mipview.gpu.vulkan.vkapi import flag

SAMPLER_MINMAX = ShaderInterface(
    "sampler_minmax", spec=(*LOCAL_XY, ("REDUCTION", 2, "int"), ("QUAD_ONLY", 3, "bool"),
                            *MIP_COMMON),
    push=(("srcSize", "ivec2"), ("dstSize", "ivec2")))
#: the shader's REDUCTION
REDUCTIONS = {name: reductions.CODES[name] for name in reductions.EXTREMES}
BINDINGS = ("sampled", "storage_image", "sampled")
#: VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_MINMAX_BIT, by value: the binding has the bit only as
#: its extension's alias, and that resolves to None
FILTER_MINMAX_BIT = 0x00010000


class SamplerMinmax(Strategy):
    name = "sampler-minmax"
    title = "Min/max sampler (Hi-Z)"
    description = ("One dispatch per level, one min/max-reduction sampler fetch per 2x2 and the "
                   "odd sides' third texels: a conservative Hi-Z pyramid.")
    in_all = False  # a min or max pyramid, not the box the others of ``all`` make
    options = (OptionSpec("reduction", tuple(REDUCTIONS), "min",
                          "min, max or minmax (two samplers) over each texel's whole "
                          "footprint"),
               OptionSpec("taps", ("footprint", "quad"), "footprint",
                          "footprint: the quad's fetch and an odd side's third texels "
                          "(conservative); quad: the fetch alone, niagara's step, NOT "
                          "conservative on odd sides (an anchor to time against)"))

    @classmethod
    def unsupported_reason(cls, caps: DeviceCaps, fmt: Format, width: int, height: int,
                           layers: int = 1, options: dict[str, str] | None = None) -> str | None:
        if not caps.sampler_minmax:
            return "device lacks samplerFilterMinmax (VK_EXT_sampler_filter_minmax)"
        read = Format.UNORM if fmt.is_srgb else fmt
        if fmt.depth_source and not caps.supports_source(
                fmt, flag("VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT")):
            # a min/max sampler filters LINEAR; the spec before 1.3.2xx (and its validation
            # layers, lavapipe's among them) wants the view to allow linear filtering too
            return f"{fmt.label} depth cannot be filtered linearly on this device"
        if not minmax_filterable(caps, fmt):
            return f"{read.label} images cannot be min/max filtered on this device (Vulkan " \
                f"requires it of r8, r16f and r32f among mipview's formats)"
        return (compute_reason(caps, fmt)
                or reductions.format_reason(cls.check_options(options or {})["reduction"], fmt))

    def prepare(self, image: MipImage) -> None:
        reduction = self.opts["reduction"]
        # per-level's plan: one dispatch per level, its groups, the same push block
        self.steps = tuple(plan_levels(image.width, image.height, image.layers, SAMPLER_MINMAX,
                                       shared_pipeline=True))
        pipeline = get_pipeline(self.ctx, SAMPLER_MINMAX, BINDINGS,
                                constants={"local_size_x_id": GROUP, "local_size_y_id": GROUP,
                                           "REDUCTION": REDUCTIONS[reduction],
                                           "QUAD_ONLY": self.opts["taps"] == "quad",
                                           **mip_constants(image.fmt)})
        self.pipelines = [pipeline]
        if not self.steps:
            return
        self.sets = DescriptorSets(pipeline, len(self.steps))
        # the encoded (UNORM for sRGB) views: storage values, reduced as they are
        first = get_sampler(self.ctx, reduction="min" if reduction == "minmax" else reduction)
        second = get_sampler(self.ctx, reduction="max") if reduction == "minmax" else first
        views = image.source_views(False)
        for level in range(1, image.levels):
            self.sets.write(level - 1, [(views[level - 1], first), image.storage_views[level],
                                        (views[level - 1], second)])


def minmax_filterable(caps: DeviceCaps, fmt: Format) -> bool:
    """Whether images of ``fmt`` (sRGB: read through their UNORM views) can be read through a
    min/max reduction sampler on this device, level 0's own image (a depth one) included."""
    read = Format.UNORM if fmt.is_srgb else fmt
    return caps.sampler_minmax and caps.supports(read, FILTER_MINMAX_BIT) \
        and caps.supports_source(read, FILTER_MINMAX_BIT)
