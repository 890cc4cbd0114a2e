"""Which reader a file goes to: by its magic bytes, else by its suffix (so a ``.dds`` with the
wrong magic is told so, not handed to Pillow)."""

from __future__ import annotations

import os

from mipview.io.containers import dds, dds_header, exr, exr_layout, ktx2, npy
from mipview.io.containers.texture import PixelCheck, TextureFile

_READERS = ((ktx2.IDENTIFIER, ".ktx2", ktx2.read), (dds_header.MAGIC, ".dds", dds.read),
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
