#!/usr/bin/env bash
# Second H200 call of 2026-11-22: the day's tree against the tree before it (16d447b), with the
# A/B harness fixed (each side runs from inside its own tree: `python -m` puts the working folder
# first on sys.path, so the first call's "base" runs were the new tree too), and the verdicts
# of every strategy on the GPU (the validation layer is not installed there: no --validate).
#   source .gl/env.sh && bash docs/bench/h200-2026-11-22-final/run2.sh _ab_base $OUT
set -uo pipefail
base=$(cd "$1" && pwd); out=$2; j=/tmp/final2-json; mkdir -p "$out" "$j"
site=${PYTHONPATH%%:*}
scripts/ab_bench.sh "$base" "$j/ab" 1920x1080 4096 8192 > "$out/ab.log" 2>&1
for round in 1 2; do
  for side in base after; do
    tree=$PWD; [[ $side == base ]] && tree=$base
    echo "== $side srgb 4096 round $round"
    (cd "$tree" && PYTHONPATH=$site python3 -m mipview bench --size 4096 --format srgb \
      --strategies all --cold --warmup-ms 1500 --repeat 50 --no-check | sed -n '5,12p')
  done
done > "$out/ab_srgb.log" 2>&1
S=blit,per-level,npot-exact,subgroup,single-pass,single-pass:load=bilinear,subgroup:load=bilinear
for f in unorm srgb; do
  python3 -m mipview run resources/photo_npot_1000x750.png --format $f --out /tmp/v_$f \
    --strategies $S; echo "exit $?"
done > "$out/verdicts.log" 2>&1
for s in 1921x1079 2048 4096; do
  python3 -m mipview run --size $s --format f16 --out /tmp/v_f16_$s \
    --strategies $S,single-pass:fp16=on; echo "exit $?"
  python3 -m mipview run --size $s --out /tmp/v_u_$s --strategies $S; echo "exit $?"
done >> "$out/verdicts.log" 2>&1
tar -czf "$out/json.tar.gz" -C "$j" .
