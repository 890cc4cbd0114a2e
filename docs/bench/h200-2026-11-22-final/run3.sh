#!/usr/bin/env bash
# Third H200 call of 2026-11-22: what the explicit 8-bit rounding in mipEncode (MIP_UNORM8) costs.
# "new" = the committed shaders; "off" = the same tree with MIP_UNORM8 forced false through a
# temporary switch in gpu/shaders.mip_constants (env MIPVIEW_AB_NO_UNORM8, not committed);
# "base" = 16d447b. Interleaved, two rounds, cold caches, 50 runs:
source .gl/env.sh && site=${PYTHONPATH%%:*}
for r in 1 2; do for v in base new off; do for s in 4096 8192; do
  echo "== $v $s round $r"
  if [ $v = base ]; then (cd _ab_base && PYTHONPATH=$site python3 -m mipview bench --size $s \
      --strategies subgroup,single-pass --cold --warmup-ms 1000 --repeat 50 --no-check | sed -n '6,7p')
  elif [ $v = off ]; then MIPVIEW_AB_NO_UNORM8=1 python3 -m mipview bench --size $s \
      --strategies subgroup,single-pass --cold --warmup-ms 1000 --repeat 50 --no-check | sed -n '6,7p'
  else python3 -m mipview bench --size $s --strategies subgroup,single-pass --cold \
      --warmup-ms 1000 --repeat 50 --no-check | sed -n '6,7p'; fi
done; done; done
