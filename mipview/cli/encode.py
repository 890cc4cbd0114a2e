"""``mipview run --encode bc7,astc-6x6 [--export ktx2,dds] [--zstd N]``: each result's chain
block-compressed, judged level by level (filter, codec, total error, and with the
``perceptual`` extra their FLIP and SSIM unless ``--no-perceptual``: mipview.runs.encode),
printed, kept in report.json under each strategy's ``encoded``, and with ``--export`` written
as compressed KTX2 (and DDS for BCn) beside the uncompressed files."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from mipview.check.perceptual import FilterPairs
from mipview.check.verdict import ReferenceCache
from mipview.core.errors import MipviewError
from mipview.core.formats import Format
from mipview.core.results import RunResult
from mipview.io.containers.encoders import CodecChoice, check_installed, parse_codecs


def _codecs(text: str) -> tuple[CodecChoice, ...]:
    try:
        return parse_codecs(text)
    except MipviewError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _zstd_level(text: str) -> int:
    try:
        level = int(text)
    except ValueError:
        level = 0
    if not 1 <= level <= 22:
        raise argparse.ArgumentTypeError(f"a Zstandard level is 1 to 22, not {text!r}")
    return level


def add_options(p: argparse.ArgumentParser) -> None:
    """``run``'s options for compressed chains."""
    p.add_argument("--encode", type=_codecs, metavar="CODECS",
                   help="also block-compress each chain and report its filter, codec and total "
                        "error per level: bc1, bc3, bc4, bc5, bc7, etc2-rgb, etc2-rgba, eac-r11, "
                        "eac-rg11, astc-4x4, astc-6x6, astc-8x8, each with :quality=... "
                        "(docs/compression.md); needs the encode extra. With the perceptual "
                        "extra, each level's FLIP and SSIM too")
    p.add_argument("--perceptual", action=argparse.BooleanOptionalAction, default=True,
                   help="with --encode: each level's FLIP and SSIM (filter, codec and total; "
                        "the perceptual extra), on by default. By far the costliest part at "
                        "large sizes: a 4096x4096 RGBA8 chain takes about 97 s on 2 cores, far "
                        "more than any encoder; --no-perceptual leaves them out")
    p.add_argument("--zstd", type=_zstd_level, metavar="LEVEL",
                   help="with --encode and --export ktx2: Zstandard-supercompress the compressed "
                        "KTX2 levels at LEVEL (1-22)")


def check(args: argparse.Namespace, fmt: Format) -> None:
    """Refuse, before the GPU runs, codecs that cannot take ``fmt`` or are not installed."""
    choices = getattr(args, "encode", None)
    if not choices:
        if getattr(args, "zstd", None) is not None:
            raise MipviewError("--zstd supercompresses encoded chains: give --encode too")
        return
    from mipview.runs.encode import refusal

    why = refusal(choices, fmt)
    if why:
        raise MipviewError(f"--encode: {why}")
    check_installed(choices)


def encode_into(args: argparse.Namespace, folder: Path, mip: RunResult, level0: np.ndarray,
                refs: ReferenceCache, entries: Sequence[dict[str, object]],
                kinds: Sequence[str]) -> list[str]:
    """Every result in every codec of ``args.encode``: its figures into its report entry, its
    files (``kinds``) into its folder; returns the lines to print. Raises MipviewError before
    anything is written when a codec cannot take a result (a colour chain in bc5...)."""
    choices = getattr(args, "encode", None)
    if not choices:
        return []
    from mipview.runs import encode

    why = encode.refusal(choices, mip.fmt, mip.results)
    if why:
        raise MipviewError(f"--encode: {why}")
    out: list[str] = []
    perceived = getattr(args, "perceptual", True)
    filters = FilterPairs()  # each result's filter pair, made once for all its codecs
    for res, entry in zip(mip.results, entries, strict=True):
        encoded = []
        files = entry.setdefault("files", [])
        for choice in choices:
            chain = encode.encode_result(res, level0, mip.fmt, choice, refs,
                                         perceived=perceived, filters=filters)
            encoded.append(chain.as_dict())
            written = encode.export(folder / res.spec.slug, res.spec.slug, chain, kinds,
                                    args.zstd)
            files += [f.relative_to(folder).as_posix() for f in written]  # type: ignore[operator]
            out += encode.lines(chain)
        entry["encoded"] = encoded
    return out
