#!/usr/bin/env bash
# What keeps npot-exact (the fastest exact strategy at 4096² RGBA8, `auto`: one bilinear sample
# per 2x2 of level 0, 8 tiles per workgroup, one dispatch) at about 60% of the copy floor: each
# factor alone, one device call. Needs probe.patch's temporary `probe` option (what each value
# leaves out: README.md) and its SPIR-V first:
#   source .gl/env.sh && git apply docs/bench/copy-floor/probe.patch \
#     && python3 -m tools.build_shaders && bash docs/bench/copy-floor/run.sh $OUT
# Every variant in one timing loop per step (`bench` interleaves them), cold caches (clean
# eviction), median of 50 after 1.5 s of warm-up: cold, then warm caches and dirty eviction (a
# few variants), cold again, and the driver's statistics of each pipeline (registers, shared
# memory).
# Writes into $OUT: gpu.txt, times.log (the statistics last), status.txt, *.json.
set -uo pipefail
out=${1:?usage: run.sh OUT}; mkdir -p "$out"; out=$(cd "$out" && pwd)
py=${PYTHON:-python3}
size=${COPY_FLOOR_SIZE:-4096}
"$py" -c "import mipview.gpu.strategies.single_pass as s; s.PROBES" 2>/dev/null \
  || { echo "run.sh: apply docs/bench/copy-floor/probe.patch first" >&2; exit 2; }
source "$(dirname "$0")/../step.sh"
n=npot-exact
# occupancy (tiles per workgroup: 8 is auto's, 512 workgroups), load width, what is written
V="$n,$n:tiles=1,$n:tiles=2,$n:tiles=4,$n:load=texel,$n:probe=buf64,$n:probe=buf128"
V+=",$n:probe=level1,$n:probe=upto2,$n:probe=upto4,$n:probe=tiles,$n:probe=arrive"
V+=",$n:probe=nolevel1,$n:probe=nostore"
V+=",$n:probe=tiles,tiles=1,$n:probe=tiles,tiles=2,$n:probe=tiles,tiles=4"
V+=",$n:probe=level1,tiles=1,$n:probe=nostore,tiles=1,$n:probe=buf128,tiles=1"
V+=",$n:load=texel,probe=level1"
W="$n,$n:tiles=1,$n:probe=level1,$n:probe=tiles,$n:probe=nostore,$n:probe=buf128"
common=(--size "$size" --repeat "${COPY_FLOOR_REPEAT:-50}" --warmup-ms "${COPY_FLOOR_WARMUP_MS:-1500}"
        --no-check)
step cold_1 200 bench --strategies "$V" --cold "${common[@]}" --json "$out/cold_1.json"
step warm 150 bench --strategies "$W" "${common[@]}" --json "$out/warm.json"
step dirty 150 bench --strategies "$W" --cold --evict dirty "${common[@]}" --json "$out/dirty.json"
step cold_2 200 bench --strategies "$V" --cold "${common[@]}" --json "$out/cold_2.json"
MIPVIEW_PIPELINE_STATS=1 step stats 120 bench --size "$size" --strategies "$W,$n:probe=buf64" \
  --repeat 1 --warmup-ms 0 --no-check
cat "$out/status.txt"
