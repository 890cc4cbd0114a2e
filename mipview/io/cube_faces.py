"""A cube map from six face images (``sky_px.png``, ``sky_nx.png``...), as many tools export
one: :func:`find_faces` finds a face's five siblings, :func:`load_faces` stacks the six into a
cube source image (mipview.core.cube: (6, N, N, 4), faces +X, -X, +Y, -Y, +Z, -Z).

Each face is read with :func:`mipview.io.imageio.load`, so any image or texture file serves;
the six must be square, of one size and of one format.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from mipview.core.cube import FACE_NAMES, FACES
from mipview.core.errors import MipviewError
from mipview.io import imageio
from mipview.io.containers.texture import TextureFile
from mipview.io.imageio import SourceImage

#: the spellings of the faces' names, each in layer order (px nx py ny pz nz)
SPELLINGS = (FACE_NAMES, ("posx", "negx", "posy", "negy", "posz", "negz"))
#: a stem ending in a face name, after a separator or as the whole stem ("sky_px", "sky-posx",
#: "px"); a bare suffix ("skypx") is not taken: too many words end in "px" or "ny"
_STEM = re.compile(r"^(?P<base>(?:.*[_\-. ])?)(?P<face>"
                   + "|".join(name for spelling in SPELLINGS for name in spelling)
                   + r")$", re.IGNORECASE)
_LABELS = ("+X", "-X", "+Y", "-Y", "+Z", "-Z")


def _face_name(name: str, like: str) -> str:
    """``name`` in the case of ``like`` (the face name the user's file has)."""
    return name.upper() if like.isupper() else name


def find_faces(path: str | os.PathLike[str]) -> list[str] | None:
    """The six face files of the cube that the face image ``path`` belongs to, in layer order
    (``path`` among them), when its stem ends in a face name (``sky_px.png``, ``sky-NX.exr``,
    ``sky_posx.png``) and its five siblings lie beside it, with the same suffix and spelling
    (any case); None otherwise."""
    p = Path(path)
    match = _STEM.match(p.stem)
    if match is None:
        return None
    face = match["face"]
    spelling = next(s for s in SPELLINGS if face.lower() in s)
    try:
        beside = {f.lower(): f for f in os.listdir(p.parent)}
    except OSError:
        return None
    out = []
    for name in spelling:
        wanted = f"{match['base']}{_face_name(name, face)}{p.suffix}"
        found = beside.get(wanted.lower())
        if found is None:
            return None
        out.append(str(p.with_name(found)))
    return out


def _fail(path: str, reason: str) -> MipviewError:
    return MipviewError(f"cube face '{path}': {reason}")


def _format_of(face: SourceImage) -> str:
    """What must match across the faces: the format each would be run in (and for 8-bit files,
    that they are 8-bit)."""
    return f"{face.suggested_format().label}, {face.bit_depth}-bit"


def _stack(images: Sequence[np.ndarray]) -> np.ndarray:
    """Six (H, W, 4) or (1, H, W, 4) images as (6, H, W, 4)."""
    return np.ascontiguousarray(np.concatenate([a.reshape(-1, *a.shape[-3:]) for a in images]))


def _cube_texture(faces: Sequence[SourceImage]) -> TextureFile | None:
    """The faces' texture files (all six KTX2, DDS, EXR...) as one cube: levels stacked face by
    face, as many as every face has; None when the faces are plain images."""
    textures = [f.texture for f in faces]
    if any(t is None for t in textures):
        return None
    own = [t for t in textures if t is not None]
    first = own[0]
    depth = min(len(t.levels) for t in own)
    levels = tuple(_stack([t.levels[p] for t in own]) for p in range(depth))
    notes = tuple(dict.fromkeys(n for t in own for n in t.notes))
    if any(len(t.levels) != depth for t in own):
        notes += (f"the faces' chains differ in length: {depth} level"
                  f"{'s' if depth != 1 else ''} of each kept",)
    return TextureFile(first.name, first.container, first.pixel_format, first.fmt, levels,
                       first.decoded_from, notes, FACES)


def load_faces(paths: Sequence[str | os.PathLike[str]]) -> SourceImage:
    """A cube source image (``faces`` 6, pixels (6, N, N, 4)) of six face images given in layer
    order: +X, -X, +Y, -Y, +Z, -Z (px nx py ny pz nz).

    Raises
    ------
    MipviewError
        One line naming the face file and what is wrong: unreadable (imageio's ImageLoadError),
        not one 2D image, not square, not the size or format of the +X face.
    """
    if len(paths) != FACES:
        raise MipviewError(f"a cube map takes six face images (px nx py ny pz nz), got "
                           f"{len(paths)}")
    names = [os.fspath(p) for p in paths]
    faces = [imageio.load(p) for p in names]
    first = faces[0]
    size, fmt = first.width, _format_of(first)
    for name, label, face in zip(names, _LABELS, faces, strict=True):
        if face.layers != 1:
            raise _fail(name, f"holds {face.layers} layers, a face is one image")
        if face.width != face.height:
            raise _fail(name, f"the {label} face is {face.width}x{face.height}: cube faces are "
                              f"square")
        if face.width != size:
            raise _fail(name, f"the {label} face is {face.width}x{face.height}, the +X face "
                              f"'{names[0]}' {size}x{size}: a cube's faces are one size")
        if _format_of(face) != fmt:
            raise _fail(name, f"the {label} face is {_format_of(face)}, the +X face "
                              f"'{names[0]}' {fmt}: a cube's faces are one format")
    texture = _cube_texture(faces)
    samples = [f.rgba8 for f in faces if f.rgba8 is not None]
    if len(samples) == FACES:
        pixels = _stack(samples)  # 8-bit stays 8-bit (SourceImage.rgba8)
    else:
        pixels = _stack([f.pixels for f in faces])
    description = f"cube map of six {size}x{size} faces ({first.description})"
    return SourceImage(pixels, names[0], description, first.bit_depth, first.is_float, texture,
                       all(f.grey for f in faces), faces=FACES)


def open_image(path: str | os.PathLike[str], *, volumes: bool = False) -> SourceImage:
    """``path`` as the window, the API and ``mipview run`` open it: one of six face images
    (``sky_px.png`` with ``sky_nx.png``... beside it) is the cube map of all six, any other file
    itself (imageio.load, which takes a volume only with ``volumes``)."""
    faces = find_faces(path)
    return imageio.load(path, volumes=volumes) if faces is None else load_faces(faces)
