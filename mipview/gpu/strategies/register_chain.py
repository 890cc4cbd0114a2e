"""``register-chain``: several exact levels per dispatch, no shared memory and no barrier.

Made for CPU devices (lavapipe runs a workgroup's invocations as SIMD lanes of one thread and
every barrier switches all of them; shared memory is slow there), correct everywhere. Each
invocation owns one texel of the dispatch's last level and makes every texel under it in
registers, depth first: a block of 2^(d-1) x 2^(d-1) texels of the dispatch's first level, each
from its exact footprint in the stored level below (2 taps per even side, 3 area-weighted taps
per odd side), then 2x2 boxes down to its texel, storing each level as it goes. A level made in
registers from the one above needs that level's sides even (or 1: its one texel weighs fully),
or the blocks would share 3-tap footprints; the planner (:func:`plan_chain`, a pure function of
the size) ends a dispatch at the first level with an odd side, so the first level of every
dispatch may have any footprint. Up to 3 levels a dispatch (sRGB: 2, see MAX_DEPTH_SRGB); 8x8 workgroups (64x1 and 16x16
measured no faster: the bench README).
Shader: mipview/gpu/strategies/register_chain.comp.

lavapipe, 2 cores (docs/bench/lavapipe): 1024^2 0.55-0.57x per-level's time,
1920x1080 0.65-0.66x (RGBA8); sRGB ~0.95x, where the decode and encode of every texel dominate.

Promise ``stored``, as per-level: each value is encoded, stored and decoded back before the next
level uses it, so every level is the correctly rounded reduction of the stored level below (f16
rounded to the nearest half before the store: lavapipe's store conversion truncates).

Option ``reduction``: mean (default), or min/max (Hi-Z, as per-level's): level 1 of a dispatch
over each texel's whole footprint (2 texels per even side, 3 per odd side), the levels below
over their 2x2 quads, reading and storing storage values as they are (no decode, no rounding;
sRGB codes compare as the curve is monotonic), so every level is bit-exact against the
reference (``check.reference.reduce_level_minmax``) in every format. Without the decodes and
encodes sRGB min/max takes 3 levels a dispatch, as the other formats.

Barriers: a COMPUTE write -> read memory barrier between dispatches (record_steps).
"""

from __future__ import annotations

from dataclasses import dataclass

from mipview.core import reductions
from mipview.core.formats import Format, level_size, mip_count
from mipview.core.results import DispatchStep
from mipview.gpu.shaders.interface import ShaderInterface
from mipview.gpu.shaders.shipped import LOCAL_XY, MIP_COMMON, mip_constants
from mipview.gpu.strategies.base import (
    REDUCTION_OPTION,
    Strategy,
    compute_reason,
    group_count,
)
from mipview.gpu.vulkan.context import DeviceCaps
from mipview.gpu.vulkan.pipelines import DescriptorSets, get_pipeline, get_sampler
from mipview.gpu.vulkan.resources import MipImage

# this strategy's shader, register_chain.comp: what the host passes it
REGISTER_CHAIN = ShaderInterface(
    "register_chain",
    spec=(*LOCAL_XY, ("RC_DEPTH", 2, "int"), ("RC_EVEN", 3, "bool"), ("RC_ROUND_HALF", 4, "bool"),
          ("RC_REDUCTION", 5, "int"), *MIP_COMMON),
    push=(("srcSize", "ivec2"),))

GROUP = (8, 8)   # invocations per workgroup (x, y)
MAX_DEPTH = 3    # levels per dispatch at most: the dst bindings of register_chain.comp
# sRGB depth 3 on lavapipe: slower (1024^2 6984 us against 5219 with depth 2: the unrolled block's
# decodes and encodes outgrow the registers) and ~40 s to compile (the shader's header)
MAX_DEPTH_SRGB = 2
BINDINGS = ("sampled",) + ("storage_image",) * MAX_DEPTH


@dataclass(frozen=True)
class ChainStep:
    """One dispatch: levels ``src + 1 .. src + depth`` from level ``src`` as stored."""

    src: int
    depth: int

    @property
    def outputs(self) -> tuple[int, ...]:
        return tuple(range(self.src + 1, self.src + self.depth + 1))

    @property
    def label(self) -> str:
        first, last = self.outputs[0], self.outputs[-1]
        return f"level {first}" if first == last else f"levels {first}-{last}"


def max_depth(fmt: Format, reduction: str = "mean") -> int:
    """Levels per dispatch at most for images of ``fmt`` (min/max: no sRGB decode or encode)."""
    return MAX_DEPTH_SRGB if fmt.is_srgb and reduction == "mean" else MAX_DEPTH


def _splits(n: int) -> bool:
    """Whether a side of ``n`` texels reduces in disjoint 2x2 blocks (even, or 1)."""
    return n == 1 or n % 2 == 0


def plan_chain(width: int, height: int, max_depth: int = MAX_DEPTH) -> list[ChainStep]:
    """The dispatches that make levels 1..n-1 of a ``width`` x ``height`` image: from each
    input level, as many levels as ``max_depth`` allows while every level made in registers from
    the one above it has sides that split into disjoint 2x2 blocks."""
    last = mip_count(width, height) - 1
    steps: list[ChainStep] = []
    src = 0
    while src < last:
        depth = 1
        while (depth < max_depth and src + depth < last
               and all(_splits(n) for n in level_size(width, height, src + depth))):
            depth += 1
        steps.append(ChainStep(src, depth))
        src += depth
    return steps


def dispatch_steps(width: int, height: int, layers: int, steps: list[ChainStep],
                   pipelines: list[int]) -> list[DispatchStep]:
    """The planned dispatches as recorded: dispatch i uses descriptor set i and pipeline
    ``pipelines[i]``; one invocation per texel of its last level."""
    out = []
    for i, step in enumerate(steps):
        lw, lh = level_size(width, height, step.outputs[-1])
        groups = (group_count(lw, GROUP[0]), group_count(lh, GROUP[1]), layers)
        block = 1 << (step.depth - 1)
        detail = (f"{groups[0]}x{groups[1]} groups of {GROUP[0]}x{GROUP[1]}; each invocation "
                  f"{block}x{block} texels of level {step.src + 1} in registers"
                  + (f" -> 1 of level {step.outputs[-1]}" if step.depth > 1 else ""))
        out.append(DispatchStep(
            step.label, step.outputs, detail, pipeline=pipelines[i], descriptor_set=i,
            push=REGISTER_CHAIN.pack(srcSize=level_size(width, height, step.src)),
            groups=groups))
    return out


class RegisterChain(Strategy):
    name = "register-chain"
    title = "Register chain (CPU devices)"
    description = ("Several exact levels per dispatch from registers: each invocation reduces a "
                   "block through the levels while sides stay even; no shared memory, no "
                   "barriers (for lavapipe).")
    options = (REDUCTION_OPTION,)

    @classmethod
    def unsupported_reason(cls, caps: DeviceCaps, fmt: Format, width: int, height: int,
                           layers: int = 1, options: dict[str, str] | None = None) -> str | None:
        opts = cls.check_options(options or {})
        return compute_reason(caps, fmt) or reductions.format_reason(opts["reduction"], fmt)

    def prepare(self, image: MipImage) -> None:
        reduction = self.opts["reduction"]
        planned = plan_chain(image.width, image.height, max_depth(image.fmt, reduction))
        keys: dict[tuple[int, bool], int] = {}  # (depth, source sides even) -> pipeline
        indices = []
        for step in planned:
            even = all(n % 2 == 0 for n in image.level_size(step.src))
            if (step.depth, even) not in keys:
                keys[(step.depth, even)] = len(self.pipelines)
                self.pipelines.append(get_pipeline(
                    self.ctx, REGISTER_CHAIN, BINDINGS,
                    constants={"local_size_x_id": GROUP[0], "local_size_y_id": GROUP[1],
                               "RC_DEPTH": step.depth, "RC_EVEN": even,
                               "RC_ROUND_HALF": image.fmt.element is Format.F16,
                               "RC_REDUCTION": reductions.CODES[reduction],
                               **mip_constants(image.fmt)}))
            indices.append(keys[(step.depth, even)])
        self.steps = tuple(dispatch_steps(image.width, image.height, image.layers, planned,
                                          indices))
        if not planned:
            return
        self.sets = DescriptorSets(self.pipelines[0], len(planned))
        sampler = get_sampler(self.ctx)
        for i, step in enumerate(planned):
            outs = list(step.outputs)
            outs += [outs[-1]] * (MAX_DEPTH - len(outs))  # never touched: RC_DEPTH stops first
            self.sets.write(i, [(image.encoded_views[step.src], sampler)]
                            + [image.storage_views[level] for level in outs])
