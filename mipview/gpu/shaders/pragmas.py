"""The ``#pragma mipview`` lines by which a custom strategy's shader declares what it is
(docs/custom-strategies.md). Compilers ignore pragmas they do not know, and ``glslc -g`` keeps the
source in the module, so a .spv file declares itself the same way.

    #pragma mipview kind per-level | whole-chain      (required)
    #pragma mipview option NAME VALUE...              a named specialization constant as an option
    #pragma mipview formats r32f r16f unorm srgb      Format labels it handles (default: all)
    #pragma mipview reduction mean | min | max        the reference it is checked against
    #pragma mipview sampler nearest | linear          the sampler of the sampled binding
    #pragma mipview tile W H                          whole-chain: level-0 texels per work group
    #pragma mipview dispatches N                      whole-chain: dispatches per run
    #pragma mipview counters zeroed | self-reset      whole-chain: who zeroes the counters per run
    #pragma mipview robust on | off                   robust buffer and image access (default on)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from mipview.core import reductions
from mipview.core.errors import MipviewError
from mipview.core.formats import Format

KINDS = ("per-level", "whole-chain")
REDUCTIONS = reductions.NAMES
SAMPLERS = ("nearest", "linear")
#: whole-chain: "zeroed" (mipview zeroes the counters before every run, outside its timing where
#: the runner allows) or "self-reset" (the shader leaves them zero at the end of every run, as
#: FidelityFX SPD does; mipview zeroes them once and checks them after the runs)
COUNTERS = ("zeroed", "self-reset")
#: "on": the pipeline gets robust buffer and image access where the device offers it per
#: pipeline, so a stray access cannot fault the device; "off": none, as an engine's own
#: pipelines run (robust access costs an SPD port 4096^2 several microseconds on an H100)
ROBUST = ("on", "off")
MAX_DISPATCHES = 32  # marks per run stay below the runner's MAX_STAMPS_PER_RUN

_PRAGMA = re.compile(r"^\s*#\s*pragma\s+mipview\b(.*)$")
_NAME = re.compile(r"^[A-Za-z_]\w*$")


class DeclarationError(MipviewError):
    """A ``#pragma mipview`` line that cannot be read (``FILE:LINE: problem``)."""


@dataclass(frozen=True)
class OptionDecl:
    name: str
    values: tuple[str, ...]
    line: int


@dataclass(frozen=True)
class Declaration:
    kind: str
    options: tuple[OptionDecl, ...] = ()
    formats: tuple[Format, ...] = tuple(Format)
    reduction: str = "mean"
    sampler: str = "nearest"
    #: whole-chain: level-0 texels per work group (None: twice the work-group size)
    tile: tuple[int, int] | None = None
    dispatches: int = 1
    #: whole-chain: who zeroes the counters between runs (COUNTERS)
    counters: str = "zeroed"
    #: robust buffer and image access for its pipelines (ROBUST)
    robust: str = "on"


def _one_of(choices: tuple[str, ...]) -> Callable[[list[str]], str]:
    def parse(args: list[str]) -> str:
        if len(args) != 1 or args[0] not in choices:
            raise ValueError(f"want one of {' | '.join(choices)}")
        return args[0]
    return parse


def _positive(count: int, limit: int) -> Callable[[list[str]], Any]:
    def parse(args: list[str]) -> Any:
        try:
            values = [int(a) for a in args]
        except ValueError:
            values = []
        if len(values) != count or not all(0 < v <= limit for v in values):
            raise ValueError(f"want {count} whole number(s) from 1 to {limit}")
        return values[0] if count == 1 else tuple(values)
    return parse


def _formats(args: list[str]) -> tuple[Format, ...]:
    if not args:
        raise ValueError("want one or more of " + " ".join(f.label for f in Format))
    return tuple(Format.parse(a) for a in args)


#: keyword -> (Declaration field, parser, kinds it applies to)
_FIELDS: dict[str, tuple[str, Callable[[list[str]], Any], tuple[str, ...]]] = {
    "kind": ("kind", _one_of(KINDS), KINDS),
    "formats": ("formats", _formats, KINDS),
    "reduction": ("reduction", _one_of(REDUCTIONS), KINDS),
    "sampler": ("sampler", _one_of(SAMPLERS), KINDS),
    "tile": ("tile", _positive(2, 4096), ("whole-chain",)),
    "dispatches": ("dispatches", _positive(1, MAX_DISPATCHES), ("whole-chain",)),
    "counters": ("counters", _one_of(COUNTERS), ("whole-chain",)),
    "robust": ("robust", _one_of(ROBUST), KINDS),
}


def read_declaration(source: str, file: str) -> Declaration:
    """The declaration in ``source`` (the shader's main file); errors name ``file`` and the line."""
    fields: dict[str, tuple[Any, int]] = {}
    options: list[OptionDecl] = []
    for number, text in enumerate(source.splitlines(), 1):
        m = _PRAGMA.match(text)
        if not m:
            continue
        args = m.group(1).split("//")[0].split()
        where = f"{file}:{number}"
        if not args:
            raise DeclarationError(f"{where}: empty '#pragma mipview' (want one of "
                                   f"{', '.join([*_FIELDS, 'option'])})")
        keyword, args = args[0], args[1:]
        if keyword == "option":
            if len(args) < 2 or not _NAME.match(args[0]):
                raise DeclarationError(f"{where}: want '#pragma mipview option NAME VALUE...'")
            if any(o.name == args[0] for o in options):
                raise DeclarationError(f"{where}: option {args[0]} declared twice")
            options.append(OptionDecl(args[0], tuple(args[1:]), number))
            continue
        if keyword not in _FIELDS:
            raise DeclarationError(f"{where}: unknown '#pragma mipview {keyword}' (known: "
                                   f"{', '.join([*_FIELDS, 'option'])})")
        if keyword in fields:
            raise DeclarationError(f"{where}: '#pragma mipview {keyword}' given twice")
        try:
            fields[keyword] = (_FIELDS[keyword][1](args), number)
        except ValueError as exc:
            raise DeclarationError(f"{where}: #pragma mipview {keyword}: {exc}") from None
    if "kind" not in fields:
        raise DeclarationError(f"{file}: no '#pragma mipview kind per-level' or "
                               f"'#pragma mipview kind whole-chain' line")
    kind = fields["kind"][0]
    decl = Declaration(kind, tuple(options))
    for keyword, (value, number) in fields.items():
        name, _, kinds = _FIELDS[keyword]
        if kind not in kinds:
            raise DeclarationError(f"{file}:{number}: '#pragma mipview {keyword}' is for "
                                   f"{' and '.join(kinds)} shaders, this one is {kind}")
        decl = replace(decl, **{name: value})
    return decl
