#!/usr/bin/env bash
# per-level's alpha=coverage before and after a change, in ONE call (the GPU's
# clock drifts between calls), with ab.sh's conventions. The tree before is an untracked folder
# in the repo root:
#   mkdir _ab_base && git archive REV mipview | tar -x -C _ab_base
#   bash docs/bench/filters/coverage_ab.sh OUT
# Each side runs from inside its own tree; the working tree is "new". On the bundled foliage
# cutout resized to each size (run.sh's "coverage" part: big leaves, mostly transparent):
#  1. timing: tent, box and Kaiser with alpha=coverage beside the same filters' straight alpha
#     and the box shader, RGBA8 unorm at COV_SIZES (4096^2 and 2048^2), cold caches, median of
#     AB_REPEAT; base, new, base, new, so drift hits both alike; each new run's table has the
#     ratio to the base run before it (--baseline). No check (minutes of numpy at 4096^2).
#     timing_summary.txt: per coverage run and pass kind (level 0's count, x, y, histogram,
#     scale, store, histogram+store) the sum over levels of the per-dispatch medians, base and
#     new side by side, and level 0's and 1's dispatches of each side (where the histogram's
#     last workgroup chooses the scale, a side has no scale dispatch: its time is inside the
#     histogram's; a small level's one dispatch is histogram+store).
#  2. the same bytes: alpha=coverage with every filter at AB_CHECK_SIZES in AB_FORMATS (2100^2
#     makes level 1 over 256 histogram chunks: the workgroups' shared chunks), each level file of
#     new compared with base's;
#  3. verdicts: the new runs at COV_VERDICT_SIZES (default 1021x1021; the float64 references
#     of every filter at 2100^2 would take numpy minutes) checked against their exact references
#     and the coverage rule; "OUT OF TOLERANCE" lines where a result leaves the verdict's bounds.
# AB_PARTS="timing verdicts" (default: both) runs one part alone, should a call run out of time.
# Small values run it anywhere, e.g. on lavapipe:
#   COV_SIZES=96 AB_REPEAT=3 AB_WARMUP_MS=50 AB_CHECK_SIZES="67x45 300x260" \
#     COV_VERDICT_SIZES=67x45 AB_FORMATS="unorm f16" COV_FILTERS=tent PYTHON=.venv/bin/python \
#     bash docs/bench/filters/coverage_ab.sh /tmp/c
set -uo pipefail
out=${1:?usage: coverage_ab.sh OUT}
base=$(cd "${AB_BASE:-_ab_base}" && pwd) || { echo "no ${AB_BASE:-_ab_base}/ tree" >&2; exit 2; }
new=$PWD
mkdir -p "$out"; out=$(cd "$out" && pwd)
sizes=${COV_SIZES:-4096 2048}; repeat=${AB_REPEAT:-30}; warmup=${AB_WARMUP_MS:-1500}
check_sizes=${AB_CHECK_SIZES:-1021x1021 2100x2100}; formats=${AB_FORMATS:-unorm srgb f16 f32}
verdict_sizes=" ${COV_VERDICT_SIZES:-1021x1021} "
filters=${COV_FILTERS:-tent box kaiser}
parts=${AB_PARTS:-timing verdicts}
py=$(command -v "${PYTHON:-python3}"); py=${py:-python3}
[[ $py == /* ]] || py=$new/$py
site=${PYTHONPATH:+${PYTHONPATH%%:*}}  # the device's env puts the wheels first
side() {  # side base|new ARGS...: mipview from that side's tree
  local tree=$new; [[ $1 == base ]] && tree=$base
  shift
  (cd "$tree" && PYTHONPATH=$site "$py" -m mipview "$@")
}
cutout() {  # cutout W H PATH: the foliage sample resized (Lanczos), as run.sh makes it
  (cd "$new" && PYTHONPATH=$site "$py" -c "import sys; from PIL import Image
from mipview.io.samples import sample_path
Image.open(sample_path('foliage_256.png')).convert('RGBA').resize(
    (int(sys.argv[1]), int(sys.argv[2])), Image.LANCZOS).save(sys.argv[3])" "$@")
}

specs="per-level"
for f in $filters; do  # straight box is the box shader, the first spec
  [[ $f != box ]] && specs="$specs,per-level:filter=$f"
  specs="$specs,per-level:filter=$f,alpha=coverage"
done

[[ $parts == *timing* ]] && for size in $sizes; do
  cutout "$size" "$size" "$out/cutout_$size.png" || echo "no cutout at $size"
  for round in 1 2; do
    for s in base new; do
      echo "== timing $s round $round: ${size}^2 cutout unorm, cold, median of $repeat"
      extra=(); [[ $s == new ]] && extra=(--baseline "$out/${size}_base_${round}.json")
      side "$s" bench "$out/cutout_$size.png" --format unorm --strategies "$specs" --cold \
        --warmup-ms "$warmup" --repeat "$repeat" --no-check \
        --json "$out/${size}_${s}_${round}.json" "${extra[@]}"
      echo "exit $?"
    done
  done
  rm -f "$out/cutout_$size.png"
done > "$out/timing.log" 2>&1

# per pass kind: the sum over levels of each dispatch's median, base and new of each round
[[ $parts == *timing* ]] && "$py" - "$out" $sizes > "$out/timing_summary.txt" 2>&1 <<'EOF'
import json, re, sys
from collections import defaultdict
from pathlib import Path

out = Path(sys.argv[1])
kinds = ("level 0 coverage", "x", "y", "histogram", "scale", "store", "histogram+store")
for size in sys.argv[2:]:
    for rnd in (1, 2):
        runs = {}
        for side in ("base", "new"):
            path = out / f"{size}_{side}_{rnd}.json"
            if path.exists():
                runs[side] = {",".join(f"{k}={v}" for k, v in sorted(s["options"].items())): s
                              for s in json.loads(path.read_text())["strategies"]}
        if len(runs) < 2:
            print(f"== {size}^2 round {rnd}: a side is missing")
            continue
        print(f"== {size}^2 round {rnd}: median_us, base -> new")
        for name, new in runs["new"].items():
            old = runs["base"].get(name)
            if old is None or "alpha=coverage" not in name:
                continue
            print(f"{name}: total {old['timing']['median_us']:.1f} -> "
                  f"{new['timing']['median_us']:.1f}")
            sums = {}
            for side, s in (("base", old), ("new", new)):
                acc = defaultdict(float)
                for d in s["dispatches"]:
                    kind = d["label"] if d["label"] == kinds[0] else d["label"].split()[-1]
                    acc[kind] += d["median_us"]
                sums[side] = acc
            print("  " + "  ".join(f"{k} {sums['base'][k]:.1f} -> {sums['new'][k]:.1f}"
                                   for k in kinds))
            for side, s in (("base", old), ("new", new)):
                print(f"  {side}: " + "  ".join(f"{d['label']} {d['median_us']:.1f}"
                                               for d in s["dispatches"]
                                               if re.match(r"level [01] ", d["label"])))
EOF

source "$(dirname "${BASH_SOURCE[0]}")/same_bytes.sh"

[[ $parts == *verdicts* ]] && for sz in $check_sizes; do
  cutout "${sz%x*}" "${sz#*x}" "$out/cutout_$sz.png" || echo "no cutout at $sz"
  for fmt in $formats; do
    tag=${sz}_$fmt
    side base run "$out/cutout_$sz.png" --format "$fmt" \
      --strategies "per-level:filter=all,alpha=coverage" --no-check \
      --out "$out/levels_base_$tag" > /dev/null 2>&1
    echo "== base $tag exit $?"
    check=(--no-check); [[ $verdict_sizes == *" $sz "* ]] && check=()
    echo "== new $tag${check[*]:+ (not checked)}:"
    side new run "$out/cutout_$sz.png" --format "$fmt" \
      --strategies "per-level:filter=all,alpha=coverage" "${check[@]}" \
      --out "$out/levels_new_$tag" 2>&1 | grep -E "per-level|error|Error"
    echo "== new $tag exit ${PIPESTATUS[0]}"
    same_bytes "$tag"
    cp "$out/levels_new_$tag/report.json" "$out/report_new_$tag.json" 2>/dev/null
    rm -rf "$out/levels_base_$tag" "$out/levels_new_$tag"
  done
  rm -f "$out/cutout_$sz.png"
done > "$out/verdicts.log" 2>&1

if [[ $parts == *timing* ]]; then
  grep -h -E "^(== timing|per-level|exit)" "$out/timing.log"
  cat "$out/timing_summary.txt"
fi
if [[ $parts == *verdicts* ]]; then
  grep -h -E "^== same|DIFFERS|OUT OF TOLERANCE|exit [^0]" "$out/verdicts.log"
  echo "verdicts: $(grep -c ' ok$' "$out/verdicts.log") ok," \
    "$(grep -c 'OUT OF TOLERANCE' "$out/verdicts.log") out of tolerance"
fi
