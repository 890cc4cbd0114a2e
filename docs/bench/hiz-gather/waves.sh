#!/usr/bin/env bash
# "Fit the wave" for npot-exact's first dispatch (single-pass's tile phase) at the
# render-target sizes, R32F min and RGBA8 mean, in one call. _ab_base/ is a patched copy
# of the tree: npot-exact forwards single-pass's tiles and prefetch options to its fast step,
# and an explicit tiles=N is taken down to 128 groups (the shipped floor is 512 groups, which
# keeps 1440p's 920 tiles at one a group). Not shipped: an experiment.
#   source .gl/env.sh && bash docs/bench/hiz-gather/waves.sh $OUT   (needs .gl, .whl, _ab_base in the tree)
set -uo pipefail
out=$1; mkdir -p "$out"; out=$(cd "$out" && pwd)
root=$PWD; py=${PYTHON:-python3}
sizes=1920x1080,2560x1440,3840x2160,4096
v="npot-exact:reduction=min"
spd=shader:resources/shaders/spd_min.comp
cd _ab_base
export PYTHONPATH=${PYTHONPATH//$root/$root/_ab_base}
for round in 1 2; do
  timeout 200 "$py" -m mipview bench --sizes $sizes --synthetic depth --format r32f --cold \
    --repeat 50 --warmup-ms 1500 --no-check --json "$out/r32f_$round.json" --strategies \
    "$v,$v,tiles=2,$v,tiles=2,prefetch=on,$v,tiles=4,$v,tiles=4,prefetch=on,$spd" \
    > "$out/r32f_$round.log" 2>&1; echo "r32f $round exit $?"
  timeout 200 "$py" -m mipview bench --sizes $sizes --synthetic depth --format unorm --cold \
    --repeat 50 --warmup-ms 1000 --no-check --json "$out/unorm_$round.json" --strategies \
    "npot-exact,npot-exact:tiles=2,npot-exact:tiles=2,prefetch=on,npot-exact:load=bilinear,tiles=2,prefetch=on" \
    > "$out/unorm_$round.log" 2>&1; echo "unorm $round exit $?"
done
grep -h -A8 "^median us" "$out"/*_1.log "$out"/*_2.log
