"""What a texture file holds once decoded: every level of its chain, in a mipview format.

Plain data (frozen, read-only arrays), so it crosses threads with the source image that carries
it (``imageio.SourceImage.texture``). Imports nothing of imageio: imageio dispatches to the
readers of this package, so the readers stay below it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mipview.core.cube import FACES, cube_count
from mipview.core.errors import MipviewError
from mipview.core.formats import Format, level_size, mip_count
from mipview.core.nonfinite import count_nonfinite
from mipview.core.results import StrategyResult
from mipview.core.specs import StrategySpec
from mipview.core.volume import volume_level_size, volume_mip_count

#: name of the pseudo-strategy a file's own chain is reported under ("file:name=a.ktx2")
FILE_SPEC_NAME = "file"

#: ``check_pixels(texels, what)`` raises when a header claims more texels than mipview opens
#: (imageio passes its MAX_PIXELS check, which names the file)
PixelCheck = Callable[[int, str], None]


class ContainerError(MipviewError):
    """A texture file mipview cannot read; the message says why (the caller adds the name)."""


def check_magic(data: bytes, magic: bytes, container: str) -> None:
    """A file that starts with ``magic``; a file that is only part of it is truncated."""
    if not data.startswith(magic):
        if magic.startswith(data):
            raise ContainerError(f"truncated {container} file ({len(data)} bytes)")
        article = "an" if container[0] in "AEIOU" else "a"
        raise ContainerError(f"not {article} {container} file (wrong magic)")


def level_shape(width: int, height: int, level: int, layers: int | None) -> tuple[int, ...]:
    """Storage shape of ``level``: (H, W, 4), or (layers, H, W, 4) for arrays (``layers`` not
    None)."""
    w, h = level_size(width, height, level)
    return (h, w, 4) if layers is None else (layers, h, w, 4)


# --- volumes -------------------------------------------------------------------------------------
# level k of W x H x D is max(1, W >> k) x max(1, H >> k) x max(1, D >> k), down to 1x1x1
# (mipview.core.volume)
def volume_level_shape(width: int, height: int, depth: int, level: int) -> tuple[int, ...]:
    """Storage shape (D, H, W, 4) of ``level`` of a volume."""
    w, h, d = volume_level_size(width, height, depth, level)
    return (d, h, w, 4)


def volume_words(width: int, height: int, depth: int) -> str:
    """"volume 64x64x32"."""
    return f"volume {width}x{height}x{depth}"


def written_volume(first: np.ndarray, faces: int, count: int) -> tuple[int, int, int]:
    """(width, height, depth) of a volume to write whose level 0 is ``first``, (D, H, W, 4), in
    a chain of ``count`` levels; a volume has no faces, is no array and has at most
    :func:`volume_mip_count` levels (ValueError otherwise)."""
    if faces != 1:
        raise ValueError(f"a volume has no cube faces (faces {faces})")
    if first.ndim != 4 or first.shape[-1] != 4:
        raise ValueError(f"a volume's levels are (D, H, W, 4), got {first.shape}")
    depth, height, width = (int(n) for n in first.shape[:3])
    most = volume_mip_count(width, height, depth)
    if count > most:
        raise ValueError(f"{count} levels, but a {width}x{height}x{depth} volume has at most "
                         f"{most}")
    return width, height, depth


def file_level(level: np.ndarray, fmt: Format, shape: tuple[int, ...], p: int) -> np.ndarray:
    """Level ``p`` (storage values of ``fmt``) as a file holds it: little-endian, the format's
    own channels (packed formats: their words); ValueError unless it has ``shape``."""
    data = np.ascontiguousarray(level, dtype=fmt.dtype.newbyteorder("<"))
    if data.shape != shape:
        raise ValueError(f"level {p} is {data.shape}, expected {shape}")
    return fmt.pack(data)


def check_volume_level_count(count: int, width: int, height: int, depth: int) -> None:
    """A volume's chain cannot have more levels than :func:`volume_mip_count`."""
    most = volume_mip_count(width, height, depth)
    if count > most:
        raise ContainerError(f"the header claims {count} mip levels, but a {width}x{height}x"
                             f"{depth} volume has at most {most}")


def check_cube(width: int, height: int) -> None:
    """A cube's faces are square (every API's rule, and the only way its edges meet)."""
    if width != height:
        raise ContainerError(f"a cube map with {width}x{height} faces: a cube's faces are "
                             f"square")


def written_layers(first: np.ndarray, faces: int) -> int | None:
    """The layers of a chain to write whose level 0 is ``first``: None for one 2D image, else
    its first axis. A cube (``faces`` 6) must be (6 n, N, N, 4): ValueError names the shape,
    ContainerError non-square faces."""
    if faces not in (1, FACES):
        raise ValueError(f"faces is 1, or 6 for a cube map, not {faces}")
    layers = int(first.shape[0]) if first.ndim == 4 else None
    if faces == FACES:
        if layers is None or layers % FACES:
            raise ValueError(f"a cube map's levels are (6 n, N, N, 4), got {first.shape}")
        check_cube(int(first.shape[-2]), int(first.shape[-3]))
    return layers


def cube_words(layers: int) -> str:
    """"cube map" for 6 layers, "cube array of n" for 6 n."""
    cubes = cube_count(layers)
    return "cube map" if cubes == 1 else f"cube array of {cubes}"


def check_level_count(count: int, width: int, height: int) -> None:
    """A chain cannot have more levels than ``mip_count`` (down to 1x1)."""
    most = mip_count(width, height)
    if count > most:
        raise ContainerError(f"the header claims {count} mip levels, but a {width}x{height} "
                             f"image has at most {most}")


def _hdr_notes(level0: np.ndarray) -> tuple[str, ...]:
    """What a user should know about float texels: non-finite ones, negative ones."""
    notes = []
    bad = count_nonfinite(level0)
    if bad:
        notes.append(f"level 0 has {bad.describe()}")
    with np.errstate(invalid="ignore"):
        negative = int(np.count_nonzero((level0 < 0).any(axis=-1)))
    if negative:
        notes.append(f"level 0 has {negative} texel{'s' if negative != 1 else ''} with negative "
                     f"values (kept as they are)")
    return tuple(notes)


@dataclass(frozen=True)
class HeldImage:
    """One image of a file that holds several (an EXR's layers, parts, a Z beside its colour):
    what it is (``R, G, B, A``, ``part 1: Z``) and what follows ``#`` in the path to read it
    ("" for the image the file gives without a choice); ``read`` when it is the one read."""

    words: str
    suffix: str
    read: bool = False


@dataclass(frozen=True)
class TextureFile:
    """A texture file decoded: ``levels[0]`` is the source image, ``levels[1:]`` the file's own
    mip chain (none when the file has one level).

    Attributes
    ----------
    name : the file name (for an EXR level set, the file of level 0).
    container : "KTX2", "DDS", "EXR" or "NPY".
    pixel_format : the format as the file names it (e.g. "VK_FORMAT_BC7_SRGB_BLOCK").
    fmt : the mipview format of ``levels`` (block-compressed levels decode to UNORM or SRGB).
    levels : storage values per level, (H, W, 4) or (layers, H, W, 4), read-only; a cube map's
        are (6 n, N, N, 4) even for one cube (mipview.core.cube: cube c's face f at 6 c + f); a
        volume's (D, H, W, 4) even for D = 1.
    decoded_from : the block compression the levels were decoded from ("BC7"), else None: the
        check of such a chain shows compression error plus filter error.
    notes : what a user should know (orientation flipped, non-finite or negative texels...).
    faces : 6 for a cube map or cube array, else 1.
    volume : a volume (3D texture): ``levels`` are (D, H, W, 4), slice z = 0 first, level k
        max(1, W >> k) x max(1, H >> k) x max(1, D >> k). Its slices are no array layers:
        ``layers`` is 1, ``depth`` D.
    images : every image the file holds when it holds more than one to choose among (an
        EXR's; :class:`HeldImage`), the one read marked; () otherwise.
    """

    name: str
    container: str
    pixel_format: str
    fmt: Format
    levels: tuple[np.ndarray, ...]
    decoded_from: str | None = None
    notes: tuple[str, ...] = ()
    faces: int = 1
    volume: bool = False
    images: tuple[HeldImage, ...] = ()

    def __post_init__(self) -> None:
        if self.levels and self.volume:
            width, height, depth = written_volume(self.levels[0], self.faces, len(self.levels))
            for k, a in enumerate(self.levels):
                shape = volume_level_shape(width, height, depth, k)
                if a.shape != shape:
                    raise ValueError(f"level {k} of a volume is {a.shape}, expected {shape}")
        elif self.levels:
            written_layers(self.levels[0], self.faces)  # a cube is whole cubes of square faces
        for a in self.levels:
            a.setflags(write=False)
        if self.fmt.is_float and self.levels:  # (dataclasses.replace comes through here again)
            extra = tuple(n for n in _hdr_notes(self.levels[0]) if n not in self.notes)
            object.__setattr__(self, "notes", self.notes + extra)

    @property
    def width(self) -> int:
        return int(self.levels[0].shape[-2])

    @property
    def height(self) -> int:
        return int(self.levels[0].shape[-3])

    @property
    def layers(self) -> int:
        """Array layers (a cube's faces); 1 for a volume, whose slices are no layers."""
        a = self.levels[0]
        return int(a.shape[0]) if a.ndim == 4 and not self.volume else 1

    @property
    def depth(self) -> int:
        """Slices of a volume's level 0; 1 for anything else."""
        return int(self.levels[0].shape[0]) if self.volume else 1

    @property
    def has_chain(self) -> bool:
        return len(self.levels) > 1

    @property
    def is_cube(self) -> bool:
        return self.faces == FACES

    def description(self) -> str:
        """E.g. "KTX2 VK_FORMAT_R8G8B8A8_SRGB, 2 layers, 6 levels", "..., cube map, 6 levels",
        "..., cube array of 2, 6 levels", "KTX2 VK_FORMAT_R8_UNORM, volume 64x64x32, 7
        levels"."""
        parts = [f"{self.container} {self.pixel_format}"]
        if self.volume:
            parts.append(volume_words(self.width, self.height, self.depth))
        elif self.is_cube:
            parts.append(cube_words(self.layers))
        elif self.levels[0].ndim == 4:
            parts.append(f"{self.layers} layer{'s' if self.layers != 1 else ''}")
        n = len(self.levels)
        parts.append(f"{n} level{'s' if n != 1 else ''}")
        if self.decoded_from:
            parts.append(f"decoded from {self.decoded_from}")
        return ", ".join(parts)

    def mismatch(self, fmt: Format, level0: np.ndarray) -> str:
        """Why this chain cannot be checked against a run of ``level0`` in ``fmt``; "" when it
        can: the file has a chain, and ``level0`` is its level 0, value for value.

        8-bit files can be checked as UNORM or SRGB alike (the bytes are the same; legacy DDS
        headers do not say which): :meth:`as_result` then notes the reinterpretation."""
        if not self.has_chain:
            return "the file holds one level, no chain"
        if fmt.dtype != self.fmt.dtype or fmt.packing != self.fmt.packing:
            return (f"the file's levels are {self.fmt.label}, the run is {fmt.label} "
                    f"(run it as {self.fmt.label} to check them)")
        mine = self.levels[0]
        if level0.shape != mine.shape or not np.array_equal(
                np.asarray(level0).view(np.uint8), mine.view(np.uint8)):
            return "level 0 of the run is not the file's level 0 (e.g. --layers made others)"
        return ""

    def as_result(self, fmt: Format | None = None) -> StrategyResult:
        """The file's chain as a result like a strategy's ("file:name=<file name>"), held to the
        ``file`` promise (mipview.check.verdict: correctly rounded levels, however the tool made them),
        in ``fmt`` (default: its own). Check :meth:`mismatch` first."""
        fmt = fmt or self.fmt
        if fmt.dtype != self.fmt.dtype or fmt.packing != self.fmt.packing:
            raise ValueError(self.mismatch(fmt, self.levels[0]))
        notes = list(self.notes)
        if self.decoded_from:
            notes.append(f"levels decoded from {self.decoded_from}: errors include the "
                         f"compression error")
        if fmt != self.fmt:
            notes.append(f"stored as {self.fmt.label}, checked as {fmt.label}")
        return StrategyResult(spec=StrategySpec(FILE_SPEC_NAME, (("name", self.name),)),
                              levels=self.levels, notes=tuple(notes), promise="file")
