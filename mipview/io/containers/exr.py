"""OpenEXR: chains of every format written losslessly (ZIP), one file per level, and EXR files
read back with their range kept (negative, > 1, non-finite values as they are).

EXR holds half and float channels, so each format is written as the values it stands for:
float formats as they are (half or float), UNORM formats as float channels of their decoded
values (code / scale; sRGB colour in linear light, EXR's convention, so viewers such as tev
show it right; alpha linear), ``b10g11r11`` as half R, G, B (its 11/11/10-bit floats share
half's exponent and have fewer mantissa bits, so every one is a half; no A: it has none), a
one-channel depth source (``d32``, ``d16``) as ``Z``. The string attribute ``mipviewFormat``
names the format; reading a file that carries it gives back that format's storage values, bit
for bit (each float is re-encoded with the format's rounding and must land exactly on what
:func:`encode` writes for the code it gives, else the file is refused). A file without it is
read as half or float, in the channels it has.

The OpenEXR Python binding writes only level 0 of a mip-mapped tiled image (the other levels'
tiles are left out and the file is unreadable), so each level is its own scanline file,
``name.levelNN.exr``; an array's layers are the parts of each level's file (``layer00``...).
Opening ``name.levelKK.exr`` takes it as level 0 and ``name.level(KK+1).exr``... as the chain.

A cube map or cube array (mipview.core.cube: 6 n layers) is written as such an array, its faces
the parts in layer order (named ``cube00.px``, ``cube00.nx``...), every part carrying the string
attribute ``mipviewCube`` (the face order, "+X -X +Y -Y +Z -Z"), which makes mipview read it
back as a cube. Other tools see a multi-part EXR of square images; an EXR without the attribute
reads as an array when its parts hold the same channels. (OpenEXR's own cube layout, the ``envmap`` attribute
with the six faces stacked in one tall image, is neither written nor read.)

Files of other tools are read as renderers write them (mipview.io.containers.exr_channels):
each part judged on its own channels; its first colour image (R G B A, or luminance/chroma Y
RY BY converted as OpenEXR does, mipview.io.containers.exr_yca) read unless the path chooses
another (``image.exr#Z``, ``#forward.u``, ``#part=1``: mipview.io.containers.exr_choice), with
a note of what else it holds; a lone channel of any name as one channel. A depth run asks
:func:`depth_choice` for the file's Z.

Volumes (3D textures) are neither written nor read: EXR has no 3D images, and
:func:`mipview.io.containers.export` refuses a volume for EXR (export KTX2 or DDS).

The OpenEXR package is imported only when an EXR is written or read, so the core and the GPU
code import without it.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import numpy as np

from mipview.core import formats
from mipview.core.cube import FACE_NAMES, FACES
from mipview.core.formats import Format, level_size
from mipview.io.containers import exr_channels, exr_choice, exr_layout
from mipview.io.containers.exr_choice import Choice
from mipview.io.containers.texture import (
    ContainerError,
    HeldImage,
    PixelCheck,
    TextureFile,
    check_cube,
    check_level_count,
    level_shape,
    written_layers,
)

_LEVEL_NAME = re.compile(r"^(?P<stem>.*)\.level(?P<level>\d{2,})\.exr$", re.IGNORECASE)
#: the header attribute (a string) that names the mipview format of a file's levels
FORMAT_ATTRIBUTE = "mipviewFormat"
#: the header attribute (a string) that marks a file's parts as cube faces, and its value: the
#: faces' order within each cube
CUBE_ATTRIBUTE = "mipviewCube"
CUBE_ORDER = "+X -X +Y -Y +Z -Z"


_OUTPUT_LOCK = threading.Lock()


@contextlib.contextmanager
def _library_output() -> Iterator[list[str]]:
    """Collect what the OpenEXR library prints (its C++ error handler on descriptor 2, the
    binding's warnings through Python's stdout) into the yielded list, so that a corrupt file
    ends in one line of ours. One thread at a time: the streams belong to the process."""
    said: list[str] = []
    python_side = io.StringIO()
    with _OUTPUT_LOCK, tempfile.TemporaryFile() as sink:
        sys.stdout.flush()
        sys.stderr.flush()
        saved = [os.dup(1), os.dup(2)]
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        try:
            with contextlib.redirect_stdout(python_side), contextlib.redirect_stderr(python_side):
                yield said
        finally:
            for fd, original in enumerate(saved, start=1):
                os.dup2(original, fd)
                os.close(original)
            sink.seek(0)
            said[:0] = (sink.read().decode("utf-8", "replace").splitlines()
                        + python_side.getvalue().splitlines())


def _openexr() -> ModuleType:
    try:
        import OpenEXR
    except ImportError:
        raise ContainerError("EXR files need the OpenEXR package (pip install OpenEXR)") from None
    return OpenEXR


def level_name(stem: str, level: int) -> str:
    """File name of ``level`` of a chain written as ``stem``: ``stem.levelNN.exr``."""
    return f"{stem}.level{level:02d}.exr"


# --- writing -------------------------------------------------------------------------------------
def encode(levels: list[np.ndarray] | tuple[np.ndarray, ...], fmt: Format,
           faces: int = 1) -> list[bytes]:
    """One EXR file per level of ``levels`` (storage values of ``fmt``): the channels
    :func:`_written` and :func:`_channels` make of them, ZIP compression (lossless), the format
    named in the ``mipviewFormat`` attribute; (layers, H, W, 4) levels become one part per
    layer. ``faces`` 6: the layers are cube faces (6 n, N, N, 4), marked ``mipviewCube``."""
    exr = _openexr()
    first = np.asarray(levels[0])
    layers = written_layers(first, faces)
    cube = {CUBE_ATTRIBUTE: CUBE_ORDER} if faces == FACES else {}

    def header() -> dict[str, object]:  # a new one each time: the binding fills in its windows
        return {"compression": exr.ZIP_COMPRESSION, "type": exr.scanlineimage,
                FORMAT_ATTRIBUTE: fmt.label, **cube}

    out = []
    for p, level in enumerate(levels):
        a = np.ascontiguousarray(level, dtype=fmt.dtype)
        shape = level_shape(int(first.shape[-2]), int(first.shape[-3]), p, layers)
        if a.shape != shape:
            raise ValueError(f"level {p} is {a.shape}, expected {shape}")
        a = _written(a, fmt)
        if layers is None:
            file = exr.File(header(), _channels(a, fmt))
        else:
            file = exr.File([exr.Part(header(), _channels(a[i], fmt), _part_name(i, faces))
                             for i in range(layers)])
        buf = io.BytesIO()
        file.write(buf)
        out.append(buf.getvalue())
    return out


def _part_name(layer: int, faces: int) -> str:
    """``layer03``, or a cube face's ``cube01.py``: what other tools list the parts as."""
    if faces == FACES:
        return f"cube{layer // FACES:02d}.{FACE_NAMES[layer % FACES]}"
    return f"layer{layer:02d}"


def _written(a: np.ndarray, fmt: Format) -> np.ndarray:
    """Storage values (..., 4) of ``fmt`` -> the float texels its EXR holds: float formats as
    they are, b10g11r11 as half (exact), UNORM ones decoded to float32 (linear light for sRGB
    colour), which re-encode to their codes exactly (``_stored``)."""
    if fmt.packing == "float11":
        return a.astype(np.float16)
    if fmt.is_float:
        return a
    return formats.decode(a, fmt).astype(np.float32)


def _channels(a: np.ndarray, fmt: Format) -> dict[str, np.ndarray]:
    """The EXR channels of one (H, W, 4) image of ``fmt``: RGBA, RGB for b10g11r11 (it has no
    alpha), the format's own R [G], or a one-channel depth source's Z (what engines and DCC
    tools name a depth channel)."""
    if fmt.packing == "float11":
        return {"RGB": np.ascontiguousarray(a[..., :3])}
    if fmt.channels == 4:
        return {"RGBA": np.ascontiguousarray(a)}
    names = "Z" if fmt.depth_source and fmt.channels == 1 else "RG"[:fmt.channels]
    return {name: np.ascontiguousarray(a[..., i]) for i, name in enumerate(names)}


# --- reading -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Decoded:
    """One EXR file read: its image(s) (H, W, 4) or (parts, H, W, 4) float16/float32, what was
    read of it, the notes for its user, the mipview attributes of its first part read."""

    image: np.ndarray
    offer: exr_channels.Offer
    notes: tuple[str, ...]
    attrs: dict[str, object]
    images: tuple[HeldImage, ...] = ()


def _decode(data: bytes, check_pixels: PixelCheck, choice: Choice | None) -> _Decoded:
    """Read one EXR file: every part decoded, then the offer ``choice`` names
    (mipview.io.containers.exr_channels) made into the image, or one per part for an array."""
    parts = exr_layout.check(data)
    check_pixels(sum(p.width * p.height for p in parts),
                 f"{parts[0].width}x{parts[0].height}"
                 + (f" x {len(parts)} parts" if len(parts) > 1 else ""))
    exr = _openexr()
    error, decoded = "", []
    with _library_output() as said:
        try:
            file = exr.File(io.BytesIO(data), separate_channels=True)
            decoded = list(file.parts)
        except (RuntimeError, ValueError, TypeError, OSError) as e:
            error = str(e)
    if len(decoded) != len(parts):
        # on a corrupt chunk the library prints the reason and leaves that part out
        detail = next((line.strip() for line in [*said, error] if line.strip()
                       and not line.startswith("Warning:")),
                      f"{len(decoded)} of {len(parts)} parts decoded")
        raise ContainerError(f"OpenEXR could not decode it: "
                             f"{detail.replace('<python_buffer>: ', '')}")
    if said:  # a file that decoded: whatever the library said is the user's to see
        print("\n".join(said), file=sys.stderr)
    # the part names from the headers: the binding's Part.name fails on subsampled channels
    named = [(layout.name, list(p.channels)) for layout, p in zip(parts, decoded, strict=True)]
    chosen = exr_channels.resolve(named, choice)
    images = [_image(decoded[o.part], o) for o in chosen]
    first = decoded[chosen[0].part].header
    attrs = {k: first[k] for k in (FORMAT_ATTRIBUTE, CUBE_ATTRIBUTE) if k in first}
    notes = _level_notes(parts[chosen[0].part])
    if len(chosen) == 1 and choice is None:
        every = [o for i, (_, names) in enumerate(named) for o in exr_channels.offers(i, names)]
        note = exr_channels.others(chosen[0], every)
        notes += (note,) if note else ()
    shapes = {im.shape for im in images}
    if len(images) > 1 and len(shapes) == 1:
        return _Decoded(np.stack(images), chosen[0], notes, attrs)
    if len(images) > 1:
        notes += (f"first of {len(images)} parts (their sizes differ)",)
    held = exr_channels.held(named, chosen[0]) if len(chosen) == 1 else ()
    return _Decoded(images[0], chosen[0], notes, attrs, held)


def _image(part: object, offer: exr_channels.Offer) -> np.ndarray:
    """The (H, W, 4) image of ``offer`` from a part as the OpenEXR binding decoded it."""
    channels = part.channels  # type: ignore[attr-defined]
    pixels = {n: np.asarray(channels[n].pixels) for n in offer.channels}
    sampling = {n: (int(channels[n].xSampling), int(channels[n].ySampling))
                for n in offer.channels}
    chromaticities = part.header.get("chromaticities")  # type: ignore[attr-defined]
    return exr_channels.image(offer, pixels, sampling, chromaticities)


def _level_notes(part: exr_layout.Part) -> tuple[str, ...]:
    """What a tiled part's stored levels come to: the OpenEXR Python binding reads level 0 of
    a mip- or rip-mapped part and nothing else, so its chain cannot be checked."""
    if part.tile_levels > 1:
        return (f"a tiled EXR with {part.tile_levels} mip levels: the OpenEXR Python binding "
                f"reads level 0 only, so its chain is not checked",)
    if part.rip_levels != (1, 1):
        nx, ny = part.rip_levels
        return (f"a rip-mapped tiled EXR ({nx}x{ny} levels): the OpenEXR Python binding reads "
                f"level 0 only, so its levels are not checked",)
    return ()


def depth_choice(data: bytes, choice: Choice | None) -> str | None:
    """What to put after ``#`` to read the depth of an EXR read as ``choice``: its channel
    ``Z`` (the part read first, then the others; a layer's ``*.Z`` after a plain ``Z``); None
    when a choice was made or the file has no Z. Reads the headers only."""
    if choice is not None:
        return None
    parts = exr_layout.check(data)
    found = [(i, name) for i, p in enumerate(parts) for name in p.channels
             if name.rpartition(".")[2] == "Z"]
    if not found:
        return None
    i, name = min(found, key=lambda f: (f[1] != "Z", f[0]))
    with contextlib.suppress(ContainerError):
        read = exr_channels.resolve([(p.name, list(p.channels)) for p in parts], None)
        if read[0].part == i and read[0].channels == (name,):
            return None  # the Z is what the file reads anyway (a depth buffer of its own)
    return name if len(parts) == 1 else f"part={i},{name}"


def _recorded_faces(attrs: dict[str, object], level0: np.ndarray) -> int:
    """6 when the file marks its parts as cube faces (``mipviewCube``), once they are whole
    cubes of square faces; else 1."""
    if CUBE_ATTRIBUTE not in attrs:
        return 1
    value = attrs[CUBE_ATTRIBUTE]
    if value != CUBE_ORDER:
        raise ContainerError(f"its {CUBE_ATTRIBUTE} attribute is {value!r}: mipview writes "
                             f"{CUBE_ORDER!r}, the order of the faces")
    parts = int(level0.shape[0]) if level0.ndim == 4 else 1
    if parts % FACES:
        raise ContainerError(f"its {CUBE_ATTRIBUTE} attribute marks a cube map, but its "
                             f"{parts} part{'s' if parts != 1 else ''} of one size are not six "
                             f"faces a cube")
    check_cube(int(level0.shape[-2]), int(level0.shape[-3]))
    return FACES


def _recorded_format(label: object) -> Format | None:
    """The format a ``mipviewFormat`` attribute names (None without one)."""
    if label is None:
        return None
    if isinstance(label, str):
        with contextlib.suppress(ValueError):
            return Format.parse(label)
    names = ", ".join(f.label for f in Format)
    raise ContainerError(f"its {FORMAT_ATTRIBUTE} attribute names no mipview format "
                         f"({label!r}; mipview writes {names})")


def _stored(image: np.ndarray, fmt: Format) -> np.ndarray:
    """The storage values of ``fmt`` that :func:`encode` wrote as the floats ``image`` (what
    :func:`_decode` read): each re-encoded with the format's rounding, then written again and
    compared, so a value off the format's grid (an edited file, another tool's) is refused
    rather than rounded into a code it never was."""
    with np.errstate(invalid="ignore", over="ignore"):  # NaN or huge in a UNORM file: off grid
        if fmt.is_float and not fmt.packing:
            values = image.astype(fmt.dtype)
        else:
            values = formats.round_to_grid(formats.encode(image, fmt), fmt).astype(fmt.dtype)
        values = fmt.held(values)
    again = _written(values, fmt).astype(np.float64)
    read = image.astype(np.float64)
    off = ~((again == read) | (np.isnan(again) & np.isnan(read)))
    if off.any():
        raise ContainerError(_off_grid(read, off, fmt))
    return np.ascontiguousarray(values)


def _off_grid(read: np.ndarray, off: np.ndarray, fmt: Format) -> str:
    """One line: how many texels of ``read`` hold values off ``fmt``'s grid (``off``), and the
    first of them, where a user can find it."""
    *layer, y, x, c = np.argwhere(off)[0]
    where = f"layer {layer[0]}, " if layer else ""
    return (f"its {FORMAT_ATTRIBUTE} attribute says {fmt.label}, but "
            f"{np.count_nonzero(off.any(axis=-1))} of {off[..., 0].size} texels hold values "
            f"off that format's grid (the first: {'RGBA'[c]} = {read[(*layer, y, x, c)]:.9g} "
            f"at {where}x {x}, y {y})")


def _in_format(image: np.ndarray, fmt: Format | None, label: object,
               first_label: object) -> np.ndarray:
    """A level as ``read`` returns it: the floats as they are without a recorded format, else
    the storage values of level 0's (a level without the attribute, which tools that re-save a
    file drop, is taken to be of that format too)."""
    if fmt is None:
        return image
    if label is not None and label != first_label:
        raise ContainerError(f"its {FORMAT_ATTRIBUTE} attribute is {label!r}, level 0's "
                             f"{first_label!r}")
    return _stored(image, fmt)


def read(path: str, data: bytes, check_pixels: PixelCheck) -> TextureFile:
    """Decode an EXR file, and when its name is ``stem.levelKK.exr``, the levels after it: in
    the format its ``mipviewFormat`` attribute names, else half or float. A path ending in
    ``#CHOICE`` (mipview.io.containers.exr_choice) reads that part, layer or channel of each.
    Raises ContainerError (or what ``check_pixels`` raises)."""
    path, choice = exr_choice.split(path)
    name = Path(path).name + (f"#{choice}" if choice else "")
    first_read = _decode(data, check_pixels, choice)
    level0, notes = first_read.image, list(first_read.notes)
    attrs = first_read.attrs
    first_label = attrs.get(FORMAT_ATTRIBUTE)
    fmt = _recorded_format(first_label)
    faces = _recorded_faces(attrs, level0)
    dtypes = [level0.dtype]  # of the floats in the files, which the description names
    levels = [_in_format(level0, fmt, first_label, first_label)]
    match = _LEVEL_NAME.match(Path(path).name)
    if match:
        height, width = level0.shape[-3:-1]
        first = int(match["level"])
        for k in range(1, 64):
            sibling = Path(path).with_name(level_name(match["stem"], first + k))
            if not sibling.is_file():
                break
            check_level_count(k + 1, width, height)
            try:
                sibling_data = sibling.read_bytes()
            except OSError as e:
                raise ContainerError(f"cannot read {sibling.name}: {e.strerror or e}") from None
            try:
                sibling_read = _decode(sibling_data, check_pixels, choice)
                level = sibling_read.image
                label = sibling_read.attrs.get(FORMAT_ATTRIBUTE)
                dtypes.append(level.dtype)
                level = _in_format(level, fmt, label, first_label)
            except ContainerError as e:
                raise ContainerError(f"{sibling.name}: {e}") from None
            shape = level_shape(width, height, k, level0.shape[0] if level0.ndim == 4 else None)
            if level.shape != shape:
                w, h = level_size(width, height, k)
                raise ContainerError(f"{sibling.name} is not level {k} of this chain: "
                                     f"{level.shape[-2]}x{level.shape[-3]}, a {width}x{height} "
                                     f"level 0 makes it {w}x{h}")
            levels.append(level)
    dtype = np.result_type(*dtypes)
    kinds = {np.dtype(np.float16): "half", np.dtype(np.float32): "float"}
    names = first_read.offer.described()
    if fmt is not None:
        return TextureFile(name, "EXR", f"{kinds[np.dtype(dtype)]} {names} as {fmt.label}",
                           fmt, tuple(levels), None, tuple(notes), faces,
                           images=first_read.images)
    fmt = Format.holding(first_read.offer.held(), np.dtype(dtype))
    assert fmt is not None  # half or float, in 1, 2 or 4 channels: all in the table
    if fmt.element is Format.F32 and any(a.dtype != np.float32 for a in levels):
        notes.append("half and float channels mixed: read as float")
    return TextureFile(name, "EXR", f"{kinds[np.dtype(dtype)]} {names}", fmt,
                       tuple(np.ascontiguousarray(a, dtype) for a in levels), None, tuple(notes),
                       faces, images=first_read.images)
