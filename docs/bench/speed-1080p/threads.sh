#!/usr/bin/env bash
# npot-exact's general dispatches with fewer invocations per group (a temporary `threads`
# option, threads.patch), beside SPD, one device call, two rounds:
#   source .gl/env.sh && bash docs/bench/speed-1080p/threads.sh $OUT
set -uo pipefail
out=${1:?usage: threads.sh OUT}; mkdir -p "$out"; out=$(cd "$out" && pwd)
py=${PYTHON:-python3}
source "$(dirname "$0")/../step.sh"
spd=shader:resources/shaders/spd_mean.comp
n=npot-exact
T="$n,$n:threads=128,$n:threads=64,$n:threads=32"
M="$n:reduction=min,$n:reduction=min,threads=128,$n:reduction=min,threads=64,$n:reduction=min,threads=32"
common=(--cold --repeat 50 --warmup-ms 1500 --no-check)
for round in 1 2; do
  step "rgba8_$round" 150 bench --sizes 1280x720,1920x1080,2560x1440,3840x2160,1921x1079 \
    --strategies "$T,$spd:HANDOFF=1" "${common[@]}" --json "$out/rgba8_$round.json"
  step "rgba16f_$round" 100 bench --sizes 1920x1080 --format f16 --strategies "$T,$spd:HANDOFF=1" \
    "${common[@]}" --json "$out/rgba16f_$round.json"
  step "r32f_min_$round" 120 bench --synthetic depth --format r32f --sizes 1920x1080,2560x1440 \
    --evict clean --strategies "$M,shader:resources/shaders/spd_min.comp" "${common[@]}" \
    --json "$out/r32f_min_$round.json"
done
cat "$out/status.txt"
