"""Loading source images, making synthetic ones, and saving mip levels.

Every loader path ends in one float32 RGBA array: colour as stored in the file (sRGB-encoded for
8/16-bit integer sources) normalised to [0, 1], raw values for float sources; grey replicated to
RGB, alpha 1 where the file has none. Any failure is an :class:`ImageLoadError` that names the
file and says what is wrong with it.
"""

from __future__ import annotations

import functools
import io
import os
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from PIL import Image, UnidentifiedImageError

from mipview.core.errors import MipviewError
from mipview.core.formats import Format, to_storage
from mipview.core.nonfinite import NonFinite, count_nonfinite, load_note
from mipview.io import atomic

if TYPE_CHECKING:
    from mipview.io.containers.texture import TextureFile

#: The most texels (all pages together) mipview opens: 32768 x 32768, the largest 2D image any
#: Vulkan device accepts (NVIDIA's maxImageDimension2D; most others stop at 16384), so a bigger
#: image could never run. Checked from the header, before anything is decoded.
MAX_PIXELS = 32768 * 32768

# MAX_PIXELS replaces Pillow's decompression-bomb guard: Pillow's default (89 Mpixel) warns
# straight to stderr from 9459^2 and refuses 16384^2 images that every device here can run.
Image.MAX_IMAGE_PIXELS = None


class ImageLoadError(MipviewError):
    """A source image could not be read; the message names the file and the reason."""


def _cannot_open(name: str, reason: str) -> ImageLoadError:
    return ImageLoadError(f"cannot open '{name}': {reason}")


@dataclass(frozen=True, init=False, eq=False)
class SourceImage:
    """A decoded source image.

    Attributes
    ----------
    pixels : float32 (H, W, 4) or (L, H, W, 4), read-only; [0, 1] for integer sources (colour
        as stored, i.e. sRGB-encoded), raw values for float sources. For 8-bit sources it is
        made from ``rgba8`` on first use (a 4096^2 image is 268 MB of float32: converting it
        was most of the time to open one, and the GPU path does not need it).
    rgba8 : uint8 (H, W, 4) or (L, H, W, 4), read-only: the samples of an 8-bit source
        (grey replicated, alpha 255 where the file has none); None for other sources.
    path : the file it came from, None for synthetic images.
    description : e.g. "PNG RGBA 8-bit".
    bit_depth : bits per sample in the file (1, 8, 16 or 32).
    is_float : whether the file holds float samples.
    grey : whether the file holds one grey channel and no alpha (a 16-bit one suggests r16).
    nonfinite : the texels holding NaN or +-Inf (float sources only; counted on first use),
        so a caller can say once that the input has them.
    texture : for a texture file (KTX2, DDS, EXR), every level it holds, in the format it
        stores them (:class:`mipview.io.containers.TextureFile`): level 0 is this image, the
        others the file's own chain to check. None for other images.
    faces : 6 for a cube map or cube array: ``pixels`` are then (6 n, N, N, 4), cube c's face f
        at layer 6 c + f (mipview.core.cube); 1 otherwise. A texture file gives its own.
    volume : a volume (3D image): ``pixels`` are (D, H, W, 4), slice z = 0 first; its slices
        are no array layers (``layers`` is 1, ``depth`` D). A texture file gives its own.

    ``SourceImage(pixels, ...)`` takes float32 pixels, or uint8 RGBA samples (then ``rgba8``).
    """

    path: str | None
    description: str
    bit_depth: int
    is_float: bool
    rgba8: np.ndarray | None
    texture: TextureFile | None
    grey: bool
    faces: int
    volume: bool

    def __init__(self, pixels: np.ndarray, path: str | None = None, description: str = "",
                 bit_depth: int = 8, is_float: bool = False,
                 texture: TextureFile | None = None, grey: bool = False, *,
                 faces: int = 1, volume: bool = False) -> None:
        p = pixels
        if p.ndim not in (3, 4) or p.shape[-1] != 4 or p.dtype not in (np.float32, np.uint8):
            raise ValueError(f"SourceImage wants float32 (or uint8) (H, W, 4) or (L, H, W, 4) "
                             f"pixels, got {p.dtype} {p.shape}")
        if texture is not None and faces == 1:
            faces = texture.faces
        if texture is not None and not volume:
            volume = texture.volume
        _check_faces(p, faces, texture)
        _check_volume(p, volume, faces, texture)
        if texture is not None and texture.fmt.channels == 1:
            # one channel opened in more is grey, as a greyscale PNG is: a depth opened in
            # rg32f starts a min+max pyramid with the depth in both (mipview.core.reductions)
            p = p.copy()
            p[..., 1:3] = p[..., :1]
        # shared across threads without copies: make accidental writes fail loudly
        p.setflags(write=False)
        for name, value in (("path", path), ("description", description),
                            ("bit_depth", bit_depth), ("is_float", is_float),
                            ("rgba8", p if p.dtype == np.uint8 else None),
                            ("texture", texture), ("grey", grey), ("faces", faces),
                            ("volume", volume)):
            object.__setattr__(self, name, value)
        if p.dtype == np.float32:
            self.__dict__["pixels"] = p  # what the cached property would return

    @functools.cached_property
    def pixels(self) -> np.ndarray:
        # the same float32 operations as every 8-bit loader path did before (bit for bit)
        assert self.rgba8 is not None
        out = self.rgba8.astype(np.float32)
        out *= np.float32(1.0 / 255.0)
        out.setflags(write=False)
        return out

    @functools.cached_property
    def nonfinite(self) -> NonFinite:
        return NonFinite() if self.rgba8 is not None else count_nonfinite(self.pixels)

    def nonfinite_note(self, fmt: Format) -> str:
        """What a run in ``fmt`` says once about this image's NaN and +-Inf texels ("" when
        it has none; only float files can hold them, so others are not counted)."""
        return load_note(self.name, self.nonfinite, fmt.is_float, int(fmt.one)) \
            if self.is_float else ""

    @property
    def _array(self) -> np.ndarray:
        """Whichever array is at hand, for shapes (never triggers the float conversion)."""
        return self.rgba8 if self.rgba8 is not None else self.pixels

    @property
    def width(self) -> int:
        return int(self._array.shape[-2])

    @property
    def height(self) -> int:
        return int(self._array.shape[-3])

    @property
    def layers(self) -> int:
        """Array layers (a cube's faces); 1 for a volume, whose slices are no layers."""
        a = self._array
        return int(a.shape[0]) if a.ndim == 4 and not self.volume else 1

    @property
    def depth(self) -> int:
        """A volume's slices; 1 for any other image."""
        return int(self._array.shape[0]) if self.volume else 1

    @property
    def is_cube(self) -> bool:
        return self.faces == 6

    @property
    def name(self) -> str:
        """File name, or the description for synthetic images."""
        return os.path.basename(self.path) if self.path else self.description

    def suggested_format(self) -> Format:
        """The format a texture file stores its levels in; F32 for other float files, R16 for
        16-bit grey files, F16 for other 16-bit integer files (RGB(A), grey+alpha), UNORM
        otherwise."""
        if self.texture is not None:
            return self.texture.fmt
        if self.is_float:
            return Format.F32
        if self.bit_depth == 16 and self.grey:
            return Format.R16  # its 16-bit codes exactly (to_storage rounds them back)
        if self.bit_depth > 8:
            return Format.F16
        return Format.UNORM

    def storage(self, fmt: Format) -> np.ndarray:
        """Level 0 as ``fmt`` storage values (see :func:`mipview.core.formats.to_storage`).

        For an 8-bit source in an 8-bit format that is ``rgba8`` itself (read-only, not a
        copy): to_storage of its float pixels rounds back to exactly these bytes. For a texture
        file in the format it stores, its level 0 as stored (every bit, NaN payloads too)."""
        if self.texture is not None and fmt.dtype == self.texture.fmt.dtype \
                and fmt.channels == self.texture.fmt.channels \
                and fmt.packing == self.texture.fmt.packing:
            return self.texture.levels[0]
        if self.rgba8 is not None and fmt.dtype == np.uint8:
            return fmt.held(self.rgba8)  # as to_storage makes them: R and RG keep their own
        return to_storage(self.pixels, fmt)


def _check_faces(pixels: np.ndarray, faces: int, texture: TextureFile | None) -> None:
    """A cube's pixels are whole cubes of square faces, and agree with its texture's."""
    if faces not in (1, 6):
        raise ValueError(f"faces is 1, or 6 for a cube map, not {faces}")
    if texture is not None and texture.faces != faces:
        raise ValueError(f"faces {faces}, but the texture file has {texture.faces}")
    if faces == 6 and (pixels.ndim != 4 or pixels.shape[0] % 6
                       or pixels.shape[1] != pixels.shape[2]):
        raise ValueError(f"a cube map's pixels are (6 n, N, N, 4), got {pixels.shape}")


def _check_volume(pixels: np.ndarray, volume: bool, faces: int,
                  texture: TextureFile | None) -> None:
    """A volume's pixels are (D, H, W, 4), it has no faces, and it agrees with its texture."""
    if texture is not None and texture.volume != volume:
        raise ValueError(f"volume {volume}, but the texture file's is {texture.volume}")
    if volume and (pixels.ndim != 4 or faces != 1):
        raise ValueError(f"a volume's pixels are (D, H, W, 4) with no faces, got "
                         f"{pixels.shape} and faces {faces}")


def volume_refusal(source: SourceImage) -> str:
    """Why ``source`` cannot be used where volumes are not taken: "" for anything but a volume.
    One line (what :func:`load` says without ``volumes``), for callers that check a source they
    did not load, e.g. a synthetic volume."""
    if not source.volume:
        return ""
    what = source.texture.description() if source.texture is not None else \
        f"volume {source.width}x{source.height}x{source.depth}"
    return _volume_refusal(what)


def _volume_refusal(what: str) -> str:
    """E.g. "KTX2 VK_FORMAT_R8_UNORM, volume 64x64x32, 7 levels: this takes 2D textures,
    arrays and cube maps; volumes (3D textures) run with `mipview run`, `mipview bench` and in
    the window (opened alone)"."""
    return f"{what}: this takes 2D textures, arrays and cube maps; volumes (3D textures) run " \
           f"with `mipview run`, `mipview bench` and in the window, opened alone " \
           f"(docs/volumes.md)"


# --------------------------------------------------------------------------------------------
# loading

_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "PNG"),
    (b"\xff\xd8\xff", "JPEG"),
    (b"GIF87a", "GIF"),
    (b"GIF89a", "GIF"),
    (b"II*\x00", "TIFF"),
    (b"MM\x00*", "TIFF"),
    (b"BM", "BMP"),
)

# what a damaged file makes Pillow's decoders raise
_DECODE_ERRORS = (OSError, SyntaxError, ValueError, EOFError, IndexError, struct.error,
                  zlib.error)


def _sniff(data: bytes) -> str | None:
    for sig, kind in _SIGNATURES:
        if data.startswith(sig):
            return kind
    return None


def _rawmode(img: Image.Image) -> str:
    if len(img.tile) != 1:
        return ""
    args = img.tile[0].args
    if isinstance(args, tuple):
        args = args[0] if args else ""
    return args if isinstance(args, str) else ""


def _png16_colour(data: bytes, img: Image.Image) -> tuple[np.ndarray, str] | None:
    """16-bit RGB / RGBA / grey+alpha PNG at full precision, as uint16 (H, W, C).

    Pillow decodes these to 8 bits. Its zip decoder unfilters on raw bytes, so decoding the same
    stream a second time with the little-endian unpacker (which keeps the *other* byte of each
    big-endian sample) yields the low bytes; grey+alpha has the same pixel size as 8-bit RGBA,
    so the RGBA unpacker hands over all four bytes unchanged.
    """
    raw = _rawmode(img)
    if raw not in ("RGB;16B", "RGBA;16B", "LA;16B"):
        return None
    tile = img.tile[0]
    try:
        if raw == "LA;16B":
            with Image.open(io.BytesIO(data)) as im:
                im.tile = [tile._replace(args="RGBA")]
                im.load()
                b = np.asarray(im).astype(np.uint16)
            return np.stack([(b[..., 0] << 8) | b[..., 1], (b[..., 2] << 8) | b[..., 3]], -1), "LA"
        with Image.open(io.BytesIO(data)) as lo_im:
            lo_im.tile = [tile._replace(args=raw.replace(";16B", ";16L"))]
            lo_im.load()
            lo = np.asarray(lo_im).astype(np.uint16)
    except (ValueError, TypeError, AttributeError):
        # a Pillow without these unpackers: the caller falls back to its 8-bit decode
        return None
    img.load()
    hi = np.asarray(img).astype(np.uint16)
    out = (hi << 8) | lo
    key = img.info.get("transparency")
    if raw == "RGB;16B" and isinstance(key, tuple) and len(key) == 3:
        alpha = np.where(np.all(out == np.array(key, np.uint16), axis=-1), 0, 65535)
        out = np.concatenate([out, alpha[..., None].astype(np.uint16)], axis=-1)
        return out, "RGBA"
    return out, raw.split(";")[0]


def _rgba(channels: np.ndarray, scale: float | None) -> np.ndarray:
    """(H, W) or (H, W, C) with C in 1..4 -> float32 (H, W, 4), grey replicated, alpha 1."""
    c = channels.astype(np.float32)
    if scale is not None:
        c *= np.float32(1.0 / scale)
    if c.ndim == 2:
        c = c[..., None]
    h, w, n = c.shape
    out = np.empty((h, w, 4), np.float32)
    if n in (1, 2):
        out[..., :3] = c[..., :1]
    else:
        out[..., :3] = c[..., :3]
    out[..., 3] = c[..., -1] if n in (2, 4) else 1.0
    return out


def _rgba8(channels: np.ndarray) -> np.ndarray:
    """uint8 (H, W) or (H, W, C) with C in 1..4 -> uint8 (H, W, 4), grey replicated, alpha 255
    (what :func:`_rgba` with scale 255 gives, before its conversion to float)."""
    c = np.asarray(channels)
    if c.dtype != np.uint8:
        raise ValueError(f"8-bit samples expected, got {c.dtype}")
    if c.ndim == 2:
        c = c[..., None]
    h, w, n = c.shape
    if n == 4:
        return c
    out = np.empty((h, w, 4), np.uint8)
    out[..., :3] = c[..., :1] if n in (1, 2) else c[..., :3]
    out[..., 3] = c[..., -1] if n == 2 else 255
    return out


_GREY_NAMES = {"L": "grey", "LA": "grey+alpha", "RGB": "RGB", "RGBA": "RGBA"}


def _frame(img: Image.Image, data: bytes) -> tuple[np.ndarray, str, int, bool]:
    """The current frame as (pixels (H, W, 4), description, bit depth, is_float); pixels are
    uint8 samples for 8-bit sources (:func:`_rgba8`), float32 otherwise (:func:`_rgba`)."""
    mode = img.mode
    note = ""
    png16 = _png16_colour(data, img) if img.format == "PNG" else None
    if png16 is not None:
        arr, layout = png16
        return _rgba(arr, 65535.0), f"{_GREY_NAMES[layout]} 16-bit", 16, False
    raw = _rawmode(img)  # before load(), which empties the tile list
    img.load()
    if ";16" in raw and mode in ("RGB", "RGBA", "LA"):
        note = " (16-bit samples reduced to 8 bits by the decoder)"
    if mode in ("I;16", "I;16L", "I;16B", "I;16N"):
        return _rgba(np.asarray(img), 65535.0), "grey 16-bit", 16, False
    if mode == "I":
        a = np.asarray(img)
        if a.size == 0 or (a.min() >= 0 and a.max() <= 65535):
            return _rgba(a, 65535.0), "grey 16-bit", 16, False
        a = np.clip(a.astype(np.float64) / (2**31 - 1), 0.0, 1.0)
        return _rgba(a, None), "grey 32-bit integer", 32, False
    if mode == "F":
        return _rgba(np.asarray(img), None), "grey 32-bit float", 32, True
    if mode == "1":
        return _rgba8(np.asarray(img.convert("L"))), "1-bit", 1, False
    if "transparency" in img.info and mode in ("L", "RGB", "P"):
        label = "palette" if mode == "P" else _GREY_NAMES[mode]
        return (_rgba8(np.asarray(img.convert("RGBA"))),
                f"{label}+transparency 8-bit{note}", 8, False)
    if mode in ("L", "LA", "RGB", "RGBA"):
        return _rgba8(np.asarray(img)), f"{_GREY_NAMES[mode]} 8-bit{note}", 8, False
    if mode in ("P", "PA"):
        return _rgba8(np.asarray(img.convert("RGBA"))), "palette 8-bit", 8, False
    if mode in ("La", "RGBa"):  # premultiplied alpha
        target = "LA" if mode == "La" else "RGBA"
        return (_rgba8(np.asarray(img.convert(target))),
                f"{_GREY_NAMES[target]} 8-bit (un-premultiplied)", 8, False)
    has_alpha = "A" in mode
    return (_rgba8(np.asarray(img.convert("RGBA" if has_alpha else "RGB"))),
            f"{mode} 8-bit (converted to RGB)", 8, False)


def _orient(pixels: np.ndarray, orientation: int) -> np.ndarray:
    """Apply EXIF orientation like ``ImageOps.exif_transpose`` does (on the array, so it also
    covers the 16-bit path that bypasses Pillow's image)."""
    ops = {
        2: lambda a: a[:, ::-1],
        3: lambda a: a[::-1, ::-1],
        4: lambda a: a[::-1],
        5: lambda a: a.transpose(1, 0, 2),
        6: lambda a: np.rot90(a, -1),
        7: lambda a: a[::-1, ::-1].transpose(1, 0, 2),
        8: lambda a: np.rot90(a, 1),
    }
    op = ops.get(orientation)
    return pixels if op is None else np.ascontiguousarray(op(pixels))


def _orientation(img: Image.Image) -> int:
    try:
        value = img.getexif().get(0x0112, 1)
        return int(value) if isinstance(value, int) else 1
    except _DECODE_ERRORS:
        # broken EXIF should not make an otherwise readable image unreadable
        return 1


def _check_pixels(name: str, pixels: int, what: str) -> None:
    """Refuse more than MAX_PIXELS texels, before they are decoded."""
    if pixels > MAX_PIXELS:
        side = int(MAX_PIXELS ** 0.5)
        raise _cannot_open(name, f"{what} is {pixels:,} pixels, more than mipview opens "
                                 f"({MAX_PIXELS:,} = {side}x{side}: no Vulkan device holds a "
                                 f"larger 2D image)")


def _read(img: Image.Image, data: bytes, name: str) -> SourceImage:
    kind = img.format or "image"
    frames = int(getattr(img, "n_frames", 1) or 1)
    extra: list[str] = []
    if kind == "TIFF" and frames > 1:
        pages = []
        total = 0
        for i in range(frames):
            img.seek(i)
            total += img.width * img.height
            _check_pixels(name, total, f"{i + 1} pages ({img.width}x{img.height} the last)")
            pix, desc, bits, is_float = _frame(img, data)
            pages.append((_orient(pix, _orientation(img)), desc, bits, is_float))
        if len({p[0].dtype for p in pages}) > 1:  # 8-bit pages among deeper ones: float
            pages = [(_as_float(p[0]),) + p[1:] for p in pages]
        if len({p[0].shape for p in pages}) == 1:
            pixels = np.stack([p[0] for p in pages])
            extra.append(f"{frames} pages as layers")
        else:
            pixels = pages[0][0]
            extra.append(f"first of {frames} pages (page sizes differ)")
        _, desc, bits, is_float = pages[0]
        bits = max(p[2] for p in pages)
        is_float = any(p[3] for p in pages)
        grey = all(p[1] == "grey 16-bit" for p in pages)
    else:
        _check_pixels(name, img.width * img.height, f"{img.width}x{img.height}")
        pixels, desc, bits, is_float = _frame(img, data)
        grey = desc == "grey 16-bit"
        # after decoding: PNG keeps EXIF after the image data, so reading it loads the image,
        # which would leave the 16-bit path no undecoded tile to work from
        orientation = _orientation(img)
        pixels = _orient(pixels, orientation)
        if orientation in range(2, 9):
            extra.append("EXIF orientation applied")
        if frames > 1:
            extra.append(f"first of {frames} frames")
    description = f"{kind} {desc}" + "".join(f", {e}" for e in extra)
    dtype = np.uint8 if pixels.dtype == np.uint8 else np.float32
    return SourceImage(np.ascontiguousarray(pixels, dtype=dtype), name, description, bits,
                       is_float, grey=grey)


def _as_float(pixels: np.ndarray) -> np.ndarray:
    """float32 pixels of a frame: uint8 samples converted as SourceImage.pixels does."""
    if pixels.dtype != np.uint8:
        return pixels
    return SourceImage(pixels).pixels


_TIFF_SAMPLE_KINDS = {1: "unsigned integer", 2: "signed integer", 3: "float"}


def _tiff_unsupported_samples(data: bytes) -> str | None:
    """Why Pillow (mipview's decoder) cannot read a TIFF whose first IFD is well formed but names
    samples it has no mode for, e.g. 64-bit float; None when the IFD does not parse or its
    samples are ones Pillow reads (then the file is damaged or unusual in some other way)."""
    order = "<" if data[:2] == b"II" else ">"
    fields: dict[int, tuple[int, ...]] = {}
    try:
        (ifd,) = struct.unpack_from(order + "I", data, 4)
        (count,) = struct.unpack_from(order + "H", data, ifd)
        for i in range(count):
            tag, kind, n, inline = struct.unpack_from(order + "HHI4s", data, ifd + 2 + 12 * i)
            # BitsPerSample, SamplesPerPixel, SampleFormat: SHORTs, inline up to two
            if tag in (258, 277, 339) and kind == 3:
                raw = inline if n <= 2 else data[struct.unpack(order + "I", inline)[0]:]
                fields[tag] = struct.unpack_from(f"{order}{n}H", raw)
    except struct.error:
        return None
    bits, formats = set(fields.get(258, (1,))), set(fields.get(339, (1,)))
    samples = fields.get(277, (1,))[0]
    if len(bits) != 1 or len(formats) != 1:
        return None
    b, kind = bits.pop(), _TIFF_SAMPLE_KINDS.get(formats.pop())
    what = f"{b}-bit {kind} samples" + (f", {samples} per pixel" if samples > 1 else "")
    if kind == "float" and (b != 32 or samples != 1):
        return (f"{what} (Pillow, which mipview decodes with, reads float TIFF only as one "
                f"32-bit sample per pixel)")
    if kind is not None and b > 32:
        return (f"{what} (Pillow, which mipview decodes with, reads integer TIFF up to 32 bits "
                f"per sample)")
    return None


def load(path: str | os.PathLike[str], *, volumes: bool = False) -> SourceImage:
    """Read an image file (PNG 8/16-bit, JPEG, TIFF incl. float and multi-page, BMP, GIF, TGA...),
    or a texture file (KTX2, DDS, EXR: :mod:`mipview.io.containers`; every level it holds comes
    with it as ``texture``). A cube map file gives ``faces`` 6 and its faces as layers (6 n, N,
    N, 4); six face images make one with :func:`mipview.io.cube_faces.load_faces`.

    A volume (a 3D KTX2 or DDS, a ``*.volume.npy``) is opened only with ``volumes`` True
    (``volume`` True, pixels (D, H, W, 4)); by default it is refused in one line
    (:func:`volume_refusal`), so that no caller that knows only 2D images, arrays and cubes
    takes its slices for array layers.

    Raises
    ------
    ImageLoadError
        With a message that names the file and the reason.
    """
    name = os.fspath(path)
    p = Path(name)
    chosen = _chosen_part(name)  # "image.exr#Z": a part, layer or channel of an EXR
    if chosen is not None:
        p = Path(chosen)

    def fail(reason: str) -> ImageLoadError:
        return _cannot_open(name, reason)

    try:
        st = p.stat()
    except FileNotFoundError:
        raise fail("no such file") from None
    except OSError as e:
        raise fail(e.strerror or str(e)) from None
    if p.is_dir():
        raise fail("is a directory")
    if st.st_size == 0:
        raise fail("file is empty")
    try:
        data = p.read_bytes()
    except OSError as e:
        raise fail(e.strerror or str(e)) from None
    if not data:
        raise fail("file is empty")

    from mipview.io.containers import decode, exr_layout

    if chosen is not None and not data.startswith(exr_layout.MAGIC):
        raise fail("a # after the file name chooses a part, layer or channel of an EXR file; "
                   "this is no EXR")
    if decode.claims(name, data):
        return _load_texture(name, data, volumes)

    signed = _sniff(data)
    try:
        img = Image.open(io.BytesIO(data))
    except Image.DecompressionBombError as e:
        raise fail(f"image too large to decode safely ({e})") from None
    except UnidentifiedImageError:
        unsupported = _tiff_unsupported_samples(data) if signed == "TIFF" else None
        if unsupported:
            raise fail(f"unsupported TIFF variant: {unsupported}") from None
        if signed:
            raise fail(f"truncated or corrupt {signed} data") from None
        raise fail("not an image file (no known format signature)") from None
    except _DECODE_ERRORS as e:
        raise fail(f"truncated or corrupt {signed or 'image'} data ({e})") from None

    kind = img.format or signed or "image"
    try:
        with img:
            return _read(img, data, name)
    except Image.DecompressionBombError as e:
        raise fail(f"image too large to decode safely ({e})") from None
    except MemoryError:
        raise fail(f"not enough memory to decode a {img.width}x{img.height} image") from None
    except _DECODE_ERRORS as e:
        detail = str(e)
        if "unknown" in detail or "not supported" in detail or "unsupported" in detail:
            raise fail(f"unsupported {kind} variant ({detail})") from None
        raise fail(f"truncated or corrupt {kind} data ({detail})") from None


def _chosen_part(name: str) -> str | None:
    """The file of ``image.exr#CHOICE`` (mipview.io.containers.exr_choice) when no file has
    the whole name and one has the name before the last ``#``; else None."""
    if "#" not in name or os.path.lexists(name):
        return None
    base = name.rpartition("#")[0]
    return base if os.path.isfile(base) else None


def depth_source(source: SourceImage, fmt: Format, extremes: bool = False) -> SourceImage:
    """The source a depth run reads: an EXR opened without a choice (no ``#``) whose run is
    one of depth (``fmt`` a depth format or ``r32f``, or ``extremes``, a min/max reduction, in
    one or two channels) is read again as its ``Z`` channel, a render's depth beside its
    colour, so level 0 is Z bit for bit; a file without one says which channel it gives.
    Any other source is returned as it is."""
    texture = source.texture
    if (texture is None or texture.container != "EXR" or source.path is None or source.volume
            or source.layers > 1  # an array's parts are read as they are
            or texture.fmt.depth_source  # a depth chain mipview wrote (mipviewFormat)
            or not (fmt.depth_source or fmt is Format.R32F
                    or (extremes and fmt.channels <= 2))
            or _chosen_part(source.path) is not None):
        return source
    from dataclasses import replace

    from mipview.io.containers import exr
    from mipview.io.containers.texture import ContainerError

    try:
        z = exr.depth_choice(Path(source.path).read_bytes(), None)
    except (OSError, ContainerError):
        return source  # read once already: a file that changed since says so when reopened
    if z is None:
        if texture.fmt.channels == 1:
            return source  # a lone channel (a Z itself, a lone R): the depth as it is
        note = (f"{fmt.label} takes the depth from R: the file has no Z channel (FILE#NAME "
                f"reads another)")
    else:
        source = load(f"{source.path}#{z}")
        texture = source.texture
        assert texture is not None
        note = f"{fmt.label} reads the file's depth, channel {z} (FILE#R reads R instead)"
    return SourceImage(source.pixels, source.path, source.description, source.bit_depth,
                       source.is_float, replace(texture, notes=(note, *texture.notes)),
                       source.grey, faces=source.faces)


def _load_texture(name: str, data: bytes, volumes: bool) -> SourceImage:
    """A KTX2, DDS, EXR or NPY file: level 0 as the image, every level as ``texture``; a volume
    refused unless ``volumes``."""
    from mipview.io.containers.decode import decode_texture
    from mipview.io.containers.texture import ContainerError

    try:
        texture = decode_texture(name, data, lambda n, what: _check_pixels(name, n, what))
    except ContainerError as e:
        raise _cannot_open(name, str(e)) from None
    except MemoryError:
        raise _cannot_open(name, "not enough memory to decode it") from None
    if texture.volume and not volumes:
        raise _cannot_open(name, _volume_refusal(texture.description()))
    level0 = texture.levels[0]
    if texture.fmt.is_float:
        pixels = level0.astype(np.float32, copy=False)  # float16 -> float32 is exact
        return SourceImage(pixels, name, texture.description(), 8 * texture.fmt.dtype.itemsize,
                           True, texture)
    if texture.fmt.dtype != np.uint8:  # 16-bit (rgb10a2: 10-bit) UNORM codes, as _rgba scales
        pixels = level0.astype(np.float32) * (np.float32(1) / np.float32(texture.fmt.scale))
        return SourceImage(pixels, name, texture.description(), 16, False, texture)
    return SourceImage(level0, name, texture.description(), 8, False, texture)


# --------------------------------------------------------------------------------------------
# saving

PNG16_COMPRESSION = 3  # unfiltered 16-bit samples barely compress better at 6, at twice the time


def _png_chunk(tag: bytes, payload: bytes) -> bytes:
    return (struct.pack(">I", len(payload)) + tag + payload
            + struct.pack(">I", zlib.crc32(tag + payload) & 0xFFFFFFFF))


def encode_png16(rgba: np.ndarray) -> bytes:
    """A 16-bit RGBA PNG (colour type 6) of float values: clipped to [0, 1], NaN as 0, scaled by
    65535 and rounded. Pillow cannot write 16-bit RGBA, hence this small encoder."""
    a = np.asarray(rgba, dtype=np.float64)
    if a.ndim != 3 or a.shape[-1] != 4:
        raise ValueError(f"expected (H, W, 4) values, got shape {a.shape}")
    h, w, _ = a.shape
    samples = np.rint(np.clip(np.nan_to_num(a, nan=0.0), 0.0, 1.0) * 65535.0).astype(">u2")
    rows = np.empty((h, 1 + w * 8), np.uint8)
    rows[:, 0] = 0  # filter type None on every row
    rows[:, 1:] = samples.view(np.uint8).reshape(h, w * 8)
    ihdr = struct.pack(">IIBBBBB", w, h, 16, 6, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", ihdr)
            + _png_chunk(b"IDAT", zlib.compress(rows.tobytes(), PNG16_COMPRESSION))
            + _png_chunk(b"IEND", b""))


def _layer_path(p: Path, layer: int) -> Path:
    return p.with_name(f"{p.stem}_layer{layer:02d}{p.suffix or '.png'}")


def encode_npy(values: np.ndarray) -> bytes:
    """``.npy`` bytes (numpy's own format, read back with ``np.load``) of ``values`` as they are:
    every bit of a float16/float32 level, NaN payloads, infinities and values past [0, 1]
    included."""
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(values), allow_pickle=False)
    return buf.getvalue()


def save_level(path: str | os.PathLike[str], level_storage: np.ndarray,
               fmt: Format) -> list[Path]:
    """Write one level; returns every file written, in order.

    8-bit formats: one RGBA 8-bit PNG (storage bytes as-is, so sRGB stays sRGB); 16-bit UNORM
    ones a 16-bit PNG of their codes as they are (``r16`` grey, ``rgba16`` RGBA), ``rgb10a2``
    a 16-bit RGBA PNG of its values. Float formats:
    a 16-bit RGBA PNG to look at (clipped to [0, 1], NaN as 0), and beside it the exact storage
    values as ``.npy`` (same name, float16 or float32, bit for bit): the lossless copy, since no
    PNG holds negative, > 1 or non-finite values. ``(L, H, W, 4)`` writes the files of each layer
    with the suffix ``_layerNN``. Each file is written atomically (mipview.io.atomic).
    """
    a = np.asarray(level_storage)
    p = Path(path)
    if a.ndim == 4:
        return [f for i in range(a.shape[0]) for f in save_level(_layer_path(p, i), a[i], fmt)]
    if a.ndim != 3 or a.shape[-1] != 4:
        raise ValueError(f"expected (H, W, 4) or (L, H, W, 4) storage values, got {a.shape}")
    if fmt.is_float:
        # storage values untouched when they already are (a conversion could quiet a NaN)
        exact = a if a.dtype == fmt.dtype else to_storage(a, fmt)
        # a packed format's exact values are its float32 R, G, B (its words are in KTX2/DDS)
        own = exact[..., :3] if fmt.packing else fmt.pack(exact)
        files = [(p, encode_png16(a)), (p.with_suffix(".npy"), encode_npy(own))]
    elif fmt.dtype == np.uint16:
        if a.dtype != fmt.dtype:  # e.g. a float64 reference in storage units
            a = np.clip(np.rint(a), 0, fmt.scale).astype(fmt.dtype)
        if fmt.channels == 1:  # a 16-bit grey PNG (Pillow writes mode I;16 as such)
            png = io.BytesIO()
            Image.fromarray(np.ascontiguousarray(fmt.pack(a)[..., 0])).save(png, format="PNG")
            files = [(p, png.getvalue())]
        else:  # code / 65535 scaled by 65535 and rounded: the codes again (rgb10a2's codes
            # come back from its 16 bits: rint(v * 1023) of code / 1023 is 1/128 LSB off)
            files = [(p, encode_png16(a / fmt.scale))]
    else:
        if a.dtype != np.uint8:  # e.g. a float64 reference in storage units
            a = np.clip(np.rint(a), 0, 255).astype(np.uint8)
        # the format's own channels: r8 a grey PNG, rg8 an RGB one with blue 0 (PNG has no RG)
        own = fmt.pack(a)
        if fmt.channels == 2:
            own = np.concatenate([own, np.zeros_like(own[..., :1])], axis=-1)
        png = io.BytesIO()
        Image.fromarray(np.ascontiguousarray(own[..., 0] if fmt.channels == 1 else own)).save(
            png, format="PNG")
        files = [(p, png.getvalue())]
    written = []
    for target, data in files:
        try:
            written.append(atomic.write_atomic(target, data))
        except OSError as e:
            raise MipviewError(f"cannot write '{target}': {e.strerror or e}") from None
    return written


def read_chain(path: str | os.PathLike[str], *, volumes: bool = False) -> TextureFile:
    """The texture file at ``path``, every level decoded (``load(path).texture``); a volume only
    with ``volumes`` True (as :func:`load`).

    Raises ImageLoadError, naming the file: unreadable, malformed, or not a texture container."""
    texture = load(path, volumes=volumes).texture
    if texture is None:
        raise ImageLoadError(f"cannot open '{os.fspath(path)}': not a texture file "
                             f"(KTX2, DDS or EXR)")
    return texture
