"""Every synthetic image mipview makes, in one place: deterministic for a seed, vectorised.

- :func:`image`: the test images of ``--size`` (``--synthetic`` zone plate, noise, ramp, depth)
  as a source image;
- :func:`cube_image`: a cube map (or cube array) of a sky with a longitude/latitude grid, whose
  faces meet at their edges as a renderer samples them (kind ``cube``, apart from the 2D
  :data:`KINDS`);
- :func:`volume_image`: a volume (3D image) of smooth 3D noise with spheres in it;
- ``make_*``: the bundled sample images of ``resources/`` (mipview.io.samples writes them);
- :func:`synthetic_sizes` and :func:`synthetic_batch`: seeded batches (``--batch-synthetic``)
  of heavy-tailed image sizes from 1x1 to 2048x2048. The longer side is 2^x with x exponential (mean :data:`LOG2_SCALE`) capped at 11, so most images
  are small (median longer side ~ 4) and a few are huge, as in a texture-streaming frame; the aspect
  ratio is 2^u with u uniform in [-2, 2]. Sides are not rounded to powers of two (NPOT on purpose).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PIL import Image

from mipview.core.cube import FACES, face_directions
from mipview.core.errors import MipviewError
from mipview.core.formats import Format
from mipview.io.imageio import SourceImage

# --- test images ------------------------------------------------------------------------------
#: every kind of :func:`image`, the first the default (``--synthetic``, ``sweep --kind``)
KINDS = ("zoneplate", "noise", "ramp", "depth")


#: the kind :func:`image` makes with :func:`cube_image` (a square ``--size``); not among
#: :data:`KINDS`, whose users (sweeps, ``mean``, ``--synthetic``) make 2D images of any shape
CUBE_KIND = "cube"


def kind_format(kind: str) -> Format:
    """The format :func:`image` of ``kind`` suggests, known before it is made (cli/common.py
    checks a run's limits with it): ``r32f`` for ``depth``, as a depth ``.npy`` or EXR ``Z``
    file, ``unorm`` for the others (``cube`` too)."""
    return Format.R32F if kind == "depth" else Format.UNORM


def _axes(width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    x = np.arange(width, dtype=np.float32)[None, :]
    y = np.arange(height, dtype=np.float32)[:, None]
    return x, y


def _zoneplate_rows(width: int, height: int, y0: int, y1: int) -> np.ndarray:
    x = np.arange(width, dtype=np.float32) - np.float32((width - 1) / 2)
    y = np.arange(y0, y1, dtype=np.float32)[:, None] - np.float32((height - 1) / 2)
    r_max = max(1.0, float(np.hypot(width / 2, height / 2)))
    # local frequency is k r / pi cycles/texel: 0.5 (Nyquist) at r_max
    k = np.float32(np.pi / (2.0 * r_max))
    return (x * x + y * y) * k


def zoneplate_phase(width: int, height: int) -> np.ndarray:
    """Phase (H, W) of a radial chirp whose local frequency reaches Nyquist (0.5 cycles/texel)
    at the corners: every level above 0 aliases unless its filter removes what it cannot hold."""
    return _zoneplate_rows(width, height, 0, height)


def image(width: int, height: int, seed: int = 0, kind: str = "zoneplate", *,
          reversed_z: bool = False) -> SourceImage:
    """A deterministic test image in [0, 1] (float32, vectorised: cheap at 8192x8192).

    kind
        ``zoneplate``: radial chirp, RGB phase-shifted by 120 degrees, alpha a diagonal ramp;
        ``noise``: uniform random in every channel (``seed`` picks it);
        ``ramp``: R along x, G along y, B along the anti-diagonal, alpha 1;
        ``depth``: a perspective depth buffer (:func:`_depth_image`; ``seed`` picks the scene,
        ``reversed_z`` its mapping; one channel, suggesting ``r32f``);
        ``cube``: :func:`cube_image` of side ``width`` (``height`` must equal it): 6 layers.
    """
    if width < 1 or height < 1:
        raise MipviewError(f"synthetic image size must be at least 1x1, got {width}x{height}")
    if kind == CUBE_KIND:
        if width != height:
            raise MipviewError(f"a synthetic cube map has square faces, got {width}x{height}")
        return cube_image(width, seed)
    if kind not in KINDS:
        raise MipviewError(f"unknown synthetic image kind {kind!r}; choose one of "
                           + ", ".join(KINDS))
    if kind == "depth":
        return _depth_image(width, height, seed, reversed_z)
    out = np.empty((height, width, 4), np.float32)
    if kind == "noise":
        np.random.default_rng(seed).random(out.shape, dtype=np.float32, out=out)
        return SourceImage(out, None, f"synthetic noise {width}x{height} (seed {seed})", 8, False)
    x, y = _axes(width, height)
    u = x / np.float32(max(1, width - 1))
    v = y / np.float32(max(1, height - 1))
    cos_t = [np.float32(0.5 * np.cos(2.0 * np.pi * ch / 3.0)) for ch in range(3)]
    sin_t = [np.float32(0.5 * np.sin(2.0 * np.pi * ch / 3.0)) for ch in range(3)]
    # in bands of rows: the temporaries stay in cache, and interleaving four whole-image planes
    # into RGBA would cost more than computing them (zone plate 8192^2: 0.4 s instead of 2 s)
    rows = max(1, (1 << 18) // width)
    for y0 in range(0, height, rows):
        y1 = min(height, y0 + rows)
        band = out[y0:y1]
        vb = v[y0:y1]
        if kind == "zoneplate":
            phase = _zoneplate_rows(width, height, y0, y1)
            c, s = np.cos(phase), np.sin(phase)
            for ch in range(3):
                # cos(p + t) = cos p cos t - sin p sin t: two transcendental passes, not three
                np.multiply(c, cos_t[ch], out=band[..., ch])
                band[..., ch] -= s * sin_t[ch]
                band[..., ch] += np.float32(0.5)
            band[..., 3] = (u + vb) * np.float32(0.5)
            np.clip(band, 0.0, 1.0, out=band)
        else:  # ramp
            band[..., 0] = u
            band[..., 1] = vb
            band[..., 2] = (np.float32(1.0) - u + vb) * np.float32(0.5)
            band[..., 3] = 1.0
    return SourceImage(out, None, f"synthetic {kind} {width}x{height}", 8, False)


#: the depth scene's camera: view distances of the near and far planes, vertical field of view
NEAR, FAR, FOV_Y = 1.0, 100.0, np.pi / 3.0


def perspective_depth(z: np.ndarray, reversed_z: bool = False) -> np.ndarray:
    """Depth of view distance ``z`` (near <= z <= far) as a perspective projection stores it:
    far (z - near) / (z (far - near)), near -> 0 and far -> 1 exactly; reversed-Z
    near (far - z) / (z (far - near)), near -> 1 and far -> 0 (that is 1 minus the standard
    depth, but computed as such it keeps float32's precision where z is far)."""
    if reversed_z:
        return NEAR * (FAR - z) / (z * (FAR - NEAR))
    return FAR * (z - NEAR) / (z * (FAR - NEAR))


def _rotation(rng: np.random.Generator) -> np.ndarray:
    """A random yaw then pitch (3x3, view space): boxes show sloped faces beside the front."""
    a, b = rng.uniform(-0.9, 0.9, 2)
    ry = np.array([[np.cos(a), 0.0, np.sin(a)], [0.0, 1.0, 0.0], [-np.sin(a), 0.0, np.cos(a)]])
    rx = np.array([[1.0, 0.0, 0.0], [0.0, np.cos(b), -np.sin(b)], [0.0, np.sin(b), np.cos(b)]])
    return ry @ rx


def _depth_scene(seed: int, aspect: float) -> list[tuple[str, np.ndarray, float, np.ndarray]]:
    """Boxes and spheres as (shape, centre (x, y, -z), bounding radius, box rotation or sphere
    radius), between 4 and 70 from the eye: in front of the near plane, short of the far one.
    Placed in screen units, so a seed gives the same scene at every size of one aspect."""
    rng = np.random.default_rng(seed)
    ty = np.tan(FOV_Y / 2.0)
    objects = []
    for n in range(int(rng.integers(14, 21))):
        dist = float(rng.uniform(4.0, 70.0))
        u, v = rng.uniform(-0.85, 0.85, 2)
        centre = np.array([u * dist * ty * aspect, v * dist * ty, -dist])
        size = dist * ty * float(rng.uniform(0.08, 0.3))  # 8-30% of the view's half height
        if n % 2 == 0:
            half = size * rng.uniform(0.4, 1.0, 3)
            # the rotation's columns are the box's axes; each row of ``spec`` one of them scaled
            spec = np.vstack([_rotation(rng).T, half])
            objects.append(("box", centre, float(np.linalg.norm(half)), spec))
        else:
            objects.append(("sphere", centre, size, np.array(size)))
    return objects


def _screen_rect(centre: np.ndarray, radius: float, width: int, height: int,
                 tx: float, ty: float) -> tuple[int, int, int, int]:
    """Texel columns [c0, c1) and rows [r0, r1) that may see a sphere of ``radius`` around
    ``centre``: x / z over the box holding it is extreme at its corners (z > 0)."""
    d = np.array([-centre[2] - radius, -centre[2] + radius])
    xs = (centre[0] + np.array([-radius, radius]))[:, None] / d[None, :] / tx
    ys = (centre[1] + np.array([-radius, radius]))[:, None] / d[None, :] / ty
    c0 = int(np.floor((xs.min() + 1.0) * 0.5 * width)) - 1
    c1 = int(np.ceil((xs.max() + 1.0) * 0.5 * width)) + 1
    r0 = int(np.floor((1.0 - ys.max()) * 0.5 * height)) - 1
    r1 = int(np.ceil((1.0 - ys.min()) * 0.5 * height)) + 1
    return max(c0, 0), min(c1, width), max(r0, 0), min(r1, height)


def _hit_distance(shape: str, centre: np.ndarray, spec: np.ndarray, dx: np.ndarray,
                  dy: np.ndarray) -> np.ndarray:
    """View distance z of the first hit of the eye rays (dx, dy, -1) on one object; inf where
    they miss. z is the ray parameter, as the rays' z component is -1."""
    if shape == "sphere":
        # |t d - c|^2 = r^2: t = (b - sqrt(b^2 - a (|c|^2 - r^2))) / a, the nearer root
        a = dx * dx + dy * dy + 1.0
        b = dx * centre[0] + dy * centre[1] - centre[2]
        disc = b * b - a * (float(centre @ centre) - float(spec) ** 2)
        hit = disc >= 0.0
        return np.where(hit, (b - np.sqrt(np.where(hit, disc, 0.0))) / a, np.inf)
    # slab test in the box's own axes: the ray from the eye (origin 0) is -c + t d there. A ray
    # parallel to a slab divides by 0: +-inf keeps it inside the slab or never (IEEE), and one
    # exactly on its face (0 / 0, NaN) misses
    near = far = None
    for axis, half in zip(spec[:3], spec[3], strict=True):
        start = -float(centre @ axis)  # (0 - c) . axis
        with np.errstate(divide="ignore", invalid="ignore"):
            inv = 1.0 / (dx * axis[0] + dy * axis[1] - axis[2])  # 1 / (d . axis)
            t0 = (-half - start) * inv
            t1 = (half - start) * inv
        lo, hi = np.minimum(t0, t1), np.maximum(t0, t1)
        near = lo if near is None else np.maximum(near, lo, out=near)
        far = hi if far is None else np.minimum(far, hi, out=far)
    assert near is not None and far is not None
    return np.where((near <= far) & (near > 0.0), near, np.inf)


def _depth_image(width: int, height: int, seed: int = 0, reversed_z: bool = False) -> SourceImage:
    """A perspective depth buffer: 14 to 20 boxes (turned, so faces slope away) and spheres
    at view distances 4 to 70, overlapping, over a background at the far plane (depth exactly 1,
    0 reversed); hard silhouettes, one sample per texel centre. Depth is
    :func:`perspective_depth` of the distance (near :data:`NEAR`, far :data:`FAR`, vertical
    field of view :data:`FOV_Y`), computed in float64 and stored as float32 in R; G, B 0 and
    A 1, as a one-channel image is held (docs/formats.md). It comes as a one-level ``r32f``
    texture, as a depth ``.npy`` does, so it suggests ``r32f``. In bands of rows, each object
    only over the texels its bounding sphere may cover: cheap at 4096x4096."""
    from mipview.io.containers.texture import TextureFile

    aspect = width / height
    ty = float(np.tan(FOV_Y / 2.0))
    tx = ty * aspect
    scene = _depth_scene(seed, aspect)
    rects = [_screen_rect(c, r, width, height, tx, ty) for _, c, r, _ in scene]
    # eye ray through each texel centre: (x_ndc tx, y_ndc ty, -1), y up
    ray_x = ((np.arange(width) + 0.5) * (2.0 / width) - 1.0) * tx
    ray_y = (1.0 - (np.arange(height) + 0.5) * (2.0 / height)) * ty
    out = np.zeros((height, width, 4), np.float32)
    out[..., 3] = 1.0
    rows = max(1, (1 << 18) // width)
    for y0 in range(0, height, rows):
        y1 = min(height, y0 + rows)
        z = np.full((y1 - y0, width), FAR)
        for (shape, centre, _, spec), (c0, c1, r0, r1) in zip(scene, rects, strict=True):
            a, b = max(r0, y0), min(r1, y1)
            if a >= b or c0 >= c1:
                continue
            block = z[a - y0:b - y0, c0:c1]
            np.minimum(block, _hit_distance(shape, centre, spec, ray_x[None, c0:c1],
                                            ray_y[a:b, None]), out=block)
        out[y0:y1, :, 0] = perspective_depth(z, reversed_z)
    label = f"synthetic depth {width}x{height} (seed {seed}{', reversed-Z' if reversed_z else ''})"
    texture = TextureFile(label, "synthetic", "R32_SFLOAT", Format.R32F, (out,))
    return SourceImage(out, None, label, 32, True, texture)


# --- cube maps ----------------------------------------------------------------------------------
def _colour(r: float, g: float, b: float) -> np.ndarray:
    return np.array([r, g, b], np.float32)


def _sky(d: np.ndarray, sun: np.ndarray, texel: float) -> np.ndarray:
    """RGB (..., 3) in [0, 1] of directions ``d`` (+Y up): a sky graded by elevation, its
    horizon warm toward the sun and cool away from it, over a darker ground; a sun disc with a
    glow at ``sun``; lines of longitude (every 30 degrees, the one toward +Z red) and latitude
    (every 15) ``texel`` radians wide on each side, so they cross every face and every edge
    between faces. No rotation of the cube maps the picture onto itself, so faces swapped or
    turned show."""
    zenith, cool, warm = _colour(0.12, 0.30, 0.72), _colour(0.62, 0.70, 0.80), \
        _colour(0.95, 0.76, 0.52)
    earth, nadir = _colour(0.36, 0.31, 0.24), _colour(0.10, 0.09, 0.07)
    y = np.clip(d[..., 1], -1.0, 1.0)
    elevation = np.arcsin(y)
    azimuth = np.arctan2(d[..., 0], d[..., 2])  # 0 toward +Z, pi / 2 toward +X
    toward = (0.5 + 0.5 * np.cos(azimuth - float(np.arctan2(sun[0], sun[2]))))[..., None]
    up = np.sqrt(np.clip(y, 0.0, 1.0))[..., None]
    down = np.sqrt(np.clip(-y, 0.0, 1.0))[..., None]
    horizon = cool + toward * (warm - cool)
    sky = horizon + up * (zenith - horizon)
    ground = earth + down * (nadir - earth)
    # a horizon a texel soft, so that no face edge decides on which side a texel lies
    above = np.clip(0.5 + y / (2.0 * texel), 0.0, 1.0)[..., None]
    rgb = ground + above * (sky - ground)
    angle = np.arccos(np.clip(d @ sun, -1.0, 1.0))
    # Python floats throughout: NumPy's own float64 scalars would make every array float64
    radius = max(float(np.radians(4.0)), 1.5 * texel)
    disc = np.clip((radius - angle) / texel + 0.5, 0.0, 1.0)
    glow = 0.35 * np.exp(-(angle / (3.0 * radius)) ** 2)
    _mix(rgb, (1.0, 0.93, 0.78), np.clip(glow + disc, 0.0, 1.0))
    # angular distances to the nearest line; longitude's shrink with cos(elevation) as the
    # lines converge on the poles (180 degrees is a line, so the azimuth's jump there is none)
    lon_step, lat_step = float(np.radians(30.0)), float(np.radians(15.0))
    across = np.cos(elevation)
    lon = np.abs(azimuth - np.round(azimuth / lon_step) * lon_step) * across
    lat = np.abs(elevation - np.round(elevation / lat_step) * lat_step)
    line = np.clip(1.0 - np.minimum(lon, lat) / texel, 0.0, 1.0)
    _mix(rgb, (0.97, 0.97, 0.92), 0.6 * line)
    meridian = np.clip(1.0 - np.abs(azimuth) * across / texel, 0.0, 1.0)
    _mix(rgb, (0.85, 0.15, 0.12), 0.8 * meridian)
    return np.clip(rgb, 0.0, 1.0)


def cube_image(size: int, seed: int = 0, layers: int = 1) -> SourceImage:
    """A cube map (``layers`` > 1: a cube array of that many cubes) of side ``size``: float32
    (6 layers, size, size, 4) in [0, 1], alpha 1, ``faces`` 6 (mipview.core.cube). Each texel
    is :func:`_sky` of the direction through its centre (:func:`mipview.core.cube.face_directions`), so the faces
    meet seamlessly: texels facing each other across an edge see nearly the same sky. ``seed``
    places the sun (each cube of an array its own). In bands of rows, in float32: about a
    second at 1024."""
    if size < 1 or layers < 1:
        raise MipviewError(f"a synthetic cube map is at least 1x1 and one cube, got side {size} "
                           f"and {layers} cube{'s' if layers != 1 else ''}")
    rng = np.random.default_rng(seed)
    out = np.empty((FACES * layers, size, size, 4), np.float32)
    out[..., 3] = 1.0
    texel = 2.0 / size  # a texel's angle at a face's centre
    rows = max(1, (1 << 17) // size)
    for cube in range(layers):
        azimuth, elevation = rng.uniform(-np.pi, np.pi), rng.uniform(np.radians(15), np.radians(50))
        sun = np.array([np.cos(elevation) * np.sin(azimuth), np.sin(elevation),
                        np.cos(elevation) * np.cos(azimuth)], np.float32)
        for face in range(FACES):
            for r0 in range(0, size, rows):
                r1 = min(size, r0 + rows)
                # float32 is plenty for a picture, and twice as fast
                d = face_directions(face, size, (r0, r1)).astype(np.float32)
                out[FACES * cube + face, r0:r1, :, :3] = _sky(d, sun, texel)
    label = f"synthetic cube {size}x{size}" + (f" x {layers} cubes" if layers > 1 else "") \
        + f" (seed {seed})"
    return SourceImage(out, None, label, 8, False, faces=FACES)


# --- the synthetic volume ---------------------------------------------------------------------
def _smooth_lerp(values: np.ndarray, t: np.ndarray, axis: int) -> np.ndarray:
    """``values`` along ``axis`` (a lattice's points) at the positions ``t`` (1D, in lattice
    units, at least 0 and below the axis's length - 1), blended with smoothstep weights."""
    i = np.floor(t).astype(np.intp)
    f = t - i
    w = f * f * (np.float32(3) - np.float32(2) * f)
    shape = [1] * values.ndim
    shape[axis] = len(t)
    w = w.reshape(shape)
    lo, hi = np.take(values, i, axis=axis), np.take(values, i + 1, axis=axis)
    return lo + w * (hi - lo)


def volume_image(width: int, height: int, depth: int, seed: int = 0) -> SourceImage:
    """A volume (3D image) of ``width`` x ``height`` x ``depth``: float32 (D, H, W, 4) in [0, 1],
    alpha 1, ``volume`` True, slice z = 0 first. Smooth 3D value noise of four octaves (cells of
    16, 8, 4 and 2 voxels), a different field per colour channel (a cloud that changes along
    every axis), with a few solid-coloured spheres in it whose surfaces are antialiased over a
    voxel: structure along x, y and z alike, so a filter that treats an axis wrongly shows.
    ``seed`` picks the noise and the spheres. Vectorised (the noise separably, axis by axis), a
    band of slices at a time: 256^3 in a few seconds."""
    if min(width, height, depth) < 1:
        raise MipviewError(f"a synthetic volume is at least 1x1x1, got {width}x{height}x{depth}")
    rng = np.random.default_rng(seed)
    size = (depth, height, width)
    octaves = []  # per octave: amplitude, voxel centres in lattice units (z, y, x), lattice
    for octave in range(4):
        cells = tuple(max(1, -(-n // (16 >> octave))) for n in size)
        lattice = rng.random((*(c + 2 for c in cells), 3), dtype=np.float32)  # R, G, B
        # voxel centres in lattice units: the cells span the volume
        centres = [(np.arange(n, dtype=np.float32) + np.float32(0.5)) * np.float32(c / n)
                   for c, n in zip(cells, size, strict=True)]
        # along x, then y, once: a slab of lattice planes (z) over the whole slice
        plane = _smooth_lerp(_smooth_lerp(lattice, centres[2], 2), centres[1], 1)
        octaves.append((np.float32(0.5 ** octave), centres[0], plane))
    norm = np.float32(1 / sum(0.5 ** octave for octave in range(4)))
    spheres = []
    for _ in range(max(1, min(6, min(size) // 3))):
        centre = rng.uniform(0.15, 0.85, 3) * np.array(size)
        radius = float(rng.uniform(0.1, 0.25) * min(size)) + 0.75
        spheres.append((centre.astype(np.float32), np.float32(radius),
                        rng.uniform(0.1, 1.0, 3).astype(np.float32)))
    out = np.empty((depth, height, width, 4), np.float32)
    out[..., 3] = 1.0
    y = np.arange(height, dtype=np.float32)[None, :, None]
    x = np.arange(width, dtype=np.float32)[None, None, :]
    band = max(1, (1 << 19) // (width * height))
    for z0 in range(0, depth, band):
        z1 = min(depth, z0 + band)
        rgb = out[z0:z1, ..., :3]
        rgb[...] = 0.0
        for amplitude, zc, plane in octaves:
            rgb += amplitude * _smooth_lerp(plane, zc[z0:z1], 0)
        rgb *= norm
        for centre, radius, colour in spheres:
            # only the voxels of the sphere's bounding box (and its antialiased rim)
            lo = [max(0, int(c - radius - 1)) for c in centre]
            hi = [min(n, int(np.ceil(c + radius + 1))) for c, n in zip(centre, size, strict=True)]
            za, zb = max(lo[0], z0), min(hi[0], z1)
            if za >= zb:
                continue
            z = np.arange(za, zb, dtype=np.float32)[:, None, None]
            dist = np.sqrt((z + np.float32(0.5) - centre[0]) ** 2
                           + (y[:, lo[1]:hi[1]] + np.float32(0.5) - centre[1]) ** 2
                           + (x[..., lo[2]:hi[2]] + np.float32(0.5) - centre[2]) ** 2)
            cover = np.clip(radius - dist + np.float32(0.5), 0.0, 1.0)[..., None]
            box = rgb[za - z0:zb - z0, lo[1]:hi[1], lo[2]:hi[2]]
            box *= np.float32(1) - cover
            box += cover * colour
        np.clip(rgb, 0.0, 1.0, out=rgb)
    return SourceImage(out, None, f"synthetic volume {width}x{height}x{depth} (seed {seed})", 8,
                       False, volume=True)


# --- the bundled sample images ----------------------------------------------------------------
def _smoothstep(e0: float, e1: float, x: np.ndarray) -> np.ndarray:
    t = np.clip((x - e0) / (e1 - e0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def _mix(base: np.ndarray, colour: Sequence[float] | np.ndarray, cover: np.ndarray) -> None:
    """Paint ``colour`` over ``base`` (H, W, 3) in place with coverage ``cover`` (H, W)."""
    c = cover[..., None]
    base *= 1.0 - c
    base += c * np.asarray(colour, dtype=base.dtype)


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


# --- batches ----------------------------------------------------------------------------------
LOG2_SCALE = 2.0
MAX_SIDE = 2048


def synthetic_sizes(count: int, seed: int = 0, max_side: int = MAX_SIDE) -> list[tuple[int, int]]:
    """``count`` (width, height) pairs; the first k of a seed are the same for every count."""
    rng = np.random.default_rng(seed)
    top = np.log2(max_side)
    # one row of draws per image, so the first k images of a seed never depend on ``count``
    r = rng.random((count, 2))
    x = np.minimum(-LOG2_SCALE * np.log1p(-r[:, 0]), top)
    u = 4.0 * r[:, 1] - 2.0
    big = np.clip(np.rint(2.0 ** x), 1, max_side).astype(int)
    small = np.clip(np.rint(2.0 ** (x - np.abs(u))), 1, max_side).astype(int)
    return [(int(b), int(s)) if ui >= 0 else (int(s), int(b))
            for b, s, ui in zip(big, small, u, strict=True)]


def synthetic_batch(sizes: list[tuple[int, int]], fmt: Format, seed: int = 0) -> list[np.ndarray]:
    """Random storage values (uniform noise in [0, 1]) for each size."""
    rng = np.random.default_rng(seed + 1)
    out = []
    for w, h in sizes:
        if fmt.is_float:
            out.append(rng.random((h, w, 4), dtype=np.float32).astype(fmt.dtype))
        else:
            out.append(rng.integers(0, int(fmt.one) + 1, (h, w, 4), dtype=fmt.dtype))
    return out
