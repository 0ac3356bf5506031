#!/usr/bin/env bash
# --serve end to end with curl and raw sockets (CPU backend, headless): the
# endpoints, JPEGs from /stream.mjpg, keys by POST and by WebSocket, bad
# requests and WebSocket frames (4xx or a closed connection, and the server
# keeps serving), tokens, a port in use, and 2 x 50 viewers coming and going
# with the memory (VmRSS) flat. Usage: serve_http.sh KERNELSCOPE
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=$1
command -v curl >/dev/null || { echo "skipped: curl not installed"; exit 77; }
# sanitizer builds: a bounded quarantine, so that freed blocks do not read as growth in VmRSS
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ks_serve.XXXXXX")
pids=()
cleanup() { # the scratch folder goes when the test passed (or skipped); kept, and named, when it failed
  local rc=$?
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
  wait 2>/dev/null
  if [ "$rc" = 0 ] || [ "$rc" = 77 ]; then rm -rf "$tmp"; else echo "kept $tmp (the scratch of a failed test)"; fi
}
trap cleanup EXIT
fails=0
check() { # check NAME GOT WANT
  if [ "$2" = "$3" ]; then echo "ok   $1 ($2)"; else echo "FAIL $1: got '$2', want '$3'"; fails=$((fails + 1)); fi
}
# No deadline on an answer here (a request of a stream passes its own --max-time: how long it
# watches); ctest's TIMEOUT is the limit, however slow load makes the server.
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }

# start NAME ARGS...: runs kernelscope with ARGS, waits for its URL (into $url, $port, $pid)
start() {
  local log=$tmp/$1.log
  shift
  "$bin" laplace2d --backend cpu --headless --frames 100000 --grid 256 --iters 2 --size 256x256 --no-overlay "$@" >"$log" 2>&1 &
  pid=$!
  pids+=("$pid")
  # no deadline in these waits: the run's own signs (its URL, its state), however long load
  # makes them; ctest's TIMEOUT is the limit
  while :; do
    url=$(grep -o 'http://[^ ]*' "$log" | head -1)
    [ -n "$url" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$url" ] || { echo "FAIL: no URL printed"; cat "$log"; exit 1; }
  port=$(echo "$url" | sed 's|http://[^/]*:\([0-9]*\)/.*|\1|')
  # /state.json answers 503 until the first frame is drawn: wait for it (any other code is the test's)
  local state_url="${url%%\?*}state.json"
  case $url in *\?*) state_url="$state_url?${url#*\?}" ;; esac
  while [ "$(curl -s -o /dev/null -w '%{http_code}' "$state_url")" = 503 ]; do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
}
state_field() { # the first value of "KEY" in /state.json
  curl -s "${url%/}/state.json$1" | grep -o "\"$2\":[^,]*" | head -1 | cut -d: -f2
}
wait_state() { # wait_state QUERY KEY VALUE: waits for /state.json to say KEY VALUE (while the run goes on)
  while kill -0 "$pid" 2>/dev/null; do
    [ "$(state_field "$1" "$2")" = "$3" ] && { echo "$3"; return; }
    sleep 0.1
  done
  state_field "$1" "$2"
}
ws_open() { # opens fd 3 as a WebSocket on /ws$1; the status line's code goes into $ws
  ws=none
  exec 3<>"/dev/tcp/127.0.0.1/$port" || return
  printf 'GET /ws%s HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n' "$1" "$port" >&3
  ws=$(head -c 12 <&3 | cut -d' ' -f2)
}
ws_text() { # a masked text frame (mask 0: the payload goes as is), payload < 126 bytes
  printf "\\x81\\x$(printf %02x $((0x80 + ${#1})))\\x00\\x00\\x00\\x00%s" "$1" >&3
}

start main --serve 0
base=${url%/}
# listeners PORT: the address (hex, as the kernel writes it) of each listening TCP socket on PORT,
# IPv4 and IPv6, read from /proc (no ss or netstat needed)
listeners() {
  awk -v p="$(printf '%04X' "$1")" 'FNR > 1 && $4 == "0A" { split($2, a, ":"); if (a[2] == p) printf "%s ", a[1] }' \
    /proc/net/tcp /proc/net/tcp6 2>/dev/null
}
check "listens on loopback only" "$(listeners "$port")" "0100007F "
check "GET /" "$(code "$base/")" 200
curl -s "$base/" | grep -q '<canvas' && check "page has a canvas" yes yes || check "page has a canvas" no yes
check "GET /state.json" "$(code "$base/state.json")" 200
json=$(curl -s "$base/state.json")
for k in scene device backend variant block memory grid iteration residual stages_ms t_eff_gbs t_peak_gbs fps paused frame view; do
  echo "$json" | grep -q "\"$k\":" || { echo "FAIL state.json lacks $k"; fails=$((fails + 1)); }
done
check "state scene" "$(state_field "" scene)" '"laplace2d"'
check "state backend" "$(state_field "" backend)" '"cpu"'

# keys by POST
check "POST /key?k=space" "$(code -X POST "$base/key?k=space")" 204
check "paused after space" "$(wait_state "" paused true)" true
check "POST /key?k=space (body)" "$(code -d '' "$base/key?k=space")" 204
check "running after space" "$(wait_state "" paused false)" false
check "POST /key unknown" "$(code -X POST "$base/key?k=nosuchkey")" 400
check "POST /key no name" "$(code -X POST "$base/key")" 400
check "POST /key too long a name" "$(code -X POST "$base/key?k=$(head -c 200 /dev/zero | tr '\0' a)")" 400
check "POST elsewhere" "$(code -X POST "$base/nothing")" 404
check "POST to a GET route" "$(code -X POST "$base/state.json")" 405
check "POST big body" "$(code --data-binary @<(head -c 5000 /dev/zero) "$base/key?k=tab")" 413

# errors
check "GET /nothing" "$(code "$base/nothing")" 404
check "GET /ws without upgrade" "$(code "$base/ws")" 400
check "PUT /" "$(code -X PUT "$base/")" 405
long=$(head -c 10000 /dev/zero | tr '\0' a)
check "long URI" "$(code "$base/$long")" 414
check "long header" "$(code -H "User-Agent: $long" "$base/state.json")" 431
exec 3<>"/dev/tcp/127.0.0.1/$port"
printf 'GARBAGE\r\n\r\n' >&3
check "garbage request" "$(head -c 12 <&3 | cut -d' ' -f2 | cut -c1)" 4
exec 3<&-
exec 3<>"/dev/tcp/127.0.0.1/$port"
printf 'GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\0\r\n\r\n' >&3
got=$(head -c 12 <&3 | cut -d' ' -f2)
exec 3<&-
[ -z "$got" ] && got=closed
case $got in 4*|closed) check "NUL in the request head" 4xx-or-closed 4xx-or-closed ;; *) check "NUL in the request head" "$got" 4xx-or-closed ;; esac
check "still serving" "$(code "$base/state.json")" 200

# the WebSocket: a key as JSON, then bad frames close only that connection
ws_open ""
check "ws upgrade" "$ws" 101
ws_text '{"key":"space"}'
check "paused after ws key" "$(wait_state "" paused true)" true
ws_text '{"key":"space"}'
check "running after ws key" "$(wait_state "" paused false)" false
# a page with WebCodecs asks for H.264: its first video message is a key frame with SPS, PPS and IDR
if grep -q "no H.264" "$tmp/main.log"; then
  echo "     (this build has no video: H.264 not checked)"
else
  python3 "$here/ws_h264.py" "$port" >"$tmp/h264.out" 2>&1; rc=$?
  cat "$tmp/h264.out" | sed 's/^/     /'
  check "ws H.264 key frame (Annex B: SPS, PPS, IDR)" "$rc" 0
fi
# the wheel zooms the Laplace view on the server, as in the window (256 cells in 256 pixels: 1 -> 1.25 px a cell)
ws_text '{"mouse":"wheel","x":100,"y":100,"dy":1,"inside":true}'
while kill -0 "$pid" 2>/dev/null && [ "$(state_field "" px_per_cell)" = 1 ]; do sleep 0.1; done
check "ws wheel zooms the view" "$(state_field "" px_per_cell | awk '{ print ($1 > 1.2499 && $1 < 1.2501) ? "1.25" : $1 }')" 1.25
ws_text '{"mouse":"wheel","x":100,"y":100,"dy":-1,"inside":true}'
check "ws wheel zooms back out" "$(wait_state "" px_per_cell 1)" 1
ws_text 'not json at all'
cat <&3 >/dev/null # the server closes it
check "ws closed after a bad message" "$?" 0
exec 3<&-
ws_open ""
printf '\x81\x05hello' >&3 # unmasked: a protocol error from a client
cat <&3 >/dev/null # the server closes it
check "ws closed after an unmasked frame" "$?" 0
exec 3<&-
ws_open ""
printf '\x83\x80\x00\x00\x00\x00' >&3 # reserved opcode
cat <&3 >/dev/null # the server closes it
check "ws closed after a reserved opcode" "$?" 0
exec 3<&-
ws_open "/x"
check "ws on another path" "$ws" 404
exec 3<&- 2>/dev/null
check "still serving after bad frames" "$(code "$base/state.json")" 200

# /stream.mjpg: parts with whole JPEGs that decode
curl -s --max-time 13 "$base/stream.mjpg" -o "$tmp/s.mjpg"
check "stream still open after 13 s (curl timed out)" "$?" 28
parts=$(grep -c -a 'Content-Type: image/jpeg' "$tmp/s.mjpg")
soi=$(LC_ALL=C grep -c -a -o -P '\xff\xd8\xff' "$tmp/s.mjpg")
eoi=$(LC_ALL=C grep -c -a -o -P '\xff\xd9' "$tmp/s.mjpg")
echo "     stream: $parts parts in 13 s ($(awk "BEGIN{printf \"%.1f\", $parts / 13}") fps), $soi SOI, $eoi EOI markers"
[ "$parts" -ge 2 ] && check "mjpeg parts >= 2" yes yes || check "mjpeg parts >= 2" "$parts" ">= 2"
check "one SOI per part" "$soi" "$parts"
[ "$eoi" -ge $((parts - 1)) ] && check "EOI per finished part" yes yes || check "EOI per finished part" "$eoi" ">= $((parts - 1))"
if command -v ffprobe >/dev/null; then
  n=$(ffprobe -v error -f mpjpeg -count_frames -select_streams v:0 -show_entries stream=codec_name,width,height,nb_read_frames \
      -of csv=p=0 "$tmp/s.mjpg" 2>"$tmp/ffprobe.err" | head -1)
  echo "     ffprobe: $n"
  check "ffprobe decodes mjpeg" "$(echo "$n" | cut -d, -f1)" mjpeg
  check "picture size (the 256x256 grid fitted to --size 256x256)" "$(echo "$n" | cut -d, -f2-3)" "256,256"
fi

# 2 x 50 viewers (MJPEG and WebSocket) coming and going: memory stays flat
rss() { awk '/VmRSS/ {print $2}' "/proc/$pid/status"; }
viewers() { # 50 at once, each for a second
  local vp=()
  for i in $(seq 50); do
    if [ $((i % 2)) = 0 ]; then
      curl -s --max-time 1 "$base/stream.mjpg" -o /dev/null &
    else
      (ws_open "" && timeout 1 head -c 100000 <&3 >/dev/null; exec 3<&-) &
    fi
    vp+=($!)
  done
  wait "${vp[@]}"
}
viewers
rss1=$(rss)
viewers
rss2=$(rss)
viewers
rss3=$(rss)
echo "     VmRSS after 50 / 100 / 150 viewers: $rss1 / $rss2 / $rss3 kB"
grow=$((rss3 - rss1))
[ "$grow" -lt 8192 ] && check "memory flat over 100 more viewers" yes yes || check "memory flat over 100 more viewers" "+$grow kB" "< 8192 kB"
check "still serving after viewers" "$(code "$base/state.json")" 200

# a port in use: one line, exit 2
"$bin" laplace2d --backend cpu --headless --frames 1 --serve "$port" >"$tmp/busy.out" 2>"$tmp/busy.err"
check "port in use exit" "$?" 2
check "port in use: one line" "$(wc -l <"$tmp/busy.err")" 1
"$bin" laplace2d --backend cpu --headless --frames 1 --serve 10.255.255.1:0 >/dev/null 2>"$tmp/bad.err"
check "address not here exit" "$?" 2
"$bin" laplace2d --backend cpu --headless --frames 1 --serve 70000 >/dev/null 2>&1
check "bad port exit" "$?" 2
"$bin" laplace2d --backend cpu --headless --frames 1 --token abcdefgh12 >/dev/null 2>&1
check "--token without --serve" "$?" 2
kill -TERM "$pid"
wait "$pid"
check "SIGTERM exit" "$?" 143

# a token: given (loopback), and generated (any other address)
start tok --serve 0 --token s3cret-token
base=${url%%\?*}
base=${base%/}
check "URL carries the token" "$(echo "$url" | grep -c 'token=s3cret-token')" 1
check "no token" "$(code "$base/")" 403
check "wrong token" "$(code "$base/?token=wrong-token")" 403
check "right token" "$(code "$base/?token=s3cret-token")" 200
check "state.json no token" "$(code "$base/state.json")" 403
check "stream no token" "$(code --max-time 2 "$base/stream.mjpg")" 403
check "key no token" "$(code -X POST "$base/key?k=space")" 403
ws_open ""
check "ws no token" "$ws" 403
exec 3<&- 2>/dev/null
ws_open "?token=nope"
check "ws wrong token" "$ws" 403
exec 3<&- 2>/dev/null
ws_open "?token=s3cret-token"
check "ws right token" "$ws" 101
exec 3<&- 2>/dev/null
kill -TERM "$pid"
wait "$pid"

start gen --serve 0.0.0.0:0
base=http://127.0.0.1:$port
tok=$(echo "$url" | sed -n 's/.*token=\([0-9a-f]*\).*/\1/p')
check "generated token length" "${#tok}" 32
check "generated: no token" "$(code "$base/")" 403
check "generated: right token" "$(code "$base/state.json?token=$tok")" 200
kill -TERM "$pid"
wait "$pid"

[ "$fails" -eq 0 ] && echo "all passed" || echo "$fails failed"
[ "$fails" -eq 0 ]
