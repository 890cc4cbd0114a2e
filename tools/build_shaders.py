"""Compile every ``*.comp`` of the package (each beside the module that runs it) into the SPIR-V
that ships in ``mipview/spirv/``.

    python -m tools.build_shaders          # rebuild
    python -m tools.build_shaders --check  # exit 1 if any shipped SPIR-V is stale

Users need glslc only for their own GLSL strategies (docs/custom-strategies.md); developers who
change a shader run this.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from mipview.core.errors import MipviewError
from mipview.gpu.shaders.glslc import compile_glsl
from mipview.gpu.shaders.reflection import number_extremes

PACKAGE = Path(__file__).resolve().parent.parent / "mipview"
SPIRV_DIR = PACKAGE / "spirv"


def sources() -> list[Path]:
    """Every shipped shader's GLSL; their names are unique (one flat folder of SPIR-V)."""
    found = sorted(PACKAGE.rglob("*.comp"), key=lambda p: p.name)
    names = [p.stem for p in found]
    if len(set(names)) != len(names):
        raise SystemExit(f"two shaders share a name: {sorted(n for n in names if names.count(n) > 1)}")
    return found


def source(name: str) -> Path:
    """The GLSL of the shipped shader ``name``."""
    return next(p for p in sources() if p.stem == name)


def compile_shader(src: Path, out: Path) -> None:
    """The flags and include path of every mipview shader (mipview/gpu/shaders/glslc.py), its
    min and max made NaN-dropping (reflection.number_extremes: the Hi-Z reference's)."""
    try:
        out.write_bytes(number_extremes(compile_glsl(src).spirv))
    except MipviewError as exc:
        raise SystemExit(f"glslc failed on {src.name}:\n{getattr(exc, 'output', exc)}") from None


def stale_shaders() -> list[str]:
    """Names whose shipped SPIR-V differs from a fresh compile (or is missing / orphaned)."""
    stale = []
    with tempfile.TemporaryDirectory() as tmp:
        for src in sources():
            fresh = Path(tmp) / (src.stem + ".spv")
            compile_shader(src, fresh)
            shipped = SPIRV_DIR / fresh.name
            if not shipped.exists() or shipped.read_bytes() != fresh.read_bytes():
                stale.append(src.stem)
    names = {s.stem for s in sources()}
    stale += [p.stem + " (no source)" for p in SPIRV_DIR.glob("*.spv") if p.stem not in names]
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report stale SPIR-V")
    args = parser.parse_args(argv)
    if args.check:
        stale = stale_shaders()
        if stale:
            print("stale SPIR-V: " + ", ".join(stale) + " (run: python -m tools.build_shaders)")
            return 1
        print(f"{len(sources())} shaders up to date")
        return 0
    SPIRV_DIR.mkdir(exist_ok=True)
    for src in sources():
        compile_shader(src, SPIRV_DIR / (src.stem + ".spv"))
        print(f"compiled {src.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
