"""numpy ``.npy`` arrays in: a depth buffer or render target dumped from an engine or a script,
read as the format its shape and dtype say. (H, W) is one channel (``r32f``, ``r16f``, ``r8``),
(H, W, C) with C = 1, 2 or 4 that many; float32, float16 or uint8. Every texel as stored.

Volumes: a file named ``*.volume.npy`` (e.g. ``fog.volume.npy``) holds a volume (3D texture),
(D, H, W) of one channel or (D, H, W, C) of C = 1, 2 or 4, slice z = 0 first. The name says so
because the shape cannot: (D, H, W) could be (H, W, C) and (D, H, W, C) an array of layers. A
plain ``.npy`` is read as a 2D image, whatever its shape.
"""

from __future__ import annotations

import io
import os

import numpy as np

from mipview.core.formats import Format
from mipview.io.containers.texture import ContainerError, PixelCheck, TextureFile

MAGIC = b"\x93NUMPY"
#: the suffix that makes a ``.npy`` a volume
VOLUME_SUFFIX = ".volume.npy"


def is_volume_name(path: str) -> bool:
    """Whether ``path`` is named as a volume (``*.volume.npy``, any case)."""
    return os.path.basename(path).lower().endswith(VOLUME_SUFFIX)


def read(path: str, data: bytes, check_pixels: PixelCheck) -> TextureFile:
    """The array in ``data`` as a one-level texture (a volume when ``path`` is named
    ``*.volume.npy``); ContainerError says why not."""
    try:
        a = np.load(io.BytesIO(data), allow_pickle=False)
    except (ValueError, OSError, EOFError) as e:
        raise ContainerError(f"not a readable .npy array ({e})") from None
    volume = is_volume_name(path)
    if volume:
        shape = a.shape if a.ndim != 3 else (*a.shape, 1)
        if len(shape) != 4:
            raise ContainerError(f"an array of shape {a.shape} named {VOLUME_SUFFIX}: a volume "
                                 f"is (D, H, W) or (D, H, W, C)")
    else:
        shape = a.shape if a.ndim != 2 else (*a.shape, 1)
        if len(shape) != 3:
            hint = f" (a volume (D, H, W[, C]) is read from a file named *{VOLUME_SUFFIX})" \
                if a.ndim in (3, 4) else ""
            raise ContainerError(f"an array of shape {a.shape}: mipview reads (H, W) or "
                                 f"(H, W, C){hint}")
    if 0 in shape:
        raise ContainerError(f"an empty array of shape {a.shape}")
    channels = shape[-1]
    fmt = Format.holding(channels, a.dtype.newbyteorder("="))
    if fmt is None:
        known = ", ".join(sorted({f"{f.channels} channel(s) of {f.dtype}" for f in Format}))
        raise ContainerError(f"{channels} channel(s) of {a.dtype}: mipview holds {known}")
    if volume:
        check_pixels(shape[0] * shape[1] * shape[2], f"a {shape[2]}x{shape[1]}x{shape[0]} volume")
    else:
        check_pixels(shape[0] * shape[1], f"{shape[1]}x{shape[0]}")
    level0 = fmt.unpack(np.ascontiguousarray(a.reshape(shape), fmt.dtype))
    return TextureFile(os.path.basename(path), "NPY", f"{a.dtype} x {channels}", fmt,
                       (np.ascontiguousarray(level0),), volume=volume)
