"""Block-compressed chains written as files: KTX2 for every codec mipview encodes (optionally
Zstandard-supercompressed, scheme 2), DDS (DX10 header) for BCn. The readers of this package
read them back (:mod:`.ktx2`, :mod:`.dds`); the uncompressed writers stay in those modules.

The KTX2 Data Format Descriptor is the one the Khronos Data Format specification 1.3 gives each
block model (section 5.6, "Compressed formats"; KTX-Software's createDFDCompressed writes the
same): the model, the block's size, one sample per plane of bits (BC3's alpha then colour,
BC5's and EAC RG11's red then green), sampleUpper the largest code (ASTC HDR: float samples).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence

from mipview.io.containers import dds_header, ktx2
from mipview.io.containers.encoders import Codec

#: codec name -> (KHR_DF_MODEL, samples as (channel id, bit offset, bit length))
_MODELS: dict[str, tuple[int, tuple[tuple[int, int, int], ...]]] = {
    "bc1": (128, ((0, 0, 64),)),  # BC1A, colour (the RGB variant: no alpha channel)
    "bc3": (130, ((15, 0, 64), (0, 64, 64))),  # BC3: alpha, colour
    "bc4": (131, ((0, 0, 64),)),
    "bc5": (132, ((0, 0, 64), (1, 64, 64))),  # red, green
    "bc7": (134, ((0, 0, 128),)),
    "etc2-rgb": (161, ((2, 0, 64),)),  # ETC2 colour
    "etc2-rgba": (161, ((15, 0, 64), (2, 64, 64))),  # alpha, colour
    "eac-r11": (161, ((0, 0, 64),)),  # ETC2 red
    "eac-rg11": (161, ((0, 0, 64), (1, 64, 64))),  # red, green
}
_ASTC_MODEL = 162
ZSTD = 2  # supercompressionScheme
_FLOAT, _SIGNED, _LINEAR = 0x80, 0x40, 0x10


def _dfd(codec: Codec, srgb: bool, hdr: bool) -> bytes:
    if codec.astc:
        model, samples = _ASTC_MODEL, ((0, 0, 128),)
    else:
        model, samples = _MODELS[codec.name]
    lower, upper = (struct.unpack("<2I", struct.pack("<2f", -1.0, 1.0)) if hdr
                    else (0, 0xFFFFFFFF))
    described = []
    for channel, offset, length in samples:
        qualifiers = _FLOAT | _SIGNED if hdr else 0
        if srgb and channel == 15:
            qualifiers |= _LINEAR  # alpha is never sRGB-encoded
        described.append((offset, length, channel | qualifiers, lower, upper))
    return ktx2.dfd(model, srgb, codec.block, codec.blocks.block_bytes, described)


def vk_format(codec: Codec, srgb: bool, hdr: bool) -> int:
    """The VkFormat of ``codec``'s blocks: its HDR, sRGB or UNORM variant."""
    if hdr:
        return codec.vk_hdr
    return codec.vk[1] if srgb else codec.vk[0]


def ktx2_bytes(levels: Sequence[Sequence[bytes]], codec: Codec, width: int, height: int,
               layers: int, srgb: bool, hdr: bool, zstd: int | None = None) -> bytes:
    """A KTX2 file of ``levels`` (each one bytes of blocks per layer, level 0 first) of a
    ``width`` x ``height`` image of ``layers`` layers (1: no array). ``zstd``: each level
    Zstandard-compressed at that level (then no alignment, as the specification asks)."""
    compress = None
    if zstd is not None:
        import zstandard

        compress = zstandard.ZstdCompressor(level=zstd).compress
    return ktx2.assemble([b"".join(level) for level in levels], _dfd(codec, srgb, hdr), b"rd\0",
                         vk_format(codec, srgb, hdr), 1,
                         (width, height, 0, layers if layers > 1 else 0, 1),
                         math.lcm(codec.blocks.block_bytes, 4), ZSTD if zstd is not None else 0,
                         compress)


def dds_bytes(levels: Sequence[Sequence[bytes]], codec: Codec, width: int, height: int,
              layers: int, srgb: bool) -> bytes:
    """A DX10 DDS file of BCn ``levels`` (as :func:`ktx2_bytes`); ValueError for a codec DDS
    does not hold."""
    dxgi = codec.dxgi[1] if srgb else codec.dxgi[0]
    if not dxgi:
        raise ValueError(f"DDS holds no {codec.name} blocks{' as sRGB' if srgb else ''}")
    header = dds_header.pack_dx10(width, height, len(levels), dxgi, layers,
                                  len(levels[0][0]), linear_size=True)
    # Direct3D's subresource order: every level of layer 0, then of layer 1...
    return header + b"".join(level[i] for i in range(layers) for level in levels)
