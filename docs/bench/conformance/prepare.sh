#!/usr/bin/env bash
# Fills the ignored folder .lvp/ that carries Mesa's lavapipe to the GPU machine (Ubuntu 24.04;
# checked with `ldconfig -p` there): lavapipe alone out of mesa-vulkan-drivers (the size limit of what travels to the GPU machine
# leaves no room for the other drivers), and the libraries it needs that the machine lacks.
# Run from the project root on a Debian bookworm machine; then needs [".gl", ".whl", ".lvp"] in the tree.
set -euo pipefail
grep -qxF "/.lvp/" .git/info/exclude 2>/dev/null || echo "/.lvp/" >> .git/info/exclude
mkdir -p .lvp /tmp/amd64/partial
o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
apt-get $o update -qq
(cd .lvp && apt-get $o download -qq mesa-vulkan-drivers libllvm15 libz3-4 libwayland-client0 \
  libx11-xcb1 libxcb-dri3-0 libxcb-present0 libxcb-randr0 libxcb-shm0 libxcb-sync1 \
  libxcb-xfixes0 libxshmfence1)
rm -rf /tmp/mvd && mkdir /tmp/mvd && dpkg-deb -x .lvp/mesa-vulkan-drivers_*.deb /tmp/mvd
tar -cJf .lvp/lavapipe.tar.xz -C /tmp/mvd usr/lib/x86_64-linux-gnu/libvulkan_lvp.so
rm .lvp/mesa-vulkan-drivers_*.deb
cp docs/bench/conformance/lvp_env.sh .lvp/env.sh
