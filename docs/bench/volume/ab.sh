#!/usr/bin/env bash
# The volume strategies of the tree ("after") against those of _ab_base/ ("base": the tree
# before, or a copy of it with one change), alternating twice in one call. Used for the
# hand-off (2026-11-27-h100-handoff/: _ab_base with the hand-off off) and for 512-invocation
# even dispatches (2026-11-27-h100-threads/: _ab_base = 593bc4b).
#   source .gl/env.sh && bash docs/bench/volume/ab.sh $OUT   (needs .gl, .whl, _ab_base in the tree)
set -u
out=$1; mkdir -p $out; root=$PWD
for round in 1 2; do for side in base after; do
  tree=$root; [[ $side == base ]] && tree=$root/_ab_base
  for spec in "256 r8" "256 f16" "128 unorm"; do set -- $spec
    (cd $tree && PYTHONPATH=${PYTHONPATH//$root/$tree} timeout 120 python3 -m mipview bench --synthetic volume --size $1 --format $2 --cold --repeat 50 --warmup-ms 1000 --json $out/${side}_${2}_$1_$round.json > /dev/null 2>&1; echo "$side $2 $1 exit $?")
  done
done; done
python3 - $out <<'PY'
import json,sys,glob
for f in sorted(glob.glob(sys.argv[1]+'/*.json')):
    d=json.load(open(f))
    print(f.split('/')[-1], [(r['strategy'], round(r['timing']['median_us'],1), r.get('within_tolerance')) for r in d['results']])
PY
