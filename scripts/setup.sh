#!/usr/bin/env bash
# Installs what mipview needs on a Debian machine, then the Python environment. Sourced by
# run.sh and test.sh, so each of them works on a fresh machine by itself.
#   - Debian packages (Vulkan loader, lavapipe, validation layer, glslc and spirv-cross for
#     custom strategies, what Qt needs offscreen and on X11): installed when root, otherwise the exact apt command is printed and we stop.
#   - .venv with `pip install -e .[test]`, redone only when pyproject.toml changes.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

DEB_PACKAGES=(
  libvulkan1 mesa-vulkan-drivers vulkan-validationlayers glslc spirv-cross
  python3 python3-venv python3-pip
  libegl1 libgl1 libglib2.0-0 libfontconfig1 libfreetype6 libdbus-1-3
  libxkbcommon0 libxkbcommon-x11-0 libx11-xcb1 libxcb-cursor0 libxcb-icccm4 libxcb-image0
  libxcb-keysyms1 libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-xinerama0
  libxcb-xkb1 libxcb-xfixes0
)

missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for pkg in "${DEB_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
fi
if ((${#missing[@]})); then
  if [ "$(id -u)" -eq 0 ]; then
    echo "setup: installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "setup: missing Debian packages. Run this, then try again:"
    echo "  sudo apt-get install -y ${missing[*]}"
    exit 1
  fi
fi

PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "setup: mipview needs Python 3.11 or newer ($PYTHON is $("$PYTHON" --version 2>&1))"
  exit 1
fi
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.mipview-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "setup: pip install -e .[test]"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e '.[test]'
  touch "$stamp"
fi
