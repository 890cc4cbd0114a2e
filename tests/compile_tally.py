"""Where a cold suite's time goes: each pipeline the driver compiled, per test file.

On lavapipe most of a fresh machine's suite is LLVM compiling pipelines at their first
dispatch (mipview.gpu.vulkan.compile_ahead). With ``MIPVIEW_COMPILE_TALLY=DIR`` set, each
pytest process writes ``DIR/<worker>.json``: per compile, the test, the shader, its
specialisation constants, the bound formats and the seconds it took, plus each test's duration.
``python tests/compile_tally.py DIR`` prints the files and pipelines that cost most, and the
pipelines compiled by more than one process (each pays for its own compile of them when the
shader cache is empty).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

#: a compile submit quicker than this found its pipeline in the driver's shader cache
CACHED_S = 0.05


class Tally:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.test = "(set-up)"
        self.compiles: list[dict] = []
        self.tests: dict[str, float] = {}

    def wrap(self) -> None:
        from mipview.gpu.vulkan.compile_ahead import CompileAhead

        original = CompileAhead._compile
        tally = self

        def timed(ahead, pairs, waiting):
            start = time.perf_counter()
            try:
                return original(ahead, pairs, waiting)
            finally:
                pipeline = pairs[0][1]
                key = getattr(pipeline, "key", None)
                tally.compiles.append({
                    "test": tally.test,
                    "shader": key.shader.name if key else type(pipeline).__name__,
                    "constants": repr(key.constants) if key else "",
                    "sets": len(pairs),
                    "seconds": time.perf_counter() - start,
                })

        CompileAhead._compile = timed

    def write(self) -> None:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / f"{worker}.json").write_text(json.dumps(
            {"compiles": self.compiles, "tests": self.tests}))


def pytest_configure(config: pytest.Config) -> None:
    folder = os.environ.get("MIPVIEW_COMPILE_TALLY")
    if folder:
        tally = Tally(Path(folder))
        tally.wrap()
        config.pluginmanager.register(_Hooks(tally), "compile-tally-hooks")


class _Hooks:
    def __init__(self, tally: Tally) -> None:
        self.tally = tally

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        self.tally.test = item.nodeid
        start = time.perf_counter()
        yield
        self.tally.tests[item.nodeid] = time.perf_counter() - start

    def pytest_sessionfinish(self, session):
        self.tally.write()


def summarise(folder: Path, top: int = 25) -> str:
    per_file: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    per_pipeline: dict[tuple[str, str], list] = defaultdict(lambda: [0.0, 0, set()])
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text())
        for test, seconds in data["tests"].items():
            per_file[test.split("::")[0]][0] += seconds
        for c in data["compiles"]:
            if c["seconds"] < CACHED_S:
                continue
            f = per_file[c["test"].split("::")[0]]
            f[1] += c["seconds"]
            f[2] += 1
            p = per_pipeline[(c["shader"], c["constants"])]
            p[0] += c["seconds"]
            p[1] += 1
            p[2].add(path.stem)
    lines = [f"{'file':58} {'wall s':>7} {'compile s':>9} {'compiles':>8}"]
    ranked = sorted(per_file.items(), key=lambda kv: -kv[1][0])
    lines += [f"{name:58} {w:7.1f} {c:9.1f} {n:8d}" for name, (w, c, n) in ranked[:top]]
    total_wall = sum(v[0] for v in per_file.values())
    total_compile = sum(v[1] for v in per_file.values())
    total_n = sum(v[2] for v in per_file.values())
    lines.append(f"{'all files':58} {total_wall:7.1f} {total_compile:9.1f} {total_n:8d}")
    shared = [(k, v) for k, v in per_pipeline.items() if len(v[2]) > 1]
    lines.append(f"\ndistinct pipelines compiled: {len(per_pipeline)}; compiled in more than "
                 f"one process: {len(shared)}, {sum(v[0] for _, v in shared):.1f} s")
    by_shader: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    for (shader, _), (seconds, n, _) in per_pipeline.items():
        by_shader[shader][0] += seconds
        by_shader[shader][1] += n
    lines.append(f"\n{'shader':30} {'compile s':>9} {'compiles':>8}")
    lines += [f"{s:30} {v[0]:9.1f} {v[1]:8d}"
              for s, v in sorted(by_shader.items(), key=lambda kv: -kv[1][0])]
    return "\n".join(lines)


if __name__ == "__main__":
    print(summarise(Path(sys.argv[1])))
