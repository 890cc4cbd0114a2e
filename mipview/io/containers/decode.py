"""Which reader a file goes to: by its magic bytes, else by its suffix (so a ``.dds`` with the
wrong magic is told so, not handed to Pillow)."""

from __future__ import annotations

import os

from mipview.io.containers import dds, dds_header, exr, exr_layout, ktx1, ktx2, npy
from mipview.io.containers.texture import ContainerError, PixelCheck, TextureFile

_READERS = ((ktx2.IDENTIFIER, ".ktx2", ktx2.read), (ktx1.IDENTIFIER, ".ktx", ktx1.read),
            (dds_header.MAGIC, ".dds", dds.read),
            (exr_layout.MAGIC, ".exr", exr.read), (npy.MAGIC, ".npy", npy.read))
SUFFIXES = tuple(suffix for _, suffix, _ in _READERS)


def claims(path: str, data: bytes) -> bool:
    """Whether a texture reader takes this file (its magic, or its suffix)."""
    suffix = os.path.splitext(path)[1].lower()
    return any(data.startswith(magic) or suffix == s for magic, s, _ in _READERS)


def decode_texture(path: str, data: bytes, check_pixels: PixelCheck) -> TextureFile:
    """Every level of the texture file ``path`` (whose bytes are ``data``). Raises
    ContainerError, or what ``check_pixels`` raises (imageio's MAX_PIXELS check)."""
    suffix = os.path.splitext(path)[1].lower()
    reader = next((r for magic, _, r in _READERS if data.startswith(magic)), None)
    if reader is None:
        reader = next(r for _, s, r in _READERS if s == suffix)
    return reader(path, data, check_pixels)


#: bytes of a file that :func:`is_volume` reads: the largest header it looks at (DDS with DX10)
HEAD_BYTES = 148


def is_volume(path: str, head: bytes) -> bool:
    """Whether the texture file ``path``, whose first :data:`HEAD_BYTES` bytes are ``head``, is
    a volume (a 3D KTX2, KTX 1.1 or DDS, a ``*.volume.npy``), from its header alone: what a command that
    runs volumes apart asks before it opens the file. False where the header says nothing sound
    (the reader says why when the file is opened)."""
    if npy.is_volume_name(path):
        return True
    try:
        if head.startswith(ktx2.IDENTIFIER):
            return ktx2.header_depth(head) > 0
        if head.startswith(ktx1.IDENTIFIER):
            return ktx1.header_depth(head) > 0
        if head.startswith(dds_header.MAGIC):
            return dds.header_depth(head) > 0
    except ContainerError:
        return False
    return False
