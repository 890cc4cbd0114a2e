#!/usr/bin/env bash
# issue 29: volume-tiles gathering level 0 through 2D slice views (64-thread groups), A/B
set -uo pipefail
source .gl/env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee $OUT/gpu.txt
root=$PWD
rm -rf /tmp/base && mkdir -p /tmp/base && cp -r mipview tools resources /tmp/base/ && cp -r _ab_base/. /tmp/base/
S=volume-per-level,volume-tiles,volume-tiles:load=trilinear
for r in 1 2; do for side in base after; do t=$root; [[ $side == base ]] && t=/tmp/base
  for f in r8:256 r8:128 rg8:256; do fmt=${f%%:*}; n=${f##*:}
    echo "== $side $r $fmt $n"
    (cd $t && timeout 120 python3 -m mipview bench --synthetic volume --size $n --format $fmt --strategies $S --cold --repeat 50 --warmup-ms 1500 --json $OUT/${side}_${r}_${fmt}_$n.json 2>&1 | grep -v "^wrote\|^NVIDIA\|^volume ")
  done
done; done
MIPVIEW_PIPELINE_STATS=1 timeout 60 python3 -m mipview bench --synthetic volume --size 256 --format r8 --strategies volume-tiles --repeat 3 --warmup-ms 0 2>&1 | grep "volume_tiles" | cut -c1-400
