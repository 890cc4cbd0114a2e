"""Bundled sample images: where they live, and how to regenerate them.

``python -m mipview.io.samples [--out DIR]`` rewrites the PNGs in ``resources/`` (deterministic, so
regenerating changes no bytes on the same numpy/Pillow versions).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from PIL import Image

from mipview.core.errors import MipviewError
from mipview.io.synthetic import (
    make_alpha,
    make_foliage,
    make_normal_map,
    make_photo,
    make_tiling,
    make_zoneplate,
)

RESOURCES_DIR = Path(__file__).resolve().parents[2] / "resources"

DEFAULT_SAMPLE = "photo_npot_1000x750.png"



SAMPLES: dict[str, Callable[[], Image.Image]] = {
    "zoneplate_512.png": make_zoneplate,
    DEFAULT_SAMPLE: make_photo,
    "alpha_300x200.png": make_alpha,
    # one texture per kind (docs/filters.md)
    "tiling_256.png": make_tiling,
    "foliage_256.png": make_foliage,
    "normal_256.png": make_normal_map,
}


def sample_path(name: str | None = None) -> Path:
    """Path of a bundled sample (``None``: the NPOT photo); ``name`` may omit ``.png``."""
    key = name or DEFAULT_SAMPLE
    if key not in SAMPLES and key + ".png" in SAMPLES:
        key += ".png"
    if key not in SAMPLES:
        raise MipviewError(f"no bundled sample {name!r}; choose one of {', '.join(SAMPLES)}")
    path = RESOURCES_DIR / key
    if not path.is_file():
        raise MipviewError(f"bundled sample '{path}' is missing; regenerate it with "
                           "'python -m mipview.io.samples'")
    return path


def generate(out_dir: Path = RESOURCES_DIR) -> list[Path]:
    """Write every sample into ``out_dir``; returns the paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, make in SAMPLES.items():
        path = out_dir / name
        make().save(path, format="PNG", optimize=True)
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mipview.io.samples",
                                     description="Regenerate the bundled sample images.")
    parser.add_argument("--out", type=Path, default=RESOURCES_DIR,
                        help=f"output folder (default: {RESOURCES_DIR})")
    args = parser.parse_args(argv)
    for path in generate(args.out):
        print(f"{path}  {path.stat().st_size / 1024:.0f} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
