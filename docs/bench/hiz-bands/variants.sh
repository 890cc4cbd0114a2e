#!/usr/bin/env bash
# Writes hiz_bands.comp's tile and work-group variants into OUT: variants.sh OUT
# (a tile is a pragma, read before compiling, so each is its own file)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); out=${1:?usage: variants.sh OUT}; mkdir -p "$out"
for v in 64x256x256 64x128x256 128x128x256 64x512x256 128x256x512 64x256x512; do
  IFS=x read -r w h nt <<< "$v"
  sed -e "s/^#pragma mipview tile 64 256/#pragma mipview tile $w $h/" \
      -e "s/^#define TILE_W 64/#define TILE_W $w/" -e "s/^#define TILE_H 256/#define TILE_H $h/" \
      -e "s/^#define NT 256/#define NT $nt/" \
      -e "s|#include \"mip_chain.glsl\"|#include \"mip_chain.glsl\"|" "$here/hiz_bands.comp" > "$out/bands_$v.comp"
done
ls "$out"
