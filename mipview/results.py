"""Immutable data that crosses threads: jobs, timings and results.

Everything here is a frozen dataclass holding plain values or numpy arrays, so a worker thread can
hand it to the UI (or the CLI writers) without locks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from mipview.formats import Format


@dataclass(frozen=True)
class StrategySpec:
    """A strategy name plus its options, written ``name[:key=value,...]`` on the command line."""

    name: str
    options: tuple[tuple[str, str], ...] = ()

    @property
    def option_dict(self) -> dict[str, str]:
        return dict(self.options)

    def __str__(self) -> str:
        if not self.options:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v}" for k, v in self.options)

    @classmethod
    def parse(cls, text: str) -> StrategySpec:
        name, _, rest = text.strip().partition(":")
        opts: list[tuple[str, str]] = []
        for part in filter(None, (p.strip() for p in rest.split(","))):
            key, eq, value = part.partition("=")
            if not eq or not key or not value:
                raise ValueError(f"bad option {part!r} in strategy spec {text!r} (want key=value)")
            opts.append((key.strip(), value.strip()))
        if not name:
            raise ValueError(f"empty strategy name in {text!r}")
        return cls(name, tuple(sorted(opts)))


def parse_spec_list(text: str) -> list[StrategySpec]:
    """Split ``"blit,subgroup:layout=morton,per-level"``: commas separate specs, except inside a
    spec's option list, where a part containing ``=`` continues the previous spec."""
    specs: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        if "=" in part and ":" not in part and specs:
            specs[-1] += "," + part
        else:
            specs.append(part)
    return [StrategySpec.parse(s) for s in specs]


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


@dataclass(frozen=True)
class TimingSettings:
    """How strategies are timed (``mipview bench`` defaults): ``repeat`` timed runs each after
    ``warmup_ms`` of untimed ones, ``runs_per_batch`` runs per command buffer; ``cold`` empties
    the caches before every timed run, ``evict`` "clean" (a read) or "dirty" (a fill)."""

    repeat: int = 50
    warmup_ms: float = 1000.0
    runs_per_batch: int = 10
    cold: bool = False
    evict: str = "clean"


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


#: What a strategy promises about its levels, so :func:`mipview.verdict.judge` knows which rule
#: to hold it to (README, "What correct means"):
#:
#: - ``stored``: every level is the correctly rounded reduction of the stored level below, read
#:   back (per-level, the batch ways); the chain is held to what such a chain of the image reaches;
#: - ``carried``: levels are made from unquantised intermediates carried in registers, shared
#:   memory or float buffers (subgroup, single-pass, npot-exact); step and chain are held to bounds
#:   derived per level from how each level was made (:class:`LevelSource`);
#: - ``emulated``: not exact by design, measured against the reference that emulates it (blit).
Promise = Literal["stored", "carried", "emulated"]


@dataclass(frozen=True)
class LevelSource:
    """How one level's values were made, as far as their rounding errors go
    (:mod:`mipview.bounds`). The strategy says it per level from its own planner."""

    #: from the level below as stored (quantised) and read back; False: from its unquantised
    #: values carried in registers, shared memory or a float buffer
    reread: bool = True
    #: from bilinear samples of the level below, whose filter may round to the format
    bilinear: bool = False
    #: half-precision roundings, in depth, in making this level from its inputs (fp16 arithmetic)
    half_ops: int = 0
    #: LSB by which an 8-bit value carried on to the next level may be moved toward its stored
    #: byte (npot-exact keeps it off rounding ties); 0 elsewhere and for float formats
    nudge: float = 0.0


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
    #: the name of the reference that emulates this strategy (mipview.reference.EMULATIONS,
    #: e.g. "blit"), or None: the exact reference alone applies
    own_reference: str | None = None
    promise: Promise = "stored"
    #: how levels 1 .. n-1 were made (empty: each from the stored level below, nothing else)
    sources: tuple[LevelSource, ...] = ()


@dataclass(frozen=True)
class DeviceSummary:
    """What every result records about the device it came from."""

    name: str
    device_type: str
    driver: str
    api_version: str
    subgroup_size: int


@dataclass(frozen=True)
class MipResult:
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
