#!/usr/bin/env bash
# One command: install what is missing, build, run every test (ctest).
# Then rebuilds the host code with ASan/UBSan and runs the cpu-labelled tests again,
# and builds without CUDA (as on a machine with no CUDA Toolkit) and runs its cpu tests.
# Last, builds every libFuzzer target with clang and runs each for 20 s (scripts/fuzz.sh):
# a target that no longer builds, or a finding, fails the run.
# gpu-labelled tests report "skipped" (exit 77) where there is no CUDA device.
# Every stage runs even when an earlier one fails; the last line names each
# stage and its result, and the exit status is non-zero when any failed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

summary=()
failed=0
# stage NAME COMMAND...: runs it in a subshell that stops at its first failing
# command (not inside an `if`, where bash would ignore set -e), records the result.
stage() {
  local name=$1 rc
  shift
  set +e
  ( set -e; "$@" )
  rc=$?
  set -e
  if [ "$rc" = 0 ]; then
    summary+=("$name passed")
  else
    summary+=("$name FAILED (exit $rc)")
    failed=1
  fi
}

main_stage() {
  KS_BUILD_DIR=build scripts/build.sh
  (cd build && ctest --output-on-failure -j "$(nproc)")
}
asan_stage() {
  KS_BUILD_DIR=build-asan scripts/build.sh -DKS_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
  # Leak detection on everywhere, GL tests included: sanitizer builds keep the
  # GL driver loaded until exit (render/window.c), see tests/CMakeLists.txt.
  # intercept_tls_get_addr=0: the sanitizer runtime's own record of dynamic TLS
  # (GL drivers loaded with dlopen have it) crashed LeakSanitizer's tracer at exit
  # ("Tracer caught signal 11", every time in test_video_cli's --out --record run);
  # without it the DTV is still scanned as ordinary heap reachable from the static
  # TLS, so leaks are still found.
  (cd build-asan && ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1:intercept_tls_get_addr=0 \
     ctest --output-on-failure -L cpu -j "$(nproc)")
}
nocuda_stage() {
  KS_BUILD_DIR=build-nocuda scripts/build.sh -DKS_CUDA=OFF
  (cd build-nocuda && ctest --output-on-failure -L cpu -j "$(nproc)")
}

stage "main ctest" main_stage
if [ "${KS_SKIP_SANITIZE:-0}" != 1 ]; then
  stage "asan/ubsan cpu" asan_stage
else
  summary+=("asan/ubsan cpu skipped (KS_SKIP_SANITIZE=1)")
fi
if [ "${KS_SKIP_NOCUDA:-0}" != 1 ] && [ -f build/CMakeCache.txt ] && grep -q '^KS_CUDA:BOOL=ON' build/CMakeCache.txt; then
  # Only where the main build had CUDA: otherwise it was this build already.
  stage "no-cuda cpu" nocuda_stage
else
  summary+=("no-cuda cpu skipped (the main build has no CUDA, or KS_SKIP_NOCUDA=1)")
fi
fuzz_stage() {
  KS_FUZZ_DIR=build-fuzz scripts/fuzz.sh "${KS_FUZZ_SECONDS:-20}"
}
if [ "${KS_SKIP_FUZZ:-0}" != 1 ]; then
  stage "fuzz" fuzz_stage
else
  summary+=("fuzz skipped (KS_SKIP_FUZZ=1)")
fi

line=$(IFS=';'; echo "${summary[*]}")
echo "scripts/test.sh: ${line//;/; }"
exit "$failed"
