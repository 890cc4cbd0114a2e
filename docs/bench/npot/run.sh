#!/usr/bin/env bash
# npot-exact on single-pass's tiles, before and after, in one call:
#   source .gl/env.sh && bash docs/bench/npot/run.sh $OUT
# Needs the old tree as an untracked folder `_ab_base` in the repo root
# (`mkdir _ab_base && git archive 5542f0b mipview | tar -x -C _ab_base`). Each side runs from
# inside its own tree: base, after, base, after (`bench --sizes`, cold, median of 50) so drift
# hits both alike; in every run npot-exact is timed in one loop beside the fastest strategies of
# each size, so its ratio to them is read inside one run. Then the verdicts of the new plans
# on the GPU (exit 1 = out of tolerance), texel by texel against the exact reference.
# Writes $OUT/{times.log,verdicts.log,status.txt,gpu.txt,json.tar.gz}.
# NPOT_STRATS, NPOT_NEW (appended on the working tree's side), NPOT_CHECK_STRATS: other sets
# (2026-11-22 unroll: the base is the commit before MIP_REDUCE_EXACT's unrolled loops).
# Lavapipe trial: NPOT_SIZES=40x24,64 NPOT_CHECK=40x24,33x17 NPOT_REPEAT=3 NPOT_WARM=0 \
#   PYTHON=.venv/bin/python bash docs/bench/npot/run.sh /tmp/out
set -uo pipefail
out=$1; mkdir -p "$out"; out=$(cd "$out" && pwd)
j=$(mktemp -d); py=${PYTHON:-python3}
sizes=${NPOT_SIZES:-1920x1080,2560x1440,3840x2160,4096,8192,1921x1079,4095x4095}
check=${NPOT_CHECK:-1920x1080,2560x1440,3840x2160,1921x1079,2047x2049,4097x3,4096}
repeat=${NPOT_REPEAT:-50}; warm=${NPOT_WARM:-1500}
site=${PYTHONPATH:-}; site=${site%%:*}
: > "$out/status.txt"
step() {  # step NAME SECONDS LOG TREE ARGS...
  local name=$1 limit=$2 log=$3 tree=$4; shift 4
  local t0=$SECONDS
  echo "== $name: mipview $*" >> "$out/$log"
  (cd "$tree" && PYTHONPATH=$site timeout "$limit" "$py" -m mipview "$@") >> "$out/$log" 2>&1
  echo "$name exit $? in $((SECONDS - t0)) s" >> "$out/status.txt"
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$out/gpu.txt" \
  2>&1 || echo "no nvidia-smi" > "$out/gpu.txt"
here=$PWD; base=$here/_ab_base
S=${NPOT_STRATS:-npot-exact,single-pass,subgroup:load=bilinear,single-pass:load=bilinear}
new=${NPOT_NEW:-,npot-exact:load=bilinear}  # only the working tree has these
vs=${NPOT_CHECK_STRATS:-npot-exact,npot-exact:load=bilinear}
for round in 1 2; do
  step "base_$round" 120 times.log "$base" bench --sizes "$sizes" --strategies "$S" --cold \
    --evict clean --warmup-ms "$warm" --repeat "$repeat" --no-check --json "$j/base_$round.json"
  step "after_$round" 120 times.log "$here" bench --sizes "$sizes" \
    --strategies "$S$new" --cold --evict clean --warmup-ms "$warm" \
    --repeat "$repeat" --no-check --json "$j/after_$round.json"
done
step verdicts_unorm 120 verdicts.log "$here" bench --sizes "$check" --format unorm \
  --strategies "$vs" --repeat 3 --warmup-ms 0 --json "$j/verdicts_unorm.json"
step verdicts_srgb 60 verdicts.log "$here" bench --sizes 1920x1080,1921x1079,4097x3 \
  --format srgb --strategies npot-exact --repeat 3 --warmup-ms 0 --json "$j/verdicts_srgb.json"
step verdicts_f16 60 verdicts.log "$here" bench --sizes 1920x1080,1921x1079,4097x3 \
  --format f16 --strategies "npot-exact,npot-exact:load=bilinear" --repeat 3 --warmup-ms 0 \
  --json "$j/verdicts_f16.json"
tar -czf "$out/json.tar.gz" -C "$j" .
