"""A result's chain as a game ships it: every level block-compressed, decoded back, and judged
against the exact reference (``mipview run --encode``, ``mipview.encode``). The codecs are
:mod:`mipview.io.containers.encoders`'; the figures :mod:`mipview.check.codec_error`'s; the files
:mod:`mipview.io.containers.block_writer`'s. docs/compression.md tells the whole story.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mipview.check import perceptual
from mipview.check.codec_error import CodecLevelError, level_figures, normal_from_xy
from mipview.check.verdict import ReferenceCache
from mipview.core.cancel import checkpoint
from mipview.core.errors import MipviewError
from mipview.core.filters.spec import FilterSpec, parse_filter
from mipview.core.formats import Format
from mipview.core.results import StrategyResult
from mipview.io import atomic
from mipview.io.containers import block_writer
from mipview.io.containers.encoders import (
    CodecChoice,
    check_installed,
    codec_reason,
    decode_level,
    encode_level,
    parse_codecs,
)

__all__ = ["EncodedChain", "encode_result", "export", "lines", "parse_codecs", "refusal"]


@dataclass(frozen=True)
class EncodedChain:
    """One result's chain in one codec: each level's blocks (one bytes per layer), its decode
    (float64 on the format's storage scale) and its three figures."""

    spec: str
    choice: CodecChoice
    fmt: Format
    blocks: tuple[tuple[bytes, ...], ...]
    decoded: tuple[np.ndarray, ...]
    figures: tuple[CodecLevelError, ...]
    #: the channels judged, from red on
    judged: int
    normal: bool = False
    notes: tuple[str, ...] = ()
    #: CPU seconds the encoder took per level (every layer; not the decode or the judging)
    seconds: tuple[float, ...] = ()

    @property
    def hdr(self) -> bool:
        return self.fmt.is_float

    def as_dict(self) -> dict[str, object]:
        return {"strategy": self.spec, "codec": self.choice.label, "hdr": self.hdr,
                "channels_judged": self.judged, "normal_map": self.normal,
                "unit": self.fmt.error_unit, "notes": list(self.notes),
                "levels": [f.as_dict() for f in self.figures]}


def _filter_spec(reduction: str) -> FilterSpec | None:
    """The filter of a result's reference name, None for the plain reductions."""
    if reduction in ("mean", "min", "max", "minmax"):
        return None
    try:
        return parse_filter(reduction)
    except ValueError:
        return None


def refusal(choices: Sequence[CodecChoice], fmt: Format,
            results: Sequence[StrategyResult] = ()) -> str | None:
    """Why these codecs cannot encode these results of ``fmt`` (the first reason), or None;
    asked before any work, so a refusal leaves nothing written."""
    for c in choices:
        why = codec_reason(c.codec, fmt)
        if why:
            return why
        normal = [r for r in results if (_spec_kind(r) == "normal")]
        colour = [r for r in results if _spec_kind(r) != "normal"]
        if c.codec.channels < fmt.channels and c.codec.channels <= 2 and colour:
            return (f"{c.label} holds {'red' if c.codec.channels == 1 else 'red and green'} "
                    f"only: a {fmt.label} colour image would lose the rest. Encode an r8/rg8 "
                    "image, or a kind=normal chain (x and y kept, z rebuilt)")
        if c.codec.channels == 1 and normal:
            return f"{c.label} holds one channel: a normal map needs two (bc5, eac-rg11)"
    return None


def _spec_kind(res: StrategyResult) -> str:
    spec = _filter_spec(res.reduction)
    return "colour" if spec is None else spec.kind


def _layers(level: np.ndarray) -> np.ndarray:
    a = np.asarray(level)
    return a[None] if a.ndim == 3 else a


def encode_result(res: StrategyResult, level0: np.ndarray, fmt: Format, choice: CodecChoice,
                  refs: ReferenceCache | None = None,
                  on_level: Callable[[int, int], None] | None = None,
                  perceived: bool = True,
                  filters: perceptual.FilterPairs | None = None) -> EncodedChain:
    """``res``'s chain encoded level by level (each layer apart), decoded back and judged
    against the exact reference of its reduction or filter (``refs``: shared with its verdict).
    ``on_level(done, total)`` is called after each level (the window's progress).
    ``perceived``: each level's FLIP and SSIM too, where the ``perceptual`` extra is installed
    (off, no figures and no note of a missing package); ``filters``: shared by the codecs of
    one encode, so that the filter pair, the same for each, is made once.
    MipviewError when the codec cannot take it (:func:`refusal`) or an encoder refuses a
    level."""
    why = refusal((choice,), fmt, (res,))
    if why:
        raise MipviewError(why)
    check_installed((choice,))
    refs = refs if refs is not None else ReferenceCache()
    reference = refs.get(level0, fmt, res.reduction)
    spec = _filter_spec(res.reduction)
    normal = spec is not None and spec.kind == "normal"
    cutoff = spec.cutoff if spec is not None and spec.alpha == "coverage" else None
    judged = 3 if normal else min(choice.codec.channels, fmt.channels)
    notes = []
    if choice.codec.channels < fmt.channels and not normal:
        notes.append(f"{choice.label} keeps {judged} of {fmt.label}'s {fmt.channels} channels: "
                     "only those are judged")
    if normal and choice.codec.channels == 2:
        notes.append("normal map: z rebuilt from the decoded x and y before judging")
    left_out = perceptual.missing() if perceived else None
    if left_out:
        notes.append(left_out)
    filters = filters if filters is not None else perceptual.FilterPairs()
    blocks, decoded, figures, seconds = [], [], [], []
    for p, level in enumerate(res.levels):
        checkpoint()  # a stopped job ends between levels
        stack = _layers(level)
        h, w = stack.shape[1:3]
        start = time.perf_counter()
        level_blocks = tuple(encode_level(choice, layer, fmt) for layer in stack)
        seconds.append(time.perf_counter() - start)
        got = np.stack([decode_level(choice, b, w, h, fmt) for b in level_blocks])
        if normal and choice.codec.channels == 2:
            got = normal_from_xy(got)
        if normal or choice.codec.channels < 4:
            got[..., 3] = stack[..., 3]  # alpha is not the codec's: not judged, kept for show
        got = got.reshape(np.shape(level))
        blocks.append(level_blocks)
        decoded.append(got)
        figures.append(level_figures(p, level, got, reference[p], fmt, judged,
                                     choice.codec.block, cutoff, perceived, filters))
        if on_level is not None:
            on_level(p + 1, len(res.levels))
    return EncodedChain(str(res.spec), choice, fmt, tuple(blocks), tuple(decoded),
                        tuple(figures), judged, normal, tuple(notes), tuple(seconds))


def export(folder: Path, stem: str, chain: EncodedChain, kinds: Sequence[str],
           zstd: int | None = None) -> list[Path]:
    """The chain's blocks as ``stem.CODEC.ktx2`` and (BCn only) ``stem.CODEC.dds`` in
    ``folder`` (made if missing), for each of ``kinds`` that holds the codec (``exr`` holds no blocks); ``zstd``:
    the KTX2 levels Zstandard-supercompressed at that level. Written atomically."""
    files = []
    folder.mkdir(parents=True, exist_ok=True)
    layers = _layers(chain.decoded[0]).shape[0]
    h, w = _layers(chain.decoded[0]).shape[1:3]
    for kind in kinds:
        if kind == "ktx2":
            data = block_writer.ktx2_bytes(chain.blocks, chain.choice.codec, w, h, layers,
                                     chain.fmt.is_srgb, chain.hdr, zstd)
        elif kind == "dds" and chain.choice.codec.dxgi[0]:
            data = block_writer.dds_bytes(chain.blocks, chain.choice.codec, w, h, layers,
                                    chain.fmt.is_srgb)
        else:
            continue
        path = folder / f"{stem}.{chain.choice.slug}.{kind}"
        atomic.write_atomic(path, data)
        files.append(path)
    return files


def _fmt(v: float) -> str:
    return f"{v:.3g}"


def _perceived(f: CodecLevelError) -> str:
    """A level's FLIP and SSIM columns (filter, codec, total), or nothing without them."""
    p = f.perceptual
    if p is None:
        return ""
    pairs = (p.filter, p.codec, p.total)
    flip = " ".join(f"{q.flip:.4f}" for q in pairs)
    # the three pairs are of one size: all have an SSIM or none has
    ssim = "too small" if pairs[0].ssim is None else \
        " ".join(f"{q.ssim or 0.0:.4f}" for q in pairs)
    window = "" if pairs[0].ssim_window in (0, perceptual.SSIM_WINDOW) else \
        f" ({pairs[0].ssim_window}x{pairs[0].ssim_window})"
    return f"  FLIP {flip}  SSIM {ssim}{window}"


def lines(chain: EncodedChain, width: int = 30) -> list[str]:
    """The chain's table as ``mipview run`` prints it: one line per level, filter, codec and
    total error (max / mean), the block of the worst total texel, and with the ``perceptual``
    extra the filter, codec and total FLIP and SSIM (each level at its own size; a window
    smaller than SSIM's 7x7 is named)."""
    unit = chain.fmt.error_unit
    head = f"{chain.spec} as {chain.choice.label}"
    seen = "" if not chain.figures or chain.figures[0].perceptual is None else \
        "  FLIP: filter codec total  SSIM: filter codec total"
    out = [f"{head:<{width}} max error per level ({unit}): filter  codec  total  "
           f"(mean total)  worst block (layer, row, col){seen}"]
    for f in chain.figures:
        size = f"{f.total.width}x{f.total.height}"
        cover = "" if f.coverage is None else f"  coverage {f.coverage:.3f}"
        out.append(f"{'':<{width}} level {f.total.level:>2} {size:>11}  "
                   f"{_fmt(f.filter.max_error):>7} {_fmt(f.codec.max_error):>7} "
                   f"{_fmt(f.total.max_error):>7}  ({_fmt(f.total.mean_error)})  "
                   f"{f.worst_block}{cover}{_perceived(f)}")
    out += [f"{'':<{width}} note: {n}" for n in chain.notes]
    return out
