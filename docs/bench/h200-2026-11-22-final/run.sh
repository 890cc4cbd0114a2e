#!/usr/bin/env bash
# The final H200 call of 2026-11-22 (one device call, so drift hits every comparison alike):
#   source .gl/env.sh && bash docs/bench/h200-2026-11-22-final/run.sh _ab_base $OUT
# _ab_base holds `git archive 16d447b mipview` (the tree before this day's work).
set -uo pipefail
base=$1; out=$2; j=/tmp/final-json; mkdir -p "$out" "$j"   # JSON packed at the end: 8 files come back
site=${PYTHONPATH%%:*}
m() { python3 -m mipview "$@"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$out/gpu.txt"

# 1. issue 20: the window's run path (mipview/run/staged.py, the code the GUI worker calls;
#    PySide6 cannot be carried to this machine) beside `mipview bench`, same 4096^2 photo
#    (the bundled photo resized with Lanczos), same options (all strategies, 20 runs, warm)
python3 -c "from PIL import Image; Image.open('resources/photo_npot_1000x750.png').convert('RGBA').resize((4096, 4096), Image.LANCZOS).save('/tmp/photo4096.png')"
for round in 1 2 3; do
  echo "== window path round $round"
  python3 -m mipview.run.staged --image /tmp/photo4096.png --strategies all --repeat 20
  echo "== bench round $round"
  m bench /tmp/photo4096.png --strategies all --repeat 20 --no-check --json "$j/bench_photo4096_$round.json" | sed -n '1,12p'
done > "$out/window_vs_bench.log" 2>&1

# 2. everything of the day against the tree before it: bench --strategies all, unorm and srgb
scripts/ab_bench.sh "$base" "$j/ab" 1920x1080 4096 8192 > "$out/ab.log" 2>&1
for side in base after; do
  tree=$PWD; [[ $side == base ]] && tree=$base
  PYTHONPATH=$site:$tree python3 -m mipview bench --size 4096 --format srgb --strategies all \
    --cold --warmup-ms 1500 --repeat 50 --no-check | sed -n '1,12p'
done > "$out/ab_srgb.log" 2>&1

# 3. issue 16: the custom-strategy examples beside the built-ins, validated and timed
scripts/gpu_bench.sh custom "$j/custom" > "$out/custom.log" 2>&1

# 4. validation of the new paths on the GPU (sRGB decode in the shaders, promises)
m run resources/photo_npot_1000x750.png --format srgb --validate --out /tmp/v_srgb \
  --strategies all,single-pass:load=bilinear,subgroup:load=bilinear > "$out/validate.log" 2>&1
echo "exit $?" >> "$out/validate.log"
m run --size 1921x1079 --format f16 --validate --out /tmp/v_f16 \
  --strategies all,single-pass:fp16=on >> "$out/validate.log" 2>&1
echo "exit $?" >> "$out/validate.log"
rm -f "$j/ab.tar.gz"; tar -czf "$out/json.tar.gz" --exclude="*.png" --exclude="*.npy" -C "$j" .
