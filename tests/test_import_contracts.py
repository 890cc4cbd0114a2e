"""mipview's layers, as import-linter checks them: the contracts live in pyproject.toml
([tool.importlinter]); this runs the linter on the package, and on a copy of it with one
forbidden import added, to show that each kind of contract does fail."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _lint(project: Path, *contracts: str) -> subprocess.CompletedProcess[str]:
    """lint-imports on the package under ``project`` with its pyproject's contracts (those of
    the ids ``contracts``, or all)."""
    linter = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    if not Path(linter).exists():
        pytest.fail("import-linter is not installed: ./test.sh installs it (pyproject's test extra)")
    env = {"PATH": str(Path(sys.executable).parent), "PYTHONPATH": str(project)}
    only = [arg for c in contracts for arg in ("--contract", c)]
    return subprocess.run([linter, "--no-cache", *only, str(project / "pyproject.toml")], cwd=project,
                          capture_output=True, text=True, env=env, timeout=300)


def test_mipview_keeps_its_layer_contracts() -> None:
    res = _lint(ROOT)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "3 kept, 0 broken" in res.stdout


@pytest.fixture(scope="module")
def copy_of_mipview(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = tmp_path_factory.mktemp("project")
    shutil.copytree(ROOT / "mipview", project / "mipview",
                    ignore=shutil.ignore_patterns("__pycache__", "*.spv", "*.comp", "*.glsl"))
    shutil.copy(ROOT / "pyproject.toml", project)
    return project


@pytest.mark.parametrize(("module", "line", "contract", "named"), [
    # the reference (check) may not reach up into a Run
    ("check/reference.py", "from mipview.runs import staged", "layers",
     "mipview.check.reference -> mipview.runs.staged"),
    # formats (core) may not open a window
    ("core/formats.py", "import PySide6.QtCore", "no-qt", "mipview.core.formats -> PySide6"),
    # two parts of the GPU layer may not import each other both ways
    ("gpu/vulkan/sync.py", "from mipview.gpu.strategies import base", "acyclic",
     ".vulkan -> .strategies"),
])
def test_a_forbidden_import_breaks_its_contract(copy_of_mipview: Path, module: str, line: str,
                                                contract: str, named: str) -> None:
    path = copy_of_mipview / "mipview" / module
    original = path.read_text()
    path.write_text(f"{original}\n{line}\n")
    try:
        broken = _lint(copy_of_mipview, contract)
    finally:
        path.write_text(original)
    assert broken.returncode == 1 and "0 kept, 1 broken" in broken.stdout, broken.stdout
    assert named in broken.stdout
    kept = _lint(copy_of_mipview, contract)  # the same copy without the line: kept again
    assert kept.returncode == 0, kept.stdout
