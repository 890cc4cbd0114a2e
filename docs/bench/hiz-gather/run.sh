#!/usr/bin/env bash
# Step 1 of the tile strategies reading a one- or two-channel level 0 by textureGather (one
# instruction per channel and 2x2 block) against the tree before (four texel loads), in one
# call (the clock drifts between calls):
#   source .gl/env.sh && bash docs/bench/hiz-gather/run.sh $OUT
# needs [".gl", ".whl", "_ab_base"] in the tree; _ab_base/ is the tree before
# (`mkdir _ab_base && git archive 98274dc mipview tools resources third_party | tar -x -C _ab_base`).
# Rounds alternate before/after twice; the R32F lines have FidelityFX SPD (resources/shaders/
# spd_min.comp, the same SPIR-V in both trees, so drift shows), and RGBA8 mean is a control (its
# code did not change). Cold caches, median of 50, after a warm-up by time; each JSON also holds
# the image-read ceiling (texel loads before, gathers after). Then the verdicts of the tree after.
# Writes: gpu.txt, times.log, verdicts.log, status.txt, json.tar.gz.
set -uo pipefail
out=$1; mkdir -p "$out"; out=$(cd "$out" && pwd)
root=$PWD; j=$(mktemp -d); py=${PYTHON:-python3}
sizes=${HIZ_SIZES:-1920x1080,2560x1440,3840x2160,4096}
repeat=${HIZ_REPEAT:-50}
warm=${HIZ_WARMUP_MS:-1500}
spd=shader:resources/shaders/spd_min.comp
tiles_min="npot-exact:reduction=min,single-pass:reduction=min,subgroup:reduction=min"
tiles_mm="npot-exact:reduction=minmax,single-pass:reduction=minmax,subgroup:reduction=minmax"
: > "$out/status.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$out/gpu.txt" \
  2>&1 || echo "no nvidia-smi" > "$out/gpu.txt"
source docs/bench/ab_step.sh  # step SIDE NAME SECONDS LOG ARGS...
common=(--sizes "$sizes" --synthetic depth --cold --evict clean --warmup-ms "$warm"
        --repeat "$repeat" --no-check)
for round in 1 2; do
  for side in base after; do
    step $side "r32f_min_$round" 120 times.log bench "${common[@]}" --format r32f \
      --strategies "$tiles_min,$spd" --json "$j/${side}_r32f_min_$round.json"
    step $side "rg32f_minmax_$round" 90 times.log bench "${common[@]}" --format rg32f \
      --strategies "$tiles_mm" --json "$j/${side}_rg32f_minmax_$round.json"
    step $side "d32_min_$round" 90 times.log bench "${common[@]}" --format d32 \
      --strategies "npot-exact:reduction=min,single-pass:reduction=min" \
      --json "$j/${side}_d32_min_$round.json"
    step $side "unorm_mean_$round" 90 times.log bench "${common[@]}" --format unorm \
      --strategies "npot-exact" --json "$j/${side}_unorm_mean_$round.json"
  done
done
# where the time of the tree after goes, dispatch by dispatch (Chrome trace: Perfetto)
step after trace_1080p 60 times.log bench --size 1920x1080 --synthetic depth --cold --evict clean \
  --warmup-ms "$warm" --repeat 20 --no-check --format r32f \
  --strategies "npot-exact:reduction=min,$spd" --trace "$out/trace_1080p.json"
check=(--sizes "${HIZ_CHECK_SIZES:-1920x1080,2560x1440,4096,1921x1079,64x2}"
       --synthetic depth --repeat 3 --warmup-ms 0)
step after verdicts_min 90 verdicts.log bench "${check[@]}" --format r32f \
  --strategies "$tiles_min,npot-exact,single-pass" --json "$j/verdicts_min.json"
step after verdicts_minmax 90 verdicts.log bench "${check[@]}" --format rg32f \
  --strategies "$tiles_mm" --json "$j/verdicts_minmax.json"
step after verdicts_d32 90 verdicts.log bench "${check[@]}" --format d32-rg32f \
  --strategies "$tiles_mm" --json "$j/verdicts_d32.json"
tar -czf "$out/json.tar.gz" -C "$j" .
rm -rf "$j"
cat "$out/status.txt"
