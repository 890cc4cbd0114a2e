#!/usr/bin/env bash
# The window's stalls and its timings against bench on the GPU machine, in one call (the clock drifts between calls):
#   source .gl/env.sh && source .gpuqt/env.sh && bash docs/bench/window-stalls/run.sh $OUT [PHASE]
# PHASE: all (default: stalls, why, parity), stalls, why, parity, firstrun or timings
# needs [".gl", ".whl", ".gpuqt", "_ab_base", "_ab_after"] in the tree; _ab_base/ is the tree before;
# the tree after is _ab_base/ with the files of _ab_after/ over it, or the working tree when
# there is no _ab_after/ (the size limit of what travels to the GPU machine leaves no room for two whole trees beside Qt)
# (`mkdir _ab_base && git archive b19bf35 mipview tools resources | tar -x -C _ab_base`).
#  1. stalls: the real window offscreen, `python -m tools.measure --size 4096 --live-s 10`
#     (open 4096^2, strategy against strategy, live profiling, Run all five at 1024^2 three
#     times), before and after alternating, three times each; then once more after with --why
#     (the UI thread's stack sampled: what it did in each phase's longest stall)
#  2. the window's Run at 4096^2 on a photo (the bundled one resized with Lanczos): time to the
#     timings on screen and to everything, first Run and later Runs, and the medians the chart
#     shows; beside `mipview bench` on the same photo and strategies, warm caches as the window
#     runs, before and after the window (drift shows as their difference)
#  3. mipview.cli.window_run -v: the same Run without the window (where its time goes)
#  4. timings: the window's Run of the five at 4096^2 on the photo, three Runs, before and after
#     alternating twice: time to the timings on screen, first Run and later Runs
# Writes: gpu.txt, stalls.log, why.log, parity.log, bench_json.tar.gz, staged.log, shots.tar.gz
set -uo pipefail
out=${1:?usage: run.sh OUT}; mkdir -p "$out"; out=$(cd "$out" && pwd)
root=$PWD
five=blit,per-level,npot-exact,subgroup,single-pass
export QT_QPA_PLATFORM=offscreen
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$out/gpu.txt" 2>&1
nproc >> "$out/gpu.txt"
cat /sys/fs/cgroup/cpu.max >> "$out/gpu.txt" 2>/dev/null  # a CPU quota below the cores seen
python3 -c "from PIL import Image; Image.open('resources/photo_npot_1000x750.png').convert('RGBA').resize((4096, 4096), Image.LANCZOS).save('/tmp/photo4096.png')"
after=$root
if [[ -d _ab_after ]]; then
  after=/tmp/ab_after; rm -rf "$after"; cp -r _ab_base "$after"; cp -r _ab_after/. "$after"
fi
side() {  # side NAME SECONDS CMD...: CMD from inside the tree of side NAME (base | after)
  local tree=$after; [[ $1 == base ]] && tree=$root/_ab_base
  local limit=$2; shift 2
  (cd "$tree" && PYTHONPATH=${PYTHONPATH:+${PYTHONPATH//$root:/}} timeout "$limit" "$@")
}
phase=${2:-all}
if [[ $phase == all || $phase == stalls ]]; then
for round in 1 2 3; do
  for s in ${SIDES:-base after}; do
    echo "== $s round $round"
    side $s 100 python3 -m tools.measure --size 4096 --live-s 10 --shots "/tmp/shots_$s" \
      2>&1 | grep -v propagateSizeHints
  done
done > "$out/stalls.log" 2>&1
fi
if [[ $phase == all || $phase == why ]]; then
side after 100 python3 -m tools.measure --size 4096 --live-s 10 --shots /tmp/shots_why --why \
  2>&1 | grep -v propagateSizeHints > "$out/why.log"
fi
if [[ $phase == all || $phase == parity ]]; then
# bench and the window alternate, three times each: the same photo, strategies and settings
for round in 1 2 3; do
  echo "== bench round $round"
  side after 60 python3 -m mipview bench /tmp/photo4096.png --strategies "$five" --repeat 20 \
    --no-check --json "$out/bench4096_$round.json"
  echo "== window round $round"
  side after 120 python3 -m tools.measure --five-only --five-image /tmp/photo4096.png \
    --five-runs 3 2>&1 | grep -v propagateSizeHints
done > "$out/parity.log" 2>&1
side after 90 python3 -m mipview.cli.window_run --image /tmp/photo4096.png --strategies "$five" \
  --repeat 20 --runs 2 -v > "$out/staged.log" 2>&1
fi
if [[ $phase == firstrun ]]; then
# the first Run's stall at 4096^2 (pipelines compiled, no reference cached yet) against the
# number of analysis threads and the GIL's switch interval, configurations alternating
IFS='|' read -r -a configs <<< "${FIRSTRUN_CONFIGS:-16 5|4 5|16 1|4 1}"
for round in $(seq "${FIRSTRUN_ROUNDS:-2}"); do
  for config in "${configs[@]}"; do
    set -- $config
    echo "== round $round: MIPVIEW_THREADS=$1, switch interval $2 ms"
    export MIPVIEW_THREADS=$1
    side after 120 python3 -m tools.measure --five-only \
      --five-image /tmp/photo4096.png --five-runs 2 --switch-ms "$2" 2>&1 \
      | grep -v propagateSizeHints
  done
done > "$out/firstrun.log" 2>&1
unset MIPVIEW_THREADS
fi
if [[ $phase == timings ]]; then
for round in 1 2; do
  for s in ${SIDES:-base after}; do
    echo "== $s round $round"
    side $s 150 python3 -m tools.measure --five-only --five-image /tmp/photo4096.png \
      --five-runs 3 2>&1 | grep -v propagateSizeHints
  done
done > "$out/timings.log" 2>&1
fi
tar -C /tmp -czf "$out/shots.tar.gz" shots_after 2>/dev/null
# at most 8 files come back from the device: the JSON in one archive
(cd "$out" && ls bench4096_*.json > /dev/null 2>&1 && tar -czf bench_json.tar.gz bench4096_*.json \
  && rm bench4096_*.json)
echo done >> "$out/gpu.txt"
