#!/usr/bin/env bash
# The course's kernels (examples/course/) compiled with nvcc and launched as the course launches
# them, against their kernelscope bench rows (--kernel-file, launched as their kernelscope: line
# says): the median time of one iteration each way, and the bench's difference in per cent. The
# done-when of a course kernel is a bench row within 3 % of its own launch.
#
#   scripts/course-timing.sh KERNELSCOPE OUTDIR [REPS]
#   scripts/course-timing.sh --compile-only OUTDIR    (writes and compiles the host programs; no GPU)
#
# Each host program includes the file as it is and launches the entry its kernelscope: line names,
# with its arguments in the line's order and types, its block (the line's block=, the file's macros,
# or the block the bench is given), its shared= and the course's grid for its grid= (domain:
# ceil(n / block) along every axis; columns: the same over (i, j), one block along z; interior: over
# n - 2; cover: ceil(n / block) blocks; sm:N: N blocks a multiprocessor). Each times the same work as
# the bench's row: a Laplace kernel alone; a reduce kernel after zeroing the sum, and a kernel that
# writes one partial a block followed by the addition of the partials into the sum on the device
# (the kernel kernelscope launches after it); a histogram kernel after zeroing the 256 bins, on uniform
# random bytes (the bench's "uniform" row), its bins placed as kernelscope places them (512 bytes past
# a 1 KB boundary: on an H200 the kernels with one global atomic a byte run 2.1x slower with the bins
# on the boundary, whichever program launches them; scripts/histogram-bins-placement.cu measures it).
# Needs nvcc (NVCC, else on PATH, else CUDA_HOME/bin) and, to time, a CUDA GPU. Exit 1 when a
# compile or a bench fails or a row is off by more than 3 %; exit 2 without nvcc.
set -u
cd "$(dirname "$0")/.."
compile_only=0
if [ "${1:-}" = --compile-only ]; then
  compile_only=1
  ks="" out=${2:?usage: scripts/course-timing.sh --compile-only OUTDIR} reps=3
else
  if [ $# -lt 2 ]; then
    echo "usage: scripts/course-timing.sh KERNELSCOPE OUTDIR [REPS] | --compile-only OUTDIR" >&2
    exit 2
  fi
  ks=$1 out=$2 reps=${3:-50}
fi
nvcc=${NVCC:-$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")}
if [ ! -x "$nvcc" ]; then
  echo "course-timing.sh: no nvcc (not on PATH, none at $nvcc; set NVCC or CUDA_HOME): the course's launches are compiled with it" >&2
  exit 2
fi
mkdir -p "$out"
status=0

# Writes OUTDIR/NAME.host.cu for FILE in SCENE at size N with the bench's block BLOCK (AxB[xC]).
host_program() {
  local file=$1 scene=$2 n=$3 block=$4 name=${1%.cu}
  local decl entry args opts grid bexpr sms shared
  decl=$(grep -m1 -E '^[[:space:]]*// kernelscope:' "examples/course/$file" | sed -E 's#^[[:space:]]*// kernelscope:[[:space:]]*##')
  if [ -z "$decl" ]; then
    echo "course-timing.sh: examples/course/$file has no kernelscope: line" >&2
    return 1
  fi
  entry=$(sed -E 's/^([A-Za-z_][A-Za-z0-9_]*).*/\1/' <<<"$decl")
  args=$(sed -E 's/^[^(]*\(([^)]*)\).*/\1/' <<<"$decl")
  opts=$(sed -E 's/^[^)]*\)//' <<<"$decl")
  grid=$(grep -oE 'grid=[a-z]+' <<<"$opts" | cut -d= -f2)
  sms=$(grep -oE 'grid=sm:[^ ]+' <<<"$opts" | cut -d: -f2)
  bexpr=$(grep -oE 'block=[^ ]+' <<<"$opts" | cut -d= -f2)
  [ -n "$bexpr" ] || bexpr=${block//x/,}
  # dynamic shared memory: bytes, or bytes a thread
  shared=$(grep -oE 'shared=[^ ]+' <<<"$opts" | cut -d= -f2)
  case "$shared" in
    "") shared=0 ;;
    *'*threads') shared="(${shared%\*threads}) * BX" ;;
    *) shared="($shared)" ;;
  esac
  local bx by bz
  IFS=, read -r bx by bz <<<"$bexpr"
  by=${by:-1} bz=${bz:-1}
  case "$scene" in
    reduce) reduce_program; return ;;
    histogram) histogram_program; return ;;
  esac
  # the arguments in the line's order: a size as its type there (int unless long / long long)
  local call="" a role cast
  IFS=, read -ra list <<<"$args"
  for a in "${list[@]}"; do
    role=$(awk '{ print $NF }' <<<"$a")
    case "$a" in *long*) cast="(long long)" ;; *) cast="(int)" ;; esac
    case "$role" in
      nx | ny) call+="${call:+, }${cast}N" ;;
      nz) call+="${call:+, }${cast}NZ" ;;
      u) call+="${call:+, }a" ;;
      v) call+="${call:+, }b" ;;
      *) echo "course-timing.sh: $file: '$role' is not a role of $scene" >&2; return 1 ;;
    esac
  done
  local nz=1 launch
  [ "$scene" = laplace3d ] && nz=$n
  case "$grid" in
    domain) launch="dim3 grid((N + BX - 1) / BX, (N + BY - 1) / BY, (NZ + BZ - 1) / BZ), block(BX, BY, BZ);" ;;
    columns) launch="dim3 grid((N + BX - 1) / BX, (N + BY - 1) / BY, 1), block(BX, BY, 1);" ;;
    interior | "") launch="dim3 grid((N - 2 + BX - 1) / BX, (N - 2 + BY - 1) / BY, NZ == 1 ? 1 : (NZ - 2 + BZ - 1) / BZ), block(BX, BY, BZ);" ;;
    *) echo "course-timing.sh: $file: grid=$grid is not a launch of $scene" >&2; return 1 ;;
  esac
  cat >"$out/$name.host.cu" <<HOST
// $file launched as the course launches it: $entry<<<grid, block>>>($call), grid=${grid:-interior}
#include <algorithm>
#include <cstdio>
#include <vector>
#include "$PWD/examples/course/$file"
int main()
{
    const long long N = $n, NZ = $nz, pts = N * N * NZ;
    const long long BX = ($bx), BY = ($by), BZ = ($bz);
    (void)BZ; // a 2D launch does not read it
    float *a, *b;
    cudaMalloc(&a, pts * sizeof(float));
    cudaMalloc(&b, pts * sizeof(float));
    cudaMemset(a, 0, pts * sizeof(float));
    cudaMemset(b, 0, pts * sizeof(float));
    cudaEvent_t t0, t1;
    cudaEventCreate(&t0);
    cudaEventCreate(&t1);
    std::vector<float> ms;
    $launch
    for (int r = -3; r < $reps; ++r) { // three warm-up launches
        cudaEventRecord(t0);
        $entry<<<grid, block>>>($call);
        cudaEventRecord(t1);
        cudaEventSynchronize(t1);
        float m = 0;
        cudaEventElapsedTime(&m, t0, t1);
        if (r >= 0) ms.push_back(m);
        std::swap(a, b);
    }
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) { std::printf("failed: %s\n", cudaGetErrorString(e)); return 1; }
    std::sort(ms.begin(), ms.end());
    std::printf("%.5f\n", ms[ms.size() / 2]);
    return 0;
}
HOST
}

# The 1D scenes' grid (cover or sm:N) and arguments, for reduce_program and histogram_program
# (host_program's locals): sets launch and call, or says why not.
one_d_launch() {
  case "$grid" in
    cover) launch="const long long GRID = (N + BX - 1) / BX;" ;;
    sm) launch="int sms = 0; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0); const long long GRID = ($sms) * (long long)sms;" ;;
    *) echo "course-timing.sh: $file: grid=${grid:-none} is not a launch of $scene (cover, sm:N)" >&2; return 1 ;;
  esac
  call=""
  local a role cast
  IFS=, read -ra list <<<"$args"
  for a in "${list[@]}"; do
    role=$(awk '{ print $NF }' <<<"$a")
    case "$a" in *long*) cast="(long long)" ;; *) cast="(int)" ;; esac
    case "$scene:$role" in
      reduce:x) call+="${call:+, }x" ;;
      reduce:out) call+="${call:+, }out" ;;
      reduce:partials) call+="${call:+, }partials" ;;
      histogram:data) call+="${call:+, }data" ;;
      histogram:bins) call+="${call:+, }bins" ;;
      *:n) call+="${call:+, }${cast}N" ;;
      *) echo "course-timing.sh: $file: '$role' is not a role of $scene" >&2; return 1 ;;
    esac
  done
}

# The timed loop of a 1D program: BODY between two events, the median of REPS.
timed_loop() {
  cat <<LOOP
    cudaEvent_t t0, t1;
    cudaEventCreate(&t0);
    cudaEventCreate(&t1);
    std::vector<float> ms;
    for (int r = -3; r < $reps; ++r) { // three warm-up runs
        cudaEventRecord(t0);
$1
        cudaEventRecord(t1);
        cudaEventSynchronize(t1);
        float m = 0;
        cudaEventElapsedTime(&m, t0, t1);
        if (r >= 0) ms.push_back(m);
    }
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) { std::printf("failed: %s\n", cudaGetErrorString(e)); return 1; }
    std::sort(ms.begin(), ms.end());
    std::printf("%.5f\n", ms[ms.size() / 2]);
    return 0;
}
LOOP
}

# Lecture 4's reduction: the kernel (one partial a block into partials, or adding into out), then,
# for partials, their addition into out on the device, as kernelscope makes it after the kernel.
reduce_program() {
  local launch call body
  one_d_launch || return 1
  body="        cudaMemsetAsync(out, 0, sizeof(float));
        $entry<<<GRID, BX, SHARED>>>($call);"
  case ",$args," in
    *partials*) body+="
        ks_rd_add_partials<<<ADD, KS_RD_ADD_THREADS>>>(partials, GRID, out);" ;;
  esac
  {
    cat <<HOST
// $file launched as the course launches it: $entry<<<GRID, BX, SHARED>>>($call), grid=$grid
#include <algorithm>
#include <cstdio>
#include <vector>
#include "$PWD/examples/course/$file"
#include "$PWD/kernels/reduce/reduce_add_partials.cuh" // the partials into *out, as kernelscope adds them
int main()
{
    const long long N = $n;
    const long long BX = ($bx);
    const size_t SHARED = $shared;
    $launch
    const unsigned ADD = ks_rd_add_grid(GRID);
    float *x, *partials, *out;
    cudaMalloc(&x, N * sizeof(float));
    cudaMalloc(&partials, GRID * sizeof(float));
    cudaMalloc(&out, sizeof(float));
    cudaMemset(x, 0, N * sizeof(float));
    (void)partials;
HOST
    timed_loop "$body"
  } >"$out/$name.host.cu"
}

# The slides' histograms: 256 unsigned bins zeroed, then the kernel over N uniform random bytes.
histogram_program() {
  local launch call
  one_d_launch || return 1
  {
    cat <<HOST
// $file launched as the course launches it: $entry<<<GRID, BX, SHARED>>>($call), grid=$grid
#include <algorithm>
#include <cstdio>
#include <vector>
#include "$PWD/examples/course/$file"
int main()
{
    const long long N = $n;
    const long long BX = ($bx);
    const size_t SHARED = $shared;
    $launch
    std::vector<unsigned char> host(N);
    unsigned long long s = 0x9E3779B97F4A7C15ull; // uniform random bytes (xorshift64)
    for (long long i = 0; i < N; ++i) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        host[i] = (unsigned char)(s >> 56);
    }
    unsigned char *data, *pool;
    cudaMalloc(&data, N);
    // the bins where kernelscope's histogram puts them, 512 bytes past a 1 KB boundary: where they
    // sit changes one-atomic-a-byte kernels' time 2x (scripts/histogram-bins-placement.cu)
    cudaMalloc(&pool, 256 * sizeof(unsigned int) + 1024);
    unsigned int *bins = (unsigned int *)(((size_t)pool + 1023) / 1024 * 1024 + 512);
    cudaMemcpy(data, host.data(), N, cudaMemcpyHostToDevice);
HOST
    timed_loop "        cudaMemsetAsync(bins, 0, 256 * sizeof(unsigned int));
        $entry<<<GRID, BX, SHARED>>>($call);"
  } >"$out/$name.host.cu"
}

# file scene size (the bench's block: 2D 32x8, 3D 32x4x4; a file's block= fixes its own)
while read -r file scene n; do
  name=${file%.cu}
  case "$scene" in laplace3d) block=32x4x4 ;; laplace2d) block=32x8 ;; *) block=256x1 ;; esac
  if ! host_program "$file" "$scene" "$n" "$block"; then status=1; continue; fi
  if ! "$nvcc" -O3 -arch=native -o "$out/$name.host" "$out/$name.host.cu" >"$out/$name.nvcc.log" 2>&1; then
    echo "FAILED  nvcc $file (see $out/$name.nvcc.log)"; status=1; continue
  fi
  if [ $compile_only = 1 ]; then echo "compiled $file ($out/$name.host.cu)"; continue; fi
  if ! own=$("$out/$name.host") || [ -z "$own" ]; then
    echo "FAILED  $file launched as the course does: ${own:-no time}"; status=1; continue
  fi
  case "$scene" in
    laplace*) size=(--grid "$n"); [ "$scene" = laplace2d ] && size=(--grid "${n}x$n") ;;
    *) size=(--size "$n") ;;
  esac
  "$ks" bench "$scene" "${size[@]}" --block "$block" --kernel-file "examples/course/$file" --kernel "$file" \
    --reps "$reps" --out "$out/bench_$name" >"$out/bench_$name.txt" 2>&1
  # the file's row and its median ms: laplace (variant 2, ms 5), reduce (3, 5), histogram's uniform input (2, 7)
  row=$(awk -F, -v f="$file" -v s="$scene" 'NR > 1 && ((s ~ /^laplace/ && $2 == f) || (s == "reduce" && $3 == f)) {
      print $5; exit }
    NR > 1 && s == "histogram" && $2 == f && $3 == "uniform" { print $7; exit }' "$out/bench_$name"/bench_*.csv 2>/dev/null)
  if [ -z "$row" ]; then
    echo "FAILED  bench $scene --kernel-file $file (see $out/bench_$name.txt)"; status=1; continue
  fi
  awk -v f="$file" -v o="$own" -v b="$row" 'BEGIN {
    d = (b / o - 1) * 100; printf "%-22s course launch %.4f ms, bench %.4f ms (%+.1f %%) %s\n", f, o, b, d,
    (d <= 3 && d >= -3) ? "ok" : "OFF" }' | tee -a "$out/course_timing.txt"
  awk -v o="$own" -v b="$row" 'BEGIN { d = (b / o - 1) * 100; exit !(d <= 3 && d >= -3) }' || status=1
done <<'LIST'
laplace3d_kmarch.cu laplace3d 512
laplace3d_block3d.cu laplace3d 512
lap2d_multiple.cu laplace2d 8192
lap2d.cu laplace2d 8192
reduce_sum.cu reduce 268435456
histo_global.cu histogram 104857600
histo_stride.cu histogram 104857600
histo_shared.cu histogram 104857600
LIST
exit $status
