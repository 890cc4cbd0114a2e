"""One Run as the window does it, without Qt: generate, time, then analyse.

Order (each step reported to a :class:`RunListener` as soon as it is done, so a window shows it
at once): prepare the strategies and generate (levels read back) -> ``levels``; time them the way
``mipview bench`` does (:meth:`Session.time_with` with a :class:`TimingSettings`, warm-up first,
strategies interleaved, many runs per command buffer) -> ``timing_update`` while it runs,
``timings`` when done; then the analysis: the exact reference (``reference``) and each
strategy's verdict and heatmaps (``analysed``, in the order they finish), computed in a thread
pool. The reference pyramids come from a :class:`ReferenceCache` the caller keeps, so a later
run of the same image and format computes none.

On a GPU the analysis (references, verdicts, heatmaps) is computed while the GPU warms up and
is timed: the CPU only waits on fences then, and GPU timings are timestamps of GPU work; it is
reported after the timings, from the figures the reference cache kept. On a CPU device
(lavapipe) nothing runs beside the timing: it would take the cores being timed.

``python -m mipview.cli.window_run --size 4096 --strategies all --repeat 20`` runs it headless
(no PySide6 needed) and prints the time to the timings and to everything, and the medians.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from mipview.check.verdict import FILE_CODEC, FILE_EXPECT, ReferenceCache, Verdict
from mipview.core.cancel import run_with
from mipview.core.formats import Format
from mipview.core.results import RunResult, StrategyResult, TimingSettings
from mipview.core.specs import CUSTOM_PREFIX, StrategySpec
from mipview.runs import analysis
from mipview.runs.analysis import StrategyAnalysis

if TYPE_CHECKING:  # the GPU modules load with the first run
    from mipview.gpu.session import Session
    from mipview.gpu.vulkan.context import GpuContext
    from mipview.io.imageio import SourceImage

#: at most this many ``timing_update`` calls per second (a window redraws on each)
UPDATE_HZ = 10.0
#: how often a wait on the analysis looks at the stop callable, seconds
_POLL_S = 0.05

Stop = Callable[[], bool]


class RunListener:
    """What a run reports, in the order it happens; override what you need (the defaults do
    nothing). Called from the thread that runs :func:`run`."""

    def progress(self, text: str) -> None:
        """A line for a status bar."""

    def levels(self, mip: RunResult, notes: tuple[str, ...] = ()) -> None:
        """Every strategy's levels, read back (and a texture file's own chain); no timings yet.
        ``notes``: lines about the file the source came from."""

    def warming_up(self, settings: TimingSettings) -> None:
        """Timing begins with ``settings.warmup_ms`` of untimed runs (no figures meanwhile)."""

    def timing_update(self, mip: RunResult) -> None:
        """Timings so far (at most :data:`UPDATE_HZ` a second), after the warm-up."""

    def timings(self, mip: RunResult) -> None:
        """The run's timings, all of them, with the clock state seen (``mip.clock``)."""

    def reference(self, levels: tuple[np.ndarray, ...]) -> None:
        """The exact reference per level (:func:`analysis.reference_levels`)."""

    def analysed(self, done: int, total: int, errors: StrategyAnalysis) -> None:
        """One strategy's verdict and heatmaps; ``done`` of ``total`` are ready."""


@dataclass(frozen=True)
class RunOutcome:
    """What a run produced, and when (seconds from its start)."""

    mip: RunResult
    reference: tuple[np.ndarray, ...]
    #: in the order of ``mip.results``
    errors: tuple[StrategyAnalysis, ...]
    levels_s: float
    #: None: not timed
    timings_s: float | None
    done_s: float
    #: what :attr:`RunOptions.measure` returned (None without one)
    measured: object = None

    @property
    def verdicts(self) -> dict[str, Verdict]:
        """Each result's verdict by its spec's text, in the order of ``mip.results``."""
        return _by_spec(self.errors)


def generate(session: Session, listener: RunListener,
             source: SourceImage | None = None, expect: str | None = None) -> RunResult:
    """One run of every strategy, its levels read back and reported, with the chain of the
    texture file ``source`` came from as one more result (:func:`with_file_chain`, ``expect``
    as it says)."""
    listener.progress("generating")
    session.generate()
    mip, notes = _with_file(session.result(), source, session, expect)
    listener.levels(mip, notes)
    return mip


def with_file_chain(mip: RunResult, source: SourceImage, fmt: Format, level0: np.ndarray,
                    expect: str | None = None) -> tuple[RunResult, tuple[str, ...]]:
    """``mip`` with the chain of the texture file ``source`` came from as one more result, after
    the strategies' (judged by the one verdict like theirs: fitted and reported, see
    check/verdict.py), and the lines a user should read about the file: its notes, or why its
    chain is not checked. ``level0`` is what the run uploaded in ``fmt``. ``mip`` as it is, and
    no lines, for other sources and one-level files. ``expect``: the filter the user expects
    the chain to match (a reference name, ``mean`` for the box): the result's reduction, its
    chain then held to that filter's bounds. A chain decoded from block compression says so.

    The result is added after the GPU work, never asked of a session: "file" is no strategy."""
    texture = source.texture
    if texture is None:
        return mip, ()
    why = texture.mismatch(fmt, level0)
    if why:
        notes = texture.notes if not texture.has_chain else (
            f"its own chain is not checked: {why}", *texture.notes)
    else:
        result = _told(texture.as_result(fmt), expect, texture.decoded_from)
        mip, notes = replace(mip, results=(*mip.results, result)), result.notes
    return mip, tuple(f"{texture.name}: {note}" for note in notes)


def _told(result: StrategyResult, expect: str | None, codec: str | None) -> StrategyResult:
    """A file's result with what its verdict is told (check.verdict.FILE_EXPECT, FILE_CODEC):
    the filter expected, as its reduction too, and the block compression decoded."""
    told = ((FILE_EXPECT, expect),) if expect is not None else ()
    told += ((FILE_CODEC, codec),) if codec else ()
    if not told:
        return result
    return replace(result, reduction=expect or result.reduction,
                   options_used=(*result.spec.options, *told))


def _with_file(mip: RunResult, source: SourceImage | None, session: Session,
               expect: str | None = None) -> tuple[RunResult, tuple[str, ...]]:
    if source is None:
        return mip, ()
    level0 = session.level0 if session.layers > 1 else session.level0[0]
    return with_file_chain(mip, source, session.fmt, level0, expect)


def phase_text(settings: TimingSettings, then: str) -> str:
    """``warming up 1.0 s, then <then>``; ``then`` alone when there is no warm-up."""
    return f"warming up {settings.warmup_ms / 1000:.1f} s, then {then}" \
        if settings.warmup_ms else then


def time_strategies(session: Session, settings: TimingSettings, listener: RunListener,
                    should_stop: Stop | None = None) -> RunResult | None:
    """Time the session's strategies as ``settings`` say; the result with its timings, or None
    when stopped."""
    listener.progress(phase_text(settings, f"timing {settings.repeat} runs per strategy"))
    listener.warming_up(settings)
    last = [0.0]

    def on_round() -> None:
        now = time.perf_counter()
        if now - last[0] >= 1.0 / UPDATE_HZ:
            last[0] = now
            listener.timing_update(session.result())

    if not session.time_with(settings, should_stop, on_round):
        return None
    mip = session.result()
    listener.timings(mip)
    return mip


def shader_digests(specs: Sequence[StrategySpec]) -> tuple[tuple[str, str], ...]:
    """(spec, digest of the version that runs) of each custom strategy (``shader:PATH``): the
    pinned good compile in the window, so a save that does not compile changes nothing; a
    changed digest is a reloaded shader. One that cannot be loaded digests as "unreadable"."""
    from mipview.core.errors import MipviewError
    from mipview.gpu.strategies import strategy_class

    out = []
    for spec in specs:
        if spec.name.startswith(CUSTOM_PREFIX):
            try:
                digest = str(strategy_class(spec.name).shader.digest)  # type: ignore[attr-defined]
            except MipviewError:
                digest = "unreadable"
            out.append((str(spec), digest))
    return tuple(out)


def prefetch_references(pool: Executor, refs: ReferenceCache, level0: np.ndarray,
                        mip: RunResult, should_stop: Stop | None = None) -> list[Future]:
    """Start computing the reference pyramids the analysis of ``mip`` will read (abandoned
    at the next level once ``should_stop`` says so)."""
    return [pool.submit(run_with, should_stop, refs.get, level0, mip.fmt, name)
            for name in analysis.references_needed(mip.results)]


def prefetch_analysis(pool: Executor, refs: ReferenceCache, level0: np.ndarray,
                      mip: RunResult, should_stop: Stop | None = None,
                      maps: bool = True) -> list[Future]:
    """Start the whole analysis of ``mip``'s levels (they do not change with the timing): the
    references, then each strategy's verdict and heatmaps. What it computes lands in ``refs``
    (each level's figures by the hash of its values), so the analysis after the timings finds
    it there; the results of these jobs are not read. Abandoned at the next level once
    ``should_stop`` says so."""
    return prefetch_references(pool, refs, level0, mip, should_stop) + [
        pool.submit(run_with, should_stop, analysis.analyse_strategy, res, level0, mip.fmt, refs,
                    maps)
        for res in mip.results]


def _drop(futures: Sequence[Future], stopped: bool) -> None:
    """Cancel what has not started; wait for the rest unless stopped: a stopped task ends at
    its next checkpoint by itself (it runs under the same token), and a Stop must not wait
    for the level it is in."""
    for f in futures:
        f.cancel()
    if not stopped:
        wait(futures)


def analyse(mip: RunResult, level0: np.ndarray, refs: ReferenceCache, listener: RunListener,
            pool: Executor, should_stop: Stop | None = None, maps: bool = True) \
        -> tuple[tuple[np.ndarray, ...], tuple[StrategyAnalysis, ...]] | None:
    """The exact reference and every strategy's verdict and (with ``maps``) heatmaps, computed
    in ``pool``, reported as each is ready; None when stopped (at once: what had not started is
    dropped, what had ends at its next checkpoint, within a level, so it hardly competes with
    the next job)."""
    stop = should_stop or (lambda: False)
    results = mip.results
    total = len(results)
    listener.progress(f"analysing 0/{total}: exact reference")
    started = prefetch_references(pool, refs, level0, mip, should_stop)
    jobs = {pool.submit(run_with, should_stop, analysis.analyse_strategy, res, level0, mip.fmt,
                        refs, maps): i
            for i, res in enumerate(results)}
    started += list(jobs)
    try:
        if not _wait_for(started[:1], stop):
            return None
        reference = analysis.reference_levels(level0, mip.fmt, refs)
        listener.reference(reference)
        errors: list[StrategyAnalysis | None] = [None] * total
        pending, done = set(jobs), 0
        while pending:
            finished, pending = wait(pending, timeout=_POLL_S, return_when=FIRST_COMPLETED)
            if stop():
                return None
            for job in sorted(finished, key=jobs.__getitem__):
                e = job.result()
                errors[jobs[job]] = e
                done += 1
                listener.progress(f"analysing {done}/{total}: {e.spec}")
                listener.analysed(done, total, e)
        return reference, tuple(e for e in errors if e is not None)
    finally:
        _drop(started, stop())


def verdicts(mip: RunResult, level0: np.ndarray, refs: ReferenceCache | None = None,
             pool: Executor | None = None) -> dict[str, Verdict]:
    """Each result's verdict by its spec's text, judged as :func:`run` judges (no heatmaps), for
    results made outside a Run (``bench --sizes`` times several sessions in one loop)."""
    own = pool is None
    pool = pool or ThreadPoolExecutor(analysis.pool_size(), "mipview-analysis")
    try:
        got = analyse(mip, level0, refs or ReferenceCache(), RunListener(), pool, maps=False)
    finally:
        if own:
            pool.shutdown()
    assert got is not None  # nothing asks it to stop
    return _by_spec(got[1])


def _by_spec(errors: Sequence[StrategyAnalysis]) -> dict[str, Verdict]:
    return {str(e.spec): e.verdict for e in errors}


def _wait_for(futures: Sequence[Future], stop: Stop) -> bool:
    """Wait until ``futures`` are done (re-raising their errors); False if stopped first."""
    pending = set(futures)
    while pending:
        _, pending = wait(pending, timeout=_POLL_S)
        if stop():
            return False
    for f in futures:
        f.result()
    return True


@dataclass(frozen=True)
class RunOptions:
    """What a Run does besides generating: the window's Run times and analyses with heatmaps;
    ``mipview run`` judges without timing, ``mipview bench`` times and judges, both without
    heatmaps."""

    #: how to time (None: levels only)
    timing: TimingSettings | None = None
    #: judge every result (False: ``--no-check``)
    judge: bool = True
    #: the heatmaps of the window's views beside each verdict
    maps: bool = True
    #: more measurements on the open session after timing (bench's sampled read of level 0);
    #: what it returns is :attr:`RunOutcome.measured`
    measure: Callable[[Session], object] | None = None
    #: judge a texture file's own chain beside the strategies (False: a bench times
    #: strategies, and the file's chain is none)
    file_chain: bool = True
    #: the filter a texture file's own chain is expected to match (``mipview run --expect``,
    #: a reference name): held to it; None: its fit is reported, not judged
    expect: str | None = None


def run(ctx: GpuContext, level0: np.ndarray, fmt: Format, specs: Sequence[StrategySpec],
        options: RunOptions, refs: ReferenceCache, listener: RunListener,
        should_stop: Stop | None = None, pool: Executor | None = None,
        source: SourceImage | None = None) -> RunOutcome | None:
    """Generate, time, analyse, as ``options`` say; None when stopped. The one Run of the
    window, ``mipview run`` and ``mipview bench``. ``source``: the image ``level0`` came from,
    whose texture file's own chain (if any) is judged beside the strategies.

    ``level0`` is the storage array to upload, read-only (``refs`` knows it by identity);
    ``pool`` runs the analyses (a pool of :func:`analysis.pool_size` threads for this run when
    None)."""
    from mipview.gpu.session import Session

    source = source if options.file_chain else None
    stop = should_stop or (lambda: False)
    own_pool = pool is None
    pool = pool or ThreadPoolExecutor(analysis.pool_size(), "mipview-analysis")
    t0 = time.perf_counter()
    timings_s = None
    measured = None
    prefetched: list[Future] = []
    settings = options.timing
    try:
        with Session(ctx, level0, fmt, list(specs)) as session:
            mip = generate(session, listener, source, options.expect)
            levels_s = time.perf_counter() - t0
            if stop():
                return None
            if settings is not None and session.prepared:
                if ctx.caps.device_type != "cpu" and options.judge:
                    prefetched = prefetch_analysis(pool, refs, level0, mip, should_stop,
                                                   options.maps)
                timed = time_strategies(session, settings, listener, stop)
                if timed is None:
                    return None
                mip, timings_s = (_with_file(timed, source, session, options.expect)[0],
                                  time.perf_counter() - t0)
            if options.measure is not None:
                measured = options.measure(session)
        if not options.judge:
            return RunOutcome(mip, (), (), levels_s, timings_s, time.perf_counter() - t0,
                              measured)
        got = analyse(mip, level0, refs, listener, pool, stop, options.maps)
        if got is None:
            return None
        return RunOutcome(mip, got[0], got[1], levels_s, timings_s, time.perf_counter() - t0,
                          measured)
    finally:
        _drop(prefetched, stop())
        if own_pool:
            pool.shutdown()
