#!/usr/bin/env bash
# The Hi-Z NaN rule and d32-rg32f on the GPU machine, in one call:
#   source .gl/env.sh && bash docs/bench/hiz-nan/run.sh $OUT     (needs .gl .whl _ab_base in the tree)
# _ab_base/ is the tree before (`git archive 9b5608f mipview tools resources third_party`).
#  1. what the NaN rule costs: R32F min and RG32F min+max, every strategy, before and after
#     alternating twice, --synthetic depth at 1920x1080 and 4096^2, cold caches (clean
#     eviction), median of 50 after 1.5 s of warm-up. The first design kept a NaN (a select on
#     isnan in mipExtreme; 2026-11-26-h100-keep-nan/); the one that landed drops it, as SPIR-V's
#     NMin/NMax do (tools/build_shaders.py rewrites GLSL's min and max);
#  2. d32-rg32f (a D32 level 0, RG32F min+max levels) beside rg32f, after;
#  3. verdicts on the GPU: d32-rg32f min+max at odd sizes, and a depth with NaN texels in
#     every strategy (sampler-minmax's sampler decides what a NaN becomes).
# Writes times.log, verdicts.log, gpu.txt, json.tar.gz into $OUT. Small values run it anywhere:
#   NAN_SIZES=64 NAN_REPEAT=2 NAN_WARMUP_MS=0 PYTHON=.venv/bin/python bash docs/bench/hiz-nan/run.sh /tmp/n
set -uo pipefail
out=${1:?usage: run.sh OUT}; mkdir -p "$out"; out=$(cd "$out" && pwd)
root=$PWD; base=$root/_ab_base; j=$(mktemp -d); py=${PYTHON:-python3}
sizes=${NAN_SIZES:-1920x1080,4096}; repeat=${NAN_REPEAT:-50}; warm=${NAN_WARMUP_MS:-1500}
mine_min="per-level:reduction=min,single-pass:reduction=min,npot-exact:reduction=min,subgroup:reduction=min,register-chain:reduction=min,sampler-minmax"
mine_mm="per-level:reduction=minmax,single-pass:reduction=minmax,npot-exact:reduction=minmax,subgroup:reduction=minmax,register-chain:reduction=minmax"
common=(--synthetic depth --cold --evict clean --warmup-ms "$warm" --repeat "$repeat" --no-check)
side() {  # side TREE SECONDS CMD...: CMD from inside TREE, its own mipview first on the path
  local tree=$1 limit=$2; shift 2
  (cd "$tree" && PYTHONPATH=${PYTHONPATH:+${PYTHONPATH//$root:/}} timeout "$limit" "$@")
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$out/gpu.txt" \
  2>&1 || echo "no nvidia-smi" > "$out/gpu.txt"
for round in 1 2; do
  for s in before after; do
    tree=$root; [[ $s == before ]] && tree=$base
    echo "== round $round, $s: r32f min"
    side "$tree" 120 "$py" -m mipview bench --sizes "$sizes" --format r32f --strategies "$mine_min" \
      "${common[@]}" --json "$j/r32f_min_${s}_$round.json"
    echo "== round $round, $s: rg32f minmax"
    side "$tree" 120 "$py" -m mipview bench --sizes "$sizes" --format rg32f --strategies "$mine_mm" \
      "${common[@]}" --json "$j/rg32f_minmax_${s}_$round.json"
  done
done > "$out/times.log" 2>&1
{
  echo "== after: d32-rg32f minmax"
  side "$root" 120 "$py" -m mipview bench --sizes "$sizes" --format d32-rg32f \
    --strategies "$mine_mm,sampler-minmax:reduction=minmax" "${common[@]}" --json "$j/d32rg_minmax.json"
  echo "== after: rg32f minmax, sampler-minmax too"
  side "$root" 120 "$py" -m mipview bench --sizes "$sizes" --format rg32f \
    --strategies "$mine_mm,sampler-minmax:reduction=minmax" "${common[@]}" --json "$j/rg32f_minmax_all.json"
} >> "$out/times.log" 2>&1
"$py" - "$j/nan.npy" <<'PY'
import sys, numpy as np
d = np.random.default_rng(7).random((1079, 1921), dtype=np.float32)
d[::97, ::89] = np.nan  # a grid of lone NaN texels, odd rows and columns among them
d[100:103, 200:203] = np.nan  # a whole footprint of NaN: level 1 keeps one
np.save(sys.argv[1], d)
PY
{
  echo "== d32-rg32f min+max at odd sizes (exit 0: every level bit-exact)"
  side "$root" 120 "$py" -m mipview bench --sizes "${NAN_CHECK_SIZES:-1921x1079,4097x3,1920x1080}" \
    --synthetic depth --format d32-rg32f --strategies "$mine_mm,sampler-minmax:reduction=minmax" \
    --repeat 3 --warmup-ms 0 --json "$j/verdicts_d32rg.json"
  echo "exit $?"
  for s in before after; do
    tree=$root; [[ $s == before ]] && tree=$base
    echo "== $s: a depth with NaN texels, r32f min and max"
    side "$tree" 120 "$py" -m mipview run "$j/nan.npy" --format r32f \
      --strategies "$mine_min,per-level:reduction=max,single-pass:reduction=max,sampler-minmax:reduction=max" \
      --out "$j/nan_$s"
    echo "exit $?"
    cp "$j/nan_$s/report.json" "$j/verdicts_nan_$s.json"
  done
} > "$out/verdicts.log" 2>&1
tar -czf "$out/json.tar.gz" -C "$j" $(cd "$j" && ls *.json)
rm -rf "$j"
tail -3 "$out/verdicts.log"
