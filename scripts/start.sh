#!/usr/bin/env bash
# One command: install what is missing, build the app (not the tests), run kernelscope.
# With a display it opens a window; with none it runs headless and saves frames.
# Arguments go to kernelscope; an --out DIR among them is where frames go.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
dir=${KS_BUILD_DIR:-build}
cmake -S . -B "$dir" -DKS_WERROR=ON >/dev/null
cmake --build "$dir" -j "$(nproc)" --target kernelscope
if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  out=out
  prev=
  for a in "$@"; do
    case $a in --out=*) out=${a#--out=} ;; esac
    [ "$prev" = "--out" ] && out=$a
    prev=$a
  done
  echo "kernelscope: no display; running headless, frames go to $out/"
  exec "$dir/kernelscope" --headless --frames 60 --save-every 20 --out out "$@"
fi
echo "kernelscope: opening a window on ${DISPLAY:-$WAYLAND_DISPLAY} (H for keys, Q or Esc to quit)"
exec "$dir/kernelscope" "$@"
