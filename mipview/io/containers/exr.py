"""OpenEXR: float chains written losslessly (ZIP), one file per level, and EXR files read back
with their range kept (negative, > 1, non-finite values as they are).

The OpenEXR Python binding writes only level 0 of a mip-mapped tiled image (the other levels'
tiles are left out and the file is unreadable), so each level is its own scanline file,
``name.levelNN.exr``; an array's layers are the parts of each level's file (``layer00``...).
Opening ``name.levelKK.exr`` takes it as level 0 and ``name.level(KK+1).exr``... as the chain.

The OpenEXR package is imported only when an EXR is written or read, so the core and the GPU
code import without it.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np

from mipview.core.formats import Format, level_size
from mipview.io.containers import exr_layout
from mipview.io.containers.texture import (
    ContainerError,
    PixelCheck,
    TextureFile,
    check_level_count,
    level_shape,
)

_LEVEL_NAME = re.compile(r"^(?P<stem>.*)\.level(?P<level>\d{2,})\.exr$", re.IGNORECASE)
_HALF, _FLOAT = 1, 2


_OUTPUT_LOCK = threading.Lock()


@contextlib.contextmanager
def _library_output() -> Iterator[list[str]]:
    """Collect what the OpenEXR library prints (its C++ error handler on descriptor 2, the
    binding's warnings through Python's stdout) into the yielded list, so that a corrupt file
    ends in one line of ours. One thread at a time: the streams belong to the process."""
    said: list[str] = []
    python_side = io.StringIO()
    with _OUTPUT_LOCK, tempfile.TemporaryFile() as sink:
        sys.stdout.flush()
        sys.stderr.flush()
        saved = [os.dup(1), os.dup(2)]
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        try:
            with contextlib.redirect_stdout(python_side), contextlib.redirect_stderr(python_side):
                yield said
        finally:
            for fd, original in enumerate(saved, start=1):
                os.dup2(original, fd)
                os.close(original)
            sink.seek(0)
            said[:0] = (sink.read().decode("utf-8", "replace").splitlines()
                        + python_side.getvalue().splitlines())


def _openexr() -> ModuleType:
    try:
        import OpenEXR
    except ImportError:
        raise ContainerError("EXR files need the OpenEXR package (pip install OpenEXR)") from None
    return OpenEXR


def level_name(stem: str, level: int) -> str:
    """File name of ``level`` of a chain written as ``stem``: ``stem.levelNN.exr``."""
    return f"{stem}.level{level:02d}.exr"


# --- writing -------------------------------------------------------------------------------------
def encode(levels: list[np.ndarray] | tuple[np.ndarray, ...], fmt: Format) -> list[bytes]:
    """One EXR file per level of ``levels`` (float16 -> half, float32 -> float channels R, G, B,
    A; ZIP compression, lossless); (layers, H, W, 4) levels become one part per layer."""
    if not fmt.is_float:
        raise ValueError(f"EXR holds float levels, not {fmt.label}")
    exr = _openexr()

    def header() -> dict[str, object]:  # a new one each time: the binding fills in its windows
        return {"compression": exr.ZIP_COMPRESSION, "type": exr.scanlineimage}

    first = np.asarray(levels[0])
    layers = int(first.shape[0]) if first.ndim == 4 else None
    out = []
    for p, level in enumerate(levels):
        a = np.ascontiguousarray(level, dtype=fmt.dtype)
        shape = level_shape(int(first.shape[-2]), int(first.shape[-3]), p, layers)
        if a.shape != shape:
            raise ValueError(f"level {p} is {a.shape}, expected {shape}")
        if layers is None:
            file = exr.File(header(), _channels(a, fmt))
        else:
            file = exr.File([exr.Part(header(), _channels(a[i], fmt), f"layer{i:02d}")
                             for i in range(layers)])
        buf = io.BytesIO()
        file.write(buf)
        out.append(buf.getvalue())
    return out


def _channels(a: np.ndarray, fmt: Format) -> dict[str, np.ndarray]:
    """The EXR channels of one (H, W, 4) image of ``fmt``: RGBA, the format's own R [G], or a
    depth source's Z (what engines and DCC tools name a depth channel)."""
    if fmt.channels == 4:
        return {"RGBA": np.ascontiguousarray(a)}
    names = "Z" if fmt.depth_source else "RG"[:fmt.channels]
    return {name: np.ascontiguousarray(a[..., i]) for i, name in enumerate(names)}


# --- reading -------------------------------------------------------------------------------------
#: channel sets read as one- or two-channel images (depth buffers are written as Z; a lone Y, a
#: luminance or depth buffer some tools write, is one channel too)
_FEW = {frozenset("R"): 1, frozenset("Z"): 1, frozenset("Y"): 1, frozenset("RG"): 2}


def _own_channels(names: set[str] | frozenset[str]) -> int:
    """How many channels an image of these EXR channel names holds as mipview reads it: 1 for a
    lone R, Z (depth) or Y, 2 for R and G, else 4."""
    return _FEW.get(frozenset(names), 4)


def _rgba(channels: dict[str, np.ndarray]) -> np.ndarray:
    """(H, W, 4) from an EXR's channels: RGBA, RGB (alpha 1), R G B [A] or Y [A] (grey); a lone
    R, Z or Y, or R and G, fill the rest as a shader reads them (0, 0, 1)."""
    if "RGBA" in channels:
        return channels["RGBA"]
    few = _own_channels(set(channels))
    if few < 4:
        names = next(([n] for n in "ZY" if n in channels), list("RG"[:few]))
        own = np.stack([channels[n] for n in names], axis=-1)
        fmt = Format.holding(few, own.dtype)
        assert fmt is not None  # half or float (exr_layout refuses the rest)
        return fmt.unpack(own)
    colour = channels.get("RGB")
    if colour is None and all(c in channels for c in "RGB"):
        colour = np.stack([channels[c] for c in "RGB"], axis=-1)
    if colour is None and "Y" in channels:
        colour = np.repeat(channels["Y"][..., None], 3, axis=-1)
    if colour is None:
        raise ContainerError(f"no colour channels mipview reads (RGBA, RGB, R G B or Y; the file "
                             f"has {', '.join(sorted(channels)) or 'none'})")
    alpha = channels.get("A")
    if alpha is None:
        alpha = np.ones(colour.shape[:2], colour.dtype)
    dtype = np.result_type(colour.dtype, alpha.dtype)
    return np.concatenate([colour.astype(dtype), alpha[..., None].astype(dtype)], axis=-1)


def _decode(data: bytes, check_pixels: PixelCheck) -> tuple[np.ndarray, list[str]]:
    """(levels-to-be: (H, W, 4) or (parts, H, W, 4) float16/float32, notes) of one EXR file."""
    parts = exr_layout.check(data)
    check_pixels(sum(p.width * p.height for p in parts),
                 f"{parts[0].width}x{parts[0].height}"
                 + (f" x {len(parts)} parts" if len(parts) > 1 else ""))
    types = {t for p in parts for t in p.channels.values()}
    if not types <= {_HALF, _FLOAT}:
        raise ContainerError("32-bit unsigned integer channels: mipview reads half and float")
    exr = _openexr()
    error = ""
    with _library_output() as said:
        try:
            file = exr.File(io.BytesIO(data))
            images = [_rgba({k: np.asarray(v.pixels) for k, v in part.channels.items()})
                      for part in file.parts]
        except (RuntimeError, ValueError, TypeError, OSError) as e:
            error, images = str(e), []
    if len(images) != len(parts):
        # on a corrupt chunk the library prints the reason and leaves that part out
        detail = next((line.strip() for line in [*said, error] if line.strip()
                       and not line.startswith("Warning:")),
                      f"{len(images)} of {len(parts)} parts decoded")
        raise ContainerError(f"OpenEXR could not decode it: "
                             f"{detail.replace('<python_buffer>: ', '')}")
    if said:  # a file that decoded: whatever the library said is the user's to see
        print("\n".join(said), file=sys.stderr)
    notes = []
    if parts[0].tile_levels > 1:
        notes.append(f"a tiled EXR with {parts[0].tile_levels} mip levels: the OpenEXR Python "
                     f"binding reads level 0 only, so its chain is not checked")
    shapes = {im.shape for im in images}
    if len(images) > 1 and len(shapes) == 1:
        return np.stack(images), notes
    if len(images) > 1:
        notes.append(f"first of {len(images)} parts (their sizes differ)")
    return images[0], notes


def read(path: str, data: bytes, check_pixels: PixelCheck) -> TextureFile:
    """Decode an EXR file, and when its name is ``stem.levelKK.exr``, the levels after it.
    Raises ContainerError (or what ``check_pixels`` raises)."""
    name = Path(path).name
    level0, notes = _decode(data, check_pixels)
    levels = [level0]
    dtype = level0.dtype
    match = _LEVEL_NAME.match(name)
    if match:
        height, width = level0.shape[-3:-1]
        first = int(match["level"])
        for k in range(1, 64):
            sibling = Path(path).with_name(level_name(match["stem"], first + k))
            if not sibling.is_file():
                break
            check_level_count(k + 1, width, height)
            try:
                sibling_data = sibling.read_bytes()
            except OSError as e:
                raise ContainerError(f"cannot read {sibling.name}: {e.strerror or e}") from None
            try:
                level, _ = _decode(sibling_data, check_pixels)
            except ContainerError as e:
                raise ContainerError(f"{sibling.name}: {e}") from None
            shape = level_shape(width, height, k, level0.shape[0] if level0.ndim == 4 else None)
            if level.shape != shape:
                w, h = level_size(width, height, k)
                raise ContainerError(f"{sibling.name} is not level {k} of this chain: "
                                     f"{level.shape[-2]}x{level.shape[-3]}, a {width}x{height} "
                                     f"level 0 makes it {w}x{h}")
            levels.append(level)
        dtype = np.result_type(*[a.dtype for a in levels])
    channels = exr_layout.check(data)[0].channels
    few = _own_channels(channels)
    fmt = Format.holding(few, np.dtype(dtype))
    assert fmt is not None  # half or float, in 1, 2 or 4 channels: all in the table
    if fmt.element is Format.F32 and any(a.dtype != np.float32 for a in levels):
        notes.append("half and float channels mixed: read as float")
    kinds = {np.dtype(np.float16): "half", np.dtype(np.float32): "float"}
    names = ", ".join(sorted(channels)) if few < 4 else "RGBA"
    return TextureFile(name, "EXR", f"{kinds[np.dtype(dtype)]} {names}", fmt,
                       tuple(np.ascontiguousarray(a, dtype) for a in levels), None, tuple(notes))
