#!/usr/bin/env bash
# The course's kernels (examples/course/) compiled with nvcc and launched as the course launches
# them, against their kernelscope bench rows (--kernel-file, launched as their kernelscope: line
# says): the median time of one iteration each way, and the bench's difference in per cent. The
# done-when of a course kernel is a bench row within 3 % of its own launch.
#
#   scripts/course-timing.sh KERNELSCOPE OUTDIR [REPS]
#
# Needs nvcc on PATH (or CUDA_HOME/bin) and a CUDA GPU. Exit 1 when a row is off by more than 3 %.
set -u
cd "$(dirname "$0")/.."
ks=$1 out=$2 reps=${3:-50}
mkdir -p "$out"
nvcc=$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
status=0
# file scene grid launch (the course's: columns = 2D grid over (i, j) marching in k; domain3 = 3D grid
# over the whole domain; domain2 = 2D grid over the whole domain); block as the file's macros or 32x8
while read -r file scene n launch; do
  name=${file%.cu}
  cat >"$out/$name.host.cu" <<HOST
#include <algorithm>
#include <cstdio>
#include <vector>
#include "$PWD/examples/course/$file"
#ifndef BLOCK_X
#define BLOCK_X 32
#endif
#ifndef BLOCK_Y
#define BLOCK_Y 8
#endif
#ifndef BLOCK_Z
#define BLOCK_Z 1
#endif
int main()
{
    const long long N = $n, NZ = ("$scene"[7] == '3') ? N : 1, pts = N * N * NZ;
    float *a, *b;
    cudaMalloc(&a, pts * sizeof(float));
    cudaMalloc(&b, pts * sizeof(float));
    cudaMemset(a, 0, pts * sizeof(float));
    cudaMemset(b, 0, pts * sizeof(float));
    cudaEvent_t t0, t1;
    cudaEventCreate(&t0);
    cudaEventCreate(&t1);
    std::vector<float> ms;
    for (int r = -3; r < $reps; ++r) { // three warm-up launches
        cudaEventRecord(t0);
        if (std::string("$launch") == "columns") {
            dim3 grid(1 + (N - 1) / BLOCK_X, 1 + (N - 1) / BLOCK_Y), block(BLOCK_X, BLOCK_Y);
            GPU_laplace3d<<<grid, block>>>(N, N, NZ, a, b);
        } else if (std::string("$launch") == "domain3") {
            dim3 grid(1 + (N - 1) / BLOCK_X, 1 + (N - 1) / BLOCK_Y, 1 + (NZ - 1) / BLOCK_Z);
            GPU_laplace3d<<<grid, dim3(BLOCK_X, BLOCK_Y, BLOCK_Z)>>>(N, N, NZ, a, b);
        } else {
            dim3 grid(N / BLOCK_X, N / BLOCK_Y), block(BLOCK_X, BLOCK_Y);
            lap<<<grid, block>>>((int)N, (int)N, a, b);
        }
        cudaEventRecord(t1);
        cudaEventSynchronize(t1);
        float m = 0;
        cudaEventElapsedTime(&m, t0, t1);
        if (r >= 0) ms.push_back(m);
        std::swap(a, b);
    }
    if (cudaGetLastError() != cudaSuccess) { std::printf("failed: %s\n", cudaGetErrorString(cudaGetLastError())); return 1; }
    std::sort(ms.begin(), ms.end());
    std::printf("%.5f\n", ms[ms.size() / 2]);
    return 0;
}
HOST
  sed -i '1i #include <string>' "$out/$name.host.cu"
  if ! "$nvcc" -O3 -arch=native -o "$out/$name.host" "$out/$name.host.cu" >"$out/$name.nvcc.log" 2>&1; then
    echo "FAILED  nvcc $file (see $out/$name.nvcc.log)"; status=1; continue
  fi
  own=$("$out/$name.host")
  grid=$n; [ "$scene" = laplace2d ] && grid=${n}x$n
  block=32x8; [ "$scene" = laplace3d ] && block=32x4x4
  "$ks" bench "$scene" --grid "$grid" --block "$block" --kernel-file "examples/course/$file" --kernel "$file" \
    --reps "$reps" --out "$out/bench_$name" >"$out/bench_$name.txt" 2>&1
  row=$(awk -F, -v f="$file" 'NR > 1 && $2 == f { print $5; exit }' "$out/bench_$name"/bench_*.csv 2>/dev/null)
  if [ -z "$row" ]; then
    echo "FAILED  bench $scene --kernel-file $file (see $out/bench_$name.txt)"; status=1; continue
  fi
  awk -v f="$file" -v o="$own" -v b="$row" 'BEGIN {
    d = (b / o - 1) * 100; printf "%-22s course launch %.4f ms, bench %.4f ms (%+.1f %%) %s\n", f, o, b, d,
    (d <= 3 && d >= -3) ? "ok" : "OFF" }' | tee -a "$out/course_timing.txt"
  awk -v o="$own" -v b="$row" 'BEGIN { d = (b / o - 1) * 100; exit !(d <= 3 && d >= -3) }' || status=1
done <<'LIST'
laplace3d_kmarch.cu laplace3d 512 columns
laplace3d_block3d.cu laplace3d 512 domain3
lap2d_multiple.cu laplace2d 8192 domain2
lap2d.cu laplace2d 8192 domain2
LIST
exit $status
