#!/usr/bin/env bash
# The volume table on the GPU machine, in one call:
#   source .gl/env.sh && bash docs/bench/volume/run.sh $OUT
# The synthetic volume (noise and spheres, --synthetic volume) at 256^3 in R8 and RGBA16F (the
# target sizes) and 128^3 and 255^3 RGBA8 (an odd one: overlapping tiles), both volume
# strategies (and volume-tiles:load=trilinear) timed in one loop per volume (interleaved after a warm-up by time), caches cold,
# median of 50; every result's verdict against the 3D reference (the device has no validation
# layer: the tests run it on lavapipe); then R8 min at the first size. Writes: gpu.txt, times.log, status.txt, *.json.
# On lavapipe: VOLUME_SIZES="16 17" VOLUME_REPEAT=3 PYTHON=.venv/bin/python bash ... /tmp/out
set -uo pipefail
out=$1; mkdir -p "$out"; out=$(cd "$out" && pwd)
py=${PYTHON:-python3}
repeat=${VOLUME_REPEAT:-50}
source "$(dirname "$0")/../step.sh"
read -r -a sizes <<< "${VOLUME_SIZES:-256 256 128 255}"
formats=(r8 f16 unorm unorm)
for i in "${!sizes[@]}"; do
  s=${sizes[$i]} f=${formats[$i]}
  step "${f}_$s" 240 bench --synthetic volume --size "$s" --format "$f" --cold --repeat "$repeat" \
    --warmup-ms 1500 --json "$out/${f}_$s.json" \
    --strategies volume-per-level,volume-tiles,volume-tiles:load=trilinear
done
# min of the same R8 volume: volume-tiles reads level 0 by a min reduction sampler there
step "r8_min_${sizes[0]}" 240 bench --synthetic volume --size "${sizes[0]}" --format r8 --cold \
  --repeat "$repeat" --warmup-ms 1500 --json "$out/r8_min_${sizes[0]}.json" \
  --strategies volume-per-level:reduction=min,volume-tiles:reduction=min
cat "$out/status.txt"
