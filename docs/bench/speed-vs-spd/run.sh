#!/usr/bin/env bash
# mipview's fastest exact strategies beside FidelityFX SPD in one device
# call (the clock drifts between calls):
#   source .gl/env.sh && bash docs/bench/speed-vs-spd/run.sh $OUT
# SPD is the port in resources/shaders/spd_mean.comp (SPD's own headers, third_party/ffx_spd,
# MIT), run through mipview's custom-shader path, with its acquire/release hand-off and with
# AMD's sample's (HANDOFF=1). `bench --sizes`: every strategy of every size in one timing loop,
# interleaved after a warm-up by time, cold caches (clean eviction), median of 50; RGBA8 at the
# target sizes, then RGBA16F. The port makes at most 12 levels, so 8192^2 runs without it.
# Timings only (--no-check): SPD is not exact at odd sides, and the exact strategies' verdicts
# are the tests' and speed/'s.
# Writes into $OUT: gpu.txt, times.log (the size x strategy tables), status.txt, *.json.
# On lavapipe with tiny sizes:
#   SPEED30_SIZES=40x24,64 SPEED30_F16_SIZES=64 SPEED30_REPEAT=3 SPEED30_WARMUP_MS=0 \
#   PYTHON=.venv/bin/python bash docs/bench/speed-vs-spd/run.sh /tmp/out
set -uo pipefail
out=${1:?usage: run.sh OUT}; mkdir -p "$out"; out=$(cd "$out" && pwd)
py=${PYTHON:-python3}
sizes=${SPEED30_SIZES:-1920x1080,2560x1440,3840x2160,4096,8192}
f16_sizes=${SPEED30_F16_SIZES:-1920x1080,3840x2160,4096}
repeat=${SPEED30_REPEAT:-50}
warm=${SPEED30_WARMUP_MS:-1500}
spd=shader:resources/shaders/spd_mean.comp
S=${SPEED30_STRATEGIES:-npot-exact,single-pass,subgroup,$spd,$spd:HANDOFF=1}
source "$(dirname "$0")/../step.sh"
step rgba8 280 bench --sizes "$sizes" --strategies "$S" --cold --repeat "$repeat" \
  --warmup-ms "$warm" --no-check --json "$out/rgba8.json"
step rgba16f 200 bench --sizes "$f16_sizes" --format f16 --strategies "$S" --cold \
  --repeat "$repeat" --warmup-ms "$warm" --no-check --json "$out/rgba16f.json"
cat "$out/status.txt"
