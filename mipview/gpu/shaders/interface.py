"""What the host and a shader must agree on, declared once: specialization constants and the
push-constant block.

A :class:`ShaderInterface` names each specialization constant as the GLSL does (with its
``constant_id`` and type; ``local_size_x_id``-style work-group ids are ``uint`` constants of that
name) and lists the push-constant members in block order with their GLSL types. Pipelines take
constants by name (:meth:`ShaderInterface.spec_values`), and push bytes are packed from the
declaration (:meth:`ShaderInterface.pack`, std430). :func:`read_interface` reads the same facts
from a shader's source and :func:`mismatches` compares the two (tests/test_shader_interface.py).
"""

from __future__ import annotations

import re
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from numbers import Integral, Real
from pathlib import Path

SpecValue = int | float | bool

#: GLSL type -> (struct code of one component, components). bool is 4 bytes in a block.
PUSH_TYPES: dict[str, tuple[str, int]] = {
    "int": ("i", 1), "uint": ("I", 1), "float": ("f", 1), "bool": ("I", 1),
    **{f"{p}vec{n}": (c, n) for p, c in (("i", "i"), ("u", "I"), ("", "f")) for n in (2, 3, 4)},
}
SPEC_TYPES = {"int": "i", "uint": "I", "float": "f", "bool": "I"}
_INT_RANGE = {"int": (-(1 << 31), 1 << 31), "uint": (0, 1 << 32), "bool": (0, 2)}


def _std430_align(components: int) -> int:
    return 4 if components == 1 else 8 if components == 2 else 16


@dataclass(frozen=True)
class ShaderInterface:
    """The host's declaration of ``shaders/<name>.comp``: ``spec`` (GLSL name, constant_id, type)
    including what its includes declare, ``push`` (member, GLSL type) in block order."""

    name: str
    spec: tuple[tuple[str, int, str], ...] = ()
    push: tuple[tuple[str, str], ...] = ()
    #: the module itself, for a shader that is not shipped in mipview/spirv (custom strategies)
    spirv: bytes | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        for const, _, typ in self.spec:
            if typ not in SPEC_TYPES:
                raise ValueError(f"{self.name}: constant {const} has unknown type {typ!r}")
        for member, typ in self.push:
            if typ not in PUSH_TYPES:
                raise ValueError(f"{self.name}: push member {member} has unknown type {typ!r}")

    # --- push constants --------------------------------------------------------------------
    @cached_property
    def push_layout(self) -> tuple[tuple[str, str, int], ...]:
        """(member, GLSL type, std430 byte offset) in block order."""
        out, offset = [], 0
        for member, typ in self.push:
            n = PUSH_TYPES[typ][1]
            offset += -offset % _std430_align(n)
            out.append((member, typ, offset))
            offset += 4 * n
        return tuple(out)

    @cached_property
    def _push_struct(self) -> struct.Struct:
        fmt, end = "<", 0
        for _, typ, offset in self.push_layout:
            code, n = PUSH_TYPES[typ]
            fmt += "x" * (offset - end) + code * n
            end = offset + 4 * n
        return struct.Struct(fmt)

    @property
    def push_size(self) -> int:
        """Bytes of the push-constant block (to the end of its last member)."""
        return self._push_struct.size

    def pack(self, **values: int | float | bool | tuple[int | float, ...]) -> bytes:
        """The push-constant block, one keyword per member (vectors as tuples)."""
        names = [m for m, _ in self.push]
        if set(values) != set(names):
            missing = sorted(set(names) - set(values))
            extra = sorted(set(values) - set(names))
            raise ValueError(f"{self.name} push: missing {missing}, unknown {extra}")
        flat: list[int | float] = []
        for member, typ in self.push:
            value = values[member]
            n = PUSH_TYPES[typ][1]
            parts = (value,) if n == 1 else tuple(value)  # type: ignore[arg-type]
            if len(parts) != n:
                raise ValueError(f"{self.name} push: {member} is a {typ}, got {value!r}")
            flat += [int(v) if typ == "bool" else v for v in parts]
        return self._push_struct.pack(*flat)

    # --- specialization constants ----------------------------------------------------------
    def spec_values(self, values: Mapping[str, SpecValue]) -> tuple[tuple[int, SpecValue], ...]:
        """``{GLSL name: value}`` -> ``((constant_id, value), ...)`` sorted by id. Two names of
        one id (``MEAN_S`` and ``local_size_x_id``) must agree."""
        by_name = {const: (cid, typ) for const, cid, typ in self.spec}
        out: dict[int, SpecValue] = {}
        for const, value in values.items():
            if const not in by_name:
                raise ValueError(f"{self.name} has no specialization constant {const!r} "
                                 f"(has {', '.join(by_name)})")
            cid, typ = by_name[const]
            _check_spec(self.name, const, typ, value)
            if cid in out and out[cid] != value:
                raise ValueError(f"{self.name}: constant_id {cid} given {out[cid]!r} and "
                                 f"{value!r}")
            out[cid] = value
        return tuple(sorted(out.items()))

    def spec_type(self, constant_id: int) -> str:
        return next(typ for _, cid, typ in self.spec if cid == constant_id)

    def spec_data(self, constants: tuple[tuple[int, SpecValue], ...]) -> bytes:
        """4 bytes per (id, value), in the given order, packed as the declared type."""
        return b"".join(struct.pack("<" + SPEC_TYPES[self.spec_type(cid)],
                                    int(v) if isinstance(v, bool) else v)
                        for cid, v in constants)


def _check_spec(shader: str, const: str, typ: str, value: SpecValue) -> None:
    if typ == "float":
        ok = isinstance(value, Real) and not isinstance(value, bool)
    elif typ == "bool":
        ok = isinstance(value, bool)
    else:
        lo, hi = _INT_RANGE[typ]
        ok = isinstance(value, Integral) and not isinstance(value, bool) and lo <= value < hi
    if not ok:
        raise ValueError(f"{shader}: {const} is a {typ}, got {value!r}")


# --- reading the GLSL side ---------------------------------------------------------------------
_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
_CONST = re.compile(r"layout\s*\(\s*constant_id\s*=\s*(\d+)\s*\)\s*const\s+(\w+)\s+(\w+)")
_LOCAL = re.compile(r"layout\s*\(([^)]*)\)\s*in\s*;")
_LOCAL_ID = re.compile(r"(local_size_[xyz]_id)\s*=\s*(\d+)")
_PUSH = re.compile(r"layout\s*\([^)]*push_constant[^)]*\)\s*uniform\s+\w+\s*\{(.*?)\}", re.S)
_MEMBER = re.compile(r"^(\w+)\s+(\w+(?:\s*,\s*\w+)*)$")
_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def _source(path: Path, include_dirs: tuple[Path, ...], seen: set[Path]) -> str:
    """The file with every ``#include`` inlined, each file once (as their guards do)."""
    def inline(match: re.Match[str]) -> str:
        for d in (path.parent, *include_dirs):
            inc = (d / match.group(1)).resolve()
            if inc.is_file():
                if inc in seen:
                    return ""
                seen.add(inc)
                return _source(inc, include_dirs, seen)
        raise FileNotFoundError(f"{path.name}: cannot find include {match.group(1)!r}")
    return _INCLUDE.sub(inline, path.read_text())


def read_interface(path: Path, include_dir: Path | None = None) -> ShaderInterface:
    """What ``path`` (a .comp file) declares: its constants (includes followed) and push block."""
    dirs = (include_dir,) if include_dir is not None else (path.parent / "include",)
    text = _COMMENTS.sub(" ", _source(path, dirs, {path.resolve()}))
    spec = [(name, int(cid), typ) for cid, typ, name in _CONST.findall(text)]
    for body in _LOCAL.findall(text):
        spec += [(name, int(cid), "uint") for name, cid in _LOCAL_ID.findall(body)]
    blocks = _PUSH.findall(text)
    if len(blocks) > 1:
        raise ValueError(f"{path.name}: more than one push-constant block")
    push: list[tuple[str, str]] = []
    for decl in (d.strip() for d in (blocks[0] if blocks else "").split(";")):
        if not decl:
            continue
        m = _MEMBER.match(" ".join(decl.split()))
        if m is None:
            raise ValueError(f"{path.name}: cannot read push member {decl!r}")
        push += [(member.strip(), m.group(1)) for member in m.group(2).split(",")]
    return ShaderInterface(path.stem, tuple(spec), tuple(push))


def mismatches(declared: ShaderInterface, found: ShaderInterface) -> list[str]:
    """Every difference between the host's declaration and what the shader declares."""
    out = []
    if declared.name != found.name:
        out.append(f"declared for {declared.name!r}, shader is {found.name!r}")
    want = {n: (cid, typ) for n, cid, typ in declared.spec}
    have = {n: (cid, typ) for n, cid, typ in found.spec}
    for name in sorted(set(want) | set(have)):
        if name not in have:
            out.append(f"{found.name}: declared constant {name} is not in the shader")
        elif name not in want:
            out.append(f"{found.name}: constant {name} (id {have[name][0]}) is not declared")
        elif want[name] != have[name]:
            out.append(f"{found.name}: constant {name} is (id, type) {have[name]}, declared "
                       f"{want[name]}")
    if declared.push != found.push:
        out.append(f"{found.name}: push block is {list(found.push)}, declared "
                   f"{list(declared.push)}")
    return out
