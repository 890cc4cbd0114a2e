"""Every way the window ends (``tools.exit_stress.PATHS``: ``--quit`` after an open, a Run or an
error; File > Quit or the end of the event loop after a Run, during one, during live profiling
and after an error dialog), once each, in processes of their own with faulthandler on: each ends
with its own status, never by a signal or a "Fatal Python error", and a driven exit leaves
neither the window nor a thread that touches it to the interpreter's exit. A failure carries
each crash's stderr (faulthandler's tracebacks). The long version, 300 exits under load, is
``python -m tools.exit_stress --load``."""

from __future__ import annotations

import random
import sys
import threading
from collections import Counter

from tools import exit_stress


def _crashes(outcomes: list[exit_stress.Outcome]) -> str:
    return "\n\n".join(o.describe() for o in outcomes if o.crashed)


def test_every_exit_path_ends_cleanly():
    rng = random.Random(5)
    from mipview.io.samples import sample_path

    image = str(sample_path())
    # quits early in the work: the long version covers the whole of a Run
    outcomes = [exit_stress.run_exit(path, image, rng, max_delay_s=0.8)
                for path in exit_stress.PATHS.values()]
    assert not _crashes(outcomes), _crashes(outcomes)
    assert {o.path for o in outcomes} == set(exit_stress.PATHS)


def _python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_a_crash_is_told_with_its_tracebacks():
    segv = exit_stress.run_command(
        "segv", _python("import faulthandler; faulthandler._sigsegv()"), (0,))
    assert segv.crashed and segv.status < 0
    assert "Fatal Python error: Segmentation fault" in segv.describe()
    assert 'File "<string>", line 1' in segv.describe()  # faulthandler's traceback

    wrong = exit_stress.run_command("wrong status", _python("raise SystemExit(1)"), (0, 2))
    assert wrong.crashed and "exit status 1 (expected 0 or 2)" in wrong.describe()
    said = exit_stress.run_command(
        "fatal", _python("import sys; sys.stderr.write('Fatal Python error: x')"), (0,))
    assert said.crashed  # status 0, but the interpreter said it died
    clean = exit_stress.run_command("clean", _python("raise SystemExit(2)"), (2,))
    assert not clean.crashed


def test_a_window_left_to_the_interpreters_exit_is_a_leftover(qapp):
    """The check the driven exits end with (``leftovers``): a window still alive once
    ``run_gui`` returned is named, as is a pixel thread; none, nothing."""
    from concurrent.futures import ThreadPoolExecutor

    from mipview.ui.app import release_window
    from mipview.ui.main_window import MainWindow

    def new() -> Counter:  # other tests of this process may have left theirs
        return Counter(exit_stress.leftovers(qapp)) - before

    before = Counter(exit_stress.leftovers(qapp))
    w = MainWindow(restore=False)
    pool = ThreadPoolExecutor(1, thread_name_prefix="mipview-pixels")
    pool.submit(lambda: None).result()
    try:
        assert new() == Counter(["window MainWindow", "thread mipview-pixels_0"])
    finally:
        pool.shutdown(wait=True)
        w.shutdown()
        release_window(w)
    assert not new()


def test_a_pixel_pool_shut_down_without_waiting_is_joined_later(qapp):
    """Closing the window shuts the views' pools down without waiting; the shutdown that waits
    (``run_gui``'s, before the window is destroyed) joins the job that was left running."""
    from mipview.ui.views.pixel_pool import PixelPool

    pool = PixelPool(sync_texels=0)
    started, release, ended = threading.Event(), threading.Event(), []

    def job():
        started.set()
        release.wait(30)
        ended.append(True)

    pool.submit("level", 1, job, (), lambda _: None)
    assert started.wait(30)
    pool.shutdown()  # as closeEvent does: the job runs on
    assert not ended
    threading.Timer(0.2, release.set).start()
    pool.shutdown(wait=True)
    assert ended
