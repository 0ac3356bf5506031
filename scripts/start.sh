#!/usr/bin/env bash
# One command: install what is missing, build the app (not the tests), run kernelscope.
# The build is quiet: one progress line, the whole log in <build>/start-build.log,
# shown only when the build fails. The line ends with the build's percentage: on a
# terminal rewritten in place ("kernelscope: building  42%"); elsewhere (a log, CI)
# it grows by each tenth reached (" 10% 20% ..."), still one line.
# With a display it opens a window; with none it runs headless and saves frames
# 20, 40 and 60 (on the CPU backend, laplace3d at 16 Jacobi iterations a frame, so
# that they show the field evolving).
# Arguments go to kernelscope; an --out DIR among them is where frames go.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
dir=${KS_BUILD_DIR:-build}
mkdir -p "$dir"
log=$dir/start-build.log
# progress: the build's percentage, from make's "[ 27%] ..." lines or ninja's
# "[12/184] ..." ones (the highest so far: make's come out of order under -j)
progress() {
  local tty=0 pct=0 shown=0 line p done total
  [ -t 1 ] && tty=1 shown=-1
  while IFS= read -r line; do
    printf '%s\n' "$line" >>"$log"
    p=""
    case $line in
      '['*'%]'*) p=${line#\[}; p=${p%%%]*}; p=${p// /} ;;
      '['*/*']'*) p=${line#\[}; p=${p%%]*}; done=${p%%/*}; total=${p#*/}; p=""
        case $done/$total in
          *[!0-9/]* | /* | */ | */0 | */00*) ;;
          *) p=$((10#$done * 100 / 10#$total)) ;;
        esac ;;
    esac
    case $p in '' | *[!0-9]*) continue ;; esac
    [ "$((10#$p))" -le "$pct" ] || pct=$((10#$p))
    if [ "$tty" = 1 ]; then
      [ "$pct" != "$shown" ] && printf '\rkernelscope: building %3d%%' "$pct"
      shown=$pct
    elif [ $((pct / 10)) -gt "$shown" ]; then
      shown=$((pct / 10))
      printf ' %d%%' $((shown * 10))
    fi
  done
  return 0
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
value_of() { # FLAG ARGS...: the value given to FLAG (FLAG VALUE or FLAG=VALUE), empty when none
  local flag=$1 a prev= value=
  shift
  for a in "$@"; do
    case $a in "$flag"=*) value=${a#"$flag"=} ;; esac
    [ "$prev" = "$flag" ] && value=$a
    prev=$a
  done
  printf '%s' "$value"
}
# The run is on the CPU backend: asked for, or no CUDA in this build, or no NVIDIA
# device (no /dev/nvidia0, nor WSL's /dev/dxg) for the app to find.
cpu_backend() {
  case $(value_of --backend "$@") in
    cpu) return 0 ;;
    cuda) return 1 ;;
  esac
  grep -q '^KS_CUDA:BOOL=OFF' "$dir/CMakeCache.txt" 2>/dev/null && return 0
  ! ls /dev/nvidia[0-9]* /dev/dxg >/dev/null 2>&1
}
# The scene is laplace3d: named, or no other scene named (the app's default).
laplace3d_scene() {
  local a
  for a in "$@"; do
    case $a in laplace2d | spheres | matmul | histogram | reduce | bench | new-kernel) return 1 ;; esac
  done
  return 0
}
if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  # headless defaults, each only where the command line has not set it
  extra=()
  given --headless "$@" || extra+=(--headless)
  given --frames "$@" || extra+=(--frames 60)
  given --save-every "$@" || extra+=(--save-every 20)
  # laplace3d on the CPU backend (a 48^3 grid) at its live default of 64 iterations a
  # frame has all but converged by frame 20: frames 20, 40 and 60 would look the same.
  # At 16 a frame (320, 640 and 960 iterations) they show the heat spreading from the
  # hot top toward the steady state, and the run is shorter. On a GPU the default
  # (256^3, as many iterations as fit a frame) evolves through all 60 frames.
  if laplace3d_scene "$@" && cpu_backend "$@" && ! given --iters "$@" && ! given --grid "$@"; then
    extra+=(--iters 16)
  fi
  out=$(value_of --out "$@")
  given --out "$@" || { out=out; extra+=(--out out); }
  echo "kernelscope: no display; running headless, frames go to $out/ (the last frame too)"
  exec "$dir/kernelscope" "${extra[@]}" "$@"
fi
echo "kernelscope: opening a window on ${DISPLAY:-$WAYLAND_DISPLAY} (H for keys, Q or Esc to quit)"
exec "$dir/kernelscope" "$@"
