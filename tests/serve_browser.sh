#!/usr/bin/env bash
# --serve with a real browser: headless Chromium opens the viewer page of a
# CPU-backend run with ?selftest=1. The page waits until its canvas has shown
# frames with different pictures, then presses Space through the WebSocket;
# this script sees /state.json change to paused (the whole way: frames
# decoded in the page, a key back to the live loop). Skipped (77) without
# Chromium. Usage: serve_browser.sh KERNELSCOPE
set -u
bin=$1
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$browser" ] || { echo "skipped: no chromium"; exit 77; }
command -v curl >/dev/null || { echo "skipped: curl not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ks_browser.XXXXXX")
kpid=""
bpid=""
cleanup() { # the scratch folder goes when the test passed (or skipped); kept, and named, when it failed
  local rc=$?
  [ -n "$bpid" ] && kill -TERM "$bpid" 2>/dev/null
  [ -n "$kpid" ] && kill -TERM "$kpid" 2>/dev/null
  wait 2>/dev/null
  if [ "$rc" = 0 ] || [ "$rc" = 77 ]; then rm -rf "$tmp"; else echo "kept $tmp (the scratch of a failed test)"; fi
}
trap cleanup EXIT

"$bin" laplace2d --backend cpu --headless --frames 100000 --serve 0 --token browser-test-token >"$tmp/run.log" 2>&1 &
kpid=$!
url=""
# no deadline in these waits: the run's and the page's own signs, however long load makes
# them; ctest's TIMEOUT is the limit
while :; do
  url=$(grep -o 'http://[^ ]*' "$tmp/run.log" | head -1)
  [ -n "$url" ] && break
  kill -0 "$kpid" 2>/dev/null || break
  sleep 0.1
done
[ -n "$url" ] || { echo "FAIL: no URL printed"; cat "$tmp/run.log"; exit 1; }
state="${url%%\?*}state.json?token=browser-test-token"
paused() { curl -s --max-time 5 "$state" | grep -o '"paused":[a-z]*' | head -1 | cut -d: -f2; }
# /state.json is 503 until the first frame is drawn: wait for it
while [ -z "$(paused)" ] && kill -0 "$kpid" 2>/dev/null; do sleep 0.1; done
[ "$(paused)" = false ] || { echo "FAIL: the run starts paused"; exit 1; }
frame0=$(curl -s --max-time 5 "$state" | grep -o '"frame":[0-9]*' | head -1 | cut -d: -f2)

"$browser" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$tmp/profile" \
  --remote-debugging-port=0 "$url&selftest=1" >"$tmp/browser.log" 2>&1 &
bpid=$!
t0=$SECONDS
while :; do
  if [ "$(paused)" = true ]; then
    frame1=$(curl -s --max-time 5 "$state" | grep -o '"frame":[0-9]*' | head -1 | cut -d: -f2)
    echo "ok: the page saw changing frames and pressed Space after $((SECONDS - t0)) s (frames $frame0 -> $frame1), /state.json says paused"
    exit 0
  fi
  kill -0 "$bpid" 2>/dev/null || { echo "FAIL: the browser exited"; tail -5 "$tmp/browser.log"; exit 1; }
  kill -0 "$kpid" 2>/dev/null || { echo "FAIL: kernelscope exited"; tail -5 "$tmp/run.log"; exit 1; }
  sleep 0.1
done
