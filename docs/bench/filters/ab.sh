#!/usr/bin/env bash
# filter-pairs before and after a change, beside per-level, in ONE call
# (the GPU's clock drifts between calls). The tree before is an untracked folder in the repo root:
#   mkdir _ab_base && git archive REV mipview | tar -x -C _ab_base
#   bash docs/bench/filters/ab.sh OUT
# Each side runs from inside its own tree (`python -m` puts the working folder first on
# sys.path); the working tree is "new".
#  1. timing: tent, Kaiser (width 2), Lanczos-2 and Mitchell, per-level and filter-pairs, edge
#     clamp and wrap, AB_SIZE^2 RGBA8 unorm, cold caches, median of AB_REPEAT; base, new, base,
#     new, so drift hits both alike; each new run's table has the ratio to the base run before it
#     (--baseline). No check here (the float64 references at 4096^2 take minutes each).
#  2. the same bytes: every filter and edge of filter-pairs at AB_CHECK_SIZES in AB_FORMATS, each
#     level file of new compared with base's (the rewrite keeps the arithmetic order).
#  3. verdicts: those new runs checked against their exact references (edge=wrap and mirror
#     included: the border fault of 2026-11-22 was there); "OUT OF TOLERANCE" lines and exit 1
#     where a result leaves the verdict's bounds.
# AB_PARTS="timing verdicts" (default: both) runs one part alone, should a call run out of time.
# Small values run it anywhere, e.g. on lavapipe:
#   AB_SIZE=64 AB_REPEAT=3 AB_WARMUP_MS=50 AB_CHECK_SIZES=67x45 AB_FORMATS="unorm f16" \
#     PYTHON=.venv/bin/python bash docs/bench/filters/ab.sh /tmp/ab
set -uo pipefail
out=${1:?usage: ab.sh OUT}
base=$(cd "${AB_BASE:-_ab_base}" && pwd) || { echo "no ${AB_BASE:-_ab_base}/ tree" >&2; exit 2; }
new=$PWD
mkdir -p "$out"; out=$(cd "$out" && pwd)
size=${AB_SIZE:-4096}; repeat=${AB_REPEAT:-30}; warmup=${AB_WARMUP_MS:-1500}
check_sizes=${AB_CHECK_SIZES:-1021x579 2048x1536}; formats=${AB_FORMATS:-unorm srgb f16 f32}
parts=${AB_PARTS:-timing verdicts}
py=$(command -v "${PYTHON:-python3}"); py=${py:-python3}
[[ $py == /* ]] || py=$new/$py
site=${PYTHONPATH:+${PYTHONPATH%%:*}}  # the device's env puts the wheels first
source "$(dirname "${BASH_SOURCE[0]}")/same_bytes.sh"
side() {  # side base|new ARGS...: mipview from that side's tree
  local tree=$new; [[ $1 == base ]] && tree=$base
  shift
  (cd "$tree" && PYTHONPATH=$site "$py" -m mipview "$@")
}

specs=""
for f in tent "kaiser,kaiser-width=2" lanczos2 mitchell; do
  for edge in clamp wrap; do
    specs="$specs,per-level:filter=$f,edge=$edge,filter-pairs:filter=$f,edge=$edge"
  done
done
specs=${specs#,}

[[ $parts == *timing* ]] && for round in 1 2; do
  for s in base new; do
    echo "== timing $s round $round: ${size}^2 unorm, cold, median of $repeat"
    extra=(); [[ $s == new ]] && extra=(--baseline "$out/base_${round}.json")
    side "$s" bench --size "$size" --strategies "$specs" --cold --warmup-ms "$warmup" \
      --repeat "$repeat" --no-check --json "$out/${s}_${round}.json" "${extra[@]}"
    echo "exit $?"
  done
done > "$out/timing.log" 2>&1

[[ $parts == *verdicts* ]] && for sz in $check_sizes; do
  for fmt in $formats; do
    tag=${sz}_$fmt
    side base run --size "$sz" --format "$fmt" --strategies "filter-pairs:filter=all,edge=all" \
      --no-check --out "$out/levels_base_$tag" > /dev/null 2>&1
    echo "== base $tag exit $?"
    echo "== new $tag, checked:"
    side new run --size "$sz" --format "$fmt" --strategies "filter-pairs:filter=all,edge=all" \
      --out "$out/levels_new_$tag" 2>&1 | grep -E "filter-pairs|error|Error"
    echo "== new $tag exit ${PIPESTATUS[0]}"
    same_bytes "$tag"
    cp "$out/levels_new_$tag/report.json" "$out/report_new_$tag.json" 2>/dev/null
    rm -rf "$out/levels_base_$tag" "$out/levels_new_$tag"
  done
done > "$out/verdicts.log" 2>&1

if [[ $parts == *timing* ]]; then
  grep -h -E "^(== timing|filter-pairs|per-level|exit)" "$out/timing.log"
fi
if [[ $parts == *verdicts* ]]; then
  grep -h -E "^== same|DIFFERS|OUT OF TOLERANCE|exit [^0]" "$out/verdicts.log"
  echo "verdicts: $(grep -c ' ok$' "$out/verdicts.log") ok," \
    "$(grep -c 'OUT OF TOLERANCE' "$out/verdicts.log") out of tolerance"
fi
