#!/usr/bin/env bash
# scripts/start.sh builds quietly: a progress line and "built", the build's own
# lines only in <build>/start-build.log, then the app; a failed build shows the
# log's tail and exits 1. Run on a copy of the script whose install-deps.sh and
# cmake are stubs (a build of 120 steps; the "app" says it ran).
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/ks-startsh-XXXXXX)
mkdir -p "$tmp/scripts" "$tmp/bin"
cp "$src/scripts/start.sh" "$tmp/scripts/"
printf '#!/bin/sh\nexit 0\n' > "$tmp/scripts/install-deps.sh"
cat > "$tmp/bin/cmake" <<'STUB'
#!/bin/sh
# cmake -S . -B DIR ...: configure lines; cmake --build DIR ...: 120 steps, the binary
if [ "$1" = "--build" ]; then
  [ -n "${KS_STUB_FAIL:-}" ] && { echo "[1/120] Building C object x.c.o"; echo "x.c:1: error: broken"; exit 1; }
  i=1
  while [ $i -le 120 ]; do echo "[$i/120] Building C object app/f$i.c.o"; i=$((i + 1)); done
  printf '#!/bin/sh\necho "app ran: $*"\n' > "$2/kernelscope"
  chmod +x "$2/kernelscope"
else
  echo "-- The C compiler identification is GNU"
  echo "-- Configuring done"
fi
STUB
chmod +x "$tmp/scripts/"*.sh "$tmp/bin/cmake"
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }
out=$(cd "$tmp" && env -u DISPLAY -u WAYLAND_DISPLAY PATH="$tmp/bin:$PATH" KS_BUILD_DIR=b scripts/start.sh --frames 1 2>&1)
rc=$?
before=$(printf '%s\n' "$out" | sed '/^app ran/,$d' | wc -l)
check "exit 0 (got $rc)" '[ "$rc" = 0 ]'
check "at most 3 lines before the app ($before): $out" '[ "$before" -le 3 ]'
check "the app ran with the arguments" 'printf "%s" "$out" | grep -q "app ran: --headless .* --frames 1"'
# the headless defaults stand back where the user gave the flag (a flag given twice is refused)
check "--frames once: $out" '[ "$(printf "%s" "$out" | grep "app ran" | grep -o -- "--frames" | wc -l)" = 1 ]'
out2=$(cd "$tmp" && env -u DISPLAY -u WAYLAND_DISPLAY PATH="$tmp/bin:$PATH" KS_BUILD_DIR=b scripts/start.sh spheres --out=o2 --save-every 5 2>&1)
check "--out and --save-every once: $out2" '[ "$(printf "%s" "$out2" | grep "app ran" | grep -o -- "--out\|--save-every" | wc -l)" = 2 ]'
check "it names the user's folder" 'printf "%s" "$out2" | grep -q "frames go to o2/"'
check "no build step on the terminal" '! printf "%s" "$out" | grep -q "Building C object"'
check "the log keeps every step" '[ "$(grep -c "Building C object" "$tmp/b/start-build.log")" = 120 ]'
check "it says where the log is" 'printf "%s" "$out" | grep -q "b/start-build.log"'
out=$(cd "$tmp" && env -u DISPLAY -u WAYLAND_DISPLAY PATH="$tmp/bin:$PATH" KS_BUILD_DIR=b KS_STUB_FAIL=1 scripts/start.sh 2>&1)
rc=$?
check "a failed build exits 1 (got $rc)" '[ "$rc" = 1 ]'
check "a failed build shows the error: $out" 'printf "%s" "$out" | grep -q "x.c:1: error: broken"'
check "a failed build runs no app" '! printf "%s" "$out" | grep -q "app ran"'
if [ "$fail" = 0 ]; then rm -rf "$tmp"; else echo "kept $tmp (the scratch of a failed test)"; fi
exit "$fail"
