"""Real texture files in and out: a verified chain written as KTX2, DDS or EXR, and texture files
read back, their level 0 as a source image and their own chain as a result to check.

Writing: :func:`export` (``mipview run --export ktx2,dds,exr``). Reading goes through
``imageio.load``, which hands ``.ktx2``, ``.dds`` and ``.exr`` files (or files with their magic)
to :mod:`mipview.containers.decode`; the source image it returns carries the decoded file as
``SourceImage.texture`` (a :class:`TextureFile`), whose ``as_result()`` is the file's chain as a
``StrategyResult`` ("file:name=<file>", promise exact) for ``verdict.judge`` and the views.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from mipview import MipviewError, imageio
from mipview.containers import dds, exr, ktx2
from mipview.containers.decode import SUFFIXES
from mipview.containers.texture import FILE_SPEC_NAME, ContainerError, TextureFile
from mipview.formats import Format

__all__ = ["EXPORT_KINDS", "FILE_SPEC_NAME", "SUFFIXES", "ContainerError", "TextureFile",
           "export", "export_problem", "parse_kinds", "read_chain"]

#: what ``--export`` takes, in the order files are written
EXPORT_KINDS = ("ktx2", "dds", "exr")


def parse_kinds(text: str) -> tuple[str, ...]:
    """``"ktx2,dds"`` -> ("ktx2", "dds") (``all``: every kind); ValueError names a bad one."""
    kinds = [k.strip().lower() for k in text.split(",") if k.strip()]
    if kinds == ["all"]:
        return EXPORT_KINDS
    bad = [k for k in kinds if k not in EXPORT_KINDS]
    if bad or not kinds:
        raise ValueError(f"unknown export kind {', '.join(bad) or repr(text)}; choose from "
                         f"{', '.join(EXPORT_KINDS)} or all")
    return tuple(k for k in EXPORT_KINDS if k in kinds)


def export_problem(kinds: Sequence[str], fmt: Format) -> str:
    """Why ``kinds`` cannot hold levels of ``fmt`` ("" when they can): EXR holds float levels
    only. Ask before the GPU work, so a bad choice costs nothing."""
    if "exr" in kinds and not fmt.is_float:
        return (f"EXR holds float levels and this run is {fmt.label}: export exr with "
                f"--format f16 or f32")
    return ""


def export(folder: str | os.PathLike[str], stem: str, levels: Sequence[np.ndarray], fmt: Format,
           kinds: Sequence[str] = EXPORT_KINDS) -> list[Path]:
    """Write the chain ``levels`` (storage values of ``fmt``, level 0 first, each (H, W, 4) or
    (layers, H, W, 4)) into ``folder`` as each of ``kinds``: ``stem.ktx2``, ``stem.dds``,
    ``stem.levelNN.exr``. Every file is written atomically. Returns the files, in order.

    Raises MipviewError when a kind cannot hold ``fmt`` (:func:`export_problem`) or a file
    cannot be written."""
    problem = export_problem(kinds, fmt)
    if problem:
        raise MipviewError(problem)
    folder = Path(folder)
    files: list[tuple[Path, bytes]] = []
    for kind in kinds:
        if kind == "ktx2":
            files.append((folder / f"{stem}.ktx2", ktx2.encode(levels, fmt)))
        elif kind == "dds":
            files.append((folder / f"{stem}.dds", dds.encode(levels, fmt)))
        elif kind == "exr":
            files += [(folder / exr.level_name(stem, p), data)
                      for p, data in enumerate(exr.encode(levels, fmt))]
        else:
            raise ValueError(f"unknown export kind {kind!r}")
    written = []
    for target, data in files:
        try:
            written.append(imageio.write_atomic(target, data))
        except OSError as e:
            raise MipviewError(f"cannot write '{target}': {e.strerror or e}") from None
    return written


def read_chain(path: str | os.PathLike[str]) -> TextureFile:
    """The texture file at ``path``, every level decoded (``imageio.load(path).texture``).

    Raises imageio.ImageLoadError, naming the file: unreadable, malformed, or not a texture
    container."""
    texture = imageio.load(path).texture
    if texture is None:
        raise imageio.ImageLoadError(f"cannot open '{os.fspath(path)}': not a texture file "
                                     f"(KTX2, DDS or EXR)")
    return texture
