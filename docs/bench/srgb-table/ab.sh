#!/usr/bin/env bash
# The sRGB threshold table of mipview/gpu/shaders/include/mip_common.glsl as one private global
# (the working tree) against the const array before it, in ONE call (the GPU's clock
# drifts between calls). The const array made lavapipe compile a copy at every mipEncode; this
# checks the GPU pays nothing for the change. The tree before is an untracked folder:
#   mkdir _ab_base && git archive 891c1cf mipview | tar -x -C _ab_base
#   bash docs/bench/srgb-table/ab.sh OUT
#  1. timing: every sRGB strategy that stores through mipEncode at AB_SIZES, cold caches, median
#     of AB_REPEAT; base, new, base, new, each new run against the base run before it
#     (--baseline);
#  2. the same bytes: level files of new against base at AB_CHECK_SIZES (sRGB), new's verdicts;
#  3. MIPVIEW_PIPELINE_STATS of new and base: registers and local memory of each pipeline.
# Small values run it anywhere, e.g. on lavapipe:
#   AB_SIZES=64 AB_REPEAT=3 AB_WARMUP_MS=0 AB_CHECK_SIZES=67x45 PYTHON=.venv/bin/python \
#     bash docs/bench/srgb-table/ab.sh /tmp/ab
set -uo pipefail
out=${1:?usage: ab.sh OUT}
base=$(cd "${AB_BASE:-_ab_base}" && pwd) || { echo "no ${AB_BASE:-_ab_base}/ tree" >&2; exit 2; }
new=$PWD
mkdir -p "$out"; out=$(cd "$out" && pwd)
sizes=${AB_SIZES:-4096,1920x1080}; repeat=${AB_REPEAT:-30}; warmup=${AB_WARMUP_MS:-1500}
check_sizes=${AB_CHECK_SIZES:-1021x579 2048x1536}
py=$(command -v "${PYTHON:-python3}"); py=${py:-python3}
[[ $py == /* ]] || py=$new/$py
site=${PYTHONPATH:+${PYTHONPATH%%:*}}  # the device's env puts the wheels first
source "$(dirname "${BASH_SOURCE[0]}")/../filters/same_bytes.sh"
side() {  # side base|new ARGS...: mipview from that side's tree
  local tree=$new; [[ $1 == base ]] && tree=$base
  shift
  (cd "$tree" && PYTHONPATH=$site "$py" -m mipview "$@")
}
specs=per-level,npot-exact,single-pass,subgroup,register-chain,per-level:filter=kaiser,filter-pairs:filter=tent

for round in 1 2; do
  for size in ${sizes//,/ }; do
    for s in base new; do
      echo "== timing $s round $round: $size srgb, cold, median of $repeat"
      extra=(); [[ $s == new ]] && extra=(--baseline "$out/base_${size}_${round}.json")
      side "$s" bench --size "$size" --format srgb --strategies "$specs" --cold \
        --warmup-ms "$warmup" --repeat "$repeat" --no-check \
        --json "$out/${s}_${size}_${round}.json" "${extra[@]}"
      echo "exit $?"
    done
  done
done > "$out/timing.log" 2>&1

for sz in $check_sizes; do
  tag=${sz}_srgb
  side base run --size "$sz" --format srgb --strategies "$specs" --no-check \
    --out "$out/levels_base_$tag" > /dev/null 2>&1
  echo "== base $tag exit $?"
  echo "== new $tag, checked:"
  side new run --size "$sz" --format srgb --strategies "$specs" --out "$out/levels_new_$tag" 2>&1
  echo "== new $tag exit ${PIPESTATUS[0]}"
  same_bytes "$tag"
  rm -rf "$out/levels_base_$tag" "$out/levels_new_$tag"
done > "$out/verdicts.log" 2>&1

for s in base new; do
  MIPVIEW_PIPELINE_STATS=1 side "$s" run --size 1021x579 --format srgb --strategies "$specs" \
    --no-check --out "$out/stats_$s" > "$out/pipeline_stats_$s.log" 2>&1
  rm -rf "$out/stats_$s"
done

cat "$out/timing.log"
grep -h -E "^== same|DIFFERS|OUT OF TOLERANCE|exit [^0]" "$out/verdicts.log"
echo "verdicts: $(grep -c ' ok$' "$out/verdicts.log") ok," \
  "$(grep -c 'OUT OF TOLERANCE' "$out/verdicts.log") out of tolerance"
