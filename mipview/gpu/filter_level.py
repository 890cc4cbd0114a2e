"""Per-level compute for any filter of mipview.filters (docs/filters.md): the host builds every
level's tap tables into one storage buffer (float32 weights, folded int indices) and records
two dispatches per level of shaders/filter_level.comp, x into a float32 row buffer, then y into
the level. Used by ``per-level`` when its filter options are not the default box.

GPU support: every filter, edge mode and source; straight or premultiplied alpha; colour or
normal-map kinds. Not (yet): ``alpha=coverage``, whose per-level alpha scale needs the level's
alpha distribution (a histogram pass) before the store.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mipview.filters.kernels import FILTER_NAMES
from mipview.filters.resample import EDGES, Taps, axis_taps
from mipview.filters.spec import ALPHAS, KINDS, SOURCES, FilterSpec, from_options
from mipview.formats import level_size, mip_count
from mipview.gpu.context import GpuContext
from mipview.gpu.pipelines import DescriptorSets, get_pipeline, get_sampler
from mipview.gpu.resources import Buffer, MipImage
from mipview.gpu.shaders import FILTER_LEVEL, mip_constants
from mipview.gpu.strategies.base import OptionSpec
from mipview.gpu.sync import memory_barrier
from mipview.gpu.vkapi import flag, vk
from mipview.results import DispatchStep

GROUP = 8
BINDINGS = ("sampled", "storage_image", "storage_buffer", "storage_buffer")
TAP = np.dtype([("index", "<i4"), ("weight", "<f4")])


def gpu_reason(spec: FilterSpec) -> str | None:
    """Why the GPU path cannot make ``spec``, or None."""
    if spec.alpha == "coverage":
        return ("alpha=coverage is not implemented on the GPU yet (its per-level alpha scale "
                "needs a histogram pass); the reference has it (docs/filters.md)")
    return None


@dataclass(frozen=True)
class LevelTables:
    """Level k's two tables and where they start in the packed buffer (in taps)."""

    level: int
    src: tuple[int, int]
    dst: tuple[int, int]
    x: Taps
    y: Taps
    offset_x: int
    offset_y: int


def plan_tables(spec: FilterSpec, width: int, height: int) -> list[LevelTables]:
    """Every level's tap tables, packed one after the other (x then y per level)."""
    out, offset = [], 0
    for k in range(1, mip_count(width, height)):
        src = (width, height) if spec.source == "level0" else level_size(width, height, k - 1)
        dst = level_size(width, height, k)
        x = axis_taps(src[0], dst[0], spec.kernel, spec.edge)
        y = axis_taps(src[1], dst[1], spec.kernel, spec.edge)
        out.append(LevelTables(k, src, dst, x, y, offset, offset + x.index.size))
        offset += x.index.size + y.index.size
    return out


def pack_tables(tables: list[LevelTables]) -> np.ndarray:
    """The storage buffer's contents: (index, float32 weight) pairs in table order."""
    parts = []
    for t in tables:
        for taps in (t.x, t.y):
            part = np.empty(taps.index.size, TAP)
            part["index"] = taps.index.reshape(-1)
            part["weight"] = taps.weight.reshape(-1)
            parts.append(part)
    return np.concatenate(parts) if parts else np.empty(0, TAP)


def plan_steps(tables: list[LevelTables], layers: int = 1) -> list[DispatchStep]:
    """Two dispatches per level: pipeline 0 (x) and 1 (y), descriptor set k - 1."""
    steps = []
    for t in tables:
        push = FILTER_LEVEL.pack(srcSize=t.src, dstSize=t.dst, tapsX=t.x.count,
                                 offsetX=t.offset_x, tapsY=t.y.count, offsetY=t.offset_y)
        gx = -(-t.dst[0] // GROUP)
        steps.append(DispatchStep(
            f"level {t.level} x", (), f"{t.x.count} taps per texel from {t.src[0]} columns",
            pipeline=0, descriptor_set=t.level - 1, push=push,
            groups=(gx, -(-t.src[1] // GROUP), layers)))
        steps.append(DispatchStep(
            f"level {t.level} y", (t.level,), f"{t.y.count} taps per texel from {t.src[1]} rows",
            pipeline=1, descriptor_set=t.level - 1, push=push,
            groups=(gx, -(-t.dst[1] // GROUP), layers)))
    return steps


def device_buffer(ctx: GpuContext, data: np.ndarray) -> Buffer:
    """A device-local storage buffer holding ``data`` (uploaded through a staging buffer)."""
    raw = np.ascontiguousarray(data).view(np.uint8).reshape(-1)
    size = max(16, raw.nbytes)
    buf = Buffer(ctx, size, flag("VK_BUFFER_USAGE_STORAGE_BUFFER_BIT")
                 | flag("VK_BUFFER_USAGE_TRANSFER_DST_BIT"))
    staging = Buffer(ctx, size, flag("VK_BUFFER_USAGE_TRANSFER_SRC_BIT"), host_visible=True)
    try:
        staging.write(raw)
        with ctx.one_shot() as cmd:
            vk.vkCmdCopyBuffer(cmd, staging.handle, buf.handle, 1,
                               [vk.VkBufferCopy(srcOffset=0, dstOffset=0, size=size)])
            memory_barrier(cmd, "TRANSFER", "TRANSFER_WRITE", "COMPUTE_SHADER", "SHADER_READ")
    except Exception:
        buf.destroy()
        raise
    finally:
        staging.destroy()
    return buf


@dataclass
class FilterResources:
    """What one prepared image needs: pipelines (x, y), one descriptor set per level, the tap
    buffer and the row buffer."""

    pipelines: list
    sets: DescriptorSets | None
    taps: Buffer
    rows: Buffer
    steps: tuple[DispatchStep, ...]


def prepare(ctx: GpuContext, image: MipImage, spec: FilterSpec) -> FilterResources:
    tables = plan_tables(spec, image.width, image.height)
    constants = {"local_size_x_id": GROUP, "local_size_y_id": GROUP,
                 "FL_PREMULTIPLIED": spec.alpha == "premultiplied",
                 "FL_NORMAL": spec.kind == "normal", **mip_constants(image.fmt)}
    pipelines = [get_pipeline(ctx, FILTER_LEVEL, BINDINGS, constants={**constants, "FL_PASS": p})
                 for p in (0, 1)]
    taps = device_buffer(ctx, pack_tables(tables))
    row_texels = max((t.src[1] * t.dst[0] for t in tables), default=1) * image.layers
    rows = Buffer(ctx, 16 * row_texels, flag("VK_BUFFER_USAGE_STORAGE_BUFFER_BIT"))
    sets = None
    if tables:
        sets = DescriptorSets(pipelines[0], len(tables))
        sampler = get_sampler(ctx, linear=False)
        views = image.source_views(False)
        for t in tables:
            src_view = views[0] if spec.source == "level0" else views[t.level - 1]
            sets.write(t.level - 1, [(src_view, sampler), image.storage_views[t.level],
                                     (taps.handle, 0, taps.size), (rows.handle, 0, rows.size)])
    return FilterResources(pipelines, sets, taps, rows,
                           tuple(plan_steps(tables, image.layers)))


def _field_problem(field: str) -> Callable[[str], str | None]:
    def check(value: str) -> str | None:
        try:
            from_options({field: value})
        except ValueError as exc:  # "kaiser-width must be in [1, 8] (got 20)" -> "must be ..."
            text = str(exc)
            return text[text.index("must"):] if "must" in text else text
        return None
    return check


#: the per-level strategy's filter options (docs/filters.md); their defaults are today's box
FILTER_OPTIONS = (
    OptionSpec("filter", FILTER_NAMES, "box", "the filter kernel (docs/filters.md)"),
    OptionSpec("edge", EDGES, "clamp", "taps past the edge: clamp, wrap (tiling), mirror"),
    OptionSpec("source", SOURCES, "previous",
               "each level from the stored level below (fast) or from level 0 (slow)"),
    OptionSpec("alpha", ALPHAS, "straight",
               "alpha filtered like colour, colour weighted by alpha, or coverage kept"),
    OptionSpec("kind", KINDS, "colour", "colour, or a normal map (renormalised per level)"),
    OptionSpec("kaiser-width", ("2", "3", "4"), "3", "Kaiser half-width in destination texels "
               "[1, 8]", _field_problem("kaiser-width")),
    OptionSpec("kaiser-alpha", ("2", "4", "8"), "4", "Kaiser window alpha [0, 20]",
               _field_problem("kaiser-alpha")),
    OptionSpec("cutoff", ("0.5",), "0.5", "alpha test cutoff of alpha=coverage, (0, 1)",
               _field_problem("cutoff")),
)


class FilterChoice:
    """For a Strategy whose options choose a filter (FILTER_OPTIONS or a subset): the spec they
    make, and the reference it is checked against (its name)."""

    @classmethod
    def filter_spec(cls, options: dict[str, str]) -> FilterSpec:
        return from_options(cls.check_options(options))  # type: ignore[attr-defined]

    @classmethod
    def reduction(cls, options: dict[str, str]) -> str:
        return cls.filter_spec(options).name
