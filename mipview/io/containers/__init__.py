"""Real texture files in and out: a verified chain written as KTX2, DDS or EXR, and texture files
read back, their level 0 as a source image and their own chain as a result to check.

Writing: :func:`export` (``mipview run --export ktx2,dds,exr``). Reading goes through
``imageio.load``, which hands ``.ktx2``, ``.ktx`` (KTX 1.1, read only), ``.dds`` and ``.exr``
files (or files with their magic) to :mod:`mipview.io.containers.decode`; the source image it returns carries the decoded file as
``SourceImage.texture`` (a :class:`TextureFile`), whose ``as_result()`` is the file's chain as a
``StrategyResult`` ("file:name=<file>", promise ``file``) for ``verdict.judge`` and the views;
:func:`mipview.runs.staged.with_file_chain` adds it to a run's results (``mipview run`` and the
window alike).

Volumes (3D textures, levels (D, H, W, 4)) go out as KTX2 and DDS with ``export(...,
volume=True)`` and come back with ``imageio.load(path, volumes=True)`` (``TextureFile.volume``);
without it ``imageio.load`` refuses them in one line, so nothing takes their slices for layers.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from mipview.core.errors import MipviewError
from mipview.core.formats import Format
from mipview.core.specs import StrategySpec
from mipview.io import atomic
from mipview.io.containers import dds, exr, ktx2
from mipview.io.containers.decode import SUFFIXES
from mipview.io.containers.texture import FILE_SPEC_NAME, ContainerError, TextureFile

__all__ = ["EXPORT_KINDS", "FILE_SPEC_NAME", "SUFFIXES", "ContainerError", "TextureFile",
           "export", "parse_kinds", "title"]

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


def export(folder: str | os.PathLike[str], stem: str, levels: Sequence[np.ndarray], fmt: Format,
           kinds: Sequence[str] = EXPORT_KINDS, *, faces: int = 1,
           volume: bool = False) -> list[Path]:
    """Write the chain ``levels`` (storage values of ``fmt``, level 0 first, each (H, W, 4) or
    (layers, H, W, 4)) into ``folder`` (made if missing) as each of ``kinds``: ``stem.ktx2``,
    ``stem.dds``, ``stem.levelNN.exr``. ``faces`` 6: the levels are a cube map or cube array,
    (6 n, N, N, 4) (mipview.core.cube), written as one (KTX2 faceCount 6, DDS TEXTURECUBE, EXR
    parts marked ``mipviewCube``). ``volume``: the levels are a volume's, (D, H, W, 4) with
    level k max(1, D >> k) slices deep, written as a 3D texture (KTX2 pixelDepth, DDS
    TEXTURE3D). Every file is written atomically. Returns the files, in order.

    Raises MipviewError when a file cannot be written, or when a cube's faces are not square;
    ValueError for a volume with ``exr`` among ``kinds`` (EXR holds no volumes), before anything
    is written. Every other kind holds every format (EXR as floats that read back as the
    format's codes: :mod:`.exr`)."""
    folder = Path(folder)
    if volume and "exr" in kinds:
        raise ValueError("EXR holds no volumes: export KTX2 or DDS")
    files: list[tuple[Path, bytes]] = []
    for kind in kinds:
        if kind == "ktx2":
            files.append((folder / f"{stem}.ktx2", ktx2.encode(levels, fmt, faces, volume)))
        elif kind == "dds":
            files.append((folder / f"{stem}.dds", dds.encode(levels, fmt, faces, volume)))
        elif kind == "exr":
            files += [(folder / exr.level_name(stem, p), data)
                      for p, data in enumerate(exr.encode(levels, fmt, faces))]
        else:
            raise ValueError(f"unknown export kind {kind!r}")
    written = []
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise MipviewError(f"cannot make the folder '{folder}': {e.strerror or e}") from None
    for target, data in files:
        try:
            written.append(atomic.write_atomic(target, data))
        except OSError as e:
            raise MipviewError(f"cannot write '{target}': {e.strerror or e}") from None
    return written


def title(spec: StrategySpec) -> str:
    """How a result is named to a user: "file: NAME" for a texture file's own chain, else the
    spec as written."""
    if spec.name == FILE_SPEC_NAME:
        return f"file: {spec.option_dict.get('name', '')}"
    return str(spec)
