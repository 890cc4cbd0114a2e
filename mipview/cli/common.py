"""What the commands of mipview/cli/ (main.py, batch.py, mean.py) share: reading the image,
size and format arguments, and opening the device. CLI only: the GUI and the core never import
this (tests/test_import_contracts.py).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, NoReturn, TextIO

import numpy as np

from mipview.core.errors import MipviewError

if TYPE_CHECKING:
    from mipview.cli.limits import ImageDims
    from mipview.core.formats import Format
    from mipview.core.specs import StrategySpec
    from mipview.gpu.vulkan.compile_ahead import CompileProgress
    from mipview.gpu.vulkan.context import GpuContext
    from mipview.io.imageio import SourceImage
    from mipview.runs.baseline import SavedRun
    from mipview.runs.prepare import PreparedRun

# Exit codes of every command (README, "Command line"; ``mipview --help``).
EXIT_OK = 0
EXIT_FAILED = 1        # a checked result out of tolerance, or validation messages
EXIT_BAD_INPUT = 2     # bad input or environment (one line on stderr)
EXIT_INTERRUPTED = 130
EXIT_CODES = ("exit codes: 0 ok; 1 a checked result out of tolerance, or validation messages; "
              "2 bad input or environment (one line on stderr); 130 interrupted")


class UsageError(MipviewError):
    pass


def fail(message: str) -> NoReturn:
    """One line on stderr and exit 2: every argument error ends here."""
    sys.stderr.write(f"mipview: error: {' '.join(message.split())}\n")
    raise SystemExit(EXIT_BAD_INPUT)


class ArgumentParser(argparse.ArgumentParser):
    """argparse's errors as one line (its own are the usage text plus the message)."""

    def error(self, message: str) -> NoReturn:
        fail(message)


def out_of_memory(exc: BaseException) -> str | None:
    """The one line for an allocation that failed (numpy's MemoryError, or the Vulkan binding's
    out-of-memory errors from vkAllocateMemory / vkBind*Memory and the like), else None."""
    if isinstance(exc, MemoryError):
        return f"out of host memory ({exc or 'an allocation failed'}); try a smaller image"
    vk = sys.modules.get("vulkan")
    if vk is not None and isinstance(exc, vk.VkErrorOutOfDeviceMemory):
        return "out of device memory (Vulkan); try a smaller image or fewer strategies"
    if vk is not None and isinstance(exc, vk.VkErrorOutOfHostMemory):
        return "out of host memory (Vulkan); try a smaller image or fewer strategies"
    return None


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"want a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


#: the most timed runs ``--repeat`` takes: every sample is kept (in memory, and in bench's JSON),
#: and 10^6 runs of a millisecond are already a quarter of an hour per strategy
MAX_REPEAT = 1_000_000


def repeat_count(text: str) -> int:
    """``--repeat``: a whole number of runs, 1 .. :data:`MAX_REPEAT`."""
    value = positive_int(text)
    if value > MAX_REPEAT:
        raise argparse.ArgumentTypeError(f"at most {MAX_REPEAT:,} runs (every sample is kept), "
                                         f"got {value:,}")
    return value


def duration_ms(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"want milliseconds, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text!r}")
    return value


def non_empty(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    return text


def saved_bench(text: str) -> SavedRun:
    """``--baseline``: an earlier ``mipview bench --json`` file, read and checked when the
    arguments are parsed, so a bad one ends the command before any GPU work."""
    from mipview.runs.baseline import BaselineError, load_run

    try:
        return load_run(non_empty(text))
    except BaselineError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def strategy_specs(text: str, reversed_z: bool = False) -> list[StrategySpec]:
    """``--strategies``, expanded (mipview.gpu.strategies.specs; ``reversed_z``: what
    ``reduction=nearest|farthest`` mean); at least one. An option given where it changes
    nothing (``filter=box,kaiser-width=4``) gets a warning on stderr, and runs."""
    from mipview.gpu.strategies.specs import expand_specs, idle_notes

    specs = expand_specs(text, reversed_z)
    if not specs:
        raise UsageError(f"--strategies {text!r}: no strategy given")
    for spec in specs:
        for note in idle_notes(spec):
            print(f"warning: {note}", file=sys.stderr)
    return specs


def export_kinds(text: str | None) -> tuple[str, ...]:
    """``--export``: the kinds of texture file to write (none when not given)."""
    from mipview.io import containers

    if text is None:
        return ()
    try:
        return containers.parse_kinds(text)
    except ValueError as exc:
        raise UsageError(f"--export {text!r}: {exc}") from None


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
    """The device of ``--device`` (or MIPVIEW_DEVICE), validated with ``--validate``; a
    compile that lasts (a CPU device's first run) is told on stderr."""
    from mipview.gpu.vulkan.context import GpuContext

    ctx = GpuContext(device=args.device, validate=True if args.validate else None)
    ctx.compile_ahead.report = CompileReporter(sys.stderr)
    return ctx


class CompileReporter:
    """Compile progress on a stream: one line rewritten in place on a terminal; elsewhere (a
    log, a pipe) the first line and the last, not one a second."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self._started = False

    def __call__(self, progress: CompileProgress) -> None:
        line = f"mipview: {progress.message()}"
        if self.tty:
            self.stream.write(f"\r\033[K{line}" + ("\n" if progress.finished else ""))
        elif progress.finished or not self._started:
            self.stream.write(line + "\n")
        self._started = not progress.finished
        self.stream.flush()


def closed_messages(ctx: GpuContext, earlier: Sequence[str] = ()) -> tuple[str, ...]:
    """Every validation message of a run, read once ``ctx`` is closed (after the ``with
    open_context(...)`` block): ``earlier`` (taken while the device lived, e.g. a result's)
    and what the layer reported as the device and instance were destroyed (leaked objects),
    which no result can hold. Each is printed on stderr; any of them fails the command."""
    if ctx.device is not None:
        raise RuntimeError("closed_messages before the context is closed")
    out = (*earlier, *ctx.take_messages())
    for m in out:
        print(f"validation: {m}", file=sys.stderr)
    return out


def source_dims(args: argparse.Namespace) -> ImageDims:
    """What ``load_source`` will make, from ``--size`` (and ``--synthetic``: depth suggests
    r32f, cube makes 6 square faces) or the file's header (six face images: the first face's,
    as 6 layers): nothing decoded. A cube map with ``--layers`` is a UsageError
    (:func:`refuse_layers`)."""
    from mipview.cli.limits import F32_TEXEL, ImageDims, peek_dims
    from mipview.core.cube import FACES

    layers = getattr(args, "layers", 1)
    kind = synthetic_kind(args)
    if kind:
        from mipview.io.synthetic import CUBE_KIND, kind_format

        w, h = parse_size(args.size)
        if kind == CUBE_KIND:
            if w != h:
                raise UsageError(f"--synthetic cube makes a cube map of square faces: give "
                                 f"--size N (got {args.size})")
            dims = ImageDims(w, w, FACES, kind_format(kind), F32_TEXEL, FACES)
        else:
            dims = ImageDims(w, h, layers, kind_format(kind), F32_TEXEL)
    else:
        faces = face_files(args)
        if faces is None:
            dims = peek_dims(args.image, 1)
            refuse_layers(dims, layers)
            if layers > 1:
                dims = replace(dims, layers=layers)
        else:
            first = peek_dims(faces[0], 1)
            dims = ImageDims(first.width, first.height, FACES, first.suggested,
                             first.source_texel, FACES)
    refuse_layers(dims, layers)
    return dims


def refuse_layers(dims: ImageDims, layers: int) -> None:
    """``--layers N`` makes N layers of a 2D image (mirrors, flips...): a cube map's layers are
    its faces, which it keeps as they are."""
    if layers > 1 and dims.faces > 1:
        what = "a cube map" if dims.layers == dims.faces else \
            f"a cube array of {dims.layers // dims.faces} cubes"
        raise UsageError(f"--layers {layers}: the image is {what}, whose {dims.layers} faces "
                         f"are its layers; --layers makes layers of a 2D image: leave it out")


def face_files(args: argparse.Namespace) -> list[str] | None:
    """The six face files (px nx py ny pz nz) when IMAGE is one face of a cube map whose five
    siblings lie beside it (mipview.io.cube_faces.find_faces), else None (and for a command
    that takes no cube map, ``mean``: its parser sets ``cube_faces`` False)."""
    image = getattr(args, "image", None)
    if not image or getattr(args, "size", None) or not getattr(args, "cube_faces", True):
        return None
    from mipview.io.cube_faces import find_faces

    return find_faces(image)


def synthetic_kind(args: argparse.Namespace) -> str:
    """The kind (``--synthetic``, mipview.io.synthetic.KINDS) of the image ``--size`` makes;
    "" for an IMAGE file. ``--synthetic`` without ``--size``, or neither an IMAGE nor
    ``--size``, is a UsageError."""
    from mipview.io.synthetic import KINDS

    kind = getattr(args, "synthetic", None)
    if getattr(args, "size", None):
        return kind or KINDS[0]
    if kind:
        raise UsageError(f"--synthetic {kind} makes the image of --size WxH: give --size too")
    if not args.image:
        raise UsageError("give an IMAGE or --size WxH")
    return ""


def load_source(args: argparse.Namespace) -> SourceImage:
    """The IMAGE argument (one face of six: the cube map of all six, :func:`face_files`), or
    the synthetic image of ``--size WxH`` (``--synthetic KIND``; ``--reversed-z`` for a
    reversed depth buffer)."""
    from mipview.io import imageio, synthetic

    kind = synthetic_kind(args)
    if kind:
        w, h = parse_size(args.size)
        return synthetic.image(w, h, seed=args.seed, kind=kind,
                               reversed_z=getattr(args, "reversed_z", False))
    if not getattr(args, "cube_faces", True):  # a command that takes no cube map (mean)
        return imageio.load(args.image)
    from mipview.io import cube_faces

    return cube_faces.open_image(args.image)


def prepare_run(args: argparse.Namespace, ctx: GpuContext, strategies: int,
                check: bool, refuse_cube: str | None = None) -> tuple[np.ndarray, Format]:
    """Level 0 and its format for ``mean`` and ``bench --sizes``, which run their
    ``strategies`` their own way: :func:`prepare_source`'s checks, and its level 0.
    ``refuse_cube``: why this command takes no cube map (None: it takes them)."""
    run = _prepared(args, ctx, (), strategies, check, refuse_cube)
    return run.level0, run.fmt


def prepare_source(args: argparse.Namespace, ctx: GpuContext, specs: Sequence[StrategySpec],
                   check: bool) -> PreparedRun:
    """The Run of ``run`` and ``bench`` (mipview.runs.prepare, as the API and the window
    prepare theirs), after checking the image's size and layers against the device and the
    run's memory (cli/limits.py) while nothing big exists yet."""
    return _prepared(args, ctx, specs, len(specs), check, None)


def _prepared(args: argparse.Namespace, ctx: GpuContext, specs: Sequence[StrategySpec],
              strategies: int, check: bool, refuse_cube: str | None) -> PreparedRun:
    from mipview.cli.limits import check_run
    from mipview.runs.prepare import prepare

    dims = source_dims(args)
    if refuse_cube is not None and dims.faces > 1:
        raise UsageError(f"{source_label(args)} is a cube map: {refuse_cube}")
    check_run(ctx, dims, image_format(args, None, dims.suggested), strategies, check)
    source = load_source(args)
    layers = getattr(args, "layers", 1)
    refuse_layers(source_dims_of(source), layers)
    fmt = image_format(args, source)
    note = source.nonfinite_note(fmt)
    if note:  # once, as the image is loaded
        print(note)
    return prepare(source, fmt, specs, layers=layers)


def source_label(args: argparse.Namespace) -> str:
    """How reports name the source: the IMAGE as given, or ``synthetic KIND SIZE``."""
    return str(args.image or f"synthetic {synthetic_kind(args)} {args.size}")


def source_dims_of(source: SourceImage) -> ImageDims:
    """The dimensions of a loaded source (what :func:`source_dims` foretold)."""
    from mipview.cli.limits import F32_TEXEL, ImageDims

    return ImageDims(source.width, source.height, source.layers, source.suggested_format(),
                     4 if source.rgba8 is not None else F32_TEXEL, source.faces)


def image_format(args: argparse.Namespace, source: SourceImage | None,
                 suggested: Format | None = None) -> Format:
    """``--format``, or the one the image (or, before it is loaded, its header) suggests."""
    from mipview.core.formats import Format

    if args.format:
        try:
            return Format.parse(args.format)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    if source is not None:
        return source.suggested_format()
    assert suggested is not None
    return suggested
