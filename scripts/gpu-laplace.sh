#!/usr/bin/env bash
# Laplace kernels on a CUDA GPU: gpu tests, compute-sanitizer (memcheck on
# the full test, racecheck and initcheck on KS_TEST_QUICK=1), then the perf table.
# Usage: scripts/gpu-laplace.sh [BIN_DIR] [perf_laplace args...]
#   BIN_DIR holds test_laplace_gpu and perf_laplace (default build/tests).
# Logs go to $KS_LOG_DIR (default ./out-laplace).
# Set KS_SKIP_SANITIZE=1 or KS_SKIP_PERF=1 to leave a stage out; KS_SAN_TIMEOUT
# (seconds, default 300) bounds each sanitizer run.
# KS_EXTRA="name ..." also runs BIN_DIR/test_NAME (when present) and
# BIN_DIR/perf_NAME with the same perf args: builds with other compile-time
# switches, timed in the same call.
set -uo pipefail
bin=${1:-build/tests}
shift || true
log=${KS_LOG_DIR:-out-laplace}
mkdir -p "$log"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
fail=0

nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw \
  --format=csv 2>&1 | tee "$log/gpu.txt"

echo "== gpu tests"
"$bin/test_laplace_gpu" >"$log/test_gpu.log" 2>&1
rc=$?
grep -E "PASSED|FAILED|ERROR|rel diff|refused" "$log/test_gpu.log" | head -30
echo "test_laplace_gpu rc=$rc"
[ "$rc" = 0 ] || fail=1

if [ "${KS_SKIP_SANITIZE:-0}" != 1 ]; then
  for tool in memcheck racecheck initcheck; do
    quick=1
    [ "$tool" = memcheck ] && quick=0
    KS_TEST_QUICK=$quick timeout "${KS_SAN_TIMEOUT:-300}" "$san" --tool "$tool" --error-exitcode 9 \
      "$bin/test_laplace_gpu" >"$log/$tool.log" 2>&1
    rc=$?
    echo "compute-sanitizer $tool (KS_TEST_QUICK=$quick) rc=$rc: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log/$tool.log" | tail -1)"
    [ "$rc" = 0 ] || fail=1
  done
fi

if [ "${KS_SKIP_PERF:-0}" != 1 ]; then
  echo "== perf"
  "$bin/perf_laplace" "$@" 2>&1 | tee "$log/perf.log" | grep -E "^(device|#|BEST)"
  [ "${PIPESTATUS[0]}" = 0 ] || fail=1
fi
for x in ${KS_EXTRA:-}; do
  echo "== extra build $x"
  if [ -x "$bin/test_$x" ]; then
    "$bin/test_$x" >"$log/test_$x.log" 2>&1
    rc=$?
    grep -E "FAILED|rel diff" "$log/test_$x.log" | head -10
    echo "test_$x rc=$rc"
    [ "$rc" = 0 ] || fail=1
  fi
  "$bin/perf_$x" "$@" 2>&1 | tee "$log/perf_$x.log" | grep -E "^(#|BEST)"
  [ "${PIPESTATUS[0]}" = 0 ] || fail=1
done
exit $fail
