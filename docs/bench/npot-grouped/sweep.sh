#!/usr/bin/env bash
# npot-exact's general dispatch after a fast step: levels every group makes (k) and their tile,
# swept in one call; the last group makes the rest (the tail). Ran with a temporary
# override in npot_exact.py (NPOT_GROUPED, NPOT_TILE; see README.md), which did not land.
set -uo pipefail
out=$1; mkdir -p "$out"
sizes=1920x1080,2560x1440,3840x2160
common=(--synthetic depth --cold --evict clean --warmup-ms 1500 --repeat 50 --no-check)
configs=${CONFIGS:-"2 4|3 2|3 1|4 1|4 2"}
IFS='|' read -r -a cs <<< "$configs"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/gpu.txt" 2>&1
for round in 1 2; do
  for c in "${cs[@]}"; do
    set -- $c
    echo "== round $round, k $1 tile $2: r32f min"
    NPOT_GROUPED=$1 NPOT_TILE=$2 timeout 120 python3 -m mipview bench --sizes "$sizes" \
      --format r32f --strategies "npot-exact:reduction=min" "${common[@]}" \
      --json "$out/r32f_k$1t$2_$round.json"
    echo "== round $round, k $1 tile $2: unorm mean"
    NPOT_GROUPED=$1 NPOT_TILE=$2 timeout 120 python3 -m mipview bench --sizes "$sizes" \
      --format unorm --strategies npot-exact "${common[@]}" --json "$out/unorm_k$1t$2_$round.json"
  done
done > "$out/sweep.log" 2>&1
for c in "${cs[@]}"; do
  set -- $c
  echo "== verdicts, k $1 tile $2"
  NPOT_GROUPED=$1 NPOT_TILE=$2 timeout 120 python3 -m mipview bench --sizes "$sizes,1921x1079" \
    --synthetic depth --format r32f --strategies "npot-exact:reduction=min,npot-exact" \
    --repeat 3 --warmup-ms 0
  echo "exit $?"
  NPOT_GROUPED=$1 NPOT_TILE=$2 timeout 120 python3 -m mipview bench --sizes "$sizes" \
    --format unorm --strategies npot-exact --repeat 3 --warmup-ms 0
  echo "exit $?"
done > "$out/verdicts.log" 2>&1
(cd "$out" && tar -czf json.tar.gz ./*.json && rm ./*.json)
