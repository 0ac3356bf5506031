#!/usr/bin/env bash
# Sphere scene on the GPU machine: gpu tests, compute-sanitizer (memcheck and
# racecheck on a quick subset), the timing table, and the SASS of the kernels.
# Run from the repository root after `source .gl/gl-env.sh`, with the
# executables in $1 (default .carry-spheres). Logs go to $OUT (default ./out).
#   scripts/gpu-spheres.sh [DIR] [perf_spheres args...]
set -uo pipefail
dir=${1:-.carry-spheres}
shift || true
out=${OUT:-out}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv
  compute-sanitizer --version | head -2
} >"$out/device.txt" 2>&1

echo "== test_spheres_gpu"
"$dir/test_spheres_gpu" >"$out/test_gpu.log" 2>&1
echo "test_spheres_gpu rc=$?"; tail -4 "$out/test_gpu.log"

echo "== compute-sanitizer (KS_SPHERES_QUICK=1)"
{
  KS_SPHERES_QUICK=1 compute-sanitizer --tool memcheck --leak-check full "$dir/test_spheres_gpu"
  echo "memcheck rc=$?"
  KS_SPHERES_QUICK=1 compute-sanitizer --tool racecheck --racecheck-report all "$dir/test_spheres_gpu"
  echo "racecheck rc=$?"
  KS_SPHERES_QUICK=1 compute-sanitizer --tool synccheck "$dir/test_spheres_gpu"
  echo "synccheck rc=$?"
} >"$out/sanitizer.log" 2>&1
grep -E "rc=|ERROR SUMMARY|RACECHECK SUMMARY|hazard" "$out/sanitizer.log" | head -20

echo "== SASS"
if command -v cuobjdump >/dev/null; then
  cuobjdump -sass "$dir/perf_spheres" >"$out/sass.txt" 2>&1
  for k in spheres_global_kernel spheres_readonly_kernel spheres_constant_kernel; do
    echo "$k: $(awk "/Function : .*$k/{f=1} f&&/Function : /&&!/$k/{f=0} f" "$out/sass.txt" | grep -oE '(LDG|LDC|ULDC|LDS)[A-Z0-9.]*' | sort | uniq -c | tr '\n' ' ')"
  done
fi

echo "== perf_spheres $*"
"$dir/perf_spheres" --csv "$out/perf.csv" "$@" 2>&1 | tee "$out/perf.log"
