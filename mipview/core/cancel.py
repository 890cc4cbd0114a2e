"""Cooperative cancellation of long work (references, comparisons, GPU runs) in small steps.

A job that may be abandoned runs under a stop token (:func:`stop_token`, or :func:`run_with` for
a task handed to a thread pool): a callable that turns True once the work is of no use any more.
Long loops call :func:`checkpoint` between their steps (levels of a pyramid, blocks of a decode,
strategies of a run), which raises :class:`Cancelled` once the token is set; code that runs
without a token (the CLI, tests) pays one attribute lookup per step and never stops.

The token lives in the thread (``threading.local``), not in the signatures: the numpy functions
that do the work stay as they are, and a stopped window's worker ends within one step.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

from mipview.core.turns import give_turn

Stop = Callable[[], bool]
P = ParamSpec("P")
T = TypeVar("T")

_local = threading.local()


class Cancelled(Exception):
    """The work was abandoned at a checkpoint: its stop token was set."""


def checkpoint() -> None:
    """Raise :class:`Cancelled` if this thread's stop token is set (nothing without one). A
    step's end is also where a background thread lets a busy UI thread go first
    (:func:`mipview.core.turns.give_turn`)."""
    give_turn()
    stop = getattr(_local, "stop", None)
    if stop is not None and stop():
        raise Cancelled


@contextmanager
def stop_token(stop: Stop | None) -> Iterator[None]:
    """Run the body with ``stop`` as this thread's token (None: none); the previous one after."""
    previous = getattr(_local, "stop", None)
    _local.stop = stop
    try:
        yield
    finally:
        _local.stop = previous


def run_with(stop: Stop | None, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``fn(*args, **kwargs)`` under the token ``stop``: what a thread-pool task is submitted as
    (``pool.submit(run_with, stop, fn, ...)``), since a pool thread has no token of its own."""
    with stop_token(stop):
        return fn(*args, **kwargs)
