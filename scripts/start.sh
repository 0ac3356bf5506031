#!/usr/bin/env bash
# One command: install what is missing, build, run kernelscope.
# With no display (or no GPU) it runs headless and writes frames into out/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  echo "kernelscope: no display; running headless, frames go to out/"
  exec build/kernelscope --headless --frames 60 --save-every 20 --out out "$@"
fi
exec build/kernelscope "$@"
