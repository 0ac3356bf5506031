#!/usr/bin/env bash
# Sphere scene on a CUDA GPU: gpu tests, compute-sanitizer (memcheck and
# racecheck on a quick subset), the timing table, and the SASS of the kernels.
# Run from the repository root on a machine with a CUDA GPU, with the
# executables in $1 (default build/tests). Logs go to $KS_LOG_DIR (default ./out-spheres).
#   scripts/gpu-spheres.sh [DIR] [perf_spheres args...]
set -uo pipefail
dir=${1:-build/tests}
shift || true
out=${KS_LOG_DIR:-out-spheres}
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

echo "== block sizes at 2048 spheres, 2048x2048"
for b in 8x8 16x8 32x8 16x16 32x16 32x32; do
  "$dir/perf_spheres" --counts 2048 --block "$b" --reps 20 2>&1 | sed -n "3,5p" | sed "s/^/$b  /"
done | tee "$out/blocks.log"

if command -v ncu >/dev/null && [ "${KS_NCU:-1}" = 1 ]; then
  echo "== ncu: constant cache vs read-only (L1) at 256 and 2048 spheres"
  {
    ncu --query-metrics --chip gh100 2>/dev/null | grep -iE "^(idc|l1tex__t_sector_hit|l1tex__t_requests)" | head -20
    m=idc__requests.sum,idc__requests_lookup_hit.sum,idc__requests_lookup_miss.sum,smsp__inst_executed_op_ldc.sum,l1tex__t_sector_hit_rate.pct,gpu__time_duration.sum
    for n in 256 2048; do
      for k in constant readonly; do
        echo "-- $k, $n spheres"
        ncu --clock-control none -k "regex:spheres_${k}_kernel" --launch-skip 4 --launch-count 1 --metrics "$m" \
          "$dir/perf_spheres" --only "$k" --counts "$n" --reps 1 --size 1024x1024 2>&1 | grep -E "spheres_|idc__|ldc|sector_hit|duration|ERR|rror" | head -12
      done
    done
  } >"$out/ncu.txt" 2>&1
  cat "$out/ncu.txt" | tail -40
fi
