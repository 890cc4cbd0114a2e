#!/usr/bin/env bash
# The stall benchmark on several variants of the working tree, alternating, in one
# call:
#   source .gl/env.sh && source .gpuqt/env.sh && bash docs/bench/window-stalls/variants.sh $OUT
# needs [".gl", ".whl", ".gpuqt"] in the tree; _variants/NAME/ (untracked) holds the files variant NAME has
# in place of the working tree's ("head", with no folder, is the working tree itself). Writes
# gpu.txt and stalls.log: ROUNDS (2) rounds of every variant in turn, each
# `python -m tools.measure ${MEASURE_ARGS:---size 4096 --live-s 10 --turns 20}`.
set -uo pipefail
out=${1:?usage: variants.sh OUT}; mkdir -p "$out"
export QT_QPA_PLATFORM=offscreen
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$out/gpu.txt" 2>&1
nproc >> "$out/gpu.txt"
root=$PWD
names=(head)
for dir in _variants/*/; do
  [[ -d $dir ]] || continue
  name=$(basename "$dir"); names+=("$name")
  rm -rf "/tmp/variant_$name"; mkdir -p "/tmp/variant_$name"
  cp -r mipview tools resources "/tmp/variant_$name"; cp -r "$dir." "/tmp/variant_$name"
done
for round in $(seq "${ROUNDS:-2}"); do
  for name in "${names[@]}"; do
    tree=$root; [[ $name != head ]] && tree=/tmp/variant_$name
    echo "== $name round $round"
    (cd "$tree" && PYTHONPATH=$tree${PYTHONPATH:+:${PYTHONPATH//$root:/}} timeout 150 \
      python3 -m tools.measure ${MEASURE_ARGS:---size 4096 --live-s 10 --turns 20} \
      --shots "/tmp/shots_$name" 2>&1 | grep -v propagateSizeHints)
  done
done > "$out/stalls.log" 2>&1
echo done >> "$out/gpu.txt"
