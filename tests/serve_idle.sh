#!/usr/bin/env bash
# A paused run with nobody watching idles (CPU backend, headless, --serve):
# paused from the page and with no viewer, its frame counter (/state.json)
# stops, a key still comes through at once (N: one frame, one iteration), a
# viewer that connects gets pictures, and once it leaves the run idles again;
# SIGTERM ends it with its summary. A --frames run paused from the page still
# ends after its frames. No step waits on the clock: the counters are the
# program's own, read between requests it has to answer, and no wait has a
# deadline of its own (ctest's TIMEOUT is the limit) but each ends with the run.
# With "window" (under xvfb-run) the same in a window, steered from the page,
# and a key pressed in the window (xdotool) still draws while paused.
# Usage: serve_idle.sh KERNELSCOPE [window]
set -u
bin=$1
mode=${2:-headless}
command -v curl >/dev/null || { echo "skipped: curl not installed"; exit 77; }
if [ "$mode" = window ]; then
  [ -n "${DISPLAY:-}" ] || { echo "skipped: no display"; exit 77; }
  display=--window
else
  display=--headless
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ks_idle.XXXXXX")
pid=
cleanup() {
  local rc=$?
  [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
  if [ "$rc" = 0 ] || [ "$rc" = 77 ]; then rm -rf "$tmp"; else echo "kept $tmp (the scratch of a failed test)"; fi
}
trap cleanup EXIT
fails=0
check() { # check NAME GOT WANT
  if [ "$2" = "$3" ]; then echo "ok   $1 ($2)"; else echo "FAIL $1: got '$2', want '$3'"; fails=$((fails + 1)); fi
}

# start NAME ARGS...: kernelscope laplace2d with ARGS, its URL in $base once /state.json answers
start() {
  local log=$tmp/$1.log
  shift
  "$bin" laplace2d --backend cpu "$display" --grid 64 --iters 1 --size 64x64 --no-overlay --serve 0 "$@" >"$tmp/out" 2>"$log" &
  pid=$!
  local url=
  while :; do
    url=$(grep -o 'http://[^ ]*' "$log" | head -1)
    [ -n "$url" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$url" ] || { echo "FAIL: no URL printed"; cat "$log"; exit 1; }
  if grep -q "EGL" "$log" && ! kill -0 "$pid" 2>/dev/null; then echo "skipped: no EGL display"; exit 77; fi
  base=${url%/}
  while kill -0 "$pid" 2>/dev/null; do # 503 until the first frame is drawn
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$base/state.json")" = 200 ] && return
    sleep 0.1
  done
  echo "FAIL: the run ended before /state.json answered 200"; cat "$log"; exit 1
}
field() { # field KEY: its value in /state.json
  curl -s "$base/state.json" | grep -o "\"$1\":[^,]*" | head -1 | cut -d: -f2
}
wait_field() { # wait_field KEY VALUE: until /state.json says KEY VALUE (while the run goes on)
  while kill -0 "$pid" 2>/dev/null; do
    [ "$(field "$1")" = "$2" ] && { echo "$2"; return; }
    sleep 0.05
  done
  field "$1"
}
wait_change() { # wait_change KEY OLD: the first value other than OLD
  local v
  while kill -0 "$pid" 2>/dev/null; do
    v=$(field "$1")
    [ "$v" != "$2" ] && { echo "$v"; return; }
    sleep 0.05
  done
  echo "$2"
}
still() { # still KEY VALUE N: "still" when N reads in a row all say VALUE, else the value that differed
  for _ in $(seq "$3"); do
    local v
    v=$(field "$1")
    [ "$v" = "$2" ] || { echo "$v"; return; }
  done
  echo still
}
key() { curl -s -o /dev/null -w '%{http_code}' -X POST "$base/key?k=$1"; }

start idle
check "POST space" "$(key space)" 204
check "paused" "$(wait_field paused true)" true
f1=$(field frame)
i1=$(field iteration)
# a run that spun its paused frames would move the counter between these reads (the page's state
# goes out up to 60 times a second); an idle one has drawn nothing since the pause
check "paused, no viewer: the frame counter stops" "$(still frame "$f1" 30)" still
check "POST n" "$(key n)" 204
f2=$(wait_change frame "$f1")
check "N draws one frame" "$f2" "$((f1 + 1))"
check "N steps one iteration" "$(field iteration)" "$((i1 + 1))"
check "and the run idles again" "$(still frame "$f2" 30)" still
# a viewer wants pictures: frames come while it reads (the first JPEG of the stream)
curl -s "$base/stream.mjpg" 2>/dev/null | head -c 1000 >"$tmp/stream" || true
check "a viewer gets a picture while paused" "$(grep -c 'image/jpeg' "$tmp/stream" | awk '{print ($1 > 0) ? "yes" : "no"}')" yes
check "still paused" "$(field paused)" true
# once it left, the run settles and idles again: the counter stops where it is
f3=
while kill -0 "$pid" 2>/dev/null; do
  f3=$(field frame)
  [ "$(still frame "$f3" 30)" = still ] && break
done
check "after the viewer left the counter stops" "$(still frame "$f3" 30)" still
if [ "$mode" = window ] && command -v xdotool >/dev/null; then
  # a key in the window wakes it: N steps one iteration (the pointer's and the key's own events
  # may draw a frame or two more for the panels, so only the iteration is counted)
  win=$(xdotool search --onlyvisible --name '^kernelscope$' 2>/dev/null | head -n 1)
  xdotool windowfocus --sync "$win" 2>/dev/null || xdotool windowfocus "$win"
  i3=$(field iteration)
  xdotool key n
  check "N in the window steps one iteration" "$(wait_change iteration "$i3")" "$((i3 + 1))"
  f5=
  while kill -0 "$pid" 2>/dev/null; do
    f5=$(field frame)
    [ "$(still frame "$f5" 30)" = still ] && break
  done
  check "then the window idles again" "$(still frame "$f5" 30)" still
fi
check "space resumes" "$(key space)" 204
check "running" "$(wait_field paused false)" false
f4=$(field frame)
check "running: the counter moves" "$(wait_change frame "$f4" | awk -v f="$f4" '{print ($1 > f) ? "moves" : "stuck"}')" moves
check "space pauses again" "$(key space)" 204
check "paused again" "$(wait_field paused true)" true
kill -TERM "$pid"
wait "$pid"
check "SIGTERM while idle: exit 143" "$?" 143
check "the summary" "$(grep -c '^kernelscope: laplace2d: [0-9]* frames' "$tmp/out")" 1
pid=

# --frames N: paused frames count toward N, so a paused run still ends (its iterations, one a
# frame that steps, fall short of its frames: it ended paused)
start frames --frames 4000
check "POST space (--frames 4000)" "$(key space)" 204
wait "$pid"
check "--frames 4000 paused: ends, exit 0" "$?" 0
check "--frames 4000: 4000 frames" "$(grep -o 'laplace2d: [0-9]* frames' "$tmp/out")" "laplace2d: 4000 frames"
its=$(sed -n 's/.*laplace2d: [0-9]* frames, \([0-9]*\) iterations.*/\1/p' "$tmp/out")
check "--frames 4000: it ended paused" "$(awk -v n="${its:-4000}" 'BEGIN { print (n < 4000) ? "paused" : "ran " n }')" paused
pid=
exit $((fails > 0))
