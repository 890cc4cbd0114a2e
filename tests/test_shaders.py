"""The SPIR-V shipped in the package must be what the GLSL in shaders/ compiles to."""

import shutil

import pytest

from mipview import build_shaders


@pytest.mark.skipif(shutil.which("glslc") is None, reason="glslc not installed")
def test_shipped_spirv_is_fresh():
    stale = build_shaders.stale_shaders()
    assert not stale, f"stale SPIR-V: {stale}; run python -m mipview.build_shaders"


def test_every_shader_ships():
    names = {p.stem for p in build_shaders.sources()}
    shipped = {p.stem for p in build_shaders.SPIRV_DIR.glob("*.spv")}
    assert names and names == shipped
