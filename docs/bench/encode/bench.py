"""How long does a compressed chain take: a 4096x4096 RGBA8 image (the bundled photo resized)
and its box chain (13 levels, rounded per level as a stored strategy makes them), encoded in
each codec and quality, then decoded and judged (filter, codec, total per level). Encoding and
the rest are timed apart, once each (the encoders are deterministic; the machine is shared).

    source .venv/bin/activate && nice -n 10 python docs/bench/encode/bench.py OUT [SIZE]
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
from PIL import Image

from mipview.check.reference import stored_chain
from mipview.check.verdict import ReferenceCache
from mipview.core.formats import Format
from mipview.core.results import StrategyResult
from mipview.core.specs import StrategySpec
from mipview.runs import encode

ROOT = Path(__file__).resolve().parents[3]
CODECS = ("bc1", "bc1:quality=dither", "bc3", "bc7", "bc7:quality=2", "bc7:quality=4",
          "etc2-rgb", "etc2-rgba", "astc-4x4:quality=fastest", "astc-4x4",
          "astc-6x6:quality=fast", "astc-6x6", "astc-6x6:quality=thorough", "astc-8x8")


def main(out: Path, size: int) -> None:
    with Image.open(ROOT / "resources" / "photo_npot_1000x750.png") as im:
        level0 = np.asarray(im.convert("RGBA").resize((size, size), Image.LANCZOS))
    level0 = np.ascontiguousarray(level0)
    fmt = Format.UNORM
    t = time.perf_counter()
    levels = tuple(np.clip(np.rint(lv), 0, 255).astype(np.uint8)
                   for lv in stored_chain(level0, fmt))
    res = StrategyResult(StrategySpec("per-level"), levels)
    refs = ReferenceCache()
    refs.get(level0, fmt, "mean")
    setup = time.perf_counter() - t
    spent = {"encode": 0.0}
    real = encode.encode_level

    def timed(*a):
        t0 = time.perf_counter()
        try:
            return real(*a)
        finally:
            spent["encode"] += time.perf_counter() - t0
    encode.encode_level = timed
    rows = []
    for text in CODECS:
        (choice,) = encode.parse_codecs(text)
        spent["encode"] = 0.0
        t = time.perf_counter()
        chain = encode.encode_result(res, level0, fmt, choice, refs)
        whole = time.perf_counter() - t
        rows.append({"codec": choice.label, "encode_s": spent["encode"],
                     "decode_and_judge_s": whole - spent["encode"],
                     "level0_total_max": chain.figures[0].total.max_error,
                     "level0_total_mean": chain.figures[0].total.mean_error,
                     "level0_psnr": chain.figures[0].total.psnr})
        print(f"{choice.label:<28} encode {spent['encode']:7.2f} s  decode+judge "
              f"{whole - spent['encode']:6.2f} s  level 0 total max {rows[-1]['level0_total_max']:.0f}"
              f" mean {rows[-1]['level0_total_mean']:.3f} LSB", flush=True)
    out.mkdir(parents=True, exist_ok=True)
    (out / "encode.json").write_text(json.dumps({
        "size": size, "levels": len(levels), "chain_and_reference_s": setup,
        "cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
        "rows": rows}, indent=2))


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "encode-out"),
         int(sys.argv[2]) if len(sys.argv) > 2 else 4096)
