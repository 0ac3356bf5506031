#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/*.c: the sphere scene-file parser,
# the best-config store reader, and the server's request handling: route
# dispatch and query, POST bodies, WebSocket messages, and one connection's
# bytes: pipelined requests, their heads and bodies, then WebSocket frames)
# with clang, ASan and UBSan, and runs each for a bounded time from its seed
# corpus.
#   scripts/fuzz.sh [seconds]       seconds per target, default 60
# scripts/test.sh runs it with 20 s a target, so a target that no longer
# builds or finds something fails CI.
# Needs clang with its fuzzer runtime (Debian: clang, libclang-rt-*-dev or the
# clang package's own runtime); installs them through apt-get when missing.
# The targets build and run side by side, one a core. New inputs found go to
# build-fuzz/corpus_*; a finding leaves build-fuzz/fuzz_<target>-crash-* (leak-,
# timeout-, oom-) and exits non-zero; build-fuzz/failed-targets names the
# targets that failed to build or found something.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
secs="${1:-60}"
case "$secs" in ''|*[!0-9]*) echo "fuzz.sh: seconds must be a whole number, got '$secs'" >&2; exit 2;; esac
out="${KS_FUZZ_DIR:-build-fuzz}"
mkdir -p "$out"

cc="${CC_FUZZ:-}"
probe() { echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n){(void)d;(void)n;return 0;}' |
          "$1" -x c - -fsanitize=fuzzer -o "$out/probe" >/dev/null 2>&1; }
if [ -z "$cc" ]; then
  for c in clang clang-18 clang-17 clang-16 clang-15 clang-14; do
    if command -v "$c" >/dev/null 2>&1 && probe "$c"; then cc="$c"; break; fi
  done
fi
if [ -z "$cc" ]; then
  echo "fuzz.sh: no clang with -fsanitize=fuzzer found; installing clang through apt-get"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends clang >/dev/null
  ver="$(clang --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -1)"
  probe clang || DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends \
    "libclang-rt-${ver}-dev" >/dev/null || true
  probe clang || { echo "fuzz.sh: clang cannot build with -fsanitize=fuzzer" >&2; exit 1; }
  cc=clang
fi
echo "fuzz.sh: using $cc ($($cc --version | head -1))"

flags=(-std=gnu11 -g -O1 -I. -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -Wall -Wextra -Werror)
targets=(scene best_config route post_body ws_message pipeline)
# The targets that failed (did not build, found something), one a line: what
# scripts/test.sh names in its closing line.
failed_list="$out/failed-targets"
: >"$failed_list"
jobs=$(nproc)
# build_target NAME ARGS...: fuzz_NAME from ARGS (sources, flags, libraries); a
# failure goes to the failed list and leaves that target's run out.
build_target() {
  local t=$1
  shift
  "$cc" "${flags[@]}" -o "$out/fuzz_$t" "$@" || { echo "fuzz_$t (build)" >>"$failed_list"; rm -f "$out/fuzz_$t"; }
}
# each target with the sources its code calls (ks_util.c: UTF-8 checks in messages;
# tmpfiles.c, out_file.c: the store's atomic save); the builds run side by side, one a core
rm -f "${targets[@]/#/$out/fuzz_}"
build_target scene tests/fuzz/fuzz_scene.c kernels/spheres/spheres.c \
  base/ks_error.c base/ks_util.c -lm &
build_target best_config $(pkg-config --cflags stb) tests/fuzz/fuzz_best_config.c \
  app/best_config.c kernels/laplace/laplace_variants.c base/ks_error.c base/ks_util.c \
  base/tmpfiles.c base/out_file.c render/image_io.c $(pkg-config --libs stb) -lm &
serve_src=(serve/request.c serve/request_head.c serve/request_ws.c serve/serve_auth.c serve/serve_keys.c base/ks_error.c base/ks_util.c)
for t in route post_body ws_message pipeline; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  build_target "$t" $(pkg-config --cflags libwebsockets) "tests/fuzz/fuzz_$t.c" "${serve_src[@]}" \
    $(pkg-config --libs libwebsockets) -lm &
done
wait

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export TMPDIR="${TMPDIR:-/tmp}"
stamp="$out/.run-started"
touch "$stamp"
# run_target NAME: fuzz_NAME for $secs s from its seeds; its findings are
# written as fuzz_NAME-crash-* (leak-, timeout-, oom-) beside the logs.
run_target() {
  local t=$1 rc=0
  local seeds="tests/fuzz/corpus_${t%_config}" found="$out/corpus_${t%_config}"
  mkdir -p "$found"
  local max_len=4096
  [ "$t" = pipeline ] && max_len=20000 # past the 8 KiB head limit, with requests after it
  (cd "$out" && "./fuzz_$t" -max_total_time="$secs" -max_len="$max_len" -timeout=10 -print_final_stats=1 \
     -artifact_prefix="fuzz_$t-" "$(basename "$found")" "$root/$seeds") >"$out/fuzz_$t.log" 2>&1 || rc=$?
  { echo "fuzz.sh: fuzz_$t, up to ${secs} s (seeds: $seeds)"
    grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::new_units_added|SUMMARY|artifact_prefix|Test unit written)" \
      "$out/fuzz_$t.log" || true; } | sed "s/^/[fuzz_$t] /"
  if [ $rc -ne 0 ] || [ -n "$(find "$out" -maxdepth 1 -name "fuzz_$t-*" -newer "$stamp")" ]; then
    echo "fuzz.sh: fuzz_$t exited $rc (log: $out/fuzz_$t.log)" >&2
    echo "fuzz_$t" >>"$failed_list"
  fi
}
# The targets run side by side, one a core (libFuzzer runs one thread): each
# still runs its $secs s, with a core of its own on an idle machine.
for t in "${targets[@]}"; do
  [ -x "$out/fuzz_$t" ] || continue
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  run_target "$t" &
done
wait
if [ -s "$failed_list" ]; then
  echo "fuzz.sh: failed: $(paste -sd ' ' "$failed_list"); see $out for the logs and failing inputs" >&2
  exit 1
fi
echo "fuzz.sh: no crash, leak or hang found"
