source .gl/env.sh
root=$PWD; mkdir -p /tmp/base && cp -r mipview tools resources /tmp/base/ && cp _ab_base/filter_pairs.spv /tmp/base/mipview/spirv/filter_pairs.spv
for entry in 1024:f16 2048:unorm; do
  n=${entry%%:*}; fmt=${entry##*:}; f=/tmp/sky_${n}_$fmt.ktx2
  python3 - "$n" "$fmt" "$f" <<'PY'
import os, sys
from mipview.core.formats import Format, to_storage
from mipview.io import containers, synthetic
n, fmt, path = int(sys.argv[1]), Format.parse(sys.argv[2]), sys.argv[3]
folder, name = os.path.split(path)
containers.export(folder, name[:-5], [to_storage(synthetic.cube_image(n).pixels, fmt)], fmt, ("ktx2",), faces=6)
PY
  for s in base after; do t=$root; [[ $s == base ]] && t=/tmp/base
    echo "== $n $fmt $s"
    (cd $t && MIPVIEW_PIPELINE_STATS=1 timeout 150 python3 -m mipview bench $f --format $fmt --strategies "filter-pairs:filter=tent,edge=clamp,filter-pairs:filter=tent,edge=cube" --repeat 5 --warmup-ms 0 --no-check 2>&1 | grep "pipeline stats: filter_pairs" | sort | uniq -c | cut -c1-600)
  done
done
