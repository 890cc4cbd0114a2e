"""BC1-BC5, BC7 block-compressed levels decoded with Pillow's BCn decoder (a maintained one, and a
dependency already).

Pillow decodes BCn only as the top level of a DDS file, so each level (each layer) is wrapped in
a minimal DX10 DDS in memory. The wrapper always names the UNORM variant: an sRGB variant holds
the same blocks, and Pillow's DX10 path knows only BC7's sRGB name.

Channels follow Vulkan: BC4 decodes to (R, 0, 0, 1), BC5 to (R, G, 0, 1), the RGB variant of
BC1 to alpha 1. The other block families: :mod:`mipview.io.containers.blocks`.
"""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

from mipview.io.containers import dds_header
from mipview.io.containers.blocks import BlockCodec
from mipview.io.containers.texture import ContainerError

CODECS = {c.family: c for c in (
    BlockCodec("BC1", 8, "bcn", dxgi_unorm=71),
    BlockCodec("BC2", 16, "bcn", dxgi_unorm=74),
    BlockCodec("BC3", 16, "bcn", dxgi_unorm=77),
    BlockCodec("BC4", 8, "bcn", dxgi_unorm=80),
    BlockCodec("BC5", 16, "bcn", dxgi_unorm=83),
    BlockCodec("BC7", 16, "bcn", dxgi_unorm=98),
)}

BC1, BC2, BC3, BC4, BC5, BC7 = (CODECS[f"BC{i}"] for i in (1, 2, 3, 4, 5, 7))


def decode(codec: BlockCodec, blocks: bytes, width: int, height: int, srgb: bool = False,
           opaque: bool = False) -> np.ndarray:
    """One image of ``blocks`` (exactly its whole blocks) -> uint8 (height, width, 4).
    ``opaque``: BC1's RGB variant (alpha 1); ``srgb`` changes nothing: the same codes."""
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
