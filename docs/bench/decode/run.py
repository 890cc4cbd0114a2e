"""How long does each candidate decoder take to decode one 4096x4096 level of each block
family, on the CPU this runs on? Writes OUT/decode.md (the table) and prints it.

    nice -n 10 .venv/bin/python docs/bench/decode/run.py OUT [--size 4096] [--repeats 7]

Each figure is the median of ``repeats`` calls on the same blocks, after one warm-up call.
BC7, BC6H, ETC2 and EAC blocks are random bytes (every mode occurs); ASTC 6x6 blocks are a
256x256 picture of gradients and noise compressed by astc-encoder, tiled to the size (random
bytes would be mostly illegal blocks, which decode to the error colour on a short path).
"""

from __future__ import annotations

import argparse
import io
import statistics
import struct
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

import astc_encoder as ae  # noqa: E402
import imagecodecs  # noqa: E402
import texture2ddecoder as t2d  # noqa: E402
from PIL import Image  # noqa: E402

from mipview.io import imageio  # noqa: E402
from mipview.io.containers import bcn, dds_header, ktx2  # noqa: E402
from mipview.io.containers.blocks import astc, bc6h, channels, decode, etc  # noqa: E402


def _median(fn: Callable[[], object], repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _astc_blocks(size: int) -> bytes:
    n = 256
    y, x = np.mgrid[0:n, 0:n]
    image = np.stack([x, y, (x * y) % 256, 255 - x], axis=-1).astype(np.uint8)
    image[::5] = np.random.default_rng(1).integers(0, 256, image[::5].shape, dtype=np.uint8)
    config = ae.ASTCConfig(ae.ASTCProfile.LDR, 6, 6, 1, ae.ASTCQualityPreset.FASTEST)
    comp = ae.ASTCContext(config).compress(ae.ASTCImage(ae.ASTCType.U8, n, n, 1, image.tobytes()),
                                           ae.ASTCSwizzle())
    blocks = np.frombuffer(comp, np.uint8).reshape(-1, 16)
    across = -(-size // 6)
    return np.resize(blocks, (across * across, 16)).tobytes()


def _astcenc_u8(blocks: bytes, size: int) -> None:
    config = ae.ASTCConfig(ae.ASTCProfile.LDR, 6, 6, 1, ae.ASTCQualityPreset.FASTEST,
                           ae.ASTCConfigFlags.DECOMPRESS_ONLY)
    image = ae.ASTCImage(ae.ASTCType.U8, size, size, 1)
    ae.ASTCContext(config).decompress(blocks, image, ae.ASTCSwizzle())


def _pillow_bc5s(blocks: bytes, size: int) -> None:
    header = dds_header.pack_dx10(size, size, 1, 84, 1, len(blocks), linear_size=True)
    with Image.open(io.BytesIO(header + blocks)) as im:
        im.load()


def _ktx2_file(folder: Path, name: str, vk_format: int, size: int, level: bytes) -> Path:
    """A one-level KTX2 of ``level``'s blocks, for the whole reading path (file to levels)."""
    header = struct.pack("<12s13I2Q", ktx2.IDENTIFIER, vk_format, 1, size, size, 0, 0, 1, 1, 0,
                         0, 0, 0, 0, 0, 0)
    path = folder / name
    path.write_bytes(header + struct.pack("<3Q", 104, len(level), len(level)) + level)
    return path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--size", type=int, default=4096)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    n, r = args.size, args.repeats
    rng = np.random.default_rng(0)
    sixteen = rng.integers(0, 256, (n // 4) ** 2 * 16, dtype=np.uint8).tobytes()
    eight = sixteen[:len(sixteen) // 2]
    astc66 = _astc_blocks(n)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    bc7_file = _ktx2_file(out, "bc7.ktx2", 145, n, sixteen)
    astc_file = _ktx2_file(out, "astc6x6.ktx2", 165, n, astc66)
    rows = [
        # family, decoder, output, chosen, call
        ("BC7", "Pillow (mipview)", "8-bit RGBA", "yes", lambda: decode(bcn.BC7, sixteen, n, n)),
        ("BC7", "imagecodecs (bcdec)", "8-bit RGBA", "",
         lambda: imagecodecs.bcn_decode(sixteen, 7, shape=(n, n, 4))),
        ("BC7", "texture2ddecoder", "8-bit BGRA", "", lambda: t2d.decode_bc7(sixteen, n, n)),
        ("BC7", "mipview reading a KTX2 file (imageio.read_chain)", "8-bit RGBA", "yes",
         lambda: imageio.read_chain(bc7_file)),
        ("BC6H UF16", "imagecodecs (bcdec) (mipview)", "half float RGB", "yes",
         lambda: decode(bc6h.UF16, sixteen, n, n)),
        ("BC6H UF16", "texture2ddecoder", "8-bit BGRA, clamped to [0, 1]", "",
         lambda: t2d.decode_bc6(sixteen, n, n)),
        ("ASTC 6x6", "astc-encoder, FP16 (mipview)", "half float RGBA", "yes",
         lambda: decode(astc.codec((6, 6), False), astc66, n, n)),
        ("ASTC 6x6", "astc-encoder, UNORM8", "8-bit RGBA", "", lambda: _astcenc_u8(astc66, n)),
        ("ASTC 6x6", "texture2ddecoder", "8-bit BGRA", "",
         lambda: t2d.decode_astc(astc66, n, n, 6, 6)),
        ("ASTC 6x6", "mipview reading a KTX2 file (imageio.read_chain)", "half float RGBA",
         "yes", lambda: imageio.read_chain(astc_file)),
        ("ETC2 RGB", "texture2ddecoder (mipview)", "8-bit BGRA", "yes",
         lambda: decode(etc.ETC2_RGB, eight, n, n)),
        ("EAC R11", "numpy (mipview)", "float32", "yes",
         lambda: decode(channels.EAC_R11, eight, n, n)),
        ("EAC R11", "texture2ddecoder", "8-bit BGRA", "", lambda: t2d.decode_eacr(eight, n, n)),
        ("BC5 SNORM", "numpy (mipview)", "float32", "yes",
         lambda: decode(channels.BC5_SNORM, sixteen, n, n)),
        ("BC5 SNORM", "Pillow", "8-bit, (s + 1) / 2", "", lambda: _pillow_bc5s(sixteen, n)),
    ]
    lines = [f"| family | decoder | output | mipview's | {n}² (s) |", "|---|---|---|---|---|"]
    for family, decoder, output, chosen, call in rows:
        seconds = _median(call, r)
        lines.append(f"| {family} | {decoder} | {output} | {chosen} | {seconds:.3f} |")
        print(lines[-1], flush=True)
    (out / "decode.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
