#!/usr/bin/env bash
# npot-exact's 2-level general dispatch: its tile at the second level (16 today), swept
set -uo pipefail
out=$1; mkdir -p "$out"
sizes=1920x1080,2560x1440,3840x2160
common=(--synthetic depth --cold --evict clean --warmup-ms 1500 --repeat 50 --no-check)
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/gpu.txt" 2>&1
for round in 1 2; do
  for t in 16 8 4 2; do
    echo "== round $round, tile $t: r32f min"
    NPOT_TILE=$t timeout 120 python3 -m mipview bench --sizes "$sizes" --format r32f \
      --strategies "npot-exact:reduction=min" "${common[@]}" --json "$out/r32f_t${t}_$round.json"
    echo "== round $round, tile $t: unorm mean"
    NPOT_TILE=$t timeout 120 python3 -m mipview bench --sizes "$sizes" --format unorm \
      --strategies npot-exact "${common[@]}" --json "$out/unorm_t${t}_$round.json"
  done
done > "$out/sweep.log" 2>&1
for t in 4 2; do
  echo "== verdicts, tile $t"
  NPOT_TILE=$t timeout 120 python3 -m mipview bench --sizes 1920x1080,3840x2160,1921x1079,2560x1440 \
    --synthetic depth --format r32f --strategies "npot-exact:reduction=min,npot-exact:reduction=max" --repeat 3 --warmup-ms 0
  echo "exit $?"
  NPOT_TILE=$t timeout 120 python3 -m mipview bench --sizes 1920x1080,3840x2160,1921x1079 \
    --format unorm --strategies npot-exact --repeat 3 --warmup-ms 0
  echo "exit $?"
done > "$out/verdicts.log" 2>&1
(cd "$out" && tar -czf json.tar.gz *.json && rm *.json)
