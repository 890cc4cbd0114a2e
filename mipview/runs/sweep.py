"""The width sweep behind ``mipview sweep`` and the GUI's Sweep tab: for every width a synthetic
image, each strategy's 1x1 level and the GPU mean against the exact mean (numpy float64).

A blit chain's 1x1 level is not the mean of an NPOT image and jumps as the width grows by one
pixel (the auto-exposure flicker); exact strategies stay within a rounding. Errors are in storage
units, as everywhere (compare.texel_errors): LSB for 8-bit formats, relative for floats.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from mipview.check.compare import texel_errors
from mipview.core.formats import Format, to_storage
from mipview.core.results import RunResult, TimingSettings
from mipview.core.specs import StrategySpec

if TYPE_CHECKING:
    from mipview.gpu.vulkan.context import GpuContext


def one_by_one(ctx: GpuContext, level0: np.ndarray, fmt: Format, specs: Sequence[StrategySpec],
               bench: tuple[int, float] | None = None) -> tuple[RunResult, dict[str, np.ndarray]]:
    """Each strategy's 1x1 level (storage units, float64) by spec string, and the RunResult
    (timed ``bench`` = (repeat, warm-up ms) runs if given)."""
    from mipview.gpu.session import Session

    with Session(ctx, level0, fmt, list(specs)) as session:
        session.generate()
        mip = session.result()
        tops = {str(r.spec): r.levels[-1].reshape(-1, 4)[0].astype(np.float64)
                for r in mip.results}
        if bench is not None:
            session.time_with(TimingSettings(repeat=bench[0], warmup_ms=bench[1]))
            mip = session.result()
    return mip, tops


@dataclass(frozen=True)
class SweepRow:
    """One width of a sweep: the exact mean and every curve's 1x1 value (storage units)."""

    width: int
    exact: tuple[float, ...]
    #: (name, RGBA value) per curve: ``gpu-mean`` first, then each strategy that ran
    values: tuple[tuple[str, tuple[float, ...]], ...]


@dataclass(frozen=True)
class SweepResult:
    """Each strategy's 1x1 level (and the GPU mean) against the exact mean, per width.

    Errors are the max over channels, in ``unit`` (LSB for 8-bit formats, relative for floats).
    ``widths`` holds the widths done: fewer than asked when the sweep was stopped."""

    widths: tuple[int, ...]
    height: int
    fmt: Format
    kind: str
    unit: str
    device: str
    #: per strategy (spec string, in the order given) the error at each width
    errors: tuple[tuple[str, tuple[float, ...]], ...]
    #: the GPU mean's (mipview.gpu.mean) error at each width
    gpu_mean: tuple[float, ...]
    rows: tuple[SweepRow, ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()
    validation_messages: tuple[str, ...] = ()
    stopped: bool = False

    def curves(self) -> dict[str, list[float]]:
        """Name -> errors per width, ``gpu-mean`` first (the table's and the JSON's order)."""
        return {"gpu-mean": list(self.gpu_mean), **{n: list(e) for n, e in self.errors}}


def sweep_curves(ctx: GpuContext, widths: Sequence[int], height: int, fmt: Format,
                 specs: Sequence[StrategySpec], seed: int = 0, kind: str = "zoneplate",
                 should_stop: Callable[[], bool] | None = None,
                 progress: Callable[[int, int], None] | None = None) -> SweepResult:
    """For every width a ``kind`` synthetic image of ``width`` x ``height``: each strategy's
    1x1 level and the GPU mean against the exact mean (numpy float64).

    ``should_stop`` is polled before each width (a stopped sweep returns the widths done);
    ``progress(done, total)`` is called after each width."""
    from mipview.gpu.mean import gpu_mean, mean_reference
    from mipview.io import synthetic

    widths = list(widths)
    curves: dict[str, list[float]] = {}
    rows: list[SweepRow] = []
    messages: list[str] = []
    skipped: tuple[tuple[str, str], ...] = ()
    device = ctx.caps.name
    stopped = False
    for i, w in enumerate(widths):
        if should_stop is not None and should_stop():
            stopped = True
            break
        src = synthetic.image(w, height, seed=seed, kind=kind)
        level0 = to_storage(src.pixels, fmt)
        exact = mean_reference(level0, fmt, "mean")
        mip, tops = one_by_one(ctx, level0, fmt, specs)
        messages += mip.validation_messages
        device = mip.device.name
        skipped = tuple((str(s), why) for s, why in mip.skipped)
        tops = {"gpu-mean": gpu_mean(ctx, level0, fmt, "mean"), **tops}
        for name, value in tops.items():
            curves.setdefault(name, []).append(float(texel_errors(value, exact, fmt).max()))
        rows.append(SweepRow(w, tuple(exact.tolist()),
                             tuple((n, tuple(v.tolist())) for n, v in tops.items())))
        if progress is not None:
            progress(i + 1, len(widths))
    messages += ctx.take_messages()
    gmean = curves.pop("gpu-mean", [])
    return SweepResult(tuple(widths[:len(rows)]), height, fmt, kind, fmt.error_unit, device,
                       tuple((n, tuple(e)) for n, e in curves.items()), tuple(gmean),
                       tuple(rows), skipped, tuple(messages), stopped)
