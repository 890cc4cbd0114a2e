"""numpy ``.npy`` arrays in: a depth buffer or render target dumped from an engine or a script,
read as the format its shape and dtype say. (H, W) is one channel (``r32f``, ``r16f``, ``r8``),
(H, W, C) with C = 1, 2 or 4 that many; float32, float16 or uint8. Every texel as stored."""

from __future__ import annotations

import io
import os

import numpy as np

from mipview.core.formats import Format
from mipview.io.containers.texture import ContainerError, PixelCheck, TextureFile

MAGIC = b"\x93NUMPY"


def read(path: str, data: bytes, check_pixels: PixelCheck) -> TextureFile:
    """The array in ``data`` as a one-level texture; ContainerError says why not."""
    try:
        a = np.load(io.BytesIO(data), allow_pickle=False)
    except (ValueError, OSError, EOFError) as e:
        raise ContainerError(f"not a readable .npy array ({e})") from None
    shape = a.shape if a.ndim != 2 else (*a.shape, 1)
    if len(shape) != 3:
        raise ContainerError(f"an array of shape {a.shape}: mipview reads (H, W) or (H, W, C)")
    fmt = Format.holding(shape[2], a.dtype.newbyteorder("="))
    if fmt is None:
        known = ", ".join(sorted({f"{f.channels} channel(s) of {f.dtype}" for f in Format}))
        raise ContainerError(f"{shape[2]} channel(s) of {a.dtype}: mipview holds {known}")
    check_pixels(shape[0] * shape[1], f"{shape[1]}x{shape[0]}")
    level0 = fmt.unpack(np.ascontiguousarray(a.reshape(shape), fmt.dtype))
    return TextureFile(os.path.basename(path), "NPY", f"{a.dtype} x {shape[2]}", fmt,
                       (np.ascontiguousarray(level0),))
