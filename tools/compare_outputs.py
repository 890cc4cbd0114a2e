"""Do two trees of mipview make the same levels and verdicts? For a change that must not change
behaviour (a layout change, a rename): every built-in strategy on three images in four formats,
`mipview run` from each tree, then every level file compared byte for byte and every report
compared without what a run measures (timings).

    python tools/compare_outputs.py BASE_TREE NEW_TREE OUT

Each tree runs its own package (``python -m mipview`` from inside it, so the working folder comes
first on ``sys.path``), with the Python running this script. Exit 0 when everything is identical,
1 with a line per difference otherwise.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMAGES = {
    "photo": [str(ROOT / "resources" / "photo_npot_1000x750.png")],
    "alpha": [str(ROOT / "resources" / "alpha_300x200.png")],
    "zoneplate": ["--size", "257x131"],
}
FORMATS = ("unorm", "srgb", "f16", "f32")
#: every built-in strategy with its defaults, and a filter, an fp16 and a bilinear path
SPECS = ("blit,per-level,register-chain,npot-exact,subgroup,single-pass,filter-pairs,"
         "per-level:filter=kaiser,single-pass:fp16=on,subgroup:load=bilinear")
#: what a run measures rather than computes
_MEASURED = ("timing", "dispatches", "effective_gbps", "drift")


def run_tree(tree: Path, out: Path, image: list[str], fmt: str) -> None:
    # the tree first; what PYTHONPATH held already (a GPU machine's wheels) after it
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(tree), os.environ.get("PYTHONPATH", "")) if p)}
    cmd = [sys.executable, "-m", "mipview", "run", *image, "--format", fmt,
           "--strategies", SPECS, "--out", str(out)]
    done = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
    if done.returncode not in (0, 1):  # 1: a verdict out of tolerance, compared below
        raise SystemExit(f"{tree}: {' '.join(cmd)} failed:\n{done.stderr}")


def _report(folder: Path) -> dict:
    data = json.loads((folder / "report.json").read_text())
    for entry in data["strategies"]:
        for key in _MEASURED:
            entry.pop(key, None)
    return data


def compare(base: Path, new: Path) -> list[str]:
    """Differences between two run folders: files present, bytes, reports."""
    problems = []
    files = {p.relative_to(base) for p in base.rglob("*") if p.is_file()}
    other = {p.relative_to(new) for p in new.rglob("*") if p.is_file()}
    problems += [f"only in base: {p}" for p in sorted(files - other)]
    problems += [f"only in new: {p}" for p in sorted(other - files)]
    for rel in sorted(files & other):
        if rel.name != "report.json" and not filecmp.cmp(base / rel, new / rel, shallow=False):
            problems.append(f"differs: {rel}")
    if _report(base) != _report(new):
        problems.append("report.json differs (beyond timings)")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    failed = 0
    for name, image in IMAGES.items():
        for fmt in FORMATS:
            tag = f"{name}_{fmt}"
            folders = {side: args.out / side / tag for side in ("base", "new")}
            run_tree(args.base.resolve(), folders["base"], image, fmt)
            run_tree(args.new.resolve(), folders["new"], image, fmt)
            problems = compare(folders["base"], folders["new"])
            levels = sum(1 for p in folders["new"].rglob("level_*") if p.is_file())
            print(f"{tag}: {levels} level files, "
                  f"{'identical' if not problems else f'{len(problems)} differences'}")
            for p in problems:
                print(f"  {p}")
            failed += bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
