"""Which encoder per codec: quality (PSNR of RGB, 8-bit) and time of each candidate on the
bundled photo (1000x750, its first 748 rows: whole blocks), best of 3. etcpak and astc-encoder-py come with mipview's
extras; bc7enc-py is measured when importable (PYTHONPATH), it is not a dependency.

    source .venv/bin/activate && python docs/bench/encode/choose.py OUT
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from PIL import Image

from mipview.core.formats import Format
from mipview.io.containers import bcn
from mipview.io.containers.blocks import decode
from mipview.io.containers.encoders import CODECS, CodecChoice, decode_level, encode_level

ROOT = Path(__file__).resolve().parents[3]


def _psnr(a: np.ndarray, b: np.ndarray) -> float:
    mse = float(np.mean((a[..., :3].astype(float) - b[..., :3].astype(float)) ** 2))
    return 10 * np.log10(255 ** 2 / mse) if mse else float("inf")


def _timed(fn):
    best = None
    for _ in range(3):
        t = time.perf_counter()
        out = fn()
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    return out, best


def main(out: Path) -> None:
    with Image.open(ROOT / "resources" / "photo_npot_1000x750.png") as im:
        rgba = np.ascontiguousarray(np.asarray(im.convert("RGBA"))[:748])  # whole blocks
    h, w = rgba.shape[:2]
    rows = []
    for codec in CODECS.values():
        if codec.channels < 3:
            continue
        for q in codec.qualities:
            if q in ("verythorough", "exhaustive"):
                continue
            c = CodecChoice(codec, q)
            blocks, dt = _timed(lambda c=c: encode_level(c, rgba, Format.UNORM))
            got = decode_level(c, blocks, w, h, Format.UNORM)
            rows.append(("mipview " + c.label, _psnr(got, rgba), dt))
    try:
        import bc7enc
    except ImportError:
        bc7enc = None
    if bc7enc is not None:
        for fmt, codec, kw in (("DXT1", bcn.BC1, {}), ("DXT1", bcn.BC1, {"level": 18}),
                               ("BC7", bcn.BC7, {})):
            blocks, dt = _timed(lambda f=fmt, k=kw: bc7enc.pack_dds(rgba.tobytes(), w, h, f, **k))
            got = decode(codec, blocks, w, h)
            rows.append((f"bc7enc-py {fmt} {kw}", _psnr(got, rgba), dt))
    lines = [f"{n:<40} PSNR {p:6.2f} dB  {t * 1000:8.1f} ms" for n, p, t in rows]
    out.mkdir(parents=True, exist_ok=True)
    (out / "choose.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "encode-out"))
