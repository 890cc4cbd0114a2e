#!/usr/bin/env bash
# npot-exact's `lone` option against the plan before it (lone=off: the same pipelines and plan
# as the tree before the option) and FidelityFX SPD, one device call, two rounds; the option is
# lone.patch's (`git apply docs/bench/speed-1080p/lone.patch` first: it did not land):
#   source .gl/env.sh && bash docs/bench/speed-1080p/run.sh $OUT
# Every variant of a format in one timing loop (`bench --sizes`), cold caches, median of 50
# after 1.5 s of warm-up; RGBA8 and RGBA16F beside SPD's mean (resources/shaders/spd_mean.comp,
# with AMD's hand-off too), R32F min of a synthetic depth beside SPD's min (not conservative at
# odd sides). Then the verdicts of lone=on where it changes the plan (exit 0: within bounds,
# min bit-exact). Writes into $OUT: gpu.txt, times.log, verdicts.log, status.txt, *.json.
set -uo pipefail
out=${1:?usage: run.sh OUT}; mkdir -p "$out"; out=$(cd "$out" && pwd)
py=${PYTHON:-python3}
source "$(dirname "$0")/../step.sh"
sizes=${SPEED1080_SIZES:-1280x720,1920x1080,2560x1440,3840x2160,5120x2880,4096,8192}
f16_sizes=${SPEED1080_F16_SIZES:-1920x1080,2560x1440,3840x2160,4096}
hiz_sizes=${SPEED1080_HIZ_SIZES:-1280x720,1920x1080,2560x1440,3840x2160}
spd=shader:resources/shaders/spd_mean.comp
n=npot-exact
common=(--cold --repeat "${SPEED1080_REPEAT:-50}" --warmup-ms "${SPEED1080_WARMUP_MS:-1500}" --no-check)
for round in 1 2; do
  # SPD makes 12 levels at most: 8192^2 without it
  step "rgba8_$round" 200 bench --sizes "$sizes" --strategies "$n:lone=off,$n:lone=on,$spd,$spd:HANDOFF=1" \
    "${common[@]}" --json "$out/rgba8_$round.json"
  step "rgba16f_$round" 150 bench --sizes "$f16_sizes" --format f16 \
    --strategies "$n:lone=off,$n:lone=on,$spd,$spd:HANDOFF=1" "${common[@]}" --json "$out/rgba16f_$round.json"
  step "r32f_min_$round" 150 bench --synthetic depth --format r32f --sizes "$hiz_sizes" --evict clean \
    --strategies "$n:lone=off,reduction=min,$n:lone=on,reduction=min,shader:resources/shaders/spd_min.comp" \
    "${common[@]}" --json "$out/r32f_min_$round.json"
done
mv "$out/times.log" "$out/times.tmp"
for s in ${SPEED1080_CHECK_SIZES:-1280x720,2560x1440,5120x2880}; do
  s=${s//,/ }
  for size in $s; do
    for fmt in unorm srgb f16; do
      step "verdict_${size}_$fmt" 120 bench --size "$size" --format "$fmt" --strategies "$n:lone=on" --repeat 3
    done
    step "verdict_${size}_min" 120 bench --synthetic depth --format r32f --size "$size" \
      --strategies "$n:lone=on,reduction=min" --repeat 3
  done
done
mv "$out/times.log" "$out/verdicts.log"; mv "$out/times.tmp" "$out/times.log"
cat "$out/status.txt"
