#!/usr/bin/env bash
# npot-exact's strips (one dispatch where odd heights stopped the tiles) against the tree before,
# in one call (the clock drifts between calls):
#   source .gl/env.sh && bash docs/bench/hiz-strips/run.sh $OUT
# needs [".gl", ".whl", "_ab_base"] in the tree; _ab_base/ is the tree before
# (`mkdir _ab_base && git archive 0e95fdf mipview tools resources third_party | tar -x -C _ab_base`).
# Rounds alternate before/after twice; every bench line has FidelityFX SPD (R32F min,
# resources/shaders/spd_min.comp) beside npot-exact, the same SPIR-V in both trees, so drift
# shows. Cold caches, median of 50, after a warm-up by time. Then the verdicts of the tree after:
# every level texel by texel against the reference at render-target and odd sizes.
# Writes: gpu.txt, times.log, verdicts.log, status.txt, json.tar.gz.
set -uo pipefail
out=$1; mkdir -p "$out"; out=$(cd "$out" && pwd)
root=$PWD; j=$(mktemp -d); py=${PYTHON:-python3}
sizes=${HIZ_SIZES:-1920x1080,2560x1440,3840x2160,4096}
repeat=${HIZ_REPEAT:-50}
warm=${HIZ_WARMUP_MS:-1500}
spd=shader:resources/shaders/spd_min.comp
: > "$out/status.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$out/gpu.txt" \
  2>&1 || echo "no nvidia-smi" > "$out/gpu.txt"
source docs/bench/ab_step.sh  # step SIDE NAME SECONDS LOG ARGS...
common=(--sizes "$sizes" --synthetic depth --cold --evict clean --warmup-ms "$warm"
        --repeat "$repeat" --no-check)
for round in 1 2; do
  for side in base after; do
    step $side "r32f_min_$round" 120 times.log bench "${common[@]}" --format r32f \
      --strategies "npot-exact:reduction=min,$spd" --json "$j/${side}_r32f_min_$round.json"
    step $side "rg32f_minmax_$round" 90 times.log bench "${common[@]}" --format rg32f \
      --strategies "npot-exact:reduction=minmax" --json "$j/${side}_rg32f_minmax_$round.json"
    step $side "unorm_mean_$round" 90 times.log bench "${common[@]}" --format unorm \
      --strategies "npot-exact" --json "$j/${side}_unorm_mean_$round.json"
  done
done
check=(--sizes "${HIZ_CHECK_SIZES:-1920x1080,2560x1440,3840x2160,1921x1079,4097x3,37x19}"
       --synthetic depth --repeat 3 --warmup-ms 0)
step after verdicts_min 90 verdicts.log bench "${check[@]}" --format r32f \
  --strategies "npot-exact:reduction=min,npot-exact:reduction=max" --json "$j/verdicts_min.json"
step after verdicts_minmax 90 verdicts.log bench "${check[@]}" --format rg32f \
  --strategies "npot-exact:reduction=minmax" --json "$j/verdicts_minmax.json"
step after verdicts_mean 90 verdicts.log bench "${check[@]}" --format unorm \
  --strategies "npot-exact" --json "$j/verdicts_mean.json"
tar -czf "$out/json.tar.gz" -C "$j" .
rm -rf "$j"
cat "$out/status.txt"
