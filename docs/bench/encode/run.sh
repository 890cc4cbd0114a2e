#!/usr/bin/env bash
# The encode benchmark (docs/bench/encode/README.md) into OUT: the encoder choice on the photo,
# then the 4096x4096 chain per codec and quality. Run from the repository root:
#   docs/bench/encode/run.sh OUT
set -euo pipefail
OUT=${1:?usage: run.sh OUT}
mkdir -p "$OUT"
PY=${PYTHON:-.venv/bin/python}
PYTHONPATH=. nice -n 10 "$PY" docs/bench/encode/choose.py "$OUT" | tee "$OUT/choose.log"
PYTHONPATH=. nice -n 10 "$PY" docs/bench/encode/bench.py "$OUT" 4096 | tee "$OUT/bench.log"
