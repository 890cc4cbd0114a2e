# Sourced by the bench scripts that run `mipview` commands one after another on the GPU machine
# (speed-vs-spd/run.sh, volume/run.sh). Needs $out and $py; starts $out/status.txt and gpu.txt.
: > "$out/status.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$out/gpu.txt" \
  2>&1 || echo "no nvidia-smi" > "$out/gpu.txt"
step() {  # step NAME SECONDS ARGS...: `mipview ARGS` with a time limit into $out/times.log;
  # its exit code and duration into $out/status.txt
  local name=$1 limit=$2; shift 2
  local t0=$SECONDS
  echo "== $name: mipview $*" >> "$out/times.log"
  timeout "$limit" "$py" -m mipview "$@" >> "$out/times.log" 2>&1
  echo "$name exit $? in $((SECONDS - t0)) s" >> "$out/status.txt"
}
