"""A sampled preview: a pyramid as a renderer would see it, on a plane receding into the
distance or on a screen-aligned quad zoomed out, sampled with trilinear filtering; or a cube map
as the sky seen from its centre (:data:`SKY`), at one chosen level of detail, as a reflection
probe is read (``textureLod``).

Each pixel's texture coordinates come from a pinhole camera over a ground plane (or from the
quad's scale); the level of detail is picked from their screen-space derivatives the way the
Vulkan spec's "Scale Factor Operation, Level-of-Detail Operation and Image Level(s) Selection"
says: fine derivatives within each 2x2 pixel quad (``dFdxFine``), ``rho = max(|d(u,v)/dx|,
|d(u,v)/dy|)`` in level-0 texels, ``lambda = log2(rho)`` clamped to the levels there are,
magnification (lambda <= 0) from level 0, and otherwise a blend of levels ``floor(lambda)``
and the next by ``frac(lambda)``, each sampled bilinearly (texel centres at +0.5, repeat
addressing). Filtering happens on decoded values (linear light for sRGB), as a GPU's sampler
does, and the result is encoded back for display. Optionally each level is tinted with its own
colour, so the bands a renderer would pick, and the blends between them, show on screen. Or the
surface shows the error instead (:data:`ERROR`): each level's error map against the exact
reference (the heatmap's maximum absolute error over channels) sampled as the levels would be:
the error of a sampled colour is at most that blend of its texels' errors, so where the plane
glows is where a renderer would show that strategy's error, at the levels it would pick.

The sky is the whole sphere of directions unwrapped (longitude across, from -Z through +X and
+Z to -Z again; latitude down, +Y at the top), each pixel's direction turned into a face and
(s, t) by Vulkan's face selection (``cube.face_of``) and sampled bilinearly in that face with
clamp-to-edge addressing, as a sampler does without seamless filtering, so a face's own edge
texels meet at the seams.

A volume's levels ``(D, H, W, C)`` are shown as the slice at normalised depth ``depth``
(:attr:`PreviewSettings.depth`) on the plane or the quad: a 3D texture sampled there filters
linearly between the two slices around that depth of each level (clamped at the ends), and the
screen-space derivatives of depth are 0 on a slice, so the level of detail is the 2D one.
Trilinear filtering in 3D is that blend of slices followed by the 2D bilinear, so each level is
first turned into its blended slice (decoded, so sRGB blends in linear light) and then sampled
as a 2D level.

Core: numpy only, no Qt (the window renders it off the UI thread: mipview/ui/views/preview_view.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from mipview.core import cube
from mipview.core.formats import Format, decode, encode

PLANE = "plane"
QUAD = "quad"
SKY = "sky"
KINDS = (PLANE, QUAD, SKY)
#: what the surface shows: the levels, or their error maps on a heat ramp
TEXTURE = "texture"
ERROR = "error"
SHOWS = (TEXTURE, ERROR)

#: one colour per level (cycled), linear RGB in [0, 1]: level 0 red, 1 orange, 2 yellow, ...
LEVEL_COLOURS = np.array([
    (0.90, 0.10, 0.10), (0.95, 0.55, 0.05), (0.95, 0.90, 0.10), (0.20, 0.80, 0.20),
    (0.10, 0.75, 0.85), (0.15, 0.35, 0.95), (0.60, 0.25, 0.90), (0.95, 0.40, 0.75),
    (0.65, 0.65, 0.65), (0.45, 0.30, 0.15), (0.10, 0.45, 0.30), (0.50, 0.50, 0.10),
    (0.30, 0.10, 0.45), (0.95, 0.95, 0.95)])
#: how much of a tinted texel is its level's colour
TINT = 0.6
#: what shows where no surface is (above the plane's horizon), linear RGB
EMPTY = (0.12, 0.13, 0.15)


@dataclass(frozen=True)
class PreviewSettings:
    """What to render: ``kind`` PLANE (a ground plane seen from a camera ``pitch_deg`` down from
    the horizon, the texture repeating every ``tile`` world units with ``1 / tile`` repeats at
    the near edge... see :func:`plane_uv`) or QUAD (the texture at ``zoom`` screen pixels per
    level-0 texel, repeating); ``tint_levels`` colours each level."""

    width: int = 512
    height: int = 320
    kind: str = PLANE
    pitch_deg: float = 20.0
    #: plane: texture repeats across the screen's width at the bottom edge
    repeats: float = 1.0
    #: quad: screen pixels per level-0 texel (1/8: eight texels per pixel, level 3)
    zoom: float = 0.25
    tint_levels: bool = False
    #: which array layer of layered levels (of a cube map array: a layer of the cube shown)
    layer: int = 0
    #: sky: the level of detail sampled everywhere (lambda: 1.5 blends levels 1 and 2 evenly)
    lod: float = 0.0
    #: a volume's levels (D, H, W, C): the normalised depth of the slice shown (None: 2D levels)
    depth: float | None = None
    #: TEXTURE: the levels; ERROR: per-level error maps (render_error)
    show: str = TEXTURE


@dataclass(frozen=True)
class PreviewImage:
    """A rendered preview: 8-bit RGBA for display, and per pixel the lambda the sampler used
    (NaN where no surface is), with the share of covered pixels whose nearer level is each."""

    rgba: np.ndarray
    lod: np.ndarray
    #: per level, the fraction of the covered pixels that sampled it as their finer level
    level_share: tuple[float, ...]
    #: ERROR: the error at the top of the heat ramp (the largest of any level), else None
    peak: float | None = None


def lod_from_derivatives(dudx: np.ndarray, dvdx: np.ndarray, dudy: np.ndarray,
                         dvdy: np.ndarray) -> np.ndarray:
    """``lambda_base = log2(max(rho_x, rho_y))`` with ``rho_x = |(du/dx, dv/dx)|`` (texel
    units of level 0): a footprint of 2^k texels per pixel is lambda k. -inf at rho 0."""
    rho = np.maximum(np.hypot(dudx, dvdx), np.hypot(dudy, dvdy))
    with np.errstate(divide="ignore"):
        return np.log2(rho)


def fine_derivatives(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """d/dx and d/dy of a (H, W) per-pixel value as ``dFdxFine``/``dFdyFine``: the difference
    across the pixel's row (column) of its 2x2 quad, the same for both pixels of the pair. H and
    W must be even."""
    h, w = a.shape
    if h % 2 or w % 2:
        raise ValueError(f"a preview of {w}x{h}: pixel quads need even sizes")
    dx = np.repeat(a[:, 1::2] - a[:, 0::2], 2, axis=1)
    dy = np.repeat(a[1::2, :] - a[0::2, :], 2, axis=0)
    return dx, dy


def _bilinear(level: np.ndarray, fmt: Format | None, s: np.ndarray, t: np.ndarray,
              face: np.ndarray | None = None) -> np.ndarray:
    """Bilinear samples of one level (H, W, C storage) at normalised (s, t), repeat addressing;
    decoded values (linear for sRGB), float64 (N, C). With ``face``: a cube's level (6, N, N, C),
    each sample in its face, clamp-to-edge addressing."""
    h, w = level.shape[-3:-1]
    x = s * w - 0.5
    y = t * h - 0.5
    x0, y0 = np.floor(x), np.floor(y)
    a, b = (x - x0)[:, None], (y - y0)[:, None]
    i0, j0 = x0.astype(np.int64), y0.astype(np.int64)
    if face is None:
        i0, j0 = i0 % w, j0 % h
        i1, j1 = (i0 + 1) % w, (j0 + 1) % h
    else:
        i1, j1 = np.clip(i0 + 1, 0, w - 1), np.clip(j0 + 1, 0, h - 1)
        i0, j0 = np.clip(i0, 0, w - 1), np.clip(j0, 0, h - 1)

    def fetch(j: np.ndarray, i: np.ndarray) -> np.ndarray:
        v = level[j, i] if face is None else level[face, j, i]
        return decode(v, fmt) if fmt is not None else v.astype(np.float64)

    return ((1 - a) * (1 - b) * fetch(j0, i0) + a * (1 - b) * fetch(j0, i1)
            + (1 - a) * b * fetch(j1, i0) + a * b * fetch(j1, i1))


def _tint(v: np.ndarray, level: int) -> np.ndarray:
    out = v.copy()
    c = min(3, v.shape[1])
    out[:, :c] = (1 - TINT) * v[:, :c] + TINT * LEVEL_COLOURS[level % len(LEVEL_COLOURS), :c]
    return out


def sample_trilinear(levels: Sequence[np.ndarray], fmt: Format | None, s: np.ndarray,
                     t: np.ndarray, lod: np.ndarray, tint_levels: bool = False,
                     face: np.ndarray | None = None) -> np.ndarray:
    """Trilinear samples (N, C) of a pyramid at normalised (s, t) with level of detail ``lod``
    (lambda): level 0 when lambda <= 0 (magnification), else ``(1 - frac) * level[floor] +
    frac * level[floor + 1]`` with lambda clamped to the last level. Values decoded as
    :func:`mipview.core.formats.decode` (``fmt`` None: float values as they are). ``face``: the
    levels are a cube's (6, N, N, C), each sample in its face (:func:`_bilinear`)."""
    q = len(levels) - 1
    d = np.clip(np.nan_to_num(lod, nan=0.0, neginf=0.0), 0.0, float(q))
    lo = np.floor(d).astype(np.int64)
    frac = d - lo
    out = np.zeros((s.size, levels[0].shape[-1]))
    for k in np.unique(lo):
        sel = lo == k
        at = None if face is None else face[sel]
        v = _bilinear(levels[k], fmt, s[sel], t[sel], at)
        if tint_levels:
            v = _tint(v, int(k))
        f = frac[sel][:, None]
        if k < q and (f > 0).any():
            nxt = _bilinear(levels[k + 1], fmt, s[sel], t[sel], at)
            if tint_levels:
                nxt = _tint(nxt, int(k) + 1)
            v = (1 - f) * v + f * nxt
        out[sel] = v
    return out


def plane_uv(settings: PreviewSettings, aspect: float = 1.0) \
        -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Normalised texture coordinates (s, t) of every pixel centre of a ground plane seen from a
    camera at height 1, ``pitch_deg`` below the horizon, 60 degrees vertical field of view, and
    the mask of pixels that see the plane (below the horizon). The texture's scale puts
    ``repeats`` tiles across the bottom edge of the screen; a tile is ``aspect`` (height /
    width of the texture) as deep as it is wide, so texels stay square."""
    w, h = settings.width, settings.height
    f = (h / 2) / math.tan(math.radians(30.0))
    px = np.arange(w) + 0.5 - w / 2
    py = np.arange(h) + 0.5 - h / 2  # down the screen
    pitch = math.radians(settings.pitch_deg)
    # a ray (px, py, f) in camera space, turned down by the pitch: its drop per unit forward
    down = (py[:, None] * math.cos(pitch) + f * math.sin(pitch)) * np.ones((1, w))
    fwd = -py[:, None] * math.sin(pitch) + f * math.cos(pitch)
    hit = down > 1e-9
    dist = np.where(hit, 1.0 / np.where(hit, down, 1.0), 0.0)  # camera height 1
    x = px[None, :] * dist
    z = fwd * dist
    # world units per tile: the bottom row spans 'repeats' tiles
    bottom_py = h - 0.5 - h / 2
    bottom = 1.0 / (bottom_py * math.cos(pitch) + f * math.sin(pitch))
    tile = w * bottom / max(settings.repeats, 1e-6)
    # the texture lies as a picture on the floor: its bottom row at the screen's bottom edge,
    # its top further away
    near = (-bottom_py * math.sin(pitch) + f * math.cos(pitch)) * bottom
    return x / tile + 0.5, 1.0 - (z - near) / (tile * aspect), hit


def sky_directions(settings: PreviewSettings) -> np.ndarray:
    """(H, W, 3) unit directions of every pixel centre of the unwrapped sky (module
    docstring): longitude -180..180 degrees across (0: +Z, 90: +X), latitude 90..-90 down."""
    w, h = settings.width, settings.height
    lon = ((np.arange(w) + 0.5) / w * 2.0 - 1.0) * math.pi
    lat = (0.5 - (np.arange(h) + 0.5) / h) * math.pi
    c = np.cos(lat)[:, None]
    return np.stack(np.broadcast_arrays(c * np.sin(lon)[None, :], np.sin(lat)[:, None],
                                        c * np.cos(lon)[None, :]), axis=-1)


def quad_uv(settings: PreviewSettings, width0: int, height0: int) \
        -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(s, t) of each pixel centre of the texture drawn at ``zoom`` pixels per level-0 texel,
    centred; every pixel covers it."""
    w, h = settings.width, settings.height
    px = (np.arange(w) + 0.5 - w / 2) / settings.zoom
    py = (np.arange(h) + 0.5 - h / 2) / settings.zoom
    s = np.broadcast_to(px[None, :] / width0 + 0.5, (h, w))
    t = np.broadcast_to(py[:, None] / height0 + 0.5, (h, w))
    return s, t, np.ones((h, w), bool)


def render(levels: Sequence[np.ndarray], fmt: Format | None,
           settings: PreviewSettings) -> PreviewImage:
    """The preview of ``levels`` (storage values of ``fmt``, (H, W, C) or (L, H, W, C)), as
    ``settings`` say; float formats show [0, 1] clipped. With ``settings.show`` ERROR the
    levels are error maps: :func:`render_error`."""
    if settings.show == ERROR:
        return render_error(levels, settings)
    if settings.depth is not None:  # decoded slices: sampled as float values, shown as fmt
        colour, lod, share = _scene(volume_slices(levels, fmt, settings.depth), None, settings)
    else:
        colour, lod, share = _scene(levels, fmt, settings)
    return PreviewImage(_display(colour, fmt), lod, share)


def volume_slices(levels: Sequence[np.ndarray], fmt: Format | None,
                  depth: float) -> list[np.ndarray]:
    """Each volume level ``(D, H, W, C)`` (or ``(D, H, W)``) as its slice at normalised
    ``depth``: the two slices around ``depth * D - 0.5`` blended linearly (clamp to edge),
    decoded float64 (module docstring)."""
    out = []
    for level in levels:
        d = level.shape[0]
        z = min(max(depth * d - 0.5, 0.0), d - 1.0)
        z0 = math.floor(z)
        z1, f = min(z0 + 1, d - 1), z - z0

        def decoded(k: int, level: np.ndarray = level) -> np.ndarray:
            v = level[k]
            return decode(v, fmt) if fmt is not None else v.astype(np.float64)

        out.append((1 - f) * decoded(z0) + f * decoded(z1) if f > 0 else decoded(z0))
    return out


def render_error(maps: Sequence[np.ndarray], settings: PreviewSettings) -> PreviewImage:
    """Per-level error maps ((H, W) or (L, H, W), non-negative) sampled as the levels would be,
    on a heat ramp from 0 (black) to the largest error of any level (white)."""
    if settings.depth is not None:
        maps = volume_slices(maps, None, settings.depth)
    peak = max((float(np.nanmax(m)) for m in maps if m.size), default=0.0)
    scale = 1.0 / peak if peak > 0 else 0.0
    levels = [np.nan_to_num(np.asarray(m, np.float32) * np.float32(scale), nan=1.0)[..., None]
              for m in maps]
    value, lod, share = _scene(levels, None, replace(settings, tint_levels=False))
    v = np.clip(value[..., 0], 0.0, 1.0)
    heat = np.stack([3 * v, 3 * v - 1, 3 * v - 2], axis=-1)
    heat[~np.isfinite(lod)] = EMPTY
    return PreviewImage(_display(np.clip(heat, 0.0, 1.0), None), lod, share, peak)


def _scene(levels: Sequence[np.ndarray], fmt: Format | None, settings: PreviewSettings) \
        -> tuple[np.ndarray, np.ndarray, tuple[float, ...]]:
    """Decoded sampled values (H, W, C), lambda per pixel (NaN: no surface), level shares."""
    if not levels:
        raise ValueError("a preview needs at least one level")
    if settings.kind == SKY:
        return _sky(levels, fmt, settings)
    levels = [lv[min(settings.layer, lv.shape[0] - 1)] if lv.ndim == 4 else lv for lv in levels]
    h0, w0 = levels[0].shape[:2]
    if settings.kind == QUAD:
        s, t, hit = quad_uv(settings, w0, h0)
    elif settings.kind == PLANE:
        s, t, hit = plane_uv(settings, h0 / w0)
    else:
        raise ValueError(f"unknown preview kind {settings.kind!r}; one of {', '.join(KINDS)}")
    u, v = s * w0, t * h0
    (dudx, dudy), (dvdx, dvdy) = fine_derivatives(u), fine_derivatives(v)
    lod = lod_from_derivatives(dudx, dvdx, dudy, dvdy)
    # a quad whose pixels straddle the horizon has no derivative to speak of
    hit = hit & np.isfinite(lod) & np.repeat(np.repeat(
        hit[0::2, 0::2] & hit[1::2, 0::2] & hit[0::2, 1::2] & hit[1::2, 1::2], 2, 0), 2, 1)
    lod = np.where(hit, lod, np.nan)
    channels = levels[0].shape[-1]
    colour = np.empty((settings.height, settings.width, channels))
    colour[...] = (*EMPTY, 1.0)[:channels] if channels >= 3 else 0.0
    colour[hit] = sample_trilinear(levels, fmt, s[hit], t[hit], lod[hit], settings.tint_levels)
    chosen = np.floor(np.clip(lod[hit], 0, len(levels) - 1)).astype(np.int64)
    share = np.bincount(chosen, minlength=len(levels)) / max(1, chosen.size)
    return colour, lod, tuple(float(x) for x in share)


def _sky(levels: Sequence[np.ndarray], fmt: Format | None, settings: PreviewSettings) \
        -> tuple[np.ndarray, np.ndarray, tuple[float, ...]]:
    """:func:`_scene` of a cube map (levels (6 n, N, N, C)): the cube holding
    ``settings.layer``, every pixel at lambda ``settings.lod``."""
    shape = levels[0].shape
    if len(shape) != 4 or not cube.is_cube_shape(*shape[:3]):
        raise ValueError(f"the sky preview shows a cube map; these levels are {shape}")
    first = cube.FACES * min(settings.layer // cube.FACES, shape[0] // cube.FACES - 1)
    faces = [lv[first:first + cube.FACES] for lv in levels]
    face, s, t = cube.face_of(sky_directions(settings).reshape(-1, 3))
    lod = np.full(face.shape, float(settings.lod))
    colour = sample_trilinear(faces, fmt, s, t, lod, settings.tint_levels, face)
    q = len(levels) - 1
    chosen = min(max(math.floor(settings.lod), 0), q)
    share = tuple(1.0 if k == chosen else 0.0 for k in range(len(levels)))
    h, w = settings.height, settings.width
    return colour.reshape(h, w, -1), lod.reshape(h, w), share


def _display(values: np.ndarray, fmt: Format | None) -> np.ndarray:
    """Decoded values -> 8-bit RGBA as the pyramid view shows the format (sRGB encoded)."""
    if fmt is not None and not fmt.is_float:
        units = encode(values, fmt) * (255.0 / np.asarray(fmt.scale))  # 0..255, sRGB for srgb
        out = np.clip(np.rint(units), 0, 255)
    else:
        out = np.clip(np.rint(np.nan_to_num(values) * 255.0), 0, 255)
    # opaque: a surface in a scene, whatever its alpha (the pyramid view shows alpha)
    rgba = np.full(values.shape[:2] + (4,), 255, np.uint8)
    if out.shape[-1] >= 3:
        rgba[..., :3] = out[..., :3]
    else:
        rgba[..., :3] = out[..., :1]
    return rgba
