"""``subgroup``: several levels per dispatch, 2x2 steps by subgroup shuffles, then shared memory.

A workgroup of 256 invocations is a 16x16 grid of cells over a 32x32 (``tile=32``, 5 levels) or
64x64 (``tile=64``, 6 levels: each invocation fetches 4x4 texels and makes its first level in
registers) source tile. The ``layout`` option places the invocations in the grid (all layouts
are bit permutations of the invocation index, see mipview/gpu/shaders/include/subgroup_layout.glsl):

- ``row-major``: invocation i at (i % 16, i / 16); a subgroup is a 16 x S/16 strip, so 2x2
  steps stay in the subgroup only from S = 32 (one step) on;
- ``square``: each subgroup a w x h block as square as possible (8x4 for 32 lanes);
- ``morton``: Z order (FidelityFX SPD): lanes 0..3 a 2x2 quad, 0..15 a 4x4, ...

How many grid levels reduce by ``subgroupShuffleXor`` follows from the layout and the subgroup
size (read at run time, 4..128); the rest go through shared memory with one barrier each.

Exactness: a tile step is a 2x2 box, exact only while every source side is even (or 1). The plan
(:func:`plan_steps`) therefore cuts dispatches at odd sides: an odd level whose source is big is
made by the same shader in PER_LEVEL mode (exact 2/3-tap weights), and once the source has at
most 1024 texels (max side 64) one TAIL dispatch makes every remaining level from shared memory.
Every dispatch but the last also writes its last level, unquantised, to a float scratch buffer
that the next dispatch reads instead of the stored level (ping-pong halves), so the chain error
does not grow with the number of dispatches (f16 at 1920x1080 needs that); a boundary level of
more than ``SCRATCH_TEXELS`` texels is re-read from the image instead.
Between dispatches: one global memory barrier (compute write -> compute read/write).

Speed options: ``load=bilinear`` reads an image source with one linear sample per 2x2 (exact
1/4 weights; not fp32, whose filtering precision is the device's choice): on an H200 it took the
4096^2 RGBA8 chain from 56.2 to 46.1 us (morton). Its ``auto``
(:mod:`~mipview.gpu.strategies.auto`) has no measured entry yet (texel at 8192^2 was not
measured against it), so texel stays the default. ``tiles`` gives a workgroup several tiles in
turn (tile_schedule.glsl) and ``prefetch`` fetches the next one early. No dispatch has a
counter to share, so several tiles pay only with the early fetch, and that only with one bilinear
sample per value: ``auto`` (both options) then gives 4 tiles and prefetches (8192^2 RGBA8
bilinear: 155.3 -> 143.5 us; 4096^2 within noise), else 1 tile (texel loads would hold a second
tile's 16 fetches in registers). Each (mode, source) is its own pipeline (specialization
constants), which keeps the tile mode's registers at its own needs (texel load 80, bilinear 56
on the H200).
``reduction``: mean (default), or min/max (Hi-Z, as per-level's): the same plan with the
extreme in place of the average, over 2x2 quads where the plan has a box and each texel's whole
footprint (2 texels per even side, 3 per odd side) in PER_LEVEL and TAIL, so every level is
conservative at every size. Storage values are read and stored as they are (no decode, no
rounding; sRGB codes compare as the curve is monotonic), scratch included: bit-exact against
the reference in every format. ``load=bilinear`` averages in the sampler: mean only.
Shader: mipview/gpu/strategies/subgroup.comp. ``record`` starts and ends in GENERAL layout.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mipview.core import reductions
from mipview.core.formats import Format, level_size, mip_count
from mipview.core.results import DispatchStep, LevelSource
from mipview.gpu.shaders.interface import ShaderInterface
from mipview.gpu.shaders.shipped import MIP_COMMON, mip_constants
from mipview.gpu.strategies.auto import auto_option
from mipview.gpu.strategies.base import (
    PREFETCH_OPTION,
    REDUCTION_OPTION,
    TILES_OPTION,
    OptionSpec,
    Strategy,
    bilinear_reason,
    compute_reason,
    group_count,
    group_tiles,
    prefetch_on,
    tile_groups,
)
from mipview.gpu.vulkan.context import DeviceCaps
from mipview.gpu.vulkan.pipelines import DescriptorSets, get_pipeline, get_sampler
from mipview.gpu.vulkan.resources import Buffer, MipImage
from mipview.gpu.vulkan.vkapi import flag

# this strategy's shader, subgroup.comp: what the host passes it
SUBGROUP = ShaderInterface(
    "subgroup",
    spec=(("LAYOUT", 0, "int"), ("TILE_LEVELS", 1, "int"), ("DEBUG_LANES", 2, "bool"),
          ("BILINEAR", 3, "bool"), ("PREFETCH", 4, "bool"), ("MODE", 5, "int"),
          ("SRC_SCRATCH", 6, "bool"), ("REDUCTION", 7, "int"), *MIP_COMMON),
    push=(("srcSize", "ivec2"), ("levels", "int"), ("srcScratch", "int"), ("dstScratch", "int"),
          ("regionX", "int"), ("regionTiles", "int")))

LAYOUTS = ("row-major", "square", "morton")  # index = the shader's LAYOUT constant
TILES = ("32", "64")
SUBGROUP_SIZES = ("auto", "4", "8", "16", "32", "64", "128")
WORKGROUP = 256
GRID = 16                 # cells per side of the workgroup grid
MAX_OUTPUTS = 6           # storage bindings 1..6
TAIL_TEXELS = 1024        # TAIL mode: source texels held in shared memory ...
TAIL_SIDE = 64            # ... and its longest side (<= 6 levels, one binding each)
SHARED_BYTES = 1024 * 16  # shared vec4 sgShared[1024]
SCRATCH_TEXELS = 1 << 22  # 64 MiB per half of vec4 fp32

MODE_TILE, MODE_PER_LEVEL, MODE_TAIL = 0, 1, 2
BINDINGS = ("sampled",) + ("storage_image",) * MAX_OUTPUTS + ("storage_buffer",)
_MODE_NAMES = {MODE_TILE: "tile", MODE_PER_LEVEL: "exact", MODE_TAIL: "tail"}


# --- layouts: the Python mirror of mipview/gpu/shaders/include/subgroup_layout.glsl ------------------------
def layout_bit(layout: str, axis: int, bit: int, sg_bits: int) -> int:
    """Bit of the invocation index that holds ``bit`` of the cell's x (axis 0) or y (axis 1)."""
    if layout == "row-major":
        return bit if axis == 0 else 4 + bit
    if layout == "morton":
        return 2 * bit + axis
    wb, hb = (sg_bits + 1) >> 1, sg_bits >> 1
    if axis == 0:
        return bit if bit < wb else sg_bits + (bit - wb)
    return wb + bit if bit < hb else sg_bits + (4 - wb) + (bit - hb)


def layout_position(layout: str, index: int, subgroup_size: int) -> tuple[int, int]:
    """Grid cell (x, y) of invocation ``index`` (= subgroup id * size + lane)."""
    sg_bits = subgroup_size.bit_length() - 1
    x = sum(((index >> layout_bit(layout, 0, b, sg_bits)) & 1) << b for b in range(4))
    y = sum(((index >> layout_bit(layout, 1, b, sg_bits)) & 1) << b for b in range(4))
    return x, y


def subgroup_levels(layout: str, subgroup_size: int) -> int:
    """How many of the grid's four 2x2 steps stay inside one subgroup."""
    sg_bits = subgroup_size.bit_length() - 1
    j = 0
    while j < 4 and all(layout_bit(layout, a, j, sg_bits) < sg_bits for a in (0, 1)):
        j += 1
    return j


# --- the dispatch plan (pure: no device) -------------------------------------------------------
@dataclass(frozen=True)
class Step:
    """One dispatch: ``mode`` makes levels ``src_level + 1 .. src_level + count``."""

    mode: int
    src_level: int
    count: int
    src_size: tuple[int, int]
    groups: tuple[int, int]

    @property
    def levels(self) -> tuple[int, ...]:
        return tuple(range(self.src_level + 1, self.src_level + self.count + 1))

    @property
    def label(self) -> str:
        first, last = self.levels[0], self.levels[-1]
        span = f"level {first}" if first == last else f"levels {first}-{last}"
        return f"{_MODE_NAMES[self.mode]} {span}"


def _tileable(w: int, h: int) -> bool:
    """A 2x2 box is exact on this source: each side even, or 1 (nothing to pair)."""
    return (w % 2 == 0 or w == 1) and (h % 2 == 0 or h == 1) and (w, h) != (1, 1)


def plan_steps(width: int, height: int, tile_levels: int) -> list[Step]:
    """Dispatches that make levels 1..n-1 exactly: TILE while the sides stay even (up to
    ``tile_levels`` levels each), one TAIL for a small remainder that a tile cannot finish,
    PER_LEVEL for a big level with an odd side."""
    n = mip_count(width, height)
    steps: list[Step] = []
    s = 0
    while s < n - 1:
        w, h = level_size(width, height, s)
        remaining = n - 1 - s
        run = 0
        while run < min(tile_levels, remaining) and _tileable(*level_size(width, height, s + run)):
            run += 1
        fits_tail = w * h <= TAIL_TEXELS and max(w, h) <= TAIL_SIDE
        if fits_tail and run < remaining:
            steps.append(Step(MODE_TAIL, s, remaining, (w, h), (1, 1)))
        elif run:
            tile = 1 << tile_levels
            steps.append(Step(MODE_TILE, s, run, (w, h), (group_count(w, tile),
                                                          group_count(h, tile))))
        else:
            dw, dh = level_size(width, height, s + 1)
            steps.append(Step(MODE_PER_LEVEL, s, 1, (w, h), (group_count(dw, GRID),
                                                             group_count(dh, GRID))))
        s += steps[-1].count
    return steps


def scratch_offsets(steps: list[Step], layers: int) -> tuple[list[tuple[int, int]], int]:
    """Per step (src offset, dst offset) into the scratch buffer in texels, -1 = none, and the
    texels the buffer needs. Step i writes its last level where step i + 1 reads it; halves
    alternate so a dispatch never reads and writes the same texels."""
    sizes = [s.src_size[0] * s.src_size[1] * layers for s in steps[1:]]
    used = [n <= SCRATCH_TEXELS for n in sizes]
    half = max([n for n, u in zip(sizes, used, strict=True) if u], default=0)
    offsets = []
    for i in range(len(steps)):
        src = (i - 1) % 2 * half if i > 0 and used[i - 1] else -1
        dst = i % 2 * half if i < len(sizes) and used[i] else -1
        offsets.append((src, dst))
    return offsets, 2 * half


class Subgroup(Strategy):
    name = "subgroup"
    title = "Subgroup shuffle"
    description = ("Up to 5 (32x32 tile) or 6 (64x64) levels per dispatch: 2x2 steps by "
                   "subgroupShuffleXor inside a subgroup, shared memory beyond; exact NPOT.")
    options = (
        OptionSpec("layout", LAYOUTS, "morton",
                   "how invocations map to texels: row-major strips, square blocks, Z order"),
        OptionSpec("tile", TILES, "64", "source tile per workgroup: 32 (5 levels) or 64 (6)"),
        OptionSpec("subgroup_size", SUBGROUP_SIZES, "auto",
                   "require this subgroup size (VK_EXT_subgroup_size_control); auto = driver's"),
        auto_option("subgroup", "load", ("texel", "bilinear"),
                    "tile sources read from the image: 4 texel loads per 2x2, or one bilinear "
                    "sample", fallback="texel"),
        TILES_OPTION,
        PREFETCH_OPTION,
        REDUCTION_OPTION,
    )
    owned = ("scratch",)
    promise = "carried"

    def __init__(self, ctx: Any, options: dict[str, str] | None = None,
                 debug_lanes: bool = False) -> None:
        super().__init__(ctx, options)
        #: write (lane, subgroup id, size) into the first level of each tile dispatch (tests)
        self.debug_lanes = debug_lanes
        self.scratch: Buffer | None = None
        #: the planner's dispatches (:func:`plan_steps`), one per entry of ``steps``
        self.sg_steps: list[Step] = []
        self.offsets: list[tuple[int, int]] = []

    @classmethod
    def option_reason(cls, options: dict[str, str]) -> str | None:
        opts = cls.check_options(options)
        return reductions.load_reason(opts["reduction"], opts["load"])

    @classmethod
    def unsupported_reason(cls, caps: DeviceCaps, fmt: Format, width: int, height: int,
                           layers: int = 1, options: dict[str, str] | None = None) -> str | None:
        opts = cls.check_options(options or {})
        reason = cls.option_reason(opts) or reductions.format_reason(opts["reduction"], fmt)
        if reason:
            return reason
        if not (caps.has_subgroup_op("basic") and caps.has_subgroup_op("shuffle")):
            return "device lacks subgroup shuffle in compute shaders"
        if caps.max_workgroup_invocations < WORKGROUP:
            return f"device allows {caps.max_workgroup_invocations} invocations per workgroup " \
                   f"(needs {WORKGROUP})"
        if caps.max_shared_memory < SHARED_BYTES:
            return f"device has {caps.max_shared_memory} B shared memory (needs {SHARED_BYTES})"
        wanted = opts["subgroup_size"]
        if wanted != "auto":
            size = int(wanted)
            if caps.subgroup_size_range is None:
                return "device cannot require a subgroup size (no subgroupSizeControl)"
            lo, hi = caps.subgroup_size_range
            if not lo <= size <= hi:
                return f"subgroup size {size} outside this device's range {lo}..{hi}"
        elif not 4 <= caps.subgroup_size <= 128:
            return f"subgroup size {caps.subgroup_size} outside the supported 4..128"
        if opts["load"] == "bilinear":
            reason = bilinear_reason(caps, fmt)
            if reason:
                return reason
        return compute_reason(caps, fmt)

    # --- plan ---------------------------------------------------------------------------------
    @property
    def tile_levels(self) -> int:
        return 5 if self.opts["tile"] == "32" else 6

    @property
    def subgroup_size(self) -> int:
        wanted = self.opts["subgroup_size"]
        return self.ctx.caps.subgroup_size if wanted == "auto" else int(wanted)

    def _detail(self, step: Step) -> str:
        """What a user reads about planned dispatch ``step``."""
        w, h = step.src_size
        if step.mode == MODE_TAIL:
            return f"one workgroup, {w}x{h} source in shared memory, exact weights"
        if step.mode == MODE_PER_LEVEL:
            return f"odd side of {w}x{h}: exact 2/3-tap weights, one level"
        size = self.subgroup_size
        pre = self.tile_levels - 4
        grid = max(0, step.count - pre)
        shuffled = min(grid, subgroup_levels(self.opts["layout"], size))
        return (f"{1 << self.tile_levels}^2 tiles x {step.groups[0]}x{step.groups[1]}; "
                f"{min(pre, step.count)} in registers, {shuffled} by subgroup shuffle "
                f"(size {size}, {self.opts['layout']}), {grid - shuffled} by shared memory")

    def notes(self) -> list[str]:
        exact = [s.levels[0] for s in self.sg_steps if s.mode == MODE_PER_LEVEL]
        if not exact:
            return []
        return [f"odd sides: level(s) {', '.join(map(str, exact))} made one per dispatch "
                "(exact weights)"]

    # --- per image ----------------------------------------------------------------------------
    def prepare(self, image: MipImage) -> None:
        wanted = self.opts["subgroup_size"]
        self.sg_steps = plan_steps(image.width, image.height, self.tile_levels)
        self.offsets, texels = scratch_offsets(self.sg_steps, image.layers)
        # one pipeline per (mode, source): each carries only its own paths (fewer registers)
        self.pipelines = [get_pipeline(
            self.ctx, SUBGROUP, BINDINGS,
            constants={"LAYOUT": LAYOUTS.index(self.opts["layout"]),
                       "TILE_LEVELS": self.tile_levels, "DEBUG_LANES": self.debug_lanes,
                       "BILINEAR": self.opts["load"] == "bilinear",
                       "PREFETCH": prefetch_on(self.opts["prefetch"], self._per_group(i), False,
                                               self._one_sample(i)),
                       "MODE": step.mode, "SRC_SCRATCH": src >= 0,
                       "REDUCTION": reductions.CODES[self.opts["reduction"]],
                       **mip_constants(image.fmt)},
            subgroup_size=None if wanted == "auto" else int(wanted))
            for i, (step, (src, _)) in enumerate(zip(self.sg_steps, self.offsets, strict=True))]
        self.steps = tuple(self._step(i, image.layers) for i in range(len(self.sg_steps)))
        if not self.sg_steps:
            return
        self.scratch = Buffer(self.ctx, max(16, texels * 16),
                              flag("VK_BUFFER_USAGE_STORAGE_BUFFER_BIT"))
        scratch = (self.scratch.handle, 0, self.scratch.size)
        self.sets = DescriptorSets(self.pipelines[0], len(self.sg_steps))
        sampler = get_sampler(self.ctx, linear=self.opts["load"] == "bilinear")
        for i, step in enumerate(self.sg_steps):
            outs = [image.storage_views[level] for level in step.levels]
            # unused bindings: a level this dispatch writes anyway (never stored through them)
            outs += [outs[-1]] * (MAX_OUTPUTS - len(outs))
            source = image.source_views(self._one_sample(i))[step.src_level]
            self.sets.write(i, [(source, sampler), *outs, scratch])

    def _one_sample(self, i: int) -> bool:
        """Dispatch i makes each level-1 value from one bilinear sample of the image."""
        return (self.opts["load"] == "bilinear" and self.sg_steps[i].mode == MODE_TILE
                and self.offsets[i][0] < 0)

    def _per_group(self, i: int) -> int:
        """Tiles per workgroup of dispatch i (1 outside TILE mode). No dispatch ends at a counter."""
        step = self.sg_steps[i]
        if step.mode != MODE_TILE:
            return 1
        return group_tiles(self.ctx.caps, self.opts["tiles"], step.groups[0] * step.groups[1],
                           False, self._one_sample(i))

    def _step(self, i: int, layers: int) -> DispatchStep:
        """Planned dispatch ``i`` as recorded: pipeline and descriptor set i."""
        step = self.sg_steps[i]
        tiles = step.groups[0] * step.groups[1]
        groups = step.groups
        if step.mode == MODE_TILE:
            groups = tile_groups(tiles, self._per_group(i))
        push = SUBGROUP.pack(srcSize=step.src_size, levels=step.count,
                             srcScratch=max(self.offsets[i][0], 0), dstScratch=self.offsets[i][1],
                             regionX=step.groups[0], regionTiles=tiles)
        return DispatchStep(step.label, step.levels, self._detail(step), pipeline=i,
                            descriptor_set=i, push=push, groups=(*groups, layers))

    def level_sources(self, width: int, height: int, layers: int = 1) -> list[LevelSource]:
        # a dispatch reads the float scratch its predecessor wrote, or the image (level 0, or a
        # boundary level too big for the scratch buffer): then one bilinear sample per 2x2 in
        # TILE mode with load=bilinear (mipview/gpu/strategies/subgroup.comp blockSrc)
        steps = plan_steps(width, height, self.tile_levels)
        offsets, _ = scratch_offsets(steps, layers)
        out = []
        for step, (src, _) in zip(steps, offsets, strict=True):
            bilinear = src < 0 and step.mode == MODE_TILE and self.opts["load"] == "bilinear"
            out.append(LevelSource(reread=src < 0, bilinear=bilinear))
            out += [LevelSource(reread=False)] * (step.count - 1)
        return out
