"""BC6H blocks (UF16 and SF16) decoded to half floats with imagecodecs' BCn codec (bcdec):
Pillow, mipview's BC1-BC7 decoder, and texture2ddecoder give BC6H as 8 bits only, clamped to
[0, 1]; bcdec gives the half float each texel holds, the value a GPU samples."""

from __future__ import annotations

import numpy as np

from mipview.core.formats import Format
from mipview.io.containers.blocks import BlockCodec, require
from mipview.io.containers.texture import ContainerError

UF16 = BlockCodec("BC6H UF16", 16, "bc6h", Format.F16)
SF16 = BlockCodec("BC6H SF16", 16, "bc6h", Format.F16)


def decode(codec: BlockCodec, blocks: bytes, width: int, height: int, srgb: bool = False,
           opaque: bool = False) -> np.ndarray:
    """(height, width, 4) float16: the blocks' RGB, alpha 1 (BC6H holds none)."""
    imagecodecs = require("imagecodecs", "imagecodecs", "BC6H")
    rows, columns = -(-height // 4) * 4, -(-width // 4) * 4
    try:
        rgb = imagecodecs.bcn_decode(blocks, -6 if codec is SF16 else 6,
                                     shape=(rows, columns, 3))
    except (RuntimeError, ValueError) as e:
        raise ContainerError(f"imagecodecs could not decode the {codec.family} blocks "
                             f"({e})") from None
    out = np.ones((height, width, 4), np.float16)
    out[..., :3] = np.asarray(rgb, np.float16)[:height, :width]
    return out
