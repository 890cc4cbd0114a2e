#!/usr/bin/env bash
# Two trees' timing paths side by side: before (the tree in _ab_base/, e.g. `git archive 2364fb4
# mipview tools resources third_party`) and after (the working tree), alternating in ONE device
# call. Used on 2026-11-26 for two changes that were then dropped because they changed nothing
# (async_paths.log: batches queued behind the running one; the first bind before the stamp):
#   source .gl/env.sh && bash docs/bench/spd/ab.sh $OUT        (needs .gl .whl _ab_base in the tree)
#  1. paths: the same SPD port SPIR-V (resources/shaders/spd_mean.comp) timed by the
#     independent harness (tools/spd_harness.py --chain-shader) and by `mipview bench`, before
#     and after, with AMD's SPD in the harness beside; warm and cold (a 256 MiB fill before each
#     run, mipview --cold --evict dirty), 4096^2 and 1920x1080, median of 50, two rounds;
#  2. builtins: every built-in strategy, `bench --sizes 1920x1080,4096 --cold`, before, after,
#     before, after: what the change does to the figures of each.
# Writes paths.log, builtins.log, json.tar.gz into $OUT. Small values run it anywhere:
#   AB_SIZES=64 AB_BUILTIN_SIZES=64 AB_REPEAT=2 AB_WARMUP_MS=0 bash docs/bench/spd/ab.sh /tmp/ab
set -uo pipefail
out=${1:?usage: ab.sh OUT}; mkdir -p "$out"; out=$(cd "$out" && pwd)
root=$PWD; base=$root/_ab_base; j=$(mktemp -d)
sizes=${AB_SIZES:-4096,1920x1080}; repeat=${AB_REPEAT:-50}; warm=${AB_WARMUP_MS:-1500}
spd=resources/shaders/spd_mean.comp
side() {  # side TREE SECONDS CMD...: CMD from inside TREE, its own mipview first on the path
  local tree=$1 limit=$2; shift 2
  (cd "$tree" && PYTHONPATH=${PYTHONPATH:+${PYTHONPATH//$root:/}} timeout "$limit" "$@")
}
for round in 1 2; do
  for cache in warm cold; do
    if [[ $cache == warm ]]; then hflag=--warm; mflag=(); else hflag=; mflag=(--cold --evict dirty); fi
    echo "== round $round, $cache: harness, AMD's SPD"
    side "$root" 120 python3 -m tools.spd_harness --sizes "$sizes" --repeat "$repeat" \
      --warmup-ms "$warm" $hflag
    echo "== round $round, $cache: harness, mipview's port (chain mode)"
    side "$root" 120 python3 -m tools.spd_harness --chain-shader "$spd" --sizes "$sizes" \
      --repeat "$repeat" --warmup-ms "$warm" $hflag
    for s in before after; do
      tree=$root; [[ $s == before ]] && tree=$base
      echo "== round $round, $cache: mipview bench, $s"
      side "$tree" 120 python3 -m mipview bench --sizes "$sizes" --strategies "shader:$spd" \
        --repeat "$repeat" --warmup-ms "$warm" --no-check "${mflag[@]}" \
        --json "$j/port_${cache}_${s}_$round.json"
    done
  done
done 2>&1 | grep -v "check:\|^spd-harness chain:\|^spd-harness:\|copy floor\|^---" > "$out/paths.log"
for round in 1 2; do
  for s in before after; do
    tree=$root; [[ $s == before ]] && tree=$base
    echo "== round $round: $s"
    side "$tree" 150 python3 -m mipview bench --sizes "${AB_BUILTIN_SIZES:-1920x1080,4096}" --strategies all --cold \
      --repeat "$repeat" --warmup-ms "$warm" --no-check --json "$j/builtins_${s}_$round.json"
  done
done > "$out/builtins.log" 2>&1
tar -C "$j" -czf "$out/json.tar.gz" .
