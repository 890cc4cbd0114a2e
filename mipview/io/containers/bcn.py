"""BC1-BC7 block-compressed levels decoded with Pillow's BCn decoder (a maintained one).

Pillow decodes BCn only as the top level of a DDS file, so each level (each layer) is wrapped in
a minimal DX10 DDS in memory. The wrapper always names the UNORM variant: an sRGB variant holds
the same blocks, and Pillow's DX10 path knows only BC7's sRGB name.

Channels follow Vulkan: BC4 decodes to (R, 0, 0, 1), BC5 to (R, G, 0, 1), the RGB variant of
BC1 to alpha 1.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np
from PIL import Image

from mipview.io.containers import dds_header
from mipview.io.containers.texture import ContainerError


@dataclass(frozen=True)
class BlockCodec:
    family: str         # "BC1" .. "BC7"
    block_bytes: int    # bytes per 4x4 block
    dxgi_unorm: int     # the DXGI format Pillow decodes this family under


CODECS = {c.family: c for c in (
    BlockCodec("BC1", 8, 71),
    BlockCodec("BC2", 16, 74),
    BlockCodec("BC3", 16, 77),
    BlockCodec("BC4", 8, 80),
    BlockCodec("BC5", 16, 83),
    BlockCodec("BC7", 16, 98),
)}

BC1, BC2, BC3, BC4, BC5, BC7 = (CODECS[f"BC{i}"] for i in (1, 2, 3, 4, 5, 7))

#: families Pillow cannot decode to values worth checking, and why
UNDECODABLE = {
    "BC6H": "BC6H holds HDR values and Pillow, mipview's BCn decoder, decodes it to 8 bits only "
            "(texconv -f R16G16B16A16_FLOAT decodes it to a DDS mipview reads)",
}

def level_bytes(codec: BlockCodec, width: int, height: int) -> int:
    """Bytes of one image (one layer) of ``width`` x ``height`` texels: whole 4x4 blocks."""
    return ((width + 3) // 4) * ((height + 3) // 4) * codec.block_bytes


def decode(codec: BlockCodec, blocks: bytes, width: int, height: int,
           opaque: bool = False) -> np.ndarray:
    """One image of ``blocks`` -> uint8 (height, width, 4). ``opaque``: BC1's RGB variant (alpha
    1). ``blocks`` must hold exactly :func:`level_bytes`."""
    if len(blocks) != level_bytes(codec, width, height):
        raise ValueError(f"{codec.family} {width}x{height} needs "
                         f"{level_bytes(codec, width, height)} bytes, got {len(blocks)}")
    header = dds_header.pack_dx10(width, height, 1, codec.dxgi_unorm, 1, len(blocks),
                                  linear_size=True)
    try:
        with Image.open(io.BytesIO(header + blocks)) as im:
            im.load()
            got = np.asarray(im)
    except (OSError, ValueError, NotImplementedError) as e:
        raise ContainerError(f"Pillow could not decode the {codec.family} blocks ({e})") from None
    out = np.zeros((height, width, 4), np.uint8)
    out[..., 3] = 255
    if got.ndim == 2:  # BC4: one channel
        out[..., 0] = got
    elif got.shape[-1] == 3:  # BC5: red and green (Pillow leaves blue empty)
        out[..., :2] = got[..., :2]
    else:
        out[...] = got
        if opaque:
            out[..., 3] = 255
    return out
