#!/usr/bin/env bash
# scripts/start.sh builds quietly: a progress line with the build's percentage
# (make's "[ 27%]" lines and ninja's "[12/184]" ones; rewritten in place on a
# terminal, growing by tenths elsewhere) and "built", the build's own lines only
# in <build>/start-build.log, then the app; a failed build shows the log's tail
# and exits 1. Run on a copy of the script whose install-deps.sh and cmake are
# stubs (a build of 120 steps; the "app" says it ran). Then, with the real
# binary (KERNELSCOPE, when given), the headless defaults it chose on the CPU
# backend: frames 20, 40 and 60 must differ (the field visibly evolving).
# Usage: test_start_sh.sh [KERNELSCOPE]
set -u
bin=${1:-}
[ -z "$bin" ] || bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/ks-startsh-XXXXXX)
mkdir -p "$tmp/scripts" "$tmp/bin"
cp "$src/scripts/start.sh" "$tmp/scripts/"
printf '#!/bin/sh\nexit 0\n' > "$tmp/scripts/install-deps.sh"
cat > "$tmp/bin/cmake" <<'STUB'
#!/bin/sh
# cmake -S . -B DIR ...: configure lines and a cache (KS_STUB_CUDA: ON or OFF, default OFF);
# cmake --build DIR ...: 120 steps as make prints them (KS_STUB_GEN=ninja: as ninja does), the binary
if [ "$1" = "--build" ]; then
  [ -n "${KS_STUB_FAIL:-}" ] && { echo "[  1%] Building C object x.c.o"; echo "x.c:1: error: broken"; exit 1; }
  i=1
  while [ $i -le 120 ]; do
    if [ "${KS_STUB_GEN:-make}" = ninja ]; then
      echo "[$i/120] Building C object app/f$i.c.o"
    else
      [ $((i % 30)) = 1 ] && echo "Scanning dependencies of target t$i"
      printf '[%3d%%] Building C object app/f%d.c.o\n' $((i * 100 / 120)) $i
      [ $i = 70 ] && echo "[ 12%] Building C object late/one.c.o" # make -j: a target's lines out of order
    fi
    i=$((i + 1))
  done
  [ "${KS_STUB_GEN:-make}" = ninja ] || echo "[100%] Built target kernelscope"
  printf '#!/bin/sh\necho "app ran: $*"\n' > "$2/kernelscope"
  chmod +x "$2/kernelscope"
else
  echo "-- The C compiler identification is GNU"
  echo "-- Configuring done"
  while [ $# -gt 0 ]; do [ "$1" = -B ] && mkdir -p "$2" && echo "KS_CUDA:BOOL=${KS_STUB_CUDA:-OFF}" > "$2/CMakeCache.txt"; shift; done
fi
STUB
chmod +x "$tmp/scripts/"*.sh "$tmp/bin/cmake"
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }
start() { (cd "$tmp" && env -u DISPLAY -u WAYLAND_DISPLAY PATH="$tmp/bin:$PATH" KS_BUILD_DIR=b "$@" 2>&1); }
out=$(start scripts/start.sh --frames 1)
rc=$?
before=$(printf '%s\n' "$out" | sed '/^app ran/,$d' | wc -l)
check "exit 0 (got $rc)" '[ "$rc" = 0 ]'
check "at most 3 lines before the app ($before): $out" '[ "$before" -le 3 ]'
check "the app ran with the arguments" 'printf "%s" "$out" | grep -q "app ran: --headless .* --frames 1"'
# not a terminal: one line that grows by each tenth of make's percentage, in order, each once
check "the progress line, by tenths: $out" \
  'printf "%s\n" "$out" | grep -qx "kernelscope: building into b/ (log: b/start-build.log)  10% 20% 30% 40% 50% 60% 70% 80% 90% 100%"'
# the headless defaults stand back where the user gave the flag (a flag given twice is refused)
check "--frames once: $out" '[ "$(printf "%s" "$out" | grep "app ran" | grep -o -- "--frames" | wc -l)" = 1 ]'
out2=$(start scripts/start.sh spheres --out=o2 --save-every 5)
check "--out and --save-every once: $out2" '[ "$(printf "%s" "$out2" | grep "app ran" | grep -o -- "--out\|--save-every" | wc -l)" = 2 ]'
check "it names the user's folder" 'printf "%s" "$out2" | grep -q "frames go to o2/"'
check "no build step on the terminal" '! printf "%s" "$out" | grep -q "Building C object"'
check "the log keeps every step" '[ "$(grep -c "Building C object app/" "$tmp/b/start-build.log")" = 120 ]'
check "it says where the log is" 'printf "%s" "$out" | grep -q "b/start-build.log"'
out3=$(KS_STUB_GEN=ninja start scripts/start.sh)
check "ninja's steps as tenths too: $out3" 'printf "%s\n" "$out3" | grep -q "(log: b/start-build.log)  10% 20% .* 90% 100%$"'
# on a terminal (script(1) gives it one): the percentage rewritten in place, on one line
if command -v script >/dev/null 2>&1; then
  tty_out=$(cd "$tmp" && env -u DISPLAY -u WAYLAND_DISPLAY PATH="$tmp/bin:$PATH" KS_BUILD_DIR=b \
            script -qec "scripts/start.sh --frames 1" /dev/null 2>&1 | tr -d '\n')
  cr=$'\r'
  check "a terminal sees the percentage rewritten: $(printf '%s' "$tty_out" | cat -v)" \
    'case $tty_out in *"${cr}kernelscope: building   4%"*"${cr}kernelscope: building  50%"*"${cr}kernelscope: building 100%"*) true ;; *) false ;; esac'
  check "a terminal sees no build step" 'case $tty_out in *"Building C object"*) false ;; *) true ;; esac'
else
  echo "note: no script(1) here; the terminal's progress line is not checked"
fi
out=$(KS_STUB_FAIL=1 start scripts/start.sh)
rc=$?
check "a failed build exits 1 (got $rc)" '[ "$rc" = 1 ]'
check "a failed build shows the error: $out" 'printf "%s" "$out" | grep -q "x.c:1: error: broken"'
check "a failed build runs no app" '! printf "%s" "$out" | grep -q "app ran"'

# headless on the CPU backend (here: a build without CUDA) laplace3d runs at 16 iterations a
# frame; not where the user chose the grid or the iterations, another scene, or CUDA
cpu_args=$(start scripts/start.sh | sed -n 's/^app ran: //p')
check "laplace3d on the CPU: --iters 16 ($cpu_args)" 'printf "%s" "$cpu_args" | grep -q -- "--iters 16"'
for a in "--grid 64" "--iters 64" "spheres" "laplace2d" "--backend cuda"; do
  got=$(KS_STUB_CUDA=ON start scripts/start.sh --backend cpu $a 2>/dev/null | grep "app ran")
  [ "$a" = "--backend cuda" ] && got=$(KS_STUB_CUDA=ON start scripts/start.sh $a | grep "app ran")
  check "no --iters 16 with $a: $got" '! printf "%s" "$got" | grep -q -- "--iters 16"'
done
got=$(KS_STUB_CUDA=ON start scripts/start.sh --backend=cpu | grep "app ran")
check "--iters 16 with --backend=cpu on a CUDA build: $got" 'printf "%s" "$got" | grep -q -- "--iters 16"'

# those defaults with the real app: frames 20, 40 and 60 differ by a measurable amount (the
# mean difference of the bare pictures, 0..255 a channel: 1.5 and 0.1 at the 64 iterations
# a frame it ran before, 7.0 and 3.3 at 16)
if [ -n "$bin" ]; then
  mkdir -p "$tmp/run"
  # shellcheck disable=SC2086 # the arguments as start.sh gave them (no spaces in any)
  (cd "$tmp/run" && env -u DISPLAY -u WAYLAND_DISPLAY "$bin" $cpu_args --backend cpu --no-overlay --size 320x200 \
     >"$tmp/run/stdout" 2>"$tmp/run/stderr")
  rc=$?
  if [ "$rc" != 0 ] && grep -q EGL "$tmp/run/stderr"; then
    echo "note: no headless GL here; the frames are not checked"
  else
    check "the real run (exit $rc): $(cat "$tmp/run/stderr")" '[ "$rc" = 0 ]'
    diffs=""
    [ "$rc" = 0 ] && diffs=$(python3 - "$tmp/run/out" <<'PY'
import struct, sys, zlib

def load(path):
    """An 8-bit PNG (not interlaced), as rows of bytes, through zlib and the five filters."""
    data, pos, idat = open(path, "rb").read(), 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and interlace == 0, path
            ch = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), w * ch, [], bytearray(w * ch)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a, b, c = (line[i - ch] if i >= ch else 0), prev[i], (prev[i - ch] if i >= ch else 0)
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return rows

frames = [load("%s/laplace3d_%06d.png" % (sys.argv[1], k)) for k in (20, 40, 60)]
def mean_diff(p, q):
    return sum(abs(x - y) for rp, rq in zip(p, q) for x, y in zip(rp, rq)) / (len(p) * len(p[0]))
print("%.2f %.2f" % (mean_diff(frames[0], frames[1]), mean_diff(frames[1], frames[2])))
PY
)
    echo "frames 20 -> 40 -> 60: mean differences $diffs"
    check "frames 20, 40 and 60 differ, each from the next, by 2 or more: '$diffs'" \
      'printf "%s" "$diffs" | awk "{ exit !(NF == 2 && \$1 >= 2 && \$2 >= 2) }"'
  fi
else
  echo "note: no KERNELSCOPE given; the frames are not checked"
fi
if [ "$fail" = 0 ]; then rm -rf "$tmp"; else echo "kept $tmp (the scratch of a failed test)"; fi
exit "$fail"
