"""The window's exits, many times over: ``python -m tools.exit_stress [--exits 300] [--load]``.

Every way the window ends is a path (``PATHS``): ``mipview gui`` with ``--quit`` after an open,
a Run or an error (the automation flags), and the window driven as a user drives it (the Run or
Profile (live) button, then File > Quit: ``closeEvent``; or the event loop ended by
``QApplication.exit`` without a close, as the automation and a session's end do) after a Run,
during one, during live profiling and after an error dialog. Each exit is a process of its own,
with faulthandler on; an exit that ends by a signal, says "Fatal Python error" or gives another
status than the path's is a crash. The counts per path are printed, and each crash's stderr
(faulthandler's tracebacks of every thread) is appended to ``--log``.

``--load`` keeps the other cores busy (a ``nice``d numpy loop each, ended with the stress), as a
shared machine is: a teardown race shows more often when a thread waits for a core.

The child mode (``--child PATH``) is one exit of a driven path: it runs ``mipview gui`` itself
(``cli.main``, so ``run_gui``'s teardown after ``app.exec()`` is the app's), with settings in a
temp folder, and drives the window from a timer. Once ``run_gui`` has returned it also checks
what a rare crash would come from (:func:`leftovers`): the window still alive, to be destroyed
by PySide's exit handler while the interpreter tears down, or a thread that emits to the
window's objects still running; either ends the child with :data:`LEFTOVER_STATUS`.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MISSING = "/nonexistent/mipview-exit-stress.png"
#: a driven exit that has not ended by then has hung (a join that never returns)
CHILD_TIMEOUT_S = 120.0


@dataclass(frozen=True)
class ExitPath:
    """One way the window ends. ``argv`` after ``mipview``; ``driven``: the child mode drives the
    window (``ending-state``); ``statuses``: the exit statuses it may end with."""

    name: str
    argv: tuple[str, ...]
    statuses: tuple[int, ...]
    driven: bool = False


def _paths() -> dict[str, ExitPath]:
    paths = [ExitPath("quit-after-open", ("gui", "{image}", "--quit"), (0,)),
             ExitPath("quit-after-run", ("gui", "{image}", "--run", "per-level", "--quit"), (0,)),
             ExitPath("quit-after-error", ("gui", MISSING, "--quit"), (2,))]
    for ending in ("close", "exit"):
        for state in ("after-run", "during-run", "during-live", "after-error"):
            # after an error: 0 once the user dismissed its dialog and quit, 2 where the window
            # reported it on stderr and ended by itself, as automation does
            statuses = (0, 2) if state == "after-error" else (0,)
            paths.append(ExitPath(f"{ending}-{state}", (), statuses, driven=True))
    return {p.name: p for p in paths}


PATHS = _paths()


@dataclass(frozen=True)
class Outcome:
    path: str
    status: int
    expected: tuple[int, ...]
    stderr: str

    @property
    def crashed(self) -> bool:
        return (self.status not in self.expected or "Fatal Python error" in self.stderr
                or "Segmentation fault" in self.stderr)

    def describe(self) -> str:
        expected = " or ".join(map(str, self.expected))
        return (f"{self.path}: exit status {self.status} (expected {expected})\n"
                f"--- stderr ---\n{self.stderr}")


def child_env(config: str) -> dict[str, str]:
    """The environment of one exit: offscreen Qt, faulthandler on, settings in ``config``."""
    env = dict(os.environ)
    env.setdefault("MIPVIEW_DEVICE", "llvmpipe")
    env.update(QT_QPA_PLATFORM="offscreen", PYTHONFAULTHANDLER="1", XDG_CONFIG_HOME=config,
               MIPVIEW_EXIT_STRESS_CONFIG=config)
    return env


#: a driven exit quits at most this long after the work began (a Run of the bundled photo on
#: lavapipe takes about a second: quits land before, during and after it)
MAX_DELAY_S = 1.5


def run_exit(path: ExitPath, image: str, rng: random.Random,
             max_delay_s: float = MAX_DELAY_S) -> Outcome:
    """One exit along ``path`` in a process of its own."""
    if path.driven:
        cmd = [sys.executable, "-m", "tools.exit_stress", "--child", path.name,
               "--delay", f"{rng.uniform(0.0, max_delay_s):.3f}", image]
    else:
        cmd = [sys.executable, "-m", "mipview",
               *(a.replace("{image}", image) for a in path.argv)]
    return run_command(path.name, cmd, path.statuses)


def run_command(name: str, cmd: list[str], statuses: tuple[int, ...]) -> Outcome:
    """``cmd`` in the environment of one exit (:func:`child_env`), judged as path ``name``."""
    with tempfile.TemporaryDirectory(prefix="mipview-exit-") as config:
        try:
            done = subprocess.run(cmd, cwd=ROOT, env=child_env(config), capture_output=True,
                                  text=True, timeout=CHILD_TIMEOUT_S)
        except subprocess.TimeoutExpired as exc:  # killed, with what it said so far
            err = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else ""
            return Outcome(name, -9, statuses, f"hung for {CHILD_TIMEOUT_S:.0f} s\n{err}")
    return Outcome(name, done.returncode, statuses, done.stderr)


# --- the child: one driven exit -----------------------------------------------------------------
def _child(name: str, delay: float, image: str) -> int:
    from mipview.core.blas import one_blas_thread

    one_blas_thread()  # as `python -m mipview` does, before numpy loads
    from PySide6.QtCore import QSettings, QTimer

    from mipview.cli.main import main
    from mipview.ui.app import ensure_app

    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope,
                      os.environ["MIPVIEW_EXIT_STRESS_CONFIG"])
    ending, state = name.split("-", 1)
    app = ensure_app()
    settings = QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, "mipview",
                         "mipview")
    settings.setValue("panel/run_on_open", False)  # the Run starts by the button below
    settings.sync()
    driver = _Driver(app, ending, state, delay)
    QTimer.singleShot(0, driver.attach)
    status = main(["gui", MISSING if state == "after-error" else image])
    left = leftovers(app)
    if left:
        print(f"exit_stress: left to the interpreter's exit: {', '.join(left)}", file=sys.stderr)
        return LEFTOVER_STATUS
    return status


#: a driven exit whose window or worker threads outlived ``run_gui``
LEFTOVER_STATUS = 3
#: threads that touch the window's objects: joined before ``run_gui`` returns
WINDOW_THREADS = ("mipview-pixels", "mipview-analysis")


def leftovers(app) -> list[str]:
    """What ``run_gui`` left behind that the interpreter's exit would tear down in an order of
    its own: a window still alive (PySide destroys it after the atexit functions) or a thread
    that emits to the window's objects."""
    import threading

    from mipview.ui.main_window import MainWindow

    left = [f"window {type(w).__name__}" for w in app.topLevelWidgets()
            if isinstance(w, MainWindow)]
    return left + [f"thread {t.name}" for t in threading.enumerate()
                   if t.name.startswith(WINDOW_THREADS)]


class _Driver:
    """Drives the window as a user does: a button, then File > Quit or the end of the loop."""

    def __init__(self, app, ending: str, state: str, delay: float) -> None:
        self.app, self.ending, self.state, self.delay_ms = app, ending, state, int(delay * 1000)
        self.window = None

    def attach(self) -> None:
        from PySide6.QtCore import QTimer

        from mipview.ui.main_window import MainWindow

        self.window = next(w for w in self.app.topLevelWidgets() if isinstance(w, MainWindow))
        if self.state == "after-error":
            self._poll_dialog()
            return
        self.window.sigImageOpened.connect(self._opened)
        if self.state == "after-run":
            self.window.sigJobFinished.connect(
                lambda _job: QTimer.singleShot(self.delay_ms // 5, self.end))

    def _opened(self, _opened) -> None:
        from PySide6.QtCore import QTimer

        panel = self.window.panel
        (panel.live_button if self.state == "during-live" else panel.run_button).click()
        if self.state != "after-run":
            QTimer.singleShot(self.delay_ms, self.end)

    def _poll_dialog(self) -> None:
        from PySide6.QtCore import QTimer

        box = self.app.activeModalWidget()
        if box is None:
            QTimer.singleShot(20, self._poll_dialog)
            return
        box.reject()  # the user dismisses the error, then quits
        QTimer.singleShot(self.delay_ms // 5, self.end)

    def end(self) -> None:
        from PySide6.QtGui import QAction

        if self.ending == "close":  # File > Quit, as a user quits
            next(a for a in self.window.findChildren(QAction) if a.text() == "&Quit").trigger()
        else:
            self.app.exit(0)


# --- the long run -------------------------------------------------------------------------------
_BUSY = ("import sys, time, numpy as np\n"
         "end = time.monotonic() + float(sys.argv[1])\n"
         "a = np.random.rand(256, 256)\n"
         "while time.monotonic() < end:\n"
         "    a = (a @ a) / 256.0\n")


def start_load(seconds: float) -> list[subprocess.Popen]:
    """One niced busy process per core but one, each ending by itself after ``seconds``."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    return [subprocess.Popen(["nice", "-n", "10", sys.executable, "-c", _BUSY, str(seconds)],
                             env=env) for _ in range(max(1, (os.cpu_count() or 2) - 1))]


def stress(names: list[str], exits: int, image: str, log: Path, seed: int) -> Counter:
    """``exits`` exits, round robin over ``names``; prints a line per crash and the counts."""
    rng = random.Random(seed)
    runs: Counter = Counter()
    crashes: Counter = Counter()
    t0 = time.monotonic()
    for i in range(exits):
        name = names[i % len(names)]
        out = run_exit(PATHS[name], image, rng)
        runs[name] += 1
        if out.crashed:
            crashes[name] += 1
            print(f"CRASH {out.path}: status {out.status}", flush=True)
            with log.open("a") as f:
                f.write(f"=== exit {i + 1}\n{out.describe()}\n")
        if (i + 1) % 25 == 0:
            print(f"{i + 1}/{exits} exits, {sum(crashes.values())} crashes, "
                  f"{time.monotonic() - t0:.0f} s", flush=True)
    print(f"\n{'path':<22}{'exits':>7}{'crashes':>9}")
    for name in names:
        print(f"{name:<22}{runs[name]:>7}{crashes[name]:>9}")
    print(f"{'all':<22}{sum(runs.values()):>7}{sum(crashes.values()):>9}   "
          f"{time.monotonic() - t0:.0f} s")
    return crashes


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tools.exit_stress", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("image", nargs="?", help="image to open (default: the bundled photo)")
    p.add_argument("--exits", type=int, default=300)
    p.add_argument("--paths", default=",".join(PATHS), help="comma-separated path names")
    p.add_argument("--load", action="store_true", help="keep the other cores busy meanwhile")
    p.add_argument("--log", default="exit_stress_crashes.log", help="crashes' stderr, appended")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--child", choices=[n for n, x in PATHS.items() if x.driven],
                   help=argparse.SUPPRESS)
    p.add_argument("--delay", type=float, default=0.0, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.image is None:
        from mipview.io.samples import sample_path

        args.image = str(sample_path())
    if args.child:
        return _child(args.child, args.delay, args.image)
    names = [n for n in args.paths.split(",") if n]
    unknown = [n for n in names if n not in PATHS]
    if unknown:
        print(f"exit_stress: unknown path(s) {', '.join(unknown)}; choose from "
              f"{', '.join(PATHS)}", file=sys.stderr)
        return 2
    load = start_load(args.exits * 10.0) if args.load else []
    try:
        crashes = stress(names, args.exits, args.image, Path(args.log), args.seed)
    finally:
        for proc in load:
            proc.terminate()
            proc.wait()
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
