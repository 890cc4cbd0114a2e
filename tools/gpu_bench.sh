#!/usr/bin/env bash
# The standard benchmark sets, for a machine with a real GPU.
#   tools/gpu_bench.sh PART OUTDIR     PART: strategies (= subgroup, sp, npot) | extras | custom
#                                        | all
# `custom` (the examples of docs/custom-strategies.md beside the built-ins) needs glslc and
# spirv-cross on PATH.
# Each bench writes JSON into OUTDIR; the log goes to stdout. Run from the repo root with
# `mipview` importable (python3 -m mipview). Uses cold caches (L2 evicted before every timed
# run by reading a 256 MiB buffer: clean lines, mipview/gpu/measure/evict.py) and a 1.5 s warm-up,
# strategies interleaved: an idle GPU's clock drops (345 MHz against 1980 under load on an H200).
set -uo pipefail
part=${1:-all}
out=${2:-bench-out}
mkdir -p "$out"
mv() { python3 -m mipview "$@"; }
B=(--cold --warmup-ms 1500)

if [[ $part == strategies || $part == subgroup || $part == all ]]; then
  for s in 1920x1080 4096 8192; do
    chk=(); [[ $s == 8192 ]] && chk=(--no-check)  # the float64 reference of 8192^2 takes minutes
    mv bench --size "$s" "${B[@]}" "${chk[@]}" --repeat 50 --json "$out/subgroup_$s.json" \
      --strategies per-level,per-level:load=bilinear,subgroup:layout=all,tile=all,subgroup:layout=all,load=bilinear
  done
fi

if [[ $part == strategies || $part == sp || $part == all ]]; then
  for s in 1920x1080 3840x2160 4096 8192; do
    for f in unorm f16; do
      chk=(); [[ $s == 8192 ]] && chk=(--no-check)
      mv bench --size "$s" --format "$f" "${B[@]}" "${chk[@]}" --repeat 100 --json "$out/sp_${s}_$f.json" \
        --strategies blit,per-level,single-pass,single-pass:fp16=on,single-pass:load=bilinear,single-pass:load=bilinear,tiles=1
    done
  done
fi

if [[ $part == strategies || $part == npot || $part == all ]]; then
  for s in 1920x1080 3840x2160 4095 4096; do
    mv bench --size "$s" "${B[@]}" --repeat 100 --json "$out/npot_$s.json" \
      --strategies per-level,npot-exact,npot-exact:path=general
  done
fi

if [[ $part == extras || $part == sp-extras || $part == all ]]; then
  mv bench --size 4096 "${B[@]}" --repeat 50 --strategies single-pass:reduction=all --json "$out/sp_minmax.json"
  mv bench --size 4096 --layers 6 "${B[@]}" --repeat 50 --strategies per-level,single-pass --json "$out/sp_layers.json"
  mv bench --size 8192 "${B[@]}" --no-check --repeat 100 --strategies single-pass --dirty 4000,4000,256,256 --json "$out/sp_dirty.json"
fi

if [[ $part == extras || $part == all ]]; then
  for b in 8 16; do
    mv mean --size 3840x2160 --format unorm --bench --block "$b" --repeat 100 --warmup-ms 1500 \
      --strategies blit,per-level,npot-exact,single-pass --json "$out/mean_s$b.json"
  done
  mv sweep --width-range 1900:1940 --height 1080 --format srgb --strategies blit,per-level,npot-exact --json "$out/sweep.json"
  mv bench --batch-synthetic 1000 --json "$out/batch_1000.json"
  mv bench --batch-synthetic 1000 --batch-sweep 1,3,10,30,100,300,1000 --repeat 30 --json "$out/batch_sweep.json"
fi

if [[ $part == custom || $part == all ]]; then
  R=resources/shaders
  C="shader:$R/box_per_level.comp:GROUP=all,shader:$R/chain_last_group.comp:GROUP=all"
  mv run --size 1920x1080 --validate --out "$out/custom_run" \
    --strategies "$C,shader:$R/odd_edge_bug.comp,per-level,single-pass"
  for s in 1920x1080 4096 8192; do
    chk=(); [[ $s == 8192 ]] && chk=(--no-check)
    mv bench --size "$s" "${B[@]}" "${chk[@]}" --repeat 50 --json "$out/custom_$s.json" \
      --strategies "per-level,single-pass,$C"
  done
fi
