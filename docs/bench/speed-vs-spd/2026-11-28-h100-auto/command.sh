#!/usr/bin/env bash
# issue 30: npot-exact's auto tiles (prefetch, capped) against one tile per group, RGBA8
set -uo pipefail
source .gl/env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee $OUT/gpu.txt
S=npot-exact,npot-exact:tiles=1,npot-exact:tiles=2,npot-exact:tiles=4
for r in 1 2; do
  timeout 250 python3 -m mipview bench --sizes 3840x2160,3200x1800,5120x2880,7680x4320,8192 --strategies $S --cold --repeat 50 --warmup-ms 1500 --no-check --json $OUT/auto_$r.json 2>&1 | grep -v "^wrote"
done
