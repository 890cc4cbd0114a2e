"""A custom strategy's shader, loaded and checked: ``shader:PATH`` of a GLSL (.comp) or SPIR-V
(.spv) file (docs/custom-strategies.md).

:func:`load_custom_shader` compiles a .comp file twice (``glslc -O`` for the pipeline, as the
built-in shaders are, and ``-g`` for names and source text), reads the interface with
spirv-cross (mipview/gpu/shaders/reflection.py) and the ``#pragma mipview`` lines
(mipview/gpu/shaders/pragmas.py), and checks both against the kind's conventions below. What it
returns is immutable and cached by the file's path and the contents of the file and its
includes: loading an unchanged shader again costs reads and a hash; an edited one (or one whose
include was edited) is compiled afresh (mipview/gpu/strategies/custom.py
makes a strategy class of each version). Thread-safe, so a UI can compile off its main thread.
"""

from __future__ import annotations

import hashlib
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from mipview.core.errors import MipviewError
from mipview.core.formats import Format
from mipview.gpu.shaders import shipped
from mipview.gpu.shaders.glslc import DEBUG, OPTIMISE, compile_glsl
from mipview.gpu.shaders.interface import ShaderInterface, SpecValue
from mipview.gpu.shaders.pragmas import Declaration, read_declaration
from mipview.gpu.shaders.reflection import Binding, Reflection, ReflectionError, reflect
from mipview.gpu.strategies.base import OptionSpec

SUFFIXES = (".comp", ".spv")
#: constants mipview sets itself (mip_common.glsl's MIP_SRGB, MIP_UNORM8, ... MIP_FLOAT11),
#: never options
RESERVED_PREFIX = "MIP_"


class InterfaceError(MipviewError):
    """A shader whose interface does not match its kind: ``str()`` names the file and every
    problem on one line, ``problems`` lists them."""

    def __init__(self, path: Path | str, problems: list[str]) -> None:
        self.path = Path(path)
        self.problems = tuple(problems)
        super().__init__(f"{path}: " + "; ".join(problems))


@dataclass(frozen=True)
class Slot:
    """One binding of a kind's interface (set 0)."""

    binding: int
    kind: str
    #: the GLSL type spirv-cross reports, None for buffers
    type: str | None
    role: str
    array: bool = False
    #: a shader of this kind must declare it
    required: bool = False


SLOTS: dict[str, tuple[Slot, ...]] = {
    "per-level": (
        Slot(0, "sampled", "sampler2DArray", "the level below, sampled"),
        Slot(1, "storage_image", "image2DArray", "the level written", required=True),
        Slot(2, "storage_image", "image2DArray", "the level below as a storage image"),
    ),
    "whole-chain": (
        Slot(0, "sampled", "sampler2DArray", "level 0, sampled"),
        Slot(1, "storage_image", "image2DArray", "every level, an array (element i: level i)",
             array=True, required=True),
        Slot(2, "storage_buffer", None, "the counters"),
        Slot(3, "storage_buffer", None, "the scratch buffer"),
    ),
}
PUSH: dict[str, ShaderInterface] = {"per-level": shipped.MIP_LEVEL,
                                    "whole-chain": shipped.MIP_CHAIN}
_INCLUDE = {"per-level": "mip_level.glsl", "whole-chain": "mip_chain.glsl"}


@dataclass(frozen=True)
class CustomShader:
    """One version of a custom strategy's shader, checked."""

    #: the path as the spec gave it
    path: Path
    declaration: Declaration
    #: of the debug module (names, source), which has the pipeline module's ids and bindings
    reflection: Reflection
    #: what :func:`~mipview.gpu.vulkan.pipelines.get_pipeline` takes: every named constant of a type
    #: mipview can set, the kind's push block, and the pipeline's module
    interface: ShaderInterface
    options: tuple[OptionSpec, ...]
    #: the files it was made from (the source and its includes): what to watch for edits
    dependencies: tuple[Path, ...]
    #: the version: a hash of the file and its includes as they were compiled
    digest: str

    @property
    def kind(self) -> str:
        return self.declaration.kind

    @property
    def slots(self) -> tuple[Slot, ...]:
        return SLOTS[self.kind]

    @property
    def push(self) -> ShaderInterface:
        return PUSH[self.kind]

    def declares(self, binding: int) -> Binding | None:
        return self.reflection.binding(0, binding)

    def has_constant(self, name: str) -> bool:
        return any(n == name for n, _, _ in self.interface.spec)

    def constants(self, options: dict[str, str], fmt: Format | None) -> dict[str, SpecValue]:
        """Every named constant: options as chosen, mip_common's as the image of ``fmt`` (None:
        no image yet, the defaults), the rest at their
        defaults. All of them, because glslang gives a ``local_size_x_id`` its own default (1)
        beside the named constant of the same id."""
        defaults = {c.name: c.default for c in self.reflection.spec if c.name}
        common = shipped.mip_constants(fmt) if fmt is not None else {}
        out: dict[str, SpecValue] = {}
        for name, _, typ in self.interface.spec:
            if fmt is not None and name in common:
                out[name] = common[name]
            elif name in options:
                out[name] = parse_value(typ, options[name])
            else:
                out[name] = _typed(typ, defaults[name])
        return out

    def local_size(self, constants: dict[str, SpecValue]) -> tuple[int, int, int]:
        """The work-group size with ``constants`` applied."""
        by_id = {cid: constants[name] for name, cid, _ in self.interface.spec if name in constants}
        defaults = {c.id: c.default for c in self.reflection.spec if not c.name}
        out = []
        for size, cid in zip(self.reflection.local_size, self.reflection.local_size_ids,
                             strict=True):
            out.append(size if cid is None else int(by_id.get(cid, defaults.get(cid, 1))))
        return out[0], out[1], out[2]


def parse_value(typ: str, text: str) -> SpecValue:
    """An option's text as a value of the constant's GLSL type; ValueError if it is not one."""
    if typ == "bool":
        if text not in ("true", "false"):
            raise ValueError(f"{text!r} is not a bool (true or false)")
        return text == "true"
    if typ == "float":
        return float(text)
    value = int(text)
    if typ == "uint" and value < 0:
        raise ValueError(f"{text!r} is not a uint")
    return value


def _typed(typ: str, value: object) -> SpecValue:
    if typ == "bool":
        return bool(value)
    return float(value) if typ == "float" else int(value)  # type: ignore[arg-type]


# --- checks ---------------------------------------------------------------------------------------
def _binding_problems(refl: Reflection, kind: str) -> list[str]:
    slots = {s.binding: s for s in SLOTS[kind]}
    listing = ", ".join(f"{s.binding}: {s.role}" for s in SLOTS[kind])
    out = []
    for b in refl.bindings:
        label = f"binding {b.binding} ({b.name or 'unnamed'})"
        if b.set != 0:
            out.append(f"{label} is in set {b.set}; mipview binds set 0 only")
            continue
        slot = slots.get(b.binding)
        if slot is None:
            out.append(f"{label} is not part of the {kind} interface ({listing})")
            continue
        want = slot.type or "storage buffer"
        have = b.type if b.kind in ("sampled", "storage_image") else b.kind.replace("_", " ")
        if b.kind != slot.kind or (slot.type is not None and b.type != slot.type):
            extra = (" (every view is a 2D array: address texels as ivec3(x, y, layer))"
                     if slot.type and have == slot.type.removesuffix("Array") else "")
            out.append(f"{label} is a {have}; the {kind} interface has {slot.role} there, "
                       f"a {want}{extra}")
        elif slot.array != (b.count != 1):
            out.append(f"{label} {'must' if slot.array else 'must not'} be an array "
                       f"({slot.role})")
        elif b.kind == "storage_image" and not b.writeonly and b.format is None:
            out.append(f"{label} reads a storage image without a format qualifier: declare it "
                       f"writeonly, or give the format's qualifier (rgba8, rgba16f, rgba32f, r32f, "
                       f"rg16f...: docs/formats.md)")
    for slot in SLOTS[kind]:
        if slot.required and refl.binding(0, slot.binding) is None:
            out.append(f"no binding {slot.binding} ({slot.role}, a {slot.type})")
    return out


def _push_problems(refl: Reflection, kind: str) -> list[str]:
    want = PUSH[kind].push_layout
    names = ", ".join(f"{t} {n}" for n, t, _ in want)
    if refl.push is None:
        return [f"no push-constant block (the {kind} block is {{{names}}}: include "
                f"{_INCLUDE[kind]} or declare it)"]
    out = []
    if len(refl.push) > len(want):
        out.append(f"the push block has {len(refl.push)} members; the {kind} block has "
                   f"{len(want)} ({names})")
    for i, (member, (name, typ, offset)) in enumerate(zip(refl.push, want, strict=False)):
        if (member.type, member.offset) != (typ, offset):
            out.append(f"push member {i} ({member.type} {member.name} at offset "
                       f"{member.offset}) should be {typ} {name} at offset {offset}")
    return out


def _local_size_problems(refl: Reflection) -> list[str]:
    if refl.local_size_ids[2] is not None or refl.local_size[2] != 1:
        z = "a specialization constant" if refl.local_size_ids[2] is not None \
            else refl.local_size[2]
        return [f"the work group's z size is {z}; it must be 1 (mipview puts array layers in "
                f"the dispatch's z)"]
    return []


def _option_specs(refl: Reflection, decl: Declaration) -> tuple[list[OptionSpec], list[str]]:
    named = {c.name: c for c in refl.spec if c.name}
    specs, problems = [], []
    for opt in decl.options:
        const = named.get(opt.name)
        where = f"line {opt.line}: option {opt.name}"
        if opt.name.startswith(RESERVED_PREFIX):
            problems.append(f"{where}: constants named {RESERVED_PREFIX}* are set by mipview")
            continue
        if const is None:
            have = ", ".join(n for n in named if not n.startswith(RESERVED_PREFIX)) \
                or "none (a module compiled without -g has no names)"
            problems.append(f"{where} names no specialization constant (named constants: "
                            f"{have})")
            continue
        if const.type not in ("int", "uint", "float", "bool"):
            problems.append(f"{where}: a {const.type} constant; options are int, uint, float "
                            f"or bool constants")
            continue
        try:
            values = [parse_value(const.type, v) for v in opt.values]
        except ValueError as exc:
            problems.append(f"{where}: {exc}")
            continue
        default = _typed(const.type, const.default)
        if default not in values:
            problems.append(f"{where}: the shader's default {const.default} is not among "
                            f"{' '.join(opt.values)}")
            continue
        specs.append(OptionSpec(opt.name, opt.values, opt.values[values.index(default)],
                                f"specialization constant {opt.name} ({const.type}, id "
                                f"{const.id})"))
    return specs, problems


def check(refl: Reflection, decl: Declaration) -> tuple[list[OptionSpec], list[str]]:
    """The options the shader declares, and every way it breaks its kind's interface."""
    problems = []
    if ("main", "comp") not in refl.entry_points:
        problems.append("no compute entry point named main")
    problems += _local_size_problems(refl)
    problems += _binding_problems(refl, decl.kind)
    problems += _push_problems(refl, decl.kind)
    options, option_problems = _option_specs(refl, decl)
    return options, problems + option_problems


# --- loading --------------------------------------------------------------------------------------
def _compile(path: Path) -> tuple[bytes, bytes, tuple[Path, ...]]:
    """(pipeline module, debug module, files it was made from)."""
    if path.suffix == ".spv":
        data = path.read_bytes()
        return data, data, (path,)
    with ThreadPoolExecutor(2) as pool:  # two glslc processes at once
        optimised = pool.submit(compile_glsl, path, OPTIMISE)
        debug = pool.submit(compile_glsl, path, DEBUG)
        return optimised.result().spirv, debug.result().spirv, debug.result().dependencies


def _digest(path: Path, data: bytes, dependencies: tuple[Path, ...]) -> str:
    """The version of a shader: the file's bytes ``data`` and every include's."""
    h = hashlib.sha256(data)
    own = path.resolve()
    for dep in dependencies:
        if dep.resolve() != own:
            try:
                h.update(dep.read_bytes())
            except OSError:  # gone: a version of its own, which then fails to compile
                h.update(b"\0missing")
    return h.hexdigest()


def _build(path: Path, data: bytes) -> CustomShader:
    spirv, debug, deps = _compile(path)
    # data was read before the compile: an edit while it ran makes the next load compile again
    digest = _digest(path, data, deps)
    try:
        refl = reflect(debug)
    except ReflectionError as exc:
        raise InterfaceError(path, [str(exc)]) from None
    if not refl.source and path.suffix == ".spv":
        raise InterfaceError(path, [
            "the module embeds no source, so mipview cannot read its '#pragma mipview' lines "
            "(compile it with glslc -g, or give the .comp file)"])
    decl = read_declaration(refl.source, str(path))
    options, problems = check(refl, decl)
    if problems:
        raise InterfaceError(path, problems)
    spec, seen = [], set()
    for c in refl.spec:
        if c.name and c.type in ("int", "uint", "float", "bool") and c.name not in seen:
            seen.add(c.name)
            spec.append((c.name, c.id, c.type))
    interface = ShaderInterface(path.stem, tuple(spec), PUSH[decl.kind].push, spirv)
    return CustomShader(path, decl, refl, interface, tuple(options), deps, digest)


#: (path as given, resolved) -> its latest version
_cache: dict[tuple[Path, Path], CustomShader] = {}
_lock = threading.Lock()


def load_custom_shader(path: str | Path) -> CustomShader:
    """The checked shader of ``path`` as the file and its includes are now (cached by their
    contents). Raises
    CompileError (``FILE:LINE: message``), DeclarationError, InterfaceError or MipviewError,
    each with a message of one line."""
    path = Path(path)
    if path.suffix not in SUFFIXES:
        raise MipviewError(f"{path}: a custom strategy is a GLSL (.comp) or SPIR-V (.spv) file")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise MipviewError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    key = (path, path.resolve())
    with _lock:
        cached = _cache.get(key)
    if cached is not None and cached.digest == _digest(path, data, cached.dependencies):
        return cached
    shader = _build(path, data)
    with _lock:
        _cache[key] = shader
    return shader
