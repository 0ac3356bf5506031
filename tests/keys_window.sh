#!/usr/bin/env bash
# Drives the live window with real key presses (xdotool) under Xvfb and checks
# what they did through the files the app saves:
#   F saves the bare picture (its size tells the slice axis), X/Y switch the
#   axis, S and P save the screen as PNG/PPM, so does a click on the panel's
#   Save button, O hides the panels (S then saves the bare picture: the view),
#   the wheel and . zoom in, a drag pans, , zooms out, 0 fits again, Q quits.
# Usage (ctest runs it under xvfb-run): keys_window.sh KERNELSCOPE_BINARY [cpu|cuda]
set -euo pipefail
bin=$1
backend=${2:-cpu}
[ -n "${DISPLAY:-}" ] || exit 77
command -v xdotool >/dev/null || exit 77
out=$(mktemp -d /tmp/ks-keys-XXXXXX)
trap 'rc=$?; [ "$rc" = 0 ] || echo "kept $out (the scratch of a failed test)"' EXIT
"$bin" laplace3d --backend "$backend" --window --grid 40x30x20 --iters 1 --size 640x400 --out "$out" 2>"$out/stderr" &
pid=$!
win=""
for _ in $(seq 1 100); do
  win=$(xdotool search --onlyvisible --name '^kernelscope$' 2>/dev/null | head -n 1 || true)
  [ -n "$win" ] && break
  sleep 0.1
done
[ -n "$win" ] || { echo "window did not appear"; cat "$out/stderr"; kill $pid; exit 1; }
# XTEST key events go to the focused window (synthetic XSendEvent ones are ignored by GLFW).
xdotool windowfocus --sync "$win" 2>/dev/null || xdotool windowfocus "$win"
press() { xdotool key "$@"; sleep 0.4; }
sleep 0.5
press f            # bare picture, axis y (the default): 40 x 20
press x; press f   # axis x: 30 x 20
press z; press f   # axis z: 40 x 30
press s            # screen PNG 640 x 400
press p            # screen PPM
# the mouse: the Save button of the "Scene and kernel" panel (640x400: 13 px
# font, the panel column starts at x = 357) saves the screen as S does
xdotool mousemove --window "$win" 522 41; sleep 0.3
xdotool click 1; sleep 0.6
xdotool mousemove --window "$win" 100 200; sleep 0.2
press o; press s   # overlay hidden: S saves the bare picture (axis z): the 40 x 30 slice fitted, 533 x 400
# zoom and pan: the picture is the view, at most the area
xdotool mousemove --window "$win" 320 200; sleep 0.2
xdotool click 4; xdotool click 4; xdotool click 4; sleep 0.4   # wheel: three levels in at the cursor
press s            # zoomed: the grid is wider than the area, the picture fills it: 640 x 400
xdotool mousedown 1; sleep 0.2; xdotool mousemove --window "$win" 420 260; sleep 0.3; xdotool mouseup 1; sleep 0.3
press s            # dragged: the same size, other cells
press f            # F is still the whole slice, one pixel per point: 40 x 30
press comma; press comma; press comma
press s            # three levels out: the fit, 533 x 400
press period
press s            # one level in with the key: 640 x 400
press 0
press s            # the whole grid again: 533 x 400
press h; press c; press a; press plus; press minus; press Up; press Next; press space; press n; press r
press q
wait $pid || { echo "kernelscope exited $?"; cat "$out/stderr"; exit 1; }

size() { python3 - "$1" <<'PY'
import struct, sys
p = sys.argv[1]
with open(p, 'rb') as f:
    head = f.read(32)
if head[:8] == b'\x89PNG\r\n\x1a\n':
    w, h = struct.unpack('>II', head[16:24]); print(f"{w}x{h}")
else:
    parts = head.split()
    print(f"{int(parts[1])}x{int(parts[2])}")
PY
}
mapfile -t fields < <(ls "$out"/laplace3d_*_field.png | sort)
mapfile -t screens < <(ls "$out"/laplace3d_*_screen.* | sort)
echo "fields: ${fields[*]}"; echo "screens: ${screens[*]}"
[ ${#fields[@]} -eq 4 ] || { echo "expected 4 field images"; exit 1; }
[ "$(size "${fields[0]}")" = 40x20 ] || { echo "F on axis y: $(size "${fields[0]}")"; exit 1; }
[ "$(size "${fields[1]}")" = 30x20 ] || { echo "F on axis x: $(size "${fields[1]}")"; exit 1; }
[ "$(size "${fields[2]}")" = 40x30 ] || { echo "F on axis z: $(size "${fields[2]}")"; exit 1; }
[ "$(size "${fields[3]}")" = 40x30 ] || { echo "F while zoomed: $(size "${fields[3]}")"; exit 1; }
[ ${#screens[@]} -eq 9 ] || { echo "expected 9 screen saves (S, P, the Save button, S, 5 of the view)"; exit 1; }
[ "$(size "${screens[0]}")" = 640x400 ] || { echo "S: $(size "${screens[0]}")"; exit 1; }
case "${screens[1]}" in *.ppm) ;; *) echo "P did not write a PPM"; exit 1 ;; esac
[ "$(size "${screens[1]}")" = 640x400 ] || { echo "P: $(size "${screens[1]}")"; exit 1; }
[ "$(size "${screens[2]}")" = 640x400 ] || { echo "Save button: $(size "${screens[2]}")"; exit 1; }
[ "$(size "${screens[3]}")" = 533x400 ] || { echo "S with the overlay hidden: $(size "${screens[3]}")"; exit 1; }
[ "$(size "${screens[4]}")" = 640x400 ] || { echo "after the wheel: $(size "${screens[4]}")"; exit 1; }
[ "$(size "${screens[5]}")" = 640x400 ] || { echo "after the drag: $(size "${screens[5]}")"; exit 1; }
! cmp -s "${screens[4]}" "${screens[5]}" || { echo "the drag did not move the picture"; exit 1; }
[ "$(size "${screens[6]}")" = 533x400 ] || { echo "after three , : $(size "${screens[6]}")"; exit 1; }
[ "$(size "${screens[7]}")" = 640x400 ] || { echo "after . : $(size "${screens[7]}")"; exit 1; }
[ "$(size "${screens[8]}")" = 533x400 ] || { echo "after 0: $(size "${screens[8]}")"; exit 1; }
! ls "$out" | grep -q '\.tmp-' || { echo "temporary files left"; exit 1; }
echo "keys ok"
rm -rf "$out"
