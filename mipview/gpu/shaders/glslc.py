"""GLSL compute shaders to SPIR-V with ``glslc``: mipview's own (``python -m tools.build_shaders``)
and users' custom strategies (mipview/gpu/strategies/custom_shader.py), the same flags and include path.

``glslc`` (Debian package ``glslc``, installed by scripts/setup.sh) runs as a subprocess with a
timeout. Its messages (``FILE:LINE: error: ...``) become :class:`CompilerMessage` values, and a
failed compile a :class:`CompileError` whose text is the first error on one line.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from mipview.core.errors import MipviewError

#: Vulkan 1.2 SPIR-V: subgroup operations, float16 and the Vulkan memory model are all core there.
TARGET = "--target-env=vulkan1.2"
#: glslc ignores -O when -g is given, so a debug module (names, source text) is a second compile
OPTIMISE = "-O"
DEBUG = "-g"
TIMEOUT_S = 60.0

_MESSAGE = re.compile(r"^(?P<file>.+?):(?P<line>\d+): (?P<severity>error|warning): (?P<text>.*)$")


def include_dir() -> Path:
    """mipview's GLSL includes (mip_common.glsl, the custom-strategy interfaces): package data
    beside this module."""
    return Path(__file__).resolve().parent / "include"


@dataclass(frozen=True)
class CompilerMessage:
    """One diagnostic of the compiler: where, how bad, what."""

    file: str
    line: int
    severity: str
    text: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.text}"


class CompileError(MipviewError):
    """A shader that does not compile. ``str()`` is the first error as ``FILE:LINE: message``;
    ``messages`` holds every diagnostic, ``output`` the compiler's whole text."""

    def __init__(self, path: Path, messages: tuple[CompilerMessage, ...], output: str) -> None:
        self.path = path
        self.messages = messages
        self.output = output
        first = next((m for m in messages if m.severity == "error"), None)
        if first is not None:
            text = str(first)
        else:
            lines = [ln for ln in output.splitlines() if ln.strip()]
            text = f"{path}: {lines[0] if lines else 'glslc failed'}"
        super().__init__(text)


def parse_messages(output: str) -> tuple[CompilerMessage, ...]:
    """The ``FILE:LINE: error|warning: text`` lines of glslc's output."""
    out = []
    for line in output.splitlines():
        m = _MESSAGE.match(line.strip())
        if m:
            out.append(CompilerMessage(m["file"], int(m["line"]), m["severity"],
                                       m["text"].strip()))
    return tuple(out)


def glslc_path() -> str:
    glslc = shutil.which("glslc")
    if glslc is None:
        raise MipviewError("glslc not found (Debian: apt install glslc; or give a .spv file)")
    return glslc


@dataclass(frozen=True)
class Compiled:
    """A compiled module and the files it was made from (the source and every include)."""

    spirv: bytes
    dependencies: tuple[Path, ...]


def compile_glsl(src: Path, flag: str = OPTIMISE, timeout_s: float = TIMEOUT_S) -> Compiled:
    """``src`` compiled with ``flag`` (:data:`OPTIMISE` or :data:`DEBUG`), the include directory
    on the path. Raises :class:`CompileError`, or MipviewError when glslc is missing or runs
    past ``timeout_s``."""
    with tempfile.TemporaryDirectory(prefix="mipview-glslc-") as tmp:
        out, dep = Path(tmp) / "out.spv", Path(tmp) / "out.d"
        cmd = [glslc_path(), TARGET, flag, "-I", str(include_dir()), str(src), "-o", str(out),
               "-MD", "-MF", str(dep)]
        try:
            res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise MipviewError(f"{src}: glslc took longer than {timeout_s:g} s") from None
        if res.returncode != 0:
            raise CompileError(src, parse_messages(res.stderr), res.stderr)
        # make syntax: "out.spv: a b", lines continued by a backslash, spaces escaped
        deps = re.split(r"(?<!\\)\s+", dep.read_text().partition(": ")[2].replace("\\\n", " "))
        return Compiled(out.read_bytes(),
                        tuple(Path(d.replace("\\ ", " ")) for d in deps if d))
