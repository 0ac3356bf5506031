#!/usr/bin/env bash
# The E key in the live window (xdotool under Xvfb): E starts a recording
# under --out, E stops it; a second one still going at Q is finished too.
# Each video is checked with ffprobe (h264, the window's size, its length
# following the wall clock). The test waits on the app's own signs, never a
# fixed time: its first frames (rows of its timings CSV), the video's file
# appearing when a recording starts, the "wrote" line when it ends. Only the
# time between starting and stopping a recording is a sleep: it is what the
# video's length is checked against, as measured around the app's signs.
# Usage: keys_record.sh KERNELSCOPE_BINARY
set -euo pipefail
bin=$1
[ -n "${DISPLAY:-}" ] || exit 77
command -v xdotool >/dev/null || exit 77
command -v ffprobe >/dev/null || exit 77
out=$(mktemp -d /tmp/ks-rec-XXXXXX)
trap 'rc=$?; [ "$rc" = 0 ] || echo "kept $out (the scratch of a failed test)"' EXIT
now() { date +%s.%N; }
for scene in laplace2d spheres; do
  dir="$out/$scene"
  # --save-every with a count no run reaches: no pictures, but a timings CSV row as each frame ends
  "$bin" $scene --backend cpu --window --size 320x240 --fps 30 --save-every 1000000000 --out "$dir" \
    >"$out/$scene.stdout" 2>"$out/$scene.stderr" &
  pid=$!
  fail() { echo "$scene: $1"; cat "$out/$scene.stderr"; kill $pid 2>/dev/null || true; exit 1; }
  # waits until the command given succeeds, however long load makes it (ctest's TIMEOUT is
  # the limit; a line a minute says what is awaited); fails if the app is gone
  wait_for() {
    local what=$1 note=$((SECONDS + 60))
    shift
    until "$@"; do
      kill -0 $pid 2>/dev/null || fail "kernelscope exited while waiting for $what"
      [ $SECONDS -lt $note ] || { echo "$scene: still waiting for $what"; note=$((SECONDS + 60)); }
      sleep 0.05
    done
  }
  win=""
  find_window() { win=$(xdotool search --onlyvisible --name '^kernelscope$' 2>/dev/null | head -n 1 || true); [ -n "$win" ]; }
  csv_lines() { # the timings CSV, under its temporary name while the app runs: a header, a row a frame
    local f
    f=$(ls "$dir"/${scene}_timings.csv.tmp-* 2>/dev/null | head -n 1 || true)
    if [ -n "$f" ]; then wc -l <"$f"; else echo 0; fi
  }
  running() { [ "$(csv_lines)" -ge 3 ]; }
  recording() { ls "$dir" | grep -q "^${scene}_.*\.mp4\.tmp-"; } # the recorder's file, renamed when done
  wrote() { [ "$(grep -c "wrote .*${scene}_.*\.mp4" "$out/$scene.stdout" || true)" -ge "$1" ]; }
  wait_for "window" find_window
  xdotool windowfocus --sync "$win" 2>/dev/null || xdotool windowfocus "$win"
  wait_for "first frames" running
  # a recording of about 2 s, from the app's start of it to the key that stops it
  t0=$(now); xdotool key e; wait_for "recording" recording; t1=$(now)
  sleep 2.0
  t2=$(now); xdotool key e; wait_for "'wrote' line of the first video" wrote 1; t3=$(now)
  # one still going when the view quits, about 0.8 s
  t4=$(now); xdotool key e; wait_for "second recording" recording; t5=$(now)
  sleep 0.8
  t6=$(now); xdotool key q
  wait $pid || { echo "$scene: kernelscope exited $?"; cat "$out/$scene.stderr"; exit 1; }
  t7=$(now)
  mapfile -t videos < <(ls "$dir"/${scene}_*.mp4 | sort)
  echo "$scene: ${videos[*]}"
  [ ${#videos[@]} -eq 2 ] || { echo "$scene: expected 2 videos"; ls -la "$dir"; exit 1; }
  # per video: when E was pressed, when the recording was seen, when the stop key was pressed, when it was seen done
  spans=("$t0 $t1 $t2 $t3" "$t4 $t5 $t6 $t7")
  for i in 0 1; do
    # (a here-string, not echo | grep -q: under pipefail, grep leaving at its match could end the
    # echo with SIGPIPE and fail the check on a loaded machine)
    info=$(ffprobe -v error -select_streams v:0 -show_entries stream=codec_name,width,height \
             -show_entries format=duration -of default=nw=1 "${videos[$i]}")
    grep -qx 'codec_name=h264' <<<"$info" || { echo "not h264: $info"; exit 1; }
    grep -qx 'width=320' <<<"$info" || { echo "width: $info"; exit 1; }
    grep -qx 'height=240' <<<"$info" || { echo "height: $info"; exit 1; }
    d=$(echo "$info" | sed -n 's/^duration=//p')
    pts=$(ffprobe -v error -select_streams v:0 -show_entries packet=pts_time -of csv=p=0 "${videos[$i]}" | tr '\n' ' ')
    # The length follows the wall clock between the app's start and stop of the recording. That
    # lies within what this test saw: at most from the start key to the stop seen done, and at
    # least from the recording seen to the stop key, less the last frame's wait (the largest gap
    # between the video's frames, twice, for a frame the encoder dropped at the end) and 0.25 s.
    python3 - "$d" "${spans[$i]}" "$pts" "${videos[$i]}" <<'PY' || exit 1
import sys
d = float(sys.argv[1])
press, seen, stop_press, stop_seen = map(float, sys.argv[2].split())
pts = sorted(float(t) for t in sys.argv[3].split())
gap = max([b - a for a, b in zip(pts, pts[1:])] or [0.0])
lo = (stop_press - seen) - 2 * gap - 0.25
hi = (stop_seen - press) + 2 / 30 + 0.25
print("%s: %.3f s, %d frames, largest gap %.3f s; expected %.3f .. %.3f s" % (sys.argv[4], d, len(pts), gap, lo, hi))
sys.exit(0 if lo <= d <= hi else 1)
PY
  done
  grep -q "wrote .*${scene}_.*\.mp4" "$out/$scene.stdout" || { echo "no 'wrote' line"; cat "$out/$scene.stdout"; exit 1; }
  ! ls "$dir" | grep -q '\.tmp-' || { echo "temporary files left"; exit 1; }
done
echo "record key ok"
rm -rf "$out"
