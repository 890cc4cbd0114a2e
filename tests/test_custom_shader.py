"""Custom strategies' shaders, loaded and checked (no dispatch): spec parsing, the examples in
resources/shaders, compile errors, ``#pragma mipview`` lines, interface mismatches, options from
specialization constants, and what a device or format rules out."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from mipview.cli.main import main
from mipview.core.errors import MipviewError
from mipview.core.formats import Format
from mipview.core.specs import StrategySpec, parse_spec_list
from mipview.gpu.shaders.glslc import DEBUG, OPTIMISE, CompileError, compile_glsl
from mipview.gpu.shaders.pragmas import DeclarationError
from mipview.gpu.strategies import custom_shader, strategy_class
from mipview.gpu.strategies.custom import custom_version, pin, unpin
from mipview.gpu.strategies.custom_shader import InterfaceError, load_custom_shader
from mipview.gpu.strategies.specs import BadSpec, expand_specs
from tests.shader_examples import EXAMPLES, needs_compilers
from tests.stderr import without_compile_progress

pytestmark = needs_compilers

BOX = EXAMPLES / "box_per_level.comp"
CHAIN = EXAMPLES / "chain_last_group.comp"
BUG = EXAMPLES / "odd_edge_bug.comp"

# A per-level shader that declares its interface itself (no include), so each test below can
# break one thing in it. It passes the check as written.
OWN = """#version 460
#pragma mipview kind per-level
layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;
layout(set = 0, binding = 0) uniform sampler2DArray src;
layout(set = 0, binding = 1) writeonly uniform image2DArray dst;
layout(push_constant) uniform Push { ivec2 srcSize; ivec2 dstSize; } pc;
void main() {
    ivec3 p = ivec3(gl_GlobalInvocationID);
    if (any(greaterThanEqual(p.xy, pc.dstSize))) {
        return;
    }
    imageStore(dst, p, texelFetch(src, ivec3(2 * p.xy, p.z), 0));
}
"""


def write(tmp_path: Path, text: str, name: str = "mine.comp") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# --- specs ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,name,options", [
    ("shader:a.comp", "shader:a.comp", ()),
    ("shader:dir/a.comp:TILE=8,MODE=1", "shader:dir/a.comp", (("MODE", "1"), ("TILE", "8"))),
    ("shader:C:/x/y.spv:A=1", "shader:C:/x/y.spv", (("A", "1"),)),  # a ':' in the path
    ("shader:old.comp.d/new.comp", "shader:old.comp.d/new.comp", ()),
])
def test_custom_spec_parses_path_then_options(text, name, options):
    spec = StrategySpec.parse(text)
    assert (spec.name, spec.options) == (name, options)
    assert StrategySpec.parse(str(spec)) == spec
    assert "/" not in spec.slug and ":" not in spec.slug


def test_custom_specs_in_a_list():
    specs = parse_spec_list("shader:x.comp:A=1,B=2,single-pass,shader:y.spv,per-level")
    assert [str(s) for s in specs] == ["shader:x.comp:A=1,B=2", "single-pass", "shader:y.spv",
                                       "per-level"]


def test_custom_spec_wants_a_comp_or_spv_path():
    with pytest.raises(ValueError, match="shader:PATH.comp"):
        StrategySpec.parse("shader:notes.txt")
    with pytest.raises(BadSpec, match="shader:PATH.comp"):
        expand_specs("shader:notes.txt")


# --- the examples -----------------------------------------------------------------------------
def test_examples_load_with_their_kind_and_options():
    box, chain, bug = (load_custom_shader(p) for p in (BOX, CHAIN, BUG))
    assert (box.kind, chain.kind, bug.kind) == ("per-level", "whole-chain", "per-level")
    assert [(o.name, o.choices, o.default) for o in box.options] == [("GROUP", ("8", "16"), "8")]
    assert [(o.name, o.choices, o.default) for o in chain.options] == [
        ("GROUP", ("8", "16"), "16")]
    assert bug.options == ()
    # the work group follows the option (local_size_x_id = the GROUP constant)
    assert box.local_size(box.constants({"GROUP": "16"}, None)) == (16, 16, 1)
    assert box.local_size(box.constants({}, None)) == (8, 8, 1)
    # what a UI watches: the file and the includes it was made from
    assert BOX in box.dependencies
    assert {p.name for p in box.dependencies} >= {"mip_level.glsl", "mip_common.glsl"}


def test_loading_an_unchanged_file_is_cached_and_an_edit_recompiles(tmp_path):
    path = write(tmp_path, BOX.read_text())
    first = load_custom_shader(path)
    assert load_custom_shader(path) is first
    path.write_text(BOX.read_text().replace("option GROUP 8 16", "option GROUP 4 8 16"))
    second = load_custom_shader(path)
    assert second is not first and second.options[0].choices == ("4", "8", "16")
    assert strategy_class(f"shader:{path}").shader is second


def test_an_edited_include_recompiles(tmp_path):
    write(tmp_path, "const float SCALE = 1.0;\n", "scale.glsl")
    include = '#extension GL_GOOGLE_include_directive : require\n#include "scale.glsl"\n'
    path = write(tmp_path, OWN.replace("layout(local_size_x", include + "layout(local_size_x")
                 .replace("texelFetch(src", "SCALE * texelFetch(src"))
    first = load_custom_shader(path)
    assert tmp_path / "scale.glsl" in first.dependencies
    assert load_custom_shader(path) is first
    write(tmp_path, "const float SCALE = 0.5;\n", "scale.glsl")  # the main file is unchanged
    second = load_custom_shader(path)
    assert second is not first and second.digest != first.digest
    assert second.interface.spirv != first.interface.spirv


def test_a_pinned_version_stays_in_use_while_the_file_is_broken(tmp_path):
    path = write(tmp_path, OWN)
    name = f"shader:{path}"
    good = custom_version(name)
    pin(good)
    try:
        write(tmp_path, OWN.replace("imageStore(dst, p,", "imageStore(dst, p, nope +"))
        assert strategy_class(name) is good
        with pytest.raises(CompileError):
            custom_version(name)
        fixed = OWN.replace("texelFetch(src, ivec3(2 * p.xy, p.z), 0)",
                            "texelFetch(src, ivec3(2 * p.xy + 1, p.z), 0)")
        write(tmp_path, fixed)
        assert strategy_class(name) is good  # until the next pin
        pin(newer := custom_version(name))
        assert strategy_class(name) is newer is not good
    finally:
        unpin(name)
    write(tmp_path, "broken")
    with pytest.raises(CompileError):
        strategy_class(name)


def test_option_all_expands_to_the_listed_values():
    specs = expand_specs(f"shader:{BOX}:GROUP=all,per-level")
    assert [s.option_dict for s in specs] == [{"GROUP": "8"}, {"GROUP": "16"}, {}]
    with pytest.raises(MipviewError, match="GROUP must be one of 8, 16"):
        expand_specs(f"shader:{BOX}:GROUP=12")
    with pytest.raises(MipviewError, match="has no option 'TILE'"):
        expand_specs(f"shader:{BOX}:TILE=8")


# --- compile errors -------------------------------------------------------------------------------
def test_compile_error_is_file_line_message(tmp_path):
    path = write(tmp_path, OWN.replace("imageStore(dst, p,", "imageStore(dst, p, nope +"))
    with pytest.raises(CompileError) as info:
        load_custom_shader(path)
    line = OWN.splitlines().index(
        "    imageStore(dst, p, texelFetch(src, ivec3(2 * p.xy, p.z), 0));") + 1
    assert str(info.value).startswith(f"{path}:{line}: ")
    assert "nope" in str(info.value) and "\n" not in str(info.value)
    assert info.value.messages[0].line == line


def test_cli_compile_error_is_one_line_and_exit_2(tmp_path, capsys):
    path = write(tmp_path, OWN.replace("return;", "return"))
    assert main(["run", "--size", "8", "--strategies", f"shader:{path}",
                 "--out", str(tmp_path / "out")]) == 2
    err = without_compile_progress(capsys.readouterr().err)
    assert err.count("\n") == 1 and err.startswith(f"mipview: error: {path}:")
    assert not (tmp_path / "out").exists()


# --- declarations ---------------------------------------------------------------------------------
@pytest.mark.parametrize("edit,needle", [
    (("#pragma mipview kind per-level\n", ""), "no '#pragma mipview kind"),
    (("kind per-level", "kind per-texel"), "want one of per-level | whole-chain"),
    (("kind per-level\n", "kind per-level\n#pragma mipview tiles 4\n"), "unknown '#pragma mipview tiles'"),
    (("kind per-level\n", "kind per-level\n#pragma mipview tile 64 64\n"), "is for whole-chain"),
    (("kind per-level\n", "kind per-level\n#pragma mipview formats unorm rgb9e5\n"), "unknown format"),
    (("kind per-level\n", "kind per-level\n#pragma mipview robust maybe\n"), "want one of on | off"),
])
def test_bad_declaration_names_the_line(tmp_path, edit, needle):
    path = write(tmp_path, OWN.replace(*edit))
    with pytest.raises(DeclarationError, match=needle) as info:
        load_custom_shader(path)
    assert str(info.value).startswith(str(path))


def test_declared_formats_sampler_and_reduction(tmp_path):
    path = write(tmp_path, OWN.replace("kind per-level\n", "kind per-level\n#pragma mipview "
                                       "formats f16 f32\n#pragma mipview reduction max\n"
                                       "#pragma mipview sampler linear\n"))
    decl = load_custom_shader(path).declaration
    assert (decl.formats, decl.reduction, decl.sampler) == ((Format.F16, Format.F32), "max",
                                                            "linear")
    assert decl.robust == "on"  # the default: a stray access cannot fault the device


def test_robust_off_reaches_the_pipeline(gpu, tmp_path, monkeypatch):
    """``#pragma mipview robust off``: the pipeline is asked for without robust access (the
    default asks for it), so the shader is timed as its engine runs it."""
    from mipview.core.formats import to_storage
    from mipview.gpu.session import Session
    from mipview.gpu.strategies import custom

    level0 = to_storage(np.zeros((8, 8, 4)), Format.F32)
    asked = []
    real = custom.get_pipeline
    monkeypatch.setattr(custom, "get_pipeline",
                        lambda *a, **k: asked.append(k.get("robust")) or real(*a, **k))
    for pragma, robust in (("", True), ("#pragma mipview robust off\n", False)):
        path = write(tmp_path, OWN.replace("kind per-level\n", "kind per-level\n" + pragma))
        with Session(gpu, level0, Format.F32, expand_specs(f"shader:{path}")) as session:
            session.generate()
        assert asked[-1] is robust


# --- interface mismatches -------------------------------------------------------------------------
def test_own_declarations_match_the_per_level_interface(tmp_path):
    shader = load_custom_shader(write(tmp_path, OWN))
    assert shader.kind == "per-level" and shader.options == ()


@pytest.mark.parametrize("edits,needles", [
    # wrong binding type: a 2D sampler where mipview binds a 2D array
    ([("uniform sampler2DArray src", "uniform sampler2D src"),
      ("ivec3(2 * p.xy, p.z)", "2 * p.xy")],
     ["binding 0 (src) is a sampler2D", "a sampler2DArray", "ivec3(x, y, layer)"]),
    # wrong binding number: nothing at binding 1, something at 4
    ([("binding = 1", "binding = 4")],
     ["binding 4 (dst) is not part of the per-level interface", "no binding 1"]),
    # wrong set
    ([("set = 0, binding = 1", "set = 1, binding = 1")], ["in set 1; mipview binds set 0 only"]),
    # missing push block
    ([("layout(push_constant) uniform Push { ivec2 srcSize; ivec2 dstSize; } pc;",
       "const ivec2 dstSize = ivec2(4);"), ("pc.dstSize", "dstSize")],
     ["no push-constant block", "ivec2 srcSize, ivec2 dstSize, int level, int levels"]),
    # a push member of the wrong type
    ([("ivec2 dstSize; }", "vec2 dstSize; }"), ("pc.dstSize", "ivec2(pc.dstSize)")],
     ["push member 1 (vec2 dstSize at offset 8) should be ivec2 dstSize at offset 8"]),
    # a push block longer than the interface's
    ([("ivec2 dstSize; }", "ivec2 dstSize; int level; int levels; int extra; }")],
     ["the push block has 5 members; the per-level block has 4"]),
    # wrong local size
    ([("local_size_z = 1", "local_size_z = 2")],
     ["the work group's z size is 2; it must be 1"]),
])
def test_interface_mismatch_names_what_is_wrong(tmp_path, edits, needles):
    text = OWN
    for old, new in edits:
        assert old in text
        text = text.replace(old, new)
    path = write(tmp_path, text)
    if needles is None:
        load_custom_shader(path)
        return
    with pytest.raises(InterfaceError) as info:
        load_custom_shader(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ") and "\n" not in message
    for needle in needles:
        assert needle in message


def test_whole_chain_wants_the_level_array(tmp_path):
    text = OWN.replace("kind per-level", "kind whole-chain").replace(
        "ivec2 srcSize; ivec2 dstSize;", "ivec2 srcSize; int levels; int layers;").replace(
        "pc.dstSize", "pc.srcSize")
    with pytest.raises(InterfaceError) as info:
        load_custom_shader(write(tmp_path, text))
    assert "binding 1 (dst) must be an array" in str(info.value)


@pytest.mark.parametrize("pragma,needle", [
    ("option TILE 8 16", "option TILE names no specialization constant (named constants: K)"),
    ("option K 1 2", "the shader's default 4 is not among 1 2"),
    ("option K 4 x", "invalid literal"),
    ("option MIP_SRGB true false", "constants named MIP_* are set by mipview"),
])
def test_bad_options(tmp_path, pragma, needle):
    text = OWN.replace("kind per-level\n", f"kind per-level\n#pragma mipview {pragma}\n"
                       "layout(constant_id = 0) const int K = 4;\n"
                       "layout(constant_id = 10) const bool MIP_SRGB = false;\n")
    with pytest.raises(InterfaceError, match=re.escape(needle)):
        load_custom_shader(write(tmp_path, text))


# --- SPIR-V files ---------------------------------------------------------------------------------
def test_spv_with_embedded_source_loads_like_the_comp(tmp_path):
    spv = tmp_path / "box.spv"
    spv.write_bytes(compile_glsl(BOX, DEBUG).spirv)
    shader = load_custom_shader(spv)
    assert shader.kind == "per-level" and shader.options == load_custom_shader(BOX).options
    assert shader.interface.spirv == spv.read_bytes()
    assert expand_specs(f"shader:{spv}:GROUP=all")[1].option_dict == {"GROUP": "16"}


def test_spv_without_source_or_not_spirv_says_why(tmp_path):
    stripped = tmp_path / "stripped.spv"
    stripped.write_bytes(compile_glsl(BOX, OPTIMISE).spirv)
    with pytest.raises(InterfaceError, match="embeds no source.*glslc -g"):
        load_custom_shader(stripped)
    junk = write(tmp_path, "not spir-v at all", "junk.spv")
    with pytest.raises(InterfaceError, match="not a SPIR-V module"):
        load_custom_shader(junk)
    with pytest.raises(MipviewError, match=r"\.comp\) or SPIR-V \(\.spv\)"):
        load_custom_shader(write(tmp_path, OWN, "mine.glsl"))
    with pytest.raises(MipviewError, match="cannot read it"):
        load_custom_shader(tmp_path / "missing.comp")


# --- what rules a shader out ----------------------------------------------------------------------
LOADS = OWN.replace(
    "layout(push_constant)",
    "layout(set = 0, binding = 2, rgba8) readonly uniform image2DArray low;\nlayout(push_constant)",
).replace("texelFetch(src, ivec3(2 * p.xy, p.z), 0)", "imageLoad(low, ivec3(2 * p.xy, p.z))")


def test_unsupported_formats_and_devices(gpu, tmp_path):
    caps = gpu.caps
    box = strategy_class(f"shader:{BOX}")
    assert all(box.unsupported_reason(caps, f, 37, 23) is None for f in Format)
    own = strategy_class(f"shader:{write(tmp_path, OWN)}")
    # no MIP_SRGB constant: it cannot encode sRGB stores
    assert "MIP_SRGB" in own.unsupported_reason(caps, Format.SRGB, 8, 8)
    assert own.unsupported_reason(caps, Format.UNORM, 8, 8) is None
    f16_only = write(tmp_path, OWN.replace("kind per-level", "kind per-level\n"
                                           "#pragma mipview formats f16"), "f16.comp")
    reason = strategy_class(f"shader:{f16_only}").unsupported_reason(caps, Format.UNORM, 8, 8)
    assert "declares formats f16" in reason
    # binding 2, the level below as a storage image, ties the shader to its format qualifier
    loads = strategy_class(f"shader:{write(tmp_path, LOADS, 'loads.comp')}")
    assert loads.unsupported_reason(caps, Format.UNORM, 8, 8) is None
    assert "declared rgba8; f16 images need rgba16f" in loads.unsupported_reason(
        caps, Format.F16, 8, 8)
    chain = strategy_class(f"shader:{CHAIN}")
    assert chain.unsupported_reason(caps, Format.UNORM, 4096, 4096) is None
    assert "binds 16 levels" in chain.unsupported_reason(caps, Format.UNORM, 1 << 16, 1)


def test_strategy_registry_keeps_built_ins_only():
    from mipview.gpu import strategies

    assert not any(name.startswith("shader:") for name in strategies.REGISTRY)
    assert custom_shader.SLOTS["per-level"][1].required
