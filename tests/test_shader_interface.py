"""Host and shaders agree on specialization constants and push-constant blocks: every shader in
the package has one declaration (a strategy's in its own module, the others in
mipview/gpu/shaders/shipped.py) that matches its GLSL (includes followed), the check catches a
wrong declaration, and packing follows std430."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import struct

import pytest

from mipview.gpu.shaders import shipped
from mipview.gpu.shaders.glslc import include_dir
from mipview.gpu.shaders.interface import ShaderInterface, mismatches, read_interface
from mipview.gpu.strategies.per_level import PER_LEVEL
from mipview.gpu.strategies.single_pass import SINGLE_PASS
from tools import build_shaders

SOURCES = build_shaders.sources()
INCLUDE = include_dir()
#: the blocks custom strategies are checked against: declared, but no shipped shader
CUSTOM = {shipped.MIP_LEVEL.name, shipped.MIP_CHAIN.name}


def declarations() -> list[ShaderInterface]:
    """Every module-level ShaderInterface of every module of mipview.gpu, each object once."""
    import mipview.gpu

    found: dict[int, ShaderInterface] = {}
    for info in pkgutil.walk_packages(mipview.gpu.__path__, "mipview.gpu."):
        for value in vars(importlib.import_module(info.name)).values():
            if isinstance(value, ShaderInterface) and value.spirv is None:
                found[id(value)] = value
    return list(found.values())


DECLARED = {s.name: s for s in declarations()}


def test_every_shader_is_declared_once():
    assert len(DECLARED) == len(declarations())  # no shader has two declarations
    assert set(DECLARED) - CUSTOM == {p.stem for p in SOURCES}


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.stem)
def test_declaration_matches_the_glsl(path):
    found = read_interface(path, INCLUDE)
    assert mismatches(DECLARED[path.stem], found) == []


def test_includes_are_followed():
    # MIP_SRGB lives in mip_common.glsl, reached through batch_common.glsl; SP_* and the push
    # block of single_pass.comp live in spd_reduce.glsl
    batch = read_interface(build_shaders.source("batch_scan"), INCLUDE)
    assert ("MIP_SRGB", 10, "bool") in batch.spec and ("BATCH_TILE", 5, "uint") in batch.spec
    sp = read_interface(build_shaders.source("single_pass"), INCLUDE)
    assert ("SP_REDUCTION", 0, "int") in sp.spec and len(sp.push) == 11


def _wrong(name, **change):
    return dataclasses.replace(DECLARED[name], **change)


@pytest.mark.parametrize("shader,wrong,needle", [
    # a wrong id
    ("per_level", {"spec": (("local_size_x_id", 0, "uint"), ("local_size_y_id", 1, "uint"),
                            ("EVEN", 3, "bool"), ("BILINEAR", 3, "bool"),
                            ("MIP_SRGB", 10, "bool"))}, "EVEN"),
    # a constant the shader does not have, and one it has left out
    ("image_read", {"spec": (("LINEAR_TYPO", 0, "bool"),)}, "LINEAR"),
    # a wrong constant type
    ("mean", {"spec": tuple((n, i, "int" if n == "MEAN_LOG_EPS" else t)
                            for n, i, t in DECLARED["mean"].spec)}, "MEAN_LOG_EPS"),
    # a missing push member
    ("npot_exact", {"push": (("srcSize", "ivec2"), ("levels", "int"))}, "push block"),
    # a wrong member type
    ("cache_evict", {"push": (("count", "uint"), ("never", "int"))}, "push block"),
    # members out of order
    ("per_level", {"push": (("dstSize", "ivec2"), ("srcSize", "ivec2"))}, "push block"),
])
def test_the_check_fails_on_a_wrong_declaration(shader, wrong, needle):
    found = read_interface(build_shaders.source(shader), INCLUDE)
    problems = mismatches(_wrong(shader, **wrong), found)
    assert problems and any(needle in p for p in problems), problems


def test_reader_sees_a_changed_shader(tmp_path):
    """A shader edited without its declaration: the reader reports what the GLSL now says."""
    src = (build_shaders.source("image_read")).read_text()
    edited = src.replace("float never;", "float never;\n    int extra;")
    assert edited != src
    (tmp_path / "image_read.comp").write_text(edited)
    found = read_interface(tmp_path / "image_read.comp", INCLUDE)
    assert found.push[-1] == ("extra", "int")
    assert mismatches(DECLARED["image_read"], found)


def test_pack_is_std430():
    iface = ShaderInterface("x", push=(("a", "int"), ("b", "ivec2"), ("c", "float"),
                                       ("d", "vec4"), ("e", "uint")))
    # b aligns to 8, d to 16; the block ends with its last member
    assert iface.push_size == 4 + 4 + 8 + 4 + 12 + 16 + 4
    data = iface.pack(a=-1, b=(2, 3), c=0.5, d=(1.0, 2.0, 3.0, 4.0), e=7)
    assert data == (struct.pack("<i4x2if12x4fI", -1, 2, 3, 0.5, 1.0, 2.0, 3.0, 4.0, 7))


def test_declared_blocks_pack_as_the_shaders_read_them():
    assert shipped.MEAN.pack(gridSize=(300, 200), imageSize=(300, 200), span=1, firstPass=1,
                             lastPass=0, scale=1.0) == struct.pack("<7if", 300, 200, 300, 200,
                                                                  1, 1, 0, 1.0)
    assert SINGLE_PASS.push_size == 13 * 4


@pytest.mark.parametrize("values", [
    {"srcSize": (1, 2)},                                   # a member missing
    {"srcSize": (1, 2), "dstSize": (3, 4), "extra": 1},    # an unknown member
    {"srcSize": (1, 2, 3), "dstSize": (3, 4)},             # a vector of the wrong length
])
def test_pack_refuses_what_the_block_does_not_hold(values):
    with pytest.raises(ValueError):
        PER_LEVEL.pack(**values)


def test_constants_by_name():
    ids = PER_LEVEL.spec_values({"local_size_x_id": 8, "local_size_y_id": 8,
                                         "EVEN": True, "BILINEAR": False, "MIP_SRGB": True})
    assert ids == ((0, 8), (1, 8), (2, True), (3, False), (10, True))
    # two names of one id (MEAN_S is also local_size_x_id) must agree
    assert shipped.MEAN.spec_values({"MEAN_S": 16, "local_size_x_id": 16}) == ((0, 16),)
    data = shipped.MEAN.spec_data(shipped.MEAN.spec_values({"MEAN_S": 8, "MEAN_LOG_EPS": 1e-4,
                                                            "MEAN_LOG": True}))
    assert data == struct.pack("<iIf", 8, 1, 1e-4)


@pytest.mark.parametrize("shader,values", [
    (shipped.MEAN, {"MEAN_S": 8, "local_size_x_id": 16}),  # one id, two values
    (PER_LEVEL, {"EVEN ": True}),                   # no such constant
    (PER_LEVEL, {"EVEN": 1}),                       # a bool given an int
    (shipped.MEAN, {"MEAN_LOG_EPS": True}),                 # a float given a bool
    (shipped.BATCH_REDUCE, {"BATCH_WORDS": -1}),            # a uint out of range
])
def test_constants_refuse_wrong_values(shader, values):
    with pytest.raises(ValueError):
        shader.spec_values(values)


@pytest.mark.parametrize("declared", [shipped.MIP_LEVEL, shipped.MIP_CHAIN], ids=lambda d: d.name)
def test_custom_strategy_includes_match_their_declaration(declared):
    # the push blocks every custom per-level / whole-chain shader is checked against
    found = read_interface(INCLUDE / f"{declared.name}.glsl", INCLUDE)
    assert mismatches(declared, found) == []
    wrong = dataclasses.replace(declared, push=declared.push[:-1])
    assert mismatches(wrong, found)
