"""ASTC blocks, LDR and HDR, every 2D block size, decoded with Arm's astc-encoder (the
reference codec, through astc-encoder-py).

What each variant decodes to is what the ASTC specification defines, in mipview's formats:
UNORM (LDR) and SFLOAT (HDR) blocks to half floats (the decode_float16 mode every Vulkan
device has: an LDR texel's 16-bit value C becomes 1.0 for 0xFFFF, else the FP16 value of
C / 65536 rounded toward zero, as the reference codec converts it), sRGB blocks to the 8-bit
codes of their top bits (the sRGB decode). texture2ddecoder decodes LDR only, to 8 bits.
"""

from __future__ import annotations

import numpy as np

from mipview.core.formats import Format
from mipview.io.containers.blocks import BlockCodec, require
from mipview.io.containers.texture import ContainerError

#: the 2D block sizes (width, height), in VkFormat's order
SIZES = ((4, 4), (5, 4), (5, 5), (6, 5), (6, 6), (8, 5), (8, 6), (8, 8), (10, 5), (10, 6),
         (10, 8), (10, 10), (12, 10), (12, 12))


def codec(size: tuple[int, int], hdr: bool) -> BlockCodec:
    """The codec of ASTC blocks of ``size``: the LDR one (UNORM or sRGB), or the HDR one."""
    name = f"ASTC {size[0]}x{size[1]}{' HDR' if hdr else ''}"
    return BlockCodec(name, 16, "astc", Format.F16, size)


def decode(codec: BlockCodec, blocks: bytes, width: int, height: int, srgb: bool = False,
           opaque: bool = False) -> np.ndarray:
    """(height, width, 4): float16 (UNORM and HDR), uint8 sRGB codes (``srgb``)."""
    astc = require("astc_encoder", "astc-encoder-py", "ASTC")
    profile = astc.ASTCProfile.LDR_SRGB if srgb else astc.ASTCProfile.HDR \
        if codec.family.endswith("HDR") else astc.ASTCProfile.LDR
    config = astc.ASTCConfig(profile, *codec.block, 1, astc.ASTCQualityPreset.FASTEST,
                             astc.ASTCConfigFlags.DECOMPRESS_ONLY)
    kind, dtype = (astc.ASTCType.U8, np.uint8) if srgb else (astc.ASTCType.F16, np.float16)
    image = astc.ASTCImage(kind, width, height, 1)
    try:
        # the default swizzle (R, G, B, A): ASTCSwizzle.from_str upper-cases the string it is
        # given in place, and a literal "rgba" is shared by every module of the process
        astc.ASTCContext(config).decompress(blocks, image, astc.ASTCSwizzle())
    except (astc.ASTCError, ValueError) as e:
        raise ContainerError(f"astc-encoder could not decode the {codec.family} blocks "
                             f"({e})") from None
    # read-only over astc-encoder's buffer: the level's stack copies it once
    return np.frombuffer(image.data, dtype).reshape(height, width, 4)
