"""``mipview run --devices A,B``: the same strategies on two devices, compared texel by texel
("is this GPU or driver conformant with that one?").

Each device's run is an ordinary run folder (``OUT/device-1``, ``OUT/device-2``, which ``mipview
diff`` reads again later); the comparison is ``diff``'s own (mipview.runs.saved.compare_saved:
per strategy and level the largest and mean difference and the texels further apart than both
devices' promises allow) and goes to stdout and to ``OUT/report.json``. Exit 0 identical or within
the promises, 1 beyond them or a run's own verdict failed, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

from mipview.check.diff import BEYOND, worst_verdict
from mipview.cli.common import EXIT_FAILED, EXIT_OK
from mipview.cli.diff import as_dict, report_lines
from mipview.cli.output import REPORT, RunFolder
from mipview.core.errors import MipviewError
from mipview.runs.saved import compare_saved, open_saved

SIDES = ("device-1", "device-2")


def parse_devices(text: str) -> tuple[str, str]:
    """``--devices A,B``: two device selectors (index or name substring)."""
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2 or not all(parts):
        raise argparse.ArgumentTypeError(f"'{text}': give two devices, e.g. 0,1 (the same one "
                                         "twice opens it twice)")
    return parts[0], parts[1]


def run_on_devices(args: argparse.Namespace, out: RunFolder,
                   run_into: Callable[[argparse.Namespace, Path], int]) -> int:
    """``run``'s work (``run_into``) on each of ``args.devices`` into a folder of its own in
    ``out``, then the two compared."""
    if args.device is not None:
        raise MipviewError("--device and --devices: give one of them")
    codes = []
    with out.writing() as folder:
        for side, device in zip(SIDES, args.devices, strict=True):
            print(f"{side}: --device {device}")
            (folder / side).mkdir()
            codes.append(run_into(argparse.Namespace(**{**vars(args), "device": device}),
                                  folder / side))
        a, b = (open_saved(str(folder / side)) for side in SIDES)
        diffs = compare_saved(a, b)
        verdict = worst_verdict(d.verdict for d in diffs)
        lines = report_lines(a, b, diffs, verdict)
        data = as_dict(a, b, diffs, verdict)
        for key, side in zip("ab", SIDES, strict=True):  # where they are once in place
            data[key]["path"] = str(out.path / side)
        (folder / REPORT).write_text(json.dumps(data, indent=2))
    print("\n".join(line.replace(str(folder), str(out.path)) for line in lines))
    print(f"wrote {out.path}/")
    return EXIT_FAILED if verdict == BEYOND or EXIT_FAILED in codes else EXIT_OK
