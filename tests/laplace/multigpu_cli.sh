#!/usr/bin/env bash
# --gpus and --weak on the command line: bad values, a build or machine that
# cannot run several GPUs, and combinations that do not go together, each
# refused with exit 2 and one line on stderr. Runs anywhere (no GPU needed).
set -u
bin=${KS_BINARY:?KS_BINARY names the kernelscope binary}
tmp=$(mktemp -d /tmp/ks-multigpu-cli-XXXXXX)
fails=0
refused() { # refused PATTERN ARGS...: exit 2, one stderr line matching PATTERN
  local pattern=$1
  shift
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$? lines
  lines=$(wc -l <"$tmp/err")
  if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q -- "$pattern" "$tmp/err"; then
    echo "FAIL: kernelscope $* -> exit $rc, $lines stderr lines (want 2, 1, /$pattern/):"
    cat "$tmp/err"
    fails=$((fails + 1))
  else
    echo "ok: kernelscope $*: $(cat "$tmp/err")"
  fi
}
refused "at least 1" bench laplace3d --gpus 0 --out "$tmp/o"
refused "not a" bench laplace3d --gpus two --out "$tmp/o"
refused "at most 16" laplace3d --gpus 17 --headless --frames 1
refused "goes with --gpus" bench laplace2d --weak --out "$tmp/o"
refused "named twice" laplace3d --gpus 1,1 --headless --frames 1
printf 'extern "C" __global__ void jacobi() {}\n' >"$tmp/k.cu"
refused "" laplace3d --gpus 2 --kernel-file "$tmp/k.cu" --headless --frames 1
refused "" bench laplace3d --gpus 1,2 --backend cpu --out "$tmp/o"
# Without a second GPU (or without NCCL in the build) --gpus 2 says what is missing.
gpus=0
command -v nvidia-smi >/dev/null 2>&1 && gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
if [ "$gpus" -lt 2 ]; then
  refused "" bench laplace3d --gpus 2 --grid 64 --out "$tmp/o"
fi
# Under mpirun on a machine without a GPU: each rank says so in its one line, and the job exits 2.
if [ "$gpus" -lt 1 ] && command -v mpirun >/dev/null 2>&1; then
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ASAN_OPTIONS=detect_leaks=0 timeout -k 5 120 \
    mpirun -np 2 --oversubscribe "$bin" bench laplace3d --grid 32 --out "$tmp/o" </dev/null >"$tmp/out" 2>"$tmp/err"
  rc=$?
  ranks=$(grep -c '^kernelscope: error: MPI rank [01] ' "$tmp/err")
  if [ "$rc" -ne 2 ] || [ "$ranks" -ne 2 ]; then
    echo "FAIL: mpirun -np 2 without a GPU -> exit $rc, $ranks rank lines (want 2, 2):"; cat "$tmp/err"
    fails=$((fails + 1))
  else
    echo "ok: mpirun -np 2 without a GPU: $(grep -m 1 '^kernelscope: error' "$tmp/err")"
  fi
fi
if [ "$fails" -eq 0 ]; then rm -rf "$tmp"; else echo "kept $tmp"; fi
[ "$fails" -eq 0 ]
