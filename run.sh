#!/usr/bin/env bash
# Start mipview (GUI on the bundled sample image unless arguments say otherwise), installing
# whatever is missing first. Extra arguments go to `mipview`, e.g. ./run.sh photo.png
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/setup.sh
exec .venv/bin/python -m mipview "$@"
