"""Chain mode of tools/spd_harness.py: a mipview whole-chain custom shader, timed by the harness.

What it is for: the same compiled shader timed two ways. ``mipview bench --strategies
shader:FILE`` times a whole-chain custom shader (docs/custom-strategies.md, "Kind whole-chain")
through mipview's runner; this mode compiles FILE with the flags mipview's loader uses
(mipview/gpu/shaders/glslc.py: ``--target-env=vulkan1.2 -O -I <mipview's include folder>``, so
the SPIR-V is byte for byte mipview's: tests/test_spd_harness.py compares them), binds it as the
interface of mipview/gpu/shaders/include/mip_chain.glsl describes, and times it with the
harness's own instance, device, timestamps, warm-up and cache eviction. Nothing here imports
``mipview``: the interface is re-implemented from its documentation, so a bug in mipview's
timing path cannot hide in both.

    python -m tools.spd_harness --chain-shader resources/shaders/spd_mean.comp \\
        --sizes 4096,1920x1080 --repeat 50 --warmup-ms 1500 [--warm] [--json F]

The interface, as mipview sets it up for an RGBA8 UNORM image (one layer):

- set 0: binding 0 level 0 as a ``sampler2DArray`` (nearest, clamp to edge; ``#pragma mipview
  sampler linear``: linear), binding 1 ``mipLevels[N]`` (N: the array size the shader declares;
  element i is level i's storage view, elements past the chain a 1x1 dummy image), binding 2 the
  counters (16 uints per layer), binding 3 (only where the shader declares it) the scratch buffer,
  16 bytes per texel of levels 1..levels-1;
- push constants ``{ivec2 srcSize; int levels; int layers; int dispatch; int groups;}``;
- ``ceil(W / tileW) x ceil(H / tileH) x 1`` work groups (``#pragma mipview tile``, default twice
  the work-group size), ``#pragma mipview dispatches N`` times with mipview's barrier between;
- the counters zeroed once when the image is made and, unless the shader says ``#pragma mipview
  counters self-reset``, before every run too (untimed, beside the eviction); a self-reset
  shader's counters must read zero after the runs;
- specialization constants: every named constant of the shader, mip_common.glsl's as mipview
  sets them for ``unorm`` (MIP_UNORM8 true, MIP_SRGB, MIP_UNORM16, MIP_UNORM10, MIP_FLOAT11
  false), the others at their defaults (no options: ``shader:FILE`` without ``:KEY=VALUE``);
- robust buffer and image access through VK_EXT_pipeline_robustness unless the shader says
  ``#pragma mipview robust off``. Where the device lacks the extension (lavapipe) the pipeline
  gets none, and the header line says so (mipview instead makes a CPU device robust as a whole).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import struct
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import vulkan as vk

from . import spd_harness_core as base

ffi = vk.ffi
_flag = base._flag

ROOT = Path(__file__).resolve().parents[1]
#: mipview's GLSL includes (mip_chain.glsl, mip_common.glsl): a path, not an import
MIP_INCLUDE = ROOT / "mipview" / "gpu" / "shaders" / "include"
# mipview/gpu/shaders/glslc.py: TARGET; OPTIMISE for the pipeline's module, DEBUG for the names
GLSLC_TARGET = "--target-env=vulkan1.2"
GLSLC_OPTIMISE = "-O"
GLSLC_DEBUG = "-g"
GLSLC_TIMEOUT_S = 60.0
#: counters per layer (mip_chain.glsl MIP_CHAIN_COUNTERS)
COUNTERS = 16
#: the MipChainPush block: ivec2 srcSize, int levels, layers, dispatch, groups (std430)
PUSH_BYTES = 24
#: mip_common.glsl's constants for an RGBA8 UNORM image, as mipview sets them
#: (mipview/gpu/shaders/shipped.py mip_constants for Format.UNORM)
UNORM_CONSTANTS = {"MIP_SRGB": False, "MIP_UNORM8": True, "MIP_UNORM16": False,
                   "MIP_UNORM10": False, "MIP_FLOAT11": False}
# A correctly rounded level (mipEncode rounds the code itself) is within 0.5 LSB of the exact
# mean; 1/16 LSB to spare covers float32 sums near a tie and a device that converts through a
# 1/16-LSB grid (mip_common.glsl). A store that truncates, or a level made from the one above
# as stored (SPD's own 1 LSB), goes past it.
CHAIN_TOLERANCE_LSB = 0.5 + 1.0 / 16
FORMAT_LABEL = "unorm"  # what `#pragma mipview formats` must list for this RGBA8 UNORM image


# --- #pragma mipview ----------------------------------------------------------------------------

_PRAGMA = re.compile(r"^\s*#\s*pragma\s+mipview\b(.*)$")
_CHOICES = {"kind": ("per-level", "whole-chain"), "counters": ("zeroed", "self-reset"),
            "robust": ("on", "off"), "sampler": ("nearest", "linear")}


@dataclass(frozen=True)
class ChainPragmas:
    """The ``#pragma mipview`` lines of the shader's own file (docs/custom-strategies.md)."""

    kind: str = ""
    tile: tuple[int, int] | None = None  # None: twice the work-group size
    dispatches: int = 1
    counters: str = "zeroed"
    robust: str = "on"
    sampler: str = "nearest"
    reduction: str = "mean"
    formats: tuple[str, ...] = ()  # () : every format


def read_pragmas(source: str, file: str) -> ChainPragmas:
    """The declaration in ``source``; ValueError (``FILE:LINE: problem``) for a line this
    harness cannot honour. ``option`` lines are skipped: every option keeps its default."""
    fields: dict[str, Any] = {}
    for number, text in enumerate(source.splitlines(), 1):
        m = _PRAGMA.match(text)
        if not m:
            continue
        args = m.group(1).split("//")[0].split()
        where = f"{file}:{number}"
        if not args:
            raise ValueError(f"{where}: empty '#pragma mipview'")
        keyword, args = args[0], args[1:]
        if keyword == "option":
            continue
        if keyword in _CHOICES:
            if len(args) != 1 or args[0] not in _CHOICES[keyword]:
                raise ValueError(f"{where}: #pragma mipview {keyword}: want one of "
                                 f"{' | '.join(_CHOICES[keyword])}")
            fields[keyword] = args[0]
        elif keyword in ("tile", "dispatches"):
            want = 2 if keyword == "tile" else 1
            try:
                values = tuple(int(a) for a in args)
            except ValueError:
                values = ()
            if len(values) != want or min(values) < 1:
                raise ValueError(f"{where}: #pragma mipview {keyword}: want {want} positive "
                                 "whole number(s)")
            fields[keyword] = values if keyword == "tile" else values[0]
        elif keyword == "reduction":
            fields["reduction"] = " ".join(args)
        elif keyword == "formats":
            fields["formats"] = tuple(a.lower() for a in args)
        else:
            raise ValueError(f"{where}: unknown '#pragma mipview {keyword}'")
    return ChainPragmas(**fields)


# --- what the SPIR-V module declares ----------------------------------------------------------
# A word scan of the module (5 header words, then instructions of `words << 16 | opcode`);
# opcodes, decorations and enumerants from the SPIR-V specification.
_OP_NAME, _OP_EXECUTION_MODE, _OP_CAPABILITY = 5, 16, 17
_OP_TYPE_BOOL, _OP_TYPE_INT, _OP_TYPE_FLOAT = 20, 21, 22
_OP_TYPE_ARRAY, _OP_TYPE_RUNTIME_ARRAY, _OP_TYPE_POINTER = 28, 29, 32
_OP_CONSTANT, _OP_CONSTANT_COMPOSITE = 43, 44
_OP_SPEC_TRUE, _OP_SPEC_FALSE, _OP_SPEC_CONSTANT, _OP_SPEC_COMPOSITE = 48, 49, 50, 51
_OP_VARIABLE, _OP_DECORATE, _OP_EXECUTION_MODE_ID = 59, 71, 331
_DEC_SPEC_ID, _DEC_BUILTIN, _DEC_BINDING, _DEC_SET = 1, 11, 33, 34
_BUILTIN_WORKGROUP_SIZE = 25
_MODE_LOCAL_SIZE, _MODE_LOCAL_SIZE_ID = 17, 38
SPIRV_MAGIC = 0x07230203


@dataclass(frozen=True)
class SpecConstant:
    id: int           # constant_id
    name: str         # "" where the module names it not (glslc -O strips names)
    type: str         # bool, int, uint, float; other widths as int16, float64, ...
    default: int      # its 32-bit word (bool: 0 or 1)


@dataclass(frozen=True)
class ModuleFacts:
    capabilities: frozenset[int]
    spec: tuple[SpecConstant, ...]
    #: (set, binding) -> array size (1: not an array, 0: unsized)
    bindings: dict[tuple[int, int], int]
    #: the work-group size as declared; where local_size_ids has an id, that constant's value
    local_size: tuple[int, int, int]
    local_size_ids: tuple[int | None, int | None, int | None]


def _string(words: tuple[int, ...]) -> str:
    return struct.pack(f"<{len(words)}I", *words).split(b"\0", 1)[0].decode(errors="replace")


def module_facts(spirv: bytes) -> ModuleFacts:
    """Capabilities, specialization constants, descriptor bindings and work-group size."""
    if len(spirv) < 20 or len(spirv) % 4 or struct.unpack_from("<I", spirv)[0] != SPIRV_MAGIC:
        raise ValueError("not a SPIR-V module")
    words = struct.unpack(f"<{len(spirv) // 4}I", spirv)
    caps: set[int] = set()
    names: dict[int, str] = {}
    spec_ids: dict[int, int] = {}
    binding: dict[int, int] = {}
    dset: dict[int, int] = {}
    types: dict[int, str] = {}
    consts: dict[int, int] = {}
    spec_values: dict[int, tuple[int, int]] = {}  # result id -> (type id, word)
    composites: dict[int, tuple[int, ...]] = {}
    arrays: dict[int, int | None] = {}
    pointers: dict[int, int] = {}
    variables: dict[int, int] = {}
    size_literal: tuple[int, ...] = (1, 1, 1)
    size_ids: tuple[int, ...] | None = None
    workgroup_size: int | None = None
    i = 5
    while i < len(words):
        count, op = words[i] >> 16, words[i] & 0xFFFF
        if count == 0 or i + count > len(words):
            raise ValueError("malformed SPIR-V")
        a = words[i + 1:i + count]
        i += count
        if op == _OP_CAPABILITY:
            caps.add(a[0])
        elif op == _OP_NAME:
            names[a[0]] = _string(a[1:])
        elif op == _OP_DECORATE:
            target, decoration = a[0], a[1]
            if decoration == _DEC_SPEC_ID:
                spec_ids[target] = a[2]
            elif decoration == _DEC_BINDING:
                binding[target] = a[2]
            elif decoration == _DEC_SET:
                dset[target] = a[2]
            elif decoration == _DEC_BUILTIN and a[2] == _BUILTIN_WORKGROUP_SIZE:
                workgroup_size = target
        elif op == _OP_TYPE_BOOL:
            types[a[0]] = "bool"
        elif op == _OP_TYPE_INT:
            types[a[0]] = ("int" if a[2] else "uint") + ("" if a[1] == 32 else str(a[1]))
        elif op == _OP_TYPE_FLOAT:
            types[a[0]] = "float" + ("" if a[1] == 32 else str(a[1]))
        elif op == _OP_CONSTANT:
            consts[a[1]] = a[2]
        elif op in (_OP_SPEC_TRUE, _OP_SPEC_FALSE):
            spec_values[a[1]] = (a[0], int(op == _OP_SPEC_TRUE))
        elif op == _OP_SPEC_CONSTANT:
            spec_values[a[1]] = (a[0], a[2])
        elif op in (_OP_CONSTANT_COMPOSITE, _OP_SPEC_COMPOSITE):
            composites[a[1]] = tuple(a[2:])
        elif op == _OP_TYPE_ARRAY:
            arrays[a[0]] = a[2]
        elif op == _OP_TYPE_RUNTIME_ARRAY:
            arrays[a[0]] = None
        elif op == _OP_TYPE_POINTER:
            pointers[a[0]] = a[2]
        elif op == _OP_VARIABLE:
            variables[a[1]] = a[0]
        elif op == _OP_EXECUTION_MODE and a[1] == _MODE_LOCAL_SIZE:
            size_literal = tuple(a[2:5])
        elif op == _OP_EXECUTION_MODE_ID and a[1] == _MODE_LOCAL_SIZE_ID:
            size_ids = tuple(a[2:5])
    spec = tuple(SpecConstant(spec_ids[rid], names.get(rid, ""), types.get(tid, "?"), word)
                 for rid, (tid, word) in spec_values.items() if rid in spec_ids)
    bindings: dict[tuple[int, int], int] = {}
    for var, ptr in variables.items():
        if var in binding:
            pointee = pointers.get(ptr, 0)
            count = 1
            if pointee in arrays:
                length = arrays[pointee]
                count = 0 if length is None else consts.get(length, 0)
            bindings[(dset.get(var, 0), binding[var])] = count
    # the WorkgroupSize built-in overrides LocalSize; either may name specialization constants
    if workgroup_size is not None and workgroup_size in composites:
        size_ids = composites[workgroup_size]
    size: list[int] = list(size_literal)
    ids: list[int | None] = [None, None, None]
    if size_ids is not None:
        for k, rid in enumerate(size_ids[:3]):
            if rid in spec_ids:
                ids[k] = spec_ids[rid]
                size[k] = spec_values[rid][1] if rid in spec_values else 1
            else:
                size[k] = consts.get(rid, size[k])
    return ModuleFacts(frozenset(caps), spec, bindings, (size[0], size[1], size[2]),
                       (ids[0], ids[1], ids[2]))


def unorm_constants(facts: ModuleFacts) -> tuple[tuple[int, int], ...]:
    """(constant_id, 32-bit word) sorted by id: what mipview specialises for an RGBA8 UNORM
    image without options (mipview/gpu/strategies/custom_shader.py CustomShader.constants):
    every named int/uint/float/bool constant, each name once, mip_common.glsl's as
    :data:`UNORM_CONSTANTS`, the others at their defaults; nothing for unnamed ones."""
    out: dict[int, int] = {}
    seen: set[str] = set()
    for c in facts.spec:
        if not c.name or c.type not in ("int", "uint", "float", "bool") or c.name in seen:
            continue
        seen.add(c.name)
        value = int(UNORM_CONSTANTS[c.name]) if c.name in UNORM_CONSTANTS else c.default
        if out.get(c.id, value) != value:
            raise ValueError(f"constant_id {c.id} is given {out[c.id]} and {value}")
        out[c.id] = value
    return tuple(sorted(out.items()))


# --- the shader ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class ChainShader:
    """A whole-chain shader compiled and read the way mipview's loader does it."""

    path: Path
    spirv: bytes                 # glslc -O: the pipeline's module
    pragmas: ChainPragmas
    facts: ModuleFacts           # of the glslc -g module: names, as mipview reflects it
    constants: tuple[tuple[int, int], ...]
    constant_names: dict[int, str]
    level_slots: int             # elements of mipLevels (MIP_CHAIN_LEVELS)
    scratch: bool                # binding 3 declared (MIP_CHAIN_SCRATCH)
    tile: tuple[int, int]        # level-0 texels per work group

    @property
    def spec_data(self) -> bytes:
        """4 bytes per constant, in :attr:`constants` order (bool as 0 or 1)."""
        return b"".join(struct.pack("<I", word & 0xFFFFFFFF) for _, word in self.constants)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.spirv).hexdigest()

    def constants_text(self) -> str:
        def show(cid: int, word: int) -> str:
            name = self.constant_names.get(cid, f"id{cid}")
            return f"{name}={'true' if word == 1 else 'false'}" if name.startswith("MIP_") \
                else f"{name}={word}"
        return " ".join(show(cid, word) for cid, word in self.constants) or "none"


def compile_commands(path: Path) -> tuple[list[str], list[str]]:
    """The glslc command lines of mipview's compile_glsl (pipeline module, debug module), with
    the output on stdout instead of a file (the module is the same)."""
    glslc = os.environ.get("GLSLC", "glslc")
    common = [GLSLC_TARGET]
    tail = ["-I", str(MIP_INCLUDE), str(path), "-o", "-"]
    return [glslc, *common, GLSLC_OPTIMISE, *tail], [glslc, *common, GLSLC_DEBUG, *tail]


def _compile_both(path: Path) -> tuple[bytes, bytes]:
    commands = compile_commands(path)
    try:
        # both at once, as mipview does: half the wait on a busy machine
        procs = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                 for c in commands]
    except FileNotFoundError:
        raise RuntimeError(f"{commands[0][0]} not found (install glslc or set GLSLC)") from None
    out = []
    for proc in procs:
        try:
            stdout, stderr = proc.communicate(timeout=GLSLC_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            for p in procs:
                p.kill()
                p.communicate()
            raise RuntimeError(f"{path}: glslc took longer than {GLSLC_TIMEOUT_S:g} s") from None
        if proc.returncode != 0:
            for p in procs:
                p.communicate()
            raise RuntimeError(f"glslc failed:\n{stderr.decode(errors='replace')}")
        out.append(stdout)
    return out[0], out[1]


def load_chain_shader(path: str | Path) -> ChainShader:
    """Compile and read ``path``; ValueError where it is no whole-chain shader for an RGBA8
    UNORM image whose levels this harness can check (a mean), RuntimeError where glslc fails."""
    path = Path(path)
    pragmas = read_pragmas(path.read_text(), str(path))
    if pragmas.kind != "whole-chain":
        raise ValueError(f"{path}: not a '#pragma mipview kind whole-chain' shader")
    if pragmas.formats and FORMAT_LABEL not in pragmas.formats:
        raise ValueError(f"{path}: declares formats {' '.join(pragmas.formats)}; the harness "
                         f"times RGBA8 UNORM ({FORMAT_LABEL})")
    if pragmas.reduction != "mean":
        raise ValueError(f"{path}: reduction {pragmas.reduction}; the harness checks a mean")
    spirv, debug = _compile_both(path)
    facts = module_facts(debug)
    problems = [f"binding {b} of set {s} is not part of the whole-chain interface"
                for s, b in facts.bindings if s != 0 or b > 3]
    slots = facts.bindings.get((0, 1), 0)
    if slots < 1:
        problems.append("no sized array mipLevels at binding 1")
    if problems:
        raise ValueError(f"{path}: " + "; ".join(problems))
    constants = unorm_constants(facts)
    values = dict(constants)
    size = [values.get(cid, s) if cid is not None else s
            for s, cid in zip(facts.local_size, facts.local_size_ids, strict=True)]
    tile = pragmas.tile or (2 * size[0], 2 * size[1])
    names = {c.id: c.name for c in facts.spec if c.name and c.id in values}
    return ChainShader(path, spirv, pragmas, facts, constants, names, slots,
                       (0, 3) in facts.bindings, (tile[0], tile[1]))


# --- Vulkan ---------------------------------------------------------------------------------------

_PIPELINE_ROBUSTNESS = "VK_EXT_pipeline_robustness"
# SPIR-V capability -> the device feature it needs: (struct, member); "core" is
# VkPhysicalDeviceFeatures, "f12" VkPhysicalDeviceVulkan12Features
_CAPABILITY_FEATURES = {
    9: ("f12", "shaderFloat16"), 11: ("core", "shaderInt64"), 12: ("f12",
                                                                  "shaderBufferInt64Atomics"),
    22: ("core", "shaderInt16"), 39: ("f12", "shaderInt8"),
    55: ("core", "shaderStorageImageReadWithoutFormat"),
    56: ("core", "shaderStorageImageWriteWithoutFormat"),
    5345: ("f12", "vulkanMemoryModel"), 5346: ("f12", "vulkanMemoryModelDeviceScope"),
}
# SPIR-V GroupNonUniform* capability -> (name, VkSubgroupFeatureFlagBits)
_SUBGROUP_CAPABILITIES = {61: ("basic", 0x1), 62: ("vote", 0x2), 63: ("arithmetic", 0x4),
                          64: ("ballot", 0x8), 65: ("shuffle", 0x10),
                          66: ("shuffle_relative", 0x20), 67: ("clustered", 0x40),
                          68: ("quad", 0x80)}
_CPU_DEVICE = 4  # VK_PHYSICAL_DEVICE_TYPE_CPU


class ChainContext(base.SpdContext):
    """Instance, device and queue of the SPD harness, with the device features and the pipeline
    of one whole-chain shader instead of SPD's."""

    def __init__(self, shader: ChainShader, device: str | int | None = None,
                 validate: bool = False) -> None:
        self._init_state()
        self.shader = shader
        self.sampler = None
        self.defines: list[str] = []
        self.robust_pipeline = False
        self.robustness = ""
        try:
            self._create_instance(validate)
            self._pick_device(device)
            self._create_chain_device()
            self._create_chain_pipeline()
        except BaseException:
            self.close()
            raise

    def _create_chain_device(self) -> None:
        shader = self.shader
        if self.api_version < (1 << 22) | (2 << 12):
            raise RuntimeError(f"{self.device_name}: Vulkan 1.2 needed (SPIR-V 1.5 modules)")
        extensions = {base._cstr(e.extensionName)
                      for e in vk.vkEnumerateDeviceExtensionProperties(self.physical, None)}
        f13 = ffi.new("VkPhysicalDeviceVulkan13Features*", {
            "sType": _flag("VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES")})
        f12 = ffi.new("VkPhysicalDeviceVulkan12Features*", {
            "sType": _flag("VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES")})
        if self.api_version >= base.API_VERSION:
            f12.pNext = f13
        robust_query = None
        if _PIPELINE_ROBUSTNESS in extensions:
            robust_query = ffi.new("VkPhysicalDevicePipelineRobustnessFeaturesEXT*", {
                "sType": _flag(
                    "VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_ROBUSTNESS_FEATURES_EXT"),
                "pNext": f12.pNext})
            f12.pNext = robust_query
        f2 = ffi.new("VkPhysicalDeviceFeatures2*", {
            "sType": _flag("VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2"), "pNext": f12})
        vk.vkGetPhysicalDeviceFeatures2(self.physical, f2)
        have = {"core": f2.features, "f12": f12}

        # only the features the module's capabilities need: the driver compiles the same SPIR-V
        caps = set(shader.facts.capabilities)
        if 5345 in caps and f12.vulkanMemoryModelDeviceScope:
            caps.add(5346)  # mipview enables the two together
        core_on: dict[str, int] = {}
        enable12 = ffi.new("VkPhysicalDeviceVulkan12Features*", {
            "sType": _flag("VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES")})
        missing = []
        for cap in sorted(caps):
            if cap in _CAPABILITY_FEATURES:
                where, member = _CAPABILITY_FEATURES[cap]
                if not getattr(have[where], member):
                    missing.append(member)
                elif where == "core":
                    core_on[member] = 1
                else:
                    setattr(enable12, member, 1)
            elif cap in _SUBGROUP_CAPABILITIES:
                name, bit = _SUBGROUP_CAPABILITIES[cap]
                if not (self.subgroup_ops & bit
                        and self.subgroup_stages & _flag("VK_SHADER_STAGE_COMPUTE_BIT")):
                    missing.append(f"subgroup {name} operations in compute")
        if missing:
            raise RuntimeError(f"{shader.path.name} needs {', '.join(missing)}; "
                               f"{self.device_name} lacks it")

        enabled_extensions: list[str] = []
        if shader.pragmas.robust == "off":
            self.robustness = "off ('#pragma mipview robust off')"
        elif (robust_query is not None and robust_query.pipelineRobustness
              and f2.features.robustBufferAccess and f13.robustImageAccess):
            # as mipview: per pipeline, robust buffer and image access (what the feature
            # needs the device to support, not to enable)
            robust = ffi.new("VkPhysicalDevicePipelineRobustnessFeaturesEXT*", {
                "sType": _flag(
                    "VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_ROBUSTNESS_FEATURES_EXT"),
                "pipelineRobustness": 1})
            enable12.pNext = robust
            self._keep.append(robust)
            enabled_extensions.append(_PIPELINE_ROBUSTNESS)
            self.robust_pipeline = True
            self.robustness = "on (VK_EXT_pipeline_robustness: robust buffer and image access)"
        else:
            lacks = (f"{self.device_name} lacks {_PIPELINE_ROBUSTNESS}"
                     if robust_query is None or not robust_query.pipelineRobustness
                     else f"{self.device_name} lacks robustBufferAccess or robustImageAccess")
            whole = (" (mipview enables robustBufferAccess and robustImageAccess for the whole "
                     "of such a CPU device instead)" if self.device_type == _CPU_DEVICE
                     and _PIPELINE_ROBUSTNESS not in extensions else "")
            self.robustness = f"off: {lacks}, so the pipeline gets no robust access{whole}"
        self._keep.append(enable12)
        features = vk.VkPhysicalDeviceFeatures(**core_on)
        priorities = ffi.new("float[1]", [1.0])
        queue_info = vk.VkDeviceQueueCreateInfo(queueFamilyIndex=self.family, queueCount=1,
                                                pQueuePriorities=priorities)
        info = vk.VkDeviceCreateInfo(queueCreateInfoCount=1, pQueueCreateInfos=[queue_info],
                                     pEnabledFeatures=features, pNext=enable12,
                                     enabledExtensionCount=len(enabled_extensions),
                                     ppEnabledExtensionNames=enabled_extensions)
        self.device = vk.vkCreateDevice(self.physical, info, None)
        self._device_objects()
        fmt = vk.vkGetPhysicalDeviceFormatProperties(self.physical,
                                                     _flag("VK_FORMAT_R8G8B8A8_UNORM"))
        need = _flag("VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT")
        if shader.pragmas.sampler == "linear":
            need |= _flag("VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT")
        if fmt.optimalTilingFeatures & need != need:
            raise RuntimeError(f"{self.device_name}: R8G8B8A8_UNORM cannot be sampled "
                               f"({shader.pragmas.sampler})")

    def _create_chain_pipeline(self) -> None:
        shader, dev = self.shader, self.device
        compute = _flag("VK_SHADER_STAGE_COMPUTE_BIT")
        kinds = [(0, "VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER", 1),
                 (1, "VK_DESCRIPTOR_TYPE_STORAGE_IMAGE", shader.level_slots),
                 (2, "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", 1)]
        if shader.scratch:
            kinds.append((3, "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", 1))
        bindings = [vk.VkDescriptorSetLayoutBinding(binding=b, descriptorType=_flag(kind),
                                                    descriptorCount=n, stageFlags=compute)
                    for b, kind, n in kinds]
        self.set_layout = vk.vkCreateDescriptorSetLayout(dev, vk.VkDescriptorSetLayoutCreateInfo(
            bindingCount=len(bindings), pBindings=bindings), None)
        push = vk.VkPushConstantRange(stageFlags=compute, offset=0, size=PUSH_BYTES)
        self.pipeline_layout = vk.vkCreatePipelineLayout(dev, vk.VkPipelineLayoutCreateInfo(
            setLayoutCount=1, pSetLayouts=[self.set_layout], pushConstantRangeCount=1,
            pPushConstantRanges=[push]), None)
        module = vk.vkCreateShaderModule(dev, vk.VkShaderModuleCreateInfo(
            codeSize=len(shader.spirv), pCode=shader.spirv), None)
        try:
            # every inner struct bound to a name that outlives the create call: nested
            # by-value structs built inline lose their pointers in the binding
            entries = [vk.VkSpecializationMapEntry(constantID=cid, offset=4 * i, size=4)
                       for i, (cid, _) in enumerate(shader.constants)]
            data = shader.spec_data
            data_c = ffi.new("uint8_t[]", data) if data else None
            spec = vk.VkSpecializationInfo(mapEntryCount=len(entries), pMapEntries=entries,
                                           dataSize=len(data), pData=data_c) if entries else None
            stage = vk.VkPipelineShaderStageCreateInfo(stage=compute, module=module,
                                                       pName="main", pSpecializationInfo=spec)
            robust = None
            if self.robust_pipeline:
                buffers = _flag("VK_PIPELINE_ROBUSTNESS_BUFFER_BEHAVIOR_ROBUST_BUFFER_ACCESS_EXT")
                robust = vk.VkPipelineRobustnessCreateInfoEXT(
                    storageBuffers=buffers, uniformBuffers=buffers,
                    images=_flag("VK_PIPELINE_ROBUSTNESS_IMAGE_BEHAVIOR_ROBUST_IMAGE_ACCESS_EXT"))
            info = vk.VkComputePipelineCreateInfo(stage=stage, layout=self.pipeline_layout,
                                                  pNext=robust)
            self.pipeline = vk.vkCreateComputePipelines(dev, None, 1, [info], None)[0]
        finally:
            vk.vkDestroyShaderModule(dev, module, None)
        filt = _flag("VK_FILTER_LINEAR" if shader.pragmas.sampler == "linear"
                     else "VK_FILTER_NEAREST")
        clamp = _flag("VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE")
        self.sampler = vk.vkCreateSampler(dev, vk.VkSamplerCreateInfo(
            magFilter=filt, minFilter=filt, mipmapMode=_flag("VK_SAMPLER_MIPMAP_MODE_NEAREST"),
            addressModeU=clamp, addressModeV=clamp, addressModeW=clamp, maxLod=0.0), None)

    def close(self) -> None:
        if self.device is not None and getattr(self, "sampler", None) is not None:
            vk.vkDeviceWaitIdle(self.device)
            vk.vkDestroySampler(self.device, self.sampler, None)
            self.sampler = None
        super().close()

    def __enter__(self) -> ChainContext:
        return self


class _ChainImage(base._SpdChain):
    """Image, views, counters, scratch and descriptor set of one size: upload, read-back and
    clean-up are the SPD mode's."""

    image_usage = (*base._SpdChain.image_usage, "VK_IMAGE_USAGE_SAMPLED_BIT")
    counter_bytes = 4 * COUNTERS  # one layer

    def __init__(self, ctx: ChainContext, width: int, height: int) -> None:
        shader = ctx.shader
        self.ctx = ctx
        self.width, self.height = width, height
        self.levels = max(width, height).bit_length()
        if min(width, height) < 1 or self.levels < 2:
            raise ValueError(f"{width}x{height}: no level to make")
        if self.levels > shader.level_slots:
            raise ValueError(f"{width}x{height} has {self.levels} levels; {shader.path.name} "
                             f"binds {shader.level_slots}")
        if max(width, height) > ctx.max_image_side:
            raise ValueError(f"{width}x{height}: over {ctx.device_name}'s {ctx.max_image_side}")
        tx, ty = shader.tile
        self.groups = (-(-width // tx), -(-height // ty))
        self.scratch: tuple[Any, Any] | None = None
        self._build()

    def _create(self) -> None:
        ctx, dev, shader = self.ctx, self.ctx.device, self.ctx.shader
        self.image, self.memory = self._image(self.width, self.height, self.levels)
        self.views = [self._view(self.image, i) for i in range(self.levels)]
        if shader.level_slots > self.levels:
            self.dummy, self.dummy_memory = self._image(1, 1, 1)
            self.dummy_view = self._view(self.dummy, 0)
        storage = _flag("VK_BUFFER_USAGE_STORAGE_BUFFER_BIT")
        self.counter = ctx.buffer(self.counter_bytes, storage
                                  | _flag("VK_BUFFER_USAGE_TRANSFER_DST_BIT")
                                  | _flag("VK_BUFFER_USAGE_TRANSFER_SRC_BIT"))
        if shader.scratch:
            texels = sum(w * h for w, h in (base.level_size(self.width, self.height, i)
                                            for i in range(1, self.levels)))
            self.scratch = ctx.buffer(16 * texels, storage)
        sizes = [vk.VkDescriptorPoolSize(
                     type=_flag("VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER"), descriptorCount=1),
                 vk.VkDescriptorPoolSize(type=_flag("VK_DESCRIPTOR_TYPE_STORAGE_IMAGE"),
                                         descriptorCount=shader.level_slots),
                 vk.VkDescriptorPoolSize(type=_flag("VK_DESCRIPTOR_TYPE_STORAGE_BUFFER"),
                                         descriptorCount=2)]
        self.desc_pool, self.desc_set = ctx.descriptor_set(sizes)
        general = _flag("VK_IMAGE_LAYOUT_GENERAL")
        src = [vk.VkDescriptorImageInfo(sampler=ctx.sampler, imageView=self.views[0],
                                        imageLayout=general)]
        levels = [vk.VkDescriptorImageInfo(
                      imageView=self.views[i] if i < self.levels else self.dummy_view,
                      imageLayout=general) for i in range(shader.level_slots)]
        counters = [vk.VkDescriptorBufferInfo(buffer=self.counter[0], offset=0,
                                              range=self.counter_bytes)]
        buffer_type = _flag("VK_DESCRIPTOR_TYPE_STORAGE_BUFFER")
        writes = [
            vk.VkWriteDescriptorSet(
                dstSet=self.desc_set, dstBinding=0, descriptorCount=1, pImageInfo=src,
                descriptorType=_flag("VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER")),
            vk.VkWriteDescriptorSet(
                dstSet=self.desc_set, dstBinding=1, descriptorCount=len(levels),
                descriptorType=_flag("VK_DESCRIPTOR_TYPE_STORAGE_IMAGE"), pImageInfo=levels),
            vk.VkWriteDescriptorSet(dstSet=self.desc_set, dstBinding=2, descriptorCount=1,
                                    descriptorType=buffer_type, pBufferInfo=counters)]
        scratch = None
        if self.scratch is not None:
            scratch = [vk.VkDescriptorBufferInfo(buffer=self.scratch[0], offset=0,
                                                 range=16 * texels)]
            writes.append(vk.VkWriteDescriptorSet(dstSet=self.desc_set, dstBinding=3,
                                                  descriptorCount=1, descriptorType=buffer_type,
                                                  pBufferInfo=scratch))
        vk.vkUpdateDescriptorSets(dev, len(writes), writes, 0, None)

    def push_data(self, dispatch: int) -> bytes:
        """MipChainPush of one dispatch (std430: six 4-byte members, no padding)."""
        return struct.pack("<6i", self.width, self.height, self.levels, 1, dispatch,
                           self.groups[0] * self.groups[1])

    def record_runs(self, cmd: Any, queries: Any, repeat: int, evict: Any,
                    evict_bytes: int) -> None:
        """``repeat`` runs, each [eviction] [counter zeroing] + stamp + the shader's dispatches
        + stamp (queries 2r, 2r+1): the SPD mode's runs with the chain's dispatches."""
        ctx, pragmas = self.ctx, self.ctx.shader.pragmas
        # `counters zeroed`: zero before every run, untimed, as mipview's before_run does
        zero = pragmas.counters != "self-reset"
        compute = _flag("VK_SHADER_STAGE_COMPUTE_BIT")
        point = _flag("VK_PIPELINE_BIND_POINT_COMPUTE")
        bottom = _flag("VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT")
        pushes = [ffi.new("uint8_t[]", self.push_data(d)) for d in range(pragmas.dispatches)]
        vk.vkBeginCommandBuffer(cmd, vk.VkCommandBufferBeginInfo())
        # reset inside the command buffer, so that it can be resubmitted unchanged
        vk.vkCmdResetQueryPool(cmd, queries, 0, 2 * repeat)
        vk.vkCmdBindPipeline(cmd, point, ctx.pipeline)
        vk.vkCmdBindDescriptorSets(cmd, point, ctx.pipeline_layout, 0, 1, [self.desc_set], 0,
                                   None)
        for r in range(repeat):
            # orders this run after the previous one (same images, counters, scratch)
            base._full_barrier(cmd)
            if evict is not None or zero:
                if evict is not None:
                    vk.vkCmdFillBuffer(cmd, evict, 0, evict_bytes, r & 0xFF)
                if zero:
                    vk.vkCmdFillBuffer(cmd, self.counter[0], 0, self.counter_bytes, 0)
                base._full_barrier(cmd)
            # BOTTOM_OF_PIPE after the barrier: the stamp waits for the fills before it
            vk.vkCmdWriteTimestamp(cmd, bottom, queries, 2 * r)
            for d, push in enumerate(pushes):
                if d:
                    # mipview's barrier between steps (mipview/gpu/vulkan/dispatch.py)
                    base._memory_barrier(cmd, _flag("VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT"),
                                         _flag("VK_ACCESS_SHADER_WRITE_BIT"),
                                         _flag("VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT"),
                                         _flag("VK_ACCESS_SHADER_READ_BIT")
                                         | _flag("VK_ACCESS_SHADER_WRITE_BIT"))
                vk.vkCmdPushConstants(cmd, ctx.pipeline_layout, compute, 0, PUSH_BYTES, push)
                vk.vkCmdDispatch(cmd, self.groups[0], self.groups[1], 1)
            vk.vkCmdWriteTimestamp(cmd, bottom, queries, 2 * r + 1)
        vk.vkEndCommandBuffer(cmd)

    def destroy(self) -> None:
        vk.vkDeviceWaitIdle(self.ctx.device)
        self.ctx.free_buffer(self.scratch)
        self.scratch = None
        super().destroy()


@dataclass
class ChainResult(base.SizeResult):
    shader: str = ""
    spirv_sha256: str = ""
    tile: tuple[int, int] = (0, 0)
    dispatches: int = 1
    counters: str = ""        # zeroed | self-reset
    robust: str = ""
    #: self-reset: the first counter not zero after the runs (its value is counter_after)
    counter_index: int | None = None
    constants: dict[str, int] = field(default_factory=dict)


def time_chain_size(ctx: ChainContext, width: int, height: int, repeat: int = 50,
                    warmup_ms: float = 1500.0, cold: bool = True,
                    evict_mib: int = base.EVICT_MIB, check: bool = True, seed: int = 0,
                    timed: bool = True,
                    tolerance: float = CHAIN_TOLERANCE_LSB) -> ChainResult:
    """Time the context's chain shader on one ``width`` x ``height`` RGBA8 UNORM image (level 0
    as in the SPD mode) and check its levels; ``timed=False``: one untimed run."""
    if repeat < 1:
        raise ValueError("repeat must be >= 1")
    if not timed:
        repeat, warmup_ms, cold = 1, 0.0, False
    shader = ctx.shader
    chain = _ChainImage(ctx, width, height)
    try:
        level0 = base.make_level0(width, height, seed)
        chain.upload(level0)
        samples = base.timed_samples(ctx, chain, repeat, warmup_ms, cold, evict_mib)
        levels, counters = chain.read_back_counters()
    finally:
        chain.destroy()
    mips = chain.levels - 1
    exact = base.box_exact(width, height, mips)
    result_check = None
    if check:
        if not np.array_equal(levels[0], level0):
            raise RuntimeError(f"{width}x{height}: level 0 changed (the shader must only "
                               "read it)")
        result_check = base.check_levels(levels[1:], base.reference_levels(level0, mips),
                                         tolerance)
    counter_after, counter_index = 0, None
    if shader.pragmas.counters == "self-reset":
        nonzero = np.flatnonzero(counters)
        if nonzero.size:
            counter_index = int(nonzero[0])
            counter_after = int(counters[counter_index])
    arr = np.asarray(samples)
    return ChainResult(
        size=f"{width}x{height}", format=base.FORMAT_NAME, cold=cold,
        median_us=float(np.median(arr)) if timed else None,
        min_us=float(arr.min()) if timed else None,
        p90_us=float(np.percentile(arr, 90)) if timed else None,
        repeat=repeat, device=ctx.device_name, driver=ctx.driver, mips=mips,
        workgroups=chain.groups[0] * chain.groups[1], counter_after=counter_after,
        check_max_lsb=result_check.max_error if result_check else None,
        check_box_exact=exact,
        check_passed=(result_check.passed if exact else None) if result_check else None,
        samples_us=[float(x) for x in samples] if timed else [],
        level0=level0, levels=levels[1:], check=result_check,
        shader=str(shader.path), spirv_sha256=shader.sha256, tile=shader.tile,
        dispatches=shader.pragmas.dispatches, counters=shader.pragmas.counters,
        robust=ctx.robustness, counter_index=counter_index,
        constants={shader.constant_names.get(cid, f"id{cid}"): word
                   for cid, word in shader.constants})


# --- command line --------------------------------------------------------------------------------

def chain_check_line(r: ChainResult) -> str:
    counter = ""
    if r.counter_after:
        layer, slot = divmod(r.counter_index or 0, COUNTERS)
        counter = (f"; FAIL: '#pragma mipview counters self-reset', but counter {slot} of "
                   f"layer {layer} reads {r.counter_after} after the runs")
    # SPD-style shaders average a texel past the edge there, exact-weight ones don't: either
    # way the 2x2-box chain is no reference for it
    return base.check_text(r, counter, "where the 2x2-box chain is no exact reference")


def main_chain(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``python -m tools.spd_harness --chain-shader FILE ...`` (tools/spd_harness.py's parser)."""
    try:
        shader = load_chain_shader(args.chain_shader)
    except (OSError, ValueError, RuntimeError) as exc:
        parser.error(str(exc))
    for w, h in args.sizes:
        levels = max(w, h).bit_length()
        if min(w, h) < 1 or not 2 <= levels <= shader.level_slots:
            parser.error(f"{w}x{h}: {shader.path.name} makes chains of 2..{shader.level_slots} "
                         f"levels; this one has {levels}")
    tolerance = CHAIN_TOLERANCE_LSB if args.chain_tolerance is None else args.chain_tolerance
    results: list[ChainResult] = []
    failed = False
    name = shader.path.name
    with ChainContext(shader, args.device, validate=args.validate) as ctx:
        p = shader.pragmas
        print(f"spd-harness chain: {name} on {ctx.device_name} ({ctx.driver}), subgroup "
              f"{ctx.subgroup_size}; tile {shader.tile[0]}x{shader.tile[1]}, {p.dispatches} "
              f"dispatch(es), counters {p.counters}, {shader.level_slots} level slots, "
              f"scratch {'yes' if shader.scratch else 'no'}; constants "
              f"{shader.constants_text()}; robust {ctx.robustness}; SPIR-V {len(shader.spirv)} "
              f"bytes, sha256 {shader.sha256[:16]} (glslc {GLSLC_TARGET} {GLSLC_OPTIMISE})",
              flush=True)
        for w, h in args.sizes:
            r = time_chain_size(ctx, w, h, repeat=args.repeat, warmup_ms=args.warmup_ms,
                                cold=args.cold, evict_mib=args.evict_mib,
                                check=not args.no_check, seed=args.seed,
                                timed=not args.check_only, tolerance=tolerance)
            results.append(r)
            failed |= base.report_size(f"spd-harness chain {name}", r, chain_check_line(r))
    return base.finish(results, ctx.messages, args.json, failed)
