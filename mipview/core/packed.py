"""The texels of the packed 32-bit formats, on the host and in their words.

Both keep one texel in one little-endian 32-bit word, R in the lowest bits:

- ``rgb10a2`` (A2B10G10R10_UNORM_PACK32, DXGI R10G10B10A2_UNORM): R, G, B in 10 bits, A in 2.
  On the host a texel is its four codes as uint16 (R, G, B 0..1023, A 0..3): storage units are
  codes, so an error is in LSB of its own channel (1/1023 for colour, 1/3 for alpha), as an
  8-bit texel's is in 1/255.
- ``b10g11r11`` (B10G11R11_UFLOAT_PACK32, DXGI R11G11B10_FLOAT): R and G 11-bit floats (6-bit
  mantissa), B a 10-bit float (5-bit mantissa), all with a 5-bit exponent of bias 15 and no
  sign bit (IEEE-like: denormals below 2^-14, the top exponent for Inf and NaN; the largest
  finite values 65024 and 64512). On the host a texel is float32 R, G, B on that grid and A 1.0
  (the image has no alpha, and a shader reads 1): errors are relative, like every float's.

So the reference, the verdict, the views and the files hold these formats as they hold the
others (four channels, storage units); only the upload, the read-back and the files meet the
words (:func:`pack_unorm10`, :func:`pack_float11` and their inverses).
"""

from __future__ import annotations

import functools

import numpy as np

#: rgb10a2: the code of 1.0 per channel (R, G, B, A) and the bits of each in the word
UNORM10_SCALE = (1023.0, 1023.0, 1023.0, 3.0)
UNORM10_BITS = (10, 10, 10, 2)
#: b10g11r11: mantissa bits of R, G, B (5-bit exponents, bias 15, no sign) and bits in the word
FLOAT11_MANTISSA = (6, 6, 5)
FLOAT11_BITS = (11, 11, 10)
_EXPONENTS = 31  # finite exponents 0 (denormals) .. 30; 31 is Inf / NaN


@functools.cache
def float11_values(mantissa: int) -> np.ndarray:
    """Every finite non-negative value of an unsigned float with a 5-bit exponent (bias 15) and
    ``mantissa`` bits, ascending: entry i is the value of code i (exponent << mantissa | m),
    float64. Consecutive codes alternate their mantissa's parity, so an even index is an even
    mantissa (what round-to-nearest-even picks on a tie)."""
    codes = np.arange(_EXPONENTS << mantissa)
    e, m = codes >> mantissa, codes & ((1 << mantissa) - 1)
    values = np.where(e == 0, m * 2.0 ** (-14 - mantissa),
                      (1.0 + m / 2.0 ** mantissa) * 2.0 ** (e - 15.0))
    values.setflags(write=False)
    return values


def _round_channel(x: np.ndarray, mantissa: int) -> np.ndarray:
    """float64 ``x`` rounded to the nearest value of the unsigned float (ties to even); negative
    values (and -Inf) store 0 as the format has no sign, past the largest finite value by half
    an ulp or more is +Inf, NaN stays NaN."""
    table = float11_values(mantissa)
    nan = np.isnan(x)
    with np.errstate(invalid="ignore"):
        v = np.where(nan, 0.0, np.maximum(x, 0.0))
    i = np.searchsorted(table, v)  # table[i - 1] < v <= table[i]
    hi = np.minimum(i, table.size - 1)
    lo = np.maximum(hi - 1, 0)
    d_hi, d_lo = np.abs(table[hi] - v), v - table[lo]
    out = np.where((d_hi < d_lo) | ((d_hi == d_lo) & (hi % 2 == 0)), table[hi], table[lo])
    # a tie at the top rounds to the even neighbour, 2^16, which the format holds as +Inf
    out[v >= table[-1] + 2.0 ** (14 - mantissa)] = np.inf
    out[nan] = np.nan
    return out


def round_float11(values: np.ndarray) -> np.ndarray:
    """Texels (..., 4) -> float64 texels as a b10g11r11 image stores them: R, G, B correctly
    rounded to their grids (:func:`_round_channel`), A 1.0 (the image has none)."""
    a = np.asarray(values, dtype=np.float64)
    out = np.empty(a.shape, np.float64)
    for c, mantissa in enumerate(FLOAT11_MANTISSA):
        out[..., c] = _round_channel(a[..., c], mantissa)
    out[..., 3] = 1.0
    return out


def step_float11(values: np.ndarray, direction: int) -> np.ndarray:
    """Texels (..., 4) on the b10g11r11 grid -> each colour channel's next value on its grid
    toward +Inf (``direction`` 1) or 0 (-1), float64; 0 stays 0 going down and +Inf up, +Inf
    going down is the largest finite value. NaN stays NaN."""
    a = np.asarray(values, dtype=np.float64)
    out = a.copy()
    for c, mantissa in enumerate(FLOAT11_MANTISSA):
        table = np.append(float11_values(mantissa), np.inf)
        x = a[..., c]
        ok = ~np.isnan(x)
        i = np.searchsorted(table, x[ok])  # the values are on the grid: table[i] == x
        out[..., c][ok] = table[np.clip(i + direction, 0, table.size - 1)]
    return out


def pack_unorm10(codes: np.ndarray) -> np.ndarray:
    """rgb10a2 texels (..., 4) of codes -> (..., 1) uint32 words (R in bits 0-9, G 10-19, B
    20-29, A 30-31)."""
    c = np.asarray(codes).astype(np.uint32)
    words = c[..., 0] | (c[..., 1] << 10) | (c[..., 2] << 20) | (c[..., 3] << 30)
    return np.ascontiguousarray(words[..., None], dtype="<u4")


def unpack_unorm10(words: np.ndarray) -> np.ndarray:
    """(..., 1) uint32 words -> rgb10a2 texels (..., 4) of uint16 codes."""
    w = np.asarray(words).astype(np.uint32)[..., 0]
    out = np.empty((*w.shape, 4), np.uint16)
    for c, shift in enumerate((0, 10, 20, 30)):
        out[..., c] = (w >> shift) & ((1 << UNORM10_BITS[c]) - 1)
    return out


def pack_float11(values: np.ndarray) -> np.ndarray:
    """b10g11r11 texels (..., 4) -> (..., 1) uint32 words (R in bits 0-10, G 11-21, B 22-31);
    Inf and NaN as the format writes them (exponent 31). Values off the grid are rounded to it
    first (:func:`round_float11`; a no-op for the grid values mipview holds)."""
    a = round_float11(values)
    words = np.zeros(a.shape[:-1], np.uint32)
    shift = 0
    for c, (mantissa, bits) in enumerate(zip(FLOAT11_MANTISSA, FLOAT11_BITS, strict=True)):
        x = a[..., c]
        table = float11_values(mantissa)
        code = np.searchsorted(table, np.where(np.isfinite(x), x, 0.0)).astype(np.uint32)
        code = np.where(np.isinf(x), np.uint32(31 << mantissa), code)
        code = np.where(np.isnan(x), np.uint32((31 << mantissa) | (1 << (mantissa - 1))), code)
        words |= code.astype(np.uint32) << shift
        shift += bits
    return np.ascontiguousarray(words[..., None], dtype="<u4")


def unpack_float11(words: np.ndarray) -> np.ndarray:
    """(..., 1) uint32 words -> b10g11r11 texels (..., 4) float32, A 1.0."""
    w = np.asarray(words).astype(np.uint32)[..., 0]
    out = np.empty((*w.shape, 4), np.float32)
    shift = 0
    for c, (mantissa, bits) in enumerate(zip(FLOAT11_MANTISSA, FLOAT11_BITS, strict=True)):
        code = (w >> shift) & ((1 << bits) - 1)
        table = float11_values(mantissa)
        special = code >= table.size
        v = table[np.minimum(code, table.size - 1)]
        m = code & ((1 << mantissa) - 1)
        v = np.where(special, np.where(m == 0, np.inf, np.nan), v)
        out[..., c] = v
        shift += bits
    out[..., 3] = 1.0
    return out
