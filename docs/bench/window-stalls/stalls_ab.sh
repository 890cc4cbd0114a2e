#!/usr/bin/env bash
# The stall benchmark, a tree before against the working tree, alternating in one
# call (the size limit of what travels to the GPU machine leaves no room for a second whole tree beside Qt):
#   source .gl/env.sh && source .gpuqt/env.sh && bash docs/bench/window-stalls/stalls_ab.sh $OUT
# needs [".gl", ".whl", ".gpuqt", "_ab_old"] in the tree. _ab_old/ holds the files the tree before had
# otherwise, and _ab_old/NEW lists the files it lacked:
#   rev=39b3df5; mkdir _ab_old; git diff --name-only --diff-filter=M $rev | xargs git archive $rev | tar -x -C _ab_old
#   git diff --name-only --diff-filter=A $rev > _ab_old/NEW   (untracked new files too)
# The before tree is mipview/, tools/ and resources/ of the working tree with _ab_old/ over
# them. Writes gpu.txt and stalls.log: `python -m tools.measure --size 4096 --live-s 10`, or
# MEASURE_ARGS (PHOTO=1 first writes /tmp/photo4096.png, the bundled photo resized, for
# `--five-image`), ROUNDS (3) rounds of before then after.
set -uo pipefail
out=${1:?usage: stalls_ab.sh OUT}; mkdir -p "$out"
export QT_QPA_PLATFORM=offscreen
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$out/gpu.txt" 2>&1
nproc >> "$out/gpu.txt"
if [[ -n ${PHOTO:-} ]]; then
  python3 -c "from PIL import Image; Image.open('resources/photo_npot_1000x750.png').convert('RGBA').resize((4096, 4096), Image.LANCZOS).save('/tmp/photo4096.png')"
fi
root=$PWD base=/tmp/ab_before
rm -rf "$base"; mkdir -p "$base"; cp -r mipview tools resources "$base"
cp -r _ab_old/. "$base"; rm -f "$base/NEW"
while read -r f; do rm -f "$base/$f"; done < _ab_old/NEW
for round in $(seq "${ROUNDS:-3}"); do
  for side in before after; do
    tree=$root; [[ $side == before ]] && tree=$base
    echo "== $side round $round"
    (cd "$tree" && PYTHONPATH=$tree${PYTHONPATH:+:${PYTHONPATH//$root:/}} timeout 150 \
      python3 -m tools.measure ${MEASURE_ARGS:---size 4096 --live-s 10} --shots /tmp/shots_$side \
      2>&1 | grep -v propagateSizeHints)
  done
done > "$out/stalls.log" 2>&1
echo done >> "$out/gpu.txt"
