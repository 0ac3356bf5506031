#!/usr/bin/env bash
# Runs on the GPU machine (from the repository root, after scripts/build-device.sh
# here and a device call carrying .gl and .carry-main):
#   gpu tests, compute-sanitizer memcheck/racecheck, benchmarks, screenshots.
# Usage: bash .carry-main/device-check.sh [tests|sanitize|bench|shots|all]...
set -u
source .gl/gl-env.sh
B=$PWD/.carry-main/bin
export KS_BINARY=$B/kernelscope KS_TEST_DATA=$PWD/tests/data KS_BEST_CONFIG=${OUT:-/tmp}/best-config.tsv
O=${OUT:-/tmp/ks-out}
mkdir -p "$O"
nvidia-smi -L
what=${*:-all}
status=0
run() { echo "== $*"; "$@" || { echo "!! FAILED ($?): $*"; status=1; }; }
for w in $what; do
  case $w in
  tests|all)
    for t in "$B"/test_*; do
      case $(basename "$t") in test_app_gpu_bin) run "$t" gpu ;; *) run "$t" ;; esac
    done 2>&1 | tee "$O/tests.log" | grep -E "^==|PASSED|FAILED|SKIPPED|\[  ERROR|!!" ;;
  esac
  case $w in
  sanitize|all)
    for t in "$B"/test_laplace_gpu "$B"/test_spheres_gpu; do
      [ -x "$t" ] || continue
      KS_TEST_QUICK=1 run compute-sanitizer --tool memcheck --error-exitcode 9 "$t" 2>&1 | tail -3
      KS_TEST_QUICK=1 run compute-sanitizer --tool racecheck --error-exitcode 9 "$t" 2>&1 | tail -3
    done ;;
  esac
  case $w in
  bench|all)
    run "$B/kernelscope" bench laplace3d --out "$O" 2>&1 | tee "$O/bench3d.txt" | tail -40
    run "$B/kernelscope" bench laplace2d --out "$O" 2>&1 | tee "$O/bench2d.txt" | tail -30 ;;
  esac
  case $w in
  shots|all)
    mkdir -p "$O/shots"
    run "$B/kernelscope" laplace3d --headless --frames 200 --iters 200 --save-every 200 --out "$O/shots" --size 1280x800
    run "$B/kernelscope" laplace2d --headless --frames 100 --iters 500 --save-every 100 --out "$O/shots" --size 1280x800 --colormap inferno ;;
  esac
done
exit $status
