"""Bundled sample images: where they live, and how to regenerate them.

``python -m mipview.io.samples [--out DIR]`` rewrites the PNGs in ``resources/`` (deterministic, so
regenerating changes no bytes on the same numpy/Pillow versions).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from PIL import Image

from mipview.core.errors import MipviewError
from mipview.io.imageio import zoneplate_phase

RESOURCES_DIR = Path(__file__).resolve().parents[2] / "resources"

DEFAULT_SAMPLE = "photo_npot_1000x750.png"


def _smoothstep(e0: float, e1: float, x: np.ndarray) -> np.ndarray:
    t = np.clip((x - e0) / (e1 - e0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def _mix(base: np.ndarray, colour: Sequence[float] | np.ndarray, cover: np.ndarray) -> None:
    """Paint ``colour`` over ``base`` (H, W, 3) in place with coverage ``cover`` (H, W)."""
    c = cover[..., None]
    base *= 1.0 - c
    base += c * np.asarray(colour, dtype=np.float64)


def _to_u8(a: np.ndarray) -> np.ndarray:
    return np.clip(np.rint(a * 255.0), 0, 255).astype(np.uint8)


def make_zoneplate(size: int = 512) -> Image.Image:
    """Grey zone plate reaching Nyquist at the corners: a poor box filter shows false rings."""
    return Image.fromarray(_to_u8(0.5 + 0.5 * np.cos(zoneplate_phase(size, size))))


def make_photo(width: int = 1000, height: int = 750, seed: int = 7) -> Image.Image:
    """A photo-like landscape: smooth sky, soft sun, hills, a house with brick texture, a fence
    of 1-texel posts, grass noise. NPOT on both axes: the height is odd from level 1 (375) and
    the width from level 3 (125), so the 3-tap path is exercised early."""
    rng = np.random.default_rng(seed)
    x = (np.arange(width, dtype=np.float64) + 0.5)[None, :]
    y = (np.arange(height, dtype=np.float64) + 0.5)[:, None]
    u, v = x / width, y / height
    img = np.empty((height, width, 3))

    # sky: deep blue at the top to warm haze at the horizon
    t = np.clip(v / 0.6, 0.0, 1.0)
    top, horizon = np.array([0.10, 0.22, 0.55]), np.array([0.98, 0.78, 0.55])
    img[:] = (top + (horizon - top) * (t**1.5)[..., None])

    # sun with glow
    d = np.hypot(x - 0.72 * width, y - 0.30 * height)
    _mix(img, (1.0, 0.85, 0.55), 0.6 * np.exp(-((d / (0.12 * height)) ** 2)))
    _mix(img, (1.0, 0.98, 0.90), _smoothstep(0.045 * height + 1.0, 0.045 * height - 1.0, d))

    # two ranges of hills, far and near; the silhouettes are anti-aliased over ~1.5 texels
    far = height * (0.55 - 0.06 * np.sin(2 * np.pi * (u * 1.3 + 0.1))
                    - 0.025 * np.sin(2 * np.pi * u * 5.7))
    _mix(img, (0.35, 0.45, 0.55), _smoothstep(-0.75, 0.75, y - far))
    near = height * (0.66 - 0.05 * np.sin(2 * np.pi * (u * 0.8 + 0.6))
                     - 0.012 * np.sin(2 * np.pi * u * 11.0))
    ground = _smoothstep(-0.75, 0.75, y - near)
    shade = 0.75 + 0.25 * np.clip((y - near) / (0.35 * height), 0.0, 1.0)
    green = np.empty_like(img)
    green[..., 0], green[..., 1], green[..., 2] = 0.20 * shade, 0.45 * shade, 0.15 * shade
    img += ground[..., None] * (green - img)

    # furrows converging to a vanishing point: a chirp in x, aliasing-prone towards the horizon
    depth = np.clip((y - near) / (height - near + 1e-9), 0.0, 1.0)
    furrow = 0.5 + 0.5 * np.cos(2 * np.pi * (u - 0.5) * 90.0 / (0.15 + depth))
    img *= 1.0 - (0.18 * ground * depth * furrow)[..., None]

    # grass noise: fine, low amplitude (it is what a photo has, and what PNG cannot compress)
    noise = rng.standard_normal((height, width)) * 0.035
    img += (ground * depth * noise)[..., None]

    # a house: wall with a 1-texel mortar grid, a roof, windows
    x0, x1, yb, yt = 0.16 * width, 0.40 * width, 0.80 * height, 0.58 * height
    wall = ((x >= x0) & (x < x1) & (y >= yt) & (y < yb)).astype(np.float64)
    _mix(img, (0.62, 0.30, 0.22), wall)
    row = np.floor((y - yt) / 6.0)
    mortar = ((np.floor(y - yt) % 6 == 0) | ((np.floor(x - x0 + 7.0 * (row % 2)) % 14) == 0))
    _mix(img, (0.80, 0.78, 0.72), wall * mortar)
    cx = 0.5 * (x0 + x1)
    roof = (y < yt) & (y >= yt - 0.12 * height) & \
        (np.abs(x - cx) <= (x1 - x0) * 0.58 * (y - (yt - 0.12 * height)) / (0.12 * height))
    _mix(img, (0.25, 0.18, 0.20), roof.astype(np.float64))
    for wx in (0.20, 0.33):
        win = ((x >= wx * width) & (x < wx * width + 0.035 * width)
               & (y >= 0.63 * height) & (y < 0.70 * height))
        _mix(img, (0.95, 0.85, 0.45), win.astype(np.float64))

    # a fence of 1-texel posts every 5 texels, with a rail: hard edges, exact-width features
    posts = ((np.floor(x) % 5) == 0) & (y >= 0.78 * height) & (y < 0.86 * height) & (x > 0.5 * width)
    rail = (np.abs(y - 0.80 * height) < 1.0) & (x > 0.5 * width)
    _mix(img, (0.92, 0.90, 0.86), (posts | rail).astype(np.float64))
    return Image.fromarray(_to_u8(img))


def make_alpha(width: int = 300, height: int = 200) -> Image.Image:
    """RGBA: a colour sweep under a soft-edged five-pointed star, transparent around it. The
    colour continues under the transparent texels, as straight-alpha exports leave it."""
    x = (np.arange(width, dtype=np.float64) + 0.5)[None, :] - width / 2
    y = (np.arange(height, dtype=np.float64) + 0.5)[:, None] - height / 2
    r = np.hypot(x, y)
    theta = np.arctan2(y, x)
    radius = 0.45 * height * (0.62 + 0.38 * np.cos(5 * theta + np.pi / 2))
    alpha = _smoothstep(radius, radius - 0.05 * height, r)
    alpha *= 1.0 - 0.6 * np.exp(-((r / (0.08 * height)) ** 2))  # a translucent centre
    hue = (x / width + 0.5)[..., None] * 2 * np.pi + np.array([0.0, 2.1, 4.2])
    rgb = 0.5 + 0.45 * np.cos(hue) * (0.6 + 0.4 * (y / height + 0.5))[..., None]
    rgba = np.concatenate([rgb, alpha[..., None]], -1)
    return Image.fromarray(_to_u8(rgba))


def _periodic_noise(size: int, rng: np.random.Generator, octaves: int = 5) -> np.ndarray:
    """Value noise that tiles: integer frequencies only, so the left edge continues the right."""
    t = (np.arange(size, dtype=np.float64) + 0.5) / size * 2 * np.pi
    out = np.zeros((size, size))
    for o in range(octaves):
        for _ in range(4):
            fx, fy = rng.integers(-(2 << o), (2 << o) + 1, size=2)
            phase = rng.random() * 2 * np.pi
            out += np.cos(fx * t[None, :] + fy * t[:, None] + phase) / (1.6 ** o)
    return (out - out.min()) / (out.max() - out.min())


def make_tiling(size: int = 256, seed: int = 11) -> Image.Image:
    """RGBA, opaque, tiling (wrap edges): stone bricks with 1-texel mortar and mottled noise.
    A wrap-edge filter keeps its seams invisible; clamp shows them at every level."""
    rng = np.random.default_rng(seed)
    x = np.arange(size)[None, :]
    y = np.arange(size)[:, None]
    row = y // 32
    mortar = (y % 32 == 0) | ((x + 32 * (row % 2)) % 64 == 0)
    noise = _periodic_noise(size, rng)
    base = np.array([0.55, 0.45, 0.38]) * (0.75 + 0.5 * noise)[..., None]
    tone = 0.85 + 0.3 * ((row * 7 + (x + 32 * (row % 2)) // 64 * 3) % 5) / 4
    img = base * tone[..., None]
    _mix(img, (0.82, 0.80, 0.74), mortar.astype(np.float64))
    rgba = np.concatenate([np.clip(img, 0, 1), np.ones((size, size, 1))], -1)
    return Image.fromarray(_to_u8(rgba))


def make_foliage(size: int = 256, seed: int = 12) -> Image.Image:
    """RGBA cutout, foliage-style: leaves (ellipses) with hard-ish alpha edges over full
    transparency; its alpha-test coverage thins out level by level unless coverage is kept."""
    rng = np.random.default_rng(seed)
    x = (np.arange(size, dtype=np.float64) + 0.5)[None, :]
    y = (np.arange(size, dtype=np.float64) + 0.5)[:, None]
    alpha = np.zeros((size, size))
    rgb = np.zeros((size, size, 3))
    rgb[:] = (0.15, 0.30, 0.10)  # colour under transparent texels, as exporters leave it
    for _ in range(70):
        cx, cy = rng.random(2) * size
        length, width = 10 + rng.random() * 16, 3 + rng.random() * 4
        ang = rng.random() * np.pi
        du = (x - cx) * np.cos(ang) + (y - cy) * np.sin(ang)
        dv = -(x - cx) * np.sin(ang) + (y - cy) * np.cos(ang)
        r = np.hypot(du / length, dv / width)
        leaf = _smoothstep(1.0, 0.8, r)
        shade = 0.6 + 0.4 * rng.random()
        _mix(rgb, (0.20 * shade, 0.55 * shade, 0.15 * shade), leaf)
        alpha = np.maximum(alpha, leaf)
    rgba = np.concatenate([rgb, alpha[..., None]], -1)
    return Image.fromarray(_to_u8(rgba))


def make_normal_map(size: int = 256, seed: int = 13) -> Image.Image:
    """RGBA normal map (tangent space, n / 2 + 1/2, alpha 1) of a tiling height field of rivets
    and ripples: the filtered vectors shorten where the bumps are finer than a level's texels."""
    rng = np.random.default_rng(seed)
    height = _periodic_noise(size, rng, octaves=6) * 3.0
    t = (np.arange(size, dtype=np.float64) + 0.5) / size * 2 * np.pi
    height += 0.8 * np.cos(16 * t)[None, :] * np.cos(16 * t)[:, None]
    dx = (np.roll(height, -1, 1) - np.roll(height, 1, 1)) * 0.5
    dy = (np.roll(height, -1, 0) - np.roll(height, 1, 0)) * 0.5
    n = np.stack([-dx, -dy, np.ones_like(height) * 0.25], -1)
    n /= np.linalg.norm(n, axis=-1, keepdims=True)
    rgba = np.concatenate([n * 0.5 + 0.5, np.ones((size, size, 1))], -1)
    return Image.fromarray(_to_u8(rgba))


SAMPLES: dict[str, Callable[[], Image.Image]] = {
    "zoneplate_512.png": make_zoneplate,
    DEFAULT_SAMPLE: make_photo,
    "alpha_300x200.png": make_alpha,
    # issue 17: one texture per kind (docs/filters.md)
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
