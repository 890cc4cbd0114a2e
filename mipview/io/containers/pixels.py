"""How the bytes of one level become storage values: plain texel layouts (any component order,
with or without alpha) and compressed blocks. Shared by the KTX2, DDS and KTX 1.1 readers."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mipview.core.formats import Format
from mipview.io.containers import blocks
from mipview.io.containers.texture import TextureFile


@dataclass(frozen=True)
class Plain:
    """Uncompressed texels of ``components`` values of ``fmt``'s storage type each.

    ``order[i]`` is the component that feeds channel i (R, G, B, A); None: alpha opaque, colour
    0 (Vulkan's defaults for a missing channel). ``note``: what a user should know of the
    reading (three channels read as four)."""

    name: str
    fmt: Format
    components: int = 4
    order: tuple[int | None, int | None, int | None, int | None] = (0, 1, 2, 3)
    note: str = ""


#: the note of a layout of three channels, read as RGBA with alpha 1
RGB_NOTE = "3 channels (RGB), read as RGBA with alpha 1"
BGR = (2, 1, 0)


def rgb(name: str, fmt: Format, order: tuple[int, int, int] = (0, 1, 2)) -> Plain:
    """A layout of three channels (``order``: the component of R, G and B), read as RGBA with
    alpha 1, and saying so."""
    return Plain(name, fmt, 3, (*order, None), RGB_NOTE)


@dataclass(frozen=True)
class DepthStencil:
    """Combined depth-stencil texels of ``texel_bytes`` each, read as their depth alone (in
    ``fmt``: D16, or D32 for float and 24-bit depths): the stencil is dropped, and the note
    says so. The depth is the little-endian word at byte 0 of a texel; a 24-bit depth is
    the 24 bits of a 32-bit word above its lowest ``shift`` bits, read as d / (2^24 - 1)."""

    name: str
    fmt: Format
    texel_bytes: int
    shift: int | None = None  # 24-bit depth: bits below it in its word (None: not 24-bit)

    @property
    def note(self) -> str:
        widened = ", its 24-bit depth as float32" if self.shift is not None else ""
        return f"{self.name}: read the depth, the stencil was dropped{widened}"


@dataclass(frozen=True)
class Blocks:
    """Compressed blocks (:mod:`mipview.io.containers.blocks`); ``opaque``: BC1's RGB variant
    (alpha 1)."""

    name: str
    codec: blocks.BlockCodec
    srgb: bool
    opaque: bool = False
    note: str = ""


Layout = Plain | Blocks | DepthStencil

BGRA = (2, 1, 0, 3)
BGRX = (2, 1, 0, None)


def image_bytes(kind: Layout, width: int, height: int) -> int:
    """Bytes of one image (one layer) of ``width`` x ``height`` texels."""
    if isinstance(kind, Blocks):
        return blocks.level_bytes(kind.codec, width, height)
    if isinstance(kind, DepthStencil):
        return width * height * kind.texel_bytes
    return width * height * kind.components * kind.fmt.texel_dtype.itemsize


def storage_format(kind: Layout) -> Format:
    """The mipview format the decoded values are in (blocks: their codec's)."""
    if isinstance(kind, Blocks):
        return blocks.storage_format(kind.codec, kind.srgb)
    return kind.fmt


def decode_level(kind: Layout, data: bytes, offset: int, width: int, height: int,
                 layers: int) -> np.ndarray:
    """(layers, height, width, 4) storage values of the ``layers`` images that lie one after
    the other at ``offset`` (the caller has checked that they lie inside ``data``); a volume's
    level is its slices so laid out (KTX2 and DDS alike: z = 0 first)."""
    size = image_bytes(kind, width, height)
    if isinstance(kind, Blocks):
        starts = [offset + i * size for i in range(layers)]
        return np.stack([blocks.decode(kind.codec, data[s:s + size], width, height, kind.srgb,
                                       kind.opaque) for s in starts])
    if isinstance(kind, DepthStencil):
        return _depth(kind, data, offset, width * height * layers).reshape(layers, height,
                                                                           width, 4)
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


def _depth(kind: DepthStencil, data: bytes, offset: int, count: int) -> np.ndarray:
    """(count, 4) storage values of the depth of ``count`` depth-stencil texels: (d, 0, 0, 1)."""
    words = kind.texel_bytes // 4 if kind.fmt is Format.D32 else kind.texel_bytes // 2
    dtype = "<f4" if kind.shift is None and kind.fmt is Format.D32 else \
        "<u4" if kind.fmt is Format.D32 else "<u2"
    depth = np.frombuffer(data, dtype, count * words, offset)[::words]
    if kind.shift is not None:
        depth = ((depth >> np.uint32(kind.shift)) & 0xFFFFFF) / np.float64(0xFFFFFF)
    out = np.zeros((count, 4), kind.fmt.dtype)
    out[:, 0] = depth
    out[:, 3] = kind.fmt.one
    return out


def texture_file(path: str, container: str, kind: Layout, levels: Sequence[np.ndarray],
                 notes: Sequence[str] = (), faces: int = 1, volume: bool = False) -> TextureFile:
    """The TextureFile of ``levels`` decoded from ``kind`` in the file at ``path`` (``faces``
    6: a cube map or cube array; ``volume``: a 3D texture, levels (D, H, W, 4))."""
    note = kind.note
    return TextureFile(os.path.basename(path), container, kind.name, storage_format(kind),
                       tuple(levels), kind.codec.family if isinstance(kind, Blocks) else None,
                       (*notes, note) if note else tuple(notes), faces, volume)
