"""Exports from the window: a result's chain as KTX2, DDS or EXR (File > Export chain, or
``MainWindow.export_chain``), written by the compare worker so a live profile keeps running;
the chart's timings as CSV and picture, and a screenshot of the window."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMainWindow

from mipview.core.specs import StrategySpec
from mipview.io import containers
from mipview.runs import volume
from mipview.ui.dialogs.export_dialog import ExportDialog
from mipview.ui.messages import ExportOutput, ExportRequest


def export_request(window: QMainWindow, job: int, folder: str, kinds: Sequence[str],
                   spec: str | StrategySpec | None) -> ExportRequest:
    """The request of ``MainWindow.export_chain``: result ``spec`` of the run shown (default:
    the one the Heatmaps tab shows) as each of ``kinds``. Raises ValueError without a run, or
    for a result or kind it does not have."""
    parsed = containers.parse_kinds(",".join(kinds))
    if window.volume_ran is not None:
        return _volume_request(window, job, folder, parsed, spec)
    shown = window.output
    if shown is None or not shown.mip.results:
        raise ValueError("nothing to export: run first")
    results = {str(r.spec): r for r in shown.mip.results}
    key = str(spec) if spec is not None else window.heatmap.strategy()
    if spec is None and key not in results:  # the Heatmaps tab shows no result yet
        key = str(shown.mip.results[0].spec)
    if key not in results:
        raise ValueError(f"the run shown has no result {key!r}")
    res = results[key]
    # a cube map's results are cube maps, unless Layers made their layers
    run = window._latest["run"]
    faces = run.source.faces if run.layers <= 1 else 1
    return ExportRequest(job, os.fspath(folder), res.spec.slug, res.levels, shown.mip.fmt,
                         parsed, faces=faces)


def _volume_request(window: QMainWindow, job: int, folder: str, kinds: tuple[str, ...],
                    spec: str | StrategySpec | None) -> ExportRequest:
    """A result of the volume shown, as 3D KTX2 and DDS."""
    ran = window.volume_ran
    results = {volume.result_name(r): r for r in ran.done.results}
    key = str(spec) if spec is not None else next(iter(results), "")
    if key not in results:
        raise ValueError(f"the run shown has no result {key!r}")
    refused = sorted(set(kinds) - set(volume.VOLUME_EXPORT_KINDS))
    if refused:
        raise ValueError(f"{', '.join(refused)} cannot hold a volume: export "
                         f"{' or '.join(volume.VOLUME_EXPORT_KINDS)}")
    return ExportRequest(job, os.fspath(folder), volume.result_slug(results[key]),
                         results[key].levels, ran.fmt, kinds, volume=True)


def export_dialog(window: QMainWindow) -> None:
    if window.volume_ran is not None:
        names = [volume.result_name(r) for r in window.volume_ran.done.results]
        dialog = ExportDialog([StrategySpec.parse(n) for n in names], names[0],
                              window._export_folder, window,
                              offered=volume.VOLUME_EXPORT_KINDS)
    elif window.output is not None:
        dialog = ExportDialog([r.spec for r in window.output.mip.results],
                              window.heatmap.strategy(), window._export_folder, window)
    else:
        return
    if dialog.exec() != ExportDialog.DialogCode.Accepted:
        return
    window._export_folder = dialog.folder()
    window.export_chain(dialog.folder(), dialog.kinds(), dialog.spec())


def on_exported(window: QMainWindow, out: ExportOutput) -> None:
    if not window._is_latest("export", out.job):
        return
    folder = Path(out.files[0]).parent if out.files else ""
    window.statusBar().showMessage(f"wrote {len(out.files)} file(s) to {folder}", 10000)
    window.sigExported.emit(out)


def export_csv(window: QMainWindow) -> None:
    path, _ = QFileDialog.getSaveFileName(window, "Export timings", "timings.csv", "CSV (*.csv)")
    if path:
        window.chart.export_csv(path)


def export_png(window: QMainWindow) -> None:
    path, _ = QFileDialog.getSaveFileName(window, "Export chart", "chart.png", "PNG (*.png)")
    if path:
        window.chart.export_png(path)


def save_screenshot(window: QMainWindow) -> None:
    path, _ = QFileDialog.getSaveFileName(window, "Save screenshot", "mipview.png",
                                          "PNG (*.png)")
    if path:
        window.screenshot(path)
