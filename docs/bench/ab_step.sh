# ab_step.sh: sourced by the A/B benchmark scripts (hiz-strips/, hiz-gather/). They set root (the
# working tree), out (the folder of logs), py (the Python) and nvidia-smi's gpu.txt themselves;
# _ab_base/ beside mipview/ is the tree before (`git archive REV mipview tools resources
# third_party | tar -x -C _ab_base`).
# step SIDE NAME SECONDS LOG ARGS...: `mipview ARGS` in the tree of SIDE (base | after), its
# output appended to $out/LOG, its exit code and duration to $out/status.txt. The tree's own
# folder goes first on PYTHONPATH (.gl/env.sh puts the working tree there): `python -m` would
# otherwise import whichever comes first (docs/bench/NOTES.md, h200-2026-11-22-core).
step() {
  local side=$1 name=$2 limit=$3 log=$4; shift 4
  local tree=$root; [[ $side == base ]] && tree=$root/_ab_base
  local t0=$SECONDS
  echo "== $side $name: mipview $*" >> "$out/$log"
  (cd "$tree" && PYTHONPATH=${PYTHONPATH:+${PYTHONPATH//$root/$tree}} timeout "$limit" "$py" -m mipview "$@") \
    >> "$out/$log" 2>&1
  echo "$side $name exit $? in $((SECONDS - t0)) s" >> "$out/status.txt"
}
