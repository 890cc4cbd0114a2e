"""Screenshots of the viewer's controls for the docs, made by the window itself:
``python -m tools.shots [--out docs/img] [--device llvmpipe]``.

Drives the window as ``mipview gui --run ... --screenshot`` and ``measure.py`` do (offscreen, a
fixed 1600x1000 window, no saved layout): opens a float image with values out of [0, 1] and a
few NaN and +Inf texels, runs two strategies in f32, then sets the controls and grabs each view:

- ``viewer-pyramid.png``: exposure, false colour, the overlay, a locked texel with its footprint
  in every level, the histogram and the locked texel's values in every level and pyramid;
- ``viewer-flip.png``: the same after the A/B flip key (T);
- ``viewer-channel-alpha.png``: the alpha channel alone;
- ``viewer-signed-heatmap.png``: the signed error of R against the exact reference;
- ``viewer-shortcuts.png``: Help > Keyboard shortcuts;
- ``viewer-cube-map.png``: a cube map KTX2 run with two strategies, each level unfolded as a
  cross with its seams;
- ``viewer-volume.png``: a 3D volume after its Run, on its middle slice, with the volume
  strategies that ran in the Setup list;
- ``viewer-history-one-run.png``: the timing chart after that Run, one update (a point per
  strategy in the history, on a plain axis);
- ``viewer-error-dialog.png``: the dialog a file that cannot be read gets, over the window
  (the window and the dialog grabbed each and painted together, the dialog centred as Qt
  places it over its parent; offscreen there is no screen to grab both at once).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SIZE = (320, 240)


def hdr_image(path: Path) -> None:
    """An EXR whose values leave [0, 1] both ways, with a block of NaN and one of +Inf."""
    from mipview.core.formats import Format
    from mipview.io import synthetic
    from mipview.io.containers import exr

    w, h = SIZE
    v = synthetic.image(w, h).pixels.astype(np.float32).copy()
    v[..., :3] *= 0.9
    v[130:200, 20:140, :3] *= 1.6  # brighter than white
    v[..., 3] = np.clip(v[..., 3] * 1.5, 0, 1)
    v[20:40, 250:300, 2] -= 0.6
    v[60:76, 262:278, 0] = np.nan
    v[100:116, 292:308, 1] = np.inf
    path.write_bytes(exr.encode([v], Format.F32)[0])


def cube_map(path: Path, n: int = 64) -> None:
    """A KTX2 cube map of the synthetic sky, faces ``n`` x ``n``, UNORM."""
    from mipview.core.formats import Format
    from mipview.io.containers import ktx2
    from mipview.io.synthetic import cube_image

    level0 = np.rint(cube_image(n).pixels * 255).astype(np.uint8)
    path.write_bytes(ktx2.encode([level0], Format.UNORM, faces=6))


def fog_volume(path: Path, size: tuple[int, int, int] = (64, 48, 32)) -> None:
    """A ``*.volume.npy`` (D, H, W, 4) UNORM: a dim glow in its middle, black at slice 0."""
    w, h, d = size
    z, y, x = np.mgrid[0:d, 0:h, 0:w]
    r = np.sqrt((x - w / 2) ** 2 + (y - h / 2) ** 2 + 4 * (z - d / 2) ** 2)
    vol = np.zeros((d, h, w, 4), np.uint8)
    vol[..., 0] = np.clip(90 - r * 3, 0, 90)
    vol[..., 1] = np.clip(60 - r * 2.5, 0, 60)
    vol[..., 2] = np.clip(20 + 30 * np.sin(x / 5.0) * np.cos(y / 7.0), 0, 60) * (r < 24)
    vol[..., 3] = 255
    np.save(path, vol)


def _spin(app, until, timeout_s: float = 120) -> None:
    end = time.perf_counter() + timeout_s
    while not until():
        if time.perf_counter() > end:
            raise TimeoutError("the window did not get there in time")
        app.processEvents()
        time.sleep(0.005)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.shots")
    parser.add_argument("--out", default="docs/img")
    parser.add_argument("--device", default=None)
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings

    from mipview.core.specs import parse_spec_list
    from mipview.ui import steps
    from mipview.ui.app import ensure_app
    from mipview.ui.dialogs.shortcuts_dialog import ShortcutsDialog
    from mipview.ui.main_window import MainWindow

    tmp = Path(tempfile.mkdtemp(prefix="mipview-shots-"))
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    app = ensure_app()
    window = MainWindow(device=args.device, fmt="f32", restore=False)
    window.resize(1600, 1000)
    window.panel.run_on_open.setChecked(False)
    window.show()
    _spin(app, lambda: window.caps is not None)
    image = tmp / "hdr.exr"
    hdr_image(image)
    opened: list[object] = []
    window.sigImageOpened.connect(opened.append)
    window.open_image(str(image))
    _spin(app, lambda: bool(opened) and not window.is_busy())
    window.panel.repeat_spin.setValue(0)
    window.run(False, parse_spec_list("per-level,blit"))
    _spin(app, lambda: window.analysis is not None and not window.is_busy())
    view = window.pyramid

    def shot(name: str, widget=None) -> None:
        _spin(app, lambda: not view.pool.busy() and not window.heatmap.pool.busy()
              and not steps.pending())
        app.processEvents()
        (widget or window).grab().save(str(out / name), "PNG")
        print(f"wrote {out / name}")

    window.chart_dock.hide()  # the views' room
    view.reference_check.setChecked(True)
    view.controls.step("gamma", 2)
    view.controls.false_check.setChecked(True)
    view.lock_texel(2, 70, 20)
    # level 0's right part and levels 1 and 2 beside it: the footprint in each
    _spin(app, lambda: not view.pool.busy() and not steps.pending() and not view.filling)
    app.processEvents()
    view.panels[0].view.setRange(xRange=(230, 500), yRange=(10, 190), padding=0)
    shot("viewer-pyramid.png")
    window.viewer_actions["flip"].trigger()
    shot("viewer-flip.png")
    window.viewer_actions["flip"].trigger()
    window.viewer_actions["channel_a"].trigger()
    shot("viewer-channel-alpha.png")
    window.viewer_actions["channel_rgba"].trigger()
    window.tabs.setCurrentWidget(window.heatmap)
    window.heatmap.select("blit")
    window.heatmap.map_combo.setCurrentIndex(window.heatmap.map_combo.findData(0))
    shot("viewer-signed-heatmap.png")
    dialog = ShortcutsDialog(window)
    dialog.show()
    shot("viewer-shortcuts.png", dialog)
    dialog.close()

    def run(specs: str, repeat: int = 0) -> None:
        """Run ``specs`` as the Run button does, and wait for its verdicts."""
        window.panel.set_specs(parse_spec_list(specs))
        window.panel.repeat_spin.setValue(repeat)
        job = window.run(False)
        _spin(app, lambda: not window.is_busy() and window.profiler_idle()
              and (window.volume_ran is not None or (window.analysis is not None
                                                     and window.analysis.job == job)))

    def open_file(path: Path) -> None:
        opened.clear()
        window.open_image(str(path))
        _spin(app, lambda: bool(opened) and not window.is_busy())

    window.tabs.setCurrentWidget(view)
    view.reference_check.setChecked(False)
    view.unlock()
    view.controls.set_settings(type(view.settings)())
    sky = tmp / "sky.ktx2"
    cube_map(sky)
    open_file(sky)
    run("per-level,blit")
    shot("viewer-cube-map.png")

    fog = tmp / "fog.volume.npy"
    fog_volume(fog)
    open_file(fog)
    run("per-level", repeat=5)  # timed: a volume's Run is one update of the chart
    shot("viewer-volume.png")
    window.chart_dock.show()
    shot("viewer-history-one-run.png", window.chart)

    error_dialog_shot(app, window, tmp, out / "viewer-error-dialog.png")
    window.shutdown()
    return 0


def error_dialog_shot(app, window, tmp: Path, path: Path) -> None:
    """Open a file that is not what its name says; the window's own error dialog (its
    ``QMessageBox.critical``, shown without blocking here) painted over the window."""
    from PySide6.QtGui import QPainter
    from PySide6.QtWidgets import QMessageBox

    boxes: list[QMessageBox] = []

    def critical(parent, title, text, *args, **kwargs):
        box = QMessageBox(QMessageBox.Icon.Critical, title, text,
                          QMessageBox.StandardButton.Ok, parent)
        box.show()
        boxes.append(box)
        return QMessageBox.StandardButton.Ok

    bad = tmp / "clouds.ktx2"
    bad.write_bytes(b"\xabKTX 20\xbb\r\n\x1a\n" + bytes(40))  # a header cut short
    original, cwd = QMessageBox.critical, os.getcwd()
    QMessageBox.critical = staticmethod(critical)
    os.chdir(tmp)  # the dialog names the file as opened: by its name alone
    try:
        window.open_image(bad.name)
        _spin(app, lambda: bool(boxes) and not window.is_busy())
    finally:
        QMessageBox.critical = original
        os.chdir(cwd)
    box = boxes[0]
    for _ in range(20):
        app.processEvents()
        time.sleep(0.01)
    picture = window.grab()
    dialog = box.grab()
    painter = QPainter(picture)
    painter.drawPixmap((picture.width() - dialog.width()) // 2,
                       (picture.height() - dialog.height()) // 2, dialog)
    painter.end()
    picture.save(str(path), "PNG")
    box.close()
    print(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(main())
