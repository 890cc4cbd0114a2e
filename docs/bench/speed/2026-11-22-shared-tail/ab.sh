#!/usr/bin/env bash
# A/B of single-pass's tail (main vs _ab_tail) in one call, then GPU verdicts of the new tail
set -uo pipefail
out=$1; mkdir -p "$out"
site=${PYTHONPATH%%:*}
S=single-pass:tail=all,single-pass:load=bilinear,subgroup:load=bilinear
for round in 1 2; do
  for side in base new; do
    tree=$PWD; [[ $side == new ]] && tree=$PWD/_ab_tail
    echo "== $side round $round"
    (cd "$tree" && PYTHONPATH=$site timeout 100 python3 -m mipview bench --sizes 1920x1080,2560x1440,3840x2160,1921x1079,4095 \
      --strategies "$S" --cold --warmup-ms 1500 --repeat 50 --no-check --json "$out/tail_${side}_$round.json" | sed -n '4,30p')
  done
done > "$out/tail_ab.log" 2>&1
for fmt in unorm srgb f16 f32; do
  (cd _ab_tail && PYTHONPATH=$site timeout 60 python3 -m mipview bench --sizes 1920x1080,1921x1079,4097x3,3x4097,63x65,2047x2049 --format $fmt \
     --strategies single-pass:tail=all,single-pass:reduction=max --repeat 3 --warmup-ms 0 | grep -v "^  " ; echo "exit $?")
done > "$out/tail_verdicts.log" 2>&1
