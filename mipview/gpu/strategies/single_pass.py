"""``single-pass``: a FidelityFX SPD-class downsampler, many levels per dispatch.

Shader: mipview/gpu/shaders/include/spd_reduce.glsl (entry points single_pass.comp, and single_pass_f16.comp
for ``fp16=on``). A dispatch (a *pass*) starts at level ``b``: each 256-invocation workgroup
reduces a 64x64 tile of level ``b`` to levels ``b+1 .. b+t`` (t <= 6) without leaving the group
(registers, quad swaps, shared memory); then, when the rest of the chain is small, every group
bumps an atomic counter of its layer and the last group to arrive computes the remaining levels
(the *tail*) and resets the counter (zeroed once at ``prepare`` with vkCmdFillBuffer). When the
tail starts from at most one 64x64 tile with even sides below it (4096^2: 64x64 -> 1x1), the last
group runs the tile phase once more on it, in parallel as SPD does, not level by level.

Choices, and why:

- **Hand-off through a storage buffer of fp32 vec4**, not a coherent storage image: reading a
  storage image needs a format qualifier in the shader (lavapipe has no format-less reads) and a
  qualifier cannot be a specialization constant, so one SPIR-V could not serve rgba8 and
  rgba16f. The buffer also keeps the hand-off level unquantised, so the tail (and the second pass
  of large images) works from float values, like SPD's own intermediates.
- **Cross-workgroup synchronisation under the Vulkan memory model** (``#pragma
  use_vulkan_memory_model``): each invocation's buffer writes are released at queue-family scope
  by a control barrier, invocation 0 does an acquire-release ``atomicAdd`` at queue-family scope,
  and the last group acquires again in a control barrier before the tail reads. SPD's GLSL has
  only ``barrier()`` there (FidelityFX-SPD #13 on GitHub). Needs ``vulkanMemoryModel``.
- **Exact NPOT.** Step 1 of every pass uses the reference's exact weights (2 taps per even side,
  3 area-weighted taps per odd side), and so does every tail level. Steps 2..6 inside a tile are
  2x2 boxes, so the planner (:func:`plan_passes`) only lets a tile continue while the level below
  has even sides; at an odd side the tile stops, and the chain continues in the tail (if the
  level is at most ``TAIL_TEXELS``) or in a further pass. Every level is therefore exact (mean
  within the foundation's tolerance, min/max bit-equal); the price on NPOT images is more
  dispatches (1920x1080: 2; 4095^2: one per level until 63^2), which :meth:`notes` reports.
- **Beyond 4096^2**: POT sides up to 16384 take two passes (8192^2: 6 levels, a barrier, 7).
- **Several tiles per workgroup** (``tiles``; mipview/gpu/shaders/include/tile_schedule.glsl): every
  counter arrival costs a queue-family release and an atomic round trip; ``auto`` gives a
  workgroup 8 tiles where the pass ends at the counter (never fewer than 512 workgroups), which
  took 4096^2 RGBA8 bilinear from 55.3 to 44.4 us on an H200. ``prefetch`` fetches the next
  tile before reducing the current one, which holds a second tile's values in registers. Once
  levels 3..6 no longer stalled the group it paid off where a pass has no counter and one
  bilinear sample makes each value (8192^2 RGBA8 pass 1, 4 tiles per workgroup: 113 -> 102 us)
  and lost elsewhere (texel loads 139 -> 168 us; 4096^2 with the counter 36 -> 45 us), which is
  what ``auto`` (both options, :func:`~mipview.gpu.strategies.base.auto_tiles`) chooses.
- **Quadrant layout**: an invocation's four level-1 texels lie one in each 16x16 quadrant of the
  tile (SPD's layout), so each fetch and store of a subgroup covers one dense block; 2x2 blocks
  per invocation scattered the level-1 stores (H200: RGBA16F 8192^2 240.6 -> 174.7 us).
- **Levels 3..6 of a tile with two barriers**, not a barrier chain (two per level, each level's
  stores inside it): 64 invocations make level 3 and reduce their quads to level 4, one quad
  makes levels 5 and 6 after the second barrier, and the other warps go on to their next tile.
  The chain was a tile's costliest part (H200, RGBA8 bilinear: 4096^2 43.6 -> 36.1 us, 8192^2
  138.0 -> 113.4 us; bits unchanged).
- **One pipeline per pass**: source (image or buffer), even sides and tail kind are
  specialization constants, so each pass's shader carries only its own paths: fewer registers,
  more resident workgroups (texel load at 4096^2: 81.4 -> 66.9 us).
- **Arrays**: z of the dispatch is the layer; one counter per layer.
- **Sub-rectangle updates** (:meth:`SinglePass.record_rect`): only the tiles whose outputs read
  the changed texels are dispatched (plus the tail); hand-off values of the other tiles are still
  in the buffer from the previous run, so the result is bit-identical to a full run.

Options: ``reduction`` mean/min/max (min/max take every texel of the footprint, nothing
outside); ``load`` texel (exact taps) or bilinear (one linear sample per 2x2 of level 0: mean,
even level-0 sides, not fp32 whose filtering precision is the device's choice), default ``auto``
(:mod:`~mipview.gpu.strategies.auto`: bilinear where the H200 measured it faster and the verdict
bounds it, texel elsewhere); ``fp16`` on:
packed half registers and shared memory in tile steps 2..6 (formats of at most 16 bits per
channel, device shaderFloat16); ``tiles`` and ``prefetch`` above; ``tail``: the largest level (in
texels, 512 .. 32768, default 8192, or ``auto`` from the table) the last group finishes the
chain from, level by level (a tail that fits one tile phase is taken whatever the value). At NPOT render-target sizes the chain's
cost is the dispatches and the serial tail (H200, 1920x1080: pass 1 7.4 us, pass 2, 12 tiles then
six levels by one group, 26 us); ``tail`` trades one for the other (1920x1080: 4, 3, 2 or 1
dispatches), the same arithmetic either way, so a benchmark can measure which wins
(docs/bench/speed/run.sh). The quad step needs subgroup
quad operations in compute shaders.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from mipview.core import reductions
from mipview.core.formats import Format, level_size, mip_count
from mipview.core.results import DispatchStep, LevelSource
from mipview.gpu.shaders.interface import ShaderInterface
from mipview.gpu.shaders.shipped import MIP_COMMON, gather_mode, mip_constants
from mipview.gpu.strategies import handoff
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
from mipview.gpu.vulkan.timing import Marks
from mipview.gpu.vulkan.vkapi import flag

# this strategy's shaders, single_pass.comp and its float16 twin, and what the host passes them:
# both are mipview/gpu/shaders/include/spd_reduce.glsl's body
_SPD_SPEC = (("SP_REDUCTION", 0, "int"), ("SP_BILINEAR", 1, "bool"), ("SP_PREFETCH", 2, "bool"),
             ("SP_SRC_BUFFER", 3, "bool"), ("SP_SRC_EVEN", 4, "bool"), ("SP_TAIL", 5, "int"),
             ("SP_TAIL_EVEN", 6, "bool"), ("SP_GATHER", 7, "int"), ("SP_STRIP_LEVELS", 8, "int"),
             ("SP_STRIP_A", 9, "int"), ("SP_STRIP_B", 15, "int"), *MIP_COMMON)
_SPD_PUSH = (("srcSize", "ivec2"), ("tileOffset", "ivec2"), ("tileLevels", "int"),
             ("tailLevels", "int"), ("groupsPerLayer", "int"), ("srcOffset", "int"),
             ("handoffOffset", "int"), ("scratchOffset", "int"), ("scratchSize", "int"),
             ("regionX", "int"), ("regionTiles", "int"))
SINGLE_PASS = ShaderInterface("single_pass", _SPD_SPEC, _SPD_PUSH)
SINGLE_PASS_F16 = ShaderInterface("single_pass_f16", _SPD_SPEC, _SPD_PUSH)

TILE_LEVELS = 6        # a 64x64 tile reduces to 1x1 inside one workgroup
TILE_OUT = 32          # level b+1 texels per tile side
OUTPUTS = 14           # storage bindings: 16384 has 14 levels below level 0
TAIL_TEXELS = 8192     # the last group finishes the chain from a level this small (default)
#: ``tail``: the largest level (texels) the last group starts a level-by-level tail from; a
#: tail that fits one tile phase (:func:`_tail_tiled`) is taken whatever the value
TAIL_CHOICES = ("512", "2048", "8192", "32768")
#: a strip pass's two shared regions (:func:`strip_pass`), vec4s at most: with the tile phase's
#: 4.3 KB they stay within the 16 KB of shared memory every Vulkan device has
STRIP_VEC4 = 752
#: texels of any level a strip or the last strip makes, at most: spd_reduce.glsl's strip loop
#: runs a constant 3 iterations of its 256 invocations
STRIP_TEXELS = 3 * 256
BINDINGS = ("sampled",) + ("storage_image",) * OUTPUTS + ("storage_buffer", "storage_buffer")

Rect = tuple[int, int, int, int]  # x, y, width, height on level 0


@dataclass(frozen=True)
class SpPass:
    """One dispatch. Offsets are vec4 indices into the data buffer (layer 0)."""

    base: int
    tile_levels: int
    tail_levels: int
    src_offset: int        # < 0: step 1 samples level ``base`` of the image
    handoff_offset: int    # < 0: level base+tile_levels is not kept
    scratch_offset: int
    scratch_size: int
    groups: tuple[int, int]
    tail_tiled: bool = False  # the last group runs the tile phase once more on the hand-off
    #: levels made by column strips after the tile levels (:func:`strip_pass`; 0: none), the
    #: strips per layer, and the vec4s of their two shared regions; the tail follows them, and
    #: ``scratch_offset`` is then where the strips' last level goes, whole
    strip_levels: int = 0
    strips: int = 0
    strip_regions: tuple[int, int] = (1, 1)

    @property
    def levels(self) -> tuple[int, ...]:
        made = self.tile_levels + self.strip_levels + self.tail_levels
        return tuple(range(self.base + 1, self.base + made + 1))


def _span(levels: tuple[int, ...]) -> str:
    if len(levels) == 1:
        return f"level {levels[0]}"
    return f"levels {levels[0]}-{levels[-1]}"


def _even(size: tuple[int, int]) -> bool:
    return size[0] % 2 == 0 and size[1] % 2 == 0


def plan_passes(width: int, height: int, layers: int = 1,
                tail_texels: int = TAIL_TEXELS) -> tuple[list[SpPass], int]:
    """The dispatches for a ``width`` x ``height`` chain and the data buffer size in vec4s. A
    pass ends in a tail when the rest of the chain fits one tile phase, or starts from a level
    of at most ``tail_texels``: fewer dispatches against a longer serial tail."""
    sizes = [level_size(width, height, i) for i in range(mip_count(width, height))]
    passes: list[SpPass] = []
    used = 0
    base, src = 0, -1
    while base < len(sizes) - 1:
        p, used = tile_pass(sizes, base, src, used, layers, tail_texels)
        passes.append(p)
        base, src = p.levels[-1], p.handoff_offset
    return passes, max(used, 1)


def tile_pass(sizes: list[tuple[int, int]], base: int, src: int, used: int, layers: int,
              tail_texels: int) -> tuple[SpPass, int]:
    """The pass starting at level ``base`` of the chain ``sizes`` (``src`` < 0: it samples the
    image, else the hand-off at that vec4 offset), placing its buffers from ``used``: tile levels
    while the sides below stay even (at most 6), then the tail (:func:`plan_passes`); also the
    data buffer used after it. ``tail_texels`` 0: only a tail that fits one tile phase."""
    last = len(sizes) - 1
    texels = [w * h for w, h in sizes]
    t = 1
    while t < TILE_LEVELS and base + t < last and _even(sizes[base + t]):
        t += 1
    h = base + t
    small = texels[h] <= tail_texels or _tail_tiled(sizes, h, last - h)
    tail = last - h if h < last and small else 0
    handoff = scratch = scratch_size = -1
    if h < last:
        handoff, used = used, used + layers * texels[h]
    if tail >= 2:
        scratch_size = layers * texels[h + 1]
        scratch, used = used, used + 2 * scratch_size
    w1, h1 = sizes[base + 1]
    return SpPass(base, t, tail, src, handoff, scratch, max(scratch_size, 0),
                  (group_count(w1, TILE_OUT), group_count(h1, TILE_OUT)),
                  _tail_tiled(sizes, h, tail)), used


def strip_pass(sizes: list[tuple[int, int]], base: int, layers: int) -> tuple[SpPass, int] | None:
    """The pass from level ``base`` of the image whose tile phase stops at a level h with an odd
    height, and whose column strips (spd_reduce.glsl, SP_TAIL 3) make the levels after it while
    x stays even, the last strip the rest: the whole chain in one dispatch (1920x1080: levels
    1-3 in tiles, 4-7 in 15 strips, 8-10). None where x does not stay even for a strip at least
    a tile wide, or the strips' regions would not fit :data:`STRIP_VEC4`; with the data buffer
    used (vec4s)."""
    p, used = tile_pass(sizes, base, -1, 0, layers, 0)
    h, last = base + p.tile_levels, len(sizes) - 1
    block = 64 >> p.tile_levels  # a tile's texels per side at level h
    if h >= last or p.tail_levels or p.groups[0] * block != sizes[h][0]:
        return None
    ks = 0
    while h + ks < last and sizes[h + ks][0] % 2 == 0:
        ks += 1
    if (1 << ks) < block:
        return None
    width = 1 << ks
    tail = last - h - ks
    # each stage's levels, texels: a strip's columns of levels h+1 .. h+ks, then whole levels
    stages = [[max(1, width >> k) * sizes[h + k][1] for k in range(1, ks + 1)],
              [sizes[h + ks + k][0] * sizes[h + ks + k][1] for k in range(1, tail + 1)]]
    regions = [0, 0]  # the largest odd and even level kept in shared memory (all but the last)
    for texels in stages:
        for k, n in enumerate(texels[:-1], start=1):
            regions[k % 2 == 0] = max(regions[k % 2 == 0], n)
    if sum(regions) > STRIP_VEC4 or max(stages[0] + stages[1]) > STRIP_TEXELS:
        return None
    edge, used = used, used + layers * sizes[h + ks][0] * sizes[h + ks][1]
    return replace(p, tail_levels=tail, scratch_offset=edge, strip_levels=ks,
                   strips=sizes[h][0] // width,
                   strip_regions=(max(1, regions[0]), max(1, regions[1]))), used


def _tail_tiled(sizes: list[tuple[int, int]], h: int, tail: int) -> bool:
    """The tail fits one tile phase: a source of at most one 64x64 tile, at most 6 levels, and
    box steps 2.. exact (every level below them has even sides; step 1 keeps exact weights)."""
    if not 0 < tail <= TILE_LEVELS:
        return False
    w, h_ = sizes[h]
    return (w <= 2 * TILE_OUT and h_ <= 2 * TILE_OUT
            and all(_even(sizes[h + k]) for k in range(1, tail)))


def _tail_kind(p: SpPass) -> int:
    """spd_reduce.glsl's SP_TAIL for pass ``p``."""
    if p.strip_levels:
        return 3
    return 0 if not p.tail_levels else 1 if p.tail_tiled else 2


def _affected(lo: int, hi: int, n_src: int) -> tuple[int, int]:
    """Texels of the next level that read source texels lo..hi (taps 2i .. 2i+2)."""
    n_dst = max(1, n_src >> 1)
    return max(0, (lo - 1) // 2), min(n_dst - 1, hi // 2)


class SinglePass(Strategy):
    name = "single-pass"
    title = "Single pass (SPD class)"
    description = ("64x64 tiles reduced to 1x1 per workgroup, the last group finishes the chain "
                   "(atomic counter); exact NPOT weights; arrays, min/max, sub-rectangles.")
    options = (
        REDUCTION_OPTION,
        auto_option("single-pass", "load", ("texel", "bilinear"),
                    "level 0: 4 texel loads per 2x2, or one bilinear sample (mean, even sides)",
                    fallback="texel"),
        OptionSpec("fp16", ("off", "on"), "off",
                   "packed half registers and shared memory (formats <= 16 bits/channel)"),
        TILES_OPTION,
        PREFETCH_OPTION,
        auto_option("single-pass", "tail", TAIL_CHOICES,
                    "largest level (texels) the last group finishes the chain from, level by "
                    "level: fewer dispatches against a longer serial tail",
                    fallback=str(TAIL_TEXELS)),
    )
    promise = "carried"
    #: the planner's passes (:func:`plan_passes`), one per entry of ``steps``
    passes: tuple[SpPass, ...] = ()
    owned = ("counters", "data")

    @classmethod
    def unsupported_reason(cls, caps: DeviceCaps, fmt: Format, width: int, height: int,
                           layers: int = 1, options: dict[str, str] | None = None) -> str | None:
        opts = cls.check_options(options or {})
        reason = compute_reason(caps, fmt) or reductions.format_reason(opts["reduction"], fmt)
        if reason:
            return reason
        if not caps.vulkan_memory_model:
            return "device lacks vulkanMemoryModel (needed for the cross-workgroup hand-off)"
        if not caps.has_subgroup_op("quad"):
            return "device lacks subgroup quad operations in compute shaders"
        if opts["load"] == "bilinear":
            reason = reductions.load_reason(opts["reduction"], opts["load"])
            if reason:
                return reason
            if width % 2 or height % 2:
                if width > 1 or height > 1:
                    return f"load=bilinear needs even sides of level 0 (got {width}x{height})"
            reason = bilinear_reason(caps, fmt)
            if reason:
                return reason
        if opts["fp16"] == "on":
            if not caps.shader_float16:
                return "device lacks shaderFloat16"
            if fmt.element is Format.F32:
                return "fp16=on only serves formats of at most 16 bits per channel"
        return None

    def notes(self) -> list[str]:
        out = []
        if len(self.passes) > 1:
            bounds = ", ".join(_span(p.levels) for p in self.passes)
            out.append(f"{len(self.passes)} dispatches ({bounds}): tiles stop at odd sides or "
                       f"above {self.opts['tail']} texels so every level stays exact")
        if self.opts["fp16"] == "on":
            out.append("fp16: tile levels 2-6 are reduced in half precision (hand-off and tail "
                       "in fp32)")
        return out

    # --- per image --------------------------------------------------------------------------
    def prepare(self, image: MipImage) -> None:
        self.prepare_passes(image, *plan_passes(image.width, image.height, image.layers,
                                                int(self.opts["tail"])))

    def prepare_passes(self, image: MipImage, passes: list[SpPass], data_vec4: int) -> None:
        """Pipelines, buffers, descriptor sets and steps for ``passes`` (of :func:`tile_pass`,
        using ``data_vec4`` of the data buffer): pass ``i`` is pipeline and set ``i``. npot-exact
        makes its even stretches so."""
        ctx = self.ctx
        caps = ctx.caps
        self.passes = tuple(passes)
        self.shader: ShaderInterface = SINGLE_PASS_F16 if self.opts["fp16"] == "on" else SINGLE_PASS
        bilinear = self.opts["load"] == "bilinear"
        # one pipeline per pass: what differs between passes is a specialization constant, so
        # each pass's shader carries only its own paths (fewer registers; spd_reduce.glsl)
        self.pipelines = [get_pipeline(
            ctx, self.shader, BINDINGS,
            constants={"SP_REDUCTION": reductions.CODES[self.opts["reduction"]],
                       "SP_BILINEAR": self._one_sample(p), "SP_PREFETCH": self._prefetch(p),
                       "SP_SRC_BUFFER": p.src_offset >= 0,
                       "SP_SRC_EVEN": _even(image.level_size(p.base)),
                       "SP_TAIL": _tail_kind(p),
                       "SP_TAIL_EVEN": _even(image.level_size(p.base + p.tile_levels)),
                       "SP_GATHER": self._gather(p, image),
                       "SP_STRIP_LEVELS": max(1, p.strip_levels),
                       "SP_STRIP_A": p.strip_regions[0], "SP_STRIP_B": p.strip_regions[1],
                       **mip_constants(image.fmt)},
            subgroup_size=caps.subgroup_size if caps.subgroup_size_range else None)
            for p in self.passes]
        self.steps = tuple(self._step(i, p, image) for i, p in enumerate(self.passes))
        # a strip pass counts each strip's tiles, then the strips, per layer
        per_layer = max([p.strips + 1 for p in self.passes if p.strip_levels], default=1)
        self.counters = handoff.counters(ctx, image.layers * per_layer)
        self.data = Buffer(ctx, 16 * data_vec4, flag("VK_BUFFER_USAGE_STORAGE_BUFFER_BIT"))
        if not self.passes:
            return
        self.sets = DescriptorSets(self.pipelines[0], len(self.passes))
        sampler = get_sampler(ctx, linear=bilinear)
        for i, p in enumerate(self.passes):
            # bindings past the last level alias it, as npot-exact's do: never accessed. A 1x1
            # image there made lavapipe, which compiles a pipeline again for each kind of image
            # it binds, compile one variant per level count
            outs = [image.storage_views[min(p.base + k, image.levels - 1)]
                    for k in range(1, OUTPUTS + 1)]
            source = image.source_views(self._one_sample(p))[p.base]
            self.sets.write(i, [(source, sampler), *outs,
                                (self.counters.handle, 0, self.counters.size),
                                (self.data.handle, 0, self.data.size)])

    def _one_sample(self, p: SpPass) -> bool:
        # load=bilinear applies where a pass samples level 0 of the image (the first)
        return self.opts["load"] == "bilinear" and p.src_offset < 0 and p.base == 0

    def _gather(self, p: SpPass, image: MipImage) -> int:
        # step 1 from the image by 2x2 texel loads (a bilinear sample is one instruction already,
        # and odd sides' footprints are not 2x2 blocks)
        if p.src_offset >= 0 or self._one_sample(p) or not _even(image.level_size(p.base)):
            return 0
        return gather_mode(image.fmt, p.base)

    def _per_group(self, p: SpPass, tiles: int) -> int:
        if p.strip_levels:
            return 1  # a group's strip is its tile's
        return group_tiles(self.ctx.caps, self.opts["tiles"], tiles, p.tail_levels > 0,
                           self._one_sample(p))

    def _prefetch(self, p: SpPass) -> bool:
        return prefetch_on(self.opts["prefetch"], self._per_group(p, p.groups[0] * p.groups[1]),
                           p.tail_levels > 0, self._one_sample(p))

    def _launch(self, p: SpPass, image: MipImage, first: tuple[int, int],
                counts: tuple[int, int]) -> tuple[bytes, tuple[int, int, int]]:
        """Push constants and workgroups of pass ``p`` over the ``counts`` tiles from tile
        ``first`` (all of them: ``p.groups``)."""
        tiles = counts[0] * counts[1]
        gx, gy = tile_groups(tiles, self._per_group(p, tiles))
        push = self.shader.pack(
            srcSize=image.level_size(p.base), tileOffset=first, tileLevels=p.tile_levels,
            tailLevels=p.tail_levels, groupsPerLayer=gx * gy, srcOffset=max(p.src_offset, 0),
            handoffOffset=p.handoff_offset, scratchOffset=max(p.scratch_offset, 0),
            scratchSize=p.scratch_size, regionX=counts[0], regionTiles=tiles)
        return push, (gx, gy, image.layers)

    def _step(self, i: int, p: SpPass, image: MipImage) -> DispatchStep:
        """Pass ``i`` as recorded: pipeline and descriptor set i, every tile."""
        detail = f"{_span(p.levels[:p.tile_levels])} in {p.groups[0]}x{p.groups[1]} tiles"
        per = self._per_group(p, p.groups[0] * p.groups[1])
        if per > 1:
            detail += f" ({per} per workgroup)"
        after = p.levels[p.tile_levels + p.strip_levels:]
        if p.strip_levels:
            detail += (f", {_span(p.levels[p.tile_levels:p.tile_levels + p.strip_levels])} in "
                       f"{p.strips} column strips")
        if after:
            detail += f", {_span(after)} by the last group"
        push, groups = self._launch(p, image, (0, 0), p.groups)
        return DispatchStep(f"pass {i + 1}", p.levels, detail, pipeline=i, descriptor_set=i,
                            push=push, groups=groups)

    def record_rect(self, cmd: Any, image: MipImage, rect: Rect, marks: Marks) -> None:
        """Regenerate after level 0 changed inside ``rect`` (x, y, w, h): only the tiles whose
        outputs read it, plus the tail. Needs an earlier full run on this image (the other tiles'
        hand-off values are still in the data buffer)."""
        x, y, w, h = rect
        if w < 1 or h < 1 or x < 0 or y < 0 or x + w > image.width or y + h > image.height:
            raise ValueError(f"rectangle {rect} is not inside {image.width}x{image.height}")
        steps = []
        for p, step in zip(self.passes, self.steps, strict=True):
            first, counts, rect = tiles_for_rect(p, image.level_size(p.base), rect)
            push, groups = self._launch(p, image, first, counts)
            steps.append(replace(step, label=f"{step.label} ({counts[0]}x{counts[1]} tiles)",
                                 push=push, groups=groups))
        self._record(cmd, steps, marks)

    def level_sources(self, width: int, height: int, layers: int = 1) -> list[LevelSource]:
        return [src for p in plan_passes(width, height, layers, int(self.opts["tail"]))[0]
                for src in self.pass_sources(p, width, height)]

    def pass_sources(self, p: SpPass, width: int, height: int) -> list[LevelSource]:
        """How pass ``p`` makes each of its levels. A pass starts from the image (the first) or
        the fp32 hand-off of the one before; the tail continues from the hand-off. fp16=on
        (spd_reduce.glsl, SP_T = f16vec4): a 2x2 box step is two half adds in depth (x0.25 is
        exact), plus the conversion of its inputs where they are fp32; step 1 from odd sides or
        a bilinear sample stays fp32, as does a tail made level by level."""
        fp16 = self.opts["fp16"] == "on"
        bilinear = self.opts["load"] == "bilinear"

        def phase(src_level: int, levels: int, reread: bool) -> list[LevelSource]:
            one = bilinear and reread and src_level == 0
            half = 3 if fp16 and not one and _even(level_size(width, height, src_level)) else 0
            out = [LevelSource(reread=reread, bilinear=one, half_ops=half)]
            for k in range(2, levels + 1):
                out.append(LevelSource(reread=False, half_ops=(2 if half or k > 2 else 3)
                                       if fp16 else 0))
            return out

        out = phase(p.base, p.tile_levels, p.src_offset < 0)
        if p.strip_levels:  # fp32 from the hand-off, as a level-by-level tail
            out += [LevelSource(reread=False)] * (p.strip_levels + p.tail_levels)
        elif p.tail_tiled:
            out += phase(p.base + p.tile_levels, p.tail_levels, False)
        else:
            out += [LevelSource(reread=False)] * p.tail_levels
        return out


def tiles_for_rect(p: SpPass, src_size: tuple[int, int],
                   rect: Rect) -> tuple[tuple[int, int], tuple[int, int], Rect]:
    """Workgroups of pass ``p`` whose outputs read ``rect`` (x, y, w, h on level ``p.base`` of
    size ``src_size``): (first group, group counts, the changed rectangle on the pass's last tile
    level, i.e. the next pass's source)."""
    first, counts, changed = [], [], []
    for lo, extent, n_src in ((rect[0], rect[2], src_size[0]), (rect[1], rect[3], src_size[1])):
        a, b = _affected(lo, lo + extent - 1, n_src)
        g0, g1 = a // TILE_OUT, b // TILE_OUT
        first.append(g0)
        counts.append(g1 - g0 + 1)
        s = p.tile_levels - 1
        changed.append((a >> s, (b >> s) - (a >> s) + 1))
    return ((first[0], first[1]), (counts[0], counts[1]),
            (changed[0][0], changed[1][0], changed[0][1], changed[1][1]))
