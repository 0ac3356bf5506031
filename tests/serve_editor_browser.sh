#!/usr/bin/env bash
# --edit's page in a real browser, without a GPU: headless Chromium opens the
# viewer page of serve_editor_host (the real server, a kernel editor kept in
# memory) with ?selftest=edit. The page adds a line, presses Compile, waits
# for the build to come back, then saves a source that is refused and checks
# that the log shows; the result lands in the DOM, which Chromium prints.
# Twice: with CodeMirror when libjs-codemirror is installed, and with the
# plain text area (the host pointed at a folder without it). Also saves a
# screenshot of the first (SCREENSHOT=FILE). Skipped (77) without Chromium.
# Usage: serve_editor_browser.sh SERVE_EDITOR_HOST
set -u
host=$1
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$browser" ] || { echo "skipped: no chromium"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ks_editor.XXXXXX")
hpid=""
cleanup() {
  local rc=$?
  [ -n "$hpid" ] && kill -TERM "$hpid" 2>/dev/null
  wait 2>/dev/null
  if [ "$rc" = 0 ] || [ "$rc" = 77 ]; then rm -rf "$tmp"; else echo "kept $tmp (the scratch of a failed test)"; fi
}
trap cleanup EXIT
run() { # CODEMIRROR_DIR WANT SCREENSHOT: one page self-test against a fresh host
  local url="" result
  # emptied here, before the host starts: its own redirection empties the file only once the
  # child runs, and on a loaded machine the loop below could read the last run's URL first
  : >"$tmp/url.txt"
  "$host" 0 "$1" >"$tmp/url.txt" 2>"$tmp/host.log" & # serves until the TERM below
  hpid=$!
  while :; do # the host's own line: its URL, however long load makes it
    url=$(head -n 1 "$tmp/url.txt" 2>/dev/null)
    [ -n "$url" ] && break
    kill -0 "$hpid" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$url" ] || { echo "FAIL: the host printed no URL"; cat "$tmp/host.log"; exit 1; }
  # --virtual-time-budget: the page's timers run until it is quiet, then the DOM is printed
  # (virtual time: however long load makes it; ctest's TIMEOUT is the limit)
  "$browser" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$tmp/profile" \
    --virtual-time-budget=60000 --window-size=1400,900 ${3:+--screenshot="$3"} \
    --dump-dom "$url&selftest=edit" >"$tmp/dom.html" 2>"$tmp/browser.log"
  kill -TERM "$hpid" 2>/dev/null
  wait "$hpid" || { echo "FAIL: the host did not end cleanly on SIGTERM"; cat "$tmp/host.log"; exit 1; }
  hpid=""
  result=$(grep -o 'selftest [A-Z]*[^<]*' "$tmp/dom.html" | head -n 1)
  case $result in
    "selftest PASS"*"$2") echo "ok: $result" ;;
    *) echo "FAIL: ${result:-no self-test result in the page} (wanted: $2)"; tail -n 5 "$tmp/browser.log"; exit 1 ;;
  esac
}
if [ -f /usr/share/javascript/codemirror/lib/codemirror.js ]; then
  run /usr/share/javascript/codemirror "in CodeMirror" "${SCREENSHOT:-}"
else
  echo "note: libjs-codemirror is not installed; the CodeMirror run is left out"
fi
run "$tmp/no-codemirror" "in the plain text area" ""
