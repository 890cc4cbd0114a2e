#!/usr/bin/env bash
# Before/after timings in ONE run on the GPU machine (the GPU's clock drifts between runs):
#   tools/ab_bench.sh BASE_TREE OUTDIR [SIZES...]
# BASE_TREE is a folder holding an older `mipview/` package (e.g. `git archive REV mipview |
# tar -x -C base`); the working tree is "after". For each size, `mipview bench --strategies all`
# (or $STRATEGIES) runs base, after, base, after (cold caches, 1.5 s warm-up, 50 runs), so drift
# hits both alike.
# JSON lands in OUTDIR as {base,after}_{size}_{round}.json; the log goes to stdout.
set -uo pipefail
base=$(cd "$1" && pwd); mkdir -p "$2"; out=$(cd "$2" && pwd); shift 2
if (($#)); then sizes=("$@"); else sizes=(1920x1080 4096 8192); fi
mkdir -p "$out"
root=$PWD
for s in "${sizes[@]}"; do
  chk=(); [[ $s == 8192 ]] && chk=(--no-check)  # the float64 reference of 8192^2 takes minutes
  for round in 1 2; do
    for side in base after; do
      tree=$PWD; [[ $side == base ]] && tree=$base
      echo "== $side $s round $round"
      # run from inside the tree: `python -m` puts the working folder first on sys.path
      # the tree in place of the working tree on PYTHONPATH (.gl/env.sh puts it there)
      (cd "$tree" && PYTHONPATH=${PYTHONPATH//$root/$tree} python3 -m mipview bench --size "$s" --strategies "${STRATEGIES:-all}" \
        --cold --warmup-ms 1500 --repeat 50 "${chk[@]}" --json "$out/${side}_${s}_${round}.json" \
        | sed -n '5,20p')
    done
  done
done
# one archive of every JSON: a handful of files is easier to bring back from the GPU machine
tar -czf "$out.tar.gz" -C "$(dirname "$out")" "$(basename "$out")"
