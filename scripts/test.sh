#!/usr/bin/env bash
# One command: install what is missing, build, run every test (ctest).
# Then rebuilds the host code with ASan/UBSan and runs the cpu-labelled tests again,
# and builds without CUDA (as on a machine with no CUDA Toolkit) and runs its cpu tests.
# Last, builds every libFuzzer target with clang and runs each for 20 s (scripts/fuzz.sh):
# a target that no longer builds, or a finding, fails the run.
# gpu-labelled tests report "skipped" (exit 77) where there is no CUDA device.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
KS_BUILD_DIR=build scripts/build.sh
(cd build && ctest --output-on-failure -j "$(nproc)")
if [ "${KS_SKIP_SANITIZE:-0}" != 1 ]; then
  KS_BUILD_DIR=build-asan scripts/build.sh -DKS_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
  # Leak detection on everywhere, GL tests included: sanitizer builds keep the
  # GL driver loaded until exit (render/window.c), see tests/CMakeLists.txt.
  (cd build-asan && ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1 \
     ctest --output-on-failure -L cpu -j "$(nproc)")
fi
if [ "${KS_SKIP_NOCUDA:-0}" != 1 ] && [ -f build/CMakeCache.txt ] && grep -q '^KS_CUDA:BOOL=ON' build/CMakeCache.txt; then
  # Only where the main build had CUDA: otherwise it was this build already.
  KS_BUILD_DIR=build-nocuda scripts/build.sh -DKS_CUDA=OFF
  (cd build-nocuda && ctest --output-on-failure -L cpu -j "$(nproc)")
fi
if [ "${KS_SKIP_FUZZ:-0}" != 1 ]; then
  KS_FUZZ_DIR=build-fuzz scripts/fuzz.sh "${KS_FUZZ_SECONDS:-20}"
fi
