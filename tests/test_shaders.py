"""The SPIR-V shipped in the package must be what the package's GLSL compiles to."""

import shutil
import struct

import pytest

from mipview.gpu.shaders import reflection
from tools import build_shaders


@pytest.mark.skipif(shutil.which("glslc") is None, reason="glslc not installed")
def test_shipped_spirv_is_fresh():
    stale = build_shaders.stale_shaders()
    assert not stale, f"stale SPIR-V: {stale}; run python -m tools.build_shaders"


def test_every_shader_ships():
    names = {p.stem for p in build_shaders.sources()}
    shipped = {p.stem for p in build_shaders.SPIRV_DIR.glob("*.spv")}
    assert names and names == shipped


#: Vulkan's SPIR-V environment: "for the OpSRem and OpSMod instructions, if either operand is
#: negative the result is undefined" (GLSL's int %). Lavapipe gives C's answer; an NVIDIA H200
#: folded filter-pairs' negative edge taps to wrong texels. Shaders use unsigned % (OpUMod) via
#: mip_common.glsl's mipUnflatten, mipWrapIndex and mipMirrorIndex.
SIGNED_REMAINDERS = {138: "OpSRem", 139: "OpSMod"}
OP_SPEC_CONSTANT_OP = 52  # result type, result, the opcode it applies, operands


def signed_remainders(spirv: bytes) -> set[str]:
    found = set()
    for op, operands in reflection.instructions(spirv):
        if op == OP_SPEC_CONSTANT_OP and len(operands) > 2:
            op = operands[2]
        if op in SIGNED_REMAINDERS:
            found.add(SIGNED_REMAINDERS[op])
    return found


def test_no_shipped_shader_takes_a_signed_remainder():
    found = {p.name: sorted(signed_remainders(p.read_bytes()))
             for p in sorted(build_shaders.SPIRV_DIR.glob("*.spv"))}
    assert len(found) >= 10
    assert not {k: v for k, v in found.items() if v}


def _module(*body: int) -> bytes:
    """A module of: the header, OpCapability Shader, ``body``, OpFunctionEnd."""
    words = [reflection.MAGIC, 0x00010500, 0, 100, 0, (2 << 16) | 17, 1, *body, (1 << 16) | 56]
    return struct.pack(f"<{len(words)}I", *words)


@pytest.mark.parametrize(("op", "found"), [(139, {"OpSMod"}), (138, {"OpSRem"}), (137, set())])
def test_the_signed_remainder_check_sees_one(op, found):
    # %4 = OpXMod %1 %2 %3 (result type, result, two operands); OpUMod (137) is defined
    assert signed_remainders(_module((5 << 16) | op, 1, 4, 2, 3)) == found
    # the same on specialization constants: %4 = OpSpecConstantOp %1 XMod %2 %3
    assert signed_remainders(_module((6 << 16) | OP_SPEC_CONSTANT_OP, 1, 4, op, 2, 3)) == found


#: GLSL.std.450: FMin 37, FMax 40 (NaN undefined); NMin 79, NMax 80 (a NaN gives the other)
GLSL_EXTREMES = {37: "FMin", 40: "FMax", 79: "NMin", 80: "NMax"}


def glsl_extremes(spirv: bytes) -> set[str]:
    """The GLSL.std.450 min/max instructions a module uses (any import id: the modules import
    GLSL.std.450 alone)."""
    return {GLSL_EXTREMES[ops[3]] for op, ops in reflection.instructions(spirv)
            if op == 12 and ops[3] in GLSL_EXTREMES}  # OpExtInst: type, result, set, number


def test_shipped_min_and_max_drop_a_nan_as_the_reference():
    """The Hi-Z reductions are NMin/NMax (the reference's fmin/fmax), never GLSL's FMin/FMax."""
    found = {p.stem: glsl_extremes(p.read_bytes())
             for p in sorted(build_shaders.SPIRV_DIR.glob("*.spv"))}
    assert {"NMin", "NMax"} <= found["per_level"] and {"NMin", "NMax"} <= found["single_pass"]
    assert not {k: v for k, v in found.items() if v & {"FMin", "FMax"}}


def test_number_extremes_rewrites_glsl_min_and_max_only():
    name = list(struct.unpack("<4I", b"GLSL.std.450\0\0\0\0"))
    other = list(struct.unpack("<2I", b"Foo\0\0\0\0\0"))
    # %r = OpExtInst %1 %set NUMBER %5 %6: FMin, FMax, FClamp of GLSL.std.450 (%3), and FMin's
    # number in another instruction set (%8)
    calls = [((7 << 16) | 12, 1, r, ext, number, 5, 6)
             for r, ext, number in ((10, 3, 37), (11, 3, 40), (12, 3, 43), (13, 8, 37))]
    module = _module((6 << 16) | 11, 3, *name, (4 << 16) | 11, 8, *other,
                     *(w for call in calls for w in call))
    assert glsl_extremes(module) == {"FMin", "FMax"}
    patched = reflection.number_extremes(module)
    assert len(patched) == len(module)
    ops = [o for op, o in reflection.instructions(patched) if op == 12]
    assert [o[3] for o in ops] == [79, 80, 43, 37]
