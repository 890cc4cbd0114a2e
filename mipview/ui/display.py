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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mipview.core.formats import Format, linear_to_srgb


def first_layer(a: np.ndarray) -> np.ndarray:
    """(H, W, C) view of layer 0 of an (L, H, W, C) array; (H, W, C) and (H, W) unchanged."""
    return a[0] if a.ndim == 4 else a


def layer_count(a: np.ndarray) -> int:
    """Array layers of an (L, H, W, C) array; 1 for (H, W, C) and (H, W)."""
    return int(a.shape[0]) if a.ndim == 4 else 1


def layer_of(a: np.ndarray, layer: int) -> np.ndarray:
    """(H, W, C) view of ``layer`` of an (L, H, W, C) array (clamped to the last layer);
    (H, W, C) and (H, W) unchanged, so single-layer arrays ignore the layer."""
    return a[min(max(0, layer), a.shape[0] - 1)] if a.ndim == 4 else a


CHANNELS = ("rgba", "r", "g", "b", "a", "luminance")
TRANSFERS = ("none", "srgb")
#: Rec. 709 luminance weights (of the values as they are: linear for floats)
LUMA = np.array([0.2126, 0.7152, 0.0722], np.float32)
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

    def __post_init__(self) -> None:
        if self.channel not in CHANNELS:
            raise ValueError(f"channel {self.channel!r} is not one of {CHANNELS}")
        if self.transfer not in TRANSFERS:
            raise ValueError(f"transfer {self.transfer!r} is not one of {TRANSFERS}")
        if not self.gamma > 0 or not self.white != self.black:
            raise ValueError("gamma must be positive and white differ from black")

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
    """float32 values with 1.0 the top of the 8-bit range (bytes and 8-bit storage units /
    255); float pixels as they are."""
    if a.dtype == np.uint8 or (fmt is not None and not fmt.is_float):
        return a.astype(np.float32) * np.float32(1 / 255)
    return a.astype(np.float32, copy=False)


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


def checkerboard(h: int, w: int) -> np.ndarray:
    """(H, W) greys of RenderDoc's alpha background, squares of :data:`CHECKER` texels."""
    y, x = np.ogrid[0:h, 0:w]
    odd = ((y // CHECKER) + (x // CHECKER)) % 2
    return np.where(odd == 1, np.float32(_CHECKER_GREYS[1]), np.float32(_CHECKER_GREYS[0]))


def _to_u8(v: np.ndarray) -> np.ndarray:
    return np.rint(v * np.float32(255)).astype(np.uint8)


def _fast_path(a: np.ndarray, s: DisplaySettings) -> bool:
    """Bytes shown as they are: nothing to transform, and no alpha for a checkerboard."""
    return (a.dtype == np.uint8 and s.tone_identity and s.channel == "rgba"
            and (not s.checker or bool(a[..., 3].min() == 255)))


def to_display(a: np.ndarray, fmt: Format | None, layer: int = 0,
               settings: DisplaySettings | None = None) -> np.ndarray:
    """uint8 (H, W, 4) of ``layer``. ``fmt`` None means float pixels in [0, 1] (a source image);
    8-bit formats accept uint8 storage (returned as is when ``settings`` change nothing) or
    float storage units (0..255). ``settings`` None: :data:`PLAIN`."""
    s = PLAIN if settings is None else settings
    a = layer_of(np.asarray(a), layer)
    if _fast_path(a, s):
        return a
    v = normalised(a, fmt)
    shown = channel_values(v, s.channel)
    t = s.tone(shown)
    with np.errstate(invalid="ignore"):
        over, under = t > 1, t < 0
        d = np.clip(np.nan_to_num(t, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    if s.gamma != 1.0:
        d = d ** np.float32(1.0 / s.gamma)
    if s.transfer == "srgb":
        d = linear_to_srgb(d).astype(np.float32)
    h, w = v.shape[:2]
    if d.ndim == 2:
        d = np.repeat(d[..., None], 3, axis=-1)
        over, under = over[..., None], under[..., None]
    out = np.empty((h, w, 4), np.uint8)
    alpha = np.clip(np.nan_to_num(v[..., 3]), 0.0, 1.0) if s.channel == "rgba" else None
    if alpha is not None and s.checker:
        back = checkerboard(h, w)[..., None]
        d = d * alpha[..., None] + back * (1 - alpha[..., None])
        out[..., 3] = 255
    else:
        out[..., 3] = 255 if alpha is None else _to_u8(alpha)
    out[..., :3] = _to_u8(d)
    if s.false_colour:
        out[over.any(axis=-1)] = (*OVER, 255)
        out[under.any(axis=-1)] = (*UNDER, 255)
    if s.overlay:
        for kind, mask in texel_marks(a).items():
            out[mask] = (*MARKS[kind], 255)
    return out


def display_layers(a: np.ndarray, fmt: Format | None) -> np.ndarray:
    """:func:`to_display` of every layer: uint8 (H, W, 4), or (L, H, W, 4) for layered input."""
    a = np.asarray(a)
    if a.ndim != 4:
        return to_display(a, fmt)
    return np.stack([to_display(a, fmt, i) for i in range(a.shape[0])])


def texel_values(a: np.ndarray, x: int, y: int, fmt: Format | None, layer: int = 0) \
        -> tuple[float, float, float, float]:
    """The normalised ``(R, G, B, A)`` at (x, y) of ``layer`` (:func:`normalised`)."""
    return tuple(float(c) for c in normalised(layer_of(a, layer)[y, x], fmt))  # type: ignore


def _byte(c: float) -> int:
    """The 8-bit code nearest ``c`` (storage units); NaN as 0, as a float -> UNORM store."""
    return int(np.clip(np.rint(np.nan_to_num(c)), 0, 255))


def texel_text(a: np.ndarray, x: int, y: int, fmt: Format | None, layer: int = 0) -> str:
    """``(R, G, B, A)`` at (x, y) of ``layer``, as 8-bit and as float."""
    v = layer_of(a, layer)[y, x]
    if v.dtype == np.uint8:
        as8 = [int(c) for c in v]
        flt = [c / 255.0 for c in as8]
    elif fmt is not None and not fmt.is_float:  # float storage units (reference)
        flt = [float(c) / 255.0 for c in v]
        as8 = [_byte(c) for c in v]
    else:
        flt = [float(c) for c in v]
        as8 = [_byte(c * 255.0) for c in flt]
    eight = ", ".join(f"{c:3d}" for c in as8)
    floats = ", ".join(f"{c:.4f}" for c in flt)
    return f"8-bit ({eight})  float ({floats})"
