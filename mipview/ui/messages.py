"""Frozen dataclasses that cross between the UI thread and the worker threads.

Requests go in (``OpenRequest``, ``RunRequest``), replies come out, every one by the worker's
``sigReply`` (:mod:`mipview.ui.workers.jobs`), and the window routes each by its type: start-up's
``DeviceList``, a device switch's ``DeviceReady``; ``OpenedImage``; a run's
``LevelsReady``, ``TimingPhase``, ``LiveStats``, ``ReferenceReady``, ``StrategyAnalysed``,
``RunAnalysed``, in that order (a volume's: ``VolumeRan``, then ``LiveStats``); ``BatchRequest`` -> ``BatchOutput``;
``SweepRequest`` -> ``SweepProgress``, ``SweepOutput``; ``CompareRequest`` -> ``Comparison``;
``ExportRequest`` -> ``ExportOutput``; ``BaselineRequest`` -> ``BaselineDeltas``;
``PreviewRequest`` -> ``PreviewOutput``; ``DeviceRunRequest`` -> ``DeviceRunOutput``;
``EncodeRequest`` -> ``EncodeProgress`` per level, ``Encoded``. A failure
is a ``WorkerError`` (by ``sigError``).
Arrays inside are never written after they are built, so neither side needs a lock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from mipview.check.compare import LevelError
from mipview.core.formats import Format
from mipview.core.results import ClockState, GpuTiming, RunResult
from mipview.core.specs import StrategySpec
from mipview.gpu.batch import BatchResult
from mipview.gpu.vulkan.context import DeviceCaps
from mipview.io.imageio import SourceImage
from mipview.runs.against import DeviceSide, SavedFailed
from mipview.runs.analysis import StrategyAnalysis
from mipview.runs.baseline import BaselineReport, SavedRun, saved_timings
from mipview.runs.preview import PreviewImage, PreviewSettings
from mipview.runs.timing_figures import TimingFigures
from mipview.runs.volume import VolumeDone, VolumeShown

if TYPE_CHECKING:
    from mipview.core.results import StrategyResult
    from mipview.io.containers.encoders import CodecChoice
    from mipview.runs.encode import EncodedChain
    from mipview.runs.sweep import SweepResult


@dataclass(frozen=True)
class OpenRequest:
    job: int
    path: str
    #: format the first run will use (None: the image's suggested one); level 0 is converted
    #: to it while loading, so that run starts at once
    fmt: Format | None = None


@dataclass(frozen=True)
class OpenedImage:
    job: int
    path: str
    source: SourceImage
    #: level 0 as a run of ``fmt`` uploads it (storage values, host texels; (L, H, W, 4) when
    #: the image has layers): the viewer shows it as it shows a run's levels
    level0: np.ndarray
    fmt: Format


@dataclass(frozen=True)
class RunRequest:
    """Generate with every spec, then time ``repeat`` runs (or profile until stopped)."""

    job: int
    source: SourceImage
    fmt: Format
    specs: tuple[StrategySpec, ...]
    repeat: int = 20
    live: bool = False
    #: > 1: run on this many layers made from the image by ``mipview.io.layers.make_layers``
    layers: int = 1
    #: empty the caches before every timed run (``mipview bench --cold``)
    cold: bool = False


@dataclass(frozen=True)
class LevelsReady:
    """The levels of one run, emitted as soon as they are read back (before any timing)."""

    job: int
    mip: RunResult
    #: the storage array uploaded as level 0 (what the references start from)
    level0: np.ndarray
    source_name: str = ""
    #: lines about the texture file the source came from (containers.with_file_chain): its
    #: notes, or why its own chain is not among the results
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class VolumeRan:
    """A Run of a volume (``mipview.runs.volume``): every result's chain, levels (D, H, W, 4),
    its verdict, and what the viewer shows beside them (the reference, the error maps)."""

    job: int
    fmt: Format
    done: VolumeDone
    shown: VolumeShown


@dataclass(frozen=True)
class TimingPhase:
    """A run's timing begins: ``warmup_ms`` of untimed work first (no figures meanwhile)."""

    job: int
    device: str
    warmup_ms: float
    live: bool = False


@dataclass(frozen=True)
class ReferenceReady:
    """The exact reference of a run's image, per level (``analysis.reference_levels``)."""

    job: int
    fmt: Format
    reference: tuple[np.ndarray, ...]


@dataclass(frozen=True)
class StrategyAnalysed:
    """One strategy's verdict and heatmaps, as soon as they are ready; ``done`` of ``total``."""

    job: int
    fmt: Format
    done: int
    total: int
    errors: StrategyAnalysis


@dataclass(frozen=True)
class RunAnalysed:
    """Everything a run's analysis produced (after the last ``StrategyAnalysed``)."""

    job: int
    fmt: Format
    #: the exact reference per level, as float64 storage units (for the side-by-side viewer)
    reference: tuple[np.ndarray, ...]
    errors: tuple[StrategyAnalysis, ...]


@dataclass(frozen=True)
class LiveStats:
    """Timing statistics of one run or one live-profiling update."""

    job: int
    device: str
    timings: tuple[tuple[StrategySpec, GpuTiming], ...]
    runs: int
    elapsed_s: float
    final: bool = False
    validation_messages: tuple[str, ...] = field(default=())
    #: the GPU clocks while these timings were taken; None where they cannot be read
    clock: ClockState | None = None
    #: (spec, digest of its file) of each custom strategy (``shader:PATH``) timed
    shaders: tuple[tuple[str, str], ...] = ()
    #: the device's driver as it reports it (DeviceCaps.driver: name, version, info)
    driver: str = ""
    #: the timing settings' cache mode, as bench's JSON says it ("warm", "cold-clean")
    cache: str = "warm"
    #: ``TimingFigures`` of each of ``timings``, computed where the stats are made (the worker
    #: thread), so the UI thread redraws without sorting samples
    figures: tuple[TimingFigures, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "figures", tuple(TimingFigures.of(t) for _, t in self.timings))


def saved_stats(job: int, saved: SavedRun) -> LiveStats:
    """A saved run (``mipview bench --json``) as the timing chart shows a run of its own: every
    strategy's samples, the device, driver, clock and cache mode it was timed with."""
    data = saved.data
    dev = data.get("device") or {}
    clock = data.get("clock")
    timings = tuple((StrategySpec.parse(name), t) for name, t in saved_timings(data))
    runs = min((len(t.total.samples_us) for _, t in timings), default=0)
    return LiveStats(job, str(dev.get("name", "?")), timings, runs, 0.0, final=True,
                     clock=ClockState.from_dict(clock) if isinstance(clock, dict) else None,
                     driver=str(dev.get("driver", "")), cache=str(data.get("cache", "?")))


@dataclass(frozen=True)
class WorkerError:
    job: int
    title: str
    message: str
    detail: str = ""


@dataclass(frozen=True)
class DeviceList:
    devices: tuple[DeviceCaps, ...]
    current: DeviceCaps | None


@dataclass(frozen=True)
class DeviceReady:
    """The device in use after a switch (or after a GPU timeout reset it); None: none opened."""

    caps: DeviceCaps | None


@dataclass(frozen=True)
class BatchRequest:
    """A batch run (Batch tab): image files, or ``synthetic`` seeded images when no paths."""

    job: int
    ways: tuple[str, ...]
    #: image files (a folder is expanded by the window); empty: synthetic images
    paths: tuple[str, ...] = ()
    synthetic: int = 0
    max_side: int = 2048
    seed: int = 0
    #: None: the first file's suggested format (unorm for synthetic batches)
    fmt: Format | None = None
    repeat: int = 10


@dataclass(frozen=True)
class BatchOutput:
    """``mipview.gpu.batch.BatchResult`` of a batch run (levels, per-way timings and counts)."""

    job: int
    result: BatchResult


@dataclass(frozen=True)
class SweepRequest:
    """The Sweep tab: 1x1 level vs exact mean for widths ``first``..``last`` (inclusive)."""

    job: int
    first: int
    last: int
    height: int
    fmt: Format
    specs: tuple[StrategySpec, ...]
    kind: str = "zoneplate"


@dataclass(frozen=True)
class SweepProgress:
    job: int
    done: int
    total: int


@dataclass(frozen=True)
class SweepOutput:
    """``mipview.runs.sweep.SweepResult`` of a sweep (the widths done, if it was stopped)."""

    job: int
    result: SweepResult


@dataclass(frozen=True)
class CompareRequest:
    """Strategy ``strategy`` against strategy ``against`` (Heatmaps tab, "against <other>"):
    the levels of both, as the run ``run_job`` read them back."""

    job: int
    run_job: int
    strategy: str
    against: str
    levels: tuple[np.ndarray, ...]
    baseline: tuple[np.ndarray, ...]
    fmt: Format


@dataclass(frozen=True)
class Comparison:
    """``compare.level_errors`` and ``compare.difference_map`` per level of a CompareRequest."""

    job: int
    run_job: int
    strategy: str
    against: str
    levels: tuple[LevelError, ...]
    maps: tuple[np.ndarray, ...]


@dataclass(frozen=True)
class DeviceRunRequest:
    """Heatmaps tab, "against device N": ``strategy`` once on ``level0`` (the Run's, as read
    back) on device ``device`` (its index), on a context of its own (runs.against)."""

    job: int
    device: str
    strategy: str
    level0: np.ndarray
    fmt: Format


@dataclass(frozen=True)
class DeviceRunOutput:
    """What a DeviceRunRequest made (its levels, or why not), with the very ``level0`` it
    started from: the view keeps it only for the Run of that level 0."""

    job: int
    device: str
    strategy: str
    level0: np.ndarray
    got: DeviceSide | SavedFailed


@dataclass(frozen=True)
class ExportRequest:
    """File > Export...: the chain ``levels`` (storage values of ``fmt``, as a run read them
    back) written into ``folder`` as ``stem`` + each of ``kinds`` (mipview.io.containers.export)."""

    job: int
    folder: str
    stem: str
    levels: tuple[np.ndarray, ...]
    fmt: Format
    kinds: tuple[str, ...]
    #: 6: the levels are a cube map's faces (written as a cube); 1: layers or one image
    faces: int = 1
    #: the levels are a volume's (D, H, W, 4), written as a 3D texture
    volume: bool = False


@dataclass(frozen=True)
class BaselineRequest:
    """The timings of a run against a saved run (mipview.runs.baseline.compare_runs), off the UI
    thread. ``run``: the window's run (a RunResult with its timings; ``cache`` and ``repeat``
    as bench's JSON says them), or the JSON of a saved run the window shows."""

    job: int
    run: RunResult | dict[str, Any]
    baseline: SavedRun
    cache: str = "warm"
    repeat: int = 0


@dataclass(frozen=True)
class BaselineDeltas:
    job: int
    report: BaselineReport


@dataclass(frozen=True)
class PreviewRequest:
    """The sampled preview (mipview.runs.preview.render) of one result's ``levels``."""

    job: int
    name: str
    levels: tuple[np.ndarray, ...]
    fmt: Format
    settings: PreviewSettings


@dataclass(frozen=True)
class PreviewOutput:
    job: int
    name: str
    image: PreviewImage


@dataclass(frozen=True)
class ExportOutput:
    """The files an ExportRequest wrote, in order."""

    job: int
    files: tuple[str, ...]


@dataclass(frozen=True)
class EncodeRequest:
    """Heatmaps tab, Encode: result ``strategy`` of the Run ``run_job`` block-compressed as
    ``choice``, decoded back and judged per level (mipview.runs.encode.encode_result)."""

    job: int
    run_job: int
    strategy: str
    result: StrategyResult
    fmt: Format
    choice: CodecChoice
    #: FLIP and SSIM too (the Encode row's FLIP/SSIM box)
    perceived: bool = False


@dataclass(frozen=True)
class EncodeProgress:
    """Level ``done`` of ``total`` of an EncodeRequest is encoded and judged."""

    job: int
    done: int
    total: int


@dataclass(frozen=True)
class Encoded:
    """An EncodeRequest's chain and, per level, the codec's and the total error maps (max
    |error| over the channels judged, as ``compare.difference_map`` makes a map)."""

    job: int
    run_job: int
    strategy: str
    chain: EncodedChain
    maps: tuple[tuple[np.ndarray, np.ndarray], ...]
