"""What the Heatmaps tab compares a result with besides the exact reference and the other results
of its Run: the same strategy's previous version, its levels in a saved run, and its levels made
on another device.

No Qt here, and none of it for the UI thread: the view runs :func:`levels_differ`,
:func:`open_saved_side` and :func:`read_saved_side` in its pixel pool, the GPU worker runs
:func:`run_on_device` (the one thread that calls Vulkan), and each returns a frozen dataclass
(or a bool) that crosses back to the UI thread.

**Previous version.** The rule is "an earlier Run's levels that differ", not "the shader's
source changed": when a Run's result replaces the shown result of the same spec on the same
image (the window forgets every kept result when an image opens) in the same format, size and
layer count, and :func:`levels_differ` says their levels differ, the replaced levels become that
strategy's previous version. A hot reload of a custom shader re-runs it, so its previous version
is the chain before the edit; a Run again with nothing changed keeps the version before (its
levels are the same), and a built-in strategy, whose levels never change between Runs, never
gets one. A Run in another format, size or layer count drops it, and so does a Run without
the strategy (each version kept is one more pyramid in memory).

**Saved run.** A run folder of ``mipview run --out`` (:func:`mipview.runs.saved.open_saved`),
of the same format, size and layer count as the Run shown, holding the strategy shown with as
many levels; anything else is told in one line (:class:`SavedFailed`) and nothing changes.

**Device N.** The strategy shown, run once on the Run's very level 0 on another device (or the
same one, on a context of its own), as ``mipview run --devices`` does: a context is opened for the
job and closed after it, so the device the window runs on is left as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mipview.core.cancel import Cancelled
from mipview.core.errors import MipviewError
from mipview.core.formats import Format
from mipview.core.results import RunResult
from mipview.core.specs import StrategySpec
from mipview.gpu.session import run_once
from mipview.gpu.vulkan.context import GpuContext
from mipview.runs.saved import RUN_FOLDER, Saved, describe_chain, open_saved


@dataclass(frozen=True)
class ChainKey:
    """What two chains of one strategy share to be compared texel by texel."""

    fmt: Format
    width: int
    height: int
    layers: int

    def describe(self) -> str:  # as Saved.describe, so the two read alike in a message
        return describe_chain(self.fmt, self.width, self.height, self.layers)


def chain_key(mip: RunResult) -> ChainKey:
    return ChainKey(mip.fmt, mip.width, mip.height, mip.layers)


@dataclass(frozen=True)
class Kept:
    """A result's levels as they were shown, and what they can be compared with."""

    key: ChainKey
    levels: tuple[np.ndarray, ...]


def levels_differ(a: tuple[np.ndarray, ...], b: tuple[np.ndarray, ...]) -> bool:
    """Whether any texel of chain ``a`` differs from ``b``'s (NaN equals NaN: the heatmap shows
    no difference there either)."""
    return len(a) != len(b) or any(
        x.shape != y.shape or not np.array_equal(x, y, equal_nan=x.dtype.kind == "f")
        for x, y in zip(a, b, strict=True))


class PreviousVersions:
    """Per strategy (``str`` of its spec): the result shown last and its previous version (the
    module's rule). Lives on the UI thread; the comparisons of levels it asks for do not."""

    def __init__(self) -> None:
        self._last: dict[str, Kept] = {}
        self._previous: dict[str, Kept] = {}

    def clear(self) -> None:
        """Another image: no earlier result is a version of the next ones."""
        self._last.clear()
        self._previous.clear()

    def retain(self, names: set[str]) -> None:
        """Keep only the strategies of the Run shown: the window offers no other, and each kept
        chain is one more copy of a pyramid in memory (at most two per strategy shown)."""
        for kept in (self._last, self._previous):
            for name in [n for n in kept if n not in names]:
                del kept[name]

    def shown(self, name: str, kept: Kept) -> Kept | None:
        """``kept`` is now the result of ``name`` shown. Returns the result it replaces when
        their levels are to be compared (then tell :meth:`checked`); None when there is nothing
        to compare: the first result of ``name``, or one of another format, size or layer count
        (which drops the previous version)."""
        old = self._last.get(name)
        self._last[name] = kept
        if old is None or old.key != kept.key:
            self._previous.pop(name, None)
            return None
        return None if old.levels is kept.levels else old

    def checked(self, name: str, old: Kept, differ: bool) -> bool:
        """Whether ``old``'s levels differ from those that replaced them: if so, ``old`` is now
        the previous version of ``name``. True when the previous version changed. (Checks end
        in the order they were asked for, so the latest differing result wins.)"""
        last = self._last.get(name)
        if not differ or last is None or last.key != old.key:
            return False
        self._previous[name] = old
        return True

    def levels(self, name: str) -> tuple[np.ndarray, ...] | None:
        kept = self._previous.get(name)
        return kept.levels if kept is not None else None


@dataclass(frozen=True)
class SavedSide:
    """One strategy's levels read from a saved run folder, to compare the Run shown with."""

    path: str
    saved: Saved
    key: ChainKey
    strategy: str
    levels: tuple[np.ndarray, ...]

    def label(self) -> str:
        return f"saved run {Path(self.path).name}"

    def origin(self) -> str:
        """What made the saved run: its device and driver (what a comparison may be about)."""
        return f"{self.saved.device}, {self.saved.driver}"


@dataclass(frozen=True)
class SavedFailed:
    """Why a saved run (``path``: the folder) or another device (``path``: "device N") cannot be
    compared with the Run shown, in one line."""

    path: str
    message: str


def saved_mismatch(saved: Saved, strategy: str, key: ChainKey, level_count: int) -> str | None:
    """Why ``strategy``'s chain in ``saved`` cannot be compared with the Run shown (``key``,
    ``level_count`` levels), or None."""
    if saved.kind != RUN_FOLDER:
        return f"'{saved.path}': a {saved.kind}, not a run folder of `mipview run --out`"
    if (saved.fmt, saved.width, saved.height, saved.layers) != \
            (key.fmt, key.width, key.height, key.layers):
        return f"'{saved.path}' holds {saved.describe()}, the run shown is {key.describe()}"
    names = [c.name for c in saved.chains]
    if strategy not in names:
        return f"'{saved.path}' has no {strategy} (it holds {', '.join(names) or 'none'})"
    count = saved.chain(strategy).level_count
    if count != level_count:
        return f"'{saved.path}': {strategy} has {count} levels, in the run shown {level_count}"
    return None


def read_saved_side(saved: Saved, strategy: str, key: ChainKey,
                    level_count: int) -> SavedSide | SavedFailed:
    """``strategy``'s levels in the opened ``saved`` run (file reads: off the UI thread)."""
    why = saved_mismatch(saved, strategy, key, level_count)
    if why is not None:
        return SavedFailed(saved.path, why)
    try:
        levels = tuple(saved.chain(strategy).read())
    except MipviewError as exc:  # a level file that cannot be read: it names the file
        return SavedFailed(saved.path, str(exc))
    except (OSError, ValueError) as exc:  # told, not lost in the pool's thread
        return SavedFailed(saved.path, f"cannot read '{saved.path}': {exc}")
    return SavedSide(saved.path, saved, key, strategy, levels)


def open_saved_side(path: str, strategy: str, key: ChainKey,
                    level_count: int) -> SavedSide | SavedFailed:
    """Open the run folder ``path`` and read ``strategy``'s levels (off the UI thread)."""
    try:
        saved = open_saved(path)
    except MipviewError as exc:  # not a run folder, or a broken one: one line naming it
        return SavedFailed(path, str(exc))
    except (OSError, ValueError) as exc:
        return SavedFailed(path, f"cannot open '{path}': {exc}")
    return read_saved_side(saved, strategy, key, level_count)


@dataclass(frozen=True)
class DeviceSide:
    """One strategy's levels made on another device, from the Run's level 0."""

    device: str  # what the device and its driver say they are
    levels: tuple[np.ndarray, ...]


def run_on_device(device: str, level0: np.ndarray, fmt: Format, strategy: str,
                  validate: bool | None = None) -> DeviceSide | SavedFailed:
    """``strategy`` once on ``level0`` (of ``fmt``) on device ``device`` (its index), on a
    context of its own opened and closed here, in the calling thread (it must be the one that
    calls Vulkan). A failure is told, not raised; a stop (:class:`Cancelled`) is raised."""
    where = f"device {device}"
    try:
        with GpuContext(device=device, validate=validate) as ctx:
            caps = ctx.caps
            mip = run_once(ctx, level0, fmt, [StrategySpec.parse(strategy)])
    except Cancelled:
        raise
    except MipviewError as exc:
        return SavedFailed(where, f"{where}: {exc}")
    except Exception as exc:  # noqa: BLE001 - a driver's error is told as this choice's failure:
        # raised, it would reach the worker as a failure of the window's own device
        return SavedFailed(where, f"{where}: {type(exc).__name__}: {exc}")
    if not mip.results:
        why = "; ".join(w for _, w in mip.skipped) or "no result"
        return SavedFailed(where, f"{where} ({caps.name}) cannot run {strategy}: {why}")
    return DeviceSide(f"{caps.name}, {caps.driver_name} {caps.driver_info}".strip(),
                      tuple(mip.results[0].levels))
