"""``per-level``: one compute dispatch per level, a barrier between levels.

The exact reference's weights (2 taps per even side, 3 area-weighted taps per odd side), so it
is exact at every size. Each invocation writes one texel from up to 9 fetches of the level below
(4 where the source sides are even: that case has its own pipeline, with fewer registers).
``load=bilinear`` makes level 1 from one linearly filtered sample per texel (even sides of level
0), as single-pass and subgroup do: the cheapest read of level 0 through the texture unit. Only
level 0, because filtering precision is the device's choice (lavapipe's 8-bit filter re-rounds,
and re-rounding at every level took the chain past 2 LSB).
Shader: mipview/gpu/strategies/per_level.comp.

The filter options (``filter``, ``edge``, ``source``, ``alpha``, ``kind``, Kaiser's
``kaiser-width`` and ``kaiser-alpha``; docs/filters.md) take any other filter through
mipview/gpu/strategies/filter_level.py (two dispatches per level, mipview/gpu/strategies/filter_level.comp; alpha=coverage
adds mipview/gpu/strategies/filter_coverage.comp's histogram, scale and store per level); the default box stays
on this shader.
"""

from __future__ import annotations

from mipview.core import reductions
from mipview.core.filters.spec import format_reason
from mipview.core.formats import Format, level_size, mip_count
from mipview.core.results import DispatchStep, LevelSource
from mipview.gpu.shaders.interface import ShaderInterface
from mipview.gpu.shaders.shipped import LOCAL_XY, MIP_COMMON, mip_constants
from mipview.gpu.strategies import filter_level
from mipview.gpu.strategies.base import (
    REDUCTION_OPTION,
    OptionSpec,
    Strategy,
    bilinear_reason,
    compute_reason,
    group_count,
)
from mipview.gpu.strategies.filter_level import FilterChoice
from mipview.gpu.vulkan.context import DeviceCaps
from mipview.gpu.vulkan.pipelines import DescriptorSets, get_pipeline, get_sampler
from mipview.gpu.vulkan.resources import MipImage

# this strategy's shader, per_level.comp: what the host passes it
PER_LEVEL = ShaderInterface(
    "per_level",
    spec=(*LOCAL_XY, ("EVEN", 2, "bool"), ("BILINEAR", 3, "bool"), ("REDUCTION", 4, "int"),
          *MIP_COMMON),
    push=(("srcSize", "ivec2"), ("dstSize", "ivec2")))

GROUP = 8  # 8x8 invocations: 64 lanes covers a warp/wave of 32 or 64 and lavapipe's 8
BINDINGS = ("sampled", "storage_image")


def plan_levels(width: int, height: int, layers: int = 1, shader: ShaderInterface = PER_LEVEL,
                shared_pipeline: bool = False) -> list[DispatchStep]:
    """One dispatch per level of ``shader`` (its push block: srcSize, dstSize); dispatch i uses
    descriptor set i, and pipeline i (or pipeline 0 for every level: ``shared_pipeline``)."""
    steps = []
    for level in range(1, mip_count(width, height)):
        (sw, sh), (dw, dh) = level_size(width, height, level - 1), level_size(width, height, level)
        steps.append(DispatchStep(
            f"level {level}", (level,), pipeline=0 if shared_pipeline else level - 1,
            descriptor_set=level - 1, push=shader.pack(srcSize=(sw, sh), dstSize=(dw, dh)),
            groups=(group_count(dw, GROUP), group_count(dh, GROUP), layers)))
    return steps


class PerLevel(FilterChoice, Strategy):
    name = "per-level"
    title = "Per-level compute"
    description = "One dispatch per level (exact NPOT weights), a memory barrier between levels."
    options = (
        OptionSpec("load", ("texel", "bilinear"), "texel",
                   "level 1: 4 texel loads per 2x2, or one bilinear sample (even sides)"),
        REDUCTION_OPTION,
        *filter_level.FILTER_OPTIONS,
    )
    owned = ("taps", "rows", "texels", "coverage")

    @classmethod
    def option_reason(cls, options: dict[str, str]) -> str | None:
        spec = cls.filter_spec(options)
        opts = cls.check_options(options)
        if opts["reduction"] != "mean":
            if not spec.is_mean:
                return f"reduction={opts['reduction']} takes the box's footprint: no filter options"
            return reductions.load_reason(opts["reduction"], opts["load"])
        if spec.is_mean:
            return None
        if cls.check_options(options)["load"] == "bilinear":
            return "load=bilinear is the box's one 2x2 sample: it serves the default box only"
        return None  # filter_level.py makes every filter spec

    @classmethod
    def unsupported_reason(cls, caps: DeviceCaps, fmt: Format, width: int, height: int,
                           layers: int = 1, options: dict[str, str] | None = None) -> str | None:
        opts = cls.check_options(options or {})
        spec = cls.filter_spec(opts)
        reason = (cls.option_reason(opts) or format_reason(spec, fmt)
                  or filter_level.cube_reason(spec, width, height, layers)
                  or reductions.format_reason(opts["reduction"], fmt))
        if reason:
            return reason
        if opts["load"] == "bilinear":
            reason = bilinear_reason(caps, fmt)
            if reason:
                return reason
        return compute_reason(caps, fmt)

    def prepare(self, image: MipImage) -> None:
        spec = self.filter_spec(self.opts)
        if not spec.is_mean:
            res = filter_level.prepare(self.ctx, image, spec)
            self.pipelines, self.sets, self.steps = res.pipelines, res.sets, res.steps
            self.taps, self.rows, self.texels, self.coverage = (res.taps, res.rows,
                                                                res.texels, res.coverage)
            return
        bilinear = self.opts["load"] == "bilinear"
        self.steps = tuple(plan_levels(image.width, image.height, image.layers))
        self.pipelines = []
        sources = []  # per level: the view its source is read through
        for level in range(1, image.levels):
            w, h = image.level_size(level - 1)
            even = w % 2 == 0 and h % 2 == 0
            linear = even and bilinear and level == 1
            self.pipelines.append(get_pipeline(
                self.ctx, PER_LEVEL, BINDINGS,
                constants={"local_size_x_id": GROUP, "local_size_y_id": GROUP, "EVEN": even,
                           "BILINEAR": linear, "REDUCTION": reductions.CODES[self.opts["reduction"]],
                           **mip_constants(image.fmt)}))
            sources.append(image.source_views(linear)[level - 1])
        if not self.pipelines:
            return
        self.sets = DescriptorSets(self.pipelines[0], image.levels - 1)
        sampler = get_sampler(self.ctx, linear=bilinear)
        for level in range(1, image.levels):
            self.sets.write(level - 1, [(sources[level - 1], sampler), image.storage_views[level]])

    @classmethod
    def reduction(cls, options: dict[str, str]) -> str:
        opts = cls.check_options(options)
        return opts["reduction"] if opts["reduction"] != "mean" else super().reduction(options)

    def level_sources(self, width: int, height: int, layers: int = 1) -> list[LevelSource]:
        # as prepare(): one bilinear sample per texel of level 1 where level 0's sides are even
        out = super().level_sources(width, height, layers)
        if out and self.opts["load"] == "bilinear" and width % 2 == 0 and height % 2 == 0:
            out[0] = LevelSource(bilinear=True)
        return out
