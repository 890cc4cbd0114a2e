"""What the commands of mipview/cli.py, cli_batch.py and cli_mean.py share: reading the image,
size and format arguments, and opening the device. CLI only: the GUI and the core never import
this (tests/test_import_contracts.py).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

import numpy as np

from mipview import MipviewError

if TYPE_CHECKING:
    from mipview.formats import Format
    from mipview.gpu.context import GpuContext
    from mipview.imageio import SourceImage

EXIT_BAD_INPUT = 2


class UsageError(MipviewError):
    pass


def parse_size(text: str) -> tuple[int, int]:
    """``4096`` -> (4096, 4096); ``1920x1080`` -> (1920, 1080)."""
    try:
        if "x" in text.lower():
            w, h = (int(v) for v in text.lower().split("x"))
        else:
            w = h = int(text)
    except ValueError:
        raise UsageError(f"bad size {text!r} (want N or WxH, e.g. 4096 or 1920x1080)") from None
    if w < 1 or h < 1:
        raise UsageError(f"bad size {text!r}: sides must be at least 1")
    return w, h


def open_context(args: argparse.Namespace) -> GpuContext:
    """The device of ``--device`` (or MIPVIEW_DEVICE), validated with ``--validate``."""
    from mipview.gpu.context import GpuContext

    return GpuContext(device=args.device, validate=True if args.validate else None)


def load_source(args: argparse.Namespace) -> SourceImage:
    """The IMAGE argument, or the synthetic image of ``--size WxH``."""
    from mipview import imageio

    if getattr(args, "size", None):
        w, h = parse_size(args.size)
        return imageio.synthetic(w, h, seed=args.seed)
    if not args.image:
        raise UsageError("give an IMAGE or --size WxH")
    return imageio.load(args.image)


def image_format(args: argparse.Namespace, source: SourceImage) -> Format:
    """``--format``, or the one the image suggests."""
    from mipview.formats import Format

    if args.format:
        try:
            return Format.parse(args.format)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    return source.suggested_format()


def level0_of(source: SourceImage, fmt: Format, layers: int = 1) -> np.ndarray:
    """The storage array to upload, read-only (the verdict's reference cache knows it by
    identity); ``layers`` > 1 makes that many different layers from the image."""
    out = source.storage(fmt)  # 8-bit sources: their bytes as they are (read-only)
    if layers > 1:  # --layers N: N different layers made from the image
        from mipview.layers import make_layers

        out = make_layers(out, layers)
    out.setflags(write=False)
    return out
