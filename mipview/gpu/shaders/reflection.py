"""What a SPIR-V compute module declares: entry point, work-group size, descriptor bindings, the
push-constant block and specialization constants, read with ``spirv-cross --reflect`` (Debian
package ``spirv-cross``, installed by scripts/setup.sh), plus the few facts its JSON leaves out:
the source text a module embeds (``OpSource``, kept by ``glslc -g``) and its capabilities,
read from the instruction stream here (a word scan of the SPIR-V layout: 5 header words, then
instructions whose first word is ``word count << 16 | opcode``).
"""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from mipview.core.errors import MipviewError

MAGIC = 0x07230203
TIMEOUT_S = 30.0
_OP_SOURCE_CONTINUED, _OP_SOURCE, _OP_CAPABILITY, _OP_FUNCTION_END = 2, 3, 17, 56

#: SPIR-V capability numbers mipview checks against the device (spirv.core.grammar.json)
CAPABILITIES = {
    9: "Float16", 11: "Int64", 12: "Int64Atomics", 55: "StorageImageReadWithoutFormat",
    61: "GroupNonUniform", 62: "GroupNonUniformVote", 63: "GroupNonUniformArithmetic",
    64: "GroupNonUniformBallot", 65: "GroupNonUniformShuffle",
    66: "GroupNonUniformShuffleRelative", 67: "GroupNonUniformClustered",
    68: "GroupNonUniformQuad", 5345: "VulkanMemoryModel",
}

#: spirv-cross resource list -> descriptor kind (mipview/gpu/vulkan/pipelines.py DESCRIPTOR_KINDS)
_KINDS = {"textures": "sampled", "images": "storage_image", "ssbos": "storage_buffer",
          "ubos": "uniform_buffer", "separate_images": "separate_image",
          "separate_samplers": "sampler", "acceleration_structures": "acceleration_structure"}


class ReflectionError(MipviewError):
    """A file that is not a SPIR-V module spirv-cross can read."""


@dataclass(frozen=True)
class Binding:
    """One descriptor binding. ``count`` is the array size (1: not an array, 0: unsized)."""

    set: int
    binding: int
    kind: str
    #: spirv-cross's type: ``sampler2DArray``, ``image2DArray``, or a buffer's block id
    type: str
    name: str
    count: int = 1
    #: a storage image's format qualifier (``rgba8``), None without one
    format: str | None = None
    writeonly: bool = False


@dataclass(frozen=True)
class SpecConstant:
    name: str
    id: int
    type: str
    default: int | float | bool


@dataclass(frozen=True)
class PushMember:
    name: str
    type: str
    offset: int


@dataclass(frozen=True)
class Reflection:
    entry_points: tuple[tuple[str, str], ...]
    #: work-group size; where ``local_size_ids`` has an id, the size is that constant's value
    local_size: tuple[int, int, int]
    local_size_ids: tuple[int | None, int | None, int | None]
    bindings: tuple[Binding, ...]
    #: the push-constant block's members, None when the module has none
    push: tuple[PushMember, ...] | None
    spec: tuple[SpecConstant, ...]
    capabilities: frozenset[str]
    #: the source text embedded in the module ("" when stripped)
    source: str

    def binding(self, set_: int, binding: int) -> Binding | None:
        return next((b for b in self.bindings if (b.set, b.binding) == (set_, binding)), None)


def _words(spirv: bytes) -> tuple[int, ...]:
    if len(spirv) < 20 or len(spirv) % 4 or struct.unpack_from("<I", spirv)[0] != MAGIC:
        raise ReflectionError("not a SPIR-V module (no 0x07230203 magic number)")
    return struct.unpack(f"<{len(spirv) // 4}I", spirv)


def _string(words: tuple[int, ...]) -> str:
    raw = struct.pack(f"<{len(words)}I", *words)
    return raw.split(b"\0", 1)[0].decode("utf-8", errors="replace")


def instructions(spirv: bytes) -> Iterator[tuple[int, tuple[int, ...]]]:
    """(opcode, operands) of each instruction of a module, in order."""
    for _, op, operands in _located(_words(spirv)):
        yield op, operands


def _located(words: tuple[int, ...]) -> Iterator[tuple[int, int, tuple[int, ...]]]:
    """(index of its first word, opcode, operands) of each instruction of a module's words."""
    i = 5
    op = 0
    while i < len(words):
        count, op = words[i] >> 16, words[i] & 0xFFFF
        if count == 0 or i + count > len(words):
            raise ReflectionError("malformed SPIR-V (truncated, or an instruction of 0 words)")
        yield i, op, words[i + 1:i + count]
        i += count
    if op != _OP_FUNCTION_END:  # functions come last in a module: it was cut short
        raise ReflectionError("malformed SPIR-V (truncated: it does not end with a function)")


#: GLSL.std.450's FMin, FMax -> NMin, NMax (the same result unless an operand is NaN)
NUMBER_EXTREMES = {37: 79, 40: 80}
_OP_EXT_INST_IMPORT, _OP_EXT_INST = 11, 12


def number_extremes(spirv: bytes) -> bytes:
    """``spirv`` with GLSL.std.450's FMin and FMax made NMin and NMax: a NaN operand gives the
    other one (IEEE 754-2008 minNum/maxNum). GLSL's min and max leave NaN undefined, and
    lavapipe's answer depended on the operands' order; NMin is what NVIDIA's min instruction
    does anyway, so it costs nothing, where a NaN test in the shader made Hi-Z chains up to
    1.4x slower on an H100 (docs/bench/hiz-nan). mipview's own shaders are built with it
    (tools/build_shaders.py); its only float min/max are the Hi-Z reductions."""
    words = list(_words(spirv))
    glsl = {ops[0] for _, op, ops in _located(tuple(words))
            if op == _OP_EXT_INST_IMPORT and _string(ops[1:]) == "GLSL.std.450"}
    for i, op, ops in _located(tuple(words)):
        if op == _OP_EXT_INST and ops[2] in glsl and ops[3] in NUMBER_EXTREMES:
            words[i + 4] = NUMBER_EXTREMES[ops[3]]
    return struct.pack(f"<{len(words)}I", *words)


def scan(spirv: bytes) -> tuple[str, frozenset[str]]:
    """(embedded source text, capabilities mipview knows) of a module."""
    source: list[str] = []
    caps = set()
    for op, operands in instructions(spirv):
        if op == _OP_CAPABILITY and operands and operands[0] in CAPABILITIES:
            caps.add(CAPABILITIES[operands[0]])
        elif op == _OP_SOURCE and len(operands) > 3:  # language, version, file id, text
            source.append(_string(operands[3:]))
        elif op == _OP_SOURCE_CONTINUED:
            source.append(_string(operands))
    return "".join(source), frozenset(caps)


def _spirv_cross(spirv: bytes) -> dict[str, Any]:
    exe = shutil.which("spirv-cross")
    if exe is None:
        raise MipviewError("spirv-cross not found (Debian: apt install spirv-cross); mipview "
                           "reads a shader's interface with it")
    try:
        res = subprocess.run([exe, "-", "--reflect"], input=spirv, capture_output=True,
                             timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise MipviewError(f"spirv-cross took longer than {TIMEOUT_S:g} s") from None
    if res.returncode != 0:
        text = res.stderr.decode(errors="replace").strip().splitlines()
        raise ReflectionError(f"spirv-cross cannot read it ({text[-1] if text else 'failed'})")
    return json.loads(res.stdout)


def reflect(spirv: bytes) -> Reflection:
    """Everything mipview checks about a compute module."""
    source, caps = scan(spirv)
    data = _spirv_cross(spirv)
    entries = tuple((e["name"], e["mode"]) for e in data.get("entryPoints", ()))
    comp = next((e for e in data.get("entryPoints", ()) if e["mode"] == "comp"), None)
    size = tuple(comp["workgroup_size"]) if comp else (1, 1, 1)
    is_id = tuple(comp.get("workgroup_size_is_spec_constant_id", (False,) * 3)) if comp \
        else (False,) * 3
    bindings = []
    for key, kind in _KINDS.items():
        for r in data.get(key, ()):
            array = r.get("array", [1])
            bindings.append(Binding(
                int(r.get("set", 0)), int(r.get("binding", 0)), kind, str(r["type"]),
                str(r.get("name", "")), int(array[0]) if array else 1, r.get("format"),
                bool(r.get("writeonly", False))))
    push = None
    blocks = data.get("push_constants", ())
    if blocks:
        members = data["types"][blocks[0]["type"]]["members"]
        push = tuple(PushMember(m["name"], m["type"], int(m["offset"])) for m in members)
    spec = tuple(SpecConstant(c["name"], int(c["id"]), c["type"], c["default_value"])
                 for c in data.get("specialization_constants", ()))
    return Reflection(
        entry_points=entries,
        local_size=tuple(0 if flag else int(v) for v, flag in zip(size, is_id, strict=True)),
        local_size_ids=tuple(int(v) if flag else None for v, flag in zip(size, is_id, strict=True)),
        bindings=tuple(sorted(bindings, key=lambda b: (b.set, b.binding))), push=push,
        spec=spec, capabilities=caps, source=source)
