"""The window's stalls while it encodes (docs/bench/window-stalls/README.md, "Encoding"): a
SIZE² photo opened through the window and Run per-level, then the Heatmaps tab's Encode row
set to each codec and its button clicked, as a user does; the event loop's longest stall and
p99 tick gap while each encode runs (from its click until its errors are on screen), measured
as tools.measure measures the live-profiling phase. Run from the repository root:

    PYTHONPATH=. python docs/bench/window-stalls/encode_stalls.py [--size 2048] [--codecs bc7,astc-6x6]
        [--rounds 2] [--perceived] [--turns MS] [--why]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

# first: it keeps BLAS to one thread, as `python -m mipview` does, before numpy loads
from tools import measure  # isort: skip

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="encode_stalls.py")
    parser.add_argument("--size", type=int, default=2048)
    parser.add_argument("--codecs", default="bc7,astc-6x6")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--perceived", action="store_true",
                        help="tick the row's FLIP/SSIM box (off by default, as in the window)")
    parser.add_argument("--turns", type=float, metavar="MS",
                        help="name what ran in each turn of the event loop longer than MS")
    parser.add_argument("--why", action="store_true",
                        help="sample the UI thread's stack in each encode's longest stall")
    args = parser.parse_args(argv)
    from mipview.ui.app import reserve_ui_core

    reserve_ui_core()  # as `mipview gui` does
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

    from PySide6.QtCore import QSettings

    from mipview.core.specs import parse_spec_list
    from mipview.ui.app import ensure_app, freeze_startup_objects
    from mipview.ui.main_window import MainWindow

    tmp = tempfile.mkdtemp(prefix="mipview-encode-stalls-")
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tmp)
    app = ensure_app()
    window = MainWindow(restore=False)
    if args.turns:
        measure._TURNS = measure._TurnLog(app, window, args.turns)
    sampler = measure._Sampler() if args.why else None
    freeze_startup_objects()  # as `mipview gui` does
    window.resize(1600, 1000)
    window.show()
    window.panel.set_specs(parse_spec_list("per-level"))
    window.panel.repeat_spin.setValue(0)
    window.panel.run_on_open.setChecked(True)
    if not measure._spin(app, lambda: window.caps is not None, 60):
        print("no device")
        return 1
    root = Path(__file__).resolve().parents[3]
    big = Path(tmp) / f"photo_{args.size}.png"
    with Image.open(root / "resources" / "photo_npot_1000x750.png") as im:
        Image.fromarray(np.asarray(im.convert("RGBA").resize(
            (args.size, args.size), Image.LANCZOS))).save(big)
    shown: list[object] = []
    window.sigRunShown.connect(shown.append)
    window.open_image(str(big))
    measure._spin(app, lambda: bool(shown), 300)
    measure._spin(app, lambda: not window.is_busy() and window.analysis is not None, 300)
    print(f"device: {window.caps.name}; {args.size}x{args.size} photo, per-level; "
          f"FLIP/SSIM {'on' if args.perceived else 'off'}; load {os.getloadavg()[0]:.1f}")

    window.tabs.setCurrentWidget(window.heatmap)
    bar = window.heatmap.encode_bar
    bar.perceptual_box.setChecked(args.perceived)
    encoded: list[object] = []
    window.sigEncoded.connect(encoded.append)
    for r in range(args.rounds):
        for codec in args.codecs.split(","):
            # the button reads Stop until the last encode's job has finished
            measure._spin(app, lambda: bar.running is None and not window.is_busy(), 120)
            bar.choose(codec)
            measure._turn(app)
            encoded.clear()
            ticks = measure._Ticks(sampler)
            ticks.start()
            t0 = time.perf_counter()
            bar.button.click()
            if not measure._spin(app, lambda: bool(encoded), 300):
                print(f"{codec}: no result in 300 s")
                return 1
            measure._turn(app)  # and its first paint, as the window's own UpdateRequest makes it
            t_shown = time.perf_counter()
            ticks.stop()
            print(f"round {r + 1}, {bar.spec()}: shown {t_shown - t0:.2f} s; {ticks.report()}",
                  flush=True)
    window.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
