#!/usr/bin/env bash
# Where npot-exact's second dispatch spends its time at 1080p and 1440p, beside SPD, one device
# call: the temporary `probe` option of probe.patch (empty groups; the groups' levels only; the
# hand-off without the tail; image stores after the arrival) in one timing loop per format.
# Needs `git apply docs/bench/speed-1080p/probe.patch && python -m tools.build_shaders` first.
#   source .gl/env.sh && bash docs/bench/speed-1080p/probe.sh $OUT
set -uo pipefail
out=${1:?usage: probe.sh OUT}; mkdir -p "$out"; out=$(cd "$out" && pwd)
py=${PYTHON:-python3}
source "$(dirname "$0")/../step.sh"
spd=shader:resources/shaders/spd_mean.comp
n=npot-exact
P="$n,$n:probe=empty,$n:probe=groups,$n:probe=arrive,$n:probe=defer"
M="$n:reduction=min,$n:reduction=min,probe=empty,$n:reduction=min,probe=groups,$n:reduction=min,probe=arrive,$n:reduction=min,probe=defer"
common=(--cold --repeat 50 --warmup-ms 1500 --no-check)
step rgba8 200 bench --sizes 1920x1080,2560x1440,3840x2160 --strategies "$P,$spd,$spd:HANDOFF=1" \
  "${common[@]}" --json "$out/rgba8.json"
step rgba16f 120 bench --sizes 1920x1080 --format f16 --strategies "$P,$spd,$spd:HANDOFF=1" \
  "${common[@]}" --json "$out/rgba16f.json"
step r32f_min 150 bench --synthetic depth --format r32f --sizes 1920x1080,2560x1440 \
  --strategies "$M,shader:resources/shaders/spd_min.comp" --evict clean "${common[@]}" \
  --json "$out/r32f_min.json"
step verdicts 120 bench --size 1920x1080 --strategies "$n:probe=defer" --repeat 3
step verdicts_min 120 bench --synthetic depth --format r32f --sizes 1920x1080,2560x1440 \
  --strategies "$n:reduction=min,probe=defer" --repeat 3
cat "$out/status.txt"
