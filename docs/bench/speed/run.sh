#!/usr/bin/env bash
# Every strategy at the target sizes, in one call (drift hits every comparison alike), under 8 minutes:
#   bash docs/bench/speed/run.sh OUT
# Every row of the target table with `bench --sizes` (one warm-up, every strategy of every
# size interleaved in one timing loop: old and new paths side by side in the same runs), cold
# caches, median of 50. Old path = single-pass's default `tail=8192`; the new choices of where the
# last group takes over (`tail=512|2048|32768`: more dispatches and a short serial tail, or one
# dispatch and a long one) run beside it, texel and bilinear loads.
# Writes into $OUT: gpu.txt, times.log (the size x strategy tables), evict_dirty.log, f16.log,
# verdicts.log (every new path checked against the exact reference on the GPU), status.txt (exit
# code and seconds of each step) and json.tar.gz (every JSON: every sample, per-dispatch times).
# To try it on lavapipe with tiny sizes (the defaults are the target sizes):
#   SPEED_SIZES=40x24,64 SPEED_CHECK_SIZES=40x24,33x17 SPEED_F16_SIZE=64 SPEED_REPEAT=3 \
#   SPEED_WARMUP_MS=0 PYTHON=.venv/bin/python bash docs/bench/speed/run.sh /tmp/out
set -uo pipefail
out=$1; mkdir -p "$out"; out=$(cd "$out" && pwd)
j=$(mktemp -d); py=${PYTHON:-python3}
sizes=${SPEED_SIZES:-1920x1080,2560x1440,3840x2160,4096,8192}
# 4096^2 and 8192^2 are left out: tail= does not change their plans (a tiled tail is kept)
check_sizes=${SPEED_CHECK_SIZES:-1920x1080,2560x1440,3840x2160,1921x1079,2047x2049,4097x3}
check_small=${SPEED_CHECK_SMALL:-1920x1080,1921x1079,4097x3}
f16_size=${SPEED_F16_SIZE:-4096}
repeat=${SPEED_REPEAT:-50}
warm=${SPEED_WARMUP_MS:-1500}
# every strategy's defaults (auto options as the table picks them), and the texel loads beside
# them; SPEED_STRATEGIES replaces the set (2026-11-22 first run: single-pass:load=all,tail=all)
S=${SPEED_STRATEGIES:-blit,per-level,register-chain,npot-exact,npot-exact:load=texel,subgroup,subgroup:load=bilinear,single-pass,single-pass:load=texel,single-pass:tail=8192}
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

# 1. the target table, RGBA8, clean eviction; --no-check: 8192^2's float64 reference takes
#    minutes (the verdicts are step 4)
step times 150 times.log bench --sizes "$sizes" --strategies "$S" --cold --evict clean \
  --warmup-ms "$warm" --repeat "$repeat" --no-check --json "$j/sizes_unorm_clean.json"
# 2. the same with dirty-line eviction (how the FidelityFX SPD figures were taken)
step evict_dirty 90 evict_dirty.log bench --sizes "$sizes" \
  --strategies npot-exact,single-pass,single-pass:tail=all,subgroup:load=bilinear,per-level \
  --cold --evict dirty --warmup-ms "$warm" --repeat "$repeat" --no-check \
  --json "$j/sizes_unorm_dirty.json"
# 3. 4096^2 RGBA16F (the table's last row), fp16 registers too
step f16 50 f16.log bench --size "$f16_size" --format f16 \
  --strategies "$S,single-pass:fp16=on,single-pass:fp16=on,load=bilinear,single-pass:load=bilinear,npot-exact:load=bilinear" --cold \
  --warmup-ms "$warm" --repeat "$repeat" --no-check --json "$j/f16_$f16_size.json"
# 4. verdicts of every new path on the GPU (exit 1 = something out of tolerance): NPOT, 1xN-like
#    and the target sizes, RGBA8 and sRGB texel by texel against the exact reference
step verdicts_unorm 70 verdicts.log bench --sizes "$check_sizes" --format unorm \
  --strategies "single-pass:tail=all,single-pass:reduction=max,tail=all,npot-exact,npot-exact:load=all,register-chain" --repeat 3 \
  --warmup-ms 0 --json "$j/verdicts_unorm.json"
step verdicts_srgb 55 verdicts.log bench --sizes "$check_small" --format srgb \
  --strategies "single-pass:tail=all,single-pass:load=bilinear,tail=all,npot-exact,register-chain" --repeat 3 \
  --warmup-ms 0 --json "$j/verdicts_srgb.json"
step verdicts_f16 55 verdicts.log bench --sizes "$check_small" --format f16 \
  --strategies "single-pass:tail=all,single-pass:fp16=on,tail=all,npot-exact,register-chain" --repeat 3 --warmup-ms 0 \
  --json "$j/verdicts_f16.json"
tar -czf "$out/json.tar.gz" -C "$j" .
rm -rf "$j"
cat "$out/status.txt"
