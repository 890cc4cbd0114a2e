#!/usr/bin/env bash
# A later Run's timings on screen, before and after a change, in one call:
#   source .gl/env.sh && source .gpuqt/env.sh && bash docs/bench/window-stalls/readback.sh $OUT
# needs [".gl", ".whl", ".gpuqt"] in the tree; _variants/before/ holds the files the tree before has in
# place of the working tree's. Writes staged_ab.txt (staged_runs.py: four Runs without the
# window, each step's time; three rounds, head and before alternating) and, through
# variants.sh, stalls.log (the window's Run of the five on the photo at 4096^2, four Runs,
# three rounds).
set -uo pipefail
out=${1:?usage: readback.sh OUT}; mkdir -p "$out"
python3 -c "from PIL import Image; Image.open('resources/photo_npot_1000x750.png').convert('RGBA').resize((4096, 4096), Image.LANCZOS).save('/tmp/photo4096.png')"
rm -rf /tmp/variant_before; mkdir -p /tmp/variant_before
cp -r mipview tools resources docs /tmp/variant_before && cp -r _variants/before/. /tmp/variant_before
for r in 1 2 3; do for name in head before; do
  tree=$PWD; [[ $name == before ]] && tree=/tmp/variant_before
  echo "== $name round $r"
  (cd "$tree" && PYTHONPATH=$tree:${PYTHONPATH//$PWD:/} timeout 100 \
    python3 docs/bench/window-stalls/staged_runs.py /tmp/photo4096.png 4)
done; done > "$out/staged_ab.txt" 2>&1
MEASURE_ARGS="--five-only --five-image /tmp/photo4096.png --five-runs 4" ROUNDS=3 \
  bash docs/bench/window-stalls/variants.sh "$out"
