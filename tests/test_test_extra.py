"""The window's tests need pytest-qt (the ``test`` extra). Without it a developer's run skips
tests/ui as a whole; under CI (``CI`` set, as CI services set it) the same run must fail, or a
set-up without the extra would pass with the window untested (tests/ui/conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# pytest collecting tests/ (tests/ui's conftest is met during collection, as in a whole run)
# with pytestqt made unimportable; the other test files are left out, the outcome is tests/ui's
WITHOUT_QT = ("import sys; sys.modules['pytestqt'] = None; import pytest; "
              "sys.exit(pytest.main(['-p', 'no:cacheprovider', '-q', '--collect-only', 'tests', "
              "'--ignore-glob=tests/test_*.py']))")


def _collect(ci: str | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    if ci is not None:
        env["CI"] = ci
    return subprocess.run([sys.executable, "-c", WITHOUT_QT], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("ci", [None, "true"], ids=["developer", "ci"])
def test_missing_pytest_qt_skips_only_outside_ci(ci: str | None) -> None:
    run = _collect(ci)
    out = run.stdout + run.stderr
    if ci is None:
        assert run.returncode in (0, 5), out
        assert "SKIPPED" in out and "pytestqt" in out, out
    else:
        assert run.returncode not in (0, 5), out
        assert "ERROR tests/ui" in out and "pytestqt" in out, out
