#!/usr/bin/env bash
# The E key in the live window (xdotool under Xvfb): E starts a recording
# under --out, E stops it; a second one still going at Q is finished too.
# Each video is checked with ffprobe (h264, the window's size, its length
# following the wall clock). Usage: keys_record.sh KERNELSCOPE_BINARY
set -euo pipefail
bin=$1
[ -n "${DISPLAY:-}" ] || exit 77
command -v xdotool >/dev/null || exit 77
command -v ffprobe >/dev/null || exit 77
out=$(mktemp -d /tmp/ks-rec-XXXXXX)
trap 'rc=$?; [ "$rc" = 0 ] || echo "kept $out (the scratch of a failed test)"' EXIT
for scene in laplace2d spheres; do
  "$bin" $scene --backend cpu --window --size 320x240 --fps 30 --out "$out/$scene" >"$out/$scene.stdout" 2>"$out/$scene.stderr" &
  pid=$!
  win=""
  for _ in $(seq 1 100); do
    win=$(xdotool search --onlyvisible --name '^kernelscope$' 2>/dev/null | head -n 1 || true)
    [ -n "$win" ] && break
    sleep 0.1
  done
  [ -n "$win" ] || { echo "window did not appear"; cat "$out/$scene.stderr"; kill $pid; exit 1; }
  xdotool windowfocus --sync "$win" 2>/dev/null || xdotool windowfocus "$win"
  sleep 1.0
  xdotool key e; sleep 2.0; xdotool key e   # a recording of about 2 s
  sleep 0.5
  xdotool key e; sleep 0.8; xdotool key q   # one still going when the view quits
  wait $pid || { echo "$scene: kernelscope exited $?"; cat "$out/$scene.stderr"; exit 1; }
  mapfile -t videos < <(ls "$out/$scene"/${scene}_*.mp4 | sort)
  echo "$scene: ${videos[*]}"
  [ ${#videos[@]} -eq 2 ] || { echo "$scene: expected 2 videos"; ls -la "$out/$scene"; exit 1; }
  for i in 0 1; do
    info=$(ffprobe -v error -select_streams v:0 -show_entries stream=codec_name,width,height \
             -show_entries format=duration -of default=nw=1 "${videos[$i]}")
    echo "$info" | grep -qx 'codec_name=h264' || { echo "not h264: $info"; exit 1; }
    echo "$info" | grep -qx 'width=320' || { echo "width: $info"; exit 1; }
    echo "$info" | grep -qx 'height=240' || { echo "height: $info"; exit 1; }
    d=$(echo "$info" | sed -n 's/^duration=//p')
    # the wall clock: about 2 s and 0.8 s (key delivery and a loaded machine leave room)
    lo=$([ $i -eq 0 ] && echo 0.8 || echo 0.1); hi=$([ $i -eq 0 ] && echo 6.0 || echo 4.0)
    python3 -c "import sys; d=float('$d'); sys.exit(0 if $lo <= d <= $hi else 1)" ||
      { echo "${videos[$i]}: duration $d s, expected $lo..$hi"; exit 1; }
  done
  grep -q "wrote .*${scene}_.*\.mp4" "$out/$scene.stdout" || { echo "no 'wrote' line"; cat "$out/$scene.stdout"; exit 1; }
  ! ls "$out/$scene" | grep -q '\.tmp-' || { echo "temporary files left"; exit 1; }
done
echo "record key ok"
rm -rf "$out"
