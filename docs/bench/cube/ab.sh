# A/B of filter-pairs (the tree before: _ab_base/, its changed files at their paths, over this
# tree) on the seamless pair, then the verdicts of the tree after:
#   needs [".gl", ".whl", "_ab_base"] in the tree, `bash docs/bench/cube/ab.sh`
source docs/bench/cube/common.sh
base_tree
seam="per-level:filter=tent,edge=clamp,per-level:filter=tent,edge=cube,filter-pairs:filter=tent,edge=clamp,filter-pairs:filter=tent,edge=cube"
for entry in 1024:f16 2048:unorm; do
  n=${entry%%:*}; fmt=${entry##*:}; f=/tmp/sky_${n}_$fmt.ktx2
  sky "$n" "$fmt" "$f"
  for r in 1 2; do for s in base after; do t=$root; [[ $s == base ]] && t=/tmp/base
    echo "== $n $fmt $s $r"
    (cd $t && timeout 150 python3 -m mipview bench $f --format $fmt --strategies "$seam" --cold --evict clean --warmup-ms 1500 --repeat 50 --no-check 2>&1 | grep -A6 "^strategy")
  done; done
done
echo "== verdicts after"
for entry in 1024:f16 2048:unorm; do n=${entry%%:*}; fmt=${entry##*:}; timeout 200 python3 -m mipview run /tmp/sky_${n}_$fmt.ktx2 --format $fmt --strategies "filter-pairs:filter=tent,edge=cube,per-level:filter=tent,edge=cube" --out /tmp/run_$n 2>&1 | grep -i "step\|exit\|tolerance"; echo "exit ${PIPESTATUS[0]}"; done
