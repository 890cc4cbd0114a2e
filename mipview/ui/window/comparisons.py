"""What the Heatmaps tab asks of the workers: a result against another (another result of the
Run it shows, the strategy's previous version, its levels in a saved run) in the compare
worker, and a result made again on another device in the GPU worker; both leave the job under
way running."""

from __future__ import annotations

from PySide6.QtWidgets import QMainWindow

from mipview.ui.messages import CompareRequest, Comparison, DeviceRunOutput, DeviceRunRequest


def compare(window: QMainWindow, strategy: str, against: str) -> None:
    """``strategy`` against ``against`` (the tab says which levels that is)."""
    heatmap = window.heatmap
    shown = heatmap.output
    if shown is None:
        return
    levels = {str(r.spec): r.levels for r in shown.mip.results}
    baseline = heatmap.against_levels(strategy, against)
    if strategy not in levels or baseline is None:
        return

    def request(job: int) -> CompareRequest:
        heatmap.comparing(strategy, against, job)
        return CompareRequest(job, shown.job, strategy, against, levels[strategy], baseline,
                              shown.mip.fmt)

    window._send_compare(request)


def run_on_device(window: QMainWindow, device: str, strategy: str) -> None:
    """``strategy`` run on device ``device`` from the Run's level 0: a GPU worker's job
    (Vulkan's one thread) after the job under way, which it leaves running (a Run's timing goes
    on while the tab shows its levels); Stop ends it."""
    heatmap = window.heatmap
    shown = heatmap.output
    levels = {str(r.spec): r.levels for r in shown.mip.results} if shown else {}
    if strategy not in levels:
        return

    def request(job: int) -> DeviceRunRequest:
        heatmap.running_on_device(device, strategy, job, queued=window.is_busy())
        return DeviceRunRequest(job, device, strategy, levels[strategy][0], shown.mip.fmt)

    window._send(None, request)


def on_compared(window: QMainWindow, comparison: Comparison) -> None:
    # the view drops a comparison of levels it no longer shows
    if window.heatmap.set_comparison(comparison):
        window.sigComparisonShown.emit(comparison)


def on_device_run(window: QMainWindow, out: DeviceRunOutput) -> None:
    window.heatmap.set_device_run(out)
