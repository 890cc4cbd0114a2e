"""Encode from the window: the Heatmaps tab's result of the Run shown block-compressed in the
CPU worker (:mod:`mipview.ui.workers.encode_job`; a live profile keeps running), its progress
per level in the busy bar, Stop (the tab's button, or the window's Stop) ending it at the next
level; what it brings goes to the Heatmaps tab (codec and total errors per level) and the
timing chart (the encoder's CPU time per level)."""

from __future__ import annotations

from PySide6.QtWidgets import QMainWindow

from mipview.core.errors import MipviewError
from mipview.io.containers.encoders import check_installed, parse_codecs
from mipview.runs.encode import refusal
from mipview.ui.messages import Encoded, EncodeProgress, EncodeRequest, WorkerError
from mipview.ui.views.error_table import format_value
from mipview.ui.window import status


def encode(window: QMainWindow, text: str) -> int | None:
    """Encode the result the Heatmaps tab shows as the codec ``text`` (``bc7:quality=2``);
    returns the job id, None when there is nothing to encode or the codec cannot (said in the
    status bar, or a dialog for a codec that cannot take this result)."""
    shown = window.output
    name = window.heatmap.strategy()
    res = next((r for r in shown.mip.results if str(r.spec) == name), None) \
        if shown is not None and window.volume_ran is None else None
    if res is None:
        window.statusBar().showMessage("nothing to encode: run first, and choose the result "
                                       "on the Heatmaps tab", 10000)
        return None
    try:
        (choice,) = parse_codecs(text)
        why = refusal((choice,), shown.mip.fmt, (res,))
    except MipviewError as exc:
        why = str(exc)
    if why:
        status.show_error(window, WorkerError(-1, "Cannot encode", (
            f"{name} as {text}: {why}. The Run shown stays; choose another codec.")))
        return None
    try:  # asked here, before any work: a missing encoder is no failure of the Run
        check_installed((choice,))
    except MipviewError as exc:
        window.statusBar().showMessage(f"cannot encode {name} as {choice.label}: {exc}", 20000)
        return None
    stop(window)  # an encode under way is superseded
    perceived = window.heatmap.encode_bar.perceived()
    job = window._send_compare(lambda job: EncodeRequest(job, shown.job, name, res,
                                                         shown.mip.fmt, choice, perceived),
                               "encode")
    if job is None:
        return None
    window._busy_jobs.add(job)
    window._set_busy()
    window.progress.show_progress(0, len(res.levels))
    window.heatmap.encode_bar.set_running(job)
    window.statusBar().showMessage(f"encoding {name} as {choice.label}", 4000)
    return job


def stop(window: QMainWindow) -> None:
    """End the encode under way at its next level (it sends nothing more)."""
    job = window.latest_job("encode")
    if job in window._busy_jobs:
        window.comparer.cancel(job)


def on_progress(window: QMainWindow, p: EncodeProgress) -> None:
    if not window._is_latest("encode", p.job):
        return
    window.progress.show_progress(p.done, p.total)
    window.statusBar().showMessage(f"encoding: level {p.done - 1} done ({p.done} of "
                                   f"{p.total})", 4000)
    window.sigEncodeProgress.emit(p)


def on_encoded(window: QMainWindow, out: Encoded) -> None:
    shown = window.output
    if not window._is_latest("encode", out.job) or shown is None or shown.job != out.run_job:
        return  # stopped, superseded, or of a Run no longer shown
    chain = out.chain
    window.heatmap.set_encoded(out)
    window.chart.show_cpu_times(f"{out.strategy} as {chain.choice.label}", chain.seconds)
    if chain.figures:
        worst = max(chain.figures, key=lambda f: f.total.max_error)
        window.statusBar().showMessage(
            f"{out.strategy} as {chain.choice.label}: worst total error "
            f"{format_value(worst.total.max_error, chain.fmt)} {chain.fmt.error_unit} at "
            f"level {worst.total.level}, block {worst.worst_block}", 20000)
    window.sigEncoded.emit(out)


def encode_chosen(window: QMainWindow) -> int | None:
    """Run > Encode result: the Heatmaps tab (where the errors show) and its codec chosen."""
    window.tabs.setCurrentWidget(window.heatmap)
    return encode(window, window.heatmap.encode_bar.spec())
