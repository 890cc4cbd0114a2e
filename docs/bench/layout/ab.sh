#!/usr/bin/env bash
# The folders as layers: the tree before the move against the working tree, in ONE
# call (the GPU's clock drifts between calls). Behaviour and speed must not change.
# The tree before is an untracked folder:
#   mkdir _ab_base && git archive 452833c | tar -x -C _ab_base
#   bash docs/bench/layout/ab.sh OUT
#  1. timing: `mipview bench --sizes 1920x1080,4096 --strategies all`, cold caches, median of
#     50, base, new, base, new (each side run from inside its own tree), and the last size
#     alone (`bench --size`, the path that now goes through the staged Run);
#  2. the same bytes: tools/compare_outputs.py, every built-in strategy on 3 images x 4 formats
#     (AB_COMPARE=0 leaves it out). Small values run it anywhere, e.g. on lavapipe:
#   AB_SIZES=64,40x24 AB_REPEAT=3 AB_WARMUP_MS=0 AB_COMPARE=0 PYTHON=.venv/bin/python \
#     bash docs/bench/layout/ab.sh /tmp/ab
set -uo pipefail
out=${1:?usage: ab.sh OUT}
base=$(cd "${AB_BASE:-_ab_base}" && pwd) || { echo "no ${AB_BASE:-_ab_base}/ tree" >&2; exit 2; }
new=$PWD
mkdir -p "$out"; out=$(cd "$out" && pwd)
sizes=${AB_SIZES:-1920x1080,4096}; repeat=${AB_REPEAT:-50}; warmup=${AB_WARMUP_MS:-1500}
py=$(command -v "${PYTHON:-python3}"); py=${py:-python3}
[[ $py == /* ]] || py=$new/$py
site=${PYTHONPATH:+${PYTHONPATH%%:*}}  # the device's env puts the wheels first
side() {  # side base|new ARGS...: mipview from that side's tree
  local tree=$new; [[ $1 == base ]] && tree=$base
  shift
  (cd "$tree" && PYTHONPATH=$site "$py" -m mipview "$@")
}
for round in 1 2; do
  for s in base new; do
    echo "== timing $s round $round: $sizes, cold, median of $repeat"
    side "$s" bench --sizes "$sizes" --strategies all --cold --warmup-ms "$warmup" \
      --repeat "$repeat" --json "$out/${s}_${round}.json" | sed -n '1,40p'
    # one size alone: the path whose code moved most (bench through the staged Run)
    echo "== timing $s round $round: ${one:=${sizes##*,}} alone"
    side "$s" bench --size "$one" --strategies all --cold --warmup-ms "$warmup" \
      --repeat "$repeat" --json "$out/${s}_${one}_${round}.json" | sed -n '4,20p'
  done
done
[[ ${AB_COMPARE:-1} == 1 ]] || exit 0
echo "== the same bytes: every built-in strategy, 3 images x 4 formats"
PYTHONPATH=$site "$py" "$new/tools/compare_outputs.py" "$base" "$new" "$out/outputs" \
  && echo "all identical"
rm -rf "$out/outputs"  # thousands of level files: the log says what matters
