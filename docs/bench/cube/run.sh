#!/usr/bin/env bash
# The cube-map speed rows on the GPU machine, in one call:
#   source .gl/env.sh && bash docs/bench/cube/run.sh $OUT
# The synthetic sky (mipview.io.synthetic.cube_image) written as cube KTX2 files, then every
# strategy on them in one interleaved bench loop per file (cold caches, median of 50, after a
# warm-up by time): 6x1024^2 RGBA16F and 6x2048^2 RGBA8. The seamless pair, in the same loops:
# per-level and filter-pairs with the tent filter, edge=cube (seamless) against edge=clamp
# (faces filtered independently): the aim is seamless within 1.3x of independent.
# Writes into $OUT: gpu.txt, times.log, verdicts.log, status.txt, json.tar.gz.
set -uo pipefail
out=$1; mkdir -p "$out"; out=$(cd "$out" && pwd)
py=${PYTHON:-python3}; j=$(mktemp -d)
sizes=${CUBE_SIZES:-1024:f16 2048:unorm}
repeat=${CUBE_REPEAT:-50}; warm=${CUBE_WARMUP_MS:-1500}
box="blit,per-level,register-chain,subgroup,single-pass,npot-exact"
seam="per-level:filter=tent,edge=clamp,per-level:filter=tent,edge=cube"
seam="$seam,filter-pairs:filter=tent,edge=clamp,filter-pairs:filter=tent,edge=cube"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$out/gpu.txt" \
  2>&1 || echo "no nvidia-smi" > "$out/gpu.txt"
: > "$out/status.txt"
for entry in $sizes; do
  n=${entry%%:*}; fmt=${entry##*:}
  f="$j/sky_${n}_$fmt.ktx2"
  "$py" - "$n" "$fmt" "$f" <<'PY'
import os
import sys
from mipview.core.formats import Format, to_storage
from mipview.io import containers, synthetic
n, fmt, path = int(sys.argv[1]), Format.parse(sys.argv[2]), sys.argv[3]
sky = synthetic.cube_image(n)
folder, name = os.path.split(path)
containers.export(folder, name[:-5], [to_storage(sky.pixels, fmt)], fmt, ("ktx2",), faces=6)
PY
  for what in times verdicts; do
    t0=$SECONDS
    if [ $what = times ]; then
      timeout 280 "$py" -m mipview bench "$f" --format "$fmt" --strategies "$box,$seam" --cold \
        --evict clean --warmup-ms "$warm" --repeat "$repeat" --no-check \
        --json "$j/cube_${n}_$fmt.json" >> "$out/times.log" 2>&1
    else
      timeout 200 "$py" -m mipview run "$f" --format "$fmt" --strategies "$box,$seam" \
        --out "$j/run_${n}_$fmt" >> "$out/verdicts.log" 2>&1
    fi
    echo "$what $n $fmt exit $? in $((SECONDS - t0)) s" >> "$out/status.txt"
  done
done
tar -C "$j" -czf "$out/json.tar.gz" . 2>/dev/null
