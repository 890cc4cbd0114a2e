#!/usr/bin/env bash
# The conformance table: every built-in strategy in four formats, on the GPU machine's
# NVIDIA device and on Mesa's lavapipe there (`mipview run --devices`), level by level:
#   source .gl/env.sh && source .lvp/env.sh && bash docs/bench/conformance/run.sh $OUT
# needs [".gl", ".whl", ".lvp"] in the tree; .lvp/ holds lavapipe (mesa-vulkan-drivers 22.3.6) and the libraries
# it needs that Ubuntu 24.04 lacks (libllvm15, libz3-4, the xcb and wayland client libraries)
# (Debian bookworm, as the loader in .gl/), unpacked under /tmp so nothing of the machine's is
# replaced. The image is the bundled photo (1000x750, odd and NPOT below level 0).
# Writes: devices.log, one log per format, reports.tar.gz (each format's comparison report.json
# and both sides' report.json; the levels stay on the machine), status.txt.
set -uo pipefail
out=$1; mkdir -p "$out"; out=$(cd "$out" && pwd)
py=${PYTHON:-python3}
work=$(mktemp -d)
: > "$out/status.txt"
"$py" -m mipview devices > "$out/devices.log" 2>&1
for fmt in ${CONF_FORMATS:-unorm srgb f16 f32}; do
  t0=$SECONDS
  timeout "${CONF_LIMIT:-200}" "$py" -m mipview run resources/photo_npot_1000x750.png \
    --format "$fmt" --strategies "${CONF_STRATEGIES:-all}" --devices "${CONF_DEVICES:-NVIDIA,llvmpipe}" \
    --out "$work/$fmt" > "$out/$fmt.log" 2>&1
  echo "$fmt exit $? in $((SECONDS - t0)) s" >> "$out/status.txt"
done
(cd "$work" && find . -name report.json | tar -czf "$out/reports.tar.gz" -T -)
rm -rf "$work"
cat "$out/status.txt"
