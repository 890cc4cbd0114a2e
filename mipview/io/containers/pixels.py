"""How the bytes of one level become storage values: plain texel layouts (any component order,
with or without alpha) and BCn blocks. Shared by the KTX2 and DDS readers."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mipview.core.formats import Format
from mipview.io.containers import bcn
from mipview.io.containers.texture import TextureFile


@dataclass(frozen=True)
class Plain:
    """Uncompressed texels of ``components`` values of ``fmt``'s storage type each.

    ``order[i]`` is the component that feeds channel i (R, G, B, A); None: alpha opaque, colour
    0 (Vulkan's defaults for a missing channel)."""

    name: str
    fmt: Format
    components: int = 4
    order: tuple[int | None, int | None, int | None, int | None] = (0, 1, 2, 3)


@dataclass(frozen=True)
class Blocks:
    """BCn blocks; ``opaque``: BC1's RGB variant (alpha 1)."""

    name: str
    codec: bcn.BlockCodec
    srgb: bool
    opaque: bool = False


Layout = Plain | Blocks

BGRA = (2, 1, 0, 3)
BGRX = (2, 1, 0, None)


def image_bytes(kind: Layout, width: int, height: int) -> int:
    """Bytes of one image (one layer) of ``width`` x ``height`` texels."""
    if isinstance(kind, Blocks):
        return bcn.level_bytes(kind.codec, width, height)
    return width * height * kind.components * kind.fmt.texel_dtype.itemsize


def storage_format(kind: Layout) -> Format:
    """The mipview format the decoded values are in (BCn: UNORM or SRGB bytes)."""
    if isinstance(kind, Blocks):
        return Format.SRGB if kind.srgb else Format.UNORM
    return kind.fmt


def decode_level(kind: Layout, data: bytes, offset: int, width: int, height: int,
                 layers: int) -> np.ndarray:
    """(layers, height, width, 4) storage values of the ``layers`` images that lie one after
    the other at ``offset`` (the caller has checked that they lie inside ``data``); a volume's
    level is its slices so laid out (KTX2 and DDS alike: z = 0 first)."""
    size = image_bytes(kind, width, height)
    if isinstance(kind, Blocks):
        return np.stack([bcn.decode(kind.codec, data[offset + i * size:offset + (i + 1) * size],
                                    width, height, kind.opaque) for i in range(layers)])
    dtype = kind.fmt.texel_dtype.newbyteorder("<")
    src = np.frombuffer(data, dtype, layers * height * width * kind.components, offset)
    src = src.reshape(layers, height, width, kind.components)
    if kind.fmt.packing:  # one 32-bit word a texel (mipview.core.packed)
        return kind.fmt.unpack(src)
    if kind.order == (0, 1, 2, 3) and kind.components == 4:
        return src.astype(kind.fmt.dtype)  # a copy in native order: the file's bytes can go
    out = np.zeros((layers, height, width, 4), kind.fmt.dtype)
    for channel, component in enumerate(kind.order):
        if component is not None:
            out[..., channel] = src[..., component]
        elif channel == 3:
            out[..., 3] = kind.fmt.one
    return out


def texture_file(path: str, container: str, kind: Layout, levels: Sequence[np.ndarray],
                 notes: Sequence[str] = (), faces: int = 1, volume: bool = False) -> TextureFile:
    """The TextureFile of ``levels`` decoded from ``kind`` in the file at ``path`` (``faces``
    6: a cube map or cube array; ``volume``: a 3D texture, levels (D, H, W, 4))."""
    return TextureFile(os.path.basename(path), container, kind.name, storage_format(kind),
                       tuple(levels), kind.codec.family if isinstance(kind, Blocks) else None,
                       tuple(notes), faces, volume)
