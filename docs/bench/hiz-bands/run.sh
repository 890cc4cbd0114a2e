#!/usr/bin/env bash
# The one-dispatch overlapping-footprint Hi-Z experiment (hiz_bands.comp) beside npot-exact and
# FidelityFX SPD, one call:  source .gl/env.sh && bash docs/bench/hiz-bands/run.sh $OUT
# R32F min of the synthetic depth scene, cold (clean eviction), median of 50 after 1.5 s, every
# variant and both references interleaved in one timing loop, two rounds; then every variant's
# verdict texel by texel at render-target and odd sizes (exit 1 there: something is not exact).
set -uo pipefail
out=$1; mkdir -p "$out"; out=$(cd "$out" && pwd)
py=${PYTHON:-python3}; here=docs/bench/hiz-bands
sizes=${HIZ_SIZES:-1920x1080,2560x1440,3840x2160,4096}
check=${HIZ_CHECK_SIZES:-1920x1080,2560x1440,1921x1079,4097x3}
repeat=${HIZ_REPEAT:-50}; warm=${HIZ_WARMUP_MS:-1500}
bash $here/variants.sh "$out/v" > /dev/null
v=$(ls "$out"/v/*.comp | sed 's/^/shader:/' | paste -sd,)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$out/gpu.txt" 2>&1
for round in 1 2; do
  echo "== round $round" >> "$out/times.log"
  timeout 200 "$py" -m mipview bench --sizes "$sizes" --synthetic depth --format r32f --cold \
    --evict clean --warmup-ms "$warm" --repeat "$repeat" --no-check --json "$out/times_$round.json" \
    --strategies "npot-exact:reduction=min,shader:resources/shaders/spd_min.comp,$v" \
    >> "$out/times.log" 2>&1
  echo "exit $?" >> "$out/times.log"
done
timeout 150 "$py" -m mipview bench --sizes "$check" --synthetic depth --format r32f --repeat 3 \
  --warmup-ms 0 --strategies "$v" > "$out/verdicts.log" 2>&1
echo "exit $?" >> "$out/verdicts.log"
