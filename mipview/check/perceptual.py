"""Perceptual figures of one level beside its LSB figures (docs/compression.md, "Perceptual
figures"): NVIDIA's FLIP (``flip-evaluator``) and SSIM (scikit-image), each level judged at its
own size, every array layer apart and the layers' figures averaged.

- **FLIP** sees display values in [0, 1]: an sRGB format's codes / 255 as they are (they are
  already display-encoded), a UNORM format's values / its 1.0 as the window shows them by default
  (Transfer "as stored"); float formats go through HDR-FLIP on their linear values (negative and
  NaN as 0). FLIP's default viewing condition: 67 pixels per degree.
- **SSIM** sees the Rec. 709 weighted sum of the same display values (a float level's clipped to
  [0, 1]), ``data_range`` 1, a 7x7 window, or the largest odd window a smaller level holds; a
  level under 3 texels on a side has no SSIM ("too small").

One channel is shown grey and two as red and green over blue 0, as the window shows them; alpha
takes no part. Both packages are the ``perceptual`` extra: without them :func:`missing` says so
and the figures are left out. They cost far more than any encoder (a 4096x4096 pair takes
seconds), so every entry point can leave them out, and the filter pair, the same for every
codec, is made once per encode (:class:`FilterPairs`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mipview.core.cancel import checkpoint
from mipview.core.formats import REC709_LUMA, Format

SSIM_WINDOW = 7
#: the smallest odd window SSIM is given; a level narrower than this has no SSIM
SMALLEST_WINDOW = 3
#: what HDR-FLIP gets for +inf: half float's largest value, far past any exposure it tries
_HDR_CEILING = 65504.0


@dataclass(frozen=True)
class Perceptual:
    """One pair of levels: ``flip`` the mean FLIP error (0 identical, 1 the most different);
    ``ssim`` the mean SSIM (1 identical), None when the level is too small for a window;
    ``ssim_window`` the window's side (0 when too small)."""

    flip: float
    ssim: float | None
    ssim_window: int

    def as_dict(self) -> dict[str, object]:
        return {"flip": self.flip, "ssim": "too small" if self.ssim is None else self.ssim,
                "ssim_window": self.ssim_window}


@dataclass(frozen=True)
class LevelPerception:
    """A compressed level's filter, codec and total pairs, as in
    :class:`mipview.check.codec_error.CodecLevelError`."""

    filter: Perceptual
    codec: Perceptual
    total: Perceptual

    def as_dict(self) -> dict[str, object]:
        return {"filter": self.filter.as_dict(), "codec": self.codec.as_dict(),
                "total": self.total.as_dict()}


def missing() -> str | None:
    """Why the figures cannot be made (a package not installed), or None. Imported on each call,
    so that the packages stay optional and a test can hide them."""
    try:
        import flip_evaluator  # noqa: F401
        from skimage.metrics import structural_similarity  # noqa: F401
    except ImportError as e:
        return (f"perceptual figures (FLIP, SSIM) left out: {e.name or 'a package'} is not "
                "installed (pip install mipview[perceptual])")
    return None


def _layers(level: np.ndarray) -> np.ndarray:
    a = np.asarray(level, dtype=np.float64)
    return a[None] if a.ndim == 3 else a


def display_values(level: np.ndarray, fmt: Format, judged: int) -> np.ndarray:
    """What FLIP is given for ``level`` (storage values, (H, W, C) or (L, H, W, C)): its first
    ``judged`` channels as RGB, float32 (L, H, W, 3); in [0, 1] for 8- and 16-bit formats
    (sRGB codes stay codes), linear and non-negative for floats."""
    a = _layers(level)[..., :judged]
    scale = np.asarray(fmt.scale, dtype=np.float64)
    v = a / (scale[:judged] if scale.ndim else scale)
    if fmt.is_float:
        v = np.nan_to_num(v, nan=0.0, posinf=_HDR_CEILING, neginf=0.0)
        v = np.clip(v, 0.0, _HDR_CEILING)
    else:
        v = np.clip(np.nan_to_num(v), 0.0, 1.0)
    if judged == 1:
        v = np.repeat(v, 3, axis=-1)
    elif judged == 2:
        v = np.concatenate([v, np.zeros_like(v[..., :1])], axis=-1)
    return np.ascontiguousarray(v[..., :3], dtype=np.float32)


def ssim_window(height: int, width: int) -> int:
    """The SSIM window a level of this size gets: 7, else the largest odd side it holds, 0 when
    under :data:`SMALLEST_WINDOW`."""
    side = min(SSIM_WINDOW, height, width)
    side -= 1 - side % 2
    return side if side >= SMALLEST_WINDOW else 0


def compare(test: np.ndarray, reference: np.ndarray, fmt: Format, judged: int) -> Perceptual:
    """FLIP and SSIM of ``test`` against ``reference`` (storage values of one level, same
    shape). The packages must be installed (:func:`missing`)."""
    import flip_evaluator
    from skimage.metrics import structural_similarity

    t = display_values(test, fmt, judged)
    r = display_values(reference, fmt, judged)
    mode = "HDR" if fmt.is_float else "LDR"
    flips = [float(flip_evaluator.evaluate(rl, tl, mode, inputsRGB=True, applyMagma=False)[1])
             for rl, tl in zip(r, t, strict=True)]
    window = ssim_window(*t.shape[1:3])
    ssim = None
    if window:
        lt = np.clip(t, 0.0, 1.0) @ REC709_LUMA.astype(np.float32)
        lr = np.clip(r, 0.0, 1.0) @ REC709_LUMA.astype(np.float32)
        ssim = float(np.mean([structural_similarity(rl.astype(np.float64), tl.astype(np.float64),
                                                    win_size=window, data_range=1.0)
                              for rl, tl in zip(lr, lt, strict=True)]))
    return Perceptual(float(np.mean(flips)), ssim, window)


class FilterPairs:
    """The filter pairs of one encode, each made once: a result's stored level against its
    exact reference is the same pair whatever codec follows, and at 4096x4096 it costs seconds.
    Keyed by the identity of the level as the result holds it and of its reference (both kept
    here, so that the key stays theirs: results may share level 0 but not its reference) and
    the channels judged; made by the caller for one encode and dropped with it."""

    def __init__(self) -> None:
        self._made: dict[tuple[int, int, int], tuple[object, object, Perceptual]] = {}

    def get(self, identity: tuple[object, object], stored: np.ndarray, reference: np.ndarray,
            fmt: Format, judged: int) -> Perceptual:
        """The filter pair of ``stored`` against ``reference`` (their judged values), made on
        first ask; ``identity``: the level and its reference as the result and the reference
        cache hold them (the judged values are fresh views on each call)."""
        level, ref = identity
        key = (id(level), id(ref), min(judged, 3))  # alpha takes no part: RGBA is RGB
        hit = self._made.get(key)
        if hit is not None and hit[0] is level and hit[1] is ref:
            return hit[2]
        made = compare(stored, reference, fmt, judged)
        self._made[key] = (level, ref, made)
        return made


def level_perception(stored: np.ndarray, decoded: np.ndarray, reference: np.ndarray,
                     fmt: Format, judged: int, filters: FilterPairs | None = None,
                     identity: tuple[object, object] | None = None) -> LevelPerception | None:
    """The filter (stored against reference), codec (decoded against stored) and total (decoded
    against reference) pairs of one level; None when a package is missing. With ``filters``,
    the filter pair is taken from it, made there once for ``identity`` (the level and its
    reference as their owners hold them; ``stored`` and ``reference`` when not given)."""
    if missing():
        return None
    pairs = []
    for test, against in ((stored, reference), (decoded, stored), (decoded, reference)):
        checkpoint()  # a 4096x4096 pair takes seconds: a stopped job ends between pairs
        if filters is not None and not pairs:
            pairs.append(filters.get(identity or (stored, reference), test, against, fmt,
                                     judged))
        else:
            pairs.append(compare(test, against, fmt, judged))
    return LevelPerception(*pairs)
