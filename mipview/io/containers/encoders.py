"""Block compression of one level, by maintained encoders only (docs/compression.md says why
these): etcpak for BC1/BC3/BC4/BC5/BC7, ETC2 and EAC, Arm's astc-encoder for ASTC LDR and HDR.

A codec is asked for as text, ``bc7``, ``bc7:quality=4``, ``astc-6x6:quality=thorough``: the
name, then the encoder's own settings. :func:`parse_codecs` checks every name and setting before
anything runs; :func:`codec_reason` says why a codec cannot take a format (an sRGB image in a
one-channel codec, 8-bit codecs on floats...), which callers ask before the GPU runs.

Encoders take whole blocks: a level whose sides are not multiples of the block is padded by
repeating its last row and column (what the decoders crop again), so no texel that is shown
is encoded with made-up neighbours. Decoding goes through the decoders mipview reads files with
(:func:`mipview.io.containers.blocks.decode`).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

import numpy as np

from mipview.core.errors import MipviewError
from mipview.core.formats import Format
from mipview.io.containers import bcn
from mipview.io.containers.blocks import BlockCodec, astc, channels, etc

#: how a user gets the encoders
EXTRA = "pip install mipview[encode]"
#: astc-encoder's quality presets, by the names its command line gives them (-fast, ...);
#: medium, the first, is the default
ASTC_QUALITIES = ("medium", "fastest", "fast", "thorough", "verythorough", "exhaustive")
#: bc7enc's uber levels (etcpak's BC7 encoder): 0 fastest .. 4 best
BC7_QUALITIES = ("0", "1", "2", "3", "4")


@dataclass(frozen=True)
class Codec:
    """One codec a chain can be encoded to: ``name`` as asked (``bc7``), the blocks it writes
    (``blocks``, the reader side's codec), how many channels it holds, its encoder's
    ``qualities`` (the first is the default), and its numbers in the containers: VkFormat
    (UNORM, sRGB; 0: no sRGB variant), DXGI (0: not in DDS)."""

    name: str
    blocks: BlockCodec
    channels: int
    qualities: tuple[str, ...]
    vk: tuple[int, int]
    dxgi: tuple[int, int] = (0, 0)
    #: the VkFormat of its HDR variant (ASTC), 0 when it has none
    vk_hdr: int = 0

    @property
    def block(self) -> tuple[int, int]:
        return self.blocks.block

    @property
    def astc(self) -> bool:
        return self.name.startswith("astc")


def _astc(size: tuple[int, int]) -> Codec:
    i = astc.SIZES.index(size)
    return Codec(f"astc-{size[0]}x{size[1]}", astc.codec(size, False), 4, ASTC_QUALITIES,
                 (157 + 2 * i, 158 + 2 * i), vk_hdr=1000066000 + i)


CODECS: dict[str, Codec] = {c.name: c for c in (
    Codec("bc1", bcn.BC1, 3, ("default", "dither"), (131, 132), (71, 72)),
    Codec("bc3", bcn.BC3, 4, ("default",), (137, 138), (77, 78)),
    Codec("bc4", bcn.BC4, 1, ("default",), (139, 0), (80, 0)),
    Codec("bc5", bcn.BC5, 2, ("default",), (141, 0), (83, 0)),
    Codec("bc7", bcn.BC7, 4, BC7_QUALITIES, (145, 146), (98, 99)),
    Codec("etc2-rgb", etc.ETC2_RGB, 3, ("default",), (147, 148)),
    Codec("etc2-rgba", etc.ETC2_RGBA, 4, ("default",), (151, 152)),
    Codec("eac-r11", channels.EAC_R11, 1, ("default",), (153, 0)),
    Codec("eac-rg11", channels.EAC_RG11, 2, ("default",), (155, 0)),
    _astc((4, 4)), _astc((6, 6)), _astc((8, 8)),
)}
#: codecs a user may ask for that no maintained encoder here makes, and why
REFUSED = {"bc6h": "BC6H: neither etcpak nor astc-encoder encodes it, and no maintained "
                   "encoder on PyPI does for every platform (docs/compression.md); for float "
                   "images use astc-4x4, astc-6x6 or astc-8x8, which encode HDR"}


@dataclass(frozen=True)
class CodecChoice:
    """A codec and its quality as asked: ``bc7:quality=4``."""

    codec: Codec
    quality: str

    @property
    def label(self) -> str:
        """``bc7`` with its default quality, else ``bc7:quality=4``."""
        default = self.quality == self.codec.qualities[0]
        return self.codec.name if default else f"{self.codec.name}:quality={self.quality}"

    @property
    def slug(self) -> str:
        """The label as a file name part: ``bc7-q4``."""
        default = self.quality == self.codec.qualities[0]
        return self.codec.name if default else f"{self.codec.name}-q{self.quality}"


def parse_codecs(text: str) -> tuple[CodecChoice, ...]:
    """``"bc7:quality=4,astc-6x6"`` -> the choices, in order; MipviewError names a bad codec,
    setting or value (and the choices)."""
    out: list[CodecChoice] = []
    for item in (t.strip() for t in text.split(",")):
        if not item:
            continue
        name, _, rest = item.partition(":")
        name = name.strip().lower()
        if name in REFUSED:
            raise MipviewError(REFUSED[name])
        codec = CODECS.get(name)
        if codec is None:
            raise MipviewError(f"unknown codec {name!r}; choose from "
                               f"{', '.join(CODECS)}")
        quality = codec.qualities[0]
        for setting in (s for s in rest.split(":") if s):
            key, _, value = setting.partition("=")
            if key.strip() != "quality":
                raise MipviewError(f"{name}: unknown setting {key.strip()!r} "
                                   "(quality= is the one setting)")
            quality = value.strip().lower()
            if quality not in codec.qualities:
                raise MipviewError(f"{name}: quality {quality!r} is not one of "
                                   f"{', '.join(codec.qualities)}")
        out.append(CodecChoice(codec, quality))
    if not out:
        raise MipviewError("name at least one codec (e.g. bc7,astc-6x6)")
    if len({c.label for c in out}) != len(out):
        raise MipviewError("a codec is named twice")
    return tuple(out)


def codec_reason(codec: Codec, fmt: Format) -> str | None:
    """Why ``codec`` cannot take levels of ``fmt``, or None. A codec of fewer channels than the
    format keeps the first ones (red, red-green: what a shader samples of it), so it takes any
    linear 8-bit format; sRGB lives only in colour codecs of three or four channels; floats go
    to ASTC, whose HDR profile holds them."""
    if fmt.is_float:
        if codec.astc:
            return None
        return (f"{codec.name} holds 8-bit codes, not {fmt.label} floats: encode a float image "
                "with astc-4x4, astc-6x6 or astc-8x8 (HDR)")
    if fmt.dtype != np.uint8 or fmt.packing:
        return f"{codec.name} encodes 8-bit images (unorm, srgb, r8, rg8), not {fmt.label}"
    if fmt.is_srgb and not codec.vk[1]:
        return (f"{codec.name} has no sRGB variant: its channels are linear data; run the "
                "image with --format unorm to encode it")
    return None


def require(module: str, package: str) -> ModuleType:
    """An encoder's module; MipviewError naming the extra that brings it when missing."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MipviewError(f"encoding needs {package}, not installed: {EXTRA}") from None


def check_installed(choices: tuple[CodecChoice, ...]) -> None:
    """Every encoder (and its decoder) ``choices`` need is importable, asked before any work."""
    for c in choices:
        if c.codec.astc:
            require("astc_encoder", "astc-encoder-py")
        else:
            require("etcpak", "etcpak")
            if c.codec.blocks.decoder == "etc":
                require("texture2ddecoder", "texture2ddecoder")


def padded(level: np.ndarray, block: tuple[int, int]) -> np.ndarray:
    """``level`` (H, W, C) grown to whole blocks by repeating its last row and column."""
    h, w = level.shape[:2]
    bw, bh = block
    return np.pad(level, ((0, -h % bh), (0, -w % bw), (0, 0)), mode="edge")


#: blocks handed to etcpak in one call. Its encoders hold Python's interpreter lock for a whole
#: call: one call per 2048² BC7 level froze the window for 650 ms (docs/bench/window-stalls,
#: "while encoding"). Blocks are independent and stored row by row, so strips of block rows
#: encoded one call each and joined are the level's blocks. Measured there at 2048² BC7: strips
#: of 4096 blocks left 105-200 ms stalls, 1024 and 512 blocks 40-48 ms.
BLOCKS_PER_CALL = 1024


def _etcpak(choice: CodecChoice, rgba: np.ndarray) -> bytes:
    etcpak = require("etcpak", "etcpak")
    name = choice.codec.name
    data = np.ascontiguousarray(padded(rgba, (4, 4)))
    h, w = data.shape[:2]
    if name == "bc7":
        params = etcpak.BC7CompressBlockParams()
        params.init_linear_weights()  # errors are judged per channel, not as luma
        params.m_uber_level = int(choice.quality)

        def compress(strip: np.ndarray, sw: int, sh: int) -> bytes:
            return etcpak.compress_bc7(strip.tobytes(), sw, sh, params)
    else:
        function = getattr(etcpak, {
            "bc1": "compress_bc1_dither" if choice.quality == "dither" else "compress_bc1",
            "bc3": "compress_bc3", "bc4": "compress_bc4", "bc5": "compress_bc5",
            "etc2-rgb": "compress_etc2_rgb", "etc2-rgba": "compress_etc2_rgba",
            "eac-r11": "compress_eac_r", "eac-rg11": "compress_eac_rg"}[name])

        def compress(strip: np.ndarray, sw: int, sh: int) -> bytes:
            return function(strip.tobytes(), sw, sh)
    block_bytes = choice.codec.blocks.block_bytes
    rows = max(1, BLOCKS_PER_CALL // (w // 4)) * 4
    strips = []
    for y in range(0, h, rows):
        strip = np.ascontiguousarray(data[y:y + rows])
        sh = strip.shape[0]
        # etcpak 0.9.15's compress_eac_r returns a buffer sized for two channels: the blocks are
        # its first half (the rest is uninitialised)
        strips.append(compress(strip, w, sh)[:(sh // 4) * (w // 4) * block_bytes])
    return b"".join(strips)


def _astcenc(choice: CodecChoice, level: np.ndarray, fmt: Format) -> bytes:
    a = require("astc_encoder", "astc-encoder-py")
    profile = a.ASTCProfile.HDR if fmt.is_float else \
        a.ASTCProfile.LDR_SRGB if fmt.is_srgb else a.ASTCProfile.LDR
    preset = getattr(a.ASTCQualityPreset, choice.quality.upper())
    config = a.ASTCConfig(profile, *choice.codec.block, 1, preset)
    h, w = level.shape[:2]
    if fmt.is_float:
        image = a.ASTCImage(a.ASTCType.F32, w, h, 1,
                            np.ascontiguousarray(level, np.float32).tobytes())
    else:
        image = a.ASTCImage(a.ASTCType.U8, w, h, 1, np.ascontiguousarray(level).tobytes())
    # the default swizzle: ASTCSwizzle.from_str upper-cases its string in place (blocks/astc.py)
    return a.ASTCContext(config).compress(image, a.ASTCSwizzle())


def encode_level(choice: CodecChoice, level: np.ndarray, fmt: Format) -> bytes:
    """The blocks of one image ``level`` ((H, W, 4) storage values of ``fmt``, which
    :func:`codec_reason` accepted); MipviewError when the encoder refuses it."""
    rgba = np.asarray(level)
    if fmt.channels < 4 and not fmt.is_float:
        # the channels a one- or two-channel format lacks read as 0 and alpha 1 (Vulkan)
        rgba = rgba.copy()
        rgba[..., fmt.channels:3] = 0
        rgba[..., 3] = 255
    try:
        if choice.codec.astc:
            return _astcenc(choice, rgba, fmt)
        return _etcpak(choice, np.ascontiguousarray(rgba, np.uint8))
    except MipviewError:
        raise
    except Exception as e:  # an encoder's own refusal (astc-encoder's ASTCError, ValueError)
        h, w = rgba.shape[:2]
        raise MipviewError(f"{choice.label} could not encode a {w}x{h} level: {e}") from None


def decode_level(choice: CodecChoice, blocks: bytes, width: int, height: int,
                 fmt: Format) -> np.ndarray:
    """``blocks`` decoded by mipview's reader-side decoders, as float64 (H, W, 4) on the scale
    of ``fmt``'s storage values (8-bit codes for 8-bit formats, whatever each decoder gives)."""
    from mipview.io.containers.blocks import decode

    codec = choice.codec
    hdr = fmt.is_float and codec.astc
    blocks_codec = astc.codec(codec.block, True) if hdr else codec.blocks
    got = decode(blocks_codec, blocks, width, height, fmt.is_srgb, opaque=codec.name == "bc1")
    out = got.astype(np.float64)
    if got.dtype != np.uint8 and not fmt.is_float:
        out *= 255.0  # an ASTC or EAC decode of 8-bit codes: its unsigned normalised values
    return out
