# Sourced by ab.sh, matrix.sh and stats.sh (from the project root, on the GPU machine):
# base_tree makes /tmp/base, this tree with the files of the tree before over it (_ab_base/
# holds them at their paths: `git archive REV FILES | tar -x -C _ab_base`);
# sky N FMT PATH writes the synthetic sky, 6 faces of N² in FMT, as a cube KTX2 at PATH.
source .gl/env.sh
root=$PWD
base_tree() {
  mkdir -p /tmp/base && cp -r mipview tools resources /tmp/base/ && cp -r _ab_base/. /tmp/base/
}
sky() {
  python3 - "$1" "$2" "$3" <<'PY'
import os, sys
from mipview.core.formats import Format, to_storage
from mipview.io import containers, synthetic
n, fmt, path = int(sys.argv[1]), Format.parse(sys.argv[2]), sys.argv[3]
folder, name = os.path.split(path)
containers.export(folder, name[:-5], [to_storage(synthetic.cube_image(n).pixels, fmt)], fmt, ("ktx2",), faces=6)
PY
}
