#!/usr/bin/env bash
# Configures and builds into build/ (or $KS_BUILD_DIR). Extra args go to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${KS_BUILD_DIR:-build}
cmake -S . -B "$dir" -DKS_WERROR=ON "$@" >/dev/null
cmake --build "$dir" -j "$(nproc)"
