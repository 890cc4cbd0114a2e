#!/usr/bin/env bash
# Each filter at 4096^2 against the box on the H200: per-level compute (every
# filter), filter-pairs (the short ones, two levels per dispatch), RGBA8 unorm and sRGB, warm and
# cold; alpha=coverage beside straight alpha on a 4096^2 cutout; JSON per run.
#   bash docs/bench/filters/run.sh $OUT
# One call: every filter is timed interleaved with the box in the same bench run, so
# clock drift hits both alike. The timing runs skip the check (the float64 references and the
# stored-chain bounds of ten filters at 4096^2 take numpy minutes each, time a GPU machine
# cannot spare); the last part checks every filter and edge with the verdict at 1021x579.
# FILTERS_VALIDATE= (empty) leaves out --validate where the device has no validation layer (H200)
set -uo pipefail
# FILTERS_PARTS: which parts run (default all: filters pairs modes validate coverage)
parts=" ${FILTERS_PARTS:-filters pairs modes validate coverage} "
want() { [[ $parts == *" $1 "* ]]; }
out=${1:?usage: run.sh OUT}; mkdir -p "$out"
m() { python3 -m mipview "$@"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$out/gpu.txt"

box="per-level"
filters="per-level:filter=tent,per-level:filter=kaiser,per-level:filter=kaiser,kaiser-width=2"
filters="$filters,per-level:filter=lanczos2,per-level:filter=lanczos3,per-level:filter=lanczos4"
filters="$filters,per-level:filter=mitchell,per-level:filter=catmull-rom"
# the box through the generic tap shader too: what the two-pass tap path costs by itself
filters="$filters,per-level:filter=box,source=level0"

if want filters; then
for fmt in unorm srgb; do
  for cache in warm cold; do
    flag=(); [[ $cache == cold ]] && flag=(--cold)
    echo "== $fmt $cache"
    m bench --size 4096 --format "$fmt" --strategies "$box,$filters" "${flag[@]}" \
      --warmup-ms 1500 --repeat 50 --no-check --json "$out/filters_4096_${fmt}_${cache}.json"
    echo "exit $?"
  done
done > "$out/filters.log" 2>&1
fi

# the short filters two levels per dispatch (filter-pairs) beside per-level's two dispatches
# per level and the box, unorm and sRGB, warm
if want pairs; then
for fmt in unorm srgb; do
  m bench --size 4096 --format "$fmt" --strategies "$box,per-level:filter=tent,filter-pairs,\
per-level:filter=kaiser,kaiser-width=2,filter-pairs:filter=kaiser,kaiser-width=2,\
per-level:filter=lanczos2,filter-pairs:filter=lanczos2,\
per-level:filter=catmull-rom,filter-pairs:filter=catmull-rom,filter-pairs:filter=box" \
    --warmup-ms 1500 --repeat 50 --no-check --json "$out/pairs_4096_${fmt}.json"
  echo "exit $?"
done > "$out/pairs.log" 2>&1
fi

# edge modes, source level 0 and the kinds, Lanczos-3 (the widest common choice), unorm warm
if want modes; then
m bench --size 4096 --strategies "$box,per-level:filter=lanczos3,per-level:filter=lanczos3,edge=wrap,\
per-level:filter=lanczos3,edge=mirror,per-level:filter=lanczos3,source=level0,\
per-level:filter=lanczos3,alpha=premultiplied,per-level:filter=lanczos3,kind=normal" \
  --warmup-ms 1500 --repeat 50 --no-check --json "$out/lanczos3_modes_4096.json" \
  > "$out/modes.log" 2>&1
echo "exit $?" >> "$out/modes.log"
fi

# validation of the filter shader on the GPU (every filter and edge, 8-bit, sRGB and f16, NPOT)
if want validate; then
for fmt in unorm srgb f16; do
  m run --size 1021x579 --format "$fmt" ${FILTERS_VALIDATE---validate} --out "/tmp/v_filters_$fmt" \
    --strategies "per-level:filter=all,edge=all,filter-pairs:filter=all,edge=all"
  echo "exit $?"
done > "$out/validate.log" 2>&1
fi

# alpha=coverage (level 0's count, then per level a histogram, a one-workgroup scale pass and a
# store after the filter's x and y) beside straight alpha, on the bundled foliage cutout resized
# to 4096^2 (big leaves, mostly transparent: the histogram's common case), unorm and sRGB, warm;
# then the verdict on the device's results at 1021^2 (NPOT), every filter, unorm, sRGB and f16
if want coverage; then
cut() { python3 -c "import sys; from PIL import Image; from mipview.io.samples import sample_path
Image.open(sample_path('foliage_256.png')).convert('RGBA').resize((int(sys.argv[1]),) * 2,
    Image.LANCZOS).save(sys.argv[2])" "$@"; }
cut 4096 /tmp/foliage_4096.png && cut 1021 /tmp/foliage_1021.png
for fmt in unorm srgb; do
  m bench /tmp/foliage_4096.png --format "$fmt" --strategies "$box,per-level:filter=tent,\
per-level:filter=tent,alpha=coverage,per-level:filter=kaiser,per-level:filter=kaiser,alpha=coverage,\
per-level:filter=lanczos3,per-level:filter=lanczos3,alpha=coverage,\
per-level:filter=box,source=level0,per-level:filter=box,source=level0,alpha=coverage" \
    --warmup-ms 1500 --repeat 50 --no-check --json "$out/coverage_4096_${fmt}.json"
  echo "exit $?"
done > "$out/coverage.log" 2>&1
for fmt in unorm srgb f16; do
  m run /tmp/foliage_1021.png --format "$fmt" ${FILTERS_VALIDATE---validate} \
    --out "/tmp/v_coverage_$fmt" --strategies "per-level:filter=all,alpha=coverage"
  echo "exit $?"
  cp "/tmp/v_coverage_$fmt/report.json" "$out/coverage_check_1021_$fmt.json"
done > "$out/coverage_validate.log" 2>&1
fi
