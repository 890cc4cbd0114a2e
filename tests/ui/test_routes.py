"""The window routes what its workers send by type: every reply type of mipview.ui.messages has a
route, and a reply without one fails loudly instead of vanishing."""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass

import pytest

from mipview.ui import messages
from mipview.ui.workers.cpu_worker import CpuWorker
from mipview.ui.workers.gpu_worker import GpuWorker
from mipview.ui.workers.jobs import JobWorker

#: the dataclasses of messages.py that no worker sends by sigReply: a part of LiveStats, and
#: what sigError carries
NOT_REPLIES = {messages.TimingFigures, messages.WorkerError}


def reply_types(*workers: JobWorker) -> set[type]:
    """Every dataclass messages.py defines, less the requests ``workers`` handle: what they
    reply with (a new message is in here the moment it is written)."""
    requests = set().union(*(w._handlers for w in workers))
    defined = {cls for _, cls in inspect.getmembers(messages, inspect.isclass)
               if dataclasses.is_dataclass(cls) and cls.__module__ == messages.__name__}
    return defined - requests - NOT_REPLIES


def unrouted(routes: dict[type, object], *workers: JobWorker) -> set[type]:
    return reply_types(*workers) - routes.keys()


def test_every_reply_type_has_a_route(qtbot, make_window):
    w = make_window()
    workers = (w.worker, w.comparer)
    replies = reply_types(*workers)
    # the derivation finds both workers' replies, not none
    assert {messages.DeviceList, messages.LevelsReady, messages.LiveStats,
            messages.Comparison, messages.PreviewOutput} <= replies
    assert unrouted(w._routes, *workers) == set()
    assert set(w._routes) == replies  # and no route for something no worker sends
    # the check fails when a route line is missing, naming the type
    assert unrouted({k: v for k, v in w._routes.items() if k is not messages.SweepOutput},
                    *workers) == {messages.SweepOutput}


def test_reply_types_do_not_need_a_window(qapp):
    """The same list from workers that were never started (no device, no thread)."""
    assert messages.RunRequest not in reply_types(GpuWorker(), CpuWorker())
    assert messages.BaselineDeltas in reply_types(GpuWorker(), CpuWorker())
    # a request no worker handles counts as a reply: it would fail the route check too
    assert messages.CompareRequest in reply_types(GpuWorker())


@dataclass(frozen=True)
class Unrouted:
    job: int


def test_an_unrouted_reply_raises(qtbot, make_window):
    w = make_window()
    shown: list[object] = []
    for sig in (w.sigRunShown, w.sigStatsShown, w.sigErrorShown, w.sigJobFinished):
        sig.connect(shown.append)
    with pytest.raises(TypeError, match="no route for Unrouted"):
        w._on_reply(Unrouted(1))
    # sent as a worker sends it: the exception surfaces (pytest-qt would fail the test with it)
    with qtbot.captureExceptions() as caught:
        w.worker.sigReply.emit(Unrouted(2))
        w.comparer.sigReply.emit(Unrouted(3))
        qtbot.wait(50)
    assert [str(exc) for _, exc, _ in caught] == [
        "MainWindow has no route for Unrouted: add Unrouted to ROUTES in "
        "mipview.ui.window.replies"] * 2
    assert shown == []


def test_the_worker_loads_what_a_first_run_would_ahead(make_window):
    """The clock's reader is opened with the device, not in a first Run's timing (its import,
    with numpy.ma's, held the interpreter lock while the window showed the results)."""
    import sys

    w = make_window()
    assert "clock_reader" in w.worker.ctx.caches
    assert "numpy.ma" in sys.modules
