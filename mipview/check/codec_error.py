"""What block compression adds to a level's error: three figures per level against the exact
reference, each from :func:`mipview.check.compare.texel_errors` (8-bit: LSB of the stored codes,
sRGB codes for an sRGB image; floats: relative):

- **filter**: the level as the strategy stored it against the reference (what mipview judged
  before compression);
- **codec**: the decoded level against the level that was encoded (the codec's own loss);
- **total**: the decoded level against the reference (what a player sees).

Per channel, total <= filter + codec (the triangle inequality), so a total well under the sum
means the codec happened to undo some of the filter's error. Only the channels the codec holds
are judged (a BC5 level's red and green); a normal map's decoded x and y get their z back
(``z = sqrt(1 - x^2 - y^2)``, x and y renormalised when longer than 1) before its three
channels are judged, as a shader reconstructs it.

Beside them, where the ``perceptual`` extra is installed, each pair's FLIP and SSIM
(:mod:`mipview.check.perceptual`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mipview.check import compare
from mipview.check.compare import LevelError
from mipview.check.filter_reference import coverage
from mipview.check.perceptual import FilterPairs, LevelPerception, level_perception
from mipview.core.formats import Format


@dataclass(frozen=True)
class CodecLevelError:
    """One level's three figures; ``worst_block`` (layer, block row, block column) holds the
    worst texel of ``total``, ``worst_codec_block`` that of ``codec``. ``coverage``: the alpha
    test's pass fraction of the decoded level (``alpha=coverage`` chains), else None;
    ``perceptual``: the three pairs' FLIP and SSIM, None without the ``perceptual`` extra."""

    filter: LevelError
    codec: LevelError
    total: LevelError
    worst_block: tuple[int, int, int]
    worst_codec_block: tuple[int, int, int]
    coverage: float | None = None
    perceptual: LevelPerception | None = None

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "level": self.total.level, "width": self.total.width, "height": self.total.height,
            "filter": self.filter.as_dict(), "codec": self.codec.as_dict(),
            "total": self.total.as_dict(),
            "worst_block": list(self.worst_block),
            "worst_codec_block": list(self.worst_codec_block)}
        if self.coverage is not None:
            out["coverage"] = self.coverage
        if self.perceptual is not None:
            out["perceptual"] = self.perceptual.as_dict()
        return out


def normal_from_xy(decoded: np.ndarray) -> np.ndarray:
    """Decoded 8-bit codes of a two-channel normal map (x, y in red and green) with blue
    rebuilt as the encoded z of the unit vector, float64 (..., 4)."""
    out = np.array(decoded, dtype=np.float64)
    x = out[..., 0] / 127.5 - 1.0
    y = out[..., 1] / 127.5 - 1.0
    length2 = x * x + y * y
    too_long = length2 > 1.0
    scale = np.where(too_long, 1.0 / np.sqrt(np.maximum(length2, 1e-300)), 1.0)
    x, y = x * scale, y * scale
    z = np.sqrt(np.maximum(0.0, 1.0 - x * x - y * y))
    out[..., 0] = (x + 1.0) * 127.5
    out[..., 1] = (y + 1.0) * 127.5
    out[..., 2] = (z + 1.0) * 127.5
    return out


def texel_maps(stored: np.ndarray, decoded: np.ndarray, reference: np.ndarray, fmt: Format,
               judged: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The filter, codec and total error of every texel and judged channel, float64
    (..., ``judged``)."""
    s = np.asarray(stored)[..., :judged]
    d = np.asarray(decoded)[..., :judged]
    r = np.asarray(reference)[..., :judged]
    return (compare.texel_errors(s, r, fmt), compare.texel_errors(d, s, fmt),
            compare.texel_errors(d, r, fmt))


def _block(worst: tuple[int, int, int, int], block: tuple[int, int]) -> tuple[int, int, int]:
    layer, y, x, _ = worst
    return layer, y // block[1], x // block[0]


def level_figures(level: int, stored: np.ndarray, decoded: np.ndarray, reference: np.ndarray,
                  fmt: Format, judged: int, block: tuple[int, int],
                  cutoff: float | None = None, perceived: bool = True,
                  filters: FilterPairs | None = None) -> CodecLevelError:
    """The three figures of one level (storage values ``stored``, their ``decoded`` blocks,
    the exact ``reference``), ``judged`` channels from red on, ``block`` the codec's (width,
    height); ``cutoff``: the alpha test of an ``alpha=coverage`` chain. ``perceived``: FLIP and
    SSIM too (where installed), the filter pair from ``filters`` when given (one per encode,
    so that each codec of a result reuses it)."""
    s = np.asarray(stored)[..., :judged]
    d = np.asarray(decoded)[..., :judged]
    r = np.asarray(reference)[..., :judged]
    filt = compare.level_error(s, r, fmt, level)
    codec = compare.level_error(d, s, fmt, level)
    total = compare.level_error(d, r, fmt, level)
    cover = None if cutoff is None else coverage(decoded, fmt, cutoff)
    return CodecLevelError(filt, codec, total, _block(total.worst, block),
                           _block(codec.worst, block), cover,
                           level_perception(s, d, r, fmt, judged, filters,
                                            (stored, reference))
                           if perceived else None)
