#!/usr/bin/env bash
# One command: install what is missing, build, run every test (ctest).
# Then rebuilds the host code with ASan/UBSan and runs the cpu-labelled tests again.
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
