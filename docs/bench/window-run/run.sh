#!/usr/bin/env bash
# The window's Run at 4096^2: time to the timings and to everything, before and after
# the analysis work (bands of rows, figures once per image), in ONE call (the GPU's clock drifts between
# calls). From the repository root on the H200:
#   source .gl/env.sh && bash docs/bench/window-run/run.sh $OUT
# The tree before is `git archive a547134 mipview` in _ab_base/ (made here when git can, else
# copied in beforehand); each side runs from inside its own tree (`python -m` puts the working folder first
# on sys.path). Well under 5 minutes: 2 x phases (~20 s each), 4 x run_pipeline (~10 s each).
set -uo pipefail
out=$1; mkdir -p "$out"
root=$PWD
# the five strategies by name: `all` grew (filter-pairs) after the base tree
five=blit,per-level,npot-exact,subgroup,single-pass
site=${PYTHONPATH%%:*}  # env.sh puts the wheels first
if [[ ! -d _ab_base/mipview ]]; then
  mkdir -p _ab_base && git archive a547134 mipview | tar -x -C _ab_base || exit 2
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$out/gpu.txt" 2>&1
nproc >> "$out/gpu.txt"
# the photo: the bundled one resized to 4096^2 with Lanczos
python3 -c "from PIL import Image; Image.open('resources/photo_npot_1000x750.png').convert('RGBA').resize((4096, 4096), Image.LANCZOS).save('/tmp/photo4096.png')"

side() {  # side NAME CMD...: run CMD from inside the tree of side NAME (base | after)
  local tree=$root; [[ $1 == base ]] && tree=$root/_ab_base
  shift
  (cd "$tree" && PYTHONPATH=$site timeout 120 "$@")
}

# 1. the window path (cli/window_run.py; runs/staged.py in the base tree): two Runs per process
#    (the second as pressing Run again: pipelines and the reference cached), base and after
#    alternating so drift hits both alike; -v prints when each step began
for round in 1 2; do
  for s in base after; do
    echo "== $s round $round"
    mod=mipview.cli.window_run; [[ $s == base ]] && mod=mipview.runs.staged
    side $s python3 -m $mod --image /tmp/photo4096.png --strategies "$five" \
      --repeat 20 --runs 2 -v
  done
done > "$out/window_path.log" 2>&1

# 2. the CPU phases of one Run, one by one (session, generate, each reference, each strategy's
#    analysis on one thread, the whole analysis in the pool)
for s in base after; do
  echo "== $s"
  side $s python3 "$root/docs/bench/window-run/phases.py" --image /tmp/photo4096.png --strategies "$five"
done > "$out/phases.log" 2>&1

# 3. the real window offscreen, where PySide6 is there (it could not be carried before)
if python3 -c "import PySide6" 2>/dev/null; then
  for s in base after; do
    echo "== $s"
    QT_QPA_PLATFORM=offscreen side $s python3 -m tools.measure --five-only --five-size 4096
  done > "$out/window_offscreen.log" 2>&1
else
  echo "PySide6 not importable here: the window itself was not measured" > "$out/window_offscreen.log"
fi
grep -h "^== \|run [12]:\|first timings" "$out/window_path.log" > "$out/summary.txt"
# 4. bench on the same photo, the same five, in the same call: the window's figures beside
#    bench's (the side-by-side table); warm caches, as the window runs by default
side after python3 -m mipview bench /tmp/photo4096.png --strategies "$five" --repeat 20 \
  --no-check --json "$out/bench_photo4096.json" > "$out/bench_photo4096.log" 2>&1
