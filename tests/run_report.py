"""A ``mipview run`` folder's report.json, as the CLI tests read it."""

from __future__ import annotations

import json
from pathlib import Path


def read_report(out: Path) -> dict:
    return json.loads((out / "report.json").read_text())
