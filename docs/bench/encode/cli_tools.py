"""Does mipview's ASTC encoding do the work of astc-encoder's own command line? The bundled photo
resized to 4096x4096 (Lanczos, as bench.py does), encoded as ASTC 6x6 at -fastest, -medium
and -thorough by `astcenc -cl` (the Debian package, as a user runs it: PNG in, .astc out) and by
mipview's binding (`encoders.encode_level`, astc-encoder-py), level 0 then the rest of the box
chain. Both outputs are decoded by texture2ddecoder, and level 0's PSNR (RGBA, 8 bits) is taken
against the image. Usage: python cli_tools.py OUT [SIZE]; writes OUT/cli_tools.json."""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import texture2ddecoder as t2d
from PIL import Image

from mipview.check.reference import stored_chain
from mipview.core.formats import Format
from mipview.io.containers import encoders

ROOT = Path(__file__).resolve().parents[3]
PRESETS = ("fastest", "medium", "thorough")
BLOCK = (6, 6)


def _psnr(blocks: bytes, image: np.ndarray) -> float:
    h, w = image.shape[:2]
    pw, ph = -(-w // BLOCK[0]) * BLOCK[0], -(-h // BLOCK[1]) * BLOCK[1]
    bgra = np.frombuffer(t2d.decode_astc(blocks, pw, ph, *BLOCK), np.uint8).reshape(ph, pw, 4)
    rgba = bgra[:h, :w, [2, 1, 0, 3]].astype(np.float64)
    mse = float(np.mean((rgba - image) ** 2))
    return math.inf if mse == 0 else 10 * math.log10(255.0 ** 2 / mse)


def _cli(png: Path, out: Path, preset: str, threads: int) -> tuple[float, float, bytes]:
    """Wall time of one `astcenc -cl` (process, PNG read, encode, write), its own coding time,
    and the blocks (the .astc file less its 16-byte header)."""
    start = time.perf_counter()
    done = subprocess.run(["astcenc", "-cl", str(png), str(out), "6x6", f"-{preset}",
                           "-j", str(threads)], capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    coding = re.search(r"Coding time:\s*([0-9.]+)", done.stdout)
    return wall, float(coding.group(1)) if coding else math.nan, out.read_bytes()[16:]


def main(out: Path, size: int) -> None:
    if shutil.which("astcenc") is None:
        sys.exit("astcenc is not installed (apt-get install astcenc)")
    out.mkdir(parents=True, exist_ok=True)
    with Image.open(ROOT / "resources" / "photo_npot_1000x750.png") as im:
        level0 = np.asarray(im.convert("RGBA").resize((size, size), Image.LANCZOS))
    chain = [np.clip(np.rint(lv), 0, 255).astype(np.uint8)
             for lv in stored_chain(level0, Format.UNORM)]
    pngs = []
    for p, level in enumerate(chain):
        pngs.append(out / f"level{p}.png")
        Image.fromarray(level).save(pngs[-1])
    version = subprocess.run(["astcenc", "-version"], capture_output=True,
                             text=True).stdout.splitlines()[0]
    rows = []
    for preset in PRESETS:
        (choice,) = encoders.parse_codecs(f"astc-6x6:quality={preset}")
        start = time.perf_counter()
        ours = encoders.encode_level(choice, chain[0], Format.UNORM)
        ours_l0 = time.perf_counter() - start
        start = time.perf_counter()
        for level in chain[1:]:
            encoders.encode_level(choice, level, Format.UNORM)
        ours_rest = time.perf_counter() - start
        row = {"preset": preset, "levels": len(chain),
               "mipview_l0_s": ours_l0, "mipview_chain_s": ours_l0 + ours_rest,
               "mipview_psnr": _psnr(ours, level0.astype(np.float64))}
        for threads in (1, 2):
            wall, coding, theirs = _cli(pngs[0], out / f"{preset}.astc", preset, threads)
            rest = sum(_cli(png, out / "rest.astc", preset, threads)[0] for png in pngs[1:])
            row[f"cli_j{threads}_l0_s"] = wall
            row[f"cli_j{threads}_l0_coding_s"] = coding
            row[f"cli_j{threads}_chain_s"] = wall + rest
        row["cli_psnr"] = _psnr(theirs, level0.astype(np.float64))
        row["same_blocks"] = theirs == ours
        rows.append(row)
        print(json.dumps(row), flush=True)
    (out / "cli_tools.json").write_text(json.dumps(
        {"size": size, "astcenc": version, "rows": rows}, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 4096)
