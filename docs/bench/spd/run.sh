#!/usr/bin/env bash
# A user's SPD port against an independent harness on the GPU machine, in one call (the clock drifts between calls):
#   source .gl/env.sh && bash docs/bench/spd/run.sh $OUT
# FidelityFX SPD (RGBA8 mean) timed three ways, alternating so drift hits all alike:
#   - the independent harness (tools/spd_harness.py: SPD as AMD's sample integrates it, its own
#     Vulkan set-up and timestamps, nothing of mipview's);
#   - the same harness timing mipview's port, the very SPIR-V mipview runs, through mipview's
#     interface (tools/spd_harness_chain.py): mipview's timing path against an independent one;
#   - mipview's SPD port through the custom-shader path (`mipview bench ... --strategies
#     shader:resources/shaders/spd_mean.comp`), with the candidates for the gap
#     as variants of the port made here by text replacement (timing only: their levels are not
#     checked, some are wrong on purpose):
#       robust    - robust buffer and image access on (the port says `robust off`, as AMD's
#                   sample has none);
#       noround   - levels stored without mipEncode's correct rounding (the device converts);
#       noclamp   - level 0 read with texelFetch unclamped (SPD's own reads are unclamped);
#       noscratch - level 6 not copied to the scratch buffer (the last group reads stale data);
#       HANDOFF=1 - the port's option: a relaxed atomicAdd and no acquire, as AMD's sample has
#                   them (measured 2026-11-26 as a text variant "relaxed", the same code);
#       ldssplit  - the intermediates in four float arrays, as AMD's sample has them;
#     and the combinations noround+noclamp and noround+noclamp with HANDOFF=1.
#     (noscratch and ldssplit were measured once, 2026-11-26: within noise or slower.)
# Both warm (no eviction) and cold with a fill (harness: vkCmdFillBuffer of 256 MiB before each
# run; mipview: --cold --evict dirty, the same fill), median of 50 after a warm-up by time, at
# 4096x4096 and 1920x1080.
# Writes into $OUT: gpu.txt, spd.log, json.tar.gz
set -uo pipefail
out=${1:?usage: run.sh OUT}; mkdir -p "$out"; out=$(cd "$out" && pwd)
py=${PYTHON:-python3}
sizes=${SPD_SIZES:-4096,1920x1080}
repeat=${SPD_REPEAT:-50}
warm=${SPD_WARMUP_MS:-1500}
j=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$out/gpu.txt" 2>&1
src=resources/shaders/spd_mean.comp
v=resources/shaders
"$py" - "$src" "$v" <<'PY'
import sys
from pathlib import Path
src, folder = Path(sys.argv[1]).read_text(), Path(sys.argv[2])
HEAD = '#include "../../third_party/ffx_spd/ffx_a.h"'
EDITS = {  # name -> (old, new) replacements
    # the port says `robust off`: this variant times it with the safety net on
    "robust": [("#pragma mipview robust off", "#pragma mipview robust on")],
    "noround": [("mipChainStore(level, ivec3(p, slice), value);",
                 "rawStore(level, ivec3(p, slice), value);"),
                (HEAD, HEAD + "\n#define RAW_(k) case k: imageStore(mipLevels[min(k, "
                 "MIP_CHAIN_LEVELS - 1)], p, v); break;\nvoid rawStore(int level, ivec3 p, vec4 v)"
                 " { switch (level) { RAW_(1) RAW_(2) RAW_(3) RAW_(4) RAW_(5) RAW_(6) RAW_(7) "
                 "RAW_(8) RAW_(9) RAW_(10) RAW_(11) RAW_(12) } }")],
    "noclamp": [("ivec3(min(p, pc.srcSize - 1), slice)", "ivec3(p, slice)")],
    "noscratch": [("    if (level == 6) {\n        mipScratch", "    if (level == -1) {\n        mipScratch")],
    # AMD's sample keeps the intermediates as four float arrays, not one of vec4
    "ldssplit": [("shared AF4 spdIntermediate[16][16];",
                  "shared AF1 spdR[16][16]; shared AF1 spdG[16][16]; shared AF1 spdB[16][16]; "
                  "shared AF1 spdA[16][16];"),
                 ("return spdIntermediate[x][y];",
                  "return AF4(spdR[x][y], spdG[x][y], spdB[x][y], spdA[x][y]);"),
                 ("spdIntermediate[x][y] = value;",
                  "spdR[x][y] = value.x; spdG[x][y] = value.y; spdB[x][y] = value.z; "
                  "spdA[x][y] = value.w;")],
}
for name in sys.argv[3:] if len(sys.argv) > 3 else ["robust", "noround", "noclamp",
                                                     "noround+noclamp"]:
    text = src
    for part in name.split("+"):
        for old, new in EDITS[part]:
            assert old in text, (name, old)
            text = text.replace(old, new)
    (folder / f"_spd_{name.replace('+', '_')}.comp").write_text(text)
PY
ports="shader:$v/spd_mean.comp"
for f in "$v"/_spd_*.comp; do ports="$ports,shader:$f"; done
# AMD's hand-off: the port's own option (a relaxed atomicAdd, no acquire)
ports="$ports,shader:$v/spd_mean.comp:HANDOFF=1,shader:$v/_spd_noround_noclamp.comp:HANDOFF=1"
for round in 1 2; do
  for cache in warm cold; do
    if [[ $cache == warm ]]; then hflag=--warm; mflag=(); else hflag=; mflag=(--cold --evict dirty); fi
    echo "== round $round, $cache: harness"
    timeout 120 "$py" -m tools.spd_harness --sizes "$sizes" --repeat "$repeat" \
      --warmup-ms "$warm" $hflag --json "$j/harness_${cache}_$round.json"
    echo "== round $round, $cache: harness, chain mode: mipview's port, the same SPIR-V"
    timeout 120 "$py" -m tools.spd_harness --chain-shader "$src" --sizes "$sizes" \
      --repeat "$repeat" --warmup-ms "$warm" $hflag --json "$j/chain_${cache}_$round.json"
    echo "== round $round, $cache: mipview's port and its variants"
    timeout 240 "$py" -m mipview bench --sizes "$sizes" --strategies "$ports" --repeat "$repeat" \
      --warmup-ms "$warm" --no-check "${mflag[@]}" --json "$j/port_${cache}_$round.json"
  done
done > "$out/spd.log" 2>&1
# the port's levels checked once (the harness checks its own in every run above)
timeout 120 "$py" -m mipview bench --sizes 4096 --strategies "shader:$v/spd_mean.comp" --repeat 3 \
  --warmup-ms 0 >> "$out/spd.log" 2>&1
tar -C "$j" -czf "$out/json.tar.gz" .
