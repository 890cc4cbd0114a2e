#!/usr/bin/env bash
# The suite as a newcomer meets it: a fresh clone of HEAD with empty Mesa, pip and mipview
# caches, `./test.sh` timed whole, and where its time went (tests/compile_tally.py).
#   bash docs/bench/test-suite/run.sh OUT [pytest arguments...]
# OUT gets time.txt (wall, user, sys), pytest.log, tally/ (one JSON per pytest process) and
# summary.txt (files and pipelines by cost). Run it on an otherwise idle machine.
set -euo pipefail
out=$(realpath -m "$1"); shift
repo=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$repo" "$work/clone"
cd "$work/clone"
export MESA_SHADER_CACHE_DIR="$work/mesa" XDG_CACHE_HOME="$work/xdg" MIPVIEW_COMPILE_TALLY="$out/tally"
rm -rf "$out/tally"
SECONDS=0
/usr/bin/time -f "%e s wall, %U s user, %S s sys (pytest and set-up)" -o "$out/time.txt" \
  ./test.sh -q -p no:cacheprovider "$@" > "$out/pytest.log" 2>&1 || status=$?
echo "whole ./test.sh: ${SECONDS} s" >> "$out/time.txt"
.venv/bin/python tests/compile_tally.py "$out/tally" > "$out/summary.txt"
tail -1 "$out/pytest.log"; cat "$out/time.txt"
exit "${status:-0}"
