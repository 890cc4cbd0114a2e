"""Saved chains read back for ``mipview diff``: a run folder written by ``mipview run
--out DIR`` (report.json, then DIR/<strategy>/level_NN.png, and level_NN.npy for float
formats: cli/main.write_result) or a texture file holding a chain (KTX2, DDS, EXR).

Opening reads report.json (or the whole texture file) and finds every level file, so a bad input
is told before any comparison; a run's levels are read one strategy at a time as they are
compared, so two runs of many strategies never sit in memory at once.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mipview.check.diff import ChainDiff, diff_chain, summed_bounds
from mipview.core.errors import MipviewError
from mipview.core.formats import Format, level_size
from mipview.core.specs import StrategySpec
from mipview.io import imageio
from mipview.io.containers.texture import FILE_SPEC_NAME

RUN_FOLDER = "run folder"
TEXTURE_FILE = "texture file"
REPORT = "report.json"  # as mipview/cli/output.py names it (runs may not import cli)

_LEVEL_FILE = re.compile(r"^level_(\d{2,})(?:_layer(\d{2,}))?\.png$")


class SavedError(MipviewError):
    """A path that is no saved run or texture chain, or one that cannot be read."""


class MismatchError(MipviewError):
    """Two saved runs that do not hold the same chains (sizes, formats, strategies)."""


@dataclass(frozen=True)
class SavedChain:
    """One chain of a saved run: a strategy's levels, or a texture file's."""

    name: str
    #: the promise its run judged it by ("stored", "carried", ...); None: not judged
    promise: str | None
    #: the chain bound of every level (report.json's ``bounds.chain``); None: no promise
    bounds: tuple[float, ...] | None
    level_count: int
    #: the levels as storage values, level 0 first, each (H, W, 4) or (L, H, W, 4)
    read: Callable[[], list[np.ndarray]] = field(compare=False, repr=False)


@dataclass(frozen=True)
class Saved:
    """A run folder or texture file opened: what it holds and what made it."""

    path: str
    kind: str  # RUN_FOLDER or TEXTURE_FILE
    device: str
    driver: str
    width: int
    height: int
    layers: int
    fmt: Format
    chains: tuple[SavedChain, ...]

    def describe(self) -> str:
        return describe_chain(self.fmt, self.width, self.height, self.layers)

    def chain(self, name: str) -> SavedChain:
        return next(c for c in self.chains if c.name == name)


def describe_chain(fmt: Format, width: int, height: int, layers: int) -> str:
    """What a chain holds, as messages name it: "13x7 unorm", "13x7 f16, 2 layers"."""
    return f"{width}x{height} {fmt.label}{f', {layers} layers' if layers > 1 else ''}"


def open_saved(text: str) -> Saved:
    """The run folder or texture file at ``text``; SavedError (one line naming it) if it is
    neither, or cannot be read."""
    path = Path(text)
    if path.is_dir():
        return _open_run(path)
    if not path.exists():
        raise SavedError(f"cannot open '{text}': no such file or folder")
    texture = imageio.read_chain(path)  # ImageLoadError: names the file and why
    levels = list(texture.levels)
    return Saved(text, TEXTURE_FILE, "file", f"{texture.container} {texture.pixel_format}",
                 texture.width, texture.height, texture.layers, texture.fmt,
                 (SavedChain(FILE_SPEC_NAME, None, None, len(levels), lambda: levels),))


def _open_run(folder: Path) -> Saved:
    report = folder / REPORT
    if not report.is_file():
        raise SavedError(f"'{folder}': not a mipview run folder (no {REPORT}) and not a "
                         "texture file")
    try:
        data = json.loads(report.read_text())
        device, image = data["device"], data["image"]
        fmt = Format.parse(image["format"])
        width, height, layers = int(image["width"]), int(image["height"]), int(image["layers"])
        entries = list(data["strategies"])
        chains = tuple(_run_chain(folder, e, fmt, width, height, layers) for e in entries)
        return Saved(str(folder), RUN_FOLDER, str(device["name"]), str(device["driver"]),
                     width, height, layers, fmt, chains)
    except OSError as exc:
        raise SavedError(f"cannot read '{exc.filename or report}': {exc.strerror or exc}") \
            from None
    except (ValueError, KeyError, TypeError) as exc:
        raise SavedError(f"'{report}': not a report of `mipview run` ({exc})") from None


def _bounds(entry: dict[str, Any]) -> tuple[float, ...] | None:
    """The chain bound per level; None when the run was not checked (``--no-check``)."""
    chain = (entry.get("bounds") or {}).get("chain")
    if chain is None:
        return None
    values = tuple(float(v) for v in chain)  # strict JSON keeps inf as "inf"
    if any(math.isnan(v) for v in values):
        raise ValueError(f"{entry['strategy']}: a NaN bound")
    return values


def _strategy_folder(folder: Path, entry: dict[str, Any]) -> Path:
    files = entry.get("files")
    if files:  # where run wrote them, as it listed them
        return folder / Path(files[0]).parent
    return folder / StrategySpec.parse(entry["strategy"]).slug


def _run_chain(folder: Path, entry: dict[str, Any], fmt: Format, width: int, height: int,
               layers: int) -> SavedChain:
    name = str(entry["strategy"])
    sub = _strategy_folder(folder, entry)
    found = sorted({int(m.group(1)) for p in (sub.iterdir() if sub.is_dir() else ())
                    if (m := _LEVEL_FILE.match(p.name))})
    if not found or found != list(range(len(found))):
        raise SavedError(f"'{sub}': no level_00.png .. level_NN.png of {name} "
                         f"(found levels {found})")
    bounds = _bounds(entry)
    if bounds is not None and len(bounds) != len(found):
        raise SavedError(f"'{folder / REPORT}': {name} has bounds for {len(bounds)} levels, "
                         f"its folder {len(found)} levels")
    paths = [_level_paths(sub, i, fmt, layers) for i in range(len(found))]
    for group in paths:
        for p in group:
            if not p.is_file():
                raise SavedError(f"'{p}': missing (a {fmt.label} run writes it)")

    def read() -> list[np.ndarray]:
        return [_read_level(group, fmt, level_size(width, height, i), layers)
                for i, group in enumerate(paths)]
    return SavedChain(name, entry.get("promise"), bounds, len(found), read)


def _level_paths(sub: Path, level: int, fmt: Format, layers: int) -> list[Path]:
    """The file of each layer of ``level``: imageio.save_level's names (``_layerNN`` for
    arrays), the exact ``.npy`` for float formats (their PNG is clipped to [0, 1])."""
    suffix = ".npy" if fmt.is_float else ".png"
    stem = f"level_{level:02d}"
    if layers == 1:
        return [sub / f"{stem}{suffix}"]
    return [sub / f"{stem}_layer{i:02d}{suffix}" for i in range(layers)]


def _read_level(paths: list[Path], fmt: Format, size: tuple[int, int],
                layers: int) -> np.ndarray:
    planes = [_read_plane(p, fmt, size) for p in paths]
    return planes[0] if layers == 1 else np.stack(planes)


def _read_plane(path: Path, fmt: Format, size: tuple[int, int]) -> np.ndarray:
    """One layer of one level as storage values (H, W, 4), as the run held it."""
    if fmt.is_float:
        try:
            own = np.load(path, allow_pickle=False)
        except (OSError, ValueError, EOFError) as exc:
            raise SavedError(f"cannot read '{path}': {exc}") from None
        if own.dtype != fmt.dtype or own.ndim != 3:
            raise SavedError(f"'{path}': {own.dtype} {own.shape}, not a {fmt.label} level")
        if fmt.packing:  # a packed float format's .npy is its float32 R, G, B (alpha reads 1)
            plane = np.concatenate([own, np.full(own.shape[:-1] + (1,), fmt.one, own.dtype)],
                                   axis=-1)
        else:
            plane = fmt.unpack(own)
    else:
        source = imageio.load(path)  # ImageLoadError: names the file and why
        bits = 8 * fmt.dtype.itemsize
        if source.bit_depth != bits:
            raise SavedError(f"'{path}': a {source.bit_depth}-bit PNG, a {fmt.label} level is "
                             f"{bits}-bit")
        # the PNG's samples back to codes, as level 0 of an image is (exact: imageio.save_level)
        plane = source.storage(fmt)
    if plane.shape != (size[1], size[0], 4):
        raise SavedError(f"'{path}': {plane.shape[1]}x{plane.shape[0]} texels, level should be "
                         f"{size[0]}x{size[1]}")
    return plane


def mismatch(a: Saved, b: Saved) -> str | None:
    """Why ``a`` and ``b`` cannot be compared texel by texel, or None."""
    if a.kind != b.kind:
        return f"A is a {a.kind}, B a {b.kind}: diff compares two of a kind"
    if a.describe() != b.describe():
        return f"A is {a.describe()}, B {b.describe()}"
    names_a, names_b = [c.name for c in a.chains], [c.name for c in b.chains]
    if set(names_a) != set(names_b):
        only_a = ", ".join(n for n in names_a if n not in names_b) or "none"
        only_b = ", ".join(n for n in names_b if n not in names_a) or "none"
        return f"the strategies differ: only in A {only_a}; only in B {only_b}"
    for ca in a.chains:
        cb = b.chain(ca.name)
        if ca.level_count != cb.level_count:
            return f"{ca.name}: {ca.level_count} levels in A, {cb.level_count} in B"
    return None


def compare_saved(a: Saved, b: Saved) -> list[ChainDiff]:
    """Every chain of ``a`` against the same chain of ``b``, in ``a``'s order; MismatchError
    when they do not hold the same chains."""
    why = mismatch(a, b)
    if why is not None:
        raise MismatchError(f"mismatched inputs: {why}")
    out = []
    for ca in a.chains:  # one strategy's levels in memory at a time
        cb = b.chain(ca.name)
        out.append(diff_chain(ca.name, ca.read(), cb.read(), a.fmt,
                              summed_bounds(ca.bounds, cb.bounds)))
    return out
