#!/usr/bin/env bash
# Drives the live window with real key presses (xdotool) under Xvfb and checks
# what they did through the files the app saves:
#   F saves the bare picture (its size tells the slice axis), X/Y switch the
#   axis, S and P save the screen as PNG/PPM, so does a click on the panel's
#   Save button, O hides the panels (S then saves the bare picture: the view),
#   the wheel and . zoom in, a drag pans, , zooms out, 0 fits again, Q quits.
# It waits on the app's own signs, never a fixed time: the frames it finishes (rows of its timings
# CSV) after an input whose effect shows later, the file a save writes.
# Usage (ctest runs it under xvfb-run): keys_window.sh KERNELSCOPE_BINARY [cpu|cuda]
set -euo pipefail
bin=$1
backend=${2:-cpu}
[ -n "${DISPLAY:-}" ] || exit 77
command -v xdotool >/dev/null || exit 77
out=$(mktemp -d /tmp/ks-keys-XXXXXX)
trap 'rc=$?; [ "$rc" = 0 ] || echo "kept $out (the scratch of a failed test)"' EXIT
# --save-every with a count no run reaches: no pictures, but the timings CSV gets a row (flushed)
# as each frame ends, which is the clock this test waits on instead of sleeping
"$bin" laplace3d --backend "$backend" --window --grid 40x30x20 --iters 1 --size 640x400 --save-every 1000000000 \
  --out "$out" 2>"$out/stderr" &
pid=$!
fail() { echo "$1"; cat "$out/stderr"; kill $pid 2>/dev/null || true; exit 1; }
# waits until the command given succeeds, however long load makes it (ctest's TIMEOUT is the
# limit; a line a minute says what is awaited); fails the test if the app is gone
wait_for() {
  local what=$1 note=$((SECONDS + 60)); shift
  until "$@"; do
    kill -0 $pid 2>/dev/null || fail "kernelscope exited while waiting for $what"
    [ $SECONDS -lt $note ] || { echo "still waiting for $what"; note=$((SECONDS + 60)); }
    sleep 0.05
  done
}
frames() { # frames the app has finished: the rows of its timings CSV (written under a temporary name)
  local f
  f=$(ls "$out"/laplace3d_timings.csv.tmp-* 2>/dev/null | head -n 1 || true)
  if [ -n "$f" ]; then echo $(($(wc -l <"$f") - 1)); else echo 0; fi
}
at_least() { [ "$(frames)" -ge "$1" ]; }
# wait_frames N: N more frames end; an input sent before them has been taken by then
wait_frames() { local want=$(($(frames) + $1)); wait_for "$1 more frames" at_least "$want"; }
count() { ls "$out" | grep -c -- "$1" || true; }
more_than() { [ "$(count "$1")" -gt "$2" ]; }
# saving PATTERN COMMAND...: runs the command (a key, a click) and waits for the file it saves
saving() {
  local pattern=$1 n
  shift
  n=$(count "$pattern")
  "$@"
  wait_for "file matching $pattern" more_than "$pattern" "$n"
}
win=""
find_window() { win=$(xdotool search --onlyvisible --name '^kernelscope$' 2>/dev/null | head -n 1 || true); [ -n "$win" ]; }
wait_for "window" find_window
# XTEST key events go to the focused window (synthetic XSendEvent ones are ignored by GLFW).
xdotool windowfocus --sync "$win" 2>/dev/null || xdotool windowfocus "$win"
wait_for "first frames" at_least 2
field='_field\.png$' screen='_screen\.'
press() { xdotool key "$@"; wait_frames 3; } # a key whose effect a later save shows
saving "$field" xdotool key f            # bare picture, axis y (the default): 40 x 20
press x; saving "$field" xdotool key f   # axis x: 30 x 20
press z; saving "$field" xdotool key f   # axis z: 40 x 30
saving "$screen" xdotool key s           # screen PNG 640 x 400
saving "$screen" xdotool key p           # screen PPM
# the mouse: the Save button of the "Scene and kernel" panel (640x400: 13 px
# font, the panel column starts at x = 357) saves the screen as S does
xdotool mousemove --window "$win" 522 41; wait_frames 3
saving "$screen" xdotool click 1
xdotool mousemove --window "$win" 100 200; wait_frames 3
press o; saving "$screen" xdotool key s  # overlay hidden: S saves the bare picture (axis z): the 40 x 30 slice fitted, 533 x 400
# zoom and pan: the picture is the view, at most the area
xdotool mousemove --window "$win" 320 200; wait_frames 3
xdotool click 4; xdotool click 4; xdotool click 4; wait_frames 3   # wheel: three levels in at the cursor
saving "$screen" xdotool key s           # zoomed: the grid is wider than the area, the picture fills it: 640 x 400
# a drag: the button seen down, then the move, then the release, each in frames of their own
xdotool mousedown 1; wait_frames 3; xdotool mousemove --window "$win" 420 260; wait_frames 3; xdotool mouseup 1; wait_frames 3
saving "$screen" xdotool key s           # dragged: the same size, other cells
saving "$field" xdotool key f            # F is still the whole slice, one pixel per point: 40 x 30
press comma; press comma; press comma
saving "$screen" xdotool key s           # three levels out: the fit, 533 x 400
press period
saving "$screen" xdotool key s           # one level in with the key: 640 x 400
press 0
saving "$screen" xdotool key s           # the whole grid again: 533 x 400
press h; press c; press a; press plus; press minus; press Up; press Next
# paused, the run idles between events: a key wakes it for a frame or more (N: the step's)
xdotool key space; wait_frames 1; xdotool key n; wait_frames 1; xdotool key r; wait_frames 1
xdotool key q
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
