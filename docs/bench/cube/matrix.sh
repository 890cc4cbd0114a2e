# filter-pairs' seamless x pass, the tree before (_ab_base/: its changed files at their paths)
# against this tree, on the synthetic sky at 1024 and 2048 in f16 and unorm, alternating, one
# call ($STRATEGIES: other strategies):
#   needs [".gl", ".whl", "_ab_base"] in the tree, `bash docs/bench/cube/matrix.sh > $OUT/matrix.log`
source docs/bench/cube/common.sh
base_tree
seam=${STRATEGIES:-filter-pairs:filter=tent,edge=clamp,filter-pairs:filter=tent,edge=cube}
for entry in ${ENTRIES:-1024:f16 1024:unorm 2048:f16 2048:unorm}; do
  n=${entry%%:*}; fmt=${entry##*:}; f=/tmp/sky_${n}_$fmt.ktx2
  sky "$n" "$fmt" "$f"
  for r in 1 2; do for s in base after; do t=$root; [[ $s == base ]] && t=/tmp/base
    echo "== $n $fmt $s $r"
    (cd $t && timeout 150 python3 -m mipview bench $f --format $fmt --strategies "$seam" --cold --evict clean --warmup-ms 1500 --repeat 50 --no-check 2>&1 | grep "^filter-pairs")
  done; done
done
nvidia-smi --query-gpu=name,driver_version --format=csv
