#!/usr/bin/env bash
# Run the test suite (pytest) on lavapipe with the Khronos validation layer and synchronization
# validation on, Qt offscreen; installs whatever is missing first. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/setup.sh
export QT_QPA_PLATFORM=offscreen
export MIPVIEW_VALIDATE=1
export MIPVIEW_DEVICE=${MIPVIEW_TEST_DEVICE:-llvmpipe}
# lavapipe compiles each pipeline with LLVM at its first dispatch, and with empty shader caches
# that is most of the suite's time: without LLVM's optimisation passes a fresh machine's suite
# takes a sixth less. Mesa keys its shader cache by this setting, so the app's entries stay.
export GALLIVM_PERF=${GALLIVM_PERF-nopt}
# One worker per core, at most 4 (each holds a lavapipe device and up to ~5 GB at its peak); a
# file stays on one worker, so what a file's tests share (one session per image) is made once.
# MIPVIEW_TEST_WORKERS=0 runs in one process; later -n/--dist arguments win.
workers=${MIPVIEW_TEST_WORKERS:-$(cores=$(nproc 2>/dev/null || echo 2); echo $((cores < 4 ? cores : 4)))}
exec .venv/bin/python -m pytest -n "$workers" --dist loadfile "$@"
