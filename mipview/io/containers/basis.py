"""Basis Universal KTX2 files: ETC1S (BasisLZ, supercompression scheme 1) and UASTC LDR 4x4
(VK_FORMAT_UNDEFINED with a UASTC Data Format Descriptor, raw or Zstandard), the two codecs
glTF's KHR_texture_basisu ships, transcoded to RGBA8 by Basis Universal's own transcoder.

The transcoder comes from the opengl-basisu package (the ``basis`` extra): it hands every level
of every face and layer as an RGBA8 array at the level's own size. Both codecs are LDR 8-bit,
so the levels are codes of RGBA8, judged as sRGB where the DFD's transfer function is sRGB.
Two-channel data (ETC1S's RRR + GGG slices, UASTC's RRRG) comes out of the transcoder with R in
R, G and B and G in alpha; it is shown as R and G, as mipview shows an RG8 file.
"""

from __future__ import annotations

import importlib
import os
import struct
from collections.abc import Sequence
from types import ModuleType

import numpy as np

from mipview.core.formats import Format
from mipview.io.containers.texture import ContainerError, TextureFile

#: what brings the transcoder, named by a refusal when it is missing
EXTRA = "pip install mipview[basis]"
PACKAGE = "opengl-basisu"

_MODEL_ETC1S = 163  # KHR_DF_MODEL_ETC1S
_MODEL_UASTC = 166  # KHR_DF_MODEL_UASTC
_MODEL_UASTC_HDR = 167  # KHR_DF_MODEL_UASTC_HDR_4x4
_TRANSFER_SRGB = 2  # KHR_DF_TRANSFER_SRGB
#: the DFD channel ids of a two-channel texture, per colour model: ETC1S's RRR then GGG slice,
#: UASTC's RRRG (KHR_DF_CHANNEL_ETC1S_*, KHR_DF_CHANNEL_UASTC_*)
_TWO_CHANNELS = {_MODEL_ETC1S: (3, 4), _MODEL_UASTC: (5,)}


def _dfd(data: bytes, offset: int, length: int) -> tuple[int | None, int, tuple[int, ...]]:
    """(colour model, transfer function, the samples' channel ids) of the basic descriptor
    block at ``offset``; a model of None where the DFD is too short to hold one."""
    if length < 28 or offset + 28 > len(data) or offset + length > len(data):
        return None, 0, ()
    block = offset + 4  # past dfdTotalSize
    model, transfer = data[block + 8], data[block + 10]
    block_size = struct.unpack_from("<H", data, block + 6)[0]
    samples = range(block + 24, min(block + block_size, offset + length) - 15, 16)
    return model, transfer, tuple(data[s + 3] & 0x0F for s in samples)


def codec(vk_format: int, scheme: int, data: bytes, dfd_offset: int,
          dfd_length: int) -> str | None:
    """"ETC1S" or "UASTC" for a Basis Universal KTX2, else None (a Vulkan format mipview
    reads, or refuses, itself). ContainerError for a Basis payload no LDR transcode reads."""
    if scheme == 1:
        if vk_format:
            raise ContainerError(f"supercompressed KTX2 (scheme 1, BasisLZ) with vkFormat "
                                 f"{vk_format}: BasisLZ holds ETC1S, whose vkFormat is "
                                 f"VK_FORMAT_UNDEFINED (0)")
        return "ETC1S"
    if vk_format:
        return None
    model = _dfd(data, dfd_offset, dfd_length)[0]
    if model == _MODEL_UASTC:
        return "UASTC"
    if model == _MODEL_UASTC_HDR:
        raise ContainerError("VK_FORMAT_UNDEFINED with UASTC HDR 4x4 blocks: mipview reads "
                             "Basis Universal's LDR codecs (ETC1S, UASTC LDR 4x4); transcode "
                             "it to BC6H or ASTC HDR first (basisu -unpack)")
    return None


def _transcoder(what: str) -> ModuleType:
    try:
        return importlib.import_module("opengl_basisu")
    except ImportError:
        raise ContainerError(f"{what} needs Basis Universal's transcoder, from the {PACKAGE} "
                             f"package, not installed: {EXTRA}") from None


def transcode(data: bytes, name: str, layers: int, faces: int,
              dfd: tuple[int, int]) -> tuple[list[np.ndarray], bool, list[str]]:
    """Every level of a Basis Universal KTX2 as (layers x faces, H, W, 4) RGBA8 codes, level 0
    first, its images layer by layer, face by face; whether they are sRGB; the notes that say
    how they were read. ``dfd``: the DFD's offset and length. ContainerError where the
    transcoder refuses the file."""
    model, transfer, channels = _dfd(data, *dfd)
    what = f"Basis Universal KTX2 ({name})"
    basisu = _transcoder(what)
    try:
        texture = basisu.open(bytes(data))
        count = layers // faces
        if (texture.faces, texture.layers) != (faces, count):
            raise ContainerError(f"{what}: the transcoder reads {texture.layers} layers of "
                                 f"{texture.faces} faces, the header says {count} of {faces}")
        levels = [np.stack([texture.transcode("rgba8", p, face, layer).data
                            for layer in range(count) for face in range(faces)])
                  for p in range(texture.levels)]
    except (ValueError, IndexError) as e:  # BasisuError is a ValueError
        raise ContainerError(f"{what}: Basis Universal's transcoder refused it ({e})") from None
    version = getattr(basisu, "__version__", "?")
    notes = [f"{name} transcoded to RGBA8 by Basis Universal's transcoder "
             f"({PACKAGE} {version}, basisu {getattr(basisu, 'BASISU_VERSION', '?')})"]
    if model is not None and channels == _TWO_CHANNELS.get(model):
        levels = [_rg(level) for level in levels]
        notes.append("two channels (R in R, G and B, G in alpha as stored): shown as R and G, "
                     "blue 0, alpha 1")
    srgb = transfer == _TRANSFER_SRGB if model is not None else bool(texture.srgb)
    return levels, srgb, notes


def _rg(level: np.ndarray) -> np.ndarray:
    out = np.zeros_like(level)
    out[..., 0] = level[..., 0]
    out[..., 1] = level[..., 3]
    out[..., 3] = 255
    return out


def texture_file(path: str, name: str, scheme: int, srgb: bool, levels: Sequence[np.ndarray],
                 notes: Sequence[str], faces: int) -> TextureFile:
    """The TextureFile of a Basis Universal KTX2's transcoded ``levels``: decoded from
    ``name``, its chain judged with that codec's error."""
    packed = {1: ", BasisLZ", 2: ", Zstandard"}.get(scheme, "")
    return TextureFile(os.path.basename(path), "KTX2", f"{name} (Basis Universal{packed})",
                       Format.SRGB if srgb else Format.UNORM, tuple(levels), name, tuple(notes),
                       faces)
