#!/usr/bin/env bash
# The stall benchmark with OpenBLAS's default threads (one per core, as tools.measure
# ran until mipview.core.blas) against one BLAS thread (as `python -m mipview` runs the app),
# alternating in one call, the same tree:
#   source .gl/env.sh && source .gpuqt/env.sh && bash docs/bench/window-stalls/blas.sh $OUT
# needs [".gl", ".whl", ".gpuqt"] in the tree. Writes gpu.txt, blas.log, why.log.
set -uo pipefail
out=${1:?usage: blas.sh OUT}; mkdir -p "$out"
export QT_QPA_PLATFORM=offscreen
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$out/gpu.txt" 2>&1
nproc >> "$out/gpu.txt"
measure() { timeout 120 python3 -m tools.measure --size 4096 --live-s "${LIVE_S:-6}" \
  --shots /tmp/shots "$@" 2>&1 | grep -v propagateSizeHints; }
for round in $(seq "${ROUNDS:-3}"); do
  echo "== blas threads $(nproc) (before), round $round"
  OPENBLAS_NUM_THREADS=$(nproc) measure
  echo "== blas threads 1 (after), round $round"
  measure
done > "$out/blas.log" 2>&1
measure --why > "$out/why.log" 2>&1
echo done >> "$out/gpu.txt"
