"""KTX2 supercompression: which schemes mipview inflates, and inflating one level.

Zstandard (scheme 2) goes through the ``zstandard`` package, ZLIB (scheme 3) through the
standard library; each level is inflated on its own (the KTX 2.0 specification's
"supercompressionScheme": level data is compressed level by level) into at most the bytes the
header says it holds, so a file cannot make mipview allocate more than its size claims. BasisLZ
(scheme 1) is ETC1S data that only Basis Universal's transcoder turns into texels, whole files
at a time (:mod:`.basis`); it is not inflated here.
"""

from __future__ import annotations

import zlib

from mipview.io.containers.texture import ContainerError

NAMES = {1: "BasisLZ", 2: "Zstandard", 3: "ZLIB"}


def check_scheme(scheme: int) -> None:
    """Refuse a scheme the KTX 2.0 specification does not define (BasisLZ, scheme 1, is read
    by Basis Universal's transcoder: :mod:`.basis`)."""
    if scheme not in (0, 1, 2, 3):
        raise ContainerError(f"supercompressed KTX2 (scheme {scheme}, unknown): the KTX 2.0 "
                             f"specification defines schemes 1 (BasisLZ), 2 (Zstandard) and 3 "
                             f"(ZLIB)")


def inflate(scheme: int, blob: bytes, size: int, level: int) -> bytes:
    """Level ``level``'s ``blob`` inflated: exactly ``size`` bytes, else ContainerError."""
    what = f"supercompressed KTX2 (scheme {scheme}, {NAMES[scheme]}): level {level}"
    try:
        if scheme == 2:
            out = _zstd(blob, size)
        else:
            inflater = zlib.decompressobj()
            out = inflater.decompress(blob, size + 1)
    except ContainerError:
        raise
    except Exception as e:  # zstd.ZstdError, zlib.error: the bytes are not a stream
        raise ContainerError(f"{what} does not inflate ({e})") from None
    if len(out) != size:
        raise ContainerError(f"{what} inflates to {len(out)}{'+' if len(out) > size else ''} "
                             f"bytes, its size needs {size}")
    return out


def _zstd(blob: bytes, size: int) -> bytes:
    try:
        import zstandard
    except ImportError:
        raise ContainerError("supercompressed KTX2 (scheme 2, Zstandard): reading it needs the "
                             "zstandard package (pip install zstandard)") from None
    out = bytearray()
    # read at most one byte more than the level needs: that tells an over-long stream from an
    # exact one without inflating a bomb
    with zstandard.ZstdDecompressor().stream_reader(blob) as stream:
        while len(out) <= size:
            chunk = stream.read(min(1 << 22, size + 1 - len(out)))
            if not chunk:
                break
            out += chunk
    return bytes(out)
