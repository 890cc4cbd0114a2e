"""A bench run against a saved one: ``mipview bench ... --baseline old.json`` (and, later, a saved
run loaded into the window as its baseline).

Every figure of a run, a strategy's whole run and each of its dispatch marks, is matched with the
saved run's (strategies by spec string, marks by label) and gets the ratio of the medians
new / old with a noise estimate from both sample sets: a percentile bootstrap interval of that
ratio (:func:`bootstrap_ratio`). An interval holding 1.0 is "within noise", else the new run is
"faster" or "slower". A strategy in one run only is "new" or "missing"; a saved run written
before the samples were kept (no ``samples_us``) is compared by its medians alone, "no samples:
noise unknown". The two runs' device, driver, clock state, image and cache mode are compared
too: figures taken under other conditions are flagged, not hidden.

Core: no Qt, no CLI. Input comes as the JSON dicts of mipview/runs/report.py (``result_dict``), the
new run's before it is written and the saved one from its file (:func:`load_run`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mipview.core.errors import MipviewError
from mipview.core.results import GpuTiming, TimingStats
from mipview.runs.report import GENERATOR_KEY

FASTER = "faster"
SLOWER = "slower"
WITHIN_NOISE = "within noise"
NO_SAMPLES = "no samples: noise unknown"
NEW = "new"
MISSING = "missing"
#: the saved median is zero (two stamps on one tick): no ratio to give
ZERO_BASELINE = "zero time in the baseline"

#: bootstrap resamples per figure: the interval's ends move by well under 1% between seeds
RESAMPLES = 2000
#: the interval's coverage
CONFIDENCE = 0.95
#: fixed, so the same two runs always give the same intervals
SEED = 0
#: resampled values held at once: bounds the memory of a bootstrap over long runs
_CHUNK_ELEMENTS = 1 << 22


class BaselineError(MipviewError):
    """A saved run that cannot serve as a baseline; one line, starting with its path."""


@dataclass(frozen=True)
class SavedRun:
    """A ``mipview bench --json`` file, read and checked (:func:`load_run`)."""

    path: str
    data: dict[str, Any]


@dataclass(frozen=True)
class _Figure:
    median_us: float
    samples_us: tuple[float, ...] = ()


@dataclass(frozen=True)
class _Strategy:
    total: _Figure
    marks: tuple[tuple[str, _Figure], ...]
    drift: str | None


@dataclass(frozen=True)
class FigureDelta:
    """One figure against the baseline. ``mark`` None is the strategy's whole run; ``ratio`` is
    median new / median old, ``interval`` its bootstrap interval (None without samples)."""

    strategy: str
    mark: str | None
    verdict: str
    new_median_us: float | None = None
    old_median_us: float | None = None
    ratio: float | None = None
    interval: tuple[float, float] | None = None

    def label(self, medians: bool = True) -> str:
        """``0.98x [0.93, 1.04] within noise (12.1 us, was 12.3 us)`` (without the medians:
        the window's bars show them), or the verdict alone."""
        if self.ratio is None:
            return self.verdict
        spread = f" [{self.interval[0]:.3f}, {self.interval[1]:.3f}]" if self.interval else ""
        both = f" ({self.new_median_us:.1f} us, was {self.old_median_us:.1f} us)" if medians \
            else ""
        return f"{self.ratio:.3f}x{spread} {self.verdict}{both}"

    def as_dict(self) -> dict[str, Any]:
        return {"strategy": self.strategy, "mark": self.mark, "verdict": self.verdict,
                "median_us": self.new_median_us, "baseline_median_us": self.old_median_us,
                "ratio": self.ratio,
                "interval": list(self.interval) if self.interval is not None else None}


@dataclass(frozen=True)
class BaselineReport:
    """Every figure of a run against a saved run, and what makes them hard to compare."""

    #: what the saved run was (generator, device, image)
    baseline: str
    deltas: tuple[FigureDelta, ...]
    #: conditions that differ between the runs (device, driver, clock, image, cache, drift)
    warnings: tuple[str, ...] = ()
    resamples: int = RESAMPLES
    confidence: float = CONFIDENCE
    seed: int = SEED

    def lines(self) -> list[str]:
        """One line per figure (marks indented under their strategy), then the warnings."""
        out = [f"baseline: {self.baseline}; median new/old [{100 * self.confidence:g}% "
               f"bootstrap interval, {self.resamples} resamples]"]
        for d in self.deltas:
            name = f"  {d.mark}" if d.mark is not None else d.strategy
            out.append(f"{name:<34} {d.label()}")
        out += [f"warning: {w}" for w in self.warnings]
        return out

    def as_dict(self) -> dict[str, Any]:
        return {"baseline": self.baseline,
                "noise": "percentile bootstrap interval of median(new) / median(old)",
                "resamples": self.resamples,
                "confidence": self.confidence, "seed": self.seed,
                "figures": [d.as_dict() for d in self.deltas], "warnings": list(self.warnings)}


# --- reading a saved run --------------------------------------------------------------------------
def load_run(path: str | Path) -> SavedRun:
    """Read and check a ``mipview bench --json`` file; :class:`BaselineError` (one line) if it
    is missing, unreadable, not JSON, not written by mipview bench, or malformed."""
    p = Path(path)
    if not p.exists():
        raise BaselineError(f"{p}: no such file")
    if p.is_dir():
        raise BaselineError(f"{p}: is a folder, not a file")
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise BaselineError(f"{p}: cannot read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise BaselineError(f"{p}: not JSON (not UTF-8 text)") from None
    except ValueError as exc:
        raise BaselineError(f"{p}: not JSON ({exc})") from None
    if not isinstance(data, dict) or not str(data.get(GENERATOR_KEY, "")).startswith("mipview"):
        raise BaselineError(f"{p}: not written by mipview bench (no {GENERATOR_KEY!r} key)")
    if "repeat" not in data:
        raise BaselineError(f"{p}: a mipview report without timings (from `mipview run`?); "
                            "want the --json of `mipview bench`")
    try:
        _strategies(data)
    except (TypeError, ValueError, KeyError) as exc:
        raise BaselineError(f"{p}: malformed mipview bench JSON ({exc})") from None
    return SavedRun(str(p), data)


def _samples(d: dict[str, Any]) -> tuple[float, ...]:
    raw = d.get("samples_us", [])  # none in runs saved before they were kept
    if not isinstance(raw, list) or not all(_is_number(v) for v in raw):
        raise ValueError("samples_us is not a list of numbers")
    return tuple(float(v) for v in raw)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _figure(d: Any) -> _Figure | None:
    if not isinstance(d, dict):
        return None
    samples = _samples(d)
    if samples:
        return _Figure(float(np.median(samples)), samples)
    median = d.get("median_us")
    return _Figure(float(median)) if _is_number(median) else None


def _strategies(data: dict[str, Any]) -> dict[str, _Strategy]:
    """Each timed strategy's figures by spec string (raises on a malformed entry); an untimed
    one has no figure to compare."""
    entries = data.get("strategies")
    if not isinstance(entries, list):
        raise ValueError("no list of strategies")
    out: dict[str, _Strategy] = {}
    for e in entries:
        if not isinstance(e, dict) or not isinstance(e.get("strategy"), str):
            raise ValueError("a strategy entry without its 'strategy' name")
        marks = []
        for m in e.get("dispatches") or ():
            f = _figure(m)
            if f is not None and isinstance(m.get("label"), str):
                marks.append((m["label"], f))
        total = _figure(e.get("timing"))
        drift = e.get("drift")
        if total is not None:
            out[e["strategy"]] = _Strategy(total, tuple(marks),
                                           drift.get("text") if isinstance(drift, dict) else None)
    return out


def saved_timings(data: dict[str, Any]) -> list[tuple[str, GpuTiming]]:
    """Each timed strategy of a saved run (a checked :class:`SavedRun`'s data) as the timing
    it was measured as: its samples, or its median alone in a file without samples (the window
    shows a saved run with these)."""
    def stats(f: _Figure) -> TimingStats:
        return TimingStats(f.samples_us or (f.median_us,))

    return [(name, GpuTiming(stats(s.total), tuple((label, stats(f)) for label, f in s.marks)))
            for name, s in _strategies(data).items()]


# --- the comparison -------------------------------------------------------------------------------
def bootstrap_ratio(new: Sequence[float], old: Sequence[float], resamples: int = RESAMPLES,
                    confidence: float = CONFIDENCE, seed: int = SEED) -> tuple[float, float]:
    """Percentile bootstrap interval of ``median(new) / median(old)``: each sample set is
    resampled with replacement ``resamples`` times, independently (the two runs' samples are not
    paired), and the interval holds the middle ``confidence`` of the resampled ratios.

    Numpy only, on purpose: ``scipy.stats.bootstrap`` would do this, but the GPU machine that
    runs benchmarks has numpy and no SciPy (as mipview/runs/drift.py). Seeded: the same samples always
    give the same interval, so a saved comparison can be reproduced."""
    a = np.asarray(new, dtype=np.float64)
    b = np.asarray(old, dtype=np.float64)
    if a.size == 0 or b.size == 0:
        raise ValueError("bootstrap_ratio needs samples on both sides")
    rng = np.random.default_rng(seed)
    ratios = np.empty(resamples)
    chunk = max(1, _CHUNK_ELEMENTS // max(a.size, b.size))
    for lo in range(0, resamples, chunk):
        n = min(chunk, resamples - lo)
        med_a = np.median(a[rng.integers(0, a.size, (n, a.size))], axis=1)
        med_b = np.median(b[rng.integers(0, b.size, (n, b.size))], axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):  # a zero old median: inf, sorted last
            ratios[lo:lo + n] = med_a / med_b
    tail = (1.0 - confidence) / 2.0
    # order statistics, not interpolation: never narrower, and inf (a zero old median) stays inf
    low = np.quantile(ratios, tail, method="lower")
    high = np.quantile(ratios, 1.0 - tail, method="higher")
    return float(low), float(high)


def _delta(strategy: str, mark: str | None, new: _Figure, old: _Figure,
           resamples: int, confidence: float, seed: int) -> FigureDelta:
    if old.median_us <= 0:
        return FigureDelta(strategy, mark, ZERO_BASELINE, new.median_us, old.median_us)
    ratio = new.median_us / old.median_us
    if not new.samples_us or not old.samples_us:
        return FigureDelta(strategy, mark, NO_SAMPLES, new.median_us, old.median_us, ratio)
    low, high = bootstrap_ratio(new.samples_us, old.samples_us, resamples, confidence, seed)
    verdict = SLOWER if low > 1.0 else FASTER if high < 1.0 else WITHIN_NOISE
    return FigureDelta(strategy, mark, verdict, new.median_us, old.median_us, ratio, (low, high))


def _mark_keys(marks: tuple[tuple[str, _Figure], ...]) -> dict[tuple[str, int], _Figure]:
    """Marks by (label, occurrence): a label that repeats is matched in order."""
    seen: dict[str, int] = {}
    out = {}
    for label, f in marks:
        out[(label, seen.get(label, 0))] = f
        seen[label] = seen.get(label, 0) + 1
    return out


def compare_runs(new: dict[str, Any], old: dict[str, Any], resamples: int = RESAMPLES,
                 confidence: float = CONFIDENCE, seed: int = SEED) -> BaselineReport:
    """Every figure of ``new`` against ``old`` (both as mipview/runs/report.py writes them): the
    new run's strategies in their order, each followed by its marks, then those of ``old``
    that ``new`` lacks."""
    ours, theirs = _strategies(new), _strategies(old)
    deltas: list[FigureDelta] = []
    for name, s in ours.items():
        o = theirs.get(name)
        if o is None:
            deltas.append(FigureDelta(name, None, NEW))
            continue
        deltas.append(_delta(name, None, s.total, o.total, resamples, confidence, seed))
        old_marks = _mark_keys(o.marks)
        new_marks = _mark_keys(s.marks)
        for key, f in new_marks.items():
            of = old_marks.get(key)
            deltas.append(FigureDelta(name, key[0], NEW) if of is None
                          else _delta(name, key[0], f, of, resamples, confidence, seed))
        deltas += [FigureDelta(name, key[0], MISSING) for key in old_marks if key not in new_marks]
    deltas += [FigureDelta(name, None, MISSING) for name in theirs if name not in ours]
    return BaselineReport(describe(old), tuple(deltas), tuple(_warnings(new, old, ours, theirs)),
                          resamples, confidence, seed)


def describe(data: dict[str, Any]) -> str:
    """``mipview 0.3.0 on NVIDIA H200 (driver 565.57), 4096x4096x1 unorm, warm``."""
    dev, img = data.get("device") or {}, data.get("image") or {}
    return (f"{data.get(GENERATOR_KEY, '?')} on {_device(dev)}, {_image(img)}, "
            f"{data.get('cache', '?')}")


def _device(dev: dict[str, Any]) -> str:
    return f"{dev.get('name', '?')} (driver {dev.get('driver', '?')})"


def _image(img: dict[str, Any]) -> str:
    return (f"{img.get('width', '?')}x{img.get('height', '?')}x{img.get('layers', '?')} "
            f"{img.get('format', '?')}")


def _clock(clock: Any) -> str:
    if not isinstance(clock, dict):
        return "not readable"
    lo, hi = clock.get("sm_mhz") or (0, 0)
    return f"SM {lo} MHz" if lo == hi else f"SM {lo}-{hi} MHz"


def _warnings(new: dict[str, Any], old: dict[str, Any], ours: dict[str, _Strategy],
              theirs: dict[str, _Strategy]) -> list[str]:
    """Why the figures may not be comparable: other device or driver, other clock state (the
    SM range while timing), other image or cache mode, a clock or a strategy that drifted."""
    out = []
    nd, od = new.get("device") or {}, old.get("device") or {}
    if (nd.get("name"), nd.get("driver")) != (od.get("name"), od.get("driver")):
        out.append(f"compared across devices: {_device(nd)} now, {_device(od)} in the baseline")
    if _clock(new.get("clock")) != _clock(old.get("clock")):
        out.append(f"clock states differ: {_clock(new.get('clock'))} now, "
                   f"{_clock(old.get('clock'))} in the baseline")
    for which, data in (("this run", new), ("the baseline", old)):
        clock = data.get("clock")
        if isinstance(clock, dict) and clock.get("changed"):
            out.append(f"the clock changed while timing {which}: its figures are not comparable")
    ni, oi = _image(new.get("image") or {}), _image(old.get("image") or {})
    if ni != oi:
        out.append(f"compared across images: {ni} now, {oi} in the baseline")
    if new.get("cache") != old.get("cache"):
        out.append(f"compared across cache modes: {new.get('cache')} now, {old.get('cache')} "
                   "in the baseline")
    for which, runs in (("this run", ours), ("the baseline", theirs)):
        out += [f"{name} {s.drift} in {which}" for name, s in runs.items() if s.drift]
    return out
