#!/usr/bin/env bash
# npot-exact's groups storing their last level after the hand-off (NPOT_DEFER_LAST) against
# before it, one call: needs [".gl", ".whl", "_ab_base"] in the tree, where _ab_base/ holds the tree
# before's npot_exact.spv and npot_exact.py (laid over a copy of this tree);
#   bash docs/bench/npot-defer/ab.sh OUT
# R32F min of the synthetic depth scene (SPD beside it) and RGBA8 mean, cold, median of 50,
# before and after alternating twice; then the verdicts of the tree after.
set -uo pipefail
out=$1; mkdir -p "$out"
source .gl/env.sh
root=$PWD; base=/tmp/npot_base; rm -rf $base; mkdir -p $base
cp -r mipview tools resources third_party $base/
cp _ab_base/npot_exact.spv $base/mipview/spirv/npot_exact.spv
cp _ab_base/npot_exact.py $base/mipview/gpu/strategies/npot_exact.py
sizes=1920x1080,2560x1440,3840x2160,4096
common=(--sizes $sizes --synthetic depth --cold --evict clean --warmup-ms 1500 --repeat 50 --no-check)
for r in 1 2; do for s in base after; do t=$root; [[ $s == base ]] && t=$base
  echo "== $s round $r"
  (cd $t && timeout 150 python3 -m mipview bench "${common[@]}" --format r32f \
     --strategies npot-exact:reduction=min,shader:resources/shaders/spd_min.comp 2>&1 | grep -A3 "^median")
  (cd $t && timeout 150 python3 -m mipview bench "${common[@]}" --format unorm \
     --strategies npot-exact 2>&1 | grep -A2 "^median")
done; done > "$out/times.log"
timeout 200 python3 -m mipview bench --sizes 1920x1080,1921x1079,2560x1440,4097x3 --synthetic depth \
  --format r32f --strategies npot-exact:reduction=min,npot-exact \
  --repeat 3 --warmup-ms 0 > "$out/verdicts.log" 2>&1; echo "exit $?" >> "$out/verdicts.log"
