"""How long the window's LevelsReady turn takes when the levels come while the pyramid
view still makes the Run's panels (a fast GPU's first Run), and each of prepare's later steps.

    QT_QPA_PLATFORM=offscreen MIPVIEW_DEVICE=llvmpipe PYTHONPATH=$PWD \\
        .venv/bin/python docs/bench/window-stalls/levels_turn.py [SIZE]

Runs the five once at SIZE² (default 1024), then shows their levels again three times each
with 0, 2 and 5 of the panels made ahead, timing the reply's turn and every step after it.
"""

import sys
import tempfile
import time
from pathlib import Path

from mipview.core.blas import one_blas_thread

one_blas_thread()  # as `python -m mipview` does, before numpy loads

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

from mipview.gpu.strategies.specs import expand_specs  # noqa: E402
from mipview.io import synthetic  # noqa: E402
from mipview.ui import steps  # noqa: E402
from mipview.ui.app import ensure_app  # noqa: E402
from mipview.ui.main_window import MainWindow  # noqa: E402
from mipview.ui.window import run_replies  # noqa: E402

FIVE = "blit,per-level,npot-exact,subgroup,single-pass"  # tools/measure.py's Run of the five


def main() -> None:
    app = ensure_app()
    w = MainWindow()
    w.resize(1600, 1000)
    w.show()
    w.panel.run_on_open.setChecked(False)

    def spin(cond, limit_s: float = 300) -> None:
        end = time.time() + limit_s
        while not cond() and time.time() < end:
            app.processEvents()
            time.sleep(0.002)

    spin(lambda: w.caps is not None)
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
    path = Path(tempfile.mkdtemp()) / "five.png"
    src = synthetic.image(size, size)
    Image.fromarray(np.clip(np.rint(src.pixels * 255), 0, 255).astype(np.uint8)).save(path)
    opened: list = []
    w.sigImageOpened.connect(opened.append)
    w.open_image(str(path))
    spin(lambda: bool(opened) and not w.is_busy())
    specs = expand_specs(FIVE)
    w.panel.set_specs(specs)
    w.panel.repeat_spin.setValue(2)
    outs: list = []
    w.sigRunShown.connect(outs.append)
    w.run(False, specs)
    spin(lambda: bool(outs) and not w.is_busy())
    spin(lambda: not steps.pending(), 10)
    out = outs[0]
    w._is_latest = lambda *_: True  # the same levels again, as if from a new Run
    later: list[float] = []
    step = w.pyramid.grid._prepare_step

    def timed(generation: int) -> None:
        t = time.perf_counter()
        step(generation)
        later.append((time.perf_counter() - t) * 1e3)

    w.pyramid.grid._prepare_step = timed
    for ahead in (0, 2, 5):
        for _ in range(3):
            w.pyramid.set_pyramids([("source", "source", (src.pixels,), out.mip.fmt)])
            spin(lambda: not steps.pending() and not w.pyramid.pool.busy(), 10)
            w.pyramid.prepare([(str(s), str(s)) for s in specs], size, size)
            if ahead:
                spin(lambda n=ahead: len(w.pyramid.grid.ahead) >= n or not w.pyramid.preparing, 10)
            later.clear()
            t0 = time.perf_counter()
            run_replies.on_levels_ready(w, out)
            turn = (time.perf_counter() - t0) * 1e3
            spin(lambda: not steps.pending() and not w.pyramid.pool.busy(), 20)
            print(f"{ahead} panels made ahead: the reply's turn {turn:.1f} ms; the steps after "
                  f"it " + " ".join(f"{d:.1f}" for d in later) + " ms")
    w.shutdown()


if __name__ == "__main__":
    main()
