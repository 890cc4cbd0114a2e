"""``volume-tiles``: up to three exact levels of a volume per dispatch, through shared memory
(volume_tiles.comp beside this file; npot-exact's general path in 3D).

A group owns a tile of the dispatch's last level and computes, level by level, the regions
below it that the tile needs: twice the region above, plus one texel on an odd side, whose three
taps reach into the neighbour's region (the group recomputes those texels rather than waiting
for the neighbour). The levels in between stay floats in shared memory, so only the first level
of a dispatch reads a stored one: the ``carried`` promise. Tiles: 2^3 texels of the third level
(regions of 5^3 and 11^3 below it), 4^3 of the second (9^3), 6^3 of a lone last level.
"""

from __future__ import annotations

from dataclasses import dataclass

from mipview.core import reductions
from mipview.core.formats import Format
from mipview.core.results import DispatchStep, LevelSource
from mipview.core.volume import volume_level_size, volume_mip_count
from mipview.gpu.shaders.interface import ShaderInterface
from mipview.gpu.shaders.shipped import MIP_COMMON, mip_constants
from mipview.gpu.strategies.base import group_count
from mipview.gpu.strategies.volume_base import VolumeStrategy
from mipview.gpu.vulkan.context import DeviceCaps
from mipview.gpu.vulkan.pipelines import DescriptorSets, get_pipeline, get_sampler
from mipview.gpu.vulkan.volume_image import VolumeImage

VOLUME_TILES = ShaderInterface(
    "volume_tiles",
    spec=(("local_size_x_id", 0, "uint"), ("VT_LEVELS", 1, "int"), ("VT_REDUCTION", 2, "int"),
          ("VT_A_SIDE", 3, "int"), ("VT_B_SIDE", 4, "int"), ("VT_ROUND_HALF", 5, "bool"),
          *MIP_COMMON),
    push=(("srcSize", "ivec3"), ("tile", "int")))

MAX_LEVELS = 3
#: levels of a dispatch -> (tile side at its last level, side of the region of its first level
#: in shared memory, of its second): the tile is the largest whose regions fit, every side odd
TILES = {1: (6, 1, 1), 2: (4, 9, 1), 3: (2, 11, 5)}
THREADS = 256
#: the largest pipeline's two regions, vec4 each
SHARED_BYTES = 16 * max(a ** 3 + b ** 3 for _, a, b in TILES.values())
#: CPU devices: the shader unrolls its texel loop to ceil(region / threads) copies of a 27-tap
#: reduction, and lavapipe compiles each copy; 1024 invocations keep that at 2
CPU_THREADS = 1024
BINDINGS = ("sampled",) + ("storage_image",) * MAX_LEVELS


@dataclass(frozen=True)
class TileStep:
    """One dispatch: levels ``src + 1 .. src + levels`` from the stored level ``src``."""

    src: int
    levels: int
    tile: int
    groups: tuple[int, int, int]

    @property
    def outputs(self) -> tuple[int, ...]:
        return tuple(range(self.src + 1, self.src + self.levels + 1))


def region_sides(size: tuple[int, int, int], step: TileStep) -> list[tuple[int, ...]]:
    """The largest region a group computes at each level of ``step`` (first level first); mirrors
    the lo/hi walk of volume_tiles.comp."""
    w, h, d = size
    sizes = [volume_level_size(w, h, d, step.src + j) for j in range(step.levels + 1)]
    region = tuple(min(step.tile, s) for s in sizes[-1])
    out = [region]
    for j in range(step.levels - 1, 0, -1):
        region = tuple(min(s, 2 * r + (s & 1)) for s, r in zip(sizes[j], region, strict=True))
        out.append(region)
    return out[::-1]


def plan_steps(width: int, height: int, depth: int) -> list[TileStep]:
    """Dispatches of up to three levels each, from level 0 to the last."""
    n = volume_mip_count(width, height, depth)
    steps, src = [], 0
    while src < n - 1:
        levels = min(MAX_LEVELS, n - 1 - src)
        tile = TILES[levels][0]
        last = volume_level_size(width, height, depth, src + levels)
        step = TileStep(src, levels, tile, tuple(group_count(s, tile) for s in last))  # type: ignore[arg-type]
        a_side, b_side = TILES[levels][1:]
        for j, region in enumerate(region_sides((width, height, depth), step), start=1):
            side = a_side if j % 2 else b_side
            if j < levels and max(region) > side:  # a planning bug, never a user error
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
    title = "Tiles, up to 3 levels per dispatch (3D)"
    promise = "carried"

    @classmethod
    def unsupported_reason(cls, caps: DeviceCaps, fmt: Format,
                           reduction: str = "mean") -> str | None:
        if caps.max_shared_memory < SHARED_BYTES:
            return f"needs {SHARED_BYTES} B of shared memory, device has {caps.max_shared_memory}"
        if caps.max_workgroup_invocations < THREADS:
            return f"needs {THREADS}-invocation work groups"
        return super().unsupported_reason(caps, fmt, reduction)

    def prepare(self, image: VolumeImage) -> None:
        planned = plan_steps(image.width, image.height, image.depth)
        by_levels: dict[int, int] = {}
        for step in planned:
            if step.levels not in by_levels:
                _, a_side, b_side = TILES[step.levels]
                by_levels[step.levels] = len(self.pipelines)
                self.pipelines.append(get_pipeline(
                    self.ctx, VOLUME_TILES, BINDINGS,
                    constants={"local_size_x_id": _threads(self.ctx.caps),
                               "VT_LEVELS": step.levels,
                               "VT_REDUCTION": reductions.CODES[self.reduction],
                               "VT_A_SIDE": a_side, "VT_B_SIDE": b_side,
                               "VT_ROUND_HALF": image.fmt.element is Format.F16,
                               **mip_constants(image.fmt)}))
        self.sets = DescriptorSets(self.pipelines[0], max(len(planned), 1))
        sampler = get_sampler(self.ctx)
        steps = []
        for i, step in enumerate(planned):
            outs = list(step.outputs)
            outs += [outs[-1]] * (MAX_LEVELS - len(outs))  # unused: alias a level it writes
            self.sets.write(i, [(image.sampled_views[step.src], sampler)]
                            + [image.storage_views[level] for level in outs])
            first, last = step.outputs[0], step.outputs[-1]
            label = f"level {first}" if first == last else f"levels {first}-{last}"
            steps.append(DispatchStep(
                label, step.outputs,
                f"{'x'.join(map(str, step.groups))} groups, {step.tile}^3 tiles of level {last}",
                pipeline=by_levels[step.levels], descriptor_set=i,
                push=VOLUME_TILES.pack(srcSize=image.level_size(step.src), tile=step.tile),
                groups=step.groups))
        self.steps = tuple(steps)

    def level_sources(self, width: int, height: int, depth: int) -> list[LevelSource]:
        out: list[LevelSource] = []
        for step in plan_steps(width, height, depth):
            out += [LevelSource(reread=level == step.outputs[0], axes=3)
                    for level in step.outputs]
        return out
