"""``filter-pairs``: short filters (docs/filters.md), two levels per dispatch.

Each workgroup makes a window of level k from level k-1 (its own 16x16 texels and the halo its
8x8 tile of level k+1 taps) in shared memory, stores its own 16x16, and after a barrier makes
the 8x8 of level k+1 from shared memory: half the dispatches and barriers of per-level's two per
level, and level k is never read back. The halo is computed by both neighbours, so only kernels
whose window fits MAX_SPAN texels per side are offered: box, tent, Kaiser up to width 2,
Lanczos-2 and the cubics. Level k is separable through shared memory (x into rows, then y), in
bands of window rows so that the rows fit ``SHARED_BUDGET``: ``row_windows`` gives each band the
circular range of source rows its y taps reach. The sums are the 2D tap sum's, in the same order,
so each texel is per-level's bit for bit. A chain with an odd number of levels ends with a lone
level (``pair`` 0). Level k+1 filters level k as stored (its codes decoded again), so the promise
is per-level's ``stored``. float16 runs one level per dispatch (the same shader, ``pair`` 0): a
device may round its float16 stores either way (lavapipe truncates), which the shared copy
cannot know, and the plan says so. Shader: mipview/gpu/strategies/filter_pairs.comp.

``edge=cube`` (a cube map or cube array, 6 n square layers: docs/cube-maps.md) makes the seamless
chain, per-level's bit for bit where a device rounds alike: the tables hold face coordinates
(filter_level.cube_taps), the x pass reads past the face's edges from its neighbours and its
corner blocks as the mean of the three corner texels (filter_level.adjacency_table, first in the
tap buffer); a window texel of level k past one edge of the face (the halo level k+1 taps there)
is made where it lies, on the neighbouring face, tap by tap in per-level's order, and one past two
edges is the mean of the three level-k texels at that cube corner, as the reference pads level k.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from mipview.core.filters.kernels import KAISER_ALPHA_RANGE
from mipview.core.filters.resample import CUBE, EDGES, Taps, axis_taps, fold
from mipview.core.filters.spec import FilterSpec, format_reason
from mipview.core.formats import Format, level_size, mip_count
from mipview.core.results import DispatchStep
from mipview.gpu.shaders.interface import ShaderInterface
from mipview.gpu.shaders.shipped import MIP_COMMON, mip_constants
from mipview.gpu.strategies import filter_level
from mipview.gpu.strategies.base import OptionSpec, Strategy, compute_reason
from mipview.gpu.strategies.filter_level import (
    ADJACENCY_ENTRIES,
    FILTER_OPTIONS,
    TAP,
    FilterChoice,
    adjacency_table,
    cube_reason,
    cube_taps,
    device_buffer,
)
from mipview.gpu.vulkan.context import DeviceCaps
from mipview.gpu.vulkan.pipelines import DescriptorSets, get_pipeline, get_sampler
from mipview.gpu.vulkan.resources import MipImage

# this strategy's shader, filter_pairs.comp: what the host passes it
FILTER_PAIRS = ShaderInterface(
    "filter_pairs",
    spec=(("FP_EDGE", 0, "int"), ("FP_SPAN", 1, "int"), ("FP_ROWS", 2, "int"),
          ("FP_BAND", 3, "int"), ("FP_TAPS", 4, "int"), ("FP_CUBE", 5, "bool"),
          ("FP_CUBE_BATCH", 6, "bool"), *MIP_COMMON),
    push=(("srcSize", "ivec2"), ("midSize", "ivec2"), ("dstSize", "ivec2"), ("tapsMid", "ivec2"),
          ("offsetMid", "ivec2"), ("tapsDst", "ivec2"), ("offsetDst", "ivec2"), ("pair", "int"),
          ("span", "int"), ("rows", "int"), ("bands", "int"), ("rowTable", "int"),
          ("tileOrigin", "ivec2"), ("tileTable", "int")))

SHORT_FILTERS = ("tent", "box", "kaiser", "lanczos2", "mitchell", "catmull-rom")
MAX_SPAN = 32  # window side: fpMid's 32 x 32 vec4 = 16 KiB; level k+1's x pass: 32 x 8 lanes
TILE = 16      # level-k texels per workgroup side (level k+1: 8)
#: shared memory a workgroup may take (less where the device has less): lavapipe's limit, and
#: on a GPU several 256-invocation groups per multiprocessor keep their fetches in flight
SHARED_BUDGET = 32768
#: a pair's source level at most this many texels times taps per axis; larger levels are made
#: by per-level's two passes (the lead). On the H200 at 4096^2 (docs/bench/filters,
#: the lead's A/B) a pair wins where its source is small (tent levels 3-4 from 1024^2: 19.0 us
#: against per-level's 28.6; Kaiser-2 levels 5-6 from 256^2: 9.2 against 21.4) and loses where
#: it is large (tent levels 1-2: 243 against 175; Kaiser-2 levels 3-4 from 1024^2: 51 against
#: 34): its workgroups hold 93 (tent) to 217 (Kaiser) registers and wait on their tap tables
#: and barriers, two workgroups per multiprocessor or one, where per-level's passes are small
#: kernels that fill the GPU.
PAIR_WORK = 4 << 20
BINDINGS = ("sampled", "storage_image", "storage_image", "storage_buffer")
_EDGE_IDS = {e: i for i, e in enumerate(EDGES)}


def _option(name: str) -> OptionSpec:
    return next(o for o in FILTER_OPTIONS if o.name == name)


def _kaiser_width_problem(value: str) -> str | None:
    problem = _option("kaiser-width").problem(value)
    if problem is None and float(value) > 2.0:
        return f"must be in [1, 2] for filter-pairs: wider ones leave shared memory (got {value})"
    return problem


@dataclass(frozen=True)
class PairPlan:
    """One dispatch: level ``level`` (and ``level + 1`` when ``pair``), its tables; ``span``:
    the window side its workgroups make of level k."""

    level: int
    pair: bool
    src: tuple[int, int]
    mid: tuple[int, int]
    dst: tuple[int, int]
    mid_taps: tuple[Taps, Taps]
    dst_taps: tuple[Taps, Taps] | None
    span: int


def _bases(n_mid: int, dst: Taps | None) -> np.ndarray:
    """Per workgroup along one axis: the first (unfolded) level-k index of its window, as the
    shader computes it: its own first texel, or the first tap of its first level-(k+1) texel."""
    own = TILE * np.arange(-(-n_mid // TILE))
    if dst is None:
        return own
    first = dst.index[np.minimum(own // 2, dst.index.shape[0] - 1), 0]
    return np.minimum(own, first)


def _span(n_mid: int, dst: Taps | None) -> int:
    """Shared texels one axis of a workgroup needs: its own 16 and its level-(k+1) taps."""
    bases = _bases(n_mid, dst)
    own = TILE * np.arange(bases.size)
    end = np.minimum(own + TILE, n_mid)
    if dst is not None:
        m = dst.index.shape[0]
        end = np.maximum(end, dst.index[np.minimum(own // 2 + 7, m - 1), -1] + 1)
    return int((end - bases).max(initial=0))


def lead_levels(spec: FilterSpec, width: int, height: int) -> int:
    """How many levels per-level's passes make before the pairs: while a level's source texels
    times its taps per axis exceed PAIR_WORK."""
    lead = 0
    for k in range(1, mip_count(width, height)):
        src, dst = level_size(width, height, k - 1), level_size(width, height, k)
        taps = max(axis_taps(src[0], dst[0], spec.kernel, "none").count,
                   axis_taps(src[1], dst[1], spec.kernel, "none").count)
        if src[0] * src[1] * taps <= PAIR_WORK:
            break
        lead = k
    return lead


def _tables(spec: FilterSpec, src: tuple[int, int], dst: tuple[int, int]) -> tuple[Taps, Taps]:
    """Both axes' unfolded tables ``src -> dst``; edge=cube: in face coordinates, clamped to the
    taps' reach (at most the side) as the reference's pad (square faces: one table)."""
    if spec.edge == CUBE:
        x = cube_taps(src[0], dst[0], spec)[0]
        return x, x
    return (axis_taps(src[0], dst[0], spec.kernel, "none"),
            axis_taps(src[1], dst[1], spec.kernel, "none"))


def plan_pairs(spec: FilterSpec, width: int, height: int, paired: bool = True,
               first: int = 1) -> list[PairPlan]:
    """The dispatches: levels (first, first + 1), ... and a lone last one; ``paired`` False:
    one level per dispatch."""
    out = []
    levels = mip_count(width, height)
    for k in range(first, levels, 2 if paired else 1):
        pair = paired and k + 1 < levels
        src, mid = level_size(width, height, k - 1), level_size(width, height, k)
        dst = level_size(width, height, k + 1) if pair else mid
        mid_taps = _tables(spec, src, mid)
        dst_taps = _tables(spec, mid, dst) if pair else None
        span = max(_span(mid[0], dst_taps[0] if dst_taps else None),
                   _span(mid[1], dst_taps[1] if dst_taps else None))
        out.append(PairPlan(k, pair, src, mid, dst, mid_taps, dst_taps, span))
    return out


def row_windows(p: PairPlan, edge: str, band: int) -> np.ndarray:
    """``(workgroup rows, bands, 2)``: for each band of ``band`` window rows, the first source
    row its x pass filters and how many: the source rows its texels' y taps reach (folded by
    ``edge``), as one range modulo the side (wrap joins the last rows to the first), starting
    after the widest gap between them. edge=cube: the rows the band's texels inside the face
    reach (face coordinates: past the edges too, no wrap), as one range from the first; a band
    with none takes (0, 0) (its texels are made on their own faces)."""
    n_src, n_mid = p.src[1], p.mid[1]
    taps = p.mid_taps[1]
    bases = _bases(n_mid, p.dst_taps[1] if p.dst_taps else None)
    bands = -(-p.span // band)
    out = np.empty((bases.size, bands, 2), np.int64)
    if edge == CUBE:
        for a, base in enumerate(bases):
            for b in range(bands):
                q = base + np.arange(b * band, min(b * band + band, p.span))
                rows = taps.index[q[(q >= 0) & (q < n_mid)]]
                out[a, b] = (rows.min(), rows.max() - rows.min() + 1) if rows.size else (0, 0)
        return out
    for b in range(bands):
        w = np.arange(b * band, min(b * band + band, p.span))
        q = fold(bases[:, None] + w[None, :], n_mid, edge)
        rows = np.sort(fold(taps.index[q], n_src, edge).reshape(bases.size, -1), axis=1)
        gaps = np.diff(np.concatenate([rows, rows[:, :1] + n_src], axis=1), axis=1)
        widest = gaps.argmax(axis=1)
        out[:, b, 0] = rows[np.arange(bases.size), (widest + 1) % rows.shape[1]]
        out[:, b, 1] = n_src - gaps.max(axis=1) + 1
    return out


def inner_tiles(p: PairPlan, windows: np.ndarray) -> tuple[int, int] | None:
    """edge=cube: the tiles [a, b) along each axis whose whole window (``p.span`` texels of
    level k from its base) lies on the face, with every x tap and every row its bands filter:
    the workgroups of [a, b)^2 need nothing across an edge. None where there are none. (Faces
    are square and both axes share one table, so the range is the same along x and y.)"""
    n_src, n_mid = p.src[0], p.mid[0]
    bases = _bases(n_mid, p.dst_taps[0] if p.dst_taps else None)
    taps = p.mid_taps[0].index
    inside = []
    for t, base in enumerate(bases):
        ok = 0 <= base and base + p.span <= n_mid
        if ok:
            cols = taps[base:base + p.span]
            first, count = windows[t, :, 0], windows[t, :, 1]
            ok = (cols.min() >= 0 and cols.max() < n_src and first.min() >= 0
                  and (first + count).max() <= n_src)
        inside.append(bool(ok))
    at = [t for t, ok in enumerate(inside) if ok]
    if not at or at[-1] - at[0] + 1 != len(at):
        return None
    return at[0], at[-1] + 1


def outer_tiles(n: int, inner: tuple[int, int]) -> list[int]:
    """The tiles of an n x n grid outside the block inner^2, packed x | y << 16 (the shader's
    tile table)."""
    a, b = inner
    return [x | y << 16 for y in range(n) for x in range(n)
            if not (a <= x < b and a <= y < b)]


@dataclass(frozen=True)
class Layout:
    """The shader's specialization: window side, fpRows rows, band rows, most taps per texel."""

    span: int
    rows: int
    band: int
    taps: int

    @property
    def shared_bytes(self) -> int:
        return 16 * (self.rows * self.span + self.span * self.span) + 8 * self.band * self.taps


def layout(plans: list[PairPlan], edge: str, budget: int) -> tuple[Layout, list[np.ndarray]]:
    """The fewest bands whose shared memory fits ``budget`` (one band of one row always fits a
    span within MAX_SPAN), and each dispatch's row windows."""
    span = max(p.span for p in plans)
    taps = max(t.count for p in plans for t in (*p.mid_taps, *(p.dst_taps or ())))
    for bands in range(1, span + 1):
        band = -(-span // bands)
        windows = [row_windows(p, edge, band) for p in plans]
        rows = max(8, *(int(w[..., 1].max()) for w in windows))
        chosen = Layout(span, rows, band, taps)
        if chosen.shared_bytes <= budget or band == 1:
            return chosen, windows
    raise AssertionError("unreachable: the last candidate is returned")


def pack(plans: list[PairPlan], windows: list[np.ndarray], cubes: bool = False
         ) -> tuple[np.ndarray, list[tuple[int, int, int, int, int]]]:
    """The tap buffer and, per dispatch, the offsets of its mid x, mid y, dst x, dst y tables
    and of its row table (each band's first source row); after the adjacency table for
    ``cubes`` (filter_level.adjacency_table)."""
    parts, offsets, at = [], [], 0
    if cubes:
        part = np.zeros(ADJACENCY_ENTRIES, TAP)
        part["index"] = adjacency_table()
        parts.append(part)
        at = part.size
    for p, win in zip(plans, windows, strict=True):
        these = []
        for t in [*p.mid_taps, *(p.dst_taps or p.mid_taps)]:
            part = np.zeros(t.index.size, TAP)
            part["index"], part["weight"] = t.index.reshape(-1), t.weight.reshape(-1)
            parts.append(part)
            these.append(at)
            at += part.size
        part = np.zeros(win.shape[0] * win.shape[1], TAP)
        part["index"] = win[..., 0].reshape(-1)
        parts.append(part)
        these.append(at)
        at += part.size
        offsets.append(tuple(these))
    return (np.concatenate(parts) if parts else np.empty(0, TAP)), offsets  # type: ignore[return-value]


class FilterPairs(FilterChoice, Strategy):
    name = "filter-pairs"
    in_all = False  # its default is the tent, not the box the others of ``all`` make
    title = "Filter pairs (2 levels per dispatch)"
    description = ("Short filters (box, tent, Kaiser <= 2, Lanczos-2, cubics), two levels per "
                   "dispatch through shared memory.")
    options = (
        OptionSpec("filter", SHORT_FILTERS, "tent", "the filter kernel (short ones only)"),
        _option("edge"),
        OptionSpec("kaiser-width", ("1.5", "2"), "2", "Kaiser half-width [1, 2]",
                   _kaiser_width_problem),
        OptionSpec("kaiser-alpha", ("2", "4", "8"), "4",
                   f"Kaiser window alpha [{KAISER_ALPHA_RANGE[0]:g}, {KAISER_ALPHA_RANGE[1]:g}]",
                   _option("kaiser-alpha").check),
    )
    #: the pairs' tables, and the lead's (per-level's passes: tables, rows and stand-ins)
    owned = ("taps", "lead_taps", "rows", "texels", "coverage")
    single = False
    lead_sets: DescriptorSets | None = None

    def notes(self) -> list[str]:
        if self.single:
            return ["f16: one level per dispatch (level k+1 must be made from level k as the "
                    "device rounds it, which shared memory cannot know)"]
        return []

    @classmethod
    def unsupported_reason(cls, caps: DeviceCaps, fmt: Format, width: int, height: int,
                           layers: int = 1, options: dict[str, str] | None = None) -> str | None:
        spec = cls.filter_spec(options or {})
        reason = format_reason(spec, fmt) or cube_reason(spec, width, height, layers)
        if reason:
            return reason
        plans = plan_pairs(spec, width, height)
        span = max((p.span for p in plans), default=0)
        if span > MAX_SPAN:
            return f"{spec.filter}: {span} texels of halo per side do not fit shared memory"
        if plans and (need := layout(plans, spec.edge, caps.max_shared_memory)[0]
                      .shared_bytes) > caps.max_shared_memory:
            return f"{spec.filter}: needs {need} bytes of shared memory (the device has " \
                f"{caps.max_shared_memory})"
        return compute_reason(caps, fmt)

    def prepare(self, image: MipImage) -> None:
        spec = self.filter_spec(self.opts)
        reason = cube_reason(spec, image.width, image.height, image.layers)
        if reason:
            raise ValueError(reason)
        self.single = image.fmt.element is Format.F16
        lead = lead_levels(spec, image.width, image.height)
        steps: list[DispatchStep] = []
        self.pipelines = []
        if lead:
            res = filter_level.prepare(self.ctx, image, spec, levels=lead)
            self.pipelines, self.lead_sets = list(res.pipelines), res.sets
            self.lead_taps, self.rows, self.texels, self.coverage = (res.taps, res.rows,
                                                                     res.texels, res.coverage)
            steps += [replace(st, detail=f"{st.detail}; per-level's pass: a pair's workgroups "
                              "lose to it where the source is large (PAIR_WORK)")
                      for st in res.steps]
        plans = plan_pairs(spec, image.width, image.height, paired=not self.single,
                           first=lead + 1)
        if plans:
            steps += self._prepare_pairs(image, spec, plans, len(self.pipelines),
                                         len(self._lead_set_list()))
        self.steps = tuple(steps)

    def _prepare_pairs(self, image: MipImage, spec: FilterSpec, plans: list[PairPlan],
                       pipeline: int, first_set: int) -> list[DispatchStep]:
        budget = min(SHARED_BUDGET, self.ctx.caps.max_shared_memory)
        shape, windows = layout(plans, spec.edge, budget)
        cubes = spec.edge == CUBE
        data, offsets = pack(plans, windows, cubes)
        # edge=cube: each level's inner tiles run the plain pipeline, the rest the cube one
        # beside them (their tile table after the taps)
        inner = [inner_tiles(p, win) if cubes else None
                 for p, win in zip(plans, windows, strict=True)]
        tables, packed = [], []
        for p, block in zip(plans, inner, strict=True):
            outer = outer_tiles(-(-p.mid[0] // TILE), block) if block else []
            tables.append((data.size + len(packed), len(outer)))
            packed += outer
        entries = np.zeros(len(packed), TAP)
        entries["index"] = packed
        self.taps = device_buffer(self.ctx, np.concatenate([data, entries]))
        constants = {"FP_EDGE": _EDGE_IDS.get(spec.edge, 0), "FP_SPAN": shape.span,
                     "FP_ROWS": shape.rows, "FP_BAND": shape.band, "FP_TAPS": shape.taps,
                     "FP_CUBE": cubes, "FP_CUBE_BATCH": cubes and not self.single,
                     **mip_constants(image.fmt)}
        self.pipelines.append(get_pipeline(self.ctx, FILTER_PAIRS, BINDINGS, constants=constants))
        plain = pipeline
        if any(inner):
            self.pipelines.append(get_pipeline(self.ctx, FILTER_PAIRS, BINDINGS, constants={
                **constants, "FP_CUBE": False, "FP_CUBE_BATCH": False}))
            plain = pipeline + 1
        self.sets = DescriptorSets(self.pipelines[pipeline], len(plans))
        sampler = get_sampler(self.ctx, linear=False)
        views = image.source_views(False)
        steps = []
        for i, (p, off, win) in enumerate(zip(plans, offsets, windows, strict=True)):
            top = p.level + 1 if p.pair else p.level
            self.sets.write(i, [(views[p.level - 1], sampler), image.storage_views[p.level],
                                image.storage_views[top], (self.taps.handle, 0, self.taps.size)])
            mt, dt = p.mid_taps, p.dst_taps or p.mid_taps
            level = dict(srcSize=p.src, midSize=p.mid, dstSize=p.dst,
                         tapsMid=(mt[0].count, mt[1].count), offsetMid=(off[0], off[1]),
                         tapsDst=(dt[0].count, dt[1].count), offsetDst=(off[2], off[3]),
                         pair=int(p.pair), span=p.span, rows=int(win[..., 1].max()),
                         bands=win.shape[1], rowTable=off[4])
            label = f"levels {p.level}-{p.level + 1}" if p.pair else f"level {p.level}"
            bands = f", {win.shape[1]} bands" if win.shape[1] > 1 else ""
            detail = (f"level {p.level}: {mt[0].count}x{mt[1].count} taps of level {p.level - 1}"
                      f" (x then y through shared memory{bands})"
                      + (f", level {p.level + 1}: {dt[0].count}x{dt[1].count} taps from shared "
                         f"memory ({p.span} texels per side)" if p.pair else ""))
            levels = (p.level, top) if p.pair else (p.level,)
            block = inner[i]
            if block is None:
                groups = (-(-p.mid[0] // TILE), -(-p.mid[1] // TILE), image.layers)
                steps.append(DispatchStep(label, levels, detail, pipeline=pipeline,
                                          descriptor_set=first_set + i, groups=groups,
                                          push=FILTER_PAIRS.pack(**level, tileOrigin=(0, 0),
                                                                 tileTable=-1)))
                continue
            a, b = block
            table, outer = tables[i]
            steps.append(DispatchStep(
                label, levels, f"{detail}; the {b - a}x{b - a} inner tiles of each face",
                pipeline=plain, descriptor_set=first_set + i,
                push=FILTER_PAIRS.pack(**level, tileOrigin=(a, a), tileTable=-1),
                groups=(b - a, b - a, image.layers)))
            steps.append(DispatchStep(
                label, levels, f"the {outer} tiles at the face edges, beside them",
                pipeline=pipeline, descriptor_set=first_set + i,
                push=FILTER_PAIRS.pack(**level, tileOrigin=(0, 0), tileTable=table),
                groups=(outer, 1, image.layers), joined=True))
        return steps

    def _lead_set_list(self) -> list:
        return list(self.lead_sets.sets) if self.lead_sets else []

    def descriptor_sets(self) -> list:
        return [*self._lead_set_list(), *super().descriptor_sets()]

    def release(self) -> None:
        if self.lead_sets is not None:
            self.lead_sets.destroy()
            self.lead_sets = None
        super().release()
