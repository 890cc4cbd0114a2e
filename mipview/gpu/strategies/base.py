"""The small interface every mipmap strategy implements, and helpers they share.

A strategy object is made per (spec, image): ``prepare`` creates what the image needs
(descriptor sets) and builds the dispatch plan once (:attr:`Strategy.steps`, one
:class:`~mipview.core.results.DispatchStep` per dispatch); ``record`` writes levels 1..n-1 into a
command buffer (called once per run, so it may be recorded many times) and, for compute
strategies, is :func:`~mipview.gpu.vulkan.dispatch.record_steps` of exactly those steps, which ``plan``
also reports; ``release`` frees the per-image state. Pipelines are cached by the context, not
owned here. ``record`` starts and ends with the image in GENERAL layout and must not assume
anything about earlier commands: the runner puts a full memory barrier before each run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from mipview.core import reductions
from mipview.core.formats import Format, level_size, mip_count
from mipview.core.results import DispatchStep, LevelSource, Promise
from mipview.gpu.strategies.auto import concrete
from mipview.gpu.strategies.options import OptionSpec
from mipview.gpu.vulkan.context import DeviceCaps, GpuContext
from mipview.gpu.vulkan.dispatch import record_steps
from mipview.gpu.vulkan.pipelines import ComputePipeline, DescriptorSets
from mipview.gpu.vulkan.resources import MipImage
from mipview.gpu.vulkan.timing import Marks
from mipview.gpu.vulkan.vkapi import flag


class Strategy:
    name: ClassVar[str]
    title: ClassVar[str]
    description: ClassVar[str]
    options: ClassVar[tuple[OptionSpec, ...]] = ()
    #: One of ``--strategies all`` (the strategies that make the box pyramid with their default
    #: options, compared side by side); a strategy whose default is another filter is asked for
    #: by name.
    in_all: ClassVar[bool] = True
    #: What it promises about its levels (mipview.core.results.Promise): ``stored`` (each level the
    #: correctly rounded reduction of the stored level below), ``carried`` (intermediates kept
    #: unquantised between levels: :meth:`level_sources` says which levels re-read a stored one)
    #: or ``emulated`` (not exact by design: checked against its own emulating reference).
    promise: ClassVar[Promise] = "stored"
    #: For strategies that are not exact by design: the name of the reference that emulates
    #: them (mipview.check.reference.EMULATIONS), which their result is measured against.
    own_reference: ClassVar[str | None] = None
    #: attributes holding per-image resources (Buffer, MipImage, ...) that ``release`` destroys
    owned: ClassVar[tuple[str, ...]] = ()

    def __init__(self, ctx: GpuContext, options: dict[str, str] | None = None) -> None:
        self.ctx = ctx
        # a table ``auto`` left unresolved (no image yet: a strategy made outside the runner)
        # runs as today's default; the runner passes auto.resolve's options
        self.opts = concrete(self.name, self.check_options(options or {}))
        #: the plan ``prepare`` built: what ``record`` records and ``plan`` reports
        self.steps: tuple[DispatchStep, ...] = ()
        #: indexed by :attr:`DispatchStep.pipeline` and :attr:`DispatchStep.descriptor_set`
        self.pipelines: list[ComputePipeline] = []
        self.sets: DescriptorSets | None = None

    # --- class-level queries (UI, CLI and registry use these without a device) -----------
    @classmethod
    def check_options(cls, options: dict[str, str]) -> dict[str, str]:
        """Fill defaults; raise ValueError naming the bad key or value."""
        known = {o.name: o for o in cls.options}
        for key, value in options.items():
            if key not in known:
                names = ", ".join(known) or "none"
                raise ValueError(f"strategy {cls.name!r} has no option {key!r} (options: {names})")
            problem = known[key].problem(value)
            if problem:
                raise ValueError(f"{cls.name}: {key} {problem}")
        return {o.name: options.get(o.name, o.default) for o in cls.options}

    @classmethod
    def idle_options(cls, options: dict[str, str]) -> dict[str, str]:
        """The options that change nothing with the others as they are in ``options`` (all of
        them, valid), each with the choice it needs: the GUI greys them out."""
        return {}

    @classmethod
    def option_reason(cls, options: dict[str, str]) -> str | None:
        """Why this strategy cannot do these (valid) options on any device, or None: the CLI
        refuses the spec with it (one line, exit 2), the GUI greys the choice out."""
        return None

    @classmethod
    def unsupported_reason(cls, caps: DeviceCaps, fmt: Format, width: int, height: int,
                           layers: int = 1, options: dict[str, str] | None = None) -> str | None:
        """Why this strategy cannot run here, or None. Shown greyed out in the UI."""
        return None

    @classmethod
    def reduction(cls, options: dict[str, str]) -> str:
        """Which reference this configuration is checked against (mipview.core.reductions): its
        ``reduction`` option, or the mean for a strategy without one."""
        return cls.check_options(options).get("reduction", "mean")

    def plan(self) -> tuple[DispatchStep, ...]:
        """Which levels each dispatch (or blit) makes, in order: the prepared steps."""
        return self.steps

    def notes(self) -> list[str]:
        """What a user should know about the prepared result (e.g. levels that are not exact)."""
        return []

    def level_sources(self, width: int, height: int, layers: int = 1) -> list[LevelSource]:
        """How each of levels 1 .. n-1 is made, for the bounds of its promise (pure: from the
        planner, no device): by default each from the stored level below."""
        return [LevelSource() for _ in range(1, mip_count(width, height))]

    # --- per image --------------------------------------------------------------------------
    def prepare(self, image: MipImage) -> None:
        pass

    def before_run(self, cmd: Any, image: MipImage) -> None:
        """Untimed set-up of the next run, recorded ahead of its opening timestamp (a custom
        whole-chain shader's counters are zeroed here, so the user's shader is charged for its
        own work only)."""

    def record(self, cmd: Any, image: MipImage, marks: Marks) -> None:
        """The prepared steps, for the image they were prepared on."""
        self._record(cmd, self.steps, marks)

    def _record(self, cmd: Any, steps: Sequence[DispatchStep], marks: Marks) -> None:
        """``steps`` (the prepared ones or variants of them) with this strategy's pipelines."""
        record_steps(cmd, steps, self.pipelines, self.descriptor_sets(), marks)

    def descriptor_sets(self) -> Sequence[Any]:
        """The sets :attr:`DispatchStep.descriptor_set` indexes."""
        return self.sets.sets if self.sets else ()

    def release(self) -> None:
        if self.sets is not None:
            self.sets.destroy()
            self.sets = None
        for name in self.owned:
            res = getattr(self, name, None)
            if res is not None:
                res.destroy()
                setattr(self, name, None)


# --- helpers shared by compute strategies ------------------------------------------------------
COMPUTE_FEATURES = ("VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT", "VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT")


def compute_reason(caps: DeviceCaps, fmt: Format) -> str | None:
    """Reason a compute strategy that samples level i-1 and stores level i cannot run."""
    if not caps.storage_write_without_format:
        return "device lacks shaderStorageImageWriteWithoutFormat"
    storage_fmt = Format.UNORM if fmt.is_srgb else fmt
    if not caps.supports(storage_fmt, flag("VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT")):
        return f"{storage_fmt.label} images are not storage images on this device"
    if not caps.supports(fmt, flag("VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT")):
        return f"{fmt.label} images cannot be sampled on this device"
    if not caps.supports_source(fmt, flag("VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT")):
        return f"{fmt.label}'s depth images cannot be sampled on this device"
    return None


def bilinear_reason(caps: DeviceCaps, fmt: Format) -> str | None:
    """Why one linear sample at the centre of a 2x2 block cannot stand for its mean here."""
    if fmt.element is Format.F32:
        # Vulkan leaves filtering precision to the device: lavapipe's is ~1e-4 off on fp32
        return "load=bilinear: texture filtering is not exact to fp32 precision"
    if not caps.supports(fmt, flag("VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT")):
        return f"{fmt.label} cannot be filtered linearly on this device"
    if not caps.supports_source(fmt, flag("VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT")):
        # level 0 of a depth source is sampled through its depth view (d16; Vulkan requires
        # linear filtering of neither depth format)
        return f"{fmt.label} depth cannot be filtered linearly on this device"
    return None


def group_count(size: int, group: int) -> int:
    return (size + group - 1) // group


#: the ``reduction`` option of the strategies that make Hi-Z pyramids (mipview.core.reductions;
#: the shader's constant is ``reductions.CODES[value]``)
REDUCTION_OPTION = OptionSpec(
    "reduction", reductions.NAMES, "mean",
    "mean, or min/max/minmax over each texel's whole footprint (Hi-Z, conservative)")
#: the ``prefetch`` option of the strategies that take several tiles per workgroup
PREFETCH_OPTION = OptionSpec(
    "prefetch", ("auto", "off", "on"), "auto",
    "fetch the next tile's texels before reducing the current one (tiles > 1; auto: where one "
    "bilinear sample makes each value and no counter ends the pass)")
TILES_OPTION = OptionSpec(
    "tiles", ("auto", "1", "2", "4", "8"), "auto",
    "source tiles per workgroup, in turn (auto: 8 where a pass ends at a counter, which they "
    "then share; 4 where each value is one bilinear sample and 512 workgroups keep 4 each, "
    "for prefetch; else 1)")

AUTO_TILES_COUNTER = 8   # H200, single-pass 4096^2 RGBA8: 55.3 -> 44.4 us
AUTO_TILES_PREFETCH = 4  # H200, 8192^2 RGBA8 bilinear: single-pass 113 -> 102 us,
                         # subgroup 155 -> 144 us


def auto_tiles(counter: bool, one_sample: bool) -> int:
    """Tiles per workgroup for ``tiles=auto``: every counter arrival costs a queue-family release
    and an atomic round trip, so 8 tiles share one; without a counter, several tiles only pay
    with an early fetch of the next one, and that only where a value is one bilinear sample."""
    if counter:
        return AUTO_TILES_COUNTER
    return AUTO_TILES_PREFETCH if one_sample else 1


def group_tiles(caps: DeviceCaps, option: str, tiles: int, counter: bool,
                one_sample: bool) -> int:
    """Tiles per workgroup of a pass of ``tiles`` tiles under the ``tiles`` option: ``auto``,
    :func:`auto_tiles`, never so many that the device runs short of workgroups (and an early
    fetch's tiles all or one); a number as asked (at most every tile in one workgroup), so
    that fewer workgroups than :data:`MIN_GROUPS_GPU` can be measured (one wave of resident
    workgroups, docs/bench/speed-vs-spd)."""
    if option != "auto":
        return max(1, min(int(option), tiles))
    per = auto_tiles(counter, one_sample)
    given = tiles_per_group(caps, tiles, per)
    # the early fetch pays with all its tiles; a pass too small for them (3 at 3840x2160, 2 at
    # 3200x1800) was slower than one tile per workgroup: H100, npot-exact 28.3 against 27.0 us
    # and 26.9 against 25.2 (docs/bench/speed-vs-spd, run 2026-11-28-h100-auto)
    return given if counter or given == per else 1


def prefetch_on(option: str, per_group: int, counter: bool, one_sample: bool) -> bool:
    """Whether a pass fetches its next tile early. The early fetch holds a second tile's values
    in registers; on an H200 it paid off only with one bilinear sample per value and no counter
    (8192^2 RGBA8 above), and lost with texel loads (single-pass 8192^2: 139 -> 168 us) and where
    the pass ends at the counter (4096^2: 36.1 -> 44.7 us)."""
    if option == "auto":
        return per_group > 1 and not counter and one_sample
    return option == "on"


MAX_GROUPS_X = 65535  # the smallest maxComputeWorkGroupCount[0] Vulkan allows


MIN_GROUPS_GPU = 512  # keep a big GPU full: 132 SMs x 4 resident workgroups on an H100/H200
MIN_GROUPS_CPU = 4    # lavapipe runs a few workgroups at once, one per core


def tiles_per_group(caps: DeviceCaps, tiles: int, requested: int) -> int:
    """Tiles each workgroup takes: ``requested``, but never so many that the device runs out of
    workgroups to keep busy (a 4-tile pass on a GPU keeps 4 workgroups)."""
    least = MIN_GROUPS_CPU if caps.device_type == "cpu" else MIN_GROUPS_GPU
    return max(1, min(requested, tiles // least))


def tile_groups(tiles: int, per_group: int) -> tuple[int, int]:
    """Workgroups (x, y) for ``tiles`` tiles, ``per_group`` each, in the order of
    mipview/gpu/shaders/include/tile_schedule.glsl: 2D only past 65535 workgroups, and then at most
    y - 1 workgroups with nothing to do."""
    groups = max(1, -(-tiles // per_group))
    gy = -(-groups // MAX_GROUPS_X)
    return -(-groups // gy), gy


def level_sizes(image: MipImage) -> list[tuple[int, int]]:
    return [level_size(image.width, image.height, i) for i in range(image.levels)]
