"""How long does mipview take to read a 4096x4096 UASTC KTX2 level (Basis Universal's
transcoder through opengl-basisu), raw and Zstandard-supercompressed?

    nice -n 5 .venv/bin/python docs/bench/decode/uastc.py OUT

Making the files needs an encoder of UASTC: alktx2 (Basis Universal's encoder; a tool of this
benchmark only, not of mipview: `.venv/bin/pip install alktx2`). The picture is gradients with
every seventh row noise; each figure is the median of 5 reads after one warm-up read.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

import alktx2  # noqa: E402

from mipview.io import imageio  # noqa: E402


def main(out: Path, n: int = 4096) -> None:
    out.mkdir(parents=True, exist_ok=True)
    y, x = np.mgrid[0:n, 0:n]
    image = np.stack([x % 256, y % 256, (x ^ y) % 256, 255 - x % 256], -1).astype(np.uint8)
    image[::7] = np.random.default_rng(1).integers(0, 256, image[::7].shape, dtype=np.uint8)
    png = out / "uastc_source.png"
    Image.fromarray(image).save(png)
    rows = []
    for name, zstd in (("UASTC", None), ("UASTC + Zstandard 5", 5)):
        path = out / f"uastc_{zstd or 0}.ktx2"
        alktx2.encode_image_to_ktx2(str(png), str(path), codec="uastc", effort=0, srgb=False,
                                    linear=True, zstd_supercompression_level=zstd)
        imageio.load(str(path))
        times = []
        for _ in range(5):
            start = time.perf_counter()
            imageio.load(str(path))
            times.append(time.perf_counter() - start)
        rows.append(f"| {name} | {path.stat().st_size / 2**20:.1f} MB | "
                    f"{statistics.median(times):.3f} |")
    table = "\n".join(["| file | size | mipview reading it, s |", "|---|---|---|", *rows])
    (out / "uastc.md").write_text(table + "\n")
    print(table)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
