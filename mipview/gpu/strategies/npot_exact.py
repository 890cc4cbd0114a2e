"""``npot-exact``: several exact levels per dispatch at any size (nvpro vk_compute_mipmaps class).

A dispatcher walks the chain and asks, at each input level, how many levels one dispatch can make:

* **fast** path, while every side stays even (or is 1): up to ``MAX_LEVELS`` levels per dispatch;
  a group reads a 64x64 block and keeps its first level (32x32) and the ones above in shared
  memory, like nvpro's fast pipeline;
* **general** path, where a side is odd: 2 levels per dispatch with overlapping tiles; a group
  makes a 16x16 tile of the second level from a 33x33 region of the first, recomputing the border
  samples its neighbour also computes instead of synchronising with it (nvpro's general pipeline).

Both paths are one kernel (shaders/npot_exact.comp) with the reduction of the other exact
strategies (mip_common.glsl MIP_REDUCE_EXACT); they differ in push constants only. Intermediates
stay float inside a dispatch, so the chain error is lower than per-level's. The plan is a pure
function of the size (:func:`plan_steps`), exposed with every result.

Option ``path``: ``auto`` (fast where possible) or ``general`` (never the fast path: the
overlapping-tile kernel everywhere, to measure what the fast path buys).

Barriers: a COMPUTE write -> read/write memory barrier between dispatches; the runner's barriers
before and after a run cover the rest (see base.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from mipview.formats import Format, level_size, mip_count
from mipview.gpu.context import DeviceCaps
from mipview.gpu.pipelines import DescriptorSets, get_pipeline, get_sampler
from mipview.gpu.resources import MipImage
from mipview.gpu.shaders import NPOT_EXACT, mip_constants
from mipview.gpu.strategies.base import OptionSpec, Strategy, compute_reason, group_count
from mipview.results import DispatchStep, LevelSource

THREADS = 256          # spec constant 0: 1D groups, several texels per thread per level
A_SIDE = 33            # spec constant 1: region of odd levels in a dispatch (2*16 + 1)
B_SIDE = 16            # spec constant 2: region of even levels in a dispatch
MAX_LEVELS = 6         # = NPOT_MAX_LEVELS, the dst bindings of npot_exact.comp
FAST_FIRST_TILE = 32   # fast path: side of a group's tile at the dispatch's first level
GENERAL_TILE = 16      # general path, 2 levels: side of a group's tile at the second level
SHARED_BYTES = 16 * (A_SIDE * A_SIDE + B_SIDE * B_SIDE)


@dataclass(frozen=True)
class NpotStep:
    """One dispatch: levels ``src + 1 .. src + levels`` from level ``src``."""

    path: str                   # "fast" | "general"
    src: int
    levels: int
    tile: int                   # side of a group's tile at the last level
    groups: tuple[int, int]

    @property
    def outputs(self) -> tuple[int, ...]:
        return tuple(range(self.src + 1, self.src + self.levels + 1))

    @property
    def label(self) -> str:
        first, last = self.outputs[0], self.outputs[-1]
        return f"{self.path} {first}" if first == last else f"{self.path} {first}-{last}"


def _even_step(w: int, h: int) -> bool:
    """True when reducing (w, h) has no 3-tap side: footprints do not overlap."""
    return all(n == 1 or n % 2 == 0 for n in (w, h))


def region_sides(width: int, height: int, step: NpotStep) -> list[tuple[int, int]]:
    """Largest region (w, h) a group computes at each level of ``step`` (first level first);
    mirrors the lo/hi walk of npot_exact.comp."""
    sizes = [level_size(width, height, step.src + j) for j in range(step.levels + 1)]
    rw = rh = step.tile
    out = [(min(rw, sizes[-1][0]), min(rh, sizes[-1][1]))]
    for j in range(step.levels - 1, 0, -1):
        sw, sh = sizes[j]
        rw, rh = min(sw, 2 * rw + (sw & 1)), min(sh, 2 * rh + (sh & 1))
        out.append((rw, rh))
    return out[::-1]


def _fits(width: int, height: int, step: NpotStep) -> bool:
    for j, (rw, rh) in enumerate(region_sides(width, height, step), start=1):
        if j == step.levels:
            continue  # the last level goes straight to the image
        side = A_SIDE if j % 2 else B_SIDE
        if rw > side or rh > side:
            return False
    return True


def _step(width: int, height: int, path: str, src: int, levels: int, tile: int) -> NpotStep:
    lw, lh = level_size(width, height, src + levels)
    return NpotStep(path, src, levels, tile, (group_count(lw, tile), group_count(lh, tile)))


def _candidates(width: int, height: int, src: int, general_only: bool) -> list[NpotStep]:
    """Dispatches that could start at level ``src``, each fitting shared memory."""
    remaining = mip_count(width, height) - 1 - src
    most = min(remaining, MAX_LEVELS)
    even = 0
    while (even < most and not general_only
           and _even_step(*level_size(width, height, src + even))):
        even += 1
    out = []
    if even >= 2:
        out.append(_step(width, height, "fast", src, even, FAST_FIRST_TILE >> (even - 1)))
    # One group making every level up to the top: where a whole level fits one region, a
    # single group finishes the chain in one dispatch, odd sides or not. Fewer dispatches means
    # fewer roundings to the storage format (f16 chain error) and fewer barriers.
    for levels in range(most, 2, -1):
        lw, lh = level_size(width, height, src + levels)
        step = _step(width, height, "fast" if levels <= even else "general", src, levels,
                     max(lw, lh))
        if step.groups == (1, 1) and _fits(width, height, step):
            out.append(step)
            break
    levels = min(2, remaining)
    out.append(_step(width, height, "general", src, levels,
                     GENERAL_TILE if levels == 2 else FAST_FIRST_TILE))
    return out


def plan_steps(width: int, height: int, general_only: bool = False) -> list[NpotStep]:
    """The dispatches that make levels 1..n-1 of a ``width`` x ``height`` image: at each input
    level, the candidate making the most levels (the fast path on ties)."""
    n = mip_count(width, height)
    steps: list[NpotStep] = []
    src = 0
    while src < n - 1:
        step = max(_candidates(width, height, src, general_only), key=lambda s: s.levels)
        if not _fits(width, height, step):  # a planning bug, never a user error
            raise AssertionError(f"npot-exact: {step} overflows shared memory")
        steps.append(step)
        src += step.levels
    return steps


def dispatch_step(width: int, height: int, layers: int, i: int, step: NpotStep) -> DispatchStep:
    """Planned dispatch ``i`` as recorded: the one pipeline, descriptor set i."""
    return DispatchStep(
        step.label, step.outputs,
        f"{step.groups[0]}x{step.groups[1]} groups, {step.tile}x{step.tile} tiles of level "
        f"{step.outputs[-1]}",
        pipeline=0, descriptor_set=i,
        push=NPOT_EXACT.pack(srcSize=level_size(width, height, step.src), levels=step.levels,
                             tile=step.tile),
        groups=(*step.groups, layers))


class NpotExact(Strategy):
    name = "npot-exact"
    title = "NPOT exact, several levels per dispatch"
    description = ("nvpro-style: exact NPOT weights, up to 6 levels per dispatch while sides are "
                   "even, 2 with overlapping tiles where a side is odd; float intermediates.")
    options = (OptionSpec("path", ("auto", "general"), "auto",
                          "general: overlapping-tile kernel everywhere (no fast path)"),)
    promise = "carried"

    @classmethod
    def unsupported_reason(cls, caps: DeviceCaps, fmt: Format, width: int, height: int,
                           layers: int = 1, options: dict[str, str] | None = None) -> str | None:
        if caps.max_shared_memory < SHARED_BYTES:
            return f"needs {SHARED_BYTES} B of shared memory, device has {caps.max_shared_memory}"
        if caps.max_workgroup_invocations < THREADS:
            return f"needs {THREADS}-invocation work groups"
        return compute_reason(caps, fmt)

    def prepare(self, image: MipImage) -> None:
        srgb = image.fmt.is_srgb
        self.pipelines = [get_pipeline(
            self.ctx, NPOT_EXACT, ("sampled",) + ("storage_image",) * MAX_LEVELS,
            constants={"local_size_x_id": THREADS, "NPOT_A_SIDE": A_SIDE, "NPOT_B_SIDE": B_SIDE,
                       "NPOT_DECODE_SRGB": srgb, "NPOT_ROUND_HALF": image.fmt is Format.F16,
                       **mip_constants(image.fmt)})]
        planned = plan_steps(image.width, image.height, self.opts["path"] == "general")
        self.steps = tuple(dispatch_step(image.width, image.height, image.layers, i, step)
                           for i, step in enumerate(planned))
        self.sets = DescriptorSets(self.pipelines[0], max(1, len(planned)))
        sampler = get_sampler(self.ctx)
        for i, step in enumerate(planned):
            outs = list(step.outputs)
            # unused bindings alias the dispatch's last output: valid, and never accessed
            outs += [outs[-1]] * (MAX_LEVELS - len(outs))
            # sRGB: the shader decodes exactly (NPOT_DECODE_SRGB in npot_exact.comp)
            src_view = (image.encoded_views if srgb else image.sampled_views)[step.src]
            self.sets.write(i, [(src_view, sampler)]
                            + [image.storage_views[level] for level in outs])

    def level_sources(self, width: int, height: int, layers: int = 1) -> list[LevelSource]:
        # each dispatch samples its source level as stored, then carries floats in shared memory
        return [LevelSource(reread=level == step.outputs[0])
                for step in plan_steps(width, height, self.opts["path"] == "general")
                for level in step.outputs]
