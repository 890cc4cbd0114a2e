#!/usr/bin/env bash
# one device call: issue 30 design 3 (tiles per group for a wave fit); issue 31 on an H200 only
set -uo pipefail
source .gl/env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee $OUT/gpu.txt
spd=shader:resources/shaders/spd_mean.comp:HANDOFF=1
S="npot-exact,npot-exact:tiles=1,npot-exact:tiles=2,npot-exact:tiles=4,npot-exact:tiles=8,$spd"
mkdir -p $OUT/tiles
timeout 200 python3 -m mipview bench --sizes 1920x1080,2560x1440,3840x2160 --strategies "$S" --cold --repeat 50 --warmup-ms 1500 --no-check --json $OUT/tiles/rgba8.json > $OUT/tiles/rgba8.log 2>&1
timeout 150 python3 -m mipview bench --sizes 1920x1080,3840x2160 --format f16 --strategies "$S" --cold --repeat 50 --warmup-ms 1500 --no-check --json $OUT/tiles/rgba16f.json > $OUT/tiles/rgba16f.log 2>&1
MIPVIEW_PIPELINE_STATS=1 timeout 60 python3 -m mipview bench --sizes 3840x2160 --strategies npot-exact,npot-exact:tiles=4 --repeat 3 --warmup-ms 0 --no-check > $OUT/tiles/stats.log 2>&1
cat $OUT/tiles/rgba8.log $OUT/tiles/rgba16f.log | grep -v "^wrote"
if grep -q H200 $OUT/gpu.txt; then
  source .gpuqt/env.sh
  SIDES=after bash docs/bench/window-31/run.sh $OUT/w31 stalls
  SIDES=after bash docs/bench/window-31/run.sh $OUT/w31 parity
  grep -E "^==|longest|on screen|medians" $OUT/w31/stalls.log | cut -c1-220
fi
