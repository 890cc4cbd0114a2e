"""The filter kernels, as functions of the distance x from the destination texel centre measured
in destination texels (docs/filters.md). Each kernel is zero outside ``|x| < radius``.

The box is the one kernel that is integrated over the source texel (its weights are the exact
area of each footprint, reference.py's odd-size rule); every other kernel is sampled at source
texel centres, as Pillow, stb_image_resize and toktx do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

#: NVIDIA Texture Tools' defaults (InputOptions: kaiserWidth 3, kaiserAlpha 4, stretch 1)
KAISER_WIDTH = 3.0
KAISER_ALPHA = 4.0
#: accepted parameter ranges (a width that is more than 8 destination texels would make 32+
#: taps per axis; an alpha past 20 is a window narrower than any use)
KAISER_WIDTH_RANGE = (1.0, 8.0)
KAISER_ALPHA_RANGE = (0.0, 20.0)


@dataclass(frozen=True)
class Kernel:
    name: str
    radius: float
    weight: Callable[[np.ndarray], np.ndarray]
    #: True: weights are the overlap areas of the footprint (box); False: point samples
    area: bool = False
    #: some weights can be negative, so filtered values can leave [0, 1]
    negative_lobes: bool = False


def _tent(x: np.ndarray) -> np.ndarray:
    return np.maximum(0.0, 1.0 - np.abs(x))


def _lanczos(a: int) -> Callable[[np.ndarray], np.ndarray]:
    def weight(x: np.ndarray) -> np.ndarray:
        return np.where(np.abs(x) < a, np.sinc(x) * np.sinc(x / a), 0.0)
    return weight


def bc_cubic(b: float, c: float) -> Callable[[np.ndarray], np.ndarray]:
    """Mitchell and Netravali's two-parameter cubic (1988); B=0, C=0.5 is Catmull-Rom and Keys'
    cubic with a = -0.5 (Pillow's BICUBIC)."""
    def weight(x: np.ndarray) -> np.ndarray:
        t = np.abs(x)
        near = ((12 - 9 * b - 6 * c) * t**3 + (-18 + 12 * b + 6 * c) * t**2 + (6 - 2 * b)) / 6
        far = ((-b - 6 * c) * t**3 + (6 * b + 30 * c) * t**2 + (-12 * b - 48 * c) * t
               + (8 * b + 24 * c)) / 6
        return np.where(t < 1, near, np.where(t < 2, far, 0.0))
    return weight


@lru_cache(maxsize=64)
def kaiser(width: float = KAISER_WIDTH, alpha: float = KAISER_ALPHA) -> Kernel:
    """NVTT's Kaiser-windowed sinc: ``sinc(x) * I0(alpha * sqrt(1 - (x/width)^2)) / I0(alpha)``
    for ``|x| < width``."""
    def weight(x: np.ndarray) -> np.ndarray:
        t = x / width
        inside = np.abs(t) < 1
        window = np.i0(alpha * np.sqrt(np.where(inside, 1 - t * t, 0.0))) / np.i0(alpha)
        return np.where(inside, np.sinc(x) * window, 0.0)
    return Kernel(f"kaiser{width:g}/{alpha:g}", width, weight, negative_lobes=True)


KERNELS: dict[str, Kernel] = {
    "box": Kernel("box", 0.5, lambda x: (np.abs(x) < 0.5).astype(np.float64), area=True),
    "tent": Kernel("tent", 1.0, _tent),
    "lanczos2": Kernel("lanczos2", 2.0, _lanczos(2), negative_lobes=True),
    "lanczos3": Kernel("lanczos3", 3.0, _lanczos(3), negative_lobes=True),
    "lanczos4": Kernel("lanczos4", 4.0, _lanczos(4), negative_lobes=True),
    "mitchell": Kernel("mitchell", 2.0, bc_cubic(1 / 3, 1 / 3), negative_lobes=True),
    "catmull-rom": Kernel("catmull-rom", 2.0, bc_cubic(0.0, 0.5), negative_lobes=True),
}
#: every filter name a spec may give ("kaiser" takes its width and alpha from the spec)
FILTER_NAMES = ("box", "tent", "kaiser", "lanczos2", "lanczos3", "lanczos4", "mitchell",
                "catmull-rom")


def kernel(name: str, kaiser_width: float = KAISER_WIDTH,
           kaiser_alpha: float = KAISER_ALPHA) -> Kernel:
    if name == "kaiser":
        return kaiser(kaiser_width, kaiser_alpha)
    try:
        return KERNELS[name]
    except KeyError:
        raise ValueError(f"unknown filter {name!r} (known: {', '.join(FILTER_NAMES)})") from None
