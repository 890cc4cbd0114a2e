# Sourced by ab.sh and coverage_ab.sh: one way to compare a change's level files with the tree
# before's ($out/levels_base_TAG against $out/levels_new_TAG; level 0 is the input).
same_bytes() {  # same_bytes TAG: level files of levels_new_TAG against levels_base_TAG
  local tag=$1 same=0 differ=0 f rel total
  while IFS= read -r f; do
    rel=${f#"$out/levels_base_$tag/"}
    if cmp -s "$f" "$out/levels_new_$tag/$rel"; then same=$((same + 1)); else
      differ=$((differ + 1)); echo "DIFFERS: $tag $rel"; fi
  done < <(find "$out/levels_base_$tag" -name 'level_*' \( -name '*.png' -o -name '*.npy' \) \
             ! -name 'level_00.*' | sort)
  total=$(find "$out/levels_new_$tag" -name 'level_*' \( -name '*.png' -o -name '*.npy' \) \
            ! -name 'level_00.*' | wc -l)
  echo "== same bytes $tag: $same level files identical, $differ differ, of $total new"
}
