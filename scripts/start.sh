#!/usr/bin/env bash
# One command: install what is missing, build the app (not the tests), run kernelscope.
# The build is quiet: one progress line (on a terminal it counts the build steps),
# the whole log in <build>/start-build.log, shown only when the build fails.
# With a display it opens a window; with none it runs headless and saves frames.
# Arguments go to kernelscope; an --out DIR among them is where frames go.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
dir=${KS_BUILD_DIR:-build}
mkdir -p "$dir"
log=$dir/start-build.log
# progress: ninja/make "[12/184]" lines become one line rewritten in place (a terminal) or a dot a step
progress() {
  local tty=0 n=0 line
  [ -t 1 ] && tty=1
  while IFS= read -r line; do
    printf '%s\n' "$line" >>"$log"
    case $line in
      \[*/*\]*)
        n=$((n + 1))
        if [ "$tty" = 1 ]; then
          printf '\rkernelscope: building %s ' "${line%%]*}]"
        elif [ $((n % 20)) = 0 ]; then
          printf '.'
        fi ;;
    esac
  done
}
: >"$log"
printf 'kernelscope: building into %s/ (log: %s) ' "$dir" "$log"
[ -t 1 ] && printf '\n'
if ! { cmake -S . -B "$dir" -DKS_WERROR=ON && cmake --build "$dir" -j "$(nproc)" --target kernelscope; } 2>&1 | progress; then
  printf '\nkernelscope: the build failed; the last lines of %s:\n' "$log"
  tail -n 30 "$log"
  exit 1
fi
if [ -t 1 ]; then printf '\r\033[K'; else printf '\n'; fi
echo "kernelscope: built $dir/kernelscope (log: $log)"
given() { # FLAG ARGS...: 1 when ARGS hold FLAG or FLAG=VALUE (a flag may be given once)
  local flag=$1 a
  shift
  for a in "$@"; do case $a in "$flag" | "$flag"=*) return 0 ;; esac; done
  return 1
}
if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  # headless defaults, each only where the command line has not set it
  extra=()
  given --headless "$@" || extra+=(--headless)
  given --frames "$@" || extra+=(--frames 60)
  given --save-every "$@" || extra+=(--save-every 20)
  out=out prev=
  for a in "$@"; do
    case $a in --out=*) out=${a#--out=} ;; esac
    [ "$prev" = "--out" ] && out=$a
    prev=$a
  done
  given --out "$@" || extra+=(--out out)
  echo "kernelscope: no display; running headless, frames go to $out/ (the last frame too)"
  exec "$dir/kernelscope" "${extra[@]}" "$@"
fi
echo "kernelscope: opening a window on ${DISPLAY:-$WAYLAND_DISPLAY} (H for keys, Q or Esc to quit)"
exec "$dir/kernelscope" "$@"
