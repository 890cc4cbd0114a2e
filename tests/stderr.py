"""stderr as the tests that check it read it: without the lines that tell shaders are being
compiled (mipview.cli.common.CompileReporter). A first run on a CPU device prints them, so
whether a test sees them depends on what the driver's cache holds, not on the test."""

from __future__ import annotations

_PROGRESS = ("mipview: compiling shaders ", "mipview: compiled ")


def without_compile_progress(err: str) -> str:
    return "".join(line for line in err.splitlines(keepends=True)
                   if not line.startswith(_PROGRESS))


def one_line_error(capsys, *fragments: str) -> str:
    """The command's stderr: one ``mipview: error:`` line holding each of ``fragments`` (any
    case); returned for more checks."""
    err = without_compile_progress(capsys.readouterr().err).strip()
    assert err.count("\n") == 0 and err.startswith("mipview: error:"), err
    for fragment in fragments:
        assert fragment.lower() in err.lower(), err
    return err
