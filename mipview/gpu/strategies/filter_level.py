"""Per-level compute for any filter of mipview.core.filters (docs/filters.md): the host builds every
level's tap tables into one storage buffer (float32 weights, folded int indices) and records
two dispatches per level of mipview/gpu/strategies/filter_level.comp, x into a float32 row buffer, then y into
the level. Used by ``per-level`` when its filter options are not the default box.

GPU support: every filter, edge mode, source, alpha mode and kind. ``edge=cube`` (a cube map or
cube array: 6 n square layers, docs/cube-maps.md) is the seamless chain: the x pass also filters
the ``pad`` rows past the top and bottom edges, and taps past a face's edge read the neighbouring
face through the adjacency table (:func:`adjacency_table`, from mipview.core.cube), the corner
blocks the mean of the three texels at the cube corner, as the float64 reference pads each face
(mipview.check.filter_reference.cube_filter). ``alpha=coverage`` adds
mipview/gpu/strategies/filter_coverage.comp: the y pass leaves the level unscaled in a float32 buffer (planar:
the histogram reads alpha alone), then a histogram whose last workgroup chooses the scale, and a
store pass per level (and one count of level 0's passing texels first) find and apply the
level's alpha scale inside the command buffer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mipview.core import cube
from mipview.core.filters import resample
from mipview.core.filters.kernels import FILTER_NAMES
from mipview.core.filters.resample import CUBE, EDGES, Taps, axis_taps
from mipview.core.filters.spec import (
    ALPHAS,
    KINDS,
    SOURCES,
    FilterSpec,
    from_options,
    idle_options,
)
from mipview.core.formats import Format, level_size, mip_count
from mipview.core.results import DispatchStep
from mipview.gpu.shaders.interface import ShaderInterface
from mipview.gpu.shaders.shipped import LOCAL_XY, MIP_COMMON, mip_constants
from mipview.gpu.strategies.base import OptionSpec
from mipview.gpu.vulkan.context import GpuContext
from mipview.gpu.vulkan.pipelines import DescriptorSets, get_pipeline, get_sampler
from mipview.gpu.vulkan.resources import Buffer, MipImage
from mipview.gpu.vulkan.sync import memory_barrier
from mipview.gpu.vulkan.vkapi import flag, vk

# the shaders of the filters, filter_level.comp and filter_coverage.comp: what the host passes them
FILTER_LEVEL = ShaderInterface(
    "filter_level",
    spec=(*LOCAL_XY, ("FL_PASS", 2, "int"), ("FL_PREMULTIPLIED", 3, "bool"),
          ("FL_NORMAL", 4, "bool"), ("FL_COVERAGE", 5, "bool"), ("FL_CUBE", 6, "bool"),
          *MIP_COMMON),
    push=(("srcSize", "ivec2"), ("dstSize", "ivec2"), ("tapsX", "int"), ("offsetX", "int"),
          ("tapsY", "int"), ("offsetY", "int"), ("pad", "int")))

FILTER_COVERAGE = ShaderInterface(
    "filter_coverage",
    spec=(*LOCAL_XY, ("FC_PASS", 2, "int"), ("FC_CUTOFF", 3, "float"),
          ("FC_ALPHA_TEST", 4, "float"), ("FC_SHARED_BINS", 5, "int"), *MIP_COMMON),
    push=(("srcSize", "ivec2"), ("dstSize", "ivec2"), ("level", "int"), ("layers", "int"),
          ("store", "int")))

GROUP = 8
#: taps, x-filtered rows, the unscaled level (alpha=coverage), the coverage histogram and scale
BINDINGS = ("sampled", "storage_image", *("storage_buffer",) * 4)
TAP = np.dtype([("index", "<i4"), ("weight", "<f4")])
#: mipview/gpu/strategies/filter_coverage.comp: invocations per workgroup of its histogram (HIST_GROUP; the
#: last workgroup to finish chooses the scale, SCAN_THREADS), texels per invocation per chunk of
#: the histogram (HIST_STEPS), at most this many histogram workgroups per layer (each zeroes and
#: merges 4096 bins once), count's and store's 16x16 workgroups and their texels per invocation
#: (COUNT_STEPS, STORE_STEPS, 16 rows apart), histogram bins; its buffer: the bins, then level
#: 0's passing count, the target fraction, the level's scale and the finished workgroups
COVERAGE_GROUP = 256
HISTOGRAM_STEPS = 16
HISTOGRAM_GROUPS = 256
TILE = 16
COUNT_STEPS = 16
STORE_STEPS = 4
COVERAGE_BINS = 4096
#: a level of at most this many texels (all layers) is one dispatch (histogram+store): each
#: dispatch costs microseconds on a GPU before it does anything, more than such a level's work
FUSED_TEXELS = 4096
COVERAGE_BYTES = 4 * (COVERAGE_BINS + 4)
#: pipelines of a coverage plan after x (0) and y (1): filter_coverage.comp's passes (FC_PASS
#: 0, 1, 2; the histogram's last workgroup chooses the scale)
COUNT, HISTOGRAM, STORE = 2, 3, 4


@dataclass(frozen=True)
class LevelTables:
    """Level k's two tables and where they start in the packed buffer (in taps). ``pad``
    (edge=cube): the rows the x pass makes past each of the face's top and bottom edges (the
    taps' reach, at most the side); its x table then holds unfolded indices in [-pad, n + pad)
    and its y table indices into the padded rows, [0, n + 2 pad)."""

    level: int
    src: tuple[int, int]
    dst: tuple[int, int]
    x: Taps
    y: Taps
    offset_x: int
    offset_y: int
    pad: int = 0


#: edge=cube: the tap buffer opens with the adjacency table (entries 0 ..), one per (face, edge) in
#: mipview.core.cube's orders (FACE_NAMES, EDGE_NAMES), its index
#: ``neighbour face | neighbour's edge << 3 | reversed << 5`` (cube_fold.glsl's cubeFold)
ADJACENCY_ENTRIES = cube.FACES * len(cube.EDGE_NAMES)


def adjacency_table() -> np.ndarray:
    """The adjacency of mipview.core.cube.ADJACENCY (derived from Vulkan's face selection table)
    as the shader reads it: ADJACENCY_ENTRIES ints, face-major."""
    edges = {e: i for i, e in enumerate(cube.EDGE_NAMES)}
    return np.array([g | edges[e2] << 3 | int(rev) << 5
                     for f in range(cube.FACES) for e in cube.EDGE_NAMES
                     for g, e2, rev in (cube.ADJACENCY[(f, e)],)], np.int32)


def cube_taps(n: int, d: int, spec: FilterSpec) -> tuple[Taps, Taps, int]:
    """edge=cube's tables of a face side ``n -> d``, as mipview.check.filter_reference.cube_filter
    applies them (resample.cube_taps: reach r at most n). The x table keeps face coordinates
    ([-r, n + r): the shader folds them across the edges), the y table is shifted by r (the x
    pass's padded rows). Returns (x, y, r)."""
    x, r = resample.cube_taps(n, d, spec.kernel)
    return x, Taps(x.index + np.int32(r), x.weight), r


def cube_reason(spec: FilterSpec, width: int, height: int, layers: int) -> str | None:
    """Why ``spec`` cannot make this image's chain, or None: edge=cube reads across the faces of
    a cube map, 6 n square layers (Vulkan's face order: mipview.core.cube)."""
    if spec.edge != CUBE or cube.is_cube_shape(layers, height, width):
        return None
    return (f"edge=cube needs a cube map: 6 n square faces as layers (this image is {width}x"
            f"{height} x {layers} layer{'s' if layers != 1 else ''}); use edge="
            f"{', '.join(EDGES[:-1])} or {EDGES[-1]}")


def plan_tables(spec: FilterSpec, width: int, height: int,
                levels: int | None = None) -> list[LevelTables]:
    """The tap tables of levels 1..levels (every level when None), packed one after the other
    (x then y per level), after the adjacency table for edge=cube."""
    out = []
    offset = ADJACENCY_ENTRIES if spec.edge == CUBE else 0
    last = mip_count(width, height) - 1
    for k in range(1, 1 + (last if levels is None else min(levels, last))):
        src = (width, height) if spec.source == "level0" else level_size(width, height, k - 1)
        dst = level_size(width, height, k)
        pad = 0
        if spec.edge == CUBE:  # square faces: one table serves both axes
            x, y, pad = cube_taps(src[0], dst[0], spec)
        else:
            x = axis_taps(src[0], dst[0], spec.kernel, spec.edge)
            y = axis_taps(src[1], dst[1], spec.kernel, spec.edge)
        out.append(LevelTables(k, src, dst, x, y, offset, offset + x.index.size, pad))
        offset += x.index.size + y.index.size
    return out


def pack_tables(tables: list[LevelTables], cubes: bool = False) -> np.ndarray:
    """The storage buffer's contents: (index, float32 weight) pairs in table order, after the
    adjacency table (weight 0) when ``cubes``."""
    parts = []
    if cubes:
        part = np.zeros(ADJACENCY_ENTRIES, TAP)
        part["index"] = adjacency_table()
        parts.append(part)
    for t in tables:
        for taps in (t.x, t.y):
            part = np.empty(taps.index.size, TAP)
            part["index"] = taps.index.reshape(-1)
            part["weight"] = taps.weight.reshape(-1)
            parts.append(part)
    return np.concatenate(parts) if parts else np.empty(0, TAP)


def _tile_groups(size: tuple[int, int], steps: int, layers: int) -> tuple[int, int, int]:
    """count's and store's grid: 16x16 invocations, each ``steps`` texels 16 rows apart."""
    return (-(-size[0] // TILE), -(-size[1] // (TILE * steps)), layers)


def _histogram_groups(size: tuple[int, int], layers: int) -> tuple[int, int, int]:
    chunks = -(-size[0] * size[1] // (COVERAGE_GROUP * HISTOGRAM_STEPS))
    return (min(chunks, HISTOGRAM_GROUPS), 1, layers)


def plan_steps(tables: list[LevelTables], layers: int = 1,
               coverage: bool = False) -> list[DispatchStep]:
    """Two dispatches per level: pipeline 0 (x) and 1 (y), descriptor set k - 1. ``coverage``:
    the y pass leaves the level in a buffer, and filter_coverage.comp's passes follow it (count
    once before level 1; histogram with the scale, and store per level; one dispatch for a
    level of at most FUSED_TEXELS texels, all layers together: the histogram's last workgroup
    stores it too)."""
    steps = []
    if coverage and tables:
        src = tables[0].src
        steps.append(DispatchStep(
            "level 0 coverage", (), "count level 0's texels passing the alpha test (the "
            "target coverage)", pipeline=COUNT, descriptor_set=0,
            push=_coverage_push(tables[0], layers),
            groups=_tile_groups(src, COUNT_STEPS, layers)))
    for t in tables:
        push = FILTER_LEVEL.pack(srcSize=t.src, dstSize=t.dst, tapsX=t.x.count,
                                 offsetX=t.offset_x, tapsY=t.y.count, offsetY=t.offset_y,
                                 pad=t.pad)
        gx = -(-t.dst[0] // GROUP)
        gy = -(-t.dst[1] // GROUP)
        across = (f" and {t.pad} rows past the top and bottom edges, across the face edges"
                  if t.pad else "")
        steps.append(DispatchStep(
            f"level {t.level} x", (),
            f"{t.x.count} taps per texel from {t.src[0]} columns{across}",
            pipeline=0, descriptor_set=t.level - 1, push=push,
            groups=(gx, -(-(t.src[1] + 2 * t.pad) // GROUP), layers)))
        steps.append(DispatchStep(
            f"level {t.level} y", () if coverage else (t.level,),
            f"{t.y.count} taps per texel from {t.src[1]} rows"
            + (", unscaled into a float32 buffer" if coverage else ""),
            pipeline=1, descriptor_set=t.level - 1, push=push, groups=(gx, gy, layers)))
        if not coverage:
            continue
        small = t.dst[0] * t.dst[1] * layers <= FUSED_TEXELS
        scale = (f"alpha into {COVERAGE_BINS} bins; the last workgroup chooses the alpha scale "
                 "that keeps level 0's coverage (widest gap near the target count)")
        steps.append(DispatchStep(
            f"level {t.level} histogram" + ("+store" if small else ""),
            (t.level,) if small else (), scale + ("; and stores the level" if small else ""),
            pipeline=HISTOGRAM, descriptor_set=t.level - 1, push=_coverage_push(t, layers, small),
            groups=_histogram_groups(t.dst, layers)))
        if small:
            continue
        cpush = _coverage_push(t, layers)
        steps.append(DispatchStep(
            f"level {t.level} store", (t.level,), "alpha times the scale, clamped; stored",
            pipeline=STORE, descriptor_set=t.level - 1, push=cpush,
            groups=_tile_groups(t.dst, STORE_STEPS, layers)))
    return steps


def _coverage_push(t: LevelTables, layers: int, store: bool = False) -> bytes:
    return FILTER_COVERAGE.pack(srcSize=t.src, dstSize=t.dst, level=t.level, layers=layers,
                                store=store)


def alpha_test(fmt: Format, cutoff: float) -> float:
    """filter_coverage.comp's FC_ALPHA_TEST: level 0's texel passes ``alpha >= cutoff`` (as
    check.filter_reference.coverage decides it in float64) iff its decoded alpha, times 255 for 8-bit
    formats (65535 for 16-bit), is >= this: the least passing code - 0.5 (UNORM), else the least
    float32 >= cutoff."""
    if not fmt.is_float:
        codes = np.arange(int(fmt.one) + 1) / fmt.one
        return float(np.flatnonzero(codes >= cutoff)[0]) - 0.5
    c = np.float32(cutoff)
    return float(c if float(c) >= cutoff else np.nextafter(c, np.float32(2.0)))


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
    """What one prepared image needs: pipelines (x, y, then alpha=coverage's count, histogram
    with the scale, store), one descriptor set per level, the tap buffer, the row buffer and
    alpha=coverage's two (16-byte stand-ins otherwise)."""

    pipelines: list
    sets: DescriptorSets | None
    taps: Buffer
    rows: Buffer
    texels: Buffer
    coverage: Buffer
    steps: tuple[DispatchStep, ...]


def _pipelines(ctx: GpuContext, spec: FilterSpec, fmt: Format) -> list:
    covered = spec.alpha == "coverage"
    common = mip_constants(fmt)
    constants = {"local_size_x_id": GROUP, "local_size_y_id": GROUP,
                 "FL_PREMULTIPLIED": spec.alpha == "premultiplied",
                 "FL_NORMAL": spec.kind == "normal", "FL_COVERAGE": covered,
                 "FL_CUBE": spec.edge == CUBE, **common}
    out = [get_pipeline(ctx, FILTER_LEVEL, BINDINGS, constants={**constants, "FL_PASS": p})
           for p in (0, 1)]
    if covered:
        test = {"FC_CUTOFF": spec.cutoff, "FC_ALPHA_TEST": alpha_test(fmt, spec.cutoff),
                **common}
        for p in range(3):
            local = (COVERAGE_GROUP, 1) if p == 1 else (TILE, TILE)
            out.append(get_pipeline(ctx, FILTER_COVERAGE, BINDINGS, constants={
                "local_size_x_id": local[0], "local_size_y_id": local[1], "FC_PASS": p,
                "FC_SHARED_BINS": COVERAGE_BINS if p == 1 else 1, **test}))
    return out


def prepare(ctx: GpuContext, image: MipImage, spec: FilterSpec,
            levels: int | None = None) -> FilterResources:
    """``levels``: levels 1..levels only (filter-pairs' lead), every level when None. Raises
    ValueError for edge=cube on an image that is no cube map (:func:`cube_reason`)."""
    reason = cube_reason(spec, image.width, image.height, image.layers)
    if reason:
        raise ValueError(reason)
    tables = plan_tables(spec, image.width, image.height, levels)
    covered = spec.alpha == "coverage"
    pipelines = _pipelines(ctx, spec, image.fmt)
    usage = flag("VK_BUFFER_USAGE_STORAGE_BUFFER_BIT")
    taps = device_buffer(ctx, pack_tables(tables, spec.edge == CUBE))
    row_texels = max(((t.src[1] + 2 * t.pad) * t.dst[0] for t in tables),
                     default=1) * image.layers
    rows = Buffer(ctx, 16 * row_texels, usage)
    level_texels = max((t.dst[0] * t.dst[1] for t in tables), default=1) * image.layers
    texels = Buffer(ctx, 16 * level_texels if covered else 16, usage)
    # zeroed once: the scale zeroes the histogram, level 0's count and the finished
    # workgroups' count again after use
    coverage = device_buffer(ctx, np.zeros(COVERAGE_BYTES // 4 if covered else 4, np.uint32))
    sets = None
    if tables:
        sets = DescriptorSets(pipelines[0], len(tables))
        sampler = get_sampler(ctx, linear=False)
        views = image.source_views(False)
        for t in tables:
            src_view = views[0] if spec.source == "level0" else views[t.level - 1]
            sets.write(t.level - 1, [(src_view, sampler), image.storage_views[t.level],
                                     *((b.handle, 0, b.size) for b in (taps, rows, texels,
                                                                       coverage))])
    return FilterResources(pipelines, sets, taps, rows, texels, coverage,
                           tuple(plan_steps(tables, image.layers, covered)))


def _field_problem(field: str) -> Callable[[str], str | None]:
    def check(value: str) -> str | None:
        try:
            from_options({field: value})
        except ValueError as exc:  # "kaiser-width must be in [1, 8] (got 20)" -> "must be ..."
            text = str(exc)
            return text[text.index("must"):] if "must" in text else text
        return None
    return check


def _edge_problem(value: str) -> str | None:
    # offered (GUI, ``edge=all``): the per-axis modes, which serve every image; accepted: cube too
    # (cube maps only: cube_reason)
    if value in (*EDGES, CUBE):
        return None
    return f"must be one of {', '.join((*EDGES, CUBE))} (got {value!r})"


#: the per-level strategy's filter options (docs/filters.md); their defaults are today's box
FILTER_OPTIONS = (
    OptionSpec("filter", FILTER_NAMES, "box", "the filter kernel (docs/filters.md)"),
    OptionSpec("edge", EDGES, "clamp", "taps past the edge: clamp, wrap (tiling), mirror; cube: "
               "a cube map's faces read across their edges (6 n square layers)", _edge_problem),
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

    @classmethod
    def idle_options(cls, options: dict[str, str]) -> dict[str, str]:
        return idle_options(options)
