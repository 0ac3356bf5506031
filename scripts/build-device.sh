#!/usr/bin/env bash
# Builds everything for the GPU machine (Hopper, sm_90) here and gathers the
# executables the device run needs into .carry-main/bin (git-ignored), so a
# device call can carry [".gl", ".carry-main"]. See scripts/device-check.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d .gl ] || ../shared/device/pack-gl-runtime.sh
cmake -S . -B build-device -DKS_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-device -j "$(nproc)"
rm -rf .carry-main && mkdir -p .carry-main/bin
find build-device -maxdepth 2 -type f -perm -u+x \( -name 'kernelscope' -o -name 'test_*' -o -name 'perf_*' \) \
  -exec cp {} .carry-main/bin/ \;
cp scripts/device-check.sh scripts/ncu-compare.py .carry-main/
du -sh .carry-main
