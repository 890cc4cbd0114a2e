#!/usr/bin/env bash
# The profiler's screenshot (README, "Profiler in the window"), made by the app itself in its
# automation mode: a bench run saved as the baseline, then the window runs the same image with
# one strategy more, the distributions beside the bars, the deltas against the baseline under
# them, and the sampled preview with its levels tinted. On lavapipe the figures are noise (a CPU
# shared with whatever else runs); on a GPU they mean something.
#   docs/screenshots/profiler.sh [python]        (from the repository root)
set -euo pipefail
PY=${1:-python}
IMG=resources/photo_npot_1000x750.png
OUT=docs/screenshots
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$PY" -m mipview bench "$IMG" --strategies blit,per-level,subgroup --repeat 20 \
    --json "$TMP/baseline.json" > /dev/null
"$PY" -m mipview gui "$IMG" --run blit,per-level,subgroup,single-pass \
    --baseline "$TMP/baseline.json" --distributions --preview plane-tinted \
    --screenshot "$OUT/profiler.png" --quit
