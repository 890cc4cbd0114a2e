"""UI benchmarks (not tests): ``python -m tools.measure [--size 4096] [--live-s 10]``.

1. open + first pyramid shown: a ``size``² PNG is opened through the window, as a user would;
   reports the time until the source is on screen and until the first GPU pyramid (the checked
   strategies, levels only) is on screen.
2. strategy against strategy: on that run, the Heatmaps tab shows the first strategy "against"
   the second (computed off the UI thread); reports the time until the comparison is on screen
   and the longest UI event-loop stall meanwhile.
3. live profiling: ``--live-s`` seconds of Profile (live) on the bundled photo; the chart counts
   its updates per second. The viewer's per-pixel controls are on meanwhile (exposure, so each
   level goes through the display transform; false colour, the overlay, the histogram and a
   locked texel), as the window's stall budget asks.
4. Run all five at ``--five-size``² (default 1024; ``--five-only`` skips the phases above): all
   five built-in strategies, 20 timed runs, as a user presses Run with the image open; reports
   the time until the chart shows the final timings and until everything (reference, every
   strategy's verdict and heatmaps) is shown, for the first Run (shader pipelines compiled) and
   the Runs after it.
Stalls: a 5 ms QTimer records the gaps between its ticks; the longest is the worst stall, split
into the UI thread's own work, its wait for a core and the time it was blocked (Linux), with the
machine's load: on a shared machine, a stall spent waiting for a core is other processes'.
Also writes screenshots (pyramid and heatmap tabs) to ``--shots`` for a look.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
from pathlib import Path

from mipview.core.blas import one_blas_thread

one_blas_thread()  # as `python -m mipview` does, before numpy loads

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402


def _spin(app, until, timeout_s: float) -> bool:
    end = time.perf_counter() + timeout_s
    while not until():
        if time.perf_counter() > end:
            return False
        _turn(app)
        time.sleep(0.001)
    return True


def _turn(app) -> None:
    """One turn of the event loop (what runs between two ticks at most), logged by ``--turns``."""
    if _TURNS is None or not _TURNS.active:
        app.processEvents()
        return
    _TURNS.events.clear()
    t0 = time.perf_counter()
    app.processEvents()
    _TURNS.ended(t0, time.perf_counter())


class _TurnLog:
    """``--turns MS``: every turn of the event loop longer than MS while a phase is measured,
    with what it ran (paints and their sizes, timers, layouts, the worker replies routed and the
    views' steps, the garbage collections of any thread) and how long each took: what made the
    UI thread's long turns, where the sampler of ``--why`` sees too little."""

    def __init__(self, app, window, longer_ms: float) -> None:
        from PySide6.QtCore import QEvent, QObject

        self.longer_s = longer_ms / 1000
        self.active = False
        self.events: list[tuple[float, str]] = []
        self.long: list[str] = []
        kinds = {QEvent.Type.Paint, QEvent.Type.UpdateRequest, QEvent.Type.LayoutRequest,
                 QEvent.Type.Timer, QEvent.Type.MetaCall}
        log = self.events

        class Filter(QObject):
            def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt's name)
                if event.type() in kinds:
                    what = f"{event.type().name} {type(obj).__name__}"
                    owner = obj.parent()  # name the mipview widget a Qt or pyqtgraph one serves
                    while owner is not None and not type(owner).__module__.startswith("mipview"):
                        owner = owner.parent()
                    if owner is not None and owner is not obj:
                        what += f" in {type(owner).__name__}"
                    if obj.objectName():
                        what += f" {obj.objectName()}"
                    if event.type() == QEvent.Type.Paint:
                        what += f" {event.rect().width()}x{event.rect().height()}"
                    log.append((time.perf_counter(), what))
                return False

        self._filter = Filter()
        app.installEventFilter(self._filter)
        import threading

        def collected(phase: str, info: dict) -> None:
            # in any thread: a collection holds the interpreter lock (as _Sampler._gc says)
            log.append((time.perf_counter(), f"  gc gen {info['generation']} {phase} in "
                                             f"{threading.current_thread().name}"))
        gc.callbacks.append(collected)
        from mipview.ui import steps

        def naming(queue):  # name the steps a timer runs
            def queued(step, owner=None) -> None:
                def named() -> None:
                    log.append((time.perf_counter(), f"  step {step.__qualname__}"))
                    step()
                queue(named, owner)
            return queued
        steps.later, steps.soon = naming(steps.later), naming(steps.soon)
        routes = window._routes  # name the replies a MetaCall delivers
        for kind, route in list(routes.items()):
            def logged(win, msg, route=route, name=kind.__name__) -> None:
                log.append((time.perf_counter(), f"  reply {name}"))
                route(win, msg)
            routes[kind] = logged

    def ended(self, t0: float, t1: float) -> None:
        if t1 - t0 <= self.longer_s:
            return
        marks = [(t0, "(turn begins)"), *self.events, (t1, "")]
        parts = [f"{(a - t0) * 1000:6.1f} +{(b - a) * 1000:5.1f} {what}"
                 for (a, what), (b, _) in zip(marks, marks[1:], strict=False) if b - a > 0.001]
        self.long.append(f"  turn of {(t1 - t0) * 1000:.1f} ms:\n    " + "\n    ".join(parts))

    def begin(self) -> None:
        self.active, self.long = True, []

    def text(self) -> str:
        return ("\n" + "\n".join(self.long)) if self.long else ""


_TURNS: _TurnLog | None = None


def _sched_s() -> tuple[float, float] | None:
    """(seconds this thread ran, seconds it waited for a core) from Linux's schedstat; None
    elsewhere."""
    try:
        with open("/proc/thread-self/schedstat") as f:
            ran, waited = f.read().split()[:2]
    except OSError:
        return None
    return int(ran) / 1e9, int(waited) / 1e9


class _Sampler:
    """Samples the UI thread's Python stack every 2 ms from a daemon thread of its own, for the
    rest of the process, so a stall can name what the UI thread was doing: the innermost
    mipview (or pyqtgraph) frames, and the garbage collections meanwhile. The other threads'
    stacks too, each with the CPU time it used since the sample before (Linux): when the UI
    thread is blocked on the interpreter lock, the thread that worked meanwhile is the one to
    look at."""

    def __init__(self) -> None:
        import threading

        self._ui = threading.get_ident()
        self.samples: list[tuple[float, str]] = []
        #: (time, thread name, where, CPU seconds since its sample before) of the other threads
        self.others: list[tuple[float, str, str, float]] = []
        self._cpu: dict[int, float] = {}
        #: (time, CPU seconds of this process's threads that run no Python, busy and all CPU
        #: seconds of the machine) since the sample before: what held the cores when the UI
        #: thread waited for one (a driver's threads, other processes)
        self.machine: list[tuple[float, dict[str, float], float, float]] = []
        self._tasks: dict[int, float] = {}
        self._stat = self._machine_cpu()
        #: (start, end, generation) of every garbage collection
        self.collections: list[tuple[float, float, int]] = []
        self._gc_start = 0.0
        gc.callbacks.append(self._gc)
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    @staticmethod
    def _where(frame) -> str:
        names = []
        while frame is not None and len(names) < 4:
            path = frame.f_code.co_filename
            if "mipview" in path or "pyqtgraph" in path:
                names.append(f"{Path(path).stem}.{frame.f_code.co_name}:{frame.f_lineno}")
            frame = frame.f_back
        return " < ".join(names) or "(Qt / outside Python)"

    def _gc(self, phase: str, info: dict) -> None:
        # the collector runs in whichever thread allocates, holding the GIL: a long one in any
        # thread stalls the UI thread too
        if phase == "start":
            self._gc_start = time.perf_counter()
        else:
            self.collections.append((self._gc_start, time.perf_counter(), info["generation"]))

    def _loop(self) -> None:
        while True:
            time.sleep(0.002)
            now = time.perf_counter()
            self.samples.append((now, self._sample(now)))

    @staticmethod
    def _thread_cpu(native_id: int | None) -> float:
        """CPU seconds thread ``native_id`` of this process used so far (Linux; else 0)."""
        try:
            with open(f"/proc/self/task/{native_id}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            return 0.0

    @staticmethod
    def _machine_cpu() -> tuple[float, float]:
        """(busy, all) CPU seconds of the whole machine so far, from /proc/stat (else zeros)."""
        try:
            with open("/proc/stat") as f:
                ticks = [int(v) for v in f.readline().split()[1:]]
        except (OSError, ValueError):
            return 0.0, 0.0
        hz = os.sysconf("SC_CLK_TCK")
        idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)  # idle and iowait
        return (sum(ticks) - idle) / hz, sum(ticks) / hz

    def _other_tasks(self, python: set[int]) -> dict[str, float]:
        """CPU seconds this process's threads outside ``python`` (native ids) used since the
        sample before, by thread name (``comm``): a driver's or Qt's own threads."""
        try:
            tids = [int(t) for t in os.listdir("/proc/self/task")]
        except OSError:
            return {}
        used: dict[str, float] = {}
        for tid in tids:
            if tid in python:
                continue
            cpu = self._thread_cpu(tid)
            if cpu > self._tasks.get(tid, cpu):
                try:
                    with open(f"/proc/self/task/{tid}/comm") as f:
                        name = f.read().strip()
                except OSError:
                    name = "?"
                used[name] = used.get(name, 0.0) + cpu - self._tasks[tid]
            self._tasks[tid] = cpu
        return used

    def _sample(self, now: float) -> str:
        # no reference to the UI thread's frames outlives this call: held across a GIL switch
        # they outlived the frames they stood for, and Python 3.11 crashed (segmentation
        # faults in 9 of 30 measure runs with --why, 0 of 12 without)
        import threading

        frames = sys._current_frames()
        try:
            mine = threading.get_ident()
            # QThreads that never asked threading who they are have a stack but no name or
            # native id: a name from their id, and no CPU figure
            known = {t.ident: t for t in threading.enumerate()}
            busy, every = self._machine_cpu()
            python = {t.native_id for t in known.values() if t.native_id is not None}
            self.machine.append((now, self._other_tasks(python), busy - self._stat[0],
                                 every - self._stat[1]))
            self._stat = (busy, every)
            for ident, frame in frames.items():
                if ident in (self._ui, mine):
                    continue
                t = known.get(ident)
                cpu = self._thread_cpu(t.native_id) if t is not None else 0.0
                used = cpu - self._cpu.get(ident, cpu)
                self._cpu[ident] = cpu
                inner = f"{Path(frame.f_code.co_filename).stem}.{frame.f_code.co_name}"
                name = t.name if t is not None else f"thread {ident % 100000}"
                self.others.append((now, name, f"{inner} in {self._where(frame)}", used))
            return self._where(frames.get(self._ui))
        finally:
            frames.clear()

    def between(self, t0: float, t1: float, top: int = 6) -> str:
        from collections import Counter

        hits = Counter(w for t, w in self.samples if t0 <= t <= t1)
        total = sum(hits.values()) or 1
        gcs = [(e - s, g) for s, e, g in self.collections if s < t1 and e > t0]
        gc_text = "; garbage collections: " + ", ".join(
            f"gen {g} {d * 1000:.1f} ms" for d, g in gcs) if gcs else ""
        # the other threads by the CPU they used in the span, each at its most sampled place
        used: Counter = Counter()
        places: dict[str, Counter] = {}
        for t, name, where, cpu in self.others:
            if t0 <= t <= t1:
                used[name] += cpu
                places.setdefault(name, Counter())[where] += 1
        ranked = sorted(places, key=lambda n: (used[n], places[n].total()), reverse=True)
        others = "; ".join(
            f"{n} {used[n] * 1000:.0f} ms CPU, mostly {places[n].most_common(1)[0][0]}"
            for n in ranked[:4])
        span = [m for m in self.machine if t0 <= m[0] <= t1]
        native: Counter = Counter()
        for m in span:
            native.update(m[1])
        names = ", ".join(f"{n} {v * 1000:.0f}" for n, v in native.most_common(3))
        busy = sum(m[2] for m in span)  # in clock ticks (10 ms): coarse for one stall
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 0
        machine = (f"\n  threads without Python {native.total() * 1000:.0f} ms CPU ({names}); "
                   f"the machine "
                   f"{busy / (t1 - t0):.1f} of {os.cpu_count()} cores busy ({cores} this "
                   f"process may use)") if span and t1 > t0 else ""
        return "; ".join(f"{100 * n / total:.0f}% {w}" for w, n in hits.most_common(top)) \
            + gc_text + (f"\n  other threads meanwhile: {others}" if others else "") + machine


class _Ticks:
    """Gaps between the ticks of a 5 ms QTimer while running: the UI event loop's stalls.

    The longest one is split (on Linux) into the UI thread's own work, its wait for a core
    (other processes, or this one's other threads, had them) and the rest, when it was
    blocked (the GIL, a lock, a thread it waits for): which one to look at when it is long."""

    def __init__(self, sampler: _Sampler | None = None) -> None:
        from PySide6.QtCore import QTimer

        self.gaps: list[float] = []
        self._last = 0.0
        self._sched: tuple[float, float] | None = None
        #: the longest gap: its length, (start, end) for ``--why``, and (gap, ran, waited for a
        #: core) where the scheduler's figures were read at both ends
        self._longest = 0.0
        self._worst_span = (0.0, 0.0)
        self._worst: tuple[float, float, float] | None = None
        self.sampler = sampler
        self._timer = QTimer()
        self._timer.setObjectName("measure-ticks")
        self._timer.setInterval(5)
        self._timer.timeout.connect(self._tick)

    def _tick(self) -> None:
        now, sched = time.perf_counter(), _sched_s()
        gap = now - self._last
        self.gaps.append(gap)
        if gap > self._longest:
            self._longest, self._worst_span = gap, (self._last, now)
            self._worst = None if sched is None or self._sched is None else \
                (gap, sched[0] - self._sched[0], sched[1] - self._sched[1])
        self._last, self._sched = now, sched

    def start(self) -> None:
        if _TURNS is not None:
            _TURNS.begin()
        self.gaps.clear()
        self._longest, self._worst = 0.0, None
        self._last, self._sched = time.perf_counter(), _sched_s()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()
        self._tick()  # a stall at the very end counts too
        if _TURNS is not None:
            _TURNS.active = False  # what the phase's stall figures cover, no more

    def report(self) -> str:
        stall = max(self.gaps) * 1000 if self.gaps else float("nan")
        split = ""
        if self._worst is not None:
            gap, ran, waited = (v * 1000 for v in self._worst)
            split = (f": UI thread working {ran:.1f} ms, waiting for a core {waited:.1f} ms, "
                     f"blocked {max(0.0, gap - ran - waited):.1f} ms")
        why = ""
        if self.sampler is not None:
            why = f"\n  during it: {self.sampler.between(*self._worst_span)}"
        turns = _TURNS.text() if _TURNS is not None else ""
        return (f"longest event-loop stall {stall:.1f} ms{split} "
                f"(p99 tick gap {np.percentile(self.gaps, 99) * 1000:.1f} ms; "
                f"load {os.getloadavg()[0]:.1f}){why}{turns}")


FIVE = "blit,per-level,npot-exact,subgroup,single-pass"


def _run_all_five(app, window, size: int, runs: int, tmp: str,
                  sampler: _Sampler | None, image: str | None = None) -> None:
    """Phase 4: Run all five strategies at ``size``², ``runs`` times; time to the chart's final
    timings and to everything shown."""
    from mipview.gpu.strategies.specs import expand_specs
    from mipview.io import synthetic

    path = Path(image or Path(tmp) / f"five_{size}.png")
    if image is None:
        src = synthetic.image(size, size)
        Image.fromarray(np.clip(np.rint(src.pixels * 255), 0, 255).astype(np.uint8)).save(path)
    dims = Image.open(path).size if image else (size, size)
    window.panel.run_on_open.setChecked(False)
    opened: list[object] = []
    window.sigImageOpened.connect(opened.append)
    window.open_image(str(path))
    _spin(app, lambda: bool(opened) and not window.is_busy(), 120)
    # the five strategies by name (``all`` grew with filter-pairs since)
    specs = expand_specs(FIVE)
    window.panel.set_specs(specs)
    window.panel.repeat_spin.setValue(20)
    marks: dict[str, float] = {}
    window.sigStatsShown.connect(
        lambda s: marks.setdefault("chart", time.perf_counter()) if s.final else None)
    window.sigAnalysisShown.connect(lambda _a: marks.setdefault("all", time.perf_counter()))
    ticks = _Ticks(sampler)
    for i in range(runs):
        marks.clear()
        ticks.start()
        t0 = time.perf_counter()
        window.run(False, specs)
        _spin(app, lambda: "all" in marks and not window.is_busy(), 300)
        _turn(app)  # and its paint (a forced repaint of every widget would be the benchmark's)
        ticks.stop()
        what = "first Run (pipelines compiled)" if i == 0 else f"Run {i + 1}"
        print(f"Run all five at {dims[0]}x{dims[1]}, 20 runs, {what}: chart "
              f"{marks['chart'] - t0:.2f} s, everything {marks['all'] - t0:.2f} s, painted {time.perf_counter() - t0:.2f} "
              f"s; {ticks.report()}")
        # the medians the chart shows, to set beside `mipview bench` on the same image
        print("  window medians (us): " + ", ".join(
            f"{spec} {t.total.median:.2f}" for spec, t in window.stats.timings))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.measure")
    parser.add_argument("--size", type=int, default=4096)
    parser.add_argument("--live-s", type=float, default=10.0)
    parser.add_argument("--strategies", default="blit,per-level")
    parser.add_argument("--shots", default="test-artifacts")
    parser.add_argument("--five-size", type=int, default=1024)
    parser.add_argument("--five-runs", type=int, default=3)
    parser.add_argument("--five-only", action="store_true")
    parser.add_argument("--five-image", help="phase 4 on this image instead of a synthetic one "
                        "(to set its medians beside `mipview bench IMAGE`)")
    parser.add_argument("--why", action="store_true",
                        help="sample the UI thread's stack and name what it did in each "
                             "phase's longest stall")
    parser.add_argument("--turns", type=float, metavar="MS",
                        help="name what ran in each turn of the event loop longer than MS "
                             "while a phase is measured")
    parser.add_argument("--switch-ms", type=float,
                        help="the GIL's switch interval (sys.setswitchinterval; Python's default "
                             "5 ms): how long a thread that wants the GIL waits before the one "
                             "holding it must let go")
    args = parser.parse_args(argv)
    if args.switch_ms:
        sys.setswitchinterval(args.switch_ms / 1000)
    sampler = _Sampler() if args.why else None
    from mipview.ui.app import reserve_ui_core

    reserve_ui_core()  # as `mipview gui` does
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

    from PySide6.QtCore import QSettings

    from mipview.core.specs import parse_spec_list
    from mipview.io import synthetic
    from mipview.io.samples import sample_path
    from mipview.ui.app import ensure_app, freeze_startup_objects
    from mipview.ui.main_window import MainWindow

    tmp = tempfile.mkdtemp(prefix="mipview-measure-")
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tmp)
    app = ensure_app()
    specs = parse_spec_list(args.strategies)
    window = MainWindow(restore=False)
    if args.turns:
        global _TURNS
        _TURNS = _TurnLog(app, window, args.turns)
    freeze_startup_objects()  # as `mipview gui` does
    window.resize(1600, 1000)
    window.show()
    window.panel.set_specs(specs)
    window.panel.repeat_spin.setValue(0)
    window.panel.run_on_open.setChecked(True)
    if not _spin(app, lambda: window.caps is not None, 60):
        print("no device")
        return 1
    from mipview.core import bands

    print(f"device: {window.caps.name}; analysis threads {bands.cores()}, GIL switch interval "
          f"{sys.getswitchinterval() * 1000:g} ms")
    if args.five_only:
        _run_all_five(app, window, args.five_size, args.five_runs, tmp, sampler,
                      args.five_image)
        window.shutdown()
        return 0

    big = Path(tmp) / f"zoneplate_{args.size}.png"
    src = synthetic.image(args.size, args.size)
    Image.fromarray(np.clip(np.rint(src.pixels * 255), 0, 255).astype(np.uint8)).save(big)
    marks: dict[str, float] = {}
    window.sigImageOpened.connect(lambda _o: marks.setdefault("source", time.perf_counter()))
    window.sigRunShown.connect(lambda _o: marks.setdefault("pyramid", time.perf_counter()))
    t0 = time.perf_counter()
    window.open_image(str(big))
    _spin(app, lambda: "pyramid" in marks, 120)
    window.repaint()  # include one paint of every level
    app.processEvents()
    t_paint = time.perf_counter()
    print(f"open {args.size}x{args.size} PNG: source shown {marks['source'] - t0:.3f} s, "
          f"GPU pyramid ({args.strategies}) shown {marks['pyramid'] - t0:.3f} s, "
          f"painted {t_paint - t0:.3f} s")
    _spin(app, lambda: not window.is_busy() and window.analysis is not None, 300)

    # strategy against strategy on that run, with the Heatmaps tab on screen
    window.tabs.setCurrentWidget(window.heatmap)
    names = [str(r.spec) for r in window.output.mip.results]
    app.processEvents()
    ticks = _Ticks(sampler)
    shown: list[object] = []
    window.sigComparisonShown.connect(shown.append)
    ticks.start()
    t0 = time.perf_counter()
    window.heatmap.select(names[0], names[-1])
    _spin(app, lambda: bool(shown), 300)
    _turn(app)  # and its first paint, as the window's own UpdateRequest makes it
    t_shown = time.perf_counter()
    ticks.stop()
    print(f"{names[0]} against {names[-1]} at {args.size}x{args.size}: shown "
          f"{t_shown - t0:.3f} s; {ticks.report()}")
    window.tabs.setCurrentWidget(window.pyramid)

    # live profiling on the bundled photo
    window.panel.run_on_open.setChecked(False)
    opened = []
    window.sigImageOpened.connect(opened.append)
    window.open_image(str(sample_path()))
    _spin(app, lambda: bool(opened) and not window.is_busy(), 60)
    viewer = window.pyramid
    viewer.controls.step("exposure", 1)
    viewer.controls.false_check.setChecked(True)
    viewer.controls.overlay_check.setChecked(True)
    viewer.histogram.setVisible(True)
    viewer.lock_texel(1, 40, 30)
    before = window.chart.updates
    window.run(True, specs)
    _spin(app, lambda: window.chart.updates > before, 60)
    draw_ms: list[float] = []
    update = window.chart.update_stats

    def timed_update(stats) -> None:
        t = time.perf_counter()
        update(stats)
        draw_ms.append((time.perf_counter() - t) * 1000)

    window.chart.update_stats = timed_update  # the first update: profiling is on
    start_updates = window.chart.updates
    ticks.start()
    t_live = time.perf_counter()
    end = t_live + args.live_s
    while time.perf_counter() < end:
        _turn(app)
        time.sleep(0.001)
    ticks.stop()
    n_updates = window.chart.updates - start_updates
    elapsed = time.perf_counter() - t_live
    window.stop()
    _spin(app, lambda: not window.is_busy(), 60)
    print(f"live {elapsed:.1f} s: {ticks.report()}, "
          f"chart updates {n_updates / elapsed:.1f}/s (chart update itself: max "
          f"{max(draw_ms, default=0):.1f} ms, median {np.median(draw_ms or [0]):.1f} ms)")

    shots = Path(args.shots)
    shots.mkdir(parents=True, exist_ok=True)
    window.panel.repeat_spin.setValue(20)
    window.run(False, specs)
    _spin(app, lambda: not window.is_busy(), 120)
    window.screenshot(str(shots / "measure_pyramid.png"))
    window.tabs.setCurrentIndex(1)
    app.processEvents()
    window.screenshot(str(shots / "measure_heatmap.png"))
    _run_all_five(app, window, args.five_size, args.five_runs, tmp, sampler,
                      args.five_image)
    window.shutdown()
    print(f"screenshots in {shots}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
