"""Storage values -> 8-bit RGBA for the screen, and texel values -> readout text.

Storage bytes (unorm / srgb) are shown as they are: sRGB bytes are already display-encoded.
Float values are rounded to 8 bits; float64 references in 8-bit storage units (0..255) are
rounded the same way.

:class:`DisplaySettings` are the viewer's controls, with tev's semantics on the normalised value
``v`` of a channel (bytes and 8-bit storage units / 255, floats as they are): ``v`` is first
mapped from the black/white range to [0, 1] (the histogram's range; [0, 1] leaves it as is), then
``((v * 2^exposure) + offset) ^ (1 / gamma)``, then the display transfer (``none``: the value
is the display value, as mipview always showed it; ``srgb``: linear light encoded for the
screen). Nothing is clipped silently: with ``false_colour`` a texel whose shown value leaves
[0, 1] is painted :data:`OVER` or :data:`UNDER`; with ``overlay`` a texel holding a NaN, an
infinity or a negative value (in any channel) is painted its :data:`MARKS` colour, whatever the
other settings.

One- and two-channel formats (``Format.channels``) show their own channels only
(:func:`own_channel`): a one-channel level is one value per texel, a two-channel one R and G
together (blue 0) or R or G solo. One value per texel (those, or any channel solo) is painted
through ``colormap`` (:data:`COLORMAPS`, pyqtgraph's; ``grey`` as before) over the black/white
range. With ``depth`` the values are first made linear view depth (:func:`linear_depth`), so the
range is in the units of ``near`` and ``far``. :func:`texel_text` reads a one- or two-channel
texel in its format's units and channels only (``R 0.4375``), and :func:`hiz_marks` finds the
texels of a min/max level that are not the exact extreme of their footprint in the level below.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg

from mipview.check.reference import step_level
from mipview.core.array_layers import layer_of
from mipview.core.cube import FACES
from mipview.core.cube_cross import unfold
from mipview.core.formats import REC709_LUMA, Format, linear_to_srgb
from mipview.core.reductions import EXTREMES
from mipview.core.turns import give_turn


def first_layer(a: np.ndarray) -> np.ndarray:
    """(H, W, C) view of layer 0 of an (L, H, W, C) array; (H, W, C) and (H, W) unchanged."""
    return a[0] if a.ndim == 4 else a


CHANNELS = ("rgba", "r", "g", "b", "a", "luminance")
TRANSFERS = ("none", "srgb")
#: colormaps of a one-value display: ``grey`` (the value as it is), else pyqtgraph's
COLORMAPS = ("grey", "viridis", "turbo", "magma", "inferno")
#: Hi-Z overlay colours: a texel past its footprint's extreme (for min: greater than the
#: footprint's min, so a culling test reading it is wrong), and one on the safe side but not exact
HIZ_MARKS: dict[str, tuple[int, int, int]] = {"non-conservative": (255, 0, 0),
                                             "inexact": (160, 120, 255)}
#: Rec. 709 luminance weights (of the values as they are: linear for floats)
LUMA = REC709_LUMA.astype(np.float32)
#: overlay colours, by kind, in the order a texel holding several kinds is painted (last wins)
MARKS: dict[str, tuple[int, int, int]] = {
    "negative": (0, 200, 0), "-inf": (0, 255, 255), "+inf": (255, 255, 0), "nan": (255, 0, 255)}
#: false colours of shown values above white / below black
OVER = (255, 110, 0)
UNDER = (40, 90, 255)
CHECKER = 8  # texels per checkerboard square
_CHECKER_GREYS = (0.42, 0.62)


@dataclass(frozen=True)
class DisplaySettings:
    """How values become screen colours (module docstring); crosses into the pixel pool."""

    exposure: float = 0.0
    offset: float = 0.0
    gamma: float = 1.0
    black: float = 0.0
    white: float = 1.0
    channel: str = "rgba"
    transfer: str = "none"
    false_colour: bool = False
    overlay: bool = True
    checker: bool = True
    colormap: str = "grey"
    #: show linear view depth (:func:`linear_depth`) of ``near``/``far`` instead of raw depth
    #: (the planes' defaults are ``--synthetic depth``'s)
    depth: bool = False
    near: float = 1.0
    far: float = 100.0
    reversed_z: bool = False
    #: the Hi-Z overlay: texels of a min/max level that are not their footprint's extreme
    hiz: bool = True

    def __post_init__(self) -> None:
        if self.channel not in CHANNELS:
            raise ValueError(f"channel {self.channel!r} is not one of {CHANNELS}")
        if self.transfer not in TRANSFERS:
            raise ValueError(f"transfer {self.transfer!r} is not one of {TRANSFERS}")
        if self.colormap not in COLORMAPS:
            raise ValueError(f"colormap {self.colormap!r} is not one of {COLORMAPS}")
        if not self.gamma > 0 or not self.white != self.black:
            raise ValueError("gamma must be positive and white differ from black")
        if not (self.near > 0 and self.far > 0 and self.near != self.far):
            raise ValueError("near and far must be positive and differ")

    @property
    def values_key(self) -> tuple:
        """What decides the values shown (and counted by the histogram), before the range."""
        return self.channel, self.depth, self.near, self.far, self.reversed_z

    @property
    def tone_identity(self) -> bool:
        """Whether the tone settings leave values as they are."""
        return (self.exposure, self.offset, self.gamma, self.black, self.white,
                self.transfer) == (0.0, 0.0, 1.0, 0.0, 1.0, "none")

    def tone(self, v: np.ndarray) -> np.ndarray:
        """Range, exposure and offset of normalised values (before gamma): the shown linear
        value, where outside [0, 1] means out of range."""
        t = (v - np.float32(self.black)) * np.float32(2.0 ** self.exposure
                                                     / (self.white - self.black))
        return t + np.float32(self.offset) if self.offset else t


#: the display of the first versions: no checkerboard, no overlay (``to_display``'s default)
PLAIN = DisplaySettings(overlay=False, checker=False)


def normalised(a: np.ndarray, fmt: Format | None) -> np.ndarray:
    """float32 values with 1.0 the top of the UNORM range (bytes and 8-bit storage units / 255,
    16-bit ones / 65535); float pixels as they are."""
    if fmt is not None and not fmt.is_float:  # rgb10a2: colour / 1023, alpha / 3
        return a.astype(np.float32) * (np.float32(1) / np.float32(fmt.scale))
    if a.dtype == np.uint8:
        return a.astype(np.float32) * np.float32(1 / 255)
    return a.astype(np.float32, copy=False)


def channel_count(fmt: Format | None) -> int:
    """Channels the image holds (4 for a source image, ``fmt`` None)."""
    return 4 if fmt is None else fmt.channels


def own_channel(channel: str, channels: int) -> str:
    """``channel`` as an image of ``channels`` channels shows it: one channel shows R whatever
    is chosen; two show R or G solo, else both (``rgba``: R and G, blue 0)."""
    if channels == 1:
        return "r"
    if channels == 2:
        return channel if channel in ("r", "g") else "rgba"
    return channel


def linear_depth(z: np.ndarray, near: float, far: float, reversed_z: bool = False) \
        -> np.ndarray:
    """Linear view depth of perspective depth ``z`` (z_ndc in [0, 1]):
    ``near * far / (far - z * (far - near))``, standard Z mapping 0 to near and 1 to far;
    reversed Z swaps near and far (1 is near). float32; z past the far plane gives inf."""
    n, f = (far, near) if reversed_z else (near, far)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.float32(n * f) / (np.float32(f) - np.asarray(z, np.float32)
                                    * np.float32(f - n))


def shown_values(v: np.ndarray, channels: int, s: DisplaySettings) -> np.ndarray:
    """The values ``s`` shows of normalised texels ``v``: (H, W) for one value per texel, else
    (H, W, 2) (two channels) or (H, W, 3); made linear depth with ``s.depth``."""
    channel = own_channel(s.channel, channels)
    shown = v[..., :2] if (channel == "rgba" and channels == 2) \
        else channel_values(v, channel)
    return linear_depth(shown, s.near, s.far, s.reversed_z) if s.depth else shown


def level_values(a: np.ndarray, fmt: Format | None, s: DisplaySettings) -> np.ndarray:
    """:func:`shown_values` of a level's storage values (the histogram's, the auto range's)."""
    return shown_values(normalised(a, fmt), channel_count(fmt), s)


@functools.cache
def colormap_lut(name: str) -> np.ndarray:
    """(256, 3) uint8 colours of ``name`` (:data:`COLORMAPS`) at 0, 1/255 .. 1."""
    if name == "grey":
        return np.repeat(np.arange(256, dtype=np.uint8)[:, None], 3, axis=1)
    lut = pg.colormap.get(name).getLookupTable(0.0, 1.0, 256, alpha=False)
    return np.ascontiguousarray(lut, np.uint8)


def channel_values(v: np.ndarray, channel: str) -> np.ndarray:
    """The values a channel choice shows: (H, W, 3) colour for ``rgba``, else (H, W)."""
    if channel == "rgba":
        return v[..., :3]
    if channel == "luminance":
        return v[..., :3] @ LUMA
    return v[..., "rgba".index(channel)]


def texel_marks(a: np.ndarray) -> dict[str, np.ndarray]:
    """(H, W) masks of texels holding a NaN, +Inf, -Inf or a negative value in any channel;
    empty for integer values (none can hold one) and when no texel does."""
    if not np.issubdtype(a.dtype, np.floating):
        return {}
    finite = np.isfinite(a)
    if finite.all() and not (a < 0).any():  # the usual case: two passes
        return {}
    with np.errstate(invalid="ignore"):
        masks = {"negative": ((a < 0) & finite).any(axis=-1), "-inf": (a == -np.inf).any(axis=-1),
                 "+inf": (a == np.inf).any(axis=-1), "nan": np.isnan(a).any(axis=-1)}
    return {k: m for k, m in masks.items() if m.any()}


def checkerboard(h: int, w: int, top: int = 0) -> np.ndarray:
    """(H, W) greys of RenderDoc's alpha background, squares of :data:`CHECKER` texels: rows
    ``top`` .. ``top + h`` of it."""
    y, x = np.ogrid[top:top + h, 0:w]
    odd = ((y // CHECKER) + (x // CHECKER)) % 2
    return np.where(odd == 1, np.float32(_CHECKER_GREYS[1]), np.float32(_CHECKER_GREYS[0]))


#: texels :func:`to_display` transforms at a time, giving the UI thread its turn between them
#: (mipview/core/turns.py). Its temporaries then stay in the caches: a 4096^2 level with
#: exposure took 2.4-2.5 s in bands against 3.4-4.7 s in one piece on a 2-core machine
BAND_TEXELS = 1 << 18


def _to_u8(v: np.ndarray) -> np.ndarray:
    return np.rint(v * np.float32(255)).astype(np.uint8)


def _fast_path(a: np.ndarray, fmt: Format | None, s: DisplaySettings) -> bool:
    """Bytes shown as they are: nothing to transform, and no alpha for a checkerboard."""
    return (a.dtype == np.uint8 and channel_count(fmt) == 4 and s.tone_identity
            and s.channel == "rgba" and not s.depth
            and (not s.checker or bool(a[..., 3].min() == 255)))


def to_display(a: np.ndarray, fmt: Format | None, layer: int = 0,
               settings: DisplaySettings | None = None) -> np.ndarray:
    """uint8 (H, W, 4) of ``layer``. ``fmt`` None means float pixels in [0, 1] (a source image);
    8-bit formats accept uint8 storage (returned as is when ``settings`` change nothing) or
    float storage units (0..255). ``settings`` None: :data:`PLAIN`."""
    s = PLAIN if settings is None else settings
    a = layer_of(np.asarray(a), layer)
    if _fast_path(a, fmt, s):
        return a
    h, w = a.shape[:2]
    rows = max(1, BAND_TEXELS // max(w, 1))
    if h <= rows:
        return _display_rows(a, fmt, s)
    out = np.empty((h, w, 4), np.uint8)
    for top in range(0, h, rows):
        give_turn()
        out[top:top + rows] = _display_rows(a[top:top + rows], fmt, s, top)
    return out


def _display_rows(a: np.ndarray, fmt: Format | None, s: DisplaySettings,
                  top: int = 0) -> np.ndarray:
    """:func:`to_display` of rows ``top`` .. of a level (``a``: those rows)."""
    v = normalised(a, fmt)
    channels = channel_count(fmt)
    shown = shown_values(v, channels, s)
    t = s.tone(shown)
    with np.errstate(invalid="ignore"):
        over, under = t > 1, t < 0
        d = np.clip(np.nan_to_num(t, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    if s.gamma != 1.0:
        d = d ** np.float32(1.0 / s.gamma)
    if s.transfer == "srgb":
        d = linear_to_srgb(d).astype(np.float32)
    h, w = v.shape[:2]
    out = np.empty((h, w, 4), np.uint8)
    if d.ndim == 2:  # one value per texel: through the colormap (grey: as it is)
        over, under = over[..., None], under[..., None]
        out[..., 3] = 255
        out[..., :3] = colormap_lut(s.colormap)[_to_u8(d)] if s.colormap != "grey" \
            else _to_u8(d)[..., None]
    elif d.shape[-1] == 2:  # R and G of a two-channel image, blue 0
        out[..., 3] = 255
        out[..., :2] = _to_u8(d)
        out[..., 2] = 0
    else:
        alpha = np.clip(np.nan_to_num(v[..., 3]), 0.0, 1.0)
        if s.checker:
            back = checkerboard(h, w, top)[..., None]
            d = d * alpha[..., None] + back * (1 - alpha[..., None])
            out[..., 3] = 255
        else:
            out[..., 3] = _to_u8(alpha)
        out[..., :3] = _to_u8(d)
    if s.false_colour:
        out[over.any(axis=-1)] = (*OVER, 255)
        out[under.any(axis=-1)] = (*UNDER, 255)
    if s.overlay:
        for kind, mask in texel_marks(a).items():
            out[mask] = (*MARKS[kind], 255)
    return out


def cross_display(a: np.ndarray, fmt: Format | None, cube: int = 0,
                  settings: DisplaySettings | None = None) -> np.ndarray:
    """Cube ``cube`` of a cube map level (6 k, N, N, C) unfolded as the cross
    (``ui.cube_cross``): :func:`to_display` of each of its faces, unfolded, so exposure and tone
    mapping are those of a face shown alone; uint8 (3 N, 4 N, 4), empty cells transparent.
    Gives the UI thread its turn between faces (mipview/core/turns.py)."""
    faces = []
    for f in range(FACES):
        give_turn()
        faces.append(to_display(a, fmt, FACES * cube + f, settings))
    return unfold(np.stack(faces))


def texel_values(a: np.ndarray, x: int, y: int, fmt: Format | None, layer: int = 0) \
        -> tuple[float, float, float, float]:
    """The normalised ``(R, G, B, A)`` at (x, y) of ``layer`` (:func:`normalised`)."""
    return tuple(float(c) for c in normalised(layer_of(a, layer)[y, x], fmt))  # type: ignore


def _byte(c: float) -> int:
    """The 8-bit code nearest ``c`` (storage units); NaN as 0, as a float -> UNORM store."""
    return int(np.clip(np.rint(np.nan_to_num(c)), 0, 255))


def value_text(c: np.generic) -> str:
    """A float value as its own type writes it: the shortest text that reads back the same
    float16 or float32 (``0.4375``, ``nan``); float64 (a reference) to 9 digits."""
    return str(c) if c.dtype in (np.float16, np.float32) else f"{float(c):.9g}"


def own_texel_text(v: np.ndarray, fmt: Format) -> str:
    """A one- or two-channel texel ``v`` (host values, four channels) in its format's units,
    its own channels only: ``R 0.4375`` (floats), ``R 128 (0.5020)`` (8-bit code and
    normalised; a float64 reference in 8-bit storage units keeps its fraction)."""
    parts = []
    for name, c in zip("RG", v[:fmt.channels], strict=False):
        if fmt.is_float:
            text = value_text(c)
        elif v.dtype in (np.uint8, np.uint16):
            text = f"{int(c)} ({int(c) / fmt.one:.4f})"
        else:
            text = f"{float(c):.6g} ({float(c) / fmt.one:.4f})"
        parts.append(f"{name} {text}")
    return "  ".join(parts)


def texel_text(a: np.ndarray, x: int, y: int, fmt: Format | None, layer: int = 0) -> str:
    """``(R, G, B, A)`` at (x, y) of ``layer``, as 8-bit and as float; a one- or two-channel
    format's own channels in its units (:func:`own_texel_text`)."""
    v = layer_of(a, layer)[y, x]
    if channel_count(fmt) < 4:
        return own_texel_text(v, fmt)  # type: ignore[arg-type]
    if v.dtype == np.uint8:
        as8 = [int(c) for c in v]
        flt = [c / 255.0 for c in as8]
    elif fmt is not None and not fmt.is_float:  # 16-bit codes, or storage units (reference)
        scale = [float(s) for s in np.broadcast_to(fmt.scale, 4)]  # rgb10a2: alpha / 3
        flt = [float(c) / s for c, s in zip(v, scale, strict=True)]
        as8 = [_byte(float(c) * 255.0 / s) for c, s in zip(v, scale, strict=True)]
    else:
        flt = [float(c) for c in v]
        as8 = [_byte(c * 255.0) for c in flt]
    eight = ", ".join(f"{c:3d}" for c in as8)
    floats = ", ".join(f"{c:.4f}" for c in flt)
    return f"8-bit ({eight})  float ({floats})"


def hiz_marks(below: np.ndarray, level: np.ndarray, fmt: Format | None, reduction: str) \
        -> dict[str, np.ndarray]:
    """(H, W) masks (or (L, H, W)) of the texels of ``level`` that are not the exact extreme of
    their footprint in ``below``, the level under it *as stored* (``reference.step_level``), so
    one wrong texel marks only itself. ``non-conservative``: past the extreme (for ``min``
    greater than the footprint's min, for ``max`` less than its max; ``minmax``: R as min, G as
    max), what a culling test must never read; ``inexact``: the other wrong texels. Only the
    image's own channels count; a NaN where the exact value is NaN is exact. {} when every
    texel is exact or ``reduction`` picks no extreme."""
    if reduction not in EXTREMES:
        return {}
    n = channel_count(fmt)
    want = step_level(below, fmt or Format.F32, reduction)[..., :n]  # type: ignore[arg-type]
    got = np.asarray(level)[..., :n].astype(np.float64)
    with np.errstate(invalid="ignore"):
        wrong = (got != want) & ~(np.isnan(got) & np.isnan(want))
        if not wrong.any():
            return {}
        lower_is_safe = np.array([reduction == "min" or (reduction == "minmax" and c == 0)
                                  for c in range(n)])
        past = np.where(lower_is_safe, got > want, got < want)
    unsafe = past.any(axis=-1)
    masks = {"non-conservative": unsafe, "inexact": wrong.any(axis=-1) & ~unsafe}
    return {k: m for k, m in masks.items() if m.any()}


def hiz_overlay(below: np.ndarray, level: np.ndarray, fmt: Format | None, reduction: str,
                layer: int = 0) -> tuple[np.ndarray | None, dict[str, int]]:
    """:func:`hiz_marks` of ``layer`` as (H, W, 4) uint8, each marked texel in its
    :data:`HIZ_MARKS` colour and the rest transparent (None: none marked), and the texels
    marked per kind."""
    marks = hiz_marks(layer_of(below, layer), layer_of(level, layer), fmt, reduction)
    if not marks:
        return None, {}
    b = layer_of(level, layer)
    out = np.zeros((*b.shape[:2], 4), np.uint8)
    for kind, mask in marks.items():
        out[mask] = (*HIZ_MARKS[kind], 255)
    return out, {k: int(np.count_nonzero(m)) for k, m in marks.items()}


def cross_hiz_overlay(below: np.ndarray, level: np.ndarray, fmt: Format | None, reduction: str,
                      cube: int = 0) -> tuple[np.ndarray | None, dict[str, int]]:
    """:func:`hiz_overlay` of each face of cube ``cube``, unfolded as the cross (None: none
    marked), and the texels marked per kind over the six faces."""
    faces, counts = [], {}
    for f in range(FACES):
        marks, n = hiz_overlay(below, level, fmt, reduction, FACES * cube + f)
        faces.append(marks)
        for kind, k in n.items():
            counts[kind] = counts.get(kind, 0) + k
    if all(m is None for m in faces):
        return None, {}
    side = layer_of(level, 0).shape[:2]
    blank = np.zeros((*side, 4), np.uint8)
    return unfold(np.stack([blank if m is None else m for m in faces])), counts


def footprint_of(below: np.ndarray, x: int, y: int, layer: int = 0) -> np.ndarray:
    """The texels of ``below`` that texel (x, y) of the level above reduces: 2i and 2i+1 per
    axis, and 2i+2 on an odd side (a side of 1 stays 1); (fh, fw, 4) host values."""
    b = layer_of(below, layer)
    h, w = b.shape[:2]
    x1 = 1 if w == 1 else 2 * x + 2 + w % 2
    y1 = 1 if h == 1 else 2 * y + 2 + h % 2
    return b[2 * y:y1, 2 * x:x1]


def footprint_text(below: np.ndarray, level: np.ndarray, x: int, y: int, fmt: Format | None,
                   reduction: str, layer: int = 0) -> str:
    """The exact extreme of texel (x, y)'s footprint in ``below`` (the readout of a min/max
    result) and whether the texel holds it: ``footprint min R 0.25: non-conservative``."""
    crop = footprint_of(below, x, y, layer)
    got = layer_of(level, layer)[y, x]
    want = step_level(crop, fmt or Format.F32, reduction)[0, 0].astype(got.dtype)  # type: ignore
    kind = next(iter(hiz_marks(crop, got[None, None], fmt, reduction)), "exact")
    text = own_texel_text(want, fmt) if channel_count(fmt) < 4 \
        else "(" + ", ".join(str(c) for c in want) + ")"
    return f"footprint {reduction} {text}: {kind}"
