"""The example shaders of resources/shaders/ for tests, and the mark of tests that compile a
custom shader (mipview runs glslc, and spirv-cross to read a .spv's declarations)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "resources" / "shaders"

needs_compilers = pytest.mark.skipif(
    shutil.which("glslc") is None or shutil.which("spirv-cross") is None,
    reason="needs glslc and spirv-cross")


def example(name: str) -> str:
    """The strategy spec ``shader:PATH`` of resources/shaders/``name``."""
    return f"shader:{EXAMPLES / name}"
