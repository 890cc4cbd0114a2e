"""``volume-tiles``: several exact levels of a volume per dispatch, through shared memory
(volume_tiles.comp beside this file; npot-exact's general path in 3D).

A group owns a tile of the dispatch's last level and computes, level by level, the regions
below it that the tile needs: twice the region above, plus one texel on an odd side, whose third
tap reaches into the neighbour's region (the group recomputes those texels rather than waiting
for the neighbour). The levels in between stay floats in shared memory, so only the first level
of a dispatch reads a stored one: the ``carried`` promise.

The plan (:func:`plan_steps`): four levels in many groups while every side is even (a group
makes one texel of the fourth from 16^3 texels: a level-1 region of 8^3, no overlap), two where
one is odd (4^3 tiles of the second level, 9^3 regions below: 1.4 times the texels owned; 2^3
tiles of a third level would recompute 2.6 times as many), one where that odd level is large
(:data:`ODD_ONE_LEVEL_TEXELS`), and, where the rest of the chain
fits one group's shared memory, one group making it: the last group of the dispatch before,
after an atomic hand-off (handoff.glsl, as npot-exact's tail), where that level is small
(:data:`HAND_OFF_TEXELS`), else a dispatch of its own. 256^3 is two dispatches against
volume-per-level's eight, 128^3 one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from mipview.core import reductions
from mipview.core.formats import Format
from mipview.core.results import DispatchStep, LevelSource
from mipview.core.volume import volume_level_size, volume_mip_count
from mipview.gpu.shaders.interface import ShaderInterface
from mipview.gpu.shaders.shipped import MIP_COMMON, mip_constants
from mipview.gpu.strategies import handoff
from mipview.gpu.strategies.base import group_count
from mipview.gpu.strategies.sampler_minmax import minmax_filterable
from mipview.gpu.strategies.volume_base import VolumeStrategy
from mipview.gpu.strategies.volume_per_level import VolumePerLevel
from mipview.gpu.vulkan.context import DeviceCaps, GpuContext
from mipview.gpu.vulkan.pipelines import DescriptorSets, get_pipeline, get_sampler
from mipview.gpu.vulkan.resources import Buffer
from mipview.gpu.vulkan.vkapi import flag
from mipview.gpu.vulkan.volume_image import VolumeImage

VOLUME_TILES = ShaderInterface(
    "volume_tiles",
    spec=(("local_size_x_id", 0, "uint"), ("VT_LEVELS", 1, "int"), ("VT_REDUCTION", 2, "int"),
          ("VT_A_SIDE", 3, "int"), ("VT_B_SIDE", 4, "int"), ("VT_ROUND_HALF", 5, "bool"),
          ("VT_EVEN", 6, "bool"), ("VT_ITERS", 7, "int"), ("VT_TAIL", 8, "int"),
          ("VT_TAIL_EVEN", 9, "bool"), ("VT_SAMPLED", 15, "bool"),
          *MIP_COMMON),
    push=(("srcSize", "ivec3"), ("tile", "int"), ("groups", "int")))

#: levels of a dispatch of many groups -> the side of a group's tile at its last level
TILES = {1: 6, 2: 4, 4: 1}
#: the sides of the shared regions a pipeline may hold: odd levels of a dispatch in vtA_, even
#: ones in vtB_ (vec4 each)
A_MAX, B_MAX = 11, 8
SHARED_BYTES = 16 * (A_MAX ** 3 + B_MAX ** 3)
#: levels one dispatch writes at most (its storage bindings, VT_MAX_LEVELS)
MAX_LEVELS = 8
THREADS = 256
#: CPU devices: the shader unrolls its texel loop to ceil(region / threads) copies of a 27-tap
#: reduction, and lavapipe compiles each copy; 1024 invocations keep that at 2
CPU_THREADS = 1024
BINDINGS = ("sampled",) + ("storage_image",) * MAX_LEVELS + ("storage_buffer",) * 2


@dataclass(frozen=True)
class TileStep:
    """One dispatch: levels ``src + 1 .. src + levels`` from the stored level ``src`` in
    ``groups`` tiles of ``tile``^3 texels of the last; then, with ``tail``, levels ``src + levels
    + 1 ..`` by its last group. ``even``: every level the groups read has even sides (2 taps per
    axis: no overlap between tiles)."""

    src: int
    levels: int
    tile: int
    groups: tuple[int, int, int]
    even: bool = False
    tail: int = 0
    tail_even: bool = False

    @property
    def outputs(self) -> tuple[int, ...]:
        return tuple(range(self.src + 1, self.src + self.levels + self.tail + 1))


def _regions(sizes: list[tuple[int, int, int]], first: int, last: int,
             tile: int) -> list[tuple[int, ...]]:
    """The largest region a group computes at levels first .. last of ``sizes`` for a tile of
    ``tile``^3 texels of the last; mirrors the lo/hi walk of volume_tiles.comp."""
    region = tuple(min(tile, s) for s in sizes[last])
    out = [region]
    for j in range(last - 1, first - 1, -1):
        region = tuple(min(s, 2 * r + (s & 1)) for s, r in zip(sizes[j], region, strict=True))
        out.append(region)
    return out[::-1]


def region_sides(size: tuple[int, int, int], step: TileStep) -> list[list[tuple[int, ...]]]:
    """The regions of each part of ``step`` (the groups', then the tail's), first level first."""
    w, h, d = size
    sizes = [volume_level_size(w, h, d, step.src + j)
             for j in range(step.levels + step.tail + 1)]
    parts = [_regions(sizes, 1, step.levels, step.tile)]
    if step.tail:
        top = sizes[-1]
        parts.append(_regions(sizes, step.levels + 1, step.levels + step.tail, max(top)))
    return parts


def shared_sides(width: int, height: int, depth: int, step: TileStep) -> tuple[int, int]:
    """The sides of the shared regions a group of ``step`` holds (1 where it holds none): the
    largest region of its odd levels (vtA_), of its even ones (vtB_); each part's last level
    goes to the image only."""
    a, b, j0 = [1], [1], 1
    for regions in region_sides((width, height, depth), step):
        for j, region in enumerate(regions[:-1], start=j0):
            (a if j % 2 else b).append(max(region))
        j0 += len(regions)
    return max(a), max(b)


def loop_count(width: int, height: int, depth: int, step: TileStep, threads: int) -> int:
    """Texels an invocation makes of a level at most: the largest region over the group."""
    return max(-(-(r[0] * r[1] * r[2]) // threads)
               for regions in region_sides((width, height, depth), step) for r in regions)


def _fits(width: int, height: int, depth: int, step: TileStep) -> bool:
    a_side, b_side = shared_sides(width, height, depth, step)
    return step.levels + step.tail <= MAX_LEVELS and a_side <= A_MAX and b_side <= B_MAX


def _even(sizes: list[tuple[int, int, int]]) -> bool:
    return all(side % 2 == 0 for size in sizes for side in size)


#: an odd level larger than this is reduced one level a dispatch: overlapping tiles recompute
#: 1.4 times the texels they own of the level below, 27 loads each, and on an H100 two levels of
#: 255^3 so took 112 us against volume-per-level's 80 (docs/bench/volume)
ODD_ONE_LEVEL_TEXELS = 64 ** 3
#: the rest of the chain by the last group of the dispatch before it where that dispatch's last
#: level has at most this many texels (and the rest fits), else by a dispatch of one group. On an
#: H100 (docs/bench/volume/ab.sh) the hand-off made 128^3 13.0 us against 14.1, but 256^3 (the
#: last group reading 16^3 texels, after 4096 arrivals) 56.3 against 38.0
HAND_OFF_TEXELS = 512


def plan_steps(width: int, height: int, depth: int) -> list[TileStep]:
    """The dispatches, from level 0 to the last (see the module docstring)."""
    n = volume_mip_count(width, height, depth)
    sizes = [volume_level_size(width, height, depth, k) for k in range(n)]
    steps: list[TileStep] = []
    src = 0
    while src < n - 1:
        remaining = n - 1 - src
        lone = TileStep(src, remaining, max(sizes[-1]), (1, 1, 1), _even(sizes[src:n - 1]))
        if _fits(width, height, depth, lone):
            handed = bool(steps) and _texels(sizes[src]) <= HAND_OFF_TEXELS
            merged = replace(steps[-1], tail=remaining, tail_even=lone.even) if handed else None
            if merged is not None and _fits(width, height, depth, merged):
                steps[-1] = merged  # its last group makes them: one dispatch less
            else:
                steps.append(lone)
            break
        if remaining >= 4 and _even(sizes[src:src + 4]):
            levels = 4
        elif _texels(sizes[src]) > ODD_ONE_LEVEL_TEXELS:
            levels = 1  # no overlap: a large odd level is read once, as volume-per-level does
        else:
            levels = min(2, remaining)
        tile = TILES[levels]
        step = TileStep(src, levels, tile,
                        tuple(group_count(s, tile) for s in sizes[src + levels]),  # type: ignore[arg-type]
                        _even(sizes[src:src + levels]))
        if not _fits(width, height, depth, step):  # a planning bug, never a user error
            raise AssertionError(f"volume-tiles: {step} overflows shared memory")
        steps.append(step)
        src += levels
    return steps


def _threads(caps: DeviceCaps) -> int:
    if caps.device_type == "cpu" and caps.max_workgroup_invocations >= CPU_THREADS:
        return CPU_THREADS
    return THREADS


class VolumeTiles(VolumeStrategy):
    name = "volume-tiles"
    title = "Tiles, several levels per dispatch (3D)"
    promise = "carried"
    #: trilinear: the mean's level 1 of an even dispatch from level 0 by one linear sample of
    #: each 2x2x2 block (:meth:`samples`)
    LOADS = ("texel", "trilinear")

    def __init__(self, ctx: GpuContext, reduction: str = "mean", load: str = "texel") -> None:
        super().__init__(ctx, reduction, load)
        self.counters: Buffer | None = None
        self.hand: Buffer | None = None
        #: makes the dispatches of one level (volume-per-level's kernel: a tile of one level
        #: holds nothing in shared memory, and on an H100 it ran 255^3's level 1 in 96.6 us
        #: where volume-per-level took 66.8); its pipelines and sets come first
        self.single = VolumePerLevel(ctx, reduction)
        self._sets: list[Any] = []

    @classmethod
    def unsupported_reason(cls, caps: DeviceCaps, fmt: Format, reduction: str = "mean",
                           load: str = "texel") -> str | None:
        reason = handoff.group_reason(caps, SHARED_BYTES, THREADS)
        if reason:
            return reason
        if load == "trilinear" and fmt.is_srgb:
            return ("load=trilinear: sRGB volumes are read through UNORM views, whose samples "
                    "would average the codes, not the light (load=texel decodes them exactly)")
        if load == "trilinear" and not _filters_linearly(caps, fmt):
            return f"load=trilinear: {fmt.label} images cannot be filtered linearly here"
        return super().unsupported_reason(caps, fmt, reduction, load)

    def prepare(self, image: VolumeImage) -> None:
        size = (image.width, image.height, image.depth)
        planned = plan_steps(*size)
        singles = {s.src for s in planned if not _by_tiles(s)}
        if singles:
            self.single.prepare(image)  # every level's set: a few, and cheap
        self.pipelines = list(self.single.pipelines)
        self._sets = list(self.single.descriptor_sets()) if singles else []
        first_set = len(self._sets)
        planned_tiles = [s for s in planned if s.src not in singles]
        threads = _threads(self.ctx.caps)
        sampled = self.samples(image.fmt)
        # one pipeline per kind of dispatch: the regions size the shared arrays and the
        # unrolled texel loop, so an even dispatch holds 8^3, not an odd one's 11^3
        by_kind: dict[tuple[int, ...], int] = {}
        kinds = []
        for step in planned_tiles:
            kind = (step.levels, step.tail, int(step.even), int(step.tail_even),
                    *shared_sides(*size, step), loop_count(*size, step, threads))
            kinds.append(kind)
            if kind not in by_kind:
                by_kind[kind] = len(self.pipelines)
                self.pipelines.append(get_pipeline(
                    self.ctx, VOLUME_TILES, BINDINGS,
                    constants={"local_size_x_id": threads, "VT_LEVELS": step.levels,
                               "VT_TAIL": step.tail, "VT_EVEN": step.even,
                               "VT_TAIL_EVEN": step.tail_even,
                               "VT_REDUCTION": reductions.CODES[self.reduction],
                               "VT_A_SIDE": kind[4], "VT_B_SIDE": kind[5], "VT_ITERS": kind[6],
                               "VT_ROUND_HALF": image.fmt.element is Format.F16,
                               "VT_SAMPLED": sampled,
                               **mip_constants(image.fmt)}))
        # the hand-off: the groups' last level, fp32 vec4 (a buffer of one where none hands off)
        hand = max((_texels(image.level_size(s.src + s.levels)) for s in planned if s.tail),
                   default=1)
        self.counters = handoff.counters(self.ctx, 1)
        self.hand = Buffer(self.ctx, 16 * hand, flag("VK_BUFFER_USAGE_STORAGE_BUFFER_BIT"))
        if planned_tiles:
            self.sets = DescriptorSets(self.pipelines[len(self.single.pipelines)],
                                       len(planned_tiles))
            self._sets += self.sets.sets
        sampler = get_sampler(self.ctx, linear=sampled,
                              reduction=self.reduction if sampled and self.reduction != "mean"
                              else None)
        tile_steps = []
        for i, step in enumerate(planned_tiles):
            outs = list(step.outputs)
            outs += [outs[-1]] * (MAX_LEVELS - len(outs))  # unused: alias a level it writes
            self.sets.write(i, [(image.sampled_views[step.src], sampler)]
                            + [image.storage_views[level] for level in outs]
                            + [(self.counters.handle, 0, self.counters.size),
                               (self.hand.handle, 0, self.hand.size)])
            first, last = step.outputs[0], step.outputs[-1]
            label = f"level {first}" if first == last else f"levels {first}-{last}"
            groups = step.groups[0] * step.groups[1] * step.groups[2]
            detail = (f"{'x'.join(map(str, step.groups))} groups, {step.tile}^3 tiles of level "
                      f"{step.src + step.levels}")
            if sampled and step.even and step.src == 0:
                kind = "trilinear" if self.reduction == "mean" else self.reduction
                detail += f", level 1 from {kind} samples of 2x2x2 blocks"
            if step.tail:
                detail += f", levels {step.src + step.levels + 1}-{last} by the last group"
            tile_steps.append(DispatchStep(
                label, step.outputs, detail, pipeline=by_kind[kinds[i]],
                descriptor_set=first_set + i,
                push=VOLUME_TILES.pack(srcSize=image.level_size(step.src), tile=step.tile,
                                       groups=groups),
                groups=step.groups))
        # the plan in order: volume-per-level's step of each single level (its step k-1 makes
        # level k), the tiles' steps between
        made = iter(tile_steps)
        self.steps = tuple(self.single.steps[s.src] if s.src in singles else next(made)
                           for s in planned)

    def samples(self, fmt: Format) -> bool:
        """Whether the first dispatch, where it is even, reads level 0 by one sample of each
        2x2x2 block at its centre, one texture instruction where texel loads take eight:
        - min and max, always where the device can: a min or max reduction sampler
          (samplerFilterMinmax) returns the block's extreme exactly. On an H100 that made 256^3
          R8 min 27.4 us against 35.2 (docs/bench/volume);
        - the mean with ``load=trilinear`` only: a linear sample's three filter stages may each
          round to the format (lavapipe: 1.5 LSB off the mean), a bound of its own
          (``level_sources``). 256^3 R8: 29.0 us against 38.0 on the H100."""
        if self.reduction == "mean":
            return self.load == "trilinear"
        # (a reduction sampler filters LINEAR: validation layers before Vulkan 1.3.2xx, lavapipe's
        # among them, want the format to allow linear filtering too)
        caps = self.ctx.caps
        return self.reduction in ("min", "max") and minmax_filterable(caps, fmt) \
            and _filters_linearly(caps, fmt)

    def descriptor_sets(self) -> Sequence[Any]:
        return self._sets  # volume-per-level's sets, then the tiles'

    def release(self) -> None:
        for buf in (self.counters, self.hand):
            if buf is not None:
                buf.destroy()
        self.counters = self.hand = None
        self.single.release()
        self._sets = []
        super().release()

    def level_sources(self, width: int, height: int, depth: int) -> list[LevelSource]:
        out: list[LevelSource] = []
        trilinear = self.reduction == "mean" and self.load == "trilinear"
        for step in plan_steps(width, height, depth):  # the tail reads floats, not a stored level
            sampled = trilinear and step.src == 0 and step.even and _by_tiles(step)
            out += [LevelSource(reread=level == step.outputs[0], axes=3,
                                bilinear=sampled and level == 1)
                    for level in step.outputs]
        return out


def _filters_linearly(caps: DeviceCaps, fmt: Format) -> bool:
    """Whether the view volume-tiles samples level 0 through (sRGB: UNORM) filters linearly."""
    return caps.supports(Format.UNORM if fmt.is_srgb else fmt,
                         flag("VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT"))


def _by_tiles(step: TileStep) -> bool:
    """Whether volume_tiles.comp makes ``step`` (a single level without a tail is made by
    volume-per-level's dispatch)."""
    return step.levels > 1 or step.tail > 0


def _texels(size: tuple[int, int, int]) -> int:
    return size[0] * size[1] * size[2]
