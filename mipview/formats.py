"""Pixel formats mipview generates pyramids in, and conversions to their storage values.

A *storage value* is what the GPU image holds per channel: uint8 for ``unorm``/``srgb`` (sRGB
bytes are gamma-encoded colour, linear alpha), float16 for ``f16``, float32 for ``f32``.
Errors are measured in storage units: LSB (1/255) for 8-bit formats, relative error for floats.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import numpy as np

# Relative error divides by max(|ref|, floor): without a floor, a texel whose reference is ~0
# (black, transparent) turns any tiny absolute difference into an enormous "relative" error.
# 1e-3 is about the smallest value a display distinguishes and one float16 ulp near 1.
RELATIVE_FLOOR = 1e-3

# Vulkan enum values, kept here as numbers so this module needs no Vulkan loader.
_VK_R8G8B8A8_UNORM = 37
_VK_R8G8B8A8_SRGB = 43
_VK_R16G16B16A16_SFLOAT = 97
_VK_R32G32B32A32_SFLOAT = 109


@dataclass(frozen=True)
class FormatInfo:
    name: str
    vk_format: int
    #: format of the storage (writable) views; sRGB images are written through a UNORM alias
    vk_storage_format: int
    dtype: np.dtype
    bytes_per_texel: int
    is_float: bool
    is_srgb: bool
    #: GLSL image format qualifier of the storage views
    glsl_qualifier: str


class Format(Enum):
    UNORM = FormatInfo("unorm", _VK_R8G8B8A8_UNORM, _VK_R8G8B8A8_UNORM, np.dtype(np.uint8), 4,
                       False, False, "rgba8")
    SRGB = FormatInfo("srgb", _VK_R8G8B8A8_SRGB, _VK_R8G8B8A8_UNORM, np.dtype(np.uint8), 4,
                      False, True, "rgba8")
    F16 = FormatInfo("f16", _VK_R16G16B16A16_SFLOAT, _VK_R16G16B16A16_SFLOAT,
                     np.dtype(np.float16), 8, True, False, "rgba16f")
    F32 = FormatInfo("f32", _VK_R32G32B32A32_SFLOAT, _VK_R32G32B32A32_SFLOAT,
                     np.dtype(np.float32), 16, True, False, "rgba32f")

    @property
    def info(self) -> FormatInfo:
        return self.value

    @property
    def label(self) -> str:
        return self.value.name

    @property
    def is_float(self) -> bool:
        return self.value.is_float

    @property
    def is_srgb(self) -> bool:
        return self.value.is_srgb

    @property
    def dtype(self) -> np.dtype:
        return self.value.dtype

    @property
    def bytes_per_texel(self) -> int:
        return self.value.bytes_per_texel

    @property
    def error_unit(self) -> str:
        return "relative" if self.is_float else "LSB"

    @classmethod
    def parse(cls, text: str) -> Format:
        for f in cls:
            if f.label == text.lower():
                return f
        names = ", ".join(f.label for f in cls)
        raise ValueError(f"unknown format {text!r}; choose one of {names}")


def srgb_to_linear(v: np.ndarray) -> np.ndarray:
    """sRGB-encoded values in [0, 1] to linear light (IEC 61966-2-1), float64."""
    v = np.asarray(v, dtype=np.float64)
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(v: np.ndarray) -> np.ndarray:
    """Linear values in [0, 1] to sRGB encoding, float64."""
    v = np.clip(np.asarray(v, dtype=np.float64), 0.0, 1.0)
    return np.where(v <= 0.0031308, v * 12.92, 1.055 * v ** (1.0 / 2.4) - 0.055)


_CHUNK = 1 << 18


def _float32_to_storage(p: np.ndarray, fmt: Format) -> np.ndarray:
    """:func:`to_storage` of finite float32 pixels, bit for bit, without float64 temporaries.

    For 8-bit formats the product ``p * 255`` is rounded in float32; a float32 times 255 is
    exact in float64, and the float32 product is off by at most 2^-24 * 256 / 2 < 1e-5, so
    only values that close to a half-way point can round differently: those few are redone in
    float64. Float formats convert float32 -> float16/32 directly (float32 -> float64 is exact,
    so the one rounding is the same). Four times faster on a 4096^2 image and a quarter of the
    memory, which is what opening a big image waits on.
    """
    if fmt.is_float:
        with np.errstate(over="ignore"):  # beyond float16's range: inf, as numpy says
            return np.ascontiguousarray(p.astype(fmt.dtype))
    flat = p.reshape(-1)
    out = np.empty(flat.shape, np.uint8)
    x = np.empty(min(flat.size, _CHUNK), np.float32)
    t = np.empty_like(x)
    # chunks that stay in cache: several passes over a 256 MB array would not
    for start in range(0, flat.size, _CHUNK):
        src = flat[start:start + _CHUNK]
        xs, ts = x[:src.size], t[:src.size]
        np.multiply(src, np.float32(255.0), out=xs)
        np.floor(xs, out=ts)
        np.subtract(xs, ts, out=ts)
        np.subtract(ts, np.float32(0.5), out=ts)
        np.abs(ts, out=ts)
        near = np.flatnonzero(ts < np.float32(1e-5))
        np.rint(xs, out=xs)
        np.clip(xs, 0, 255, out=xs)
        dst = out[start:start + src.size]
        dst[:] = xs
        if near.size:
            dst[near] = np.clip(np.rint(src[near].astype(np.float64) * 255.0), 0, 255)
    return out.reshape(p.shape)


def to_storage(pixels: np.ndarray, fmt: Format) -> np.ndarray:
    """Convert float RGBA pixels (colour in [0, 1] as displayed, i.e. sRGB-encoded for 8-bit
    sources) to the storage values of ``fmt`` (HxWx4, C-contiguous). Exactly the float64
    rounding below for every input; finite float32 input (what imageio.load gives) takes an
    equal but faster path."""
    p = np.asarray(pixels)
    if p.dtype == np.float32 and np.isfinite(p).all():
        return _float32_to_storage(p, fmt)
    p = np.asarray(pixels, dtype=np.float64)
    if fmt.is_float:
        with np.errstate(over="ignore"):  # beyond float16's range: inf, as numpy says
            return np.ascontiguousarray(p.astype(fmt.dtype))
    q = np.clip(np.rint(p * 255.0), 0, 255)  # +-Inf clip to 255 / 0
    q[np.isnan(q)] = 0  # what a float -> UNORM conversion gives NaN (Vulkan spec)
    return np.ascontiguousarray(q.astype(np.uint8))


def decode(values: np.ndarray, fmt: Format) -> np.ndarray:
    """Storage values -> float64 values in which averaging is correct (linear light for sRGB)."""
    v = np.asarray(values, dtype=np.float64)
    if fmt.is_float:
        return v
    v = v / 255.0
    if fmt.is_srgb:
        v = v.copy()
        v[..., :3] = srgb_to_linear(v[..., :3])
    return v


def encode(values: np.ndarray, fmt: Format) -> np.ndarray:
    """Inverse of :func:`decode`, without quantisation: float64 storage units (0..255 for 8-bit)."""
    v = np.asarray(values, dtype=np.float64)
    if fmt.is_float:
        return v
    if fmt.is_srgb:
        v = v.copy()
        v[..., :3] = linear_to_srgb(v[..., :3])
    return v * 255.0


def mip_count(width: int, height: int) -> int:
    """floor(log2(max(w, h))) + 1."""
    return max(width, height).bit_length()


def level_size(width: int, height: int, level: int) -> tuple[int, int]:
    return max(1, width >> level), max(1, height >> level)
