#!/usr/bin/env bash
# Run the test suite (pytest) on lavapipe with the Khronos validation layer and synchronization
# validation on, Qt offscreen; installs whatever is missing first. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/setup.sh
export QT_QPA_PLATFORM=offscreen
export MIPVIEW_VALIDATE=1
export MIPVIEW_DEVICE=${MIPVIEW_TEST_DEVICE:-llvmpipe}
exec .venv/bin/python -m pytest "$@"
