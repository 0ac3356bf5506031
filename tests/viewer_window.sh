#!/usr/bin/env bash
# libkernelscope's window under an X server: the viewer opens its window and
# draws the field with the app's panels; keys pressed in it and a click on
# its Step button (XTEST, as a user's) reach ks_viewer_poll: N a step, R one of
# the program's keys, Q the stop. Without a display, create fails with
# KS_VIEWER_EDISPLAY and one line.
# Usage (ctest runs it under xvfb-run): viewer_window.sh HOST_PROGRAM
set -u
host=$1
[ -n "${DISPLAY:-}" ] || exit 77
command -v xdotool >/dev/null || exit 77
tmp=$(mktemp -d /tmp/ks-vwin-XXXXXX)
fails=0
out=$(env -u DISPLAY -u WAYLAND_DISPLAY "$host" nodisplay 2>&1)
if [ $? -ne 0 ]; then echo "FAIL: without a display: $out"; fails=$((fails + 1)); else echo "ok: without a display: $out"; fi
mkfifo "$tmp/lines"
"$host" "$tmp/first.png" >"$tmp/lines" 2>"$tmp/stderr" &
pid=$!
exec 3<"$tmp/lines"
# the program's own signal: its first picture is drawn (and saved)
if ! read -r line <&3 || [ "$line" != drawn ]; then
  echo "FAIL: no picture drawn: ${line:-nothing}"; cat "$tmp/stderr"; kill $pid; exit 1
fi
win=$(xdotool search --sync --onlyvisible --name '^ks-window-test$' | head -n 1)
xdotool windowfocus --sync "$win" 2>/dev/null || xdotool windowfocus "$win"
# KS_VWIN_SHOT=FILE.png: a picture of the screen with the window, to look at
[ -n "${KS_VWIN_SHOT:-}" ] && ffmpeg -loglevel error -y -f x11grab -video_size 1280x800 -i "$DISPLAY" -frames:v 1 "$KS_VWIN_SHOT"
# two steps by key, then one by the panel's Step button (the app's panels, clicked as a user
# would), each waited for through the program's own "steps=N" line
wait_steps() {
  while read -r line <&3; do [ "$line" = "steps=$1" ] && return 0; done
  echo "FAIL: no steps=$1 from the program (last: ${line:-nothing})"; cat "$tmp/stderr"; kill $pid; exit 1
}
xdotool key --delay 50 n n
wait_steps 2
xdotool mousemove --window "$win" 1026 43 click 1
wait_steps 3
xdotool key r # a key of the program's own
while read -r line <&3; do [ "$line" = "key=r" ] && break; done
[ "$line" = "key=r" ] || { echo "FAIL: the R key did not reach ks_viewer_poll (last: ${line:-nothing})"; kill $pid; exit 1; }
echo "ok: the R key reached ks_viewer_poll's keys"
xdotool key q
if ! read -r line <&3; then line="nothing"; fi
wait $pid
rc=$?
case "$line" in
  "quit steps=3 "*) [ $rc -eq 0 ] && echo "ok: the window's keys and its Step button: $line" ;;
  *) rc=1 ;;
esac
if [ $rc -ne 0 ]; then echo "FAIL: keys from the window: '$line' (exit $rc)"; cat "$tmp/stderr"; fails=$((fails + 1)); fi
[ -s "$tmp/first.png" ] || { echo "FAIL: no first picture saved"; fails=$((fails + 1)); }
if [ "$fails" -eq 0 ]; then rm -rf "$tmp"; else echo "kept $tmp"; fi
[ "$fails" -eq 0 ]
