"""Pixel formats mipview generates pyramids in, and conversions to their storage values.

A *storage value* is what the GPU image holds per channel: uint8 for the 8-bit UNORM formats
(sRGB bytes are gamma-encoded colour, linear alpha), uint16 for the 16-bit UNORM ones, float16
or float32 for the float ones. Errors are measured in storage units: LSB for UNORM formats
(1/255 for 8 bits, 1/65535 for 16: :attr:`Format.one`), relative error for floats.

One table (:class:`Format`) is the single source of a format's bytes, channels, the Vulkan
formats of its sampled and storage views, its element type and its LSB. The one- and
two-channel formats (``r8``, ``rg8``, ``r16``, ``r16f``, ``rg16f``, ``r32f``, ``rg32f``: render
targets, depth and luminance) share the element type of a four-channel one (:attr:`element`):
its rounding, tolerances and promises. On the host every level is held as four channels, the
ones the image lacks filled as a shader reads them (Vulkan: G and B 0, alpha 1), so the exact
reference, the verdict and the views work on one shape; :meth:`Format.pack` and
:meth:`Format.unpack` convert at the edges (upload, read back, files). The packed 32-bit
formats (``rgb10a2``, ``b10g11r11``) are held the same way, as codes or grid values per channel
(:mod:`mipview.core.packed`); only those edges meet their words.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

import numpy as np

from mipview.core import bands, packed
from mipview.core.cancel import checkpoint

# Vulkan enum values, kept here as numbers so this module needs no Vulkan loader.
_VK_R8_UNORM = 9
_VK_R8G8_UNORM = 16
_VK_R8G8B8A8_UNORM = 37
_VK_R8G8B8A8_SRGB = 43
_VK_A2B10G10R10_UNORM_PACK32 = 64
_VK_R16_UNORM = 70
_VK_R16G16B16A16_UNORM = 91
_VK_R16_SFLOAT = 76
_VK_R16G16_SFLOAT = 83
_VK_R16G16B16A16_SFLOAT = 97
_VK_R32_SFLOAT = 100
_VK_R32G32_SFLOAT = 103
_VK_R32G32B32A32_SFLOAT = 109
_VK_B10G11R11_UFLOAT_PACK32 = 122
_VK_D16_UNORM = 124
_VK_D32_SFLOAT = 126


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
    #: channels the image holds (R, RG or RGBA; b10g11r11's RGB counts 4, its alpha reading 1)
    channels: int = 4
    #: the four-channel format of the same element type (its own name for those)
    element: str = ""
    #: level 0's own image when it is not the chain's: a depth format, which cannot be a
    #: storage image, so strategies read level 0 through a sampled depth view (0: none)
    vk_source_format: int = 0
    #: the storage value of 1.0 per channel (R, G, B, A): a UNORM format's top code (2^bits - 1),
    #: 1.0 for floats
    scale: tuple[float, float, float, float] = (255.0,) * 4
    #: a packed 32-bit format (mipview.core.packed): "unorm10" (rgb10a2), "float11"
    #: (b10g11r11); "" for the others
    packing: str = ""


def _info(name: str, vk: int, dtype: type, channels: int, is_float: bool, qualifier: str,
          element: str, vk_storage: int | None = None, srgb: bool = False,
          source: int = 0, packing: str = "") -> FormatInfo:
    size = 4 if packing else np.dtype(dtype).itemsize * channels
    one = 1.0 if is_float else float(np.iinfo(dtype).max)  # UNORM: every bit of the type
    scale = packed.UNORM10_SCALE if packing == "unorm10" else (one,) * 4
    return FormatInfo(name, vk, vk if vk_storage is None else vk_storage, np.dtype(dtype), size,
                      is_float, srgb, qualifier, channels, element, source, scale, packing)


class Format(Enum):
    UNORM = _info("unorm", _VK_R8G8B8A8_UNORM, np.uint8, 4, False, "rgba8", "unorm")
    SRGB = _info("srgb", _VK_R8G8B8A8_SRGB, np.uint8, 4, False, "rgba8", "srgb",
                 vk_storage=_VK_R8G8B8A8_UNORM, srgb=True)
    F16 = _info("f16", _VK_R16G16B16A16_SFLOAT, np.float16, 4, True, "rgba16f", "f16")
    F32 = _info("f32", _VK_R32G32B32A32_SFLOAT, np.float32, 4, True, "rgba32f", "f32")
    R8 = _info("r8", _VK_R8_UNORM, np.uint8, 1, False, "r8", "unorm")
    RG8 = _info("rg8", _VK_R8G8_UNORM, np.uint8, 2, False, "rg8", "unorm")
    R16F = _info("r16f", _VK_R16_SFLOAT, np.float16, 1, True, "r16f", "f16")
    RG16F = _info("rg16f", _VK_R16G16_SFLOAT, np.float16, 2, True, "rg16f", "f16")
    R32F = _info("r32f", _VK_R32_SFLOAT, np.float32, 1, True, "r32f", "f32")
    RG32F = _info("rg32f", _VK_R32G32_SFLOAT, np.float32, 2, True, "rg32f", "f32")
    #: 16-bit UNORM: LSB 1/65535, stored correctly rounded as the 8-bit formats are
    RGBA16 = _info("rgba16", _VK_R16G16B16A16_UNORM, np.uint16, 4, False, "rgba16", "rgba16")
    R16 = _info("r16", _VK_R16_UNORM, np.uint16, 1, False, "r16", "rgba16")
    #: a depth buffer as level 0 (D32_SFLOAT), levels 1.. in R32F: r32f's arithmetic and bytes
    D32 = _info("d32", _VK_R32_SFLOAT, np.float32, 1, True, "r32f", "f32",
                source=_VK_D32_SFLOAT)
    #: a D16_UNORM depth buffer as level 0, levels 1.. in R16: r16's arithmetic and bytes
    D16 = _info("d16", _VK_R16_UNORM, np.uint16, 1, False, "r16", "rgba16",
                source=_VK_D16_UNORM)
    #: a D32_SFLOAT depth buffer as level 0, levels 1.. in RG32F: the min+max Hi-Z pyramid
    #: (reduction=minmax) engines build from their depth buffer. Level 0's depth view reads
    #: (d, d, 0, 1) (a G=R swizzle), so the min lands in R and the max in G as from rg32f
    D32_RG32F = _info("d32-rg32f", _VK_R32G32_SFLOAT, np.float32, 2, True, "rg32f", "f32",
                      source=_VK_D32_SFLOAT)
    #: packed 32-bit texels (mipview.core.packed): 10-bit UNORM colour and 2-bit alpha, held as
    #: uint16 codes (LSB 1/1023, alpha 1/3); 11/11/10-bit unsigned floats, held as float32 RGB
    #: on their grid and alpha 1 (the image has none: a shader reads 1)
    RGB10A2 = _info("rgb10a2", _VK_A2B10G10R10_UNORM_PACK32, np.uint16, 4, False, "rgb10_a2",
                    "rgb10a2", packing="unorm10")
    B10G11R11 = _info("b10g11r11", _VK_B10G11R11_UFLOAT_PACK32, np.float32, 4, True,
                      "r11f_g11f_b10f", "b10g11r11", packing="float11")

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
    def channels(self) -> int:
        return self.value.channels

    @property
    def depth_source(self) -> bool:
        """Level 0 is a depth image, read through a sampled depth view (``d32``, ``d16``)."""
        return self.value.vk_source_format != 0

    @property
    def chain(self) -> Format:
        """The format levels 1.. are held in: ``r32f`` for ``d32``, ``r16`` for ``d16``, the
        format itself otherwise (what files of the whole chain are written as)."""
        if not self.depth_source:
            return self
        return next(f for f in Format if f.info.vk_format == self.info.vk_format
                    and not f.depth_source)

    @property
    def element(self) -> Format:
        """The four-channel format of this one's element type: what decides rounding, LSB,
        tolerances and promises (``r32f`` -> ``f32``)."""
        return Format.parse(self.value.element)

    @property
    def error_unit(self) -> str:
        return "relative" if self.is_float else "LSB"

    @property
    def one(self) -> float:
        """The storage value of 1.0 (255 for 8-bit formats, 65535 for 16-bit UNORM, 1023 for
        rgb10a2's colour, 1.0 for floats): storage units per decoded unit, the LSB's inverse,
        and what alpha reads as where the image has no alpha channel."""
        return max(self.value.scale)

    @property
    def scale(self) -> float | np.ndarray:
        """The storage value of 1.0 per channel: :attr:`one`, or where the channels differ
        (rgb10a2: 1023 for colour, 3 for alpha) a (4,) array that broadcasts over texels."""
        s = self.value.scale
        return s[0] if len(set(s)) == 1 else np.array(s)

    @property
    def packing(self) -> str:
        """"unorm10" (rgb10a2), "float11" (b10g11r11): a packed 32-bit format; "" otherwise."""
        return self.value.packing

    @property
    def texel_dtype(self) -> np.dtype:
        """What the image's memory and files hold per component: a little-endian uint32 word per
        texel for a packed format, the storage type otherwise."""
        return np.dtype("<u4") if self.packing else self.dtype

    @property
    def texel_components(self) -> int:
        """Components per texel in the image's memory and files: 1 word for a packed format."""
        return 1 if self.packing else self.channels

    def pack_source(self, values: np.ndarray) -> np.ndarray:
        """Host texels (..., 4) of level 0 -> what its own image holds: :meth:`pack`, but a
        depth source's one depth component (its image has no other)."""
        a = self.pack(values)
        return np.ascontiguousarray(a[..., :1]) if self.depth_source else a

    def unpack_source(self, values: np.ndarray) -> np.ndarray:
        """Inverse of :meth:`pack_source`: a depth image's depth (..., 1) as every channel the
        levels have, as level 0's depth view reads it (:attr:`FormatInfo.vk_source_format`)."""
        a = np.asarray(values)
        if self.depth_source and self.channels > 1:
            a = np.repeat(a, self.channels, axis=-1)
        return self.unpack(a)

    def pack(self, values: np.ndarray) -> np.ndarray:
        """Host texels (..., 4) -> the image's own channels (..., channels), contiguous; a
        packed format's words (..., 1)."""
        if self.packing == "unorm10":
            return packed.pack_unorm10(values)
        if self.packing == "float11":
            return packed.pack_float11(values)
        a = np.asarray(values, dtype=self.dtype)
        return np.ascontiguousarray(a[..., :self.channels])

    def unpack(self, values: np.ndarray) -> np.ndarray:
        """The image's channels (..., channels) -> host texels (..., 4), the missing ones as a
        shader reads them (0, 0, 1); the array itself when the format has four; a packed
        format's words (..., 1) unpacked."""
        a = np.asarray(values)
        if self.packing == "unorm10":
            return packed.unpack_unorm10(a)
        if self.packing == "float11":
            return packed.unpack_float11(a)
        if self.channels == 4:
            return a
        out = np.zeros((*a.shape[:-1], 4), self.dtype)
        out[..., :self.channels] = a
        out[..., 3] = self.one
        return out

    def held(self, values: np.ndarray) -> np.ndarray:
        """Host texels (..., 4) as an image of this format holds them: its own channels, the
        others as a shader reads them; ``values`` itself for a four-channel format."""
        return values if self.channels == 4 else self.unpack(self.pack(values))

    @classmethod
    def holding(cls, channels: int, dtype: np.dtype) -> Format | None:
        """The linear format of ``channels`` channels of ``dtype`` (a file's or an array's own
        layout), or None when the table has none."""
        return next((f for f in cls if f.channels == channels and f.dtype == dtype
                     and not f.is_srgb and not f.depth_source and not f.packing), None)

    @classmethod
    def parse(cls, text: str) -> Format:
        for f in cls:
            if f.label == text.lower():
                return f
        names = ", ".join(f.label for f in cls)
        raise ValueError(f"unknown format {text!r}; choose one of {names}")


#: Rec. 709 luminance weights of R, G, B (the window's luminance channel, the mean's log-average
#: luminance, SSIM's luminance)
REC709_LUMA = np.array([0.2126, 0.7152, 0.0722])


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

    For UNORM formats the product ``p * one`` (255, 65535) is rounded in float32; a float32
    times ``one`` is exact in float64, and the float32 product is off by at most half an ulp,
    2^-24 * 2^bits / 2 (< 1e-5 for 8 bits, < 0.002 for 16) where it matters (p <= 1), so only
    values that close to a half-way point can round differently: those few are redone in
    float64. Float formats convert float32 -> float16/32 directly (float32 -> float64 is exact,
    so the one rounding is the same). Four times faster on a 4096^2 image and a quarter of the
    memory, which is what opening a big image waits on.
    """
    if fmt.is_float:
        with np.errstate(over="ignore"):  # beyond float16's range: inf, as numpy says
            return np.ascontiguousarray(p.astype(fmt.dtype))
    one = np.float32(fmt.one)
    near_tie = np.float32((fmt.one + 1) * 2.0**-24)  # above the half ulp of p * one, p <= 1
    flat = p.reshape(-1)
    out = np.empty(flat.shape, fmt.dtype)
    x = np.empty(min(flat.size, _CHUNK), np.float32)
    t = np.empty_like(x)
    # chunks that stay in cache: several passes over a 256 MB array would not
    for start in range(0, flat.size, _CHUNK):
        src = flat[start:start + _CHUNK]
        xs, ts = x[:src.size], t[:src.size]
        np.multiply(src, one, out=xs)
        np.floor(xs, out=ts)
        np.subtract(xs, ts, out=ts)
        np.subtract(ts, np.float32(0.5), out=ts)
        np.abs(ts, out=ts)
        near = np.flatnonzero(ts < near_tie)
        np.rint(xs, out=xs)
        np.clip(xs, 0, one, out=xs)
        dst = out[start:start + src.size]
        dst[:] = xs
        if near.size:
            dst[near] = np.clip(np.rint(src[near].astype(np.float64) * fmt.one), 0, fmt.one)
    return out.reshape(p.shape)


def to_storage(pixels: np.ndarray, fmt: Format) -> np.ndarray:
    """Convert float RGBA pixels (colour in [0, 1] as displayed, i.e. sRGB-encoded for 8-bit
    sources) to the storage values of ``fmt`` (HxWx4, C-contiguous). Exactly the float64
    rounding below for every input; finite float32 input (what imageio.load gives) takes an
    equal but faster path."""
    if fmt.channels != 4:  # the image keeps its own channels; the rest read as 0, 0, 1
        return fmt.held(to_storage(pixels, fmt.element))
    if fmt.packing == "float11":  # to the 11/11/10-bit grid, alpha 1 (mipview.core.packed)
        return np.ascontiguousarray(packed.round_float11(pixels).astype(fmt.dtype))
    p = np.asarray(pixels)
    if p.dtype == np.float32 and not fmt.packing and np.isfinite(p).all():
        return _float32_to_storage(p, fmt)
    p = np.asarray(pixels, dtype=np.float64)
    if fmt.is_float:
        with np.errstate(over="ignore"):  # beyond float16's range: inf, as numpy says
            return np.ascontiguousarray(p.astype(fmt.dtype))
    q = np.clip(np.rint(p * fmt.scale), 0, fmt.scale)  # +-Inf clip to the top code / 0
    q[np.isnan(q)] = 0  # what a float -> UNORM conversion gives NaN (Vulkan spec)
    return np.ascontiguousarray(q.astype(fmt.dtype))


def decode(values: np.ndarray, fmt: Format) -> np.ndarray:
    """Storage values -> float64 values in which averaging is correct (linear light for sRGB).
    Texel arrays go in bands of rows on the analysis threads, 8-bit ones through a 256-entry table: the
    sRGB power curve on every texel of a 4096^2 level costs seconds, a lookup a fraction of
    that, and both give the same bytes."""
    a = np.asarray(values)
    if fmt.is_float or a.ndim < 3 or a.dtype != np.uint8:
        return _decode_plain(a, fmt)
    return _banded(lambda src, out: _decode_rows(src, fmt, out), a)


def encode(values: np.ndarray, fmt: Format) -> np.ndarray:
    """Inverse of :func:`decode`, without quantisation: float64 storage units (0..255 for 8-bit,
    0..65535 for 16-bit UNORM)."""
    v = np.asarray(values, dtype=np.float64)
    if fmt.is_float:
        return v
    if v.ndim < 3:
        return _encode_plain(v, fmt)

    def rows(src: np.ndarray, out: np.ndarray) -> None:
        if fmt.is_srgb:
            out[...] = _encode_plain(src, fmt)
        else:  # _encode_plain's v * scale, in place
            np.multiply(src, fmt.scale, out=out)
    return _banded(rows, v)


def _decode_plain(values: np.ndarray, fmt: Format) -> np.ndarray:
    if fmt.is_float:
        return np.asarray(values, dtype=np.float64)
    v = np.asarray(values, dtype=np.float64) / fmt.scale
    if fmt.is_srgb:
        v[..., :3] = srgb_to_linear(v[..., :3])
    return v


def _encode_plain(values: np.ndarray, fmt: Format) -> np.ndarray:
    v = np.asarray(values, dtype=np.float64)
    if fmt.is_srgb:
        v = v.copy()
        v[..., :3] = linear_to_srgb(v[..., :3])
    return v * fmt.scale


def _banded(fn: Callable[[np.ndarray, np.ndarray], None], values: np.ndarray) -> np.ndarray:
    """A new float64 array of ``values``' shape that the elementwise ``fn(src, out)`` fills, in
    bands of rows on the analysis threads (:func:`mipview.core.bands.by_rows`)."""
    a = np.ascontiguousarray(values)
    out = np.empty(a.shape, np.float64)

    def quiet(src: np.ndarray, dst: np.ndarray) -> None:
        # errstate is per thread: non-finite input propagates by IEEE rules, without warnings
        with np.errstate(invalid="ignore", over="ignore"):
            fn(src, dst)
    bands.by_rows(quiet, a, out)
    return out


def _decode_rows(src: np.ndarray, fmt: Format, out: np.ndarray) -> None:
    """Table decode of 8-bit ``src`` into ``out``: every channel is looked up in channel 0's
    table at once (one pass, in blocks so the index copies numpy makes stay small), then a
    channel with another table (sRGB alpha) is redone. UNORM is ``v / 255.0`` texel by texel
    (the table's very values), four times faster than a gather.

    The lookups index the table (``lut[src]``), not ``np.take``: the same values, and ``np.take``
    with 8-bit indices held the interpreter lock through each block (the band threads decoding a
    4096^2 level held it 16-26 ms at a time on 2 cores; docs/bench/window-stalls)."""
    if not fmt.is_srgb:
        np.divide(src, fmt.scale, out=out)
        return
    lut = _decode_table(fmt)
    for start in range(0, src.shape[-3], _DECODE_BLOCK_ROWS):
        checkpoint()  # level 0 of 4096^2 is many blocks: a stop need not wait for all
        block = slice(start, start + _DECODE_BLOCK_ROWS)
        out[..., block, :, :] = lut[0][src[..., block, :, :]]
    for c in range(1, 4):
        if not np.array_equal(lut[c], lut[0]):
            out[..., c] = lut[c][src[..., c]]


_DECODE_BLOCK_ROWS = 64
_DECODE_TABLES: dict[Format, np.ndarray] = {}


def _decode_table(fmt: Format) -> np.ndarray:
    """(4, 256): :func:`decode` of every 8-bit value, per channel."""
    table = _DECODE_TABLES.get(fmt)
    if table is None:
        values = np.repeat(np.arange(256, dtype=np.float64)[:, None], 4, axis=1)
        table = np.ascontiguousarray(_decode_plain(values, fmt).T)
        table.setflags(write=False)
        _DECODE_TABLES[fmt] = table
    return table


def round_to_grid(storage: np.ndarray, fmt: Format) -> np.ndarray:
    """float64 storage units rounded the way the image stores them (to nearest, ties to even;
    UNORM clamped to its codes, b10g11r11 to its 11/11/10-bit grid); float64."""
    if fmt.packing == "float11":
        return packed.round_float11(storage)
    if fmt.is_float:
        return np.asarray(storage).astype(fmt.dtype).astype(np.float64)
    return np.clip(np.rint(storage), 0.0, fmt.scale)


def grid_step(values: np.ndarray, fmt: Format, direction: int) -> np.ndarray:
    """Float storage values on ``fmt``'s grid -> each one's neighbour on it toward +Inf
    (``direction`` 1) or -Inf (-1), in ``fmt``'s dtype (b10g11r11: its own grid, stopping at 0)."""
    if fmt.packing == "float11":
        return packed.step_float11(values, direction).astype(fmt.dtype)
    return np.nextafter(np.asarray(values, fmt.dtype), fmt.dtype.type(direction * np.inf))


def mip_count(width: int, height: int) -> int:
    """floor(log2(max(w, h))) + 1."""
    return max(width, height).bit_length()


def level_size(width: int, height: int, level: int) -> tuple[int, int]:
    return max(1, width >> level), max(1, height >> level)


def texels(values: np.ndarray) -> np.ndarray:
    """``values`` as an array of texels, (H, W, 4) or (layers, H, W, 4); ValueError otherwise."""
    a = np.asarray(values)
    if a.ndim not in (3, 4) or a.shape[-1] != 4:
        raise ValueError(f"expected (H, W, 4) or (L, H, W, 4) texels, got shape {a.shape}")
    return a
