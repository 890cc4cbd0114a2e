#!/usr/bin/env bash
# The Hi-Z speed table on the GPU machine, in one call (drift hits every row alike):
#   source .gl/env.sh && bash docs/bench/hiz/run.sh $OUT [times|verdicts|all]
# (times and verdicts fit one 10-minute call each; the comparisons are all inside `times`)
# Hi-Z pyramids of a synthetic depth scene (--synthetic depth) at the render-target sizes, every
# strategy interleaved in one timing loop per format (`bench --sizes`), cold caches (clean
# eviction), median of 50, after a warm-up by time. Two anchors run in the same loops:
#   - FidelityFX SPD built for R32F with a min reduction (resources/shaders/spd_min.comp, SPD's
#     own headers in third_party/), through mipview's custom-shader path;
#   - a niagara-style chain: one min-sampler fetch per 2x2 and nothing else
#     (sampler-minmax:taps=quad).
# Both are not conservative at odd sides; step 4 (verdicts) shows where.
# Writes into $OUT: gpu.txt, times.log, verdicts.log, status.txt, json.tar.gz.
# On lavapipe with tiny sizes:
#   HIZ_SIZES=40x24,64 HIZ_CHECK_SIZES=40x24,33x17 HIZ_REPEAT=3 HIZ_WARMUP_MS=0 \
#   PYTHON=.venv/bin/python bash docs/bench/hiz/run.sh /tmp/out
set -uo pipefail
phase=${2:-all}
out=$1; mkdir -p "$out"; out=$(cd "$out" && pwd)
j=$(mktemp -d); py=${PYTHON:-python3}
sizes=${HIZ_SIZES:-1920x1080,2560x1440,3840x2160,4096}
check_sizes=${HIZ_CHECK_SIZES:-1920x1080,2560x1440,1921x1079,4097x3}
repeat=${HIZ_REPEAT:-50}
warm=${HIZ_WARMUP_MS:-1500}
spd=shader:resources/shaders/spd_min.comp
mine_min="per-level:reduction=min,single-pass:reduction=min,npot-exact:reduction=min,subgroup:reduction=min,register-chain:reduction=min,sampler-minmax"
anchors="sampler-minmax:taps=quad,$spd"
mine_mm="per-level:reduction=minmax,single-pass:reduction=minmax,npot-exact:reduction=minmax,subgroup:reduction=minmax,register-chain:reduction=minmax,sampler-minmax:reduction=minmax"
: > "$out/status.txt"
step() {  # step NAME SECONDS LOG ARGS...: `mipview ARGS` with a time limit; exit code, duration
  local name=$1 limit=$2 log=$3; shift 3
  local t0=$SECONDS
  echo "== $name: mipview $*" >> "$out/$log"
  timeout "$limit" "$py" -m mipview "$@" >> "$out/$log" 2>&1
  echo "$name exit $? in $((SECONDS - t0)) s" >> "$out/status.txt"
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$out/gpu.txt" \
  2>&1 || echo "no nvidia-smi" > "$out/gpu.txt"
if [ "$phase" != verdicts ]; then
common=(--synthetic depth --cold --evict clean --warmup-ms "$warm" --repeat "$repeat" --no-check)
# 1. R32F min (depth), the anchors beside; RGBA8 npot-exact (the same bytes at level 0) too
step r32f_min 120 times.log bench --sizes "$sizes" --format r32f --strategies "$mine_min,$anchors" \
  "${common[@]}" --json "$j/r32f_min.json"
# 2. RG32F min+max (the depth in both channels of level 0)
step rg32f_minmax 120 times.log bench --sizes "$sizes" --format rg32f --strategies "$mine_mm" \
  "${common[@]}" --json "$j/rg32f_minmax.json"
# 3. a D32 depth image as level 0 (sampled depth view), levels in R32F
step d32_min 90 times.log bench --sizes "$sizes" --format d32 \
  --strategies "per-level:reduction=min,single-pass:reduction=min,npot-exact:reduction=min,subgroup:reduction=min,sampler-minmax" \
  "${common[@]}" --json "$j/d32_min.json"
# 4. RGBA8 mean of the same scene: what an R32F level 0 of the same bytes is measured against
step unorm_mean 60 times.log bench --sizes "$sizes" --format unorm --strategies npot-exact,single-pass \
  "${common[@]}" --json "$j/unorm_mean.json"
fi
if [ "$phase" != times ]; then
# 5. verdicts: every path texel by texel against the exact reference (exit 1: something fails;
#    the anchors are expected to at odd sizes)
step verdicts_min 120 verdicts.log bench --sizes "$check_sizes" --synthetic depth --format r32f \
  --strategies "$mine_min" --repeat 3 --warmup-ms 0 --json "$j/verdicts_min.json"
step verdicts_anchors 90 verdicts.log bench --sizes "$check_sizes" --synthetic depth --format r32f \
  --strategies "$anchors" --repeat 3 --warmup-ms 0 --json "$j/verdicts_anchors.json"
step verdicts_minmax 120 verdicts.log bench --sizes "$check_sizes" --synthetic depth --format rg32f \
  --strategies "$mine_mm" --repeat 3 --warmup-ms 0 --json "$j/verdicts_minmax.json"
step verdicts_d32 90 verdicts.log bench --sizes "$check_sizes" --synthetic depth --format d32 \
  --strategies "per-level:reduction=min,single-pass:reduction=min,npot-exact:reduction=min,subgroup:reduction=min,sampler-minmax" \
  --repeat 3 --warmup-ms 0 --json "$j/verdicts_d32.json"
fi
tar -czf "$out/json.tar.gz" -C "$j" .
rm -rf "$j"
cat "$out/status.txt"
