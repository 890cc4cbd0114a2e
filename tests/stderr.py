"""stderr as the tests that check it read it: without the lines that tell shaders are being
compiled (mipview.cli.common.CompileReporter). A first run on a CPU device prints them, so
whether a test sees them depends on what the driver's cache holds, not on the test."""

from __future__ import annotations

_PROGRESS = ("mipview: compiling shaders ", "mipview: compiled ")


def without_compile_progress(err: str) -> str:
    return "".join(line for line in err.splitlines(keepends=True)
                   if not line.startswith(_PROGRESS))
