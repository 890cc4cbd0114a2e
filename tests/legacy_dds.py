"""The header of a legacy DDS file (no DX10 header) of RGBA8 texels, or half floats with a
FourCC (113): what the cube and volume tests build their legacy files from."""

from __future__ import annotations

import numpy as np

from mipview.io.containers import dds_header


def legacy_header(first: np.ndarray, levels: int, caps2: int, depth: int = 0, flags: int = 0,
                  fourcc: bytes | None = None) -> bytes:
    """The header of a chain of ``levels`` levels whose level 0 has ``first``'s last three
    axes (H, W, 4) and dtype; ``flags`` and ``depth`` add to what every such file says."""
    height, width = first.shape[-3:-1]
    flags |= (dds_header.DDSD_CAPS | dds_header.DDSD_HEIGHT | dds_header.DDSD_WIDTH
              | dds_header.DDSD_PIXELFORMAT | dds_header.DDSD_MIPMAPCOUNT | dds_header.DDSD_PITCH)
    caps = dds_header.DDSCAPS_TEXTURE | dds_header.DDSCAPS_COMPLEX | dds_header.DDSCAPS_MIPMAP
    if fourcc is None:
        pixel_format = (dds_header.DDPF_RGB | dds_header.DDPF_ALPHAPIXELS, 0, 32, 0xFF, 0xFF00,
                        0xFF0000, 0xFF000000)
    else:
        pixel_format = (dds_header.DDPF_FOURCC, int.from_bytes(fourcc, "little"), 0, 0, 0, 0, 0)
    return dds_header.HEADER.pack(dds_header.MAGIC, 124, flags, height, width,
                                  width * first.itemsize * 4, depth, levels, 32, *pixel_format,
                                  caps, caps2, 0, 0, 0)
