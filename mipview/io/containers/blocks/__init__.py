"""Block-compressed texels: which codec a format's blocks are, how many bytes a level of them
takes, and their decode to storage values, each family by the maintained decoder measured
best for it (docs/bench/decode):

- BC1-BC5, BC7: Pillow (:mod:`mipview.io.containers.bcn`), 8-bit codes, as the formats hold.
- BC6H: imagecodecs' BCn codec (bcdec), to half floats (:mod:`.bc6h`).
- ETC1, ETC2 RGB/RGBA/punch-through: texture2ddecoder, 8-bit codes, which is all ETC2's colours
  are (:mod:`.etc`).
- ASTC LDR and HDR, every 2D block size: Arm's astc-encoder (astc-encoder-py), to half floats, the
  precision the ASTC specification decodes to, or to 8-bit codes for sRGB (:mod:`.astc`).
- EAC R11/RG11 and signed BC4/BC5: no maintained decoder gives their values whole
  (texture2ddecoder and Pillow round them to 8 bits), so :mod:`.channels` decodes them to
  float32 in numpy.

A decoder missing from the installation is refused in one line naming the extra that brings it.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

import numpy as np

from mipview.core.formats import Format
from mipview.io.containers.texture import ContainerError

#: how a user gets the optional decoders
EXTRA = "pip install mipview[codecs]"


@dataclass(frozen=True)
class BlockCodec:
    """One family of blocks: ``family`` as messages name it ("BC7", "ASTC 6x6 HDR"),
    ``block_bytes`` a block of ``block`` (width, height) texels, ``decoder`` the module of this
    package that decodes it ("bcn": Pillow's), ``fmt`` the format of its decoded values (None:
    8-bit codes, UNORM or SRGB as the file says)."""

    family: str
    block_bytes: int
    decoder: str
    fmt: Format | None = None
    block: tuple[int, int] = (4, 4)
    dxgi_unorm: int = 0  # the DXGI format Pillow decodes this family under (BCn only)


def level_bytes(codec: BlockCodec, width: int, height: int) -> int:
    """Bytes of one image (one layer) of ``width`` x ``height`` texels: whole blocks."""
    bw, bh = codec.block
    return -(-width // bw) * -(-height // bh) * codec.block_bytes


def storage_format(codec: BlockCodec, srgb: bool) -> Format:
    """The mipview format of ``codec``'s decoded values: an sRGB variant's are 8-bit codes of
    every family."""
    return Format.SRGB if srgb else codec.fmt or Format.UNORM


def require(module: str, package: str, what: str) -> ModuleType:
    """``module``, imported; ContainerError naming ``package`` and :data:`EXTRA` when it is not
    installed."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ContainerError(f"{what} blocks need the {package} package, not installed: "
                             f"{EXTRA}") from None


def decode(codec: BlockCodec, blocks: bytes, width: int, height: int, srgb: bool = False,
           opaque: bool = False) -> np.ndarray:
    """One image of ``blocks`` -> (height, width, 4) storage values of
    :func:`storage_format`. ``opaque``: BC1's RGB variant (alpha 1). ``blocks`` must hold
    exactly :func:`level_bytes` (the decoders read that many, unchecked)."""
    if len(blocks) != level_bytes(codec, width, height):
        raise ValueError(f"{codec.family} {width}x{height} needs "
                         f"{level_bytes(codec, width, height)} bytes, got {len(blocks)}")
    module = importlib.import_module(f"mipview.io.containers.{codec.decoder}"
                                     if codec.decoder == "bcn"
                                     else f"{__name__}.{codec.decoder}")
    return module.decode(codec, blocks, width, height, srgb, opaque)

