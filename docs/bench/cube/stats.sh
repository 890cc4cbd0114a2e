# Pipeline statistics (registers, shared memory) of filter-pairs with and without edge=cube, the
# tree before (_ab_base/: its changed files at their paths) and this tree, at 1024² f16 and
# 2048² unorm:
#   needs [".gl", ".whl", "_ab_base"] in the tree, `bash docs/bench/cube/stats.sh > $OUT/stats.log 2>&1`
source docs/bench/cube/common.sh
base_tree
for entry in 1024:f16 2048:unorm; do
  n=${entry%%:*}; fmt=${entry##*:}; f=/tmp/sky_${n}_$fmt.ktx2
  sky "$n" "$fmt" "$f"
  for s in base after; do t=$root; [[ $s == base ]] && t=/tmp/base
    echo "== $n $fmt $s"
    (cd $t && MIPVIEW_PIPELINE_STATS=1 timeout 150 python3 -m mipview bench $f --format $fmt --strategies "filter-pairs:filter=tent,edge=clamp,filter-pairs:filter=tent,edge=cube" --repeat 5 --warmup-ms 0 --no-check 2>&1 | grep "pipeline stats: filter_pairs" | sort | uniq -c | cut -c1-600)
  done
done
