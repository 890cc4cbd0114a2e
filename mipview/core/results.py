"""Immutable data that crosses threads: jobs, timings and results.

Everything here is a frozen dataclass holding plain values or numpy arrays, so a worker thread can
hand it to the UI (or the CLI writers) without locks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from mipview.core.formats import Format
from mipview.core.specs import StrategySpec


@dataclass(frozen=True)
class DispatchStep:
    """One step of a strategy's plan, exactly as it is recorded: a compute dispatch (or a blit,
    which leaves the dispatch fields at their defaults), the levels it writes, and what a user
    reads about it. ``label`` names the timestamp mark written after it. ``pipeline`` and
    ``descriptor_set`` index the strategy's own lists, ``push`` is the packed push-constant
    block, ``groups`` the workgroup counts (x, y, z). Plain values only, so it crosses threads."""

    label: str
    levels: tuple[int, ...]
    detail: str = ""
    pipeline: int = 0
    descriptor_set: int = 0
    push: bytes = b""
    groups: tuple[int, int, int] = (0, 0, 0)
    #: runs beside the step before it, with no barrier between them: the two write different
    #: texels and read nothing the other writes (one level's workgroups split between two
    #: pipelines); their time is one mark, under this step's label
    joined: bool = False


@dataclass(frozen=True)
class TimingSettings:
    """How strategies are timed (``mipview bench`` defaults): ``repeat`` timed runs each after
    ``warmup_ms`` of untimed ones, ``runs_per_batch`` runs per command buffer; ``cold`` empties
    the caches before every timed run, ``evict`` "clean" (a read) or "dirty" (a fill)."""

    repeat: int = 50
    warmup_ms: float = 1000.0
    #: 25: a kernel with a last-group hand-off (SPD, single-pass, npot-exact) settles over its
    #: first runs in a command buffer; in batches of 10 on an H100 its 4096^2 median read
    #: 44.6 us (single-pass, cold) where 25 and 50 read 40.4 and 40.0, and the same SPD SPIR-V
    #: 2 us over an independent harness that times 50 in one; the others moved within noise
    #: (docs/bench/spd/probe.py)
    runs_per_batch: int = 25
    cold: bool = False
    evict: str = "clean"

    @classmethod
    def for_device(cls, device_type: str, repeat: int = 50, warmup_ms: float | None = None,
                   cold: bool = False, evict: str = "clean") -> TimingSettings:
        """The settings ``mipview bench`` and the window both time with: ``warmup_ms`` None is
        the device's default (:data:`WARMUP_MS`)."""
        if warmup_ms is None:
            warmup_ms = WARMUP_MS.get(device_type, WARMUP_MS["discrete"])
        return cls(repeat=repeat, warmup_ms=warmup_ms, cold=cold, evict=evict)

    @property
    def cache(self) -> str:
        """The cache mode as bench's JSON records it (a baseline compares it): ``warm`` or
        ``cold-clean`` / ``cold-dirty``."""
        return f"cold-{self.evict}" if self.cold else "warm"


#: Default warm-up by device type. A GPU idles at a low clock and needs about a second of work
#: to reach its sustained one (H200: 345 -> 1980 MHz; without a warm-up the window showed 2.6-5.3x
#: the bench figures); a CPU device (lavapipe) has no such clock to raise.
WARMUP_MS = {"discrete": 1000.0, "integrated": 1000.0, "virtual": 1000.0, "other": 1000.0,
             "cpu": 0.0}


@dataclass(frozen=True)
class ClockSample:
    """One reading: SM and memory clock in MHz, at ``t`` (time.perf_counter seconds)."""

    t: float
    sm_mhz: int
    mem_mhz: int


@dataclass(frozen=True)
class ClockState:
    """The clocks seen over one timed stretch, and the SM clock the device can reach."""

    source: str
    samples: tuple[ClockSample, ...]
    max_sm_mhz: int = 0

    @property
    def sm_range(self) -> tuple[int, int]:
        sm = [s.sm_mhz for s in self.samples]
        return (min(sm), max(sm)) if sm else (0, 0)

    @property
    def mem_range(self) -> tuple[int, int]:
        mem = [s.mem_mhz for s in self.samples]
        return (min(mem), max(mem)) if mem else (0, 0)

    @property
    def changed(self) -> bool:
        """The SM clock moved by more than 10% while timing: the runs are not comparable."""
        lo, hi = self.sm_range
        return hi > 0 and (hi - lo) > 0.1 * hi

    def step(self) -> tuple[int, int, float] | None:
        """The largest move of the SM clock between two readings in a row: (MHz before, MHz
        after, the fraction of the timed rounds done before it), None with fewer than two
        readings. A reading follows each timed round (mipview.gpu.measure.clocks.ClockLog), so the
        fraction says where in the runs the figures stop being comparable."""
        sm = [s.sm_mhz for s in self.samples]
        if len(sm) < 2:
            return None
        i = max(range(1, len(sm)), key=lambda k: abs(sm[k] - sm[k - 1]))
        return sm[i - 1], sm[i], i / len(sm)

    def warning(self) -> str | None:
        """Why the figures are not comparable when the SM clock moved while timing
        (:attr:`changed`), with its largest step and where in the runs it came; else None."""
        if not self.changed:
            return None
        lo, hi = self.sm_range
        step = self.step()
        where = (f"; largest step {step[0]} -> {step[1]} MHz after {100 * step[2]:.0f}% of the "
                 "timed runs") if step is not None and step[0] != step[1] else ""
        return (f"the GPU clock changed mid-run (SM {lo}-{hi} MHz{where}): the figures are not "
                "comparable")

    def label(self) -> str:
        """``SM 1980 MHz, mem 3201 MHz`` (a range where it moved)."""
        def span(r: tuple[int, int]) -> str:
            return f"{r[0]}" if r[0] == r[1] else f"{r[0]}-{r[1]}"
        if not self.samples:
            return "clock: no reading"
        return f"SM {span(self.sm_range)} MHz, mem {span(self.mem_range)} MHz"

    def as_dict(self) -> dict[str, Any]:
        return {"source": self.source, "sm_mhz": list(self.sm_range),
                "mem_mhz": list(self.mem_range), "max_sm_mhz": self.max_sm_mhz,
                "changed": self.changed, "samples": len(self.samples),
                "warning": self.warning(),
                # every reading (one after each timed round): seconds from the first, SM, mem
                "readings": [[round(r.t - self.samples[0].t, 6), r.sm_mhz, r.mem_mhz]
                             for r in self.samples]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ClockState:
        """The state :meth:`as_dict` wrote; a file without ``readings`` (written before they
        were kept) gives its two ends as readings, which keeps the range and ``changed``."""
        readings = d.get("readings")
        if not readings:
            sm, mem = d.get("sm_mhz") or (0, 0), d.get("mem_mhz") or (0, 0)
            readings = [[0.0, sm[0], mem[0]], [1.0, sm[1], mem[1]]]
        return cls(str(d.get("source", "?")),
                   tuple(ClockSample(float(t), int(sm), int(mem)) for t, sm, mem in readings),
                   int(d.get("max_sm_mhz") or 0))


@dataclass(frozen=True)
class TimingStats:
    """GPU time of one timed region over R runs, in microseconds."""

    samples_us: tuple[float, ...]

    @property
    def min(self) -> float:
        return float(np.min(self.samples_us))

    @property
    def median(self) -> float:
        return float(np.median(self.samples_us))

    @property
    def p5(self) -> float:
        return float(np.percentile(self.samples_us, 5))

    @property
    def p95(self) -> float:
        return float(np.percentile(self.samples_us, 95))

    @property
    def max(self) -> float:
        return float(np.max(self.samples_us))

    def as_dict(self) -> dict[str, float | int]:
        return {"n": len(self.samples_us), "min_us": self.min, "median_us": self.median,
                "p95_us": self.p95, "max_us": self.max}


@dataclass(frozen=True)
class GpuTiming:
    """Whole-generation timing plus a breakdown per mark (dispatch or level), in plan order."""

    total: TimingStats
    marks: tuple[tuple[str, TimingStats], ...] = ()
    #: where each run began on the GPU (its opening timestamp, µs on the device's own clock from
    #: an arbitrary origin: only differences mean anything), in the order taken; empty where
    #: not kept (the window's rolling figures), and mipview/runs/trace.py then lays the runs out from
    #: their durations
    starts_us: tuple[float, ...] = ()


#: What a strategy promises about its levels, so :func:`mipview.check.verdict.judge` knows which rule
#: to hold it to (README, "What correct means"):
#:
#: - ``stored``: every level is the correctly rounded reduction of the stored level below, read
#:   back (per-level, the batch ways); the chain is held to what such a chain of the image reaches;
#: - ``carried``: levels are made from unquantised intermediates carried in registers, shared
#:   memory or float buffers (subgroup, single-pass, npot-exact); step and chain are held to bounds
#:   derived per level from how each level was made (:class:`LevelSource`);
#: - ``emulated``: not exact by design, measured against the reference that emulates it (blit);
#: - ``file``: a texture file's own chain (mipview.io.containers), made by a tool that does not say
#:   how: every level correctly rounded, from the stored level below or straight from level 0.
Promise = Literal["stored", "carried", "emulated", "file"]


@dataclass(frozen=True)
class LevelSource:
    """How one level's values were made, as far as their rounding errors go
    (:mod:`mipview.check.bounds`). The strategy says it per level from its own planner."""

    #: from the level below as stored (quantised) and read back; False: from its unquantised
    #: values carried in registers, shared memory or a float buffer
    reread: bool = True
    #: from bilinear (a volume's: trilinear) samples of the level below, whose filter may round
    #: to the format at each of its 1-D stages
    bilinear: bool = False
    #: half-precision roundings, in depth, in making this level from its inputs (fp16 arithmetic)
    half_ops: int = 0
    #: axes the reduction sums along: 3 for a volume's level (each adds its taps' roundings)
    axes: int = 2


@dataclass(frozen=True)
class StrategyResult:
    spec: StrategySpec
    #: level 0 .. n-1 storage values, each (H, W, 4) or (layers, H, W, 4)
    levels: tuple[np.ndarray, ...]
    plan: tuple[DispatchStep, ...] = ()
    timing: GpuTiming | None = None
    #: things a user should know about this result (e.g. "levels 3-5 not exact: odd side")
    notes: tuple[str, ...] = ()
    #: "mean", "min" or "max": which exact reference the levels are checked against
    reduction: str = "mean"
    #: the name of the reference that emulates this strategy (mipview.check.reference.EMULATIONS,
    #: e.g. "blit"), or None: the exact reference alone applies
    own_reference: str | None = None
    promise: Promise = "stored"
    #: how levels 1 .. n-1 were made (empty: each from the stored level below, nothing else)
    sources: tuple[LevelSource, ...] = ()
    #: every option as asked, defaults filled (``auto`` stays ``auto``), and as run: each
    #: ``auto`` of mipview.gpu.strategies.auto resolved (empty: the spec's own options)
    options_asked: tuple[tuple[str, str], ...] = ()
    options_used: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class DeviceSummary:
    """What every result records about the device it came from."""

    name: str
    device_type: str
    driver: str
    api_version: str
    subgroup_size: int
    #: VkPhysicalDeviceDriverProperties, where the device reports them ("" where not)
    driver_name: str = ""
    driver_version: str = ""
    driver_info: str = ""


@dataclass(frozen=True)
class RunResult:
    fmt: Format
    width: int
    height: int
    layers: int
    device: DeviceSummary
    results: tuple[StrategyResult, ...]
    #: strategies that were asked for but could not run, with the reason
    skipped: tuple[tuple[StrategySpec, str], ...] = ()
    validation_messages: tuple[str, ...] = field(default=())
    #: floor measured by a large buffer copy, GB/s (read + write bytes / time); None if not run
    copy_bandwidth_gbps: float | None = None
    #: the GPU clocks seen while timing (mipview.gpu.measure.clocks); None where they cannot be read
    clock: ClockState | None = None
