#!/usr/bin/env bash
# issue 21, defect 6: a named pipe as --scene or --input is refused at once
# (it used to block in open() until killed), and a folder too, with one
# line; and a bad --block on the CPU backend gives its error alone (defect 8).
# No deadline of its own: a run that blocks on the pipe is ended by ctest's
# TIMEOUT, and the line before it says which one it was.
# Usage: input_fifo.sh KERNELSCOPE
set -u
bin=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ks_fifo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkfifo "$tmp/f" || { echo "skipped: no mkfifo"; exit 77; }
fails=0
check() { if [ "$2" = "$3" ]; then echo "ok   $1 ($2)"; else echo "FAIL $1: got '$2', want '$3'"; fails=$((fails + 1)); fi; }
for args in "spheres --scene $tmp/f" "histogram --input $tmp/f" "spheres --scene $tmp" "histogram --input $tmp"; do
  echo "run: $args"
  "$bin" $args --backend cpu --headless --frames 1 >"$tmp/out" 2>&1 </dev/null
  rc=$?
  check "$args: exit 2" "$rc" 2
  check "$args: one line, says why" "$(grep -c 'not a regular file' "$tmp/out")/$(wc -l <"$tmp/out")" 1/1
done
# defect 8: a bad --block on the CPU backend is an error alone (the cpu notice used to come first)
"$bin" laplace3d --backend cpu --block 1024x1024x1024 --headless --frames 1 >"$tmp/out" 2>&1
check "laplace3d --block 1024x1024x1024 on the cpu: exit 2" "$?" 2
check "laplace3d --block 1024x1024x1024 on the cpu: the error alone" "$(wc -l <"$tmp/out")/$(grep -c '^kernelscope: error:' "$tmp/out")" 1/1
exit $((fails > 0))
