"""One- and two-channel blocks of 3-bit indices decoded to float32 in numpy: signed BC4/BC5
(RGTC SNORM) and EAC R11/RG11, unsigned and signed.

No maintained decoder gives these values whole: Pillow decodes BC5 SNORM (not BC4 SNORM) to 8
bits, texture2ddecoder EAC to 8 bits (EAC holds 11), and etcpak's decoders crash on valid data
(docs/bench/decode). Both are a table lookup per texel, written here from their specifications
(Direct3D's BC4/BC5 for RGTC, OpenGL ES 3.0 section C.1.5 and the Khronos Data Format
Specification for EAC); tests/test_block_formats.py checks them against those decoders within
their 8 bits and against hand-built blocks.

A two-channel block is two one-channel blocks, red then green.
"""

from __future__ import annotations

import numpy as np

from mipview.core.formats import Format
from mipview.io.containers.blocks import BlockCodec

BC4_SNORM = BlockCodec("BC4 SNORM", 8, "channels", Format.R32F)
BC5_SNORM = BlockCodec("BC5 SNORM", 16, "channels", Format.RG32F)
EAC_R11 = BlockCodec("EAC R11", 8, "channels", Format.R32F)
EAC_R11_SNORM = BlockCodec("EAC R11 SNORM", 8, "channels", Format.R32F)
EAC_RG11 = BlockCodec("EAC RG11", 16, "channels", Format.RG32F)
EAC_RG11_SNORM = BlockCodec("EAC RG11 SNORM", 16, "channels", Format.RG32F)

#: EAC's modifier tables (OpenGL ES 3.0, table C.10), by table index
EAC_MODIFIERS = np.array([
    [-3, -6, -9, -15, 2, 5, 8, 14], [-3, -7, -10, -13, 2, 6, 9, 12],
    [-2, -5, -8, -13, 1, 4, 7, 12], [-2, -4, -6, -13, 1, 3, 5, 12],
    [-3, -6, -8, -12, 2, 5, 7, 11], [-3, -7, -9, -11, 2, 6, 8, 10],
    [-4, -7, -8, -11, 3, 6, 7, 10], [-3, -5, -8, -11, 2, 4, 7, 10],
    [-2, -6, -8, -10, 1, 5, 7, 9], [-2, -5, -8, -10, 1, 4, 7, 9],
    [-2, -4, -8, -10, 1, 3, 7, 9], [-2, -5, -7, -10, 1, 4, 6, 9],
    [-3, -4, -7, -10, 2, 3, 6, 9], [-1, -2, -3, -10, 0, 1, 2, 9],
    [-4, -6, -8, -9, 3, 5, 7, 8], [-3, -5, -7, -9, 2, 4, 6, 8]], np.int64)
_SIGNED = (BC4_SNORM, BC5_SNORM, EAC_R11_SNORM, EAC_RG11_SNORM)
_EAC = (EAC_R11, EAC_R11_SNORM, EAC_RG11, EAC_RG11_SNORM)


#: the block's texels in row order, as EAC stores them (column by column)
_COLUMNS = np.array([4 * x + y for y in range(4) for x in range(4)])


def _indices(b: np.ndarray, big_endian: bool) -> np.ndarray:
    """(n, 16) 3-bit indices of the 48 bits in bytes 2..7 of each 8-byte block ``b``, texels in
    row order: RGTC stores them in row order from bit 0 up, EAC column by column from bit 47
    down, each most significant bit first."""
    bits = np.unpackbits(np.ascontiguousarray(b[:, 2:]), axis=1,
                         bitorder="big" if big_endian else "little").reshape(-1, 16, 3)
    weights = (4, 2, 1) if big_endian else (1, 2, 4)
    index = bits[..., 0] * weights[0] + bits[..., 1] * weights[1] + bits[..., 2] * weights[2]
    return (index[:, _COLUMNS] if big_endian else index).astype(np.intp)


def _rgtc_snorm(b: np.ndarray) -> np.ndarray:
    """(n, 8) values of the indices of signed BC4 blocks."""
    ends = np.maximum(b[:, :2].view(np.int8).astype(np.float64), -127.0)  # -128 is -1 too
    r0, r1 = ends[:, :1], ends[:, 1:]
    six = [(7 - k) * r0 / 7 + k * r1 / 7 for k in range(1, 7)]
    four = [(5 - k) * r0 / 5 + k * r1 / 5 for k in range(1, 5)]
    full = np.concatenate([r0, r1, *six], axis=1)
    short = np.concatenate([r0, r1, *four, np.full_like(r0, -127.0), np.full_like(r0, 127.0)],
                           axis=1)
    return np.where(r0 > r1, full, short) / 127.0


def _eac(b: np.ndarray, signed: bool) -> np.ndarray:
    """(n, 8) values of the indices of EAC R11 blocks."""
    multiplier = (b[:, 1] >> 4).astype(np.int64)[:, None]
    modifier = EAC_MODIFIERS[b[:, 1] & 15]
    # a multiplier of 0 stands for 1/8: the modifier unscaled on the 11-bit scale
    step = np.where(multiplier == 0, modifier, modifier * multiplier * 8)
    if signed:
        base = np.maximum(b[:, :1].view(np.int8).astype(np.int64), -127)
        return np.clip(base * 8 + step, -1023, 1023) / 1023.0
    return np.clip(b[:, :1].astype(np.int64) * 8 + 4 + step, 0, 2047) / 2047.0


def decode(codec: BlockCodec, blocks: bytes, width: int, height: int, srgb: bool = False,
           opaque: bool = False) -> np.ndarray:
    """(height, width, 4) float32: (R, 0, 0, 1) or (R, G, 0, 1)."""
    across, down = -(-width // 4), -(-height // 4)
    planes = codec.block_bytes // 8
    b = np.frombuffer(blocks, np.uint8).reshape(down * across, planes, 8)
    out = np.zeros((down * 4, across * 4, 4), np.float32)
    out[..., 3] = 1.0
    for c in range(planes):
        eac = codec in _EAC
        palette = _eac(b[:, c], codec in _SIGNED) if eac else _rgtc_snorm(b[:, c])
        values = np.take_along_axis(palette.astype(np.float32), _indices(b[:, c], eac), axis=1)
        out[..., c] = values.reshape(down, across, 4, 4).transpose(0, 2, 1, 3).reshape(
            down * 4, across * 4)
    return out[:height, :width]
