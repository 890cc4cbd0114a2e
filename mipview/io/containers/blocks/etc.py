"""ETC1 and ETC2 colour blocks (RGB, RGBA with EAC alpha, RGB with punch-through alpha) decoded
with texture2ddecoder. Its 8-bit output is these formats' whole precision: ETC1/ETC2 colours
and ETC2's 8-bit alpha are integers 0..255 by their definition (OpenGL ES 3.0, section C.1),
so nothing is rounded. An sRGB variant decodes to the same codes, read as sRGB.

One fix-up: a punch-through block's transparent texel is (0, 0, 0, 0) by the specification
(Khronos Data Format Specification, "RGB ETC2 with punchthrough alpha"), but texture2ddecoder
keeps its colour with alpha 0; the colour would bleed into every level filtered from it."""

from __future__ import annotations

import numpy as np

from mipview.io.containers.blocks import BlockCodec, require

ETC1 = BlockCodec("ETC1", 8, "etc")
ETC2_RGB = BlockCodec("ETC2 RGB", 8, "etc")
ETC2_RGBA1 = BlockCodec("ETC2 RGB A1", 8, "etc")
ETC2_RGBA = BlockCodec("ETC2 RGBA", 16, "etc")
#: texture2ddecoder's function for each
_FUNCTIONS = {ETC1: "decode_etc1", ETC2_RGB: "decode_etc2", ETC2_RGBA1: "decode_etc2a1",
              ETC2_RGBA: "decode_etc2a8"}


def decode(codec: BlockCodec, blocks: bytes, width: int, height: int, srgb: bool = False,
           opaque: bool = False) -> np.ndarray:
    """(height, width, 4) uint8 codes, RGBA (alpha 255 where the format has none)."""
    t2d = require("texture2ddecoder", "texture2ddecoder", codec.family)
    rows, columns = -(-height // 4) * 4, -(-width // 4) * 4
    bgra = np.frombuffer(getattr(t2d, _FUNCTIONS[codec])(blocks, columns, rows), np.uint8)
    rgba = bgra.reshape(rows, columns, 4)[:height, :width, [2, 1, 0, 3]]
    if codec == ETC2_RGBA1:
        rgba[rgba[..., 3] == 0] = 0
    return rgba
