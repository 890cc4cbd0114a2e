"""``npot-exact``: several exact levels per dispatch at any size (nvpro vk_compute_mipmaps class).

A dispatcher walks the chain and asks, at each input level, how many levels one dispatch can make:

* **fast** path, while the sides below stay even: single-pass's tile phase
  (:func:`~mipview.gpu.strategies.single_pass.tile_pass`, mipview/gpu/shaders/include/spd_reduce.glsl),
  sampling the level as stored: a 64x64 tile per workgroup reduced to up to 6 levels in
  registers, quad swaps and shared memory (step 1 with exact weights, so the level it starts
  from may be odd), and where the rest of the chain fits one tile phase, the last group runs it
  (4096^2: one dispatch). Before 2026-11-23 this path was npot_exact.comp's own 64x64 block kernel
  (H200, RGBA8: 4096^2 176 us for levels 1-6 against single-pass's 45 for the whole chain;
  one way to reduce a tile, not two);
* **general** path, where a side is odd: 2 levels per dispatch with overlapping tiles; a group
  makes a 16x16 tile of the second level from a 33x33 region of the first, recomputing the border
  samples its neighbour also computes instead of synchronising with it (nvpro's general pipeline);
  where the whole rest of the chain fits one group's shared memory, one group makes it: as a
  dispatch of its own where it is the whole chain, else by the last group of the dispatch before
  (SPD's atomic hand-off, mipview/gpu/shaders/include/handoff.glsl: every group writes its texels of the last
  level it makes to a float buffer too; H200 1920x1080: 21.0 -> 19.5 us).

The general path is mipview/gpu/strategies/npot_exact.comp with the reduction of the other exact strategies
(mip_common.glsl MIP_REDUCE_EXACT). Intermediates stay float inside a dispatch, so the chain error
is lower than per-level's. The plan is a pure function of the size (:func:`plan_steps`), exposed
with every result.

Options: ``path`` ``auto`` (fast where possible) or ``general`` (never the fast path: the
overlapping-tile kernel everywhere, to measure what the fast path buys); ``load`` as
single-pass's, for the fast dispatch that samples level 0; ``reduction`` mean (default), or
min/max (Hi-Z, as per-level's and single-pass's): every level over each texel's whole footprint
(2 texels per even side, 3 per odd side), conservative at every size. The fast dispatches are
single-pass's min/max tile phase; the general kernel (MIP_EXTREME_EXACT) reads and stores
storage values as they are (no decode, no rounding; sRGB codes compare as the curve is
monotonic), shared memory and hand-off included, so every level is bit-exact against the
reference in every format. ``load=bilinear`` averages in the sampler: it serves the mean only,
and ``auto`` then takes texel loads.

Barriers: a COMPUTE write -> read/write memory barrier between dispatches; the runner's barriers
before and after a run cover the rest (see base.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from mipview.core import reductions
from mipview.core.formats import Format, level_size, mip_count
from mipview.core.results import DispatchStep, LevelSource
from mipview.gpu.shaders.interface import ShaderInterface
from mipview.gpu.shaders.shipped import MIP_COMMON, mip_constants
from mipview.gpu.strategies import handoff
from mipview.gpu.strategies.auto import auto_option
from mipview.gpu.strategies.base import (
    REDUCTION_OPTION,
    TILES_OPTION,
    OptionSpec,
    Strategy,
    compute_reason,
    group_count,
)
from mipview.gpu.strategies.single_pass import SinglePass, SpPass, strip_pass, tile_pass
from mipview.gpu.vulkan.context import DeviceCaps, GpuContext
from mipview.gpu.vulkan.pipelines import DescriptorSets, get_pipeline, get_sampler
from mipview.gpu.vulkan.resources import Buffer, MipImage
from mipview.gpu.vulkan.vkapi import flag

# this strategy's shader, npot_exact.comp: what the host passes it
NPOT_EXACT = ShaderInterface(
    "npot_exact",
    spec=(("local_size_x_id", 0, "uint"), ("NPOT_A_SIDE", 1, "int"), ("NPOT_B_SIDE", 2, "int"),
          ("NPOT_DECODE_SRGB", 3, "bool"), ("NPOT_ROUND_HALF", 4, "bool"),
          ("NPOT_LEVELS", 5, "int"), ("NPOT_TAIL", 6, "int"), ("NPOT_REDUCTION", 7, "int"),
          *MIP_COMMON),
    push=(("srcSize", "ivec2"), ("tile", "int"), ("groupsPerLayer", "int")))

THREADS = 256          # spec constant 0: 1D groups, several texels per thread per level
CPU_THREADS = 1024     # on CPU devices: 2 texels per invocation and level, not 5 (see _threads)
A_SIDE = 33            # spec constant 1: region of odd levels in a dispatch (2*16 + 1)
B_SIDE = 16            # spec constant 2: region of even levels in a dispatch
MAX_LEVELS = 6         # levels every group of a general dispatch makes, at most
OUTPUTS = 12           # = NPOT_MAX_LEVELS, the dst bindings of npot_exact.comp (with the tail)
#: general path, 2 or 3 levels made by every group: sides of a group's tile at its last level,
#: the largest first, the smallest where none gives SPREAD_GROUPS. On an H200
#: (docs/bench/npot-tile) 4 made the 2-level dispatch after 1080p's and 4K's fast step 1.1-2.0 us
#: faster than 16, and 2 slower again; 3 levels in tiles of 2 were faster still on an H100
#: (docs/bench/npot-grouped), and in tiles of 1 slower
GENERAL_TILES = {2: (16, 8, 4), 3: (16, 8, 4, 2)}
SPREAD_GROUPS = 128    # groups that keep an H100/H200's 132 SMs about busy
LONE_TILE = 32         # general path, 1 level (the chain's last): side of a group's tile
SHARED_BYTES = 16 * (A_SIDE * A_SIDE + B_SIDE * B_SIDE)
BINDINGS = ("sampled",) + ("storage_image",) * OUTPUTS + ("storage_buffer",) * 2


def _threads(caps: DeviceCaps) -> int:
    """Invocations per group. The shader unrolls its texel loops to ceil(33^2 / threads) copies
    per level; lavapipe compiles every copy with LLVM at the first dispatch (tests/
    test_npot_exact.py with Mesa's cache off: 256 s with 256, for 71 s before the unrolling), so
    CPU devices get 1024-invocation groups and 2 copies."""
    if caps.device_type == "cpu" and caps.max_workgroup_invocations >= CPU_THREADS:
        return CPU_THREADS
    return THREADS


def _texels(size: tuple[int, int]) -> int:
    return size[0] * size[1]


@dataclass(frozen=True)
class NpotStep:
    """One dispatch: levels ``src + 1 .. src + levels`` from level ``src``; the last ``tail``
    of them made by the last group to finish (general path, after the atomic hand-off)."""

    path: str                   # "fast" | "general"
    src: int
    levels: int
    tile: int                   # general: side of a group's tile at the last level
    groups: tuple[int, int]
    #: fast: single-pass's pass making these levels, and the data buffer it uses (vec4s)
    tiles: SpPass | None = None
    data_vec4: int = 0
    tail: int = 0

    @property
    def grouped(self) -> int:
        """Levels every group makes (the rest, ``tail``, by the last group alone)."""
        return self.levels - self.tail

    @property
    def outputs(self) -> tuple[int, ...]:
        return tuple(range(self.src + 1, self.src + self.levels + 1))

    @property
    def label(self) -> str:
        first, last = self.outputs[0], self.outputs[-1]
        return f"{self.path} {first}" if first == last else f"{self.path} {first}-{last}"


def region_sides(width: int, height: int, step: NpotStep) -> list[tuple[int, int]]:
    """Largest region (w, h) a group computes at each level of a general ``step`` before any
    tail (first level first); mirrors the lo/hi walk of npot_exact.comp."""
    k = step.grouped
    sizes = [level_size(width, height, step.src + j) for j in range(k + 1)]
    rw = rh = step.tile
    out = [(min(rw, sizes[-1][0]), min(rh, sizes[-1][1]))]
    for j in range(k - 1, 0, -1):
        sw, sh = sizes[j]
        rw, rh = min(sw, 2 * rw + (sw & 1)), min(sh, 2 * rh + (sh & 1))
        out.append((rw, rh))
    return out[::-1]


def _fits(width: int, height: int, step: NpotStep) -> bool:
    if step.tiles is not None:
        return True  # single-pass's tile phase: fixed 64x64 tiles, its own shared memory
    k = step.grouped
    # the tail: one group, every region a whole level, j counted on from the group's levels
    tail = [level_size(width, height, step.src + j) for j in range(k + 1, step.levels + 1)]
    regions = region_sides(width, height, step) + tail
    for j, (rw, rh) in enumerate(regions, start=1):
        if j in (k, step.levels):  # straight to the image (or the hand-off): the region only
            if rw * rh > A_SIDE * A_SIDE:  # bounds the loop's constant trip count (NPOT_ITERS_)
                return False
            continue
        side = A_SIDE if j % 2 else B_SIDE
        if rw > side or rh > side:
            return False
    return True


def _with_tail(width: int, height: int, step: NpotStep, finisher: NpotStep) -> NpotStep | None:
    """``step`` with the one-group ``finisher`` after it made by its last group instead of a
    dispatch of its own (one dispatch and barrier less: ~3.5 us on an H200), where that fits."""
    if step.path != "general" or step.groups == (1, 1) or finisher.groups != (1, 1):
        return None
    merged = replace(step, levels=step.levels + finisher.levels, tail=finisher.levels)
    return merged if merged.levels <= OUTPUTS and _fits(width, height, merged) else None


def _general(width: int, height: int, src: int, levels: int, tile: int = 0) -> NpotStep:
    """A general dispatch of ``levels`` levels from ``src``; ``tile`` 0: the tile of a 2- or
    3-level (or a lone last level's) dispatch of many groups."""
    lw, lh = level_size(width, height, src + levels)
    if not tile and levels in GENERAL_TILES:
        # the largest tile that still spreads over the GPU: after a fast step the levels are
        # small (1080p's level 5 is 60x33: 12 groups of 16x16 left most SMs idle)
        sides = GENERAL_TILES[levels]
        tile = next((t for t in sides
                     if group_count(lw, t) * group_count(lh, t) >= SPREAD_GROUPS), sides[-1])
    tile = tile or LONE_TILE
    return NpotStep("general", src, levels, tile, (group_count(lw, tile), group_count(lh, tile)))


def _fast(width: int, height: int, src: int, layers: int) -> NpotStep | None:
    """Single-pass's tile phase from level ``src`` as stored, when it makes 2 levels or more;
    its tail only where one tile phase holds it (a level-by-level tail by one group is slower
    than the general path's dispatches: H200 1920x1080, 15.6 us for levels 6-10)."""
    sizes = [level_size(width, height, i) for i in range(mip_count(width, height))]
    p, used = tile_pass(sizes, src, -1, 0, layers, 0)
    if len(p.levels) < 2:
        return None
    if not p.tail_levels:  # the next dispatch samples the stored level: no hand-off
        p, used = replace(p, handoff_offset=-1), 0
    return NpotStep("fast", src, len(p.levels), 0, p.groups, p, used)


def _strips(width: int, height: int, layers: int) -> NpotStep | None:
    """The whole chain in one dispatch where x stays even below the tile phase's last level
    (single_pass.strip_pass: 1920x1080, 2560x1440, 3840x2160)."""
    sizes = [level_size(width, height, i) for i in range(mip_count(width, height))]
    planned = strip_pass(sizes, 0, layers)
    if planned is None:
        return None
    p, used = planned
    return NpotStep("fast", 0, len(p.levels), 0, p.groups, p, used)


def _candidates(width: int, height: int, src: int, general_only: bool,
                layers: int, after_fast: bool = False, strips: bool = False) -> list[NpotStep]:
    """Dispatches that could start at level ``src`` (``after_fast``: right after a fast step),
    each fitting shared memory."""
    remaining = mip_count(width, height) - 1 - src
    most = min(remaining, MAX_LEVELS)
    fast = None if general_only else _fast(width, height, src, layers)
    out = [fast] if fast else []
    whole = _strips(width, height, layers) if strips and not general_only and src == 0 else None
    if whole:
        out.append(whole)
    # One group making every level up to the top: where a whole level fits one region, a
    # single group finishes the chain in one dispatch, odd sides or not. Fewer dispatches means
    # fewer roundings to the storage format (f16 chain error) and fewer barriers.
    for levels in range(most, 2, -1):
        lw, lh = level_size(width, height, src + levels)
        step = _general(width, height, src, levels, max(lw, lh))
        if step.groups == (1, 1) and _fits(width, height, step):
            out.append(step)
            break
    general = _general(width, height, src, min(2, remaining))
    if after_fast and fast is None and remaining >= 3:
        # past a fast step, where an odd side ended it (1080p's level 3, 240x135): a third
        # level in the groups leaves the last group one level less (H100, bench/npot-grouped:
        # 1080p 15.8 -> 15.2 us R32F, 17.5 -> 16.1 RGBA8; 4K 26.3 -> 25.6, 27.8 -> 26.5)
        deeper = _general(width, height, src, 3)
        general = deeper if _fits(width, height, deeper) else general
    out.append(general)
    return out


def plan_steps(width: int, height: int, general_only: bool = False,
               layers: int = 1, strips: bool = False) -> list[NpotStep]:
    """The dispatches that make levels 1..n-1 of a ``width`` x ``height`` image: at each input
    level, the candidate making the most levels (the fast path on ties); ``strips``: a fast
    step's column strips may finish the chain (:func:`_strips`)."""
    n = mip_count(width, height)
    steps: list[NpotStep] = []
    src = 0
    while src < n - 1:
        after_fast = bool(steps) and steps[-1].path == "fast"
        step = max(_candidates(width, height, src, general_only, layers, after_fast, strips),
                   key=lambda s: s.levels)
        if not _fits(width, height, step):  # a planning bug, never a user error
            raise AssertionError(f"npot-exact: {step} overflows shared memory")
        steps.append(step)
        src += step.levels
    if len(steps) >= 2:
        before = steps[-2]
        if before.tiles is not None and before.levels <= 2:
            # the general path makes the same levels and can hand off (2560x1440: 6-7 + 8-11)
            before = _general(width, height, before.src, before.levels)
        if merged := _with_tail(width, height, before, steps[-1]):
            steps[-2:] = [merged]
    return steps


def general_step(width: int, height: int, layers: int, step: NpotStep, pipeline: int,
                 descriptor_set: int) -> DispatchStep:
    """A planned general dispatch as recorded (``pipeline``: the one made for its level
    counts)."""
    k = step.grouped
    detail = (f"{step.groups[0]}x{step.groups[1]} groups, {step.tile}x{step.tile} tiles of level "
              f"{step.src + k}")
    if step.tail:
        detail += f", levels {step.src + k + 1}-{step.outputs[-1]} by the last group"
    return DispatchStep(
        step.label, step.outputs, detail, pipeline=pipeline, descriptor_set=descriptor_set,
        push=NPOT_EXACT.pack(srcSize=level_size(width, height, step.src), tile=step.tile,
                             groupsPerLayer=step.groups[0] * step.groups[1]),
        groups=(*step.groups, layers))


class NpotExact(Strategy):
    name = "npot-exact"
    title = "NPOT exact, several levels per dispatch"
    description = ("nvpro-style: exact NPOT weights; single-pass's tiles (up to 6 levels per "
                   "dispatch) while sides are even, 2 levels with overlapping tiles where a side "
                   "is odd; float intermediates.")
    options = (OptionSpec("path", ("auto", "general"), "auto",
                          "general: overlapping-tile kernel everywhere (no fast path)"),
               auto_option("npot-exact", "load", ("texel", "bilinear"),
                           "level 0 in the fast path: 4 texel loads per 2x2, or one bilinear "
                           "sample (mean, even sides)", "texel"),
               REDUCTION_OPTION,
               TILES_OPTION,
               OptionSpec("strips", ("off", "on"), "off",
                          "where x stays even below the tiles' last level (1080p, 1440p, 4K): "
                          "column strips of the same dispatch make the rest of the chain "
                          "(one dispatch; slower on an H100: docs/bench/speed-vs-spd)"))
    promise = "carried"
    owned = ("counters", "hand")

    def __init__(self, ctx: GpuContext, options: dict[str, str] | None = None) -> None:
        super().__init__(ctx, options)
        #: makes the fast dispatches (its pipelines, buffers and sets)
        self.tiles = SinglePass(ctx, self._tile_options(self.opts))
        self._sets: list[Any] = []

    @staticmethod
    def _tile_options(opts: dict[str, str]) -> dict[str, str]:
        """single-pass's options for the fast dispatches (its tile phase)."""
        return {"load": opts["load"], "reduction": opts["reduction"], "tiles": opts["tiles"]}

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
        reason = handoff.group_reason(caps, SHARED_BYTES, THREADS)
        if reason:
            return reason
        if opts["path"] == "auto":
            reason = SinglePass.unsupported_reason(caps, fmt, width, height, layers,
                                                   cls._tile_options(opts))
            if reason:
                fallback = "; path=general does without" if opts["load"] == "texel" else ""
                return f"path=auto (single-pass's tiles): {reason}{fallback}"
        elif opts["load"] == "bilinear":
            return "load=bilinear applies to the fast path, which path=general never takes"
        return compute_reason(caps, fmt)

    def _plan(self, width: int, height: int, layers: int) -> list[NpotStep]:
        return plan_steps(width, height, self.opts["path"] == "general", layers,
                          self.opts["strips"] == "on")

    def prepare(self, image: MipImage) -> None:
        planned = self._plan(image.width, image.height, image.layers)
        fast = [s for s in planned if s.tiles is not None]
        general = [s for s in planned if s.tiles is None]
        if fast:
            self.tiles.prepare_passes(image, [s.tiles for s in fast],
                                      max(1, max(s.data_vec4 for s in fast)))
        self.pipelines = list(self.tiles.pipelines)
        self._sets = list(self.tiles.sets.sets) if self.tiles.sets else []
        first_set = len(self._sets)
        srgb = image.fmt.is_srgb
        # one pipeline per (levels, tail) of the general dispatches (specialization constants)
        npot_pipelines: dict[tuple[int, int], int] = {}
        for step in general:
            key = (step.grouped, step.tail)
            if key not in npot_pipelines:
                npot_pipelines[key] = len(self.pipelines)
                self.pipelines.append(get_pipeline(
                    self.ctx, NPOT_EXACT, BINDINGS,
                    constants={"local_size_x_id": _threads(self.ctx.caps), "NPOT_A_SIDE": A_SIDE,
                               "NPOT_B_SIDE": B_SIDE, "NPOT_DECODE_SRGB": srgb,
                               "NPOT_ROUND_HALF": image.fmt.element is Format.F16,
                               "NPOT_LEVELS": key[0], "NPOT_TAIL": key[1],
                               "NPOT_REDUCTION": reductions.CODES[self.opts["reduction"]],
                               **mip_constants(image.fmt)}))
        if general:
            # the hand-off: level src+k of a dispatch with a tail, as fp32 vec4 per layer
            hand = max((image.layers * _texels(image.level_size(s.src + s.grouped))
                        for s in general if s.tail), default=1)
            self.counters = handoff.counters(self.ctx, image.layers)
            self.hand = Buffer(self.ctx, 16 * hand, flag("VK_BUFFER_USAGE_STORAGE_BUFFER_BIT"))
            self.sets = DescriptorSets(self.pipelines[len(self.tiles.pipelines)], len(general))
            self._sets += self.sets.sets
            sampler = get_sampler(self.ctx)
            for i, step in enumerate(general):
                outs = list(step.outputs)
                # unused bindings alias the dispatch's last output: valid, and never accessed
                outs += [outs[-1]] * (OUTPUTS - len(outs))
                # sRGB: the shader decodes exactly (NPOT_DECODE_SRGB in npot_exact.comp)
                src_view = (image.encoded_views if srgb else image.sampled_views)[step.src]
                self.sets.write(i, [(src_view, sampler)]
                                + [image.storage_views[level] for level in outs]
                                + [(self.counters.handle, 0, self.counters.size),
                                   (self.hand.handle, 0, self.hand.size)])
        steps, done = [], {"fast": 0, "general": 0}
        for step in planned:
            i = done[step.path]
            done[step.path] += 1
            if step.tiles is not None:
                sp = self.tiles.steps[i]
                steps.append(replace(sp, label=step.label,
                                     detail=f"{sp.detail} (single-pass's tile phase)"))
            else:
                key = (step.grouped, step.tail)
                steps.append(general_step(image.width, image.height, image.layers, step,
                                          npot_pipelines[key], first_set + i))
        self.steps = tuple(steps)

    def descriptor_sets(self) -> Sequence[Any]:
        return self._sets  # the fast dispatches' sets, then the general ones'

    def release(self) -> None:
        self.tiles.release()
        self._sets = []
        super().release()

    def level_sources(self, width: int, height: int, layers: int = 1) -> list[LevelSource]:
        # each dispatch samples its source level as stored, then carries floats
        out: list[LevelSource] = []
        for step in self._plan(width, height, layers):
            if step.tiles is not None:
                out += self.tiles.pass_sources(step.tiles, width, height)
            else:  # the tail reads the hand-off's floats, not the stored level
                out += [LevelSource(reread=level == step.outputs[0]) for level in step.outputs]
        return out
